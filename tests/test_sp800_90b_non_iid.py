"""SP 800-90B non-IID estimators (section 6.3) against references built from the document.

References: (a) independent, deliberately naive implementations of the document's steps
(dictionaries and explicit loops, small windows / depths so every branch is reached), compared
on many short seeded inputs for the exact counts C, N, r (predictors) and Q / pair counts
(t-tuple, LRS); (b) the document's own equations checked at the returned values (collision
step 7, compression G of step 7, the predictors' P_local equation of 6.3.7 step 9);
(c) known-entropy sources (negative controls): a biased i.i.d. source and a binary Markov
chain whose min-entropy is computed exactly, assessed within tolerance of the truth.
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from certify.stats.sp800_90b import _kernels as K
from certify.stats.sp800_90b import estimators as E
from certify.stats.sp800_90b._suffix import tuple_counts
from certify.stats.sp800_90b.non_iid import assess_non_iid
from certify.stats.sp800_90b.samples import EntropyInputError, prepare


def _inputs(count, seed, max_len=400):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        k = int(rng.choice([2, 3, 4, 7]))
        n = int(rng.integers(30, max_len))
        if rng.random() < 0.5:  # skewed and repetitive inputs reach the tie and run branches
            probs = rng.dirichlet(np.full(k, 0.4))
            yield k, rng.choice(k, size=n, p=probs).astype(np.uint8)
        else:
            period = int(rng.integers(2, 9))
            base = rng.integers(0, k, size=period)
            s = np.resize(base, n)
            flips = rng.random(n) < 0.2
            s[flips] = rng.integers(0, k, size=int(flips.sum()))
            yield k, s.astype(np.uint8)


# ---------------------------------------------------------------- naive references (90B steps)

def ref_mcw(s, k, windows):
    s = list(s)
    nw = len(windows)
    score = [0] * nw
    winner = 0
    c = run = best = 0
    for i in range(windows[0], len(s)):
        preds = []
        for w in windows:
            if i < w:  # window not full yet: the most common of what has been seen, latest on ties
                window = s[:w] if i >= w else s[:min(i, w)]
            else:
                window = s[i - w:i]
            counts = Counter(window)
            top = max(counts.values())
            # 90B 6.3.7 step 3a: the most common value, the most recent one on a tie
            last = {v: j for j, v in enumerate(window)}
            preds.append(max((last[v], v) for v in counts if counts[v] == top)[1])
        if preds[winner] == s[i]:
            c += 1
            run += 1
            best = max(best, run)
        else:
            run = 0
        for j, w in enumerate(windows):
            if i >= w and preds[j] == s[i]:
                score[j] += 1
                if score[j] >= score[winner]:
                    winner = j
    return c, len(s) - windows[0], best


def ref_lag(s, depth):
    s = list(s)
    score = [0] * (depth + 1)
    winner = 1
    c = run = best = 0
    for i in range(1, len(s)):
        if s[i - winner] == s[i]:
            c += 1
            run += 1
            best = max(best, run)
        else:
            run = 0
        for d in range(1, min(depth, i) + 1):
            if s[i - d] == s[i]:
                score[d] += 1
                if score[d] >= score[winner]:
                    winner = d
    return c, len(s) - 1, best


def _predict(table):
    top = max(table.values())
    return max(y for y, n in table.items() if n == top)


def ref_mmc(s, depth, max_entries):
    """90B 6.3.9 in the document's order: add the last transition of every order, then predict."""
    s = list(s)
    models = [dict() for _ in range(depth + 1)]
    entries = [0] * (depth + 1)
    score = [0] * (depth + 1)
    winner = 1
    c = run = best = 0
    for i in range(2, len(s)):
        for d in range(1, depth + 1):  # step 3b: count (s[i-1-d..i-2]) -> s[i-1]
            if d <= i - 1:
                x = tuple(s[i - 1 - d:i - 1])
                table = models[d].get(x)
                if table is not None and s[i - 1] in table:
                    table[s[i - 1]] += 1
                elif entries[d] < max_entries:
                    models[d].setdefault(x, {})[s[i - 1]] = 1
                    entries[d] += 1
        preds = {}
        for d in range(1, depth + 1):
            if d <= i:
                x = tuple(s[i - d:i])
                if x in models[d]:
                    preds[d] = _predict(models[d][x])
        if winner in preds and preds[winner] == s[i]:
            c += 1
            run += 1
            best = max(best, run)
        elif winner in preds:
            run = 0
        for d in range(1, depth + 1):
            if preds.get(d) == s[i]:
                score[d] += 1
                if score[d] >= score[winner]:
                    winner = d
    return c, len(s) - 2, best


def ref_lz78y(s, depth, max_size):
    s = list(s)
    dictionary = {}
    c = run = best = 0
    for i in range(depth + 1, len(s)):
        for j in range(depth, 0, -1):  # step 3a: add (s[i-1-j..i-2]) -> s[i-1]
            x = tuple(s[i - 1 - j:i - 1])
            if x in dictionary:
                dictionary[x][s[i - 1]] = dictionary[x].get(s[i - 1], 0) + 1
            elif len(dictionary) < max_size:
                dictionary[x] = {s[i - 1]: 1}
        best_count, prediction = 0, None
        for j in range(depth, 0, -1):  # step 3b: the context with the highest count predicts
            x = tuple(s[i - j:i])
            if x in dictionary:
                top = max(dictionary[x].values())
                if top > best_count:
                    best_count, prediction = top, _predict(dictionary[x])
        if prediction is not None and prediction == s[i]:
            c += 1
            run += 1
            best = max(best, run)
        else:
            run = 0
    return c, len(s) - depth - 1, best


# ---------------------------------------------------------------- predictors: exact counts

@pytest.mark.parametrize("windows", [(3, 5, 7, 9), (2, 4, 8, 16)])
def test_multi_mcw_counts_match_the_document_steps(windows):
    w = np.array(windows, dtype=np.int64)
    for k, s in _inputs(60, seed=11):
        assert K.multi_mcw(s, k, w) == ref_mcw(s, k, windows), (k, s.tolist())


@pytest.mark.parametrize("depth", [3, 8, 128])
def test_lag_counts_match_the_document_steps(depth):
    for k, s in _inputs(60, seed=12, max_len=700):
        assert K.lag(s, depth, False) == ref_lag(s, depth)   # the bool the estimator passes: one signature
        if k == 2 and depth == 128:  # the bit-parallel kernel of binary data
            assert K.lag(s, depth, True) == ref_lag(s, depth)


def test_binary_lag_and_mcw_fast_paths_match_the_document_steps_on_long_inputs():
    """The 64-steps-at-a-time lag kernel (lags that cannot catch the winner inside a block skip
    its steps) and the running-majority MultiMCW of odd windows, on bitstrings long enough for many
    blocks: fair, dependent, periodic (every lag tied) and constant."""
    rng = np.random.default_rng(90)
    n = 2000
    cases = [rng.integers(0, 2, size=n), np.cumsum(rng.random(n) < 0.15) % 2,
             np.resize(rng.integers(0, 2, size=37), n), np.resize([0, 1], n), np.ones(n)]
    windows = np.array([15, 63, 255], dtype=np.int64)
    for s in cases:
        s = np.asarray(s, dtype=np.uint8)
        assert K.lag(s, 128, True) == ref_lag(s, 128)
        assert K.multi_mcw(s, 2, windows) == ref_mcw(s, 2, (15, 63, 255))


@pytest.mark.parametrize("depth,cap", [(3, 1000), (16, 100_000), (4, 12)])
def test_multi_mmc_counts_match_the_document_steps(depth, cap):
    for k, s in _inputs(60, seed=13):
        assert K.multi_mmc(s, depth, cap, k == 2) == ref_mmc(s, depth, cap), (k, depth, cap, s.tolist())


@pytest.mark.parametrize("depth,cap", [(4, 1000), (16, 65_536), (3, 10)])
def test_lz78y_counts_match_the_document_steps(depth, cap):
    for k, s in _inputs(60, seed=14):
        assert K.lz78y(s, depth, cap, k == 2) == ref_lz78y(s, depth, cap), (k, depth, cap, s.tolist())


def test_prediction_estimate_solves_the_local_equation():
    """6.3.7 step 9: P_local solves 0.99 = (1 - p x) / ((r + 1 - r x) q) / x^(N+1)."""
    est = E.prediction_estimate("Lag Prediction", "6.3.8", c=400, n=1000, longest_run=30, k=2)
    p = est.details["P_local"]
    assert p is not None and est.min_entropy == pytest.approx(-math.log2(p))
    r, n, q = 31, 1000, 1 - p
    x = 1.0
    for _ in range(200):
        x = 1 + q * p ** r * x ** (r + 1)
    assert math.log((1 - p * x) / ((r + 1 - r * x) * q)) - (n + 1) * math.log(x) == pytest.approx(math.log(0.99), abs=1e-9)
    # P_global' with no long run: the 99% upper bound, and 1/k is the floor
    est = E.prediction_estimate("x", "6.3.7", c=500, n=1000, longest_run=5, k=2)
    assert est.details["P_local"] is None
    assert est.details["P_global_prime"] == pytest.approx(0.5 + 2.5758293035489008 * math.sqrt(0.25 / 999))


# ---------------------------------------------------------------- tuples

def test_tuple_counts_match_direct_counting():
    for k, s in _inputs(80, seed=15, max_len=250):
        v, q, pairs = tuple_counts(s, max(1, (k - 1).bit_length()))
        for w in range(1, v + 1):
            counts = Counter(tuple(s[i:i + w]) for i in range(s.size - w + 1))
            assert q[w] == max(counts.values())
            assert pairs[w] == sum(c * (c - 1) // 2 for c in counts.values())
        assert max(Counter(tuple(s[i:i + v + 1]) for i in range(s.size - v)).values()) == 1


def test_suffix_array_of_long_repeats():
    """Periodic and nearly constant strings take the refinement and prefix-doubling paths."""
    from certify.stats.sp800_90b._suffix import suffix_array
    rng = np.random.default_rng(24)
    for n, period in ((300, 5), (500, 37), (257, 1), (400, 3)):
        s = np.resize(rng.integers(0, 4, size=period), n).astype(np.uint8)
        s[rng.integers(0, n)] = 5
        for width in (3, 8):
            assert suffix_array(s, width).tolist() == sorted(range(n), key=lambda i: bytes(s[i:]))


def test_window_lcp_equals_the_suffix_array_lcp():
    """The fast path (one sort of each suffix's first 64 bits, no suffix array) gives the suffix
    array's LCP array exactly, or declines (None) when two suffixes share those 64 bits."""
    from certify.stats.sp800_90b._suffix import lcp_array, suffix_array, window_lcp
    rng = np.random.default_rng(25)
    decided = declined = 0
    for trial in range(300):
        k = int(rng.choice([2, 3, 4, 16, 200, 256]))
        n = int(rng.integers(2, 600))
        s = rng.integers(0, k, size=n)
        if trial % 3 == 1:   # long repeats: the fast path must decline
            s = np.resize(s[:int(rng.integers(1, 9))], n)
        if trial % 3 == 2:   # a zero tail: short suffixes equal to zero-padded longer ones
            s[n // 2:] = 0
        s = s.astype(np.uint8)
        width = max(1, (k - 1).bit_length())
        fast = window_lcp(s, width)
        if fast is None:
            declined += 1
            continue
        decided += 1
        assert fast.tolist() == lcp_array(s, suffix_array(s, width)).tolist(), (k, n, trial)
    assert decided > 100 and declined > 50


def test_t_tuple_and_lrs_follow_the_document_formulas():
    rng = np.random.default_rng(16)
    s = (rng.random(3000) < 0.3).astype(np.uint8)
    t_est, lrs_est = E.tuple_and_lrs(s, 1)
    n = s.size
    t = t_est.details["t"]
    p_max = max((max(Counter(tuple(s[i:i + w]) for i in range(n - w + 1)).values()) / (n - w + 1)) ** (1 / w)
                for w in range(1, t + 1))
    assert max(Counter(tuple(s[i:i + t + 1]) for i in range(n - t)).values()) < 35
    p_u = min(1.0, p_max + 2.5758293035489008 * math.sqrt(p_max * (1 - p_max) / (n - 1)))
    assert t_est.min_entropy == pytest.approx(-math.log2(p_u), rel=1e-14)
    u, v = lrs_est.details["u"], lrs_est.details["v"]
    assert u == t + 1
    p_hat = 0.0
    for w in range(u, v + 1):
        counts = Counter(tuple(s[i:i + w]) for i in range(n - w + 1))
        p_w = sum(c * (c - 1) // 2 for c in counts.values()) / math.comb(n - w + 1, 2)
        p_hat = max(p_hat, p_w ** (1 / w))
    assert lrs_est.details["p_hat"] == pytest.approx(p_hat, rel=1e-14)


# ---------------------------------------------------------------- the binary-only four

def test_most_common_value_formula():
    s = np.array([0] * 600 + [1] * 400, dtype=np.uint8)
    est = E.most_common_value(s, 2)
    p_u = 0.6 + 2.5758293035489008 * math.sqrt(0.6 * 0.4 / 999)
    assert est.details["mode_count"] == 600 and est.min_entropy == pytest.approx(-math.log2(p_u), rel=1e-15)


def test_collision_estimate_solves_step_7():
    """6.3.2 step 7 with F(1/z) = Gamma(3, z) z^-3 e^z (Appendix G.1.1) holds at the returned p."""
    rng = np.random.default_rng(17)
    bits = (rng.random(20000) < 0.7).astype(np.uint8)
    est = E.collision(bits)
    p = est.details["p"]
    q = 1 - p
    z = 1 / q
    f = 2 * (1 + z + z * z / 2) / z ** 3       # Gamma(3, z) e^z / z^3
    expected = p / q ** 2 * (1 + 0.5 * (1 / p - 1 / q)) * f - p / q * 0.5 * (1 / p - 1 / q)
    assert expected == pytest.approx(est.details["x_bar_prime"], rel=1e-13)
    # steps 1-2 by hand: walk the collisions
    i = v = 0
    ts = []
    while i < bits.size - 1:
        t = 2 if bits[i] == bits[i + 1] else (3 if i < bits.size - 2 else 0)
        if not t:
            break
        ts.append(t)
        i += t
    assert est.details["v"] == len(ts) and est.details["x_bar"] == pytest.approx(np.mean(ts), rel=1e-15)
    assert est.details["sigma_hat"] == pytest.approx(np.std(ts, ddof=1), rel=1e-12)


def test_compression_g_is_the_documents_double_sum():
    """6.3.4 step 7: G(z) = 1/v sum_{t=d+1}^{L} sum_{u=1}^{t} log2(u) F(z, t, u)."""
    d, blocks = 10, 60
    hi, lo = E._log2_table(blocks)
    for z in (0.02, 0.3, 0.9):
        total = 0.0
        for t in range(d + 1, blocks + 1):
            for u in range(1, t + 1):
                f = z * z * (1 - z) ** (u - 1) if u < t else z * (1 - z) ** (t - 1)
                total += math.log2(u) * f
        assert K.compression_g(z, d, blocks, hi, lo) == pytest.approx(total / (blocks - d), rel=1e-13)


def test_compression_estimate_solves_its_equation():
    rng = np.random.default_rng(18)
    bits = (rng.random(60000) < 0.6).astype(np.uint8)
    est = E.compression(bits)
    assert est.details["found_p"]
    p = est.details["p"]
    blocks = bits.size // 6
    hi, lo = E._log2_table(blocks)
    q = (1 - p) / 63
    value = K.compression_g(p, 1000, blocks, hi, lo) + 63 * K.compression_g(q, 1000, blocks, hi, lo)
    assert value == pytest.approx(est.details["x_bar_prime"], rel=1e-12)
    assert est.min_entropy == pytest.approx(-math.log2(p) / 6)


def test_markov_most_likely_sequence():
    bits = np.array([0, 0, 0, 1, 1, 0, 1, 0, 0, 1] * 50, dtype=np.uint8)
    est = E.markov(bits)
    d = est.details
    head, tail = bits[:-1], bits[1:]
    assert d["P_00"] == pytest.approx(np.mean(tail[head == 0] == 0))
    assert d["P_11"] == pytest.approx(np.mean(tail[head == 1] == 1))
    # brute force over the six candidate sequences of 6.3.3 step 3
    lg = math.log2
    cands = [lg(d["P_0"]) + 127 * lg(d["P_00"]), lg(d["P_0"]) + 64 * lg(d["P_01"]) + 63 * lg(d["P_10"]),
             lg(d["P_0"]) + lg(d["P_01"]) + 126 * lg(d["P_11"]), lg(d["P_1"]) + lg(d["P_10"]) + 126 * lg(d["P_00"]),
             lg(d["P_1"]) + 64 * lg(d["P_10"]) + 63 * lg(d["P_01"]), lg(d["P_1"]) + 127 * lg(d["P_11"])]
    assert est.min_entropy == pytest.approx(min(1.0, -max(cands) / 128))


# ---------------------------------------------------------------- whole track, negative controls

def test_biased_iid_source_is_assessed_near_its_min_entropy():
    """An i.i.d. source with P(most likely value) = 0.35 over 8 values: H = -log2 0.35 = 1.515."""
    rng = np.random.default_rng(19)
    probs = np.array([0.35, 0.2, 0.15, 0.1, 0.08, 0.06, 0.04, 0.02])
    x = rng.choice(8, size=200_000, p=probs)
    result = assess_non_iid(prepare(x, 3))
    truth = -math.log2(0.35)
    mcv = result.literal[0]
    assert truth - 0.03 < mcv.min_entropy < truth          # the 99% bound sits just below the truth
    assert truth - 0.25 < result.h_original <= truth + 1e-9
    assert result.min_entropy <= truth + 1e-9


def test_markov_source_is_assessed_near_its_min_entropy():
    """A binary chain that repeats its last bit with probability 0.8: the most likely long
    sequence is a run, min-entropy -log2 0.8 = 0.3219 bits per bit. MCV alone (which assumes
    independence) would see a fair coin; the non-IID track must not."""
    rng = np.random.default_rng(20)
    n = 200_000
    flips = rng.random(n) >= 0.8
    bits = (np.cumsum(flips) % 2).astype(np.uint8)
    result = assess_non_iid(prepare(bits, 1))
    truth = -math.log2(0.8)
    assert result.literal[0].min_entropy > 0.95             # MCV: looks unbiased
    by_name = {e.name: e.min_entropy for e in result.literal}
    for name in ("Markov", "Lag Prediction", "MultiMMC Prediction", "LZ78Y Prediction"):
        assert abs(by_name[name] - truth) < 0.01, name      # the estimators built for dependence
    # the collision and compression estimates are conservative for dependent data (90B 6.3):
    # the assessment may fall below the truth, never above it
    assert result.min_entropy <= truth


def test_multibit_samples_combine_original_and_bitstring():
    rng = np.random.default_rng(21)
    x = rng.integers(0, 16, size=20_000)
    result = assess_non_iid(prepare(x, 4))
    assert len(result.literal) == 7 and len(result.bitstring) == 10
    assert result.h_bitstring == min(e.min_entropy for e in result.bitstring if e.min_entropy is not None)
    assert result.min_entropy == pytest.approx(min(result.h_original, 4 * result.h_bitstring))


def test_two_valued_samples_are_binary():
    x = np.where(np.random.default_rng(22).random(5000) < 0.5, 0x10, 0xA3)
    result = assess_non_iid(prepare(x, 8))
    assert result.alphabet_size == 2 and not result.bitstring and len(result.literal) == 10


def test_bad_samples_are_refused():
    with pytest.raises(EntropyInputError, match="sample 2 .* does not fit in 4 bit"):
        prepare([1, 2, 17, 3], 4)
    with pytest.raises(EntropyInputError, match="one symbol"):
        prepare([5] * 100, 4)
    with pytest.raises(EntropyInputError, match="at least 1,000,000"):
        prepare([0, 1] * 100, 1, min_samples=1_000_000)


def test_threads_do_not_change_the_answer():
    rng = np.random.default_rng(23)
    samples = prepare(rng.integers(0, 64, size=8000) // rng.integers(1, 4, size=8000), 6)
    one = assess_non_iid(samples, jobs=1).to_dict()
    two = assess_non_iid(samples, jobs=2).to_dict()
    assert one == two


def _g_in_long_double(z, d, blocks):
    """6.3.4's G as the NIST tool evaluates it: B_i multiplied up in long double, each term
    log2l(i) * B_i rounded to double and Kahan-summed in double, the tail cut where a term's
    double is zero (transcribed here in numpy's 80-bit long double, one term at a time)."""
    ld = np.longdouble

    def kahan(total, comp, value):
        y = value - comp
        t = total + y
        return t, (t - total) - y

    a_sum = a_comp = first = first_comp = 0.0
    b_term = ld(1) - ld(z)
    b = b_term
    for i in range(2, d + 1):
        a_sum, a_comp = kahan(a_sum, a_comp, float(np.log2(ld(i)) * b))
        b *= b_term
    ad1 = a_sum
    truncated = False
    for i in range(d + 1, blocks):
        ai = np.log2(ld(i)) * b
        a_sum, a_comp = kahan(a_sum, a_comp, float(ai))
        scaled = float(ld(blocks - i) * ai)
        if scaled > 0.0:
            first, first_comp = kahan(first, first_comp, scaled)
        else:
            truncated = True
            break
        b *= b_term
    # the tool's build (-march=native, GCC) fuses (blocks - d) * ad1 - comp and z * first + (...)
    first += _exact_fma(float(blocks - d), ad1, -first_comp)
    if not truncated:
        a_sum, a_comp = kahan(a_sum, a_comp, float(np.log2(ld(blocks)) * b))
    return 1.0 / (blocks - d) * z * _exact_fma(z, first, a_sum - ad1)


def _exact_fma(a, b, c):
    return float(Fraction(a) * Fraction(b) + Fraction(c))


@pytest.mark.parametrize("z", [0.0156, 0.02, 0.05, 0.3, 0.6, 0.97, 1.0 / 64, 0.999])
def test_compression_g_matches_the_long_double_evaluation(z):
    """The double-double G is the tool's long-double evaluation, bit for bit (z = 0.6: the tail
    is cut at the first term; 0.999: no cut)."""
    d, blocks = 1000, 2600
    hi, lo = E._log2_table(blocks)
    assert K.compression_g(z, d, blocks, hi, lo) == _g_in_long_double(z, d, blocks)
