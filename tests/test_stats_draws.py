"""Draw tests on scaled integers: exact references, the certified DRBG, negative controls."""

import numpy as np
import pytest
from scipy import stats

from certify.stats import battery, draws
from rng import bounded, sources, streams

N = battery.PROFILES["quick"].draws
CAUGHT = 1e-6


@pytest.fixture(scope="module")
def drbg_draws():
    return bounded.integers(streams.stream(2026, 30), 52, N)


@pytest.mark.parametrize("name,test", draws.DRAW_TESTS)
def test_certified_drbg_passes(name, test, drbg_draws):
    result = test(drbg_draws, 0, 51)
    assert result.applicable and result.passed and result.n == N, result


BAD = {
    "modulo-biased scaling (8-bit words)": lambda: sources.ModuloBiasedDeal(streams.stream(2026, 1), 8).integers(52, N),
    "weak LCG": lambda: bounded.integers(sources.WeakLcg(7), 52, N),
    "RANDU": lambda: bounded.integers(sources.Randu(12345), 52, N),
}
CATCHES = {"DrawFrequency": ["modulo-biased scaling (8-bit words)", "weak LCG", "RANDU"],
           "DrawPairs": ["modulo-biased scaling (8-bit words)", "weak LCG", "RANDU"],
           "DrawGaps": ["modulo-biased scaling (8-bit words)", "weak LCG"]}


@pytest.mark.parametrize("test_name,source", [(t, s) for t, names in CATCHES.items() for s in names])
def test_negative_controls_are_caught(test_name, source):
    result = dict(draws.DRAW_TESTS)[test_name](BAD[source](), 0, 51)
    assert not result.passed and result.pvalue < CAUGHT, result


def test_pair_classes_have_exact_probabilities_when_the_range_does_not_divide():
    # span 52 in 7 classes: sizes 8,7,8,7,8,7,7 (floor(v * 7 / 52)); a fair source must pass
    values = np.random.default_rng(3).integers(0, 52, 490)  # 245 pairs: sqrt(245 / 5) = 7 classes
    result = draws.draw_pairs(values, 0, 51)
    assert "7 classes" in result.looked_at and result.passed
    sizes = np.bincount((np.arange(52) * 7) // 52)
    assert sizes.tolist() == [8, 7, 8, 7, 8, 7, 7]


def test_pairs_catch_a_repeating_pattern_that_frequency_cannot():
    values = np.tile(np.arange(52), 2_000)  # perfectly flat, perfectly predictable
    assert draws.draw_frequency(values, 0, 51).passed
    assert draws.draw_pairs(values, 0, 51).pvalue < CAUGHT


def test_out_of_range_value_is_named():
    with pytest.raises(ValueError, match="value 9 at index 2 is outside"):
        draws.draw_frequency(np.array([1, 2, 9]), 1, 6)


@pytest.mark.slow
@pytest.mark.parametrize("name,test", draws.DRAW_TESTS)
def test_null_distribution_is_uniform(name, test):
    rng = np.random.default_rng(77)
    pvalues = [test(rng.integers(0, 37, 5_000), 0, 36).pvalue for _ in range(300)]
    assert stats.kstest(pvalues, "uniform").pvalue > 1e-3
