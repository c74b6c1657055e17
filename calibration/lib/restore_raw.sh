#!/bin/bash
# Restores raw outputs that are no longer in the tree (calibration/raw.tsv) from git history and
# checks each one's sha256.
#
#   bash calibration/lib/restore_raw.sh [--check] [--force] [WHAT ...]
#   bash calibration/lib/restore_raw.sh --digest CAMPAIGN
#
# WHAT: a file's path (its place in the new layout, as raw.tsv lists it) or any prefix of one,
# e.g. calibration/draws/draw5 (the whole campaign) or calibration/draws/draw5/raw/ncu_1.csv;
# none: every file. A file already there with the right sha256 is left alone (--force writes
# it again). --check: write nothing; check that git still holds each file with its sha256.
# --digest CAMPAIGN: the campaign's archive checksum in calibration/manifest.tsv, the sha256 of
# `sha256sum`-style lines ("<sha256>  <path>") of its raw.tsv rows sorted by path.
# Exit status 1 if any file is missing from git or has another sha256. Runs from anywhere in
# the repository; needs the commits raw.tsv names (a shallow clone may lack them:
# `git fetch --unshallow`).
set -u
ROOT=$(git rev-parse --show-toplevel 2>/dev/null) || { echo "restore_raw: not in a git repository" >&2; exit 2; }
cd "$ROOT" || exit 2
TSV=calibration/raw.tsv
check=0 force=0
if [ "${1:-}" = "--digest" ]; then
  [ $# -eq 2 ] || { echo "usage: restore_raw.sh --digest CAMPAIGN" >&2; exit 2; }
  c=${2%/}
  awk -F'\t' -v c="$c" '!/^#/ && $1 != "path" && $2 == c {print $5 "  " $1}' "$TSV" | LC_ALL=C sort -k2 |
    sha256sum | cut -d' ' -f1
  exit 0
fi
while [ $# -gt 0 ]; do
  case $1 in
    --check) check=1; shift ;;
    --force) force=1; shift ;;
    --help|-h) sed -n '2,17p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
n=0 bad=0 done_=0 kept=0
while IFS=$'\t' read -r path campaign old commit sha bytes; do
  case $path in '#'*|path) continue ;; esac
  if [ $# -gt 0 ]; then
    hit=0
    for w in "$@"; do case $path in "${w%/}"|"${w%/}"/*) hit=1 ;; esac; done
    [ $hit -eq 1 ] || continue
  fi
  n=$((n + 1))
  if [ $check -eq 1 ]; then
    got=$(git show "$commit:$old" 2>/dev/null | sha256sum | cut -d' ' -f1)
    if ! git cat-file -e "$commit:$old" 2>/dev/null; then
      echo "MISSING in git: $commit:$old" >&2; bad=$((bad + 1))
    elif [ "$got" != "$sha" ]; then
      echo "BAD sha256: $commit:$old ($got, raw.tsv says $sha)" >&2; bad=$((bad + 1))
    fi
    continue
  fi
  if [ $force -eq 0 ] && [ -f "$path" ] && [ "$(sha256sum < "$path" | cut -d' ' -f1)" = "$sha" ]; then
    kept=$((kept + 1)); continue
  fi
  mkdir -p "$(dirname "$path")"
  if ! git show "$commit:$old" > "$path.part" 2>/dev/null; then
    echo "MISSING in git: $commit:$old (for $path)" >&2; rm -f "$path.part"; bad=$((bad + 1)); continue
  fi
  got=$(sha256sum < "$path.part" | cut -d' ' -f1)
  if [ "$got" != "$sha" ]; then
    echo "BAD sha256: $path ($got, raw.tsv says $sha); not written" >&2; rm -f "$path.part"; bad=$((bad + 1)); continue
  fi
  mv "$path.part" "$path"; done_=$((done_ + 1))
done < "$TSV"
if [ $n -eq 0 ]; then echo "restore_raw: no raw.tsv row matches: $*" >&2; exit 2; fi
if [ $check -eq 1 ]; then
  echo "checked $n files in git: $((n - bad)) with the right sha256, $bad not"
else
  echo "$n files: $done_ restored, $kept already there, $bad failed (sha256 checked for all)"
fi
[ $bad -eq 0 ]
