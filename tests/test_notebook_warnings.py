"""Warnings of a running notebook: summarised when each cell ends, in a real IPython shell started with the
runner's kernel start code."""

from __future__ import annotations

import io
import subprocess
import sys
import warnings

from torus_lab import site
from torus_lab.notebook_warnings import WarningCapture

SHELL = """
import sys
from IPython.core.interactiveshell import InteractiveShell
from torus_lab._kernel import KERNEL_START_CODE

shell = InteractiveShell.instance()
shell.run_cell(KERNEL_START_CODE)
shell.run_cell('''
import warnings
for i in range(50):
    warnings.warn(f"ecube on Torus({4 + i % 2}, 2) deadlocked in drain at cycle {i}", RuntimeWarning)
warnings.warn("something else", UserWarning)
''')
print("--- next cell", file=sys.stderr)
shell.run_cell("print('no warning here')")
"""


def test_the_kernel_start_code_summarises_each_cell_s_warnings():
    done = subprocess.run([sys.executable, "-c", SHELL], capture_output=True, text=True, timeout=300, check=True)
    first, second = done.stderr.split("--- next cell")
    assert first.count("\n") == 4, first  # the total, a line per category and one example, not 51 warnings
    assert first.startswith("51 warnings:\n  RuntimeWarning: 25 ecube on Torus(")
    assert "25 ecube on Torus(4, 2) deadlocked" in first and "25 ecube on Torus(5, 2) deadlocked" in first
    assert "\n  UserWarning: 1 something else\n" in first
    assert "deadlocked in drain at cycle 0" in first  # the first warning in full
    assert second.strip() == "" and "no warning here" in done.stdout


def test_the_capture_and_the_site_say_the_same_of_the_same_warnings():
    capture = WarningCapture()
    shown: list[str] = []
    for cycle in range(7):
        message = f"dor on Mesh({3 + cycle % 3}, 2) deadlocked at cycle {cycle}"
        capture.showwarning(RuntimeWarning(message), RuntimeWarning, "study.py", 12)
        shown.append(warnings.formatwarning(message, RuntimeWarning, "study.py", 12, "run()"))
    out = io.StringIO()
    capture.flush(out)
    assert out.getvalue() == site.summarize_warnings("".join(shown))
    again = io.StringIO()
    capture.flush(again)
    assert again.getvalue() == ""  # flushed: the next cell starts afresh
