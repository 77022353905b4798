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
    MIN_FIT_POINTS,
    MIN_JUDGED,
    MIN_JUDGED_SHARE,
    VERDICTS,
    Claim,
    Rule,
    check_claims_table,
    claims_table,
    comparison_counts,
    conditions_in_words,
    enough_judged,
    evaluate,
    evidence_items,
    evidence_sentence,
    location_items,
    not_testable_claim,
    paper_value_claim,
    uncovered_results,
    verdict_counts,
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
    (1.2, (1.1, 1.5), "inconclusive"),         # the paper's value inside the CI: never "holds" by itself
    (1.2, (1.1, 1.4375), "inconclusive"),      # the CI reaches the tolerance band 1.4375..1.5625
    (1.2, (1.1, 1.4374), "does not hold"),     # the whole CI outside the band
])  # fmt: skip
def test_ratio_excess_within(measured, ci, verdict):
    rule = Rule("ratio_excess_within", {"tolerance": 0.125, "approx": 0.5})
    assert evaluate(rule, 1.5, measured, ci) == verdict


def test_ratio_tolerance_is_not_on_the_ratio():
    # "about 1.3" with a 10% tolerance on the ratio would accept 1.17..1.43, i.e. an improvement of 17%..43%
    rule = Rule("ratio_excess_within", {"tolerance": 0.1})
    assert evaluate(rule, 1.3, 1.238, (1.186, 1.25)) == "does not hold"
    assert evaluate(rule, 1.3, 1.238, (1.186, 1.292)) == "inconclusive"   # the CI reaches 1.27, inside the band
    assert evaluate(rule, 1.3, 1.238, None, "statistical") == "does not hold"  # no CI: the value as observed
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


def test_all_cells_judges_named_cells_without_a_miss_rate():
    """``all_cells``: a count over the claim's named cells, each with its own test; on statistical evidence no miss
    rate over cells is bounded (``all_of`` would need 299 cells for "holds"), at the boundaries of the count."""
    cond = {"n": 4, "condition": "policy a", "conditional_k": 2, "conditional_n": 2}
    assert evaluate(Rule("all_cells", cond), None, 4, evidence_kind="statistical") == "holds"
    assert evaluate(Rule("all_cells", cond), None, 3, evidence_kind="statistical") == "holds under conditions"
    assert evaluate(Rule("all_cells", {**cond, "conditional_k": 1}), None, 3,
                    evidence_kind="statistical") == "does not hold"
    assert evaluate(Rule("all_cells", {"n": 4}), None, 3, evidence_kind="statistical") == "does not hold"
    assert evaluate(Rule("all_of", cond), None, 3, evidence_kind="statistical") == "inconclusive"
    assert evaluate(Rule("all_cells", {"n": 0}), None, 0) == "not testable here"
    assert evaluate(Rule("all_cells", {"n": 2}), None, NAN) == "not testable here"
    with pytest.raises(ValueError, match="count"):
        evaluate(Rule("all_cells", {"n": 3}), None, 4)
    with pytest.raises(ValueError, match="go together"):
        Rule("all_cells", {"n": 3, "conditional_k": 1, "conditional_n": 1})
    with pytest.raises(ValueError, match="unknown"):
        Rule("all_cells", {"n": 3, "max_rate": 0.1})
    claim = _claim(rule=Rule("all_cells", cond), measured_value=3, evidence_kind="statistical", n=20)
    assert claim.verdict == "holds under conditions"
    assert claim.evidence_text.startswith("statistical: 3 of 4 cells pass their own test (20 runs per cell)")
    assert "(policy a): 2 of 2" in claim.evidence_text
    assert "all 4 cells" in Rule("all_cells", cond).sentence()


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
                                   _claim(claim_id="c2", measured_value=2.0),
                                   _claim(claim_id="c3", rule=Rule("all_of", {"n": 3}), measured_value=3,
                                          conditions="3 random seeds", evidence_kind="statistical")])  # fmt: skip
    entry = site.SiteEntry("loads", "Loads", Path("loads.ipynb"), None, table, verdict_counts(table.verdict))
    page = site._claims_page([entry], frozenset({"data/loads/loads.csv"}))
    assert page.count("<tr class='tl-ok'>") == 1 and page.count("<tr class='tl-no'>") == 1
    assert page.count("<tr class='tl-inconclusive'>") == 1 and "<th>kind of evidence</th>" in page
    assert all(f"<small>{kind}<br>" in page for kind in table.evidence_kind) and "**1 holds, 1 inconclusive" in page
    assert "d = 2, run length (warmup = 3000, drain = none)" in page and "{'" not in page
    assert "href='../data/loads/loads.csv'" in page and "href='../data/loads/claims.csv'" in page
    assert all(v in page for v in VERDICTS)
    assert verdict_counts(["holds approximately"] * 2) == "2 hold approximately"
    assert not hasattr(report, "VERDICT_WORDS") and report.verdict_counts is verdict_counts  # one vocabulary


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
        assert self._verdict(8, 0, 0, 8) == "holds"
        assert self._verdict(7, 1, 0, 8) == "holds approximately"    # a tie is not the trend, but within noise
        assert self._verdict(6, 1, 1, 8) == "holds approximately"    # the one reversal lies within noise
        assert self._verdict(6, 1, 0, 8) == "does not hold"          # one reversal beyond noise
        assert self._verdict(0, 0, 0, 0) == "not testable here"

    @pytest.mark.parametrize(("judged", "verdict"), [(MIN_JUDGED - 1, "inconclusive"), (MIN_JUDGED, "holds"),
                                                     (MIN_JUDGED + 1, "holds")])  # fmt: skip
    def test_too_few_comparisons_decide_nothing(self, judged, verdict):
        """Every judged comparison true: a verdict only from MIN_JUDGED judged comparisons on."""
        assert self._verdict(judged, 0, 0, judged) == verdict
        value, _, rule = comparison_counts(judged - 1, 0, 0, judged, "x")      # one reversal beyond noise
        assert evaluate(rule, None, value) == ("inconclusive" if verdict == "inconclusive" else "does not hold")

    def test_unjudged_comparisons_count_against_the_share(self):
        n = 40                                                   # 25% of 40 = 10 judged comparisons needed
        for judged, verdict in ((9, "inconclusive"), (10, "does not hold"), (11, "does not hold")):
            value, text, rule = comparison_counts(judged, 0, 0, n, "x", judged)
            assert evaluate(rule, None, value) == verdict, judged
            assert f"{n - judged} not judged" in text and rule.params["judged"] == judged

    def test_sentence(self):
        value, text, rule = comparison_counts(2, 1, 1, 5, "overlapping paired 95% CIs")
        assert value == 2 and rule.params["within_noise_k"] == 4 and rule.params["judged"] == 5
        assert text == ("strictly true in 2 of 5 comparisons; 1 ties; 2 reversed, 1 of them within noise "
                        "(overlapping paired 95% CIs)")
        assert comparison_counts(0, 0, 0, 0, "x")[1] == "no comparison in this run"
        with pytest.raises(ValueError, match="judged"):
            comparison_counts(0, 0, 0, 3, "x", 4)

    @pytest.mark.parametrize(("args", "name"), [((5, 0, 0, 4), "strict"), ((3, 2, 0, 4), "ties"),
                                                 ((2, 1, 2, 4), "within_noise"), ((0, 0, 0, -1), "n"),
                                                 ((1.5, 0, 0, 4), "strict")])  # fmt: skip
    def test_inconsistent_counts_are_named(self, args, name):
        with pytest.raises((ValueError, TypeError), match=name):
            comparison_counts(*args, "x")
        with pytest.raises(TypeError, match="noise_test"):
            comparison_counts(0, 0, 0, 1, None)


class TestJudgedCells:
    """The minimum of judged cells (docs/conventions.md#claims-judged) at its boundaries: n - 1, n, n + 1."""

    @staticmethod
    def _conditional(judged, n):
        """A "holds under conditions" count: every judged cell satisfies the claim, the others did not deliver."""
        return Rule("all_of", {"n": n, "condition": "the cells that delivered", "conditional_k": judged,
                               "conditional_n": judged, "judged": judged})

    def test_defaults_are_documented(self):
        text = (ROOT / "docs" / "conventions.md").read_text()
        assert f"`MIN_JUDGED` = {MIN_JUDGED}" in text and f"`MIN_JUDGED_SHARE` = {MIN_JUDGED_SHARE:.0%}" in text
        assert f"`MIN_FIT_POINTS` = {MIN_FIT_POINTS}" in text

    @pytest.mark.parametrize("delta", [-1, 0, 1])
    def test_count_boundary(self, delta):
        """A large scope (the share is no constraint): MIN_JUDGED judged cells decide."""
        judged, n = MIN_JUDGED + delta, int((MIN_JUDGED - 1) / MIN_JUDGED_SHARE)     # n - 1 judged meet the share
        expected = "inconclusive" if delta < 0 else "holds under conditions"
        assert evaluate(self._conditional(judged, n), None, judged) == expected
        assert enough_judged(judged, n) is (delta >= 0)

    @pytest.mark.parametrize("delta", [-1, 0, 1])
    def test_share_boundary(self, delta):
        """Many judged cells (the count is no constraint): the share of n decides."""
        judged = 4 * MIN_JUDGED
        n = round(judged / MIN_JUDGED_SHARE) - delta          # delta -1: one cell too many for the share
        expected = "inconclusive" if delta < 0 else "holds under conditions"
        assert evaluate(self._conditional(judged, n), None, judged) == expected
        assert enough_judged(judged, n) is (delta >= 0)

    def test_known_cases(self):
        """1 of 18 and 5 of 53 judged cells are too few; a miss among too few judged cells is no counterexample."""
        assert evaluate(self._conditional(1, 18), None, 1) == "inconclusive"
        assert evaluate(self._conditional(5, 53), None, 5) == "inconclusive"
        miss = Rule("all_of", {"n": 18, "condition": "c", "conditional_k": 0, "conditional_n": 1, "judged": 1})
        assert evaluate(miss, None, 0) == "inconclusive"
        assert evaluate(Rule("all_of", {"n": 18, "judged": 18}), None, 17) == "does not hold"

    def test_rule_overrides_and_evidence(self):
        rule = Rule("all_of", {"n": 10, "judged": 2, "min_judged": 2, "min_judged_share": 0.2})
        assert evaluate(rule, None, 2) == "does not hold"        # 2 of 10 judged suffice for this rule
        assert "at least 2 judged cases" in rule.sentence()
        text = evidence_sentence("exhaustive", self._conditional(1, 18), 1)
        assert "1 of 18 cases delivered a judgement" in text and "too few, inconclusive" in text
        assert "too few" not in evidence_sentence("exhaustive", self._conditional(18, 35), 18)

    @pytest.mark.parametrize(("params", "name"), [({"n": 3, "judged": 4}, "judged"),
                                                   ({"n": 3, "min_judged": 2}, "min_judged"),
                                                   ({"n": 3, "judged": 2, "min_judged_share": 1.5},
                                                    "min_judged_share")])  # fmt: skip
    def test_bad_params_are_named(self, params, name):
        with pytest.raises(ValueError, match=name):
            Rule("all_of", params)

    def test_enough_judged_rejects_bad_counts(self):
        with pytest.raises(ValueError, match="judged"):
            enough_judged(5, 4)
        with pytest.raises(ValueError, match="share"):
            enough_judged(1, 4, share=2.0)


class TestFitPoints:
    """A fitted value through fewer than MIN_FIT_POINTS points is inconclusive, never a counterexample."""

    @pytest.mark.parametrize("delta", [-1, 0, 1])
    @pytest.mark.parametrize(("rule", "paper", "measured", "miss"), [
        (Rule("fit_exponent_within", {"tolerance": 0.1}), 1.0, 1.5, "does not hold"),
        (Rule("at_most", {"bound": 1.1}), None, 1.2, "does not hold"),
        (Rule("at_least", {"bound": 1}), None, 0, "does not hold"),
    ])  # fmt: skip
    def test_boundary(self, rule, paper, measured, miss, delta):
        fitted = Rule(rule.kind, {**rule.params, "fit_points": MIN_FIT_POINTS + delta})
        assert evaluate(fitted, paper, measured) == ("inconclusive" if delta < 0 else miss)
        assert evaluate(fitted, paper, float("nan")) == "not testable here"
        assert "fewer than 3 points" in fitted.sentence()
        assert ("fewer than 3: inconclusive" in evidence_sentence("exhaustive", fitted, measured)) is (delta < 0)


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


# ------------------------------------------------------------------------------------------ evidence and power
from scipy import stats  # noqa: E402

from torus_lab.claims import (  # noqa: E402
    DEFAULT_MAX_RATE,
    EVIDENCE_KINDS,
    LEGACY_CLAIM_COLUMNS,
    REPRODUCED_VERDICTS,
    claims_changes,
    conditions_text,
    derive_evidence_kind,
    minimal_detectable_effect,
    rate_upper_bound,
    referee_summary,
    upgrade_claims_table,
)


class TestRateUpperBound:
    """`rate_upper_bound`: Clopper-Pearson one-sided, the rule of three for 0 of n."""

    @given(n=st.integers(1, 2000), data=st.data())
    def test_matches_the_exact_binomial_interval(self, n, data):
        events = data.draw(st.integers(0, n - 1))
        two_sided_90 = stats.binomtest(events, n).proportion_ci(0.90, method="exact").high
        assert rate_upper_bound(events, n) == pytest.approx(two_sided_90, rel=1e-9)

    @given(n=st.integers(1, 5000))
    def test_zero_events_and_the_rule_of_three(self, n):
        bound = rate_upper_bound(0, n)
        assert bound == pytest.approx(1 - 0.05 ** (1 / n), rel=1e-9)
        assert bound <= 3 / n           # the rule of three is a slight over-estimate
        assert rate_upper_bound(1, n) > bound if n > 1 else rate_upper_bound(1, 1) == 1.0

    def test_bad_counts(self):
        with pytest.raises(ValueError, match="events"):
            rate_upper_bound(3, 2)
        with pytest.raises(ValueError, match="n"):
            rate_upper_bound(0, 0)
        with pytest.raises(ValueError, match="confidence"):
            rate_upper_bound(0, 10, 1.0)


class TestMinimalDetectableEffect:
    """`minimal_detectable_effect`: (z(1 - alpha/2) + z(power)) standard errors."""

    @given(half_width=st.floats(0, 1e3))
    def test_at_power_one_half_it_is_the_half_width(self, half_width):
        assert minimal_detectable_effect(half_width, 0.05, 0.5) == pytest.approx(half_width, abs=1e-12)

    def test_grows_with_power_and_shrinks_with_alpha(self):
        assert minimal_detectable_effect(1.0, 0.05, 0.9) > minimal_detectable_effect(1.0, 0.05, 0.8) > 1.0
        assert minimal_detectable_effect(1.0, 0.05, 0.8) == pytest.approx((1.959964 + 0.841621) / 1.959964, 1e-6)
        with pytest.raises(ValueError, match="alpha"):
            minimal_detectable_effect(1.0, 0.0)
        with pytest.raises(ValueError, match="power"):
            minimal_detectable_effect(1.0, 0.05, 1.0)


class TestStatisticalVerdicts:
    """The verdict rules on statistical evidence at their boundaries."""

    def test_none_observed_needs_enough_runs(self):
        # 0 of n: the 95% bound 1 - 0.05**(1/n) is <= 1% from n = 299 on
        rule = Rule("all_of", {"n": 299})
        assert rate_upper_bound(0, 299) <= DEFAULT_MAX_RATE < rate_upper_bound(0, 298)
        assert evaluate(rule, None, 299, evidence_kind="statistical") == "holds"
        assert evaluate(Rule("all_of", {"n": 298}), None, 298, evidence_kind="statistical") == "inconclusive"
        assert evaluate(Rule("all_of", {"n": 120}), None, 120, evidence_kind="exhaustive") == "holds"
        assert evaluate(Rule("all_of", {"n": 120, "max_rate": 0.025}), None, 120, evidence_kind="statistical") \
            == "holds"                                        # 2.47% <= 2.5%
        assert evaluate(Rule("all_of", {"n": 120, "max_rate": 0.024}), None, 120, evidence_kind="statistical") \
            == "inconclusive"

    def test_a_miss_in_a_sample_is_a_counterexample(self):
        assert evaluate(Rule("all_of", {"n": 1000}), None, 999, evidence_kind="statistical") == "does not hold"
        cond = {"n": 400, "condition": "atomic", "conditional_k": 100, "conditional_n": 100}
        assert evaluate(Rule("all_of", cond), None, 300, evidence_kind="statistical") == "inconclusive"
        assert evaluate(Rule("all_of", {**cond, "conditional_k": 299, "conditional_n": 299}), None, 299,
                        evidence_kind="statistical") == "holds under conditions"  # fmt: skip

    @pytest.mark.parametrize(("ci", "kind", "verdict"), [
        ((0.25, 0.75), "statistical", "inconclusive"),      # the CI reaches the bound 0.5
        ((0.5, 0.75), "statistical", "inconclusive"),       # boundary: inclusive
        ((0.5001, 0.75), "statistical", "does not hold"),   # the whole CI above the bound
        (None, "statistical", "does not hold"),              # without a CI: an observed case beyond the bound
        (None, "exhaustive", "does not hold"),
    ])  # fmt: skip
    def test_a_bound_missed(self, ci, kind, verdict):
        assert evaluate(Rule("at_most", {"bound": 0.5}), None, 0.625, ci, kind) == verdict
        assert evaluate(Rule("at_most", {"bound": 0.5}), None, 0.5, ci, kind) == "holds"

    def test_absence_of_evidence_is_not_a_contradiction(self):
        # "in some cases latency is lower": no significant case found among a sample
        exists = Rule("at_least", {"bound": 1, "exists": True})
        assert evaluate(exists, None, 0, None, "statistical") == "inconclusive"
        assert evaluate(exists, None, 1, None, "statistical") == "holds"
        assert evaluate(exists, None, 0, None, "exhaustive") == "does not hold"     # every case was looked at
        assert evaluate(Rule("at_least", {"bound": 1}), None, 0, None, "statistical") == "does not hold"
        assert "existence claim" in exists.sentence()
        with pytest.raises(TypeError, match="exists"):
            Rule("at_least", {"exists": "yes"})

    @pytest.mark.parametrize(("measured", "ci", "verdict"), [
        (0.0, (-0.75, 0.75), "inconclusive"),  # inside +-1, but detects only 1.07 > 1 at power 0.8
        (0.0, (-0.5, 0.5), "holds"),           # detects 0.715 <= 1
        (0.5, (0.25, 0.75), "holds"),          # a significant difference smaller than the effect
        (1.0, (0.75, 1.25), "inconclusive"),   # at the effect: not beyond it
        (1.5, (1.25, 1.75), "does not hold"),  # significant and larger than the effect
        (1.5, (-0.25, 3.25), "inconclusive"),  # large but not significant: absence of evidence
        (1.5, None, "not testable here"),
    ])  # fmt: skip
    def test_no_difference(self, measured, ci, verdict):
        assert evaluate(Rule("no_difference", {"effect": 1.0}), None, measured, ci) == verdict

    def test_no_difference_power_is_a_parameter(self):
        ci = (-0.5, 0.5)
        assert minimal_detectable_effect(0.5, 0.05, 0.5) == pytest.approx(0.5)
        assert evaluate(Rule("no_difference", {"effect": 0.5, "power": 0.5}), None, 0.0, ci) == "holds"
        assert evaluate(Rule("no_difference", {"effect": 0.5, "power": 0.8}), None, 0.0, ci) == "inconclusive"
        with pytest.raises(ValueError, match="power"):
            Rule("no_difference", {"effect": 1.0, "power": 1.5})

    @pytest.mark.parametrize("kind", EVIDENCE_KINDS)
    def test_definition_and_not_testable_override_the_numbers(self, kind):
        verdict = evaluate(Rule("exact"), 3, 3, None, kind)
        expected = {"by definition": "true by definition", "not testable": "not testable here"}.get(kind, "holds")
        assert verdict == expected
        assert "true by definition" not in REPRODUCED_VERDICTS
        with pytest.raises(ValueError, match="evidence_kind"):
            evaluate(Rule("exact"), 3, 3, None, "proof")


@given(paper=positive, measured=positive, tolerance=st.floats(0, 2), width=st.floats(0, 10),
       kind=st.sampled_from(["ratio_excess_within", "fit_exponent_within"]))
def test_the_tolerance_alone_decides_holds(paper, measured, tolerance, width, kind):
    """docs/conventions.md#claims-tolerance: the CI never turns a miss of the tolerance into "holds", and a miss
    is "does not hold" only when the CI lies outside the tolerance band."""
    if paper == 1:
        return
    scale = abs(paper - 1) if kind == "ratio_excess_within" else 1.0
    ci = (measured - width, measured + width)
    verdict = evaluate(Rule(kind, {"tolerance": tolerance}), paper, measured, ci)
    distance = abs((measured - 1) - (paper - 1)) if kind == "ratio_excess_within" else abs(measured - paper)
    within = distance <= tolerance * scale
    reaches = ci[0] - tolerance * scale <= paper <= ci[1] + tolerance * scale
    assert (verdict == "holds") == within
    if not within:
        assert verdict == ("inconclusive" if reaches else "does not hold")


class TestEvidenceKind:
    """`derive_evidence_kind`, `evidence_sentence` and the new columns of a row."""

    @pytest.mark.parametrize(("rule", "measured", "ci_method", "conditions", "kind"), [
        (Rule("all_of", {"n": 4}), 4, "", "k = 2..5", "exhaustive"),
        (Rule("all_of", {"n": 4}), 3, "", "k = 2..5", "counterexample"),
        (Rule("all_of", {"n": 4, "within_noise_k": 4}), 3, "", "k = 2..5", "exhaustive"),  # not "does not hold"
        (Rule("all_of", {"n": 4}), 4, "", "20 seeds per point", "statistical"),
        (Rule("all_of", {"n": 4}), 4, "", "random connected faults", "statistical"),
        (Rule("all_of", {"n": 4}), 4, "", "experiment seed 1996", "exhaustive"),   # a seed alone samples nothing
        (Rule("at_most", {"bound": 1}), 0.5, "Wilson 95%", "k = 4", "statistical"),
        (Rule("at_most", {"bound": 1}), NAN, "", "k = 4", "not testable"),
        (Rule("manual", {"verdict": "not testable here", "reason": "a drawing"}), 2.0, "", "k = 4", "not testable"),
        (Rule("manual", {"verdict": "holds", "reason": "proof read"}), NAN, "", "k = 4", "exhaustive"),
    ])  # fmt: skip
    def test_derivation(self, rule, measured, ci_method, conditions, kind):
        assert derive_evidence_kind(rule, measured, ci_method, conditions) == kind

    def test_a_statistical_row_states_its_sample(self):
        claim = _claim(rule=Rule("all_of", {"n": 120}), measured_value=120, conditions="120 runs", paper_text="never")
        assert (claim.evidence_kind, claim.n, claim.verdict) == ("statistical", 120, "inconclusive")
        assert "0 misses in 120" in claim.evidence_text and "2.47%" in claim.evidence_text
        row = claim.row()
        assert (row["evidence_kind"], row["n"]) == ("statistical", 120.0)
        stated = _claim(measured_value=0.8, ci_low=0.7, ci_high=0.9, ci_method="bootstrap 95%", n=50)
        assert stated.evidence_text == "statistical: n = 50, estimate 0.8, bootstrap 95% [0.7, 0.9]"
        assert "detectable" in evidence_sentence("statistical", Rule("no_difference", {"effect": 1}), 0.0, (-1, 1))

    def test_by_definition_is_stated_never_counted(self):
        claim = _claim(evidence_kind="by definition")
        assert claim.verdict == "true by definition" and "not a reproduction" in claim.evidence_text
        with pytest.raises(ValueError, match="evidence_kind"):
            _claim(evidence_kind="proof")
        with pytest.raises(ValueError, match="n"):
            _claim(n=-1)


class TestConditionsInWords:
    """`conditions_text` and the rendering of dicts that leak into `conditions`."""

    def test_mapping(self):
        assert conditions_text({"k": 8, "faults": 2, "atomic": True, "cap": None, "sizes": [4, 8], "p": 0.5}) \
            == "k = 8, faults = 2, atomic = yes, cap = none, sizes = [4, 8], p = 0.5"
        assert _claim(conditions={"k": 8, "fault_policy": "y"}).conditions == "k = 8, fault policy = y"
        with pytest.raises(TypeError, match="conditions"):
            conditions_text("k = 8")

    def test_embedded_dict_reprs_are_rendered(self):
        leaked = ("2 replicas, run length {'run_control': 'adaptive', 'latency_cap': None, "
                  "'inner': {'warmup': 3000}} (offered 1.0: {'measure': 20000})")
        claim = _claim(conditions=leaked)
        assert claim.conditions == ("2 replicas, run length (run control = adaptive, latency cap = none, inner = "
                                    "(warmup = 3000)) (offered 1.0: (measure = 20000))")
        assert "{" not in claim.conditions and "'" not in claim.conditions

    @pytest.mark.parametrize("text", ["sets {0, 1} and {2}", "a brace { left open", "{}", "{not python}"])
    def test_other_braces_are_kept(self, text):
        assert _claim(conditions=text).conditions == text


# ------------------------------------------------------------------------------------------ tables of two schemas
def test_new_columns_round_trip_and_are_checked(tmp_path):
    table = claims_table("loads", [_claim(rule=Rule("all_of", {"n": 400}), measured_value=400, conditions="random",
                                          paper_text="never")])  # fmt: skip
    table.to_csv(tmp_path / "claims.csv", index=False)
    back = check_claims_table(pd.read_csv(tmp_path / "claims.csv", dtype=str, keep_default_na=False))
    assert back.loc[0, "evidence_kind"] == "statistical" and back.loc[0, "n"] == 400.0
    assert back.loc[0, "verdict"] == "holds"
    bad = table.copy()
    bad.loc[0, "evidence_kind"] = "by definition"     # would make the verdict "true by definition"
    with pytest.raises(ValueError, match="its rule gives 'true by definition'"):
        check_claims_table(bad)
    bad.loc[0, "evidence_kind"] = "proof"
    with pytest.raises(ValueError, match="evidence_kind"):
        check_claims_table(bad)


def test_a_legacy_table_is_kept_as_written_and_upgraded_on_request():
    legacy = claims_table("loads", [_claim(rule=Rule("all_of", {"n": 120}), measured_value=120,
                                           evidence_kind="exhaustive")])[LEGACY_CLAIM_COLUMNS]  # fmt: skip
    legacy.loc[0, "conditions"] = "120 runs, {'warmup': 10}"
    checked = check_claims_table(legacy)
    assert list(checked.columns) == CLAIM_COLUMNS
    assert checked.loc[0, "verdict"] == "holds" and checked.loc[0, "evidence_kind"] == ""
    upgraded = upgrade_claims_table(legacy)
    assert upgraded.loc[0, "verdict"] == "inconclusive" and upgraded.loc[0, "evidence_kind"] == "statistical"
    assert upgraded.loc[0, "conditions"] == "120 runs, (warmup = 10)"
    check_claims_table(upgraded)


class TestRefereeSummary:
    """`referee_summary`: counts, reproduced rows, and the findings chosen by the documented rule."""

    @staticmethod
    def _table():
        exact = Rule("exact")
        rows = [
            dict(claim_id="ok", measured_value=1.0, paper_value=1.0, rule=exact),
            dict(claim_id="def", evidence_kind="by definition"),
            dict(claim_id="small_miss", measured_value=1.25, paper_value=1.0, rule=exact),
            dict(claim_id="undecided", measured_value=4.0, paper_value=1.0, rule=exact, ci_low=0.5, ci_high=5.0,
                 ci_method="bootstrap 95%"),
            dict(claim_id="big_miss", measured_value=3.0, paper_value=1.0, rule=exact),
            dict(claim_id="untested", measured_value=NAN),
        ]
        return claims_table("loads", [_claim(**row, measured_text=f"value of {row['claim_id']}") for row in rows])

    def test_counts_and_order_of_findings(self):
        summary = referee_summary(self._table())
        assert summary.papers == ("loads",) and summary.claims == 6
        assert dict(summary.verdicts) == {"holds": 1, "inconclusive": 1, "does not hold": 2,
                                          "true by definition": 1, "not testable here": 1}
        assert summary.reproduced == 1                 # the by-definition row is never counted
        assert dict(summary.evidence_kinds) == {"exhaustive": 3, "statistical": 1, "by definition": 1,
                                                "not testable": 1}
        # does not hold before inconclusive, the larger effect first: big_miss (200%), small_miss (25%), undecided
        order = [next(cid for cid in ("big_miss", "small_miss", "undecided") if f"value of {cid}," in finding)
                 for finding in summary.findings]
        assert order == ["big_miss", "small_miss", "undecided"]
        assert all(finding.startswith("Theorem 1: ") for finding in summary.findings)
        assert len(referee_summary(self._table(), max_findings=1).findings) == 1
        assert "1 reproduced" in summary.text() and "\n- Theorem 1" in summary.text()

    def test_verdict_counts_cover_every_verdict(self):
        from torus_lab.claims import VERDICT_PLURALS, verdict_counts

        assert set(VERDICT_PLURALS) == set(VERDICTS)
        every = [v for v in VERDICTS for _ in range(2)]
        assert verdict_counts(every) == ", ".join(f"2 {VERDICT_PLURALS[v]}" for v in VERDICTS)
        assert verdict_counts(pd.Series(["inconclusive", "holds"])) == "1 holds, 1 inconclusive"
        with pytest.raises(ValueError, match="verdicts"):
            verdict_counts(["partly holds"])

    def test_no_findings(self):
        summary = referee_summary(claims_table("loads", [_claim()]))
        assert summary.findings == () and "No claim fails" in summary.text()
        with pytest.raises(ValueError, match="max_findings"):
            referee_summary(claims_table("loads", [_claim()]), max_findings=-1)


class TestClaimsChanges:
    """`claims_changes`: the rows whose verdict or evidence changed between two tables."""

    def test_changed_added_removed(self):
        old = claims_table("loads", [_claim(), _claim(claim_id="gone"), _claim(claim_id="c3", measured_value=2.0)])
        new = claims_table("loads", [_claim(), _claim(claim_id="c3", measured_value=0.5), _claim(claim_id="fresh")])
        changes = claims_changes(old, new)
        assert changes[["claim_id", "change", "old_verdict", "new_verdict"]].values.tolist() == [
            ["c3", "changed", "does not hold", "holds"], ["fresh", "added", "", "holds"],
            ["gone", "removed", "holds", ""]]
        assert claims_changes(new, new).empty

    def test_evidence_alone_counts_and_legacy_tables_record_none(self):
        rule = Rule("all_of", {"n": 400})
        old = claims_table("loads", [_claim(rule=rule, measured_value=400)])
        new = claims_table("loads", [_claim(rule=rule, measured_value=400, evidence_kind="statistical")])
        changes = claims_changes(old, new)
        assert changes[["old_verdict", "new_verdict", "old_evidence_kind", "new_evidence_kind"]].values.tolist() \
            == [["holds", "holds", "exhaustive", "statistical"]]
        legacy = claims_changes(old[LEGACY_CLAIM_COLUMNS], old)
        assert legacy.old_evidence_kind.tolist() == [""] and legacy.new_evidence_kind.tolist() == ["exhaustive"]

    def test_the_old_table_is_taken_as_written_under_the_rules_of_its_time(self, tmp_path):
        """A committed table written under earlier rules (its verdict is not what today's rule gives) is compared
        as it was written, read back from CSV; a verdict outside the vocabulary is still refused."""
        new = claims_table("loads", [_claim()])
        old = new.copy()
        old.loc[0, "verdict"] = "does not hold"       # what an earlier rule said
        with pytest.raises(ValueError, match="its rule gives"):
            check_claims_table(old)
        old.to_csv(tmp_path / "claims.csv", index=False)
        written = pd.read_csv(tmp_path / "claims.csv", dtype=str, keep_default_na=False)
        changes = claims_changes(written, new)
        assert changes[["change", "old_verdict", "new_verdict"]].values.tolist() == [["changed", "does not hold",
                                                                                     "holds"]]  # fmt: skip
        old.loc[0, "verdict"] = "mostly holds"
        with pytest.raises(ValueError, match="old"):
            claims_changes(old, new)

    def test_changes_in_words_name_each_claim_and_its_verdicts(self):
        from torus_lab.claims import changes_text

        old = claims_table("loads", [_claim(), _claim(claim_id="gone"), _claim(claim_id="c3", measured_value=2.0)])
        new = claims_table("loads", [_claim(), _claim(claim_id="c3", measured_value=0.5), _claim(claim_id="fresh")])
        lines = changes_text(claims_changes(old, new)).splitlines()
        assert lines == ["loads/c3: does not hold -> holds", "loads/fresh: added (holds)",
                         "loads/gone: removed (holds)"]
        assert changes_text(claims_changes(new, new)) == "no change"


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


# ---------------------------------------------------------------------- conditions written as words
_scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                     st.text(st.characters(min_codepoint=97, max_codepoint=122), min_size=1, max_size=6))  # fmt: skip
_dicts = st.recursive(st.dictionaries(st.from_regex(r"[a-z_]{1,8}", fullmatch=True), _scalars, min_size=1,
                                      max_size=4),
                      lambda inner: st.dictionaries(st.from_regex(r"[a-z_]{1,8}", fullmatch=True),
                                                    st.one_of(_scalars, inner), min_size=1, max_size=3),
                      max_leaves=8)  # fmt: skip


@given(prefix=st.text(st.characters(blacklist_characters="{}", blacklist_categories=("Cs",)), max_size=20),
       value=_dicts)  # fmt: skip
def test_conditions_in_words_leave_no_dict_and_keep_the_text_around(prefix, value):
    words = conditions_in_words(f"{prefix}{value!r} end")
    assert words.startswith(prefix) and words.endswith(" end")
    assert "{" not in words and "': " not in words
    for key in value:  # keys read with underscores as spaces (conditions_text)
        assert key.replace("_", " ") in words


def test_conditions_in_words_keep_what_is_no_dict_literal():
    for text in ("{k} in [4, 5]", "a set {1, 2}", "unbalanced {'a': 1", "plain text"):
        assert conditions_in_words(text) == text
