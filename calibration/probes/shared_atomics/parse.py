#!/usr/bin/env python3
"""The campaign's outputs (run.sh's $OUT) -> measured.tsv, measured_heldout.tsv, values.tsv.

Usage: parse.py RAWDIR [DESTDIR]   (DESTDIR defaults to this script's folder)
Each `one` launch is one pattern, in the order of the `L name kind` lines the probe printed.
measured_heldout.tsv gets the `ho_` patterns: written here, compared only after the rule is
fixed. values.tsv: each pattern's lane returns and final words (probe `val`), as printed."""
import csv, glob, gzip, io, os, sys

SHORT = {
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": "wf_ld",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": "wf_st",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum": "wf_atom",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "bc_ld",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "bc_st",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum": "bc_atom",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum": "wf_all",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum": "bc_all",
    "smsp__sass_inst_executed_op_shared_ld.sum": "n_lds",
    "smsp__sass_inst_executed_op_shared_st.sum": "n_sts",
    "smsp__sass_inst_executed_op_shared_atom.sum": "n_atoms",
    "smsp__inst_executed_op_shared_atom.sum": "n_atom_inst",
    "smsp__inst_executed.sum": "n_inst",
}
COLS = list(SHORT.values())


def main(raw, dest):
    here = os.path.dirname(os.path.abspath(__file__))
    pats = {}
    for line in open(os.path.join(here, "probe_patterns.txt")):
        f = line.split()
        pats[f[0]] = (f[1], f[2:])
    rows = []
    for path in sorted(glob.glob(os.path.join(raw, "ncu_chunk_*.csv*"))):
        op = gzip.open if path.endswith(".gz") else open
        text = op(path, "rt").read().splitlines()
        launches = [l.split()[1:3] for l in text if l.startswith("L ")]
        data = [l for l in text if l.startswith('"')]
        by_id = {}
        for r in csv.DictReader(io.StringIO("\n".join(data))):
            name = SHORT.get(r["Metric Name"])
            if name:
                v = r["Metric Value"].replace(",", "")
                by_id.setdefault(int(r["ID"]), {})[name] = v
        if len(by_id) != len(launches):
            print(f"{path}: {len(by_id)} profiled, {len(launches)} launched; keeping the first "
                  f"{min(len(by_id), len(launches))}", file=sys.stderr)
        for i, (name, kind) in enumerate(launches):
            if i in by_id:
                rows.append((name, kind, by_id[i]))
    hdr = "name\tkind\t" + "\t".join(COLS) + "\n"
    n = {True: 0, False: 0}
    with open(os.path.join(dest, "measured.tsv"), "w") as m, \
            open(os.path.join(dest, "measured_heldout.tsv"), "w") as h:
        m.write(hdr)
        h.write(hdr)
        for name, kind, vals in rows:
            assert pats[name][0] == kind, name
            ho = name.startswith("ho_")
            n[ho] += 1
            cells = [str(int(float(vals[c]))) if c in vals else "" for c in COLS]
            (h if ho else m).write(f"{name}\t{kind}\t" + "\t".join(cells) + "\n")
    vals = [p for p in (os.path.join(raw, "val.tsv"), os.path.join(raw, "val.tsv.gz"))
            if os.path.exists(p)]
    if vals:
        op = gzip.open if vals[0].endswith(".gz") else open
        with open(os.path.join(dest, "values.tsv"), "w") as out:
            out.write("name\tkind\treturns\twords\n")
            for line in op(vals[0], "rt"):
                if line.startswith("V\t"):
                    out.write(line[2:])
    print(f"{n[False]} measured, {n[True]} held out (not opened)", file=sys.stderr)


main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.abspath(__file__)))
