"""The compiled and vectorised pieces of the SP 800-22 battery against plain, obviously-correct
Python, and the exact probability tables against brute-force enumeration."""

from __future__ import annotations

import math

import numpy as np
import pytest

from certify.stats import sp800_22 as nist
from certify.stats.sp800_22._common import packed_bits
from certify.stats.sp800_22._kernels import (block_ones, cyclic_pattern_counts, cyclic_pattern_counts_packed, gf2_ranks,
                                             linear_complexities, longest_runs, nonoverlapping_scan, universal_sum)
from certify.stats.sp800_22.matrix import linear_complexity_probabilities, rank_probabilities
from certify.stats.sp800_22.templates import (_block_window_counts, aperiodic_templates, is_aperiodic,
                                              overlapping_exact_probabilities, overlapping_poisson_probabilities)


def rng(seed):
    return np.random.Generator(np.random.PCG64(seed))


def bm_reference(s) -> int:
    """Textbook Berlekamp-Massey over GF(2), bit by bit."""
    n = len(s)
    c, b = [0] * (n + 1), [0] * (n + 1)
    c[0] = b[0] = 1
    L, m = 0, -1
    for N in range(n):
        d = s[N]
        for i in range(1, L + 1):
            d ^= c[i] & s[N - i]
        if d:
            t = c[:]
            for i in range(n + 1 - (N - m)):
                c[i + N - m] ^= b[i]
            if 2 * L <= N:
                L, m, b = N + 1 - L, N, t
    return L


def rank_reference(rows: list[int]) -> int:
    rank, rows = 0, list(rows)
    while rows:
        pivot = rows.pop()
        if pivot:
            rank += 1
            top = pivot.bit_length() - 1
            rows = [r ^ pivot if (r >> top) & 1 else r for r in rows]
    return rank


@pytest.mark.parametrize("M", [1, 13, 63, 64, 65, 127, 128, 129, 500, 1000])
def test_packed_berlekamp_massey_matches_textbook(M):
    g = rng(M)
    # 300: a full set of 256 bit-sliced blocks and a partial one (44 lanes: one word partly used,
    # three empty); 70: one set with a word boundary inside
    blocks = 300 if M < 100 else 70 if M < 200 else 40 if M < 600 else 8
    x = g.integers(0, 2, blocks * M, dtype=np.uint8)
    # add structured blocks: all zeros, a single one at the end, ones at the word and set boundaries
    x[:M] = 0
    x[2 * M - 1] = 1
    for k in (63, 64, 255, 256):
        if k < blocks:
            x[k * M:(k + 1) * M] = 0
            x[(k + 1) * M - 1 - k % 7] = 1
    got = linear_complexities(x, blocks, M)
    want = [bm_reference(x[k * M:(k + 1) * M].tolist()) for k in range(blocks)]
    assert got.tolist() == want


def test_berlekamp_massey_on_an_lfsr_finds_its_degree():
    s = [1] + [0] * 30
    for i in range(31, 2000):
        s.append(s[i - 31] ^ s[i - 28])
    x = np.array(s, np.uint8)
    assert set(linear_complexities(x, 4, 500).tolist()) == {31}


@pytest.mark.parametrize("M, Q", [(3, 3), (6, 8), (32, 32), (20, 40), (64, 64), (40, 10)])
def test_gf2_rank_matches_reference(M, Q):
    g = rng(M * 100 + Q)
    count = 60
    x = g.integers(0, 2, count * M * Q, dtype=np.uint8)
    # a few rank-deficient matrices: repeat a row, zero a matrix
    x[: M * Q] = 0
    x[M * Q: M * Q + Q] = x[M * Q + Q: M * Q + 2 * Q]
    got = gf2_ranks(x, count, M, Q)
    want = []
    for k in range(count):
        mat = x[k * M * Q:(k + 1) * M * Q].reshape(M, Q)
        want.append(rank_reference([int("".join(map(str, row)), 2) for row in mat.tolist()]))
    assert got.tolist() == want


def test_rank_probabilities_by_enumeration():
    # all 2^9 3x3 matrices and all 2^12 3x4 matrices
    for M, Q in ((3, 3), (3, 4), (4, 3)):
        counts = np.zeros(3)
        m = min(M, Q)
        for v in range(2 ** (M * Q)):
            rows = [(v >> (Q * i)) & ((1 << Q) - 1) for i in range(M)]
            r = rank_reference(rows)
            counts[0 if r == m else 1 if r == m - 1 else 2] += 1
        assert np.allclose(counts / 2 ** (M * Q), rank_probabilities(M, Q), atol=1e-15)
    assert [round(p, 4) for p in rank_probabilities(32, 32)] == [0.2888, 0.5776, 0.1336]


@pytest.mark.parametrize("M", [10, 13])
def test_linear_complexity_probabilities_by_enumeration(M):
    from certify.stats.sp800_22.matrix import _lc_class, _lc_mean
    counts = np.zeros(7)
    for v in range(2 ** M):
        s = [(v >> i) & 1 for i in range(M)]
        counts[_lc_class((-1) ** M * (bm_reference(s) - _lc_mean(M)) + 2 / 9)] += 1
    assert np.allclose(counts / 2 ** M, linear_complexity_probabilities(M), atol=1e-15)
    assert np.allclose(linear_complexity_probabilities(500), [1 / 96, 1 / 32, 1 / 8, 1 / 2, 1 / 4, 1 / 16, 1 / 48])


@pytest.mark.parametrize("template, M, K", [("11", 10, 5), ("111", 14, 3), ("101", 12, 4), ("0110", 13, 2)])
def test_overlapping_exact_probabilities_by_enumeration(template, M, K):
    m = len(template)
    counts = np.zeros(K + 1)
    for v in range(2 ** M):
        s = format(v, f"0{M}b")
        occ = sum(s[i:i + m] == template for i in range(M - m + 1))
        counts[min(occ, K)] += 1
    assert np.allclose(counts / 2 ** M, overlapping_exact_probabilities(template, M, K), atol=1e-15)


def test_overlapping_probability_tables_agree_roughly():
    exact = np.array(overlapping_exact_probabilities("1" * 9, 1032, 5))
    from certify.stats.sp800_22.templates import OVERLAPPING_NIST_PI
    assert np.abs(exact - OVERLAPPING_NIST_PI).max() < 5e-7  # the reference code's table: exact, rounded
    poisson = np.array(overlapping_poisson_probabilities(1032, 9, 5))
    assert 3e-3 < np.abs(exact - poisson).max() < 4e-3  # the document's asymptotic formula


def test_aperiodic_templates():
    t9 = aperiodic_templates(9)
    assert len(t9) == 148 and t9[0] == "000000001" and t9[-1] == "111111110"
    assert [len(aperiodic_templates(m)) for m in range(2, 11)] == [2, 4, 6, 12, 20, 40, 74, 148, 284]
    assert not is_aperiodic("101") and is_aperiodic("001")


def test_template_counts_bincount_equals_sequential_scan():
    g = rng(7)
    x = g.integers(0, 2, 8 * 5000, dtype=np.uint8)
    counts = _block_window_counts(x, 8, 5000, 9)
    for t in aperiodic_templates(9):
        scan = nonoverlapping_scan(x, 8, 5000, nist.as_bits(t))
        assert scan.tolist() == counts[:, int(t, 2)].tolist(), t


def test_periodic_template_uses_the_jump_scan():
    # 20 consecutive ones hold 18 overlapping "111" but 6 non-overlapping (jump past each match)
    x = np.array([1] * 20 + [0, 1, 1, 1, 0] * 4, np.uint8)
    r = nist.non_overlapping_template(x, m=3, N=2, templates=["111"], enforce_minimums=False)
    assert r.details["W"] == [[6, 4]]


def test_longest_runs_per_block():
    g = rng(3)
    blocks = g.integers(0, 2, (200, 128), dtype=np.uint8)
    blocks[0] = 0
    blocks[1] = 1
    want = [max((len(run) for run in "".join(map(str, b)).split("0")), default=0) for b in blocks.tolist()]
    assert longest_runs(packed_bits(blocks.ravel()), 200, 16).tolist() == want
    assert block_ones(packed_bits(blocks.ravel()), 200, 16).tolist() == blocks.sum(axis=1).tolist()
    runs = np.zeros((3, 24), np.uint8)  # runs across byte boundaries, ending a block, all ones
    runs[0, 5:19] = 1
    runs[1, 10:] = 1
    runs[2] = 1
    assert longest_runs(packed_bits(runs.ravel()), 3, 3).tolist() == [14, 14, 24]


@pytest.mark.parametrize("m", [1, 2, 5, 11, 16])
def test_cyclic_pattern_counts_and_folding(m):
    from certify.stats.sp800_22.serial import fold
    x = rng(m).integers(0, 2, 3000, dtype=np.uint8)
    s = "".join(map(str, x.tolist()))
    ext = s + s[: m - 1]
    want = np.zeros(2 ** m, np.int64)
    for i in range(len(s)):
        want[int(ext[i:i + m], 2)] += 1
    got = cyclic_pattern_counts(x, m)
    assert got.tolist() == want.tolist()
    # from the packed bits (3000 bits = 375 bytes), and on sequences of 1 and 2 bytes (the windows
    # wrap more than once)
    assert cyclic_pattern_counts_packed(packed_bits(x), 375, m).tolist() == want.tolist()
    for short in (x[:8], x[:16]):
        want_short = cyclic_pattern_counts(short, m)
        assert cyclic_pattern_counts_packed(packed_bits(short), short.size // 8, m).tolist() == want_short.tolist()
    if m > 1:
        assert fold(got).tolist() == cyclic_pattern_counts(x, m - 1).tolist()


def test_packed_window_kernels_equal_the_bit_kernels():
    """The packed-bit window counts (blocks of whole bytes, m <= 17) equal the bit-at-a-time ones,
    on random and all-ones blocks, for every m, block sizes of 1 to 39 bytes, and any template."""
    from certify.stats.sp800_22._kernels import (block_window_counts, block_window_counts_packed, block_window_matches,
                                                 block_window_matches_packed)
    g = rng(21)
    for trial in range(60):
        n_bytes = int(g.integers(1, 40))
        x = g.integers(0, 2, 8 * n_bytes, dtype=np.uint8)
        if trial % 5 == 0:
            x[:] = 1
        block_bytes = int(g.integers(1, n_bytes + 1))
        N, M, m = n_bytes // block_bytes, 8 * block_bytes, int(g.integers(1, 18))
        if m > M:
            continue
        packed = packed_bits(x)
        assert block_window_counts_packed(packed, N, block_bytes, m).tolist() == block_window_counts(x, N, M, m).tolist()
        for code in (int(g.integers(0, 1 << m)), (1 << m) - 1):
            assert (block_window_matches_packed(packed, N, block_bytes, m, code).tolist()
                    == block_window_matches(x, N, M, m, code).tolist())


def test_block_window_counts_match_python():
    from certify.stats.sp800_22._kernels import block_window_matches
    x = rng(4).integers(0, 2, 3 * 200, dtype=np.uint8)
    counts = _block_window_counts(x, 3, 200, 5)
    for code in (0, 5, 31):
        assert block_window_matches(x, 3, 200, 5, code).tolist() == counts[:, code].tolist()
    for j in range(3):
        s = "".join(map(str, x[j * 200:(j + 1) * 200].tolist()))
        want = np.zeros(32, np.int64)
        for i in range(200 - 4):
            want[int(s[i:i + 5], 2)] += 1
        assert counts[j].tolist() == want.tolist()


def test_universal_sum_matches_loop():
    g = rng(11)
    L, Q, K = 4, 40, 3000
    codes = g.integers(0, 16, Q + K)
    last = {}
    for i in range(Q):
        last[codes[i]] = i + 1
    total = 0.0
    for i in range(Q, Q + K):
        total += math.log2(i + 1 - last.get(codes[i], 0))
        last[codes[i]] = i + 1
    from certify.stats.sp800_22._kernels import LOG2_TABLE_SIZE, log2_table
    got = universal_sum(codes.astype(np.int64), L, Q, K, log2_table(LOG2_TABLE_SIZE))
    assert got == pytest.approx(total, rel=1e-12)
    # distances past the table take np.log2 itself: the same sum to the last bit
    assert universal_sum(codes.astype(np.int64), L, Q, K, log2_table(8)) == got


def test_walk_cycles_match_a_direct_count():
    g = rng(5)
    x = g.integers(0, 2, 20_000, dtype=np.uint8)
    r = nist.random_excursions(x, min_cycles=1)
    v = nist.random_excursions_variant(x, min_cycles=1)
    walk = [0]
    for b in x.tolist():
        walk.append(walk[-1] + (1 if b else -1))
    walk.append(0)
    cycles, current = [], []
    for s in walk[1:]:
        if s == 0:
            cycles.append(current)
            current = []
        else:
            current.append(s)
    assert r.details["J"] == v.details["J"] == len(cycles)
    for i, state in enumerate((-4, -3, -2, -1, 1, 2, 3, 4)):
        per_cycle = [min(c.count(state), 5) for c in cycles]
        assert r.details["v"][i] == [per_cycle.count(k) for k in range(6)]
    assert v.details["statistics"] == [walk.count(s) for s in range(-9, 10) if s != 0]


@pytest.mark.parametrize("n", [4, 6, 1000, 1002, 99_999, 100_002, 1_000_000, 1_048_576, 2 * 65_537])
def test_half_length_dft_counts_the_reference_peaks(n):
    """N1 from the half-length complex FFT equals the reference count np.abs(np.fft.rfft(2x-1)) < T,
    on the fast path, on the fallback (a band so wide that every modulus is 'too close to call')
    and for odd n (reference only); the fast moduli agree with the reference far inside the band."""
    import scipy.fft
    from certify.stats.sp800_22.spectral import (FAST_DFT_BAND, _split_twiddles, fft_threshold, half_length_fft,
                                                 peaks_below)
    from certify.stats.sp800_22._kernels import pairs_as_complex
    x = rng(n).integers(0, 2, n, dtype=np.uint8)
    if n > 1000:
        x[: n // 10] = 1  # a biased stretch: large low-frequency peaks too
    reference = np.abs(np.fft.rfft(2.0 * x - 1.0))[: n // 2]
    T = fft_threshold(n)
    want = int(np.count_nonzero(reference < T))
    assert peaks_below(x, T) == want
    assert peaks_below(x, T, band=1e6) == want
    if n % 2 == 0:
        h = n // 2
        z = pairs_as_complex(x, np.empty(h, np.complex128))
        Zt = half_length_fft(z.copy())
        Z = Zt.ravel()  # natural order
        assert np.max(np.abs(Z - scipy.fft.fft(z))) < 1e-9 * math.sqrt(n)
        mirror = np.conj(Z[(h - np.arange(h)) % h])
        n2, n1 = Zt.shape
        w1, w2 = _split_twiddles(n, n1, n2)  # the kernel's w^k = w1[k1] w2[k2], k = k1 + n1 k2
        twiddles = w1[np.arange(h) % n1] * w2[np.arange(h) // n1]
        assert np.max(np.abs(twiddles - np.exp(-2j * np.pi * np.arange(h) / n))) < 1e-15
        fast = np.abs(0.5 * (Z + mirror) + twiddles * (-0.5j * (Z - mirror)))
        assert np.max(np.abs(fast - reference)) < 1e-4 * FAST_DFT_BAND * math.sqrt(n)
    odd = x[:-1] if n % 2 == 0 else x
    T_odd = fft_threshold(odd.size)
    assert peaks_below(odd, T_odd) == int(np.count_nonzero(np.abs(np.fft.rfft(2.0 * odd - 1.0))[: odd.size // 2] < T_odd))


@pytest.mark.parametrize("n", [1, 2, 3, 100, 5000])
def test_walk_extremes_and_cumulative_sums_against_cumsum(n):
    from certify.stats.sp800_22._kernels import walk_extremes, walk_visits
    for x in (rng(n).integers(0, 2, n, dtype=np.uint8), np.ones(n, np.uint8), np.zeros(n, np.uint8)):
        s = np.cumsum(2 * x.astype(np.int64) - 1)
        total, hi, lo = walk_extremes(x)
        assert walk_visits(x)[3:] == (total, hi, lo)  # run_all's shared pass gives the same extremes
        assert total == s[-1]
        assert (hi, lo) == ((s[:-1].max(), s[:-1].min()) if n > 1 else (0, 0))
        r = nist.cumulative_sums(x, enforce_minimums=False)
        backward = np.cumsum(2 * x[::-1].astype(np.int64) - 1)
        assert r.details["statistics"] == [np.abs(s).max(), np.abs(backward).max()]


def test_block_codes_and_short_cyclic_counts():
    from certify.stats.sp800_22._kernels import block_codes
    x = rng(5).integers(0, 2, 1000, dtype=np.uint8)
    for L in (1, 6, 16):
        count = x.size // L
        assert block_codes(packed_bits(x), count, L).tolist() == (x[: count * L].reshape(count, L) @ (1 << np.arange(L - 1, -1, -1))).tolist()
    short = np.array([1, 0, 1], np.uint8)  # fewer bits than m: the windows wrap more than once
    ext = "101" * 3
    want = np.zeros(2 ** 5, np.int64)
    for i in range(3):
        want[int(ext[i:i + 5], 2)] += 1
    assert cyclic_pattern_counts(short, 5).tolist() == want.tolist()


def test_non_overlapping_template_rows_are_the_per_template_computation():
    from scipy import special
    x = rng(8).integers(0, 2, 8 * 4000, dtype=np.uint8)
    r = nist.non_overlapping_template(x, m=3, templates=["111", "001", "010"])
    M, mu, var = r.details["M"], r.details["mu"], r.details["var"]
    for label, W, chi2, p in zip(r.details["labels"], r.details["W"], r.details["statistics"], r.pvalues):
        t = nist.as_bits(label)
        assert W == nonoverlapping_scan(x, 8, M, t).tolist()
        want = float(np.sum((np.array(W) - mu) ** 2) / var)
        assert chi2 == want and p == float(special.gammaincc(4.0, want / 2))


def test_tables_are_computed_once_when_threads_race():
    import threading
    import time as _time
    from certify.stats.sp800_22._common import computed_once
    calls = []

    @computed_once
    def table(m):
        calls.append(m)
        _time.sleep(0.05)  # long enough for every thread to arrive while the first computes
        return (m, m)

    threads = [threading.Thread(target=table, args=(9,)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == [9] and table(9) == (9, 9) and calls == [9]
