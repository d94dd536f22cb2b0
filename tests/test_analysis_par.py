"""The PAR sheet data type: figures derived from the return table, JSON, bands, progressive meter."""

import json
import math
from fractions import Fraction

import pytest

from certify.analysis.par import (BAND_ROUNDS, CONFIDENCE_LEVELS, ParError, ParSheet, ReturnRow,
                                  WagerSheet, format_sheet)


def fold_or_raise_sheet():
    # A made-up fold/raise game on a 20-card cycle: fold (-1), raise and win (+3), raise and lose (-3).
    return WagerSheet.from_combinations("main game", [
        ("fold", -1, 8, 1),
        ("win", 3, 5, 3),
        ("lose", -3, 6, 3),
        ("push", 0, 1, 3),
    ], strategy="raise with anything good")


def test_figures_are_derived_exactly_from_the_table():
    w = fold_or_raise_sheet()
    assert w.cycle == 20
    ev = Fraction(-8 + 15 - 18, 20)
    assert w.expected_return == ev
    assert w.house_edge == -ev
    assert w.average_wager == Fraction(8 * 1 + 12 * 3, 20)
    assert w.element_of_risk == (-ev) / Fraction(44, 20)
    assert w.hit_frequency == Fraction(5, 20)
    assert w.maximum_payout == 3
    second = Fraction(8 * 1 + 5 * 9 + 6 * 9, 20)
    assert w.variance == second - ev ** 2
    assert w.std_dev == pytest.approx(math.sqrt(second - ev ** 2))


def test_json_keys_and_exact_totals():
    sheet = ParSheet(game="Toy", spec="toy.yaml", family="toy", wagers=(fold_or_raise_sheet(),))
    d = json.loads(json.dumps(sheet.to_dict()))
    w = d["wagers"][0]
    for key in ("house_edge", "element_of_risk", "std_dev", "average_wager", "hit_frequency",
                "exact", "return_table", "cycle"):
        assert key in w
    assert w["exact"] is True and w["cycle"] == 20
    assert sum(r["combinations"] for r in w["return_table"]) == w["cycle"]
    assert {"event", "pays", "probability", "return", "combinations"} <= set(w["return_table"][0])
    assert Fraction(w["house_edge_exact"]) == fold_or_raise_sheet().house_edge
    assert len(w["rtp_bands"]) == len(BAND_ROUNDS) * len(CONFIDENCE_LEVELS)
    assert "house edge" in format_sheet(sheet)


def test_outcome_categories_match_the_return_table():
    sheet = ParSheet(game="Toy", spec="toy.yaml", family="toy", wagers=(fold_or_raise_sheet(),))
    cats = sheet.outcome_categories()
    assert [c for c, _ in cats] == ["fold", "win", "lose", "push"]
    assert sum(p for _, p in cats) == 1 and all(isinstance(p, Fraction) for _, p in cats)


def test_rtp_bands_shrink_with_rounds_and_widen_with_level():
    w = fold_or_raise_sheet()
    lo3, hi3 = w.rtp_band(1000, 0.95)
    lo9, hi9 = w.rtp_band(10**9, 0.95)
    assert lo3 < lo9 < float(w.rtp) < hi9 < hi3
    assert (hi3 - lo3) / (hi9 - lo9) == pytest.approx(math.sqrt(10**6))
    assert w.rtp_band(1000, 0.99)[1] > w.rtp_band(1000, 0.90)[1]
    half = w.rtp_band(10**4, 0.95)[1] - float(w.rtp)
    assert half == pytest.approx(1.959964 * w.std_dev / 100, rel=1e-6)


def test_tables_that_are_not_distributions_are_refused():
    with pytest.raises(ParError, match="add up"):
        WagerSheet(name="bad", exact=True, rows=(
            ReturnRow("a", Fraction(1), Fraction(1, 2), combinations=1),
            ReturnRow("b", Fraction(-1), Fraction(1, 3), combinations=1)))
    with pytest.raises(ParError, match="negative"):
        WagerSheet(name="bad", exact=False, rows=(ReturnRow("a", 1, -0.5), ReturnRow("b", 1, 1.5)))
    with pytest.raises(ParError, match="unique"):
        ParSheet(game="g", spec="s", family="f", wagers=(fold_or_raise_sheet(), fold_or_raise_sheet()))


def test_progressive_breakeven_meter():
    # $1 side bet: jackpot (share 1 of the meter) 1 in 1000, $50 fixed 10 in 1000, else lose.
    w = WagerSheet(name="progressive", exact=True, meter=Fraction(0), rows=(
        ReturnRow("royal", Fraction(-1), Fraction(1, 1000), combinations=1, meter_share=Fraction(1)),
        ReturnRow("flush", Fraction(49), Fraction(10, 1000), combinations=10),
        ReturnRow("nothing", Fraction(-1), Fraction(989, 1000), combinations=989)))
    meter = w.breakeven_meter()
    assert w.at_meter(meter).expected_return == 0
    # at meter 0: EV = (-1 + 490 - 989)/1000 = -0.5, slope 1/1000 -> breakeven 500
    assert meter == 500
    assert w.at_meter(1000).expected_return == Fraction(1, 2)
    assert json.dumps(w.to_dict())


def test_simulated_sheet_carries_its_confidence_interval():
    w = WagerSheet(name="main game", exact=False, samples=10**6, rows=(
        ReturnRow("win", 1.0, 0.49, weight=490000), ReturnRow("lose", -1.0, 0.51, weight=510000)))
    lo, hi = w.house_edge_interval(0.95)
    assert lo < 0.02 < hi
    assert hi - lo == pytest.approx(2 * 1.959964 * w.std_dev / 1000, rel=1e-5)
    d = w.to_dict()
    assert d["exact"] is False and "cycle" not in d and d["house_edge_ci95"]


def test_progressive_return_by_meter_passes_through_breakeven():
    w = WagerSheet(name="progressive", exact=True, meter=Fraction(100), rows=(
        ReturnRow("royal", Fraction(99), Fraction(1, 1000), combinations=1, meter_share=Fraction(1)),
        ReturnRow("nothing", Fraction(-1), Fraction(999, 1000), combinations=999)))
    by_meter = dict(w.return_by_meter())
    assert by_meter[w.breakeven_meter()] == 0
    assert by_meter[Fraction(100)] == w.expected_return
    assert list(by_meter) == sorted(by_meter)


def test_analyze_command_writes_json_whole(tmp_path, monkeypatch):
    from click.testing import CliRunner

    import certify.analysis
    from certify.cli import cli

    toy = ParSheet(game="Toy", spec="caribbean_stud", family="stud", wagers=(fold_or_raise_sheet(),))
    monkeypatch.setattr(certify.analysis, "par_sheet", lambda spec: toy)
    out = tmp_path / "par.json"
    result = CliRunner().invoke(cli, ["analyze", "caribbean_stud", "--json", str(out)])
    assert result.exit_code == 0, result.output
    assert "house edge" in result.output
    assert json.loads(out.read_text())["wagers"][0]["cycle"] == 20
    assert [p.name for p in tmp_path.iterdir()] == ["par.json"]  # no temporary file left behind
    nested = tmp_path / "new folder" / "par.json"  # missing folders are made
    assert CliRunner().invoke(cli, ["analyze", "caribbean_stud", "--json", str(nested)]).exit_code == 0
    assert json.loads(nested.read_text())["wagers"][0]["cycle"] == 20
    (tmp_path / "afile").write_text("")
    blocked = tmp_path / "afile" / "par.json"  # a file where a folder should be
    result = CliRunner().invoke(cli, ["analyze", "caribbean_stud", "--json", str(blocked)])
    assert result.exit_code == 2 and "afile" in result.output and not blocked.exists()


def test_analyze_meter_option(monkeypatch):
    from click.testing import CliRunner

    import certify.analysis
    from certify.cli import cli

    progressive = WagerSheet(name="progressive", exact=True, meter=Fraction(100), rows=(
        ReturnRow("royal", Fraction(99), Fraction(1, 1000), combinations=1, meter_share=Fraction(1)),
        ReturnRow("nothing", Fraction(-1), Fraction(999, 1000), combinations=999)))
    toy = ParSheet(game="Toy", spec="caribbean_stud", family="stud",
                   wagers=(fold_or_raise_sheet(), progressive))
    monkeypatch.setattr(certify.analysis, "par_sheet", lambda spec: toy)
    result = CliRunner().invoke(cli, ["analyze", "caribbean_stud", "--meter", "1000"])
    assert result.exit_code == 0, result.output
    assert "meter 1,000.00" in result.output
    assert toy.at_meter(1000).wager("progressive").expected_return == 0  # 999/1000 - 999/1000
    result = CliRunner().invoke(cli, ["analyze", "caribbean_stud", "--meter", "lots"])
    assert result.exit_code == 2 and "--meter" in result.output


def test_cli_analyze_refuses_an_unwritable_json_before_the_analysis(tmp_path, monkeypatch):
    from click.testing import CliRunner

    import certify.analysis
    from certify.cli import cli

    def never(*_args, **_kwargs):
        raise AssertionError("the analysis ran although its output cannot be written")

    monkeypatch.setattr(certify.analysis, "par_sheet", never)
    blocker = tmp_path / "file"
    blocker.write_text("")
    res = CliRunner().invoke(cli, ["analyze", "casino_stud", "--json", str(blocker / "par.json")])
    assert res.exit_code == 2 and f"{blocker} is a file, not a folder" in res.output
