"""Sections 2.1-2.4 and 2.13: Frequency, BlockFrequency, Runs, LongestRun, CumulativeSums."""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from ._common import as_bits, clean_p, computed_once, erfc, igamc, not_applicable, packed_bits, result, shared
from ._kernels import block_ones, longest_runs, walk_extremes, walk_visits


def frequency(bits, alpha: float = 0.01, *, enforce_minimums: bool = True):
    """2.1 Frequency (monobit). Recommended n >= 100."""
    x = as_bits(bits)
    n = x.size
    if n < (100 if enforce_minimums else 1):
        return not_applicable("Frequency", n, alpha, f"n = {n} < 100 bits")
    s = 2 * int(np.count_nonzero(x)) - n  # Python int: no overflow however long the input
    s_obs = abs(s) / math.sqrt(n)
    return result("Frequency", n, alpha, [erfc(s_obs / math.sqrt(2))], s_obs, None,
                  "proportion of ones in the whole sequence", S_n=s)


def block_frequency(bits, alpha: float = 0.01, *, M: int = 128, enforce_minimums: bool = True):
    """2.2 Frequency within a block. Recommended n >= 100, M >= 20."""
    x = as_bits(bits)
    n = x.size
    N = n // M
    if N < 1 or (enforce_minimums and (n < 100 or M < 20)):
        return not_applicable("BlockFrequency", n, alpha, f"n = {n}, M = {M}: needs n >= 100, M >= 20, n >= M")
    if M % 8 == 0:  # whole bytes: a table popcount of the packed bits
        ones = block_ones(packed_bits(x), N, M // 8)
    else:
        ones = x[: N * M].reshape(N, M).sum(axis=1, dtype=np.int64)
    pi = ones / M
    chi2 = 4.0 * M * float(np.sum((pi - 0.5) ** 2))
    return result("BlockFrequency", n, alpha, [igamc(N / 2, chi2 / 2)], chi2, N,
                  f"proportion of ones in {N} blocks of {M} bits", M=M, N=N)


def runs(bits, alpha: float = 0.01, *, enforce_minimums: bool = True):
    """2.3 Runs. The document's prerequisite: if |pi - 1/2| >= 2/sqrt(n) the sequence already
    fails the frequency criterion and the runs test reports P = 0 (a failure, not 'not applicable':
    the input is long enough, it is just biased)."""
    x = as_bits(bits)
    n = x.size
    if n < (100 if enforce_minimums else 2):
        return not_applicable("Runs", n, alpha, f"n = {n} < 100 bits")
    pi = int(np.count_nonzero(x)) / n
    tau = 2 / math.sqrt(n)
    if abs(pi - 0.5) >= tau:
        return result("Runs", n, alpha, [0.0], None, None, "number of runs (not computed)",
                      pi=pi, tau=tau, prerequisite="frequency prerequisite |pi - 1/2| < 2/sqrt(n) failed")
    v_obs = 1 + int(np.count_nonzero(x[1:] != x[:-1]))
    num = abs(v_obs - 2 * n * pi * (1 - pi))
    den = 2 * math.sqrt(2 * n) * pi * (1 - pi)
    return result("Runs", n, alpha, [erfc(num / den)], v_obs, None,
                  "total number of runs of identical bits", pi=pi, V_obs=v_obs)


# Section 2.4.2 table: block length M by n, class boundaries (longest run <= lo, ..., >= hi).
_LONGEST_RUN_SETUP = ((128, 8, 1, 4), (6272, 128, 4, 9), (750_000, 10_000, 10, 16))

# The document's 4-decimal class probabilities (2.4.4 / section 3.4), which the worked examples
# and Appendix B (and the NIST reference code) use.
_LONGEST_RUN_NIST_PI = {
    8: (0.2148, 0.3672, 0.2305, 0.1875),
    128: (0.1174, 0.2430, 0.2493, 0.1752, 0.1027, 0.1124),
    10_000: (0.0882, 0.2092, 0.2483, 0.1933, 0.1208, 0.0675, 0.0727),
}


@computed_once
def longest_run_probabilities(M: int, lo: int, hi: int) -> tuple[float, ...]:
    """Exact class probabilities for the longest run of ones in M fair bits:
    P(L <= lo), P(L = lo+1), ..., P(L >= hi), by dynamic programming over the current run."""
    def p_at_most(k: int) -> float:
        # state j = length of the current trailing run of ones (0..k)
        state = np.zeros(k + 1)
        state[0] = 1.0
        for _ in range(M):
            new = np.zeros(k + 1)
            new[0] = 0.5 * state.sum()
            new[1:] = 0.5 * state[:-1]
            state = new
        return float(state.sum())

    cdf = [p_at_most(k) for k in range(lo, hi)]
    probs = [cdf[0]] + [cdf[i] - cdf[i - 1] for i in range(1, len(cdf))] + [1.0 - cdf[-1]]
    return tuple(probs)


def longest_run(bits, alpha: float = 0.01, *, M: int | None = None, probabilities: str = "exact",
                enforce_minimums: bool = True):
    """2.4 Longest run of ones in a block.

    ``probabilities="exact"`` (default) computes the class probabilities exactly; ``"nist"`` uses
    the document's 4-decimal table. The document's printed p-values (2.4.8: 0.180609; Appendix B
    for e: 0.718945) come from the rounded table; the exact probabilities give 0.180598 and
    0.718366 on the same counts. Both are reproduced in the tests.
    """
    x = as_bits(bits)
    n = x.size
    if M is None:
        if n < 128:
            return not_applicable("LongestRun", n, alpha, f"n = {n} < 128 bits")
        setup = [s for s in _LONGEST_RUN_SETUP if n >= s[0]][-1]
    else:
        matching = [s for s in _LONGEST_RUN_SETUP if s[1] == M]
        if not matching:
            raise ValueError(f"longest_run: M must be 8, 128 or 10000, got {M}")
        setup = matching[0]
        if enforce_minimums and n < setup[0]:
            return not_applicable("LongestRun", n, alpha, f"n = {n} < {setup[0]} bits for M = {M}")
    _, M, lo, hi = setup
    N = n // M
    if N < 1:
        return not_applicable("LongestRun", n, alpha, f"n = {n} < M = {M}")
    longest = longest_runs(packed_bits(x), N, M // 8)  # M = 8, 128 or 10,000: whole bytes
    classes = np.clip(longest, lo, hi) - lo
    v = np.bincount(classes, minlength=hi - lo + 1)
    if probabilities == "exact":
        pi = np.array(longest_run_probabilities(M, lo, hi))
    elif probabilities == "nist":
        pi = np.array(_LONGEST_RUN_NIST_PI[M])
    else:
        raise ValueError(f"longest_run: probabilities must be 'exact' or 'nist', got {probabilities!r}")
    K = hi - lo
    chi2 = float(np.sum((v - N * pi) ** 2 / (N * pi)))
    return result("LongestRun", n, alpha, [igamc(K / 2, chi2 / 2)], chi2, K,
                  f"longest run of ones in {N} blocks of {M} bits", M=M, N=N, v=v,
                  probabilities=probabilities)


def cumulative_sums(bits, alpha: float = 0.01, *, enforce_minimums: bool = True):
    """2.13 Cumulative sums, forward (mode 0) and backward (mode 1): two p-values."""
    x = as_bits(bits)
    n = x.size
    if n < (100 if enforce_minimums else 1):
        return not_applicable("CumulativeSums", n, alpha, f"n = {n} < 100 bits")
    # One compiled pass (int64: no overflow however long the input); in run_all, the pass of the
    # excursion tests. Backward partial sums are S_n - S_(k-1), so their largest modulus is |S_n|
    # or S_n minus the smallest / the largest S_k minus S_n over k < n.
    walk = shared(x, "walk_visits", lambda: walk_visits(x), outside=lambda: None)
    total, hi, lo = (int(v) for v in (walk_extremes(x) if walk is None else walk[3:]))
    z_fwd = max(abs(total), abs(hi), abs(lo)) if n > 1 else abs(total)
    z_bwd = max(abs(total), total - lo, hi - total) if n > 1 else abs(total)
    ps = [cusum_pvalue(n, z_fwd), cusum_pvalue(n, z_bwd)]
    return result("CumulativeSums", n, alpha, ps, None, None,
                  "maximal excursion of the +/-1 random walk", labels=["forward", "backward"],
                  statistics=[z_fwd, z_bwd])


def cusum_pvalue(n: int, z: int) -> float:
    """P-value of section 2.13.4 step (4), summing over the integers k inside each range."""
    if z == 0:
        return 1.0
    sqrt_n = math.sqrt(n)
    k1 = np.arange(math.ceil((-n / z + 1) / 4), math.floor((n / z - 1) / 4) + 1)
    k2 = np.arange(math.ceil((-n / z - 3) / 4), math.floor((n / z - 1) / 4) + 1)
    nd = special.ndtr
    s1 = np.sum(nd((4 * k1 + 1) * z / sqrt_n) - nd((4 * k1 - 1) * z / sqrt_n))
    s2 = np.sum(nd((4 * k2 + 3) * z / sqrt_n) - nd((4 * k2 + 1) * z / sqrt_n))
    return clean_p(1.0 - s1 + s2)
