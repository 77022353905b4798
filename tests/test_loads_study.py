"""Tests of the loads experiment: the study (torus_lab.studies.loads), its verdict rules, its figures, its YAML."""

from __future__ import annotations

import copy
import math
import re

import jsonschema
import matplotlib
import numpy as np
import pandas as pd
import pytest
import yaml

from torus_lab import runner
from torus_lab.claims import CLAIM_COLUMNS, VERDICTS, uncovered_results
from torus_lab.loads import link_loads, multiple_linear_placement, residue_placement
from torus_lab.studies import loads as study
from torus_lab.studies import loads_claims as lc
from torus_lab.topology import Torus

NAN = float("nan")

matplotlib.use("Agg")

ROOT = runner.project_root()
SPEC = yaml.safe_load((ROOT / "experiments" / "loads.yaml").read_text())
TINY = {
    "seed": 3,
    "radices_by_dim": [{"dims": 2, "radices": [5, 6]}, {"dims": 3, "radices": [4]}],
    "ts": [1, 2],
    "routings": ["odr", "udr", "shortest"],
    "full_radices_by_dim": [{"dims": 2, "radices": [4]}],
    "cut_search_max_nodes": 64,
    "cut_steps": 10,
    "shortest_max_nodes": 1000,
    "heatmap_k_2d": 4,
    "heatmap_k_3d": 3,
    "tiny_tori": [{"dims": 2, "radix": 3}, {"dims": 1, "radix": 6}],
    "tiny_trials": 3,
}
CLAIM_IDS = [
    "odr_linear_constant", "odr_linear_linear", "odr_multiple_linear", "udr_linear_linear", "udr_multiple_linear",
    "placement_alone", "odr_multiple_bound", "udr_linear_bound", "bound_1", "lemma_1", "improved_bound",
    "blaum_optimal", "full_torus", "placement_sizes", "optimal_size_theta", "linear_optimal_bound_2",
    "full_bisection_width", "corollary_1_bruteforce", "corollary_1",
]  # fmt: skip
KEYS = [
    "loads", "loads_details", "loads_per_dimension", "odr_constant", "per_dimension_max", "heaviest_links",
    "heatmap_2d", "heatmap_3d", "bisection_tiny", "bisection_tiny_summary", "bisection_exhaustive",
    "bisection_any_placement", "best_routing", "claims",
]  # fmt: skip


@pytest.fixture
def serial(monkeypatch):
    monkeypatch.setenv("TORUS_LAB_BACKEND", "serial")
    monkeypatch.delenv("TORUS_LAB_SCHEDULER", raising=False)
    monkeypatch.setenv("TORUS_LAB_CACHE", "off")


@pytest.fixture(scope="module")
def results():
    """The study at ``TINY``, run once (serially, uncached) for the module's checks, which only read it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TORUS_LAB_BACKEND", "serial")
        patch.delenv("TORUS_LAB_SCHEDULER", raising=False)
        patch.setenv("TORUS_LAB_CACHE", "off")
        return study.run(TINY)


# ---------------------------------------------------------------------- the experiment file
def test_schema_accepts_both_presets_and_lists_every_key():
    schema = SPEC["schema"]
    jsonschema.Draft202012Validator.check_schema(schema)
    assert list(SPEC) == ["notebook", "description", "schema", "presets"]
    assert schema["additionalProperties"] is False
    for name, preset in SPEC["presets"].items():
        jsonschema.validate(preset, schema)
        assert set(preset) == set(schema["required"]) == set(schema["properties"]), name
    assert all("description" in prop for prop in schema["properties"].values())
    jsonschema.validate(TINY, schema)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("radices_by_dim", [{"dims": 2, "radices": [1, 4]}]),  # radix below 2
        ("full_radices_by_dim", [{"dims": 2, "radices": [0]}]),
        ("radices_by_dim", {"2": [4, 5]}),  # string-keyed dimensions
        ("tiny_tori", [[2, 3]]),  # positional pair
        ("tiny_tori", [{"dims": 2, "radix": 1}]),
        ("routings", ["odr", "ecube"]),
        ("seed", -1),
        ("ts", [0]),
        ("tiny_trials", 0),
    ],
)
def test_schema_refuses_bad_values(key, value):
    params = copy.deepcopy(TINY) | {key: value}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(params, SPEC["schema"])


def test_schema_refuses_unknown_and_missing_keys():
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(TINY | {"extra": 1}, SPEC["schema"])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({k: v for k, v in TINY.items() if k != "cut_steps"}, SPEC["schema"])


def test_notebook_parameters_cell_is_the_quick_preset():
    cell = runner.notebook_parameters(ROOT / SPEC["notebook"])
    assert cell.pop("data_dir") == "scratch/quick/data/loads"
    assert cell.pop("figures_dir") == "scratch/quick/figures/loads"
    assert cell == SPEC["presets"]["quick"]


# ---------------------------------------------------------------------- the grid
def test_grid_items_refuse_t_at_least_k_and_add_full_tori():
    items = study.grid_items(TINY)
    points = [(i["d"], i["k"], i["t"], i["placement"]) for i in items]
    assert points == [
        (2, 5, 1, "linear"), (2, 5, 2, "multiple_linear"), (2, 6, 1, "linear"), (2, 6, 2, "multiple_linear"),
        (3, 4, 1, "linear"), (3, 4, 2, "multiple_linear"), (2, 4, 4, "full"),
    ]  # fmt: skip
    with pytest.raises(ValueError, match=r"ts holds t = 2 but radices_by_dim \(dims 1\) holds k = 2"):
        study.grid_items({"radices_by_dim": [{"dims": 1, "radices": [2]}], "ts": [1, 2, 3]})  # was silently dropped


@pytest.mark.parametrize("key", ["radices_by_dim", "full_radices_by_dim"])
def test_grid_items_refuse_radices_below_two(key):
    params = copy.deepcopy(TINY) | {key: [{"dims": 2, "radices": [4, 1]}]}
    with pytest.raises(ValueError, match=rf"^{key}\[0\]\.radices\[1\] must be >= 2, got 1$"):
        study.grid_items(params)


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        ({"radices_by_dim": [{"dims": "two", "radices": [3]}]}, TypeError, r"radices_by_dim\[0\]\.dims must be an int"),
        ({"radices_by_dim": [{"dims": 2.5, "radices": [3]}]}, TypeError, r"radices_by_dim\[0\]\.dims must be an int"),
        ({"radices_by_dim": [{"dims": 0, "radices": [3]}]}, ValueError, r"radices_by_dim\[0\]\.dims must be >= 1"),
        ({"full_radices_by_dim": [{"dims": 2, "radices": ["4"]}]}, TypeError,
         r"full_radices_by_dim\[0\]\.radices\[0\] must be an int"),
        ({"radices_by_dim": [{"dims": 2}]}, ValueError, r"radices_by_dim\[0\] lacks the key\(s\) 'radices'"),
        ({"radices_by_dim": "2x5"}, TypeError, "radices_by_dim must be a sequence"),
        ({"ts": [1, "2"]}, TypeError, r"ts\[1\] must be an int"),
    ],
)  # fmt: skip
def test_grid_items_name_the_bad_key_path(change, error, message):
    # a non-integer dimension gave "invalid literal for int() with base 10: 'two'"
    with pytest.raises(error, match=message):
        study.grid_items(copy.deepcopy(TINY) | change)


# ---------------------------------------------------------------------- the study
def test_run_returns_every_table(results):
    assert list(results) == [*KEYS, "loads_details_timing"]
    assert all(isinstance(frame, pd.DataFrame) and not frame.empty for frame in results.values())
    assert list(results["loads"].columns) == [*study.CSV_COLUMNS, "seed"]
    assert list(results["claims"].columns) == CLAIM_COLUMNS
    assert results["claims"]["claim_id"].tolist() == CLAIM_IDS
    assert set(results["claims"]["verdict"]) <= set(VERDICTS)
    for key in ("loads", "loads_details", "bisection_tiny"):
        assert (results[key]["seed"] == TINY["seed"]).all(), key
    assert len(results["bisection_tiny"]) == len(TINY["tiny_tori"]) * TINY["tiny_trials"]
    assert results["bisection_tiny_summary"]["trials"].tolist() == [TINY["tiny_trials"]] * 2


def test_claims_cover_every_numbered_result_of_the_paper(results):
    claims = results["claims"]
    assert uncovered_results(claims, lc.PAPER_RESULTS) == []
    by_id = claims.set_index("claim_id")
    # counts of our own constructions: true by construction, never counted as reproduced
    assert by_id.loc["placement_sizes", "verdict"] == "true by definition"
    assert by_id.loc["placement_sizes", "measured_text"] == "|P| = t k^(d-1) in 6 of 6 placements"
    assert by_id.loc["full_bisection_width", "verdict"] == "true by definition"   # natural cut 16 = 4k
    assert by_id.loc["full_bisection_width", "measured_text"] == "natural cut = 4k^(d-1) directed edges in 1 of 1 tori"
    assert by_id.loc["optimal_size_theta", "measured_value"] > 0


def test_paper_results_are_unique_and_spelled_as_the_paper_numbers_them():
    assert len(set(lc.PAPER_RESULTS)) == len(lc.PAPER_RESULTS) == 8
    assert all(re.fullmatch(r"(Theorem|Lemma|Corollary|Proposition|Table) \d+(\.\d+)?|Fig\. \d+", item)
               for item in lc.PAPER_RESULTS)
    theorems = [int(item.split()[1]) for item in lc.PAPER_RESULTS if item.startswith("Theorem")]
    assert theorems == list(range(1, 7))


def test_placement_size_check_against_the_placements_themselves():
    from torus_lab.loads import linear_placement

    def built(d, k, t):
        return linear_placement(Torus(d, k)) if t == 1 else multiple_linear_placement(Torus(d, k), t)

    rows = [{"d": d, "k": k, "t": t, "placement": "linear" if t == 1 else "multiple_linear", "routing": "odr",
             "processors": built(d, k, t).size} for d in (1, 2, 3) for k in (3, 4, 5) for t in (1, 2)]
    check = lc.placement_size_check(pd.DataFrame(rows))
    assert check["equal"].all() and len(check) == 18
    wrong = lc.placement_size_check(pd.DataFrame(rows).assign(processors=lambda f: f["processors"] + 1))
    assert not wrong["equal"].any()


def test_load_per_processor_growth_rule_boundaries():
    def grows(values, ts=(1, 2, 3)):
        frame = pd.DataFrame({"d": 2, "k": 8, "t": list(ts), "routing": "odr", "processors": [8 * t for t in ts],
                              "e_max": [v * 8 * t for v, t in zip(values, ts, strict=True)]})
        row = lc.load_per_processor_by_t(frame).iloc[0]
        return bool(row["grows"]), bool(row["increasing"])

    assert grows([0.5, 0.75, 1.0]) == (True, True)
    assert grows([0.5, 0.75, 0.75]) == (True, False)       # levels off: grows, not strictly
    assert grows([0.5, 0.5, 0.5]) == (False, False)        # flat: linear load, no growth
    assert grows([0.5, 0.8, 0.7]) == (False, False)        # a drop
    single = pd.DataFrame({"d": [2], "k": [8], "t": [1], "routing": ["odr"], "processors": [8], "e_max": [4.0]})
    assert lc.load_per_processor_by_t(single).empty


def test_linear_optimal_bound_2_rule_boundary():
    def verdict(ratio_d3):  # E_max / bound (2) is 4 at d = 2; the rule allows +10% at the largest d
        frame = pd.DataFrame({"d": [2, 3], "k": [9, 5], "t": 1, "placement": "linear", "routing": "odr",
                              "processors": [9, 25], "e_max": [4.0, 4.0 * ratio_d3], "lb_cut": [1.0, 4.0],
                              "lb_single": [2.0, 4.0]})
        return _verdicts(frame.assign(e_mean=1.0, claimed_bound=NAN, lb_natural=1.0, bisection_natural=NAN,
                                      bisection_bound=NAN))["linear_optimal_bound_2"]

    assert verdict(4.39) == "holds"
    assert verdict(4.45) == "does not hold"
    assert verdict(1.0) == "holds"


def test_study_rows_agree_with_the_library(results):
    summary, per_dimension = results["loads_details"], results["loads_per_dimension"]
    assert list(summary.columns[: len(study.CSV_COLUMNS)]) == study.CSV_COLUMNS
    assert set(summary["placement"]) == {"linear", "multiple_linear", "full"}
    for row in summary.itertuples():
        torus = Torus(row.d, row.k)
        placement = (
            residue_placement(torus, range(row.k)) if row.placement == "full"
            else multiple_linear_placement(torus, row.t)
        )  # fmt: skip
        loads = link_loads(torus, placement, row.routing)
        assert row.processors == placement.size
        assert row.e_max == pytest.approx(loads.max()) and row.e_mean == pytest.approx(loads.mean())
        assert row.e_max >= row.lb_cut - 1e-9 and row.e_max >= row.lb_single - 1e-9
        dims = per_dimension[(per_dimension["d"] == row.d) & (per_dimension["k"] == row.k)
                             & (per_dimension["t"] == row.t) & (per_dimension["routing"] == row.routing)]  # fmt: skip
        assert dims["max"].max() == pytest.approx(row.e_max)
        assert len(dims) == 2 * row.d


def test_heatmap_frames_hold_every_link(results):
    heat2 = results["heatmap_2d"]
    k2, k3 = TINY["heatmap_k_2d"], TINY["heatmap_k_3d"]
    assert len(heat2) == len(TINY["routings"]) * 4 * k2**2
    torus = Torus(2, k2)
    placement = multiple_linear_placement(torus, 1)
    odr = heat2[heat2["routing"] == "odr"]
    assert odr["load"].max() == pytest.approx(link_loads(torus, placement, "odr").max())
    assert set(map(tuple, odr[odr["processor"]][["x0", "x1"]].drop_duplicates().to_numpy())) == set(
        map(tuple, placement.coords())
    )
    heat3 = results["heatmap_3d"]
    assert len(heat3) == len(TINY["routings"]) * 6 * k3
    torus3 = Torus(3, k3)
    for routing in TINY["routings"]:
        maximum = heat3[heat3["routing"] == routing]["load"].max()
        assert maximum == pytest.approx(link_loads(torus3, multiple_linear_placement(torus3, 1), routing).max())


def test_tiny_bisections_are_below_corollary_1(results):
    tiny = results["bisection_tiny"]
    assert (tiny["processors"] >= 2).all()
    assert (tiny["bisection_width"] <= tiny["corollary_1_bound"]).all()
    by_id = results["claims"].set_index("claim_id")
    assert by_id.loc["corollary_1_bruteforce", "verdict"] == "holds"
    assert by_id.loc["corollary_1_bruteforce", "evidence_kind"] == "exhaustive"
    assert "(d, k) in [(2, 3), (1, 6)]" in by_id.loc["corollary_1_bruteforce", "conditions"]
    # 2^9 - 1 - 9 placements of the 3 x 3 torus, 2^6 - 1 - 6 of the 6-ring
    assert by_id.loc["corollary_1_bruteforce", "measured_value"] == 502 + 57
    assert by_id.loc["corollary_1", "evidence_kind"] == "statistical"
    assert by_id.loc["corollary_1", "verdict"] == "holds"     # >= 299 random cases, none over the bound


def test_study_is_seed_deterministic(serial):
    first, again = study.run(TINY), study.run(TINY)
    for key in KEYS:
        pd.testing.assert_frame_equal(first[key], again[key], check_exact=True, obj=key)
    assert "seconds" not in first["loads_details"]  # wall-clock is timing, kept apart
    assert list(first["loads_details_timing"].columns) == [*study.DETAIL_KEYS, "seconds"]
    other = study.run(TINY | {"seed": TINY["seed"] + 1})
    assert not other["bisection_tiny"]["processors"].equals(first["bisection_tiny"]["processors"]) or not other[
        "loads_details"
    ]["cut_seed"].equals(first["loads_details"]["cut_seed"])


def test_processes_backend_gives_the_serial_results(serial, monkeypatch):
    params = TINY | {"radices_by_dim": [{"dims": 2, "radices": [5]}], "full_radices_by_dim": []}
    serial_results = study.run(params)
    monkeypatch.setenv("TORUS_LAB_BACKEND", "processes")
    parallel = study.run(params)
    for key in KEYS:
        pd.testing.assert_frame_equal(serial_results[key], parallel[key], check_exact=True, obj=key)


# ---------------------------------------------------------------------- figures
@pytest.mark.parametrize(
    "name", ["fig_emax_vs_k", "fig_emax_per_processor", "fig_odr_constant", "fig_heatmap_2d", "fig_heatmap_3d"]
)
def test_figures_draw(results, name):
    from matplotlib.figure import Figure

    from torus_lab.plots import loads as plots

    fig = getattr(plots, name)(results, TINY)
    assert isinstance(fig, Figure) and fig.axes
    matplotlib.pyplot.close(fig)


# ---------------------------------------------------------------------- tables
def test_tables_the_notebook_shows(results):
    odr = results["odr_constant"]
    assert odr["e_max_is_row_count"].all()
    assert (odr["row_count floor(k/2) k^(d-2)"] == (odr["k"] // 2) * odr["k"] ** (odr["d"] - 2)).all()
    maxima = results["per_dimension_max"]
    assert sorted(maxima["k"].unique()) == [4, 6]  # the largest radix per dimension
    assert {"dim 0 -1", "dim 0 +1", "dim 2 +1"} <= set(maxima.columns)
    heaviest = results["heaviest_links"]
    assert len(heaviest) == 2 * len(TINY["routings"])


# ---------------------------------------------------------------------- verdict rules, at their boundaries
def test_constant_matches_boundary():
    assert lc.constant_matches(0.1875, 0.125, 0.5)  # exactly at the tolerance
    assert lc.constant_matches(0.0625, 0.125, 0.5)
    assert lc.constant_matches(np.nextafter(0.1875, 0), 0.125, 0.5)
    assert not lc.constant_matches(np.nextafter(0.1875, 1), 0.125, 0.5)
    assert not lc.constant_matches(math.nan, 0.125, 0.5)


def test_bound_claims_allow_round_off_only():
    # upper bound (Theorem 5 with UDR): exactly at the bound and round-off above it hold, 1e-9 above does not
    for scale, verdict in ((1.0, "holds"), (1 + 1e-13, "holds"), (1 + 1e-9, "does not hold"), (0.9, "holds")):
        summary = _summary(e_max=([1.0, 1.5, 2.0], [16.0 * scale, 24.0, 32.0]))
        assert _verdicts(summary)["udr_linear_bound"] == verdict, scale
    # lower bound (1): true by construction of the load computation; the least margin still shows a violation
    for below in (0.0, 1e-10, 1e-6):
        summary = _summary(lb_single=([1.0 + below, 1.5, 2.0], [1.0, 1.5, 2.0]),
                           e_max=([1.0, 1.5, 2.0], [50.0, 75.0, 100.0]))
        row = _claims(summary).loc["bound_1"]
        assert row.verdict == "true by definition" and row.evidence_kind == "by definition"
        assert row.measured_value == pytest.approx(-below, abs=1e-15)


def test_improved_bound_spread_boundary():
    # natural-cut constants c = lb_natural / k per d: 1/8 at d = 2; d = 3 rows give c at the tolerance or beyond
    def verdict(c3):
        rows = _summary()
        extra = rows.iloc[:2].assign(d=3, lb_natural=[c3 * 64, c3 * 256])
        return _verdicts(pd.concat([rows, extra]))["improved_bound"]

    # the natural cut's constant on a linear placement is k^(d-1)/8 by construction: never a finding
    assert verdict(0.125 * 0.95) == "true by definition"
    assert verdict(0.125 * 0.85) == "true by definition"


def _best(lb, best, odr, udr):
    return pd.DataFrame({"d": [2] * len(lb), "k": [5 + i for i in range(len(lb))], "lb_single": lb,
                         "e_max_best": best, "e_max_odr": odr, "e_max_udr": udr}, dtype=float)


@pytest.mark.parametrize(("best", "udr", "verdict"), [
    ([1.0, 2.0], [1.0, 2.0], "holds"),                                    # an equal-split routing reaches (1)
    ([1.0, 2.0 * (1 + 1e-13)], [1.0, 2.5], "holds under conditions"),      # only a fractional split, round-off
    ([1.0, 2.0], [1.0, 2.0 * (1 + 1e-9)], "holds under conditions"),       # UDR just above (1)
    ([1.0, 2.0 * (1 + 1e-9)], [1.0, 2.5], "does not hold"),                # no routing reaches (1)
])
def test_blaum_optimal_rule_at_its_boundaries(best, udr, verdict):
    tables = {"loads_details": _summary(), "bisection_tiny": _tiny(), "best_routing": _best([1.0, 2.0], best,
                                                                                            [3.0, 4.0], udr)}
    row = lc.claims(tables, {}).set_index("claim_id").loc["blaum_optimal"]
    assert row.verdict == verdict
    assert row.evidence == "data/loads/best_routing.csv"


def test_blaum_optimal_without_the_programme_is_not_testable():
    assert _claims(_summary()).loc["blaum_optimal", "verdict"] == "not testable here"


def _exhaustive(max_width, bound=36, placements=502):
    return pd.DataFrame({"d": [2], "k": [3], "placements": [placements], "max_width": [max_width], "bound": [bound],
                         "min_slack": [bound - max_width]})


def _anywhere(random_over=0, search_slack=10, random=300):
    return pd.DataFrame({"d": [2], "k": [8], "random": [random], "random_over_bound": [random_over],
                         "random_min_slack": [5], "search_slack": [search_slack], "search_restarts": [4],
                         "search_steps": [10], "bound": [96]})


@pytest.mark.parametrize(("max_width", "verdict"), [(36, "holds"), (35, "holds"), (37, "does not hold")])
def test_bruteforce_claim_boundary(max_width, verdict):
    tables = {"loads_details": _summary(), "bisection_tiny": _tiny(), "bisection_exhaustive": _exhaustive(max_width)}
    row = lc.claims(tables, {}).set_index("claim_id").loc["corollary_1_bruteforce"]
    assert row.verdict == verdict and row.evidence_kind == "exhaustive"
    assert row.conditions.startswith("(d, k) in [(2, 3)]")
    assert row.evidence == "data/loads/bisection_exhaustive.csv"


@pytest.mark.parametrize(("random", "over", "slack", "verdict"), [
    (300, 0, 0, "holds"),              # slack 0: at the bound
    (300, 0, -1, "does not hold"),     # the search's certified cut exceeds the bound
    (300, 1, 10, "does not hold"),
    (290, 0, 10, "inconclusive"),      # 291 cases cannot bound a miss rate below 1% at 95%
])
def test_corollary_1_rule_follows_its_sample(random, over, slack, verdict):
    tables = {"loads_details": _summary(), "bisection_tiny": _tiny(),
              "bisection_any_placement": _anywhere(over, slack, random)}
    row = lc.claims(tables, {}).set_index("claim_id").loc["corollary_1"]
    assert row.verdict == verdict and row.evidence_kind == "statistical"
    assert row.measured_value == random - over + (slack >= 0)


def test_corollary_rows_without_data_are_not_testable():
    claims = _claims(_summary())
    assert claims.loc["corollary_1", "verdict"] == "not testable here"
    assert claims.loc["corollary_1_bruteforce", "verdict"] == "not testable here"


def _tiny():
    return pd.DataFrame({"bisection_width": [], "corollary_1_bound": []}, dtype=float)


def _claims(summary, tiny=None):
    """The claims table (indexed by claim id) from a ``loads_details``-like summary and brute-force trials."""
    if tiny is None:
        tiny = pd.DataFrame({"bisection_width": [], "corollary_1_bound": []}, dtype=float)
    return lc.claims({"loads_details": summary, "bisection_tiny": tiny}, {}).set_index("claim_id")


def _verdicts(summary):
    return _claims(summary)["verdict"].to_dict()


#: The radices of the claims tests' summaries: three, the fewest a fit may rest on (claims.MIN_FIT_POINTS).
KS = (8, 12, 16)


def _summary(ks=KS, **overrides):
    """ODR and UDR rows of a linear placement in 2-D at the radices ``ks`` (E_max/k = 1/8 for ODR, 50/8 for UDR);
    ``overrides``: columns given per routing as (odr values, udr values)."""
    k = np.array(ks * 2, dtype=float)
    frame = pd.DataFrame({
        "d": 2, "k": k.astype(int), "t": 1, "placement": "linear", "routing": ["odr"] * len(ks) + ["udr"] * len(ks),
        "processors": k, "e_max": np.r_[k[:len(ks)] / 8, k[len(ks):] * 50 / 8], "e_mean": k / 8,
        "lb_single": k * 0.23, "lb_cut": k / 8, "claimed_bound": np.r_[k[:len(ks)] / 8, k[len(ks):] * 2],
        "lb_natural": k / 8, "bisection_natural": 4 * k, "bisection_bound": 12 * k,
    })  # fmt: skip
    for column, (odr, udr) in overrides.items():
        frame[column] = [*odr, *udr]
    return frame


def test_claims_verdicts_follow_the_data() -> None:
    summary = _summary()
    verdicts = _verdicts(summary)
    assert set(verdicts.values()) <= set(VERDICTS)
    assert verdicts["odr_linear_constant"] == "holds"  # E_max/k = 1/8 exactly
    assert verdicts["udr_linear_bound"] == "does not hold"  # 50/8 k > 2 k
    assert verdicts["bound_1"] == "true by definition"  # a check of our load code, not of the paper
    assert verdicts["odr_linear_linear"] == "holds"
    assert verdicts["odr_multiple_bound"] == "not testable here"  # no multiple linear rows
    assert verdicts["placement_alone"] == "not testable here"  # no shortest-path rows
    assert lc.asymptotic_exponent(summary[summary["routing"] == "udr"])[0][1] == pytest.approx(1.0)
    superlinear = pd.DataFrame({"k": [4, 6, 8, 10], "processors": [16, 36, 64, 100], "e_max": [8, 27, 64, 125]})
    assert lc.asymptotic_exponent(superlinear)[0][1] == pytest.approx(1.5)


@pytest.mark.parametrize(
    ("udr_e_max", "verdict"),
    [([16.0, 24.0, 32.0], "holds"), ([15.0, 23.0, 31.0], "holds"), ([16.0, 24.0, 32.5], "does not hold")],
)
def test_upper_bound_claim_at_the_bound(udr_e_max, verdict):
    summary = _summary(e_max=([1.0, 1.5, 2.0], udr_e_max))
    verdicts = _verdicts(summary)
    assert verdicts["udr_linear_bound"] == verdict


def test_upper_bound_claim_with_nan_bounds_is_not_tested():
    summary = _summary(claimed_bound=([1.0, 1.5, 2.0], [math.nan] * 3))
    verdicts = _verdicts(summary)
    assert verdicts["udr_linear_bound"] == "not testable here"


@pytest.mark.parametrize(
    ("scale", "verdict"),
    [(1.0, "holds"), (1.0999, "holds"), (1.1001, "does not hold"), (0.9001, "holds"), (0.8999, "does not hold")],
)
def test_odr_constant_claim_tolerance(scale, verdict):
    # E_max / k = scale/8 at every radix: the fitted constant is scale/8, the claim 1/8, tolerance 10 % (either
    # side of it here; exactly at it: test_constant_matches_boundary, the fit is not exact in floating point)
    summary = _summary(e_max=([scale * k / 8 for k in KS], [50.0 * k / 8 for k in KS]))
    verdicts = _verdicts(summary)
    assert verdicts["odr_linear_constant"] == verdict


@pytest.mark.parametrize("radices", [2, 3, 4])
def test_fits_through_too_few_radices_decide_nothing(radices):
    """A fit needs MIN_FIT_POINTS radices: through two, the exponent and the constant are slopes nothing could
    contradict, so even a far-off value is inconclusive, never a counterexample (docs/conventions.md#claims-judged)."""
    ks = (8, 12, 16, 20)[:radices]
    # E_max ~ k^1.5 (superlinear) and a constant 4/8: both claims fail wherever a fit decides
    summary = _summary(ks, e_max=([k**1.5 / 2 for k in ks], [k**1.5 / 2 for k in ks]))
    claims = _claims(summary)
    expected = "inconclusive" if radices < 3 else "does not hold"
    assert claims.loc["odr_linear_linear", "verdict"] == expected
    assert claims.loc["odr_linear_constant", "verdict"] == expected
    assert f"({radices} radices)" in claims.loc["odr_linear_linear", "measured_text"]
