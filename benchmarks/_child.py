"""One simulation in a fresh process, timed from the inside, for the benchmarks that compare simulators by CPU time.

Run as ``python -m benchmarks._child '<json>'`` with the keys ``dims``, ``radix``, ``router`` (``"simple"`` or
``"booksim"``) and ``config`` (:meth:`torus_lab.sim.SimConfig.as_dict` fields) and ``seed``.  The network is the
torus with BookSim2's ``dim_order_torus`` routing (dateline classes chosen on entering a dimension, a random
direction when both are minimal, 2 VCs).  Prints one JSON line: the simulated ``cycles``, ``setup_cpu_s`` (CPU
time of this process before the simulation: interpreter, imports, numba's cached kernels, topology and routing
tables), ``cpu_s`` (CPU time of the :func:`torus_lab.sim.simulate` call, its state set-up included), the run's
``end_rule`` and accepted throughput.  The parent reads the whole process's CPU time from its own child rusage.
"""

from __future__ import annotations

import json
import sys
import time


def main(argv: list[str]) -> int:
    from torus_lab.routing.ecube import ecube_routing
    from torus_lab.sim import SimConfig, simulate
    from torus_lab.topology import Torus

    spec = json.loads(argv[0])
    routing = ecube_routing(Torus(spec["dims"], spec["radix"]), datelines=True, vcs=2, dateline_rule="entry",
                            tie="random")  # fmt: skip
    config = SimConfig.from_mapping(spec["config"])
    start = time.process_time()
    result = simulate(routing, config, seed=spec["seed"])
    cpu = time.process_time() - start
    print(json.dumps({"cycles": int(result.cycles), "setup_cpu_s": start, "cpu_s": cpu, "end_rule": result.end_rule,
                      "accepted": float(result.accepted_throughput)}))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
