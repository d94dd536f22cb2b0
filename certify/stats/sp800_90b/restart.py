"""The restart tests of SP 800-90B section 3.1.4.

The restart data is a 1000 x 1000 matrix: 1000 restarts of the noise source, 1000 samples
after each, stored restart after restart (the "row dataset" of 3.1.4.1). The sanity check
(3.1.4.3) counts the most common value in every row and every column and fails when a count
exceeds a cutoff meant to give one false alarm in 100 over the 2000 counts. The validation
(3.1.4.2) assesses the row and the column datasets (IID: the most common value estimate;
non-IID: the estimators of 6.3 that apply) and fails when min(H_r, H_c) < H_I / 2; otherwise
the entropy is min(H_r, H_c, H_I).

The cutoff. The document's, the binomial critical value for n = 1000, p = 2^-H_I at alpha =
0.000005, bounds one value's count, but the largest count of several values of probability p
exceeds it far more often (a uniform 8-bit source with H_I = 8 fails 82% of the time). The
NIST tool and the default here take the (1 - alpha) quantile, alpha = 1 - 0.99^(1/2000), of the
largest count under the worst-case distribution of min-entropy H_I; the tool estimates it from
5,000,000 random restarts, the suite computes it exactly (``max_count_cdf``). The document's
cutoff is reported beside it (docs/sp800-90b.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.special import gammaln
from scipy.stats import binom, poisson

from . import estimators as E
from .non_iid import _run, _tasks, default_jobs
from .samples import EntropyInputError, Samples, prepare

ROWS = COLUMNS = 1000
SANITY_ALPHA = 0.000005   # 90B 3.1.4.3
TOOL_SIMULATION_ROUNDS = 5_000_000   # ea_restart's simulated restarts per cutoff


@dataclass(frozen=True)
class RestartResult:
    h_initial: float
    sanity_passed: bool
    max_count: int
    cutoff: int
    alpha: float
    rows: tuple[E.Estimate, ...]
    columns: tuple[E.Estimate, ...]
    h_rows: float | None
    h_columns: float | None
    validation_passed: bool | None
    min_entropy: float | None
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.sanity_passed and bool(self.validation_passed)

    def to_dict(self) -> dict[str, Any]:
        rule = self.details.get("sanity_rule", {})
        return {"H_I": self.h_initial, "sanity_check": {"passed": self.sanity_passed, "X_max": self.max_count,
                                                         "cutoff": self.cutoff, "alpha": self.alpha, **rule},
                "validation": {"passed": self.validation_passed, "H_r": self.h_rows, "H_c": self.h_columns,
                               "rows": [e.to_dict() for e in self.rows],
                               "columns": [e.to_dict() for e in self.columns]},
                "passed": self.passed, "min_entropy": self.min_entropy,
                **{k: v for k, v in self.details.items() if k != "sanity_rule"}}


def check_matrix(samples: Samples) -> None:
    if samples.n != ROWS * COLUMNS:
        raise EntropyInputError(
            f"{samples.source}: a restart matrix holds {ROWS} restarts x {COLUMNS} samples = {ROWS * COLUMNS:,} "
            f"samples (SP 800-90B 3.1.4.1), found {samples.n:,}")


def sanity_cutoff(h_initial: float, alpha: float) -> int:
    """Smallest u with P(Binomial(1000, 2^-H_I) > u) <= alpha."""
    p = 2.0 ** -h_initial
    counts = np.arange(COLUMNS + 1)
    tail = binom.sf(counts, COLUMNS, p)
    return int(counts[np.argmax(tail <= alpha)])


def _power_truncated(poly: np.ndarray, times: int, size: int) -> np.ndarray:
    """poly ** times (polynomial product), coefficients 0 .. size - 1 kept."""
    out = np.zeros(size)
    out[0] = 1.0
    while times:
        if times & 1:
            out = np.convolve(out, poly)[:size]
        times >>= 1
        if times:
            poly = np.convolve(poly, poly)[:size]
    return out


def tool_rule_refusal(h_initial: float, k: int, source: str = "the restart matrix") -> str | None:
    """Why the NIST tool's restart rule cannot take H_I for a restart matrix of k distinct values
    (None when it can): its worst-case distribution needs floor(2^H_I) values of probability
    2^-H_I, and the tool stops when fewer occur."""
    k_max = math.floor(2.0 ** h_initial)
    if k_max <= k:
        return None
    return (f"{source}: --reference nist-ea: the NIST tool's restart rule (3.1.4.3) needs floor(2^H_I) = {k_max} "
            f"values of probability 2^-H_I for H_I = {h_initial!r}, but only {k} values occur (the tool stops "
            f"there); the default --reference exact takes any H_I")


def worst_case_distribution(h_initial: float, k: int) -> list[tuple[float, int]]:
    """The NIST tool's "inverted near-uniform" distribution of min-entropy H_I over k values, as
    (probability, how many values have it): floor(2^H_I) values of p = 2^-H_I, the rest of the
    mass spread evenly over the others."""
    p = 2.0 ** -h_initial
    k_max = math.floor(1.0 / p)
    if (why := tool_rule_refusal(h_initial, k)) is not None:
        raise EntropyInputError(why)
    if k > k_max:
        return [(p, k_max), ((1.0 - p * k_max) / (k - k_max), k - k_max)]
    return [(p, k_max)]


def max_count_cdf(u: int, groups: list[tuple[float, int]], draws: int = COLUMNS) -> float:
    """P(the largest count of any value in ``draws`` draws is <= u), exactly (Poissonization: with
    independent Y_i ~ Poisson(draws q_i), P(all N_i <= u) = P(all Y_i <= u, sum Y_i = draws) /
    P(Poisson(draws) = draws))."""
    size = draws + 1
    total = np.zeros(size)
    total[0] = 1.0
    j = np.arange(min(u, draws) + 1)
    for q, m in groups:
        if m and q > 0:
            lam = draws * q
            cell = np.exp(-lam + j * math.log(lam) - gammaln(j + 1))
            total = np.convolve(total, _power_truncated(cell, m, size))[:size]
    return float(total[draws] / poisson.pmf(draws, draws))


def _quantile(groups: list[tuple[float, int]], level: float, k: int) -> int:
    """The smallest u with P(largest count <= u) >= level (bisection; P(X <= ceil(1000/k) - 1) = 0)."""
    lo, hi = -(-COLUMNS // k) - 1, COLUMNS
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if max_count_cdf(mid, groups) >= level:
            hi = mid
        else:
            lo = mid
    return hi


def restart_alpha() -> float:
    """Per row or column: 1 - 0.99^(1/2000), so that 2000 counts false-alarm at most 1% together."""
    return 1.0 - math.exp(math.log(0.99) / (ROWS + COLUMNS))


def worst_case_cutoff(h_initial: float) -> tuple[int, float]:
    """The default sanity cutoff: the (1 - alpha) quantile of the largest count of any value in
    1000 draws from the most concentrated distribution of min-entropy H_I, floor(2^H_I) values of
    probability 2^-H_I and the remainder on one more value. The largest count's tail grows as
    the distribution gets more concentrated (it is Schur-convex), and every distribution whose
    largest probability is at most 2^-H_I is majorized by this one, so no source of min-entropy
    >= H_I fails a row or column with probability above alpha: at most 1% over the 2000 counts."""
    p = 2.0 ** -h_initial
    k_max = math.floor(1.0 / p)
    rest = 1.0 - p * k_max
    groups = [(p, k_max)] + ([(rest, 1)] if rest > 0 else [])
    alpha = restart_alpha()
    return _quantile(groups, 1.0 - alpha, k_max + (rest > 0)), alpha


def nist_tool_cutoff(h_initial: float, k: int) -> tuple[int, float]:
    """The NIST tool's sanity cutoff without its simulation noise, and its alpha. The tool sorts
    the largest count X of 5,000,000 simulated restarts (1000 draws each from
    ``worst_case_distribution`` over the k values present) and takes the floor((1 - alpha)
    5,000,000)-th smallest, alpha = 1 - 0.99^(1/2000); that order statistic estimates the smallest
    u with P(X <= u) >= that rank / 5,000,000, which is computed here exactly."""
    alpha = restart_alpha()
    level = math.floor((1.0 - alpha) * float(TOOL_SIMULATION_ROUNDS)) / TOOL_SIMULATION_ROUNDS
    return _quantile(worst_case_distribution(h_initial, k), level, k), alpha


def _max_counts(matrix: np.ndarray, k: int) -> int:
    """The largest count of one value in any row or column (one table of counts per axis)."""
    best = 0
    for axis_view in (matrix, matrix.T):
        cells = np.arange(axis_view.shape[0], dtype=np.int64)[:, None] * k + axis_view
        best = max(best, int(np.bincount(cells.ravel(), minlength=axis_view.shape[0] * k).max()))
    return best


def _sanity_rule(samples: Samples, h_initial: float, reference: str) -> tuple[int, float, dict[str, Any]]:
    """The sanity check's cutoff and alpha under ``reference``, and what the JSON says of them."""
    document = sanity_cutoff(h_initial, SANITY_ALPHA)
    if reference == "nist-ea":
        cutoff, alpha = nist_tool_cutoff(h_initial, samples.alphabet_size)
        return cutoff, alpha, {
            "rule": "the NIST tool's: the (1 - alpha) quantile of the largest count of any value in 1000 draws from "
                    "the worst-case distribution of min-entropy H_I over the values present (computed exactly; the "
                    "tool estimates it from 5,000,000 random restarts)", "document_cutoff": document}
    cutoff, alpha = worst_case_cutoff(h_initial)
    return cutoff, alpha, {
        "rule": "the (1 - alpha) quantile of the largest count of any value in 1000 draws from the most concentrated "
                "distribution of min-entropy H_I (at most 1% false alarms over the 2000 counts)",
        "document_cutoff": document}


def restart_tests(samples: Samples, h_initial: float, iid: bool, reference: str = "exact") -> RestartResult:
    """3.1.4 on a restart matrix (``samples`` in row order) for the initial estimate ``h_initial``.
    The sanity check's cutoff keeps its stated false-alarm rate (``reference="exact"``,
    ``worst_case_cutoff``) or is the NIST tool's rule (``"nist-ea"``, ``nist_tool_cutoff``, the same
    cutoff but for the tool's spreading of the remainder over the values present); the document's
    binomial cutoff, which false-alarms far more often than it states, is reported beside it. The
    validation is the same in both."""
    check_matrix(samples)
    if not (0 < h_initial <= samples.bits_per_symbol):
        raise EntropyInputError(f"H_I = {h_initial!r} must be in (0, {samples.bits_per_symbol}] bits per sample")
    if reference == "nist-ea" and (why := tool_rule_refusal(h_initial, samples.alphabet_size, samples.source)):
        raise EntropyInputError(why)
    matrix = samples.symbols.reshape(ROWS, COLUMNS)
    cutoff, alpha, rule = _sanity_rule(samples, h_initial, reference)
    x_max = _max_counts(matrix, samples.alphabet_size)
    if x_max > cutoff:
        return RestartResult(h_initial, False, x_max, cutoff, alpha, (), (), None, None, None, None,
                             {"sanity_rule": rule})
    columns = prepare(samples.raw.reshape(ROWS, COLUMNS).T.ravel(), samples.bits_per_symbol,
                      source=f"{samples.source} (columns)")
    if iid:
        rows_est = (E.most_common_value(samples.symbols, samples.alphabet_size),)
        cols_est = (E.most_common_value(columns.symbols, columns.alphabet_size),)
    else:   # both datasets' estimators side by side on the cores (results in report order)
        width = max(1, (samples.alphabet_size - 1).bit_length())
        rows_est, cols_est = (tuple(r) for r in _run([_tasks(samples.symbols, samples.alphabet_size, width),
                                                      _tasks(columns.symbols, columns.alphabet_size, width)],
                                                     default_jobs()))
    ceiling = float(samples.bits_per_symbol)
    h_r = min([ceiling, *[e.min_entropy for e in rows_est if e.min_entropy is not None]])
    h_c = min([ceiling, *[e.min_entropy for e in cols_est if e.min_entropy is not None]])
    valid = min(h_r, h_c) >= h_initial / 2.0
    return RestartResult(h_initial, True, x_max, cutoff, alpha, rows_est, cols_est, h_r, h_c, valid,
                         min(h_r, h_c, h_initial) if valid else None, {"sanity_rule": rule})
