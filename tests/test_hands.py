"""The hand evaluator: exhaustive 5-card counts, 7-card consistency, agreement with phevaluator."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from certify import hands
from certify.cards import CardError, parse_cards
from certify.hands import CATEGORY_NAMES, Category, category_of, rank_batch, rank_hand

# Published counts (references to check against, not inputs): royal flush ... high card.
FIVE_CARD_COUNTS = (4, 36, 624, 3744, 5108, 10200, 54912, 123552, 1098240, 1302540)
SEVEN_CARD_COUNTS = (4324, 37260, 224848, 3473184, 4047644, 6180020, 6461620, 31433400, 58627800, 23294460)


def value(text: str) -> int:
    return rank_hand(parse_cards(text))


def random_hands(n: int, k: int, seed: int) -> np.ndarray:
    """n hands of k distinct cards, uniformly (random keys, smallest k), in chunks to bound memory."""
    rng = np.random.default_rng(seed)
    chunks = []
    for start in range(0, n, 100_000):
        keys = rng.random((min(100_000, n - start), 52))
        chunks.append(np.argpartition(keys, k, axis=1)[:, :k].astype(np.uint8))
    return np.concatenate(chunks)


def flush_rich_hands(n: int, seed: int) -> np.ndarray:
    """7-card hands from a 2-suit, 9-rank corner of the deck: flushes, straights, straight flushes, pairs."""
    corner = np.array([4 * r + s for r in (0, 1, 2, 3, 8, 9, 10, 11, 12) for s in (2, 3)], np.uint8)
    rng = np.random.default_rng(seed)
    picks = np.argpartition(rng.random((n, len(corner))), 7, axis=1)[:, :7]
    return corner[picks]


def best_of_subsets(hands7: np.ndarray) -> np.ndarray:
    """Max over the 21 five-card subsets, each evaluated by the 5-card evaluator."""
    best = np.zeros(len(hands7), np.int32)
    for subset in itertools.combinations(range(7), 5):
        best = np.maximum(best, rank_batch(hands7[:, list(subset)]))
    return best


def assert_same_order(ours: np.ndarray, theirs_smaller_better: np.ndarray) -> None:
    """Ours strictly increases exactly where theirs strictly decreases; equal where equal."""
    order = np.argsort(ours, kind="stable")
    d_ours = np.diff(ours[order].astype(np.int64))
    d_theirs = np.diff(theirs_smaller_better[order].astype(np.int64))
    assert np.array_equal(d_ours > 0, d_theirs < 0)
    assert np.array_equal(d_ours == 0, d_theirs == 0)


# --- the interface ----------------------------------------------------------------------------


def test_categories_and_names():
    assert [int(c) for c in Category] == list(range(10))
    assert CATEGORY_NAMES[Category.HIGH_CARD] == "high card"
    assert CATEGORY_NAMES[Category.TRIPS] == "trips"
    assert CATEGORY_NAMES[Category.ROYAL_FLUSH] == "royal flush"
    assert len(CATEGORY_NAMES) == 10


@pytest.mark.parametrize(
    "text,category",
    [
        ("AS KS QS JS 10S", Category.ROYAL_FLUSH),
        ("KS QS JS 10S 9S", Category.STRAIGHT_FLUSH),
        ("5h 4h 3h 2h Ah", Category.STRAIGHT_FLUSH),
        ("7c 7d 7h 7s 2c", Category.QUADS),
        ("7c 7d 7h 2s 2c", Category.FULL_HOUSE),
        ("Ac 9c 7c 4c 2c", Category.FLUSH),
        ("5c 4d 3h 2s Ac", Category.STRAIGHT),
        ("Ac Kd Qh Js Tc", Category.STRAIGHT),
        ("7c 7d 7h Ks 2c", Category.TRIPS),
        ("7c 7d Kh Ks 2c", Category.TWO_PAIR),
        ("7c 7d Kh Qs 2c", Category.PAIR),
        ("7c 5d Kh Qs 2c", Category.HIGH_CARD),
        ("As Ks Qs Js Ts 2d 2h", Category.ROYAL_FLUSH),
        ("7c 7d 7h 2s 2c 2d Ac", Category.FULL_HOUSE),
        ("Ac Kc 9c 4c 2c Ad Ah", Category.FLUSH),
    ],
)
def test_category_of_known_hands(text, category):
    v = value(text)
    assert category_of(v) == category
    assert v >> 20 == category


def test_hand_class_ends():
    assert hands.hand_class(value("AS KS QS JS 10S")) == 1
    assert hands.hand_class(value("7c 5d 4h 3s 2c")) == 7462
    with pytest.raises(ValueError):
        hands.hand_class(value("7c 5d 4h 3s 2c") - 1)


# --- tie-break rules of seeds/001 (Texas Hold'em Bonus, "Comparing Poker Hands") ---------------


@pytest.mark.parametrize(
    "better,worse",
    [
        ("7c 7d 4h 9s 2c", "4c 4d 7h 9s 2d"),  # a pair of 7s beats a pair of 4s
        ("2c 2d 9h 9s 3c", "7c 7d 8h 8s Ac"),  # two pair: the high pair decides
        ("6c 6d Ah As 2c", "4c 4d Ac Ad Kc"),  # then the low pair
        ("5c 3d 3h 8s 8c", "4c 3c 3s 8d 8h"),  # then the kicker
        ("Kc Kd 8h 8s 8c", "Ac Ad 5h 5s 5c"),  # full house: the trips decide
        ("7c 8d 9h Ts Jc", "6c 7d 8h 9s Tc"),  # straight: the high card decides
        ("7c 8d 9h Ts Jc", "Ac 2d 3h 4s 5c"),  # the wheel is 5-high
        ("Ac 2d 3h 4s 5c", "Ac Ad Ah Ks Qc"),  # but still a straight, above any trips
        ("2c 3d 4h 5s 6c", "Ac 2d 3h 4s 5c"),  # the wheel is the lowest straight
        ("2h 3h 4h 5h 6h", "Ah 2h 3h 4h 5h"),  # and the steel wheel the lowest straight flush
        ("Ah 2h 3h 4h 5h", "Ac Ad Ah As Kc"),  # which still beats quads
        ("As Ks Qs Js Ts", "Ks Qs Js Ts 9s"),  # royal flush above the K-high straight flush
        ("Ac Jc 9c 6c 3c", "Ad Jd 9d 6d 2d"),  # flush: fifth card decides
        ("Ac Ad Kh 9s 4c", "As Ah Qd Jc Tc"),  # pair: first kicker
        ("Ac Ad Kh 9s 4c", "As Ah Kd 9c 3c"),  # pair: last kicker
        ("Ac Kd 9h 7s 3c", "As Kh 9d 7c 2c"),  # high card: fifth card decides
        ("7c 7d 7h As 2c", "7s 7c 7d Ks Qc"),  # trips: kickers decide
        ("Qc Qd Qh Qs 3c", "Jc Jd Jh Js Ac"),  # quads by rank
        ("9c 9d 9h 9s Ac", "9c 9d 9h 9s Kc"),  # then the kicker
    ],
)
def test_five_card_tie_breaks(better, worse):
    assert value(better) > value(worse)


@pytest.mark.parametrize(
    "a,b",
    [
        ("As Ks Qs Js Ts", "Ah Kh Qh Jh Th"),  # suits never break ties
        ("Ac 2d 3h 4s 5c", "Ad 2h 3s 4c 5d"),
        ("7c 7d Kh Qs 2c", "7h 7s Kd Qc 2d"),
    ],
)
def test_equal_hands_tie(a, b):
    assert value(a) == value(b)


@pytest.mark.parametrize(
    "a,b",
    [
        # Board plays: the hole cards are below every board card, a sixth card never decides.
        ("Ac Kd Qh Js 9c 3d 2h", "Ac Kd Qh Js 9c 4d 3h"),
        # Two pair on a paired board: the best kicker plays, the third pair and the rest do not.
        ("Ac Ad Kc Kd Qh 5c 5d", "As Ah Ks Kh Qd 2c 3d"),
        # Quads: one kicker only.
        ("9c 9d 9h 9s Ac Kd Qh", "9c 9d 9h 9s Ah 2d 3h"),
        # Flush: only the top five of six suited cards.
        ("Ah Kh 9h 7h 5h 3h 2c", "Ah Kh 9h 7h 5h 2h 3c"),
        # Straight: a six-card run plays its top five.
        ("9c 8d 7h 6s 5c 4d Kh", "9d 8h 7s 6c 5d 2c Kd"),
    ],
)
def test_sixth_card_never_decides(a, b):
    assert value(a) == value(b)


def test_seven_card_kickers_decide():
    assert value("Ac Ad Kh 9s 4c 3d 2h") > value("As Ah Qd 9c 4d 3h 2c")
    assert value("Ac Ad Kh Ks Qc 5d 2h") > value("As Ah Kd Kc Jc 5h 2c")
    assert value("5c 4d 3h 2s Ac Ad Ah") == value("5d 4h 3s 2c Ad Kc Qc")  # a straight beats trips


# --- every 5-card hand --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def five_card_hands():
    return hands.all_five_card_hands()


@pytest.fixture(scope="module")
def five_card_values(five_card_hands):
    return rank_batch(five_card_hands)


def test_every_five_card_hand_category_counts(five_card_hands, five_card_values):
    assert len(five_card_hands) == 2_598_960
    assert len({tuple(r) for r in five_card_hands[::997]}) == len(five_card_hands[::997])
    counts = np.bincount(five_card_values >> 20, minlength=10)
    assert tuple(int(c) for c in counts[::-1]) == FIVE_CARD_COUNTS


def test_exactly_7462_distinct_values(five_card_values):
    assert len(np.unique(five_card_values)) == 7462
    assert np.array_equal(np.unique(five_card_values), hands.CLASS_VALUES)


def test_every_five_card_class_matches_phevaluator_class(five_card_hands, five_card_values):
    """One hand of each of the 7,462 classes, plus 100,000 more at random: phevaluator's class number
    (1, royal, .. 7462) for each. Every table entry the evaluator reads is reached (a class is one
    rank multiset, or one flush rank mask); the suits are covered over every hand by the category
    counts above. The slow tier compares all 2,598,960 hands."""
    from phevaluator.evaluator import _pheval

    _, first = np.unique(five_card_values, return_index=True)
    pick = np.concatenate([first, np.random.default_rng(11).choice(len(five_card_hands), 100_000, replace=False)])
    theirs = np.fromiter((_pheval.evaluate_5cards(*row) for row in five_card_hands[pick].tolist()), np.int32)
    ours = len(hands.CLASS_VALUES) - np.searchsorted(hands.CLASS_VALUES, five_card_values[pick])
    assert len(first) == 7462 and np.array_equal(ours, theirs)


@pytest.mark.slow
def test_every_five_card_hand_matches_phevaluator_class(five_card_hands, five_card_values):
    """phevaluator numbers the 7,462 classes 1 (royal) .. 7462: ours must give the same number."""
    from phevaluator.evaluator import _pheval

    theirs = np.fromiter((_pheval.evaluate_5cards(*row) for row in five_card_hands.tolist()), np.int32)
    ours = len(hands.CLASS_VALUES) - np.searchsorted(hands.CLASS_VALUES, five_card_values)
    assert np.array_equal(ours, theirs)


def test_scalar_equals_batch_and_permutations(five_card_hands, five_card_values):
    rng = np.random.default_rng(5)
    for i in rng.integers(0, len(five_card_hands), 300):
        cards = [int(c) for c in five_card_hands[i]]
        assert rank_hand(cards) == five_card_values[i]
        assert rank_hand(list(rng.permutation(cards))) == five_card_values[i]


# --- 7 cards -----------------------------------------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=7, max_size=7, unique=True))
def test_seven_is_max_over_21_subsets(cards):
    assert rank_hand(cards) == max(rank_hand(list(five)) for five in itertools.combinations(cards, 5))


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from([4 * r + s for r in (0, 1, 2, 3, 8, 9, 10, 11, 12) for s in (1, 3)]),
                min_size=7, max_size=7, unique=True))
def test_seven_is_max_over_21_subsets_dense(cards):
    """Cards from two suits and nine ranks: many flushes, straights, wheels and paired boards."""
    assert rank_hand(cards) == max(rank_hand(list(five)) for five in itertools.combinations(cards, 5))


@pytest.mark.parametrize("make", [lambda: random_hands(200_000, 7, 11), lambda: flush_rich_hands(200_000, 12)])
def test_batch_seven_is_max_over_subsets(make):
    hands7 = make()
    assert np.array_equal(rank_batch(hands7), best_of_subsets(hands7))


def test_flush_rich_sample_covers_the_rare_categories():
    counts = np.bincount(rank_batch(flush_rich_hands(200_000, 12)) >> 20, minlength=10)
    assert counts[Category.STRAIGHT_FLUSH] > 100 and counts[Category.ROYAL_FLUSH] > 100
    assert counts[Category.FLUSH] > 1000 and counts[Category.STRAIGHT] > 1000  # two suits: no trips


@pytest.mark.parametrize("n", [100_000, pytest.param(1_000_000, marks=pytest.mark.slow)])
def test_agrees_with_phevaluator_order_for_order_on_random_hands(n):
    from phevaluator.evaluator import _pheval

    hands7 = random_hands(n, 7, 2024)
    ours = rank_batch(hands7)
    theirs = np.fromiter((_pheval.evaluate_7cards(*row) for row in hands7.tolist()), np.int32, len(hands7))
    assert_same_order(ours, theirs)
    # The order check also holds between the 5- and 7-card scales: same class numbers.
    assert np.array_equal(len(hands.CLASS_VALUES) - np.searchsorted(hands.CLASS_VALUES, ours), theirs)


def test_agrees_with_phevaluator_on_flush_rich_hands():
    from phevaluator.evaluator import _pheval

    hands7 = flush_rich_hands(100_000, 13)
    ours = rank_batch(hands7)
    theirs = np.fromiter((_pheval.evaluate_7cards(*row) for row in hands7.tolist()), np.int32, len(hands7))
    assert_same_order(ours, theirs)


def test_order_check_catches_a_wrong_evaluator():
    """Negative control: swapping two adjacent classes must fail the order comparison."""
    from phevaluator.evaluator import _pheval

    hands7 = random_hands(20_000, 7, 3)
    ours = rank_batch(hands7).astype(np.int64)
    theirs = np.fromiter((_pheval.evaluate_7cards(*row) for row in hands7.tolist()), np.int32, len(hands7))
    pair_aces = ours >> 20 == Category.PAIR
    broken = np.where(pair_aces & ((ours >> 16) & 15 == 12), ours - (3 << 16), ours)  # aces below jacks
    with pytest.raises(AssertionError):
        assert_same_order(broken, theirs)


# --- numba interop and input handling ------------------------------------------------------------


@njit
def _count_flushes_in_kernel(hands7):
    n = 0
    for i in range(hands7.shape[0]):
        r = hands.eval7_nb(hands7[i, 0], hands7[i, 1], hands7[i, 2], hands7[i, 3], hands7[i, 4], hands7[i, 5], hands7[i, 6])
        f = hands.eval5_nb(hands7[i, 0], hands7[i, 1], hands7[i, 2], hands7[i, 3], hands7[i, 4])
        if (r >> 20) == 5 and f <= r:
            n += 1
    return n


def test_evaluators_callable_from_other_numba_kernels():
    hands7 = random_hands(50_000, 7, 9)
    values = rank_batch(hands7)
    assert _count_flushes_in_kernel(hands7) == int(np.sum(values >> 20 == Category.FLUSH))


@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.int64])
def test_batch_accepts_integer_dtypes(dtype):
    hands7 = random_hands(1000, 7, 4)
    expected = rank_batch(hands7)
    got = rank_batch(hands7.astype(dtype))
    assert got.dtype == np.int32 and np.array_equal(got, expected)
    assert np.array_equal(rank_batch(np.asfortranarray(hands7.astype(dtype))), expected)


def test_batch_parallel(five_card_hands, five_card_values):
    assert np.array_equal(rank_batch(five_card_hands, parallel=True), five_card_values)
    hands7 = random_hands(100_000, 7, 6)
    assert np.array_equal(rank_batch(hands7, parallel=True), rank_batch(hands7))


def test_batch_empty():
    assert rank_batch(np.zeros((0, 7), np.uint8)).shape == (0,)


@pytest.mark.parametrize(
    "arr,match",
    [
        (np.zeros((3, 6), np.uint8), r"\(N, 5\) or \(N, 7\)"),
        (np.zeros(7, np.uint8), r"\(N, 5\) or \(N, 7\)"),
        (np.array([[0, 1, 2, 3, 52]]), "0..51"),
        (np.array([[0, 1, 2, 3, -1]]), "0..51"),
        (np.zeros((2, 5), np.float64), "integer"),
    ],
)
def test_batch_rejects_bad_input(arr, match):
    with pytest.raises(CardError, match=match):
        rank_batch(arr)


@pytest.mark.parametrize(
    "cards,match",
    [([0, 1, 2, 3], "expected 5 or 7 cards, got 4"), ([0, 1, 2, 3, 4, 5], "got 6"),
     ([0, 1, 2, 3, 52], "52 is outside"), ([0, 1, 2, 3, 3], "duplicate card code 3")],
)
def test_rank_hand_rejects_bad_input(cards, match):
    with pytest.raises(CardError, match=match):
        rank_hand(cards)


# --- best five ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "seven,five",
    [
        ("2d 3c As Ks Qs Js Ts", "As Ks Qs Js Ts"),
        ("Ac Kd 9h 5s 4c 3d 2h", "5s 4c 3d 2h Ac"),  # the wheel reads 5-high
        ("7c 7d 7h 2s 2c 2d Ac", "7h 7d 7c 2s 2c"),
        ("Kh 9h 6c 6h 4h 3d 2h", "Kh 9h 6h 4h 2h"),
        ("Qc Qd 9h 9s 4c 4d Ac", "Qd Qc 9s 9h Ac"),
    ],
)
def test_best_five(seven, five):
    from certify.cards import cards_str

    cards = parse_cards(seven)
    best = hands.best_five(cards)
    assert cards_str(best) == cards_str(parse_cards(five))
    assert rank_hand(best) == rank_hand(cards)


def test_best_five_reaches_the_seven_card_value():
    for row in random_hands(300, 7, 8):
        cards = [int(c) for c in row]
        best = hands.best_five(cards)
        assert set(best) <= set(cards) and rank_hand(best) == rank_hand(cards)


# --- every 7-card hand (slow) -------------------------------------------------------------------


@pytest.mark.slow
def test_every_seven_card_hand_category_counts():
    counts = hands.seven_card_category_counts()
    assert int(counts.sum()) == 133_784_560
    assert tuple(int(c) for c in counts[::-1]) == SEVEN_CARD_COUNTS


def test_best_of_six_is_the_max_over_the_six_fives():
    import itertools
    import random

    from certify.hands import best6_nb, rank_hand

    rng = random.Random(6)
    for _ in range(2000):
        six = rng.sample(range(52), 6)
        assert best6_nb(*six) == max(rank_hand(list(five)) for five in itertools.combinations(six, 5))
