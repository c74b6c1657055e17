#!/usr/bin/env bash
# Merges what a fuzz run found into the checked-in corpus, keeping it small: libFuzzer's
# `-merge=1` (what `cargo fuzz cmin` runs) adds to fuzz/corpus/TARGET only the inputs of the
# run's output directories that reach coverage the corpus does not reach yet, and leaves the
# existing files (the hand-picked seeds) alone. Prints the corpus's size before and after.
# libFuzzer counts hit-count buckets as features, so a long run can bring thousands of "new"
# inputs; at most MAX_NEW of them (default 200) are kept, spread evenly over the new inputs
# sorted by size (small ones replay fast, large ones make `gen` write large programs).
#
#   fuzz/merge_corpus.sh TARGET OUTPUT_DIR...     (from anywhere; TARGET: load, run, gen or ptx)
#   MAX_NEW=50 fuzz/merge_corpus.sh gen ../gen_out
#
# The target is built first (`cargo fuzz build --sanitizer none TARGET`). tests/fuzz_corpus.rs
# replays every corpus directory in `cargo test`: keep an eye on its time after a merge.
set -euo pipefail
cd "$(dirname "$0")"
target=${1:?usage: merge_corpus.sh TARGET OUTPUT_DIR...}
shift
[ $# -ge 1 ] || { echo "usage: merge_corpus.sh TARGET OUTPUT_DIR..." >&2; exit 2; }
dirs=()
for d in "$@"; do dirs+=("$(cd "$d" && pwd)"); done
case $target in
  load | run) dict=(-dict=ron.dict) ;;
  ptx) dict=(-dict=ptx.dict) ;;
  gen) dict=() ;;
  *) echo "unknown target $target (load, run, gen, ptx)" >&2; exit 2 ;;
esac
corpus=corpus/$target
mkdir -p "$corpus"
size() { printf '%s files, %s bytes' "$(find "$1" -type f | wc -l)" "$(find "$1" -type f -printf '%s\n' | awk '{s+=$1} END {print s+0}')"; }
echo "before: $corpus: $(size "$corpus")"
cargo fuzz build --sanitizer none "$target"
bin=$(find target -path "*/release/$target" -type f | head -n 1)
# Merge into a copy, so that the new files can be told from the old and capped.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -p "$corpus"/. "$tmp"/ -r
"$bin" -merge=1 -rss_limit_mb=2048 -timeout=10 "${dict[@]}" "$tmp" "${dirs[@]}" 2>&1 |
  grep -E '^MERGE-OUTER: [0-9]+ new files' || true
mapfile -t new < <(cd "$tmp" && for f in *; do [ -e "$OLDPWD/$corpus/$f" ] || printf '%s %s\n' "$(stat -c %s "$f")" "$f"; done | sort -n | awk '{print $2}')
max=${MAX_NEW:-200}
n=${#new[@]}
keep=$(( n < max ? n : max ))
echo "new inputs: $n; keeping $keep (MAX_NEW=$max, spread over their sizes)"
for (( i = 0; i < keep; i++ )); do cp "$tmp/${new[i * n / keep]}" "$corpus/"; done
echo "after:  $corpus: $(size "$corpus")"
