"""The Python module's simulate call against the C++ one (bench/python_overhead.sh).

Times graphopt.Simulator(g, c).simulate(plan) on the expert's plan of gnmt:layers=8 on
8xV100, 20 calls after one warm-up, and prints the median in milliseconds.
"""
import statistics
import time

import graphopt

g = graphopt.load("gnmt:layers=8")
c = graphopt.cluster("8xV100")
plan = graphopt.baseline(g, c, "expert")
sim = graphopt.Simulator(g, c)
sim.simulate(plan)
times = []
for _ in range(20):
    start = time.perf_counter()
    sim.simulate(plan)
    times.append(time.perf_counter() - start)
print("%.4f" % (statistics.median(times) * 1e3))
