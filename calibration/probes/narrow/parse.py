#!/usr/bin/env python3
"""raw/ncu_chunk_*.csv.gz + raw/throughput.tsv -> measured.tsv, measured_heldout.tsv, throughput.tsv.

Each `one` launch is one pattern (launch order = the `L name kind` lines the probe printed)."""
import csv, glob, gzip, io

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
pats = {}
for line in open("probe_patterns.txt"):
    f = line.split()
    pats[f[0]] = (f[1], f[2:])

rows = []
for path in sorted(glob.glob("raw/ncu_chunk_*.csv.gz")):
    text = gzip.open(path, "rt").read().splitlines()
    launches = [l.split()[1:3] for l in text if l.startswith("L ")]
    data = [l for l in text if l.startswith('"')]
    by_id = {}
    for r in csv.DictReader(io.StringIO("\n".join(data))):
        by_id.setdefault(int(r["ID"]), {})[SHORT[r["Metric Name"]]] = r["Metric Value"].replace(",", "")
    assert len(by_id) == len(launches), (path, len(by_id), len(launches))
    for i, (name, kind) in enumerate(launches):
        rows.append((name, kind, by_id[i]))

def width(kind):
    t = kind.split(".")[-1]
    return {"u8": 1, "s8": 1, "u16": 2, "s16": 2}.get(t, int(t[1:]) // 8 if t[1:].isdigit() else 4)

with open("measured.tsv", "w") as m, open("measured_heldout.tsv", "w") as h:
    hdr = "name\tkind\t" + "\t".join(COLS) + "\n"
    m.write(hdr); h.write(hdr)
    for name, kind, vals in rows:
        assert pats[name][0] == kind
        out = h if name.startswith("ho_") else m
        out.write(f"{name}\t{kind}\t" + "\t".join(str(int(float(vals.get(c, "nan")))) if c in vals else "" for c in COLS) + "\n")
print(len(rows), "rows")
