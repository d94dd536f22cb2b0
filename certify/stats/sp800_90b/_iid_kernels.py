"""numba kernels of the SP 800-90B IID track: the permutation-test statistics of 5.1 and a
seeded Fisher-Yates shuffle (xoshiro256**, the generator family of the NIST tool)."""

from __future__ import annotations

import numba as nb
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

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


# Four permutations shuffled side by side: each has its own array and stream and makes exactly the
# draws and swaps of ``shuffle``, but the four generators step together in one 256-bit vector (one
# vector instruction does the work of four scalar ones) and the four arrays' random accesses
# overlap. On 10^6 samples: 1.7 against 2.2-2.4 ms a permutation (docs/sp800-90b.md). numba does
# not vectorize four scalar generators itself, so the loop is written in LLVM IR below.
SHUFFLE_LANES = 4


def _redraw(states, lane, product, bound):
    """The rare branch of ``shuffle_lanes``: Lemire's rejection for one lane, whose draw gave
    ``product`` (the top 32 bits of its output times ``bound``); draws again from the lane's state
    (``states[lane]``, already past that draw) while the low half falls in the short range, exactly
    as ``shuffle`` does, and returns the accepted product."""
    threshold = (np.uint64(0x100000000) - bound) % bound
    s = states[lane]
    while (product & np.uint64(0xFFFFFFFF)) < threshold:
        product = (_next(s) >> np.uint64(32)) * bound
    return product


class _LaneIR:
    """IR helpers for ``_lanes_loop``: the lanes' generator states as four <lanes x i64> vectors
    (word w of lane k in element k of vector w), kept in ``states[lane, w]`` between calls."""

    def __init__(self, builder, lanes, state_words):
        self.b, self.lanes, self.words_at = builder, lanes, state_words
        self.i64, self.i32 = ir.IntType(64), ir.IntType(32)
        self.vec = ir.VectorType(self.i64, lanes)

    def splat(self, value):
        return ir.Constant(self.vec, [ir.Constant(self.i64, value)] * self.lanes)

    def broadcast(self, x):
        b = self.b
        one = b.insert_element(ir.Constant(self.vec, ir.Undefined), x, ir.Constant(self.i32, 0))
        return b.shuffle_vector(one, ir.Constant(self.vec, ir.Undefined),
                                ir.Constant(ir.VectorType(self.i32, self.lanes), [0] * self.lanes))

    def lane(self, v, k):
        return self.b.extract_element(v, ir.Constant(self.i32, k))

    def rotl(self, x, r):
        return self.b.or_(self.b.shl(x, self.splat(r)), self.b.lshr(x, self.splat(64 - r)))

    def _word(self, k, w):
        return self.b.gep(self.words_at, [ir.Constant(self.i64, 4 * k + w)])

    def load_state(self):
        words = []
        for w in range(4):
            v = ir.Constant(self.vec, ir.Undefined)
            for k in range(self.lanes):
                v = self.b.insert_element(v, self.b.load(self._word(k, w)), ir.Constant(self.i32, k))
            words.append(v)
        return words

    def store_state(self, words):
        for w in range(4):
            for k in range(self.lanes):
                self.b.store(self.lane(words[w], k), self._word(k, w))

    def step(self, s):
        """xoshiro256** on every lane at once: (outputs, next state), as ``_next``."""
        b = self.b
        out = b.mul(self.rotl(b.mul(s[1], self.splat(5)), 7), self.splat(9))
        t = b.shl(s[1], self.splat(17))
        s2 = b.xor(s[2], s[0])
        s3 = b.xor(s[3], s[1])
        s1 = b.xor(s[1], s2)
        s0 = b.xor(s[0], s3)
        return out, [s0, s1, b.xor(s2, t), self.rotl(s3, 45)]

    def merge(self, pairs):
        """One phi per (value, block) list: the value from whichever block came here."""
        phi = self.b.phi(pairs[0][0].type)
        for value, block in pairs:
            phi.add_incoming(value, block)
        return phi


def _lanes_loop(context, builder, arrays_type, states_type, arrays, states):
    """IR of ``_shuffle_side_by_side``: for i = n - 1 .. 1, one vector step of the lanes'
    xoshiro256**, the bounded draws j_k = (out_k >> 32) * (i + 1) >> 32 (all lanes' rejection tests
    in one compare; a rejected lane goes through ``_redraw``), then the lanes' swaps a_k[i] <-> a_k[j_k]."""
    lanes = arrays_type.count
    v = _LaneIR(builder, lanes, context.make_array(states_type)(context, builder, states).data)
    one, zero = ir.Constant(v.i64, 1), ir.Constant(v.i64, 0)
    views = [context.make_array(arrays_type.dtype)(context, builder, builder.extract_value(arrays, k))
             for k in range(lanes)]
    entry_state = v.load_state()
    entry = builder.block
    draw, redraw, swap, done = (builder.append_basic_block(f"lanes.{name}")
                                for name in ("draw", "redraw", "swap", "done"))
    last = builder.sub(views[0].nitems, one)
    builder.cbranch(builder.icmp_signed(">", last, zero), draw, done)

    builder.position_at_end(draw)
    i = builder.phi(v.i64)
    state = [builder.phi(v.vec) for _ in range(4)]
    bound = builder.and_(builder.add(i, one), ir.Constant(v.i64, 0xFFFFFFFF))   # < 2^32: one 32x32-bit multiply
    out, drawn_state = v.step(state)
    product = builder.mul(builder.lshr(out, v.splat(32)), v.broadcast(bound))
    short = builder.icmp_unsigned("<", builder.and_(product, v.splat(0xFFFFFFFF)), v.broadcast(bound))
    no_lane = ir.Constant(ir.IntType(lanes), 0)
    builder.cbranch(builder.icmp_unsigned("!=", builder.bitcast(short, ir.IntType(lanes)), no_lane), redraw, swap)

    builder.position_at_end(redraw)   # about once in 2^32 / i draws: through memory, lane by lane
    v.store_state(drawn_state)
    redrawn = product
    sig = types.uint64(states_type, types.intp, types.uint64, types.uint64)
    for k in range(lanes):
        accepted = context.compile_internal(builder, _redraw, sig, [states, ir.Constant(v.i64, k), v.lane(product, k), bound])
        redrawn = builder.insert_element(redrawn, accepted, ir.Constant(v.i32, k))
    redrawn_state = v.load_state()
    redraw_end = builder.block   # the calls above added blocks
    builder.branch(swap)

    builder.position_at_end(swap)
    accepted = v.merge([(product, draw), (redrawn, redraw_end)])
    next_state = [v.merge([(fast, draw), (slow, redraw_end)]) for fast, slow in zip(drawn_state, redrawn_state)]
    j = builder.lshr(accepted, v.splat(32))
    for k, view in enumerate(views):
        at_i, at_j = builder.gep(view.data, [i]), builder.gep(view.data, [v.lane(j, k)])
        x, y = builder.load(at_i), builder.load(at_j)
        builder.store(y, at_i)
        builder.store(x, at_j)
    following = builder.sub(i, one)
    builder.cbranch(builder.icmp_signed(">", following, zero), draw, done)
    i.add_incoming(last, entry)
    i.add_incoming(following, swap)
    for phi, start, later in zip(state, entry_state, next_state):
        phi.add_incoming(start, entry)
        phi.add_incoming(later, swap)

    builder.position_at_end(done)
    v.store_state([v.merge([(start, entry), (later, swap)]) for start, later in zip(entry_state, next_state)])


@intrinsic
def _shuffle_side_by_side(typingctx, arrays, states):
    """``shuffle(arrays[k], states[k])`` for every k, in one loop (see ``_lanes_loop``); the caller
    checks that the arrays have one length n <= 2^32 and ``states`` is (len(arrays), 4)."""
    if not (isinstance(arrays, types.UniTuple) and isinstance(arrays.dtype, types.Array) and arrays.dtype.ndim == 1
            and arrays.dtype.layout == "C" and isinstance(states, types.Array) and states.dtype == types.uint64
            and states.ndim == 2 and states.layout == "C"):
        return None

    def codegen(context, builder, signature, args):
        _lanes_loop(context, builder, signature.args[0], signature.args[1], *args)
        return context.get_dummy_value()

    return types.none(arrays, states), codegen


@nb.njit(cache=True, nogil=True)
def shuffle_lanes(arrays, states):
    """``shuffle(arrays[k], states[k])`` for each k, side by side: the same arrangements and final
    states as one at a time. The arrays (a tuple, C-contiguous) have one length."""
    n = arrays[0].size
    for a in arrays:
        if a.size != n:
            raise ValueError("shuffle_lanes: the arrays differ in length")
    if n > 0x100000000:
        raise ValueError("shuffle_lanes: more than 2^32 samples (the draws are 32-bit)")
    if states.shape[0] != len(arrays) or states.shape[1] != 4:
        raise ValueError("shuffle_lanes: states must be (number of arrays, 4)")
    _shuffle_side_by_side(arrays, states)


@nb.njit(cache=True, nogil=True)
def shuffle_buffers(data):
    """Room for ``shuffled_copies``: SHUFFLE_LANES arrangements of ``data`` and their states."""
    return np.empty((SHUFFLE_LANES, data.size), dtype=data.dtype), np.empty((SHUFFLE_LANES, 4), dtype=np.uint64)


@nb.njit(cache=True, nogil=True)
def shuffled_copies(data, seed, first, remaining, out, states):
    """out[q] = ``data`` shuffled with stream ``first + q`` of ``seed`` for q < count = min(remaining,
    SHUFFLE_LANES) (``states[q]`` left at the stream's end): a full set side by side, fewer one by
    one. Returns count."""
    count = min(remaining, SHUFFLE_LANES)
    for q in range(count):
        row = out[q]
        for i in range(data.size):
            row[i] = data[i]
        state = seed_state(seed, first + q)
        for w in range(4):   # not states[q, :] = ...: numba's slice assignment costs ~3 s of compile
            states[q, w] = state[w]
    if count == SHUFFLE_LANES:
        shuffle_lanes((out[0], out[1], out[2], out[3]), states)
    else:
        for q in range(count):
            shuffle(out[q], states[q])
    return count


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


def compressed_size(raw: np.ndarray) -> int:
    """5.1.11's statistic, len(bz2.compress(decimal_text(raw), 5)), counted by ``_bzip2`` (the
    kernels call the two compiled functions themselves: one more compiled level would link and
    optimize the whole bzip2 code once more, seconds of a cold compile)."""
    return int(_bzip2_size(decimal_text(np.ascontiguousarray(raw, dtype=np.uint8)), BZIP2_LEVEL))


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
def _direction_counts(c1):
    """(runs, ups) of the up/down sequence of ``c1`` (a tie counts as up) without its longest run:
    sums with no other state carried from sample to sample, which the compiler vectorizes: 0.3
    against 1.6 ms on 10^6 samples."""
    m = c1.size
    ups = 0
    changes = 0
    for i in range(m - 2):
        up = c1[i] <= c1[i + 1]
        ups += np.int64(up)
        changes += np.int64(up != (c1[i + 1] <= c1[i + 2]))
    if m > 1:
        ups += np.int64(c1[m - 2] <= c1[m - 1])
    return (changes + 1 if m > 1 else 0), ups


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
    if (active[1] or active[3]) and not active[2]:
        runs, ups = _direction_counts(c1)
        out[1] = runs
        out[3] = max(ups, (c1.size - 1) - ups)
    elif active[1] or active[2] or active[3]:
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
    shuffled, states = shuffle_buffers(data)
    raw = np.empty(data.size if bzip2 == BZIP2_COUNT else 0, dtype=np.uint8)
    for start in range(lo, hi, SHUFFLE_LANES):
        for q in range(shuffled_copies(data, seed, first + start, hi - start, shuffled, states)):
            b, d = start + q, shuffled[q]
            statistics(d, values, k, raw_mean, median, active, out_stats[b])
            if bzip2 != BZIP2_NONE:
                row = raw if bzip2 == BZIP2_COUNT else out_raw[b]
                for i in range(d.size):
                    row[i] = values[d[i]]
                if bzip2 == BZIP2_COUNT:
                    out_stats[b, 18] = _bzip2_size(decimal_text(row), np.int64(BZIP2_LEVEL))   # not a literal: one compile


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
    shuffled, states = shuffle_buffers(data)
    for start in range(lo, hi, SHUFFLE_LANES):
        for q in range(shuffled_copies(data, seed, first + start, hi - start, shuffled, states)):
            out[start + q, 0] = independence_score(shuffled[q], width, k, cell_bin, independence_expected)
            out[start + q, 1] = fit_score(shuffled[q], block, symbol_bin, fit_expected)


def chi_square_permutations(data, seed, first, width, k, cell_bin, independence_expected, block, symbol_bin,
                            fit_expected, out):
    """Permutations first .. first + len(out) - 1 of the samples (stream ``first + b`` of ``seed``):
    out[b] = (independence T, goodness-of-fit T) of each, side by side; ranges of them on the
    process's threads."""
    args = (data, np.uint64(seed), np.int64(first), np.int64(width), np.int64(k), cell_bin, independence_expected,
            np.int64(block), symbol_bin, fit_expected)
    map_in_order(_chi_square_range, [(*args, lo, hi, out) for lo, hi in _row_ranges(out.shape[0])], cpus())
