"""The mulligan's dynamic programme: its hand automata against the evaluator, its pair counts
against closed forms, its totals against the first-five counts, and one hand value against an
independent simulation (with a negative control)."""

from __future__ import annotations

import math
from math import comb

import numpy as np
import pytest

from certify import hands
from certify.analysis import mulligan, mulligan_dp as dp
from certify.cards import parse_cards
from certify.spec import load_spec

ACE_HIGH = 12 << 16
AK954 = hands.rank_hand(parse_cards("As Kd 9h 5c 4s"))
AK954_TUPLE = (12, 11, 7, 3, 2)
AFTER_PLAYER = comb(47, 5) * comb(42, 5) * comb(37, 5)
CATEGORY_COUNTS = [1302540, 1098240, 123552, 54912, 10200, 5108, 3744, 624, 36, 4]


def _multisets() -> np.ndarray:
    keys, _ = hands._rank_multisets(5)
    return (keys[:, None] // 5 ** np.arange(13)) % 5


def _final(machine: dp.Machine, counts) -> int:
    s = 0
    for r in range(12, -1, -1):
        s = machine.next[r, s, counts[r]]
        if s < 0:
            return -1
    return s


def _cards(counts, flush: bool) -> list[int]:
    """A hand of these rank counts, all spades if ``flush``, else never one suit."""
    cards = []
    for r in range(13):
        for i in range(counts[r]):
            cards.append(4 * r + (0 if flush else i))
    if not flush and max(counts) == 1:
        cards[0] = 4 * (cards[0] // 4) + 1
    return cards


def _expected_class(value: int, lex) -> int:
    category = value >> hands.CATEGORY_SHIFT
    if category == 0 and lex is not None:
        threshold = sum(r << (16 - 4 * k) for k, r in enumerate(lex))
        return dp.BELOW if value < threshold else 0
    return category


@pytest.mark.parametrize("lex", [None, (12, 0, 0, 0, 0), AK954_TUPLE])
def test_the_hand_automaton_classifies_every_hand_as_the_evaluator_does(lex):
    machine = dp.any_machine(lex)
    for counts in _multisets():
        state = _final(machine, counts)
        versions = [False, True] if counts.max() == 1 else [False]
        for flush in versions:
            got = (machine.mono_class if flush else machine.free_class)[state]
            assert got == _expected_class(hands.rank_hand(_cards(counts, flush)), lex), (counts, flush)


@pytest.mark.parametrize("lex, accepted", [((12, 0, 0, 0, 0), 784), (AK954_TUPLE, 1153)])
def test_the_junk_automaton_accepts_the_rank_sets_below_the_threshold(lex, accepted):
    machine = dp.junk_machine(lex)
    total = 0
    for counts in _multisets():
        state = _final(machine, counts)
        weight = 0 if state < 0 else int(machine.weight[state])
        below = counts.max() == 1 and _expected_class(hands.rank_hand(_cards(counts, False)), lex) == dp.BELOW
        assert weight == int(below), counts
        total += weight
    assert total == accepted  # 1153 x 1020 non-flush suitings = 1,176,060 hands below A K 9 5 4


def test_pairs_of_hands_by_class_and_equal_pairs_in_closed_form():
    any_hand, none = dp.any_machine(None), dp.dummy_machine()
    joint = dp.class_counts(any_hand, any_hand, none, none, monoable=(True, True, False, False))
    assert [sum(joint[c, :]) for c in range(10)] == [n * comb(47, 5) for n in CATEGORY_COUNTS]
    ties = dp.class_counts(any_hand, any_hand, none, none, mirror=True, monoable=(True, True, False, False))
    # the same ranks in other suits: 12 ordered suit pairs per distinct rank, minus either hand a flush
    distinct = 12 ** 5 - 2 * 4 * 3 ** 5 + 12
    expected = {0: 1277 * distinct, 1: 13 * comb(12, 3) * 6 * 12 ** 3, 2: comb(13, 2) * 11 * 36 * 12,
                3: 0, 4: 10 * distinct, 5: 1277 * 12, 6: 0, 7: 0, 8: 9 * 12, 9: 12}
    assert {c: ties[c, c] for c in range(10)} == expected


def test_mulligan_rounds_add_up_to_the_hands_that_take_it():
    out = dp.mulligan_below(AK954, ACE_HIGH)
    assert out.total == 1_176_060 * AFTER_PLAYER
    assert all(w > 0 for w in out.wins) and out.ties > 0 and out.losses > 0


def test_one_hand_value_against_an_independent_simulation():
    """EV(mulligan) of the A K 9 5 4 hands, counted, against this module's simulation kernel on
    every suit class of that value (2,000 scenarios per hand): within 4 SE. Negative control: the
    counted EV of a pair of deuces (a different depletion) is rejected by the same estimate."""
    rules = mulligan.mulligan_rules(load_spec("five_card_mulligan"))
    cls = mulligan._classes(ACE_HIGH)
    select = cls.values == AK954
    sample = mulligan.classes_for(cls.reps[select], cls.weights[select], ACE_HIGH)
    est = mulligan.estimates(rules, sample, mulligan.simulate(rules, sample, 2000, seed=8, stream=3))
    w = sample.weights / sample.weights.sum()
    simulated = float((w * est.ev_mull).sum())
    se = math.sqrt(float((w ** 2 * est.mull_ev_var).sum()))
    out = dp.mulligan_of_value(AK954, ACE_HIGH)
    assert out.total == 1020 * AFTER_PLAYER
    counted = float(mulligan._ev_mulligan(rules, out))
    assert abs(simulated - counted) < 4 * se, (simulated, counted, se)
    deuces = float(mulligan._ev_mulligan(rules, dp.mulligan_of_value(
        hands.rank_hand(parse_cards("2s 2d 3h 4c 5s")), ACE_HIGH)))
    assert abs(simulated - deuces) > 4 * se


def test_rules_outside_the_method_are_named():
    with pytest.raises(mulligan.me.ExactError, match="high-card thresholds"):
        dp.high_card_tuple(1 << hands.CATEGORY_SHIFT)


def test_the_mulligan_below_a_threshold_moves_by_the_values_between():
    """The counts below one threshold are those below another plus (or minus) the counts of each
    hand value between them (how the sheet gets its second strategy), both ways; a value outside
    the range would change them."""
    rules = mulligan.mulligan_rules(load_spec("five_card_mulligan"))
    low, high = (hands.rank_hand(parse_cards(h)) for h in ("7s 5d 4h 3c 2s", "7s 6d 5h 3c 2s"))
    profiles = mulligan.me.profiles()
    high_cards = np.unique(profiles.free_values[(profiles.free_values >> hands.CATEGORY_SHIFT) == 0])
    between = [int(v) for v in high_cards if low <= v < high]
    assert 1 < len(between) <= mulligan.SHIFTED_VALUES
    below_low, below_high = dp.mulligan_below(low, ACE_HIGH), dp.mulligan_below(high, ACE_HIGH)
    assert below_low != below_high
    assert mulligan.mulligan_below_near(rules, high, low, below_low, high_cards) == below_high
    assert mulligan.mulligan_below_near(rules, low, high, below_high, high_cards) == below_low
    outside = dp.mulligan_of_value(int(high_cards[high_cards >= high][0]), ACE_HIGH)
    assert below_low.plus([dp.mulligan_of_value(v, ACE_HIGH) for v in between[1:]] + [outside]) != below_high
