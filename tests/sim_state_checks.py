"""Checks of simulator states shared by the simulator tests: the bytes a state holds, flit conservation."""

from __future__ import annotations


def allocated_bytes(state) -> int:
    """Bytes held by the arrays of ``state`` (a named tuple of arrays; a view is counted once, with its base)."""
    bases = {}
    for name in state._fields:
        array = getattr(state, name)
        base = array.base if array.base is not None else array
        bases[id(base)] = base.nbytes
    return sum(bases.values())


def run_checking_flits(run, routing, state, chunks=(137, 250, 400)) -> None:
    """Run the BookSim-model ``state`` chunk by chunk (``run``: :func:`torus_lab.sim.booksim.run`) and check
    after each chunk that every injected flit was ejected or sits in a buffer, no credit count is negative
    and no buffer holds more flits than its slots."""
    from torus_lab.sim.packets import CNT

    for chunk in chunks:
        run(routing, state, chunk)
        injected, ejected = state.counters[CNT["flits_injected"]], state.counters[CNT["flits_ejected"]]
        assert injected == ejected + state.count.sum()
        assert (state.credit >= 0).all() and (state.count <= state.fpk.shape[1]).all()
