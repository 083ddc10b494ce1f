# The figures of run.sh's results: per graph the mean absolute error of the in-step
# model (plans on one device, single and tf-default, apart from the others, which split
# the graph), Spearman between simulated and measured, the regret of the simulator's
# pick, GO's verified plan against the measured best and the single-device plan, and
# the noise floor (median over the plans of |median of odd rounds - median of even| /
# median); then the figures over the default set, over the two further graphs, and the
# contention each run measured.  python3 summary.py OUT_DIR
import json, os, re, statistics, sys

out = sys.argv[1]
ONE_DEVICE = {"single", "tf-default"}


def rank(v):
    order = sorted(range(len(v)), key=lambda i: v[i])
    r = [0] * len(v)
    for k, i in enumerate(order):
        r[i] = k
    return r


def spearman(a, b):
    ra, rb, n = rank(a), rank(b), len(a)
    return 1 - 6 * sum((x - y) ** 2 for x, y in zip(ra, rb)) / (n * (n * n - 1))


def half_gap(steps):
    odd, even = steps[1::2], steps[0::2]
    return abs(statistics.median(odd) - statistics.median(even)) / statistics.median(steps)


rows, sets = [], {"default": {"one": [], "split": []}, "further": {"one": [], "split": []}}
i = 0
while os.path.exists(f"{out}/{i}.json"):
    g = json.load(open(f"{out}/{i}.json"))["graphs"][0]
    log = open(f"{out}/{i}.log").read()
    share = re.search(r"sharing: compute ([\d.]+)x, memory ([\d.]+)x", log)
    ps = [p for p in g["plans"] if p.get("measured_us", 0) > 0]
    m = [p["measured_us"] for p in ps]
    s = [p["simulated_in-step_us"] for p in ps]
    errs = {"one": [], "split": []}
    for p in ps:
        errs["one" if p["plan"] in ONE_DEVICE else "split"].append(p["simulated_in-step_us"] / p["measured_us"] - 1)
    which = "default" if i < 10 else "further"
    for k in errs:
        sets[which][k] += errs[k]
    pick = min(range(len(ps)), key=lambda k: s[k])
    byname = {p["plan"]: p["measured_us"] for p in ps}
    noise = statistics.median(half_gap(p["steps_us"]) for p in ps)
    rows.append((os.path.basename(g["model"]).split(":")[0], len(ps),
                 statistics.mean(abs(e) for e in errs["one"] + errs["split"]),
                 statistics.mean(errs["split"]) if errs["split"] else 0, spearman(m, s),
                 m[pick] / min(m) - 1, ps[pick]["plan"], min(ps, key=lambda p: p["measured_us"])["plan"],
                 byname.get("go", 0) / min(m) if "go" in byname else 0,
                 byname.get("go", 0) / byname["single"] - 1 if "go" in byname else 0, noise,
                 share.groups() if share else ("-", "-")))
    i += 1

print("| graph | plans | MAE | split plans, mean signed | Spearman | sim's pick / measured best | regret | GO / measured best | GO vs single | noise floor | contention (compute, memory) |")
print("|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---|")
for r in rows:
    print("| %s | %d | %.1f%% | %+.1f%% | %.2f | %s / %s | %.1f%% | %.3f | %+.1f%% | %.1f%% | %s, %s |" % (
        r[0], r[1], 100 * r[2], 100 * r[3], r[4], r[6], r[7], 100 * r[5], r[8], 100 * r[9], 100 * r[10], *r[11]))
for which, e in sets.items():
    if not e["one"] and not e["split"]:
        continue
    allv = e["one"] + e["split"]
    print("\n%s set: MAE %.1f%% over %d plans; one-device plans %.1f%% (%d), split plans %.1f%% (%d, mean signed %+.1f%%)" % (
        which, 100 * statistics.mean(map(abs, allv)), len(allv), 100 * statistics.mean(map(abs, e["one"])), len(e["one"]),
        100 * statistics.mean(map(abs, e["split"])), len(e["split"]), 100 * statistics.mean(e["split"])))
go_best = sum(1 for r in rows if r[7] == "go")
print("\nGO's plan measured fastest on %d of %d graphs; within the noise floor of the fastest on %d" % (
    go_best, len(rows), sum(1 for r in rows if r[8] - 1 <= r[10])))
