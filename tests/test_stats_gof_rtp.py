"""The RTP rule on its exact null (``certify.stats.gof.mean_return_test(probabilities=...)``).

Caribbean Stud's progressive pays 9,999 for a royal flush at p ~ 1.5e-6: at 50,000 rounds the
normal approximation of the mean is badly wrong (measured on fair simulations: 5.3% false alarms
at a stated 1%). These tests hold the exact-null p-value to its stated rate on fair samples of that
wager, show the normal p-value failing the same check, and keep wrong payouts caught.
"""

import numpy as np
import pytest
from scipy import stats

from certify.stats import gof
from certify.stats.gof import mean_return_test

ALPHA = 0.01


def _wager(golden_sheet, name):
    w = golden_sheet("caribbean_stud").wager(name)
    probs = np.array([float(r.probability) for r in w.rows])
    nets = np.array([float(r.pays) for r in w.rows])
    return probs, nets, float(w.expected_return), w.std_dev


def _fair_bound(samples: int, alpha: float = ALPHA, chance: float = 1e-4) -> int:
    """The rejection count a test keeping to ``alpha`` reaches with probability below ``chance``."""
    return int(stats.binom.isf(chance, samples, alpha)) + 1


def test_exact_null_keeps_its_false_alarm_rate_where_the_normal_does_not(golden_sheet, monkeypatch):
    # B at its floor for alpha = 0.01 (100 / alpha): the same rule, 10x cheaper per call
    monkeypatch.setattr(gof, "EXACT_NULL_DRAWS", 10_000)
    probs, nets, mean, sd = _wager(golden_sheet, "progressive")
    rng = np.random.default_rng(20261201)
    samples = 800
    exact_p, normal_p = [], []
    for counts in rng.multinomial(50_000, probs, size=samples):
        exact = mean_return_test(counts, nets, mean, sd, alpha=ALPHA, probabilities=probs)
        assert exact.details["null_draws"] == 10_000
        exact_p.append(exact.pvalue)
        normal_p.append(mean_return_test(counts, nets, mean, sd, alpha=ALPHA).pvalue)
    bound = _fair_bound(samples)
    exact_rejections = sum(p < ALPHA for p in exact_p)
    normal_rejections = sum(p < ALPHA for p in normal_p)
    print(f"fair samples: {samples}, bound {bound}; exact rejections {exact_rejections}, normal {normal_rejections}")
    assert exact_rejections < bound, (exact_rejections, bound)
    # negative control of the calibration check: the normal approximation fails it on these samples
    assert normal_rejections >= bound, (normal_rejections, bound)


@pytest.mark.parametrize("wager, event, pays", [
    ("main game (spec strategy)", "win with two pair", 4),    # pays 5: one unit short
    ("progressive", "quads", 249),                            # pays 499: half
])
def test_a_wrong_payout_is_caught(golden_sheet, wager, event, pays):
    probs, nets, mean, sd = _wager(golden_sheet, wager)
    rows = [r.event for r in golden_sheet("caribbean_stud").wager(wager).rows]
    paid = nets.copy()
    paid[rows.index(event)] = pays
    counts = np.random.default_rng(7).multinomial(1_000_000, probs)
    t = mean_return_test(counts, paid, mean, sd, alpha=ALPHA, probabilities=probs)
    assert not t.passed and t.pvalue < ALPHA
    assert not t.details["ci_low"] <= mean <= t.details["ci_high"]
    # the same counts at the right pays pass
    assert mean_return_test(counts, nets, mean, sd, alpha=ALPHA, probabilities=probs).passed


def test_a_gross_error_resolves_below_one_over_b(golden_sheet):
    """Past every draw the p-value is Bernstein's bound, not stuck at 1 / (B + 1) (multiple testing
    divides alpha: a grossly wrong RTP must stay visible under alpha / 1000)."""
    probs, nets, mean, sd = _wager(golden_sheet, "main game (spec strategy)")
    counts = np.random.default_rng(3).multinomial(1_000_000, probs)
    t = mean_return_test(counts, nets, mean + 0.05, sd, alpha=ALPHA, probabilities=probs)
    assert t.pvalue < 1e-8


@pytest.mark.parametrize("wager, rounds", [("progressive", 50_000), ("main game (spec strategy)", 200_000)])
def test_the_interval_and_the_test_are_one_rule(golden_sheet, monkeypatch, wager, rounds):
    monkeypatch.setattr(gof, "EXACT_NULL_DRAWS", 10_000)
    probs, nets, mean, sd = _wager(golden_sheet, wager)
    rng = np.random.default_rng(11)
    verdicts = set()
    for shift in np.linspace(-4, 4, 33) * sd / np.sqrt(rounds):
        t = mean_return_test(rng.multinomial(rounds, probs), nets, mean + shift, sd, alpha=ALPHA,
                             probabilities=probs)
        inside = t.details["ci_low"] <= mean + shift <= t.details["ci_high"]
        assert inside == t.passed == (t.pvalue >= ALPHA)
        verdicts.add(t.passed)
    assert verdicts == {True, False}          # both sides of the boundary were visited


def test_deterministic_and_states_its_method(golden_sheet):
    probs, nets, mean, sd = _wager(golden_sheet, "progressive")
    counts = np.random.default_rng(1).multinomial(50_000, probs)
    a = mean_return_test(counts, nets, mean, sd, probabilities=probs)
    b = mean_return_test(counts, nets, mean, sd, probabilities=probs)
    assert a.pvalue == b.pvalue and a.details == b.details
    assert a.details["null_draws"] == 100_000 and a.details["null_seed"] == b.details["null_seed"]
    assert "exact null by Monte Carlo" in a.details["method"] and str(a.details["null_seed"]) in a.details["method"]
    assert a.statistic == pytest.approx((a.details["observed_mean"] - mean) / (sd / np.sqrt(50_000)))
    normal = mean_return_test(counts, nets, mean, sd)
    assert set(normal.details) <= set(a.details)          # every key of the normal rule is kept
    assert normal.statistic == a.statistic
    # a small alpha gets at least 100 / alpha draws
    assert mean_return_test(counts, nets, mean, sd, alpha=1e-4, probabilities=probs).details["null_draws"] == 1_000_000


@pytest.mark.parametrize("probabilities", [
    [0.5, float("nan"), 0.5], [0.5, float("inf"), 0.5], [1.2, -0.2, 0.0], [0.5, 0.3, 0.2 + 1e-8], [0.5, 0.5],
])
def test_probabilities_that_are_not_a_distribution_are_refused(probabilities):
    with pytest.raises(ValueError, match="probabilities"):
        mean_return_test([5, 3, 2], [1.0, -1.0, 2.0], 0.1, 1.0, probabilities=probabilities)


def test_nan_expectation_fails_on_the_exact_null():
    probs = [0.5, 0.5]
    assert not mean_return_test([5, 5], [1.0, -1.0], float("nan"), 1.0, probabilities=probs).passed
    assert not mean_return_test([5, 5], [1.0, -1.0], 0.0, 1.0, alpha=float("nan"), probabilities=probs).passed
