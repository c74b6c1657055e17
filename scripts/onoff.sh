#!/bin/bash
# Timing on vs off, side by side (alternating, REPS rounds), on transpose.ron N=4096 PAD=0 and
# PAD=1, at each rayon thread count given: the speed target (timing on costs at most 2x
# the functional run). Wall seconds and peak RSS from /usr/bin/time.
#   scripts/onoff.sh BINARY OUT.tsv "16 2" [REPS]
set -u
BIN=$1; OUT=$2; THREADS=${3:-"$(nproc)"}; REPS=${4:-3}
echo -e "threads\tpad\tmode\trep\twall_s\tmax_rss_kb" > "$OUT"
for th in $THREADS; do
  for rep in $(seq "$REPS"); do
    for pad in 0 1; do
      for mode in off on; do
        flag=""; [ $mode = off ] && flag=--no-timing
        if [ -x /usr/bin/time ]; then
          /usr/bin/time -f "%e %M" -o /tmp/onoff.t env RAYON_NUM_THREADS=$th "$BIN" run programs/transpose.ron \
            -D N=4096 -D PAD=$pad $flag --format json > /dev/null 2>&1
          read -r wall rss < /tmp/onoff.t
        else
          t0=$(date +%s%N)
          RAYON_NUM_THREADS=$th "$BIN" run programs/transpose.ron -D N=4096 -D PAD=$pad $flag --format json > /dev/null 2>&1
          wall=$(( ($(date +%s%N) - t0) / 1000000 ))e-3; rss=NA
        fi
        echo -e "$th\t$pad\t$mode\t$rep\t$wall\t$rss" >> "$OUT"
      done
    done
  done
done
cat "$OUT"
