"""The virtual-mesh study (torus_lab.studies.virtual_mesh) and its claims (torus_lab.studies.virtual_mesh_claims):
sweeps, seeds, analysis helpers, verdict rules."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest
import yaml

from torus_lab import runner
from torus_lab.claims import VERDICTS, check_claims_table, uncovered_results
from torus_lab.plots import virtual_mesh as vm_plots
from torus_lab.routing.turn_model import dateline_positions
from torus_lab.studies import virtual_mesh as vm
from torus_lab.studies import virtual_mesh_claims as vm_claims

NAN = float("nan")


@pytest.fixture
def serial(monkeypatch):
    monkeypatch.setenv("TORUS_LAB_BACKEND", "serial")
    monkeypatch.delenv("TORUS_LAB_SCHEDULER", raising=False)


# ---------------------------------------------------------------------- claims on small tables
@pytest.fixture(scope="module")
def small_tables():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TORUS_LAB_BACKEND", "serial")
        mp.delenv("TORUS_LAB_SCHEDULER", raising=False)
        cdg = vm.cdg_table([4], ["bidirectional", "mesh"])
        return {"second_vc_channels": vm.second_vc_table([4, 5]), "vc_counts": vm.vc_count_table([4, 5]),
                "cdg_verdicts": cdg, "adaptivity": vm.adaptivity_summary([4], ["mesh"]),
                "latency": pd.DataFrame({"deadlock": [False], "scheme": ["paper"], "routing": ["x"]}),
                "provoke_summary": pd.DataFrame(columns=["routing", "scheme", "runs", "deadlocks"]),
                "dateline_premise": vm.dateline_premise_table([3, 4]), "vc_budget": vm.vc_budget_table([4]),
                "mapping_coverage": vm.mapping_coverage(cdg), "dateline_offsets": vm.dateline_offset_table([4, 5]),
                "dateline_search": vm.dateline_search_table([4], ["bidirectional"], max_configs=16)}


SMALL = {"vc_ks": [4, 5], "sim_k": 4, "provoke_k": 4, "adaptivity_ks": [4], "premise_ks": [3, 4], "draw_k": 4}


def test_claims_on_small_tables(small_tables):
    claims = vm_claims.claims(small_tables, SMALL)
    check_claims_table(claims)
    by_id = claims.set_index("claim_id")
    assert list(by_id.index) == CLAIM_IDS
    # the paper's rows {0, 1, 2} / {2, 3, 4} against the rows that receive VC2: a strict subset is not "holds"
    for cid in ("k5_dateline_row4", "k5_dateline_row1"):
        row = by_id.loc[cid]
        assert row.rule == "subset"
        assert row.measured_value < row.paper_value and row.verdict == "holds approximately", cid
        assert "strict subset" in row.measured_text
    # every node but one per unidirectional ring receives VC2
    assert by_id.loc["uni_two_vcs", "verdict"] == "holds approximately"
    # our reconstruction is fully adaptive, the literal reading is not
    assert by_id.loc["pfnf_fully_adaptive", "verdict"] == "holds under conditions"
    assert set(claims.verdict) <= set(VERDICTS)
    assert all(item.startswith(("data/virtual_mesh/", "figures/virtual_mesh/")) for e in claims.evidence
               for item in e.split(", "))


def test_claims_cover_every_numbered_result_of_the_paper(small_tables):
    claims = vm_claims.claims(small_tables, SMALL)
    assert uncovered_results(claims, vm_claims.PAPER_RESULTS) == []
    by_id = claims.set_index("claim_id")
    # the premise holds: every cyclic one-VC ring / torus becomes acyclic with a dateline
    assert by_id.loc["dateline_breaks_ring_cycles", "verdict"] == "holds"
    assert by_id.loc["fig2_deadlock_configurations", "verdict"] == "holds"
    assert by_id.loc["higher_dimensions_datelines", "verdict"] == "holds"
    # the paper's mapping is acyclic only for dimension-order routing; no 3-VC (or any) PFNF assignment is acyclic
    assert by_id.loc["all_mesh_algorithms", "verdict"] == "does not hold"
    assert by_id.loc["all_mesh_algorithms", "evidence_kind"] == "counterexample"
    assert "west-first: 0/1 tori, acyclic placements bid k=4 0/16 of 16" in by_id.loc["all_mesh_algorithms",
                                                                                       "measured_text"]
    # two VCs (one per PFNF VN) leave a wrap-around ring cycle at k = 4; three carry the dateline classes at k = 4, 5;
    # but the 3-VC mapping stays cyclic, so only the narrow (ring-cycle) reading holds
    row = by_id.loc["minimum_extra_hardware"]
    assert row.paper_value == 3 and row.measured_value == 3 and row.verdict == "holds under conditions"
    assert "a wrap-around ring cycle at 1/1 radices" in row.measured_text
    assert "the 3-VC mapping acyclic at 0/" in row.measured_text
    assert by_id.loc["fig1_unidirectional_torus", "verdict"] == "not testable here"


def test_minimum_extra_hardware_holds_only_in_the_ring_cycle_reading(small_tables):
    """The sentence says three VCs break the wrap-around dependencies and thereby map the torus to the mesh: the
    turn cycles the 3-VC mapping keeps leave only the narrow reading (holds under conditions, naming it), an
    acyclic 3-VC mapping would make it hold, and a two-VC mapping without a ring cycle or a third after class
    sharing a channel refutes it (docs/conventions.md#claims-readings)."""
    def verdict(tables):
        return vm_claims.claims(tables, SMALL).set_index("claim_id").loc["minimum_extra_hardware", "verdict"]

    cdg, vc = small_tables["cdg_verdicts"], small_tables["vc_counts"]
    three = (cdg.kind == "bidirectional") & (cdg.routing == "pfnf-reconstruction+paper")
    assert not cdg[three].acyclic.astype(bool).any()  # the 3-VC mapping keeps a (turn) cycle
    assert verdict(small_tables) == "holds under conditions"
    row = vm_claims.claims(small_tables, SMALL).set_index("claim_id").loc["minimum_extra_hardware"]
    assert vm_claims.RING_READING in row.rule_params and "witness_messages.csv" in row.evidence
    mapped = cdg.copy()
    mapped.loc[three, ["acyclic", "cycle_channels"]] = [True, ""]
    assert verdict({**small_tables, "cdg_verdicts": mapped}) == "holds"
    two = (cdg.kind == "bidirectional") & (cdg.routing == "pfnf-reconstruction")
    no_ring = cdg.copy()
    no_ring.loc[two, ["acyclic", "cycle_channels"]] = [True, ""]
    assert verdict({**small_tables, "cdg_verdicts": no_ring}) == "does not hold"
    shared = vc.copy()
    shared.loc[shared.routing == "pfnf-reconstruction+paper-4vc", "after_overlap"] = 1
    assert verdict({**small_tables, "vc_counts": shared}) == "does not hold"


def test_paper_results_are_unique_and_spelled_as_the_paper_numbers_them():
    assert len(set(vm_claims.PAPER_RESULTS)) == len(vm_claims.PAPER_RESULTS)
    assert all(re.fullmatch(r"(Theorem|Lemma|Corollary|Proposition|Table) \d+(\.\d+)?|Fig\. \d+", item)
               for item in vm_claims.PAPER_RESULTS)
    assert [int(item.split()[1]) for item in vm_claims.PAPER_RESULTS] == list(range(1, 8))   # Figs. 1-7, paper order


def test_vc_budget_the_finest_assignment_is_the_constructions_own_cdg(serial):
    """Merging classes only adds dependencies: the all-distinct assignment has the construction's verdict, and
    a count m with an acyclic assignment implies one at every larger m."""
    budget = vm.vc_budget_table([4, 5])
    cdg = vm.cdg_table([4, 5], ["bidirectional"], routings=list(vm.BUDGET_ROUTINGS), forced=False)
    for r in budget[budget.vcs == budget.classes].itertuples():
        verdict = cdg[(cdg.k == r.k) & (cdg.routing == r.routing)].acyclic.item()
        assert (r.acyclic_assignments == 1) == verdict and r.assignments == 1
    for (_, _), group in budget.groupby(["routing", "k"]):
        ok = group.sort_values("vcs").acyclic_assignments.to_numpy() > 0
        assert not (ok[:-1] & ~ok[1:]).any()
    least = vm_claims.min_acyclic_vcs(budget).set_index(["routing", "k"]).min_vcs
    assert least.loc["pfnf-reconstruction+paper-4vc"].isna().all()
    assert (least.loc["pfnf-reconstruction+count"] == 5).all()


def test_dateline_premise(serial):
    t = vm.dateline_premise_table([3, 4], [1, 3])
    assert t[t.routing == "dor+dateline"].acyclic.all()
    one_vc = t[t.routing == "dor"]
    # a one-VC ring is cyclic unless no route takes two hops in it (bidirectional, k = 3)
    assert (one_vc.acyclic == ((one_vc.kind == "bidirectional") & (one_vc.k == 3))).all()
    assert (one_vc[~one_vc.acyclic].cycle_dims.str.split().str.len() == 1).all()


def test_dateline_offsets_halfway_keeps_the_after_classes_apart(small_tables):
    offsets = small_tables["dateline_offsets"]
    assert len(offsets) == 4 + 5 and offsets.groupby("k").halfway.sum().eq(1).all()
    half = offsets[offsets.halfway]
    assert (half.after_overlap == 0).all() and (half.max_vcs == 3).all()
    # coinciding datelines put both after-classes on the same channels: 4 classes on the busiest channel
    assert (offsets[offsets.offset == 0].max_vcs == 4).all()
    by_id = vm_claims.claims(small_tables, SMALL).set_index("claim_id")
    assert by_id.loc["halfway_datelines", "verdict"] == "holds"
    with pytest.raises(ValueError, match="offset"):
        vm.dateline_offset_row(4, 4)


def test_mapping_coverage_lists_every_mesh_algorithm_once_per_torus(small_tables):
    cov = small_tables["mapping_coverage"]
    assert sorted(cov.algorithm) == sorted(vm.MESH_ALGORITHMS)
    assert cov.set_index("algorithm").loc["dor", "paper"]
    assert cov[cov.algorithm != "dor"].count_vcs.notna().all()


def test_k5_rows_without_k5_are_not_testable(small_tables):
    tables = dict(small_tables, second_vc_channels=small_tables["second_vc_channels"].query("k != 5"))
    by_id = vm_claims.claims(tables, {**SMALL, "vc_ks": [4]}).set_index("claim_id")
    assert by_id.loc["k5_dateline_row4", "verdict"] == "not testable here"
    assert by_id.loc["k5_dateline_row1", "verdict"] == "not testable here"


def test_first_deadlock_loads_and_saturation_rule_at_three_times_the_lightest_latency():
    runs = pd.DataFrame({
        "routing": ["a"] * 4 + ["b"] * 3, "network": "torus", "traffic": "uniform",
        "offered_load": [0.1, 0.2, 0.3, 0.4, 0.1, 0.2, 0.3],
        "mean_latency": [10.0, 30.0, 30.0 + 1e-9, 20.0, 10.0, 12.0, 11.0],  # a: exactly 3x, then just above
        "accepted_throughput": [0.1, 0.2, 0.25, 0.26, 0.1, 0.2, 0.2],
        "generated_throughput": [0.1, 0.2, 0.3, 0.4, 0.1, 0.2, 0.3],        # no accepted-throughput test
        "deadlock": [False, False, False, False, False, True, False],
    })
    sat = vm.saturation_summary(runs, seed=7).set_index("routing")
    assert sat.loc["a", "saturation_load"] == 0.2        # 0.3 is just above 3x; 0.4 is below but after it
    assert sat.loc["b", "saturation_load"] == 0.1        # the deadlocked load ends the curve
    assert math.isnan(sat.loc["a", "first_deadlock_load"]) and sat.loc["b", "first_deadlock_load"] == 0.2
    assert sat.loc["b", "saturation_throughput"] == 0.2  # largest accepted throughput without deadlock
    assert (sat.seed == 7).all() and list(sat.index) == ["a", "b"]


def test_provoke_summary_counts_runs_and_deadlocks():
    prov = pd.DataFrame({"routing": ["x", "x", "y"], "scheme": ["paper", "paper", None],
                         "cdg_acyclic": [False, False, True], "deadlock": [True, True, False],
                         "cycle_in_cdg": [True, False, None], "seed": [3, 3, 3]})
    s = vm.provoke_summary(prov).set_index("routing")
    assert s.loc["x", ["runs", "deadlocks"]].tolist() == [2, 2]
    assert not s.loc["x", "cycles_in_cdg"] and s.loc["y", "cycles_in_cdg"]   # no deadlock: vacuously true


def test_after_class_summary_separates_the_vns_after_dateline_channels():
    table = vm.after_class_summary(vm.channel_vcs_table(5), "pfnf-reconstruction+paper-4vc")
    assert table.direction.tolist() == ["+x", "+y", "-x", "-y"]
    for row in table.itertuples():
        assert not set(row[2]) & set(row[3])              # VN0's and VN1's after-classes never share a channel
    assert (table.channels == 25).all()


def test_witness_cycle_reads_the_cdg_table(serial):
    cdg = vm.cdg_table([4], ["bidirectional"], routings=["dor", "dor+dateline"])
    assert len(vm_plots.witness_cycle(cdg, "bidirectional", 4, "dor")) == 4
    assert vm_plots.witness_cycle(cdg, "bidirectional", 4, "dor+dateline") is None
    with pytest.raises(KeyError, match="duato"):
        vm_plots.witness_cycle(cdg, "bidirectional", 4, "duato")
    grid = vm.cdg_verdict_grid(cdg)
    assert grid.set_index("routing")["4"].to_dict() == {"dor": "CYCLIC (forced)", "dor+dateline": "acyclic"}


def test_dateline_rules_entry_rule_cyclic_only_on_unidirectional_tori(serial):
    t = vm.dateline_rules_table([4]).set_index(["kind", "rule"]).acyclic
    assert t.to_dict() == {("unidirectional", "switch"): True, ("unidirectional", "entry"): False,
                           ("bidirectional", "switch"): True, ("bidirectional", "entry"): True}


# ---------------------------------------------------------------------- simulation sweeps (moved from test_turn_model)
def test_simulation_sweep_and_saturation_summary(serial):
    sweep = vm.simulation_table(4, [{"name": "pfnf", "scheme": "count"}], ["uniform"], [0.05, 0.3], seed=3,
                                mesh_routings=[{"name": "pfnf"}], warmup=100, measure=300, drain=1000)
    assert sweep[["routing", "network"]].drop_duplicates().values.tolist() == [
        ["pfnf-reconstruction+count", "torus"], ["pfnf-reconstruction", "mesh"]]
    assert not sweep.deadlock.any()
    assert (sweep.seed == 3).all() and "wall_seconds" not in sweep
    low = sweep[sweep.offered_load == 0.05]
    assert (low.accepted_throughput < 0.08).all() and (low.accepted_throughput > 0.02).all()
    sat = vm.saturation_summary(sweep, seed=3)
    assert len(sat) == 2 and (sat.saturation_throughput <= 0.3 + 0.05).all()
    again = vm.simulation_table(4, [], ["uniform"], [0.3], seed=3, mesh_routings=[{"name": "pfnf"}], warmup=100,
                                measure=300, drain=1000)
    mesh = sweep[(sweep.network == "mesh") & (sweep.offered_load == 0.3)]
    # content-keyed item seeds: the same (routing, load) point gives the same run in a smaller grid
    assert again.mean_latency.iloc[0] == mesh.mean_latency.iloc[0]
    other = vm.simulation_table(4, [], ["uniform"], [0.3], seed=4, mesh_routings=[{"name": "pfnf"}], warmup=100,
                                measure=300, drain=1000)
    assert other.mean_latency.iloc[0] != mesh.mean_latency.iloc[0]     # the experiment seed matters


def test_latency_summary_has_three_replicas_per_point_and_ordered_intervals(serial):
    """Every latency point is the mean of >= 3 independent runs with a 95% t-interval around it."""
    runs = vm.simulation_table(4, [{"name": "pfnf", "scheme": "count"}], ["uniform", "transpose"], [0.05, 0.3],
                               seed=3, replicas=3, warmup=50, measure=200, drain=800)
    assert runs.groupby(["routing", "traffic", "offered_load"]).replica.apply(lambda r: sorted(r) == [0, 1, 2]).all()
    # each replica is its own content-seeded run: the three latencies of a point are not copies of each other
    assert (runs.groupby(["traffic", "offered_load"]).mean_latency.nunique() == 3).all()
    summary = vm.latency_summary(runs)
    assert list(summary.columns) == list(vm.LATENCY_SUMMARY_COLUMNS) and len(summary) == 4
    assert (summary.runs == 3).all() and (summary.deadlocks == 0).all() and (summary.mean_latency_n >= 3).all()
    assert (summary.mean_latency_low <= summary.mean_latency_mean).all()
    assert (summary.mean_latency_mean <= summary.mean_latency_high).all()
    assert (summary.mean_latency_low < summary.mean_latency_high).all()   # three different runs: a real interval
    assert summary.traffic.tolist() == ["uniform", "uniform", "transpose", "transpose"]   # run order, loads up
    point = runs[(runs.traffic == "uniform") & (runs.offered_load == 0.3)].mean_latency
    assert summary.mean_latency_mean.iloc[1] == pytest.approx(point.mean())
    with pytest.raises(ValueError, match="replicas"):
        vm.simulation_table(4, [{"name": "pfnf"}], ["uniform"], [0.1], seed=1, replicas=0)


def test_latency_summary_leaves_deadlocked_runs_out_of_the_mean():
    runs = pd.DataFrame({"routing": "r", "network": "torus", "traffic": "uniform", "offered_load": [0.1] * 4 + [0.2],
                         "mean_latency": [10.0, 11.0, 12.0, 500.0, 900.0], "accepted_throughput": 0.1,
                         "deadlock": [False, False, False, True, True], "seed": 2})
    summary = vm.latency_summary(runs)
    assert summary.deadlocks.tolist() == [1, 1] and summary.runs.tolist() == [4, 1]
    assert summary.mean_latency_mean.iloc[0] == 11.0 and summary.mean_latency_n.tolist() == [3, 0]
    assert np.isnan(summary.mean_latency_mean.iloc[1])


def test_dateline_positions_are_the_rows_where_the_drawn_routings_switch_vcs():
    """The drawn dateline of each direction is the node whose leaving channel in that direction carries only
    after-dateline VCs in the constructed channel sets (the unidirectional e-cube: only VC2)."""
    k = 5
    listing = vm.channel_vcs_table(k)
    kind, spec, _ = vm.DRAWN_ROUTINGS[0]
    rows = listing[listing.routing == "ecube+dateline"]
    (vn, sign, node), = dateline_positions(kind, spec, k)
    leaving = rows[(rows.sign == sign) & (rows.position == node)]
    assert (leaving.vcs == "VC2").all() and len(leaving) == 2 * k
    assert set(rows[rows.vcs == "VC2"].position) == {node}
    assert dateline_positions("bidirectional", vm.DRAWN_ROUTINGS[2][1], 4) == [
        (0, 1, 3), (0, -1, 0), (1, 1, 1), (1, -1, 2)]


def test_provoked_deadlocks_only_where_the_cdg_has_a_cycle(serial):
    specs = [{"name": "ecube"}, {"name": "ecube", "datelines": True, "vcs": 2}, {"name": "pfnf", "scheme": "count"}]
    tab = vm.provoke_deadlock_table(4, specs, replicas=3, seed=0)
    by = tab.groupby("routing").deadlock.sum()
    assert by["ecube"] >= 1                     # positive control: DOR without VCs on a torus deadlocks
    assert by["ecube+dateline"] == 0 and by["pfnf-reconstruction+count"] == 0
    assert tab[tab.deadlock].cycle_in_cdg.all()  # the simulator's waiting cycle is a cycle of the CDG
    assert (tab.cdg_acyclic == (tab.routing != "ecube")).all()
    assert tab.scheme.fillna("-").tolist() == ["-"] * 6 + ["count"] * 3    # only pfnf/turn-model have a scheme
    assert tab.replica.tolist() == [0, 1, 2] * 3 and (tab.seed == 0).all()
    with pytest.raises(ValueError, match="replicas"):
        vm.provoke_deadlock_table(4, specs, replicas=0, seed=0)


def test_finding_the_paper_mapping_deadlocks_in_the_wormhole_simulator(serial):
    """The forced CDG cycle of the paper's PFNF mapping is reached by the flit-level simulator (saturating
    uniform traffic, 4-flit packets, 1-flit buffers); the crossing-count mapping never stalls on the same runs."""
    tab = vm.provoke_deadlock_table(4, [{"name": "pfnf", "scheme": "paper"}, {"name": "pfnf", "scheme": "count"}],
                                    replicas=10, seed=0)
    paper = tab[tab.routing == "pfnf-reconstruction+paper"]
    assert paper.deadlock.any() and paper[paper.deadlock].cycle_in_cdg.all()
    assert not tab[tab.routing == "pfnf-reconstruction+count"].deadlock.any()


# ---------------------------------------------------------------------- the whole study
TINY = {
    "seed": 5, "ks": [4], "kinds": ["unidirectional", "bidirectional", "mesh"], "vc_ks": [4, 5],
    "adaptivity_ks": [3], "draw_k": 4, "sim_k": 3, "sim_routings": [{"name": "ecube", "datelines": True, "vcs": 2}],
    "sim_mesh_routings": [], "sim_traffics": ["uniform"], "sim_loads": [0.05, 0.3], "sim_seeds": 3, "sim_warmup": 20,
    "sim_measure": 60, "sim_drain": 200, "packet_length": 4, "provoke_k": 3,
    "provoke_routings": [{"name": "ecube"}], "provoke_seeds": 2, "premise_ks": [3],
}
CLAIM_IDS = ["uni_two_vcs", "bi_three_halves", "k5_dateline_row4", "k5_dateline_row1", "pfnf_three_vcs",
             "mapping_deadlock_free", "pfnf_fully_adaptive", "pfnf_mesh_deadlock_free", "fig1_unidirectional_torus",
             "fig2_deadlock_configurations", "dateline_breaks_ring_cycles", "higher_dimensions_datelines",
             "higher_dimensions_adaptive", "all_mesh_algorithms", "halfway_datelines", "minimum_extra_hardware"]


@pytest.mark.slow
def test_run_is_seed_deterministic_with_every_table_and_claim(serial):
    first, second = vm.run(TINY), vm.run(TINY)
    assert set(first) == {"second_vc_channels", "vc_counts", "channel_vcs", "drawn_virtual_meshes",
                          "pfnf_after_classes", "cdg_verdicts", "cdg_verdict_grid", "cdg_datelines", "dateline_rules",
                          "witness_messages", "adaptivity", "latency", "latency_summary", "saturation",
                          "provoke_deadlock", "provoke_summary", "dateline_premise", "vc_budget", "mapping_coverage",
                          "dateline_offsets", "dateline_search", "claims"}
    for key in first:
        pd.testing.assert_frame_equal(first[key], second[key], obj=key)
    assert first["claims"].claim_id.tolist() == CLAIM_IDS
    for key in ("latency", "latency_summary", "saturation", "provoke_deadlock", "provoke_summary"):
        assert (first[key].seed == 5).all(), key
    assert set(first["claims"].verdict) <= set(VERDICTS)


def test_presets_validate_against_the_schema_and_match_the_notebook():
    import jsonschema

    root = runner.project_root()
    spec = yaml.safe_load((root / "experiments" / "virtual_mesh.yaml").read_text())
    assert list(spec) == ["notebook", "description", "schema", "presets"]
    schema = spec["schema"]
    for preset in spec["presets"].values():
        jsonschema.Draft202012Validator(schema).validate(preset)
        assert set(preset) == set(schema["required"]) == set(schema["properties"])
    defaults = runner.notebook_parameters(root / spec["notebook"])
    assert defaults.pop("data_dir") == "scratch/quick/data/virtual_mesh"
    assert defaults.pop("figures_dir") == "scratch/quick/figures/virtual_mesh"
    assert defaults == spec["presets"]["quick"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**spec["presets"]["quick"], "sim_traffics": ["nope"]}, schema)


def _search(acyclic, exhaustive):
    n = len(acyclic)
    return pd.DataFrame({"kind": ["bidirectional"] * n, "k": [4] * n, "algorithm": [f"a{i}" for i in range(n)],
                         "mesh_acyclic": [True] * n, "space": [16] * n, "tried": [16] * n, "exhaustive": exhaustive,
                         "acyclic": acyclic, "example": [""] * n})


@pytest.mark.parametrize(("acyclic", "exhaustive", "verdict", "kind"), [
    ([1, 3], [True, False], "holds", "exhaustive"),                       # a placement found for every algorithm
    ([1, 0], [True, True], "does not hold", "counterexample"),             # every placement tried, none acyclic
    ([1, 0], [True, False], "inconclusive", "statistical"),                # none among a sample: undecided
])
def test_all_mesh_algorithms_rule(small_tables, acyclic, exhaustive, verdict, kind):
    row = vm_claims.claims({**small_tables, "dateline_search": _search(acyclic, exhaustive)}, SMALL).set_index(
        "claim_id").loc["all_mesh_algorithms"]
    assert row.verdict == verdict and row.evidence_kind == kind


@pytest.mark.parametrize(("found_by", "verdict"), [
    ("paper", "holds"),                  # the paper's switch per dimension maps the second algorithm
    ("layer", "holds"),                  # the after-layer reading, also two VCs per VN, maps it
    ("count", "does not hold"),          # the crossing count needs a third class: reported, not judged
])  # fmt: skip
def test_all_mesh_algorithms_judged_on_the_switches_the_text_allows(small_tables, found_by, verdict):
    rows = []
    for scheme in ("paper", "layer", "count"):
        search = _search([1, int(scheme == found_by)], [True, True]).assign(scheme=scheme)
        rows.append(search)
    row = vm_claims.claims({**small_tables, "dateline_search": pd.concat(rows, ignore_index=True)}, SMALL).set_index(
        "claim_id").loc["all_mesh_algorithms"]
    assert row.verdict == verdict
    assert "['paper', 'layer', 'count']" in row.conditions and "switch 'count'" in row.measured_text
    assert vm_claims.DATELINE_SCHEMES_IN_TEXT == ("paper", "layer")


def test_dateline_search_table_tries_each_switch():
    table = vm.dateline_search_table([4], ["unidirectional"], max_configs=4, backend="serial",
                                     schemes=["paper", "count"])
    assert list(dict.fromkeys(table.scheme)) == ["paper", "count"]
    counted = table[table.scheme == "count"].set_index("algorithm")
    assert (counted.acyclic[counted.mesh_acyclic.astype(bool)] > 0).all()   # the crossing count maps every one
    with pytest.raises(ValueError, match="schemes"):
        vm.dateline_search_table([4], ["unidirectional"], schemes=["none"], backend="serial")


def test_dateline_search_table_skips_large_radices_and_counts_placements():
    table = vm.dateline_search_table([4, 6], ["unidirectional"], max_configs=4, backend="serial")
    assert set(table.k) == {4}                                    # 6 > DATELINE_SEARCH_MAX_K
    assert (table.tried == table.space.clip(upper=4)).all()
    assert (table.exhaustive == (table.space <= 4)).all()
    assert (table.acyclic <= table.tried).all()
