"""Warnings raised while a notebook runs, summarised instead of dumped.

A simulation sweep can raise the same warning hundreds of times (a :class:`~torus_lab.sim.SimulationDeadlock`
per deadlocked run); printed one by one they bury the notebook.  :func:`install_warning_capture`, run by the
runner's kernels before the first cell (``torus_lab._kernel.KERNEL_START_CODE``), collects every warning a cell
shows and prints, when the cell ends, one summary on stderr: the count, the count per category and subject (the
configuration it happened on, :func:`warning_subject`) and the first warning in full.  The site shows committed
notebooks of earlier runs the same way (:func:`torus_lab.site.summarize_warnings`, the same words).

Examples
--------
>>> warning_subject("ecube on Torus(4, 2) deadlocked in drain at cycle 235 (seed 1)")
'ecube on Torus(4, 2) deadlocked'
>>> summary_text({("UserWarning", "x"): 3}, "a.py:1: UserWarning: x at 1")
'3 warnings:\\n  UserWarning: 3 x\\nfor example: a.py:1: UserWarning: x at 1\\n'
"""

from __future__ import annotations

import re
import sys
import warnings
from collections import Counter
from collections.abc import Mapping
from typing import Any, TextIO

from torus_lab._validate import check_instance, check_str

__all__ = ["warning_subject", "summary_text", "WarningCapture", "install_warning_capture"]


def warning_subject(message: str) -> str:
    """What a warning is about: its message up to its first word "in" or "at" or its first colon (for a
    deadlock, the routing and the network it happened on)."""
    check_str("message", message)
    return re.split(r" (?:in|at) |: ", message, maxsplit=1)[0]


def summary_text(counts: Mapping[tuple[str, str], int], example: str) -> str:
    """The summary of ``counts`` (``{(category, subject): count}``): the total, then a line per category with
    the count of each subject (most frequent first), then ``example`` (one warning's line) in full."""
    check_instance("counts", counts, Mapping)
    for key, count in counts.items():
        if not (isinstance(key, tuple) and len(key) == 2 and all(isinstance(part, str) for part in key)):
            raise TypeError(f"counts keys must be (category, subject) pairs of str, got {key!r}")
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError(f"counts values must be positive ints, got {count!r} for {key!r}")
    check_str("example", example)
    total = sum(counts.values())
    by_category: dict[str, list[str]] = {}
    for (category, subject), count in Counter(counts).most_common():
        by_category.setdefault(category, []).append(f"{count} {subject}")
    lines = [f"  {category}: {', '.join(subjects)}" for category, subjects in by_category.items()]
    return "\n".join([f"{total} warning{'s' if total != 1 else ''}:", *lines, f"for example: {example}"]) + "\n"


class WarningCapture:
    """Collects warnings (use :meth:`showwarning` as ``warnings.showwarning``) until :meth:`flush` prints
    their summary.

    Examples
    --------
    >>> import io
    >>> capture, out = WarningCapture(), io.StringIO()
    >>> for cycle in (5, 9):
    ...     capture.showwarning(UserWarning(f"x on T(4) at cycle {cycle}"), UserWarning, "a.py", 3)
    >>> capture.flush(out)
    >>> out.getvalue()
    '2 warnings:\\n  UserWarning: 2 x on T(4)\\nfor example: a.py:3: UserWarning: x on T(4) at cycle 5\\n'
    """

    def __init__(self) -> None:
        self.counts: Counter[tuple[str, str]] = Counter()
        self.example: str | None = None

    def showwarning(self, message: Warning | str, category: type[Warning], filename: str, lineno: int,
                    file: TextIO | None = None, line: str | None = None) -> None:  # fmt: skip
        """Record one warning (the signature of ``warnings.showwarning``)."""
        text = str(message)
        self.counts[(category.__name__, warning_subject(text.split("\n", 1)[0]))] += 1
        if self.example is None:
            self.example = f"{filename}:{lineno}: {category.__name__}: {text}"

    def flush(self, stream: TextIO | None = None) -> None:
        """Print the summary of the warnings recorded since the last flush to ``stream`` (default: stderr), if
        any, and start afresh."""
        if self.example is not None:
            print(summary_text(self.counts, self.example), end="", file=stream or sys.stderr, flush=True)
        self.counts, self.example = Counter(), None


def install_warning_capture() -> WarningCapture | None:
    """In an IPython kernel: show warnings through a :class:`WarningCapture` flushed after every cell; returns
    it (None outside IPython, where nothing changes)."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython is a dependency
        return None
    shell: Any = get_ipython()
    if shell is None:
        return None
    capture = WarningCapture()
    warnings.showwarning = capture.showwarning
    shell.events.register("post_run_cell", lambda *_: capture.flush())
    return capture
