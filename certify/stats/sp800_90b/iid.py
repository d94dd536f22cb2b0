"""The IID track of SP 800-90B: the permutation tests (5.1), the chi-square tests and the
longest-repeated-substring test (5.2), and the IID min-entropy estimate (the most common value
estimate, 6.3.1, on the samples and on their bitstring).

The permutation tests shuffle the samples (10,000 times at most) and rank each of the 19
statistics of the original arrangement among the shuffled ones; a statistic stops being
computed once it has been exceeded and undercut (with ties) more than five times each, as the
NIST tool does; it fails when the original stays in the top or bottom six. Every test here is a
hypothesis test of the IID assumption: chi-square and LRS at alpha = 0.001 each; the permutation
tests' false-alarm rate for IID data is about 0.1% per statistic (90B 5.1).
"""

from __future__ import annotations

import bz2
import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.special import gammaincc

from certify.pool import cpus

from . import _iid_kernels as K
from . import estimators as E
from ._suffix import tuple_counts
from .samples import Samples

PERMUTATIONS = 10_000
CHI_ALPHA = 0.001


@dataclass(frozen=True)
class IidTest:
    """One IID test: the statistic(s), the p-value or counters, and the verdict."""

    name: str
    section: str
    passed: bool
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "section": self.section, "passed": self.passed, "details": self.details}


def _compressed_size(raw: np.ndarray) -> int:
    """5.1.11: bzip2 (block size 5) of the samples written as space-separated decimals."""
    return len(bz2.compress(K.decimal_text(np.ascontiguousarray(raw, dtype=np.uint8)), K.BZIP2_LEVEL))


def _permutation_rows(pool, args, first, size, bzip2) -> np.ndarray:
    """Statistics of permutations first .. first + size - 1; with BZIP2_COPY the compression
    statistic comes from libbz2 on the shuffled values (on the pool's threads)."""
    stats = np.full((size, K.N_STATS), -1.0)
    shuffled = np.zeros((size if bzip2 == K.BZIP2_COPY else 1, args[0].size), dtype=np.uint8)
    K.permutation_batch(*args, first, stats, shuffled, bzip2)
    if bzip2 == K.BZIP2_COPY:
        stats[:, 18] = list(pool.map(_compressed_size, shuffled))
    return stats


def sample_values(samples: Samples) -> np.ndarray:
    """The sample value of each symbol (symbols are the ranks of the values that occur)."""
    return np.unique(samples.raw).astype(np.int64)


def baseline(samples: Samples) -> tuple[float, float]:
    """Mean of the sample values and median of the symbols (0.5 for binary data), as 5.1 uses them."""
    raw_mean = float(np.sum(samples.raw, dtype=np.int64)) / samples.n
    if samples.binary:
        return raw_mean, 0.5
    v = np.sort(samples.symbols)
    half = samples.n // 2
    median = float(v[half]) if samples.n % 2 else (float(v[half]) + float(v[half - 1])) / 2.0
    return raw_mean, median


def _still_needed(counts: np.ndarray, active: np.ndarray) -> np.ndarray:
    """For each statistic still active, the fewest further permutations that can decide it (each
    side needs more than five: a tie counts on both)."""
    above = counts[:, 0] + counts[:, 1]
    below = counts[:, 1] + counts[:, 2]
    return np.where(active, np.maximum(np.maximum(6 - above, 6 - below), 1), 0)


def _batch_size(counts: np.ndarray, active: np.ndarray, batch: int) -> int:
    """How many permutations to compute next. Permutations past the one that decides the last
    statistic are wasted, so: while the costly bzip2 statistic is open, as many as it still needs
    at least, rounded up to a whole number for each thread (a thread left idle costs more time than
    a size or two counted in vain); afterwards a batch that grows to 64 (a few percent of waste at
    most), never fewer than some open statistic still needs. The batches change no counter: every
    permutation has its own stream and the counters are updated in permutation order."""
    needed = _still_needed(counts, active)
    if active[18]:
        threads = cpus()
        return int(-(-needed[18] // threads) * threads)
    return int(max(batch, needed.max()))


def permutation_tests(samples: Samples, seed: int = 1, permutations: int = PERMUTATIONS) -> IidTest:
    """5.1: the 19 statistics (11 tests; periodicity and covariance at lags 1, 2, 8, 16, 32).

    Permutation j shuffles the original samples with stream j of the seeded generator; batches
    of permutations run in parallel and the counters are then updated in permutation order, so
    the result depends on the seed only. The compression statistic (5.1.11) is counted in the
    permutation kernel (``_bzip2``, exact to libbz2) when its count for the original equals
    libbz2's; otherwise (fail closed) libbz2 compresses every permutation. ``details
    ["compression"]`` says which."""
    data = np.ascontiguousarray(samples.symbols)
    raw = np.ascontiguousarray(samples.raw)
    values = sample_values(samples)
    k = samples.alphabet_size
    raw_mean, median = baseline(samples)
    active = np.ones(K.N_STATS, dtype=np.bool_)
    original = np.full(K.N_STATS, -1.0)
    K.statistics(data, values, k, raw_mean, median, active, original)
    counts = np.zeros((K.N_STATS, 3), dtype=np.int64)
    done = 0
    batch = 16
    args = (data, values, k, raw_mean, median, active, np.uint64(seed))
    with ThreadPoolExecutor(max_workers=max(1, min(2, os.cpu_count() or 1))) as pool:
        libbz2_original = pool.submit(_compressed_size, raw)   # libbz2 runs beside the first batch
        counted_original = K.compressed_size(raw)
        mode = K.BZIP2_COUNT
        checked = False
        while done < permutations and active.any():
            size = min(_batch_size(counts, active, batch), permutations - done)
            stats = _permutation_rows(pool, args, done, size, mode if active[18] else K.BZIP2_NONE)
            if not checked:   # the first batch's counted sizes stand only if the original's is libbz2's
                checked = True
                original[18] = libbz2_original.result()
                if original[18] != counted_original:
                    mode = K.BZIP2_COPY
                    stats = _permutation_rows(pool, args, done, size, mode)
            for row in stats:
                done += 1
                for j in np.flatnonzero(active):
                    if row[j] > original[j]:
                        counts[j, 0] += 1
                    elif row[j] == original[j]:
                        counts[j, 1] += 1
                    else:
                        counts[j, 2] += 1
                    if counts[j, 0] + counts[j, 1] > 5 and counts[j, 1] + counts[j, 2] > 5:
                        active[j] = False
                if not active.any():
                    break
            batch = min(2 * batch, 64)
        original[18] = libbz2_original.result()      # also when no permutation ran
        if original[18] != counted_original:
            mode = K.BZIP2_COPY
    rows = []
    for j, name in enumerate(K.STAT_NAMES):
        ok = bool(counts[j, 0] + counts[j, 1] > 5 and counts[j, 1] + counts[j, 2] > 5)
        rows.append({"statistic": name, "value": float(original[j]), "C0_greater": int(counts[j, 0]),
                     "C1_equal": int(counts[j, 1]), "C2_less": int(counts[j, 2]), "passed": ok})
    failing = [r["statistic"] for r in rows if not r["passed"]]
    return IidTest("Permutation tests", "5.1", not failing,
                   {"permutations_run": done, "seed": seed, "raw_mean": raw_mean, "median": median,
                    "statistics": rows, "failing": failing,
                    "compression": {"sizes": "counted" if mode == K.BZIP2_COUNT else "libbz2",
                                    "original_libbz2": int(original[18]), "original_counted": counted_original}})


# ---------------------------------------------------------------- 5.2

# "exact": the chi-square tests' p-values come from their permutation null (an exact test: every
# IID source is rejected with probability at most alpha); "nist-ea": from the chi-square
# distribution with the document's degrees of freedom, as the NIST SP800-90B_EntropyAssessment
# tool computes them (its false-alarm rate is far above alpha for 8-bit data, docs/sp800-90b.md).
REFERENCE_MODES = ("exact", "nist-ea")
CHI_PERMUTATIONS = 9_999     # B: p = (1 + C) / (B + 1) <= 0.001 exactly when C <= 9 of B are >= T
CHI_EXCEEDANCES = 10         # ... so the test is decided (passed) at the 10th permutation T' >= T
CHI_STREAM = 1 << 40         # the chi-square permutations use streams 2^40 + j of the seed (5.1: j)


def check_reference(reference: str) -> str:
    if reference not in REFERENCE_MODES:
        raise ValueError(f"unknown SP 800-90B reference mode {reference!r}; expected one of {list(REFERENCE_MODES)}")
    return reference


def _pvalue(score: float, df: int) -> float:
    if df <= 0:
        return 1.0
    return float(gammaincc(df / 2.0, score / 2.0))


def _bins(expected: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Merge cells (sorted by expectation, then index) into bins of expectation >= 5 (5.2.1)."""
    return K.pool_cells(expected, np.argsort(expected, kind="stable"))


def _accumulate(symbols: np.ndarray, k: int) -> np.ndarray:
    return K.proportions(np.ascontiguousarray(symbols), k)


@dataclass(frozen=True)
class _Layout:
    """What the two chi-square statistics count, fixed by the multiset of samples (so the same for
    every permutation of them): the independence test's tuple width, cells' bins and bins'
    expectations, and the goodness-of-fit test's block length, symbols' bins and expectations."""

    width: int
    cell_bin: np.ndarray
    independence_expected: np.ndarray
    independence: dict[str, Any]
    block: int
    symbol_bin: np.ndarray
    fit_expected: np.ndarray
    fit: dict[str, Any]


def _binary_layout(s: np.ndarray, n: int) -> _Layout:
    """5.2.3 / 5.2.4: m-bit blocks (the largest m <= 11 with min(p0, p1)^m (n / m) >= 5; none below
    2) and ten blocks of n / 10 bits."""
    p1 = int(np.count_nonzero(s)) / n
    p0 = 1.0 - p1
    min_p = min(p0, p1)
    m = 11
    while m > 1:
        if min_p ** m * (n // m) >= 5:
            break
        m -= 1
    blocks = n // m
    if m < 2:
        independence = {"m": m, "df": 0}
        cells = np.zeros(2, dtype=np.int64)
        expected = np.ones(2)
    else:
        cells = np.arange(1 << m, dtype=np.int64)
        expected = np.array([p1 ** bin(i).count("1") * p0 ** (m - bin(i).count("1")) * blocks for i in range(1 << m)])
        independence = {"df": (1 << m) - 2, "m": m}
    sub = n // 10
    fit_expected = np.array([(1.0 - p1) * sub, p1 * sub])
    return _Layout(max(m, 1), cells, expected, independence, sub, np.arange(2, dtype=np.int64), fit_expected,
                   {"df": 9})


def _layout(samples: Samples) -> _Layout:
    """5.2.1 / 5.2.2 for k > 2 values: pairs of samples and ten blocks of n / 10, cells pooled into bins."""
    s, n, k = samples.symbols, samples.n, samples.alphabet_size
    if k == 2:
        return _binary_layout(s, n)
    p = _accumulate(s, k)
    cell_bin, bins = _bins((p[:, None] * p[None, :]).ravel() * math.floor(n * 0.5))
    symbol_bin, fit_bins = _bins(p * math.floor(n / 10.0))
    return _Layout(2, cell_bin, bins, {"df": int(bins.size) - k, "bins": int(bins.size)},
                   n // 10, symbol_bin, fit_bins, {"df": 9 * (int(fit_bins.size) - 1), "bins": int(fit_bins.size)})


def _permutation_pvalues(samples: Samples, layout: _Layout, scores: tuple[float, float], seed: int) -> list[dict]:
    """The permutation null of both statistics: T of permutation j (stream 2^40 + j of ``seed``)
    against the data's T, until CHI_EXCEEDANCES permutations reach it (then p = 10 / j, Besag and
    Clifford's sequential p-value) or CHI_PERMUTATIONS have run (p = (1 + C) / (B + 1)). The
    decision at 0.001 is that of all B permutations; batches run in parallel and are counted in
    permutation order, so the result depends on the seed only."""
    data = np.ascontiguousarray(samples.symbols)
    exceed = [0, 0]
    stop: list[int | None] = [None, None]
    done, batch = 0, 16
    while done < CHI_PERMUTATIONS and None in stop:
        out = np.empty((min(batch, CHI_PERMUTATIONS - done), 2))
        K.chi_square_permutations(data, np.uint64(seed), CHI_STREAM + done, layout.width, samples.alphabet_size,
                                  layout.cell_bin, layout.independence_expected, layout.block, layout.symbol_bin,
                                  layout.fit_expected, out)
        for row in out:
            done += 1
            for j in (0, 1):
                if stop[j] is None and not row[j] < scores[j]:   # ties (and NaN) count against the data
                    exceed[j] += 1
                    if exceed[j] == CHI_EXCEEDANCES:
                        stop[j] = done
            if None not in stop:
                break
        batch = min(2 * batch, 256)
    return [{"p_value": (CHI_EXCEEDANCES / stop[j]) if stop[j] else (1 + exceed[j]) / (CHI_PERMUTATIONS + 1),
             "permutations": stop[j] or done, "permuted_T_ge_T": exceed[j]} for j in (0, 1)]


def chi_square_tests(samples: Samples, reference: str = "exact", seed: int = 1) -> tuple[IidTest, IidTest]:
    """5.2.1-5.2.4: the independence and goodness-of-fit tests (binary: 5.2.3 / 5.2.4). T and the
    document's df as the NIST tool computes them; the p-value from the permutation null
    (``reference="exact"``: the test rejects an IID source with probability <= 0.001, fails when
    p <= 0.001) or from the chi-square distribution with that df (``"nist-ea"``: the tool's rule,
    fails when p < 0.001)."""
    check_reference(reference)
    layout = _layout(samples)
    data = np.ascontiguousarray(samples.symbols)
    indep = dict(layout.independence)
    fit = dict(layout.fit)
    indep["score"] = K.independence_score(data, layout.width, samples.alphabet_size, layout.cell_bin,
                                          layout.independence_expected) if indep["df"] > 0 else 0.0
    fit["score"] = K.fit_score(data, layout.block, layout.symbol_bin, layout.fit_expected)
    for d in (indep, fit):
        d["p_value_chi2_df"] = _pvalue(d["score"], d["df"])
    if reference == "exact":
        nulls = _permutation_pvalues(samples, layout, (indep["score"], fit["score"]), seed)
    out = []
    for j, (name, section, d) in enumerate((("Chi-square independence", "5.2.1", indep),
                                            ("Chi-square goodness of fit", "5.2.2", fit))):
        if samples.alphabet_size == 2:
            section = "5.2.3" if j == 0 else "5.2.4"
        if reference == "nist-ea" or d["df"] <= 0:
            d["null"] = "chi-square, df as 5.2 (the NIST tool's rule)" if d["df"] > 0 else "no test (df 0)"
            d["p_value"] = d.pop("p_value_chi2_df")
            passed = d["p_value"] >= CHI_ALPHA
        else:
            d["null"] = f"permutation (seed {seed}), p = (1 + C) / (B + 1), B = {CHI_PERMUTATIONS:,}, sequential"
            d.update(nulls[j])
            passed = d["p_value"] > CHI_ALPHA
        passed = passed and math.isfinite(d["score"])
        out.append(IidTest(name, section, bool(passed), d))
    return out[0], out[1]


def lrs_test(samples: Samples) -> IidTest:
    """5.2.5: is the longest repeated substring too long for IID data? P(X >= 1) >= 1/1000 passes."""
    s = samples.symbols
    n = samples.n
    k = samples.alphabet_size
    p = _accumulate(s, k)
    p_col = np.longdouble(0)
    for value in p:  # in order, in long double, as the NIST tool sums them
        p_col += np.longdouble(value) * np.longdouble(value)
    if p_col > np.longdouble(1) - np.finfo(np.longdouble).eps:
        return IidTest("Longest repeated substring", "5.2.5", True, {"P_col": 1.0, "W": None, "P_X_ge_1": 1.0})
    width = max(1, (k - 1).bit_length())
    w, _, _ = tuple_counts(s, width)
    power = np.power(p_col, np.longdouble(w))
    log_no = np.log1p(-power)
    pairs = (n - w + 1) * (n - w) // 2
    prob = float(np.longdouble(1) - np.exp(np.longdouble(pairs) * log_no))
    passed = bool(np.log(np.longdouble("0.999")) >= np.longdouble(pairs) * log_no)
    return IidTest("Longest repeated substring", "5.2.5", passed,
                   {"P_col": float(p_col), "W": int(w), "pairs": int(pairs), "P_X_ge_1": prob})


@dataclass(frozen=True)
class IidResult:
    """The IID track: its tests, whether the data may be treated as IID, and the MCV estimates."""

    tests: tuple[IidTest, ...]
    literal: E.Estimate
    bitstring: E.Estimate | None
    h_original: float
    h_bitstring: float | None
    min_entropy: float
    bits_per_symbol: int
    n: int
    alphabet_size: int
    reference: str = "exact"

    @property
    def passed(self) -> bool:
        return all(t.passed for t in self.tests)

    def to_dict(self) -> dict[str, Any]:
        return {"track": "IID", "reference": self.reference, "bits_per_symbol": self.bits_per_symbol, "samples": self.n,
                "alphabet_size": self.alphabet_size, "iid_tests_passed": self.passed,
                "tests": [t.to_dict() for t in self.tests], "literal": [self.literal.to_dict()],
                "bitstring": [self.bitstring.to_dict()] if self.bitstring else [],
                "H_original": self.h_original, "H_bitstring": self.h_bitstring, "min_entropy": self.min_entropy}


def assess_iid(samples: Samples, seed: int = 1, permutations: int = PERMUTATIONS,
               reference: str = "exact") -> IidResult:
    """The IID track on ``samples``: 5.1 and 5.2 tests, then the MCV estimate (6.3.1) of the
    samples and (for more than two values) of the bitstring: min(H_original, K x H_bitstring).
    ``reference`` chooses the chi-square tests' null (``chi_square_tests``)."""
    indep, fit = chi_square_tests(samples, reference=reference, seed=seed)
    tests = (permutation_tests(samples, seed=seed, permutations=permutations), indep, fit, lrs_test(samples))
    return IidResult(tests, *mcv_assessment(samples), samples.bits_per_symbol, samples.n, samples.alphabet_size,
                     reference)


def mcv_assessment(samples: Samples) -> tuple[E.Estimate, E.Estimate | None, float, float | None, float]:
    """The IID track's min-entropy (6.3.1 on the samples and, for more than two values, on the
    bitstring): (literal, bitstring, H_original, H_bitstring, min(H_original, K x H_bitstring)).
    It does not depend on the IID tests, so it is known before they run; and it bounds the
    non-IID track's assessment, of which it is a part."""
    literal = E.most_common_value(samples.symbols, samples.alphabet_size)
    h_original = min(literal.min_entropy, float(samples.bits_per_symbol))
    if samples.alphabet_size <= 2:
        return literal, None, h_original, None, h_original
    bitstring = E.most_common_value(samples.bits, 2)
    h_bitstring = min(bitstring.min_entropy, 1.0)
    return literal, bitstring, h_original, h_bitstring, min(h_original, samples.bits_per_symbol * h_bitstring)
