#!/bin/bash
# calibration/checks/sampled_timing: transpose.ron N=4096 off, default (sampled: K = 12), --sample 1 (every
# block), --sample 4, alternated.
# usage (from the repository root): calibration/checks/sampled_timing/speed.sh WARPSIM_BINARY ROUNDS
# prints one line per run: round, PAD, mode, wall seconds (speed.txt: 3 rounds, 2 threads)
B=$1
for r in $(seq 1 $2); do
  for pad in 0 1; do
    for mode in off default 1 4; do
      case $mode in off) a="--no-timing";; default) a="";; *) a="--sample $mode";; esac
      s=$( { /usr/bin/time -f "%e" $B run programs/transpose.ron -D N=4096 -D PAD=$pad --format json $a > /dev/null; } 2>&1 | tail -1)
      echo "$r $pad $mode $s"
    done
  done
done
