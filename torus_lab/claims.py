"""Claims tables: what a paper states, what we measured, and a plain verdict.

Every notebook ends with a claims table written to ``<data_dir>/claims.csv`` with the columns of
:data:`CLAIM_COLUMNS`; the report aggregates them into ``data/claims.csv``.

Examples
--------
>>> table = claims_table("loads", [
...     claim("odr_const", "ODR E_max = k^(d-1)/8 + o(k^(d-1))", "1/8", "0.126", "holds", "loads.csv"),
... ])
>>> list(table.columns)
['paper', 'claim_id', 'statement', 'paper_value', 'measured_value', 'verdict', 'evidence']
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from torus_lab._validate import check_frame, check_instance, check_mapping, check_sequence, check_str

__all__ = ["CLAIM_COLUMNS", "VERDICTS", "claim", "claims_table", "write_claims"]

#: Columns of every claims table, in this order.
CLAIM_COLUMNS = ["paper", "claim_id", "statement", "paper_value", "measured_value", "verdict", "evidence"]
#: Allowed verdicts: the claim holds, holds only in part / with caveats, does not hold, or could not be tested.
VERDICTS = ("holds", "partly holds", "does not hold", "not tested")


def claim(
    claim_id: str, statement: str, paper_value: str, measured_value: str, verdict: str, evidence: str
) -> dict[str, str]:
    """One row of a claims table; ``verdict`` must be one of :data:`VERDICTS`."""
    check_str("verdict", verdict, VERDICTS)
    for name, value in (("claim_id", claim_id), ("statement", statement), ("evidence", evidence)):
        check_str(name, value)
    return {
        "claim_id": claim_id,
        "statement": statement,
        "paper_value": str(paper_value),
        "measured_value": str(measured_value),
        "verdict": verdict,
        "evidence": evidence,
    }


def claims_table(paper: str, rows: list[dict[str, str]]) -> pd.DataFrame:
    """A claims DataFrame for ``paper`` (the experiment name) with the columns :data:`CLAIM_COLUMNS`."""
    check_str("paper", paper)
    rows = check_sequence("rows", rows)
    for i, row in enumerate(rows):
        check_mapping(f"rows[{i}]", row, CLAIM_COLUMNS[1:])
    table = pd.DataFrame(rows, columns=CLAIM_COLUMNS[1:])
    table.insert(0, "paper", paper)
    return table[CLAIM_COLUMNS]


def write_claims(table: pd.DataFrame, data_dir: str | Path) -> Path:
    """Write ``table`` to ``data_dir/claims.csv`` and return the path."""
    check_frame("table", table, CLAIM_COLUMNS)
    path = Path(check_instance("data_dir", data_dir, (str, os.PathLike), "a folder path")) / "claims.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(path, index=False)
    return path
