"""Every claim quotes the paper it tests: the quote file ``torus_lab/paper_quotes.csv`` covers every row of every
committed claims table of a paper (and the BookSim2 validation's acceptance rule), quotes no claim that does not
exist, and ``claims_table`` attaches its quotes (``docs/conventions.md#claims-quote``)."""

from __future__ import annotations

import fnmatch
import importlib
import json
import math
from pathlib import Path

import pandas as pd
import pytest

from torus_lab import claims as claims_module
from torus_lab.claims import (
    CLAIM_COLUMNS,
    QUOTE_COLUMNS,
    Claim,
    Rule,
    check_claims_table,
    claims_table,
    paper_quote,
    paper_quotes,
    upgrade_claims_table,
)

ROOT = Path(__file__).resolve().parents[1]
PAPER_STUDIES = ("direction_first", "disjoint_paths", "fault_tolerant", "loads", "virtual_mesh")
#: Studies whose every row must be quoted: the five papers and the BookSim2 validation (its acceptance rule).
QUOTED_STUDIES = (*PAPER_STUDIES, "booksim_validation")


def _committed_ids(study: str) -> list[str]:
    table = pd.read_csv(ROOT / "data" / study / "claims.csv", dtype=str, keep_default_na=False)
    return list(table["claim_id"])


def _claim(**changes) -> Claim:
    values = dict(claim_id="bound_1", location="Section 1", statement="E_max >= (|P| - 1)/(2d)", conditions="d = 2",
                  paper_text="lower bound", measured_text="1", measured_value=1.0, rule=Rule("at_least", {"bound": 1}),
                  evidence=("data/loads/loads.csv",))  # fmt: skip
    values.update(changes)
    return Claim(**values)


@pytest.mark.parametrize("study", QUOTED_STUDIES)
def test_every_row_of_a_committed_table_has_a_quote(study):
    unquoted = [claim_id for claim_id in _committed_ids(study) if not paper_quote(study, claim_id).strip()]
    assert unquoted == [], f"{study}: add these claims' quotes to torus_lab/paper_quotes.csv"


def test_no_quote_names_a_claim_that_does_not_exist():
    quotes = paper_quotes()
    ids = {study: _committed_ids(study) for study in set(quotes["paper"])
           if (ROOT / "data" / study / "claims.csv").is_file()}  # fmt: skip
    orphans = [(paper, key) for paper, key in zip(quotes["paper"], quotes["claim_id"], strict=True)
               if not any(fnmatch.fnmatchcase(claim_id, key) for claim_id in ids.get(paper, []))]  # fmt: skip
    assert orphans == []


def test_the_quote_file_is_well_formed():
    quotes = paper_quotes()
    assert list(quotes.columns) == list(QUOTE_COLUMNS) and len(quotes) >= 100
    assert not quotes.duplicated(["paper", "claim_id"]).any()
    assert quotes["quote"].map(lambda q: q == " ".join(q.split()) and len(q) >= 20).all()
    with pytest.raises(ValueError, match="header"):
        claims_module._parse_quotes("paper,claim,quote\n", "q.csv")
    with pytest.raises(ValueError, match="line 3.*twice"):
        claims_module._parse_quotes("paper,claim_id,quote\nloads,a,one\nloads,a,two\n", "q.csv")
    with pytest.raises(ValueError, match="line 2"):
        claims_module._parse_quotes("paper,claim_id,quote\nloads,a, \n", "q.csv")


def test_claims_table_attaches_the_quote_of_the_file():
    table = claims_table("loads", [_claim(), _claim(claim_id="not_in_the_file"),
                                   _claim(claim_id="own", quote="  a study's   own words ")])  # fmt: skip
    assert list(table.columns) == CLAIM_COLUMNS
    by_id = table.set_index("claim_id")["quote"]
    quotes = paper_quotes().set_index(["paper", "claim_id"])["quote"]
    assert by_id["bound_1"] == quotes["loads", "bound_1"] != ""
    assert by_id["not_in_the_file"] == "" and by_id["own"] == "a study's own words"
    assert claims_table("some_other_study", [_claim()]).loc[0, "quote"] == ""   # quotes are per paper


def test_an_exact_entry_beats_a_pattern_and_the_first_pattern_wins(monkeypatch):
    rows = (("p", "*_load", "pattern one"), ("p", "x_*", "pattern two"), ("p", "x_load", "exact"))
    monkeypatch.setattr(claims_module, "_quote_rows", lambda: rows)
    assert [paper_quote("p", c) for c in ("x_load", "y_load", "x_rate", "y_rate")] == [
        "exact", "pattern one", "pattern two", ""]
    assert paper_quote("q", "x_load") == ""


def test_booksim_rows_quote_the_acceptance_rule_of_their_check():
    expected = {"zero_load": "2%", "latency": "5%", "max_stable": "0.02", "accepted_at_1": "offered 1.0"}
    for claim_id in _committed_ids("booksim_validation"):
        check = next(name for name in expected if claim_id.endswith("_" + name))
        assert expected[check] in paper_quote("booksim_validation", claim_id)


def test_a_table_without_quotes_reads_back_and_upgrades_with_them():
    table = claims_table("loads", [_claim(), _claim(claim_id="c2")])
    old = table.drop(columns=["quote"])
    back = check_claims_table(old)
    assert list(back.columns) == CLAIM_COLUMNS and list(back["quote"]) == ["", ""]
    upgraded = upgrade_claims_table(old)
    assert list(upgraded["quote"]) == [paper_quote("loads", "bound_1"), ""]
    legacy = table.drop(columns=["quote", "evidence_kind", "n", "evidence_text"])
    assert list(check_claims_table(legacy)["quote"]) == ["", ""]
    read_with_nan = table.assign(quote=[table.loc[0, "quote"], math.nan])
    assert list(check_claims_table(read_with_nan)["quote"]) == [table.loc[0, "quote"], ""]


@pytest.mark.slow
@pytest.mark.parametrize("study", QUOTED_STUDIES)
def test_a_study_claims_function_quotes_every_row_from_the_committed_tables(study):
    """The claims function of each study, run on its committed tables and parameters, quotes every row."""
    tables = {path.stem: pd.read_csv(path) for path in (ROOT / "data" / study).glob("*.csv") if path.stem != "claims"}
    params = json.loads((ROOT / "data" / study / "manifest.json").read_text(encoding="utf-8"))["parameters"]
    table = importlib.import_module(f"torus_lab.studies.{study}_claims").claims(tables, params)
    assert len(table) and [c for c, q in zip(table["claim_id"], table["quote"], strict=True) if not q] == []
    assert list(table["quote"]) == [paper_quote(study, c) for c in table["claim_id"]]
