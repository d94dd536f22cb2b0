"""A PAR sheet against a published return table: reading the table, the z per row, the verdict, and
the command (a table written from our own exact sheet passes; the same with one row moved fails)."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from certify.analysis.compare import CompareError, compare, critical_z, read_published
from certify.analysis.par import ReturnRow, WagerSheet
from certify.cli import cli

INVENTOR = Path(__file__).resolve().parent.parent / "fixtures" / "reference" / "mulligan_inventor_table.csv"


def _sheet(exact: bool = True) -> WagerSheet:
    if exact:
        return WagerSheet.from_combinations("main game", [("win", 1, 3, 1), ("lose", -1, 5, 1)])
    rows = (ReturnRow("win", Fraction(1), 0.375, std_error=0.001),
            ReturnRow("lose", Fraction(-1), 0.625, std_error=0.001))
    return WagerSheet(name="main game", rows=rows, exact=False, samples=10**5)


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "published.csv"
    path.write_text(text)
    return path


def test_reads_the_inventors_table_with_the_more_precise_column():
    rows = read_published(INVENTOR)
    assert len(rows) == 24
    first = rows[0]
    assert (first.label, first.event) == ("player wins with nothing; bet 1", "win with high card, bet 1")
    assert first.probability == 0.015127 and first.rounding == pytest.approx(5e-7)
    nothing2 = rows[10]  # pays 2: return 0.051401 carries one more digit of the probability
    assert nothing2.probability == pytest.approx(0.0257005) and nothing2.rounding == pytest.approx(2.5e-7)
    assert rows[-1].event == "tie, bet 2" and rows[-1].line == 32


@pytest.mark.parametrize("text, message", [
    ("", "no header line"),
    ("event,pays\nwin,1\n", "missing column(s) probability"),
    ("event,probability\n", "a header but no rows"),
    ("event,probability\nwin,0.4x\n", ":2: column 'probability': expected a number, got '0.4x'"),
    ("event,probability\nwin,1.5\n", ":2: column 'probability': expected a number in [0, 1]"),
    ("# note\n\nevent,probability\n,0.5\n", ":4: column 'event' is empty"),
    ("event,probability,pays\nwin,0.5,one\n", ":2: column 'pays': expected a number"),
])
def test_bad_tables_name_the_line_and_the_column(tmp_path, text, message):
    with pytest.raises(CompareError) as err:
        read_published(_write(tmp_path, text))
    assert message in str(err.value) and "published.csv" in str(err.value)


def test_equal_rows_are_inside_and_a_moved_row_of_an_exact_sheet_is_outside(tmp_path):
    same = read_published(_write(tmp_path, "event,probability,pays\nwin,0.375,1\nlose,0.625,-1\n"))
    assert [c.z for c in compare(_sheet(), same)] == [0.0, 0.0]
    moved = read_published(_write(tmp_path, "event,probability\nwin,0.376\nlose,0.624\n"))
    result = compare(_sheet(), moved)
    assert all(c.outside and math.isinf(c.z) for c in result)  # counted: no interval at all
    assert result[0].z > 0 and result[1].z < 0  # the sign says which side is higher


def test_sampling_errors_on_both_sides_set_the_z(tmp_path):
    moved = read_published(_write(tmp_path, "event,probability\nwin,0.3790\nlose,0.6210\n"))
    result = compare(_sheet(exact=False), moved, published_samples=10**6)
    their = math.sqrt(0.379 * 0.621 / 10**6)
    assert result[0].z == pytest.approx((0.004 - 5e-5) / math.hypot(0.001, their))
    assert result[0].outside == (abs(result[0].z) > critical_z(2, 0.99))
    assert not compare(_sheet(exact=False), moved, published_samples=10**3)[0].outside


def test_a_row_the_sheet_lacks_or_a_different_pay_is_refused(tmp_path):
    with pytest.raises(CompareError, match=r"published.csv:2: no row 'push'.*suite_event"):
        compare(_sheet(), read_published(_write(tmp_path, "event,probability\npush,0.1\n")),
                source=str(tmp_path / "published.csv"))
    with pytest.raises(CompareError, match="pays 2 there, 1 here"):
        compare(_sheet(), read_published(_write(tmp_path, "event,probability,pays\nwin,0.375,2\n")))


def _published_from(sheet: WagerSheet, moved: str | None = None) -> str:
    lines = ["# written from our own exact sheet, rounded to 6 decimals", "event,pays,probability"]
    for r in sheet.rows:
        p = float(r.probability) + (1e-4 if r.event == moved else 0.0)
        lines.append(f'"{r.event}",{Fraction(r.pays)},{p:.6f}')
    return "\n".join(lines) + "\n"


def test_the_command_passes_our_own_table_and_fails_a_moved_row(tmp_path, golden_sheet):
    main = golden_sheet("caribbean_stud").main
    good = _write(tmp_path, _published_from(main))
    result = CliRunner().invoke(cli, ["analyze", "caribbean_stud", "--compare", str(good)])
    assert result.exit_code == 0, result.output
    assert f"0 of {len(main.rows)} rows outside" in result.output
    bad = tmp_path / "moved.csv"
    bad.write_text(_published_from(main, moved=main.rows[3].event))
    result = CliRunner().invoke(cli, ["analyze", "caribbean_stud", "--compare", str(bad)])
    assert result.exit_code == 1
    assert f"1 of {len(main.rows)} rows outside" in result.output
    outside = [line for line in result.output.splitlines() if line.endswith("OUTSIDE")]
    assert len(outside) == 1 and outside[0].startswith(main.rows[3].event[:40])


def test_the_command_refuses_a_bad_table_before_any_work(tmp_path):
    result = CliRunner().invoke(cli, ["analyze", "caribbean_stud", "--compare", str(tmp_path / "none.csv")])
    assert result.exit_code == 2 and "none.csv: no such table" in result.output
    table = _write(tmp_path, "event,probability\nwin,0.5\n")
    result = CliRunner().invoke(cli, ["analyze", "caribbean_stud", "--compare", str(table),
                                      "--wager", "no such wager"])
    assert result.exit_code == 2 and "--wager: no wager 'no such wager'" in result.output


def test_a_table_that_does_not_fit_writes_no_json(tmp_path):
    table = _write(tmp_path, "event,probability\nno such row,0.5\n")
    out = tmp_path / "par.json"
    result = CliRunner().invoke(cli, ["analyze", "caribbean_stud", "--compare", str(table), "--json", str(out)])
    assert result.exit_code == 2 and "no row 'no such row'" in result.output
    assert not out.exists()
