#!/usr/bin/env python3
"""The calibration driver: probe -> predict -> measure -> compare, for any campaign, from the
campaign's description file (`campaign.toml` in its folder).

    python3 calibration/drive.py list
    python3 calibration/drive.py show CAMPAIGN
    python3 calibration/drive.py predict CAMPAIGN [--warpsim BIN] [--force]
    python3 calibration/drive.py measure CAMPAIGN [CALL] [--check]
    python3 calibration/drive.py compare CAMPAIGN [--warpsim BIN]
    python3 calibration/drive.py check [--no-git]

CAMPAIGN: a folder (calibration/draws/draw5, draws/draw5) or its last name (draw5).
BIN: the warpsim binary (default target/release/warpsim).

predict  runs the campaign's [predict] commands: warpsim's predictions, to be committed before
         the device measures anything. It refuses when a file it writes is already there (a
         prediction committed before its draw ran is never overwritten; --force to write anyway,
         for a file that is not a committed prediction).
measure  prints the single command to run on the H200 device machine (from the repository
         root, with $OUT the folder whose files come back) and the files of the working tree it
         needs; --check also checks that they exist and are committed. CALL picks one of the
         campaign's device calls ([[measure]] entries, by name); default the first.
         What comes back goes into the campaign's raw/ folder(s), as the call's `results` says.
compare  restores the campaign's raw outputs that are not in the tree (lib/restore_raw.sh,
         checksums checked), then runs its [compare] commands; a command with `output` writes
         its stdout to that file (compare steps that rebuild a committed table write it in
         place: `git diff` then shows whether the numbers are the committed ones).
check    the package's consistency: every campaign folder has a campaign.toml and a row in
         manifest.tsv and the reverse; every manifest row's raw archive checksum equals the one
         restore_raw.sh computes from raw.tsv; every raw.tsv file is in git with its sha256.

A description file (TOML):

    title = "..."                       # one line
    section = "8"                       # the section of calibration/README.md
    [predict]                           # optional: what is predicted before the device runs
    run = ["python3 ... {warpsim} ... {dir}/model.tsv"]
    writes = ["model.tsv"]              # in the campaign's folder
    [[measure]]                         # one entry per device call
    name = "draw"
    run = "DRAW={dir} bash calibration/lib/template_draw/run.sh"
    files = ["calibration/lib/template_draw/draw.cu", "{dir}/launches.tsv"]
    stage = false                       # true: copy `files` into one folder and run there
    results = "$OUT/draw5/* -> {dir}/raw/"
    [compare]
    run = [{cmd = "python3 ... --dir {dir}", output = "{dir}/compare.txt"}]
    restore = ["calibration/draws/draw4"]  # other campaigns' raw outputs it reads

Placeholders: {dir} the campaign's folder, {warpsim} the binary, {root} the repository, and in
a staged call's `run` {stage}, the folder its files were copied into. Commands run from the
repository root; `output` is a path from there.
"""
import argparse
import os
import shlex
import subprocess
import sys
import tomllib

CAL = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(CAL)
KINDS = ("probes", "draws", "checks")


def campaigns():
    out = []
    for kind in KINDS:
        base = os.path.join(CAL, kind)
        for name in sorted(os.listdir(base)) if os.path.isdir(base) else []:
            if os.path.isdir(os.path.join(base, name)):
                out.append(f"calibration/{kind}/{name}")
    return out


def find(name):
    name = name.rstrip("/")
    for c in campaigns():
        if name in (c, c[len("calibration/"):], c.rsplit("/", 1)[1]):
            return c
    sys.exit(f"drive: no campaign {name!r} (python3 calibration/drive.py list)")


def load(c):
    path = os.path.join(ROOT, c, "campaign.toml")
    if not os.path.exists(path):
        sys.exit(f"drive: {c} has no campaign.toml")
    with open(path, "rb") as f:
        return tomllib.load(f)


def fill(s, c, warpsim):
    return s.replace("{dir}", c).replace("{warpsim}", warpsim).replace("{root}", ROOT)


def run(cmd, output=None):
    print(f"$ {cmd}" + (f" > {output}" if output else ""), flush=True)
    if output:
        with open(os.path.join(ROOT, output), "w") as f:
            r = subprocess.run(cmd, shell=True, cwd=ROOT, stdout=f)
    else:
        r = subprocess.run(cmd, shell=True, cwd=ROOT)
    if r.returncode:
        sys.exit(f"drive: exit status {r.returncode}: {cmd}")


def manifest():
    rows = {}
    with open(os.path.join(CAL, "manifest.tsv")) as f:
        lines = [line.rstrip("\n") for line in f if not line.startswith("#")]
    head = lines[0].split("\t")
    for line in lines[1:]:
        if line:
            row = dict(zip(head, line.split("\t")))
            rows[row["campaign"]] = row
    return rows


def cmd_list(a):
    m = manifest()
    for c in campaigns():
        d = load(c) if os.path.exists(os.path.join(ROOT, c, "campaign.toml")) else {}
        steps = [s for s in ("predict", "measure", "compare") if s in d]
        print(f"{c[len('calibration/'):]:28} sec. {d.get('section', '-'):6} {'/'.join(steps):24} "
              f"{m.get(c, {}).get('when', '')}")


def cmd_show(a):
    c = find(a.campaign)
    print(open(os.path.join(ROOT, c, "campaign.toml")).read(), end="")
    row = manifest().get(c)
    if row:
        print("\n# manifest.tsv")
        for k, v in row.items():
            print(f"# {k}: {v}")


def cmd_predict(a):
    c = find(a.campaign)
    d = load(c).get("predict")
    if not d:
        sys.exit(f"drive: {c} predicts nothing (a probe, or a campaign whose model side is in its notes)")
    there = [w for w in d.get("writes", []) if os.path.exists(os.path.join(ROOT, c, w))]
    if there and not a.force:
        sys.exit(f"drive: {c}: {', '.join(there)} already there: a committed prediction is not "
                 "overwritten (rename the new one in the description, or --force for a file that is "
                 "not a prediction)")
    if not os.path.exists(os.path.join(ROOT, a.warpsim)) and not os.path.exists(a.warpsim):
        sys.exit(f"drive: no warpsim binary at {a.warpsim} (cargo build --release, or --warpsim BIN)")
    for cmd in d["run"]:
        run(fill(cmd, c, a.warpsim))
    print(f"commit {', '.join(d.get('writes', []))} before running `drive.py measure {c}` on the device")


def cmd_measure(a):
    c = find(a.campaign)
    calls = load(c).get("measure", [])
    if not calls:
        sys.exit(f"drive: {c} has no device call")
    call = next((m for m in calls if m.get("name") == a.call), None) if a.call else calls[0]
    if call is None:
        sys.exit(f"drive: {c} has no call {a.call!r}: {', '.join(m.get('name', '?') for m in calls)}")
    files = [fill(f, c, "") for f in call.get("files", [])]
    cmd = fill(call["run"], c, a.warpsim)
    if call.get("stage"):
        # the call's script ran from one folder holding all its inputs (before issue 36 the
        # calibration folder was flat): copy them into one and run the script from there
        cmd = ('S=$(mktemp -d) && cp ' + " ".join(shlex.quote(f) for f in files) + ' "$S"/ && ' +
               cmd.replace("{stage}", '"$S"'))
    if a.check:
        bad = [f for f in files if not os.path.exists(os.path.join(ROOT, f))]
        tracked = subprocess.run(["git", "ls-files", "--error-unmatch", *files], cwd=ROOT,
                                 capture_output=True, text=True)
        if bad:
            sys.exit("drive: missing: " + " ".join(bad))
        if tracked.returncode:
            sys.exit("drive: not committed: " + tracked.stderr.strip())
    print("# on the H200 device machine, from the repository root ($OUT: the folder that comes back):")
    print(cmd)
    print("# files it needs from the working tree:")
    for f in files:
        print(f"#   {f}")
    if call.get("results"):
        print(f"# results: {fill(call['results'], c, '')}")
    if len(calls) > 1:
        print(f"# other calls of this campaign: {', '.join(m['name'] for m in calls if m is not call)}")


def cmd_compare(a):
    c = find(a.campaign)
    d = load(c).get("compare")
    if not d:
        sys.exit(f"drive: {c} has nothing to compare")
    r = subprocess.run(["bash", os.path.join(CAL, "lib", "restore_raw.sh"), c, *d.get("restore", [])],
                       cwd=ROOT, capture_output=True, text=True)
    if r.returncode == 1:
        sys.exit("drive: restoring the raw outputs failed:\n" + r.stderr)
    print(r.stdout.strip() or "(no raw output of this campaign is out of the tree)")
    for step in d["run"]:
        if isinstance(step, str):
            step = {"cmd": step}
        out = fill(step["output"], c, a.warpsim) if step.get("output") else None
        run(fill(step["cmd"], c, a.warpsim), out)


def cmd_check(a):
    bad = []
    m = manifest()
    for c in campaigns():
        if not os.path.exists(os.path.join(ROOT, c, "campaign.toml")):
            bad.append(f"{c}: no campaign.toml")
        else:
            try:
                load(c)
            except tomllib.TOMLDecodeError as e:
                bad.append(f"{c}/campaign.toml: {e}")
        if c not in m:
            bad.append(f"{c}: no row in manifest.tsv")
    for c, row in m.items():
        if not os.path.isdir(os.path.join(ROOT, c)):
            bad.append(f"manifest.tsv: {c} is not a folder")
            continue
        digest = subprocess.run(["bash", os.path.join(CAL, "lib", "restore_raw.sh"), "--digest", c],
                                cwd=ROOT, capture_output=True, text=True).stdout.strip()
        n = sum(1 for line in open(os.path.join(CAL, "raw.tsv")) if line.split("\t")[1:2] == [c])
        want = row.get("raw_sha256", "")
        if n and want != digest:
            bad.append(f"manifest.tsv: {c} raw_sha256 {want}, raw.tsv gives {digest}")
        if not n and want not in ("", "-"):
            bad.append(f"manifest.tsv: {c} has a raw_sha256 but no file in raw.tsv")
        if str(n) != row.get("raw_files", "0"):
            bad.append(f"manifest.tsv: {c} raw_files {row.get('raw_files')}, raw.tsv has {n}")
    if not a.no_git:
        r = subprocess.run(["bash", os.path.join(CAL, "lib", "restore_raw.sh"), "--check"], cwd=ROOT,
                           capture_output=True, text=True)
        print(r.stdout.strip())
        if r.returncode:
            bad.append(r.stderr.strip())
    for b in bad:
        print("BAD", b)
    print(f"{len(campaigns())} campaigns, {len(m)} manifest rows: " + ("all consistent" if not bad else f"{len(bad)} problems"))
    return 1 if bad else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list")
    s = sub.add_parser("show")
    s.add_argument("campaign")
    for name in ("predict", "measure", "compare"):
        s = sub.add_parser(name)
        s.add_argument("campaign")
        if name == "measure":
            s.add_argument("call", nargs="?")
            s.add_argument("--check", action="store_true")
        if name == "predict":
            s.add_argument("--force", action="store_true")
        s.add_argument("--warpsim", default="target/release/warpsim")
    s = sub.add_parser("check")
    s.add_argument("--no-git", action="store_true",
                   help="skip checking that git history still holds every raw file (a shallow clone)")
    a = p.parse_args()
    return {"list": cmd_list, "show": cmd_show, "predict": cmd_predict, "measure": cmd_measure,
            "compare": cmd_compare, "check": cmd_check}[a.cmd](a) or 0


if __name__ == "__main__":
    sys.exit(main())
