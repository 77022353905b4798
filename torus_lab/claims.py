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

from pathlib import Path

import pandas as pd

__all__ = ["CLAIM_COLUMNS", "VERDICTS", "claim", "claims_table", "write_claims"]

CLAIM_COLUMNS = ["paper", "claim_id", "statement", "paper_value", "measured_value", "verdict", "evidence"]
#: Allowed verdicts: the claim holds, holds only in part / with caveats, does not hold, or could not be tested.
VERDICTS = ("holds", "partly holds", "does not hold", "not tested")


def claim(
    claim_id: str, statement: str, paper_value: str, measured_value: str, verdict: str, evidence: str
) -> dict[str, str]:
    """One row of a claims table; ``verdict`` must be one of :data:`VERDICTS`."""
    if verdict not in VERDICTS:
        raise ValueError(f"verdict must be one of {VERDICTS}, got {verdict!r}")
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
    table = pd.DataFrame(rows)
    table.insert(0, "paper", paper)
    return table[CLAIM_COLUMNS]


def write_claims(table: pd.DataFrame, data_dir: str | Path) -> Path:
    """Write ``table`` to ``data_dir/claims.csv`` and return the path."""
    path = Path(data_dir) / "claims.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(path, index=False)
    return path
