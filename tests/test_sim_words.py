"""The word indices of the simulator's integer vectors (the simple model's ``cfg``, the BookSim model's ``cfg`` and
the run counters both share) have one source: a tuple of names per vector.  The Python side writes and reads the
words through the table derived from it (``CFG``, ``BCFG``, ``CNT``); the compiled stages read them through module
constants.  These tests check that both views agree: every constant the kernels index with is its word's index,
and no kernel indexes with a constant that is not a word.
"""

from __future__ import annotations

import ast
import inspect
from types import ModuleType

import pytest

from torus_lab.sim import booksim, packets, simple

#: (module, its table, the tuple the table comes from, the prefix of the constants its kernels read)
TABLES = [
    (simple, simple.CFG, simple.CFG_WORDS, "_"),
    (booksim, booksim.BCFG, booksim.BCFG_WORDS, "_"),
    (packets, packets.CNT, packets.COUNTER_WORDS, "CN_"),
]
#: the tables each module's kernels index with (the counters are read by every router model)
READS = {
    simple: [(simple.CFG, "_"), (packets.CNT, "CN_")],
    booksim: [(booksim.BCFG, "_"), (packets.CNT, "CN_")],
    packets: [(packets.CNT, "CN_")],
}


def _constant(name: str, prefix: str) -> str:
    return prefix + name.upper()


@pytest.mark.parametrize("module, table, words, prefix", TABLES, ids=lambda x: getattr(x, "__name__", ""))
def test_each_table_numbers_its_words_in_order(module, table, words, prefix):
    assert len(set(words)) == len(words), "a word is listed twice"
    assert list(table) == list(words)
    assert list(table.values()) == list(range(len(words)))


@pytest.mark.parametrize("module, table, words, prefix", TABLES, ids=lambda x: getattr(x, "__name__", ""))
def test_the_kernels_constants_are_the_tables_indices(module, table, words, prefix):
    for name, index in table.items():
        value = getattr(module, _constant(name, prefix), None)
        assert value == index, f"{module.__name__}.{_constant(name, prefix)} is {value}, {name!r} is word {index}"
        assert type(value) is int


def _subscript_constants(module: ModuleType) -> set[str]:
    """Upper-case module constants (``_X``, or ``CN_X`` for the counters) used as an index anywhere in ``module``'s
    source."""
    found = set()
    for node in ast.walk(ast.parse(inspect.getsource(module))):
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name):
            name = node.slice.id
            if name.startswith(("_", "CN_")) and name.upper() == name and name.strip("_"):
                found.add(name)
    return found


@pytest.mark.parametrize("module", list(READS), ids=lambda m: m.__name__)
def test_every_constant_a_kernel_indexes_with_is_a_word(module):
    words = {_constant(name, prefix): index for table, prefix in READS[module] for name, index in table.items()}
    used = _subscript_constants(module)
    assert used, "no indexed constant found: the scan is broken"
    assert used <= set(words), f"indexed with constants that name no word: {sorted(used - set(words))}"
    for name in used:
        assert getattr(module, name) == words[name], name

