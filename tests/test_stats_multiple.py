import numpy as np
import pytest
from scipy import stats

from certify.stats.multiple import holm, member_pvalue, proportion_interval, second_level, uniformity_pvalue


def test_proportion_interval_is_the_documents_example():
    # SP 800-22 Rev. 1a 4.2.1: alpha = 0.01, m = 1000 -> 0.99 +/- 0.0094392, "above 0.9805607".
    # The exact half-width is 0.00943928: the document truncates it to 7 decimals.
    lo, hi = proportion_interval(0.01, 1000)
    assert int((0.99 - lo) * 1e7) / 1e7 == 0.0094392
    assert round(lo, 7) == 0.9805607 and round(hi, 7) == 0.9994393


def test_uniformity_is_igamc_of_ten_bins():
    ps = np.linspace(0.0, 1.0, 101)  # p = 1.0 goes into the last bin
    p_t, histogram = uniformity_pvalue(ps)
    assert histogram == (10, 10, 10, 10, 10, 10, 10, 10, 10, 11)
    chi2 = sum((h - 10.1) ** 2 / 10.1 for h in histogram)
    assert p_t == pytest.approx(stats.chi2.sf(chi2, 9), rel=1e-12)


def test_second_level_on_uniform_p_values_passes():
    ps = np.random.default_rng(3).random(300)
    level = second_level(ps, 0.01, "Frequency")
    assert level.m == 300 and level.proportion_ok and level.uniformity_ok and level.nist_ok


def test_second_level_catches_too_many_failures_and_non_uniformity():
    ps = np.concatenate([np.full(10, 0.001), np.full(90, 0.5)])
    level = second_level(ps, 0.01)
    assert not level.proportion_ok and level.binomial_tail < 1e-6
    assert not level.uniformity_ok and level.uniformity_pvalue < 1e-4


def test_second_level_below_55_sequences_reports_no_uniformity_verdict():
    level = second_level([0.3, 0.7, None, 0.2], 0.01)
    assert level.m == 3 and level.not_applicable == 1
    assert level.uniformity_pvalue is None and level.uniformity_ok is None
    assert level.components() == [pytest.approx(0.6), 1.0]


def test_second_level_rejects_p_values_outside_unit_interval():
    with pytest.raises(ValueError, match="outside"):
        second_level([0.5, 1.2])


def test_holm_step_down_by_hand():
    verdict = holm({"a": 0.01, "b": 0.04, "c": 0.03, "d": 0.005}, alpha=0.05)
    adjusted = {m["name"]: m["adjusted"] for m in verdict.members}
    # sorted: d 0.005*4 = 0.02, a 0.01*3 = 0.03, c 0.03*2 = 0.06, b max(0.06, 0.04) = 0.06
    assert adjusted == pytest.approx({"d": 0.02, "a": 0.03, "c": 0.06, "b": 0.06})
    assert verdict.failing == ["a", "d"] and not verdict.passed
    assert holm({"x": 0.5, "y": 0.02}, alpha=0.01).passed


def test_member_pvalue_is_bonferroni():
    assert member_pvalue([0.001, 0.5, 0.9]) == pytest.approx(0.003)
    with pytest.raises(ValueError):
        member_pvalue([])
