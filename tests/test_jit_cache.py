"""Compiled code is never stale: editing a kernel, a helper in another file or an imported constant always
recompiles, with numba's on-disk cache in use (each step runs in a fresh Python process, as a user would)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.slow

HELPER = "OFFSET = {offset}\n\nfrom torus_lab._jit import njit\n\n@njit\ndef shift(x):\n    return x + OFFSET\n"
KERNEL_MODULE = textwrap.dedent(
    """
    import numba
    from helper_mod import shift
    from torus_lab.routing import make_routing, register_routing

    @numba.njit(cache=True)          # numba's own cache: stale on edits elsewhere unless torus_lab re-stamps it
    def kernel(tables, cur, dst, in_ch, in_vc, state, rand, out_ch, out_vc, out_state):
        n = tables.radices.shape[0]
        out_ch[0] = tables.slot[(cur * n + 0) * 2 + 1]
        out_vc[0] = 0
        out_state[0, :] = state
        out_state[0, 0] = shift(state[0])
        return 1

    register_routing("stamped", kernel, adaptive=False, validate=False)
    """
)
PROBE = textwrap.dedent(
    """
    import kernel_mod
    from torus_lab.routing import make_routing
    from torus_lab.topology import Torus
    from torus_lab._jit import njit
    from helper_mod import shift

    @njit
    def twice_shift(x):
        return 2 * shift(x)

    rf = make_routing("stamped", Torus(1, 4))
    print(rf.candidates(0, 2)[0].state[0], twice_shift(0))
    """
)


def _probe(folder) -> str:
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=folder, capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_edits_anywhere_recompile(tmp_path):
    (tmp_path / "kernel_mod.py").write_text(KERNEL_MODULE)
    (tmp_path / "helper_mod.py").write_text(HELPER.format(offset=1))
    assert _probe(tmp_path) == ["1", "2"]
    assert _probe(tmp_path) == ["1", "2"]  # second run from the on-disk cache
    assert list((tmp_path / "__pycache__").glob("*.nbi")), "the cache was not used"
    (tmp_path / "helper_mod.py").write_text(HELPER.format(offset=5))  # edit a constant in another file
    assert _probe(tmp_path) == ["5", "10"]
    (tmp_path / "kernel_mod.py").write_text(KERNEL_MODULE.replace("shift(state[0])", "shift(state[0]) + 100"))
    assert _probe(tmp_path) == ["105", "10"]


def test_an_index_written_by_other_code_recompiles_instead_of_failing(tmp_path):
    """An on-disk index naming a class this code lacks (as another checkout's may) is read as empty."""
    module = "from torus_lab._jit import njit\n\n@njit\ndef plus_one(x):\n    return x + 1\n"
    (tmp_path / "plus_mod.py").write_text(module)
    probe = "import plus_mod; print(plus_mod.plus_one(1))"
    run = dict(cwd=tmp_path, capture_output=True, text=True, check=True)
    assert subprocess.run([sys.executable, "-c", probe], **run).stdout.split() == ["2"]
    indexes = list(tmp_path.glob("__pycache__/plus_mod.plus_one-*.nbi"))
    assert len(indexes) == 1
    # keep numba's version header, replace the entries by a pickle naming a class that does not exist
    import pickle

    with open(indexes[0], "rb") as f:
        version = pickle.load(f)
    missing = b"ctorus_lab\nNoSuchClass_\n."  # pickle's GLOBAL opcode: unpickling raises AttributeError
    with open(indexes[0], "wb") as f:
        pickle.dump(version, f, protocol=-1)
        f.write(missing)
    assert subprocess.run([sys.executable, "-c", probe], **run).stdout.split() == ["2"]
