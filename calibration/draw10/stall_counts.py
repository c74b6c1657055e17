"""calibration/draw10: stalls within 30% or 3 cycles an instruction, and mean |model - H200|, for model.tsv (data
coming back takes a turn of the shared pipe, 2d52e23) and model_main.tsv (7348f4f, without it) against the mean of raw/ncu_1.csv and ncu_2.csv.

    python3 calibration/draw10/stall_counts.py  (appended to compare.txt)
"""
import sys, csv
sys.path.insert(0,'calibration/draw4')
from ncu import measured
D='calibration/draw10'
L=list(csv.DictReader(open(D+'/launches.tsv'),delimiter='\t'))
runs=[measured(f'{D}/raw/ncu_{r}.csv') for r in (1,2)]
S=["barrier","short_scoreboard","mio_throttle","long_scoreboard","lg_throttle","drain"]
def h(k,s): return sum(x[k][f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio"] for x in runs)/2
for m in ('model.tsv','model_main.tsv'):
    M={r['name']:r for r in csv.DictReader(open(f'{D}/{m}'),delimiter='\t')}
    within={}; ad={}
    for s in S:
        w=0; d=0
        for k,l in enumerate(L):
            mv=float(M[l['name']]['stall_'+s]); hv=h(k,s)
            w+= abs(mv-hv)<=max(0.3*hv,3.0); d+=abs(mv-hv)
        within[s]=w; ad[s]=round(d/len(L),2)
    print(m,'within 30%/3:',within,'mean |diff|:',ad)
