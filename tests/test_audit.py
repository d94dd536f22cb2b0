"""``certify audit``: every finding class caught on a crafted log, fair logs pass, bad logs exit 2.

The fair logs are the examples of fixtures/round_logs/ (written by certify.audit.sample from the
suite's own engines and DRBG); each test tampers with a copy the way a faulty engine would.
The PAR sheet is the golden one (conftest: each test has an empty cache)."""

from __future__ import annotations

import copy
import gzip
import json
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from certify.cli import cli
from certify.spec import load_spec

LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "round_logs"
CS, HB, MULLIGAN = "caribbean_stud.jsonl", "texas_holdem_bonus_free_play.jsonl", "five_card_mulligan.jsonl.gz"
SPEC_OF = {CS: "caribbean_stud", HB: "texas_holdem_bonus", MULLIGAN: "five_card_mulligan"}


@pytest.fixture(autouse=True)
def _golden_par(golden_sheet, monkeypatch):
    from certify.analysis import cache

    monkeypatch.setattr(cache, "load_or_compute", lambda spec, use_cache=True, **_: (golden_sheet(spec.name), None))


def records(name: str) -> list[dict]:
    opener = gzip.open if name.endswith(".gz") else open
    with opener(LOGS / name, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def write(tmp_path: Path, recs: list[dict], name: str = "log.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    return path


def audit(*args, spec: str = "caribbean_stud"):
    return CliRunner().invoke(cli, ["audit", *map(str, args), "--spec", spec], catch_exceptions=False)


def audit_json(tmp_path: Path, recs: list[dict], spec: str = "caribbean_stud") -> tuple[int, dict]:
    out = tmp_path / "audit.json"
    result = audit(write(tmp_path, recs), "--json", out, spec=spec)
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(out.read_text())


def deal_index(record: dict, to) -> int:
    return next(i for i, a in enumerate(record["actions"]) if a["type"] == "deal" and a["to"] == to)


# ------------------------------------------------------------------ fair logs pass

@pytest.mark.parametrize("name", [CS, HB, MULLIGAN])
def test_fair_example_logs_pass(name, tmp_path):
    """Fair logs: PASS. The free-play Hold'em Bonus log has no dealer threshold: its math is the
    Bonus, paid on the hole cards whatever the player decides, tested on every round."""
    out = tmp_path / "a.json"
    result = audit(LOGS / name, "--json", out, spec=SPEC_OF[name])
    data = json.loads(out.read_text())
    assert result.exit_code == data["exit_code"] == 0, result.output
    assert data["verdict"] == "PASS" and data["rounds"] == len(records(name))
    assert f"verdict: {data['verdict']} " in result.output
    assert all(data["findings"][c]["count"] == 0 for c in ("integrity", "rules", "decisions"))
    assert data["files"][0]["sha256"] and data["files"][0]["size"] == (LOGS / name).stat().st_size
    applicable = [t for t in data["fairness"]["tests"] if t["applicable"]]
    assert applicable, "the card tests must run on the dealt positions"
    dealer = [t for t in data["math"]["tests"] if t["name"].startswith("dealer ")]
    assert data["reasons"] == [] and set(data["section_status"].values()) == {"pass"}
    if name == HB:   # Hold'em Bonus has no dealer threshold: the Bonus is its free-play math
        assert not dealer
        bonus = [t for t in data["math"]["tests"] if t["name"].startswith("Bonus (every round")]
        placed = sum(any(a["type"] == "wager" and a["wager"] == "bonus" for a in r["actions"]) for r in records(name))
        assert [t["name"].split(": ")[1] for t in bonus] == ["dealt events", "RTP"]
        assert all(t["n"] == placed for t in bonus) and bonus[1]["applicable"] and bonus[1]["passed"]
        assert data["math"]["decision_free_wagers"] == {
            "bonus": {"tested_in_every_round": True, "rounds": placed, "par_wager": "Bonus"}}
        assert "free play in 60 of 60 rounds" in data["scope"] and "Bonus (every round" in data["scope"]
    else:            # Caribbean Stud qualifies, Five Card Mulligan stands: the rate on every round
        assert len(dealer) == 1 and dealer[0]["n"] == len(records(name)) and dealer[0]["passed"]
        why = {CS: "lost on a fold (fold; paid_on_fold: false)", MULLIGAN: "lost on the option mulligan (lost_on)"}
        side = "progressive" if name == CS else "bonus"
        assert data["math"]["decision_free_wagers"] == {
            side: {"tested_in_every_round": False, "why_not": f"a decision changes it: {why[name]}"}}
    if name != HB:   # the spec strategy is declared: outcomes and RTP against the PAR sheet
        assert any(t["name"].endswith("RTP") and t["applicable"] for t in data["math"]["tests"])
    else:            # free play: decisions counted against the spec strategy, deck orders tested
        assert data["math"]["declared_rounds"] == 0 and data["math"]["free_play_decisions"] > 0
        assert data["math"]["par_sheet"] == "texas_holdem_bonus"    # read for the Bonus rows
        assert data["fairness"]["deck_orders"] == len(records(name))


def test_report_is_written_and_signed(tmp_path):
    result = audit(LOGS / CS, "--report", tmp_path / "rep", "--issued-at", "2026-12-01")
    assert result.exit_code == 0, result.output
    written = sorted(p.name for p in (tmp_path / "rep").iterdir())
    assert written == ["audit-caribbean_stud-1.0.json", "audit-caribbean_stud-1.0.json.p7s",
                       "audit-caribbean_stud-1.0.pdf"]
    report = json.loads((tmp_path / "rep" / "audit-caribbean_stud-1.0.json").read_text())
    logs = [r for r in report["software"] if r["role"] == "audited log"]
    assert len(logs) == 1 and logs[0]["path"].endswith(CS)
    assert report["methodology"]["rounds"] == len(records(CS))
    assert report["required_sections"] == ["integrity", "rules", "fairness", "math"]
    assert report["section_status"] == dict.fromkeys(report["required_sections"], "pass")
    assert report["verdict"] == "PASS"          # an audit report judges the rounds, not the RNG
    files = report["methodology"]["audited_files"]
    assert files[0]["size"] == (LOGS / CS).stat().st_size and files[0]["period"][0] is not None
    assert (tmp_path / "rep" / "audit-caribbean_stud-1.0.pdf").read_bytes().count(b"Round Log Audit Report")


def test_report_on_too_few_rounds_for_any_test_is_never_a_pass():
    """Fail closed: a section whose tests all say "not applicable" judged nothing: not run."""
    from certify.audit.report import _tests_section

    idle = {"name": "dealt cards: Runs", "applicable": False, "pvalue": None, "passed": True}
    result = {"fairness": {"tests": [idle]}, "confirmation": None, "alpha": 0.01}
    assert _tests_section(result, "fairness", "Fairness", {}) is None


def test_report_of_a_mispaid_log_fails_its_rules_section(tmp_path):
    recs = records(CS)
    entry = next(e for r in recs for e in r["settlement"] if e["wager"] == "bet" and Decimal(e["net"]) > 0)
    entry["net"] = str(Decimal(entry["net"]) + 1)
    result = audit(write(tmp_path, recs), "--report", tmp_path / "rep", "--issued-at", "2026-12-01")
    assert result.exit_code == 1, result.output
    report = json.loads((tmp_path / "rep" / "audit-caribbean_stud-1.0.json").read_text())
    assert report["verdict"] == "FAIL" and report["section_status"]["rules"] == "fail"
    assert report["section_status"]["integrity"] == "pass"
    assert any(f["severity"] == "blocking" and "audit: rules" in f["text"] for f in report["findings"])


# ------------------------------------------------------------------ 1. integrity

def test_duplicate_and_missing_round_ids(tmp_path):
    recs = records(CS)
    recs.insert(5, copy.deepcopy(recs[4]))
    del recs[20]
    code, data = audit_json(tmp_path, recs)
    assert code == 1
    found = [f["what"] for f in data["findings"]["integrity"]["first"]]
    assert any("round id 5 repeats" in w for w in found)
    assert any("rounds 20..20" in w and "missing" in w for w in found)
    assert data["findings"]["integrity"]["first"][0]["where"].endswith(":6: round")


def test_time_going_backwards(tmp_path):
    recs = records(CS)
    recs[7]["time"] = "2025-06-01T00:00:00Z"
    code, data = audit_json(tmp_path, recs)
    assert code == 1 and any("time goes backwards" in f["what"] for f in data["findings"]["integrity"]["first"])


def test_card_dealt_twice_in_a_round(tmp_path):
    recs = records(CS)
    r = recs[3]
    r["actions"][deal_index(r, 2)]["cards"][1] = r["actions"][deal_index(r, "dealer")]["cards"][0]
    code, data = audit_json(tmp_path, recs)
    found = data["findings"]["integrity"]
    assert code == 1 and found["count"] == 1
    assert "dealt twice" in found["first"][0]["what"] and found["first"][0]["round"] == r["round"]


def test_card_not_in_the_deck(tmp_path):
    recs = records(CS)
    at = deal_index(recs[2], 1)
    recs[2]["actions"][at]["cards"][0] = "Xx"
    code, data = audit_json(tmp_path, recs)
    f = data["findings"]["integrity"]["first"][0]
    assert code == 1 and "card not in the deck" in f["what"] and f["where"].endswith(f":3: actions[{at}].cards[0]")


def test_deck_order_that_is_not_what_was_dealt(tmp_path):
    recs = records(HB)
    recs[4]["deck"][0], recs[4]["deck"][1] = recs[4]["deck"][1], recs[4]["deck"][0]
    code, data = audit_json(tmp_path, recs, spec="texas_holdem_bonus")
    assert code == 1 and "not the deck's order" in data["findings"]["integrity"]["first"][0]["what"]


# ------------------------------------------------------------------ 2. rules

def _crafted_flush_round(flush_pays: str) -> dict:
    """One Caribbean Stud round played by the suite's engine: a flush against a qualifying dealer."""
    from certify.audit.rounds import record_of
    from certify.cards import parse_cards
    from certify.rules.engine import RulesRound

    spec = load_spec("caribbean_stud")
    rnd = RulesRound(spec, balances=[None], meter="10000.00")
    rnd.place_wager(seat=0, wager="ante", amount=Decimal("2.00"))
    rnd.lock_out()
    rnd.deal(hands=[tuple(parse_cards("2h 7h 9h Jh Kh"))], dealer=tuple(parse_cards("As Kd 3c 4d 9s")))
    rnd.act(seat=0, action="bet")
    record = record_of(rnd, 1, "T9", "2026-02-01T10:00:00Z", seat_numbers=[4], strategy="spec")
    bet = next(e for e in record["settlement"] if e["wager"] == "bet")
    assert bet["net"] == "20.00"      # the rules: 4.00 x 5
    bet["net"] = flush_pays
    return record


def test_mispay_on_a_rare_hand_names_wager_amounts_and_rule(tmp_path):
    code, data = audit_json(tmp_path, [_crafted_flush_round("16.00")], spec="caribbean_stud")
    f = data["findings"]["rules"]["first"]
    assert code == 1 and len(f) == 1
    assert (f[0]["seat"], f[0]["wager"], f[0]["logged"], f[0]["correct"]) == (4, "bet", "16.00", "20.00")
    assert "hand flush" in f[0]["rule"] and "qualifies=True" in f[0]["rule"]


def test_mispay_in_a_logged_round(tmp_path):
    recs = records(CS)
    r = next(r for r in recs if any(e["wager"] == "bet" and Decimal(e["net"]) > 0 for e in r["settlement"]))
    entry = next(e for e in r["settlement"] if e["wager"] == "bet" and Decimal(e["net"]) > 0)
    entry["net"] = str(Decimal(entry["net"]) + 1)
    code, data = audit_json(tmp_path, recs)
    f = data["findings"]["rules"]
    assert code == 1 and f["count"] == 1 and f["first"][0]["round"] == r["round"]


def test_progressive_wager_after_the_lockout_is_illegal(tmp_path):
    recs = records(CS)
    r = next(r for r in recs if any(a.get("wager") == "progressive" for a in r["actions"]))
    i = next(i for i, a in enumerate(r["actions"]) if a.get("wager") == "progressive")
    late = r["actions"].pop(i)
    r["actions"].insert(next(j for j, a in enumerate(r["actions"]) if a["type"] == "lockout") + 1, late)
    code, data = audit_json(tmp_path, recs)
    f = data["findings"]["rules"]["first"][0]
    assert code == 1 and "illegal action" in f["what"] and "lockout" in f["what"]


def test_an_action_the_game_does_not_have_is_illegal(tmp_path):
    recs = records(CS)
    recs[0]["actions"].append({"type": "deal", "to": 1, "cards": ["Ac"] if "Ac" not in json.dumps(recs[0]) else ["2c"]})
    next(a for a in recs[1]["actions"] if a["type"] == "decision")["action"] = "raise"
    code, data = audit_json(tmp_path, recs)
    whats = [f["what"] for f in data["findings"]["rules"]["first"]]
    assert code == 1 and any("illegal action" in w for w in whats) and len(whats) == 2


def test_holdem_check_before_the_flop_is_illegal(tmp_path):
    recs = records(HB)
    next(a for a in recs[0]["actions"] if a["type"] == "decision")["action"] = "check_turn"
    code, data = audit_json(tmp_path, recs, spec="texas_holdem_bonus")
    assert code == 1 and "'check_turn' is not an option here" in data["findings"]["rules"]["first"][0]["what"]


def test_bonus_kept_after_a_mulligan(tmp_path):
    recs = records(MULLIGAN)
    r = next(r for r in recs if any(a.get("action") == "mulligan" for a in r["actions"])
             and any(e["wager"] == "bonus" for e in r["settlement"]))
    bonus = next(e for e in r["settlement"] if e["wager"] == "bonus")
    bonus["net"] = "5.00"
    code, data = audit_json(tmp_path, recs, spec="five_card_mulligan")
    f = data["findings"]["rules"]["first"]
    assert code == 1 and f[0]["wager"] == "bonus" and f[0]["correct"] == str(-Decimal(
        next(a["amount"] for a in r["actions"] if a.get("wager") == "bonus")))


def test_misdeal_settled_as_a_normal_round(tmp_path):
    recs = records(CS)
    r = recs[9]
    r["actions"][deal_index(r, "dealer")]["cards"].pop()    # four cards to the dealer
    code, data = audit_json(tmp_path, recs)
    whats = [f["what"] for f in data["findings"]["rules"]["first"]]
    assert code == 1 and len(whats) == 1
    assert "already ended the round as 'misdeal'" in whats[0] and "1 cards to the dealer" not in whats[0]
    assert "4 cards to the dealer, expected 5" in whats[0]


def test_round_left_unfinished(tmp_path):
    recs = records(CS)
    recs[0]["actions"] = [a for a in recs[0]["actions"] if a["type"] != "decision"]
    code, data = audit_json(tmp_path, recs)
    assert code == 1 and "not finished" in data["findings"]["rules"]["first"][0]["what"]


# ------------------------------------------------------------------ decisions

def test_decision_other_than_the_declared_strategy(tmp_path):
    recs = records(CS)
    r = recs[0]
    d = next(a for a in r["actions"] if a["type"] == "decision")
    d["action"] = "fold" if d["action"] == "bet" else "bet"
    code, data = audit_json(tmp_path, recs)
    assert code == 1 and data["findings"]["decisions"]["count"] == 1
    assert "the spec strategy decides" in data["findings"]["decisions"]["first"][0]["what"]


# ------------------------------------------------------------------ 3. fairness and 4. math

def test_biased_shuffle_is_caught_by_the_card_tests(tmp_path):
    """Negative control: in 1 deal of 3 the ace of spades is moved to the top. Caught at 400 rounds
    (Casino Stud, one seat) by the card x position test; every round is settled right."""
    from certify.audit import sample

    def biased(decks: np.ndarray) -> np.ndarray:
        decks = decks.copy()
        for i in range(0, len(decks), 3):
            j = int(np.flatnonzero(decks[i] == 51)[0])
            decks[i, 0], decks[i, j] = decks[i, j], decks[i, 0]
        return decks

    spec = load_spec("casino_stud")
    recs = list(sample.records(spec, 400, 99, shuffle=biased))
    code, data = audit_json(tmp_path, recs, spec="casino_stud")
    assert code == 1 and all(data["findings"][c]["count"] == 0 for c in ("integrity", "rules", "decisions"))
    assert "dealt cards: CardPosition (every round)" in data["family"]["failing"]


def test_dealer_qualifying_too_often_is_caught_by_its_rate(tmp_path):
    """Negative control with every payout right: an engine that re-deals one in three of the
    dealer's non-qualifying hands (Casino Stud, one seat). Of 1,000 rounds dealt 852 are logged;
    the dealer qualifies in 65.3% of them (99% CI 60.9%..69.4%) against the exact 1,463,700 of
    2,598,960 hands (56.3%): p = 1.2e-7, rejected by Holm; integrity and rules pass."""
    from certify.audit import sample
    from certify.audit.audit import examine, spec_strategy

    spec = load_spec("casino_stud")
    strategy = spec_strategy(spec)
    kept, missed = [], 0
    for r in sample.records(spec, 1000, 7):
        flag = examine(spec, strategy, r, "").dealer
        missed += flag == ("qualifies", False)
        if flag != ("qualifies", False) or missed % 3:
            kept.append(r)
    for i, r in enumerate(kept, 1):
        r["round"] = i
    code, data = audit_json(tmp_path, kept, spec="casino_stud")
    assert len(kept) == 852
    assert code == 1 and all(data["findings"][c]["count"] == 0 for c in ("integrity", "rules", "decisions"))
    assert "dealer qualifies: rate" in data["family"]["failing"]
    rate = next(t for t in data["math"]["tests"] if t["name"] == "dealer qualifies: rate")
    assert rate["details"]["ci"][0] > rate["details"]["p0"]     # the interval lies above the exact share


def test_rounds_redealt_when_the_player_loses_fail_the_math(tmp_path):
    """Negative control with every payout right: the rounds the player lost are not in the log
    (an engine that re-deals them). Integrity and rules pass; outcomes and RTP fail."""
    recs = [r for r in records(CS)
            if sum(Decimal(e["net"]) for e in r["settlement"] if e["seat"] == r["seats"][0]["seat"]
                   and e["wager"] != "progressive") >= 0]
    for i, r in enumerate(recs, 1):
        r["round"] = i
    code, data = audit_json(tmp_path, recs)
    assert code == 1 and all(data["findings"][c]["count"] == 0 for c in ("integrity", "rules", "decisions"))
    assert any(name.startswith("main game") for name in data["family"]["failing"])


# ------------------------------------------------------------------ unusable input: exit 2, nothing written

def _exit2(tmp_path, path, spec="caribbean_stud") -> str:
    out = tmp_path / "never.json"
    result = audit(path, "--json", out, spec=spec)
    assert result.exit_code == 2, result.output
    assert not out.exists()
    return result.output


def test_truncated_last_line(tmp_path):
    path = tmp_path / "cut.jsonl"
    path.write_bytes((LOGS / CS).read_bytes()[:-40])
    assert f"{path}:{len(records(CS))}: the last line has no newline" in _exit2(tmp_path, path)


def test_garbled_line(tmp_path):
    lines = (LOGS / CS).read_text().splitlines(keepends=True)
    lines[3] = lines[3][:50] + "\n"
    path = tmp_path / "g.jsonl"
    path.write_text("".join(lines))
    assert f"{path}:4: not a JSON round" in _exit2(tmp_path, path)


def test_wrong_spec_version_and_other_game(tmp_path):
    recs = records(CS)
    recs[2]["spec"]["version"] = "0.9"
    assert ":3: spec.version" in _exit2(tmp_path, write(tmp_path, recs))
    assert ":1: spec.name: a round of 'caribbean_stud'" in _exit2(tmp_path, LOGS / CS, spec="casino_stud")


@pytest.mark.parametrize("net, expected", [(1.5, "expected a string, got 1.5"),
                                           ("1,5", "expected a string matching"),
                                           ("NaN", "expected a string matching")])
def test_money_that_is_not_a_decimal_string(tmp_path, net, expected):
    recs = records(CS)
    recs[1]["settlement"][0]["net"] = net
    output = _exit2(tmp_path, write(tmp_path, recs))
    assert ":2: settlement[0].net: " in output and expected in output


def test_ten_megabyte_line(tmp_path):
    path = tmp_path / "big.jsonl"
    path.write_text((LOGS / CS).read_text() + '{"log": "' + "x" * (10 << 20) + '"}\n')
    assert f"{path}:{len(records(CS)) + 1}: line" in _exit2(tmp_path, path)


def test_empty_blank_and_unknown_fields(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert "holds no round" in _exit2(tmp_path, empty)
    blank = tmp_path / "blank.jsonl"
    blank.write_text((LOGS / CS).read_text() + "\n")
    assert "blank line" in _exit2(tmp_path, blank)
    recs = records(CS)
    recs[0]["actions"][0]["tip"] = "1.00"
    assert ":1: actions[0].tip: unknown field" in _exit2(tmp_path, write(tmp_path, recs))


def test_gzip_read_transparently_and_truncated_gzip_refused(tmp_path):
    whole = tmp_path / "cs.jsonl.gz"
    whole.write_bytes(gzip.compress((LOGS / CS).read_bytes()))
    assert audit(whole).exit_code == 0
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(whole.read_bytes()[:-100])
    assert "damaged or truncated" in _exit2(tmp_path, cut)


def test_schema_validator_names_the_field():
    from certify.audit.schema import Validator, round_log_validator

    r = records(CS)[0]
    assert round_log_validator().first_error(r) is None
    bad = copy.deepcopy(r)
    bad["actions"][deal_index(bad, 1)]["cards"][2] = 7
    assert round_log_validator().first_error(bad) == (f"actions[{deal_index(bad, 1)}].cards[2]",
                                                      "expected a string, got 7")
    with pytest.raises(ValueError, match="not supported"):
        Validator({"type": "object", "oneOf": []})


# ------------------------------------------------------------------ every spec, no per-game code

@pytest.mark.parametrize("name", ["caribbean_stud", "casino_stud", "five_card_mulligan", "five_card_mulligan_online",
                                  "texas_holdem_bonus", "texas_holdem_bonus_2x"])
def test_every_spec_of_the_suite_is_audited(tmp_path, name):
    from certify.audit import sample

    spec = load_spec(name)
    recs = list(sample.records(spec, 30, 3, seats=min(2, spec.seats), play="random"))
    code, data = audit_json(tmp_path, recs, spec=name)
    # random play is free play: its math is what no decision changes, the dealer's rate (the stud
    # games, Five Card Mulligan) or the Bonus paid on the hole cards (Hold'em Bonus)
    assert data["section_status"]["math"] == "pass", data["scope"]
    assert code == 0 and data["rounds"] == 30
    judged = {t["name"].split(" (")[0].split(":")[0] for t in data["math"]["tests"] if t["applicable"]}
    assert judged == ({"Bonus"} if name.startswith("texas_holdem") else {"dealer qualifies", "dealer stands"} & {
        "dealer qualifies" if "stud" in name else "dealer stands"}), data["math"]["tests"]
    assert data["findings"]["rules"]["count"] == 0
    paid = next(r for r in recs if any(Decimal(e["net"]) > 0 for e in r["settlement"]))
    entry = next(e for e in paid["settlement"] if Decimal(e["net"]) > 0)
    entry["net"] = str(Decimal(entry["net"]) - Decimal("0.01"))
    code, data = audit_json(tmp_path, recs, spec=name)
    assert code == 1 and data["findings"]["rules"]["count"] == 1


def _dead_hand_round() -> dict:
    """Caribbean Stud, two seats: seat 2 is dealt four cards (a dead hand: its wagers returned)."""
    from certify.audit.rounds import record_of
    from certify.cards import parse_cards
    from certify.rules.engine import RulesRound

    spec = load_spec("caribbean_stud")
    rnd = RulesRound(spec, balances=[None, None], meter="10000.00")
    for seat in (0, 1):
        rnd.place_wager(seat=seat, wager="ante", amount=Decimal("1.00"))
    rnd.place_wager(seat=1, wager="progressive", amount=Decimal("1.00"))
    rnd.lock_out()
    rnd.deal(hands=[tuple(parse_cards("2h 7h 9h Jh Kh")), tuple(parse_cards("2c 3c 4c 5c"))],
             dealer=tuple(parse_cards("As Kd 3d 4d 9s")))
    rnd.act(seat=0, action="bet")
    return record_of(rnd, 1, "T9", "2026-02-01T10:00:00Z", seat_numbers=[1, 2])


def test_dead_hand_handled_as_the_spec_says(tmp_path):
    record = _dead_hand_round()
    dead = [e for e in record["settlement"] if e["seat"] == 2]
    assert dead and all(e["net"] == "0" for e in dead)
    model = "caribbean_stud"
    assert audit_json(tmp_path, [record], spec=model)[0] == 0
    dead[0]["net"] = "-1.00"     # an engine that keeps a dead hand's Ante
    code, data = audit_json(tmp_path, [record], spec=model)
    f = data["findings"]["rules"]["first"][0]
    assert code == 1 and f["seat"] == 2 and "dead hand: 4 cards dealt, expected 5" in f["rule"]


def test_missing_folder_or_fifo_is_refused_before_any_work(tmp_path):
    import os

    assert "cannot read the log" in _exit2(tmp_path, tmp_path / "nope.jsonl")
    assert "is a directory" in _exit2(tmp_path, tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert "not a regular file" in _exit2(tmp_path, fifo)


def test_seats_coming_and_going_keep_every_round_in_the_card_tests(tmp_path):
    """Three seats (20 cards in the first deal) then one seat (10 cards) at another table: the card
    tests take the first 10 cards of every round."""
    from certify.audit import sample

    recs = records(CS) + list(sample.records(load_spec("caribbean_stud"), 20, 8, table="CS-2"))
    code, data = audit_json(tmp_path, recs)
    assert code == 0
    fairness = data["fairness"]
    assert fairness["positions"] == 10 and fairness["short_first_deals"] == 0
    assert fairness["first_deal_sizes"] == {"10": 20, "20": len(records(CS))}
    position = next(t for t in fairness["tests"] if t["name"] == "dealt cards: CardPosition (every round)")
    assert position["n"] == len(recs)


def test_a_time_that_is_no_date_is_unusable_input(tmp_path):
    recs = records(CS)
    recs[4]["time"] = "2026-13-45T25:00:00Z"     # the pattern's shape, not a date
    assert ":5: time: expected an ISO 8601 time" in _exit2(tmp_path, write(tmp_path, recs))


def test_worker_processes_give_the_same_audit(tmp_path):
    """--jobs 2: the workers parse and re-settle, the main process tallies in order: the same
    findings and tests."""
    from certify.audit.audit import audit as run

    recs = records(CS)
    recs.insert(5, copy.deepcopy(recs[4]))
    recs[30]["settlement"][0]["net"] = "7.00"
    path = write(tmp_path, recs)
    spec = load_spec("caribbean_stud")
    one, two = (run([path], spec, jobs=jobs) for jobs in (1, 2))
    for part in ("findings", "fairness", "math", "family", "verdict"):
        assert one[part] == two[part]
    assert one["findings"]["integrity"]["count"] == 1 and one["findings"]["rules"]["count"] == 1


@pytest.mark.slow
def test_a_bad_line_in_a_workers_batch_is_exit_2_naming_it(tmp_path):
    lines = (LOGS / CS).read_text().splitlines(keepends=True)
    lines[100] = "{not json\n"
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(lines))
    result = audit(path, "--jobs", "2")
    assert result.exit_code == 2 and f"{path}:101: not a JSON round" in result.output


def test_cards_dealt_one_at_a_time_round_the_table(tmp_path):
    """A dealer who deals one card at a time to each seat and the dealer in turn: the first deal is
    gathered card by card, the rounds settle the same."""
    recs = records(CS)
    for r in recs:
        deals = [a for a in r["actions"] if a["type"] == "deal"]
        at = r["actions"].index(deals[0])
        rest = [a for a in r["actions"] if a["type"] != "deal"]
        one_by_one = [{"type": "deal", "to": d["to"], "cards": [d["cards"][i]]}
                      for i in range(5) for d in deals if i < len(d["cards"])]
        r["actions"] = rest[:at] + one_by_one + rest[at:]
    code, data = audit_json(tmp_path, recs)
    assert code == 0 and data["rounds"] == len(recs)


def test_a_meter_award_below_the_stake_is_the_meter_cell(golden_sheet):
    """Caribbean Stud's meter falls with each straight flush (10% of it) until a royal resets it:
    far enough down, an award is below the fixed pays and even below the stake. Such a net is the
    progressive's meter cell, never a net missing from the return table (a fair 10-million-round
    log failed on this)."""
    from fractions import Fraction

    from certify.audit.audit import METER_CELL, Auditor

    spec = load_spec("caribbean_stud")
    auditor = Auditor(spec, golden_sheet("caribbean_stud"))
    lost = (("ante", Fraction(-1), Fraction(-1)), ("progressive", Fraction(-1), Fraction(-1)))
    award = (("ante", Fraction(1), Fraction(1)), ("bet", Fraction(2), Fraction(1)),
             ("progressive", Fraction(-3, 10), Fraction(-3, 10)))
    auditor.tally.outcomes.update({lost: 999, award: 1})
    tests = {t.name: t for t in auditor._math()}
    assert "progressive: nets in the return table" not in tests
    chi = tests["progressive: outcome frequencies"]
    labels = chi.details["labels"]
    assert chi.details["observed"][labels.index(f"net {METER_CELL}")] == 1
