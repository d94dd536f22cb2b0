"""Rules-model games (``model: rules/1``) audited end to end with no per-game audit code: Three
Card Poker from the suite's own rules engine (``certify.rules.engine.RulesRound``).

A fair log passes (spec strategy and free play); the negative controls are engines built from a
wrong copy of the spec (the same name and version in the log, as a studio's buggy engine would
write), each caught at a stated number of rounds: the Ante Bonus paying trips 3 instead of 4 and
Pair Plus paying a straight flush 35 instead of 40 (rare hands: the round it happens in), the
dealer qualifying with King-high instead of Queen-high, and a biased shuffle."""

from __future__ import annotations

import copy
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest
import yaml

from certify.spec import SPECS_DIR, load_spec, parse_spec
from tests.test_audit import audit_json

TCP = "three_card_poker"


@pytest.fixture(autouse=True)
def _golden_par(golden_sheet, monkeypatch):
    from certify.analysis import cache

    monkeypatch.setattr(cache, "load_or_compute", lambda spec, use_cache=True, **_: (golden_sheet(spec.name), None))


def faulty_spec(change) -> object:
    """Three Card Poker with ``change(data)`` applied: the rules a faulty engine plays."""
    data = yaml.safe_load((SPECS_DIR / f"{TCP}.yaml").read_text())
    change(data)
    return parse_spec(copy.deepcopy(data), SPECS_DIR / f"{TCP}.yaml", None)


def log_of(spec, rounds: int, seed: int, **kwargs) -> list[dict]:
    from certify.audit import sample

    return list(sample.records(spec, rounds, seed, seats=2, side_rate=1.0, **kwargs))


def clean(data: dict) -> bool:
    return all(data["findings"][c]["count"] == 0 for c in ("integrity", "rules", "decisions"))


@pytest.mark.parametrize("play", ["spec", "random"])
def test_a_fair_three_card_poker_log_passes(tmp_path, play):
    code, data = audit_json(tmp_path, log_of(load_spec(TCP), 1500, 21, play=play), spec=TCP)
    assert code == 0 and data["verdict"] == "PASS" and clean(data), data["reasons"]
    names = {t["name"] for t in data["math"]["tests"] if t["applicable"]}
    assert "dealer qualifies: rate" in names
    if play == "spec":
        assert {"main game (spec strategy): RTP", "pair_plus: RTP"} <= names
    else:
        assert data["math"]["declared_rounds"] == 0 and "free play in 1,500 of 1,500 rounds" in data["scope"]


def test_the_dealer_rate_is_the_rules_models_own_count(golden_sheet):
    """The exact share the dealer's rate is tested against: the three-card hands meeting Queen-high,
    counted from the rules model's hand tables, equal to the PAR sheet's frequency."""
    from certify.audit.audit import dealer_share

    spec = load_spec(TCP)
    hands, of, what = dealer_share(spec, spec.dealer.qualifies)
    sheet = golden_sheet(TCP).frequencies["dealer_qualifies"]
    assert (hands, of) == (sheet["hands"], sheet["of"]) and of == 22_100 and "3-card" in what


def _first_finding(data: dict) -> dict:
    return data["findings"]["rules"]["first"][0]


def test_ante_bonus_mispaid_on_trips_is_caught_in_the_round(tmp_path):
    """An engine paying the Ante Bonus 3 to 1 on three of a kind (the spec: 4). Seed 5, two seats:
    the first trips played is in round 83 (of 600); every such round is a rules finding."""
    wrong = faulty_spec(lambda d: d["wagers"]["ante"]["settle"]["versus_dealer"]["bonus"]["pays"].update(trips=3))
    code, data = audit_json(tmp_path, log_of(wrong, 600, 5), spec=TCP)
    first = _first_finding(data)
    assert code == 1 and data["verdict"] == "FAIL" and data["section_status"]["rules"] == "fail"
    assert first["round"] == 83 and first["wager"] == "ante" and "hand trips" in first["rule"]
    assert Decimal(first["correct"]) - Decimal(first["logged"]) == Decimal("5.00")   # one Ante of 5.00
    assert data["findings"]["integrity"]["count"] == 0


def test_pair_plus_mispaid_on_a_straight_flush_is_caught_in_the_round(tmp_path):
    """An engine paying Pair Plus 35 to 1 on a straight flush (the spec: 40; 1 hand in 460).
    Seed 5, two seats: round 307 of 600 holds the first straight flush."""
    wrong = faulty_spec(lambda d: d["wagers"]["pair_plus"]["settle"]["pay_table"]["pays"].update(straight_flush=35))
    code, data = audit_json(tmp_path, log_of(wrong, 600, 5), spec=TCP)
    first = _first_finding(data)
    assert code == 1 and first["round"] == 307 and first["wager"] == "pair_plus"
    assert (Decimal(first["logged"]), Decimal(first["correct"])) == (Decimal("175.00"), Decimal("200.00"))


def test_wrong_qualifier_is_caught(tmp_path):
    """An engine whose dealer qualifies with King-high (the spec: Queen-high): a played hand against
    a Queen-high dealer is settled as if the dealer did not qualify. Seed 5, two seats: caught in
    round 9 (of 200), and on every such round after it."""
    wrong = faulty_spec(lambda d: d["dealer"]["qualifies"].update(ranks=["K"]))
    code, data = audit_json(tmp_path, log_of(wrong, 200, 5), spec=TCP)
    first = _first_finding(data)
    assert code == 1 and first["round"] == 9 and "qualifies=True" in first["rule"]
    assert data["findings"]["rules"]["count"] >= 10


def test_biased_shuffle_is_caught_by_the_card_tests(tmp_path):
    """In 1 deal of 3 the ace of spades is moved to the top: caught at 400 rounds (two seats) by
    card x position, with every round settled right."""
    def biased(decks: np.ndarray) -> np.ndarray:
        decks = decks.copy()
        for i in range(0, len(decks), 3):
            j = int(np.flatnonzero(decks[i] == 51)[0])
            decks[i, 0], decks[i, j] = decks[i, j], decks[i, 0]
        return decks

    code, data = audit_json(tmp_path, log_of(load_spec(TCP), 400, 99, shuffle=biased), spec=TCP)
    assert code == 1 and clean(data) and data["section_status"]["fairness"] == "fail"
    assert "dealt cards: CardPosition (every round)" in data["family"]["failing"]


def test_the_drive_harness_places_only_the_wagers_made_before_the_deal():
    """certify drive on a rules-model spec: the Ante and the side bet, never the Play (a decision's)."""
    from certify.audit.drive import Harness

    placed = [w for seed in range(20) for s in Harness(load_spec(TCP), "spec", seed, 2).wagers() for w in s["wagers"]]
    assert set(placed) == {"ante", "pair_plus"} and placed.count("ante") == 40


def test_what_free_play_decisions_cost_against_the_optimal_strategy(tmp_path):
    """Free play in Three Card Poker: each decision's cost is the optimal option's exact
    expectation less the chosen one's (given the player's cards), times the Ante. The spec strategy
    (Q-6-4, the optimal one) played as free play costs nothing; random play costs, every fold of a
    hand worth playing and every play of a hand worth folding counted."""
    from fractions import Fraction

    spec = load_spec(TCP)
    optimal = log_of(spec, 400, 31)
    for r in optimal:
        r["strategy"] = "free"
    _, data = audit_json(tmp_path, optimal, spec=TCP)
    cost = data["math"]["free_play_decision_cost"]
    assert cost["decisions"] == 800 and cost["below the optimal option"] == 0 and Fraction(cost["expected cost, exact"]) == 0
    _, data = audit_json(tmp_path, log_of(spec, 400, 31, play="random"), spec=TCP)
    cost = data["math"]["free_play_decision_cost"]
    assert cost["decisions"] == 800 and 0 < cost["below the optimal option"] <= data["math"][
        "free_play_deviations_from_spec_strategy"]
    assert Fraction(cost["expected cost, exact"]) > 0 and "side bets not counted" in cost["looked_at"]
