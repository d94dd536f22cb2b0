"""Sections 2.7 and 2.8: NonOverlappingTemplate and OverlappingTemplate matching."""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from ._common import as_bits, computed_once, igamc, not_applicable, packed_bits, result
from ._kernels import (block_window_counts, block_window_counts_packed, block_window_matches,
                       block_window_matches_packed, nonoverlapping_scan)


def _template_array(t) -> np.ndarray:
    arr = as_bits(t)
    if arr.size < 1:
        raise ValueError("template: empty")
    return arr


def _code(t: np.ndarray) -> int:
    return int("".join(map(str, t.tolist())), 2)


def is_aperiodic(t) -> bool:
    """No proper prefix equals the suffix of the same length: occurrences can never overlap."""
    t = _template_array(t).tolist()
    m = len(t)
    return all(t[:k] != t[m - k:] for k in range(1, m))


@computed_once
def aperiodic_templates(m: int) -> tuple[str, ...]:
    """All aperiodic m-bit templates in increasing binary order (the reference code's
    templates/template<m> files; 148 for m = 9)."""
    out = []
    for v in range(2 ** m):
        s = format(v, f"0{m}b")
        if is_aperiodic(s):
            out.append(s)
    return tuple(out)


@computed_once
def _aperiodic_codes(m: int) -> tuple[int, ...]:
    return tuple(int(t, 2) for t in aperiodic_templates(m))


def _whole_bytes(M: int, m: int) -> bool:
    """Blocks of whole bytes and windows of at most 17 bits: the packed kernels apply."""
    return M % 8 == 0 and m <= 17


def _block_window_counts(x: np.ndarray, N: int, M: int, m: int) -> np.ndarray:
    """counts[j, c] = number of m-bit windows with value c lying wholly inside block j."""
    if _whole_bytes(M, m):
        return block_window_counts_packed(packed_bits(x), N, M // 8, m)
    return block_window_counts(x, N, M, m)


def non_overlapping_template(bits, alpha: float = 0.01, *, m: int = 9, N: int = 8, templates=None,
                             enforce_minimums: bool = True):
    """2.7 Non-overlapping template matching: one p-value per template (default: all aperiodic
    m-bit templates, 148 for m = 9), each over N = 8 blocks of M = n // N bits.

    Aperiodic templates cannot overlap themselves, so their non-overlapping count equals the count
    of all windows: one bincount over every m-bit window gives all 148 at once. A periodic
    template given explicitly is counted with the document's jump-after-match scan.
    """
    x = as_bits(bits)
    n = x.size
    if templates is None:
        labels, codes = list(aperiodic_templates(m)), _aperiodic_codes(m)
        aperiodic = [True] * len(labels)
    else:
        tlist = [_template_array(t) for t in templates]
        if any(t.size != m for t in tlist):
            raise ValueError(f"non_overlapping_template: every template must have m = {m} bits")
        labels = ["".join(map(str, t.tolist())) for t in tlist]
        codes = [_code(t) for t in tlist]
        aperiodic = [is_aperiodic(t) for t in tlist]
    M = n // N
    mu = (M - m + 1) / 2 ** m
    var = M * (1 / 2 ** m - (2 * m - 1) / 2 ** (2 * m))
    if M < m or var <= 0 or (enforce_minimums and mu < 5):
        return not_applicable("NonOverlappingTemplate", n, alpha,
                              f"blocks of M = {M} bits: expected count {mu:.2f} of an {m}-bit template is below 5")
    counts = _block_window_counts(x, N, M, m) if any(aperiodic) else None
    W = np.empty((len(labels), N), dtype=np.int64)
    for i, code in enumerate(codes):
        W[i] = counts[:, code] if aperiodic[i] else nonoverlapping_scan(x, N, M, tlist[i])
    # Row by row these are the per-template float(np.sum((W_t - mu) ** 2) / var) and
    # igamc(N/2, chi2/2): the same reductions and the same gammaincc, over all templates at once.
    chi2s = (np.sum((W - mu) ** 2, axis=1) / var).tolist()
    ps = special.gammaincc(N / 2, np.array(chi2s) / 2).tolist()
    W_all = W.tolist()
    return result("NonOverlappingTemplate", n, alpha, ps, None, N,
                  f"{len(labels)} templates of {m} bits, non-overlapping matches in {N} blocks of {M}",
                  labels=labels, statistics=chi2s, m=m, N=N, M=M, mu=mu, var=var, W=W_all)


# Reference-code probabilities for m = 9, M = 1032, K = 5 (Hamano & Kaneko's correction): our
# exact values rounded to 6 digits. Rev. 1a's 2.8.8 example and Appendix B do NOT use them: they
# use the document's compound-Poisson formula ("poisson" below).
OVERLAPPING_NIST_PI = (0.364091, 0.185659, 0.139381, 0.100571, 0.070432, 0.139865)


def overlapping_poisson_probabilities(M: int, m: int, K: int) -> tuple[float, ...]:
    """The document's compound-Poisson approximation (2.8.4 / 3.8): lambda = (M-m+1)/2^m, eta = lambda/2."""
    eta = (M - m + 1) / 2 ** m / 2
    probs = [math.exp(-eta)]
    for u in range(1, K):
        probs.append(math.exp(-eta) * sum(math.comb(u - 1, l - 1) * eta ** l / math.factorial(l)
                                          for l in range(1, u + 1)) / 2 ** u)
    probs.append(1 - sum(probs))
    return tuple(probs)


@computed_once
def overlapping_exact_probabilities(template: str, M: int, K: int) -> tuple[float, ...]:
    """Exact P(#overlapping occurrences in M fair bits = 0, 1, ..., K-1, >= K), by dynamic
    programming over the KMP automaton of the template (state = matched prefix length)."""
    t = [int(c) for c in template]
    m = len(t)
    fail = [0] * (m + 1)
    for i in range(1, m):
        k = fail[i]
        while k and t[i] != t[k]:
            k = fail[k]
        fail[i + 1] = k + 1 if t[i] == t[k] else 0

    def step(state: int, b: int) -> int:
        if state == m:
            state = fail[m]
        while state and t[state] != b:
            state = fail[state]
        return state + 1 if t[state] == b else 0

    trans = np.array([[step(s, b) for b in (0, 1)] for s in range(m + 1)])
    dist = np.zeros((m + 1, K + 1))
    dist[0, 0] = 1.0
    for _ in range(M):
        new = np.zeros_like(dist)
        for s in range(m + 1):
            for b in (0, 1):
                s2 = trans[s, b]
                if s2 == m:  # one more occurrence; counts >= K stay in the last class
                    new[s2, 1:] += 0.5 * dist[s, :-1]
                    new[s2, K] += 0.5 * dist[s, K]
                else:
                    new[s2] += 0.5 * dist[s]
        dist = new
    return tuple(float(p) for p in dist.sum(axis=0))


def overlapping_template(bits, alpha: float = 0.01, *, m: int = 9, M: int = 1032, K: int = 5,
                         template=None, N: int | None = None, probabilities: str = "exact",
                         enforce_minimums: bool = True):
    """2.8 Overlapping template matching of ``template`` (default m ones) in N = n // M blocks.

    probabilities: ``"exact"`` (default) is the exact distribution of the overlapping count in M
    bits; ``"nist"`` the reference code's table (m = 9, M = 1032, K = 5 only), which is the exact
    one rounded to 6 digits; ``"poisson"`` the document's compound-Poisson formula (2.8.4 / 3.8),
    off by up to 3.8e-3 for m = 9, which its 2.8.4 and 2.8.8 examples and Appendix B use (e:
    P = 0.110434 printed; 0.159037 exact).
    """
    x = as_bits(bits)
    n = x.size
    t = _template_array("1" * m if template is None else template)
    m = t.size
    if N is None:
        N = n // M
    if N < 1 or M < m:
        return not_applicable("OverlappingTemplate", n, alpha, f"n = {n} holds no block of M = {M}")
    if probabilities == "exact":
        pi = np.array(overlapping_exact_probabilities("".join(map(str, t.tolist())), M, K))
    elif probabilities == "nist":
        if (m, M, K) != (9, 1032, 5):
            raise ValueError("overlapping_template: the 'nist' table exists only for m=9, M=1032, K=5")
        pi = np.array(OVERLAPPING_NIST_PI)
    elif probabilities == "poisson":
        pi = np.array(overlapping_poisson_probabilities(M, m, K))
    else:
        raise ValueError(f"overlapping_template: probabilities must be exact, nist or poisson, got {probabilities!r}")
    if enforce_minimums and float(np.min(N * pi)) < 5:
        return not_applicable("OverlappingTemplate", n, alpha,
                              f"{N} blocks of {M}: smallest expected class count {float(np.min(N * pi)):.1f} < 5")
    if _whole_bytes(M, m):
        counts = block_window_matches_packed(packed_bits(x), N, M // 8, m, _code(t))
    else:
        counts = block_window_matches(x, N, M, m, _code(t))
    v = np.bincount(np.minimum(counts, K), minlength=K + 1)
    chi2 = float(np.sum((v - N * pi) ** 2 / (N * pi)))
    return result("OverlappingTemplate", n, alpha, [igamc(K / 2, chi2 / 2)], chi2, K,
                  f"overlapping matches of {''.join(map(str, t.tolist()))} in {N} blocks of {M} bits",
                  m=m, M=M, N=N, K=K, v=v, probabilities=probabilities)
