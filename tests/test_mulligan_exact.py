"""The exact Mulligan counts over rank profiles against an independent card-level count.

The card-level count walks every dealer first hand D1 below ``stands_on`` that misses the player's
cards, and counts the dealer's new fives below / equal to P among the 42 cards left by
inclusion-exclusion over the 10 cards of P and D1 (the stud module's tables of hands holding a
given set of cards). It shares no code with the profile method but the hand values and, with the
first-five count, the lookup of hands holding given cards in those tables.
"""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
from numba import njit, prange

from certify import hands
from certify.analysis import mulligan, mulligan_exact as me, stud
from certify.analysis.frequencies import class_values
from certify.analysis.mulligan_kernel import holding_below
from certify.cards import parse_cards

ACE_HIGH = 12 << 16
KING_HIGH = 11 << 16


@njit(cache=True)
def _below_avoiding(e, t, binom, prefix0, prefix1, prefix2, sorted3, sorted4, dense5):
    """Five-card hands with no card of the sorted 10 cards e and a dense value below t."""
    total = 0
    s = np.empty(5, np.int64)
    for mask in range(1 << 10):
        n = 0
        for i in range(10):
            if (mask >> i) & 1:
                if n == 5:
                    n = 6
                    break
                s[n] = e[i]
                n += 1
        if n > 5:
            continue
        c = holding_below(s, n, t, binom, prefix0, prefix1, prefix2, sorted3, sorted4, dense5)
        total += -c if n % 2 else c
    return total


@njit(cache=True, parallel=True)
def _card_level(player, dense_p, stands_dense, hands5, binom, prefix0, prefix1, prefix2, sorted3,
                sorted4, dense5):
    """(below, equal) summed over the dealer's first hands that redraw and miss the player."""
    n = hands5.shape[0]
    below = np.zeros(n, np.int64)
    equal = np.zeros(n, np.int64)
    for h in prange(n):
        if dense5[h] >= stands_dense:
            continue
        d = hands5[h]
        clash = False
        for i in range(5):
            for k in range(5):
                if d[i] == player[k]:
                    clash = True
        if clash:
            continue
        e = np.sort(np.concatenate((player, d)))
        lo = _below_avoiding(e, dense_p, binom, prefix0, prefix1, prefix2, sorted3, sorted4, dense5)
        hi = _below_avoiding(e, dense_p + 1, binom, prefix0, prefix1, prefix2, sorted3, sorted4,
                             dense5)
        below[h] = lo
        equal[h] = hi - lo
    return below.sum(), equal.sum()


def card_level_counts(value: int, stands_value: int) -> tuple[int, int, int]:
    """(below, equal, above) over every player hand of this value, by the card-level method."""
    t = stud._tables()
    values = class_values()
    dense_p = int(np.searchsorted(values, value))
    stands_dense = int(np.searchsorted(values, stands_value))
    prefix0 = np.concatenate([[0], np.cumsum(np.bincount(t.dense5, minlength=len(values)))])
    rep_values = hands.rank_batch(t.reps)
    below = equal = total = 0
    for rep, weight in zip(t.reps[rep_values == value], t.weights[rep_values == value]):
        lo, eq = _card_level(rep.astype(np.int64), dense_p, stands_dense, t.hands5, stud._BINOM,
                             prefix0.astype(np.int64), t.prefix1, t.prefix2, t.sorted3, t.sorted4,
                             t.dense5.astype(np.int64))
        redraws = int(((t.dense5 < stands_dense) & ~np.isin(t.hands5, rep).any(axis=1)).sum())
        below += int(weight) * int(lo)
        equal += int(weight) * int(eq)
        total += int(weight) * redraws * comb(42, 5)
    return below, equal, total - below - equal


@pytest.fixture(scope="module")
def ace_high_counts():
    return me.stand_when_dealer_redraws(ACE_HIGH)


def _profile_counts(counts, value):
    return tuple(int(x) for x in counts[int(np.searchsorted(class_values(), value))])


@pytest.mark.parametrize("cards", [
    "Ks Qs 9s 7s 3s",  # a flush: the player's hand is one suit
    "Ac Ad Kh Kc Ks",  # a full house (two suit classes)
    "8c 8d 8h 8s 2c",  # quads
    "5h 6h 7h 8h 9h",  # a straight flush
])  # (a hand of five distinct ranks, not one suit, has ~50 suit classes: the slow test below)
def test_profile_counts_equal_the_card_level_count(cards, ace_high_counts):
    value = hands.rank_hand(parse_cards(cards))
    assert _profile_counts(ace_high_counts, value) == card_level_counts(value, ACE_HIGH)


def test_under_a_king_high_dealer_threshold():
    value = hands.rank_hand(parse_cards("Jd Jc Jh 4s 4c"))  # a full house: two suit classes
    counts = me.stand_when_dealer_redraws(KING_HIGH)
    assert _profile_counts(counts, value) == card_level_counts(value, KING_HIGH)


@pytest.mark.slow
@pytest.mark.parametrize("cards", ["As Kd 9h 5c 4s"])  # the spec's threshold hand: 1,020 hands
def test_profile_counts_for_hands_of_many_suit_classes(cards, ace_high_counts):
    value = hands.rank_hand(parse_cards(cards))
    assert _profile_counts(ace_high_counts, value) == card_level_counts(value, ACE_HIGH)


@pytest.mark.parametrize("stands_value", [ACE_HIGH, KING_HIGH])
def test_every_value_adds_up_to_its_redraw_rounds(stands_value):
    """Below + equal + above = (player hands of the value) x (first hands that redraw) x C(42,5),
    the redraw counts from the first-five inclusion-exclusion (another method)."""
    counts = me.stand_when_dealer_redraws(stands_value)
    cls = mulligan._classes(stands_value)
    dense = np.searchsorted(class_values(), cls.values)
    expected = [0] * len(class_values())
    for d, w, f in zip(dense.tolist(), cls.weights.tolist(), cls.first[:, 0].tolist()):
        expected[d] += w * f * comb(42, 5)
    assert [int(x) for x in counts.sum(axis=1)] == expected


def test_the_redraw_family_sum():
    """Every rank set of a non-flush high card below Ace-high, counted with any suits (the
    dynamic programme) = 784 rank sets (C(12,5) - 8 straights) x 4^5."""
    threshold, straights = me.junk_threshold(ACE_HIGH)
    assert len(straights) == 8
    total = me.junk_sum(np.ones(13, np.int64), np.full(13, 4, np.int64), threshold, straights)
    assert total == (comb(12, 5) - 8) * 4 ** 5


def test_a_threshold_above_high_card_is_refused():
    with pytest.raises(me.ExactError, match="high-card threshold"):
        me.junk_threshold(1 << hands.CATEGORY_SHIFT)
