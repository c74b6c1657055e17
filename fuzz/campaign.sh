#!/usr/bin/env bash
# One fuzzing campaign: runs TARGET (load, run, gen or ptx) for SECONDS with the flags
# docs/src/contributing.md gives, new inputs into artifacts/TARGET_out, libFuzzer's log into
# artifacts/TARGET.log (a crash's input lands in artifacts/TARGET/). JOBS > 1 runs that many
# processes side by side (libFuzzer's -fork). Then add what it found to the corpus with
# `./merge_corpus.sh TARGET artifacts/TARGET_out`. cargo-fuzz comes from ./install.sh.
#
#   fuzz/campaign.sh load 3600
#   JOBS=2 fuzz/campaign.sh ptx 600
set -euo pipefail
cd "$(dirname "$0")"
target=${1:?usage: campaign.sh TARGET SECONDS}
secs=${2:?usage: campaign.sh TARGET SECONDS}
case $target in
  load | run) extra=(-dict=ron.dict) ;;
  ptx) extra=(-dict=ptx.dict) ;;
  gen) extra=(-max_len=1024 -len_control=0) ;;
  *) echo "unknown target $target (load, run, gen, ptx)" >&2; exit 2 ;;
esac
jobs=${JOBS:-1}
[ "$jobs" -gt 1 ] && extra+=("-fork=$jobs")
command -v cargo-fuzz > /dev/null || PATH="$PWD/.tools/bin:$PATH"
out=artifacts/${target}_out
mkdir -p "$out" "artifacts/$target"
cargo fuzz build --sanitizer none "$target"
echo "$(date -u +%FT%TZ) $target for ${secs}s, $jobs job(s), corpus $out + corpus/$target"
status=0
cargo fuzz run "$target" --sanitizer none "$out" "corpus/$target" -- "${extra[@]}" \
    -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 > "artifacts/$target.log" 2>&1 ||
    status=$?
grep -E '^#[0-9]+.*(DONE|pulse)' "artifacts/$target.log" | tail -n 1
exit $status
