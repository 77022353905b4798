"""``njit(hoist_fields=True)``: every field of a named-tuple argument read once, at the entry, same results."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba.core import ir

from torus_lab._jit import njit

State = namedtuple("State", ["a", "b", "n"])


@njit(inline="always", cache=False)
def _bump(st, i):
    st.a[i] += st.b[i]


def _loop(st, k):
    total = 0
    for i in range(st.n[0]):
        _bump(st, i)  # inlined: its parameter is a copy of ``st``
        total += st.a[i]
    st.n[0] = k
    return total


def _state() -> State:
    return State(np.arange(5), 3 * np.arange(5), np.array([4]))


def _field_reads(dispatcher, field: str) -> int:
    blocks = next(iter(dispatcher.overloads.values())).type_annotation.blocks
    return sum(1 for block in blocks.values() for stmt in block.find_insts(ir.Assign)
               if isinstance(stmt.value, ir.Expr) and stmt.value.op == "getattr" and stmt.value.attr == field)


def test_hoisted_fields_compute_the_same_and_are_read_once():
    hoisted = njit(refcount=False, hoist_fields=True, cache=False)(_loop)
    plain = njit(refcount=False, cache=False)(_loop)
    s1, s2 = _state(), _state()
    assert hoisted(s1, 7) == plain(s2, 7)
    for x, y in zip(s1, s2, strict=True):
        np.testing.assert_array_equal(x, y)
    assert s1.n[0] == 7
    assert _field_reads(plain, "a") > 1
    assert _field_reads(hoisted, "a") == 1 and _field_reads(hoisted, "n") == 1
