"""Theoretical frequency sets: dealt 5-card and 7-card categories, dealer qualification."""

from fractions import Fraction
from math import comb

from certify import hands
from certify.analysis import frequencies
from certify.cards import parse_cards
from certify.spec import load_spec

# Published best-five-of-seven category counts (e.g. Wikipedia, "Poker probability", 7-card table).
PUBLISHED_SEVEN_CARD = {
    "royal flush": 4_324, "straight flush": 37_260, "quads": 224_848, "full house": 3_473_184,
    "flush": 4_047_644, "straight": 6_180_020, "trips": 6_461_620, "two pair": 31_433_400,
    "pair": 58_627_800, "high card": 23_294_460,
}


def test_five_card_categories_by_evaluator_equal_the_closed_forms():
    enumerated = frequencies.five_card_category_counts()
    assert enumerated == frequencies.five_card_category_counts_combinatorial()
    assert sum(enumerated.values()) == comb(52, 5)


def test_seven_card_categories_by_enumeration():
    counts = frequencies.seven_card_category_counts()
    assert sum(counts.values()) == comb(52, 7)
    assert {hands.CATEGORY_NAMES[c]: n for c, n in counts.items()} == PUBLISHED_SEVEN_CARD
    probabilities = frequencies.category_probabilities(counts)
    assert sum(p for _, p in probabilities) == 1


def test_dealer_ace_king_qualification_probability():
    spec = load_spec("caribbean_stud")
    # pair or better, plus no-pair hands topped by A-K that are neither straight nor flush
    pair_or_better = comb(52, 5) - frequencies.five_card_category_counts_combinatorial()[hands.Category.HIGH_CARD]
    ace_king_high = (comb(11, 3) - 1) * (4**5 - 4)  # A-K-Q-J-10 is a straight
    p = frequencies.dealer_qualification_probability(spec.dealer.qualifies)
    assert p == Fraction(pair_or_better + ace_king_high, comb(52, 5))
    sets = frequencies.frequency_sets(spec)
    assert sets["dealer_qualifies"]["hands"] == pair_or_better + ace_king_high


def test_threshold_value_is_the_weakest_qualifying_hand():
    spec = load_spec("caribbean_stud")
    ak432 = hands.rank_hand(parse_cards("As Kh 4c 3d 2c"))
    assert frequencies.threshold_value(spec.dealer.qualifies) == ak432
    bet_at_least = spec.strategy.decisions["bet_or_fold"][0].at_least
    assert frequencies.threshold_value(bet_at_least) == hands.rank_hand(parse_cards("As Kh Jc 8c 3c"))
