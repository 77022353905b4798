"""Claims tables: what a paper states, under which conditions we measured it, and a verdict computed from a rule.

Every study ends with a claims table (``data/<experiment>/claims.csv``, one row per :class:`Claim`, columns
:data:`CLAIM_COLUMNS` in this order); ``torus-lab report`` concatenates them into ``data/claims.csv``.  The
verdict is never typed by hand: each claim carries its verdict rule as data (a :class:`Rule`: one of
:data:`RULE_KINDS` with its parameters), and :func:`evaluate` turns the rule, the paper's value, the measured
value and its confidence interval into one of :data:`VERDICTS`.  A claim that cannot be judged from numbers
uses the ``manual`` rule, which states its verdict and the reason.

Evidence paths are relative to the output root (the project folder for the committed tables):
``data/<experiment>/<file>.csv``, ``figures/<experiment>/<file>.png`` or ``tests/<file>.py``, the same in the
per-paper tables and in ``data/claims.csv`` (see :func:`data_file`).

Examples
--------
>>> rule = Rule("ratio_excess_within", {"tolerance": 0.1})
>>> evaluate(rule, paper_value=1.3, measured_value=1.238, ci=(1.186, 1.292))
'does not hold'
>>> table = claims_table("fault_tolerant", [Claim(
...     claim_id="ratio", location="Section 5", statement="A / B is about 1.3", conditions="N=128, m=6",
...     paper_value=1.3, paper_text="about 1.3", measured_value=1.29, measured_text="1.29 [1.25, 1.33]",
...     ci_low=1.25, ci_high=1.33, ci_method="bootstrap 95%", rule=rule,
...     evidence=(data_file("fault_tolerant", "improvement_ratios.csv"),))])
>>> table.loc[0, "verdict"], table.loc[0, "evidence"], table.loc[0, "notebook"]
('holds', 'data/fault_tolerant/improvement_ratios.csv', 'notebooks/fault_tolerant.ipynb')
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
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
    "paper_value_claim",
]

#: The verdict vocabulary, from best to worst, then "not testable here".
#:
#: * ``holds``: the measurement agrees with the claim as stated, within the rule's tolerance;
#: * ``holds approximately``: it agrees within a wider, stated tolerance (the paper's number is off, not its
#:   direction), or the paper's set/count over-approximates what we measure;
#: * ``holds under conditions``: it holds only inside a stated part of the claim's scope (e.g. atomic buffer
#:   allocation, k <= 4) and fails outside it;
#: * ``does not hold``: the measurement contradicts the claim;
#: * ``not testable here``: nothing was measured for it (the run lacks the points, or it cannot be measured).
VERDICTS = ("holds", "holds approximately", "holds under conditions", "does not hold", "not testable here")
#: Columns of every claims table, in this order (the fields of :class:`Claim`).
CLAIM_COLUMNS = [
    "paper", "claim_id", "location", "statement", "conditions", "paper_value", "paper_text", "measured_value",
    "measured_text", "ci_low", "ci_high", "ci_method", "rule", "rule_params", "rule_text", "verdict", "evidence",
    "notebook",
]  # fmt: skip
_NUMERIC_COLUMNS = ("paper_value", "measured_value", "ci_low", "ci_high")

#: Parameters of each rule kind: (required, optional).  See :func:`evaluate` for their meaning.
RULE_KINDS: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = MappingProxyType({
    "inside_ci": ((), ("approx",)),
    "ratio_excess_within": (("tolerance",), ("approx",)),
    "at_most": ((), ("bound", "approx_bound")),
    "at_least": ((), ("bound", "approx_bound")),
    "exact": ((), ("tolerance",)),
    "all_of": (("n",), ("within_noise_k", "approx_share", "condition", "conditional_k", "conditional_n")),
    "fit_exponent_within": (("tolerance",), ("approx",)),
    "subset": (("paper_set", "measured_set"), ()),
    "manual": (("verdict", "reason"), ()),
})  # fmt: skip
_NUMBER_PARAMS = ("approx", "tolerance", "bound", "approx_bound", "approx_share")
_COUNT_PARAMS = ("n", "within_noise_k", "conditional_k", "conditional_n")


def _number(name: str, value: object) -> float:
    """A finite number parameter (>= 0 for tolerances and shares)."""
    minimum = None if name in ("bound", "approx_bound") else 0.0
    return check_real(name, value, minimum=minimum, maximum=1.0 if name == "approx_share" else None)


@dataclass(frozen=True)
class Rule:
    """A verdict rule as data: a kind of :data:`RULE_KINDS` and its parameters (JSON-serialisable).

    Parameters
    ----------
    kind : str
        ``inside_ci`` (the paper's value inside the measured CI; ``approx``: relative distance to the paper's value
        for "holds approximately"), ``ratio_excess_within`` (a ratio's excess over 1 within ``tolerance`` of the
        paper's excess, relative, or the paper's value inside the CI; ``approx``: wider tolerance for "holds
        approximately" with the same sign), ``at_most`` / ``at_least`` (a bound: ``bound``, default the paper's
        value; ``approx_bound``: a looser bound for "holds approximately"), ``exact`` (equal within ``tolerance``,
        default 0), ``all_of`` (the measured value is a count k of ``n`` cases: all strictly; ``conditional_k`` of
        ``conditional_n`` cases inside ``condition`` all true gives "holds under conditions"; ``within_noise_k``
        (the cases that satisfy it or miss it only within noise, e.g. overlapping 95% CIs) equal to ``n``, or a
        share of at least ``approx_share``, gives "holds approximately"), ``fit_exponent_within`` (a fitted exponent
        within ``tolerance`` of the paper's, absolute), ``subset`` (the measured set equal to the paper's set:
        holds; a strict subset: holds approximately), ``manual`` (``verdict`` and the ``reason`` it cannot be
        computed from numbers).
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
            else:
                check_str(name, value)
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
        p = self.params
        approx = f"; within {p['approx']:.0%}: holds approximately" if "approx" in p else ""
        if self.kind == "inside_ci":
            return f"the paper's value lies inside the measured confidence interval{approx}"
        if self.kind == "ratio_excess_within":
            approx = f"; within {p['approx']:.0%} with the same sign: holds approximately" if "approx" in p else ""
            return (f"|measured - 1| within {p['tolerance']:.0%} of |paper - 1| (relative to the paper's excess), "
                    f"or the paper's value inside the measured confidence interval{approx}")
        if self.kind in ("at_most", "at_least"):
            bound = f"{p['bound']:g}" if "bound" in p else "the paper's value"
            sign = "<=" if self.kind == "at_most" else ">="
            looser = f"; {sign} {p['approx_bound']:g}: holds approximately" if "approx_bound" in p else ""
            return f"measured {sign} {bound}{looser}"
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
            return text
        if self.kind == "fit_exponent_within":
            return f"fitted exponent within {p['tolerance']:g} of the paper's" + (
                f"; within {p['approx']:g}: holds approximately" if "approx" in p else "")
        if self.kind == "subset":
            return ("the measured set equals the paper's set; a strict subset of it (the paper over-approximates): "
                    "holds approximately")
        return f"judged by hand: {p['reason']}"


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


def evaluate(rule: Rule, paper_value: float | None = None, measured_value: float | None = None,
             ci: tuple[float, float] | None = None) -> str:  # fmt: skip
    """The verdict of a claim (one of :data:`VERDICTS`) from its rule, values and confidence interval.

    A rule that needs a measured value (every kind but ``manual``) gives "not testable here" when it is
    missing (None or NaN); ``inside_ci`` also needs the CI, ``ratio_excess_within``, ``exact`` and
    ``fit_exponent_within`` also the paper's value.  Boundaries are inclusive (``at_most`` holds at the bound).

    Parameters
    ----------
    rule : Rule
        The verdict rule.
    paper_value, measured_value : float, optional
        The paper's number and ours (for ``all_of``: the count of cases that satisfy the claim).
    ci : (float, float), optional
        The measured confidence interval (low, high).

    Examples
    --------
    >>> evaluate(Rule("inside_ci"), 1.2, 1.23, (1.20, 1.27)), evaluate(Rule("inside_ci"), 1.2, 1.23, (1.21, 1.27))
    ('holds', 'does not hold')
    >>> evaluate(Rule("all_of", {"n": 120, "approx_share": 0.95}), None, 118)
    'holds approximately'
    >>> evaluate(Rule("at_most", {"bound": 0.1}), None, float("nan"))
    'not testable here'
    """
    check_instance("rule", rule, Rule)
    paper = _optional("paper_value", paper_value)
    measured = _optional("measured_value", measured_value)
    if ci is None:
        low = high = math.nan
    else:
        pair = check_sequence("ci", ci)
        if len(pair) != 2:
            raise ValueError(f"ci must be a pair (low, high), got {ci!r}")
        low, high = _optional("ci[0]", pair[0]), _optional("ci[1]", pair[1])
        if low > high:
            raise ValueError(f"ci must have low <= high, got {ci!r}")
    p, kind = rule.params, rule.kind
    if kind == "manual":
        return p["verdict"]
    if math.isnan(measured):
        return "not testable here"
    has_ci = not (math.isnan(low) or math.isnan(high))
    if kind in ("at_most", "at_least"):
        bound = float(p["bound"]) if "bound" in p else paper
        if math.isnan(bound):
            raise ValueError(f"rule {kind!r} needs a bound parameter or a paper value")

        def within(limit: float) -> bool:
            return measured <= limit if kind == "at_most" else measured >= limit

        if within(bound):
            return "holds"
        return "holds approximately" if "approx_bound" in p and within(float(p["approx_bound"])) else "does not hold"
    if kind == "all_of":
        return _all_of(p, measured)
    if kind == "subset":
        paper_set, measured_set = set(map(str, p["paper_set"])), set(map(str, p["measured_set"]))
        if measured_set == paper_set:
            return "holds"
        return "holds approximately" if measured_set < paper_set else "does not hold"
    if math.isnan(paper):
        return "not testable here"
    inside = has_ci and low <= paper <= high
    if kind == "inside_ci":
        if not has_ci:
            return "not testable here"
        if inside:
            return "holds"
        return "holds approximately" if "approx" in p and abs(measured - paper) <= p["approx"] * abs(paper) \
            else "does not hold"
    if kind == "ratio_excess_within":
        excess, paper_excess = measured - 1.0, paper - 1.0
        distance = abs(excess - paper_excess)
        if inside or distance <= p["tolerance"] * abs(paper_excess):
            return "holds"
        same_sign = excess * paper_excess > 0
        return "holds approximately" if "approx" in p and same_sign and distance <= p["approx"] * abs(paper_excess) \
            else "does not hold"
    if kind == "exact":
        return "holds" if abs(measured - paper) <= p.get("tolerance", 0.0) else "does not hold"
    # fit_exponent_within
    distance = abs(measured - paper)
    if inside or distance <= p["tolerance"]:
        return "holds"
    return "holds approximately" if "approx" in p and distance <= p["approx"] else "does not hold"


def _all_of(params: Mapping[str, Any], count: float) -> str:
    """``all_of``: ``count`` of ``params['n']`` cases satisfy the claim (see :func:`evaluate`)."""
    n = params["n"]
    if count < 0 or count > n or count != int(count):
        raise ValueError(f"measured_value of an all_of rule must be a count in [0, {n}], got {count!r}")
    if n == 0:
        return "not testable here"
    if count == n:
        return "holds"
    if params.get("conditional_n", 0) > 0 and params["conditional_k"] == params["conditional_n"]:
        return "holds under conditions"
    if params.get("within_noise_k", -1) == n or ("approx_share" in params and count / n >= params["approx_share"]):
        return "holds approximately"
    return "does not hold"


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


@dataclass(frozen=True)
class Claim:
    """One row of a claims table (fields in the order of :data:`CLAIM_COLUMNS`; ``verdict`` is computed).

    ``paper`` and ``notebook`` are filled in by :func:`claims_table`.  ``location`` names where the paper
    states it ("Theorem 1", "Fig. 9", "Section 6.1"); ``conditions`` everything the measurement assumed
    (sizes, seeds, allocation, fault policy, the reading of the paper).  Numeric values are NaN where there is
    none; the texts say the same in words.  They are kept rounded to the precision of science files
    (:func:`torus_lab.precision.round_significant`), so the verdict is computed from the very numbers the
    claims table's file holds, and the report, which recomputes it from the file, finds the same.

    Examples
    --------
    >>> c = Claim(claim_id="bound", location="Theorem 1", statement="length <= bound", conditions="n = 2..7",
    ...           paper_text="bound", measured_text="max/bound 0.8", measured_value=0.8,
    ...           rule=Rule("at_most", {"bound": 1}), evidence=("data/disjoint_paths/disjoint_paths.csv",))
    >>> c.verdict
    'holds'
    """

    claim_id: str
    location: str
    statement: str
    conditions: str
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

    def __post_init__(self) -> None:
        for name in ("claim_id", "location", "statement", "conditions", "paper_text", "measured_text"):
            if not check_str(name, getattr(self, name)).strip():
                raise ValueError(f"{name} of claim {self.claim_id!r} must not be empty")
        for name in ("ci_method", "paper", "notebook"):
            check_str(name, getattr(self, name))
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

    @property
    def ci(self) -> tuple[float, float] | None:
        """The confidence interval, or None."""
        return None if math.isnan(self.ci_low) else (self.ci_low, self.ci_high)

    @property
    def verdict(self) -> str:
        """The verdict computed by :func:`evaluate` from the rule."""
        return evaluate(self.rule, self.paper_value, self.measured_value, self.ci)

    def row(self) -> dict[str, Any]:
        """The claim as a table row (keys :data:`CLAIM_COLUMNS`)."""
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        values.update(rule=self.rule.kind, rule_params=self.rule.to_json(), rule_text=self.rule.sentence(),
                      verdict=self.verdict, evidence=", ".join(self.evidence))  # fmt: skip
        return {column: values[column] for column in CLAIM_COLUMNS}


def claims_table(paper: str, claims: Sequence[Claim], notebook: str | None = None) -> pd.DataFrame:
    """The claims table of ``paper`` (the experiment name): one row per claim, columns :data:`CLAIM_COLUMNS`.

    ``notebook`` defaults to ``notebooks/<paper>.ipynb``; claim ids must be unique.
    """
    check_str("paper", paper)
    notebook = f"notebooks/{paper}.ipynb" if notebook is None else check_str("notebook", notebook)
    claims = check_sequence("claims", claims)
    for i, item in enumerate(claims):
        check_instance(f"claims[{i}]", item, Claim)
    ids = [c.claim_id for c in claims]
    if len(set(ids)) != len(ids):
        raise ValueError(f"claim ids must be unique, got {sorted(i for i in set(ids) if ids.count(i) > 1)}")
    rows = [dataclasses.replace(c, paper=paper, notebook=notebook).row() for c in claims]
    return pd.DataFrame(rows, columns=CLAIM_COLUMNS)


def evidence_items(evidence: str) -> list[str]:
    """The paths of an ``evidence`` cell (comma-separated).

    Examples
    --------
    >>> evidence_items("data/a/x.csv, figures/a/y.png")
    ['data/a/x.csv', 'figures/a/y.png']
    """
    return [item.strip() for item in check_str("evidence", evidence).split(",") if item.strip()]


def check_claims_table(table: pd.DataFrame, name: str = "table") -> pd.DataFrame:
    """``table`` (e.g. read back from CSV) after checking its columns, verdicts and that every verdict is the
    one :func:`evaluate` computes from the row's rule; returns it with the numeric columns as floats.

    Raises
    ------
    ValueError
        Naming the first bad row.
    """
    check_frame(name, table, CLAIM_COLUMNS)
    table = table[CLAIM_COLUMNS].copy()
    for column in _NUMERIC_COLUMNS:
        table[column] = pd.to_numeric(table[column].replace("", math.nan), errors="raise").astype(float)
    for row in table.itertuples(index=False):
        if row.verdict not in VERDICTS:
            raise ValueError(f"{name}: claim {row.claim_id!r} has verdict {row.verdict!r}; allowed: {VERDICTS}")
        rule = Rule.from_columns(row.rule, row.rule_params)
        ci = None if math.isnan(row.ci_low) else (row.ci_low, row.ci_high)
        computed = evaluate(rule, row.paper_value, row.measured_value, ci)
        if computed != row.verdict:
            raise ValueError(f"{name}: claim {row.claim_id!r} says {row.verdict!r} but its rule gives {computed!r}")
        for item in evidence_items(row.evidence):
            _check_evidence_path(item)
    return table


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


def comparison_counts(strict: int, ties: int, within_noise: int, n: int, noise_test: str) -> tuple[float, str, Rule]:
    """The measured value, measured text and rule of a trend claim counted over ``n`` comparisons.

    The trend holds strictly in ``strict`` comparisons, ``ties`` are equal, and the others are reversed,
    ``within_noise`` of them only within noise (``noise_test`` says how noise is told, e.g. "overlapping 95% Wilson
    CIs").  The rule is ``all_of`` over the ``n`` comparisons; every comparison true, tied or reversed within
    noise gives "holds approximately".  Without comparisons the value is NaN ("not testable here").

    Parameters
    ----------
    strict, ties, within_noise, n : int
        The counts (``strict + ties <= n``, ``within_noise <= n - strict - ties``).
    noise_test : str
        How a reversal within noise is recognised, for the text.

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
    >>> comparison_counts(0, 0, 0, 0, "overlapping 95% CIs")[:2]
    (nan, 'no comparison in this run')
    """
    n = check_int("n", n, minimum=0)
    strict = check_int("strict", strict, minimum=0, maximum=n)
    ties = check_int("ties", ties, minimum=0, maximum=n - strict)
    within_noise = check_int("within_noise", within_noise, minimum=0, maximum=n - strict - ties)
    check_str("noise_test", noise_test)
    rule = Rule("all_of", {"n": n, "within_noise_k": strict + ties + within_noise})
    if not n:
        return math.nan, "no comparison in this run", rule
    text = (f"strictly true in {strict} of {n} comparisons; {ties} ties; {n - strict - ties} reversed, {within_noise} "
            f"of them within noise ({noise_test})")
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
