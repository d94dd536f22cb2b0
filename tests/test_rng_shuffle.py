"""Fisher-Yates: exhaustive proofs on small decks, the batched kernel against the reference."""

import itertools
import math

import numpy as np
import pytest

from rng.drbg import CtrDrbg
from rng.shuffle import deal_batch, deal_words, draw_plan, fisher_yates, permutation, shuffle


def test_every_draw_sequence_gives_each_of_the_120_orders_once():
    orders = [tuple(fisher_yates(range(5), draws))
              for draws in itertools.product(range(5), range(4), range(3), range(2))]
    assert len(orders) == 120 and len(set(orders)) == 120


def test_naive_swap_with_any_position_is_not_uniform_negative_control():
    """The broken shuffle: 3^3 = 27 equally likely paths cannot cover 6 orders evenly."""
    counts = {}
    for draws in itertools.product(range(3), repeat=3):
        cards = [0, 1, 2]
        for i, j in enumerate(draws):
            cards[i], cards[j] = cards[j], cards[i]
        counts[tuple(cards)] = counts.get(tuple(cards), 0) + 1
    assert len(counts) == 6 and max(counts.values()) != min(counts.values())


def test_kernel_exhaustive_16_bit_words_five_card_deck():
    """Every 16-bit word once: the kernel deals each of the 120 orders exactly 546 times."""
    plan = draw_plan(5, 5, word_bits=16)
    assert len(plan.group_ends) == 1  # 5*4*3*2 = 120 fits one word
    decks, used = deal_words(np.arange(2**16), 2**16, 5, 5, word_bits=16)
    assert used == 2**16 and len(decks) == 2**16 - 2**16 % 120
    orders, counts = np.unique(decks, axis=0, return_counts=True)
    assert len(orders) == 120 and (counts == 2**16 // 120).all()


def test_kernel_exhaustive_16_bit_words_first_two_of_52():
    plan = draw_plan(52, 2, word_bits=16)
    assert len(plan.group_ends) == 1
    decks, used = deal_words(np.arange(2**16), 2**16, 2, 52, word_bits=16)
    pairs, counts = np.unique(decks, axis=0, return_counts=True)
    assert len(pairs) == 52 * 51 and (counts == 2**16 // (52 * 51)).all()


def test_kernel_matches_the_reference_on_its_own_draws():
    """Decode the words by hand (batched ranges, Lemire rejection) and run the reference."""
    words = CtrDrbg(bytes(32), bytes(16)).random_uint32(400)
    plan = draw_plan(52, 52)
    decks, used = deal_words(words, 20, 52, 52)
    pos, start = 0, 0
    for deck in decks:
        draws = []
        for end, product in zip(plan.group_ends, plan.products):
            ranges = [int(r) for r in plan.ranges[start:end]]
            while True:
                x = int(words[pos])
                pos += 1
                if x * int(product) % 2**32 >= 2**32 % int(product):
                    break
            for r in ranges:
                draws.append(x * r >> 32)
                x = x * r % 2**32
            start = end
        start = 0
        assert list(deck) == fisher_yates(range(52), draws)
    assert pos == used


def test_draw_plan_groups_fit_a_word():
    plan = draw_plan(52, 52)
    start = 0
    for end, product in zip(plan.group_ends, plan.products):
        assert math.prod(int(r) for r in plan.ranges[start:end]) == int(product) <= 2**32
        start = end
    assert len(plan.ranges) == 51 and plan.expected_words < 9
    assert len(draw_plan(52, 7).ranges) == 7 and draw_plan(52, 7).expected_words < 2.1


@pytest.mark.parametrize("k", [52, 7, 1])
def test_deal_batch_gives_valid_distinct_cards_and_is_deterministic(k):
    a = deal_batch(CtrDrbg(bytes(32), bytes(16)), 5000, k)
    b = deal_batch(CtrDrbg(bytes(32), bytes(16)), 5000, k)
    assert a.shape == (5000, k) and a.dtype == np.uint8
    assert (a == b).all()
    assert all(len(set(row)) == k for row in a[:500]) and a.max() < 52


def test_partial_deal_is_the_prefix_of_the_full_shuffle_draws():
    """k cards cost k draws: the first group words give the same first cards."""
    full = deal_words(CtrDrbg(bytes(32), bytes(16)).random_uint32(20), 1, 52, 52)[0][0]
    part = deal_words(CtrDrbg(bytes(32), bytes(16)).random_uint32(20), 1, 4, 52)[0][0]
    assert list(part) == list(full[:4])  # 52*51*50*49 is the first group of both plans


class WordStream:
    """A source whose words do not depend on how they are requested (unlike a DRBG, where
    each request updates the state)."""

    def __init__(self, words):
        self.words, self.pos = words, 0

    def random_uint32(self, n):
        self.pos += n
        return self.words[self.pos - n:self.pos]


def test_buffer_boundaries_do_not_change_the_decks(monkeypatch):
    import rng.shuffle as module
    words = CtrDrbg(bytes(32), bytes(16)).random_uint32(60_000)
    reference = deal_batch(WordStream(words), 3000, 52)
    monkeypatch.setattr(module, "BUFFER_WORDS", 37)  # forces many mid-deck refills
    small = deal_batch(WordStream(words), 3000, 52)
    assert (small == reference).all()
    assert (reference == deal_words(words, 3000, 52, 52)[0]).all()


def test_card_by_position_uniform_fixed_seed():
    from scipy.stats import chisquare
    decks = deal_batch(CtrDrbg(bytes(32), bytes(16), b"position"), 52_000, 52)
    for position in (0, 25, 51):
        assert chisquare(np.bincount(decks[:, position], minlength=52)).pvalue > 1e-4


def test_shuffle_in_place_agrees_with_deal_batch():
    cards = list(range(52))
    shuffle(CtrDrbg(bytes(32), bytes(16)), cards)
    assert cards == list(deal_batch(CtrDrbg(bytes(32), bytes(16)), 1)[0])
    names = ["a", "b", "c"]
    shuffle(CtrDrbg(bytes(32), bytes(16)), names)
    assert sorted(names) == ["a", "b", "c"]


def test_permutation_of_a_large_range():
    p = permutation(CtrDrbg(bytes(32), bytes(16)), 100_000)
    assert sorted(p.tolist()) == list(range(100_000))


def test_bad_arguments():
    with pytest.raises(ValueError):
        deal_batch(CtrDrbg(bytes(32), bytes(16)), 10, k=53)
    with pytest.raises(ValueError):
        deal_batch(CtrDrbg(bytes(32), bytes(16)), -1)
