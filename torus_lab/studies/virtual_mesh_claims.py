"""The claims of Upadhyay, Varavithya & Mohapatra's virtual mesh networks, from the study's tables.

The one entry point is :func:`claims` (the tables :func:`torus_lab.studies.virtual_mesh.run` assembled and the
experiment's parameters -> the claims table, :func:`torus_lab.claims.claims_table`).  One private function builds
each claim family, with its verdict rule as data (:class:`torus_lab.claims.Rule`); the rules are written in the
docstring of :func:`claims`.  The claims read the tables only: :func:`min_acyclic_vcs` derives the fewest VCs of
the VC-budget table, and the witness cycles' dimensions come from :func:`torus_lab.deadlock.cycle_dimensions`.
:data:`PAPER_RESULTS` lists the paper's numbered results, which the claims table covers.

Examples
--------
>>> claims({"vc_counts": None}, {})
Traceback (most recent call last):
...
ValueError: tables lacks the key(s) 'second_vc_channels', 'cdg_verdicts', 'adaptivity', 'latency', \
'provoke_summary', 'dateline_premise', 'vc_budget', 'mapping_coverage', 'dateline_offsets', 'dateline_search'
>>> len(PAPER_RESULTS), PAPER_RESULTS[0]
(7, 'Fig. 1')
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from torus_lab._validate import check_frame, check_mapping
from torus_lab.claims import Claim, Rule, claims_table, data_file, figure_file
from torus_lab.deadlock import cycle_dimensions
from torus_lab.topology import make_network

__all__ = ["claims", "PAPER_RESULTS", "min_acyclic_vcs"]

#: Every numbered result of the paper, in paper order, spelled as the claims' ``location`` column spells it: the
#: paper has no theorem, lemma or table, only Figs. 1-7 (Fig. 1 and Fig. 2 are drawings of the networks and of the
#: deadlock configurations; Figs. 3-7 draw the dateline construction).
PAPER_RESULTS: tuple[str, ...] = ("Fig. 1", "Fig. 2", "Fig. 3", "Fig. 4", "Fig. 5", "Fig. 6", "Fig. 7")

_TABLES = ("second_vc_channels", "vc_counts", "cdg_verdicts", "adaptivity", "latency", "provoke_summary",
           "dateline_premise", "vc_budget", "mapping_coverage", "dateline_offsets", "dateline_search")  # fmt: skip
_PARAMS = ("vc_ks", "sim_k", "provoke_k", "adaptivity_ks", "premise_ks", "draw_k")
_ENUMERATED = "every source-destination pair enumerated; a channel 'needs' a VC when some route uses it"
_EVERY_PAIR = "channel dependency graph over every reachable routing state of every pair"


def min_acyclic_vcs(budget: pd.DataFrame) -> pd.DataFrame:
    """Per (routing, k) of a VC-budget table (:func:`torus_lab.studies.virtual_mesh.vc_budget_table`): the fewest
    VCs with an acyclic assignment (NaN if none).

    >>> b = pd.DataFrame({"routing": ["r", "r"], "k": [4, 4], "vcs": [1, 2], "acyclic_assignments": [0, 3]})
    >>> min_acyclic_vcs(b).values.tolist()
    [['r', 4, 2.0]]
    """
    check_frame("budget", budget, ["routing", "k", "vcs", "acyclic_assignments"])
    ok = budget[budget.acyclic_assignments > 0]
    best = ok.groupby(["routing", "k"]).vcs.min()
    index = budget[["routing", "k"]].drop_duplicates().set_index(["routing", "k"]).index
    return best.reindex(index).astype(float).rename("min_vcs").reset_index()


def _fraction(frame: pd.DataFrame, routing: str, how: str) -> float:
    values = frame[frame.routing == routing].fully_adaptive_pairs
    return float(getattr(values, how)()) if len(values) else float("nan")


def _vm_evidence(*names: str) -> tuple[str, ...]:
    return tuple(data_file("virtual_mesh", name) for name in names)


def _rows_of(text: object) -> list[int]:
    return [int(v) for v in str(text).split()] if isinstance(text, str) or not pd.isna(text) else []


def _vc_count_claims(second: pd.DataFrame, vc: pd.DataFrame, vc_ks: list[int]) -> list[Claim]:
    """Sections 3.2-3.3, Fig. 6: two VCs at every node of a unidirectional torus, 3/2 VNs on a bidirectional one."""
    bi = vc[vc.kind == "bidirectional"]
    uni = vc[(vc.kind == "unidirectional") & (vc.routing == "dor+dateline")]
    rows: list[Claim] = []
    # unidirectional: two VCs at every node
    uni_second = second[(second.kind == "unidirectional") & second.measured_equal.eq(True)]
    paper_nodes = [f"k={r.k}:row {row}" for r in uni_second.itertuples() for row in range(int(r.k))]
    measured_nodes = [f"k={r.k}:row {row}" for r in uni_second.itertuples() for row in _rows_of(r.vc2_receivers)]
    rows.append(Claim(
        claim_id="uni_two_vcs", location="Section 3.3; Fig. 6",
        statement="unidirectional torus: every node needs two VCs per dimension (1 mesh VN -> 2 torus VNs)",
        conditions=f"unidirectional k-ary 2-cubes, k in {vc_ks}; dimension-order routing with one dateline per "
                   f"ring (VC1 before it, VC2 after); {_ENUMERATED}",
        paper_value=len(paper_nodes), paper_text="every node of a ring (2 VCs on all channels)",
        measured_value=len(measured_nodes) if len(uni_second) else math.nan,
        measured_text=(f"nodes receiving VC2: {len(measured_nodes)} of {len(paper_nodes)} (all but one per ring); "
                       f"max {uni.max_vcs.max() if len(uni) else '-'} VCs per channel; channels carrying both VCs: "
                       + ", ".join(f"k={r.k}: {r.with_two}/{r.channels}" for r in uni.itertuples())
                       + "; VCs in use per channel " + ", ".join(f"{v:.2f}" for v in uni.vns_equiv)),
        rule=Rule("subset", {"paper_set": paper_nodes, "measured_set": measured_nodes}),
        evidence=_vm_evidence("second_vc_channels.csv", "vc_counts.csv")))
    # bidirectional: half the nodes, 3/2 VNs
    b1 = bi[bi.routing == "dor+dateline"]
    frac = second[(second.kind == "bidirectional") & (second.dateline.notna())].vc2_fraction
    met = int(len(frac) > 0 and frac.max() <= 0.5 + 1e-9) + int(len(b1) > 0 and b1.vns_equiv.max() <= 1.5 + 1e-9)
    rows.append(Claim(
        claim_id="bi_three_halves", location="Section 3.2",
        statement="bidirectional torus, minimal routing: only half of the nodes need two VCs per direction (1 mesh "
                  "VN -> 3/2 torus VNs)",
        conditions=f"bidirectional k-ary 2-cubes, k in {vc_ks}; minimal dimension-order routing, one dateline per "
                   f"direction; {_ENUMERATED}; two criteria: at most 1/2 of a ring direction carries VC2 and at most "
                   "3/2 VCs in use per channel",
        paper_value=1.5, paper_text="1/2 of the channels; 3/2 VNs",
        measured_value=met if len(frac) and len(b1) else math.nan,
        measured_text=(f"channels carrying VC2 per direction: {frac.min():.2f}-{frac.max():.2f} of the ring; VCs in "
                       "use per channel " + ", ".join(f"k={r.k}: {r.vns_equiv:.3f}" for r in b1.itertuples())
                       if len(frac) else "no bidirectional rows in this run"),
        rule=Rule("all_of", {"n": 2 if len(frac) and len(b1) else 0}),
        evidence=_vm_evidence("second_vc_channels.csv", "vc_counts.csv")))
    return rows


def _k5_claims(second: pd.DataFrame) -> list[Claim]:
    """Figs. 4-5: the 5-ary examples, the paper's set of rows against the rows whose nodes receive VC2."""
    rows: list[Claim] = []
    s5 = second[(second.k == 5) & (second.kind == "bidirectional") & (second.direction == "+")].set_index("dateline")
    for cid, figure, dateline, paper_rows, text in (
            ("k5_dateline_row4", "Fig. 4", 4, [0, 1, 2], "only nodes at rows 0 to 2 need two VCs"),
            ("k5_dateline_row1", "Fig. 5", 1, [2, 3, 4], "only nodes at row 2 and above need two VCs")):  # fmt: skip
        measured_rows = (sorted(map(int, str(s5.loc[dateline, "vc2_receivers"]).split()))
                         if dateline in s5.index else None)
        if measured_rows is None:
            measured_text = "k = 5 not in this run (vc_ks)"
        else:
            extra = sorted(set(paper_rows) - set(measured_rows))
            measured_text = (f"VC2 delivered to rows {measured_rows} (channels leaving rows "
                             f"{s5.loc[dateline, 'vc2_sources']}); "
                             + (f"the paper's set also names rows {extra}, which never receive VC2 under minimal "
                                "routing: our rows are a strict subset of the paper's" if extra
                                else "the same rows as the paper"))
        rows.append(Claim(
            claim_id=cid, location=f"Section 3.2; {figure}",
            statement=f"5-ary torus, +y direction, dateline at row {dateline}: {text}",
            conditions="bidirectional 5-ary 2-cube, minimal dimension-order routing with a dateline per direction; a "
                       "node 'needs two VCs' when some channel into it carries VC2; every source-destination pair "
                       "enumerated",
            paper_value=len(paper_rows), paper_text=f"rows {paper_rows}",
            measured_value=len(measured_rows) if measured_rows is not None else math.nan,
            measured_text=measured_text,
            rule=Rule("subset", {"paper_set": paper_rows, "measured_set": measured_rows or []}),
            evidence=(data_file("virtual_mesh", "second_vc_channels.csv"),)))
    return rows


def _pfnf_three_vcs_claim(vc: pd.DataFrame) -> list[Claim]:
    """Section 4, Fig. 7: PFNF with the datelines of its two VNs halfway apart needs 3 VCs per channel."""
    bi = vc[vc.kind == "bidirectional"]
    rows: list[Claim] = []
    p4 = bi[bi.routing == "pfnf-reconstruction+paper-4vc"]
    three = int(((p4.max_vcs == 3) & (p4.after_overlap == 0)).sum())
    rows.append(Claim(
        claim_id="pfnf_three_vcs", location="Section 4; Fig. 7",
        statement="PFNF on a torus with the two VNs' datelines halfway apart needs 3 VCs per physical channel",
        conditions=f"bidirectional k-ary 2-cubes, k in {list(p4.k)}; our reconstruction of PFNF (conventions pfnf) "
                   f"with 4 VCs allocated, counting the VCs some route uses; {_ENUMERATED}",
        paper_value=3, paper_text="3 VCs per channel",
        measured_value=three if len(p4) else math.nan,
        measured_text=(f"exactly 3 VCs on the busiest channel and no channel needing both after-dateline classes at "
                       f"{three} of {len(p4)} radices (max VCs/channel {sorted(set(p4.max_vcs))})"),
        rule=Rule("all_of", {"n": len(p4)}), evidence=_vm_evidence("vc_counts.csv")))
    return rows


def _mapping_claim(cdg: pd.DataFrame, sweep_: pd.DataFrame, prov: pd.DataFrame,
                   params: Mapping[str, Any]) -> list[Claim]:  # fmt: skip
    """Sections 3.1-4: mesh algorithms mapped with per-direction datelines are deadlock-free (CDGs and simulation)."""
    rows: list[Claim] = []
    bid = cdg[cdg.kind == "bidirectional"]
    pm = bid[bid.routing == "pfnf-reconstruction+paper"]
    pl = bid[bid.routing == "pfnf-literal+paper"]
    tm = bid[bid.routing.isin(["negative-first+paper", "west-first+paper", "north-last+paper",
                               "positive-first+paper"])]
    cnt = bid[bid.routing == "pfnf-reconstruction+count"]
    lay = cdg[cdg.kind.isin(["bidirectional", "unidirectional"]) & (cdg.scheme == "layer")]
    paper_prov = prov[prov.scheme.isin(["paper", "layer"])]
    mapping_acyclic = int(pm.acyclic.astype(bool).sum())
    paper_dead = sweep_.deadlock.astype(bool) & (sweep_.scheme == "paper")
    k_sim, k_prov = params["sim_k"], params["provoke_k"]
    measured = (
        f"paper mapping: CDG acyclic for PFNF-REC at {mapping_acyclic}/{len(pm)} radices "
        f"(cycles with a forced witness: {int(pm.forced.eq(True).sum())}), "
        f"PFNF-literal cyclic {int((~pl.acyclic.astype(bool)).sum())}/{len(pl)}, "
        f"single-VN turn models cyclic {int((~tm.acyclic.astype(bool)).sum())}/{len(tm)}; "
        + (f"simulator ({k_prov}x{k_prov}, saturating load): "
           + ", ".join(f"{x.routing} deadlocked {int(x.deadlocks)}/{int(x.runs)}" for x in paper_prov.itertuples())
           + "; " if len(paper_prov) else "")
        + (f"latency sweep ({k_sim}x{k_sim}) deadlocked for "
           + ", ".join(sorted(set(sweep_[paper_dead].routing))) + "; " if paper_dead.any() else "")
        + f"'layer' reading cyclic {int((~lay.acyclic.astype(bool)).sum())}/{len(lay)}; "
        f"crossing-count scheme (ours) acyclic {int(cnt.acyclic.astype(bool).sum())}/{len(cnt)}")
    rows.append(Claim(
        claim_id="mapping_deadlock_free", location="Section 3.1; Section 3.2; Section 4",
        statement="mesh algorithms mapped onto the torus with per-direction datelines (virtual mesh) are "
                  "deadlock-free",
        conditions=f"bidirectional k-ary 2-cubes, k in {list(pm.k)}; the paper's mapping as we read it ('paper': "
                   "one dateline per direction, VC class switched at the dateline; 'layer' the alternative reading; "
                   "conventions virtual-mesh-schemes); channel dependency graphs over every pair, and wormhole "
                   f"simulation at saturating load ({k_prov}x{k_prov}, 1-flit buffers)",
        paper_text="deadlock-free (implied by the mapping)", measured_value=mapping_acyclic if len(pm) else math.nan,
        measured_text=measured, rule=Rule("all_of", {"n": len(pm)}),
        evidence=_vm_evidence("cdg_verdicts.csv", "witness_messages.csv", "provoke_deadlock.csv")))
    return rows


def _pfnf_claims(cdg: pd.DataFrame, adapt: pd.DataFrame, params: Mapping[str, Any]) -> list[Claim]:
    """Section 4: PFNF is fully adaptive (two readings of its rules) and deadlock-free in a 2D mesh."""
    rows: list[Claim] = []
    mesh_ad = adapt[adapt.kind == "mesh"]
    rec_rows = mesh_ad[mesh_ad.routing == "pfnf-reconstruction"]
    lit_rows = mesh_ad[mesh_ad.routing == "pfnf-literal"]
    rec_full = int((rec_rows.fully_adaptive_pairs == 1.0).sum())
    lit_full = int((lit_rows.fully_adaptive_pairs == 1.0).sum())
    cases = len(rec_rows) + len(lit_rows)
    rows.append(Claim(
        claim_id="pfnf_fully_adaptive", location="Section 4",
        statement="PFNF is fully adaptive (every minimal path usable)",
        conditions=f"k x k meshes, k in {list(params['adaptivity_ks'])}; every pair; two readings of the PFNF "
                   "rules: our reconstruction (conventions pfnf) and the literal text",
        paper_text="fully adaptive", measured_value=rec_full + lit_full if cases else math.nan,
        measured_text=(f"every pair fully adaptive at {rec_full}/{len(rec_rows)} radices with the reconstruction "
                       f"(min fraction {_fraction(mesh_ad, 'pfnf-reconstruction', 'min'):.3f}) and "
                       f"{lit_full}/{len(lit_rows)} with the literal reading (max fraction "
                       f"{_fraction(mesh_ad, 'pfnf-literal', 'max'):.3f})"),
        rule=Rule("all_of", {"n": cases, "condition": "our reconstruction of the PFNF rules",
                             "conditional_k": rec_full, "conditional_n": len(rec_rows)}),
        evidence=_vm_evidence("adaptivity.csv")))
    # PFNF on a mesh deadlock-free
    mesh_pf = cdg[(cdg.kind == "mesh") & cdg.routing.isin(["pfnf-reconstruction", "pfnf-mirror", "pfnf-literal"])]
    switch = cdg[(cdg.kind == "mesh") & (cdg.routing == "pfnf-switch")]
    acyclic = int(mesh_pf.acyclic.astype(bool).sum())
    rows.append(Claim(
        claim_id="pfnf_mesh_deadlock_free", location="Section 4",
        statement="PFNF in a 2D mesh (two VNs, negative-first / positive-first turn rules per VN) is deadlock-free",
        conditions=f"k x k meshes, k in {sorted(set(mesh_pf.k))}; three readings (reconstruction, mirror, literal); "
                   "channel dependency graph over every pair; a message stays in its VN",
        paper_text="deadlock-free", measured_value=acyclic if len(mesh_pf) else math.nan,
        measured_text=(f"CDG acyclic for {acyclic}/{len(mesh_pf)} (reading x k); switching VN hop by hop instead: "
                       + ("cyclic" if not switch.acyclic.astype(bool).any() else "acyclic")),
        rule=Rule("all_of", {"n": len(mesh_pf)}), evidence=_vm_evidence("cdg_verdicts.csv")))
    return rows


def _fig1_claim(params: Mapping[str, Any]) -> list[Claim]:
    """Fig. 1: a drawing of the unidirectional torus, nothing to measure."""
    rows: list[Claim] = []
    rows.append(Claim(
        claim_id="fig1_unidirectional_torus", location="Fig. 1",
        statement="a 5 x 5 two-dimensional unidirectional torus (all nodes connected by positive channels) and the "
                  "direction notation",
        conditions=f"a drawing of the network, nothing to measure; our drawing of a {params['draw_k']} x "
                   f"{params['draw_k']} unidirectional torus with its datelines is the left panel of the "
                   "virtual-mesh figure",
        paper_text="drawing", measured_text="our drawing (virtual_mesh figure, left panel)",
        rule=Rule("manual", {"verdict": "not testable here",
                             "reason": "a drawing of the topology and its notation states no property to check; "
                                       "we show our drawing of the same torus instead"}),
        evidence=(figure_file("virtual_mesh", "virtual_mesh.png"),)))
    return rows


def _fig2_claim(cdg: pd.DataFrame, premise: pd.DataFrame, premise_ks: list[int]) -> list[Claim]:
    """Fig. 2: cycles in a mesh go through turns (two dimensions); a torus adds one-dimension (ring) cycles."""
    rows: list[Claim] = []
    mesh_cyclic = cdg[(cdg.kind == "mesh") & ~cdg.acyclic.astype(bool)]
    mesh_dims = [cycle_dimensions(make_network("mesh", int(r.k)), r.cycle_channels) for r in mesh_cyclic.itertuples()]
    turn_cycles = sum(d == [0, 1] for d in mesh_dims)
    ring = premise[(premise.n >= 2) & (premise.routing == "dor") & ~premise.acyclic.astype(bool)]
    ring_cycles = int((ring.cycle_dims.astype(str).str.split().str.len() == 1).sum())
    mesh_dor = cdg[(cdg.kind == "mesh") & (cdg.routing == "dor")]
    dor_ok = int(mesh_dor.acyclic.astype(bool).sum())
    rows.append(Claim(
        claim_id="fig2_deadlock_configurations", location="Fig. 2",
        statement="deadlock configurations: in a mesh, cycles formed by inter-dimensional turns; in a torus also "
                  "cycles within one dimension (wrap-around)",
        conditions=f"{_EVERY_PAIR}; (a) every cyclic routing on k x k meshes, k in {sorted(set(mesh_cyclic.k))}: its "
                   f"witness cycle uses both dimensions (a turn cycle), and dimension-order routing (no turn cycle) "
                   f"is acyclic; (b) dimension-order routing with one VC on uni- and bidirectional 2-D and 3-D "
                   f"tori, k in {premise_ks}: its witness cycle lies in one dimension (a ring)",
        paper_text="turn cycles (a); also ring cycles (b)", measured_value=turn_cycles + ring_cycles + dor_ok,
        measured_text=(f"mesh witness cycles through both dimensions {turn_cycles}/{len(mesh_cyclic)}; mesh DOR "
                       f"acyclic {dor_ok}/{len(mesh_dor)}; torus DOR witness cycles in one dimension "
                       f"{ring_cycles}/{len(ring)} (bidirectional k = 3 has no DOR cycle: no route takes two hops "
                       "in a ring)"),
        rule=Rule("all_of", {"n": len(mesh_cyclic) + len(ring) + len(mesh_dor)}),
        evidence=_vm_evidence("cdg_verdicts.csv", "dateline_premise.csv")))
    return rows


def _premise_claims(premise: pd.DataFrame, premise_ks: list[int]) -> list[Claim]:
    """Section 3.1, Fig. 3 and higher dimensions (Sections 1, 5): a dateline and a second VC break the ring cycles."""
    dims = sorted({int(n) for n in premise.n})
    rows: list[Claim] = []
    cases = premise.pivot_table(index=["n", "kind", "k"], columns="routing", values="acyclic", aggfunc="first")
    cyclic = cases[~cases["dor"].astype(bool)] if len(cases) else cases
    broken = int(cyclic["dor+dateline"].astype(bool).sum()) if len(cyclic) else 0
    rows.append(Claim(
        claim_id="dateline_breaks_ring_cycles", location="Section 3.1; Fig. 3",
        statement="two VCs per physical channel and a dateline per ring direction (VC1 before it, VC2 after) leave "
                  "no cyclic dependency through the wrap-around connection",
        conditions=f"dimension-order routing (e-cube) with one VC vs two VCs switched at the dateline (the hop "
                   f"leaving the dateline node uses VC2; conventions datelines), uni- and bidirectional k-ary "
                   f"n-cubes, n in {dims} (n = 1: the paper's ring), k in {premise_ks}; {_EVERY_PAIR}; "
                   "cases: the networks whose one-VC CDG is cyclic",
        paper_text="no cyclic dependency", measured_value=broken if len(cyclic) else math.nan,
        measured_text=(f"one VC: cyclic on {len(cyclic)}/{len(cases)} networks (all but the bidirectional 3-ary "
                       f"ones); with the dateline acyclic on {broken}/{len(cyclic)} of them and on "
                       f"{int(cases['dor+dateline'].astype(bool).sum())}/{len(cases)} networks in all"
                       if len(cases) else "no premise rows in this run"),
        rule=Rule("all_of", {"n": len(cyclic)}), evidence=_vm_evidence("dateline_premise.csv")))
    # Abstract / Sections 1, 5: higher dimensions
    three = cases.loc[cases.index.get_level_values("n") >= 3] if len(cases) else cases
    three_cyclic = three[~three["dor"].astype(bool)] if len(three) else three
    three_ok = int(three_cyclic["dor+dateline"].astype(bool).sum()) if len(three_cyclic) else 0
    rows.append(Claim(
        claim_id="higher_dimensions_datelines", location="Section 1; Section 5",
        statement="the virtual-mesh idea (datelines breaking the wrap-around dependencies) applies to higher "
                  "dimensional k-ary n-cubes",
        conditions=f"3-D uni- and bidirectional tori, k in {premise_ks}; dimension-order routing, the only mesh "
                   "algorithm of the registry defined on 3-D networks, with one VC vs two VCs and a dateline per "
                   f"ring direction; {_EVERY_PAIR}; cases: the 3-D networks whose one-VC CDG is cyclic",
        paper_text="applicable to higher dimensions (no construction given)",
        measured_value=three_ok if len(three_cyclic) else math.nan,
        measured_text=(f"3-D: one VC cyclic on {len(three_cyclic)}/{len(three)} tori; with datelines acyclic on "
                       f"{three_ok}/{len(three_cyclic)} of them" if len(three) else "no 3-D rows in this run"),
        rule=Rule("all_of", {"n": len(three_cyclic)}), evidence=_vm_evidence("dateline_premise.csv")))
    rows.append(Claim(
        claim_id="higher_dimensions_adaptive", location="Section 1; Section 5",
        statement="mapped adaptive mesh algorithms (PFNF, turn models) work on higher dimensional tori",
        conditions="3-D tori; no construction of a 3-D PFNF or turn-model mapping in the paper",
        paper_text="the same methodology can be used for higher dimensional k-ary n-cubes",
        measured_text="not built: the registry's turn-model and PFNF kernels are 2-D (row mapping_deadlock_free: "
                      "the 2-D mapping is already cyclic)",
        rule=Rule("manual", {"verdict": "not testable here",
                             "reason": "the paper gives no 3-D PFNF or turn-model rules (PFNF's virtual-network rule "
                                       "is a 2-D quadrant rule) and the workbench's turn-model/PFNF routings are "
                                       "defined on 2-D networks only; the 2-D mapping of these algorithms is "
                                       "already cyclic (rows mapping_deadlock_free, all_mesh_algorithms)"}),
        evidence=_vm_evidence("cdg_verdicts.csv")))
    return rows


#: The VC switches at the dateline the paper's text allows (two VCs per VN: VC1 before the dateline, VC2 after it):
#: ``paper`` (per dimension, the paper's Section 3) and ``layer`` (the after layer kept once any dateline is crossed,
#: its "superposition of two virtual networks comprising VC1 channels and VC2 channels").  The claim "all mesh
#: algorithms can be mapped" is judged on these; other switches of the dateline search (``count``: a third class
#: per VN) are reported beside them (``docs/conventions.md#dateline-search``).
DATELINE_SCHEMES_IN_TEXT = ("paper", "layer")
_CASE = ["kind", "k", "algorithm"]


def _search_cases(search: pd.DataFrame) -> pd.DataFrame:
    """Per (kind, k, algorithm) case of a dateline search over the VC switches the paper's text allows
    (:data:`DATELINE_SCHEMES_IN_TEXT`; a table without a ``scheme`` column searched the paper's only): whether
    some placement of some switch is acyclic (``mapped``) and whether every switch was searched exhaustively."""
    if "scheme" not in search.columns:
        search = search.assign(scheme="paper")
    allowed = search[search.scheme.isin(DATELINE_SCHEMES_IN_TEXT) & search.mesh_acyclic.astype(bool)]
    return allowed.assign(found=allowed.acyclic > 0, full=allowed.exhaustive.astype(bool)).groupby(
        _CASE, sort=False).agg(mapped=("found", "any"), exhaustive=("full", "all")).reset_index()


def _search_text(rows: pd.DataFrame) -> str:
    """The acyclic placements per algorithm and torus of dateline search ``rows``, in words."""
    return "; ".join(f"{a}: {int(g.acyclic.gt(0).sum())}/{len(g)} tori, acyclic placements "
                     + ", ".join(f"{r.kind[:3]} k={r.k} {r.acyclic}/{r.tried}{'' if r.exhaustive else ' sampled'} "
                                 f"of {r.space}" for r in g.itertuples())
                     for a, g in rows.groupby("algorithm", sort=False))


def _all_mesh_algorithms_claim(coverage: pd.DataFrame, search: pd.DataFrame) -> list[Claim]:
    """Sections 4, 5: "with a proper choice of datelines, all the algorithms for mesh can be mapped to torus": per
    mesh algorithm and torus, does some dateline placement with a VC switch the paper's text allows give an acyclic
    CDG (the dateline search)?  The other switches searched are reported, not judged."""
    search = search if "scheme" in search.columns or not len(search) else search.assign(scheme="paper")
    cases = _search_cases(search) if len(search) else pd.DataFrame(columns=[*_CASE, "mapped", "exhaustive"])
    mapped = cases[cases.mapped.astype(bool)]
    refuted = cases[~cases.mapped.astype(bool) & cases.exhaustive.astype(bool)]
    free = search[search.mesh_acyclic.astype(bool)] if len(search) else search
    schemes = list(dict.fromkeys(free.scheme)) if len(free) else []
    per_scheme = "; ".join(f"switch '{scheme}': {_search_text(g)}" for scheme, g in free.groupby("scheme", sort=False)
                           if scheme in DATELINE_SCHEMES_IN_TEXT) if len(free) else ""
    other_text = "".join(
        f"; beside them, not judged (a VC switch beyond the paper's two VCs per VN), switch '{scheme}': an acyclic "
        f"placement for {int(g.groupby(_CASE).acyclic.max().gt(0).sum())}/{g.groupby(_CASE).ngroups} cases"
        for scheme, g in free.groupby("scheme", sort=False) if scheme not in DATELINE_SCHEMES_IN_TEXT) \
        if len(free) else ""
    cov = coverage[coverage.mesh_acyclic.astype(bool)]
    dor = cov[cov.algorithm == "dor"]
    # each case is decided by a witness placement or by trying every placement; a sample without one decides nothing
    rule = Rule("all_of", {"n": len(cases)})
    if len(cases) and len(mapped) < len(cases) and refuted.empty:
        rule = Rule("manual", {"verdict": "inconclusive", "reason": "no acyclic placement among the sampled ones; "
                                                                    "the space was not searched exhaustively"})
    in_text = [s for s in DATELINE_SCHEMES_IN_TEXT if s in schemes]
    return [Claim(
        claim_id="all_mesh_algorithms", location="Section 4; Section 5",
        statement="with a proper choice of datelines all the algorithms for mesh can be mapped to the torus "
                  "(deadlock-free)",
        conditions=f"every routing of the registry defined on a 2-D mesh whose mesh CDG is acyclic "
                   f"({', '.join(dict.fromkeys(free.algorithm)) if len(free) else 'none'}; e-cube apart: its "
                   f"wrap-link datelines are acyclic, {int(dor.paper.astype(bool).sum())}/{len(dor)} tori), mapped "
                   f"onto uni- and bidirectional k x k tori, k in {sorted(set(free.k)) if len(free) else []}; "
                   f"searched: the VC switches at the dateline {schemes or 'none'} (conventions "
                   "virtual-mesh-schemes, dateline-search), judged on those the paper's text allows (two VCs per "
                   f"VN, VC1 before and VC2 after the dateline: {in_text or 'none'}), a case mapped when some switch "
                   "and placement is acyclic; a proper choice searched over every position of every dateline (per "
                   "dimension, ring direction and VN, up to translation; one dateline row per dimension): every "
                   f"placement when there are at most {int(free.tried.max()) if len(free) else 0}, else a random "
                   f"sample of that many; {_EVERY_PAIR}; a case with no acyclic placement in exhaustive searches of "
                   "every allowed switch is a counterexample; 'all' beyond the registry's algorithms, datelines "
                   "that differ from row to row, and VC switches other than those searched are not testable",
        paper_text="all mesh algorithms, with a proper choice of datelines",
        measured_value=len(mapped) if len(cases) else math.nan,
        measured_text=(f"an acyclic dateline placement with a switch the text allows exists for {len(mapped)}/"
                       f"{len(cases)} (algorithm, torus) cases ({len(refuted)} exhaustive searches without one): "
                       f"{per_scheme}{other_text}" if len(cases) else "no dateline search in this run"),
        rule=rule, evidence_kind="counterexample" if len(refuted) else ("statistical" if rule.kind == "manual"
                                                                        else "exhaustive"),
        evidence=_vm_evidence("dateline_search.csv", "mapping_coverage.csv"))]


def _halfway_claim(offsets: pd.DataFrame) -> list[Claim]:
    """Section 4: datelines of the two VNs halfway apart minimize the VCs."""
    rows: list[Claim] = []
    per_k = []
    for k, group in offsets.groupby("k"):
        half = group[group["halfway"].astype(bool)].iloc[0]
        per_k.append((int(k), bool(half.after_overlap == 0 and half.max_vcs == group.max_vcs.min()),
                      sorted(int(o) for o in group[group.after_overlap == 0].offset),
                      sorted(int(o) for o in group[group.max_vcs == group.max_vcs.min()].offset),
                      group.total_vcs.nunique() == 1))
    rows.append(Claim(
        claim_id="halfway_datelines", location="Section 4",
        statement="the overall VCs are minimized by choosing the datelines of PFNF's two virtual networks halfway "
                  "across from each other",
        conditions=f"bidirectional k x k tori, k in {[k for k, *_ in per_k]}; PFNF (REC) with the paper's mapping, "
                   "VN1's datelines shifted by every offset 0..k-1 (halfway = k // 2), the four classes (VN x before/"
                   "after) kept apart; minimized read as: at the halfway offset no channel needs both VNs' after "
                   "classes (so they can share one VC: 3 VCs) and the most classes any channel needs is the least "
                   f"over the offsets; {_ENUMERATED}",
        paper_text="halfway datelines minimize the VCs (3 per channel)",
        measured_value=sum(ok for _, ok, *_ in per_k) if per_k else math.nan,
        measured_text=("; ".join(f"k={k}: offsets with no shared channel {zero}, with the fewest classes per channel "
                                 f"{least}" for k, _, zero, least, _ in per_k)
                       + ("; the total (channel, class) pairs in use is the same for every offset"
                          if all(same for *_, same in per_k) else "") if per_k else "no radices in this run"),
        rule=Rule("all_of", {"n": len(per_k)}), evidence=_vm_evidence("dateline_offsets.csv")))
    return rows


def _one_ring(kind: str, k: int, cycle_channels: object) -> bool:
    """Whether a witness cycle lies in one dimension of the ``kind`` k-ary 2-cube: a ring cycle, which in a torus
    runs through the wrap-around channel (the paper's Fig. 2(b))."""
    return len(cycle_dimensions(make_network(kind, int(k)), cycle_channels)) == 1


#: The narrow reading of "the minimum hardware ... to break the wrap-around dependencies" (row
#: minimum_extra_hardware, ``docs/conventions.md#claims-readings``): three VCs are the fewest that break the ring
#: cycles through the wrap-around channels, whatever cycles the mapped routing keeps otherwise.
RING_READING = ("the narrow reading: three VCs as the minimum that breaks the wrap-around ring cycles (cases a, b), "
                "not as enough to map the torus to the mesh (case c)")


def _minimum_hardware_claim(budget: pd.DataFrame, cdg: pd.DataFrame, vc: pd.DataFrame) -> list[Claim]:
    """Sections 4-5: three VCs per physical channel are the minimum hardware that breaks PFNF's wrap-around
    dependencies (two leave a ring cycle, three carry both VNs' dateline classes) and thereby maps the torus to the
    mesh (the 3-VC mapping deadlock-free).  The paper's sentence says both; the row holds under conditions
    (:data:`RING_READING`) when only the first part holds."""
    bid = cdg[cdg.kind == "bidirectional"]
    two = bid[bid.routing == "pfnf-reconstruction"]            # one VC per VN, no room for a dateline class
    three = bid[bid.routing == "pfnf-reconstruction+paper"]    # the paper's mapping on 3 VCs
    fit = vc[(vc.kind == "bidirectional") & (vc.routing == "pfnf-reconstruction+paper-4vc")]
    rings = int(sum(not bool(r.acyclic) and _one_ring(r.kind, r.k, r.cycle_channels) for r in two.itertuples()))
    fits = int(((fit.max_vcs <= 3) & (fit.after_overlap == 0)).sum())
    mapped = int(three.acyclic.astype(bool).sum())
    turns = int(sum(not bool(r.acyclic) and not _one_ring(r.kind, r.k, r.cycle_channels)
                    for r in three.itertuples()))
    least = min_acyclic_vcs(budget)
    count_least = least[least.routing == "pfnf-reconstruction+count"]
    narrow = len(two) + len(fit)
    n = narrow + len(three)
    ks = sorted({int(k) for k in (*two.k, *fit.k, *three.k)})
    return [Claim(
        claim_id="minimum_extra_hardware", location="Section 4; Section 5",
        statement="three virtual channels per physical channel are the minimum hardware that breaks the "
                  "wrap-around dependencies of PFNF on the torus and thereby maps the torus to the mesh (the "
                  "virtual mesh)",
        conditions=f"bidirectional k x k tori, k in {ks}; the PFNF reconstruction's routes, its two VNs kept apart "
                   "(a message switching VN hop by hop is cyclic even in the mesh: row pfnf_mesh_deadlock_free); "
                   f"{_EVERY_PAIR}; cases per k: (a) fewer than three VCs: two, one per VN, leave no class for a "
                   "dateline; the case holds when the CDG has a cycle within one dimension (a ring through the "
                   "wrap-around channel); (b) three VCs: with the two VNs' datelines halfway apart, the four dateline "
                   "classes (VN x before/after, the class switch that breaks a ring's cycle: row "
                   "dateline_breaks_ring_cycles) need at most 3 VCs on every channel and no channel needs both "
                   "after classes; (c) the sentence's 'thereby maps the torus to the mesh': the paper's mapping on "
                   "those 3 VCs has an acyclic CDG (row mapping_deadlock_free judges the mapping of every mesh "
                   f"algorithm; its witness is a deadlock of 8 messages on the 4 x 4 torus); {_ENUMERATED}",
        paper_value=3, paper_text="3 VCs per physical channel, the minimum to break the wrap-around dependencies "
                                  "and thereby map the torus to the mesh",
        measured_value=rings + fits + mapped if n else math.nan,
        measured_text=(f"(a) two VCs: a wrap-around ring cycle at {rings}/{len(two)} radices; (b) three VCs: the "
                       f"four dateline classes fit in 3 VCs per channel at {fits}/{len(fit)} radices; (c) the 3-VC "
                       f"mapping acyclic at {mapped}/{len(three)} radices (its cycle runs through both dimensions, a "
                       f"turn cycle, at {turns}/{len(three)}; the committed 8-message witness of row "
                       "mapping_deadlock_free deadlocks the 4 x 4 torus), and an acyclic CDG for the whole routing "
                       "needs, with the crossing count, "
                       + (", ".join(f"k={int(r.k)}: {r.min_vcs:g}" for r in count_least.itertuples()) or "-")
                       + " VCs" if n else "no PFNF rows in this run"),
        rule=Rule("all_of", {"n": n, "condition": RING_READING, "conditional_k": rings + fits,
                             "conditional_n": narrow}),
        evidence=_vm_evidence("cdg_verdicts.csv", "vc_counts.csv", "vc_budget.csv", "witness_messages.csv"))]


def claims(tables: Mapping[str, pd.DataFrame], params: Mapping[str, Any]) -> pd.DataFrame:
    """The claims table of the paper from the study's tables (keys of :func:`torus_lab.studies.virtual_mesh.run`).

    Rules (fixed before looking at the data):

    * the paper's sets of nodes or rows that "need two VCs" against the measured sets (``subset``: equal holds, a
      strict subset, the paper naming rows that never receive VC2, holds approximately);
    * VC counts (3/2 VNs, PFNF's 3 VCs) and deadlock freedom (acyclic channel dependency graphs, no deadlock in
      simulation) counted over every case of the run (``all_of``); PFNF's full adaptivity holds under conditions
      when only our reconstruction of its rules is fully adaptive;
    * "minimum extra hardware" (the VCs that break the wrap-around dependencies): two VCs, one per PFNF VN, leave a
      ring cycle and three carry both VNs' dateline classes, at every radix (``all_of``); the turn cycles of the
      mapping belong to the deadlock-freedom row;
    * "all the algorithms for mesh, with a proper choice of datelines": every (algorithm, torus) of the dateline
      search with an acyclic placement (``all_of``); an exhaustive search without one is a counterexample, a sampled
      one leaves the row "inconclusive" (``docs/conventions.md#dateline-search``);
    * drawings and statements without a construction to measure are "not testable here" (``manual``).

    Parameters
    ----------
    tables : Mapping[str, pandas.DataFrame]
        The study's result tables as ``run`` assembled them (the eleven keys the claims read).
    params : Mapping[str, Any]
        The experiment's parameters: ``vc_ks``, ``sim_k``, ``provoke_k``, ``adaptivity_ks``, ``premise_ks`` and
        ``draw_k`` (named in the conditions).

    Returns
    -------
    pandas.DataFrame
        One row per claim, columns :data:`torus_lab.claims.CLAIM_COLUMNS`.

    Examples
    --------
    >>> claims(dict.fromkeys(_TABLES, pd.DataFrame()), {})
    Traceback (most recent call last):
    ...
    ValueError: params lacks the key(s) 'vc_ks', 'sim_k', 'provoke_k', 'adaptivity_ks', 'premise_ks', 'draw_k'
    """
    check_mapping("tables", tables, list(_TABLES))
    check_mapping("params", params, list(_PARAMS))
    second, vc, cdg = tables["second_vc_channels"], tables["vc_counts"], tables["cdg_verdicts"]
    premise, premise_ks = tables["dateline_premise"], list(params["premise_ks"])
    rows = (_vc_count_claims(second, vc, list(params["vc_ks"])) + _k5_claims(second) + _pfnf_three_vcs_claim(vc)
            + _mapping_claim(cdg, tables["latency"], tables["provoke_summary"], params)
            + _pfnf_claims(cdg, tables["adaptivity"], params) + _fig1_claim(params)
            + _fig2_claim(cdg, premise, premise_ks) + _premise_claims(premise, premise_ks)
            + _all_mesh_algorithms_claim(tables["mapping_coverage"], tables["dateline_search"])
            + _halfway_claim(tables["dateline_offsets"])
            + _minimum_hardware_claim(tables["vc_budget"], cdg, vc))
    return claims_table("virtual_mesh", rows)
