"""The tables scripts/ prints from bench results: the convergence comparison and the
side-by-side columns of an ablation, on small results files written here."""
import json
import os
import subprocess
import sys

import pytest

SCRIPTS = os.path.join(os.environ.get("GRAPHOPT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")),
                       "scripts")


def run(script, *args):
    return subprocess.run([sys.executable, os.path.join(SCRIPTS, script), *map(str, args)],
                          capture_output=True, text=True)


def results(path, rows):
    """rows: [(row, {method: step_ms or None for OOM})]."""
    data = {"format": "graphopt-results", "version": 2, "rows": [
        {"row": row, "label": row.upper(), "methods": {
            m: {"step_time_us": (t or 1.0) * 1e3, "oom": t is None, "error": ""} for m, t in methods.items()}}
        for row, methods in rows]}
    path.write_text(json.dumps(data))
    return path


def test_columns_give_speedups_means_and_rows_below_the_floor(tmp_path):
    full = results(tmp_path / "full.json", [("a", {"expert": 100.0, "go": 50.0}), ("b", {"expert": 100.0, "go": 200.0}),
                                            ("c", {"expert": None, "go": 10.0})])
    off = results(tmp_path / "off.json", [("a", {"expert": 100.0, "go": 100.0}), ("b", {"expert": 100.0, "go": None})])
    out = run("compare_columns.py", f"full={full}", f"x=0={off}")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "| row | expert | full | x=0 |"
    assert "| A | 100.0 | 50.0 (2.00x) | 100.0 (1.00x) |" in lines
    assert "| B | 100.0 | 200.0 (0.50x) | OOM |" in lines
    assert "| C | OOM or not run | 10.0 | not run |" in lines
    # full: 2.0 and 0.5 over the expert (C has none): 1.0; x=0 one row at 1.0.
    assert "| geometric mean over expert | | 1.000x (2 rows) | 1.000x (1 rows) |" in lines
    assert lines[-1] == "| rows below 0.95x | | 1 | 0 |"


def test_columns_refuse_a_malformed_column_naming_it(tmp_path):
    out = run("compare_columns.py", tmp_path / "no-label.json")
    assert out.returncode != 0 and "LABEL=RESULTS.json" in out.stderr
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "graphopt-results", "version": 2, "rows": [{"row": "a"}]}')
    out = run("compare_columns.py", f"v={bad}")
    assert out.returncode != 0 and str(bad) in out.stderr
    other = tmp_path / "other.json"
    other.write_text('{"format": "graphopt-convergence-suite", "version": 1, "runs": []}')
    out = run("compare_columns.py", f"v={other}")
    assert out.returncode != 0 and "not a bench results file" in out.stderr


def convergence(path, runs):
    """runs: [(row, method, [(seconds, best_ms)])]."""
    data = {"format": "graphopt-convergence-suite", "version": 1, "runs": [
        {"row": row, "method": method, "label": row.upper(), "points": [[s, 1, ms * 1e3] for s, ms in points]}
        for row, method, points in runs]}
    path.write_text(json.dumps(data))
    return path


def test_convergence_times_the_fast_method_to_the_slow_ones_final_plan(tmp_path):
    conv = convergence(tmp_path / "c.json", [
        ("a", "hdp", [(1.0, 300.0), (40.0, 200.0), (300.0, 200.0)]),
        ("a", "go", [(0.5, 250.0), (4.0, 190.0)]),
        ("b", "hdp", [(2.0, 100.0)]),
        ("b", "go", [(1.0, 150.0)]),
    ])
    out = run("convergence_table.py", conv)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    # HDP first reached its final 200 ms after 40 s, GO after 4 s: 10x.
    assert "| A | 200.0 | 40.0 | 4.00 | 10.0x |" in lines
    assert "| B | 100.0 | 2.0 | never (best 150.0 ms) | |" in lines
    assert lines[-1] == "| geometric mean (1 of 2 rows) | | | | **10.0x** |"


def test_convergence_refuses_another_format(tmp_path):
    other = tmp_path / "o.json"
    other.write_text('{"format": "graphopt-results", "version": 2}')
    out = run("convergence_table.py", other)
    assert out.returncode != 0 and "not a convergence file" in out.stderr


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
