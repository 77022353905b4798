"""Open routing: start-up and speed of built-in and user-registered routing kernels.

Targets, printed beside each figure:
* warm start of a 64-node simulation with a built-in algorithm (a fresh process: import, build the routing,
  simulate; numba caches warm) <= 3 s;
* the first simulation with a user kernel, compilation included (a fresh process whose ``__main__`` defines
  the kernel with plain ``numba.njit``) <= 30 s;
* simulation speed with a user kernel within 20% of the same algorithm built in (e-cube with datelines; the
  user copy is the built-in kernel's Python source compiled as a user kernel).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import numba

from torus_lab.routing import make_routing, register_routing, unregister_routing
from torus_lab.routing.ecube import ecube_kernel
from torus_lab.sim import SimConfig, simulate
from torus_lab.topology import Torus

WARM_START_TARGET_S = 3.0
USER_FIRST_TARGET_S = 30.0
SPEED_RATIO_TARGET = 0.8

_BUILTIN = """
from torus_lab.routing import make_routing
from torus_lab.sim import SimConfig, simulate
from torus_lab.topology import Torus
t = Torus(2, 8)
simulate(make_routing({"name": "ecube", "datelines": True, "vcs": 2}, t),
         SimConfig(offered_load=0.1, warmup=200, measure=1000), seed=1)
"""
_USER = """
import numba
from torus_lab.routing import make_routing, register_routing
from torus_lab.sim import SimConfig, simulate
from torus_lab.topology import Torus

@numba.njit
def mine(tables, cur, dst, in_ch, in_vc, state, rand, out_ch, out_vc, out_state):
    n = tables.radices.shape[0]
    for d in range(n):
        k = tables.radices[d]
        c, e = (cur // tables.strides[d]) % k, (dst // tables.strides[d]) % k
        if c != e:
            f = (e - c) % k
            ch = tables.slot[(cur * n + d) * 2 + (1 if f <= k - f else 0)]
            crossed = in_ch >= 0 and tables.ch_dim[in_ch] == d and in_vc == 1
            out_ch[0], out_vc[0] = ch, 1 if crossed or tables.ch_wrap[ch] != 0 else 0
            out_state[0, :] = state
            return 1
    return 0

register_routing("bench-user-dor", mine, vcs=2, adaptive=False)
t = Torus(2, 8)
simulate(make_routing("bench-user-dor", t), SimConfig(offered_load=0.1, warmup=200, measure=1000), seed=1)
"""


def _process_seconds(source: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", textwrap.dedent(source)], check=True)
    return time.perf_counter() - start


def _verdict(ok: bool) -> str:
    return "meets" if ok else "MISSES"


def _rate(routing, topo) -> float:
    best = 0.0
    for seed in range(3):
        res = simulate(routing, SimConfig(offered_load=0.2, warmup=1000, measure=20000, drain=2000), seed=seed)
        best = max(best, topo.num_nodes * res.cycles / res.wall_seconds)
    return best


def run() -> None:
    _process_seconds(_BUILTIN)  # make sure the caches are warm
    warm = min(_process_seconds(_BUILTIN) for _ in range(2))
    print(f"warm start, 64-node simulation, built-in e-cube: {warm:.2f} s "
          f"(target <= {WARM_START_TARGET_S:.0f} s) -- {_verdict(warm <= WARM_START_TARGET_S)}")
    first = _process_seconds(_USER)
    print(f"first simulation with a user kernel, compilation included: {first:.2f} s "
          f"(target <= {USER_FIRST_TARGET_S:.0f} s) -- {_verdict(first <= USER_FIRST_TARGET_S)}")

    topo = Torus(2, 8)
    builtin = make_routing({"name": "ecube", "datelines": True, "vcs": 2}, topo)
    register_routing("bench-ecube-copy", numba.njit(ecube_kernel.py_func), vcs=2, adaptive=False,
                     iparams=lambda options, topology: list(builtin.tables.iparams), replace=True)  # fmt: skip
    try:
        user = make_routing("bench-ecube-copy", topo)
        simulate(user, SimConfig(offered_load=0.05, warmup=10, measure=50), seed=0)  # compile outside the timing
        rate_builtin, rate_user = _rate(builtin, topo), _rate(user, topo)
    finally:
        unregister_routing("bench-ecube-copy")
    ratio = rate_user / rate_builtin
    print(f"router-cycles/s, 8x8 e-cube+dateline at 0.2: built-in {rate_builtin:,.0f}, user copy {rate_user:,.0f}"
          f" -> ratio {ratio:.3f} (target >= {SPEED_RATIO_TARGET}) -- {_verdict(ratio >= SPEED_RATIO_TARGET)}")


if __name__ == "__main__":
    run()
