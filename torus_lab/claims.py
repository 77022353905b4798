"""Claims tables: what a paper states, under which conditions we measured it, and a verdict computed from a rule.

Every study ends with a claims table (``data/<experiment>/claims.csv``, one row per :class:`Claim`, columns
:data:`CLAIM_COLUMNS` in this order); ``torus-lab report`` concatenates them into ``data/claims.csv``.  The
verdict is never typed by hand: each claim carries its verdict rule as data (a :class:`Rule`: one of
:data:`RULE_KINDS` with its parameters), and :func:`evaluate` turns the rule, the paper's value, the measured
value, its confidence interval and the kind of evidence (:data:`EVIDENCE_KINDS`: exhaustive, counterexample,
statistical, by definition, not testable) into one of :data:`VERDICTS`, "inconclusive" and "true by definition"
included (``docs/conventions.md#claims-evidence``, ``docs/conventions.md#claims-tolerance``).  A claim that cannot
be judged from numbers uses the ``manual`` rule, which states its verdict and the reason.  :func:`referee_summary`
and :func:`claims_changes` summarise a table and compare it with the committed one
(``docs/conventions.md#claims-summary``).

Every row quotes the sentence of the paper it tests (column ``quote``, ``docs/conventions.md#claims-quote``): the
quotes are data, kept in one file of the package, ``torus_lab/paper_quotes.csv`` (columns :data:`QUOTE_COLUMNS`),
and :func:`claims_table` attaches each row's quote by its ``(paper, claim_id)`` (:func:`paper_quote`), so a claims
module never types one.

Evidence paths are relative to the output root (the project folder for the committed tables):
``data/<experiment>/<file>.csv``, ``figures/<experiment>/<file>.png`` or ``tests/<file>.py``, the same in the
per-paper tables and in ``data/claims.csv`` (see :func:`data_file`).

Examples
--------
>>> rule = Rule("ratio_excess_within", {"tolerance": 0.1})
>>> evaluate(rule, paper_value=1.3, measured_value=1.238, ci=(1.186, 1.25))
'does not hold'
>>> evaluate(rule, paper_value=1.3, measured_value=1.238, ci=(1.186, 1.292))   # the CI reaches 1.27..1.33
'inconclusive'
>>> table = claims_table("fault_tolerant", [Claim(
...     claim_id="ratio", location="Section 5", statement="A / B is about 1.3", conditions="N=128, m=6",
...     paper_value=1.3, paper_text="about 1.3", measured_value=1.29, measured_text="1.29 [1.25, 1.33]",
...     ci_low=1.25, ci_high=1.33, ci_method="bootstrap 95%", rule=rule,
...     evidence=(data_file("fault_tolerant", "improvement_ratios.csv"),))])
>>> table.loc[0, "verdict"], table.loc[0, "evidence"], table.loc[0, "notebook"]
('holds', 'data/fault_tolerant/improvement_ratios.csv', 'notebooks/fault_tolerant.ipynb')
"""

from __future__ import annotations

import ast
import csv
import dataclasses
import fnmatch
import functools
import importlib.resources
import io
import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import Any

import pandas as pd

from torus_lab._validate import (
    check_frame,
    check_instance,
    check_int,
    check_real,
    check_sequence,
    check_str,
    is_int,
)
from torus_lab.precision import round_significant, to_science_csv

__all__ = [
    "CLAIM_COLUMNS",
    "VERDICTS",
    "RULE_KINDS",
    "Rule",
    "Claim",
    "evaluate",
    "data_file",
    "figure_file",
    "claims_table",
    "check_claims_table",
    "evidence_items",
    "write_claims",
    "location_items",
    "uncovered_results",
    "comparison_counts",
    "not_testable_claim",
    "EVIDENCE_KINDS",
    "REPRODUCED_VERDICTS",
    "VERDICT_PLURALS",
    "DEFAULT_MAX_RATE",
    "rate_upper_bound",
    "minimal_detectable_effect",
    "derive_evidence_kind",
    "evidence_sentence",
    "conditions_text",
    "conditions_in_words",
    "upgrade_claims_table",
    "verdict_counts",
    "PaperSummary",
    "referee_summary",
    "claims_changes",
    "LEGACY_CLAIM_COLUMNS",
    "FINDING_VERDICTS",
    "CHANGE_COLUMNS",
    "changes_text",
    "paper_value_claim",
    "QUOTE_COLUMNS",
    "paper_quote",
    "paper_quotes",
    "MIN_JUDGED",
    "MIN_JUDGED_SHARE",
    "MIN_FIT_POINTS",
    "enough_judged",
]

#: The verdict vocabulary, from best to worst, then the two verdicts that are no finding of ours
#: (``docs/conventions.md#claims``).
#:
#: * ``holds``: the measurement agrees with the claim as stated, within the rule's tolerance, on an exhaustive
#:   check or on a statistical result of the stated power;
#: * ``holds approximately``: it agrees within a wider, stated tolerance (the paper's number is off, not its
#:   direction), or the paper's set/count over-approximates what we measure;
#: * ``holds under conditions``: it holds only inside a stated part of the claim's scope (e.g. atomic buffer
#:   allocation, k <= 4) and fails outside it;
#: * ``inconclusive``: the data cannot decide at the stated power (a statistical miss whose confidence interval
#:   still reaches the accepted region, "none observed" in too few runs, a "no difference" the test could not
#:   have detected);
#: * ``does not hold``: the measurement contradicts the claim (a counterexample, or a confidence interval
#:   entirely outside the accepted region);
#: * ``true by definition``: the claim is true by definition or by construction of our code; never counted as
#:   reproduced;
#: * ``not testable here``: nothing was measured for it (the run lacks the points, or it cannot be measured).
VERDICTS = ("holds", "holds approximately", "holds under conditions", "inconclusive", "does not hold",
            "true by definition", "not testable here")  # fmt: skip
#: The verdicts that count as "reproduced" in a summary (never ``true by definition``).
REPRODUCED_VERDICTS = ("holds", "holds approximately", "holds under conditions")
#: Each verdict as the plural of a count ("3 hold"), for summaries such as ``'3 hold, 1 inconclusive'``.
VERDICT_PLURALS: Mapping[str, str] = MappingProxyType({
    "holds": "hold", "holds approximately": "hold approximately", "holds under conditions": "hold under conditions",
    "inconclusive": "inconclusive", "does not hold": "do not hold", "true by definition": "true by definition",
    "not testable here": "not testable here",
})  # fmt: skip
#: The kinds of evidence a row rests on (column ``evidence_kind``, ``docs/conventions.md#claims-evidence``):
#:
#: * ``exhaustive``: every case of a stated finite family was checked;
#: * ``counterexample``: a concrete instance, reproducible from the row, contradicts the claim;
#: * ``statistical``: a sample (``n``, an estimate, a confidence interval, or "x of n" with the upper
#:   confidence bound on the rate);
#: * ``by definition``: true by definition or by construction (verdict ``true by definition``);
#: * ``not testable``: nothing decides it here (the reason is the rule's).
EVIDENCE_KINDS = ("exhaustive", "counterexample", "statistical", "by definition", "not testable")
#: The largest rate of a "never happens" claim (``all_of`` on statistical evidence) that its sample must exclude at
#: 95% for "holds" when the rule states no ``max_rate``: the rule of three needs n >= 299 runs without an event.
DEFAULT_MAX_RATE = 0.01
#: The fewest cases a count over cells (``all_of`` with ``judged``: comparisons, cells, fits) must have judged for
#: any verdict but "inconclusive" (``docs/conventions.md#claims-judged``): a trend or a "holds under conditions" read
#: off a handful of cells says nothing about the claim's scope.
MIN_JUDGED = 5
#: The smallest share of its ``n`` cases that such a count must have judged (``docs/conventions.md#claims-judged``):
#: a verdict read off a quarter of the scope or less is a verdict on a corner of it.
MIN_JUDGED_SHARE = 0.25
#: The fewest points (radices, sizes) a fitted exponent or constant may rest on for a verdict
#: (``docs/conventions.md#claims-judged``): through two points any two-parameter law passes exactly, so a two-point
#: "fit" is a slope that nothing could contradict; a row that rests on fewer is "inconclusive", never a
#: counterexample.
MIN_FIT_POINTS = 3
#: Columns of every claims table, in this order (the fields of :class:`Claim`).
CLAIM_COLUMNS = [
    "paper", "claim_id", "location", "quote", "statement", "conditions", "paper_value", "paper_text", "measured_value",
    "measured_text", "ci_low", "ci_high", "ci_method", "rule", "rule_params", "rule_text", "verdict",
    "evidence_kind", "n", "evidence_text", "evidence", "notebook",
]  # fmt: skip
#: The columns every claims table has, those of tables written before evidence kinds and quotes (read back by
#: :func:`check_claims_table` and :func:`upgrade_claims_table`).
LEGACY_CLAIM_COLUMNS = [c for c in CLAIM_COLUMNS if c not in ("evidence_kind", "n", "evidence_text", "quote")]
_NUMERIC_COLUMNS = ("paper_value", "measured_value", "ci_low", "ci_high")

#: Parameters of each rule kind: (required, optional).  See :func:`evaluate` for their meaning.
RULE_KINDS: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = MappingProxyType({
    "inside_ci": ((), ("approx", "fit_points")),
    "ratio_excess_within": (("tolerance",), ("approx", "fit_points")),
    "at_most": ((), ("bound", "approx_bound", "fit_points")),
    "at_least": ((), ("bound", "approx_bound", "exists", "fit_points")),
    "exact": ((), ("tolerance", "fit_points")),
    "all_of": (("n",), ("within_noise_k", "approx_share", "condition", "conditional_k", "conditional_n",
                        "max_rate", "judged", "min_judged", "min_judged_share")),
    "all_cells": (("n",), ("condition", "conditional_k", "conditional_n")),
    "fit_exponent_within": (("tolerance",), ("approx", "fit_points")),
    "subset": (("paper_set", "measured_set"), ()),
    "no_difference": (("effect",), ("alpha", "power")),
    "manual": (("verdict", "reason"), ()),
})  # fmt: skip
_NUMBER_PARAMS = ("approx", "tolerance", "bound", "approx_bound", "approx_share", "max_rate", "effect", "alpha",
                  "power", "min_judged_share")  # fmt: skip
_COUNT_PARAMS = ("n", "within_noise_k", "conditional_k", "conditional_n", "judged", "min_judged", "fit_points")


def _number(name: str, value: object) -> float:
    """A finite number parameter (>= 0 for tolerances and shares)."""
    minimum = None if name in ("bound", "approx_bound") else 0.0
    if name in ("alpha", "power", "confidence"):
        number = check_real(name, value, minimum=0.0, maximum=1.0, open_maximum=True)
        if number == 0:
            raise ValueError(f"{name} must lie in (0, 1), got {value!r}")
        return number
    return check_real(name, value, minimum=minimum,
                      maximum=1.0 if name in ("approx_share", "max_rate", "min_judged_share") else None)


@dataclass(frozen=True)
class Rule:
    """A verdict rule as data: a kind of :data:`RULE_KINDS` and its parameters (JSON-serialisable).

    Parameters
    ----------
    kind : str
        ``inside_ci`` (the paper's value inside the measured CI; ``approx``: relative distance to the paper's value
        for "holds approximately"), ``ratio_excess_within`` (a ratio's excess over 1 within ``tolerance`` of the
        paper's excess, relative; ``approx``: wider tolerance for "holds approximately" with the same sign; the CI
        only tells "inconclusive" from "does not hold", ``docs/conventions.md#claims-tolerance``), ``at_most`` /
        ``at_least`` (a bound: ``bound``, default the paper's value; ``approx_bound``: a looser bound for "holds
        approximately"; ``exists`` (a bool, ``at_least`` only): the claim says some cases exist and the measured value
        counts those found), ``exact`` (equal within ``tolerance``, default 0), ``all_of`` (the measured value is a
        count k of ``n`` cases: all strictly; ``conditional_k`` of ``conditional_n`` cases inside ``condition`` all
        true gives "holds under conditions"; ``within_noise_k`` (the cases that satisfy it or miss it only within
        noise, e.g. overlapping 95% CIs) equal to ``n``, or a share of at least ``approx_share``, gives "holds
        approximately"; on statistical evidence the cases that all hold must also bound the rate of a miss by
        ``max_rate``, default :data:`DEFAULT_MAX_RATE`, at 95%), ``fit_exponent_within`` (a fitted exponent within
        ``tolerance`` of the paper's, absolute), ``no_difference`` (the measured value is a difference with its CI;
        the claim "no difference" is about differences of at least ``effect``; ``alpha`` (default 0.05) and ``power``
        (default 0.8) give the smallest difference the comparison could detect, :func:`minimal_detectable_effect`),
        ``subset`` (the measured set equal to the paper's set: holds; a strict subset: holds approximately),
        ``all_cells`` (the measured value is a count k of ``n`` named cells, each passing or failing its own
        statistical test, e.g. a simultaneous confidence interval over the ``n`` cells: the cells are the claim's
        whole scope, not a sample of cases, so no miss rate is bounded on statistical evidence; all ``n``: holds,
        ``conditional_k`` of ``conditional_n`` cells inside ``condition`` all passing: holds under conditions, else
        does not hold), ``manual`` (``verdict`` and the ``reason`` it cannot be computed from numbers).
        Counts over cells (``all_of``) take ``judged``: how many of the ``n`` cases delivered a judgement (a cell that
        delivered, a comparison of two measured values, a fit over enough points); fewer than ``min_judged`` (default
        :data:`MIN_JUDGED`) or than a share ``min_judged_share`` (default :data:`MIN_JUDGED_SHARE`) of ``n`` gives
        "inconclusive" whatever the count (:func:`enough_judged`).  Rules on a fitted value take ``fit_points``: the
        points the fit rests on; fewer than :data:`MIN_FIT_POINTS` gives "inconclusive"
        (``docs/conventions.md#claims-judged``).
    params : Mapping
        The parameters listed in :data:`RULE_KINDS` for ``kind``.

    Examples
    --------
    >>> Rule("all_of", {"n": 120, "approx_share": 0.95}).sentence()
    'all 120 cases must satisfy the claim strictly; at least 95% of them: holds approximately'
    >>> Rule("at_most", {"bound": 2}).to_json()
    '{"bound": 2}'
    """

    kind: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_str("kind", self.kind, tuple(RULE_KINDS))
        params = dict(check_instance("params", self.params, Mapping, "a mapping"))
        required, optional = RULE_KINDS[self.kind]
        missing = [p for p in required if p not in params]
        unknown = sorted(set(params) - set(required) - set(optional))
        if missing or unknown:
            raise ValueError(f"params of rule {self.kind!r} must have {list(required)} (optional {list(optional)}),"
                             f" got missing {missing}, unknown {unknown}")  # fmt: skip
        for name, value in params.items():
            if name in _NUMBER_PARAMS:
                _number(name, value)
            elif name in _COUNT_PARAMS:
                if not is_int(value) or value < 0:
                    raise ValueError(f"{name} of rule {self.kind!r} must be an int >= 0, got {value!r}")
            elif name in ("paper_set", "measured_set"):
                check_sequence(name, value)
            elif name == "verdict":
                check_str("verdict", value, VERDICTS)
            elif name == "exists":
                check_instance("exists", value, bool, "a bool")
            else:
                check_str(name, value)
        if "judged" in params and params["judged"] > params["n"]:
            raise ValueError(f"judged of rule {self.kind!r} must not exceed n ({params['n']}), "
                             f"got {params['judged']!r}")
        if ("min_judged" in params or "min_judged_share" in params) and "judged" not in params:
            raise ValueError(f"rule {self.kind!r}: min_judged and min_judged_share need judged, got {sorted(params)}")
        if ("conditional_k" in params) != ("conditional_n" in params) or (
                "conditional_k" in params and "condition" not in params):
            raise ValueError(f"rule {self.kind!r}: conditional_k, conditional_n and condition go together, got "
                             f"{sorted(params)}")  # fmt: skip
        object.__setattr__(self, "params", MappingProxyType(params))

    def to_json(self) -> str:
        """The parameters as one JSON object (keys in the given order)."""
        return json.dumps(_plain(dict(self.params)))

    @classmethod
    def from_columns(cls, kind: str, params_json: str) -> Rule:
        """The rule of a claims table row (columns ``rule`` and ``rule_params``)."""
        check_str("params_json", params_json)
        try:
            params = json.loads(params_json) if params_json else {}
        except json.JSONDecodeError as error:
            raise ValueError(f"rule_params must be a JSON object, got {params_json!r:.200} ({error})") from None
        return cls(kind, check_instance("rule_params", params, dict, "a JSON object"))

    def sentence(self) -> str:
        """The rule in words (the ``rule_text`` column)."""
        text = self._kind_sentence()
        if "fit_points" in self.params:
            text += f"; a fit over fewer than {MIN_FIT_POINTS} points: inconclusive"
        return text

    def _kind_sentence(self) -> str:
        """The rule of its kind in words."""
        p = self.params
        approx = f"; within {p['approx']:.0%}: holds approximately" if "approx" in p else ""
        if self.kind == "inside_ci":
            return f"the paper's value lies inside the measured confidence interval{approx}"
        if self.kind == "ratio_excess_within":
            approx = f"; within {p['approx']:.0%} with the same sign: holds approximately" if "approx" in p else ""
            return (f"|measured - paper| within {p['tolerance']:.0%} of |paper - 1| (the tolerance is on the paper's "
                    f"excess over 1){approx}")
        if self.kind in ("at_most", "at_least"):
            bound = f"{p['bound']:g}" if "bound" in p else "the paper's value"
            sign = "<=" if self.kind == "at_most" else ">="
            looser = f"; {sign} {p['approx_bound']:g}: holds approximately" if "approx_bound" in p else ""
            exists = "; an existence claim: too few found in a sample is inconclusive" if p.get("exists") else ""
            return f"measured {sign} {bound}{looser}{exists}"
        if self.kind == "exact":
            return "measured equals the paper's value" + (f" within {p['tolerance']:g}" if p.get("tolerance") else "")
        if self.kind == "all_of":
            text = f"all {p['n']} cases must satisfy the claim strictly"
            if "condition" in p:
                text += f"; all {p['conditional_n']} cases with {p['condition']}: holds under conditions"
            if "within_noise_k" in p:
                text += "; every case true or missed only within noise: holds approximately"
            if "approx_share" in p:
                text += f"; at least {p['approx_share']:.0%} of them: holds approximately"
            if "max_rate" in p:
                text += f"; on a sample, the 95% upper bound on the rate of a miss must be <= {p['max_rate']:g}"
            if "judged" in p:
                minimum, share = _judged_minimum(p)
                text += (f"; any verdict needs at least {minimum} judged cases and {share:.0%} of them judged, "
                         "else inconclusive")
            return text
        if self.kind == "all_cells":
            text = f"all {p['n']} cells must pass their own test (the cells are the claim's scope, not a sample)"
            if "condition" in p:
                text += f"; all {p['conditional_n']} cells with {p['condition']}: holds under conditions"
            return text
        if self.kind == "no_difference":
            return (f"no difference of {p['effect']:g} or more: the {1 - p.get('alpha', 0.05):.0%} confidence interval "
                    f"of the difference inside +-{p['effect']:g} and the smallest difference detectable at power "
                    f"{p.get('power', 0.8):g} at most {p['effect']:g}")
        if self.kind == "fit_exponent_within":
            return f"fitted exponent within {p['tolerance']:g} of the paper's" + (
                f"; within {p['approx']:g}: holds approximately" if "approx" in p else "")
        if self.kind == "subset":
            return ("the measured set equals the paper's set; a strict subset of it (the paper over-approximates): "
                    "holds approximately")
        return f"judged by hand: {p['reason']}"


def _judged_minimum(params: Mapping[str, Any]) -> tuple[int, float]:
    """The fewest judged cases and the smallest judged share an ``all_of`` rule's ``params`` need."""
    return params.get("min_judged", MIN_JUDGED), params.get("min_judged_share", MIN_JUDGED_SHARE)


def enough_judged(judged: int, n: int, minimum: int = MIN_JUDGED, share: float = MIN_JUDGED_SHARE) -> bool:
    """Whether ``judged`` of ``n`` cases (cells, comparisons, fits) that delivered a judgement are enough for a
    verdict: at least ``minimum`` of them and at least a ``share`` of ``n`` (``docs/conventions.md#claims-judged``).

    Parameters
    ----------
    judged, n : int
        The cases judged and the cases of the claim's scope (``0 <= judged <= n``).
    minimum : int
        The fewest judged cases (default :data:`MIN_JUDGED`).
    share : float
        The smallest judged share of ``n``, in [0, 1] (default :data:`MIN_JUDGED_SHARE`).

    Examples
    --------
    >>> enough_judged(1, 18), enough_judged(5, 53), enough_judged(18, 35)
    (False, False, True)
    """
    n = check_int("n", n, minimum=0)
    judged = check_int("judged", judged, minimum=0)
    if judged > n:
        raise ValueError(f"judged ({judged}) must not exceed n ({n})")
    minimum = check_int("minimum", minimum, minimum=0)
    share = check_real("share", share, minimum=0.0, maximum=1.0)
    return judged >= minimum and judged >= share * n


def _plain(value: Any) -> Any:
    """``value`` with numpy scalars and tuples/sets turned into JSON types (sets sorted)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return [_plain(v) for v in sorted(value)]
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        return value.item()
    return value


def _optional(name: str, value: object) -> float:
    """A numeric column: None or NaN (nothing measured / no number in the paper) as NaN, else a float."""
    if value is None:
        return math.nan
    return check_real(name, value, finite=False)


def rate_upper_bound(events: int, n: int, confidence: float = 0.95) -> float:
    """The one-sided upper confidence bound on a rate after ``events`` events in ``n`` independent trials
    (Clopper-Pearson: the ``confidence`` quantile of Beta(events + 1, n - events); 1 when events = n).

    For 0 of n this is ``1 - (1 - confidence)**(1/n)``, about 3/n at 95% (the rule of three); it is what a
    "no X observed in n runs" shows: the rate of X is below the bound at that confidence, never zero.

    Parameters
    ----------
    events, n : int
        The events seen (0 <= events <= n) and the trials (n >= 1).
    confidence : float
        The one-sided confidence level, in (0, 1).

    Examples
    --------
    >>> round(rate_upper_bound(0, 120), 4), round(3 / 120, 4)
    (0.0247, 0.025)
    >>> rate_upper_bound(5, 5)
    1.0
    """
    n = check_int("n", n, minimum=1)
    events = check_int("events", events, minimum=0, maximum=n)
    confidence = _number("confidence", confidence)
    if events == n:
        return 1.0
    if events == 0:     # the closed form: checking a table's "none observed" rows needs no scipy.stats
        return 1.0 - (1.0 - confidence) ** (1.0 / n)
    from scipy import stats  # imported on use: reading claims tables (the report) stays free of scipy.stats

    return float(stats.beta.ppf(confidence, events + 1, n - events))


def minimal_detectable_effect(half_width: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest true difference a two-sample comparison detects with probability ``power`` at level
    ``alpha`` (two-sided), from the half-width of its ``1 - alpha`` confidence interval.

    With the standard error ``se = half_width / z(1 - alpha/2)`` the minimal detectable effect is
    ``(z(1 - alpha/2) + z(power)) * se`` (normal approximation; about 1.43 half-widths at 5% and 80%).

    Parameters
    ----------
    half_width : float
        Half the width of the difference's confidence interval (>= 0).
    alpha, power : float
        The test's level and power, in (0, 1).

    Examples
    --------
    >>> round(minimal_detectable_effect(1.96), 3)
    2.802
    """
    half_width = check_real("half_width", half_width, minimum=0.0)
    alpha, power = _number("alpha", alpha), _number("power", power)
    from scipy import stats  # imported on use, as in rate_upper_bound

    z_alpha = float(stats.norm.ppf(1 - alpha / 2))
    return half_width / z_alpha * (z_alpha + float(stats.norm.ppf(power)))


def evaluate(rule: Rule, paper_value: float | None = None, measured_value: float | None = None,
             ci: tuple[float, float] | None = None, evidence_kind: str | None = None) -> str:  # fmt: skip
    """The verdict of a claim (one of :data:`VERDICTS`) from its rule, values, confidence interval and the kind of
    its evidence (``docs/conventions.md#claims-evidence``).

    A rule that needs a measured value (every kind but ``manual``) gives "not testable here" when it is
    missing (None or NaN); ``inside_ci`` and ``no_difference`` also need the CI, ``ratio_excess_within``,
    ``exact`` and ``fit_exponent_within`` also the paper's value.  Boundaries are inclusive (``at_most`` holds at
    the bound).  Evidence ``by definition`` gives "true by definition" and ``not testable`` "not testable here"
    whatever the numbers.  On ``statistical`` evidence "holds" needs the stated power, and a miss is "does not
    hold" only when the CI lies entirely outside the accepted region, else "inconclusive"; a miss without a CI is
    an observed instance (a sampled case beyond the bound) and does not hold, except for an existence claim
    (``at_least`` with ``exists``: finding too few cases in a sample is absence of evidence, "inconclusive").  The
    tolerance rule is ``docs/conventions.md#claims-tolerance``.  A count over cells with too few of them judged
    (``judged``, :func:`enough_judged`) and a value fitted through fewer than :data:`MIN_FIT_POINTS` points
    (``fit_points``) are "inconclusive" (``docs/conventions.md#claims-judged``).

    Parameters
    ----------
    rule : Rule
        The verdict rule.
    paper_value, measured_value : float, optional
        The paper's number and ours (for ``all_of``: the count of cases that satisfy the claim).
    ci : (float, float), optional
        The measured confidence interval (low, high).
    evidence_kind : str, optional
        One of :data:`EVIDENCE_KINDS`; default ``statistical`` with a CI, else ``exhaustive``.

    Examples
    --------
    >>> evaluate(Rule("inside_ci"), 1.2, 1.23, (1.20, 1.27)), evaluate(Rule("inside_ci"), 1.2, 1.23, (1.21, 1.27))
    ('holds', 'does not hold')
    >>> evaluate(Rule("all_of", {"n": 120, "approx_share": 0.95}), None, 118)
    'holds approximately'
    >>> evaluate(Rule("all_of", {"n": 120}), None, 120, evidence_kind="statistical")   # 3/120 > 1%
    'inconclusive'
    >>> evaluate(Rule("at_most", {"bound": 0.1}), None, float("nan"))
    'not testable here'
    >>> cells = Rule("all_cells", {"n": 4, "condition": "policy a", "conditional_k": 2, "conditional_n": 2})
    >>> evaluate(cells, None, 3, evidence_kind="statistical")     # no miss rate over 4 named cells
    'holds under conditions'
    >>> evaluate(Rule("all_of", {"n": 18, "condition": "delivered", "conditional_k": 1, "conditional_n": 1,
    ...                          "judged": 1}), None, 1)                                   # 1 of 18 cells judged
    'inconclusive'
    >>> evaluate(Rule("fit_exponent_within", {"tolerance": 0.1, "fit_points": 2}), 1.0, 1.5)   # two radices
    'inconclusive'
    """
    check_instance("rule", rule, Rule)
    paper = _optional("paper_value", paper_value)
    measured = _optional("measured_value", measured_value)
    low, high = _ci_bounds(ci)
    has_ci = not (math.isnan(low) or math.isnan(high))
    if evidence_kind is None:
        evidence_kind = "statistical" if has_ci else "exhaustive"
    check_str("evidence_kind", evidence_kind, EVIDENCE_KINDS)
    p, kind = rule.params, rule.kind
    if evidence_kind == "by definition":
        return "true by definition"
    if evidence_kind == "not testable":
        return "not testable here"
    if kind == "manual":
        return p["verdict"]
    if math.isnan(measured):
        return "not testable here"
    if p.get("fit_points", MIN_FIT_POINTS) < MIN_FIT_POINTS:
        return "inconclusive"              # a fit through too few points: nothing could contradict it
    sampled = evidence_kind == "statistical"
    if kind in ("at_most", "at_least"):
        bound = float(p["bound"]) if "bound" in p else paper
        if math.isnan(bound):
            raise ValueError(f"rule {kind!r} needs a bound parameter or a paper value")

        def within(limit: float) -> bool:
            return measured <= limit if kind == "at_most" else measured >= limit

        if within(bound):
            return "holds"
        if "approx_bound" in p and within(float(p["approx_bound"])):
            return "holds approximately"
        if sampled and p.get("exists", False):
            return "inconclusive"          # too few cases found in a sample: absence of evidence
        reaches = low <= bound if kind == "at_most" else high >= bound
        return "inconclusive" if sampled and has_ci and reaches else "does not hold"
    if kind == "all_of":
        return _all_of(p, measured, sampled)
    if kind == "all_cells":     # the cells are the whole scope: each cell's own test carries the sampling noise
        return _all_of(p, measured)
    if kind == "subset":
        paper_set, measured_set = set(map(str, p["paper_set"])), set(map(str, p["measured_set"]))
        if measured_set == paper_set:
            return "holds"
        return "holds approximately" if measured_set < paper_set else "does not hold"
    if kind == "no_difference":
        return _no_difference(p, measured, low, high) if has_ci else "not testable here"
    if math.isnan(paper):
        return "not testable here"
    if kind == "inside_ci":
        if not has_ci:
            return "not testable here"
        if low <= paper <= high:
            return "holds"
        return "holds approximately" if "approx" in p and abs(measured - paper) <= p["approx"] * abs(paper) \
            else "does not hold"
    if kind == "exact":
        tolerance = p.get("tolerance", 0.0)
        if abs(measured - paper) <= tolerance:
            return "holds"
        reaches = has_ci and low - tolerance <= paper <= high + tolerance
        return "inconclusive" if sampled and reaches else "does not hold"
    # ratio_excess_within and fit_exponent_within: the tolerance rule of docs/conventions.md#claims-tolerance
    ratio = kind == "ratio_excess_within"
    scale = abs(paper - 1.0) if ratio else 1.0
    tolerance = p["tolerance"] * scale
    distance = abs((measured - 1.0) - (paper - 1.0)) if ratio else abs(measured - paper)   # on the excess
    if distance <= tolerance:
        return "holds"
    same_sign = not ratio or (measured - 1.0) * (paper - 1.0) > 0
    if "approx" in p and same_sign and distance <= p["approx"] * scale:
        return "holds approximately"
    reaches = has_ci and low - tolerance <= paper <= high + tolerance
    return "inconclusive" if sampled and reaches else "does not hold"


def _ci_bounds(ci: object) -> tuple[float, float]:
    """``(low, high)`` of a CI argument of :func:`evaluate` (NaN for a missing CI or bound), checked."""
    if ci is None:
        return math.nan, math.nan
    pair = check_sequence("ci", ci)
    if len(pair) != 2:
        raise ValueError(f"ci must be a pair (low, high), got {ci!r}")
    low, high = _optional("ci[0]", pair[0]), _optional("ci[1]", pair[1])
    if low > high:
        raise ValueError(f"ci must have low <= high, got {ci!r}")
    return low, high


def _no_difference(params: Mapping[str, Any], difference: float, low: float, high: float) -> str:
    """``no_difference``: holds when the CI lies inside +-``effect`` and the comparison could detect ``effect``;
    does not hold when the CI excludes 0 and the estimate exceeds ``effect``; else inconclusive."""
    effect = params["effect"]
    detectable = minimal_detectable_effect((high - low) / 2, params.get("alpha", 0.05), params.get("power", 0.8))
    if -effect <= low and high <= effect and detectable <= effect:
        return "holds"
    if (low > 0 or high < 0) and abs(difference) > effect:
        return "does not hold"
    return "inconclusive"


def _all_of(params: Mapping[str, Any], count: float, sampled: bool = False) -> str:
    """``all_of``: ``count`` of ``params['n']`` cases satisfy the claim (see :func:`evaluate`); on a sample
    (``sampled``) a branch in which every case holds needs the 95% upper bound on the miss rate <= ``max_rate``."""
    n = params["n"]
    if count < 0 or count > n or count != int(count):
        raise ValueError(f"measured_value of an all_of rule must be a count in [0, {n}], got {count!r}")
    if n == 0:
        return "not testable here"
    if "judged" in params and not enough_judged(params["judged"], n, *_judged_minimum(params)):
        return "inconclusive"              # too few cells delivered a judgement (docs/conventions.md#claims-judged)
    max_rate = params.get("max_rate", DEFAULT_MAX_RATE)

    def powered(cases: int) -> bool:
        return not sampled or rate_upper_bound(0, cases) <= max_rate

    if count == n:
        return "holds" if powered(n) else "inconclusive"
    if params.get("conditional_n", 0) > 0 and params["conditional_k"] == params["conditional_n"]:
        return "holds under conditions" if powered(params["conditional_n"]) else "inconclusive"
    if params.get("within_noise_k", -1) == n or ("approx_share" in params and count / n >= params["approx_share"]):
        return "holds approximately"
    return "does not hold"


_SAMPLED = re.compile(r"\brandom\b|\b\d+ seeds\b|\bseeds per\b|\b\d+ (?:runs|trials|replicas)\b|\bsampled\b", re.I)


def derive_evidence_kind(rule: Rule, measured_value: float | None = None, ci_method: str = "",
                         conditions: str = "") -> str:  # fmt: skip
    """The kind of evidence (one of :data:`EVIDENCE_KINDS`) of a row whose study does not state it.

    The derivation (``docs/conventions.md#claims-evidence``): ``not testable`` for a ``manual`` rule with the
    verdict "not testable here" or a missing measurement; ``statistical`` when the row has a confidence
    interval or its ``conditions`` name sampling ("random", "20 seeds", "seeds per", "120 runs", "trials",
    "replicas", "sampled"); ``counterexample`` for an unsampled ``all_of`` count below ``n`` that the rule judges
    "does not hold"; else ``exhaustive``.  "By definition" is never derived: a study states it.

    Examples
    --------
    >>> derive_evidence_kind(Rule("all_of", {"n": 4}), 4, "", "k = 2..5, every source")
    'exhaustive'
    >>> derive_evidence_kind(Rule("all_of", {"n": 120}), 120, "", "120 runs of the simulator")
    'statistical'
    >>> derive_evidence_kind(Rule("all_of", {"n": 5}), 0, "", "k = 2..6")
    'counterexample'
    """
    check_instance("rule", rule, Rule)
    measured = _optional("measured_value", measured_value)
    check_str("ci_method", ci_method)
    check_str("conditions", conditions)
    if rule.kind == "manual" and rule.params["verdict"] == "not testable here" or (
            rule.kind != "manual" and math.isnan(measured)):
        return "not testable"
    if ci_method or _SAMPLED.search(conditions):
        return "statistical"
    if rule.kind == "all_of" and evaluate(rule, None, measured, None, "exhaustive") == "does not hold":
        return "counterexample"
    return "exhaustive"


def evidence_sentence(evidence_kind: str, rule: Rule, measured_value: float | None = None,
                      ci: tuple[float, float] | None = None, ci_method: str = "",
                      n: int | None = None) -> str:  # fmt: skip
    """The evidence of a row in words (the ``evidence_text`` column), generated from its kind and numbers.

    A statistical ``all_of`` row states its misses in ``n`` and the 95% upper bound on the miss rate
    (:func:`rate_upper_bound`), and those of its condition's cases where the rule has a condition; a statistical
    row with a CI states the estimate, the interval and ``n`` where known, and a ``no_difference`` row the
    smallest detectable difference (:func:`minimal_detectable_effect`).

    Examples
    --------
    >>> for part in evidence_sentence("statistical", Rule("all_of", {"n": 120}), 120).split("; "):
    ...     print(part)
    statistical: 0 misses in 120 sampled cases
    95% upper bound on the miss rate 2.47% (Clopper-Pearson), the claim needs <= 1%
    >>> evidence_sentence("exhaustive", Rule("all_of", {"n": 8}), 8)
    'exhaustive: all 8 cases of the stated family checked'
    """
    check_str("evidence_kind", evidence_kind, EVIDENCE_KINDS)
    check_instance("rule", rule, Rule)
    measured = _optional("measured_value", measured_value)
    check_str("ci_method", ci_method)
    if n is not None:
        n = check_int("n", n, minimum=0)
    text = _evidence_kind_sentence(evidence_kind, rule, measured, ci, ci_method, n)
    p = rule.params
    if evidence_kind in ("by definition", "not testable") or math.isnan(measured):
        return text
    if rule.kind == "all_of" and "judged" in p and p["n"]:
        minimum, share = _judged_minimum(p)
        enough = enough_judged(p["judged"], p["n"], minimum, share)
        text += (f"; {p['judged']} of {p['n']} cases delivered a judgement (a verdict needs at least {minimum} and "
                 f"{share:.0%}{'' if enough else ': too few, inconclusive'})")
    if p.get("fit_points", MIN_FIT_POINTS) < MIN_FIT_POINTS:
        text += f"; fitted through {p['fit_points']} points, fewer than {MIN_FIT_POINTS}: inconclusive"
    return text


def _evidence_kind_sentence(evidence_kind: str, rule: Rule, measured: float, ci: tuple[float, float] | None,
                            ci_method: str, n: int | None) -> str:  # fmt: skip
    """The evidence of a row in words from its kind (:func:`evidence_sentence` without the judged cases)."""
    p = rule.params
    if rule.kind in ("all_of", "all_cells") and not math.isnan(measured) and (
            measured != int(measured) or not 0 <= measured <= p["n"]):
        raise ValueError(f"measured_value of an {rule.kind} rule must be a count in [0, {p['n']}], "
                         f"got {measured!r}")
    if evidence_kind == "by definition":
        return "true by definition or by construction: not a reproduction"
    if evidence_kind == "not testable":
        return "not testable: " + (p["reason"] if rule.kind == "manual" else "nothing measured in this run")
    count_rule = rule.kind == "all_of" and not math.isnan(measured)
    if evidence_kind == "counterexample":
        if count_rule:
            return f"counterexample: {p['n'] - int(measured)} of {p['n']} cases contradict the claim"
        return "counterexample: a concrete instance contradicts the claim"
    if evidence_kind == "exhaustive":
        return f"exhaustive: all {p['n']} cases of the stated family checked" if rule.kind == "all_of" \
            else "exhaustive: computed exactly over the stated family"
    if rule.kind == "all_cells" and not math.isnan(measured):
        return _cells_sentence(p, int(measured), n)
    if count_rule and p["n"] > 0:
        misses = p["n"] - int(measured)
        bound = rate_upper_bound(misses, p["n"])
        text = (f"statistical: {misses} misses in {p['n']} sampled cases; 95% upper bound on the miss rate "
                f"{_rate_text(bound)} (Clopper-Pearson), the claim needs <= {p.get('max_rate', DEFAULT_MAX_RATE):.0%}")
        if p.get("conditional_n", 0) > 0:  # the branch "holds under conditions" is judged on its own cases
            inside = p["conditional_n"] - p["conditional_k"]
            text += (f"; under the condition ({p['condition']}): {inside} misses in {p['conditional_n']}, upper "
                     f"bound {_rate_text(rate_upper_bound(inside, p['conditional_n']))}")
        return text
    size = f"n = {n}, " if n is not None else ""
    if ci is None or math.isnan(measured):
        return f"statistical: {size}sampled, no confidence interval"
    low, high = (float(v) for v in ci)
    text = f"statistical: {size}estimate {measured:g}, {ci_method or 'CI'} [{low:g}, {high:g}]"
    if rule.kind == "no_difference":
        detectable = minimal_detectable_effect((high - low) / 2, p.get("alpha", 0.05), p.get("power", 0.8))
        text += f"; smallest difference detectable at power {p.get('power', 0.8):g}: {detectable:.3g}"
    return text


def _rate_text(rate: float) -> str:
    """A rate bound as a percentage: two decimals, or two significant digits where two decimals would print 0.00%
    (a bound is never zero).

    Examples
    --------
    >>> _rate_text(0.0247), _rate_text(3.7e-05)
    ('2.47%', '0.0037%')
    """
    return f"{rate:.2%}" if rate >= 5e-5 or rate == 0 else f"{rate * 100:.2g}%"


def _cells_sentence(params: Mapping[str, Any], passed: int, n: int | None) -> str:
    """The statistical evidence of an ``all_cells`` rule in words: the cells that pass their own test, those of the
    condition, and the runs per cell (``n``) where known."""
    runs = f" ({n} runs per cell)" if n is not None else ""
    text = f"statistical: {passed} of {params['n']} cells pass their own test{runs}; the cells are the claim's scope"
    if params.get("conditional_n", 0) > 0:
        text += (f"; under the condition ({params['condition']}): {params['conditional_k']} of "
                 f"{params['conditional_n']}")
    return text


def _words(value: Any) -> str:
    """One value of a conditions mapping in words."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, Mapping):
        return f"({conditions_text(value)})" if value else "none"
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=str) if isinstance(value, (set, frozenset)) else value
        return "[" + ", ".join(_words(v) for v in items) + "]"
    return str(value)


def conditions_text(conditions: Mapping[str, Any]) -> str:
    """A conditions mapping in words: ``name = value`` joined by commas, underscores read as spaces, nested
    mappings in parentheses, ``None`` as "none", booleans as "yes"/"no".

    :class:`Claim` renders a mapping given as ``conditions`` with it, and rewrites any Python dict
    representation a ``conditions`` string embeds (``"run length {'warmup': 3000}"``) the same way.

    Examples
    --------
    >>> conditions_text({"k": 8, "faults": 2, "run_length": {"warmup": 3000, "latency_cap": None}})
    'k = 8, faults = 2, run length = (warmup = 3000, latency cap = none)'
    """
    check_instance("conditions", conditions, Mapping, "a mapping")
    return ", ".join(f"{str(key).replace('_', ' ')} = {_words(value)}" for key, value in conditions.items())


def conditions_in_words(text: str) -> str:
    """``text`` (the conditions of a claim) with every embedded Python dict literal (outermost braces, nested ones
    included) rendered by :func:`conditions_text`; other braces are left as they are.  :class:`Claim` applies it
    to a ``conditions`` string, so a table written by this version holds no dict literal.

    Examples
    --------
    >>> conditions_in_words("offered 1.0: {'warmup': 3000, 'measure': {'a': True}}")
    'offered 1.0: (warmup = 3000, measure = (a = yes))'
    >>> conditions_in_words("{not a dict}")
    '{not a dict}'
    """
    check_str("text", text)
    out, i = [], 0
    while (start := text.find("{", i)) >= 0:
        depth, end = 0, -1
        for j in range(start, len(text)):
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            if depth == 0:
                end = j + 1
                break
        if end < 0:
            break
        try:
            value = ast.literal_eval(text[start:end])
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            value = None
        words = f"({conditions_text(value)})" if isinstance(value, dict) and value else text[start:end]
        out.append(text[i:start] + words)
        i = end
    return "".join(out) + text[i:]


def data_file(experiment: str, name: str) -> str:
    """The evidence path of a data table of ``experiment`` (relative to the output root).

    Examples
    --------
    >>> data_file("loads", "loads.csv")
    'data/loads/loads.csv'
    """
    return f"data/{check_str('experiment', experiment)}/{check_str('name', name)}"


def figure_file(experiment: str, name: str) -> str:
    """The evidence path of a figure of ``experiment`` (relative to the output root).

    Examples
    --------
    >>> figure_file("disjoint_paths", "fig10_time.png")
    'figures/disjoint_paths/fig10_time.png'
    """
    return f"figures/{check_str('experiment', experiment)}/{check_str('name', name)}"


def _check_evidence_path(path: str) -> str:
    check_str("evidence", path)
    pure = PurePosixPath(path)
    if not path or pure.is_absolute() or ".." in pure.parts or "\\" in path or "," in path or "*" in path:
        raise ValueError(f"evidence must be relative paths under the output root (data/..., figures/..., tests/...)"
                         f" without '..', commas or wildcards, got {path!r}")  # fmt: skip
    return path


# ------------------------------------------------------------------------------------------ the paper's words
#: Columns of the quote file ``torus_lab/paper_quotes.csv``, in this order (``docs/conventions.md#claims-quote``).
QUOTE_COLUMNS = ("paper", "claim_id", "quote")
_QUOTE_FILE = "paper_quotes.csv"
_GLOB = re.compile(r"[*?\[]")


def _parse_quotes(text: str, source: str) -> tuple[tuple[str, str, str], ...]:
    """The rows ``(paper, claim_id, quote)`` of a quote file's ``text`` (CSV, header :data:`QUOTE_COLUMNS`), checked:
    no empty cell, no key twice; ``source`` names the file in errors."""
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if header is None or tuple(header) != QUOTE_COLUMNS:
        raise ValueError(f"{source}: the header must be {','.join(QUOTE_COLUMNS)}, got {header!r}")
    rows, seen = [], set()
    for line, cells in enumerate(reader, start=2):
        if not cells:
            continue
        if len(cells) != len(QUOTE_COLUMNS) or not all(cell.strip() for cell in cells):
            raise ValueError(f"{source}, line {line}: a row must have a paper, a claim id and a quote, got {cells!r}")
        paper, claim_id, quote = (cell.strip() for cell in cells)
        if (paper, claim_id) in seen:
            raise ValueError(f"{source}, line {line}: ({paper!r}, {claim_id!r}) is quoted twice")
        seen.add((paper, claim_id))
        rows.append((paper, claim_id, " ".join(quote.split())))
    return tuple(rows)


@functools.cache
def _quote_rows() -> tuple[tuple[str, str, str], ...]:
    """The rows of the package's quote file, read once."""
    text = importlib.resources.files("torus_lab").joinpath(_QUOTE_FILE).read_text(encoding="utf-8")
    return _parse_quotes(text, f"torus_lab/{_QUOTE_FILE}")


def paper_quotes() -> pd.DataFrame:
    """The package's quote file ``torus_lab/paper_quotes.csv`` as a table (columns :data:`QUOTE_COLUMNS`): per
    ``(paper, claim_id)`` the sentence(s) of the paper the claim tests, verbatim ("..." shortens, math is
    transcribed in plain text), or for a row that tests a reference rather than a paper (the BookSim2
    validation) the text of the rule it applies.  A ``claim_id`` with a glob character (``*``, ``?``, ``[``) is a
    pattern: it quotes every claim of that paper it matches (``fnmatch``) that has no entry of its own.

    Examples
    --------
    >>> quotes = paper_quotes()
    >>> list(quotes.columns) == list(QUOTE_COLUMNS) and bool(quotes["quote"].str.len().gt(0).all())
    True
    """
    return pd.DataFrame(list(_quote_rows()), columns=list(QUOTE_COLUMNS))


def paper_quote(paper: str, claim_id: str) -> str:
    """The quote of claim ``claim_id`` of ``paper`` (the experiment name) in the package's quote file: its own
    entry, else the first pattern entry of the paper that matches it (:func:`paper_quotes`), else "" (a claim no
    paper states, e.g. of a study of the user's own routing; ``docs/conventions.md#claims-quote``).

    Examples
    --------
    >>> paper_quote("loads", "bound_1").startswith("Blaum et al. give the lower bound")
    True
    >>> paper_quote("booksim_validation", "mesh88_dor_vc2_p1_zero_load") != ""
    True
    >>> paper_quote("my_study", "c1")
    ''
    """
    check_str("paper", paper)
    check_str("claim_id", claim_id)
    rows = [row for row in _quote_rows() if row[0] == paper]
    exact = [quote for _, key, quote in rows if key == claim_id]
    if exact:
        return exact[0]
    return next((quote for _, key, quote in rows if _GLOB.search(key) and fnmatch.fnmatchcase(claim_id, key)), "")


@dataclass(frozen=True)
class Claim:
    """One row of a claims table (fields in the order of :data:`CLAIM_COLUMNS`; ``verdict`` is computed).

    ``paper``, ``notebook`` and ``quote`` are filled in by :func:`claims_table` (the quote from the package's
    quote file, :func:`paper_quote`: a study gives ``quote`` only for a claim that no paper of the file states).
    ``location`` names where the paper states it ("Theorem 1", "Fig. 9", "Section 6.1"); ``conditions``
    everything the measurement assumed (sizes, seeds, allocation, fault policy, the reading of the paper).
    Numeric values are NaN where there is none; the texts say the same in words.  They are kept rounded to the
    precision of science files (:func:`torus_lab.precision.round_significant`), so the verdict is computed from
    the very numbers the claims table's file holds, and the report, which recomputes it from the file, finds the
    same.

    ``conditions`` may be a mapping, rendered in words by :func:`conditions_text`; a string that embeds a Python
    dict representation has it rendered the same way.  ``evidence_kind`` (one of :data:`EVIDENCE_KINDS`) defaults
    to :func:`derive_evidence_kind`; ``n`` is the sample size of statistical evidence (default: ``n`` of an
    ``all_of`` rule on a sample).  The ``evidence_text`` column is generated by :func:`evidence_sentence`.

    Examples
    --------
    >>> c = Claim(claim_id="bound", location="Theorem 1", statement="length <= bound", conditions="n = 2..7",
    ...           paper_text="bound", measured_text="max/bound 0.8", measured_value=0.8,
    ...           rule=Rule("at_most", {"bound": 1}), evidence=("data/disjoint_paths/disjoint_paths.csv",))
    >>> c.verdict, c.evidence_kind
    ('holds', 'exhaustive')
    >>> d = dataclasses.replace(c, conditions={"k": 8, "faults": 2}, evidence_kind="by definition")
    >>> d.conditions, d.verdict
    ('k = 8, faults = 2', 'true by definition')
    """

    claim_id: str
    location: str
    statement: str
    conditions: str | Mapping[str, Any]
    paper_text: str
    measured_text: str
    rule: Rule
    evidence: tuple[str, ...]
    paper_value: float = math.nan
    measured_value: float = math.nan
    ci_low: float = math.nan
    ci_high: float = math.nan
    ci_method: str = ""
    paper: str = ""
    notebook: str = ""
    evidence_kind: str = ""
    n: int | None = None
    quote: str = ""

    def __post_init__(self) -> None:
        conditions = self.conditions
        if isinstance(conditions, Mapping):
            conditions = conditions_text(conditions)
        elif isinstance(conditions, str):
            conditions = conditions_in_words(conditions)
        object.__setattr__(self, "conditions", conditions)
        for name in ("claim_id", "location", "statement", "conditions", "paper_text", "measured_text"):
            if not check_str(name, getattr(self, name)).strip():
                raise ValueError(f"{name} of claim {self.claim_id!r} must not be empty")
        for name in ("ci_method", "paper", "notebook", "quote"):
            check_str(name, getattr(self, name))
        object.__setattr__(self, "quote", " ".join(self.quote.split()))
        check_instance("rule", self.rule, Rule)
        evidence = tuple(_check_evidence_path(p) for p in check_sequence("evidence", self.evidence, min_length=1))
        object.__setattr__(self, "evidence", evidence)
        for name in _NUMERIC_COLUMNS:
            object.__setattr__(self, name, round_significant(_optional(name, getattr(self, name))))
        low, high = self.ci_low, self.ci_high
        if not (math.isnan(low) and math.isnan(high)) and (
                not self.ci_method or math.isnan(low) or math.isnan(high) or low > high):
            raise ValueError(f"ci_low and ci_high of claim {self.claim_id!r} must both be given with low <= high and a "
                             f"ci_method, got ci_low={low!r}, ci_high={high!r}, ci_method={self.ci_method!r}")
        kind = check_str("evidence_kind", self.evidence_kind, ("", *EVIDENCE_KINDS)) or derive_evidence_kind(
            self.rule, self.measured_value, self.ci_method, self.conditions)
        object.__setattr__(self, "evidence_kind", kind)
        n = self.n
        if n is None and kind == "statistical" and self.rule.kind == "all_of":
            n = self.rule.params["n"]
        object.__setattr__(self, "n", None if n is None else check_int("n", n, minimum=0))

    @property
    def ci(self) -> tuple[float, float] | None:
        """The confidence interval, or None."""
        return None if math.isnan(self.ci_low) else (self.ci_low, self.ci_high)

    @property
    def verdict(self) -> str:
        """The verdict computed by :func:`evaluate` from the rule and the kind of evidence."""
        return evaluate(self.rule, self.paper_value, self.measured_value, self.ci, self.evidence_kind)

    @property
    def evidence_text(self) -> str:
        """The evidence in words (:func:`evidence_sentence`)."""
        return evidence_sentence(self.evidence_kind, self.rule, self.measured_value, self.ci, self.ci_method, self.n)

    def row(self) -> dict[str, Any]:
        """The claim as a table row (keys :data:`CLAIM_COLUMNS`)."""
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        values.update(rule=self.rule.kind, rule_params=self.rule.to_json(), rule_text=self.rule.sentence(),
                      verdict=self.verdict, evidence=", ".join(self.evidence), evidence_text=self.evidence_text,
                      n=math.nan if self.n is None else float(self.n))  # fmt: skip
        return {column: values[column] for column in CLAIM_COLUMNS}


def claims_table(paper: str, claims: Sequence[Claim], notebook: str | None = None) -> pd.DataFrame:
    """The claims table of ``paper`` (the experiment name): one row per claim, columns :data:`CLAIM_COLUMNS`.

    ``notebook`` defaults to ``notebooks/<paper>.ipynb``; claim ids must be unique.  Each row's ``quote`` is the
    claim's own, else the one the package's quote file holds for ``(paper, claim_id)`` (:func:`paper_quote`;
    "" where it holds none).

    Examples
    --------
    >>> row = Claim(claim_id="bound_1", location="Section 1", statement="E_max >= (|P| - 1)/(2d)",
    ...             conditions="d = 2", paper_text="lower bound", measured_text="1", measured_value=1.0,
    ...             rule=Rule("at_least", {"bound": 1}), evidence=("data/loads/loads.csv",))
    >>> claims_table("loads", [row]).loc[0, "quote"] == paper_quote("loads", "bound_1") != ""
    True
    """
    check_str("paper", paper)
    notebook = f"notebooks/{paper}.ipynb" if notebook is None else check_str("notebook", notebook)
    claims = check_sequence("claims", claims)
    for i, item in enumerate(claims):
        check_instance(f"claims[{i}]", item, Claim)
    ids = [c.claim_id for c in claims]
    if len(set(ids)) != len(ids):
        raise ValueError(f"claim ids must be unique, got {sorted(i for i in set(ids) if ids.count(i) > 1)}")
    rows = [dataclasses.replace(c, paper=paper, notebook=notebook,
                                quote=c.quote or paper_quote(paper, c.claim_id)).row() for c in claims]
    return pd.DataFrame(rows, columns=CLAIM_COLUMNS)


def evidence_items(evidence: str) -> list[str]:
    """The paths of an ``evidence`` cell (comma-separated).

    Examples
    --------
    >>> evidence_items("data/a/x.csv, figures/a/y.png")
    ['data/a/x.csv', 'figures/a/y.png']
    """
    return [item.strip() for item in check_str("evidence", evidence).split(",") if item.strip()]


def _numeric(table: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """``table`` with ``columns`` as floats (empty cells as NaN)."""
    table = table.copy()
    for column in columns:
        table[column] = pd.to_numeric(table[column].replace("", math.nan), errors="raise").astype(float)
    return table


def _is_legacy(table: pd.DataFrame) -> bool:
    """Whether ``table`` was written before evidence kinds (it lacks their columns)."""
    return not {"evidence_kind", "n", "evidence_text"} & set(table.columns)


def _with_evidence_columns(table: pd.DataFrame) -> pd.DataFrame:
    """A legacy ``table`` with empty evidence columns (nothing recorded), in the order of :data:`CLAIM_COLUMNS`."""
    quote = table["quote"] if "quote" in table.columns else ""
    table = table[LEGACY_CLAIM_COLUMNS].copy()
    table["evidence_kind"], table["n"], table["evidence_text"], table["quote"] = "", math.nan, "", quote
    return table[CLAIM_COLUMNS]


def check_claims_table(table: pd.DataFrame, name: str = "table") -> pd.DataFrame:
    """``table`` (e.g. read back from CSV) after checking its columns, verdicts and that every verdict is the
    one :func:`evaluate` computes from the row's rule and kind of evidence; returns it with the numeric columns
    as floats.

    A table written before evidence kinds (columns :data:`LEGACY_CLAIM_COLUMNS`, no ``evidence_kind``) is a
    record of the rules of its time: its columns, rules, verdict names and evidence paths are checked, its
    verdicts are kept as written, and it is returned with empty evidence columns; :func:`upgrade_claims_table`
    re-judges it under today's rules.  An empty ``evidence_kind`` marks such a row in a concatenated table.  A
    table written before quotes (no ``quote`` column) is returned with empty quotes; :func:`upgrade_claims_table`
    attaches them.

    Raises
    ------
    ValueError
        Naming the first bad row.
    """
    check_frame(name, table, LEGACY_CLAIM_COLUMNS)
    if _is_legacy(table):
        table = _with_evidence_columns(table)
    elif "quote" not in table.columns:
        table = table.assign(quote="")
    check_frame(name, table, CLAIM_COLUMNS)
    table = _numeric(table[CLAIM_COLUMNS], (*_NUMERIC_COLUMNS, "n"))
    table["quote"] = table["quote"].fillna("")  # an empty cell read without keep_default_na=False
    for row in table.itertuples(index=False):
        if row.verdict not in VERDICTS:
            raise ValueError(f"{name}: claim {row.claim_id!r} has verdict {row.verdict!r}; allowed: {VERDICTS}")
        if not isinstance(row.quote, str):
            raise ValueError(f"{name}: claim {row.claim_id!r} has quote {row.quote!r}; a quote is text (empty: none)")
        if row.evidence_kind not in ("", *EVIDENCE_KINDS):
            raise ValueError(f"{name}: claim {row.claim_id!r} has evidence_kind {row.evidence_kind!r}; allowed: "
                             f"{EVIDENCE_KINDS}")  # fmt: skip
        rule = Rule.from_columns(row.rule, row.rule_params)
        if row.evidence_kind:
            ci = None if math.isnan(row.ci_low) else (row.ci_low, row.ci_high)
            computed = evaluate(rule, row.paper_value, row.measured_value, ci, row.evidence_kind)
            if computed != row.verdict:
                raise ValueError(f"{name}: claim {row.claim_id!r} says {row.verdict!r} but its rule gives "
                                 f"{computed!r}")  # fmt: skip
        for item in evidence_items(row.evidence):
            _check_evidence_path(item)
    return table


def _claim_of_row(row: Mapping[str, Any]) -> Claim:
    """The :class:`Claim` of a claims table row (its ``evidence_kind`` and ``n`` derived where empty)."""
    n = row.get("n", math.nan)
    numbers = {c: row[c] for c in _NUMERIC_COLUMNS}
    texts = {c: row[c] for c in ("claim_id", "location", "statement", "conditions", "paper_text", "measured_text",
                                 "ci_method", "paper", "notebook", "quote")}
    return Claim(**texts, **numbers, rule=Rule.from_columns(row["rule"], row["rule_params"]),
                 evidence=tuple(evidence_items(row["evidence"])), evidence_kind=row.get("evidence_kind", ""),
                 n=None if math.isnan(n) else int(n))


def upgrade_claims_table(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` re-judged under today's rules: every row rebuilt as a :class:`Claim` (conditions in words, the
    kind of evidence derived where the row has none, :func:`derive_evidence_kind`, the quote of the package's quote
    file where it has one, :func:`paper_quote`, else the row's), columns :data:`CLAIM_COLUMNS`.

    This is what a study's claims function will write once it runs again; comparing the two with
    :func:`claims_changes` shows which verdicts today's rules change.

    Examples
    --------
    >>> legacy = claims_table("p", [Claim(claim_id="runs", location="Theorem 1", statement="never deadlocks",
    ...     conditions="120 runs", paper_text="never", measured_text="no deadlock in 120 of 120 runs",
    ...     measured_value=120, rule=Rule("all_of", {"n": 120}), evidence=("data/p/runs.csv",),
    ...     evidence_kind="exhaustive")]).drop(columns=["evidence_kind", "n", "evidence_text"])
    >>> legacy.loc[0, "verdict"], upgrade_claims_table(legacy).loc[0, "verdict"]
    ('holds', 'inconclusive')
    """
    table = check_claims_table(table)
    claims = [_claim_of_row(row) for row in table.to_dict("records")]
    claims = [dataclasses.replace(c, quote=paper_quote(c.paper, c.claim_id) or c.quote) for c in claims]
    return pd.DataFrame([c.row() for c in claims], columns=CLAIM_COLUMNS)


def write_claims(table: pd.DataFrame, data_dir: str | Path) -> Path:
    """Check ``table`` (:func:`check_claims_table`) and write it to ``data_dir/claims.csv`` (a science file:
    :func:`torus_lab.precision.to_science_csv`); returns the path."""
    table = check_claims_table(table)
    path = Path(check_instance("data_dir", data_dir, (str, os.PathLike), "a folder path")) / "claims.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    to_science_csv(table, path)
    return path


def location_items(location: str) -> list[str]:
    """The paper's results a ``location`` cell names: its ``;``-separated items, stripped.

    A claim that covers several numbered results names each ("Theorem 1; Fig. 9").

    Examples
    --------
    >>> location_items("Theorem 1; Fig. 9 ")
    ['Theorem 1', 'Fig. 9']
    """
    return [item.strip() for item in check_str("location", location).split(";") if item.strip()]


def uncovered_results(table: pd.DataFrame, results: Sequence[str]) -> list[str]:
    """The items of ``results`` (a paper's numbered theorems, lemmas, corollaries, tables and figures, spelled as
    in the ``location`` column) that no row of the claims ``table`` names; empty when the table covers them all.

    Every study lists its paper's numbered results (``PAPER_RESULTS``) and its claims table must cover each one,
    with a measured verdict or a ``not testable here`` row that says why.

    Examples
    --------
    >>> table = pd.DataFrame({"location": ["Theorem 1; Fig. 9", "Section 5"]})
    >>> uncovered_results(table, ["Theorem 1", "Lemma 2", "Fig. 9"])
    ['Lemma 2']
    """
    check_frame("table", table, ["location"])
    named = {item for cell in table["location"] for item in location_items(cell)}
    return [result for result in check_sequence("results", results) if check_str("results[i]", result) not in named]


def comparison_counts(strict: int, ties: int, within_noise: int, n: int, noise_test: str,
                      judged: int | None = None) -> tuple[float, str, Rule]:  # fmt: skip
    """The measured value, measured text and rule of a trend claim counted over ``n`` comparisons.

    ``judged`` of the ``n`` comparisons delivered a judgement (both values measured; default all ``n``).  The
    trend holds strictly in ``strict`` of them, ``ties`` are equal, and the other judged ones are reversed,
    ``within_noise`` of them only within noise (``noise_test`` says how noise is told, e.g. "overlapping 95% Wilson
    CIs").  The rule is ``all_of`` over the ``n`` comparisons with ``judged`` stated, so too few judged comparisons
    (:func:`enough_judged`, ``docs/conventions.md#claims-judged``) give "inconclusive"; every comparison true, tied
    or reversed within noise gives "holds approximately".  Without comparisons the value is NaN ("not testable
    here").

    Parameters
    ----------
    strict, ties, within_noise, n : int
        The counts (``strict + ties <= judged``, ``within_noise <= judged - strict - ties``).
    noise_test : str
        How a reversal within noise is recognised, for the text.
    judged : int, optional
        The comparisons that delivered a judgement (``<= n``); default ``n``.

    Returns
    -------
    (float, str, Rule)
        ``measured_value`` (``strict``, NaN when ``n`` is 0), ``measured_text`` and ``rule`` of the claim.

    Examples
    --------
    >>> value, text, rule = comparison_counts(5, 1, 2, 8, "overlapping 95% CIs")
    >>> value, text
    (5, 'strictly true in 5 of 8 comparisons; 1 ties; 2 reversed, 2 of them within noise (overlapping 95% CIs)')
    >>> evaluate(rule, None, value)
    'holds approximately'
    >>> value, _, rule = comparison_counts(2, 0, 0, 2, "overlapping 95% CIs")
    >>> evaluate(rule, None, value)                                  # two comparisons decide nothing
    'inconclusive'
    >>> comparison_counts(0, 0, 0, 0, "overlapping 95% CIs")[:2]
    (nan, 'no comparison in this run')
    """
    n = check_int("n", n, minimum=0)
    judged = n if judged is None else check_int("judged", judged, minimum=0, maximum=n)
    strict = check_int("strict", strict, minimum=0, maximum=judged)
    ties = check_int("ties", ties, minimum=0, maximum=judged - strict)
    within_noise = check_int("within_noise", within_noise, minimum=0, maximum=judged - strict - ties)
    check_str("noise_test", noise_test)
    rule = Rule("all_of", {"n": n, "within_noise_k": strict + ties + within_noise, "judged": judged})
    if not n:
        return math.nan, "no comparison in this run", rule
    text = (f"strictly true in {strict} of {n} comparisons; {ties} ties; {judged - strict - ties} reversed, "
            f"{within_noise} of them within noise ({noise_test})")
    if judged < n:
        text += f"; {n - judged} not judged (a value missing)"
    return strict, text, rule


def not_testable_claim(claim_id: str, location: str, statement: str, conditions: str, paper_text: str,
                       measured_text: str, reason: str, evidence: Sequence[str]) -> Claim:  # fmt: skip
    """A coverage row: a numbered result of the paper that no number decides (a drawing, curves without values, a
    statement of cost), with the ``manual`` rule "not testable here" and its ``reason``.

    Examples
    --------
    >>> c = not_testable_claim("fig1", "Fig. 1", "Fig. 1 draws the network", "a drawing", "drawing",
    ...                        "our drawing", "nothing to measure", ["figures/loads/loads.png"])
    >>> c.verdict, c.rule.sentence()
    ('not testable here', 'judged by hand: nothing to measure')
    """
    return Claim(claim_id=claim_id, location=location, statement=statement, conditions=conditions,
                 paper_text=paper_text, measured_text=measured_text,
                 rule=Rule("manual", {"verdict": "not testable here", "reason": check_str("reason", reason)}),
                 evidence=tuple(check_sequence("evidence", evidence)))  # fmt: skip


# ------------------------------------------------------------------------------------------ a referee's summary
#: The verdicts a summary's findings are chosen from, most important first (``docs/conventions.md#claims-summary``).
FINDING_VERDICTS = ("does not hold", "inconclusive")


def _effect(row: Mapping[str, Any]) -> float:
    """How far a row's measurement lies from what the claim needs, relative (NaN where no number says it):
    the share of failing cases of an ``all_of`` rule, else the distance of the measured value from the bound or
    the paper's value relative to that value."""
    measured = row["measured_value"]
    if math.isnan(measured):
        return math.nan
    rule = Rule.from_columns(row["rule"], row["rule_params"])
    if rule.kind in ("all_of", "all_cells"):
        return (rule.params["n"] - measured) / rule.params["n"] if rule.params["n"] else math.nan
    target = float(rule.params["bound"]) if "bound" in rule.params else row["paper_value"]
    if rule.kind in ("no_difference", "subset", "manual") or math.isnan(target):
        return abs(measured) / rule.params["effect"] if rule.kind == "no_difference" and rule.params["effect"] \
            else math.nan
    return abs(measured - target) / abs(target) if target else abs(measured - target)


def _finding(row: Mapping[str, Any]) -> str:
    """One row as a finding in plain words."""
    return (f"{row['location']}: \"{row['statement']}\" {row['verdict']}: ours {row['measured_text']}, the paper "
            f"{row['paper_text']} ({row['evidence_text']})")


def verdict_counts(verdicts: Sequence[str] | pd.Series) -> str:
    """A short summary such as ``'3 hold, 2 inconclusive'``: verdicts in the order of :data:`VERDICTS`, a count of
    1 read as the verdict itself, others by :data:`VERDICT_PLURALS`.

    Examples
    --------
    >>> verdict_counts(["holds", "inconclusive", "holds", "inconclusive", "true by definition"])
    '2 hold, 2 inconclusive, 1 true by definition'
    >>> verdict_counts([])
    'no claims yet'
    """
    items = [check_str("verdicts[i]", v, VERDICTS) for v in check_sequence("verdicts", verdicts)]
    counts = {v: items.count(v) for v in VERDICTS}
    return ", ".join(f"{k} {v if k == 1 else VERDICT_PLURALS[v]}" for v, k in counts.items() if k) or "no claims yet"


@dataclass(frozen=True)
class PaperSummary:
    """A referee's summary of one claims table (:func:`referee_summary`).

    Attributes
    ----------
    papers : tuple of str
        The papers of the table.
    claims : int
        Its rows.
    reproduced : int
        Rows whose verdict is in :data:`REPRODUCED_VERDICTS` (never ``true by definition``).
    verdicts, evidence_kinds : Mapping
        Counts per verdict (order of :data:`VERDICTS`) and per kind of evidence (order of :data:`EVIDENCE_KINDS`,
        then "not recorded" for legacy rows), zero counts left out.
    findings : tuple of str
        The findings that matter most, in plain words.
    """

    papers: tuple[str, ...]
    claims: int
    reproduced: int
    verdicts: Mapping[str, int]
    evidence_kinds: Mapping[str, int]
    findings: tuple[str, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "papers", tuple(check_str("papers[i]", p) for p in check_sequence("papers",
                                                                                                   self.papers)))
        claims = check_int("claims", self.claims, minimum=0)
        if check_int("reproduced", self.reproduced, minimum=0) > claims:
            raise ValueError(f"reproduced ({self.reproduced}) must not exceed claims ({claims})")
        for name, keys in (("verdicts", VERDICTS), ("evidence_kinds", (*EVIDENCE_KINDS, "not recorded"))):
            counts = check_instance(name, getattr(self, name), Mapping, "a mapping")
            for key, count in counts.items():
                check_str(f"{name} key", key, keys)
                if check_int(f"{name}[{key!r}]", count, minimum=0) > claims:
                    raise ValueError(f"{name}[{key!r}] ({count}) must not exceed claims ({claims})")
            object.__setattr__(self, name, MappingProxyType(dict(counts)))
        object.__setattr__(self, "findings", tuple(check_str("findings[i]", f)
                                                   for f in check_sequence("findings", self.findings)))

    def text(self) -> str:
        """The summary as a short paragraph plus one line per finding."""
        verdicts = verdict_counts([v for v, k in self.verdicts.items() for _ in range(k)])
        kinds = ", ".join(f"{k} {v}" for v, k in self.evidence_kinds.items())
        lines = [f"{', '.join(self.papers) or 'no paper'}: {self.claims} claims, {self.reproduced} reproduced; "
                 f"verdicts: {verdicts}; evidence: {kinds or 'none'}."]
        lines += [f"- {finding}" for finding in self.findings] or ["- No claim fails or is left undecided."]
        return "\n".join(lines)


def referee_summary(table: pd.DataFrame, max_findings: int = 3) -> PaperSummary:
    """A referee's summary of a claims ``table`` (a pure function): counts per verdict and per kind of evidence,
    the rows reproduced, and up to ``max_findings`` findings chosen by the rule of
    ``docs/conventions.md#claims-summary``: the "does not hold" rows, then the "inconclusive" rows, each group by
    decreasing relative effect (rows without one last), ties in table order.

    Examples
    --------
    >>> rows = [Claim(claim_id=f"c{i}", location=f"Lemma {i}", statement="s", conditions="k = 4", paper_text="1",
    ...               measured_text=f"{v}", measured_value=v, paper_value=1.0, rule=Rule("exact"),
    ...               evidence=("data/p/x.csv",)) for i, v in enumerate((1.0, 1.5, 3.0))]
    >>> summary = referee_summary(claims_table("p", rows), max_findings=1)
    >>> dict(summary.verdicts), summary.reproduced
    ({'holds': 1, 'does not hold': 2}, 1)
    >>> summary.findings[0].startswith('Lemma 2')
    True
    """
    table = check_claims_table(table)
    max_findings = check_int("max_findings", max_findings, minimum=0)
    records = table.to_dict("records")
    verdicts = {v: int((table["verdict"] == v).sum()) for v in VERDICTS}
    kinds = {k: int((table["evidence_kind"] == k).sum()) for k in EVIDENCE_KINDS}
    kinds["not recorded"] = int((table["evidence_kind"] == "").sum())

    def rank(item: tuple[int, Mapping[str, Any]]) -> tuple[int, int, float, int]:
        i, row = item
        effect = _effect(row)
        return FINDING_VERDICTS.index(row["verdict"]), math.isnan(effect), -effect if effect == effect else 0.0, i

    chosen = sorted(((i, r) for i, r in enumerate(records) if r["verdict"] in FINDING_VERDICTS), key=rank)
    return PaperSummary(papers=tuple(dict.fromkeys(table["paper"])), claims=len(table),
                        reproduced=sum(verdicts[v] for v in REPRODUCED_VERDICTS),
                        verdicts=MappingProxyType({v: k for v, k in verdicts.items() if k}),
                        evidence_kinds=MappingProxyType({v: k for v, k in kinds.items() if k}),
                        findings=tuple(_finding(r) for _, r in chosen[:max_findings]))  # fmt: skip


#: Columns of :func:`claims_changes`.
CHANGE_COLUMNS = ["paper", "claim_id", "change", "old_verdict", "new_verdict", "old_evidence_kind",
                  "new_evidence_kind", "old_evidence_text", "new_evidence_text"]  # fmt: skip
_COMPARED = ("verdict", "evidence_kind", "evidence_text")


def _as_written(table: pd.DataFrame, name: str) -> pd.DataFrame:
    """A claims ``table`` of earlier rules as written: the columns :func:`claims_changes` compares (empty evidence
    columns for a legacy table), its verdicts checked against :data:`VERDICTS` but not re-judged."""
    check_frame(name, table, ["paper", "claim_id", "verdict"])
    table = table.copy()
    for column in ("evidence_kind", "evidence_text"):
        table[column] = table[column].fillna("").astype(str) if column in table.columns else ""
    unknown = sorted(set(table["verdict"]) - set(VERDICTS))
    if unknown:
        raise ValueError(f"{name}: unknown verdicts {unknown!r}; allowed: {VERDICTS}")
    return table[["paper", "claim_id", *_COMPARED]]


def claims_changes(old: pd.DataFrame, new: pd.DataFrame) -> pd.DataFrame:
    """The rows of claims table ``new`` whose verdict or evidence differ from the committed table ``old`` (a pure
    function), matched on ``(paper, claim_id)``: ``change`` is "changed", "added" or "removed", with the old and
    new verdict, kind of evidence and evidence text (empty where a side has none; a legacy table records no
    evidence).  Columns :data:`CHANGE_COLUMNS`, in the order of ``new`` then the removed rows of ``old``.
    ``new`` is checked in full (:func:`check_claims_table`); ``old`` is taken as written (its verdicts may come
    from the rules of its time), only its columns and verdict names are checked.

    Examples
    --------
    >>> rule = Rule("all_of", {"n": 120})
    >>> row = dict(claim_id="runs", location="Theorem 1", statement="never deadlocks", conditions="k = 4",
    ...            paper_text="never", measured_text="120 of 120", measured_value=120, rule=rule,
    ...            evidence=("data/p/runs.csv",))
    >>> old = claims_table("p", [Claim(**row, evidence_kind="exhaustive")])
    >>> new = claims_table("p", [Claim(**row, evidence_kind="statistical")])
    >>> claims_changes(old, new)[["claim_id", "change", "old_verdict", "new_verdict"]].values.tolist()
    [['runs', 'changed', 'holds', 'inconclusive']]
    """
    old, new = _as_written(old, "old"), check_claims_table(new, "new")
    before = {(r["paper"], r["claim_id"]): r for r in old.to_dict("records")}
    after = {(r["paper"], r["claim_id"]): r for r in new.to_dict("records")}
    empty = dict.fromkeys(_COMPARED, "")
    rows = []
    for key, row in [*after.items(), *((k, None) for k in before if k not in after)]:
        was, now = before.get(key), row
        if was is not None and now is not None and all(was[c] == now[c] for c in _COMPARED):
            continue
        change = "changed" if was is not None and now is not None else ("added" if was is None else "removed")
        was, now = was or empty, now or empty
        rows.append([*key, change, *(side[c] for c in _COMPARED for side in (was, now))])
    return pd.DataFrame(rows, columns=CHANGE_COLUMNS)


def paper_value_claim(claim_id: str, location: str, statement: str, conditions: str, paper_value: float | None,
                      paper_text: str, measured: Sequence[float] | None, measured_text: str, ci_method: str,
                      rule: Rule, evidence: Sequence[str]) -> Claim:  # fmt: skip
    """A measured value with its confidence interval against the paper's printed value (NaN or None: the paper
    prints none, only a statement its ``paper_text`` words).

    ``measured`` is ``(value, ci_low, ci_high)``, with the interval computed by ``ci_method``; None when the run
    lacks the point, and the claim then has no measured value, no interval and no method (every rule but
    ``manual`` gives "not testable here"), with ``measured_text`` saying so.

    Parameters
    ----------
    claim_id, location, statement, conditions, paper_text, measured_text : str
        As in :class:`Claim`.
    paper_value : float or None
        The paper's number.
    measured : (float, float, float) or None
        The measured value and its confidence interval (low, high).
    ci_method : str
        How the interval was computed (e.g. "bootstrap 95%"); not empty.
    rule : Rule
        The verdict rule (e.g. ``inside_ci``, ``ratio_excess_within``, ``at_most``).
    evidence : sequence of str
        The evidence paths.

    Examples
    --------
    >>> rule = Rule("ratio_excess_within", {"tolerance": 0.1})
    >>> c = paper_value_claim("ratio", "Section 5", "A / B is about 1.3", "N=128", 1.3, "about 1.3",
    ...                       (1.29, 1.25, 1.33), "1.29", "bootstrap 95%", rule, ["data/a/ratios.csv"])
    >>> c.verdict, c.ci, c.ci_method
    ('holds', (1.25, 1.33), 'bootstrap 95%')
    >>> missing = paper_value_claim("ratio", "Section 5", "A / B is about 1.3", "N=128", 1.3, "about 1.3", None,
    ...                             "point not in this run", "bootstrap 95%", rule, ["data/a/ratios.csv"])
    >>> missing.verdict, missing.ci, missing.ci_method
    ('not testable here', None, '')
    """
    if not check_str("ci_method", ci_method).strip():
        raise ValueError(f"ci_method of claim {claim_id!r} must name how the interval was computed, got {ci_method!r}")
    if measured is None:
        value = low = high = math.nan
        ci_method = ""
    else:
        triple = check_sequence("measured", measured)
        if len(triple) != 3:
            raise ValueError(f"measured must be (value, ci_low, ci_high) or None, got {measured!r:.200}")
        value, low, high = (check_real(f"measured[{i}]", v, finite=False) for i, v in enumerate(triple))
    return Claim(claim_id=claim_id, location=location, statement=statement, conditions=conditions,
                 paper_value=paper_value, paper_text=paper_text, measured_value=value, measured_text=measured_text,
                 ci_low=low, ci_high=high, ci_method=ci_method, rule=rule,
                 evidence=tuple(check_sequence("evidence", evidence)))  # fmt: skip


def changes_text(changes: pd.DataFrame) -> str:
    """The rows of :func:`claims_changes` in words, one line each (the words ``torus-lab run`` and ``reproduce``
    print when a claims table changed); ``'no change'`` for none.

    Examples
    --------
    >>> changes = pd.DataFrame([["p", "runs", "changed", "holds", "inconclusive", "exhaustive", "statistical",
    ...                          "", "120 runs"]], columns=CHANGE_COLUMNS)
    >>> print(changes_text(changes))
    p/runs: holds -> inconclusive (kind of evidence: exhaustive -> statistical)
    """
    check_frame("changes", changes, CHANGE_COLUMNS)
    lines = []
    for row in changes.to_dict("records"):
        where = f"{row['paper']}/{row['claim_id']}"
        if row["change"] != "changed":
            verdict = row["new_verdict"] if row["change"] == "added" else row["old_verdict"]
            lines.append(f"{where}: {row['change']} ({verdict})")
            continue
        parts = [f"{row['old_verdict']} -> {row['new_verdict']}" if row["old_verdict"] != row["new_verdict"]
                 else f"still {row['new_verdict']}"]  # fmt: skip
        if row["old_evidence_kind"] != row["new_evidence_kind"]:
            parts.append(f"(kind of evidence: {row['old_evidence_kind'] or 'not recorded'} -> "
                         f"{row['new_evidence_kind'] or 'not recorded'})")  # fmt: skip
        elif row["old_evidence_text"] != row["new_evidence_text"]:
            parts.append("(evidence text changed)")
        lines.append(f"{where}: {' '.join(parts)}")
    return "\n".join(lines) or "no change"
