#!/bin/bash
# Timing on (two binaries, A and B) and off (B), transpose.ron N=4096 PAD=1 and PAD=0, at each
# rayon thread count given, alternating, REPS rounds: how the model's cost scales with cores.
# Wall and user seconds from /usr/bin/time.
#   scripts/scaling.sh A_BINARY B_BINARY OUT.tsv "16 8 4 2" [REPS]
# benches/results/2026-12-02-scaling-16core.tsv: A = 680d4c4, B = b5f1385 (SMs that may
# receive a block stepped side by side), on the device machine's 16 cores (Intel Xeon, KVM).
set -u
A=$1; B=$2; out=$3; THREADS=${4:-"$(nproc)"}; REPS=${5:-2}
echo -e "threads\tpad\tbin\tmode\trep\twall_s\tuser_s" > "$out"
for rep in $(seq "$REPS"); do
  for th in $THREADS; do
    for pad in 1 0; do
      for bm in "B:on" "A:on" "B:off"; do
        b=${bm%%:*}; m=${bm##*:}; bin=$A; [ "$b" = B ] && bin=$B
        f=""; [ "$m" = off ] && f=--no-timing
        /usr/bin/time -f "%e %U" -o /tmp/scaling.t env RAYON_NUM_THREADS="$th" "$bin" run programs/transpose.ron \
          -D N=4096 -D PAD=$pad $f --format json --no-verify > /dev/null 2>&1
        read -r w u < /tmp/scaling.t
        echo -e "$th\t$pad\t$b\t$m\t$rep\t$w\t$u" >> "$out"
      done
    done
  done
done
cat "$out"
