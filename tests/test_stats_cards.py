"""Card and shuffle tests: exact reference distributions, behaviour on a fair source, input checks."""

from itertools import combinations, permutations as all_orders
from math import comb, factorial

import numpy as np
import pytest
from scipy import stats

from certify.stats import cards


def fair_deals(n, k=52, seed=11):
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((n, 52)), axis=1)[:, :k].astype(np.uint8)


# ----- exact reference distributions, checked by brute force on small decks -------------------

@pytest.mark.parametrize("n", [3, 4, 5, 6, 7])
def test_eulerian_counts_by_enumeration(n):
    counts = [0] * n
    for p in all_orders(range(n)):
        counts[sum(p[i] > p[i + 1] for i in range(n - 1))] += 1
    assert cards.eulerian_counts(n) == counts


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7])
def test_alternating_run_counts_by_enumeration(n):
    counts = [0] * n
    for p in all_orders(range(n)):
        up = [p[i + 1] > p[i] for i in range(n - 1)]
        counts[1 + sum(up[i] != up[i + 1] for i in range(n - 2))] += 1
    assert cards.alternating_run_counts(n) == counts


def test_collector_distribution_by_enumeration_on_a_small_deck():
    # 3 groups of 2 cards (6 cards), 5 dealt: enumerate all 720 orders
    groups, per = 3, 2
    tally = [0] * 7
    for p in all_orders(range(groups * per)):
        seen, t = set(), None
        for i, c in enumerate(p[:5]):
            seen.add(c // per)
            if len(seen) == groups:
                t = i + 1
                break
        tally[t if t is not None else 6] += 1
    expected = cards.collector_distribution(groups, per, 5)
    assert [x * 720 for x in expected] == tally


def test_collector_distribution_full_deck_sums_to_one():
    ranks = cards.collector_distribution(13, 4, 52)
    # at least 13 cards, at most 49 (after 48 cards one rank may still be missing)
    assert sum(ranks) == 1 and ranks[-1] == 0 and sum(ranks[:13]) == 0 and ranks[13] > 0
    assert ranks[49] > 0 and sum(ranks[50:]) == 0


def test_poker_category_counts_match_a_full_enumeration():
    from certify.hands import rank_batch

    hands = np.array(list(combinations(range(52), 5)), dtype=np.int32)
    histogram = np.bincount(rank_batch(hands) >> 20, minlength=10)
    assert histogram.tolist() == cards.poker_category_counts()
    assert sum(cards.poker_category_counts()) == comb(52, 5)


def test_permutation_index_is_a_bijection():
    rows = np.array(list(all_orders(range(5))))
    codes = cards.permutation_index(rows)
    assert sorted(codes.tolist()) == list(range(factorial(5)))
    assert cards.permutation_index(np.array([[10, 20, 30, 40], [40, 30, 20, 10]])).tolist() == [0, 23]


def test_position_table_reduces_to_plain_pearson_for_one_position():
    deals = fair_deals(5_000, k=1)
    mine = cards.card_position(deals)
    plain = stats.chisquare(np.bincount(deals[:, 0], minlength=52))
    assert mine.statistic == pytest.approx(plain.statistic) and mine.dof == 51


# ----- a fair source passes, with a fixed seed ---------------------------------------------------

ALL_TESTS = [cards.card_position, cards.suit_by_position, cards.rank_by_position, cards.adjacent_pairs,
             cards.runs, cards.gaps, cards.coupon_collector, cards.poker, cards.serial_independence,
             cards.repeated_deals]


@pytest.fixture(scope="module")
def fair():
    return fair_deals(20_000, seed=12)


@pytest.mark.parametrize("test", ALL_TESTS, ids=lambda f: f.__name__)
def test_fair_deals_pass(fair, test):
    result = test(fair)
    assert result.applicable and result.passed, result
    assert 0 <= result.pvalue <= 1 and result.n in (len(fair), len(fair) - 1)  # serial: pairs of deals


def test_fair_small_decks_pass():
    rng = np.random.default_rng(5)
    for m in (4, 5):
        result = cards.permutations(np.argsort(rng.random((30_000, m)), axis=1), deck_size=m)
        assert result.passed and result.dof == factorial(m) - 1


def test_serial_independence_on_partial_deals_uses_top_card_pairs():
    fair = cards.serial_independence(fair_deals(30_000, k=5, seed=4))
    assert fair.passed and "top cards of deals 2i and 2i+1" in fair.looked_at and fair.dof == 52 * 52 - 1
    repeated = np.repeat(fair_deals(15_000, k=5, seed=5), 2, axis=0)  # every deal dealt twice
    assert cards.serial_independence(repeated).pvalue < 1e-100


def test_partial_deals_use_the_column_sum_part():
    result = cards.card_position(fair_deals(20_000, k=7))
    assert result.passed and result.dof == 7 * 51


# ----- the corrected statistics really are chi-square under H0 ----------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("test,k", [(cards.card_position, 52), (cards.card_position, 9), (cards.suit_by_position, 52),
                                    (cards.rank_by_position, 20), (cards.serial_independence, 52), (cards.runs, 52),
                                    (cards.gaps, 52), (cards.coupon_collector, 52), (cards.coupon_collector, 30),
                                    (cards.poker, 5)])
def test_null_distribution_is_uniform(test, k):
    pvalues = [test(fair_deals(2_000, k, seed=1000 + i)).pvalues[0] for i in range(300)]
    assert stats.kstest(pvalues, "uniform").pvalue > 1e-3


# ----- input checks ---------------------------------------------------------------------------

def test_repeated_card_in_a_deal_is_named():
    deals = fair_deals(10)
    deals[3, 5] = deals[3, 6]
    with pytest.raises(ValueError, match="deal 3 repeats a card"):
        cards.card_position(deals)


def test_card_out_of_range_is_named():
    deals = fair_deals(10).astype(np.int64)
    deals[2, 0] = 52
    with pytest.raises(ValueError, match="deal 2 has a card outside 0..51"):
        cards.runs(deals)


def test_too_few_deals_is_not_applicable():
    result = cards.adjacent_pairs(fair_deals(100))
    assert not result.applicable and result.verdict == "not applicable"
