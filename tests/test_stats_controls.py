"""Negative controls and the certified DRBG on the card and shuffle battery, at the default size.

Every card test must catch at least one known-bad source with a p-value far below alpha (no luck:
the margins are many orders of magnitude at the fixed seeds), and our DRBG must pass every test.
The size is the `quick` profile's, the smallest any profile uses.
"""

import functools

import numpy as np
import pytest

from certify.stats import battery, cards
from rng import sources, streams

DEALS = battery.PROFILES["quick"].decks
SMALL = battery.PROFILES["quick"].small_decks
CAUGHT = 1e-6  # a negative control must be caught far below alpha = 0.01

BAD_SOURCES = {
    "naive shuffle": lambda: sources.NaiveShuffle(streams.stream(2026, 2)),
    "modulo-biased deal": lambda: sources.ModuloBiasedDeal(streams.stream(2026, 1), word_bits=8),
    "RANDU": lambda: sources.Randu(12345),
    "weak LCG": lambda: sources.WeakLcg(7),
    "stuck top bit": lambda: sources.StuckBit(streams.stream(2026, 3), bit=31, value=1),
    # a server seeding each shuffle from a seconds clock while dealing 50 hands a second
    "seconds-clock seeded shuffle": lambda: sources.ClockSeededShuffle(
        clock_values=1_700_000_000 + np.arange(DEALS) // 50),
}

# each card test and the known-bad sources it must catch
CATCHES = {
    "CardPosition": ["naive shuffle", "modulo-biased deal", "RANDU"],
    "SuitByPosition": ["naive shuffle", "RANDU"],
    "RankByPosition": ["naive shuffle", "modulo-biased deal"],
    "AdjacentPairs": ["naive shuffle", "modulo-biased deal"],
    "Runs": ["naive shuffle", "weak LCG"],
    "Gaps": ["modulo-biased deal", "weak LCG"],
    "CouponCollector": ["naive shuffle", "weak LCG"],
    "Poker": ["naive shuffle", "weak LCG"],
    "SerialIndependence": ["weak LCG", "seconds-clock seeded shuffle"],
    "RepeatedDeals": ["weak LCG", "seconds-clock seeded shuffle"],
    "Permutations4": ["naive shuffle", "RANDU", "stuck top bit"],
    "Permutations5": ["naive shuffle", "RANDU", "stuck top bit"],
}
TESTS = dict(battery.CARD_TESTS)


@functools.lru_cache(maxsize=None)
def deals_of(source_name, size=52):
    source = BAD_SOURCES[source_name]()
    if size == 52:
        return source.deal_batch(DEALS, 52, 52)
    return source.deal_batch(SMALL, size, size)


def run_test(test_name, deals_for):
    if test_name.startswith("Permutations"):
        size = int(test_name[-1])
        return cards.permutations(deals_for(size), deck_size=size)
    return TESTS[test_name](deals_for(52))


def test_every_card_test_has_a_negative_control():
    assert set(CATCHES) == set(TESTS) | {"Permutations4", "Permutations5"}


@pytest.mark.parametrize("test_name,source_name",
                         [(t, s) for t, names in CATCHES.items() for s in names])
def test_card_test_catches_bad_source(test_name, source_name):
    result = run_test(test_name, lambda size: deals_of(source_name, size))
    assert result.applicable and not result.passed
    assert result.pvalue < CAUGHT, f"{test_name} on {source_name}: p = {result.pvalue}"


@pytest.fixture(scope="module")
def drbg_deals():
    source = streams.stream(2026, 0)
    return {52: source.deal_batch(DEALS), 4: source.deal_batch(SMALL, 4, 4), 5: source.deal_batch(SMALL, 5, 5)}


@pytest.mark.parametrize("test_name", list(CATCHES))
def test_certified_drbg_passes(test_name, drbg_deals):
    result = run_test(test_name, drbg_deals.__getitem__)
    assert result.applicable and result.passed, result


@pytest.mark.slow
def test_uniform_32_bit_clock_seeded_shuffle_repeats_deals():
    # 2^32 possible decks: 400,000 deals expect C(400000, 2) / 2^32 = 18.6 repeated pairs (fair: 1e-57)
    result = cards.repeated_deals(sources.ClockSeededShuffle(5).deal_batch(400_000))
    assert result.statistic >= 5 and result.pvalue < CAUGHT
