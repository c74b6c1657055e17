"""The template draws (written for draw9): stalls within 30% or 3 cycles an instruction, and mean |model - H200|, for a draw's model.tsv
and model_main.tsv against the mean of its raw/ncu_1.csv and ncu_2.csv (draw9: the scheduler's order and
greedy-then-oldest, e3401ff; draw10: the data's turn of the shared pipe, 2d52e23, and 7348f4f without it).

    python3 calibration/lib/template_draw/stall_counts.py [DIR [OTHER]]  (appended to DIR/compare.txt; DIR: calibration/draws/draw9)

OTHER: the second model's file in DIR (default model_main.tsv; draw11's is model_before.tsv).
"""
import csv, os, sys
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from ncu import measured  # noqa: E402
D=sys.argv[1] if len(sys.argv)>1 else 'calibration/draws/draw9'
L=list(csv.DictReader(open(D+'/launches.tsv'),delimiter='\t'))
runs=[measured(f'{D}/raw/ncu_{r}.csv') for r in (1,2)]
S=["barrier","short_scoreboard","mio_throttle","long_scoreboard","lg_throttle","drain"]
def h(k,s): return sum(x[k][f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio"] for x in runs)/2
for m in ('model.tsv', sys.argv[2] if len(sys.argv) > 2 else 'model_main.tsv'):
    M={r['name']:r for r in csv.DictReader(open(f'{D}/{m}'),delimiter='\t')}
    within={}; ad={}
    for s in S:
        w=0; d=0
        for k,l in enumerate(L):
            mv=float(M[l['name']]['stall_'+s]); hv=h(k,s)
            w+= abs(mv-hv)<=max(0.3*hv,3.0); d+=abs(mv-hv)
        within[s]=w; ad[s]=round(d/len(L),2)
    print(m,'within 30%/3:',within,'mean |diff|:',ad)
