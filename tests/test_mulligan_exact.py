"""The exact Mulligan counts over rank profiles against an independent card-level count.

The card-level count pairs, card by card, every dealer first hand D1 below ``stands_on`` that
misses the player's hand P with every five X (the dealer's new hand) that misses P and is below
(equal to) P, and counts the pairs in which D1 and X share no card by inclusion-exclusion over the
cards they share: sum over card sets S of (-1)^|S| r(S) l(S), with r(S) / l(S) the number of such
D1 / X holding S (S of 0..5 cards, the sizes a five can hold). It shares no code with the profile
method but the hand values.
"""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
from numba import njit

from certify import hands
from certify.analysis import mulligan, mulligan_exact as me
from certify.analysis.frequencies import class_values
from certify.rules import counting
from certify.cards import parse_cards

ACE_HIGH = 12 << 16
KING_HIGH = 11 << 16
SUBSET_OFFSETS = np.cumsum([0] + [comb(52, k) for k in range(6)])  # where the k-card sets start


@njit(cache=True)
def _count_subsets(hands5, select, binom, offsets, counts):
    """counts[set] += 1 for every card set (0..5 cards, by colex index) of every selected hand."""
    for h in range(hands5.shape[0]):
        if not select[h]:
            continue
        for mask in range(32):
            k = 0
            index = 0
            for i in range(5):
                if (mask >> i) & 1:
                    k += 1
                    index += binom[hands5[h, i], k]
            counts[offsets[k] + index] += 1


@njit(cache=True)
def _disjoint_pairs(first, new, offsets):
    """Pairs (D1, X) sharing no card: sum over card sets S of (-1)^|S| first(S) new(S)."""
    total = 0
    for k in range(6):
        part = 0
        for j in range(offsets[k], offsets[k + 1]):
            part += first[j] * new[j]
        total += -part if k % 2 else part
    return total


@pytest.fixture(scope="module")
def card_level():
    """The card-level count of (below, equal, above) over every player hand of a value."""
    hands5 = counting._colex_hands()
    values = class_values()
    dense5 = np.searchsorted(values, hands.rank_batch(hands5))
    classes = counting.suit_classes()
    rep_values = hands.rank_batch(classes.reps)
    size = int(SUBSET_OFFSETS[-1])

    def subset_counts(select):
        counts = np.zeros(size, np.int64)
        _count_subsets(hands5, select, counting._BINOM, SUBSET_OFFSETS, counts)
        return counts

    def counts(value: int, stands_value: int) -> tuple[int, int, int]:
        dense_p = int(np.searchsorted(values, value))
        stands_dense = int(np.searchsorted(values, stands_value))
        below = equal = total = 0
        for rep, weight in zip(classes.reps[rep_values == value], classes.weights[rep_values == value]):
            misses_p = ~np.isin(hands5, rep).any(axis=1)
            first = subset_counts(misses_p & (dense5 < stands_dense))
            lo = _disjoint_pairs(first, subset_counts(misses_p & (dense5 < dense_p)), SUBSET_OFFSETS)
            eq = _disjoint_pairs(first, subset_counts(misses_p & (dense5 == dense_p)), SUBSET_OFFSETS)
            redraws = int(first[0])  # the empty set: every first hand counted once
            below += int(weight) * int(lo)
            equal += int(weight) * int(eq)
            total += int(weight) * redraws * comb(42, 5)
        return below, equal, total - below - equal

    return counts


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
def test_profile_counts_equal_the_card_level_count(cards, ace_high_counts, card_level):
    value = hands.rank_hand(parse_cards(cards))
    assert _profile_counts(ace_high_counts, value) == card_level(value, ACE_HIGH)


def test_under_a_king_high_dealer_threshold(card_level):
    value = hands.rank_hand(parse_cards("Jd Jc Jh 4s 4c"))  # a full house: two suit classes
    counts = me.stand_when_dealer_redraws(KING_HIGH)
    assert _profile_counts(counts, value) == card_level(value, KING_HIGH)


@pytest.mark.slow
@pytest.mark.parametrize("cards", ["As Kd 9h 5c 4s"])  # the spec's threshold hand: 1,020 hands
def test_profile_counts_for_hands_of_many_suit_classes(cards, ace_high_counts, card_level):
    value = hands.rank_hand(parse_cards(cards))
    assert _profile_counts(ace_high_counts, value) == card_level(value, ACE_HIGH)


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
