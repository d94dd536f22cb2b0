"""numba kernels of the SP 800-90B IID track: the permutation-test statistics of 5.1 and a
seeded Fisher-Yates shuffle (xoshiro256**, the generator family of the NIST tool)."""

from __future__ import annotations

import numba as nb
import numpy as np

from certify.pool import cpus, map_in_order, row_ranges

from ._bzip2 import compressed_size as _bzip2_size
from ._kernels import fma

N_STATS = 19
STAT_NAMES = ("excursion", "numDirectionalRuns", "lenDirectionalRuns", "numIncreasesDecreases", "numRunsMedian",
              "lenRunsMedian", "avgCollision", "maxCollision", "periodicity(1)", "periodicity(2)", "periodicity(8)",
              "periodicity(16)", "periodicity(32)", "covariance(1)", "covariance(2)", "covariance(8)",
              "covariance(16)", "covariance(32)", "compression")
LAGS = np.array([1, 2, 8, 16, 32], dtype=np.int64)


@nb.njit(inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@nb.njit(cache=True, nogil=True)
def seed_state(seed, stream=0):
    """xoshiro256** state for (seed, stream) via splitmix64: one independent stream per permutation."""
    state = np.zeros(4, dtype=np.uint64)
    z = np.uint64(seed) ^ (np.uint64(stream) * np.uint64(0xD1B54A32D192ED03))
    for i in range(4):
        z = z + np.uint64(0x9E3779B97F4A7C15)
        x = z
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        state[i] = x ^ (x >> np.uint64(31))
    return state


@nb.njit(inline="always")
def _next(s):
    result = _rotl(s[1] * np.uint64(5), 7) * np.uint64(9)
    t = s[1] << np.uint64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


@nb.njit(inline="always")
def _below(bound, s):
    """Uniform integer in [0, bound) for bound < 2^32, without bias (Lemire's multiply-shift with
    rejection, on the top 32 bits of the generator's output)."""
    b = np.uint64(bound)
    m = (_next(s) >> np.uint64(32)) * b
    low = m & np.uint64(0xFFFFFFFF)
    if low < b:
        threshold = (np.uint64(0x100000000) - b) % b
        while low < threshold:
            m = (_next(s) >> np.uint64(32)) * b
            low = m & np.uint64(0xFFFFFFFF)
    return np.int64(m >> np.uint64(32))


@nb.njit(cache=True, nogil=True)
def shuffle_reference(a, state):
    """Fisher-Yates shuffle of ``a`` in place, drawing through ``state`` (the plain form of ``shuffle``)."""
    for i in range(a.size - 1, 0, -1):
        j = _below(i + 1, state)
        t = a[i]
        a[i] = a[j]
        a[j] = t


@nb.njit(cache=True, nogil=True)
def shuffle(a, state):
    """Fisher-Yates shuffle of ``a`` in place: the same draws and swaps as ``shuffle_reference``,
    with the generator's state held in locals (an array state is stored and reloaded at every
    draw, because the compiler cannot tell it from ``a``: about 2x slower)."""
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    mask32 = np.uint64(0xFFFFFFFF)
    for i in range(a.size - 1, 0, -1):
        b = np.uint64(i + 1)
        while True:
            out = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
            t = s1 << np.uint64(17)
            s2 ^= s0
            s3 ^= s1
            s1 ^= s2
            s0 ^= s3
            s2 ^= t
            s3 = _rotl(s3, 45)
            m = (out >> np.uint64(32)) * b
            low = m & mask32
            if low >= b or low >= (np.uint64(0x100000000) - b) % b:
                break
        j = np.int64(m >> np.uint64(32))
        x = a[i]
        a[i] = a[j]
        a[j] = x
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3


@nb.njit(cache=True, nogil=True)
def decimal_text(raw):
    """The samples written as space-separated decimals (what 5.1.11 compresses), as bytes."""
    out = np.empty(raw.size * 4, dtype=np.uint8)
    at = 0
    for i in range(raw.size):
        v = np.int64(raw[i])
        if i:
            out[at] = 32
            at += 1
        if v >= 100:
            out[at] = 48 + v // 100
            at += 1
        if v >= 10:
            out[at] = 48 + (v // 10) % 10
            at += 1
        out[at] = 48 + v % 10
        at += 1
    return out[:at]


BZIP2_LEVEL = 5                                  # 5.1.11: bzip2 with 500 kB blocks
BZIP2_NONE, BZIP2_COUNT, BZIP2_COPY = 0, 1, 2    # statistic 18 in a batch: skipped, counted, values copied out


@nb.njit(cache=True, nogil=True)
def compressed_size(raw):
    """5.1.11's statistic, len(bz2.compress(decimal_text(raw), 5)), counted by ``_bzip2``."""
    return _bzip2_size(decimal_text(raw), BZIP2_LEVEL)


@nb.njit(cache=True, nogil=True)
def _conversion1(x):
    m = (x.size + 7) // 8
    out = np.zeros(m, dtype=np.uint8)
    for i in range(x.size):
        out[i // 8] += x[i]
    return out


@nb.njit(cache=True, nogil=True)
def _conversion2(x):
    m = (x.size + 7) // 8
    out = np.zeros(m, dtype=np.uint8)
    for i in range(x.size):
        out[i // 8] += x[i] << (7 - i % 8)
    return out


@nb.njit(cache=True, nogil=True)
def statistics(data, values, k, raw_mean, median, active, out):
    """The 5.1 statistics (all but compression, index 18) of one arrangement into ``out``,
    for the tests still ``active``. ``data`` holds the symbols 0..k-1 and ``values[symbol]`` the
    sample value (the excursion and, for non-binary data, the covariance use the values);
    binary data (k == 2) uses conversions I and II as 5.1 directs."""
    n = data.size
    binary = k == 2
    if active[0]:
        running = 0.0
        best = 0.0
        for i in range(n):
            running += values[data[i]]
            d = abs(fma(-(i + 1.0), raw_mean, running))  # fused, as in the NIST tool's build
            if d > best:
                best = d
        out[0] = best
    c1 = _conversion1(data) if binary else data
    if active[1] or active[2] or active[3]:
        # the up/down sequence of consecutive samples (a tie counts as up): its runs, longest run
        # and ups; branch-free, since the direction is a coin toss for IID data
        m = c1.size
        ups = 0
        runs = 1 if m - 1 > 0 else 0
        longest = 1
        if m > 1:
            prev = np.int64(c1[0] <= c1[1])
            ups = prev
            run = 1
            for i in range(1, m - 1):
                up = np.int64(c1[i] <= c1[i + 1])
                ups += up
                change = up ^ prev
                runs += change
                run = (run + 1) * (1 - change) + change
                longest = max(longest, run)
                prev = up
        out[1] = runs
        out[2] = longest
        out[3] = max(ups, (m - 1) - ups)
    if active[4] or active[5]:
        # runs of samples below / not below the median, branch-free as above
        med = 0.5 if binary else median
        runs = 1 if n > 0 else 0
        longest = 1
        run = 1
        prev = np.int64(data[0] < med)
        for i in range(1, n):
            below = np.int64(data[i] < med)
            change = below ^ prev
            runs += change
            run = (run + 1) * (1 - change) + change
            longest = max(longest, run)
            prev = below
        out[4] = runs
        out[5] = longest
    if active[6] or active[7]:
        c2 = _conversion2(data) if binary else data
        kk = 256 if binary else k
        # one pass: a value seen since the segment's start closes the segment (its length
        # counted) and the next starts after it; seen[v] == mark: v occurred in this segment
        # (one loop, not one per segment: 25% faster)
        seen = np.zeros(kk, dtype=np.int64)
        mark = 1
        start = 0
        total = 0
        count = 0
        biggest = 0
        for p in range(c2.size):
            v = c2[p]
            if seen[v] == mark:
                length = p - start + 1
                total += length
                count += 1
                biggest = max(biggest, length)
                start = p + 1
                mark += 1
            else:
                seen[v] = mark
        out[6] = total / count if count else np.nan
        out[7] = biggest
    per = c1
    m = per.size
    for t in range(5):
        p = LAGS[t]
        if active[8 + t]:
            hits = 0
            for i in range(m - p):
                if per[i] == per[i + p]:
                    hits += 1
            out[8 + t] = hits
        if active[13 + t]:
            acc = 0
            if binary:
                for i in range(m - p):
                    acc += np.int64(c1[i]) * np.int64(c1[i + p])
            else:
                for i in range(m - p):
                    acc += np.int64(values[data[i]]) * np.int64(values[data[i + p]])
            out[13 + t] = acc


@nb.njit(cache=True, nogil=True)
def proportions(symbols, k):
    """p_i as the NIST tool accumulates them: 1/n added once per sample, in double."""
    p = np.zeros(k)
    step = 1.0 / symbols.size
    for i in range(symbols.size):
        p[symbols[i]] += step
    return p


@nb.njit(cache=True, nogil=True)
def _permutation_range(data, values, k, raw_mean, median, active, seed, first, lo, hi, out_stats, out_raw, bzip2):
    """Rows lo .. hi - 1 of ``permutation_batch``."""
    d = np.empty_like(data)
    raw = np.empty(data.size if bzip2 == BZIP2_COUNT else 0, dtype=np.uint8)
    for b in range(lo, hi):
        for i in range(d.size):
            d[i] = data[i]
        shuffle(d, seed_state(seed, first + b))
        statistics(d, values, k, raw_mean, median, active, out_stats[b])
        if bzip2 != BZIP2_NONE:
            row = raw if bzip2 == BZIP2_COUNT else out_raw[b]
            for i in range(d.size):
                row[i] = values[d[i]]
            if bzip2 == BZIP2_COUNT:
                out_stats[b, 18] = compressed_size(row)


def _row_ranges(rows: int) -> list[tuple[int, int]]:
    """``rows`` split into one contiguous range per CPU the process may use (fewer when short)."""
    return row_ranges(rows, cpus())


def permutation_batch(data, values, k, raw_mean, median, active, seed, first, out_stats, out_raw, bzip2):
    """Permutations first .. first + len(out_stats) - 1, side by side: each shuffles a fresh copy
    of the samples with its own stream (so the results do not depend on the thread count) and
    computes the active statistics; the compression statistic (18) by ``bzip2``: BZIP2_COUNT
    counts it in the kernel (``compressed_size``), BZIP2_COPY writes the shuffled values to
    ``out_raw`` for libbz2, BZIP2_NONE leaves it. Ranges of permutations run on the process's
    threads (``certify.pool``)."""
    args = (data, values, np.int64(k), np.float64(raw_mean), np.float64(median), active, np.uint64(seed),
            np.int64(first))
    map_in_order(_permutation_range, [(*args, lo, hi, out_stats, out_raw, np.int64(bzip2))
                                      for lo, hi in _row_ranges(out_stats.shape[0])], cpus())


# ---------------------------------------------------------------- 5.2 chi-square statistics

@nb.njit(cache=True, nogil=True)
def pool_cells(expected, order):
    """5.2.1's bins: the cells in ``order`` (by expectation, then index) merged greedily into bins
    of expectation >= 5, a short last bin joining the one before. Returns each cell's bin and the
    bins' expectations (summed in that order, as the NIST tool does)."""
    bin_of = np.full(expected.size, -1, dtype=np.int64)
    sums = np.zeros(expected.size)
    current = 0
    acc = 0.0
    for i in order:
        if acc >= 5.0:
            sums[current] = acc
            current += 1
            acc = 0.0
        bin_of[i] = current
        acc += expected[i]
    if current != 0 and acc < 5.0:
        for i in range(bin_of.size):
            if bin_of[i] == current:
                bin_of[i] = current - 1
        sums[current - 1] += acc
        return bin_of, sums[:current].copy()
    sums[current] = acc
    return bin_of, sums[:current + 1].copy()


@nb.njit(inline="always")
def _score(observed, expected):
    score = 0.0
    for b in range(expected.size):
        d = observed[b] - expected[b]
        score += d * d / expected[b]
    return score


@nb.njit(cache=True, nogil=True)
def independence_score(data, width, k, cell_bin, expected):
    """5.2.1 / 5.2.3: T over the tuples of ``width`` consecutive symbols (pairs; m-bit blocks of
    binary data): the tuple's cell (its symbols as base-k digits) counted into its bin."""
    observed = np.zeros(expected.size, dtype=np.int64)
    for u in range(data.size // width):
        cell = 0
        for j in range(width):
            cell = cell * k + np.int64(data[u * width + j])
        observed[cell_bin[cell]] += 1
    return _score(observed, expected)


@nb.njit(cache=True, nogil=True)
def fit_score(data, block, symbol_bin, expected):
    """5.2.2 / 5.2.4: T summed over ten consecutive blocks of ``block`` samples."""
    total = 0.0
    observed = np.zeros(expected.size, dtype=np.int64)
    for j in range(10):
        observed[:] = 0
        for i in range(j * block, (j + 1) * block):
            observed[symbol_bin[data[i]]] += 1
        total += _score(observed, expected)
    return total


@nb.njit(cache=True, nogil=True)
def _chi_square_range(data, seed, first, width, k, cell_bin, independence_expected, block, symbol_bin,
                      fit_expected, lo, hi, out):
    """Rows lo .. hi - 1 of ``chi_square_permutations``."""
    d = np.empty_like(data)
    for b in range(lo, hi):
        for i in range(d.size):
            d[i] = data[i]
        shuffle(d, seed_state(seed, first + b))
        out[b, 0] = independence_score(d, width, k, cell_bin, independence_expected)
        out[b, 1] = fit_score(d, block, symbol_bin, fit_expected)


def chi_square_permutations(data, seed, first, width, k, cell_bin, independence_expected, block, symbol_bin,
                            fit_expected, out):
    """Permutations first .. first + len(out) - 1 of the samples (stream ``first + b`` of ``seed``):
    out[b] = (independence T, goodness-of-fit T) of each, side by side; ranges of them on the
    process's threads."""
    args = (data, np.uint64(seed), np.int64(first), np.int64(width), np.int64(k), cell_bin, independence_expected,
            np.int64(block), symbol_bin, fit_expected)
    map_in_order(_chi_square_range, [(*args, lo, hi, out) for lo, hi in _row_ranges(out.shape[0])], cpus())
