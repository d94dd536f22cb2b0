"""Chi-square goodness of fit with sparse-cell merging, and exact tests for one proportion.

Every function returns a :class:`~certify.stats.result.TestResult` or plain numbers.

Sparse cells. The chi-square approximation needs every cell to expect at least ``min_expected``
(5 by default). Cells are merged by one fixed, documented rule: while some cell expects less than
``min_expected``, the cell with the smallest expected count is merged into whichever of its two
neighbours (in the order the cells were given) expects less; ties go to the left neighbour.
Merging only neighbours keeps ordered cells (gap lengths, run counts, hand categories) contiguous,
so a merged cell is always a range ``first..last`` of the original cells, and ``details["cells"]``
records those ranges.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import sqrt

import numpy as np
from scipy import stats

from certify.stats.result import TestResult


def merge_sparse_cells(expected: np.ndarray, min_expected: float = 5.0) -> list[tuple[int, int]]:
    """Ranges ``(first, last)`` (inclusive) of adjacent cells, each expecting >= ``min_expected``.

    The smallest cell is merged into its smaller neighbour, repeatedly (see the module docstring).
    If the whole table expects less than ``min_expected`` a single cell is returned.
    """
    expected = np.asarray(expected, dtype=float)
    groups = [(i, i) for i in range(len(expected))]
    sums = list(expected)
    while len(groups) > 1:
        smallest = min(range(len(sums)), key=sums.__getitem__)
        if sums[smallest] >= min_expected:
            break
        if smallest == 0:
            other = 1
        elif smallest == len(sums) - 1:
            other = smallest - 1
        else:
            other = smallest - 1 if sums[smallest - 1] <= sums[smallest + 1] else smallest + 1
        lo, hi = sorted((smallest, other))
        groups[lo:hi + 1] = [(groups[lo][0], groups[hi][1])]
        sums[lo:hi + 1] = [sums[lo] + sums[hi]]
    return groups


def _apply_groups(values: np.ndarray, groups: list[tuple[int, int]]) -> np.ndarray:
    return np.array([values[a:b + 1].sum() for a, b in groups], dtype=float)


def chisquare_gof(
    observed: Sequence[float] | np.ndarray,
    expected: Sequence[float] | np.ndarray,
    *,
    alpha: float = 0.01,
    min_expected: float = 5.0,
    estimated_params: int = 0,
    name: str = "ChiSquareGOF",
    looked_at: str = "",
    cell_labels: Sequence[str] | None = None,
) -> TestResult:
    """Pearson's chi-square test of ``observed`` counts against ``expected`` probabilities or counts.

    ``expected`` may be probabilities (summing to 1) or counts (summing to the observed total);
    it is scaled to the observed total either way. Sparse cells are merged (module docstring),
    ``dof = cells after merging - 1 - estimated_params`` and the p-value is the exact upper tail
    of the chi-square distribution (``scipy.stats.chi2.sf``, accurate far below 1e-300).
    """
    obs = np.asarray(observed, dtype=float).ravel()
    exp = np.asarray(expected, dtype=float).ravel()
    if obs.shape != exp.shape:
        raise ValueError(f"{name}: {obs.size} observed cells but {exp.size} expected cells")
    if np.any(obs < 0) or np.any(exp < 0):
        raise ValueError(f"{name}: counts and expectations must be non-negative")
    total = obs.sum()
    if exp.sum() <= 0:
        raise ValueError(f"{name}: expected cells sum to zero")
    exp = exp * (total / exp.sum())
    if np.any((exp == 0) & (obs > 0)):
        cell = int(np.flatnonzero((exp == 0) & (obs > 0))[0])
        label = cell_labels[cell] if cell_labels is not None else str(cell)
        # An impossible outcome was observed: the hypothesis is refuted outright.
        return TestResult(name=name, statistic=float("inf"), pvalue=0.0, alpha=alpha,
                          n=int(total), dof=None, pvalues=(0.0,), looked_at=looked_at,
                          details={"impossible_cell": label, "observed": float(obs[cell])})
    keep = exp > 0  # cells that cannot occur and did not occur carry no information
    obs, exp = obs[keep], exp[keep]
    labels = [lab for lab, k in zip(cell_labels, keep) if k] if cell_labels is not None else None
    groups = merge_sparse_cells(exp, min_expected)
    obs_m, exp_m = _apply_groups(obs, groups), _apply_groups(exp, groups)
    dof = len(groups) - 1 - estimated_params
    if total == 0 or dof < 1 or exp_m.min() < min_expected:
        return TestResult.not_applicable(
            name, int(total), alpha,
            f"{looked_at}: too few observations for a chi-square test "
            f"({int(total)} observations, {len(groups)} cells expecting >= {min_expected})")
    statistic = float(((obs_m - exp_m) ** 2 / exp_m).sum())
    pvalue = float(stats.chi2.sf(statistic, dof))
    details: dict = {"cells": len(groups), "cells_before_merge": int(keep.sum()),
                     "min_expected": float(exp_m.min()), "merge_rule": "smallest into smaller neighbour"}
    if len(groups) < int(keep.sum()):
        names = labels if labels is not None else [str(i) for i in np.flatnonzero(keep)]
        details["merged"] = [f"{names[a]}..{names[b]}" for a, b in groups if b > a]
    return TestResult(name=name, statistic=statistic, pvalue=pvalue, alpha=alpha,
                      n=int(total), dof=float(dof), pvalues=(pvalue,), looked_at=looked_at, details=details)


def uniform_gof(observed: np.ndarray, **kwargs) -> TestResult:
    """Chi-square test that ``observed`` counts come from equally likely cells."""
    obs = np.asarray(observed, dtype=float).ravel()
    return chisquare_gof(obs, np.ones_like(obs), **kwargs)


# ---------------------------------------------------------------------------------------------
# One proportion
# ---------------------------------------------------------------------------------------------

def proportion_ci(successes: int, n: int, confidence: float = 0.99,
                  method: str = "clopper-pearson") -> tuple[float, float]:
    """Confidence interval for a binomial proportion.

    ``clopper-pearson`` (the default) is the exact interval from beta quantiles: its coverage is
    never below ``confidence``. ``wilson`` is the score interval: shorter, coverage close to nominal.
    """
    if n <= 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n and n > 0, got {successes} of {n}")
    tail = (1.0 - confidence) / 2.0
    if method == "clopper-pearson":
        lo = 0.0 if successes == 0 else float(stats.beta.ppf(tail, successes, n - successes + 1))
        hi = 1.0 if successes == n else float(stats.beta.ppf(1 - tail, successes + 1, n - successes))
        return lo, hi
    if method == "wilson":
        z = float(stats.norm.isf(tail))
        p = successes / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, centre - half), min(1.0, centre + half)
    raise ValueError(f"unknown interval method {method!r}: expected 'clopper-pearson' or 'wilson'")


def binomial_test(successes: int, n: int, p0: float, *, alpha: float = 0.01,
                  alternative: str = "two-sided", name: str = "Binomial", looked_at: str = "",
                  confidence: float = 0.99) -> TestResult:
    """Exact binomial test of H0: success probability == ``p0``, with the Clopper-Pearson interval.

    The p-value is exact (``scipy.stats.binomtest``; two-sided by the likelihood ordering);
    ``details`` carries the observed proportion and its exact ``confidence`` interval.
    """
    result = stats.binomtest(int(successes), int(n), p0, alternative=alternative)
    lo, hi = proportion_ci(int(successes), int(n), confidence)
    pvalue = float(result.pvalue)
    return TestResult(name=name, statistic=float(successes), pvalue=pvalue, alpha=alpha,
                      n=int(n), pvalues=(pvalue,), looked_at=looked_at,
                      details={"p0": p0, "proportion": successes / n, "ci": [lo, hi],
                               "ci_method": "clopper-pearson", "confidence": confidence,
                               "alternative": alternative})


def binomial_upper_tail(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p), exact (regularised incomplete beta)."""
    if k <= 0:
        return 1.0
    return float(stats.binom.sf(k - 1, n, p))


def bonferroni_min(pvalues: Sequence[float]) -> float:
    """Bonferroni-combined p-value of several tests of one hypothesis: min(1, m * min p)."""
    ps = [p for p in pvalues if p is not None]
    if not ps:
        raise ValueError("no p-values to combine")
    return min(1.0, len(ps) * min(ps))


def mean_return_test(counts: np.ndarray, nets: np.ndarray, expected_mean: float, std_dev: float, *,
                     alpha: float = 0.01, name: str = "RTP", looked_at: str = "") -> TestResult:
    """The one RTP rule: the mean net result per round against its exact expectation.

    ``counts[e]`` rounds ended in event ``e`` with net result ``nets[e]``; ``expected_mean`` and
    ``std_dev`` are the exact mean and standard deviation per round (the PAR sheet). Under the
    hypothesis the mean is normal with sd ``std_dev / sqrt(n)`` (central limit theorem), so
    z = (mean - expected) / (std_dev / sqrt(n)) and p = 2 P(Z > |z|). The interval reported,
    mean +/- z_{1 - alpha/2} std_dev / sqrt(n), contains the expectation exactly when p >= alpha:
    the confidence-interval reading and the test are one rule, decided once (``passes``).
    A zero ``std_dev`` (every round pays the same) passes only when the mean is the expectation.
    """
    counts = np.asarray(counts, dtype=np.float64)
    nets = np.asarray(nets, dtype=np.float64)
    n = int(counts.sum())
    mean = float((counts * nets).sum()) / n
    observed_sd = sqrt(max(float((counts * nets * nets).sum()) / n - mean * mean, 0.0))
    half_width_per_z = std_dev / sqrt(n)
    if std_dev > 0:
        z = (mean - expected_mean) / half_width_per_z
        pvalue = float(2 * stats.norm.sf(abs(z)))
    else:
        z, pvalue = 0.0, 1.0 if mean == expected_mean else 0.0
    half = float(stats.norm.isf(alpha / 2)) * half_width_per_z
    details = {"rounds": n, "observed_mean": mean, "expected_mean": float(expected_mean),
               "ci_level": 1 - alpha, "ci_low": mean - half, "ci_high": mean + half,
               "observed_std_dev": observed_sd, "theoretical_std_dev": float(std_dev)}
    return TestResult(name=name, statistic=float(z), pvalue=pvalue, alpha=alpha, n=n,
                      looked_at=looked_at or "mean net result per round against the exact expectation "
                                              "(z test on the theoretical standard deviation)",
                      details=details)
