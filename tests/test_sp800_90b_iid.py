"""SP 800-90B IID track (5.1, 5.2) and restart tests (3.1.4), against the document's definitions.

Each 5.1 statistic is recomputed by a direct transcription of its definition (5.1.1-5.1.11,
with conversions I and II for binary data); the chi-square statistics and LRS length are
recounted by hand; an i.i.d. source passes and dependent sources fail (negative controls).
Seeds are fixed."""

from __future__ import annotations

import bz2
import math
from collections import Counter

import numba as nb
import numpy as np
import pytest

from certify.pool import cpus
from certify.stats.sp800_90b import _iid_kernels as K
from certify.stats.sp800_90b.iid import (assess_iid, baseline, chi_square_tests, lrs_test, permutation_tests,
                                         sample_values)
from certify.stats.sp800_90b.restart import restart_tests, sanity_cutoff
from certify.stats.sp800_90b.samples import EntropyInputError, prepare


def _runs(signs):
    runs, longest, cur = 1, 1, 1
    for a, b in zip(signs, signs[1:]):
        if a == b:
            cur += 1
        else:
            runs += 1
            cur = 1
        longest = max(longest, cur)
    return runs, longest


def reference_statistics(samples):
    """5.1.1 - 5.1.10 transcribed from the document (conversion I / II for binary data)."""
    s = [int(v) for v in samples.symbols]
    raw = [int(v) for v in samples.raw]
    n = len(s)
    binary = samples.alphabet_size == 2
    mean, median = baseline(samples)
    c1 = [sum(s[i:i + 8]) for i in range(0, n, 8)] if binary else s
    c2 = [sum(b << (7 - j) for j, b in enumerate(s[i:i + 8])) for i in range(0, n, 8)] if binary else s
    out = [max(abs(sum(raw[:i + 1]) - (i + 1) * mean) for i in range(n))]
    signs = [1 if c1[i] <= c1[i + 1] else -1 for i in range(len(c1) - 1)]
    runs, longest = _runs(signs)
    out += [runs, longest, max(signs.count(1), signs.count(-1))]
    med = [1 if v >= median else -1 for v in s]
    out += list(_runs(med))
    times, i = [], 0
    while True:  # 5.1.7: from each start, how many samples until a value repeats
        seen = set()
        j = i
        while j < len(c2) and c2[j] not in seen:
            seen.add(c2[j])
            j += 1
        if j >= len(c2):
            break
        times.append(j - i + 1)
        i = j + 1
    out += [sum(times) / len(times), max(times)]
    cov = c1 if binary else raw
    out += [sum(c1[i] == c1[i + p] for i in range(len(c1) - p)) for p in (1, 2, 8, 16, 32)]
    out += [sum(cov[i] * cov[i + p] for i in range(len(cov) - p)) for p in (1, 2, 8, 16, 32)]
    return out


@pytest.mark.parametrize("k,bits,n", [(2, 1, 803), (5, 3, 600), (256, 8, 900), (2, 8, 400)])
def test_permutation_statistics_match_their_definitions(k, bits, n):
    rng = np.random.default_rng(k + n)
    values = rng.choice(np.arange(1 << bits)[:k] if k < (1 << bits) else np.arange(k), size=n)
    if k == 2 and bits == 8:
        values = np.where(values == 1, 0xC3, 0x11)  # two byte values: treated as binary 0/1
    samples = prepare(values, bits)
    mean, median = baseline(samples)
    out = np.full(K.N_STATS, -1.0)
    K.statistics(samples.symbols, sample_values(samples), samples.alphabet_size, mean, median,
                 np.ones(K.N_STATS, bool), out)
    ref = reference_statistics(samples)
    assert out[0] == pytest.approx(ref[0], rel=1e-12)
    assert list(out[1:18]) == pytest.approx(ref[1:], rel=1e-15)
    # with the longest directional run decided, the runs and ups come from a counting pass alone
    active = np.ones(K.N_STATS, bool)
    active[2] = False
    counts = np.full(K.N_STATS, -1.0)
    K.statistics(samples.symbols, sample_values(samples), samples.alphabet_size, mean, median, active, counts)
    assert (counts[1], counts[2], counts[3]) == (ref[1], -1.0, ref[3])


def test_compression_statistic_is_bzip2_of_the_decimal_text():
    samples = prepare([3, 10, 200, 7] * 50, 8)
    from certify.stats.sp800_90b.iid import _compressed_size
    assert _compressed_size(samples.raw) == len(bz2.compress(" ".join(["3 10 200 7"] * 50).encode(), 5))


def test_shuffle_is_a_seeded_permutation():
    a = np.arange(200, dtype=np.uint8)
    K.shuffle(a, K.seed_state(np.uint64(9)))
    assert sorted(a.tolist()) == list(range(200)) and (a != np.arange(200)).any()
    c = np.arange(200, dtype=np.uint8)
    K.shuffle(c, K.seed_state(np.uint64(9)))
    assert (a == c).all()
    d = np.arange(200, dtype=np.uint8)
    K.shuffle(d, K.seed_state(np.uint64(9), 1))   # another permutation's stream
    assert (d != a).any()
    # every position receives every value about equally often (no bias in the bounded draw)
    hits = np.zeros((5, 5), dtype=np.int64)
    for stream in range(20_000):
        e = np.arange(5, dtype=np.uint8)
        K.shuffle(e, K.seed_state(np.uint64(1), stream))
        hits[np.arange(5), e] += 1
    assert np.all(np.abs(hits - 4000) < 5 * np.sqrt(20_000 * 0.2 * 0.8))   # 5 sd of a cell count


def test_fast_shuffle_and_text_equal_the_plain_ones():
    """The register-held generator draws the same numbers and makes the same swaps as the plain
    Fisher-Yates; the compiled decimal text is the Python join byte for byte."""
    rng = np.random.default_rng(31)
    for n in (1, 2, 3, 7, 64, 65, 66, 255, 4096):
        a = rng.integers(0, 256, size=n).astype(np.uint8)
        for stream in range(4):
            x, y = a.copy(), a.copy()
            sx, sy = K.seed_state(np.uint64(77), stream), K.seed_state(np.uint64(77), stream)
            K.shuffle(x, sx)
            K.shuffle_reference(y, sy)
            assert (x == y).all() and (sx == sy).all()
        assert K.decimal_text(a).tobytes() == " ".join(map(str, a.tolist())).encode()


@nb.njit
def _advance(state, steps):
    for _ in range(steps):
        K._next(state)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_side_by_side_shuffles_equal_the_plain_ones(dtype):
    """Four shuffles in one loop (the generators in one vector): each lane's arrangement and final
    state are the plain Fisher-Yates one's with its own stream, element for element; at 300,000
    samples every lane redraws some draws (Lemire's rejection, about n^2 / 2^33 = 10 a lane), which
    the final states show."""
    rng = np.random.default_rng(41)
    for n in (0, 1, 2, 3, 5, 64, 257, 4096, 300_000):
        a = rng.integers(0, 256, size=n).astype(dtype)
        for seed, first in ((1, 0), (77, 1 << 40), (2026, 13)):
            lanes = tuple(a.copy() for _ in range(K.SHUFFLE_LANES))
            states = np.array([K.seed_state(np.uint64(seed), first + q) for q in range(K.SHUFFLE_LANES)])
            K.shuffle_lanes(lanes, states)
            for q in range(K.SHUFFLE_LANES):
                y, sy = a.copy(), K.seed_state(np.uint64(seed), first + q)
                K.shuffle_reference(y, sy)
                assert (lanes[q] == y).all() and (states[q] == sy).all()
                if n == 300_000:
                    plain = K.seed_state(np.uint64(seed), first + q)
                    _advance(plain, n - 1)
                    assert (plain != sy).any()   # more draws than swaps: the rejection branch ran
    with pytest.raises(ValueError, match="differ in length"):
        K.shuffle_lanes((np.zeros(3, np.uint8),) * 3 + (np.zeros(4, np.uint8),), np.zeros((4, 4), np.uint64))


@pytest.mark.parametrize("remaining,count", [(1, 1), (3, 3), (4, 4), (9, 4)])
def test_shuffled_copies_are_the_streams_arrangements(remaining, count):
    """A full set of copies side by side and a short set one by one give each stream's arrangement."""
    data = np.random.default_rng(8).integers(0, 200, size=1000).astype(np.uint8)
    out, states = K.shuffle_buffers(data)
    assert K.shuffled_copies(data, np.uint64(5), 100, remaining, out, states) == count
    for q in range(count):
        y = data.copy()
        K.shuffle_reference(y, K.seed_state(np.uint64(5), 100 + q))
        assert (out[q] == y).all()


def _plain_permutation_counts(samples, seed, permutations):
    """5.1 one permutation at a time: shuffle with stream j, every statistic still open (bzip2
    of the joined decimals), rank against the original, stop when all are decided."""
    data, values, k = samples.symbols, sample_values(samples), samples.alphabet_size
    mean, median = baseline(samples)

    def stats(arrangement):
        out = np.full(K.N_STATS, -1.0)
        K.statistics(arrangement, values, k, mean, median, np.ones(K.N_STATS, bool), out)
        out[18] = len(bz2.compress(" ".join(map(str, values[arrangement].tolist())).encode(), 5))
        return out

    original = stats(data)
    counts = np.zeros((K.N_STATS, 3), dtype=np.int64)
    open_ = np.ones(K.N_STATS, bool)
    done = 0
    for j in range(permutations):
        if not open_.any():
            break
        d = data.copy()
        K.shuffle_reference(d, K.seed_state(np.uint64(seed), j))
        row = stats(d)
        done += 1
        for t in np.flatnonzero(open_):
            counts[t, 0 if row[t] > original[t] else 1 if row[t] == original[t] else 2] += 1
            if counts[t, 0] + counts[t, 1] > 5 and counts[t, 1] + counts[t, 2] > 5:
                open_[t] = False
    return done, counts


@pytest.mark.parametrize("k,bits,n,seed", [(16, 4, 1500, 5), (2, 1, 2400, 3), (200, 8, 1200, 9)])
def test_batched_permutation_tests_equal_the_plain_loop(k, bits, n, seed):
    """Batches, threads and the bzip2 schedule change nothing: the same permutations are ranked,
    with the same counters, as the one-at-a-time loop."""
    rng = np.random.default_rng(n)
    values = rng.integers(0, k, size=n)
    if k == 2:   # a dependent chain keeps some statistics open to the end
        values = (np.cumsum(rng.random(n) < 0.3) % 2)
    samples = prepare(values, bits)
    details = permutation_tests(samples, seed=seed, permutations=400).details
    done, counts = _plain_permutation_counts(samples, seed, 400)
    assert details["permutations_run"] == done
    got = [[r["C0_greater"], r["C1_equal"], r["C2_less"]] for r in details["statistics"]]
    assert got == counts.tolist()


def test_compression_falls_back_to_libbz2_when_the_kernel_count_differs(monkeypatch):
    """Fail closed: the kernel counts the bzip2 sizes only if its count of the original equals
    libbz2's; a wrong count sends every permutation to libbz2, with the same counters."""
    from certify.stats.sp800_90b import iid

    samples = prepare(np.random.default_rng(1500).integers(0, 16, size=1500), 4)
    libbz2_calls = []
    libbz2_size = iid._compressed_size
    monkeypatch.setattr(iid, "_compressed_size", lambda raw: libbz2_calls.append(1) or libbz2_size(raw))
    counted = permutation_tests(samples, seed=5, permutations=400).details
    original = counted["compression"]["original_libbz2"]
    assert counted["compression"] == {"sizes": "counted", "original_libbz2": original, "original_counted": original}
    assert len(libbz2_calls) == 1                                   # the original only

    libbz2_calls.clear()
    monkeypatch.setattr(K, "compressed_size", lambda raw: original + 1)
    fallback = permutation_tests(samples, seed=5, permutations=400).details
    assert fallback["compression"] == {"sizes": "libbz2", "original_libbz2": original, "original_counted": original + 1}
    compression = fallback["statistics"][18]
    ranked = compression["C0_greater"] + compression["C1_equal"] + compression["C2_less"]
    # the original, every permutation ranked, and at most a thread's worth past the deciding one
    assert 1 + ranked <= len(libbz2_calls) < 1 + ranked + max(2, cpus())
    assert fallback["statistics"] == counted["statistics"]
    assert fallback["permutations_run"] == counted["permutations_run"]


def test_chi_square_statistics_by_hand():
    """T, df and the chi-square p-value recounted by hand. (The reference mode's: T and df are the
    same in both modes, and the permutation null's p-values are checked against a plain loop
    below; this keeps the check off that loop's compile.)"""
    from scipy.stats import chi2

    rng = np.random.default_rng(30)
    samples = prepare(rng.integers(0, 4, size=4000), 2)
    indep, fit = chi_square_tests(samples, reference="nist-ea")
    s = samples.symbols
    p = np.bincount(s, minlength=4) / s.size
    pairs = Counter(zip(s[0::2].tolist(), s[1::2].tolist()))
    expected = {(a, b): p[a] * p[b] * 2000 for a in range(4) for b in range(4)}   # all >= 5: one bin each
    t = sum((pairs.get(key, 0) - e) ** 2 / e for key, e in expected.items())
    assert indep.details["score"] == pytest.approx(t, rel=1e-12) and indep.details["df"] == 16 - 4
    t2 = 0.0
    for j in range(10):
        block = np.bincount(s[j * 400:(j + 1) * 400], minlength=4)
        t2 += sum((block[v] - p[v] * 400) ** 2 / (p[v] * 400) for v in range(4))
    assert fit.details["score"] == pytest.approx(t2, rel=1e-12) and fit.details["df"] == 27
    assert indep.details["p_value"] == pytest.approx(chi2.sf(t, 12), rel=1e-9)
    assert fit.details["p_value"] == pytest.approx(chi2.sf(t2, 27), rel=1e-9)
    assert indep.passed and fit.passed


def test_lrs_test_length_and_probability():
    rng = np.random.default_rng(31)
    samples = prepare(rng.integers(0, 8, size=3000), 3)
    result = lrs_test(samples)
    s = samples.symbols
    w = result.details["W"]
    assert max(Counter(bytes(s[i:i + w]) for i in range(s.size - w + 1)).values()) > 1
    assert max(Counter(bytes(s[i:i + w + 1]) for i in range(s.size - w)).values()) == 1
    p_col = sum((c / s.size) ** 2 for c in np.bincount(s))
    pairs = math.comb(s.size - w + 1, 2)
    assert result.details["P_X_ge_1"] == pytest.approx(1 - (1 - p_col ** w) ** pairs, rel=1e-9)
    assert result.passed


def test_iid_source_passes_and_dependent_sources_fail():
    rng = np.random.default_rng(32)
    good = assess_iid(prepare(rng.integers(0, 16, size=3000), 4), seed=3)
    assert good.passed, [t.name for t in good.tests if not t.passed]
    assert good.min_entropy == pytest.approx(min(good.h_original, 4 * good.h_bitstring))
    # a binary chain that repeats its last bit with probability 0.75 (negative control)
    bits = (np.cumsum(rng.random(1500) >= 0.75) % 2).astype(np.uint8)
    chain = assess_iid(prepare(bits, 1), seed=3, permutations=300)
    assert not chain.passed
    perm = chain.tests[0]
    assert not perm.passed and "numRunsMedian" in perm.details["failing"]
    assert perm.details["permutations_run"] == 300        # a failing statistic is ranked over all of them
    # a slowly drifting 8-bit source: each value close to the last
    drift = np.clip(128 + np.cumsum(rng.integers(-3, 4, size=2000)), 0, 255)
    assert not assess_iid(prepare(drift, 8), seed=3, permutations=300).passed


def test_permutation_test_is_reproducible_with_its_seed():
    rng = np.random.default_rng(33)
    samples = prepare(rng.integers(0, 4, size=1000), 2)
    a = permutation_tests(samples, seed=5)
    b = permutation_tests(samples, seed=5)
    assert a.details == b.details


# ---------------------------------------------------------------- 5.2 chi-square: exact null vs the tool's rule

def _sticky(seed, n, repeat, bits=8):
    """Uniform samples, each replaced by its predecessor with probability ``repeat`` (dependent)."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 1 << bits, size=n)
    for i in np.flatnonzero(rng.random(n) < repeat):
        if i:
            x[i] = x[i - 1]
    return x


def test_chi_square_exact_null_keeps_its_false_alarm_rate():
    """Fair 8-bit data, n = 10,000, PCG64 seeds 1000-1099: the permutation null (default) rejects
    at most what alpha = 0.001 allows and its p-values are uniform (about 5 of 100 at 0.05),
    while the tool's chi-square df rule (reference mode) rejects more than a third of these fair
    files (negative control: the calibration check catches a rule that is off)."""
    exact = [0, 0]
    at_5pct = 0
    tool = [0, 0]
    for seed in range(1000, 1100):
        samples = prepare(np.random.default_rng(seed).integers(0, 256, size=10_000), 8)
        indep, fit = chi_square_tests(samples, seed=seed)
        exact[0] += not indep.passed
        exact[1] += not fit.passed
        at_5pct += indep.details["p_value"] <= 0.05
        ref_indep, ref_fit = chi_square_tests(samples, reference="nist-ea")
        tool[0] += not ref_indep.passed
        tool[1] += not ref_fit.passed
        assert ref_indep.details["score"] == indep.details["score"]
        assert ref_indep.details["p_value"] == indep.details["p_value_chi2_df"]
    assert exact[0] <= 1 and exact[1] <= 1       # 100 x 0.001 = 0.1 expected
    assert 1 <= at_5pct <= 12                    # Binomial(100, 0.05): 5 expected
    assert tool[0] >= 80                         # 97% measured (docs/sp800-90b.md)


def test_chi_square_exact_null_catches_dependence():
    """Negative controls: 8-bit samples that repeat their predecessor 10% of the time, and a binary
    chain, fail the default (permutation-null) independence test: no permutation reaches T."""
    indep, fit = chi_square_tests(prepare(_sticky(3, 10_000, 0.1), 8), seed=1)
    assert not indep.passed and indep.details["permuted_T_ge_T"] == 0
    assert indep.details["p_value"] == 1 / 10_000 and indep.details["permutations"] == 9_999
    rng = np.random.default_rng(34)
    bits = (np.cumsum(rng.random(5_000) >= 0.6) % 2).astype(np.uint8)
    indep, _ = chi_square_tests(prepare(bits, 1), seed=1)
    assert not indep.passed and indep.section == "5.2.3"


@pytest.mark.parametrize("values,bits,repeat", [(256, 8, 0.0), (256, 8, 0.2), (2, 1, 0.0), (16, 4, 0.3)])
def test_chi_square_sequential_null_equals_the_plain_loop(monkeypatch, values, bits, repeat):
    """The batched, sequential permutation p-values equal a plain loop over the same seeded
    shuffles (stream 2^40 + j) counted in order: p = 10 / j at the tenth T' >= T, else (1 + C) / (B + 1)."""
    from certify.stats.sp800_90b import iid

    monkeypatch.setattr(iid, "CHI_PERMUTATIONS", 150)
    samples = prepare(_sticky(7, 3000, repeat, bits) % values, bits)
    indep, fit = chi_square_tests(samples, seed=11)
    layout = iid._layout(samples)
    data = samples.symbols
    scores = []
    for j in range(150):
        d = data.copy()
        K.shuffle_reference(d, K.seed_state(np.uint64(11), iid.CHI_STREAM + j))
        scores.append((K.independence_score(d, layout.width, samples.alphabet_size, layout.cell_bin,
                                            layout.independence_expected),
                       K.fit_score(d, layout.block, layout.symbol_bin, layout.fit_expected)))
    for col, test in enumerate((indep, fit)):
        hits = np.flatnonzero([t[col] >= test.details["score"] for t in scores])
        if hits.size >= 10:
            assert test.passed and test.details["p_value"] == 10 / (hits[9] + 1)
            assert test.details["permutations"] == hits[9] + 1
        else:
            assert test.details["p_value"] == (1 + hits.size) / 151 and test.details["permutations"] == 150
            assert test.passed == (test.details["p_value"] > 0.001)    # B = 150 cannot reach 0.001


def test_chi_square_reference_mode_is_named_and_checked():
    samples = prepare(np.random.default_rng(35).integers(0, 16, size=5000), 4)
    assert chi_square_tests(samples, seed=4)[0].details == chi_square_tests(samples, seed=4)[0].details
    assert "permutation" in chi_square_tests(samples)[0].details["null"]
    assert "NIST tool" in chi_square_tests(samples, reference="nist-ea")[0].details["null"]
    with pytest.raises(ValueError, match="nist-sts"):
        chi_square_tests(samples, reference="nist-sts")
    result = assess_iid(samples, seed=3, permutations=50, reference="nist-ea")
    assert result.to_dict()["reference"] == "nist-ea"


# ---------------------------------------------------------------- restart tests (3.1.4)

def test_sanity_cutoff_is_the_binomial_critical_value():
    """90B 3.1.4.3: the count U above which a row's or column's most common value fails is the
    binomial critical value for n = 1000, p = 2^-H_I at alpha = 0.000005 (exact tails for
    integer H_I, where p is a power of two)."""
    from math import comb

    from scipy.stats import binom

    from certify.stats.sp800_90b.restart import SANITY_ALPHA
    assert SANITY_ALPHA == 0.000005
    for h in (1, 2, 4, 7):
        # P(X > u) = sum_{j > u} C(1000, j) (2^h - 1)^(1000 - j) / 2^(1000 h): integers, exactly
        tail = [0] * 1001
        for u in range(999, -1, -1):
            tail[u] = tail[u + 1] + comb(1000, u + 1) * (2 ** h - 1) ** (999 - u)
        u = sanity_cutoff(float(h), SANITY_ALPHA)
        assert tail[u] * 200_000 <= 2 ** (1000 * h) < tail[u - 1] * 200_000, h
    for h in (0.5, 4.3, 7.5):
        u = sanity_cutoff(h, SANITY_ALPHA)
        assert binom.sf(u, 1000, 2 ** -h) <= SANITY_ALPHA < binom.sf(u - 1, 1000, 2 ** -h)


@pytest.mark.slow
def test_restart_matrix_of_a_good_source_passes_and_a_stuck_restart_fails():
    rng = np.random.default_rng(34)
    matrix = rng.integers(0, 256, size=1_000_000)
    result = restart_tests(prepare(matrix, 8), h_initial=7.0, iid=True)
    assert result.passed and result.min_entropy == pytest.approx(min(result.h_rows, result.h_columns, 7.0))
    stuck = matrix.reshape(1000, 1000).copy()
    stuck[:, 0] = 0x5A                   # every restart starts with the same value
    bad = restart_tests(prepare(stuck.ravel(), 8), h_initial=7.0, iid=True)
    assert not bad.sanity_passed and bad.max_count == 1000


def test_restart_matrix_shape_is_checked():
    with pytest.raises(EntropyInputError, match="1000 restarts x 1000 samples"):
        restart_tests(prepare(np.arange(5000) % 7, 3), h_initial=2.0, iid=True)


def test_nist_tool_cutoff_is_the_quantile_of_the_worst_case_largest_count():
    """The NIST tool's sanity rule (reference mode): P(largest count <= u) for 1000 draws from the
    worst-case distribution, computed exactly, against a seeded Monte Carlo of those draws (4
    standard errors), and the cutoff is the smallest u reaching the tool's rank level."""
    from certify.stats.sp800_90b.restart import (TOOL_SIMULATION_ROUNDS, max_count_cdf, nist_tool_cutoff,
                                                 worst_case_distribution)

    rng = np.random.default_rng(36)
    for h, k in ((7.0, 256), (1.5, 16), (0.5, 2), (3.3, 12)):
        groups = worst_case_distribution(h, k)
        q = np.concatenate([[p] * m for p, m in groups])
        assert q.size == k and math.isclose(q.sum(), 1.0) and q.max() == 2 ** -h
        largest = rng.multinomial(1000, q / q.sum(), size=20_000).max(axis=1)
        for u in np.unique(np.percentile(largest, [5, 50, 95]).astype(int)):
            f = max_count_cdf(int(u), groups)
            assert abs(f - np.mean(largest <= u)) <= 4 * math.sqrt(f * (1 - f) / largest.size), (h, k, u)
        u, alpha = nist_tool_cutoff(h, k)
        level = math.floor((1 - alpha) * TOOL_SIMULATION_ROUNDS) / TOOL_SIMULATION_ROUNDS
        assert max_count_cdf(u, groups) >= level > max_count_cdf(u - 1, groups)
        assert u >= sanity_cutoff(h, 0.000005)    # never below the document's one-value cutoff


def test_default_restart_cutoff_keeps_its_false_alarm_rate():
    """The default sanity cutoff: no worse than alpha per row / column under the most concentrated
    distribution of min-entropy H_I, and on 20 seeded uniform 8-bit restart matrices with the
    true H_I = 8 it fails none, while the document's binomial cutoff (the negative control of this
    check; 82% predicted) fails most of them."""
    from certify.stats.sp800_90b.restart import max_count_cdf, restart_alpha, worst_case_cutoff

    for h in (8.0, 7.3, 4.0, 1.0, 0.4):
        u, alpha = worst_case_cutoff(h)
        assert alpha == restart_alpha() and math.isclose(1 - (1 - alpha) ** 2000, 0.01)
        p = 2 ** -h
        groups = [(p, math.floor(1 / p)), (1 - p * math.floor(1 / p), 1)]
        assert 1 - max_count_cdf(u, groups) <= alpha < 1 - max_count_cdf(u - 1, groups)
    default_fails = document_fails = 0
    for seed in range(20):
        result = restart_tests(prepare(np.random.default_rng(2000 + seed).integers(0, 256, size=1_000_000), 8),
                               h_initial=8.0, iid=True)
        default_fails += not result.sanity_passed
        document_fails += result.max_count > result.to_dict()["sanity_check"]["document_cutoff"]
    assert default_fails == 0 and document_fails >= 10


def test_restart_reference_mode_takes_the_tools_cutoff():
    """--reference nist-ea: the tool's distribution over the values present (the same cutoff as
    the default in these cases); with floor(2^H_I) above the number of values present the tool's
    rule does not apply (refused, as the tool stops), while the default still has its cutoff."""
    from certify.stats.sp800_90b.restart import nist_tool_cutoff, worst_case_cutoff

    assert nist_tool_cutoff(7.0, 256)[0] == worst_case_cutoff(7.0)[0] == 27   # ea_restart printed 27
    samples = prepare(np.random.default_rng(37).integers(0, 16, size=1_000_000), 4)
    ref = restart_tests(samples, h_initial=3.0, iid=True, reference="nist-ea")
    assert ref.cutoff == nist_tool_cutoff(3.0, 16)[0] and "NIST tool" in ref.to_dict()["sanity_check"]["rule"]
    few = prepare(np.random.default_rng(38).integers(0, 5, size=1_000_000), 3)
    with pytest.raises(EntropyInputError, match="only 5 values occur"):
        restart_tests(few, h_initial=2.9, iid=True, reference="nist-ea")
    assert restart_tests(few, h_initial=2.9, iid=True).cutoff == worst_case_cutoff(2.9)[0]
