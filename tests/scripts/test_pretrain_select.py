"""scripts/pretrain_select.sh with a stand-in program: the run stopped every CHUNK
seconds for a snapshot, each snapshot (and the --init start) planning the validation
rows, and the best of them kept (scripts/select_policy.py)."""
import json
import os
import subprocess

SOURCE = os.environ.get("GRAPHOPT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(SOURCE, "scripts", "pretrain_select.sh")

# pretrain: logs its arguments, writes --out (naming the seconds trained so far) and its
# report, and counts the seconds in the checkpoint's state. bench: logs, and writes a
# results file whose zero-shot step time on every row is TIMES[policy's content]
# ("oom" for a plan that does not fit), TIMES given as "content=us;content=us".
FAKE = r"""#!/usr/bin/env bash
echo "$*" >> "$LOG"
cmd="$1"; shift
declare -A a
while [ $# -gt 0 ]; do a["$1"]="${2:-}"; shift; [ $# -gt 0 ] && shift; done
if [ "$cmd" = pretrain ]; then
  state="${a[--checkpoint]}/pretrain_state.json"
  spent=0; [ -f "$state" ] && spent=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["seconds"])' "$state")
  total=$(( spent + ${a[--time-limit]} ))
  echo "{\"seconds\": $total}" > "$state"
  echo "trained $total" > "${a[--out]}"
  echo '{"stop_reason": "time limit"}' > "${a[--out]}.json"
elif [ "$cmd" = bench ]; then
  python3 - "${a[--rows]}" "${a[--results]}" "$(cat "${a[--pretrained]}")" <<'EOF'
import json, os, sys
rows, out, content = sys.argv[1].split(","), sys.argv[2], sys.argv[3]
times = dict(kv.split("=") for kv in os.environ["TIMES"].split(";"))
t = times[content]
m = {"error": "", "oom": t == "oom", "step_time_us": 1e6 if t == "oom" else float(t)}
data = {"format": "graphopt-results", "version": 2, "rows": [{"row": r, "methods": {"zero-shot": m}} for r in rows]}
json.dump(data, open(out, "w"))
EOF
fi
"""


def run(tmp_path, times, *args):
    fake = tmp_path / "graphopt"
    fake.write_text(FAKE)
    fake.chmod(0o755)
    log = tmp_path / "runs.log"
    env = dict(os.environ, GRAPHOPT_BIN=str(fake), LOG=str(log), TIMES=times)
    r = subprocess.run(["bash", SCRIPT, *map(str, args)], capture_output=True, text=True, env=env)
    return r, (log.read_text().splitlines() if log.exists() else [])


def start(tmp_path):
    init = tmp_path / "start.pt"
    init.write_text("start")
    (tmp_path / "start.pt.json").write_text('{"the": "start"}')
    return init


def test_the_best_snapshot_on_the_validation_rows_is_kept(tmp_path):
    init, out, ckpt = start(tmp_path), tmp_path / "best.pt", tmp_path / "ckpt"
    times = "start=300;trained 100=250;trained 200=200;trained 250=260"
    r, runs = run(tmp_path, times, out, 250, ckpt, 100, "rnnlm-2 wavenet-2", "--holdout", "gnmt", "--init", init)
    assert r.returncode == 0, r.stderr
    pretrains = [l for l in runs if l.startswith("pretrain")]
    benches = [l for l in runs if l.startswith("bench")]
    # Three chunks: 100 s, 100 s, and the 50 s left; the start and three snapshots planned.
    assert [l.split("--time-limit ")[1].split()[0] for l in pretrains] == ["100", "100", "50"]
    assert all(l.startswith("pretrain --holdout gnmt --init " + str(init)) for l in pretrains)
    assert len(benches) == 4 and all("--rows rnnlm-2,wavenet-2" in l and "--methods zero-shot" in l for l in benches)
    assert out.read_text() == "trained 200\n"
    sel = json.loads((tmp_path / "best.pt.selection.json").read_text())
    assert sel["chosen"] == str(ckpt / "snapshots" / "snap-2.pt")
    assert [round(s["geomean_us"], 6) for s in sel["snapshots"]] == [300, 250, 200, 260]
    # Done: a rerun trains and plans nothing.
    r, again = run(tmp_path, times, out, 250, ckpt, 100, "rnnlm-2 wavenet-2", "--holdout", "gnmt", "--init", init)
    assert r.returncode == 0, r.stderr
    assert again == runs


def test_the_start_is_kept_when_training_makes_it_worse(tmp_path):
    init, out = start(tmp_path), tmp_path / "best.pt"
    r, _ = run(tmp_path, "start=200;trained 60=210;trained 120=230", out, 120, tmp_path / "ckpt", 60, "gnmt-2",
               "--init", init)
    assert r.returncode == 0, r.stderr
    assert out.read_text() == "start"
    assert json.loads((tmp_path / "best.pt.json").read_text()) == {"the": "start"}


def test_a_plan_that_fits_beats_a_faster_mean_that_does_not(tmp_path):
    out = tmp_path / "best.pt"
    r, _ = run(tmp_path, "trained 60=300;trained 120=oom", out, 120, tmp_path / "ckpt", 60, "gnmt-2 gnmt-4")
    assert r.returncode == 0, r.stderr
    assert out.read_text() == "trained 60\n"


def test_bad_arguments_are_refused_before_any_run(tmp_path):
    for args in ([tmp_path / "o.pt", 100, tmp_path / "c", 0, "gnmt-2"],
                 [tmp_path / "o.pt", 100, tmp_path / "c", 50, " "],
                 [tmp_path / "o.pt", 100, tmp_path / "c", 50, "gnmt-2", "--init", tmp_path / "missing.pt"]):
        r, runs = run(tmp_path, "x=1", *args)
        assert r.returncode == 2, args
        assert runs == []
