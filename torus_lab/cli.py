"""Command line: ``torus-lab list | params | run | reproduce | verify | report | site | routings | explore |
cache``.

Exit status: 0 success (also when the reader of standard output went away, as in ``torus-lab params loads |
head``), 1 a run failed (a notebook raised, a file could not be written: disk full, permissions; another run
writes into the output root) or ``verify`` found a science output that differs from the reference, 2 bad usage
(unknown experiment, preset, parameter or routing; a bad path or port; ``verify`` without reference outputs), 128 + N
when stopped by signal N (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP: see :mod:`torus_lab.interrupt`).
Every error is one line on stderr; a failed or stopped run leaves earlier outputs as they were.

Examples
--------
>>> parse_assignments(["k=8", "faults=[0, 1]"])
{'k': 8, 'faults': [0, 1]}
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import sys
from collections.abc import Sequence
from typing import Any

from torus_lab import runner
from torus_lab.experiment import CACHE_ENVIRONMENT, default_cache_dir
from torus_lab.interrupt import STOP, Interrupted, catching_signals, run_stoppable
from torus_lab.settings import ENVIRONMENT

__all__ = ["main", "parse_assignments"]


def parse_assignments(items: Sequence[str]) -> dict[str, Any]:
    """Turn ``["key=value", ...]`` into a dict, values parsed as YAML; ArgumentTypeError on a missing '='."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise argparse.ArgumentTypeError(f"parameter {item!r} is not of the form key=value")
        out[key.strip()] = runner.parse_value(value)
    return out


def _add_sweep_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--backend", choices=("serial", "processes", "dask"),
                        help="how sweeps inside the notebooks run (default: processes)")  # fmt: skip
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="Dask scheduler for sweeps, e.g. tcp://host:8786 (implies --backend dask)")  # fmt: skip
    parser.add_argument("--kernel", default=runner.KERNEL_NAME, help="Jupyter kernel (default: %(default)s)")
    parser.add_argument("--no-cache", action="store_true",
                        help="recompute every sweep item instead of reusing cached results")  # fmt: skip
    _add_wait_option(parser)


def _add_wait_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--wait", action="store_true",
                        help="when another run writes into the same output root, wait for it to finish instead "
                             "of refusing")  # fmt: skip


#: What ``torus-lab --help`` says above the commands (plain text).
DESCRIPTION = ("Run, verify and report the experiments of torus_lab: routing in torus (k-ary n-cube) networks, "
               "reproduced from five papers.")  # fmt: skip
EXPERIMENT_HELP = "experiment name: the stem of experiments/<name>.yaml (see 'torus-lab list')"


def _subcommand(sub: Any, name: str, *, summary: str) -> argparse.ArgumentParser:
    """A subcommand whose one-line summary is also the description of its own ``--help``."""
    return sub.add_parser(name, help=summary, description=summary[0].upper() + summary[1:] + ".")


def _version() -> str:
    try:
        return importlib.metadata.version("torus-lab")
    except importlib.metadata.PackageNotFoundError:
        return "unknown (not installed)"


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="torus-lab", description=DESCRIPTION,
                                     epilog="'torus-lab COMMAND --help' describes a command's arguments.")  # fmt: skip
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", help="one of:")
    _subcommand(sub, "list", summary="list experiments and their presets")
    params = _subcommand(sub, "params", summary="show an experiment's parameters, types and presets")
    params.add_argument("name", help=EXPERIMENT_HELP)
    run = _subcommand(sub, "run", summary="run one experiment")
    run.add_argument("name", help=EXPERIMENT_HELP)
    run.add_argument("--preset", default="quick", help="preset (default: %(default)s)")
    run.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE",
                     help="override a parameter (repeatable); values are parsed as YAML")  # fmt: skip
    run.add_argument("--out", metavar="DIR", help="output root (default: scratch/<preset> of the project)")
    run.add_argument("--publish", action="store_true",
                     help="write the committed data/, figures/, reports/ (the paper preset exactly: no -p)")
    _add_sweep_options(run)
    repro = _subcommand(sub, "reproduce", summary="run every experiment")
    repro.add_argument("--preset", default="paper", help="preset (default: %(default)s)")
    repro.add_argument("--only", nargs="+", metavar="NAME", help="run only these experiments")
    repro.add_argument("--out", metavar="DIR", help="output root (default: the project folder for the paper "
                                                    "preset, scratch/<preset> for any other)")  # fmt: skip
    _add_sweep_options(repro)
    _add_jobs_option(repro)
    check = _subcommand(sub, "verify", summary="re-run experiments into a temporary folder and compare their science "
                                              "outputs, byte for byte, with the committed ones (or another "
                                              "reference)")  # fmt: skip
    check.add_argument("--preset", default="paper", help="preset (default: %(default)s)")
    check.add_argument("--only", nargs="+", metavar="NAME", help="verify only these experiments")
    check.add_argument("--against", metavar="DIR",
                       help="reference output root (default: the project folder for the paper preset, "
                            "scratch/<preset> for any other)")  # fmt: skip
    check.add_argument("--keep", action="store_true", help="keep the new outputs even when everything matches")
    check.add_argument("--use-cache", dest="no_cache", action="store_false",
                       help="reuse cached sweep results (default: recompute everything)")  # fmt: skip
    check.add_argument("--backend", choices=("serial", "processes", "dask"),
                       help="how sweeps inside the notebooks run (default: processes)")  # fmt: skip
    check.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler for sweeps (implies --backend dask)")
    check.add_argument("--kernel", default=runner.KERNEL_NAME, help="Jupyter kernel (default: %(default)s)")
    _add_jobs_option(check)
    report = _subcommand(sub, "report", summary="rebuild data/claims.csv, the README table, the site and its "
                                           "zip")  # fmt: skip
    report.add_argument("--out", metavar="DIR", help="output root (default: the project folder)")
    packing = report.add_mutually_exclusive_group()
    packing.add_argument("--zip", metavar="FILE", dest="zip_path",
                         help="where to write the zip of the site (default: <output root>/torus-lab-report.zip)")
    packing.add_argument("--no-zip", dest="archive", action="store_false", help="do not write the zip")
    _add_wait_option(report)
    site = _subcommand(sub, "site", summary="build the site (documentation and results) from the outputs of an "
                                           "output root, without running anything")  # fmt: skip
    site.add_argument("--out", metavar="DIR", help="output root (default: the project folder)")
    site.add_argument("--html", metavar="DIR", dest="html_dir",
                      help="where to write the site (default: <output root>/site)")
    site.add_argument("--strict", action="store_true",
                      help="every Sphinx warning is an error and every cross-reference must resolve (make test)")
    _add_wait_option(site)
    _subcommand(sub, "routings", summary="list the routing algorithms of the registry: options, defaults, sources")
    explore = _subcommand(sub, "explore", summary="serve the interactive explorers (notebooks/explore.ipynb) as a web "
                                                  "app on 127.0.0.1 until stopped (Ctrl-C)")  # fmt: skip
    explore.add_argument("--port", type=_port, default=8866, metavar="N",
                         help="port to listen on, 1-65535 (default: %(default)s); one in use is refused")
    explore.add_argument("--notebook", metavar="PATH",
                         help="notebook to serve (default: notebooks/explore.ipynb of the project)")
    cache = _subcommand(sub, "cache", summary="the result cache of sweeps (scratch/cache)")
    cache.add_argument("action", choices=("info", "clear"), help="show its size, or delete it")
    return parser


def _set_sweep_environment(args: argparse.Namespace) -> None:
    """Sweeps inside notebooks read these (the kernel inherits the environment)."""
    if args.no_cache:
        os.environ[CACHE_ENVIRONMENT] = "off"
    if args.scheduler:
        os.environ[ENVIRONMENT["scheduler"]] = args.scheduler
        os.environ[ENVIRONMENT["backend_text"]] = "dask"
    elif args.backend:
        os.environ[ENVIRONMENT["backend_text"]] = args.backend


def _list() -> None:
    for name, experiment in runner.load_experiments().items():
        print(f"{name:18s} {experiment.description}  [presets: {', '.join(experiment.presets)}]")


def _params(name: str) -> None:
    experiment = runner.load_experiment(name)
    print(f"{name}: {experiment.description}\nnotebook: {experiment.notebook}\nparameters:")
    for key, rule in experiment.schema["properties"].items():
        kind = ", ".join([rule.get("type", "any")] + (["distinct items"] if rule.get("uniqueItems") else [])
                         + ([str(rule["order"])] if "order" in rule else []))  # fmt: skip
        print(f"  {key} ({kind}): {rule.get('description', '')}".rstrip())
        for preset, values in experiment.presets.items():
            if key in values:
                print(f"      {preset}: {values[key]!r}")


def _cache(action: str) -> None:
    from torus_lab.sweep import cache_location, clear_cache

    location = cache_location(None) or default_cache_dir()
    if action == "clear":
        freed = clear_cache(location)
        print(f"cleared the sweep cache in {location} ({freed / 2**20:.1f} MiB)")
        return
    folder = location / "joblib"
    files = [p for p in folder.rglob("*") if p.is_file()] if folder.exists() else []
    print(f"sweep cache: {location} ({len(files)} files, {sum(p.stat().st_size for p in files) / 2**20:.1f} MiB)")


def _routings() -> None:
    from torus_lab.routing import routing_entries

    for entry in routing_entries():
        kind = "built-in" if entry.builtin else "registered at run time"
        print(f"{entry.name}  ({kind})\n  {entry.summary}\n  source: {entry.source}")
        for opt in entry.options:
            print(f"    {opt.name} = {opt.default!r}  [{opt.allowed()}]  {opt.doc}")
        print()


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port number in 1..65535, got {text!r}")
    return value


def _add_jobs_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--jobs", type=_positive_int, default=runner.DEFAULT_JOBS, metavar="N",
                        help="experiments run side by side (default: %(default)s)")  # fmt: skip


def _verify(args: argparse.Namespace) -> int:
    from torus_lab.verify import format_table, verify

    result = run_stoppable(verify, preset=args.preset, names=args.only, against=args.against, keep=args.keep,
                           kernel_name=args.kernel, jobs=args.jobs)  # fmt: skip
    print(f"verify ({args.preset}) against {result.reference}:")
    print(format_table(result.comparisons))
    print("timing files (data/<name>/timing/), manifests and executed notebooks are not compared")
    if result.kept is not None:
        print(f"outputs of this run kept in {result.kept}")
    if not result.ok:
        print("torus-lab: verify: science outputs differ from the reference", file=sys.stderr)
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``torus-lab`` console script; returns the exit status.

    SIGINT, SIGTERM and SIGHUP stop any command cleanly (:mod:`torus_lab.interrupt`); a closed standard output
    ends it quietly.
    """
    STOP.reset()
    try:
        with catching_signals():
            return _main(argv)
    except Interrupted as stop:
        print(f"torus-lab: stopped by {stop.signal_name}; earlier outputs were left as they were", file=sys.stderr)
        return stop.exit_status
    except KeyboardInterrupt:  # SIGINT raised outside the handlers' reach (before they were installed)
        print("torus-lab: stopped by SIGINT; earlier outputs were left as they were", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`torus-lab params loads | head`): stop quietly, like cat
        _silence_stdout()
        return 0


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that flushing it at exit raises no second BrokenPipeError."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _print_claims_changes(results: Sequence[runner.RunResult]) -> None:
    """Print, for each run whose claims table differs from the one it replaced, the rows that changed
    (:func:`torus_lab.claims.changes_text`; the record is in the run's manifest)."""
    for result in results:
        record = result.manifest.get("claims_changes") or {}
        if record.get("error"):
            print(f"{result.name}: claims not compared with the previous run: {record['error']}")
        elif record.get("changes"):
            import pandas as pd

            from torus_lab.claims import CHANGE_COLUMNS, changes_text

            changes = pd.DataFrame(record["changes"], columns=CHANGE_COLUMNS)
            print(f"{result.name}: {len(changes)} claim(s) changed since the previous run:")
            print("\n".join(f"  {line}" for line in changes_text(changes).splitlines()))


def _main(argv: Sequence[str] | None) -> int:
    parser = _build_parser()
    args = parser.parse_args(argv)
    try:
        return _command(parser, args)
    except runner.RunnerError as err:
        print(f"torus-lab: error: {err}", file=sys.stderr)
        return err.exit_code
    except BrokenPipeError:
        raise
    except OSError as err:  # a file-system failure outside a run (a run names its file itself)
        where = f": {err.filename}" if getattr(err, "filename", None) else ""
        print(f"torus-lab: error: {err.strerror or err}{where}; earlier outputs were left as they were",
              file=sys.stderr)  # fmt: skip
        return 1


def _command(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.command == "list":
        _list()
    elif args.command == "params":
        _params(args.name)
    elif args.command == "run":
        try:
            overrides = parse_assignments(args.param)
        except argparse.ArgumentTypeError as err:
            parser.error(str(err))
        _set_sweep_environment(args)
        result = run_stoppable(runner.run_experiment, args.name, preset=args.preset, overrides=overrides,
                               out=args.out, kernel_name=args.kernel, publish=args.publish,
                               wait=args.wait)  # fmt: skip
        print(f"{args.name} ({args.preset}) done in {result.duration_s:.1f} s:")
        for path in result.outputs.values():
            print(f"  {path}")
        _print_claims_changes([result])
    elif args.command == "reproduce":
        _set_sweep_environment(args)
        from torus_lab.report import reproduce

        results = run_stoppable(reproduce, preset=args.preset, out=args.out, names=args.only,
                                kernel_name=args.kernel, jobs=args.jobs, wait=args.wait)  # fmt: skip
        for result in results:
            print(f"{result.name:18s} {result.duration_s:8.1f} s  ({result.preset})")
        _print_claims_changes(results)
    elif args.command == "verify":
        _set_sweep_environment(args)
        return _verify(args)
    elif args.command == "report":
        from torus_lab.report import build_report

        built = run_stoppable(build_report, args.out, archive=args.archive, zip_path=args.zip_path, wait=args.wait)
        print(f"site: {built.site / 'index.html'}")
        if built.archive is not None:
            print(f"zip of the site (documentation, executed notebooks, claims, data, figures): {built.archive}")
    elif args.command == "site":
        from torus_lab.report import build_project_site

        site = run_stoppable(build_project_site, args.out, html_dir=args.html_dir, strict=args.strict,
                             wait=args.wait)  # fmt: skip
        print(f"site: {site / 'index.html'}")
    elif args.command == "routings":
        _routings()
    elif args.command == "explore":
        from torus_lab.explore import app as explore_app

        return run_stoppable(explore_app.serve, args.notebook, args.port)
    elif args.command == "cache":
        _cache(args.action)
    return 0


if __name__ == "__main__":
    sys.exit(main())
