"""The Python module graphopt (python/): every public function, and its errors.

Run by ctest (tests/CMakeLists.txt) with the build's python/ folder on PYTHONPATH.
"""
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import graphopt

DATA = os.environ.get("GRAPHOPT_DATA_DIR", os.path.join(os.path.dirname(__file__), "../../../shared/data"))
SOURCE = os.environ.get("GRAPHOPT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "../.."))
SMALL = "rnnlm:layers=1,steps=2,hidden=256,batch=32,vocab=500"
# The small GO network of the C++ tests (tests/testing/policies.h) with 4 samples a step.
TINY_POLICY = "hidden=16,heads=2,segment=16,memory=16,samples=4"


@pytest.fixture(scope="module")
def gnmt():
    return graphopt.load("gnmt:layers=2")


@pytest.fixture(scope="module")
def two_p100():
    return graphopt.cluster("2xP100")


def test_load_builds_the_training_step_of_a_built_in_model(gnmt):
    assert gnmt.name == "gnmt_2l"
    assert gnmt.family == "gnmt"
    assert gnmt.num_ops == len(gnmt) > 1000
    forward = graphopt.load("gnmt:layers=2", training=False)
    assert forward.num_ops < gnmt.num_ops
    assert gnmt.param_bytes > 0 and gnmt.flops > 0


def test_load_an_onnx_model_with_its_dimensions():
    g = graphopt.load(os.path.join(DATA, "onnx", "bert_encoder.onnx"))
    assert g.num_ops > 1000
    dynamic = os.path.join(SOURCE, "data", "onnx_corpus", "gpt_dynamic.onnx")
    small = graphopt.load(dynamic, dims={"batch": 2, "seq": 64})
    large = graphopt.load(dynamic, dims={"batch": 2}, default_dim=128)  # seq=128
    assert small.num_ops == large.num_ops and small.flops < large.flops
    with pytest.raises(graphopt.InvalidArgument, match="seq"):
        graphopt.load(dynamic, dims={"batch": 2})  # seq unbound
    with pytest.raises(graphopt.Error, match="nosuchdim"):
        graphopt.load(dynamic, dims={"batch": 2, "seq": 64, "nosuchdim": 3})


def test_load_errors_name_the_file_or_model():
    with pytest.raises(graphopt.NotFound, match="/no/such/model.onnx"):
        graphopt.load("/no/such/model.onnx")
    with pytest.raises(LookupError):  # NotFound is also a LookupError
        graphopt.load("/no/such/model.onnx")
    with pytest.raises(graphopt.Error, match="nosuchfamily"):
        graphopt.load("nosuchfamily:layers=2")


def test_ops_and_tensors_are_read_by_id(gnmt):
    op = gnmt.op(0)
    assert op.name == gnmt.op_names()[0]
    assert isinstance(op.kind, str) and op.kind
    for t in op.outputs:
        assert gnmt.tensor(t).producer == 0
    assert len(gnmt.op_names()) == gnmt.num_ops
    with pytest.raises(IndexError):
        gnmt.op(gnmt.num_ops)
    with pytest.raises(IndexError):
        gnmt.tensor(-1)


def test_cluster_presets_specs_and_files(tmp_path, two_p100):
    assert "4xV100" in graphopt.cluster_presets()
    assert two_p100.num_devices == len(two_p100) == 3
    assert [d.name for d in two_p100.devices][:2] == ["gpu:0", "gpu:1"]
    assert two_p100.accelerators == [0, 1]
    assert graphopt.cluster("2xV100+1xP100").num_devices == 4
    with pytest.raises(graphopt.InvalidArgument, match="Foo"):
        graphopt.cluster("9xFoo")
    saved = tmp_path / "mine.json"
    two_p100.save(str(saved))
    again = graphopt.cluster(str(saved))
    assert again.summary() == two_p100.summary()
    bad = tmp_path / "cluster.json"
    bad.write_text("{not json")
    with pytest.raises(graphopt.Error, match="cluster.json"):
        graphopt.cluster(str(bad))


def test_every_baseline_plans_and_its_plan_simulates(gnmt, two_p100):
    assert graphopt.baselines() == ["single", "tf-default", "expert", "metis", "scotch", "heft"]
    for name in graphopt.baselines() + ["random"]:
        plan = graphopt.baseline(gnmt, two_p100, name, seed=1)
        assert len(plan) == gnmt.num_ops
        assert set(np.unique(plan.device)) <= {0, 1, 2}
        assert graphopt.simulate(gnmt, two_p100, plan).step_time_us > 0
    fused = graphopt.baseline(gnmt, two_p100, "expert", fusion=True)
    assert fused.fuse.any()
    with pytest.raises(graphopt.NotFound, match="known"):
        graphopt.baseline(gnmt, two_p100, "no-such-method")


def test_plan_arrays_are_views_of_the_plan(gnmt, two_p100):
    plan = graphopt.baseline(gnmt, two_p100, "single")
    assert plan.device.dtype == np.int32 and plan.priority.dtype == np.float64 and plan.fuse.dtype == np.bool_
    before = graphopt.simulate(gnmt, two_p100, plan).step_time_us
    copy = plan.copy()
    plan.device[:] = 1  # every op on the second GPU: writes through the view
    assert (plan.device == 1).all() and (copy.device == 0).all()
    plan.device = np.zeros(gnmt.num_ops, dtype=np.int64)  # assignment converts and copies
    assert graphopt.simulate(gnmt, two_p100, plan).step_time_us == before
    with pytest.raises(graphopt.InvalidArgument, match="one per op"):
        plan.priority = np.zeros(3)
    assert graphopt.Plan(gnmt, 1).device.max() == 1
    assert plan.graph.name == gnmt.name


def test_plans_save_and_load_for_their_graph_only(tmp_path, gnmt, two_p100):
    plan = graphopt.baseline(gnmt, two_p100, "expert", fusion=True)
    path = str(tmp_path / "plan.json")
    plan.save(path)
    loaded = graphopt.Plan.load(path, gnmt)
    assert (loaded.device == plan.device).all() and (loaded.fuse == plan.fuse).all()
    other = graphopt.load(SMALL)
    with pytest.raises(graphopt.Error, match="plan.json"):
        graphopt.Plan.load(path, other)
    with pytest.raises(graphopt.IoError):
        plan.save(str(tmp_path / "no" / "such" / "folder" / "plan.json"))


def test_simulate_reports_time_memory_utilisation_and_the_bound(tmp_path, gnmt, two_p100):
    plan = graphopt.baseline(gnmt, two_p100, "expert")
    r = graphopt.simulate(gnmt, two_p100, plan)
    assert r.step_time == pytest.approx(r.step_time_us / 1e6)
    assert 0 < r.lower_bound_us <= r.step_time_us
    assert not r.oom and r.memory == "fits in memory"
    assert r.peak_memory.shape == (3,) and r.peak_memory[0] > 0
    assert ((0 <= r.utilization) & (r.utilization <= 1)).all()
    assert r.busy_us[0] <= r.step_time_us and r.num_kernels > 0
    trace = tmp_path / "trace.json"
    sim = graphopt.Simulator(gnmt, two_p100)
    again = sim.simulate(plan, trace=str(trace))
    assert again.step_time_us == r.step_time_us  # deterministic
    assert sim.lower_bound_us == r.lower_bound_us
    assert "traceEvents" in json.loads(trace.read_text())


def test_a_plan_of_another_graph_is_refused(gnmt, two_p100):
    other = graphopt.load(SMALL)
    plan = graphopt.baseline(other, two_p100, "single")
    with pytest.raises(graphopt.InvalidArgument, match="plan is of graph"):
        graphopt.simulate(gnmt, two_p100, plan)
    with pytest.raises(ValueError):  # InvalidArgument is also a ValueError
        graphopt.Simulator(gnmt, two_p100).simulate(plan)


def test_optimize_searches_to_its_budget_and_reports_progress():
    g = graphopt.load(SMALL)
    c = graphopt.cluster("2xV100")
    seen = []
    r = graphopt.optimize(g, c, time_limit=0, steps=3, seed=3, threads=1, options=TINY_POLICY, progress=seen.append)
    assert r.steps == 3 and r.stop_reason == "steps"
    assert [p["step"] for p in seen] == [1, 2, 3]
    assert r.fits and 0 < r.step_time_us <= r.best_baseline_us
    assert r.best_baseline in graphopt.baselines()
    assert graphopt.simulate(g, c, r.plan).step_time_us == pytest.approx(r.step_time_us)
    assert r.trace and r.trace[-1]["best_us"] == pytest.approx(r.step_time_us)
    again = graphopt.optimize(g, c, time_limit=0, steps=3, seed=3, threads=1, options=TINY_POLICY)
    assert (again.plan.device == r.plan.device).all()  # the same seed gives the same plan


def test_optimize_zero_shot_and_its_errors():
    g = graphopt.load(SMALL)
    c = graphopt.cluster("2xV100")
    policy = os.path.join(SOURCE, "policies", "default.pt")
    z = graphopt.optimize(g, c, zero_shot=True, pretrained=policy, threads=1)
    assert z.stop_reason == "zero-shot" and z.steps == 0 and z.step_time_us > 0
    # Not named, the policy is the command's default: the checkout's policies/default.pt.
    shipped = graphopt.optimize(g, c, zero_shot=True, threads=1)
    assert (shipped.plan.device == z.plan.device).all() and shipped.step_time_us == z.step_time_us
    with pytest.raises(graphopt.InvalidArgument, match="pre-trained"):
        graphopt.optimize(g, c, zero_shot=True, pretrained="none")
    with pytest.raises(graphopt.InvalidArgument, match="colour"):
        graphopt.optimize(g, c, options="colour=blue")
    placed = graphopt.optimize(g, c, time_limit=0, steps=1, tasks="placement", threads=1, options=TINY_POLICY)
    assert placed.steps == 1 and placed.fits
    with pytest.raises(graphopt.InvalidArgument, match="tasks"):
        graphopt.optimize(g, c, steps=1, tasks="colour")
    with pytest.raises(graphopt.Error, match="no_such_method"):
        graphopt.optimize(g, c, method="no_such_method")
    with pytest.raises(graphopt.Error, match="missing.pt"):
        graphopt.optimize(g, c, steps=1, pretrained="/no/missing.pt")


def test_an_exception_in_progress_stops_the_search_and_is_raised():
    g = graphopt.load(SMALL)
    c = graphopt.cluster("2xV100")

    def stop(progress):
        raise RuntimeError("enough at step %d" % progress["step"])

    with pytest.raises(RuntimeError, match="enough at step 1"):
        graphopt.optimize(g, c, time_limit=0, steps=1000, threads=1, options=TINY_POLICY, progress=stop)


def test_ctrl_c_stops_a_search_with_keyboard_interrupt():
    script = (
        "import graphopt, sys\n"
        "g = graphopt.load(%r)\n"
        "c = graphopt.cluster('2xV100')\n"
        "print('ready', flush=True)\n"
        "try:\n"
        "    graphopt.optimize(g, c, time_limit=0, steps=100000, threads=1, options=%r)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
        "    sys.exit(0)\n"
        "sys.exit(3)\n" % (SMALL, TINY_POLICY))
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=os.environ)
    assert proc.stdout.readline().strip() == "ready"
    time.sleep(2)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0 and "interrupted" in out


def test_the_gil_is_released_while_cpp_works():
    gaps = []
    done = threading.Event()
    loaded = {}

    def load():
        start = time.monotonic()
        loaded["graph"] = graphopt.load("gnmt:layers=8")
        loaded["seconds"] = time.monotonic() - start
        done.set()

    worker = threading.Thread(target=load)
    last = time.monotonic()
    worker.start()
    while not done.is_set():
        now = time.monotonic()
        gaps.append(now - last)
        last = now
    worker.join()
    assert loaded["graph"].num_ops > 10000
    # Held for the whole load, the GIL would stop this loop for about that long.
    assert max(gaps) < 0.5 * loaded["seconds"], (max(gaps), loaded["seconds"])


def module_prefixes(graph):
    """Every module the node names carry, by its PyTorch name: '/a/b/Op' is in a and a.b,
    '/layer1/layer1.0/Op' (a component already qualified) in layer1 and layer1.0."""
    prefixes = set()
    for name in graph.op_names():
        if not name.startswith("/"):
            continue
        qualified = ""
        for part in name.split("/")[1:-1]:
            qualified = part if not qualified or part.startswith(qualified + ".") else qualified + "." + part
            prefixes.add(qualified)
    return prefixes


@pytest.mark.parametrize("model", [os.path.join(DATA, "onnx", m + ".onnx") for m in (
    "transformer_seq2seq", "bert_encoder", "inception_v3", "resnet50", "squeezenet1_1")] + [
    os.path.join(SOURCE, "data", "onnx_corpus", m + ".onnx") for m in (
    "vit_b_16", "swin_t", "gpt_fixed", "resnet18", "mobilenet_v2")])
def test_a_module_plan_maps_modules_named_as_pytorch_names_them(model):
    g = graphopt.load(model, default_dim=1)
    c = graphopt.cluster("4xV100")
    plan = graphopt.baseline(g, c, "module-balanced", granularity="module")
    device_map = plan.device_map(c)
    assert len(device_map) >= 8  # two modules holding parameters per accelerator, at least
    prefixes = module_prefixes(g)
    ops = [g.op(i) for i in range(g.num_ops)]
    parameters = {op.name for op in ops if op.kind == "Variable" and op.param_bytes > 0 and "::" not in op.name}
    for module, device in device_map.items():
        assert module in prefixes or module in parameters, module  # a module of the nodes, or a parameter
        assert device in (0, 1, 2, 3)
    # Every parameter PyTorch names (not those the exporter renamed, "onnx::Conv_193") is
    # placed by the map, as dispatch_model needs: under one of its modules, or by itself.
    for p in parameters:
        assert any(p == m or p.startswith(m + ".") for m in device_map), p
    assert len(set(device_map.values())) >= 3  # runs of equal bytes (a large module may fill two)
    assert graphopt.simulate(g, c, plan).step_time_us > 0


def test_optimize_and_baselines_keep_modules_whole_at_a_depth():
    g = graphopt.load(os.path.join(DATA, "onnx", "transformer_seq2seq.onnx"))
    c = graphopt.cluster("4xV100")
    r = graphopt.optimize(g, c, time_limit=0, steps=2, granularity="module", depth=3, threads=1, options=TINY_POLICY)
    layers = r.plan.device_map(c, depth=3)
    assert "t.encoder.layers.0" in layers and "t.decoder.layers.5" in layers
    expert = graphopt.baseline(g, c, "expert")
    with pytest.raises(graphopt.Error, match="splits module"):
        expert.device_map(c, depth=3)
    with pytest.raises(graphopt.InvalidArgument, match="granularity"):
        graphopt.baseline(g, c, "expert", granularity="layer")
    with pytest.raises(graphopt.InvalidArgument, match="depth"):
        graphopt.baseline(g, c, "expert", depth=2)
    with pytest.raises(graphopt.InvalidArgument, match=r"depth: 65 is out of range \[0, 64\]"):
        graphopt.baseline(g, c, "expert", granularity="module", depth=65)
    with pytest.raises(graphopt.InvalidArgument, match="module depth 9"):
        graphopt.optimize(g, c, steps=1, granularity="module", depth=9)
    with pytest.raises(graphopt.InvalidArgument, match="module depth 9"):
        graphopt.Plan(g).device_map(c, depth=9)
    with pytest.raises(graphopt.InvalidArgument, match=r"depth: 65 is out of range \[0, 64\]"):
        graphopt.Plan(g).device_map(c, depth=65)


def test_the_quickstart_example_runs(tmp_path):
    example = os.path.join(SOURCE, "examples", "quickstart.py")
    run = subprocess.run([sys.executable, example, "--time-limit", "3", "--out", str(tmp_path)],
                         capture_output=True, text=True, env=os.environ, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "found" in run.stdout and "t.encoder.layers.0" in run.stdout
    device_map = json.loads((tmp_path / "device_map.json").read_text())
    assert len(device_map) == 14
    assert "traceEvents" in json.loads((tmp_path / "plan.trace.json").read_text())


def documentation(obj):
    """An object's docstring without the signature lines pybind11 writes into it."""
    doc = (getattr(obj, "__doc__", None) or "").strip()
    lines = [line for line in doc.splitlines() if not re.match(r"^(\d+\. )?\w+\(.*\) -> ", line)]
    return "\n".join(lines).strip()


def test_every_public_name_has_a_docstring():
    undocumented = []
    for name in dir(graphopt):
        if name.startswith("_"):
            continue
        obj = getattr(graphopt, name)
        if not documentation(obj):
            undocumented.append(name)
        if isinstance(obj, type) and not issubclass(obj, BaseException):
            for attr, member in vars(obj).items():
                if attr.startswith("_") and attr != "__init__":
                    continue
                if not documentation(member):
                    undocumented.append(name + "." + attr)
    assert not undocumented, undocumented


VERIFY_SCRIPT = """
import graphopt
g = graphopt.load("rnnlm:layers=1,batch=2,steps=3,hidden=16,vocab=40")
c = graphopt.cluster("local:2")
r = graphopt.optimize(g, c, time_limit=0, steps=2, threads=1, options="%s", verify=2)
kept = [v for v in r.verified if v["kept"]]
assert len(kept) == 1, r.verified
assert r.verified[-1]["name"] == "single device" or any(v["name"].endswith("single)") for v in r.verified)
ran = [v for v in r.verified if not v["error"]]
assert kept[0]["measured_us"] == min(v["measured_us"] for v in ran), r.verified
assert all(v["measured_us"] > 0 and v["simulated_us"] > 0 for v in ran)
assert r.noise_floor >= 0
assert graphopt.simulate(g, c, r.plan).step_time_us > 0
print("verified", len(r.verified))
""" % TINY_POLICY


def run_python(script, omp_threads):
    env = dict(os.environ)
    env.pop("OMP_NUM_THREADS", None)
    if omp_threads is not None:
        env["OMP_NUM_THREADS"] = omp_threads
    return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)


def test_optimize_verify_executes_the_top_plans_and_keeps_the_fastest():
    r = run_python(VERIFY_SCRIPT, "1")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "verified" in r.stdout


def test_optimize_verify_needs_a_local_cluster_and_one_thread_per_core():
    g = graphopt.load(SMALL)
    with pytest.raises(graphopt.InvalidArgument, match="local"):
        graphopt.optimize(g, graphopt.cluster("2xV100"), steps=1, verify=2)
    with pytest.raises(graphopt.InvalidArgument, match="out of range"):
        graphopt.optimize(g, graphopt.cluster("2xV100"), steps=1, verify=17)
    r = run_python(VERIFY_SCRIPT, None)
    assert r.returncode != 0
    assert "OMP_NUM_THREADS=1" in r.stderr, r.stderr
