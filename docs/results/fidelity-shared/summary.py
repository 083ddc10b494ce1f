# The figures of run.sh's results: per graph the mean absolute error of the in-step
# model (plans on one device, single and tf-default, apart from the others, which split
# the graph), Spearman between simulated and measured, the regret of the simulator's
# pick, GO's verified plan against the measured best (and which of verify's candidates
# it is) and the single-device plan, and
# the noise floor (median over the plans of |median of odd rounds - median of even| /
# median); then the figures over the default set, over the two further graphs, and the
# contention each run measured. Runs that sampled the contention in the rounds
# (simulated_in-step_calibrated_us in the JSON) get the figures twice: with the rounds'
# median contention (the in-step column) and with the calibration made before the plans;
# runs that also measured op kinds busy (simulated_in-step_probes_us) a third time, with
# the rounds' probes alone (the in-step column then has the kinds too); runs whose
# contention slowed the reads of received tensors (simulated_in-step_no-read_us) once
# more without that charge (the in-step column then has it).
#   python3 summary.py OUT_DIR
import json, os, re, statistics, sys

out = sys.argv[1]
ONE_DEVICE = {"single", "tf-default"}
ROUNDS, PROBES, CALIBRATED = "simulated_in-step_us", "simulated_in-step_probes_us", "simulated_in-step_calibrated_us"
NO_READ = "simulated_in-step_no-read_us"
KEYS = (ROUNDS, PROBES, NO_READ, CALIBRATED)


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


def figures(ps, key):
    """MAE, split plans' mean signed error, Spearman, regret, the pick; errors by kind."""
    m = [p["measured_us"] for p in ps]
    s = [p[key] for p in ps]
    errs = {"one": [], "split": []}
    for p in ps:
        errs["one" if p["plan"] in ONE_DEVICE else "split"].append(p[key] / p["measured_us"] - 1)
    pick = min(range(len(ps)), key=lambda k: s[k])
    return {"mae": statistics.mean(abs(e) for e in errs["one"] + errs["split"]),
            "split": statistics.mean(errs["split"]) if errs["split"] else 0, "rho": spearman(m, s),
            "regret": m[pick] / min(m) - 1, "pick": ps[pick]["plan"], "errs": errs}


def contention(g, log):
    if "contention" in g:
        c = g["contention"]
        text = "%.2f, %.2f (calibrated %.2f, %.2f)" % (c["median"]["compute"], c["median"]["memory"],
                                                      c["calibrated"]["compute"], c["calibrated"]["memory"])
        if c["median"].get("read", 1) != 1:
            text += "; received reads %.2f (calibrated %.2f)" % (c["median"]["read"], c["calibrated"].get("read", 1))
        if c.get("kinds"):
            top = max(c["kinds"].items(), key=lambda kv: kv[1])
            text += "; %d kinds, up to %s %.2f" % (len(c["kinds"]), top[0], top[1])
        return text
    share = re.search(r"sharing: compute ([\d.]+)x, memory ([\d.]+)x", log)
    return "%s, %s" % share.groups() if share else "-"


rows, present = [], set(KEYS)
sets = {which: {key: {"one": [], "split": []} for key in KEYS} for which in ("default", "further")}
i = 0
while os.path.exists(f"{out}/{i}.json"):
    g = json.load(open(f"{out}/{i}.json"))["graphs"][0]
    log = open(f"{out}/{i}.log").read()
    ps = [p for p in g["plans"] if p.get("measured_us", 0) > 0]
    present &= {key for key in KEYS if all(key in p for p in ps)}
    f = {key: figures(ps, key) for key in KEYS if all(key in p for p in ps)}
    which = "default" if i < 10 else "further"
    for key in f:
        for kind in ("one", "split"):
            sets[which][key][kind] += f[key]["errs"][kind]
    byname = {p["plan"]: p["measured_us"] for p in ps}
    m = [p["measured_us"] for p in ps]
    rows.append({"graph": os.path.basename(g["model"]).split(":")[0], "plans": len(ps), "f": f,
                 "best": min(ps, key=lambda p: p["measured_us"])["plan"],
                 "go": byname["go"] / min(m) if "go" in byname else 0,
                 "go_single": byname["go"] / byname["single"] - 1 if "go" in byname else 0,
                 "noise": statistics.median(half_gap(p["steps_us"]) for p in ps), "share": contention(g, log),
                 "kept": next((p["verify_kept"] for p in g["plans"] if "verify_kept" in p), None)
                 or (kept.group(1) if (kept := re.search(r"kept\s+(.+?), measured fastest", log)) else "-")})
    i += 1

keys = [key for key in KEYS if key in present]
parts = ["rounds' contention"] if CALIBRATED in present else []
parts += ["op kinds measured busy"] if PROBES in present else []
parts += ["received reads"] if NO_READ in present else []
label = {ROUNDS: ", ".join(parts) or "in-step", PROBES: "rounds' probes alone (no op kinds)",
         NO_READ: "without the received reads", CALIBRATED: "calibrated contention"}
for key in keys:
    print("\n### in-step model, %s\n" % label[key])
    print("| graph | plans | MAE | split plans, mean signed | Spearman | sim's pick / measured best | regret | GO / measured best | verify kept | GO vs single | noise floor | contention (compute, memory) |")
    print("|---|---:|---:|---:|---:|---|---:|---:|---|---:|---:|---|")
    for r in rows:
        f = r["f"][key]
        print("| %s | %d | %.1f%% | %+.1f%% | %.2f | %s / %s | %.1f%% | %.3f | %s | %+.1f%% | %.1f%% | %s |" % (
            r["graph"], r["plans"], 100 * f["mae"], 100 * f["split"], f["rho"], f["pick"], r["best"],
            100 * f["regret"], r["go"], r["kept"], 100 * r["go_single"], 100 * r["noise"], r["share"]))
    for which, e in sets.items():
        e = e[key]
        if not e["one"] and not e["split"]:
            continue
        allv = e["one"] + e["split"]
        print("\n%s set: MAE %.1f%% over %d plans; one-device plans %.1f%% (%d), split plans %.1f%% (%d, mean signed %+.1f%%)" % (
            which, 100 * statistics.mean(map(abs, allv)), len(allv), 100 * statistics.mean(map(abs, e["one"])),
            len(e["one"]), 100 * statistics.mean(map(abs, e["split"])), len(e["split"]), 100 * statistics.mean(e["split"])))
go_best = sum(1 for r in rows if r["best"] == "go")
print("\nGO's plan measured fastest on %d of %d graphs; within the noise floor of the fastest on %d" % (
    go_best, len(rows), sum(1 for r in rows if r["go"] - 1 <= r["noise"])))
