#!/usr/bin/env python3
"""Rewrite mentions of calibration/'s old paths (before issue 36's reorganisation, commit 59296a5)
to their new ones, in any text file: Rust comments and strings, Markdown, RON, scripts.

    python3 scripts/calibration_paths.py [--check] [--relative-to DIR] FILE ...

The table is calibration/MOVES.tsv (old path -> new path, folders and files); a mention is
rewritten by its longest leading part (whole path segments) that the table names, so
`calibration/draw5/raw/ncu_{1,2}.csv` becomes `calibration/draws/draw5/raw/ncu_{1,2}.csv` and
`calibration/sched/raw/flood4.txt` becomes `calibration/probes/scheduler/raw/flood4.txt.gz`.
Mentions of the shared hardware data (`../shared/h200/timing.md`, `shared/h200/README.md`)
become their copies in calibration/sources/h200/. Paths already new are left alone, so running
it twice changes nothing.

--relative-to DIR: the files also mention paths relative to DIR (calibration/README.md says
`draw4/compare.py` for calibration/draw4/compare.py): such a mention, one with a `/` whose
first segment is an old name in DIR, is rewritten relative to DIR as well (a bare file name
is not: `analyze.py` may be another folder's). Mentions starting with
`raw1/` ... `raw6/` are left alone in this mode (the campaigns' own raw2/, raw3/ ... folders
share those names) and reported.
--check: change nothing; list what would change and exit 1 if anything would.

Left alone whatever the arguments: calibration/MOVES.tsv and raw.tsv, this file, fuzz/corpus/
(inputs, most named by their content's hash), and in
calibration/ the recorded files (raw outputs, the .txt/.tsv/.csv tables the scripts wrote, whose
command lines name the paths of their day, and sources/); a path after `:` (`59296a5:calibration/
draw5/model.tsv`, a file in a commit) is never rewritten.

Prints, per file, the number of rewrites and every mention of calibration/ it could not
resolve (neither an old path nor a path of the new layout, in the tree or in raw.tsv).
"""
import fnmatch
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = re.compile(r"(?<![\w/.])(?:\.\./)*shared/h200(?=[/`'\"\s)]|$)(?:/[\w.-]+)?")
# not after `:`: `59296a5:calibration/...` names a file in a commit, which never moves
TOKEN = re.compile(r"(?<![\w:-])calibration/[\w./{},*-]*")
TRAIL = ".,;:"


def load():
    moves = {}
    for line in open(os.path.join(ROOT, "calibration", "MOVES.tsv")):
        if line.startswith("#") or line.startswith("old\t"):
            continue
        old, new, _ = line.rstrip("\n").split("\t", 2)
        moves[old] = new
    known = set(moves.values())
    raw = os.path.join(ROOT, "calibration", "raw.tsv")
    for line in open(raw):
        if not line.startswith(("#", "path\t")):
            known.add(line.split("\t", 1)[0])
    return moves, known


def braces(pattern):
    """`ncu_{1,2}.csv` -> [`ncu_1.csv`, `ncu_2.csv`] (one level, as the notes write them)."""
    m = re.search(r"\{([^{}]*)\}", pattern)
    if not m:
        return [pattern]
    return [x for alt in m.group(1).split(",") for x in braces(pattern[:m.start()] + alt + pattern[m.end():])]


def resolve(path, moves):
    """The new path of an old one by its longest leading part in the table, or None. A pattern
    (`raw1/ncu_orig_rep{2,3}.csv`, `raw2/ncu_ho2*.csv`) is resolved by the files it matches,
    which must all have moved to one folder (a folder split between campaigns: raw1, draw4)."""
    if re.search(r"[{}*?]", path):
        pats = braces(path)
        hits = {o: n for o, n in moves.items() if any(fnmatch.fnmatchcase(o, p) for p in pats)}
        dirs = {(os.path.dirname(o), os.path.dirname(n)) for o, n in hits.items()}
        if len(dirs) == 1:
            old_dir, new_dir = dirs.pop()
            if path.startswith(old_dir + "/"):
                return new_dir + path[len(old_dir):]
        if len(dirs) > 1:
            return None
    parts = path.split("/")
    for n in range(len(parts), 0, -1):
        head = "/".join(parts[:n])
        if head in moves:
            return "/".join([moves[head]] + parts[n:])
    return None


def is_new(path, known):
    p = path.rstrip("/")
    if not p or p == "calibration":
        return True
    if re.search(r"[{}*?]", p):
        pats = braces(p)
        return any(fnmatch.fnmatchcase(k, q) or k.startswith(q + "/") for k in known for q in pats) or any(
            os.path.exists(os.path.join(ROOT, q)) for q in pats)
    if p in known or os.path.exists(os.path.join(ROOT, p)):
        return True
    return any(k.startswith(p + "/") for k in known)


def shared_new(m):
    tail = m.group(0).split("shared/h200", 1)[1]
    return "calibration/sources/h200" + tail


def rewrite(text, moves, known, rel=None):
    unresolved, skipped = [], []
    count = 0

    def full(m):
        nonlocal count
        tok = m.group(0)
        core = tok.rstrip(TRAIL)
        trail = tok[len(core):]
        if is_new(core, known) and core not in moves:
            return tok
        new = resolve(core.rstrip("/"), moves)
        if new is None:
            unresolved.append(core)
            return tok
        if core.endswith("/") and not new.endswith("/"):
            new += "/"
        if new != core:
            count += 1
        return new + trail

    def shared(m):
        nonlocal count
        count += 1
        new = shared_new(m)
        return os.path.relpath(new, rel) if rel else new

    text = TOKEN.sub(full, text)
    text = SHARED.sub(shared, text)
    if rel:
        tops = {k.split("/")[1] for k in moves if k.count("/") >= 1 and k.startswith(rel + "/")}
        prefix = rel.rstrip("/") + "/"

        def relative(m):
            nonlocal count
            tok = m.group(0)
            core = tok.rstrip(TRAIL)
            trail = tok[len(core):]
            first = core.split("/", 1)[0]
            if core.startswith(("calibration/", "../", "/")) or first not in tops:
                return tok
            if re.fullmatch(r"raw\d", first):
                skipped.append(core)
                return tok
            new = resolve(prefix + core.rstrip("/"), moves)
            if new is None or not new.startswith(prefix):
                return tok
            new = new[len(prefix):] + ("/" if core.endswith("/") and not new.endswith("/") else "")
            if new != core:
                count += 1
            return new + trail

        # only mentions with a slash: a bare file name (`analyze.py`) may be another folder's
        text = re.sub(r"(?<![\w./-])[\w.-]+/[\w./{},*-]*", relative, text)
    return text, count, unresolved, skipped


def recorded(f):
    """Files left as they are: the tables themselves, this file's examples of old paths, and in
    calibration/ what was recorded rather than written (raw outputs, the tables and texts the
    scripts wrote, whose command lines name the paths of their day) and the copied sources."""
    rel = os.path.relpath(os.path.abspath(f), ROOT)
    if rel.startswith(os.path.join("fuzz", "corpus") + os.sep):
        return True  # fuzz inputs (most named by their content's hash): data, not prose
    if not rel.startswith("calibration" + os.sep):
        return False
    parts = rel.split(os.sep)
    return (parts[1] == "sources" or any(p.startswith("raw") for p in parts[1:-1])
            or os.path.splitext(rel)[1] in (".txt", ".tsv", ".csv", ".stream", ".json", ".gz", ".sass", ".ptx"))


def main(argv):
    check, rel, files = False, None, []
    it = iter(argv)
    for a in it:
        if a == "--check":
            check = True
        elif a == "--relative-to":
            rel = os.path.relpath(os.path.abspath(next(it)), ROOT)
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            files.append(a)
    if not files:
        print(__doc__, file=sys.stderr)
        return 2
    moves, known = load()
    changed = 0
    own = {os.path.abspath(__file__), os.path.join(ROOT, "calibration", "MOVES.tsv"),
           os.path.join(ROOT, "calibration", "raw.tsv")}
    for f in files:
        if os.path.abspath(f) in own or recorded(f):
            continue
        try:
            text = open(f, encoding="utf-8").read()
        except (UnicodeDecodeError, IsADirectoryError):
            continue
        new, n, unresolved, skipped = rewrite(text, moves, known, rel)
        if n or unresolved or skipped:
            line = f"{f}: {n} rewritten"
            if unresolved:
                line += "; unresolved: " + ", ".join(sorted(set(unresolved)))
            if skipped:
                line += "; left (raw1..raw6, resolve by hand): " + ", ".join(sorted(set(skipped)))
            print(line)
        if new != text:
            changed += 1
            if not check:
                open(f, "w", encoding="utf-8").write(new)
    print(f"{changed} file(s) {'would change' if check else 'changed'}")
    return 1 if check and changed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
