"""The procedure runner: every shipped fixture passes, wrong ones fail (exit 1), malformed exit 2."""

import json
import re
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from certify.cards import parse_cards
from certify.cli import cli
from certify.procedures import FixtureError, load_fixture, run_files
from certify.rules.engine import card_line
from certify.rules.model import category_pays
from certify.spec import HAND_KEYS, load_spec, spec_names

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "procedures"
FILES = sorted(FIXTURES.glob("*.yaml"))


@pytest.fixture(scope="module")
def results():
    return run_files(FILES)


def test_every_shipped_scenario_passes(results):
    failing = [f"{r.file}::{r.id}: {r.differences}" for r in results if not r.passed]
    assert not failing, failing
    assert len(results) >= 40
    assert {r.spec for r in results} == set(spec_names())  # every spec has scenarios


def test_procedures_cover_the_rules(results):
    """Statuses, table outcomes and every pay-table line of every wager appear in the fixtures."""
    statuses = {seat["status"] for r in results for seat in r.actual["seats"]}
    assert statuses == {"played", "folded", "dead", "rejected"}
    assert {r.actual["table"] for r in results} == {"played", "misdeal"}
    paid: dict[tuple[str, str], set[str]] = defaultdict(set)
    for r in results:
        for seat in r.actual["seats"]:
            for wager, net in seat["net"].items():
                if Decimal(net) > 0 and seat["hand"]:
                    paid[(r.spec, wager)].add(seat["hand"].replace(" ", "_"))
    for name in ("caribbean_stud", "casino_stud"):
        pays = load_spec(name).wagers["bet"].settle.versus_dealer.win_pays
        assert {key for key in HAND_KEYS if pays[key] is not None} <= paid[(name, "bet")]
    carib = load_spec("caribbean_stud")
    assert _lines(carib.wagers["progressive"].settle.progressive.pays.entry) <= paid[("caribbean_stud", "progressive")]
    for name in ("five_card_mulligan",):
        wagers = load_spec(name).wagers
        ante = category_pays(wagers["ante"].settle.versus_dealer.win_pays, "five_card")
        bonus = category_pays(wagers["bonus"].settle.pay_table.pays, "five_card")
        assert _lines(ante.__getitem__) <= paid[(name, "ante")]
        assert _lines(bonus.__getitem__) <= paid[(name, "bonus")]
    bonus_lines = load_spec("texas_holdem_bonus").wagers["bonus"].settle.card_lines.lines
    assert set(range(len(bonus_lines))) <= _holdem_bonus_lines_paid(bonus_lines)


def _lines(entry_of):
    """The hand categories a pay table pays on."""
    return {key for i, key in enumerate(HAND_KEYS) if entry_of(i) is not None}


def _holdem_bonus_lines_paid(lines):
    """The Bonus card lines the Hold'em Bonus fixtures pay."""
    classes = set()
    for path in FILES:
        data = yaml.safe_load(path.read_text())
        if not data["spec"].startswith("texas_holdem_bonus"):
            continue
        for sc in data["scenarios"]:
            for seat, want in zip(sc["seats"], sc["expect"]["seats"]):
                if Decimal(want["net"].get("bonus", "0")) > 0:
                    classes.add(card_line(lines, parse_cards(seat["cards"]), parse_cards(sc["dealer"]["cards"])))
    return classes


def test_cli_all_pass_and_json(tmp_path):
    out = tmp_path / "procedures.json"
    run = CliRunner().invoke(cli, ["procedures", *map(str, FILES), "--json", str(out)])
    assert run.exit_code == 0, run.output
    lines = [line for line in run.output.splitlines() if line.startswith(("PASS", "FAIL"))]
    assert lines and all(line.startswith("PASS") for line in lines)
    payload = json.loads(out.read_text())
    assert payload["passed"] and payload["failed"] == 0 and payload["scenarios"] == len(lines)
    assert payload["results"][0]["events"][0].startswith("open(")


def test_cli_unwritable_json_is_one_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    run = CliRunner().invoke(cli, ["procedures", str(FILES[0]), "--json", str(blocker / "out.json")])
    assert run.exit_code == 2 and f"cannot write {blocker / 'out.json'}: " in run.output
    assert str(blocker) in run.output.split(": ", 1)[1] and "Traceback" not in run.output


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_wrong_expectation_exits_1_showing_expected_and_actual(tmp_path):
    text = (FIXTURES / "casino_stud.yaml").read_text()
    wrong = text.replace('net: {ante: "1.00", bet: "14.00"}', 'net: {ante: "1.00", bet: "16.00"}', 1)
    assert wrong != text
    path = _write(tmp_path, "wrong.yaml", wrong)
    run = CliRunner().invoke(cli, ["procedures", str(path)])
    assert run.exit_code == 1, run.output
    assert "FAIL  wrong.yaml::bet-pays-full-house-7" in run.output
    assert "seat 0 net.bet: expected 16.00, got 14.00" in run.output


def test_wrong_status_and_error_text_fail(tmp_path):
    text = (FIXTURES / "caribbean_stud.yaml").read_text()
    wrong = text.replace("error: locked out}", "error: table closed}", 1)
    wrong = wrong.replace("- {status: dead, net: {ante: \"0\", progressive: \"0\"}, error: dead hand}",
                          "- {status: played, net: {ante: \"0\", progressive: \"0\"}, error: dead hand}", 1)
    results = run_files([_write(tmp_path, "wrong.yaml", wrong)])
    failed = {r.id: r.differences for r in results if not r.passed}
    assert set(failed) == {"dead-hand-four-cards", "progressive-after-lockout-refused"}
    assert "seat 0 status: expected played, got dead" in failed["dead-hand-four-cards"][0]
    assert "expected text 'table closed'" in failed["progressive-after-lockout-refused"][0]


BASE = """\
spec: casino_stud
scenarios:
  - id: one
    rule: r
    source: s
    seats: [{wagers: {ante: "1.00"}, cards: [AS, KS, QS, JS, TS], actions: [bet]}]
    dealer: {cards: [AH, KD, 5C, 4S, 2D]}
    expect: {table: played, seats: [{status: played, net: {ante: "1.00", bet: "200.00"}}]}
"""


@pytest.mark.parametrize("old,new,expected", [
    ("    source: s\n", "    source: s\n    colour: red\n", "scenario 'one': colour: unknown field"),
    ("cards: [AS, KS", "cards: [AX, KS", "scenario 'one': seats[0].cards: bad card 'AX'"),
    ("cards: [AH, KD", "cards: [AS, KD", "scenario 'one': dealer.cards: card As is also in seats[0].cards"),
    ('bet: "200.00"', 'bett: "200.00"', "scenario 'one': expect.seats[0].net.bett: not a casino_stud wager"),
    ("actions: [bet]", "actions: [raise]", "scenario 'one': seats[0].actions: 'raise' is not a casino_stud action"),
    ('ante: "1.00"}, cards', "ante: 1.5}, cards", "scenario 'one': seats[0].wagers.ante: expected an exact amount"),
    ("    expect: {table: played, seats: [{status: played, net: {ante: \"1.00\", bet: \"200.00\"}}]}\n", "",
     "scenario 'one': expect: required field is missing"),
    ("status: played, net", "status: won, net", "scenario 'one': expect.seats[0].status"),
    ("spec: casino_stud", "spec: no_such_game", "spec: "),
    ("actions: [bet]", "actions: []", "scenario 'one': seats[0].actions: the seat must decide now"),
    ("actions: [bet]", "actions: [bet, fold]", "scenario 'one': seats[0].actions: ['fold'] were never taken"),
    ("    rule: r\n", "    rule: r\n    rule: again\n", "found the key 'rule' twice"),
    ("seats: [{wagers", "seats: [{{wagers", "invalid YAML at line"),
])
def test_malformed_fixture_exits_2_naming_file_scenario_field(tmp_path, old, new, expected):
    assert old in BASE
    path = _write(tmp_path, "bad.yaml", BASE.replace(old, new, 1))
    out = tmp_path / "out.json"
    run = CliRunner().invoke(cli, ["procedures", str(path), "--json", str(out)])
    assert run.exit_code == 2, run.output
    assert str(path) in run.output
    assert expected in run.output, run.output
    assert not out.exists()                         # nothing half-written


@pytest.mark.parametrize("old,new,line", [
    ("    source: s\n", "    source: s\n    colour: red\n", 6),
    ("actions: [bet]", "acts: [bet]", 6),
    ('ante: "1.00"}, cards', "ante: 1.5}, cards", 6),
    ("cards: [AS, KS", "cards: [AX, KS", 3),             # checked after the schema: the scenario's line
    ("actions: [bet]", "actions: [raise]", 3),
])
def test_schema_errors_name_the_line(tmp_path, old, new, line):
    path = _write(tmp_path, "bad.yaml", BASE.replace(old, new, 1))
    with pytest.raises(FixtureError, match=rf"^{re.escape(str(path))}:{line}: scenario 'one': "):
        run_files([path])


def test_mulligan_needs_redraw_cards(tmp_path):
    text = """\
spec: five_card_mulligan
scenarios:
  - id: no-redraw
    rule: r
    source: s
    seats: [{wagers: {ante: "1.00"}, cards: [2C, 5D, 8H, JS, KC], actions: [mulligan]}]
    dealer: {cards: [AC, QD, 8S, 6H, 3D]}
    expect: {table: played, seats: [{status: played, net: {ante: "1.00", raise: "1.00"}}]}
"""
    with pytest.raises(FixtureError, match=r"scenario 'no-redraw': seats\[0\].redraw: the seat took a mulligan"):
        run_files([_write(tmp_path, "m.yaml", text)])


def test_base_fixture_is_valid(tmp_path):
    fixture, spec = load_fixture(_write(tmp_path, "ok.yaml", BASE))
    assert spec.name == "casino_stud" and fixture.scenarios[0].id == "one"
    assert all(r.passed for r in run_files([tmp_path / "ok.yaml"]))
