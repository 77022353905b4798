"""The claims schema: verdict rules at their boundaries, the table's columns and its round trip
through CSV, and every evidence path of the committed claims tables resolving to a file."""

from __future__ import annotations

import importlib
import math
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from torus_lab.claims import (
    CLAIM_COLUMNS,
    VERDICTS,
    Claim,
    Rule,
    check_claims_table,
    claims_table,
    comparison_counts,
    evaluate,
    evidence_items,
    location_items,
    not_testable_claim,
    paper_value_claim,
    uncovered_results,
)

ROOT = Path(__file__).resolve().parents[1]
NAN = math.nan
finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)
positive = st.floats(min_value=1e-3, max_value=1e3, allow_nan=False)


# ------------------------------------------------------------------------------------------ rules at boundaries
@pytest.mark.parametrize(("paper", "ci", "verdict"), [
    (1.2, (1.2, 1.3), "holds"), (1.3, (1.2, 1.3), "holds"), (1.31, (1.2, 1.3), "does not hold"),
    (1.19, (1.2, 1.3), "does not hold"), (1.2, None, "not testable here"), (NAN, (1.2, 1.3), "not testable here"),
])  # fmt: skip
def test_inside_ci(paper, ci, verdict):
    assert evaluate(Rule("inside_ci"), paper, 1.25, ci) == verdict


def test_inside_ci_approximately():
    rule = Rule("inside_ci", {"approx": 0.125})
    assert evaluate(rule, 1.0, 1.125, (1.1, 1.15)) == "holds approximately"   # 12.5% off, exact in binary
    assert evaluate(rule, 1.0, 1.126, (1.1, 1.15)) == "does not hold"


@pytest.mark.parametrize(("measured", "ci", "verdict"), [
    (1.5, None, "holds"), (1.4375, None, "holds"), (1.5625, None, "holds"),     # 12.5% of the excess 0.5
    (1.4374, None, "holds approximately"), (1.25, None, "holds approximately"),  # 50% off, within approx 0.5
    (1.2499, None, "does not hold"), (0.8, None, "does not hold"),               # wrong sign
    (1.2, (1.1, 1.5), "holds"),                # the paper's value inside the CI
])  # fmt: skip
def test_ratio_excess_within(measured, ci, verdict):
    rule = Rule("ratio_excess_within", {"tolerance": 0.125, "approx": 0.5})
    assert evaluate(rule, 1.5, measured, ci) == verdict


def test_ratio_tolerance_is_not_on_the_ratio():
    # "about 1.3" with a 10% tolerance on the ratio would accept 1.17..1.43, i.e. an improvement of 17%..43%
    rule = Rule("ratio_excess_within", {"tolerance": 0.1})
    assert evaluate(rule, 1.3, 1.238, (1.186, 1.292)) == "does not hold"
    assert evaluate(rule, 1.3, 1.275, None) == "holds"      # 27.5% vs 30%: within 10% of the improvement
    assert evaluate(rule, 1.3, 1.265, None) == "does not hold"


@given(paper=positive, measured=positive, tolerance=st.floats(0, 2))
def test_ratio_excess_within_is_symmetric_in_the_excess(paper, measured, tolerance):
    if paper == 1:
        return
    rule = Rule("ratio_excess_within", {"tolerance": tolerance})
    verdict = evaluate(rule, paper, measured)
    assert verdict in ("holds", "does not hold")
    assert (verdict == "holds") == (abs((measured - 1) - (paper - 1)) <= tolerance * abs(paper - 1))


@given(measured=finite, bound=finite)
def test_bounds_are_inclusive(measured, bound):
    at_most = evaluate(Rule("at_most", {"bound": bound}), None, measured)
    at_least = evaluate(Rule("at_least"), bound, measured)     # bound = the paper's value
    assert (at_most == "holds") == (measured <= bound)
    assert (at_least == "holds") == (measured >= bound)
    assert evaluate(Rule("at_most", {"bound": bound}), None, bound) == "holds"


def test_bound_with_a_looser_bound():
    rule = Rule("at_least", {"bound": 0.9, "approx_bound": 0.75})
    assert [evaluate(rule, None, v) for v in (0.9, 0.8999, 0.75, 0.7499)] == [
        "holds", "holds approximately", "holds approximately", "does not hold"]
    assert evaluate(Rule("at_most", {"bound": 4, "approx_bound": 5}), None, 4.5) == "holds approximately"


def test_bound_needs_a_bound():
    with pytest.raises(ValueError, match="bound"):
        evaluate(Rule("at_most"), None, 1.0)


def test_exact():
    assert evaluate(Rule("exact"), 3, 3) == "holds"
    assert evaluate(Rule("exact"), 3, 3.5) == "does not hold"
    assert evaluate(Rule("exact", {"tolerance": 0.5}), 3, 3.5) == "holds"


@given(n=st.integers(1, 500), data=st.data())
def test_all_of_is_strict(n, data):
    k = data.draw(st.integers(0, n))
    verdict = evaluate(Rule("all_of", {"n": n}), None, k)
    assert (verdict == "holds") == (k == n)
    assert verdict in ("holds", "does not hold")


def test_all_of_options():
    assert evaluate(Rule("all_of", {"n": 120, "approx_share": 0.95}), None, 114) == "holds approximately"
    assert evaluate(Rule("all_of", {"n": 120, "approx_share": 0.95}), None, 113) == "does not hold"
    assert evaluate(Rule("all_of", {"n": 120, "within_noise_k": 120}), None, 113) == "holds approximately"
    assert evaluate(Rule("all_of", {"n": 120, "within_noise_k": 119}), None, 113) == "does not hold"
    cond = {"n": 11, "condition": "k <= 4", "conditional_k": 8, "conditional_n": 8}
    assert evaluate(Rule("all_of", cond), None, 8) == "holds under conditions"
    assert evaluate(Rule("all_of", {**cond, "conditional_k": 7}), None, 7) == "does not hold"
    assert evaluate(Rule("all_of", cond), None, 11) == "holds"
    assert evaluate(Rule("all_of", {"n": 0}), None, 0) == "not testable here"
    with pytest.raises(ValueError, match="count"):
        evaluate(Rule("all_of", {"n": 3}), None, 4)
    with pytest.raises(ValueError, match="go together"):
        Rule("all_of", {"n": 3, "conditional_k": 1, "conditional_n": 1})


def test_fit_exponent_within():
    rule = Rule("fit_exponent_within", {"tolerance": 0.125, "approx": 0.25})
    assert evaluate(rule, 1.0, 1.125) == "holds" and evaluate(rule, 1.0, 0.875) == "holds"
    assert evaluate(rule, 1.0, 1.25) == "holds approximately"
    assert evaluate(rule, 1.0, 1.26) == "does not hold"


def test_subset():
    rule = Rule("subset", {"paper_set": [0, 1, 2], "measured_set": [0, 1]})
    assert evaluate(rule, 3, 2) == "holds approximately"
    assert evaluate(Rule("subset", {"paper_set": [0, 1], "measured_set": [1, 0]}), 2, 2) == "holds"
    assert evaluate(Rule("subset", {"paper_set": [0, 1], "measured_set": [1, 3]}), 2, 2) == "does not hold"


def test_manual_and_missing_measurements():
    rule = Rule("manual", {"verdict": "holds under conditions", "reason": "proof checked by hand"})
    assert evaluate(rule) == "holds under conditions"
    for kind, params in (("inside_ci", {}), ("at_most", {"bound": 1}), ("all_of", {"n": 2}),
                         ("fit_exponent_within", {"tolerance": 0.1})):  # fmt: skip
        assert evaluate(Rule(kind, params), 1.0, NAN, (0.0, 2.0)) == "not testable here"
        assert evaluate(Rule(kind, params), 1.0, None) == "not testable here"


@pytest.mark.parametrize(("kind", "params", "match"), [
    ("close_to", {}, "kind"), ("at_most", {"limit": 1}, "unknown"), ("ratio_excess_within", {}, "missing"),
    ("manual", {"verdict": "partly holds", "reason": "x"}, "verdict"), ("all_of", {"n": -1}, "n of rule"),
    ("exact", {"tolerance": -0.1}, "tolerance"),
])  # fmt: skip
def test_bad_rules_are_refused(kind, params, match):
    with pytest.raises(ValueError, match=match):
        Rule(kind, params)


@given(st.sampled_from([Rule("inside_ci", {"approx": 0.2}), Rule("all_of", {"n": 4, "within_noise_k": 3}),
                        Rule("subset", {"paper_set": [2, 1], "measured_set": [1]}),
                        Rule("manual", {"verdict": "does not hold", "reason": "a \"quoted\" reason"})]))
def test_rule_round_trips_through_its_columns(rule):
    assert Rule.from_columns(rule.kind, rule.to_json()) == rule
    assert rule.sentence()


# ------------------------------------------------------------------------------------------ the table
def _claim(**changes):
    values = dict(claim_id="c1", location="Theorem 1", statement="s", conditions="n = 2..4", paper_text="<= 1",
                  measured_text="0.8", measured_value=0.8, rule=Rule("at_most", {"bound": 1}),
                  evidence=("data/loads/loads.csv",))  # fmt: skip
    return Claim(**{**values, **changes})


def test_table_columns_verdict_and_csv_round_trip(tmp_path):
    table = claims_table("loads", [_claim(), _claim(claim_id="c2", measured_value=1.5, ci_low=1.4, ci_high=1.6,
                                                    ci_method="Wilson 95%")])
    assert list(table.columns) == CLAIM_COLUMNS
    assert table.verdict.tolist() == ["holds", "does not hold"]
    assert table.notebook.tolist() == ["notebooks/loads.ipynb"] * 2
    table.to_csv(tmp_path / "claims.csv", index=False)
    back = pd.read_csv(tmp_path / "claims.csv", dtype=str, keep_default_na=False)
    checked = check_claims_table(back)
    assert checked.verdict.tolist() == table.verdict.tolist()
    assert math.isnan(checked.ci_low[0]) and checked.ci_low[1] == 1.4


def test_a_typed_verdict_that_the_rule_does_not_give_is_refused():
    table = claims_table("loads", [_claim()])
    table.loc[0, "verdict"] = "does not hold"
    with pytest.raises(ValueError, match="its rule gives 'holds'"):
        check_claims_table(table)
    table.loc[0, "verdict"] = "partly holds"
    with pytest.raises(ValueError, match="allowed"):
        check_claims_table(table)


@pytest.mark.parametrize("evidence", [("/abs/x.csv",), ("../x.csv",), ("data/*/x.csv",), ("a.csv, b.csv",), ()])
def test_bad_evidence_is_refused(evidence):
    with pytest.raises(ValueError):
        _claim(evidence=evidence)


def test_claim_checks():
    with pytest.raises(ValueError, match="ci_low and ci_high"):
        _claim(ci_low=0.1, ci_high=0.2)
    with pytest.raises(ValueError, match="location"):
        _claim(location=" ")
    with pytest.raises(ValueError, match="unique"):
        claims_table("loads", [_claim(), _claim()])
    assert set(VERDICTS) >= {"holds under conditions", "holds approximately", "not testable here"}


# ------------------------------------------------------------------------------------------ committed tables
def _committed_tables() -> list[Path]:
    return sorted((ROOT / "data").glob("*/claims.csv")) + [ROOT / "data" / "claims.csv"]


@pytest.mark.parametrize("path", _committed_tables(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_committed_tables_follow_the_schema_and_their_evidence_resolves(path):
    table = check_claims_table(pd.read_csv(path, dtype=str, keep_default_na=False), str(path))
    missing = [(row.claim_id, item) for row in table.itertuples() for item in evidence_items(row.evidence)
               if not (ROOT / item).is_file()]
    assert not missing
    assert all((ROOT / notebook).is_file() for notebook in table.notebook)


PAPER_STUDIES = ("direction_first", "disjoint_paths", "fault_tolerant", "loads", "virtual_mesh")


@pytest.mark.parametrize("study", PAPER_STUDIES)
def test_committed_tables_cover_every_numbered_result_of_their_paper(study):
    """Each paper's committed claims table names every numbered result its study lists."""
    module = importlib.import_module(f"torus_lab.studies.{study}_claims")
    table = pd.read_csv(ROOT / "data" / study / "claims.csv", dtype=str, keep_default_na=False)
    assert module.PAPER_RESULTS and uncovered_results(table, module.PAPER_RESULTS) == []

# ------------------------------------------------------------------------------------------ the report's claims parts
def test_site_claims_page_shows_conditions_verdicts_and_evidence():
    from pathlib import Path

    from torus_lab import report, site

    table = claims_table("loads", [_claim(conditions="d = 2, run length {'warmup': 3000, 'drain': None}"),
                                   _claim(claim_id="c2", measured_value=2.0)])  # fmt: skip
    entry = site.SiteEntry("loads", "Loads", Path("loads.ipynb"), None, table, report.verdict_counts(table.verdict))
    page = site._claims_page([entry], frozenset({"data/loads/loads.csv"}))
    assert page.count("<tr class='tl-ok'>") == 1 and page.count("<tr class='tl-no'>") == 1
    assert "d = 2, run length (warmup 3000, drain none)" in page and "{'" not in page
    assert "href='../data/loads/loads.csv'" in page and "href='../data/loads/claims.csv'" in page
    assert all(v in page for v in VERDICTS)
    assert report.verdict_counts(table.verdict) == "1 holds, 1 does not hold"
    assert report.verdict_counts(["holds approximately"] * 2) == "2 hold approximately"


class TestCoverage:
    """`location_items` and `uncovered_results`: which numbered results of a paper no claim names."""

    def test_items_split_on_semicolons(self):
        assert location_items(" Lemma 3 ;Fig. 10;; ") == ["Lemma 3", "Fig. 10"]

    def test_uncovered_keeps_order_and_matches_whole_items(self):
        table = pd.DataFrame({"location": ["Theorem 1; Fig. 9", "Fig. 10 (left)"]})
        # "Fig. 10" is not named: only whole items count, so a row must spell the result exactly
        assert uncovered_results(table, ["Fig. 10", "Theorem 1", "Theorem 10"]) == ["Fig. 10", "Theorem 10"]

    def test_all_covered_is_empty(self):
        table = pd.DataFrame({"location": ["Lemma 1", "Lemma 2; Table 2"]})
        assert uncovered_results(table, ["Lemma 2", "Table 2", "Lemma 1"]) == []

    def test_bad_arguments_are_named(self):
        with pytest.raises(ValueError, match="location"):
            uncovered_results(pd.DataFrame({"verdict": ["holds"]}), ["Lemma 1"])
        with pytest.raises(TypeError, match="results"):
            uncovered_results(pd.DataFrame({"location": ["Lemma 1"]}), "Lemma 1")


class TestComparisonCounts:
    """`comparison_counts`: a trend counted over n comparisons, its sentence and its all_of rule."""

    @staticmethod
    def _verdict(strict, ties, noise, n):
        value, _, rule = comparison_counts(strict, ties, noise, n, "overlapping 95% CIs")
        return evaluate(rule, None, value)

    def test_verdict_at_the_boundaries(self):
        assert self._verdict(4, 0, 0, 4) == "holds"
        assert self._verdict(3, 1, 0, 4) == "holds approximately"    # a tie is not the trend, but within noise
        assert self._verdict(2, 1, 1, 4) == "holds approximately"    # the one reversal lies within noise
        assert self._verdict(2, 1, 0, 4) == "does not hold"          # one reversal beyond noise
        assert self._verdict(0, 0, 0, 0) == "not testable here"

    def test_sentence(self):
        value, text, rule = comparison_counts(2, 1, 1, 5, "overlapping paired 95% CIs")
        assert value == 2 and rule.params["within_noise_k"] == 4
        assert text == ("strictly true in 2 of 5 comparisons; 1 ties; 2 reversed, 1 of them within noise "
                        "(overlapping paired 95% CIs)")
        assert comparison_counts(0, 0, 0, 0, "x")[1] == "no comparison in this run"

    @pytest.mark.parametrize(("args", "name"), [((5, 0, 0, 4), "strict"), ((3, 2, 0, 4), "ties"),
                                                 ((2, 1, 2, 4), "within_noise"), ((0, 0, 0, -1), "n"),
                                                 ((1.5, 0, 0, 4), "strict")])  # fmt: skip
    def test_inconsistent_counts_are_named(self, args, name):
        with pytest.raises((ValueError, TypeError), match=name):
            comparison_counts(*args, "x")
        with pytest.raises(TypeError, match="noise_test"):
            comparison_counts(0, 0, 0, 1, None)


class TestNotTestableClaim:
    """`not_testable_claim`: a coverage row whose verdict no number decides."""

    def test_row(self):
        row = not_testable_claim("fig1", "Fig. 1", "Fig. 1 draws it", "a drawing", "drawing", "ours",
                                 "nothing to measure", ("figures/a/b.png", "tests/test_a.py")).row()
        assert (row["verdict"], row["rule"], row["rule_text"]) == ("not testable here", "manual",
                                                                   "judged by hand: nothing to measure")
        assert row["evidence"] == "figures/a/b.png, tests/test_a.py" and math.isnan(row["measured_value"])

    def test_bad_arguments_are_named(self):
        with pytest.raises(TypeError, match="reason"):
            not_testable_claim("c", "Fig. 1", "s", "c", "p", "m", None, ("data/a/b.csv",))
        with pytest.raises(ValueError, match="evidence"):
            not_testable_claim("c", "Fig. 1", "s", "c", "p", "m", "r", ("/abs/b.csv",))
        with pytest.raises(ValueError, match="statement"):
            not_testable_claim("c", "Fig. 1", " ", "c", "p", "m", "r", ("data/a/b.csv",))


class TestPaperValueClaim:
    """`paper_value_claim`: a measured value with its confidence interval against the paper's printed value."""

    @staticmethod
    def _claim(measured, paper_value=1.3, rule=None, ci_method="delta method, 95%"):
        return paper_value_claim("ratio", "Section 5", "A / B is about 1.3", "N=128", paper_value, "about 1.3",
                                 measured, "measured", ci_method, rule or Rule("inside_ci"), ["data/a/r.csv"])

    def test_the_interval_decides_and_lands_in_the_row(self):
        row = self._claim((1.25, 1.2, 1.31)).row()
        assert (row["measured_value"], row["ci_low"], row["ci_high"]) == (1.25, 1.2, 1.31)
        assert row["ci_method"] == "delta method, 95%" and row["verdict"] == "holds"
        assert self._claim((1.25, 1.2, 1.29)).verdict == "does not hold"      # 1.3 just outside the interval
        # no printed number: the rule's own bound decides, the interval is still reported
        claim = self._claim((0.05, 0.01, 0.09), paper_value=None, rule=Rule("at_most", {"bound": 0.1}))
        assert math.isnan(claim.paper_value) and claim.ci == (0.01, 0.09) and claim.verdict == "holds"

    def test_a_missing_point_has_no_value_no_interval_and_no_method(self):
        claim = self._claim(None)
        assert math.isnan(claim.measured_value) and claim.ci is None and claim.ci_method == ""
        assert claim.verdict == "not testable here"

    @pytest.mark.parametrize(("measured", "ci_method", "name"), [
        ((1.2, 1.1), "m", "measured"), ((1.2, "x", 1.3), "m", r"measured\[1\]"), ((1.2, 1.1, 1.3), " ", "ci_method"),
        ((1.2, 1.3, 1.1), "m", "ci_low"), (1.2, "m", "measured")])  # fmt: skip
    def test_bad_arguments_are_named(self, measured, ci_method, name):
        with pytest.raises((ValueError, TypeError), match=name):
            self._claim(measured, ci_method=ci_method)
