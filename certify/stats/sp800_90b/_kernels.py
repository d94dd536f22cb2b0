"""numba kernels of the SP 800-90B 6.3 estimators: the sequential scans, each returning counts.

Every kernel follows the document's step order (and, where 90B leaves a choice open, the NIST
SP800-90B_EntropyAssessment tool's: ties go to the larger symbol or the later predictor, as
there), so that the counts C, r and N of the predictors agree exactly with that tool.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def _cttz(typingctx, x):
    """Count of trailing zero bits of a uint64 (LLVM cttz)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


@intrinsic
def _prefetch(typingctx, ary, idx):
    """Ask the CPU to bring the cache line of ary[idx] in for writing (llvm.prefetch): a hint with
    no effect on any value."""
    sig = types.void(ary, idx)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ptr = cgutils.get_item_pointer(context, builder, aryty, context.make_array(aryty)(context, builder, args[0]),
                                       [args[1]])
        byte_ptr = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [byte_ptr, i32, i32, i32]),
                                            "llvm.prefetch.p0i8")
        builder.call(fn, [builder.bitcast(ptr, byte_ptr), ir.Constant(i32, 1), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def _ctlz(typingctx, x):
    """Count of leading zero bits of a uint64 (LLVM ctlz)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


@intrinsic
def _popcount(typingctx, x):
    """Number of set bits of a uint64 (LLVM ctpop)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@nb.njit(cache=True, nogil=True)
def collision_walk(bits):
    """6.3.2 steps 1-2 on a bitstring: v collisions, sum of t_i and sum of t_i^2."""
    n = bits.size
    i = 0
    v = 0
    s2 = 0.0
    while i < n - 1:
        if bits[i] == bits[i + 1]:
            t = 2
        elif i < n - 2:
            t = 3
        else:
            break
        v += 1
        s2 += t * t
        i += t
    return v, i, s2


@nb.njit(cache=True, nogil=True)
def compression_scan(bits, block_bits, dict_blocks):
    """6.3.4 steps 2-4: the Maurer-style distances of 6-bit blocks, summed (Kahan) as log2 and log2^2."""
    num_blocks = bits.size // block_bits
    last = np.zeros(1 << block_bits, dtype=np.int64)
    for i in range(dict_blocks):
        b = 0
        for j in range(block_bits):
            b |= (bits[i * block_bits + j] & 1) << (block_bits - j - 1)
        last[b] = i + 1
    x = 0.0
    xc = 0.0
    s = 0.0
    sc = 0.0
    for i in range(dict_blocks, num_blocks):
        b = 0
        for j in range(block_bits):
            b |= (bits[i * block_bits + j] & 1) << (block_bits - j - 1)
        d = np.log2(np.float64(i + 1 - last[b]))
        y = d - xc
        t = x + y
        xc = (t - x) - y
        x = t
        y = fma(d, d, -sc)  # the tool's build fuses d*d - sc
        t = s + y
        sc = (t - s) - y
        s = t
        last[b] = i + 1
    return x, s


@nb.njit(inline="always")
def _kahan(total, comp, value):
    y = value - comp
    t = total + y
    return t, (t - total) - y


@nb.njit(inline="always")
def _two_prod(a, b):
    """a*b = p + e exactly (Dekker)."""
    p = a * b
    split = 134217729.0
    t = split * a
    ah = t - (t - a)
    al = a - ah
    t = split * b
    bh = t - (t - b)
    bl = b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


@intrinsic
def _llvm_fma(typingctx, a, b, c):
    """llvm.fma.f64: a*b + c with one rounding (the FMA instruction, or libm's fma)."""
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        return builder.fma(*args)

    return sig, codegen


@nb.njit(cache=True, nogil=True)
def fma(a, b, c):
    """a*b + c rounded once (IEEE 754 fusedMultiplyAdd).

    The NIST tool, built as its Makefile says (GCC, -O2 -march=native) on an x86-64 or ARM64
    CPU with FMA (every current one), has GCC fuse a few of its double-precision a*b + c into
    one instruction; the estimators that have such an expression use this so that they print
    the same digits as that tool."""
    return _llvm_fma(np.float64(a), np.float64(b), np.float64(c))


@nb.njit(inline="always")
def _dd_mul(ah, al, bh, bl):
    p, e = _two_prod(ah, bh)
    e += ah * bl + al * bh
    h = p + e
    return h, e - (h - p)


_RESCALE = 2.0 ** 400
_RESCALE_EXP = 400
_SMALL = 2.0 ** -400


@nb.njit(cache=True, nogil=True)
def compression_g(z, d, num_blocks, log2_hi, log2_lo):
    """G(z) of 6.3.4 step 7 (the UL/NIST recurrence: B_i = (1-z)^(i-1), Kahan sums, the tail cut
    where a term rounds to zero in double). The reference tool carries B_i in long double, whose
    exponent reaches 2^-16382; here B_i is a double-double mantissa with its own binary exponent,
    and the log2 factors are double-double, so each term is the tool's long-double term rounded
    to double."""
    v = num_blocks - d
    ai_sum = 0.0
    ai_comp = 0.0
    first = 0.0
    first_comp = 0.0
    th = 1.0 - z
    tl = (1.0 - th) - z
    bh, bl = th, tl
    e2 = 0
    for i in range(2, d + 1):
        ph, pl = _dd_mul(log2_hi[i], log2_lo[i], bh, bl)
        ai_sum, ai_comp = _kahan(ai_sum, ai_comp, math.ldexp(ph + pl, e2))
        bh, bl = _dd_mul(bh, bl, th, tl)
        if bh < _SMALL and bh != 0.0:
            bh *= _RESCALE
            bl *= _RESCALE
            e2 -= _RESCALE_EXP
    ad1 = ai_sum
    truncated = False
    for i in range(d + 1, num_blocks):
        ph, pl = _dd_mul(log2_hi[i], log2_lo[i], bh, bl)
        ai_sum, ai_comp = _kahan(ai_sum, ai_comp, math.ldexp(ph + pl, e2))
        sh, sl = _dd_mul(np.float64(num_blocks - i), 0.0, ph, pl)
        scaled = math.ldexp(sh + sl, e2)
        if scaled > 0.0:
            first, first_comp = _kahan(first, first_comp, scaled)
        else:
            truncated = True
            break
        bh, bl = _dd_mul(bh, bl, th, tl)
        if bh < _SMALL and bh != 0.0:
            bh *= _RESCALE
            bl *= _RESCALE
            e2 -= _RESCALE_EXP
    # the tool's build fuses (num_blocks - d) * ad1 - comp inside this Kahan step, and
    # z * first + (ai_sum - ad1) below
    y = fma(np.float64(num_blocks - d), ad1, -first_comp)
    first = first + y
    if not truncated:
        ph, pl = _dd_mul(log2_hi[num_blocks], log2_lo[num_blocks], bh, bl)
        ai_sum, ai_comp = _kahan(ai_sum, ai_comp, math.ldexp(ph + pl, e2))
    return 1.0 / np.float64(v) * z * fma(z, first, ai_sum - ad1)


# ---------------------------------------------------------------- predictors (6.3.7 - 6.3.10)

@nb.njit(cache=True, nogil=True)
def _binary_mcw(s, windows):
    """6.3.7 on bits with odd windows: a full window of odd length has a unique most common value
    (its majority), so each window is a running count of ones and no tie rule is needed. Every
    window predicts only once it is full, as in ``multi_mcw``."""
    nw = windows.size
    L = s.size
    ones = np.zeros(nw, dtype=np.int64)
    for j in range(nw):
        for t in range(windows[j]):
            ones[j] += s[t]
    score = np.zeros(nw, dtype=np.int64)
    winner = 0
    c = 0
    run = 0
    best_run = 0
    for i in range(windows[0], L):
        x = np.int64(s[i])
        if np.int64(2 * ones[winner] > windows[winner]) == x:
            c += 1
            run += 1
            if run > best_run:
                best_run = run
        else:
            run = 0
        for j in range(nw):
            if i >= windows[j]:
                if np.int64(2 * ones[j] > windows[j]) == x:
                    score[j] += 1
                    if score[j] >= score[winner]:
                        winner = j
                ones[j] += x - np.int64(s[i - windows[j]])
    return c, L - windows[0], best_run


@nb.njit(cache=True, nogil=True)
def multi_mcw(s, k, windows):
    """6.3.7 MultiMCW: returns (C, N, longest run of correct predictions)."""
    nw = windows.size
    odd = True
    for j in range(nw):
        odd = odd and windows[j] % 2 == 1
    if k == 2 and odd:
        return _binary_mcw(s, windows)
    L = s.size
    wmax = windows[nw - 1]
    counts = np.zeros((nw, k), dtype=np.int64)
    poses = np.zeros((nw, k), dtype=np.int64)
    max_cnt = np.zeros(nw, dtype=np.int64)
    frequent = np.zeros(nw, dtype=np.int64)
    score = np.zeros(nw, dtype=np.int64)
    for i in range(wmax):
        x = s[i]
        for j in range(nw):
            if i < windows[j]:
                counts[j, x] += 1
                if max_cnt[j] <= counts[j, x]:
                    max_cnt[j] = counts[j, x]
                    frequent[j] = x
                poses[j, x] = i
    winner = 0
    c = 0
    run = 0
    best_run = 0
    for i in range(windows[0], L):
        x = s[i]
        if frequent[winner] == x:
            c += 1
            run += 1
            if run > best_run:
                best_run = run
        else:
            run = 0
        for j in range(nw):
            if i >= windows[j] and frequent[j] == x:
                score[j] += 1
                if score[j] >= score[winner]:
                    winner = j
        for j in range(nw):
            if i >= windows[j]:
                old = s[i - windows[j]]
                counts[j, old] -= 1
                counts[j, x] += 1
                poses[j, x] = i
                if old != frequent[j] and max_cnt[j] <= counts[j, x]:
                    max_cnt[j] = counts[j, x]
                    frequent[j] = x
                elif old == frequent[j]:
                    max_cnt[j] -= 1
                    max_pos = i - windows[j]
                    for y in range(k):
                        if max_cnt[j] < counts[j, y] or (max_cnt[j] == counts[j, y] and max_pos <= poses[j, y]):
                            max_cnt[j] = counts[j, y]
                            frequent[j] = y
                            max_pos = poses[j, y]
    return c, L - windows[0], best_run


@nb.njit(inline="always")
def _bits64(words, p):
    """Bits p .. p+63 of the packed bitstring (bit t of the result is bit p+t)."""
    q = p >> 6
    r = np.uint64(p & 63)
    if r == 0:
        return words[q]
    return (words[q] >> r) | (words[q + 1] << (np.uint64(64) - r))


@nb.njit(cache=True, nogil=True)
def _binary_lag(s):
    """6.3.8 on bits with D = 128, 64 predictions at a time.

    A block of 64 steps gets, for every lag d, the word of its agreements s[i] == s[i-d] (two
    packed-bit windows XNORed). The best score so far (the winner's) never falls, so a lag whose
    score plus its agreements in the block stays below the winner's score at the block's start
    cannot become the winner inside the block: its agreements are added at the end. Only the
    other lags (usually a handful) are stepped one prediction at a time, in increasing lag with
    the document's ">=" rule, so every count is that of the one-step-at-a-time scan."""
    L = s.size
    depth = 128
    score = np.zeros(depth + 1, dtype=np.int64)
    winner = 1
    c = 0
    run = 0
    best_run = 0
    head = min(L, depth)
    for i in range(1, head):   # not every lag has a sample behind it yet
        x = s[i]
        if s[i - winner] == x:
            c += 1
            run += 1
            if run > best_run:
                best_run = run
        else:
            run = 0
        for d in range(1, i + 1):
            if s[i - d] == x:
                score[d] += 1
                if score[d] >= score[winner]:
                    winner = d
    if L <= depth:
        return c, L - 1, best_run
    words = np.zeros((L + 63) // 64 + 2, dtype=np.uint64)
    for i in range(L):
        words[i >> 6] |= np.uint64(s[i] & 1) << np.uint64(i & 63)
    agree = np.zeros(depth + 1, dtype=np.uint64)
    cand = np.zeros(depth, dtype=np.int64)
    ones = np.uint64(0xFFFFFFFFFFFFFFFF)
    one = np.uint64(1)
    for i0 in range(depth, L, 64):
        width = min(64, L - i0)
        block = ones if width == 64 else (one << np.uint64(width)) - one
        now = _bits64(words, i0)
        floor = score[winner]
        nc = 0
        for d in range(1, depth + 1):
            a = ~(now ^ _bits64(words, i0 - d)) & block
            agree[d] = a
            if score[d] + np.int64(_popcount(a)) >= floor:
                cand[nc] = d
                nc += 1
            else:
                score[d] += np.int64(_popcount(a))
        for t in range(width):
            bit = np.uint64(t)
            if (agree[winner] >> bit) & one:
                c += 1
                run += 1
                if run > best_run:
                    best_run = run
            else:
                run = 0
            top = score[winner]
            for j in range(nc):
                d = cand[j]
                if (agree[d] >> bit) & one:
                    score[d] += 1
                    if score[d] >= top:
                        winner = d
                        top = score[d]
    return c, L - 1, best_run


@nb.njit(cache=True, nogil=True)
def lag(s, depth, binary=False):
    """6.3.8 Lag prediction: returns (C, N, longest run)."""
    if binary and depth == 128:
        return _binary_lag(s)
    L = s.size
    score = np.zeros(depth + 1, dtype=np.int64)
    winner = 1
    c = 0
    run = 0
    best_run = 0
    for i in range(1, L):
        x = s[i]
        if i - winner >= 0 and s[i - winner] == x:
            c += 1
            run += 1
            if run > best_run:
                best_run = run
        else:
            run = 0
        top = depth if i >= depth else i
        for d in range(1, top + 1):
            if s[i - d] == x:
                score[d] += 1
                if score[d] >= score[winner]:
                    winner = d
    return c, L - 1, best_run


# Prefix dictionaries of the MultiMMC and LZ78Y predictors. Binary data addresses the context of
# m bits directly (index 2^m + pattern). Otherwise a context of m symbols is packed most recent
# symbol first (8 bits each, two words for up to 16 symbols) and open addressing maps
# (m, packed context) -> prefix slot and (prefix slot, next symbol) -> count. Each prefix keeps its
# best count and predicted symbol as the reference's PostfixDictionary does (a tie goes to the
# larger symbol). The small helpers are plain compiled functions: numba's inline="always" of them
# cost seconds of compile and measured no faster.

_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)   # a word of 64 set bits


@nb.njit(nogil=True)
def _mix(a, b, c):
    h = a * np.uint64(0x9E3779B97F4A7C15) ^ (b + np.uint64(0x632BE59BD9B4E019)) * np.uint64(0xC2B2AE3D27D4EB4F)
    h ^= (c + np.uint64(0x85EBCA77C2B2AE63)) * np.uint64(0x165667B19E3779F9)
    h ^= h >> np.uint64(29)
    return h


@nb.njit(cache=True, nogil=True)
def _grow_pairs(pairs):
    """The (prefix slot, next symbol) -> count table at twice the size (key -1: empty slot)."""
    cap = pairs.size  # twice the old slot count: each slot is (key, count)
    grown = np.full(2 * cap, -1, dtype=np.int64)
    mask = cap - 1
    for t in range(0, pairs.size, 2):
        if pairs[t] >= 0:
            h = np.int64(_mix(np.uint64(pairs[t]), np.uint64(7), np.uint64(11)) & np.uint64(mask))
            while grown[2 * h] >= 0:
                h = (h + 1) & mask
            grown[2 * h] = pairs[t]
            grown[2 * h + 1] = pairs[t + 1]
    return grown


@nb.njit(nogil=True)
def _context(hi, lo, m):
    """The m most recent symbols out of the rolling 16-symbol window."""
    if m >= 16:
        return hi, lo
    if m > 8:
        return hi & ((np.uint64(1) << np.uint64(8 * (m - 8))) - np.uint64(1)), lo
    if m == 8:
        return np.uint64(0), lo
    return np.uint64(0), lo & ((np.uint64(1) << np.uint64(8 * m)) - np.uint64(1))


@nb.njit(nogil=True)
def _roll(hi, lo, x):
    """The rolling window of the 16 most recent symbols (8 bits each, the latest lowest) after x."""
    return (hi << np.uint64(8)) | (lo >> np.uint64(56)), (lo << np.uint64(8)) | np.uint64(x)


# A context's record: three words (packed context hi, lo; meta = length | predicted symbol << 8 |
# best count << 32), so a lookup that finds its context reads one place in memory.
_LEN_MASK = np.uint64(0xFF)


@nb.njit(nogil=True)
def _prefix_slot(tags, rec, m, hi, lo, mask):
    """Slot of the m-symbol context (hi, lo) in the table of mask + 1 slots: where it is, or the empty slot where it would go. ``tags`` (one byte a slot: the length and three bits
    of the hash, 0 when empty) is small enough to stay in cache, so most probes never touch the
    record."""
    hashed = _mix(np.uint64(m), hi, lo)
    tag = np.uint8(m | np.int64(hashed >> np.uint64(61)) << 5)
    h = np.int64(hashed & np.uint64(mask))
    while True:
        t = tags[h]
        if t == 0 or (t == tag and rec[3 * h] == hi and rec[3 * h + 1] == lo):
            return h
        h = (h + 1) & mask


@nb.njit(nogil=True)
def _slot_tag(m, hi, lo):
    return np.uint8(m | np.int64(_mix(np.uint64(m), hi, lo) >> np.uint64(61)) << 5)


@nb.njit(nogil=True)
def _pair_slot(pairs, key, mask):
    """Slot of the (context slot, symbol) ``key`` in the pair table of mask + 1 slots."""
    g = np.int64(_mix(np.uint64(key), np.uint64(7), np.uint64(11)) & np.uint64(mask))
    while pairs[2 * g] >= 0 and pairs[2 * g] != key:
        g = (g + 1) & mask
    return g


def _lz78y_tables(depth, max_entries):
    """The tables of ``_literal_lz78y``: (region, tags, rec, pairs), the context table sized for
    its at most max_entries + depth contexts at a load factor of at most one half. Allocated here
    by numpy, which asks the kernel for huge pages for tables this large (fewer TLB misses on
    their random probes)."""
    region = 1024
    while region < 2 * (max_entries + depth):
        region *= 2
    return (region, np.zeros(region, dtype=np.uint8), np.zeros(3 * region, dtype=np.uint64),
            np.full(2 * 4096, -1, dtype=np.int64))   # the pair table grows


@nb.njit(cache=True, nogil=True)
def _literal_lz78y(s, depth, max_entries, region, tags, rec, pairs):
    """LZ78Y (6.3.10) over symbols of any alphabet: contexts of lengths depth..1, at most
    ``max_entries`` contexts in all; the context whose best count is highest (the longest on a
    tie) makes the prediction. A context lives in a slot of the (pre-sized, never moved) context
    table, its best count and predicted symbol beside it; (slot, next symbol) -> count is a
    second table, grown as needed. Both are open-addressed with records side by side, so a probe
    costs one cache miss rather than one per field. Returns (C, N, longest run)."""
    L = s.size
    mask = region - 1
    n_pairs = 0
    size = 0
    x = np.int64(s[depth])
    for m in range(1, depth + 1):   # the initial entries: s[depth-m .. depth-1] -> s[depth]
        ch = np.uint64(0)
        cl = np.uint64(0)
        for t in range(depth - m, depth):
            ch, cl = _roll(ch, cl, s[t])
        slot = _prefix_slot(tags, rec, m, ch, cl, mask)
        if tags[slot] == 0:
            _new_context(tags, rec, slot, m, ch, cl)
        size += 1
        if 2 * (n_pairs + 1) > pairs.size // 2:
            pairs = _grow_pairs(pairs)
        n_pairs += _count_pair(pairs, rec, slot, x, pairs.size // 2 - 1, True)
    hi = np.uint64(0)
    lo = np.uint64(0)
    for t in range(depth + 1):
        hi, lo = _roll(hi, lo, s[t])
    c = 0
    run = 0
    best_run = 0
    for i in range(depth + 1, L):
        x = np.int64(s[i])
        prediction = -1
        max_count = 0
        for m in range(depth, 0, -1):
            ch, cl = _context(hi, lo, m)
            slot = _prefix_slot(tags, rec, m, ch, cl, mask)
            if tags[slot] != 0:
                meta = rec[3 * slot + 2]
                slot_best = np.int64(meta >> np.uint64(32))
                if slot_best > max_count:
                    max_count = slot_best
                    prediction = np.int64((meta >> np.uint64(8)) & np.uint64(0xFF))
            elif size < max_entries:
                _new_context(tags, rec, slot, m, ch, cl)
                size += 1
            else:
                continue
            if 2 * (n_pairs + 1) > pairs.size // 2:
                pairs = _grow_pairs(pairs)
            n_pairs += _count_pair(pairs, rec, slot, x, pairs.size // 2 - 1, True)
        if prediction == x:
            c += 1
            run += 1
            if run > best_run:
                best_run = run
        else:
            run = 0
        hi, lo = _roll(hi, lo, s[i])
    return c, L - depth - 1, best_run


_AHEAD = 2          # steps ahead whose contexts the binary predictors prefetch
_PREFETCH_FROM = 11  # ... of these lengths and longer (the shorter ones' counts stay in L1)


@nb.njit(inline="always")
def _prefetch_contexts(counts, s, i, hist, depth):
    """Prefetch the counts of the long contexts that step i + _AHEAD will read: their addresses are
    known from the input, while the steps between are still deciding (hit or miss) what to add."""
    if i + _AHEAD < s.size:
        future = hist
        for t in range(_AHEAD):
            future = (future << 1) | np.int64(s[i + t])
        for m in range(_PREFETCH_FROM, depth + 1):
            _prefetch(counts, 2 * ((1 << m) | (future & ((1 << m) - 1))))


@nb.njit(cache=True, nogil=True)
def _binary_mmc(s, depth, max_entries):
    """MultiMMC on bits: contexts of m bits addressed directly (index 2^m + pattern).

    The predictors of the m context lengths interact only through the scoreboard and through
    "found" (a length is judged at step i only if every shorter context was seen before): each
    length's counts change the same way whoever wins. So one pass per length m walks the whole
    bitstring with just its own table (in cache) and records, as packed bits, at which steps its
    context chain was found and where its prediction (1 on a tie) was right; found bits feed the
    pass of m + 1. ``_mmc_scoreboard`` then replays the scoreboard from those bits."""
    L = s.size
    counts = np.zeros(1 << (depth + 2), dtype=np.int32)   # a count is at most L < 2^31
    n_pred = L - 2
    for m in range(1, depth + 1):
        if m - 1 >= n_pred:
            continue
        pattern = 0
        for t in range(m):
            pattern = (pattern << 1) | np.int64(s[t])
        counts[2 * ((1 << m) | pattern) + np.int64(s[m])] = 1
    nwords = (L + 63) // 64
    found = np.zeros((depth + 1) * nwords, dtype=np.uint64)   # row m: length m's bits
    right = np.zeros((depth + 1) * nwords, dtype=np.uint64)   # row m: length m's bits
    for w in range(nwords):   # length 0: always 'found' (loops, not slices: they compile faster)
        found[w] = _ALL
    one = np.uint64(1)
    for m in range(1, depth + 1):
        start = max(2, m + 1)   # length m is used from step m + 1 on (its first context, s[0..m-1], is seeded)
        if start >= L:
            break
        entries = np.int64(1)
        mask = (1 << m) - 1
        hist = 0
        for t in range(start - m, start):
            hist = (hist << 1) | np.int64(s[t])
        base = 1 << m
        fw = np.uint64(0)
        rw = np.uint64(0)
        prev = found[(m - 1) * nwords + (start >> 6)]
        for i in range(start, L):
            x = np.int64(s[i])
            idx = 2 * (base | hist)
            c0 = counts[idx]
            c1 = counts[idx + 1]
            bit = np.uint64(i & 63)
            if bit == 0:
                prev = found[(m - 1) * nwords + (i >> 6)]
            # selects, not branches: r is a coin flip on random bits
            f = ((prev >> bit) & one) & np.uint64(c0 + c1 > 0)
            r = f & np.uint64(np.int64(c1 >= c0) == x)
            fw |= f << bit
            rw |= r << bit
            if (i & 63) == 63:
                found[m * nwords + (i >> 6)] = fw
                right[m * nwords + (i >> 6)] = rw
                fw = np.uint64(0)
                rw = np.uint64(0)
            v = counts[idx + x]
            grow = (f != 0) & (v != 0)   # a seen (context, x) counts on; a new one only under the cap
            add = (not grow) & (entries < max_entries)
            counts[idx + x] = v + np.int32(grow | add)
            entries += np.int64(add)
            hist = ((hist << 1) | x) & mask
        if (L - 1) & 63 != 63:
            found[m * nwords + ((L - 1) >> 6)] = fw
            right[m * nwords + ((L - 1) >> 6)] = rw
    c, best_run = _mmc_scoreboard(found, right, depth, L)
    return c, n_pred, best_run


@nb.njit(nogil=True)
def _longest_ones(word):
    """Length of the longest run of set bits in a uint64 (each round shortens every run by one)."""
    n = 0
    while word:
        word &= word << np.uint64(1)
        n += 1
    return n


@nb.njit(cache=True, nogil=True)
def _mmc_scoreboard(found, right, depth, L):
    """MultiMMC's scoreboard from the passes' bits: the winner (the best score so far, the longer
    length on a tie) makes each prediction; C and the longest run count its right ones, a step
    where it was not found counting neither way. 64 steps at a time, as ``_binary_lag``: a length
    whose score plus its right predictions in the block stays below the winner's score at the
    block's start cannot win inside the block, so only the others are stepped one by one."""
    nwords = (L + 63) // 64
    score = np.zeros(depth + 1, dtype=np.int64)
    cand = np.zeros(depth, dtype=np.int64)
    winner = 1
    top = np.int64(0)
    c = 0
    run = 0
    best_run = 0
    one = np.uint64(1)
    for w in range(nwords):
        floor = top
        nc = 0
        for m in range(1, depth + 1):
            gained = np.int64(_popcount(right[m * nwords + w]))
            if score[m] + gained >= floor:
                cand[nc] = m
                nc += 1
            else:
                score[m] += gained
        width = min(64, L - 64 * w)
        if nc == 1 and width == 64 and found[winner * nwords + w] == _ALL:
            # the usual block: the winner alone can score enough to lead, and it predicts at
            # every step, so its right-bits word gives C, the run and the longest run directly
            hits = right[winner * nwords + w]
            gained = np.int64(_popcount(hits))
            score[winner] += gained
            top = score[winner]
            c += gained
            if hits == _ALL:
                run += 64
            else:
                first = run + np.int64(_cttz(~hits))
                inner = _longest_ones(hits)
                best_run = first if first > best_run else best_run
                best_run = inner if inner > best_run else best_run
                run = np.int64(_ctlz(~hits))
            best_run = run if run > best_run else best_run
            continue
        for t in range(width):   # selects, not branches: right or wrong is a coin flip
            bit = np.uint64(t)
            judged = np.int64((found[winner * nwords + w] >> bit) & one)
            hit = np.int64((right[winner * nwords + w] >> bit) & one)
            c += hit
            run = run + hit if hit == judged else 0 if judged else run
            best_run = run if run > best_run else best_run
            for j in range(nc):
                m = cand[j]
                sm = score[m] + np.int64((right[m * nwords + w] >> bit) & one)
                take = sm > score[m] and sm >= top
                score[m] = sm
                winner = m if take else winner
                top = sm if take else top
    return c, best_run


@nb.njit(cache=True, nogil=True)
def _binary_lz78y(s, depth, max_entries):
    """LZ78Y on bits: contexts of j bits addressed directly (index 2^j + pattern)."""
    L = s.size
    counts = np.zeros(1 << (depth + 2), dtype=np.int32)   # a count is at most L < 2^31
    size = 0
    for j in range(1, depth + 1):
        pattern = 0
        for t in range(depth - j, depth):
            pattern = (pattern << 1) | np.int64(s[t])
        counts[2 * ((1 << j) | pattern) + np.int64(s[depth])] = 1
        size += 1
    hist = 0
    for t in range(1, depth + 1):
        hist = (hist << 1) | np.int64(s[t])
    c = 0
    run = 0
    best_run = 0
    for i in range(depth + 1, L):
        _prefetch_contexts(counts, s, i, hist, depth)
        x = np.int64(s[i])
        max_count = 0
        prediction = -1
        for j in range(depth, 0, -1):
            idx = 2 * ((1 << j) | (hist & ((1 << j) - 1)))
            c0 = counts[idx]
            c1 = counts[idx + 1]
            if c0 + c1 > 0:
                if c0 > c1:
                    if c0 > max_count:
                        max_count = c0
                        prediction = 0
                elif c1 > max_count:
                    max_count = c1
                    prediction = 1
                counts[idx + x] += 1
            elif size < max_entries:
                counts[idx + x] = 1
                size += 1
        if prediction == x:
            c += 1
            run += 1
            if run > best_run:
                best_run = run
        else:
            run = 0
        hist = ((hist << 1) | x) & 0xFFFFFFFF
    return c, L - depth - 1, best_run


@nb.njit(cache=True, nogil=True)
def _literal_mmc(s, depth, max_entries, region, tags, rec, pairs):
    """MultiMMC (6.3.9) over symbols of any alphabet, one pass per context length m as
    ``_binary_mmc``: the pass of m owns the (cleared, reused) tables, so one length's
    dictionary (at most ``max_entries`` (context, x) entries) is all the memory a pass touches.
    A step looks its context up only where every shorter one was found (the pass of m - 1's
    found bits); a context not found is added, with its (context, x) pair, while the length has
    fewer than ``max_entries`` entries, and a found one adds a new pair under the same cap."""
    L = s.size
    n_pred = L - 2
    nwords = (L + 63) // 64
    found = np.zeros((depth + 1) * nwords, dtype=np.uint64)   # row m: length m's bits
    right = np.zeros((depth + 1) * nwords, dtype=np.uint64)   # row m: length m's bits
    for w in range(nwords):   # length 0: always 'found' (loops, not slices: they compile faster)
        found[w] = _ALL
    one = np.uint64(1)
    mask = region - 1
    for m in range(1, depth + 1):
        if m - 1 >= n_pred:
            break
        if m > 1:
            tags.fill(0)
            pairs.fill(-1)
        ch = np.uint64(0)
        cl = np.uint64(0)
        for t in range(m):   # the seed: s[0..m-1] -> s[m]
            ch, cl = _roll(ch, cl, s[t])
        slot = _prefix_slot(tags, rec, m, ch, cl, mask)
        _new_context(tags, rec, slot, m, ch, cl)
        _count_pair(pairs, rec, slot, np.int64(s[m]), mask, True)
        entries = np.int64(1)
        start = max(2, m + 1)   # length m predicts from step m + 1 on
        hi = np.uint64(0)
        lo = np.uint64(0)
        for t in range(max(0, start - 16), start):
            hi, lo = _roll(hi, lo, s[t])
        fw = np.uint64(0)
        rw = np.uint64(0)
        prev = found[(m - 1) * nwords + (start >> 6)]
        for i in range(start, L):
            bit = np.uint64(i & 63)
            if bit == 0:
                prev = found[(m - 1) * nwords + (i >> 6)]
            x = np.int64(s[i])
            ch, cl = _context(hi, lo, m)
            hit = False
            slot = -1
            if (prev >> bit) & one:
                slot = _prefix_slot(tags, rec, m, ch, cl, mask)
                hit = tags[slot] != 0
            if hit:
                fw |= one << bit
                if np.int64((rec[3 * slot + 2] >> np.uint64(8)) & np.uint64(0xFF)) == x:
                    rw |= one << bit
                if _count_pair(pairs, rec, slot, x, mask, entries < max_entries):
                    entries += 1
            elif entries < max_entries:
                if slot < 0:
                    slot = _prefix_slot(tags, rec, m, ch, cl, mask)
                if tags[slot] == 0:
                    _new_context(tags, rec, slot, m, ch, cl)
                entries += 1
                _count_pair(pairs, rec, slot, x, mask, True)
            if bit == 63:
                found[m * nwords + (i >> 6)] = fw
                right[m * nwords + (i >> 6)] = rw
                fw = np.uint64(0)
                rw = np.uint64(0)
            hi, lo = _roll(hi, lo, s[i])
        if (L - 1) & 63 != 63:
            found[m * nwords + ((L - 1) >> 6)] = fw
            right[m * nwords + ((L - 1) >> 6)] = rw
    c, best_run = _mmc_scoreboard(found, right, depth, L)
    return c, n_pred, best_run


@nb.njit(nogil=True)
def _new_context(tags, rec, slot, m, ch, cl):
    tags[slot] = _slot_tag(m, ch, cl)
    rec[3 * slot] = ch
    rec[3 * slot + 1] = cl
    rec[3 * slot + 2] = np.uint64(m)


@nb.njit(nogil=True)
def _count_pair(pairs, rec, slot, x, mask, make_new):
    """Count x after the context in ``slot`` (a new (context, x) pair only if ``make_new``), and
    keep the context's best count and predicted symbol (a tie goes to the larger symbol).
    Returns whether a pair was added."""
    key = slot * 256 + x
    g = _pair_slot(pairs, key, mask)
    added = False
    if pairs[2 * g] < 0:
        if not make_new:
            return False
        pairs[2 * g] = key
        pairs[2 * g + 1] = 0
        added = True
    cnt = pairs[2 * g + 1] + 1
    pairs[2 * g + 1] = cnt
    meta = rec[3 * slot + 2]
    slot_best = np.int64(meta >> np.uint64(32))
    slot_pred = np.int64((meta >> np.uint64(8)) & np.uint64(0xFF))
    if cnt > slot_best or (cnt == slot_best and x > slot_pred):
        rec[3 * slot + 2] = (meta & _LEN_MASK) | (np.uint64(x) << np.uint64(8)) | (np.uint64(cnt) << np.uint64(32))
    return added


def _mmc_tables(n, max_entries):
    """The tables of ``_literal_mmc`` for n symbols: one length's contexts and pairs (each at
    most max(1, min(max_entries, n)) + 1) at a load factor of at most one half."""
    region = 1024
    while region < 2 * (min(max_entries, n) + 1):
        region *= 2
    return (region, np.zeros(region, dtype=np.uint8), np.zeros(3 * region, dtype=np.uint64),
            np.full(2 * region, -1, dtype=np.int64))


def multi_mmc(s, depth, max_entries, binary):
    """MultiMMC's (C, N, longest run) over the uint8 symbols ``s``."""
    if binary and depth <= 24:
        return _binary_mmc(s, depth, max_entries)
    return _literal_mmc(s, depth, max_entries, *_mmc_tables(s.size, max_entries))


def lz78y(s, depth, max_entries, binary):
    """LZ78Y's (C, N, longest run) over the uint8 symbols ``s``."""
    if binary and depth <= 24:
        return _binary_lz78y(s, depth, max_entries)
    return _literal_lz78y(s, depth, max_entries, *_lz78y_tables(depth, max_entries))
