"""Command-line conventions: version, help, closed pipes, exit statuses, one-line errors with suggestions."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import pytest

from torus_lab import cli
from torus_lab.routing import make_routing
from torus_lab.topology import Torus

COMMAND = [sys.executable, "-m", "torus_lab.cli"]


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]  # noqa: SLF001
    return dict(actions[0].choices)


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--version"])
    assert exit_info.value.code == 0
    from importlib.metadata import version

    assert capsys.readouterr().out.strip() == f"torus-lab {version('torus-lab')}"


def test_every_argument_has_help_in_plain_text():
    parser = cli._build_parser()
    parsers = {"torus-lab": parser, **_subcommands(parser)}
    for name, sub in parsers.items():
        for action in sub._actions:  # noqa: SLF001
            assert action.help, f"{name}: argument {action.dest!r} has no help"
        text = sub.format_help()
        for markup in ("``", ":func:", ":mod:", ":class:", "*"):
            assert markup not in text, f"{name} --help shows markup {markup!r}:\n{text}"


def test_a_closed_pipe_ends_quietly_with_status_0():
    """``torus-lab routings | head -1``: the reader goes away before the listing is written."""
    process = subprocess.Popen([*COMMAND, "routings"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()  # nobody reads: every write fails with EPIPE
    err = process.stderr.read().decode()
    assert process.wait() == 0 and err == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "lods"], "unknown experiment 'lods' (did you mean 'loads'?)"),
        (["params", "fault_tolerent"], "(did you mean 'fault_tolerant'?)"),
        (["run", "loads", "--preset", "papr"], "unknown preset 'papr' (did you mean 'paper'?)"),
        (["run", "loads", "-p", "seeed=3"], "unknown parameter 'seeed' (did you mean 'seed'?)"),
        (["verify", "--only", "lods"], "(did you mean 'loads'?)"),
        (["run", "loads", "--preset", "paper", "--publish", "-p", "seed=3"], "takes no overrides, got 'seed'"),
        (["run", "direction_first", "-p", "curve_loads=[0.5, 0.1]"],
         "'curve_loads' = [0.5, 0.1] is invalid: [0.5, 0.1] is not increasing: 0.1 (item 1) comes after 0.5"),
        (["run", "virtual_mesh", "-p", "ks=[4, 4]"], "'ks' = [4, 4] is invalid: [4, 4] has non-unique elements"),
        (["run", "loads", "--out", "x" * 300], "--out '" + "x" * 300 + "' cannot be used: File name too long"),
        (["report", "--zip", f"{__file__}/report.zip"], f"its folder '{__file__}' is a file, not a folder"),
        (["explore", "--notebook", __file__], f"--notebook {__file__!r}: no such notebook (an .ipynb file)"),
    ],
)
def test_bad_usage_is_one_line_exit_2_before_any_work(args, message, capsys, monkeypatch):
    def no_kernel(*_, **__):
        raise AssertionError("a kernel was asked for")

    monkeypatch.setattr("torus_lab.runner.ensure_kernel", no_kernel)
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and err.startswith("torus-lab: error: ")


def test_a_misspelt_routing_is_named_with_a_suggestion():
    with pytest.raises(ValueError, match=r"unknown routing 'ecub' \(did you mean 'ecube'\?\)"):
        make_routing("ecub", Torus(2, 4))


def test_params_shows_the_order_and_distinctness_rules(capsys):
    assert cli.main(["params", "direction_first"]) == 0
    out = capsys.readouterr().out
    assert "curve_loads (array, increasing):" in out and "fig4_ns (array, distinct items):" in out


def test_the_command_line_is_a_module_and_a_script():
    done = subprocess.run([*COMMAND, "list"], capture_output=True, text=True, env={**os.environ})
    assert done.returncode == 0 and "loads" in done.stdout
