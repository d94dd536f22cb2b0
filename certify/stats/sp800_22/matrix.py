"""Sections 2.5 and 2.10: binary matrix Rank and LinearComplexity (both compiled with numba)."""

from __future__ import annotations


import numpy as np

from ._common import as_bits, computed_once, igamc, not_applicable, result
from ._kernels import gf2_ranks, linear_complexities


@computed_once
def rank_probabilities(M: int, Q: int) -> tuple[float, float, float]:
    """Exact P(rank = m), P(rank = m-1), P(rank <= m-2) for a random M x Q matrix over GF(2),
    m = min(M, Q) (section 3.5)."""
    def p_rank(r: int) -> float:
        log2_term = r * (Q + M - r) - M * Q
        prod = 1.0
        for i in range(r):
            prod *= (1 - 2.0 ** (i - Q)) * (1 - 2.0 ** (i - M)) / (1 - 2.0 ** (i - r))
        return 2.0 ** log2_term * prod

    m = min(M, Q)
    full, minus1 = p_rank(m), p_rank(m - 1)
    return full, minus1, 1.0 - full - minus1


# The document's rounded 32x32 values (2.5.4, 3.5), used by its 3x3 worked example as printed.
RANK_NIST_PI = (0.2888, 0.5776, 0.1336)


def rank(bits, alpha: float = 0.01, *, M: int = 32, Q: int = 32, probabilities: str = "exact",
         enforce_minimums: bool = True):
    """2.5 Binary matrix rank. Needs at least 38 matrices (n >= 38 M Q) by the document.

    ``probabilities="exact"`` computes the rank distribution for M x Q; ``"nist"`` uses the
    document's rounded 32x32 values (0.2888, 0.5776, 0.1336) whatever M, Q are: that is how the
    3x3 example of 2.5.4 is printed (P = 0.741948); its exact 3x3 value differs.
    """
    x = as_bits(bits)
    n = x.size
    if not (1 <= Q <= 64 and M >= 2):
        raise ValueError(f"rank: need 1 <= Q <= 64 and M >= 2, got M={M}, Q={Q}")
    N = n // (M * Q)
    if N < (38 if enforce_minimums else 1):
        return not_applicable("Rank", n, alpha, f"{N} matrices of {M}x{Q}: the test needs >= 38 (n >= {38 * M * Q})")
    ranks = gf2_ranks(x, N, M, Q)
    m = min(M, Q)
    f_full = int(np.count_nonzero(ranks == m))
    f_minus1 = int(np.count_nonzero(ranks == m - 1))
    observed = np.array([f_full, f_minus1, N - f_full - f_minus1])
    chi2 = _class_chi2("rank", observed, N, probabilities, lambda: rank_probabilities(M, Q), RANK_NIST_PI)
    # igamc(1, x/2) = exp(-x/2): two degrees of freedom.
    return result("Rank", n, alpha, [igamc(1.0, chi2 / 2)], chi2, 2,
                  f"GF(2) rank of {N} disjoint {M}x{Q} matrices", M=M, Q=Q, N=N,
                  F_full=f_full, F_minus1=f_minus1, F_rest=int(observed[2]), probabilities=probabilities)


def _class_chi2(test: str, observed: np.ndarray, N: int, probabilities: str, exact, nist) -> float:
    """chi^2 of the class counts against N pi: pi = ``exact()`` ("exact") or the reference code's
    table ``nist`` ("nist")."""
    if probabilities == "exact":
        pi = np.array(exact())
    elif probabilities == "nist":
        pi = np.array(nist)
    else:
        raise ValueError(f"{test}: probabilities must be 'exact' or 'nist', got {probabilities!r}")
    return float(np.sum((observed - N * pi) ** 2 / (N * pi)))


# NIST reference code constants for LinearComplexity. pi_0 is printed there as 0.01047, a typo
# for 0.010417 (= 1/96, as the document's own table in 2.10.4 gives). The document's 2.10.8
# chi-square (2.700348) and Appendix B value (0.826335) were computed with the typo.
LINEAR_COMPLEXITY_NIST_PI = (0.01047, 0.03125, 0.125, 0.5, 0.25, 0.0625, 0.020833)


@computed_once
def linear_complexity_probabilities(M: int) -> tuple[float, ...]:
    """Exact class probabilities of T = (-1)^M (L - mu) + 2/9 for M fair bits, from the count of
    length-M sequences with linear complexity L: 1 for L = 0, 2^(2L-1) for 1 <= L <= M/2,
    2^(2(M-L)) above (Gustavson). Classes: T <= -2.5, (-2.5,-1.5], ..., (1.5,2.5], > 2.5."""
    mu = _lc_mean(M)
    probs = np.zeros(7)
    for L in range(M + 1):
        if L == 0:
            log2_count = 0
        elif 2 * L <= M:
            log2_count = 2 * L - 1
        else:
            log2_count = 2 * (M - L)
        p = 2.0 ** (log2_count - M)
        probs[_lc_class(((-1) ** M) * (L - mu) + 2 / 9)] += p
    return tuple(float(p) for p in probs)


def _lc_mean(M: int) -> float:
    return M / 2 + (9 + (-1) ** (M + 1)) / 36 - (M / 3 + 2 / 9) / 2.0 ** M


_LC_EDGES = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5])


def _lc_class(t):
    """Class index 0..6: T <= -2.5, (-2.5, -1.5], ..., (1.5, 2.5], T > 2.5."""
    return np.searchsorted(_LC_EDGES, t, side="left")


def linear_complexity(bits, alpha: float = 0.01, *, M: int = 500, probabilities: str = "exact",
                      enforce_minimums: bool = True):
    """2.10 Linear complexity (Berlekamp-Massey on N = n // M blocks). Document: n >= 10^6,
    500 <= M <= 5000, N >= 200.

    ``probabilities="exact"`` (default) uses the exact class probabilities for M (equal to
    1/96, 1/32, 1/8, 1/2, 1/4, 1/16, 1/48 to ~2^-M); ``"nist"`` reproduces the document's
    printed figures, which use the reference code's pi_0 = 0.01047 typo.
    """
    x = as_bits(bits)
    n = x.size
    N = n // M
    if N < (200 if enforce_minimums else 1) or (enforce_minimums and not 500 <= M <= 5000):
        return not_applicable("LinearComplexity", n, alpha, f"{N} blocks of M = {M}: needs N >= 200, 500 <= M <= 5000")
    L = linear_complexities(x, N, M)
    mu = _lc_mean(M)
    T = ((-1) ** M) * (L - mu) + 2 / 9
    v = np.bincount(_lc_class(T), minlength=7)
    chi2 = _class_chi2("linear_complexity", v, N, probabilities, lambda: linear_complexity_probabilities(M),
                       LINEAR_COMPLEXITY_NIST_PI)
    return result("LinearComplexity", n, alpha, [igamc(3.0, chi2 / 2)], chi2, 6,
                  f"Berlekamp-Massey linear complexity of {N} blocks of {M} bits", M=M, N=N, v=v,
                  probabilities=probabilities)
