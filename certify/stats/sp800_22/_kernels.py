"""Compiled hot loops: GF(2) rank of packed matrices, bit-sliced Berlekamp-Massey (256 blocks at
once), Maurer's universal accumulation and a general (possibly periodic) non-overlapping template
scan."""

from __future__ import annotations

import numpy as np
from numba import njit

_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=True, nogil=True)
def gf2_ranks(bits, n_matrices, rows, cols):
    """Rank over GF(2) of each rows x cols matrix filled row by row from ``bits`` (cols <= 64).
    Each row is packed into one uint64; elimination is XOR of words."""
    ranks = np.empty(n_matrices, dtype=np.int64)
    mat = np.empty(rows, dtype=np.uint64)
    per = rows * cols
    for k in range(n_matrices):
        base = k * per
        for i in range(rows):
            word = _ZERO
            off = base + i * cols
            for j in range(cols):
                word = (word << _ONE) | np.uint64(bits[off + j])
            mat[i] = word
        rank = 0
        for c in range(cols):
            shift = np.uint64(cols - 1 - c)
            pivot = -1
            for i in range(rank, rows):
                if (mat[i] >> shift) & _ONE:
                    pivot = i
                    break
            if pivot < 0:
                continue
            top = mat[pivot]
            mat[pivot] = mat[rank]
            mat[rank] = top
            for i in range(rank + 1, rows):  # XOR the pivot row where column c is set, without a branch
                mat[i] ^= top & (_ZERO - ((mat[i] >> shift) & _ONE))
            rank += 1
            if rank == rows:
                break
        ranks[k] = rank
    return ranks


# Berlekamp-Massey runs on 256 blocks at once: four 64-bit words per bit-sliced quantity, held in
# four scalars (d0..d3, g0..g3, ...) so LLVM keeps them in registers and emits 256-bit AVX2 ops.
# ~1.3-1.9x faster than one word of 64 blocks (loaded machine, interleaved runs); the numbers it
# computes are the same textbook step.
LANE_WORDS = 4


@njit(cache=True, nogil=True)
def _slice_blocks(bits, first, width, M, R):
    """R[M-1-j, w] bit b = bit j of block first + 64 w + b (zero for lanes past ``width``)."""
    for w in range(LANE_WORDS):
        lo = 64 * w
        hi = min(width, lo + 64)
        for j in range(M):
            word = _ZERO
            for b in range(lo, hi):
                word |= np.uint64(bits[(first + b) * M + j]) << np.uint64(b - lo)
            R[M - 1 - j, w] = word


@njit(cache=True, nogil=True)
def linear_complexities(bits, n_blocks, M):
    """Berlekamp-Massey linear complexity of each M-bit block, 256 blocks at once (bit-sliced).

    Bit b of word w belongs to block 64 w + b: R[M-1-j] holds bit j of the blocks, C[i] the i-th
    coefficient of their connection polynomials, Lp[p] bit p of their lengths L. Each step is the
    textbook step for all blocks with masks instead of branches: d = the blocks whose discrepancy
    is 1, g = those of them where 2L <= N (L <- N+1-L, B <- C). x^(N-m) B is kept already
    shifted (Bst[base + i]; the shift by x is base -= 1), so m is never needed. Per block the
    degrees obey deg C <= L and deg x^(N-m)B <= N+1-L, so the loops stop at the largest L
    (discrepancy) and at max(L_max, N+2-L_min) (update): about M^2/4 word operations per block
    set, with no data-dependent branch."""
    out = np.empty(n_blocks, dtype=np.int64)
    R = np.empty((M, LANE_WORDS), dtype=np.uint64)
    C = np.empty((M + 3, LANE_WORDS), dtype=np.uint64)
    Bst = np.empty((2 * M + 6, LANE_WORDS), dtype=np.uint64)
    n_planes = 1
    while (1 << n_planes) <= M + 1:
        n_planes += 1
    Lp = np.empty((n_planes, LANE_WORDS), dtype=np.uint64)
    lanes = np.empty(LANE_WORDS, dtype=np.uint64)
    for first in range(0, n_blocks, 64 * LANE_WORDS):
        width = min(64 * LANE_WORDS, n_blocks - first)
        for w in range(LANE_WORDS):
            k = width - 64 * w
            lanes[w] = _ALL if k >= 64 else (_ZERO if k <= 0 else (_ONE << np.uint64(k)) - _ONE)
        _slice_blocks(bits, first, width, M, R)
        C[:, :] = _ZERO
        Bst[:, :] = _ZERO
        Lp[:, :] = _ZERO
        base_b = M + 3
        for w in range(LANE_WORDS):  # word by word: an array-to-slice copy costs numba ~5 s of compile
            C[0, w] = lanes[w]  # (its shape-mismatch error path, formatted)
            Bst[base_b + 1, w] = lanes[w]  # B = 1, m = -1: at N = 0, x^(N-m) B = x
        l_min = 0
        l_max = 0
        top = 1
        for N in range(M):
            start = M - 1 - N
            d0 = _ZERO
            d1 = _ZERO
            d2 = _ZERO
            d3 = _ZERO
            for i in range(l_max + 1):
                d0 ^= C[i, 0] & R[start + i, 0]
                d1 ^= C[i, 1] & R[start + i, 1]
                d2 ^= C[i, 2] & R[start + i, 2]
                d3 ^= C[i, 3] & R[start + i, 3]
            g0 = _ZERO
            g1 = _ZERO
            g2 = _ZERO
            g3 = _ZERO
            if (d0 | d1 | d2 | d3) != _ZERO:
                # g = d & (L <= N // 2): bit-sliced comparison, most significant plane first
                k = N >> 1
                lt0 = _ZERO
                lt1 = _ZERO
                lt2 = _ZERO
                lt3 = _ZERO
                eq0 = lanes[0]
                eq1 = lanes[1]
                eq2 = lanes[2]
                eq3 = lanes[3]
                for p in range(n_planes - 1, -1, -1):
                    if (k >> p) & 1:
                        lt0 |= eq0 & ~Lp[p, 0]
                        lt1 |= eq1 & ~Lp[p, 1]
                        lt2 |= eq2 & ~Lp[p, 2]
                        lt3 |= eq3 & ~Lp[p, 3]
                        eq0 &= Lp[p, 0]
                        eq1 &= Lp[p, 1]
                        eq2 &= Lp[p, 2]
                        eq3 &= Lp[p, 3]
                    else:
                        eq0 &= ~Lp[p, 0]
                        eq1 &= ~Lp[p, 1]
                        eq2 &= ~Lp[p, 2]
                        eq3 &= ~Lp[p, 3]
                g0 = d0 & (lt0 | eq0)
                g1 = d1 & (lt1 | eq1)
                g2 = d2 & (lt2 | eq2)
                g3 = d3 & (lt3 | eq3)
                if (g0 | g1 | g2 | g3) != _ZERO:
                    l_min, l_max = _reflect_lengths(Lp, N + 1, g0, g1, g2, g3, lanes)
            for i in range(top + 1):
                j = base_b + i
                _update_words(C[i], Bst[j], d0, d1, d2, d3, g0, g1, g2, g3)
            base_b -= 1
            top = max(top, l_max, N + 2 - l_min)  # never shrinks: entries above stay zero
        for b in range(width):
            w = b >> 6
            shift = np.uint64(b & 63)
            v = 0
            for p in range(n_planes):
                v |= int((Lp[p, w] >> shift) & _ONE) << p
            out[first + b] = v
    return out


@njit(cache=True, nogil=True)
def _update_words(c, s, d0, d1, d2, d3, g0, g1, g2, g3):
    """One Berlekamp-Massey update of the four words of a coefficient (``c``, a row of C) and of
    x^(N-m) B (``s``, a row of Bst): C <- C + d x^(N-m) B, and x^(N-m) B <- C where g. One
    function for the four words (one per word cost numba a compile for each literal word index)."""
    c0, c1, c2, c3 = c[0], c[1], c[2], c[3]
    s0, s1, s2, s3 = s[0], s[1], s[2], s[3]
    c[0] = c0 ^ (s0 & d0)
    c[1] = c1 ^ (s1 & d1)
    c[2] = c2 ^ (s2 & d2)
    c[3] = c3 ^ (s3 & d3)
    s[0] = (s0 & ~g0) | (c0 & g0)
    s[1] = (s1 & ~g1) | (c1 & g1)
    s[2] = (s2 & ~g2) | (c2 & g2)
    s[3] = (s3 & ~g3) | (c3 & g3)


@njit(cache=True, nogil=True)
def _reflect_lengths(Lp, k, g0, g1, g2, g3, lanes):
    """L <- k - L in the blocks of mask g (k >= L there: a ripple-borrow subtraction per plane);
    returns (min L, max L) over all lanes."""
    r0 = _ZERO
    r1 = _ZERO
    r2 = _ZERO
    r3 = _ZERO
    for p in range(Lp.shape[0]):
        v0 = Lp[p, 0]
        v1 = Lp[p, 1]
        v2 = Lp[p, 2]
        v3 = Lp[p, 3]
        if (k >> p) & 1:
            f0 = ~(v0 ^ r0)
            f1 = ~(v1 ^ r1)
            f2 = ~(v2 ^ r2)
            f3 = ~(v3 ^ r3)
            r0 &= v0
            r1 &= v1
            r2 &= v2
            r3 &= v3
        else:
            f0 = v0 ^ r0
            f1 = v1 ^ r1
            f2 = v2 ^ r2
            f3 = v3 ^ r3
            r0 |= v0
            r1 |= v1
            r2 |= v2
            r3 |= v3
        Lp[p, 0] = (v0 & ~g0) | (f0 & g0)
        Lp[p, 1] = (v1 & ~g1) | (f1 & g1)
        Lp[p, 2] = (v2 & ~g2) | (f2 & g2)
        Lp[p, 3] = (v3 & ~g3) | (f3 & g3)
    # the largest and smallest value over the lanes: narrow the candidates plane by plane
    l_max = 0
    l_min = 0
    hi0 = lanes[0]
    hi1 = lanes[1]
    hi2 = lanes[2]
    hi3 = lanes[3]
    lo0 = hi0
    lo1 = hi1
    lo2 = hi2
    lo3 = hi3
    for p in range(Lp.shape[0] - 1, -1, -1):
        v0 = Lp[p, 0]
        v1 = Lp[p, 1]
        v2 = Lp[p, 2]
        v3 = Lp[p, 3]
        h0 = hi0 & v0
        h1 = hi1 & v1
        h2 = hi2 & v2
        h3 = hi3 & v3
        if (h0 | h1 | h2 | h3) != _ZERO:
            l_max |= 1 << p
            hi0 = h0
            hi1 = h1
            hi2 = h2
            hi3 = h3
        m0 = lo0 & ~v0
        m1 = lo1 & ~v1
        m2 = lo2 & ~v2
        m3 = lo3 & ~v3
        if (m0 | m1 | m2 | m3) != _ZERO:
            lo0 = m0
            lo1 = m1
            lo2 = m2
            lo3 = m3
        else:
            l_min |= 1 << p
    return l_min, l_max


@njit(cache=True, nogil=True)
def block_codes(packed, count, L):
    """The first ``count`` non-overlapping L-bit blocks (L <= 16) as integers, most significant bit
    first, from the bits packed MSB first with at least 2 bytes of padding (``packed_bits``): each
    block is cut out of the 24 bits at its first byte, a few operations instead of L."""
    codes = np.empty(count, dtype=np.int64)
    mask = (1 << L) - 1
    for i in range(count):
        bit = i * L
        byte = bit >> 3
        window = (np.int64(packed[byte]) << 16) | (np.int64(packed[byte + 1]) << 8) | np.int64(packed[byte + 2])
        codes[i] = (window >> (24 - (bit & 7) - L)) & mask
    return codes


# log2 of the distances below this come from a table (the same np.log2, computed once): distances
# are geometric with mean 2^L, so nearly all are in it.
LOG2_TABLE_SIZE = 1 << 16


@njit(cache=True)
def log2_table(size):
    out = np.zeros(size)
    for d in range(1, size):
        out[d] = np.log2(d)
    return out


@njit(cache=True, nogil=True)
def universal_sum(codes, L, Q, K, log2d):
    """Sum of log2 distances to the previous occurrence of each L-bit block (section 2.9.4).
    Blocks are numbered from 1; a value not seen in the Q initialisation blocks has 'last seen' 0.
    ``log2d[d]`` = np.log2(d) for the distances d it covers (``log2_table``)."""
    table = np.zeros(1 << L, dtype=np.int64)
    for i in range(Q):
        table[codes[i]] = i + 1
    total = 0.0
    for i in range(Q, Q + K):
        c = codes[i]
        d = i + 1 - table[c]
        total += log2d[d] if d < log2d.size else np.log2(d)
        table[c] = i + 1
    return total


@njit(cache=True, nogil=True)
def nonoverlapping_scan(bits, n_blocks, M, template):
    """Non-overlapping occurrences of ``template`` in each block: after a match the window jumps
    past it (needed only for periodic templates; aperiodic ones cannot overlap)."""
    m = template.size
    counts = np.zeros(n_blocks, dtype=np.int64)
    for blk in range(n_blocks):
        base = blk * M
        j = 0
        while j <= M - m:
            match = True
            for k in range(m):
                if bits[base + j + k] != template[k]:
                    match = False
                    break
            if match:
                counts[blk] += 1
                j += m
            else:
                j += 1
    return counts


@njit(cache=True, nogil=True)
def cyclic_pattern_counts(bits, m):
    """Counts of the 2^m overlapping m-bit patterns of the sequence extended by its first m-1
    bits (n windows), with a rolling code: one pass (the wrap-around in a short second loop)."""
    n = bits.size
    mask = (1 << m) - 1
    counts = np.zeros(1 << m, dtype=np.int64)
    code = 0
    for i in range(m - 1):
        code = (code << 1) | bits[i % n]
    for i in range(m - 1, n):
        code = ((code << 1) | bits[i]) & mask
        counts[code] += 1
    for i in range(max(n, m - 1), n + m - 1):
        code = ((code << 1) | bits[i % n]) & mask
        counts[code] += 1
    return counts


@njit(cache=True, nogil=True)
def cyclic_pattern_counts_packed(packed, n_bytes, m):
    """``cyclic_pattern_counts`` for n = 8 n_bytes bits and m <= 16, from the packed bits: the
    windows ending in byte b are cut from the 24 bits of bytes b-2..b (cyclically), eight
    independent counts per byte instead of a serial rolling code (~1.5x faster). The windows end at
    bits 16..n+15, which modulo n are all n cyclic windows once each."""
    mask = (1 << m) - 1
    counts = np.zeros(1 << m, dtype=np.int64)
    for b in range(2, n_bytes + 2):
        if b < n_bytes:
            w = (np.int64(packed[b - 2]) << 16) | (np.int64(packed[b - 1]) << 8) | np.int64(packed[b])
        else:  # the wrap-around
            w = ((np.int64(packed[(b - 2) % n_bytes]) << 16) | (np.int64(packed[(b - 1) % n_bytes]) << 8)
                 | np.int64(packed[b % n_bytes]))
        counts[(w >> 7) & mask] += 1
        counts[(w >> 6) & mask] += 1
        counts[(w >> 5) & mask] += 1
        counts[(w >> 4) & mask] += 1
        counts[(w >> 3) & mask] += 1
        counts[(w >> 2) & mask] += 1
        counts[(w >> 1) & mask] += 1
        counts[w & mask] += 1
    return counts


@njit(cache=True, nogil=True)
def block_window_counts(bits, n_blocks, M, m):
    """counts[j, c] = number of m-bit windows with value c lying wholly inside block j."""
    mask = (1 << m) - 1
    counts = np.zeros((n_blocks, 1 << m), dtype=np.int64)
    for j in range(n_blocks):
        base = j * M
        code = 0
        for i in range(m - 1):
            code = (code << 1) | bits[base + i]
        for i in range(m - 1, M):
            code = ((code << 1) | bits[base + i]) & mask
            counts[j, code] += 1
    return counts


@njit(cache=True, nogil=True)
def block_window_matches(bits, n_blocks, M, m, code):
    """matches[j] = number of m-bit windows equal to ``code`` lying wholly inside block j (the
    column ``code`` of block_window_counts, without the n_blocks x 2^m table)."""
    mask = (1 << m) - 1
    matches = np.zeros(n_blocks, dtype=np.int64)
    for j in range(n_blocks):
        base = j * M
        window = 0
        for i in range(m - 1):
            window = (window << 1) | bits[base + i]
        hits = 0
        for i in range(m - 1, M):
            window = ((window << 1) | bits[base + i]) & mask
            hits += window == code
        matches[j] = hits
    return matches


@njit(cache=True, nogil=True)
def _window24(packed, base, k):
    """Bytes base+k-2 .. base+k as a 24-bit integer, the bytes before ``base`` read as 0: the
    m-bit windows (m <= 17) ending in byte k of a block start at byte base."""
    w = np.int64(packed[base + k])
    if k >= 1:
        w |= np.int64(packed[base + k - 1]) << 8
    if k >= 2:
        w |= np.int64(packed[base + k - 2]) << 16
    return w


@njit(cache=True, nogil=True)
def block_window_counts_packed(packed, n_blocks, block_bytes, m):
    """``block_window_counts`` for blocks of whole bytes and m <= 17, from the packed bits: the
    eight windows ending in each byte are cut from 24 bits (~1.5x faster)."""
    mask = (1 << m) - 1
    counts = np.zeros((n_blocks, 1 << m), dtype=np.int64)
    for j in range(n_blocks):
        for k in range(block_bytes):
            w = _window24(packed, j * block_bytes, k)
            if 8 * k >= m - 1:  # all eight windows lie inside the block
                counts[j, (w >> 7) & mask] += 1
                counts[j, (w >> 6) & mask] += 1
                counts[j, (w >> 5) & mask] += 1
                counts[j, (w >> 4) & mask] += 1
                counts[j, (w >> 3) & mask] += 1
                counts[j, (w >> 2) & mask] += 1
                counts[j, (w >> 1) & mask] += 1
                counts[j, w & mask] += 1
            else:
                for r in range(8):
                    if 8 * k + r >= m - 1:
                        counts[j, (w >> (7 - r)) & mask] += 1
    return counts


@njit(cache=True, nogil=True)
def block_window_matches_packed(packed, n_blocks, block_bytes, m, code):
    """``block_window_matches`` for blocks of whole bytes and m <= 17, from the packed bits
    (eight comparisons per byte, no serial rolling code: ~1.7x faster)."""
    mask = (1 << m) - 1
    matches = np.zeros(n_blocks, dtype=np.int64)
    for j in range(n_blocks):
        hits = 0
        for k in range(block_bytes):
            w = _window24(packed, j * block_bytes, k)
            if 8 * k >= m - 1:
                hits += ((((w >> 7) & mask) == code) + (((w >> 6) & mask) == code)
                         + (((w >> 5) & mask) == code) + (((w >> 4) & mask) == code)
                         + (((w >> 3) & mask) == code) + (((w >> 2) & mask) == code)
                         + (((w >> 1) & mask) == code) + ((w & mask) == code))
            else:
                for r in range(8):
                    if 8 * k + r >= m - 1:
                        hits += ((w >> (7 - r)) & mask) == code
        matches[j] = hits
    return matches


@njit(cache=True, nogil=True)
def _byte_runs():
    """Per byte value (MSB first): leading ones, trailing ones, longest run of ones inside it."""
    lead = np.zeros(256, dtype=np.int64)
    trail = np.zeros(256, dtype=np.int64)
    inner = np.zeros(256, dtype=np.int64)
    for v in range(256):
        run = 0
        for i in range(7, -1, -1):
            run = run + 1 if (v >> i) & 1 else 0
            inner[v] = max(inner[v], run)
        trail[v] = run
        i = 7
        while i >= 0 and (v >> i) & 1:
            lead[v] += 1
            i -= 1
    return lead, trail, inner


@njit(cache=True, nogil=True)
def longest_runs(packed, n_blocks, block_bytes):
    """Longest run of ones in each block of ``block_bytes`` bytes of the packed bits (MSB first):
    a byte at a time, from its leading/trailing ones and its inner run (~6x faster than a bit at
    a time, whose data-dependent branch mispredicts on random bits)."""
    lead, trail, inner = _byte_runs()
    out = np.zeros(n_blocks, dtype=np.int64)
    for j in range(n_blocks):
        best = 0
        run = 0
        for k in range(j * block_bytes, (j + 1) * block_bytes):
            v = packed[k]
            if v == 255:
                run += 8
            else:
                best = max(best, run + lead[v], inner[v])
                run = trail[v]
        out[j] = max(best, run)
    return out


@njit(cache=True, nogil=True)
def block_ones(packed, n_blocks, block_bytes):
    """Number of ones in each block of ``block_bytes`` bytes of the packed bits."""
    pop = np.zeros(256, dtype=np.int64)
    for v in range(256):
        for i in range(8):
            pop[v] += (v >> i) & 1
    out = np.zeros(n_blocks, dtype=np.int64)
    for j in range(n_blocks):
        total = 0
        for k in range(j * block_bytes, (j + 1) * block_bytes):
            total += pop[packed[k]]
        out[j] = total
    return out


@njit(cache=True, nogil=True)
def walk_extremes(bits):
    """The +/-1 walk S_1..S_n: (S_n, max S_k and min S_k over k = 1..n-1; 0, 0 when n = 1)."""
    n = bits.size
    s = 0
    hi = 0
    lo = 0
    for k in range(n - 1):
        s += 2 * np.int64(bits[k]) - 1
        if k == 0:
            hi = s
            lo = s
        elif s > hi:
            hi = s
        elif s < lo:
            lo = s
    if n:
        s += 2 * np.int64(bits[n - 1]) - 1
    return s, hi, lo


@njit(cache=True, nogil=True)
def walk_visits(bits):
    """One pass over the +/-1 walk S' = 0, S_1..S_n, 0 (sections 2.13-2.15): the number of
    cycles J; v[i, k] = cycles visiting state i (-4..-1, 1..4) exactly k times (k = 5: >= 5);
    xi[s + 9] = total visits to state s in -9..9; and ``walk_extremes``'s (S_n, max, min), so in
    run_all the three walk tests share one pass."""
    n = bits.size
    s = 0
    J = 0
    hi = 0 if n < 2 else 2 * np.int64(bits[0]) - 1  # the extremes run over S_1..S_(n-1)
    lo = hi
    current = np.zeros(8, dtype=np.int64)
    v = np.zeros((8, 6), dtype=np.int64)
    xi = np.zeros(19, dtype=np.int64)
    for k in range(n):
        s += 1 if bits[k] else -1
        if k < n - 1:
            hi = max(hi, s)
            lo = min(lo, s)
        if s == 0:
            J += 1
            for i in range(8):
                v[i, min(current[i], 5)] += 1
                current[i] = 0
        else:
            if -9 <= s <= 9:
                xi[s + 9] += 1
            if -4 <= s <= 4:
                current[s + 4 if s < 0 else s + 3] += 1
    if s != 0:  # the appended final 0 closes the last cycle
        J += 1
        for i in range(8):
            v[i, min(current[i], 5)] += 1
    return J, v, xi, s, hi, lo


@njit(cache=True, nogil=True)
def pairs_as_complex(bits, z):
    """z_j = y_2j + i y_2j+1 with y = 2 bits - 1 (written into ``z``, length n/2): the even and odd
    halves of an even-length real sequence packed into one complex sequence of half the length."""
    for j in range(z.size):
        z[j] = complex(2.0 * bits[2 * j] - 1.0, 2.0 * bits[2 * j + 1] - 1.0)
    return z


@njit(cache=True, nogil=True)
def real_dft_moduli_below(Z, w1, w2, below2, above2):
    """From Z[k1, k2] = Z_(k1 + n1 k2), Z = FFT(pairs_as_complex(bits)) (length h = n1 n2 = n/2),
    the n-point DFT of y is X_k = E_k + w^k O_k with E_k = (Z_k + conj Z_(h-k)) / 2,
    O_k = (Z_k - conj Z_(h-k)) / 2i and w^k = exp(-2 pi i k / n) = w1[k1] w2[k2]. Counts k < h with
    |X_k|^2 < below2 (surely below the threshold) and with below2 <= |X_k|^2 <= above2 (too close
    to call at this precision). Walks k1 by k1, so both Z_k and its partner Z_(h-k) are read in
    storage order of the four-step result. ``Z`` is C-contiguous (``spectral.peaks_below`` passes
    the four-step result's transpose), so the kernel has one compiled signature."""
    n1, n2 = Z.shape
    h = n1 * n2
    below = 0
    unsure = 0
    for k1 in range(n1):
        for k2 in range(n2):
            a = Z[k1, k2]
            if k1 == 0:  # h - k = n1 (n2 - k2)
                b = np.conj(Z[0, (n2 - k2) % n2])
            else:  # h - k = (n1 - k1) + n1 (n2 - 1 - k2)
                b = np.conj(Z[n1 - k1, n2 - 1 - k2])
            x = 0.5 * (a + b) + (w1[k1] * w2[k2]) * (-0.5j * (a - b))
            q = x.real * x.real + x.imag * x.imag
            if q < below2:
                below += 1
            elif q <= above2:
                unsure += 1
    return below, unsure
