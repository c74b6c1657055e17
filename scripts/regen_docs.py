#!/usr/bin/env python3
"""Rewrites the command outputs shown in README.md and docs/src/**/*.md with what the binary
prints now, for a model change that legitimately moves them (tests/docs.rs checks them; read its
conventions first).

    python3 scripts/regen_docs.py [WARPSIM] [--nvrtc] [--dry-run] [FILE.md ...]

WARPSIM: default target/release/warpsim. `console,nvrtc` blocks run only with --nvrtc (needs
WARPSIM_NVRTC). Only commands whose shown output no longer matches are touched, and in them only
the lines that differ: a `...` line keeps eliding, a line with `[..]` is kept if it still matches
and otherwise replaced by the printed line (reported, so the elision can be put back by hand), an
`[exit: N]` marker is kept when the exit status is unchanged. Prints each change; review the diff.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def pages(args):
    if args:
        return [os.path.abspath(a) for a in args]
    out = [os.path.join(ROOT, "README.md")]
    for d, dirs, files in os.walk(os.path.join(ROOT, "docs/src")):
        dirs.sort()
        out += [os.path.join(d, f) for f in sorted(files) if f.endswith(".md")]
    return out


def line_matches(pat, line):
    parts = pat.split("[..]")
    if len(parts) == 1:
        return pat == line
    first, last = parts[0], parts[-1]
    if not line.startswith(first) or len(line) < len(first) + len(last) or not line.endswith(last):
        return False
    rest = line[len(first):len(line) - len(last)]
    for p in parts[1:-1]:
        i = rest.find(p)
        if i < 0:
            return False
        rest = rest[i + len(p):]
    return True


def output_matches(want, got):
    if not want:
        return not got
    if want[0] == "...":
        return any(output_matches(want[1:], got[k:]) for k in range(len(got) + 1))
    return bool(got) and line_matches(want[0], got[0]) and output_matches(want[1:], got[1:])


def skel(s):
    """A line with its numbers taken out, to pair a changed line with its new version."""
    return re.sub(r"[0-9][0-9.,]*", "#", s.replace("[..]", "")).replace(" ", "")


def merge(want, got):
    """New shown lines: `want` where it still matches, `got` where it does not."""
    out, notes, i = [], [], 0
    k = 0
    while k < len(want):
        w = want[k]
        if w == "...":
            # Skip got lines up to the first one that the next shown line matches (or pairs).
            nxt = next((x for x in want[k + 1:] if x != "..."), None)
            out.append(w)
            if nxt is None:
                i = len(got)
            else:
                j = next((j for j in range(i, len(got)) if line_matches(nxt, got[j])), None)
                if j is None:
                    j = next((j for j in range(i, len(got)) if skel(nxt) == skel(got[j])), i)
                i = j
            k += 1
            continue
        if i < len(got) and line_matches(w, got[i]):
            out.append(w)
        elif i < len(got):
            if "[..]" in w:
                notes.append(f"  elision lost: {w!r} -> {got[i]!r}")
            out.append(got[i])
        else:
            notes.append(f"  shown line has no printed line: {w!r} (dropped)")
            k += 1
            continue
        i += 1
        k += 1
    if i < len(got) and (not want or want[-1] != "..."):
        out += got[i:]
    return out, notes


def main():
    argv = sys.argv[1:]
    nv = "--nvrtc" in argv
    dry = "--dry-run" in argv
    argv = [a for a in argv if a not in ("--nvrtc", "--dry-run")]
    ws = os.path.join(ROOT, "target/release/warpsim")
    if argv and not argv[0].endswith(".md"):
        ws = os.path.abspath(argv.pop(0))
    if nv:
        # Without NVRTC every `console,nvrtc` block would become the "NVRTC not found" error.
        probe = subprocess.run([ws, "check", "programs/cuda/transpose_n1024_tile32x32.cu.ron"],
                               capture_output=True, text=True, cwd=ROOT)
        if probe.returncode != 0:
            sys.exit("regen_docs: --nvrtc, but warpsim cannot compile a shipped CUDA program "
                     "(set WARPSIM_NVRTC or install nvidia-cuda-nvrtc-cu12): nothing written")
    cache = tempfile.mkdtemp(prefix="regen_docs_")
    env = dict(os.environ, NO_COLOR="1", WARPSIM_CACHE=cache)
    changed_total = 0
    for p in pages(argv):
        lines = open(p).read().split("\n")
        new = list(lines)
        # Fenced blocks as tests/docs.rs reads them.
        blocks, open_b = [], None
        for n, line in enumerate(lines):
            t = line.lstrip()
            fence = t.startswith("```") and len(line) - len(t) < 4
            if open_b is None and fence:
                open_b = (n, t.lstrip("`").strip(), [])
            elif open_b is not None and fence and not t.lstrip("`").strip():
                blocks.append(open_b)
                open_b = None
            elif open_b is not None:
                open_b[2].append(n)
        edits = []  # (first line index, end line index exclusive, new lines)
        for start, info, idx in blocks:
            if info not in ("console", "console,nvrtc"):
                continue
            if info == "console,nvrtc" and not nv:
                continue
            cmds = []
            for n in idx:
                if lines[n].startswith("$ "):
                    cmds.append([n, []])
                elif cmds:
                    cmds[-1][1].append(n)
            for n, outl in cmds:
                w = shlex.split(lines[n][2:], comments=True)[1:]
                stdin = None
                if "<" in w:
                    stdin = w[-1]
                    w = w[:-2]
                want = [lines[m].rstrip() for m in outl]
                while want and not want[-1]:
                    want.pop()
                exit_shown = 0
                m = re.fullmatch(r"\[exit: (-?\d+)\]", want[-1]) if want else None
                if m:
                    exit_shown = int(m.group(1))
                    want.pop()
                r = subprocess.run(
                    [ws] + w, cwd=ROOT, env=env, capture_output=True,
                    stdin=open(os.path.join(ROOT, stdin)) if stdin else subprocess.DEVNULL)
                text = r.stdout.decode(errors="replace") + r.stderr.decode(errors="replace")
                got = [x.rstrip() for x in text.split("\n")]
                while got and not got[-1]:
                    got.pop()
                if r.returncode == exit_shown and output_matches(want, got):
                    continue
                merged, notes = merge(want, got)
                if r.returncode != 0:
                    merged.append(f"[exit: {r.returncode}]")
                rel = os.path.relpath(p, ROOT)
                print(f"{rel}:{n + 1}: {lines[n]}")
                for x in notes:
                    print(x)
                if not output_matches([x for x in merged if not x.startswith("[exit: ")], got):
                    print("  WARNING: the merged output still does not match; fix by hand")
                # Replace the non-blank shown lines (keep blank lines that trail them).
                last = outl[-1] + 1 if outl else n + 1
                while last - 1 > n and not lines[last - 1].strip():
                    last -= 1
                edits.append((n + 1, last, merged))
        for a, b, repl in sorted(edits, reverse=True):
            new[a:b] = repl
        if edits:
            changed_total += len(edits)
            if not dry:
                open(p, "w").write("\n".join(new))
    print(f"{changed_total} command output(s) {'would change' if dry else 'rewritten'}")


if __name__ == "__main__":
    main()
