"""scripts/pretrain_transfer.sh with a stand-in program: which `pretrain` runs it starts,
with which flags, and `--init-dir` turned into each family's own `--init`."""
import os
import subprocess

SCRIPT = os.path.join(os.environ.get("GRAPHOPT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")),
                      "scripts", "pretrain_transfer.sh")

# Records its arguments, one run a line, and writes --out and its report as pretrain does.
FAKE = """#!/usr/bin/env bash
echo "$*" >> "$LOG"
while [ $# -gt 0 ]; do
  if [ "$1" = "--out" ]; then echo policy > "$2"; echo '{"stop_reason": "time limit"}' > "$2.json"; fi
  shift
done
"""


def run(tmp_path, *args):
    fake = tmp_path / "graphopt"
    fake.write_text(FAKE)
    fake.chmod(0o755)
    log = tmp_path / "runs.log"
    env = dict(os.environ, GRAPHOPT_BIN=str(fake), LOG=str(log))
    r = subprocess.run(["bash", SCRIPT, *map(str, args)], capture_output=True, text=True, env=env)
    return r, (log.read_text().splitlines() if log.exists() else [])


def test_each_family_starts_from_its_own_policy_in_the_init_dir(tmp_path):
    init = tmp_path / "old"
    init.mkdir()
    for f in ("rnnlm", "gnmt"):
        (init / f"no-{f}.pt").write_text("old")
    out = tmp_path / "new"
    r, runs = run(tmp_path, out, 60, tmp_path / "ckpt", "rnnlm", "gnmt", "--", "--imitate-baselines",
                  "--init-dir", init)
    assert r.returncode == 0, r.stderr
    assert len(runs) == 2
    for line, f in zip(runs, ("rnnlm", "gnmt")):
        assert line.startswith("pretrain --holdout " + f + " --imitate-baselines --init " + str(init / f"no-{f}.pt"))
        assert "--init-dir" not in line
        assert f"--checkpoint {tmp_path / 'ckpt' / ('no-' + f)}" in line
    assert (out / "no-rnnlm.pt").exists() and (out / "no-gnmt.pt.json").exists()
    # Finished policies are not trained again.
    r, again = run(tmp_path, out, 60, tmp_path / "ckpt", "rnnlm", "gnmt", "--", "--init-dir", init)
    assert r.returncode == 0, r.stderr
    assert again == runs


def test_a_missing_init_policy_is_refused_before_any_training(tmp_path):
    (tmp_path / "no-rnnlm.pt").write_text("old")  # the first family's start is there, the second's is not
    r, runs = run(tmp_path, tmp_path / "new", 60, tmp_path / "ckpt", "rnnlm", "wavenet", "--", "--init-dir", tmp_path)
    assert r.returncode == 2
    assert f"no policy {tmp_path}/no-wavenet.pt to start wavenet from" in r.stderr
    assert runs == []


def test_without_init_dir_the_flags_pass_as_given(tmp_path):
    r, runs = run(tmp_path, tmp_path / "new", 60, tmp_path / "ckpt", "amoebanet")
    assert r.returncode == 0, r.stderr
    assert len(runs) == 1 and "--init" not in runs[0] and runs[0].startswith("pretrain --holdout amoebanet --time-limit 60")
