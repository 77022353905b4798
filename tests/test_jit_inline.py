"""torus_lab's compiler inlines ``inline="always"`` functions like numba, copying each callee's scope once."""

from __future__ import annotations

import copy
import re

import numba
import numpy as np
from numba.core import inline_closurecall
from numba.core.compiler import run_frontend

from torus_lab._jit import _scope_sharing_inliner, _ScopeSharingCopier, njit


@njit(inline="always", cache=False)
def _clamp(x, lo, hi):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


@njit(inline="always", cache=False)
def _step(a, i, lo, hi):
    for j in range(i):
        if a[j] % 2 == 0:
            a[j] = _clamp(a[j] + i, lo, hi)
        else:
            a[j] = _clamp(a[j] - i, lo, hi)


def _loop(a, lo, hi):
    total = 0
    for i in range(a.shape[0]):
        _step(a, i, lo, hi)  # inlined, and _clamp inlined into it: two levels, several call sites
        total += _clamp(a[i], lo, hi)
    return total


def _many_blocks(x):
    y = 0
    for i in range(x):
        if i % 3 == 0:
            y += i
        elif i % 3 == 1:
            y -= 1
        else:
            y *= 2
    return y


def test_the_blocks_of_one_function_share_one_copy_of_its_scope():
    source = run_frontend(_many_blocks)
    assert len(source.blocks) > 3
    copier = _ScopeSharingCopier()
    first = {label: copier.deepcopy(block) for label, block in source.blocks.items()}
    scopes = {id(block.scope) for block in first.values()}
    assert len(scopes) == 1 and id(source.blocks[min(source.blocks)].scope) not in scopes
    for label, block in source.blocks.items():  # equal to numba's block-by-block copies, statement by statement
        plain = copy.deepcopy(block)
        assert [str(s) for s in first[label].body] == [str(s) for s in plain.body]
        assert first[label].scope == plain.scope and first[label].scope is not block.scope
    second = {label: copier.deepcopy(block) for label, block in source.blocks.items()}  # the IR again: a new copy
    assert {id(block.scope) for block in second.values()} != scopes
    assert len({id(block.scope) for block in second.values()}) == 1
    assert copier.deepcopy([1, [2]]) == [1, [2]]  # anything else: copy.deepcopy


def test_the_inliner_is_restored_after_the_pass():
    with _scope_sharing_inliner():
        assert isinstance(inline_closurecall.copy, _ScopeSharingCopier)
    assert inline_closurecall.copy is copy


def _statements(dispatcher) -> list[str]:
    """The typed IR's statements, without the names and block labels that depend on what this process compiled
    before."""
    blocks = next(iter(dispatcher.overloads.values())).type_annotation.blocks
    lines = [re.sub(r"_v\d+|\.\d+", "", str(stmt)) for block in blocks.values() for stmt in block.body]
    return sorted(re.sub(r"\b\d+\b", "L", line) if line.startswith(("branch ", "jump ")) else line
                  for line in lines)


def test_inlined_code_is_numbas():
    ours = njit(cache=False)(_loop)
    plain = numba.njit(cache=False)(_loop)
    a1, a2 = np.arange(12), np.arange(12)
    assert ours(a1, 2, 9) == plain(a2, 2, 9)
    np.testing.assert_array_equal(a1, a2)
    assert _statements(ours) == _statements(plain)
    statements = _statements(ours)
    helpers = {s.split(" = ")[0] for s in statements if re.search(r"= global\((_clamp|_step):", s)}
    assert helpers and not any(f"call {name}(" in s for s in statements for name in helpers)  # inlined, not called
