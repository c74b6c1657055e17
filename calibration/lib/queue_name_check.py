#!/usr/bin/env python3
"""calibration/srcpage: naming a full memory queue's throttle by what fills it, checked on every
launch measured with stall metrics: the 88 of draws 4-7 (raw/ncu_1.csv and ncu_2.csv, their
mean) and the 34 held-out launches of calibration/heldout_timing.tsv that port to a shipped
program: calibration/draw7/rules_check.py with lg_throttle and draw 7 added, and the stalls'
mean |model - H200| in cycles an instruction.

    python3 calibration/srcpage/queue_name_check.py OUT.json WARPSIM [WARPSIM ...]
"""
import os, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "calibration", "draw7"))
import rules_check as rc  # noqa: E402

rc.STALLS = ["mio_throttle", "lg_throttle", "short_scoreboard", "long_scoreboard", "barrier"]
rc.M.update({s: f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in rc.STALLS})
rc.DRAWS, rc.LABEL = ["draw4", "draw5", "draw6", "draw7"], "draws 4-7"
within = rc.summary


def summary(rows, b):
    n = len(rows)
    ad = {s: round(sum(abs(r[b][s] - r["h200"][s]) for r in rows) / n, 2) for s in rc.STALLS}
    return f"{within(rows, b)}; mean |diff|: {ad}"


rc.summary = summary

if __name__ == "__main__":
    rc.main()
