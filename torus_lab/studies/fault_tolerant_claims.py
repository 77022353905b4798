"""The claims of Li, Peng & Chu's fault-tolerant routing in 2D tori, from the study's tables.

The one entry point is :func:`claims` (the tables :func:`torus_lab.studies.fault_tolerant.run` assembled and the
experiment's parameters -> the claims table, :func:`torus_lab.claims.claims_table`).  One private function builds
each claim group; trends are counted by ``trend_counts`` and ``improvement_trend_counts``.
:data:`PAPER_RESULTS` lists the paper's numbered results, which the claims table covers.

Examples
--------
>>> claims({"fault_tolerant": None}, {})
Traceback (most recent call last):
...
ValueError: tables lacks the key(s) 'improvement_ratios', 'algorithms'
>>> len(PAPER_RESULTS), PAPER_RESULTS[:2]
(21, ('Theorem 1', 'Fig. 1'))
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from torus_lab._validate import check_frame, check_instance, check_mapping, check_sequence, check_str
from torus_lab.claims import (
    Claim,
    Rule,
    claims_table,
    comparison_counts,
    data_file,
    figure_file,
    not_testable_claim,
    paper_value_claim,
)
from torus_lab.routing.square import ALGORITHMS, PAPER_ALGORITHMS

__all__ = ["claims", "PAPER_RESULTS"]

#: Every numbered result of the paper, in paper order, spelled as the claims' ``location`` spells them: Theorem 1
#: with Fig. 1 (its proof's chain), Figs. 2-3 (the square of Algorithms 1-2), Algorithms 1-2 (the pseudo-code of
#: Chain_Routing and Adaptive_Square_Routing), Theorems 2-4 (termination), Figs. 4-15 (Section 6).  The claims
#: table has a row for each (``tests/test_fault_tolerant.py`` checks it).
PAPER_RESULTS: tuple[str, ...] = (
    "Theorem 1", "Fig. 1", "Fig. 2", "Theorem 2", "Algorithm 1", "Fig. 3", "Algorithm 2", "Theorem 3", "Theorem 4",
    *(f"Fig. {number}" for number in range(4, 16)),
)
#: The fault rate of the paper's numeric claims (its text quotes ratios at 25% faults).
CLAIM_FAULT_RATE = 0.25
#: The theorem each paper algorithm's termination claim comes from.
TERMINATION_THEOREM = {"chain": "Theorem 2", "adaptive_square": "Theorem 3", "heuristic_square": "Theorem 4"}
#: The pseudo-code of each paper algorithm that has one (Heuristic-Square is prose only).
PAPER_ALGORITHM = {"chain": "Algorithm 1", "adaptive_square": "Algorithm 2"}

#: Tolerance of the paper's "about X" ratios: on the improvement X - 1 (relative), not on the ratio; "holds" within
#: ``RATIO_TOLERANCE`` (or X inside the 95% CI), "holds approximately" within ``RATIO_APPROX``.
RATIO_TOLERANCE = 0.10
RATIO_APPROX = 0.25  #: see ``RATIO_TOLERANCE``
#: Largest improvement (ratio - 1) we read as "not much better" (the paper gives no number).
NOT_MUCH_BETTER = 0.10
_RATIO_CI = "delta method on the log of the paired ratio, 95%"


def trend_counts(table: pd.DataFrame, kind: str, algorithms: Sequence[str] = ALGORITHMS[:3], *,
                 reverse: bool = False, with_unjudged: bool = False) -> tuple[int, ...]:  # fmt: skip
    """Comparisons in which a trend holds strictly, ties, reversals within noise (the two 95% CIs overlap) and
    the number of comparisons judged (both values measured); ``with_unjudged`` appends the number of comparisons
    in all, those with a missing value included (the ``judged`` of :func:`torus_lab.claims.comparison_counts`).

    ``kind="m"``: success at ``(N, m + 1, f)`` > at ``(N, m, f)``; ``kind="N"``: success at ``(2N, m, f)`` <
    at ``(N, m, f)``; ``kind="f"``: success at the next larger fault rate of the table < at ``f``; for each
    algorithm of ``algorithms``.  ``reverse`` expects the opposite direction (e.g. an improvement ratio that
    grows as ``m`` shrinks).  A tie (equal success rates, e.g. both 1.0) does not count as the trend; ties
    count as within noise.

    Examples
    --------
    >>> table = pd.DataFrame({"N": [16, 16, 32], "m": [3, 4, 3], "fault_rate": 0.1, "algorithm": "chain",
    ...                       "success_rate": [0.8, 0.9, 0.8], "ci_low": [0.7, 0.8, 0.7], "ci_high": 0.95})
    >>> trend_counts(table, "m", ["chain"]), trend_counts(table, "N", ["chain"])
    ((1, 0, 0, 1), (0, 1, 0, 1))
    >>> trend_counts(table, "m", ["chain"], reverse=True)  # 0.8 -> 0.9 is not a decrease (CIs overlap)
    (0, 0, 1, 1)
    >>> trend_counts(table.assign(success_rate=[0.8, np.nan, 0.8]), "m", ["chain"], with_unjudged=True)
    (0, 0, 0, 0, 1)
    """
    check_str("kind", kind, ("m", "N", "f"))
    algorithms = [check_str("algorithms", name, ALGORITHMS) for name in check_sequence("algorithms", algorithms)]
    check_instance("reverse", reverse, (bool, np.bool_), "a bool")
    check_instance("with_unjudged", with_unjudged, (bool, np.bool_), "a bool")
    check_frame("table", table, ["algorithm", "N", "m", "fault_rate", "success_rate", "ci_low", "ci_high"])
    rates = sorted(set(table["fault_rate"]))
    next_rate = dict(zip(rates[:-1], rates[1:], strict=True))
    higher = (kind == "m") != reverse  # the neighbour is expected to be higher
    strict = ties = noise = total = unjudged = 0
    for algorithm in algorithms:
        sub = table[table["algorithm"] == algorithm].set_index(["N", "m", "fault_rate"])
        for key, row in sub.iterrows():
            radix, m, f = key
            if kind == "f" and f not in next_rate:
                continue
            other_key = {"m": (radix, m + 1, f), "N": (2 * radix, m, f), "f": (radix, m, next_rate.get(f))}[kind]
            if other_key not in sub.index:
                continue
            other = sub.loc[other_key]
            if np.isnan(other.success_rate) or np.isnan(row.success_rate):
                unjudged += 1
                continue
            total += 1
            if other.success_rate == row.success_rate:
                ties += 1
            elif (other.success_rate > row.success_rate) == higher:
                strict += 1
            else:
                noise += int(other.ci_low <= row.ci_high and row.ci_low <= other.ci_high)
    return (strict, ties, noise, total, total + unjudged) if with_unjudged else (strict, ties, noise, total)


def improvement_trend_counts(ratios: pd.DataFrame, kind: str, numerator: str, denominator: str, *,
                             with_unjudged: bool = False) -> tuple[int, ...]:  # fmt: skip
    """``trend_counts`` of the improvement ratio ``numerator / denominator`` (the ratios table of
    :func:`torus_lab.studies.fault_tolerant.run_points`), expecting it to **grow** as ``m`` shrinks
    (``kind="m"``), as ``N`` doubles (``"N"``) or as the fault rate rises (``"f"``); the paired 95% CIs of the
    ratios decide "within noise"; ``with_unjudged`` as in :func:`trend_counts`.

    Examples
    --------
    >>> ratios = pd.DataFrame({"N": [16, 16, 32], "m": [3, 4, 3], "fault_rate": 0.25, "numerator": "adaptive_square",
    ...                        "denominator": "chain", "ratio": [1.2, 1.1, 1.3], "ci_low": [1.1, 1.0, 1.2],
    ...                        "ci_high": [1.3, 1.2, 1.4]})
    >>> improvement_trend_counts(ratios, "m", "adaptive_square", "chain")
    (1, 0, 0, 1)
    >>> improvement_trend_counts(ratios, "N", "adaptive_square", "chain")
    (1, 0, 0, 1)
    """
    check_frame("ratios", ratios, ["numerator", "denominator", "N", "m", "fault_rate", "ratio", "ci_low", "ci_high"])
    check_str("numerator", numerator, ALGORITHMS)
    check_str("denominator", denominator, (*ALGORITHMS, "oracle"))
    pick = ratios[(ratios["numerator"] == numerator) & (ratios["denominator"] == denominator)]
    table = pick.assign(algorithm=numerator, success_rate=pick["ratio"])
    return trend_counts(table, kind, [numerator], reverse=True, with_unjudged=with_unjudged)


def _ratio_row(ratios: pd.DataFrame, radix: int, m: int, fault_rate: float, numerator: str, denominator: str):
    row = ratios[(ratios["N"] == radix) & (ratios["m"] == m) & _at_rate(ratios, fault_rate)
                 & (ratios["numerator"] == numerator) & (ratios["denominator"] == denominator)]
    return row.iloc[0] if len(row) else None


#: The paper's "about X" ratios at 25% faults: (claim id, (N, m), numerator, denominator, X, location).
PAPER_RATIOS = [
    ("sq_vs_chain_32_3", (32, 3), "adaptive_square", "chain", 1.2, "Section 6; Fig. 8"),
    ("sq_vs_chain_128_6", (128, 6), "adaptive_square", "chain", 1.3, "Section 6; Fig. 9"),
    ("heur_vs_sq_32_3", (32, 3), "heuristic_square", "adaptive_square", 1.7, "Section 6; Fig. 14"),
    ("heur_vs_sq_128_6", (128, 6), "heuristic_square", "adaptive_square", 1.85, "Section 6; Fig. 15"),
]


def _conditions(table: pd.DataFrame, scope: str) -> str:
    """The measurement conditions shared by every claim, with ``scope`` (the points the claim uses) first."""
    trials = sorted(set(table["trials"])) if "trials" in table and len(table) else []
    seeds = sorted(set(table["seed"])) if "seed" in table and len(table) else []
    return (f"{scope}; {', '.join(map(str, trials)) or '?'} trials per point (exactly round(f N^2) faulty nodes, "
            "uniform, then a uniform pair of distinct non-faulty nodes; every algorithm on the same fault set and "
            f"pair); experiment seed {', '.join(map(str, seeds)) or '?'}; local routing BFS; readings of the "
            "pseudo-code as on the conventions page (Li, Peng & Chu section)")


#: Appended to the conditions of the claims over every cell of the run's grid: their evidence is exhaustive over the
#: grid (every cell computed, none sampled), each cell's value being a sample mean whose noise the rule reads
#: (its CI, or overlapping CIs in a trend) -- so the rate bound of a sample of cases does not apply.
_GRID = "; the grid evaluated exhaustively (every cell computed), each cell a sample mean of its trials"


def _evidence(*names: str) -> tuple[str, ...]:
    return tuple(data_file("fault_tolerant", name) for name in names)


def _theorem_conditions(frame: pd.DataFrame, scope: str) -> str:
    """Conditions of the Theorem 1-4 rows: ``scope`` first, then the seed of the check's table."""
    seeds = sorted(set(frame["seed"])) if "seed" in frame and len(frame) else []
    return (f"{scope}; experiment seed {', '.join(map(str, seeds)) or '?'}; local routing BFS; readings of the "
            "pseudo-code as on the conventions page (Li, Peng & Chu section); bounds as in "
            "docs/conventions.md#square-termination")


def _points_text(frame: pd.DataFrame) -> str:
    pairs = sorted({(int(r.N), int(r.m)) for r in frame.itertuples()})
    return ", ".join(f"({radix}, {m})" for radix, m in pairs) or "none"



#: Reasons of the rows that no number decides (drawings, curves without numbers, statements of cost).
_DRAWING = ("a drawing of the method, nothing to measure; ours: the squares each algorithm evaluated and its walk "
            "on one faulty torus (faulty_torus_example.png); the square boundaries b, B are unit-tested "
            "(tests/test_square.py)")
_CURVES = ("the paper prints this figure as curves only and its text states no value for it; the curves are not "
           "available to us as numbers, so there is nothing to compare ours with (ours are in the evidence)")


def _heuristic_90pct_claim(table: pd.DataFrame) -> list[Claim]:
    """Heuristic-Square >= 90% at up to 15% faults (the abstract's number)."""
    rows = []
    scope = table[(table["algorithm"] == "heuristic_square") & (table["fault_rate"] <= 0.15 + 1e-9)]
    met = int((scope["success_rate"] >= 0.9).sum())
    if len(scope):
        worst = scope.loc[scope["success_rate"].idxmin()]
        measured = (f"{met} of {len(scope)} points >= 0.90; lowest {worst.success_rate:.3f} at (N={worst.N}, "
                    f"m={worst.m}, f={worst.fault_rate:.2f})")
    else:
        measured = "no point with f <= 0.15 in this run"
    points = sorted({(int(r.N), int(r.m)) for r in scope.itertuples()})
    rows.append(Claim(
        claim_id="heuristic_90pct", location="Abstract; Fig. 12; Fig. 13",
        statement="Heuristic-Square finds a fault-free path with probability >= 90% in tori up to 128x128 with up "
                  "to 15% faulty nodes",
        conditions=_conditions(table, f"(N, m) in {points}, fault rates <= 0.15") + _GRID,
        paper_value=0.9, paper_text=">= 0.90 at every point", measured_value=met if len(scope) else math.nan,
        measured_text=measured, rule=Rule("all_of", {"n": len(scope)}), evidence=_evidence("fault_tolerant.csv"),
        evidence_kind="exhaustive"))
    return rows


def _paper_ratio_claims(table: pd.DataFrame, ratios: pd.DataFrame, label: Mapping[str, str]) -> list[Claim]:
    """The paper's "about X" ratios at 25% faults (``PAPER_RATIOS``)."""
    rows = []
    for cid, (radix, m), num, den, paper, location in PAPER_RATIOS:
        r = _ratio_row(ratios, radix, m, CLAIM_FAULT_RATE, num, den)
        rows.append(paper_value_claim(
            cid, location,
            f"{label[num]} / {label[den]} success ratio at 25% faults, N={radix}, m={m} is about {paper}",
            _conditions(table, f"N={radix}, m={m}, 25% faulty nodes"),
            paper, f"about {paper} (improvement {paper - 1:.0%})",
            None if r is None else (r.ratio, r.ci_low, r.ci_high),
            f"{r.ratio:.3f} (improvement {r.ratio - 1:.1%})" if r is not None else "point not in this run",
            _RATIO_CI, Rule("ratio_excess_within", {"tolerance": RATIO_TOLERANCE, "approx": RATIO_APPROX}),
            _evidence("improvement_ratios.csv")))
    return rows


def _not_much_better_claim(table: pd.DataFrame, ratios: pd.DataFrame) -> list[Claim]:
    """Adaptive-Square is not much better than Chain for N=16, m=4."""
    rows = []
    r = _ratio_row(ratios, 16, 4, CLAIM_FAULT_RATE, "adaptive_square", "chain")
    rows.append(paper_value_claim(
        "sq_vs_chain_16_4", "Section 6; Fig. 8", "Adaptive-Square is not much better than Chain for N=16, m=4",
        _conditions(table, "N=16, m=4, 25% faulty nodes (the paper names no fault rate; 25% is the rate of its other "
                           "numbers)"),
        None, f"not much better (no number; we read it as an improvement <= {NOT_MUCH_BETTER:.0%})",
        None if r is None else (r.ratio - 1, r.ci_low - 1, r.ci_high - 1),
        f"ratio {r.ratio:.3f}, improvement {r.ratio - 1:.1%}" if r is not None else "point not in this run",
        _RATIO_CI + " (of ratio - 1)", Rule("at_most", {"bound": NOT_MUCH_BETTER}),
        _evidence("improvement_ratios.csv")))
    return rows


def _better_most_claim(table: pd.DataFrame, ratios: pd.DataFrame) -> list[Claim]:
    """Adaptive-Square is better than Chain in most cases."""
    rows = []
    better = ratios[(ratios["numerator"] == "adaptive_square") & (ratios["denominator"] == "chain")]
    share = float((better["ratio"] > 1).mean()) if len(better) else math.nan
    rows.append(Claim(
        claim_id="sq_better_most", location="Section 6; Fig. 8; Fig. 9",
        statement="Adaptive-Square is better than Chain in most cases",
        conditions=_conditions(table, f"all {len(better)} (N, m, f) points of the run") + _GRID,
        paper_text="most points (we test: ratio > 1 at half of the points or more)",
        measured_value=share,
        measured_text=(f"ratio > 1 at {int((better['ratio'] > 1).sum())} of {len(better)} points" if len(better)
                       else "no point in this run"),
        rule=Rule("at_least", {"bound": 0.5}), evidence=_evidence("improvement_ratios.csv"),
        evidence_kind="exhaustive"))
    return rows


def _success_trend_claims(table: pd.DataFrame, label: Mapping[str, str]) -> list[Claim]:
    """The success-rate trends in m and N, which the paper states of Chain (Section 6 on Figs. 4-5): judged on
    Chain's comparisons; the counts of Adaptive-Square and Heuristic-Square are reported as a diagnostic."""
    rows = []
    for cid, kind, text in (
            ("larger_m_helps", "m", "For a given N, a larger m gives Chain a higher success rate"),
            ("smaller_torus_better", "N", "For a given m, routing in a smaller torus gives Chain a higher success "
                                          "rate")):  # fmt: skip
        strict, ties, noise, judged, n = trend_counts(table, kind, ["chain"], with_unjudged=True)
        value, measured, rule = comparison_counts(strict, ties, noise, n, "overlapping 95% Wilson CIs", judged)
        others = []
        for name in ("adaptive_square", "heuristic_square"):
            o_strict, o_ties, o_noise, o_n = trend_counts(table, kind, [name])
            if o_n:
                others.append(f"{label[name]} {o_strict} of {o_n} strictly ({o_ties} ties, "
                              f"{o_n - o_strict - o_ties} reversed, {o_noise} of them within noise)")
        if n and others:
            measured += "; not judged (the paper states the trend of Chain), for comparison: " + ", ".join(others)
        rows.append(Claim(
            claim_id=cid, location="Section 6; Fig. 4; Fig. 5", statement=text,
            conditions=_conditions(table, f"{n} comparisons of Chain's success rate at neighbouring "
                                          f"{'m' if kind == 'm' else 'N (N vs 2N)'} at equal fault rate; a tie is "
                                          "not a higher rate") + _GRID,
            paper_text="qualitative (every comparison)", measured_value=value, measured_text=measured, rule=rule,
            evidence=_evidence("fault_tolerant.csv"), evidence_kind="exhaustive"))
    return rows


def _heuristic_significant_claim(table: pd.DataFrame, ratios: pd.DataFrame) -> list[Claim]:
    """The improvement of Heuristic-Square over Adaptive-Square is significant."""
    rows = []
    heur = ratios[(ratios["numerator"] == "heuristic_square") & (ratios["denominator"] == "adaptive_square")
                  & _at_rate(ratios, CLAIM_FAULT_RATE)]
    above = int((heur["ci_low"] > 1).sum())
    rows.append(Claim(
        claim_id="heuristic_significant", location="Section 6; Fig. 14; Fig. 15",
        statement="The improvement of Heuristic-Square over Adaptive-Square is significant (at 25% faults)",
        conditions=_conditions(table, f"{len(heur)} (N, m) points at 25% faulty nodes; 'significant' read as the "
                                      f"95% CI of the ratio above 1 ({_RATIO_CI})") + _GRID,
        paper_text="significant (qualitative)", measured_value=above if len(heur) else math.nan,
        measured_text=(f"95% CI above 1 at {above} of {len(heur)} points; ratios {heur.ratio.min():.2f}-"
                       f"{heur.ratio.max():.2f}" if len(heur) else "no point at 25% faults in this run"),
        rule=Rule("all_of", {"n": len(heur)}), evidence=_evidence("improvement_ratios.csv"),
        evidence_kind="exhaustive"))
    return rows


def _safe_text(safety: pd.DataFrame) -> str:
    """The locally-safe instances of ``safety`` (rows of the ``local_safety`` table) in words."""
    if not len(safety):
        return "no locally-safe instance in this run"
    return (f"maximal random locally-m-safe fault sets (nodes made faulty in random order unless that breaks local "
            f"m-safety), (N, m) in {_points_text(safety)}, {int(safety['instances'].sum())} instances, fault rates "
            f"{safety['fault_rate_min'].min():.2f}-{safety['fault_rate_max'].max():.2f}")


def _theorem1_claims(safety: pd.DataFrame, label: Mapping[str, str]) -> list[Claim]:
    """Theorem 1 (a locally-safe torus is connected) and its constructive proof (Chain)."""
    rows = []
    instances = int(safety["instances"].sum()) if len(safety) else 0
    safe_text = _safe_text(safety)
    connected = int(safety["connected"].sum()) if len(safety) else 0
    rows.append(Claim(
        claim_id="theorem1_connected", location="Theorem 1",
        statement="A locally-safe 2D torus (every m-square's non-faulty nodes connected, every boundary segment of "
                  "an m-square with a non-faulty node) is connected",
        conditions=_theorem_conditions(safety, safe_text),
        paper_text="every locally-safe torus (a theorem)",
        measured_value=connected if instances else math.nan,
        measured_text=(f"{connected} of {instances} instances connected (all {int(safety['locally_safe'].sum())} "
                       "re-checked locally safe)" if instances else "no instance in this run"),
        rule=Rule("all_of", {"n": instances}), evidence=_evidence("local_safety.csv")))
    rows += _locally_safe_routing_claims(safety, label)
    return rows


def _instances_routed(safety: pd.DataFrame, name: str) -> int:
    """The instances of ``safety`` on which ``name`` routed every sampled pair: all of a row's instances when it
    routed all of the row's pairs, else at most one instance less per failed pair (the fewest it can be)."""
    failed = safety["pairs"] - safety[f"{name}_successes"]
    return int((safety["instances"] - failed).clip(lower=0).sum())


def _locally_safe_routing_claims(safety: pd.DataFrame, label: Mapping[str, str]) -> list[Claim]:
    """Section 3: on a locally-m-safe torus Chain (Algorithm 1) and Adaptive-Square (Algorithm 2) with the same m
    route every pair.  The pairs of one instance share its fault set, so the independent units of the sample are
    the instances: the rule counts instances routed in full (the rate bound is on them), the text the pairs."""
    rows = []
    for cid, name, location, statement, scope in (
            ("chain_on_locally_safe", "chain", "Theorem 1; Section 3; Algorithm 1",
             "On a locally-m-safe torus Chain_Routing with the same m finds a fault-free path between any two "
             "non-faulty nodes (the constructive proof of Theorem 1)", safety),
            ("algorithm2_on_locally_safe", "adaptive_square", "Algorithm 2; Section 3",
             "On a locally-m-safe torus Adaptive_Square_Routing (Algorithm 2, m >= 3) with the same m finds a "
             "fault-free path between any two non-faulty nodes (Section 3's guarantee, stated for 'our routing "
             "algorithms')", safety[safety["m"] >= 3] if len(safety) else safety)):
        instances = int(scope["instances"].sum()) if len(scope) else 0
        pairs = int(scope["pairs"].sum()) if len(scope) else 0
        routed = int(scope[f"{name}_successes"].sum()) if len(scope) else 0
        per_instance = pairs // instances if instances else 0
        others = "; ".join(f"{label[other]} {int(scope[f'{other}_successes'].sum())} of {pairs}"
                           for other in PAPER_ALGORITHMS if other != name and (scope["m"] >= 3).all()) \
            if len(scope) else ""  # fmt: skip
        rows.append(Claim(
            claim_id=cid, location=location, statement=statement,
            conditions=_theorem_conditions(scope, f"{_safe_text(scope)}; "
                                                  f"{per_instance} random pairs of distinct non-faulty nodes per "
                                                  "instance; a case is an instance with every sampled pair routed "
                                                  "(the pairs of an instance share its fault set, so the instances "
                                                  "are the independent sample)"),
            paper_text="every pair", measured_value=_instances_routed(scope, name) if instances else math.nan,
            measured_text=(f"{label[name]} routed {routed} of {pairs} pairs, on {_instances_routed(scope, name)} of "
                           f"{instances} instances every pair" + (f"; {others}" if others else "")
                           if pairs else "no pair in this run"),
            rule=Rule("all_of", {"n": instances}), evidence=_evidence("local_safety.csv"),
            evidence_kind="statistical" if instances else ""))
    return rows


def _termination_claims(termination: pd.DataFrame, label: Mapping[str, str]) -> list[Claim]:
    """Theorems 2-4: each paper algorithm terminates in O(N) local routings."""
    rows = []
    for name in PAPER_ALGORITHMS:
        sub = termination[termination["algorithm"] == name] if len(termination) else termination
        trials = int(sub["trials"].sum()) if len(sub) else 0
        checked = int(sub["checked"].sum()) if len(sub) else 0
        if trials:
            growth = sub.groupby("N")["max_local_routings"].max()
            measured = (f"{checked} of {trials} trials end in a fault-free walk s -> t or a stated failure (valid "
                        f"{int(sub['valid_outputs'].sum())}, within the bound {int(sub['within_bound'].sum())}); most "
                        "local routings per N: " + ", ".join(f"N={n}: {v}" for n, v in growth.items()))
        else:
            measured = "no trial in this run"
        rates = ", ".join(f"{f:.2f}" for f in sorted(set(sub["fault_rate"]))) if len(sub) else "none"
        bound = {"chain": "ceil(d_0/(m-1)) + ceil((d_1+1)/(m-1))", "adaptive_square": "d(s, t)",
                 "heuristic_square": "2 (2 d(s, t) + 1)"}[name]
        rows.append(Claim(
            claim_id=f"termination_{name}", location="; ".join(
                [TERMINATION_THEOREM[name], *([PAPER_ALGORITHM[name]] if name in PAPER_ALGORITHM else []),
                 "Section 7"]),
            statement=f"{label[name]} terminates in O(N) local routings and outputs a fault-free path from s to t or "
                      "reports a failure",
            conditions=_theorem_conditions(sub, f"(N, m) in {_points_text(sub)} at fault rates {rates}" +
                                                (f", {int(sub['trials'].iloc[0])} trials per point drawn as in the "
                                                 "success table" if len(sub) else "") +
                                                f"; O(N) checked as local routings <= {bound} (linear in N) in "
                                                "every trial; the safety cap counts as no termination"),
            paper_text="every trial (a theorem)", measured_value=checked if trials else math.nan,
            measured_text=measured, rule=Rule("all_of", {"n": trials}), evidence=_evidence("termination.csv")))
    return rows


def _worst_step_claim(termination: pd.DataFrame, worst: pd.DataFrame) -> list[Claim]:
    """The worst case in the proof of Theorem 3."""
    rows = []
    sub = termination[termination["algorithm"] == "adaptive_square"] if len(termination) else termination
    steps = int(sub["exit_steps"].sum()) if len(sub) else 0
    good = steps - int(sub["steps_below_m_minus_2"].sum()) if len(sub) else 0
    built = worst[worst["first_step_progress"] >= worst["paper_worst_case"]] if len(worst) else worst
    n = steps + len(worst)
    rows.append(Claim(
        claim_id="theorem3_proof_worst_step", location="Theorem 3",
        statement="Proof of Theorem 3: every Adaptive-Square local routing that ends at an exit brings the message "
                  "at least m - 2 closer to t (worst case r' = (r_i + (m-1) dir_i, r_j - dir_j))",
        conditions=_theorem_conditions(sub, f"every exit step of the random trials of the Theorem 3 row, plus one "
                                            f"constructed step per (N, m) with N >= 2m ({_points_text(worst)}; "
                                            "s = (0, 0), t = (m, 0), the exit column faulty but its far row)"),
        paper_text="every step (the proof's worst case)", measured_value=good + len(built) if n else math.nan,
        measured_text=(f"{good} of {steps} random exit steps gain >= m - 2; constructed steps: " +
                       ", ".join(f"N={r.N}, m={r.m}: gain {r.first_step_progress} (m - 2 = {r.paper_worst_case})"
                                 for r in worst.itertuples()) +
                       "; every step still gains >= 1, so the O(N) bound of Theorem 3 stands" if n
                       else "no step in this run"),
        rule=Rule("all_of", {"n": n}), evidence=_evidence("termination.csv", "adaptive_worst_step.csv"),
        # the constructed steps are concrete instances, reproducible from the row (source, target, faults)
        evidence_kind="counterexample" if good + len(built) < n else ""))
    return rows

    return rows


def _chain_band_claim(band: pd.DataFrame) -> list[Claim]:
    """Section 3 on Algorithm 1: every node ``v`` of the first chain has ``d(v_1, t_1) <= d(s_1, t_1) + 1``."""
    pairs = int(band["pairs"].sum()) if len(band) else 0
    inside = int(band["condition_pairs"].sum()) if len(band) else 0
    worst = band.loc[band["largest_excess"].idxmax()] if len(band) else None
    return [Claim(
        claim_id="algorithm1_chain_band", location="Algorithm 1; Section 3",
        statement="Chain_Routing builds its first chain ch_0 so that every node v of it has d(v_1, t_1) <= "
                  "d(s_1, t_1) + 1",
        conditions=f"the band [b_1, B_1] = [s_1 - dir_1, s_1 + (m - 2) dir_1] of Algorithm 1's first leg as printed "
                   f"(docs/conventions.md#chain, #square-direction); every (s_1, t_1) of each (N, m) in "
                   f"{_points_text(band)} (no faults: a property of the construction); a case is a pair (s_1, t_1) "
                   "whose whole band satisfies the inequality",
        paper_text="every node of ch_0", measured_value=int(band["satisfied"].sum()) if pairs else math.nan,
        measured_text=(f"{int(band['satisfied'].sum())} of {pairs} pairs; {int(band['condition_satisfied'].sum())} "
                       f"of the {inside} pairs with 2 d(s_1, t_1) >= m - 3; nearer, the band's m - 2 rows "
                       f"ahead overshoot t_1, by up to {int(worst.largest_excess)} rows beyond the bound (N="
                       f"{int(worst.N)}, m={int(worst.m)}: {worst.example})" if pairs else "no (N, m) in this run"),
        rule=Rule("all_of", {"n": pairs, "condition": "2 d(s_1, t_1) >= m - 3 (t_1 not nearer s_1 than (m - 3) / 2 "
                                                      "rows)",
                             "conditional_k": int(band["condition_satisfied"].sum()) if pairs else 0,
                             "conditional_n": inside}),
        evidence=_evidence("chain_band.csv"), evidence_kind="exhaustive" if pairs else "")]


def _drawing_claims() -> list[Claim]:
    """The paper's drawings (Figs. 1-3)."""
    example = (figure_file("fault_tolerant", "faulty_torus_example.png"), "tests/test_square.py")
    return [
        not_testable_claim(
            "fig1_chain_drawing", "Fig. 1", "Fig. 1 draws the L-shaped chain of m-squares of the proof of Theorem 1",
            "a drawing; Chain_Routing uses the band of Algorithm 1, not the proof's symmetric chain "
            "(docs/conventions.md#chain); Theorem 1 itself is checked in the theorem1 rows",
            "drawing", "our drawing of the squares Chain evaluated: faulty_torus_example", _DRAWING, example),
        not_testable_claim(
            "fig2_3_square_drawings", "Fig. 2; Fig. 3",
            "Figs. 2-3 draw the boundary b, B of the square of Algorithms 1 and 2 (m = 5)",
            "drawings; our square geometry: docs/conventions.md#square-geometry",
            "drawing", "our drawing of the squares each algorithm evaluated: faulty_torus_example", _DRAWING, example)]


def _curve_claims(table: pd.DataFrame, label: Mapping[str, str]) -> list[Claim]:
    """The paper's figures without numbers (Figs. 4-7, 10-11)."""
    rows = []
    for cid, name, location, figure in (
            ("success_chain_curves", "chain", "Fig. 4; Fig. 5", "success_chain_figs_4_5.png"),
            ("success_adaptive_curves", "adaptive_square", "Fig. 6; Fig. 7", "success_adaptive_square_figs_6_7.png")):
        sub = table[table["algorithm"] == name]
        text = "; ".join(f"f = {f:.2f}: {g['success_rate'].min():.3f}-{g['success_rate'].max():.3f}"
                         for f, g in sub.groupby("fault_rate")) or "no point in this run"
        rows.append(not_testable_claim(
            cid, location, f"Success rate of {label[name]} against the fraction of faulty nodes, per (N, m)",
            _conditions(table, f"(N, m) in {_points_text(sub)}"), "curves only (no number in the text)",
            f"success over (N, m): {text}", _CURVES,
            (*_evidence("fault_tolerant.csv"), figure_file("fault_tolerant", figure))))
    sub = table[table["algorithm"] == "adaptive_square"]
    text = "; ".join(f"f = {f:.2f}: {g['path_plus_mean'].min():.3f}-{g['path_plus_mean'].max():.3f}"
                     for f, g in sub.groupby("fault_rate")) or "no point in this run"
    rows.append(not_testable_claim(
        "path_plus_curves", "Fig. 10; Fig. 11",
        "Path plus of Adaptive-Square (|P| / Lee distance of s, t, mean over successes) against the fraction of "
        "faulty nodes",
        _conditions(table, f"(N, m) in {_points_text(sub)}; |P| = hops of the concatenated walk "
                           "(docs/conventions.md#square-path-length)"),
        "curves only (no number in the text)", f"path plus over (N, m): {text}", _CURVES,
        (*_evidence("fault_tolerant.csv"), figure_file("fault_tolerant", "path_plus_adaptive_square_figs_10_11.png"))))
    return rows


def _improvement_trend_claims(table: pd.DataFrame, ratios: pd.DataFrame, label: Mapping[str, str]) -> list[Claim]:
    """The trend claims on the improvement ratios (Section 6)."""
    rows = []
    for cid, kind, numerator, denominator, text, location in (
            ("improvement_grows_small_m", "m", "adaptive_square", "chain",
             "The improvement of Adaptive-Square over Chain grows as m shrinks (at equal N and fault rate)",
             "Section 6; Fig. 8; Fig. 9"),
            ("improvement_grows_large_N", "N", "adaptive_square", "chain",
             "The improvement of Adaptive-Square over Chain grows as N increases (N vs 2N at equal m and fault rate)",
             "Section 6; Fig. 8; Fig. 9"),
            ("heuristic_worth_high_f", "f", "heuristic_square", "adaptive_square",
             "The improvement of Heuristic-Square over Adaptive-Square grows with the fraction of faulty nodes "
             "('worth adopting when the probability of faulty nodes is high')", "Section 6; Fig. 14; Fig. 15")):
        strict, ties, noise, judged, n = improvement_trend_counts(ratios, kind, numerator, denominator,
                                                                  with_unjudged=True)
        neighbour = {"m": "m vs m + 1", "N": "N vs 2N", "f": "neighbouring fault rates"}[kind]
        value, measured, rule = comparison_counts(strict, ties, noise, n, "overlapping paired 95% CIs", judged)
        rows.append(Claim(
            claim_id=cid, location=location, statement=text,
            conditions=_conditions(table, f"{n} comparisons of the paired ratio {label[numerator]} / "
                                          f"{label[denominator]} at {neighbour}, over every point of the run; a "
                                          "tie is not growth") + _GRID,
            paper_text="qualitative (every comparison)", measured_value=value, measured_text=measured, rule=rule,
            evidence=_evidence("improvement_ratios.csv"), evidence_kind="exhaustive"))
    return rows


def _cost_and_conclusion_claims(table: pd.DataFrame) -> list[Claim]:
    """The paper's cost statement and its conclusion (judgements without a number)."""
    return [
        not_testable_claim(
            "square_cost_m2", "Section 6", "A larger square costs time at a rate proportional to m^2",
            "a statement about the cost of one local routing (BFS over the m x m square)", "time proportional to m^2",
            "not measured (the kernels count local routings, local_routings_mean, not node visits)",
            "wall time on this shared machine is no benchmark, and the BFS touches at most m^2 nodes by "
            "construction; the number of local routings per trial is in the evidence",
            _evidence("fault_tolerant.csv")),
        not_testable_claim(
            "conclusion_quite_high", "Abstract; Section 7",
            "The success rates of the algorithms are quite high (abstract: 'impressive') for a 2D torus with only "
            "four links per node",
            _conditions(table, "every point of the run"), "quite high (no threshold)",
            "per algorithm at the summary fault rate: summary_by_algorithm.csv; the only threshold the paper states "
            "(>= 90%, Heuristic-Square, f <= 15%) is the heuristic_90pct row",
            "a judgement without a threshold or a reference; the numbers behind it are in the evidence",
            _evidence("summary_by_algorithm.csv"))]


def _at_rate(frame: pd.DataFrame, fault_rate: float) -> pd.Series:
    """The rows of ``frame`` at ``fault_rate`` (up to float rounding)."""
    return np.isclose(frame["fault_rate"].to_numpy()[:, None], np.asarray([fault_rate], dtype=float)[None, :]).any(1)



def _labels(algorithms: pd.DataFrame) -> dict[str, str]:
    """The display label of each algorithm (the ``algorithms`` table of the study)."""
    check_frame("algorithms", algorithms, ["algorithm", "label"])
    return dict(zip(algorithms["algorithm"], algorithms["label"], strict=True))


def _theorem_tables(tables: Mapping[str, pd.DataFrame]) -> tuple[pd.DataFrame, ...]:
    """The tables of the theorem and algorithm checks (``termination``, ``local_safety``, ``adaptive_worst_step``,
    ``chain_band``); an absent or empty one gives "not testable here" rows, one with rows must hold the columns the
    claims read."""
    needs = {"termination": ["N", "m", "fault_rate", "algorithm", "trials", "valid_outputs", "within_bound", "checked",
                             "max_local_routings", "exit_steps", "steps_below_m_minus_2"],
             "local_safety": ["N", "m", "instances", "locally_safe", "connected", "fault_rate_min", "fault_rate_max",
                              "pairs", *(f"{name}_successes" for name in PAPER_ALGORITHMS)],
             "adaptive_worst_step": ["N", "m", "first_step_progress", "paper_worst_case"],
             "chain_band": ["N", "m", "pairs", "satisfied", "condition_pairs", "condition_satisfied", "largest_excess",
                            "example"]}  # fmt: skip
    frames = []
    for name, columns in needs.items():
        frame = tables.get(name)
        frame = pd.DataFrame() if frame is None else check_frame(name, frame)
        frames.append(check_frame(name, frame, columns if len(frame) else []))
    return tuple(frames)


def claims(tables: Mapping[str, pd.DataFrame], params: Mapping[str, Any]) -> pd.DataFrame:
    """The claims table of the paper from the study's tables (keys of :func:`torus_lab.studies.fault_tolerant.run`).

    ``fault_tolerant`` (the success table), ``improvement_ratios`` and ``algorithms`` (the labels) are required;
    the theorem checks ``termination``, ``local_safety``, ``adaptive_worst_step`` and ``chain_band`` may be absent
    (those rows are then "not testable here").  Every item of :data:`PAPER_RESULTS` has a row.  Verdicts come from
    :func:`torus_lab.claims.evaluate`: the "about X" ratios with a tolerance on the improvement X - 1
    (``RATIO_TOLERANCE``, ``RATIO_APPROX``) or X inside the 95% CI; trends counted strictly (``trend_counts``).
    A claim whose points are not in the run is "not testable here".

    Parameters
    ----------
    tables : Mapping[str, pandas.DataFrame]
        The study's result tables as ``run`` assembled them.
    params : Mapping[str, Any]
        The experiment's parameters (the claims read none of them: the tables carry trials and seeds).

    Returns
    -------
    pandas.DataFrame
        One row per claim, columns :data:`torus_lab.claims.CLAIM_COLUMNS`.

    Examples
    --------
    >>> from torus_lab.studies.fault_tolerant import run_points
    >>> table, ratios = run_points([(16, 3), (16, 4)], [0.25], trials=100, seed=1, backend="serial")
    >>> labels = pd.DataFrame({"algorithm": [*ALGORITHMS, "oracle"], "label": [*ALGORITHMS, "oracle"]})
    >>> table = claims({"fault_tolerant": table, "improvement_ratios": ratios, "algorithms": labels}, {})
    >>> table.set_index("claim_id").loc["sq_vs_chain_32_3", "verdict"]
    'not testable here'
    """
    check_mapping("tables", tables, ["fault_tolerant", "improvement_ratios", "algorithms"])
    check_mapping("params", params)
    table = check_frame("fault_tolerant", tables["fault_tolerant"],
                        ["algorithm", "fault_rate", "N", "m", "success_rate", "path_plus_mean"])
    ratios = check_frame("improvement_ratios", tables["improvement_ratios"],
                         ["numerator", "denominator", "N", "m", "fault_rate", "ratio", "ci_low", "ci_high"])
    label = _labels(tables["algorithms"])
    termination, safety, worst, band = _theorem_tables(tables)
    rows = (_heuristic_90pct_claim(table) + _paper_ratio_claims(table, ratios, label)
            + _not_much_better_claim(table, ratios) + _better_most_claim(table, ratios)
            + _success_trend_claims(table, label) + _heuristic_significant_claim(table, ratios)
            + _theorem1_claims(safety, label) + _termination_claims(termination, label)
            + _worst_step_claim(termination, worst) + _chain_band_claim(band)
            + _drawing_claims() + _curve_claims(table, label) + _improvement_trend_claims(table, ratios, label)
            + _cost_and_conclusion_claims(table))
    return claims_table("fault_tolerant", rows)
