"""One simulation in a fresh process, timed from the inside, for the benchmarks that compare simulators by CPU time.

Run as ``python -m benchmarks._child '<json>'`` with the keys ``dims``, ``radix``, ``router`` (``"simple"`` or
``"booksim"``) and ``config`` (:meth:`torus_lab.sim.SimConfig.as_dict` fields) and ``seed``.  The network is the
torus with BookSim2's ``dim_order_torus`` routing (dateline classes chosen on entering a dimension, a random
direction when both are minimal, 2 VCs).  Prints one JSON line: the simulated ``cycles``, ``setup_cpu_s`` (CPU
time of this process before the simulation: interpreter, imports, numba's cached kernels, topology and routing
tables, and a short run on a small torus of the same dimensions, :func:`setup_run`, which loads the cached numba
kernels every run calls, whatever its network), ``cpu_s`` (CPU time of the :func:`torus_lab.sim.simulate`
call, its state set-up included), the run's ``end_rule`` and accepted throughput.  The parent reads the whole
process's CPU time from its own child rusage.
"""

from __future__ import annotations

import json
import sys
import time


def setup_run(dims: int, config, seed: int) -> None:
    """A run of ``config``'s router and traffic on the 4-ary ``dims``-cube, a few sample periods (or the fixed
    windows) of 20 cycles: it loads every compiled function a run of ``config`` calls (numba's cached machine code,
    the same for any network), which the first :func:`torus_lab.sim.simulate` call of a process would otherwise
    load inside the timed call."""
    from torus_lab.routing.ecube import ecube_routing
    from torus_lab.sim import simulate
    from torus_lab.topology import Torus

    small = ecube_routing(Torus(dims, 4), datelines=True, vcs=2, dateline_rule="entry", tie="random")
    if config.run_control == "fixed":
        short = config.replace(warmup=20, measure=20, drain=20)
    else:
        short = config.replace(sample_period=20, drain=20)
    simulate(small, short, seed=seed)


def main(argv: list[str]) -> int:
    from torus_lab.routing.ecube import ecube_routing
    from torus_lab.sim import SimConfig, simulate
    from torus_lab.topology import Torus

    spec = json.loads(argv[0])
    routing = ecube_routing(Torus(spec["dims"], spec["radix"]), datelines=True, vcs=2, dateline_rule="entry",
                            tie="random")  # fmt: skip
    config = SimConfig.from_mapping(spec["config"])
    setup_run(spec["dims"], config, spec["seed"])
    start = time.process_time()
    result = simulate(routing, config, seed=spec["seed"])
    cpu = time.process_time() - start
    print(json.dumps({"cycles": int(result.cycles), "setup_cpu_s": start, "cpu_s": cpu, "end_rule": result.end_rule,
                      "accepted": float(result.accepted_throughput)}))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
