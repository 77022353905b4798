"""The base of the user-facing errors of running experiments (the command line prints their message, no traceback).

It lives apart so that :mod:`torus_lab.experiment` and :mod:`torus_lab.outputs` both build on it while the
interactive run of a notebook (:mod:`torus_lab.experiment`) takes the output lock of :mod:`torus_lab.outputs`;
:mod:`torus_lab.experiment` exports it.

Examples
--------
>>> ExperimentError("no such preset").exit_code
1
"""

from __future__ import annotations

__all__ = ["ExperimentError"]


class ExperimentError(Exception):
    """Base class of user-facing experiment errors (the CLI prints the message, no traceback)."""

    exit_code = 1


ExperimentError.__module__ = "torus_lab.experiment"  # where it is documented and exported
