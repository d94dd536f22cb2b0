"""The ten min-entropy estimators of SP 800-90B section 6.3, each with its intermediate values.

Each estimator takes a symbol array (0..k-1) and returns an ``Estimate``: the min-entropy per
sample, the section, and the values the document's steps compute (``details``). The 99%
confidence bounds use Z_0.995 = 2.5758293035489008, as the NIST tool does. Where 90B's text and
the NIST SP800-90B_EntropyAssessment tool (v1.1.x) differ in an implementation detail -- the
closed form of the collision estimate's step 7 (Appendix G.1.1), the compression estimate's G
recurrence, the long-double arithmetic of the t-tuple, LRS and predictor bounds -- the tool's
choice is followed, so the digits agree with it; each function says where.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import _kernels as K
from ._suffix import tuple_counts

Z_ALPHA = 2.5758293035489008          # Z_(1 - 0.005): the 99% two-sided normal quantile
Z_ALPHA_L = np.longdouble("2.575829303548900384158")
LD = np.longdouble


@dataclass(frozen=True)
class Estimate:
    """One estimator's result: ``min_entropy`` per sample (None when it cannot run on this
    data, with the reason in ``note``) and the document's intermediate values."""

    name: str
    section: str
    min_entropy: float | None
    details: dict[str, Any] = field(default_factory=dict)
    note: str = ""

    def __post_init__(self):
        if self.min_entropy is not None:  # -log2(1) is -0.0: print 0
            object.__setattr__(self, "min_entropy", float(self.min_entropy) + 0.0)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "section": self.section, "min_entropy": self.min_entropy,
                "details": self.details, "note": self.note}


def _upper_bound(p: float, n: int) -> float:
    # p + Z sqrt(...) with one rounding: the NIST tool's build fuses it (see _kernels.fma)
    return min(1.0, K.fma(Z_ALPHA, math.sqrt(p * (1.0 - p) / (n - 1.0)), p))


# ---------------------------------------------------------------- 6.3.1

def most_common_value(s: np.ndarray, k: int) -> Estimate:
    """6.3.1: p_u = min(1, p-hat + 2.576 sqrt(p-hat(1-p-hat)/(L-1))), H = -log2 p_u."""
    n = s.size
    if k == 2:   # the 8,000,000-bit bitstring: count ones rather than widen every bit to a bincount index
        ones = int(np.count_nonzero(s))
        mode = max(ones, n - ones)
    else:
        mode = int(np.bincount(s, minlength=k).max())
    p_hat = mode / float(n)
    p_u = _upper_bound(p_hat, n)
    return Estimate("Most Common Value", "6.3.1", -math.log2(p_u),
                    {"mode_count": mode, "p_hat": p_hat, "p_u": p_u})


# ---------------------------------------------------------------- 6.3.2

def collision(bits: np.ndarray) -> Estimate:
    """6.3.2 (binary only). Step 7 is solved in closed form: with 90B's F (Appendix G.1.1) the
    expected collision time of the binary family is 2 + 2p - 2p^2, so p = 1/2 + sqrt(5/4 - X'/2)
    (the NIST tool's derivation); X' >= 2.5 leaves no solution and the estimate is 1 bit."""
    v, total, sum_sq = K.collision_walk(np.ascontiguousarray(bits, dtype=np.uint8))
    x_bar = total / float(v)
    sigma = math.sqrt(K.fma(-float(total), x_bar, sum_sq) / (v - 1))  # fused, as the tool's build
    x_prime = max(2.0, x_bar - Z_ALPHA * sigma / math.sqrt(v))
    if x_prime < 2.5:
        p = 0.5 + math.sqrt(1.25 - 0.5 * x_prime)
        h = -math.log2(p)
    else:
        p, h = 0.5, 1.0
    return Estimate("Collision", "6.3.2", h, {"v": int(v), "sum_t": int(total), "x_bar": x_bar,
                                               "sigma_hat": sigma, "x_bar_prime": x_prime, "p": p})


# ---------------------------------------------------------------- 6.3.3

def markov(bits: np.ndarray) -> Estimate:
    """6.3.3 (binary only): the most likely 128-bit sequence of the fitted first-order chain."""
    b = np.asarray(bits, dtype=np.uint8)
    n = b.size
    head, tail = b[:-1], b[1:]
    c0 = int(np.count_nonzero(head == 0))
    c00 = int(np.count_nonzero((head == 0) & (tail == 0)))
    c10 = int(np.count_nonzero((head == 1) & (tail == 0)))
    c1 = n - 1 - c0
    p00 = c00 / c0 if c0 else 0.0
    p01 = 1.0 - p00 if c0 else 0.0
    p10 = c10 / c1 if c1 else 0.0
    p11 = 1.0 - p10 if c1 else 0.0
    p0 = (c0 + (1 if b[-1] == 0 else 0)) / float(n)
    p1 = 1.0 - p0
    lg, fma = math.log2, K.fma  # each "- c * log2(P)" is fused, as in the tool's build
    candidates = []
    if p00 > 0:
        candidates.append(fma(-127.0, lg(p00), -lg(p0)))
    if p01 > 0 and p10 > 0:
        candidates.append(fma(-63.0, lg(p10), fma(-64.0, lg(p01), -lg(p0))))
    if p01 > 0 and p11 > 0:
        candidates.append(fma(-126.0, lg(p11), -lg(p0) - lg(p01)))
    if p10 > 0 and p00 > 0:
        candidates.append(fma(-126.0, lg(p00), -lg(p1) - lg(p10)))
    if p10 > 0 and p01 > 0:
        candidates.append(fma(-63.0, lg(p01), fma(-64.0, lg(p10), -lg(p1))))
    if p11 > 0:
        candidates.append(fma(-127.0, lg(p11), -lg(p1)))
    h_min = 128.0
    for c in candidates:
        if c < h_min:
            h_min = c
    return Estimate("Markov", "6.3.3", min(h_min / 128.0, 1.0),
                    {"P_0": p0, "P_1": p1, "P_00": p00, "P_01": p01, "P_10": p10, "P_11": p11,
                     "p_max": 2.0 ** -h_min})


# ---------------------------------------------------------------- 6.3.4

_BLOCK_BITS = 6
_DICT_BLOCKS = 1000
_ITERMAX = 1076


def _log2_table(n: int) -> tuple[np.ndarray, np.ndarray]:
    i = np.arange(n + 1, dtype=np.longdouble)
    i[0] = 1
    full = np.log2(i)
    hi = full.astype(np.float64)
    lo = (full - hi.astype(np.longdouble)).astype(np.float64)
    return hi, lo


def _rel_equal(a: float, b: float, max_ulp: int = 4) -> bool:
    """The NIST tool's relEpsilonEqual(a, b, DBL_MIN, DBL_EPSILON, 4)."""
    if math.isnan(a) or math.isnan(b):
        return False
    if a == b:
        return True
    if math.isinf(a) or math.isinf(b):
        return False
    if abs(a) > abs(b):
        a, b = b, a
    diff = abs(b - a)
    tiny = 2.2250738585072014e-308
    eps = 2.220446049250313e-16
    if abs(a) < tiny or diff < tiny or math.isinf(diff) or abs(b) * eps < tiny:
        return diff <= tiny
    if diff <= abs(b) * eps:
        return True
    if (a < 0) != (b < 0):
        return False
    ia = int(np.float64(abs(a)).view(np.uint64))
    ib = int(np.float64(abs(b)).view(np.uint64))
    return ib - ia <= max_ulp


def _in_closed(x, a, b):
    return (b <= x <= a) if a > b else (a <= x <= b)


def _in_open(x, a, b):
    return (b < x < a) if a > b else (a < x < b)


def _bisect(f, target: float, ldomain: float, hdomain: float, fail_value: float) -> float:
    """The NIST tool's guarded bisection for f(p) = target on [ldomain, hdomain] (f decreasing),
    used by the compression estimate (fail -> ldomain) and P_local (fail -> hdomain)."""
    lbound, hbound = ldomain, hdomain
    lvalue, hvalue = math.inf, -math.inf
    p = (lbound + hbound) / 2.0
    p_val = f(p)
    for _ in range(_ITERMAX):
        if _rel_equal(p_val, target):
            break
        if target < p_val:
            lbound, lvalue = p, p_val
        else:
            hbound, hvalue = p, p_val
        if lbound >= hbound:
            p = min(max(lbound, hbound), hdomain)
            break
        if not (_in_closed(lbound, ldomain, hdomain) and _in_closed(hbound, ldomain, hdomain)):
            p = fail_value
            break
        if not _in_closed(target, lvalue, hvalue):
            p = fail_value
            break
        last = p
        p = (lbound + hbound) / 2.0
        if not _in_open(p, lbound, hbound):
            p = hbound
            break
        if last == p:
            p = hbound
            break
        p_val = f(p)
        if not _in_closed(p_val, lvalue, hvalue):
            p = hbound
            break
    return p


def compression(bits: np.ndarray) -> Estimate:
    """6.3.4 (binary only): 6-bit blocks, a 1000-block dictionary, and a bisection for p in
    E[X'] = G(p) + (2^6 - 1) G(q). G follows the UL/NIST recurrence (Kahan-summed)."""
    b = np.ascontiguousarray(bits, dtype=np.uint8)
    num_blocks = b.size // _BLOCK_BITS
    if num_blocks <= _DICT_BLOCKS:
        return Estimate("Compression", "6.3.4", None,
                        note=f"needs more than {_DICT_BLOCKS} blocks of {_BLOCK_BITS} bits")
    v = num_blocks - _DICT_BLOCKS
    x_sum, sq_sum = K.compression_scan(b, _BLOCK_BITS, _DICT_BLOCKS)
    x_bar = x_sum / v
    sigma = 0.5907 * math.sqrt(K.fma(-x_bar, x_bar, sq_sum / (v - 1.0)))  # fused, as the tool's build
    x_prime = x_bar - Z_ALPHA * sigma / math.sqrt(v)
    alphabet = 1 << _BLOCK_BITS
    log_hi, log_lo = _log2_table(num_blocks)

    def expected(p: float) -> float:
        q = (1.0 - p) / (alphabet - 1.0)
        return K.fma(alphabet - 1.0, K.compression_g(q, _DICT_BLOCKS, num_blocks, log_hi, log_lo),
                     K.compression_g(p, _DICT_BLOCKS, num_blocks, log_hi, log_lo))

    floor_p = 1.0 / alphabet
    if expected(floor_p) > x_prime:
        p = _bisect(expected, x_prime, floor_p, 1.0, floor_p)
    else:
        p = -1.0
    if p > floor_p:
        h = -math.log2(p) / _BLOCK_BITS
        found = True
    else:
        p, h, found = floor_p, 1.0, False
    return Estimate("Compression", "6.3.4", h, {"x_bar": x_bar, "sigma_hat": sigma, "x_bar_prime": x_prime,
                                                 "p": p, "found_p": found})


# ---------------------------------------------------------------- 6.3.5 / 6.3.6

def tuple_and_lrs(s: np.ndarray, width: int) -> tuple[Estimate, Estimate]:
    """6.3.5 t-tuple and 6.3.6 LRS from one suffix array: Q[t] the most frequent t-tuple's count
    (t-tuple uses t while Q[t] >= 35), and the collision counts of W-tuples for u <= W <= v.
    The powers and the bound are taken in long double, as in the NIST tool."""
    n = s.size
    v, q, pairs = tuple_counts(s, width)
    u = 1
    while u <= v and q[u] >= 35:
        u += 1
    nm1 = LD(n - 1)

    def bound(p_max):
        pu = p_max + Z_ALPHA_L * np.sqrt(p_max * (LD(1) - p_max) / nm1)
        return min(pu, LD(1))

    if u > 1:
        t = np.arange(1, u, dtype=np.int64)
        p_max = np.max(np.power(q[1:u].astype(LD) / (n - t + 1).astype(LD), LD(1) / t.astype(LD)))
        pu = bound(p_max)
        t_est = Estimate("t-Tuple", "6.3.5", float(-np.log2(pu)),
                         {"t": u - 1, "p_hat_max": float(p_max), "p_u": float(pu),
                          "Q": [int(x) for x in q[1:u]]})
    else:
        t_est = Estimate("t-Tuple", "6.3.5", None, note="no tuple occurs 35 times")
    if v >= u:
        w = np.arange(u, v + 1, dtype=np.int64)
        choices = ((n - w) * (n - w + 1) // 2).astype(LD)
        p_max = max(LD(0), np.max(np.power(pairs[u:v + 1].astype(LD) / choices, LD(1) / w.astype(LD))))
        pu = bound(p_max)
        lrs_est = Estimate("Longest Repeated Substring", "6.3.6", float(-np.log2(pu)),
                           {"u": int(u), "v": int(v), "p_hat": float(p_max), "p_u": float(pu)})
    else:
        lrs_est = Estimate("Longest Repeated Substring", "6.3.6", None, note=f"v = {v} < u = {u}")
    return t_est, lrs_est


# ---------------------------------------------------------------- 6.3.7 - 6.3.10

def _prediction_log_prob(p: float, r: int, n: int) -> float:
    """log P(longest run < r) for N predictions of success probability p (90B 6.3.7 step 9, the
    NIST tool's fixed-point x and logarithmic form, in long double)."""
    p = LD(p)
    q = LD(1) - p
    x = LD(1)
    last = LD(0)
    eps = np.finfo(np.longdouble).eps
    rr = LD(r)
    for _ in range(66):
        if not (x - last > eps * x):
            break
        last = x
        x = LD(1) + q * np.power(p, rr) * np.power(x, rr + LD(1))
    return float(np.log(LD(1) - p * x) - np.log((rr + LD(1) - rr * x) * q) - (LD(n) + LD(1)) * np.log(x))


def prediction_estimate(name: str, section: str, c: int, n: int, longest_run: int, k: int) -> Estimate:
    """6.3.7 steps 7-10 (shared by the four predictors): the larger of P_global' (99% upper
    bound on the fraction predicted) and P_local (from the longest run of correct predictions)."""
    r = longest_run + 1
    p_global = c / float(n)
    if p_global > 0:
        p_global_prime = _upper_bound(p_global, n)
    else:
        p_global_prime = 1.0 - 0.01 ** (1.0 / n)
    cur = max(1.0 / k, p_global_prime)
    p_local = None
    log_alpha = math.log(0.99)
    if cur < 1.0 and _prediction_log_prob(cur, r, n) > log_alpha:
        p_local = _bisect(lambda p: _prediction_log_prob(p, r, n), log_alpha, cur, 1.0, 1.0)
        cur = max(cur, p_local)
    return Estimate(name, section, -math.log2(cur),
                    {"C": int(c), "N": int(n), "r": int(r), "P_global": p_global,
                     "P_global_prime": p_global_prime, "P_local": p_local})


MCW_WINDOWS = np.array([63, 255, 1023, 4095], dtype=np.int64)
LAG_DEPTH = 128
MMC_DEPTH = 16
MMC_MAX_ENTRIES = 100_000
LZ78Y_DEPTH = 16
LZ78Y_MAX_ENTRIES = 65_536


def multi_mcw(s: np.ndarray, k: int, windows: np.ndarray = MCW_WINDOWS) -> Estimate:
    """6.3.7 MultiMCW prediction (windows 63, 255, 1023, 4095)."""
    if s.size < windows[-1] + 1:
        return Estimate("MultiMCW Prediction", "6.3.7", None, note=f"needs more than {windows[-1] + 1} samples")
    c, n, run = K.multi_mcw(np.ascontiguousarray(s, dtype=np.uint8), k, np.asarray(windows, dtype=np.int64))
    return prediction_estimate("MultiMCW Prediction", "6.3.7", c, n, run, k)


def lag_prediction(s: np.ndarray, k: int, depth: int = LAG_DEPTH) -> Estimate:
    """6.3.8 Lag prediction (lags 1..128)."""
    c, n, run = K.lag(np.ascontiguousarray(s, dtype=np.uint8), depth, k == 2)
    return prediction_estimate("Lag Prediction", "6.3.8", c, n, run, k)


def multi_mmc(s: np.ndarray, k: int, depth: int = MMC_DEPTH, max_entries: int = MMC_MAX_ENTRIES) -> Estimate:
    """6.3.9 MultiMMC prediction (Markov models of orders 1..16, 100,000 entries each)."""
    if s.size < 3:
        return Estimate("MultiMMC Prediction", "6.3.9", None, note="needs at least 3 samples")
    c, n, run = K.multi_mmc(np.ascontiguousarray(s, dtype=np.uint8), depth, max_entries, k == 2)
    return prediction_estimate("MultiMMC Prediction", "6.3.9", c, n, run, k)


def lz78y(s: np.ndarray, k: int, depth: int = LZ78Y_DEPTH, max_entries: int = LZ78Y_MAX_ENTRIES) -> Estimate:
    """6.3.10 LZ78Y prediction (contexts up to 16 symbols, 65,536 dictionary entries)."""
    if s.size < depth + 2:
        return Estimate("LZ78Y Prediction", "6.3.10", None, note=f"needs more than {depth + 2} samples")
    c, n, run = K.lz78y(np.ascontiguousarray(s, dtype=np.uint8), depth, max_entries, k == 2)
    return prediction_estimate("LZ78Y Prediction", "6.3.10", c, n, run, k)
