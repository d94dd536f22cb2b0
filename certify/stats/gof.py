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

import hashlib
from collections.abc import Sequence
from math import ceil, exp, isfinite, sqrt

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
    """The sum of ``values`` over each group. A cell left alone is copied (its one-element sum is the
    value itself), so a table with no merged cell (the 2,652 adjacent-pair cells of every position)
    costs one indexing instead of a Python-level sum per cell; merged groups are summed as before."""
    firsts = np.fromiter((a for a, _ in groups), dtype=np.int64, count=len(groups))
    out = np.asarray(values, dtype=float)[firsts]
    for i, (a, b) in enumerate(groups):
        if b > a:
            out[i] = values[a:b + 1].sum()
    return out


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


#: Monte Carlo draws of the exact null (at least; more for a small alpha, see ``_null_draws``).
EXACT_NULL_DRAWS = 100_000
_DRAW_CHUNK = 1_000_000


def _checked_probabilities(probabilities, cells: int) -> np.ndarray:
    """The PAR probabilities of the events, refused unless they are a distribution over ``cells``."""
    p = np.asarray(probabilities, dtype=np.float64)
    if p.ndim != 1 or p.size != cells:
        raise ValueError(f"mean_return_test: {p.size} probabilities for {cells} event counts "
                         f"(one probability per event expected)")
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValueError(f"mean_return_test: probabilities must be finite and >= 0, got {p.tolist()}")
    if abs(float(p.sum()) - 1.0) > 1e-9:
        raise ValueError(f"mean_return_test: probabilities sum to {float(p.sum())!r}, not 1 (within 1e-9)")
    return p / p.sum()


def _null_seed(n: int, counts: np.ndarray, nets: np.ndarray, p: np.ndarray, expected_mean: float) -> int:
    """A seed fixed by the inputs (same inputs, same p-value), independent-looking across samples."""
    digest = hashlib.sha256()
    for part in (np.int64(n), counts, nets, p, np.float64(expected_mean)):
        digest.update(np.ascontiguousarray(part, dtype=np.float64).tobytes())
    return int.from_bytes(digest.digest()[:8], "little")


def _null_draws(alpha: float) -> int:
    """B draws, at least ``EXACT_NULL_DRAWS`` and at least 100 / alpha (>= 100 draws beyond the
    rejection threshold, so the threshold is not the tail's single largest draw)."""
    return max(EXACT_NULL_DRAWS, ceil(100 / alpha))


def _exact_null_deviations(n: int, nets: np.ndarray, p: np.ndarray, draws: int, seed: int) -> np.ndarray:
    """|sum of nets - its expectation| over ``draws`` samples of n rounds with counts ~ Multinomial(n, p)."""
    rng = np.random.default_rng(seed)
    centre = n * float(p @ nets)
    out = np.empty(draws, dtype=np.float64)
    for start in range(0, draws, _DRAW_CHUNK):
        size = min(_DRAW_CHUNK, draws - start)
        out[start:start + size] = np.abs(rng.multinomial(n, p, size=size) @ nets - centre)
    return out


def mean_return_test(counts: np.ndarray, nets: np.ndarray, expected_mean: float, std_dev: float, *,
                     alpha: float = 0.01, name: str = "RTP", looked_at: str = "",
                     probabilities: Sequence[float] | np.ndarray | None = None) -> TestResult:
    """The one RTP rule: the mean net result per round against its exact expectation.

    ``counts[e]`` rounds ended in event ``e`` with net result ``nets[e]``; ``expected_mean`` and
    ``std_dev`` are the exact mean and standard deviation per round (the PAR sheet). The statistic
    is z = (mean - expected) / (std_dev / sqrt(n)).

    With ``probabilities`` (the PAR probability of each event) the p-value is taken on the exact
    null distribution of the mean, by a seeded Monte Carlo: B draws of counts ~ Multinomial(n,
    probabilities), and p = (1 + #{|T_b - mu| >= |mean - expected|}) / (B + 1), where T_b - mu is
    a draw's mean net less its exact expectation. The normal approximation is badly wrong for a
    heavy-tailed wager at the round counts used (a royal flush at 1.5e-6 paying 10,000: measured
    5.3% false alarms at a stated 1%, Caribbean Stud progressive, 50,000 rounds); this p-value is
    valid at every n. The seed is fixed by the inputs (same inputs, same p). The interval is
    mean +/- the m-th largest |T_b - mu|, m = ceil(alpha (B + 1) - 1): it holds the expectation
    exactly when p >= alpha. Probabilities that are not a distribution over the counts
    (NaN, inf, negative, a sum off 1 by more than 1e-9, a length mismatch) raise ValueError.

    Without ``probabilities``, p = 2 P(Z > |z|) (central limit theorem) and the interval is
    mean +/- z_{1 - alpha/2} std_dev / sqrt(n). Either way the confidence-interval reading and the
    test are one rule, decided once (``passes``). A zero ``std_dev`` (every round pays the same)
    passes only when the mean is the expectation.
    """
    counts = np.asarray(counts, dtype=np.float64)
    nets = np.asarray(nets, dtype=np.float64)
    if counts.shape != nets.shape:
        raise ValueError(f"mean_return_test: {counts.size} event counts but {nets.size} nets")
    p = None if probabilities is None else _checked_probabilities(probabilities, counts.size)
    n = int(counts.sum())
    mean = float((counts * nets).sum()) / n
    observed_sd = sqrt(max(float((counts * nets * nets).sum()) / n - mean * mean, 0.0))
    half_width_per_z = std_dev / sqrt(n)
    z = (mean - expected_mean) / half_width_per_z if std_dev > 0 else 0.0
    method: dict = {"method": "normal approximation (z on the theoretical standard deviation)"}
    if not std_dev > 0:
        pvalue, half = (1.0 if mean == expected_mean else 0.0), 0.0
    elif p is None:
        pvalue = float(2 * stats.norm.sf(abs(z)))
        half = float(stats.norm.isf(alpha / 2)) * half_width_per_z
    else:
        pvalue, half, method = _exact_null_pvalue(counts, nets, p, n, mean, expected_mean, alpha)
    details = {"rounds": n, "observed_mean": mean, "expected_mean": float(expected_mean),
               "ci_level": 1 - alpha, "ci_low": mean - half, "ci_high": mean + half,
               "observed_std_dev": observed_sd, "theoretical_std_dev": float(std_dev), **method}
    how = ("exact null by Monte Carlo" if p is not None and std_dev > 0
           else "z test on the theoretical standard deviation")
    return TestResult(name=name, statistic=float(z), pvalue=pvalue, alpha=alpha, n=n,
                      looked_at=looked_at or f"mean net result per round against the exact expectation ({how})",
                      details=details)


def _bernstein_tail(n: int, nets: np.ndarray, p: np.ndarray, t: float) -> float:
    """Bernstein's bound on P(|sum of n rounds' nets - its expectation| >= t) under the null.

    Used only where the sample lies past every Monte Carlo draw: p = min(1 / (B + 1), bound) is
    then still valid (P(p <= a) <= a for every a), and a grossly wrong mean is not stuck at
    1 / (B + 1) under a multiple-testing threshold below it."""
    support = p > 0
    centre = float(p @ nets)
    variance = float(p @ (nets - centre) ** 2)
    spread = float(np.abs(nets[support] - centre).max())
    if t <= 0:
        return 1.0
    return min(1.0, 2 * exp(-(t * t / 2) / (n * variance + spread * t / 3)))


def _exact_null_pvalue(counts, nets, p, n, mean, expected_mean, alpha):
    """p-value and CI half-width (mean units) of the observed mean on the exact null (Monte Carlo).

    Deviations are of the sum of nets over n rounds: the draws' from their exact centre n p.nets,
    the sample's from n * expected_mean (so a net that is not the sheet's pay moves the sample, not
    the null's centre)."""
    valid_alpha = isfinite(alpha) and 0 < alpha < 1
    draws = _null_draws(alpha) if valid_alpha else EXACT_NULL_DRAWS
    seed = _null_seed(n, counts, nets, p, expected_mean)
    deviations = _exact_null_deviations(n, nets, p, draws, seed)
    observed = abs(float(counts @ nets) - n * expected_mean)
    # sums of nets are exact in float64; only the centres carry rounding: ties within it count
    slack = 64 * np.finfo(np.float64).eps * n * max(float(np.abs(nets).max()), 1.0)
    if isfinite(observed):
        beyond = int(np.count_nonzero(deviations >= observed - slack))
        pvalue = (1 + beyond) / (draws + 1)
        if beyond == 0:      # past every draw: a valid tail bound resolves p below 1 / (B + 1)
            pvalue = min(pvalue, _bernstein_tail(n, nets, p, observed - slack))
    else:
        pvalue = float("nan")
    # p >= alpha  <=>  #{deviation >= observed - slack} >= m  <=>  observed <= (m-th largest) + slack
    m = ceil(alpha * (draws + 1) - 1) if valid_alpha else 0
    half = float(np.partition(deviations, draws - m)[draws - m] + slack) / n if m >= 1 else float("inf")
    if not valid_alpha:
        half = float("nan")
    method = {"method": f"exact null by Monte Carlo, {draws:,} draws of Multinomial(n, PAR probabilities), "
                        f"seed {seed}",
              "null_draws": draws, "null_seed": seed}
    return pvalue, half, method
