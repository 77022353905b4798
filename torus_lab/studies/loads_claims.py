"""The claims of Azizoglu & Eğecioğlu's placements and link loads, from the study's tables.

The one entry point is :func:`claims` (the tables :func:`torus_lab.studies.loads.run` assembled and the
experiment's parameters -> the claims table, :func:`torus_lab.claims.claims_table`).  One private function builds
each claim group, with its verdict rule as data (:class:`torus_lab.claims.Rule`); the rules are fixed before looking
at the data and written in the docstring of :func:`claims`.  The tables the claims read
(:func:`asymptotic_exponent`, :func:`placement_size_check`, :func:`load_per_processor_by_t`,
:func:`optimality_by_dimension`) are public: the notebook shows some of them; the fits they use are
:func:`torus_lab.stats.leading_constant_fit` and :func:`torus_lab.stats.corrected_power_law_exponent`.
:data:`PAPER_RESULTS` lists the paper's numbered results, which the claims table covers.

Examples
--------
>>> claims({"loads_details": None}, {})
Traceback (most recent call last):
...
ValueError: tables lacks the key(s) 'bisection_tiny'
>>> len(PAPER_RESULTS), PAPER_RESULTS[0]
(8, 'Lemma 1')
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from torus_lab._validate import check_frame, check_mapping, check_real, check_sequence, check_str
from torus_lab.claims import MIN_FIT_POINTS, Claim, Rule, claims_table, data_file
from torus_lab.stats import corrected_power_law_exponent, leading_constant_fit

__all__ = [
    "claims",
    "PAPER_RESULTS",
    "UPPER_SLACK",
    "LOWER_SLACK",
    "MIN_K_FIT",
    "TOLERANCE",
    "LINEAR_EXPONENT_MAX",
    "constant_matches",
    "asymptotic_exponent",
    "placement_size_check",
    "load_per_processor_by_t",
    "optimality_by_dimension",
]

#: Every numbered result of the paper, in paper order, spelled as the claims' ``location`` column spells it (the
#: paper has no table or figure; its numbered bounds (1)-(6) are equations, covered by the rows of their sections).
PAPER_RESULTS: tuple[str, ...] = (
    "Lemma 1", "Theorem 1", "Corollary 1", "Theorem 2", "Theorem 3", "Theorem 4", "Theorem 5", "Theorem 6",
)

def asymptotic_exponent(group: pd.DataFrame) -> list[tuple[str, float, list[int]]]:
    """Exponent ``alpha`` of ``E_max ~ |P|^alpha`` per parity of ``k``: ``[(parity, alpha, radices), ...]``.

    Odd and even ``k`` are fitted apart (for ODR ``E_max = floor(k/2) k^(d-2)``), each by
    :func:`torus_lab.stats.corrected_power_law_exponent` (with three or more radices
    ``log E_max = alpha log |P| + beta + gamma / k``, which absorbs the ``O(1/k)`` convergence of ``E_max/|P|``
    seen at small ``k``; with two the slope between them); a parity with one radix is skipped.

    Examples
    --------
    >>> k = np.array([8, 12, 16, 24])
    >>> frame = pd.DataFrame({"k": k, "processors": k**2, "e_max": 0.5 * np.exp(-2 / k) * k**2})
    >>> [(parity, round(alpha, 3), ks) for parity, alpha, ks in asymptotic_exponent(frame)]
    [('even', 1.0, [8, 12, 16, 24])]
    """
    check_frame("group", group, ["k", "processors", "e_max"])
    out = []
    for parity, name in ((0, "even"), (1, "odd")):
        part = group[group["k"] % 2 == parity].drop_duplicates("k").sort_values("k")
        if len(part) < 2:
            continue
        alpha = corrected_power_law_exponent(part["processors"].to_numpy(dtype=float),
                                             part["e_max"].to_numpy(dtype=float), part["k"].to_numpy(dtype=float))
        out.append((name, alpha, [int(v) for v in part["k"]]))
    return out



#: Relative slack of an upper bound (``measured / bound <= 1 + UPPER_SLACK`` holds): float round-off only.
UPPER_SLACK = 1e-12
#: Absolute slack of a lower bound (``measured - bound >= -LOWER_SLACK`` holds): float round-off only.
LOWER_SLACK = 1e-9


def constant_matches(measured: float, claimed: float, tolerance: float) -> bool:
    """Whether a fitted constant is within ``tolerance`` (relative to ``claimed``) of the claimed one; NaN: no.

    Examples
    --------
    >>> constant_matches(0.1875, 0.125, 0.5), constant_matches(0.19, 0.125, 0.5)
    (True, False)
    """
    measured = check_real("measured", measured, finite=False)
    claimed = check_real("claimed", claimed, finite=False)
    tolerance = check_real("tolerance", tolerance, minimum=0)
    return bool(abs(measured - claimed) <= tolerance * abs(claimed))


def _fmt(value: float) -> str:
    return f"{value:.4g}"


def _scope(part: pd.DataFrame) -> str:
    """The (d, k) range of ``part`` in words."""
    if part.empty:
        return "no case"
    return "; ".join(f"d={d}: k {int(g['k'].min())}..{int(g['k'].max())}" for d, g in part.groupby("d"))


_EXACT = ("exact link loads of complete exchange (every processor sends one message to every other), computed, not "
          "simulated; ODR = one fixed dimension order, UDR = every dimension order equally weighted (conventions "
          "page, Azizoglu & Egecioglu section)")
_EVIDENCE = ("data/loads/loads.csv",)


def _upper_bound(claim_id: str, location: str, statement: str, paper_text: str, part: pd.DataFrame,
                 measured: str, bound: str) -> Claim:  # fmt: skip
    """A claimed upper bound: the largest ``measured / bound`` over ``part`` at most 1 (round-off slack)."""
    part = part.dropna(subset=[measured, bound])
    ratio = part[measured] / part[bound]
    text = "no data"
    if len(part):
        worst = part.loc[ratio.idxmax()]
        text = (f"max {measured}/bound = {_fmt(ratio.max())} (d={worst['d']}, k={worst['k']}"
                + (f", t={worst['t']}" if "t" in part else "") + f") over {len(part)} cases")
    return Claim(claim_id=claim_id, location=location, statement=statement, conditions=f"{_scope(part)}; {_EXACT}",
                 paper_value=1.0, paper_text=paper_text, measured_value=float(ratio.max()) if len(part) else math.nan,
                 measured_text=text, rule=Rule("at_most", {"bound": 1 + UPPER_SLACK}), evidence=_EVIDENCE)


def _lower_bound(claim_id: str, location: str, statement: str, paper_text: str, part: pd.DataFrame,
                 bound: pd.Series) -> Claim:  # fmt: skip
    """A claimed lower bound: every ``E_max`` at least ``bound`` (round-off slack); measured is the least margin."""
    keep = part["e_max"].notna() & bound.notna()
    margin = part["e_max"][keep] - bound[keep]
    ratio = part["e_max"][keep] / bound[keep]
    return Claim(
        claim_id=claim_id, location=location, statement=statement, conditions=f"{_scope(part[keep])}; {_EXACT}",
        paper_value=0.0, paper_text=paper_text, measured_value=float(margin.min()) if keep.any() else math.nan,
        measured_text=(f"least E_max - bound = {_fmt(margin.min())}, least E_max/bound = {_fmt(ratio.min())} over "
                       f"{int(keep.sum())} cases" if keep.any() else "no data"),
        rule=Rule("at_least", {"bound": -LOWER_SLACK}), evidence=_EVIDENCE)


def _by_construction(claim: Claim, reason: str) -> Claim:
    """``claim`` marked true by construction (evidence ``by definition``: never counted as reproduced), with the
    reason appended to its conditions."""
    return dataclasses.replace(claim, conditions=f"{claim.conditions}; true by construction: {reason}",
                               evidence_kind="by definition")


_CUT_COUNTING = ("every ordered pair split by the cut sends its unit of traffic across it, so the links of the cut "
                 "carry at least 2|S|(|P|-|S|) in all for any routing on any paths; the exact loads conserve each "
                 "pair's unit, so E_max >= the bound checks our load code, not the paper")


#: Fits start at this radix (smaller ``k`` are not in the fits of asymptotic statements).
MIN_K_FIT = 6
#: Relative tolerance of the "about" and "constant" readings (Theorem 3's 1/8, Theorem 2's spread, optimality).
TOLERANCE = 0.10
#: Largest fitted exponent of ``E_max`` against ``|P|`` read as linear load.
LINEAR_EXPONENT_MAX = 1.1

_FIT_NOTE = (f"fits over k >= {MIN_K_FIT}, separately for even and odd k; a fit over fewer than {MIN_FIT_POINTS} "
             "radices is not judged (docs/conventions.md#claims-judged)")


def _big(summary: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``summary`` the asymptotic fits use (``k >= MIN_K_FIT``)."""
    return summary[summary["k"] >= MIN_K_FIT]


def _odr_constant_claim(summary: pd.DataFrame) -> list[Claim]:
    """Theorem 3: ODR linear E_max = k^(d-1)/8 + o(k^(d-1)), regardless of the parity of k."""
    big = _big(summary)
    odr_lin = big[(big["routing"] == "odr") & (big["placement"] == "linear")]
    per_dim, flags, judged, mean_fits = [], [], [], []
    for d, group in odr_lin.groupby("d"):
        for parity, part in group.groupby(group["k"] % 2):
            a, _ = leading_constant_fit(part["k"], part["e_max"] / part["k"] ** (d - 1))
            m, _ = leading_constant_fit(part["k"], part["e_mean"] / part["k"] ** (d - 1))
            per_dim.append(f"d={d} {'odd' if parity else 'even'} k ({part['k'].nunique()} radices): {_fmt(a)}")
            mean_fits.append(m)
            judged.append(part["k"].nunique() >= MIN_FIT_POINTS)
            flags.append(judged[-1] and constant_matches(a, 1 / 8, TOLERANCE))
    return [Claim(
        claim_id="odr_linear_constant", location="Theorem 3",
        statement="ODR on a linear placement gives E_max = k^(d-1)/8 + o(k^(d-1)), for either parity of k",
        conditions=f"linear placement, ODR; {_scope(odr_lin)}; {_FIT_NOTE}: E_max/k^(d-1) = a + b/k, a within "
                   f"{TOLERANCE:.0%} of 1/8; {_EXACT}",
        paper_value=0.125, paper_text="E_max/k^(d-1) -> 1/8", measured_value=sum(flags) if flags else math.nan,
        measured_text=("fitted a: " + "; ".join(per_dim) + f"; within {TOLERANCE:.0%} of 1/8 for {sum(flags)} of "
                       f"the {sum(judged)} fits over at least {MIN_FIT_POINTS} radices ({len(flags)} in all)"
                       + (f" (the mean link load/k^(d-1) -> {_fmt(min(mean_fits))}..{_fmt(max(mean_fits))})"
                          if mean_fits else "") if flags else "no data"),
        rule=_fits_rule(flags, judged), evidence=_EVIDENCE)]


#: The condition of a count over fits: the fits through enough radices (``docs/conventions.md#claims-judged``).
_ENOUGH_RADICES = f"the fits over at least {MIN_FIT_POINTS} radices (a fit through fewer decides nothing)"


def _fits_rule(flags: list[bool], judged: list[bool]) -> Rule:
    """The ``all_of`` rule of a count over fits: ``flags`` (a fit satisfies the claim) among the fits through enough
    radices (``judged``); too few judged fits give "inconclusive", never a counterexample.  Each such fit is a
    judgement over its radices, so one suffices (``min_judged`` 1); the judged share of
    :data:`torus_lab.claims.MIN_JUDGED_SHARE` still applies."""
    inside = sum(j for j in judged)
    ok = sum(f for f, j in zip(flags, judged, strict=True) if j)
    return Rule("all_of", {"n": len(flags), "condition": _ENOUGH_RADICES, "conditional_k": ok,
                           "conditional_n": inside, "judged": inside, "min_judged": 1})


def _exponent_claim(big: pd.DataFrame, claim_id: str, location: str, statement: str, routing: str,
                    placement: str) -> Claim:  # fmt: skip
    """One "linear load" claim: every (d, t, parity) exponent at most ``LINEAR_EXPONENT_MAX``."""
    part = big[(big["routing"] == routing) & (big["placement"] == placement)]
    texts, ok, judged = [], [], []
    for (d, t), group in part.groupby(["d", "t"]):
        for parity, alpha, ks in asymptotic_exponent(group):
            texts.append(f"d={d} t={t} {parity} k {ks[0]}..{ks[-1]} ({len(ks)} radices): {_fmt(alpha)}")
            judged.append(len(ks) >= MIN_FIT_POINTS)
            ok.append(judged[-1] and bool(alpha <= LINEAR_EXPONENT_MAX))
    return Claim(
        claim_id=claim_id, location=location, statement=statement,
        conditions=f"{placement.replace('_', ' ')} placement, {routing.upper()}; {_scope(part)}; exponent of "
                   f"E_max against |P|, {_FIT_NOTE}; linear read as an exponent <= {LINEAR_EXPONENT_MAX}; {_EXACT}",
        paper_value=1.0, paper_text="E_max = O(|P|) (exponent 1)", measured_value=sum(ok) if ok else math.nan,
        measured_text=(f"exponent <= {LINEAR_EXPONENT_MAX} in {sum(ok)} of the {sum(judged)} fits over at least "
                       f"{MIN_FIT_POINTS} radices ({len(ok)} fits in all): " + "; ".join(texts) if ok else "no data"),
        rule=_fits_rule(ok, judged), evidence=_EVIDENCE)


def _linear_load_claims(summary: pd.DataFrame) -> list[Claim]:
    """Theorems 3-6: linear load per placement and routing; Section 5: a linear placement alone does not suffice."""
    big = _big(summary)
    rows = [
        _exponent_claim(big, "odr_linear_linear", "Theorem 3", "linear placement + ODR has linear load", "odr",
                        "linear"),
        _exponent_claim(big, "odr_multiple_linear", "Theorem 4", "multiple linear placement + ODR has linear load",
                        "odr", "multiple_linear"),
        _exponent_claim(big, "udr_linear_linear", "Theorem 5", "linear placement + UDR has linear load", "udr",
                        "linear"),
        _exponent_claim(big, "udr_multiple_linear", "Theorem 6", "multiple linear placement + UDR has linear load",
                        "udr", "multiple_linear"),
    ]  # fmt: skip
    # Section 5: "linear placements themselves do not guarantee the linearity of the load on edges"
    shortest = big[(big["routing"] == "shortest") & (big["placement"] == "linear")]
    texts, superlinear, points = [], [], []
    for d, group in shortest.groupby("d"):
        for parity, alpha, ks in asymptotic_exponent(group):
            texts.append(f"d={d} {parity} k {ks[0]}..{ks[-1]} ({len(ks)} radices): {_fmt(alpha)}")
            points.append(len(ks))
            superlinear.append(len(ks) >= MIN_FIT_POINTS and bool(alpha > LINEAR_EXPONENT_MAX))
    rows.append(Claim(
        claim_id="placement_alone", location="Section 5",
        statement="a linear placement alone does not guarantee linear load (the routing matters)",
        conditions=f"linear placement with one other routing, all shortest paths equally weighted; {_scope(shortest)}"
                   f"; {_FIT_NOTE}; superlinear read as an exponent > {LINEAR_EXPONENT_MAX}; an existence claim: a "
                   "routing without superlinear load would not refute it, so that case is not testable here",
        paper_text="some shortest-path routing has superlinear load",
        measured_value=sum(superlinear) if any(superlinear) or 0 < max(points, default=0) < MIN_FIT_POINTS
        else math.nan,
        measured_text=(f"superlinear in {sum(superlinear)} of the {sum(n >= MIN_FIT_POINTS for n in points)} fits "
                       f"over at least {MIN_FIT_POINTS} radices ({len(superlinear)} fits in all): " + "; ".join(texts)
                       if superlinear else "no data"),
        # the best fit's radices: a run whose every fit rests on fewer than MIN_FIT_POINTS decides nothing
        rule=Rule("at_least", {"bound": 1, **({"fit_points": max(points)} if points else {})}),
        evidence=_EVIDENCE))
    return rows


def _bound_claims(summary: pd.DataFrame) -> list[Claim]:
    """The upper bounds of Theorems 4 and 5 and the lower bounds (1) and Lemma 1 against every measured E_max."""
    return [
        _upper_bound("odr_multiple_bound", "Theorem 4", "multiple linear + ODR has E_max <= t^2 k^(d-1)",
                     "t^2 k^(d-1)", summary[(summary["routing"] == "odr")
                                            & (summary["placement"] == "multiple_linear")], "e_max", "claimed_bound"),
        _upper_bound("udr_linear_bound", "Theorem 5", "linear + UDR has E_max <= 2^(d-1) k^(d-1)", "2^(d-1) k^(d-1)",
                     summary[(summary["routing"] == "udr") & (summary["placement"] == "linear")], "e_max",
                     "claimed_bound"),
        # lower bounds (1) and Lemma 1 must sit below every measured E_max
        _by_construction(_lower_bound("bound_1", "Section 1", "E_max >= (|P|-1)/(2d) for every routing",
                                      "lower bound for every routing", summary, summary["lb_single"]),
                         "Lemma 1 with S one processor (|dS| = 4d); " + _CUT_COUNTING),
        _by_construction(_lower_bound(
            "lemma_1", "Lemma 1", "E_max >= 2|S|(|P|-|S|)/|dS| for every cut S (the best cut we found)",
            "lower bound for every routing", summary, summary["lb_cut"]), _CUT_COUNTING),
    ]  # fmt: skip


def _improved_bound_claims(summary: pd.DataFrame) -> list[Claim]:
    """Theorem 2 / bound (2): a cut bound c k^(d-1) with c independent of d, tighter than (1) for large d; and
    Corollary 1: the bisection width with respect to P at most 6 d k^(d-1)."""
    lin = summary[(summary["placement"] == "linear") & (summary["routing"] == summary["routing"].iloc[0])]
    spread, text = math.nan, "no data"
    if not lin.empty:
        by_d = lin.assign(c=lin["lb_natural"] / lin["k"] ** (lin["d"] - 1)).groupby("d")["c"].min()
        better = lin[lin["lb_cut"] > lin["lb_single"]]["d"].unique()
        spread = float((by_d.max() - by_d.min()) / by_d.max())
        text = ("natural-cut c per d: " + ", ".join(f"d={d}: {_fmt(c)}" for d, c in by_d.items())
                + f" (spread {spread:.1%}); cut bound > (1) for d in {sorted(int(v) for v in better)}")
    return [Claim(
        claim_id="improved_bound", location="Theorem 2; Section 4",
        statement="E_max >= c k^(d-1) with c independent of d; tighter than (1) for d >= 4",
        conditions=f"linear placements; {_scope(lin)}; c from the natural bisecting cut, its least value per d; "
                   f"'independent of d' read as a spread (max - min)/max <= {TOLERANCE:.0%}; true by construction: "
                   "a half-torus slab holds half of a linear placement, so its bound is 2(|P|/2)^2/(4k^(d-1)) = "
                   "k^(d-1)/8 for every d, and it beats (|P|-1)/(2d) once 2d > 8 (arithmetic); Theorem 2's "
                   "separator for any placement of size Theta(k^(d-1)) is not tested by this row (rows corollary_1*)",
        paper_text="c independent of d", measured_value=spread, measured_text=text,
        rule=Rule("at_most", {"bound": TOLERANCE}), evidence=_EVIDENCE, evidence_kind="by definition")]


_EMPTY_BEST = pd.DataFrame(columns=["d", "k", "lb_single", "e_max_best", "e_max_odr", "e_max_udr"])


def _blaum_claims(best: pd.DataFrame) -> list[Claim]:
    """Section 1: Blaum et al.'s placements (k for d = 2, k^2 for d = 3) with routing algorithms achieve bound (1):
    on the linear placement, the best routing's ``E_max`` (any fractional split, a relaxation of Definition 3) and
    ODR's/UDR's (Definition 3 routings) against (1)."""
    check_frame("best_routing", best, ["d", "k", "lb_single", "e_max_best", "e_max_odr", "e_max_udr"])
    best = best[best["d"].isin([2, 3])]
    reached = best["e_max_best"] <= best["lb_single"] * (1 + UPPER_SLACK)
    equal_split = best[["e_max_odr", "e_max_udr"]].min(axis=1) <= best["lb_single"] * (1 + UPPER_SLACK)
    per_d = [f"d={d}: best routing / (1) = {_fmt((g['e_max_best'] / g['lb_single']).max())} at most over k "
             f"{sorted(int(k) for k in g['k'])}; ODR or UDR reach (1) at k "
             f"{sorted(int(k) for k in g['k'][equal_split[g.index]])}" for d, g in best.groupby("d")]
    return [Claim(
        claim_id="blaum_optimal", location="Section 1",
        statement="Blaum et al.'s placements of k (d = 2) and k^2 (d = 3) processors, together with routing "
                  "algorithms, achieve the lower bound (1): they are optimal",
        conditions=f"the linear placement (Section 5: Blaum et al.'s shifted diagonal placement for d = 3; for d = 2 "
                   f"the diagonal stands in for their placement, which the paper does not give); (d, k) in "
                   f"{[(int(r.d), int(r.k)) for r in best.itertuples()]}; achieved read as E_max <= (1) (round-off "
                   "only) by the best routing on shortest paths (a linear programme over every split of each pair's "
                   "traffic over its shortest paths, conventions loads-optimal-routing; Definition 3 splits equally "
                   "over a subset, so any fraction is a relaxation: holds under conditions) or, strictly, by one of "
                   "our Definition 3 routings (ODR, UDR); Blaum et al.'s own routing and their second lower bound "
                   "are not given in the paper: not testable",
        paper_text="the two lower bounds are actually achieved", measured_value=int(equal_split.sum())
        if len(best) else math.nan,
        measured_text="; ".join(per_d) or "no torus in this run",
        rule=Rule("all_of", {"n": len(best), "condition": "any fractional split of each pair's traffic",
                             "conditional_k": int(reached.sum()), "conditional_n": len(best)}),
        evidence_kind="exhaustive", evidence=(data_file("loads", "best_routing.csv"),))]


def _full_torus_claims(summary: pd.DataFrame) -> list[Claim]:
    """Section 1 / Theorem 1: a fully populated torus has superlinear load (no row when the run has none)."""
    full = summary[summary["placement"] == "full"]
    if full.empty:
        return []
    even = full[full["k"] % 2 == 0]
    texts = [f"d={d} {routing} {parity} k {ks[0]}..{ks[-1]}: {_fmt(alpha)}"
             for (d, routing), group in full.groupby(["d", "routing"])
             for parity, alpha, ks in asymptotic_exponent(group)]  # fmt: skip
    claim = _lower_bound("full_torus", "Section 1", "a fully populated torus (k even) has a link with load >= "
                         "k^(d+1)/8: superlinear", "E_max >= k^(d+1)/8", even, even["k"] ** (even["d"] + 1) / 8)
    claim = _by_construction(claim, "Lemma 1 at the natural bisection (k^d/2 processors each side, 4k^(d-1) links): "
                             "2 (k^d/2)^2 / (4k^(d-1)) = k^(d+1)/8; " + _CUT_COUNTING)
    return [dataclasses.replace(claim, measured_text=f"{claim.measured_text}; exponent of E_max vs |P|: "
                                                     + "; ".join(texts))]


def placement_size_check(summary: pd.DataFrame) -> pd.DataFrame:
    """Per constructed placement of ``summary`` (linear, multiple linear, full): its size against ``t k^(d-1)``.

    One row per (d, k, t, placement): processors, expected (``t k^(d-1)``; the fully populated torus has t = k),
    equal.  The paper (Section 5): "there are exactly k^(d-1) processors satisfying p_1 + ... + p_d = c (mod k)";
    multiple linear placements have ``t k^(d-1)``.

    Examples
    --------
    >>> s = pd.DataFrame({"d": [3, 3], "k": [4, 4], "t": [1, 2], "placement": ["linear", "multiple_linear"],
    ...                   "processors": [16, 32], "routing": ["odr", "odr"]})
    >>> placement_size_check(s)[["t", "expected", "equal"]].values.tolist()
    [[1, 16, True], [2, 32, True]]
    """
    check_frame("summary", summary, ["d", "k", "t", "placement", "processors"])
    sizes = summary.drop_duplicates(["d", "k", "t", "placement"])[["d", "k", "t", "placement", "processors"]]
    expected = sizes["t"].astype(int) * sizes["k"].astype(int) ** (sizes["d"].astype(int) - 1)
    return sizes.assign(expected=expected.astype(int), equal=sizes["processors"].astype(int) == expected) \
        .reset_index(drop=True)


def load_per_processor_by_t(summary: pd.DataFrame, routings: Sequence[str] = ("odr", "udr")) -> pd.DataFrame:
    """How the load per processor grows with the placement size ``|P| = t k^(d-1)`` at fixed (d, k).

    One row per (d, k, routing) with at least two values of t (linear t = 1, multiple linear t >= 2, full t = k):
    ts, per_processor (``E_max / |P|`` in t order), per_processor_over_t (``E_max / (t |P|)``), grows
    (``E_max / |P|`` non-decreasing in t and larger at the largest t than at the smallest), increasing (strictly
    increasing at every step).  A load linear in ``|P|`` would keep ``E_max / |P|`` flat; the paper's Section 3.1
    (optimal placements have ``O(k^(d-1))`` processors) predicts growth with t.  At small k the values can level
    off as t nears k (the fully populated torus caps them), hence the two columns.

    Examples
    --------
    >>> s = pd.DataFrame({"d": [2, 2, 2], "k": [6, 6, 6], "t": [1, 2, 6], "routing": ["odr"] * 3,
    ...                   "processors": [6, 12, 36], "e_max": [3.0, 8.0, 36.0]})
    >>> load_per_processor_by_t(s)[["ts", "per_processor", "grows", "increasing"]].values.tolist()
    [['1 2 6', '0.5 0.6667 1', True, True]]
    """
    check_frame("summary", summary, ["d", "k", "t", "routing", "processors", "e_max"])
    routings = [check_str("routings[i]", r) for r in check_sequence("routings", routings)]
    rows = []
    part = summary[summary["routing"].isin(routings)].dropna(subset=["e_max"])
    for (d, k, routing), group in part.groupby(["d", "k", "routing"]):
        group = group.sort_values("t")
        if group["t"].nunique() < 2:
            continue
        per = (group["e_max"] / group["processors"]).to_numpy(dtype=float)
        rows.append({"d": int(d), "k": int(k), "routing": routing, "ts": " ".join(str(int(t)) for t in group["t"]),
                     "per_processor": " ".join(_fmt(v) for v in per),
                     "per_processor_over_t": " ".join(_fmt(v) for v in per / group["t"].to_numpy(dtype=float)),
                     "grows": bool(np.all(np.diff(per) >= 0) and per[-1] > per[0]),
                     "increasing": bool(np.all(np.diff(per) > 0))})
    return pd.DataFrame(rows, columns=["d", "k", "routing", "ts", "per_processor", "per_processor_over_t",
                                       "grows", "increasing"])


def optimality_by_dimension(summary: pd.DataFrame, routings: Sequence[str] = ("odr", "udr")) -> pd.DataFrame:
    """The linear placement's ``E_max`` against the lower bounds, per dimension, at the largest radix of each d.

    One row per (routing, d): k, processors, e_max, ratio_bound_2 (``E_max / lb_cut``, the best Lemma 1 cut bound
    found: the concrete form of bound (2), ``c k^(d-1)``), ratio_bound_1 (``E_max / (1)``).  An optimal placement in
    the paper's sense keeps ``ratio_bound_2`` bounded as d grows (bound (2)'s constant is independent of d).

    Examples
    --------
    >>> s = pd.DataFrame({"d": [2, 2, 3], "k": [5, 9, 5], "placement": "linear", "routing": "odr",
    ...                   "processors": [5, 9, 25], "e_max": [2.0, 4.0, 12.0], "lb_cut": [1.0, 1.0, 4.0],
    ...                   "lb_single": [1.0, 2.0, 4.0]})
    >>> optimality_by_dimension(s)[["routing", "d", "k", "ratio_bound_2"]].values.tolist()
    [['odr', 2, 9, 4.0], ['odr', 3, 5, 3.0]]
    """
    check_frame("summary", summary, ["d", "k", "placement", "routing", "processors", "e_max", "lb_cut", "lb_single"])
    routings = [check_str("routings[i]", r) for r in check_sequence("routings", routings)]
    lin = summary[(summary["placement"] == "linear") & summary["routing"].isin(routings)].dropna(
        subset=["e_max", "lb_cut"])
    rows = []
    for (routing, d), group in lin.groupby(["routing", "d"]):
        last = group.loc[group["k"].idxmax()]
        rows.append({"routing": routing, "d": int(d), "k": int(last["k"]), "processors": int(last["processors"]),
                     "e_max": float(last["e_max"]), "ratio_bound_2": float(last["e_max"] / last["lb_cut"]),
                     "ratio_bound_1": float(last["e_max"] / last["lb_single"])})
    return pd.DataFrame(rows, columns=["routing", "d", "k", "processors", "e_max", "ratio_bound_2",
                                       "ratio_bound_1"])


def _placement_size_claims(summary: pd.DataFrame) -> list[Claim]:
    """Section 5: the constructed placements have ``t k^(d-1)`` processors, in every case."""
    sizes = placement_size_check(summary)
    built = sizes[sizes["placement"].isin(["linear", "multiple_linear"])]
    return [Claim(
        claim_id="placement_sizes", location="Section 5",
        statement="a linear placement has exactly k^(d-1) processors; a multiple linear placement t k^(d-1)",
        conditions=f"every constructed placement: {_scope(built)}; t in {sorted(int(t) for t in built['t'].unique())}"
                   "; processors counted from the placement's node set; true by construction: c_1 = 1 is a unit, so "
                   "p_1 is fixed by p_2..p_d in each residue class (k^(d-1) nodes per class)",
        paper_text="|P| = t k^(d-1)", measured_value=int(built["equal"].sum()) if len(built) else math.nan,
        measured_text=f"|P| = t k^(d-1) in {int(built['equal'].sum())} of {len(built)} placements",
        rule=Rule("all_of", {"n": len(built)}), evidence=_EVIDENCE, evidence_kind="by definition")]


def _optimal_size_claims(summary: pd.DataFrame) -> list[Claim]:
    """Sections 3.1 and 8: ``E_max / |P|`` grows with t in every (d, k, routing) group."""
    growth = load_per_processor_by_t(summary)
    grows, inc = int(growth["grows"].sum()), int(growth["increasing"].sum())
    sample = growth.iloc[-1] if len(growth) else None
    return [Claim(
        claim_id="optimal_size_theta", location="Section 3.1; Section 8",
        statement="an optimal placement (linear load) has Theta(k^(d-1)) processors; what we measure of it: the load "
                  "per processor E_max/|P| of placements of t k^(d-1) processors grows with t",
        conditions=f"what the workbench can show: at fixed (d, k) the placements of t k^(d-1) processors (linear "
                   "t = 1, multiple linear t >= 2, fully populated t = k) under ODR and UDR; load per processor "
                   "E_max/|P| read as growing when non-decreasing in t and larger at the largest t than at t = 1; "
                   f"{_scope(growth)}; the O(k^(d-1)) bound "
                   f"over every placement is a proof (Lemma 1 + Corollary 1), not testable by enumeration; {_EXACT}",
        paper_text="|P| = Theta(k^(d-1))", measured_value=grows if len(growth) else math.nan,
        measured_text=(f"E_max/|P| grows with t in {grows} of {len(growth)} (d, k, routing) groups (strictly at "
                       f"every step in {inc}; the others level off as t nears k at small k); e.g. "
                       f"d={sample['d']}, k={sample['k']}, {sample['routing']}: t = {sample['ts']} -> E_max/|P| = "
                       f"{sample['per_processor']}" if len(growth) else "no (d, k) with two placement sizes"),
        rule=Rule("all_of", {"n": len(growth)}), evidence=_EVIDENCE)]


def _linear_optimal_claims(summary: pd.DataFrame) -> list[Claim]:
    """Sections 4 and 8: per routing (ODR, UDR), ``E_max / bound (2)`` at the largest d at most ``1 + TOLERANCE``
    times the ratio at the smallest d."""
    opt = optimality_by_dimension(summary) if {"lb_cut", "lb_single"} <= set(summary) else pd.DataFrame()
    texts, flags = [], []
    for routing, group in opt.groupby("routing") if len(opt) else []:
        group = group.sort_values("d")
        texts.append(f"{routing.upper()}: " + ", ".join(f"d={r.d} (k={r.k}): {_fmt(r.ratio_bound_2)}"
                                                         for r in group.itertuples()))
        if len(group) >= 2:
            flags.append(bool(group["ratio_bound_2"].iloc[-1] <= (1 + TOLERANCE) * group["ratio_bound_2"].iloc[0]))
    return [Claim(
        claim_id="linear_optimal_bound_2", location="Section 4; Section 8",
        statement="linear placements with ODR / UDR are optimal: their E_max stays within a constant factor of the "
                  "lower bound (2) as d grows",
        conditions=f"linear placements, ODR and UDR, at the largest radix of each d ({_scope(opt)}); bound (2) "
                   "read as the best Lemma 1 cut bound found (natural bisecting cut and greedy search, 'lb_cut'); "
                   f"'bounded as d grows' read as the ratio at the largest d <= (1 + {TOLERANCE:.0%}) x the ratio at "
                   "the smallest d; asymptotics probed on the measured d only",
        paper_text="E_max = Theta(bound (2)), constant independent of d",
        measured_value=sum(flags) if flags else math.nan,
        measured_text=("E_max / bound (2): " + "; ".join(texts)
                       + f"; not growing with d for {sum(flags)} of {len(flags)} routings" if flags
                       else "fewer than two dimensions in this run"),
        rule=Rule("all_of", {"n": len(flags)}), evidence=_EVIDENCE)]


def _full_bisection_claims(summary: pd.DataFrame) -> list[Claim]:
    """Section 1: the natural cut of every fully populated torus with k even equals ``4k^(d-1)`` directed edges."""
    full = summary[(summary["placement"] == "full") & (summary["k"] % 2 == 0)]
    if "bisection_natural" in full:
        full = full.drop_duplicates(["d", "k"]).dropna(subset=["bisection_natural"])
        widths = 4 * full["k"].astype(int) ** (full["d"].astype(int) - 1)
        equal = int((full["bisection_natural"].astype(int) == widths).sum())
    else:
        full, equal = full.iloc[0:0], 0
    return [Claim(
        claim_id="full_bisection_width", location="Section 1",
        statement="the fully populated d-dimensional k-torus (k even) has bisection width 4k^(d-1)",
        conditions=f"fully populated tori with k even ({_scope(full)}); the natural bisecting cut (two hyperplanes "
                   "of one dimension, directed edges both ways) counted; that no cut is smaller is the known "
                   "bisection width of the torus, not re-derived here; true by construction: the cut is two "
                   "hyperplanes of k^(d-1) links each, counted both ways",
        paper_text="4k^(d-1)", measured_value=equal if len(full) else math.nan,
        measured_text=(f"natural cut = 4k^(d-1) directed edges in {equal} of {len(full)} tori"
                       if len(full) else "no fully populated torus with k even in this run"),
        rule=Rule("all_of", {"n": len(full)}), evidence=("data/loads/loads_details.csv",),
        evidence_kind="by definition")]




_EMPTY_EXHAUSTIVE = pd.DataFrame(columns=["d", "k", "placements", "max_width", "bound", "min_slack"])
_EMPTY_ANY = pd.DataFrame(columns=["d", "k", "random", "random_over_bound", "random_min_slack", "search_slack",
                                   "search_restarts", "search_steps", "bound"])


def _corollary_claims(summary: pd.DataFrame, exhaustive: pd.DataFrame, anywhere: pd.DataFrame) -> list[Claim]:
    """Corollary 1 for any placement: every placement of the tiny tori (exact widths, ``corollary_1_bruteforce``);
    random and adversarial placements of larger tori with certified cuts, the structured ones for comparison
    (``corollary_1``)."""
    rows = []
    check_frame("bisection_exhaustive", exhaustive, ["d", "k", "placements", "max_width", "bound", "min_slack"])
    tori = [(int(r.d), int(r.k)) for r in exhaustive.itertuples()]
    total = int(exhaustive["placements"].sum())
    within = int(exhaustive.loc[exhaustive["min_slack"] >= 0, "placements"].sum())
    rows.append(Claim(
        claim_id="corollary_1_bruteforce", location="Theorem 1; Corollary 1",
        statement="|d_b P| <= 6 d k^(d-1) for every placement of a tiny torus",
        conditions=f"(d, k) in {tori}; every placement of at least two processors enumerated; exact |d_b P| by "
                   "brute force over every split of the nodes (directed links)",
        paper_value=1.0, paper_text="6 d k^(d-1)", measured_value=within if total else math.nan,
        measured_text=("; ".join(f"d={r.d}, k={r.k}: {r.placements} placements, largest exact |d_b P| = "
                                 f"{r.max_width} of bound {r.bound} (least slack {r.min_slack})"
                                 for r in exhaustive.itertuples()) if total else "no tiny torus in this run"),
        rule=Rule("all_of", {"n": total}), evidence_kind="exhaustive",
        evidence=(data_file("loads", "bisection_exhaustive.csv"),)))
    check_frame("bisection_any_placement", anywhere, ["d", "k", "random", "random_over_bound", "random_min_slack",
                                                      "search_slack", "search_restarts", "search_steps"])
    structured = summary.dropna(subset=["bisection_natural", "bisection_bound"]) \
        if "bisection_natural" in summary else summary.iloc[0:0]
    n_random = int(anywhere["random"].sum())
    share = ((anywhere["bound"] - anywhere["search_slack"]) / anywhere["bound"]).max() if len(anywhere) else math.nan
    ok = n_random - int(anywhere["random_over_bound"].sum()) + int((anywhere["search_slack"] >= 0).sum())
    worst = anywhere.loc[anywhere["search_slack"].idxmin()] if len(anywhere) else None
    ratio = (structured["bisection_natural"] / structured["bisection_bound"]).max() if len(structured) else math.nan
    rows.append(Claim(
        claim_id="corollary_1", location="Theorem 1; Corollary 1",
        statement="|d_b P| <= 6 d k^(d-1) for any placement",
        conditions=f"(d, k) in {[(int(r.d), int(r.k)) for r in anywhere.itertuples()]}; per torus "
                   f"{int(anywhere['random'].iloc[0]) if len(anywhere) else 0} random placements (size uniform in "
                   "2..k^d, then nodes uniform) and an adversarial search (hill climbing on the placement towards "
                   f"the least slack, {int(anywhere['search_restarts'].iloc[0]) if len(anywhere) else 0} restarts x "
                   f"{int(anywhere['search_steps'].iloc[0]) if len(anywhere) else 0} steps); |d_b P| bounded above by "
                   "a certified bisecting cut (a staircase: whole layers of one dimension plus a prefix of the next; "
                   "conventions loads-any-placement), so slack >= 0 proves the bound for that placement; cases: "
                   "the random placements and each torus' search result",
        paper_value=1.0, paper_text="6 d k^(d-1)", measured_value=ok if len(anywhere) else math.nan,
        measured_text=(f"within the bound in {ok} of {n_random + len(anywhere)} cases; least slack: random "
                       f"{int(anywhere['random_min_slack'].min())}, adversarial {int(worst['search_slack'])} (d="
                       f"{int(worst['d'])}, k={int(worst['k'])}, bound {int(worst['bound'])}); the searches' widths "
                       f"reach at most {_fmt(share)} of the bound; the structured "
                       f"placements' natural cuts reach at most {_fmt(ratio)} of the bound over {len(structured)} "
                       "cases" if len(anywhere) else "no random placements in this run"),
        rule=Rule("all_of", {"n": n_random + len(anywhere)}), evidence_kind="statistical",
        evidence=(data_file("loads", "bisection_any_placement.csv"), *_EVIDENCE)))
    return rows


def claims(tables: Mapping[str, pd.DataFrame], params: Mapping[str, Any]) -> pd.DataFrame:
    """The claims table of the paper from the study's tables (keys of :func:`torus_lab.studies.loads.run`).

    ``loads_details`` (the exact link loads per (d, k, t, placement, routing)) and ``bisection_tiny`` (the
    brute-force bisections) are required; ``bisection_exhaustive``, ``bisection_any_placement`` and ``best_routing``
    are read when present (their rows are "not testable here" without them).  Rules (fixed before looking at the
    data):

    * Theorem 3's constant 1/8: every (d, parity of k) fit :func:`~torus_lab.stats.leading_constant_fit` on
      ``k >= MIN_K_FIT`` within ``TOLERANCE`` (relative) of 1/8 (``all_of``);
    * upper bounds (Theorems 4, 5): the largest ``measured / bound`` at most 1 (``at_most``; float round-off slack
      ``UPPER_SLACK`` only);
    * "linear load" (Theorems 3-6): every ``(d, t, parity)`` exponent of :func:`asymptotic_exponent` over
      ``k >= MIN_K_FIT`` at most ``LINEAR_EXPONENT_MAX`` (``all_of``);
    * true by construction (evidence ``by definition``, never counted as reproduced): the lower bounds ((1), Lemma 1,
      the fully populated ``k^(d+1)/8``; the least ``E_max - bound`` is still reported), Theorem 2's constant on
      linear placements, the placements' sizes ``t k^(d-1)`` (:func:`placement_size_check`) and the natural cut of
      the fully populated torus (``docs/conventions.md#loads-coverage``);
    * Corollary 1 for any placement: every placement of the tiny tori within the bound (``bisection_exhaustive``,
      ``all_of``, exhaustive); the random placements and the adversarial searches of ``bisection_any_placement``
      within it by a certified cut (``all_of`` on statistical evidence: at least 299 cases for the default
      ``max_rate``) (``docs/conventions.md#loads-any-placement``);
    * Blaum et al.'s optimality (``best_routing``): every (d, k) reaches bound (1) with ODR or UDR (``all_of``), or
      with the best fractional routing (:func:`torus_lab.loads.optimal_routing_load`, "holds under conditions";
      ``docs/conventions.md#loads-optimal-routing``);
    * ``E_max / |P|`` grows with t (non-decreasing, larger at the largest t) in every (d, k, routing) group
      (:func:`load_per_processor_by_t`); the ratio ``E_max / bound (2)`` at the largest d at most
      ``1 + TOLERANCE`` times the ratio at the smallest d, per routing (:func:`optimality_by_dimension`);
    * a claim without rows (or only NaN) to test it on is "not testable here".

    Asymptotic statements are probed on the measured range of ``k`` only; the conditions say which.

    Parameters
    ----------
    tables : Mapping[str, pandas.DataFrame]
        The study's result tables as ``run`` assembled them.
    params : Mapping[str, Any]
        The experiment's parameters (the claims read none of them: the tables carry the grid).

    Returns
    -------
    pandas.DataFrame
        One row per claim, columns :data:`torus_lab.claims.CLAIM_COLUMNS`.

    Examples
    --------
    >>> from torus_lab.studies.loads import evaluate_point
    >>> summary = pd.DataFrame([row for d in (2, 3) for k in (6, 8) for t in (1, 2)
    ...     for row in evaluate_point(d, k, t, "linear" if t == 1 else "multiple_linear")["summary"]])
    >>> tiny = pd.DataFrame({"bisection_width": [4, 36], "corollary_1_bound": [36, 36], "d": 2, "k": 3})
    >>> every = pd.DataFrame({"d": [2], "k": [3], "placements": [502], "max_width": [16], "bound": [36],
    ...                       "min_slack": [20]})
    >>> table = claims({"loads_details": summary, "bisection_tiny": tiny, "bisection_exhaustive": every},
    ...                {}).set_index("claim_id")
    >>> table.loc[["udr_linear_bound", "corollary_1_bruteforce", "lemma_1"], "verdict"].tolist()
    ['holds', 'holds', 'true by definition']
    """
    check_mapping("tables", tables, ["loads_details", "bisection_tiny"])
    check_mapping("params", params)
    summary = check_frame("loads_details", tables["loads_details"],
                          ["d", "k", "t", "placement", "routing", "processors", "e_max"])
    rows = (_odr_constant_claim(summary) + _linear_load_claims(summary) + _bound_claims(summary)
            + _improved_bound_claims(summary) + _blaum_claims(tables.get("best_routing", _EMPTY_BEST))
            + _full_torus_claims(summary)
            + _placement_size_claims(summary) + _optimal_size_claims(summary) + _linear_optimal_claims(summary)
            + _full_bisection_claims(summary)
            + _corollary_claims(summary, tables.get("bisection_exhaustive", _EMPTY_EXHAUSTIVE),
                                tables.get("bisection_any_placement", _EMPTY_ANY)))
    return claims_table("loads", rows)
