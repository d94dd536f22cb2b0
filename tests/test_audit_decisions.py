"""Audit and drive of rules-model games with decisions between deals (Let It Ride, Ultimate Texas
Hold'em), with no per-game code: the rounds are re-settled by the rules' round class, the declared
decisions held to the analysis' derived strategy (``certify.rules.engine.DerivedStrategy``), and
the harness drives a test engine on the documented protocol (tests/drive_rules_engine.py).

The fair logs are fixtures/round_logs/let_it_ride.jsonl (two seats, the derived strategy declared)
and ultimate_texas_holdem_free_play.jsonl (two seats, seeded random play, deck orders), written by
``certify.audit.sample``. Ultimate Texas Hold'em's derived strategy needs the game's whole count
(many minutes) and its dealer's rate the 133,784,560 seven-card hands: its default tests audit
free play without them (the strategy and the dealer's share stubbed out); the slow tier runs the
dealer's rate."""

from __future__ import annotations

import copy
import json
import shlex
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner

from certify.cli import cli

ROOT = Path(__file__).resolve().parents[1]
LOGS = ROOT / "fixtures" / "round_logs"
LIR, UTH = "let_it_ride.jsonl", "ultimate_texas_holdem_free_play.jsonl"
SPEC_OF = {LIR: "let_it_ride", UTH: "ultimate_texas_holdem"}
ENGINE = ROOT / "tests" / "drive_rules_engine.py"


@pytest.fixture(autouse=True)
def _golden_par(golden_sheet, monkeypatch):
    from certify.analysis import cache

    monkeypatch.setattr(cache, "load_or_compute", lambda spec, use_cache=True, **_: (golden_sheet(spec.name), None))


@pytest.fixture
def cheap_uth(monkeypatch):
    """Ultimate Texas Hold'em without its derived strategy (free play: the deviations are only
    counted) and without the seven-card enumeration behind the dealer's rate."""
    from certify.audit import audit as module

    real = module.spec_strategy
    monkeypatch.setattr(module, "spec_strategy",
                        lambda spec: None if spec.name == "ultimate_texas_holdem" else real(spec))
    monkeypatch.setattr(module, "_dealer_share_with_board", lambda spec, threshold: None)


def records(name: str) -> list[dict]:
    return [json.loads(line) for line in (LOGS / name).read_text().splitlines()]


def audit_json(tmp_path: Path, recs: list[dict], spec: str) -> tuple[int, dict]:
    path, out = tmp_path / "log.jsonl", tmp_path / "audit.json"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    result = CliRunner().invoke(cli, ["audit", str(path), "--spec", spec, "--json", str(out)], catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(out.read_text())


def rules_found(data: dict) -> list[dict]:
    return data["findings"]["rules"]["first"]


# ------------------------------------------------------------------ Let It Ride: the derived strategy declared
def test_a_fair_let_it_ride_log_passes_against_its_par_sheet(tmp_path):
    recs = records(LIR)
    code, data = audit_json(tmp_path, recs, "let_it_ride")
    assert code == 0 and data["verdict"] == "PASS" and data["rounds"] == 300
    assert all(data["findings"][c]["count"] == 0 for c in ("integrity", "rules", "decisions"))
    assert data["math"]["declared_rounds"] == 300
    applied = {t["name"] for t in data["math"]["tests"] if t["applicable"]}
    assert {"main game: outcome frequencies", "main game: RTP"} <= applied
    paths = {tuple(a["action"] for a in r["actions"] if a["type"] == "decision" and a["seat"] == 1) for r in recs}
    assert len(paths) >= 3          # pull-backs and rides at both decisions are in the log


def test_the_option_values_of_let_it_ride_give_its_par_sheet(golden_sheet):
    """``option_values`` (what a free-play decision is priced by): the best first option's value,
    over every first hand by suit class, is the PAR sheet's exact expected return."""
    from fractions import Fraction

    import numpy as np

    from certify.rules.analysis import _all_hands
    from certify.rules.counting import suit_class_keys
    from certify.rules.induction import option_values
    from certify.spec import load_spec

    spec = load_spec("let_it_ride")
    hands = _all_hands(3)
    _, index, weights = np.unique(suit_class_keys(hands), return_index=True, return_counts=True)
    ctx, q = option_values(spec, hands[index])
    best = q[0][()].max(axis=0)                 # per first hand, summed over the 49 x 48 later cards
    total = sum(int(b) * int(w) for b, w in zip(best, weights))
    ev = Fraction(total, ctx.den ** 2 * int(np.prod(ctx.axes)) * int(weights.sum()))
    assert ev == golden_sheet("let_it_ride").main.expected_return == Fraction(-37963, 1082900)


def test_what_free_play_decisions_cost_in_let_it_ride(tmp_path):
    """Free play in Let It Ride (two decisions): each decision priced by the seat's first hand, the
    board card it saw and the option it took before, optimal play after. The derived strategy
    played as free play costs nothing; random play costs (every pull-back of a hand worth riding
    and every ride of one worth pulling back)."""
    from fractions import Fraction

    from certify.audit import sample
    from certify.spec import load_spec

    spec = load_spec("let_it_ride")
    optimal = list(sample.records(spec, 150, 4, play="spec"))
    for r in optimal:
        r["strategy"] = "free"
    _, data = audit_json(tmp_path, optimal, "let_it_ride")
    cost = data["math"]["free_play_decision_cost"]
    assert cost["decisions"] == 300 and cost["below the optimal option"] == 0 and Fraction(cost["expected cost, exact"]) == 0
    _, data = audit_json(tmp_path, list(sample.records(spec, 150, 4, play="random")), "let_it_ride")
    cost = data["math"]["free_play_decision_cost"]
    assert cost["decisions"] == 300 and 0 < cost["below the optimal option"] <= data["math"][
        "free_play_deviations_from_spec_strategy"]
    assert Fraction(cost["expected cost, exact"]) > 0 and "expected cost" in data["scope"]


def test_let_it_ride_faults_are_caught_round_by_round(tmp_path):
    """A mis-pay on a standing bet, a pull-back out of turn (the second bet pulled at the first
    decision; a pull-back after the last card), a decision other than the derived strategy's."""
    recs = records(LIR)
    bad = copy.deepcopy(recs)
    won = next(r for r in bad if any(e["wager"] == "bet_3" and Decimal(e["net"]) > 0 for e in r["settlement"]))
    entry = next(e for e in won["settlement"] if e["wager"] == "bet_3")
    entry["net"] = str(Decimal(entry["net"]) + 5)
    first = next(a for a in bad[10]["actions"] if a["type"] == "decision")
    first["action"] = "pull_back_second"
    late = bad[20]["actions"]
    decision = next(i for i in range(len(late) - 1, -1, -1) if late[i]["type"] == "decision")
    late.append(late.pop(decision))           # the second decision made after the last board card
    choice = next(a for a in bad[30]["actions"] if a["type"] == "decision" and a["seat"] == 1)
    choice["action"] = "let_it_ride" if choice["action"] == "pull_back_first" else "pull_back_first"
    code, data = audit_json(tmp_path, bad, "let_it_ride")
    assert code == 1 and data["verdict"] == "FAIL"
    found = {f["round"]: f for f in rules_found(data)}
    assert found[won["round"]]["wager"] == "bet_3" and Decimal(found[won["round"]]["correct"]) == Decimal(entry["net"]) - 5
    assert "illegal action" in found[11]["what"] and "not an option here" in found[11]["what"]
    assert "illegal action" in found[21]["what"]
    decisions = data["findings"]["decisions"]["first"]
    assert [f["round"] for f in decisions] == [11, 31]      # round 11's illegal pull-back is not the strategy's either
    assert all("the spec strategy decides" in f["what"] for f in decisions)


# ------------------------------------------------------------------ Ultimate Texas Hold'em: free play
def test_a_fair_ultimate_texas_holdem_free_play_log_passes_its_rules_and_cards(tmp_path, cheap_uth):
    recs = records(UTH)
    code, data = audit_json(tmp_path, recs, "ultimate_texas_holdem")
    assert all(data["findings"][c]["count"] == 0 for c in ("integrity", "rules", "decisions"))
    assert data["section_status"]["integrity"] == data["section_status"]["rules"] == "pass"
    assert data["section_status"]["fairness"] == "pass" and data["fairness"]["deck_orders"] == 200
    assert data["math"]["free_play_rounds"] == 200 and data["math"]["free_play_decisions"] > 0
    # free play's math: the Trips, paid on the final hand whatever the player decides (every round)
    assert data["section_status"]["math"] == "pass" and data["verdict"] == "PASS" and code == 0
    assert {t["name"] for t in data["math"]["tests"] if t["applicable"]} == {
        "trips (every round, no decision changes it): dealt events", "trips (every round, no decision changes it): RTP"}
    played = {a["action"] for r in recs for a in r["actions"] if a["type"] == "decision"}
    assert {"play_4x", "play_2x", "play_1x", "fold"} <= played
    cost = data["math"]["free_play_decision_cost"]      # said plainly why the cost is not given
    assert cost["expected cost"] is None and "whole count" in cost["not given"]
    assert "what they cost is not given: the options' values at each street" in data["scope"]


def test_ultimate_texas_holdem_faults_are_caught_round_by_round(tmp_path, cheap_uth):
    """A raise of 4x at the flop (where the rules allow 2x): an illegal action; a Play made at 4x
    settled as 5x (a raise of an illegal size in the settlement), a Blind paid wrong: mis-pays."""
    recs = copy.deepcopy(records(UTH))
    flop = next(r for r in recs if any(a["type"] == "decision" and a["action"] == "play_2x" for a in r["actions"]))
    next(a for a in flop["actions"] if a["type"] == "decision" and a["action"] == "play_2x")["action"] = "play_4x"
    raised = next(r for r in recs if r is not flop and any(
        e["wager"] == "play" and Decimal(e["net"]) != 0 for e in r["settlement"]) and any(
        a["type"] == "decision" and a["action"] == "play_4x" for a in r["actions"]))
    seat = next(a["seat"] for a in raised["actions"] if a["type"] == "decision" and a["action"] == "play_4x")
    play = next(e for e in raised["settlement"] if e["seat"] == seat and e["wager"] == "play")
    right = play["net"]
    play["net"] = str(Decimal(right) * 5 / 4)
    blind_round = next(r for r in recs if r is not flop and r is not raised and any(
        e["wager"] == "blind" and Decimal(e["net"]) > 0 for e in r["settlement"]))
    blind = next(e for e in blind_round["settlement"] if e["wager"] == "blind" and Decimal(e["net"]) > 0)
    blind["net"] = str(Decimal(blind["net"]) * 2)
    code, data = audit_json(tmp_path, recs, "ultimate_texas_holdem")
    assert code == 1 and data["verdict"] == "FAIL"
    found = {(f["round"], f.get("wager")): f for f in rules_found(data)}
    assert "illegal action" in found[(flop["round"], None)]["what"]
    assert found[(raised["round"], "play")]["correct"] == right
    assert (blind_round["round"], "blind") in found
    assert data["findings"]["rules"]["count"] == 3


@pytest.mark.slow
def test_the_ultimate_texas_holdem_dealer_rate_is_tested_on_seven_card_hands(tmp_path, monkeypatch):
    """The dealer's best five of seven (two and the board) qualifies with a pair: the rate against
    the exact share of the 133,784,560 seven-card hands (enumerated), in free play."""
    from certify.audit import audit as module

    real = module.spec_strategy
    monkeypatch.setattr(module, "spec_strategy", lambda spec: None if spec.name == "ultimate_texas_holdem" else real(spec))
    code, data = audit_json(tmp_path, records(UTH), "ultimate_texas_holdem")
    rate = next(t for t in data["math"]["tests"] if t["name"] == "dealer qualifies: rate")
    assert rate["n"] == 200 and rate["passed"] and "seven-card hands" in rate["looked_at"]
    assert code == 0 and data["verdict"] == "PASS"


# ------------------------------------------------------------------ certify drive through a test engine
def drive(tmp_path: Path, spec: str, *engine_args: str, play: str = "spec", rounds: int = 30):
    command = " ".join(shlex.quote(a) for a in (sys.executable, str(ENGINE), *engine_args))
    folder = tmp_path / "-".join((spec, *engine_args)).replace("--", "")
    folder.mkdir()
    log, out = folder / "drive.jsonl", folder / "audit.json"
    result = CliRunner().invoke(cli, ["drive", "--engine", command, "--spec", spec, "--rounds", str(rounds),
                                      "--seats", "2", "--seed", "3", "--play", play, "--timeout", "60",
                                      "--log", str(log), "--json", str(out)], catch_exceptions=False)
    return result, log, (json.loads(out.read_text()) if out.exists() else None)


def test_drive_plays_let_it_ride_by_the_derived_strategy_and_catches_a_mispay(tmp_path):
    result, log, data = drive(tmp_path, "let_it_ride", "--seed", "4", rounds=40)
    assert result.exit_code == 0, result.output
    assert data["verdict"] == "PASS" and data["math"]["declared_rounds"] == 40 and data["findings"]["decisions"]["count"] == 0
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    assert {a["action"] for r in logged for a in r["actions"] if a["type"] == "decision"} >= {"pull_back_first", "let_it_ride"}
    result, _, data = drive(tmp_path, "let_it_ride", "--seed", "4", "--fault", "mispay", rounds=40)
    assert result.exit_code == 1 and data["findings"]["rules"]["count"] >= 1
    assert all(Decimal(f["logged"]) - Decimal(f["correct"]) == 1 for f in rules_found(data))
    result, log, data = drive(tmp_path, "let_it_ride", "--seed", "4", "--fault", "pull-back-late", rounds=40)
    assert result.exit_code == 1 and data is None and not log.exists()       # the harness stops it: a lie
    assert "round 1: the record's decisions" in result.output and "(a lie)" in result.output


def test_drive_plays_ultimate_texas_holdem_at_random_and_catches_a_raise_of_5x(tmp_path, cheap_uth):
    result, log, data = drive(tmp_path, "ultimate_texas_holdem", "--seed", "6", play="random", rounds=40)
    assert result.exit_code == 0 and data["verdict"] == "PASS", result.output      # free play: the Trips' math
    assert all(data["findings"][c]["count"] == 0 for c in ("integrity", "rules", "decisions"))
    result, _, data = drive(tmp_path, "ultimate_texas_holdem", "--seed", "6", "--fault", "raise-5x", play="random",
                            rounds=40)
    assert data["verdict"] == "FAIL" and data["findings"]["rules"]["count"] >= 1
    assert {f["wager"] for f in rules_found(data)} == {"play"}
