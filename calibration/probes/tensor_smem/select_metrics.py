#!/usr/bin/env python3
"""Picks the Nsight Compute metrics each launch group asks for, keeping only those that this
ncu lists for this GPU (`ncu --query-metrics` output), so a missing name cannot fail a run.

usage: select_metrics.py query_metrics.txt OUTDIR
writes OUTDIR/metrics_{mat,cp,tma,all}.txt (comma-separated `name.sum`) and
OUTDIR/query_relevant.txt (every listed metric whose name mentions shared, ldsm, stsm, ldgsts,
gmma, tma, bulk or ideal). Names as the H200's ncu 2025.3 listed them in calibration/narrow.
"""
import os
import re
import sys

HW_SHARED = [
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write",
    "l1tex__data_bank_reads",
    "l1tex__data_bank_writes",
]
MAT = HW_SHARED + [
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm",
    "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm",
    "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_stsm",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
    "smsp__sass_inst_executed_op_ldsm",
    "smsp__sass_inst_executed_op_shared_stsm",
    "smsp__sass_inst_executed_op_shared_ld",
    "smsp__sass_inst_executed_op_shared_st",
    "smsp__sass_data_bytes_mem_shared_op_ldsm",
    "smsp__sass_data_bytes_mem_shared_op_stsm",
    "smsp__sass_data_bytes_mem_shared_op_ld",
    "smsp__sass_data_bytes_mem_shared_op_st",
    "smsp__inst_executed_op_ldsm",
    "smsp__inst_executed_op_shared_stsm",
    "smsp__inst_executed",
]
CP = HW_SHARED + [
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts",
    "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts_cache_access",
    "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts_cache_access",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts_cache_bypass",
    "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts_cache_bypass",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
    "smsp__sass_inst_executed_op_ldgsts",
    "smsp__inst_executed_op_ldgsts",
    "smsp__sass_data_bytes_mem_shared_op_ldgsts",
    "smsp__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts",
    "smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts_cache_access",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_access",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_access_lookup_hit",
    "l1tex__data_pipe_lsu_wavefronts",
    "smsp__inst_executed",
]
TMA = HW_SHARED + [
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_misc",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm",
    "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
    "smsp__sass_inst_executed_op_ldsm",
    "smsp__sass_inst_executed_op_shared_ld",
    "smsp__sass_inst_executed_op_shared_st",
    "smsp__sass_inst_executed_op_tma",
    "smsp__sass_inst_executed_op_tma_ld",
    "smsp__sass_inst_executed_op_tma_st",
    "smsp__inst_executed_op_tma_ld",
    "smsp__inst_executed_op_tma_st",
    "smsp__inst_executed_pipe_tma",
    "sm__pipe_tma_cycles_active",
    "l1tex__m_xbar2l1tex_read_sectors_mem_global_op_tma_ld",
    "l1tex__m_xbar2l1tex_read_bytes_pipe_tma",
    "l1tex__m_l1tex2xbar_write_bytes_pipe_tma",
    "l1tex__m_l1tex2xbar_write_sectors_mem_global_op_tma_st",
    "l1tex__data_pipe_lsu_wavefronts",
    "smsp__inst_executed",
]
FALLBACK = [  # the list calibration/atomics2 ran with (known to exist on the H200)
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared",
    "smsp__sass_inst_executed_op_shared_ld", "smsp__sass_inst_executed_op_shared_st", "smsp__inst_executed",
]


def main():
    text = open(sys.argv[1], errors="replace").read().splitlines()
    out = sys.argv[2]
    avail = set()
    for line in text:
        f = line.split()
        if f and re.fullmatch(r"[a-z0-9]+__[a-z0-9_]+", f[0]):
            avail.add(f[0])
    with open(os.path.join(out, "query_relevant.txt"), "w") as f:
        for m in sorted(avail):
            if re.search(r"shared|ldsm|stsm|ldgsts|gmma|tma|bulk|ideal", m):
                f.write(m + "\n")
    groups = {"mat": MAT, "cp": CP, "tma": TMA}
    union = []
    for g, lst in groups.items():
        keep = [m for m in lst if m in avail] if avail else []
        if not keep:
            keep = FALLBACK
        missing = [m for m in lst if m not in avail]
        with open(os.path.join(out, f"metrics_{g}.txt"), "w") as f:
            f.write(",".join(m + ".sum" for m in keep) + "\n")
        print(f"{g}: {len(keep)} metrics" + (f"; not listed here: {' '.join(missing)}" if missing else ""))
        for m in keep:
            if m not in union:
                union.append(m)
    with open(os.path.join(out, "metrics_all.txt"), "w") as f:
        f.write(",".join(m + ".sum" for m in union) + "\n")
    print(f"all: {len(union)} metrics; {len(avail)} listed by ncu")


if __name__ == "__main__":
    main()
