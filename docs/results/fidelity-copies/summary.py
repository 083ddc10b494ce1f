# Mean absolute error of the in-step model (one-device and split plans apart), and per
# graph Spearman, regret of the simulator's pick and GO against the measured best, for
# before/N.json and after/N.json (run.sh). Run in the folder that holds them.
import json,sys
def spearman(a,b):
    def rank(v):
        o=sorted(range(len(v)),key=lambda i:v[i]);r=[0]*len(v)
        for k,i in enumerate(o): r[i]=k
        return r
    ra,rb=rank(a),rank(b);n=len(a)
    return 1-6*sum((x-y)**2 for x,y in zip(ra,rb))/(n*(n*n-1))
for b in ["before","after"]:
    errs={"split":[],"one":[]};rows=[]
    for i in range(6):
        d=json.load(open(f"{b}/{i}.json"));g=d["graphs"][0]
        ps=[p for p in g["plans"] if p.get("measured_us",0)>0]
        m=[p["measured_us"] for p in ps];s=[p["simulated_in-step_us"] for p in ps]
        for p in ps:
            e=p["simulated_in-step_us"]/p["measured_us"]-1
            errs["one" if p["plan"]=="single" else "split"].append(e)  # tf-default, expert... may use 1 device too
        best_sim=min(range(len(ps)),key=lambda k:s[k]);regret=m[best_sim]/min(m)-1
        go=[p for p in ps if p["plan"]=="go"]
        rows.append((g["model"].split(":")[0],len(ps),sum(abs(p["simulated_in-step_us"]/p["measured_us"]-1) for p in ps)/len(ps),spearman(m,s),regret, (go[0]["measured_us"]/min(m)) if go else None))
    allv=errs["split"]+errs["one"]
    print(b,"MAE all %.1f%%  non-single %.1f%% (mean signed %.1f%%)  single %.1f%%"%(100*sum(map(abs,allv))/len(allv),100*sum(map(abs,errs["split"]))/len(errs["split"]),100*sum(errs["split"])/len(errs["split"]),100*sum(map(abs,errs["one"]))/len(errs["one"])))
    for r in rows: print("   %-15s plans %d MAE %.1f%% spearman %.2f regret %.1f%% go/best-measured %.3f"%(r[0],r[1],100*r[2],r[3],100*r[4],r[5] or 0))
