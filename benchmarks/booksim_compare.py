"""First validation of the BookSim-compatible router against BookSim2's published runs (issue 14).

``python -m benchmarks.booksim_compare REFERENCE_DIR [--quick]`` reads ``booksim2_runs.csv`` and
``booksim2_summary.csv`` from ``REFERENCE_DIR`` (BookSim2 reference data; nothing of it is copied here), runs
``SimConfig.preset("booksim")`` on the same network, routing and packet size at the zero-load point and at up
to four BookSim2 sweep loads at or below 80% of BookSim2's highest stable load (plus that knee load), and at
offered 1.0 (BookSim2's overload / throughput-mode point: no drain, only the accepted rate matters), and prints
ours beside BookSim2's packet latency, accepted rate and hops (routers traversed: our channel hops + 1).

Nothing here is tuned: the model is :mod:`torus_lab.sim.booksim` with BookSim2's defaults; the run length is
fixed (warm-up then one measurement window, no convergence test), one seed.

Examples
--------
>>> sorted(CONFIGS)[:2]
['mesh88_dor_vc2_p1', 'mesh88_dor_vc2_p4']
"""

from __future__ import annotations

import argparse
import os
import sys

import pandas as pd

from torus_lab.routing.ecube import ecube_routing
from torus_lab.sim import SimConfig, simulate
from torus_lab.sim.booksim import booksim_zero_load_latency
from torus_lab.topology import Mesh, Torus

__all__ = ["CONFIGS", "compare", "main"]

#: BookSim2 config name -> (topology, VCs, packet length, channel latency); DOR as BookSim2's dim_order_*.
CONFIGS = {
    "torus88_dor_vc2_p1": (Torus(2, 8), 2, 1, 2),
    "torus88_dor_vc2_p4": (Torus(2, 8), 2, 4, 2),
    "torus443_dor_vc2_p1": (Torus(3, 4), 2, 1, 2),
    "torus443_dor_vc2_p4": (Torus(3, 4), 2, 4, 2),
    "mesh88_dor_vc2_p1": (Mesh(2, 8), 2, 1, 1),
    "mesh88_dor_vc2_p4": (Mesh(2, 8), 2, 4, 1),
    "torus88_dor_vc4_p1": (Torus(2, 8), 4, 1, 2),
    "torus88_dor_vc4_p4": (Torus(2, 8), 4, 4, 2),
}
#: BookSim2's zero-load point and overload point (flits/node/cycle).
ZERO_LOAD = 0.001
OVERLOAD = 1.0


def _routing(topology: Torus, vcs: int):
    if topology.wraparound:  # dim_order_torus: dateline classes decided at dimension entry, random k/2 ties
        return ecube_routing(topology, datelines=True, vcs=vcs, dateline_rule="entry", tie="random")
    return ecube_routing(topology, datelines=False, vcs=vcs)  # dim_order_mesh: every VC usable


def _loads(runs: pd.DataFrame, max_stable: float, count: int = 4) -> list[float]:
    ok = runs[(runs.sim_type == "latency") & (runs.status == "ok") & (runs.offered_flit_rate > ZERO_LOAD)]
    below = sorted(x for x in ok.offered_flit_rate.unique() if x <= 0.8 * max_stable + 1e-9)
    picked = below[-count:] if len(below) > count else below
    return [float(x) for x in picked] + [float(max_stable)]


def compare(reference_dir: str, *, quick: bool = False, seed: int = 1) -> pd.DataFrame:
    """One row per (config, offered load): BookSim2's figures and ours side by side.

    ``quick`` shortens the runs (for a smoke check; the figures are then noisier).
    """
    runs = pd.read_csv(os.path.join(reference_dir, "booksim2_runs.csv"))
    summary = pd.read_csv(os.path.join(reference_dir, "booksim2_summary.csv")).set_index("config")
    scale = 0.2 if quick else 1.0
    rows = []
    for name, (topology, vcs, length, latency) in CONFIGS.items():
        routing = _routing(topology, vcs)
        mine = runs[runs.config == name]
        max_stable = float(summary.loc[name, "max_stable_offered"])
        for load in [ZERO_LOAD, *_loads(mine, max_stable), OVERLOAD]:
            sim_type = "throughput" if load == OVERLOAD else "latency"
            ref = mine[(mine.sim_type == sim_type) & ((mine.offered_flit_rate - load).abs() < 1e-9)]
            measure = int((100_000 if load == ZERO_LOAD else 20_000) * scale)
            cfg = SimConfig.preset("booksim", offered_load=load, packet_length=length, channel_latency=latency,
                                   warmup=int(3000 * scale), measure=measure,
                                   drain=0 if load == OVERLOAD else 20_000)  # fmt: skip
            res = simulate(routing, cfg, seed=seed)
            row = {
                "config": name,
                "offered": load,
                "bs_latency": float(ref.packet_latency_avg.iloc[0]) if len(ref) else float("nan"),
                "our_latency": res.mean_latency,
                "bs_accepted": float(ref.accepted_flit_rate.iloc[0]) if len(ref) else float("nan"),
                "our_accepted": res.accepted_throughput,
                "bs_hops": float(ref.hops_avg.iloc[0]) if len(ref) else float("nan"),
                "our_hops": res.mean_hops + 1,  # routers traversed, as BookSim2 counts
                "undelivered": res.undelivered,
                "deadlock": res.deadlock,
            }
            if load == ZERO_LOAD:
                hops = res.packets.hops.to_numpy()
                row["our_T0_formula"] = float(booksim_zero_load_latency(hops, length, channel_latency=latency).mean())
            row["latency_diff_pct"] = 100 * (row["our_latency"] / row["bs_latency"] - 1)
            rows.append(row)
            print(_format(row), flush=True)
    return pd.DataFrame(rows)


def _format(row: dict) -> str:
    t0 = f"  T0 formula {row['our_T0_formula']:.2f}" if "our_T0_formula" in row else ""
    return (f"{row['config']:22s} {row['offered']:6.3f}  latency {row['bs_latency']:8.2f} | {row['our_latency']:8.2f} "
            f"({row['latency_diff_pct']:+6.1f}%)  accepted {row['bs_accepted']:.4f} | {row['our_accepted']:.4f}  "
            f"hops {row['bs_hops']:.3f} | {row['our_hops']:.3f}{t0}")


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m benchmarks.booksim_compare REFERENCE_DIR [--quick] [--csv OUT]``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reference_dir", help="folder holding booksim2_runs.csv and booksim2_summary.csv")
    parser.add_argument("--quick", action="store_true", help="shorter runs (smoke check)")
    parser.add_argument("--csv", help="also write the table to this CSV file")
    args = parser.parse_args(argv)
    print("config                 offered  latency BookSim2 | ours (diff)  accepted BookSim2 | ours  "
          "hops (routers) BookSim2 | ours")
    table = compare(args.reference_dir, quick=args.quick)
    if args.csv:
        table.to_csv(args.csv, index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
