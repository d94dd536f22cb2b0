import numpy as np
import pytest
from scipy import stats

from certify.stats.gof import (binomial_test, binomial_upper_tail, bonferroni_min, chisquare_gof,
                               merge_sparse_cells, proportion_ci, uniform_gof)


def test_matches_scipy_when_no_cell_is_sparse():
    observed = [18, 22, 25, 35]
    probs = [0.2, 0.25, 0.25, 0.3]
    mine = chisquare_gof(observed, probs)
    ref = stats.chisquare(observed, np.array(probs) * sum(observed))
    assert mine.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert mine.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert mine.dof == 3 and "merged" not in mine.details


def test_counts_or_probabilities_give_the_same_test():
    observed = np.array([10, 30, 60])
    assert chisquare_gof(observed, [1, 3, 6]).pvalue == pytest.approx(chisquare_gof(observed, [0.1, 0.3, 0.6]).pvalue)


def test_merge_rule_smallest_into_smaller_neighbour():
    # expected 100, 50, 3, 2, 1: 1 joins 2 (only neighbour), then the 3 joins that 3 -> (2..4) = 6
    assert merge_sparse_cells(np.array([100, 50, 3, 2, 1.0])) == [(0, 0), (1, 1), (2, 4)]
    # a sparse cell in the middle joins its smaller neighbour (right: 4 < 40)
    assert merge_sparse_cells(np.array([40, 1, 4, 60.0])) == [(0, 0), (1, 2), (3, 3)]


def test_sparse_cells_are_merged_and_recorded():
    probs = np.array([0.5, 0.3, 0.15, 0.04, 0.01])
    observed = np.array([52, 29, 14, 4, 1])
    result = chisquare_gof(observed, probs, cell_labels=["a", "b", "c", "d", "e"])
    # n = 100: expected 50, 30, 15, 4, 1 -> d and e merge (5)
    assert result.details["merged"] == ["d..e"]
    assert result.dof == 3
    merged_obs, merged_exp = [52, 29, 14, 5], [50, 30, 15, 5]
    assert result.pvalue == pytest.approx(stats.chisquare(merged_obs, merged_exp).pvalue, rel=1e-12)


def test_estimated_parameters_reduce_dof():
    assert chisquare_gof([20, 30, 50], [0.2, 0.3, 0.5], estimated_params=1).dof == 1


def test_impossible_outcome_observed_fails_outright():
    result = chisquare_gof([5, 5, 1], [0.5, 0.5, 0.0], cell_labels=["x", "y", "z"])
    assert result.pvalue == 0.0 and not result.passed and result.details["impossible_cell"] == "z"


def test_too_few_observations_is_not_applicable_not_failed():
    result = uniform_gof([1, 2, 0])
    assert not result.applicable and result.passed is None and result.verdict == "not applicable"


def test_extreme_p_values_are_not_rounded_to_zero():
    result = uniform_gof([10_000, 0])
    assert 0 < result.pvalue < 1e-300 or result.pvalue == stats.chi2.sf(result.statistic, 1)


def test_shape_mismatch_is_an_error():
    with pytest.raises(ValueError, match="3 observed cells but 2 expected"):
        chisquare_gof([1, 2, 3], [0.5, 0.5])


@pytest.mark.parametrize("k,n", [(0, 20), (3, 20), (20, 20), (517, 1000)])
def test_clopper_pearson_matches_scipy_exact(k, n):
    lo, hi = proportion_ci(k, n, 0.95)
    ref = stats.binomtest(k, n).proportion_ci(0.95, method="exact")
    assert (lo, hi) == pytest.approx((ref.low, ref.high), abs=1e-12)


@pytest.mark.parametrize("k,n", [(0, 20), (3, 20), (517, 1000)])
def test_wilson_matches_scipy(k, n):
    lo, hi = proportion_ci(k, n, 0.99, method="wilson")
    ref = stats.binomtest(k, n).proportion_ci(0.99, method="wilson")
    assert (lo, hi) == pytest.approx((ref.low, ref.high), abs=1e-12)


def test_clopper_pearson_zero_successes_closed_form():
    # P(X = 0) = (1 - p)^n = 0.025 at the upper end
    assert proportion_ci(0, 50, 0.95)[1] == pytest.approx(1 - 0.025 ** (1 / 50), rel=1e-10)


def test_binomial_test_exact_and_interval():
    fair = binomial_test(5_040, 10_000, 0.5)
    assert fair.passed and fair.details["ci"][0] < 0.5 < fair.details["ci"][1]
    biased = binomial_test(5_400, 10_000, 0.5)
    assert not biased.passed and biased.pvalue == pytest.approx(stats.binomtest(5400, 10000, 0.5).pvalue)


def test_binomial_upper_tail_and_bonferroni():
    assert binomial_upper_tail(0, 10, 0.01) == 1.0
    assert binomial_upper_tail(1, 10, 0.01) == pytest.approx(1 - 0.99 ** 10)
    assert binomial_upper_tail(2, 10, 0.01) == pytest.approx(1 - 0.99 ** 10 - 10 * 0.01 * 0.99 ** 9)
    assert bonferroni_min([0.2, 0.01, None, 0.5]) == pytest.approx(0.03)
    assert bonferroni_min([0.9, 0.8]) == 1.0
