"""Science files at a stated precision: floats rounded to ``SCIENCE_SIGNIFICANT_DIGITS`` significant digits, written
as the shortest repr of the rounded number, so that last-bit round-off does not change a file's bytes."""

from __future__ import annotations

import dataclasses
import decimal
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from torus_lab.claims import Claim, Rule, claims_table, write_claims
from torus_lab.experiment import ExperimentRun
from torus_lab.precision import SCIENCE_SIGNIFICANT_DIGITS, round_significant, science_frame, to_science_csv

DIGITS = SCIENCE_SIGNIFICANT_DIGITS


def decimal_rounding(x: float, digits: int) -> float:
    """``x`` rounded to ``digits`` significant digits with exact decimal arithmetic (ties to even): the reference."""
    exact = decimal.Decimal(x)
    if exact == 0:
        return x
    exponent = exact.adjusted() - digits + 1
    return float(exact.quantize(decimal.Decimal(1).scaleb(exponent), rounding=decimal.ROUND_HALF_EVEN,
                                context=decimal.Context(prec=digits + 5, Emin=-10**6, Emax=10**6)))  # fmt: skip


def written_cell(x: float) -> str:
    """The text of ``x`` in a science CSV (a one-column float64 frame)."""
    text = to_science_csv(pd.DataFrame({"x": np.array([x], dtype=np.float64)}))
    assert text is not None
    header, cell, end = text.split("\n")
    assert header == "x" and end == ""
    return cell


def test_the_precision_is_ten_significant_digits():
    assert SCIENCE_SIGNIFICANT_DIGITS == 10


@settings(max_examples=500, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False, max_value=1.7e308, min_value=-1.7e308))
def test_the_written_text_is_the_value_rounded_to_the_stated_digits(x):
    rounded = round_significant(x)
    assert rounded == decimal_rounding(x, DIGITS)
    cell = written_cell(x)
    assert cell == repr(rounded)  # the shortest round-trip repr of the rounded number
    assert float(cell) == rounded and math.copysign(1, float(cell)) == math.copysign(1, x)
    mantissa = cell.lstrip("-").split("e")[0].replace(".", "").strip("0")
    assert len(mantissa) <= DIGITS
    assert round_significant(rounded) == rounded  # idempotent: rewriting a read-back file changes nothing
    if x != 0:
        assert abs(rounded - x) <= 0.5 * 10 ** (math.floor(math.log10(abs(x))) - DIGITS + 1) * (1 + 1e-12)


@settings(max_examples=200, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False), st.integers(1, 17))
def test_round_significant_matches_exact_decimal_rounding_at_any_digits(x, digits):
    expected = decimal_rounding(x, digits)
    assert round_significant(x, digits) == (x if math.isinf(expected) else expected)


#: Representative science values (means near 1, thirds, fits, probabilities, counts as floats, large and small).
REPRESENTATIVE = [0.9999999999999997, 1 / 3, 2 / 3, 0.1 + 0.2, 12.0, 1.6099588993758120, math.pi, math.e,
                  math.sqrt(2), 0.125, 0.12670000000000001, 1e-7 * math.pi, 123456.789, 6.02214076e23, -17.25,
                  2.220446049250313e-16, 0.5018203883495146, 47.333333333333336, 1 - 1e-9 / 3]  # fmt: skip


@pytest.mark.parametrize("x", REPRESENTATIVE)
def test_last_bit_round_off_writes_the_same_bytes(x):
    neighbours = [np.nextafter(x, math.inf), np.nextafter(x, -math.inf),
                  np.nextafter(np.nextafter(x, math.inf), math.inf)]  # fmt: skip
    assert {written_cell(float(v)) for v in neighbours} == {written_cell(x)}


def test_last_bit_round_off_flips_almost_no_values():
    """Over 20,000 values spread over 20 decades, a change of one unit in the last place flips none of them (the
    expected share is about 1e-6)."""
    rng = np.random.default_rng(2018)
    values = rng.uniform(1, 10, 20_000) * 10.0 ** rng.integers(-10, 10, 20_000)
    up = np.nextafter(values, np.inf)
    before = to_science_csv(pd.DataFrame({"x": values}))
    after = to_science_csv(pd.DataFrame({"x": up}))
    assert before == after
    assert to_science_csv(pd.DataFrame({"x": values.astype(np.float32)})) == \
        pd.DataFrame({"x": values.astype(np.float32)}).to_csv(index=False)  # narrower floats as before


def test_nan_inf_zeros_and_whole_floats_are_written_as_before():
    frame = pd.DataFrame({"x": [math.nan, math.inf, -math.inf, 0.0, -0.0, 12.0, 1e16, 1e-5, 5e-324]})
    assert to_science_csv(frame) == frame.to_csv(index=False)
    # pandas quotes the empty cell of a one-column row: NaN is written "" here, as before
    assert to_science_csv(frame) == "x\n\"\"\ninf\n-inf\n0.0\n-0.0\n12.0\n1e+16\n1e-05\n5e-324\n"
    assert round_significant(1.7976931348623157e308) == 1.7976931348623157e308  # would overflow: kept


def mixed_frame() -> pd.DataFrame:
    return pd.DataFrame({
        "n": [2, 3, 4],
        "mean": [0.9999999999999997, 12.0, math.nan],
        "name": ["ecube", "west first", None],
        "ok": [True, False, True],
        "mixed": pd.Series([1 / 3, "text", np.float64(0.1) + np.float64(0.2)], dtype=object),
        "nullable": pd.array([1 / 7, None, 2.5], dtype="Float64"),
        "single": np.array([0.1, 1.5, 3.0], dtype=np.float32),
    })  # fmt: skip


def test_science_frame_rounds_floats_and_keeps_everything_else():
    frame = mixed_frame()
    rounded = science_frame(frame)
    assert list(rounded.dtypes) == list(frame.dtypes)
    assert rounded["mean"].tolist()[:2] == [1.0, 12.0] and math.isnan(rounded["mean"].iloc[2])
    assert rounded["mixed"].tolist() == [0.3333333333, "text", 0.3]
    assert rounded["nullable"].isna().tolist() == [False, True, False]
    assert rounded["nullable"].iloc[0] == 0.1428571429
    for column in ("n", "name", "ok", "single"):
        pd.testing.assert_series_equal(rounded[column], frame[column])
    assert frame["mean"].iloc[0] == 0.9999999999999997  # the input is not modified
    duplicated = pd.DataFrame([[1 / 3, "a", 2 / 3]], columns=["x", "y", "x"])
    assert to_science_csv(duplicated) == "x,y,x\n0.3333333333,a,0.6666666667\n"


def test_save_writes_science_files_rounded_and_timing_files_at_full_precision(tmp_path):
    frame = mixed_frame()
    run = ExperimentRun("x", {}, tmp_path, tmp_path, tmp_path)
    timing = pd.DataFrame({"n": [2], "seconds": [0.30000000000000004]})
    paths = run.save({"table": frame, "table_timing": timing})
    assert [p.relative_to(tmp_path).as_posix() for p in paths] == ["table.csv", "timing/table.csv"]
    text = (tmp_path / "table.csv").read_text()
    assert text == ("n,mean,name,ok,mixed,nullable,single\n"
                    "2,1.0,ecube,True,0.3333333333,0.1428571429,0.1\n"
                    "3,12.0,west first,False,text,,1.5\n"
                    "4,,,True,0.3,2.5,3.0\n")  # fmt: skip
    before, after = pd.read_csv(_full_precision(frame, tmp_path)), pd.read_csv(tmp_path / "table.csv")
    assert list(after.dtypes) == list(before.dtypes)  # ints, floats, strings and bools read back as before
    assert after["mean"].tolist()[:2] == [1.0, 12.0] and after["n"].tolist() == [2, 3, 4]
    assert (tmp_path / "timing" / "table.csv").read_text() == "n,seconds\n2,0.30000000000000004\n"


def _full_precision(frame: pd.DataFrame, folder) -> str:
    path = folder / "full.csv"
    frame.to_csv(path, index=False)
    return str(path)


def _claim(measured: float) -> Claim:
    return Claim(claim_id="bound", location="Theorem 1", statement="s", conditions="c", paper_text="1",
                 measured_text="m", measured_value=measured, paper_value=1.0,
                 rule=Rule("at_most", {"bound": 1.0}), evidence=("data/p/a.csv",))  # fmt: skip


def test_claims_hold_their_numbers_at_the_science_precision(tmp_path):
    """The verdict is computed from the rounded number, which the file holds, so the report (which recomputes every
    verdict from the file) agrees even for a value within round-off of a bound."""
    claim = _claim(1.0000000000000004)
    assert claim.measured_value == 1.0 and claim.verdict == "holds"
    third = dataclasses.replace(claim, claim_id="third", measured_value=1 / 3)
    path = write_claims(claims_table("p", [claim, third]), tmp_path)
    back = pd.read_csv(path)
    assert back["measured_value"].tolist() == [1.0, 0.3333333333]
    assert back["verdict"].tolist() == ["holds", "holds"]

