"""The loads explorer's model: a query (a placement of processors in a k-ary d-cube and a routing) -> the exact link
loads of complete exchange and the lower bounds on their maximum.  Pure Python, no widget and no figure.

Azizoglu & Eğecioğlu, *Lower Bounds on Communication Loads and Optimal Placements in Torus Networks* (IPPS/SPDP
1998), as :mod:`torus_lab.loads` implements it and ``notebooks/loads.ipynb`` evaluates it
(:mod:`torus_lab.studies.loads`).  What the outcome holds, and where it comes from:

* the **placement**: the study's kinds, a linear placement ``sum p_i = 0 (mod k)``
  (:func:`torus_lab.loads.linear_placement`, Definition 10), a multiple linear one of ``t`` classes
  (:func:`~torus_lab.loads.multiple_linear_placement`, Section 5) or the fully populated torus
  (:func:`~torus_lab.loads.residue_placement` of every class);
* the **load of every directed link** under ODR, UDR or all shortest paths (:func:`torus_lab.loads.link_loads`,
  Definition 4; ties at ``k/2`` as :data:`torus_lab.loads.TIE_MODES`), ``E_max`` (Definition 5), the loads per
  dimension and sign (:func:`~torus_lab.loads.loads_by_dimension`) and per (dimension, sign, class of the link's
  source) (:func:`~torus_lab.loads.load_frame`, :func:`torus_lab.studies.loads.heatmap_3d_frame`);
* the **lower bounds** the study sets beside ``E_max``: bound (1) (:func:`~torus_lab.loads.single_node_bound`),
  Lemma 1 over every slab (:func:`~torus_lab.loads.natural_cut_bound`) and the greedy cut search
  (:func:`~torus_lab.loads.balanced_cut_search`, on tori of at most :data:`CUT_SEARCH_MAX_NODES` nodes), and the
  value the paper states for the case (:func:`torus_lab.studies.loads.claimed_bound`).

Every argument is checked by :class:`LoadsQuery` before any work, with the message of the API that checks it (the
study's :func:`~torus_lab.studies.loads.evaluate_point` for ``d`` and ``k``, the placements' own checks), which the
explorer shows as it is.

Examples
--------
>>> out = explore_loads(LoadsQuery(d=2, k=6, routing="odr"))
>>> out.e_max, out.lb_single, out.lb_cut, out.claimed
(3.0, 1.25, 1.25, 0.75)
>>> LoadsQuery(placement="multiple_linear", k=4, t=4)
Traceback (most recent call last):
...
ValueError: t must satisfy 1 <= t < k = 4, got t = 4
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from torus_lab._validate import check_instance, check_int, check_str
from torus_lab.loads import (
    MAX_STEPS,
    ROUTINGS,
    TIE_MODES,
    Placement,
    balanced_cut_search,
    e_max,
    linear_placement,
    link_loads,
    load_frame,
    loads_by_dimension,
    multiple_linear_placement,
    natural_cut_bound,
    residue_placement,
    single_node_bound,
)
from torus_lab.studies.loads import claimed_bound, heatmap_3d_frame
from torus_lab.topology import Torus

__all__ = ["PLACEMENTS", "MAX_LOADS_NODES", "CUT_SEARCH_MAX_NODES", "LoadsQuery", "LoadsOutcome", "explore_loads"]

#: The placements the study evaluates: linear (t = 1), multiple linear (t classes), the full torus (t = k).
PLACEMENTS = ("linear", "multiple_linear", "full")
#: Largest torus the explorer computes loads on (a bigger one is the study's).
MAX_LOADS_NODES = 2**16
#: The greedy cut search runs on tori of at most this many nodes (the study's ``cut_search_max_nodes``).
CUT_SEARCH_MAX_NODES = 4096


@dataclass(frozen=True)
class LoadsQuery:
    """What the loads explorer is asked: checked, with the API's messages, before any work.

    Parameters
    ----------
    d, k : int
        The torus ``T_d^k`` (at most :data:`MAX_LOADS_NODES` nodes).
    placement : {"linear", "multiple_linear", "full"}
    t : int
        Classes of a multiple linear placement (``1 <= t < k``); the other placements have their own
        (1 and ``k``).
    routing : {"odr", "udr", "shortest"}
    tie : {"+", "both"}, optional
        Offsets of exactly ``k/2`` (default: the routing's, as :func:`torus_lab.loads.link_loads`).
    seed, cut_steps : int
        Seed and moves per start of the greedy cut search.

    Attributes
    ----------
    torus : Torus
    chosen : Placement
        The processors.
    """

    d: int = 2
    k: int = 8
    placement: str = "linear"
    t: int = 2
    routing: str = "odr"
    tie: str | None = None
    seed: int = 0
    cut_steps: int = 100
    torus: Torus = field(init=False, compare=False, repr=False)
    chosen: Placement = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        d = check_int("d", self.d, minimum=1, maximum=62)  # the study's checks (evaluate_point)
        k = check_int("k", self.k, minimum=2)
        if k**d > MAX_LOADS_NODES:
            raise ValueError(f"d, k: the explorer computes loads on tori of up to {MAX_LOADS_NODES} nodes, got "
                             f"k**d = {k}**{d} = {k**d}")  # fmt: skip
        check_str("placement", self.placement, PLACEMENTS)
        t = check_int("t", self.t, minimum=1)
        check_str("routing", self.routing, ROUTINGS)
        if self.tie is not None:
            check_str("tie", self.tie, TIE_MODES)
        check_int("seed", self.seed, minimum=0)
        check_int("cut_steps", self.cut_steps, minimum=0, maximum=MAX_STEPS)
        torus = Torus(d, k)
        if self.placement == "full":
            chosen = residue_placement(torus, range(k), kind="full")
        elif self.placement == "linear":
            chosen = linear_placement(torus)
        else:
            chosen = multiple_linear_placement(torus, t)  # its message for t >= k
        for name, value in (("d", d), ("k", k), ("t", t), ("torus", torus), ("chosen", chosen)):
            object.__setattr__(self, name, value)

    @property
    def classes(self) -> int:
        """Residue classes of the placement: 1 (linear), ``t`` (multiple linear), ``k`` (full)."""
        return {"linear": 1, "multiple_linear": self.t, "full": self.k}[self.placement]


@dataclass
class LoadsOutcome:
    """What the loads explorer shows for one :class:`LoadsQuery` (see the module's list).

    ``loads`` is the load of every channel (by channel id); ``e_max`` and ``e_mean`` its maximum and mean;
    ``per_dimension`` :func:`~torus_lab.loads.loads_by_dimension`'s table; ``classes`` the largest load per
    (``dim``, ``sign``, ``residue``: the class ``x_0 + ... + x_(d-1) mod k`` of the link's source);
    ``lb_single``, ``lb_natural``, ``lb_search`` (NaN when not searched) and ``lb_cut`` (the better cut) the
    lower bounds; ``claimed`` the paper's value for the case (NaN when it states none).
    """

    query: LoadsQuery
    loads: np.ndarray
    e_max: float
    e_mean: float
    per_dimension: pd.DataFrame
    classes: pd.DataFrame
    lb_single: float
    lb_natural: float
    lb_search: float
    lb_cut: float
    claimed: float

    @property
    def lower_bound(self) -> float:
        """The best lower bound on ``E_max`` found."""
        return max(self.lb_single, self.lb_cut)

    def lines(self) -> list[str]:
        """The outcome in words, one line per finding."""
        q = self.query
        tie = f", tie {q.tie}" if q.tie is not None else ""
        heaviest = self.per_dimension.loc[self.per_dimension["max"].idxmax()]
        at_max = int(self.per_dimension["links_at_e_max"].sum())
        dim, sign = int(heaviest["dim"]), int(heaviest["sign"])
        out = [f"{q.placement.replace('_', ' ')} placement (t = {q.classes}) of |P| = {q.chosen.size} processors on "
               f"T_{q.d}^{q.k}, {q.routing.upper()}{tie}: complete exchange of {q.chosen.size * (q.chosen.size - 1)} "
               "ordered pairs",
               f"E_max = {self.e_max:.4g} (mean link load {self.e_mean:.4g}); {at_max} link(s) at the maximum, among "
               f"them in dimension {dim} sign {sign:+d}",
               f"bound (1) (|P| - 1)/(2d) = {self.lb_single:.4g}; Lemma 1: best slab {self.lb_natural:.4g}, greedy cut "
               f"search {'not run (torus too large)' if math.isnan(self.lb_search) else f'{self.lb_search:.4g}'}",
               f"E_max / best lower bound = {self.e_max / self.lower_bound:.3g}" if self.lower_bound > 0
               else "best lower bound 0 (one processor)"]  # fmt: skip
        if not math.isnan(self.claimed):
            relation = "<=" if self.e_max <= self.claimed * (1 + 1e-12) else ">"
            out.append(f"the paper's value for this case: {self.claimed:.4g} (E_max {relation} it)")
        return out


def explore_loads(query: LoadsQuery) -> LoadsOutcome:
    """Everything the loads explorer shows for ``query`` (see the module's list).

    Examples
    --------
    >>> odr = explore_loads(LoadsQuery(d=3, k=4, routing="odr"))
    >>> udr = explore_loads(LoadsQuery(d=3, k=4, routing="udr"))
    >>> odr.e_max > udr.e_max >= udr.lower_bound
    True
    """
    check_instance("query", query, LoadsQuery)
    torus, chosen = query.torus, query.chosen
    loads = link_loads(torus, chosen, query.routing, tie=query.tie)
    frame = load_frame(torus, loads, chosen).assign(routing=query.routing, k=query.k)
    natural = natural_cut_bound(torus, chosen, widths="all").value
    searched = (balanced_cut_search(torus, chosen, seed=query.seed, max_steps=query.cut_steps).value
                if torus.num_nodes <= CUT_SEARCH_MAX_NODES else math.nan)  # fmt: skip
    return LoadsOutcome(
        query=query, loads=loads, e_max=e_max(loads), e_mean=float(loads.mean()),
        per_dimension=loads_by_dimension(torus, loads),
        classes=heatmap_3d_frame(frame)[["dim", "sign", "residue", "load"]],
        lb_single=single_node_bound(torus, chosen), lb_natural=float(natural), lb_search=float(searched),
        lb_cut=float(np.nanmax([natural, searched])),
        claimed=claimed_bound(query.d, query.k, query.classes, query.placement, query.routing),
    )  # fmt: skip
