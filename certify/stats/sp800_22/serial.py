"""Sections 2.11 and 2.12: Serial and ApproximateEntropy (overlapping m-bit patterns, wrapped)."""

from __future__ import annotations

import math

import numpy as np

from ._common import as_bits, igamc, not_applicable, packed_bits, result, shared
from ._kernels import cyclic_pattern_counts, cyclic_pattern_counts_packed


# In the battery, one count of the Serial test's default 16-bit patterns serves every shorter m
# (the ApproximateEntropy test's 10 and 11 bits) by folding.
SHARED_PATTERN_BITS = 16


def cyclic_counts(x: np.ndarray, m: int) -> np.ndarray:
    """Counts of the 2^m overlapping m-bit patterns of the sequence extended by its first m-1 bits
    (from the packed bits when n is whole bytes and m <= 16)."""
    if x.size % 8 == 0 and x.size and m <= 16:
        return cyclic_pattern_counts_packed(packed_bits(x), x.size // 8, m)
    return cyclic_pattern_counts(x, m)


def pattern_counts(x: np.ndarray, m: int) -> np.ndarray:
    """``cyclic_counts``; in run_all, one count of SHARED_PATTERN_BITS bits folded down."""
    if m > SHARED_PATTERN_BITS:
        return cyclic_counts(x, m)
    counts = shared(x, "patterns", lambda: cyclic_counts(x, SHARED_PATTERN_BITS), outside=lambda: None)
    if counts is None:  # outside run_all: count these m bits
        return cyclic_counts(x, m)
    for _ in range(SHARED_PATTERN_BITS - m):
        counts = fold(counts)
    return counts


def fold(counts: np.ndarray) -> np.ndarray:
    """Cyclic (m-1)-bit pattern counts from the m-bit ones: each m-window starts with its
    (m-1)-window, so v_(m-1)[c] = v_m[2c] + v_m[2c+1]. One pass over the bits serves all m.
    (Two strided slices added: 25x faster than summing a (2^(m-1), 2) reshape over its short axis.)"""
    return counts[0::2] + counts[1::2]


def _psi2(v: np.ndarray, m: int, n: int) -> float:
    if m <= 0:
        return 0.0
    # int64 sum of squares, exact (up to n^2 = 10^12 for n = 10^6: an int32 sum overflows past
    # n = 46341); then one rounding to float.
    return (2 ** m / n) * float(int(np.dot(v, v))) - n


def serial(bits, alpha: float = 0.01, *, m: int = 16, enforce_minimums: bool = True):
    """2.11 Serial test: two p-values (del psi^2_m and del^2 psi^2_m). Needs m < floor(log2 n) - 2."""
    x = as_bits(bits)
    n = x.size
    if m < 2 or n < 2 or (enforce_minimums and m >= int(math.floor(math.log2(n))) - 2):
        return not_applicable("Serial", n, alpha, f"m = {m} needs m >= 2 and m < floor(log2 n) - 2 (n = {n})")
    v_m = pattern_counts(x, m)
    v_m1 = fold(v_m)
    psi_m, psi_m1, psi_m2 = _psi2(v_m, m, n), _psi2(v_m1, m - 1, n), _psi2(fold(v_m1), m - 2, n)
    del1 = psi_m - psi_m1
    del2 = psi_m - 2 * psi_m1 + psi_m2
    ps = [igamc(2 ** (m - 2), del1 / 2), igamc(2 ** (m - 3), del2 / 2)]
    return result("Serial", n, alpha, ps, None, None,
                  f"frequencies of overlapping {m}-, {m - 1}- and {m - 2}-bit patterns",
                  labels=["del psi^2", "del^2 psi^2"], statistics=[del1, del2], m=m,
                  psi2=[psi_m, psi_m1, psi_m2])


def _phi(counts: np.ndarray, n: int) -> float:
    c = counts[counts > 0] / n
    return float(np.sum(c * np.log(c)))


def approximate_entropy(bits, alpha: float = 0.01, *, m: int = 10, enforce_minimums: bool = True):
    """2.12 Approximate entropy. Needs m < floor(log2 n) - 5."""
    x = as_bits(bits)
    n = x.size
    if m < 1 or n < 2 or (enforce_minimums and m >= int(math.floor(math.log2(n))) - 5):
        return not_applicable("ApproximateEntropy", n, alpha, f"m = {m} needs m < floor(log2 n) - 5 (n = {n})")
    v_m1 = pattern_counts(x, m + 1)
    apen = _phi(fold(v_m1), n) - _phi(v_m1, n)
    chi2 = 2 * n * (math.log(2) - apen)
    return result("ApproximateEntropy", n, alpha, [igamc(2 ** (m - 1), chi2 / 2)], chi2, 2 ** m,
                  f"entropy of overlapping {m}- and {m + 1}-bit patterns", m=m, ApEn=apen)
