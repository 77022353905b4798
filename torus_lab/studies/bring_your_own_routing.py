"""Bring your own routing: a routing algorithm registered at run time (in the notebook) on the bench.

The study of ``notebooks/bring_your_own_routing.ipynb``: the notebook defines and registers the kernel
(:func:`torus_lab.routing.register_routing`), then :func:`run` computes every table it shows -- the plain
CDG verdict with its witness cycle and Duato's check (:func:`cdg_check`), and latency-load curves beside a
baseline over several seeds (:mod:`torus_lab.studies.routing_bench`, run over :func:`torus_lab.sweep.sweep`;
kernels registered in the notebook reach the sweep's workers).

Examples
--------
>>> cdg_check({"name": "ecube", "datelines": True, "vcs": 2}, 4, [0, 1])[["routing", "cdg_acyclic"]].values.tolist()
[['ecube+dateline', True]]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from torus_lab._validate import check_int, check_mapping, check_sequence, naming
from torus_lab.deadlock import cdg_verdict, describe_cycle, duato_check
from torus_lab.routing import make_routing
from torus_lab.studies.routing_bench import curves_from_runs, latency_load_runs, saturation_by_routing
from torus_lab.topology import Torus

__all__ = ["cdg_check", "run"]


def cdg_check(routing: Mapping[str, Any] | str, radix: int, escape_vcs: Sequence[int]) -> pd.DataFrame:
    """The deadlock checks of ``routing`` on ``Torus(2, radix)``, one row: ``routing`` (name), ``radix``,
    ``cdg_acyclic`` (plain CDG), ``cycle_length``, ``witness_cycle`` (readable), ``cycle_channels`` (``c:vc``
    list), ``escape_vcs``, ``duato_connected``, ``duato_acyclic`` (extended CDG of the escape VCs) and
    ``deadlock_free`` (Duato's sufficient condition)."""
    if not isinstance(routing, str):
        check_mapping("routing", routing, ["name"])
    check_int("radix", radix, minimum=2)
    escape_vcs = [check_int("escape_vcs", v, minimum=0) for v in check_sequence("escape_vcs", escape_vcs, min_length=1)]
    topo = Torus(2, radix)
    rf = make_routing(routing, topo)
    verdict = cdg_verdict(rf)
    with naming("escape_vcs"):
        duato = duato_check(rf, escape=list(escape_vcs))
    cycle = verdict.cycle or []
    return pd.DataFrame([{
        "routing": rf.name, "radix": radix, "cdg_acyclic": verdict.acyclic, "cycle_length": len(cycle),
        "witness_cycle": describe_cycle(topo, verdict.cycle), "cycle_channels": " ".join(f"{c}:{v}" for c, v in cycle),
        "escape_vcs": " ".join(map(str, escape_vcs)), "duato_connected": duato.connected,
        "duato_acyclic": duato.acyclic, "deadlock_free": duato.deadlock_free,
    }])


def run(params: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """Every table of the notebook from the parameters of ``experiments/bring_your_own_routing.yaml``.

    Keys (CSV stems): ``cdg_check`` (:func:`cdg_check` of ``routing`` on the ``cdg_radix`` torus),
    ``latency_load`` (curves of ``routing`` and ``baseline`` on ``Torus(2, radix)``, ``seeds`` replicas per
    load), ``saturation`` (:func:`torus_lab.studies.routing_bench.saturation_by_routing`).  ``routing`` must be
    registered (:func:`torus_lab.routing.register_routing`) before the call.
    """
    p = check_mapping("params", params, ["seed", "routing", "baseline", "radix", "loads", "seeds", "warmup",
                                         "measure", "packet_length", "vc_allocation", "cdg_radix", "escape_vcs"])
    runs = latency_load_runs([p["routing"], p["baseline"]], dims=2, radix=p["radix"], loads=p["loads"],
                             seeds=p["seeds"], seed=p["seed"], warmup=p["warmup"], measure=p["measure"],
                             packet_length=p["packet_length"], vc_allocation=p["vc_allocation"])
    return {"cdg_check": cdg_check(p["routing"], p["cdg_radix"], p["escape_vcs"]),
            "latency_load": curves_from_runs(runs), "saturation": saturation_by_routing(runs)}
