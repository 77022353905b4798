"""Run every speed benchmark: ``python -m benchmarks [NAME ...]`` (``make bench``).

Each ``benchmarks/bench_<topic>.py`` exposes ``run() -> None`` printing its figures.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time

import benchmarks


def main(argv: list[str]) -> int:
    names = sorted(m.name for m in pkgutil.iter_modules(benchmarks.__path__) if m.name.startswith("bench_"))
    wanted = [n for n in names if not argv or n.removeprefix("bench_") in argv or n in argv]
    if argv and not wanted:
        print(f"no benchmark among {argv}; available: {', '.join(n.removeprefix('bench_') for n in names)}")
        return 2
    for name in wanted:
        print(f"== {name.removeprefix('bench_')}", flush=True)
        start = time.perf_counter()
        importlib.import_module(f"benchmarks.{name}").run()
        print(f"   ({time.perf_counter() - start:.1f} s wall)\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
