"""Theoretical frequency sets: what a fair deal of a fair deck must produce.

* dealt 5-card hand categories, by enumeration with the evaluator (all 2,598,960 hands) and,
  independently, by closed-form combinatorics;
* best-of-7 categories, by enumeration with the evaluator (all 133,784,560 seven-card hands);
* the probability that a dealer's five cards meet a qualifying ``HandThreshold``;
* the outcome categories of each game: the cells of its PAR sheet's return table.

Hand *values* come from ``certify.hands``; ``threshold_value`` turns a spec's ``HandThreshold``
("Ace-King or better") into the smallest value meeting it, so the rest of the analysis compares
integers.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Any

import numpy as np

from certify import hands
from certify.analysis.par import ParError, Number

FIVE_CARD_HANDS = comb(52, 5)
SEVEN_CARD_HANDS = comb(52, 7)

@lru_cache(maxsize=1)
def class_values() -> np.ndarray:
    """The 7,462 distinct 5-card hand values, ascending (int64)."""
    values = np.unique(hands.rank_batch(hands.all_five_card_hands()))
    return values.astype(np.int64)


def threshold_value(threshold: Any) -> int:
    """The smallest 5-card hand value meeting a spec ``HandThreshold``.

    Refuses a threshold that is not an upper set of the hand order (every hand above a qualifying
    hand must qualify too), which would make "X or better" meaningless. Kept per threshold content
    (a spec's thresholds are asked for several times, each a pass over the 7,462 values).
    """
    dump = getattr(threshold, "model_dump_json", None)
    if dump is None:
        return _threshold_value(threshold)
    key = (type(threshold).__qualname__, dump())
    if key not in _THRESHOLDS:
        _THRESHOLDS[key] = _threshold_value(threshold)
    return _THRESHOLDS[key]


_THRESHOLDS: dict[tuple[str, str], int] = {}


def _threshold_value(threshold: Any) -> int:
    values = class_values()
    met = np.array([threshold.met_by(int(v)) for v in values])
    if not met.any():
        raise ParError(f"no hand meets the threshold {threshold}")
    first = int(np.argmax(met))
    if not met[first:].all():
        raise ParError(f"the threshold {threshold} is not 'this hand or better'")
    return int(values[first])


@lru_cache(maxsize=1)
def _five_card_values() -> np.ndarray:
    return hands.rank_batch(hands.all_five_card_hands())


def five_card_category_counts() -> dict[hands.Category, int]:
    """Dealt 5-card categories by enumeration with the evaluator; the counts add up to C(52, 5)."""
    counts = np.bincount(_five_card_values() >> hands.CATEGORY_SHIFT, minlength=len(hands.Category))
    return {hands.Category(i): int(n) for i, n in enumerate(counts)}


def five_card_category_counts_combinatorial() -> dict[hands.Category, int]:
    """Dealt 5-card categories by closed-form counting (an independent check of the evaluator)."""
    C = hands.Category
    straights_by_rank = 10 * 4**5          # 10 top cards (wheel to ace-high), any suits
    flush_by_suit = 4 * comb(13, 5)
    straight_flush_any = 10 * 4            # including the 4 royals
    counts = {
        C.ROYAL_FLUSH: 4,
        C.STRAIGHT_FLUSH: straight_flush_any - 4,
        C.QUADS: 13 * 48,
        C.FULL_HOUSE: 13 * comb(4, 3) * 12 * comb(4, 2),
        C.FLUSH: flush_by_suit - straight_flush_any,
        C.STRAIGHT: straights_by_rank - straight_flush_any,
        C.TRIPS: 13 * comb(4, 3) * comb(12, 2) * 4**2,
        C.TWO_PAIR: comb(13, 2) * comb(4, 2) ** 2 * 11 * 4,
        C.PAIR: 13 * comb(4, 2) * comb(12, 3) * 4**3,
    }
    counts[C.HIGH_CARD] = (comb(13, 5) - 10) * (4**5 - 4)  # distinct ranks, no straight, no flush
    return dict(sorted(counts.items()))


@lru_cache(maxsize=1)
def seven_card_category_counts() -> dict[hands.Category, int]:
    """Best-of-7 categories by enumeration of all C(52, 7) hands; the counts add up to 133,784,560."""
    counts = hands.seven_card_category_counts()
    return {hands.Category(i): int(n) for i, n in enumerate(counts)}


def category_probabilities(counts: dict[hands.Category, int]) -> list[tuple[str, Fraction]]:
    total = sum(counts.values())
    return [(hands.CATEGORY_NAMES[c], Fraction(n, total)) for c, n in counts.items()]


def hands_meeting(threshold: Any) -> int:
    """How many of the 2,598,960 five-card hands meet a ``HandThreshold``."""
    return int(np.count_nonzero(_five_card_values() >= threshold_value(threshold)))


def dealer_qualification_probability(threshold: Any) -> Fraction:
    """Probability that a dealer's five cards (a uniformly random 5-card hand) meet ``threshold``."""
    return Fraction(hands_meeting(threshold), FIVE_CARD_HANDS)


def game_outcome_categories(spec: Any, wager: str | None = None) -> list[tuple[str, Number]]:
    """The outcome cells of a game (its PAR sheet's return table events and exact probabilities)."""
    from certify.analysis import par_sheet

    return par_sheet(spec).outcome_categories(wager)


def frequency_sets(spec: Any) -> dict[str, Any]:
    """The JSON-able frequency sets the simulation tests of ``spec`` compare against."""
    sets: dict[str, Any] = {
        "five_card_categories": {hands.CATEGORY_NAMES[c]: n for c, n in five_card_category_counts().items()},
    }
    dealer = getattr(spec, "dealer", None)
    for key, field in (("dealer_qualifies", "qualifies"), ("dealer_stands", "stands_on")):
        threshold = getattr(dealer, field, None)
        if threshold is not None:  # on the dealer's first five cards
            p = dealer_qualification_probability(threshold)
            sets[key] = {"hands": hands_meeting(threshold), "of": FIVE_CARD_HANDS,
                         "probability": float(p), "probability_exact": str(p)}
    return sets
