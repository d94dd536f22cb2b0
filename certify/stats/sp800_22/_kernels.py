"""Compiled hot loops: GF(2) rank of packed matrices, bit-packed Berlekamp-Massey, Maurer's
universal accumulation and a general (possibly periodic) non-overlapping template scan."""

from __future__ import annotations

import numpy as np
from numba import njit

_ONE = np.uint64(1)
_ZERO = np.uint64(0)


@njit(cache=True)
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
            bit = _ONE << np.uint64(cols - 1 - c)
            pivot = -1
            for i in range(rank, rows):
                if mat[i] & bit:
                    pivot = i
                    break
            if pivot < 0:
                continue
            tmp = mat[rank]
            mat[rank] = mat[pivot]
            mat[pivot] = tmp
            for i in range(rank + 1, rows):
                if mat[i] & bit:
                    mat[i] ^= mat[rank]
            rank += 1
            if rank == rows:
                break
        ranks[k] = rank
    return ranks


@njit(cache=True)
def _parity64(x):
    x ^= x >> np.uint64(32)
    x ^= x >> np.uint64(16)
    x ^= x >> np.uint64(8)
    x ^= x >> np.uint64(4)
    x ^= x >> np.uint64(2)
    x ^= x >> np.uint64(1)
    return x & _ONE


@njit(cache=True)
def linear_complexities(bits, n_blocks, M):
    """Berlekamp-Massey linear complexity of each M-bit block, on bit-packed polynomials.

    R holds the recent sequence reversed (bit i = s[N-i]) so the discrepancy is the parity of
    C AND R; C ^= B * x^(N-m) is a multi-word shift-xor. About 64x less work than bit-by-bit."""
    W = M // 64 + 2
    out = np.empty(n_blocks, dtype=np.int64)
    C = np.empty(W, dtype=np.uint64)
    B = np.empty(W, dtype=np.uint64)
    T = np.empty(W, dtype=np.uint64)
    R = np.empty(W, dtype=np.uint64)
    for blk in range(n_blocks):
        base = blk * M
        for w in range(W):
            C[w] = _ZERO
            B[w] = _ZERO
            R[w] = _ZERO
        C[0] = _ONE
        B[0] = _ONE
        L = 0
        m = -1
        for N in range(M):
            nw = min(W, (N + 1) // 64 + 2)
            for w in range(nw - 1, 0, -1):
                R[w] = (R[w] << _ONE) | (R[w - 1] >> np.uint64(63))
            R[0] = (R[0] << _ONE) | np.uint64(bits[base + N])
            acc = _ZERO
            for w in range(nw):
                acc ^= C[w] & R[w]
            if _parity64(acc) == _ONE:
                for w in range(nw):
                    T[w] = C[w]
                shift = N - m
                ws = shift // 64
                bs = np.uint64(shift % 64)
                for w in range(nw - 1, ws - 1, -1):
                    val = B[w - ws] << bs
                    if bs != _ZERO and w - ws - 1 >= 0:
                        val |= B[w - ws - 1] >> (np.uint64(64) - bs)
                    C[w] ^= val
                if 2 * L <= N:
                    L = N + 1 - L
                    m = N
                    for w in range(nw):
                        B[w] = T[w]
        out[blk] = L
    return out


@njit(cache=True)
def universal_sum(codes, L, Q, K):
    """Sum of log2 distances to the previous occurrence of each L-bit block (section 2.9.4).
    Blocks are numbered from 1; a value not seen in the Q initialisation blocks has 'last seen' 0."""
    table = np.zeros(1 << L, dtype=np.int64)
    for i in range(Q):
        table[codes[i]] = i + 1
    total = 0.0
    for i in range(Q, Q + K):
        c = codes[i]
        total += np.log2(i + 1 - table[c])
        table[c] = i + 1
    return total


@njit(cache=True)
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


@njit(cache=True)
def cyclic_pattern_counts(bits, m):
    """Counts of the 2^m overlapping m-bit patterns of the sequence extended by its first m-1
    bits (n windows), with a rolling code: one pass."""
    n = bits.size
    mask = (1 << m) - 1
    counts = np.zeros(1 << m, dtype=np.int64)
    code = 0
    for i in range(m - 1):
        code = (code << 1) | bits[i % n]
    for i in range(n):
        code = ((code << 1) | bits[(i + m - 1) % n]) & mask
        counts[code] += 1
    return counts


@njit(cache=True)
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


@njit(cache=True)
def longest_runs(bits, n_blocks, M):
    """Longest run of ones in each M-bit block."""
    out = np.zeros(n_blocks, dtype=np.int64)
    for j in range(n_blocks):
        best = 0
        run = 0
        for i in range(j * M, (j + 1) * M):
            if bits[i]:
                run += 1
                if run > best:
                    best = run
            else:
                run = 0
        out[j] = best
    return out


@njit(cache=True)
def walk_visits(bits):
    """One pass over the +/-1 walk S' = 0, S_1..S_n, 0 (sections 2.14/2.15): the number of
    cycles J; v[i, k] = cycles visiting state i (-4..-1, 1..4) exactly k times (k = 5: >= 5);
    xi[s + 9] = total visits to state s in -9..9."""
    s = 0
    J = 0
    current = np.zeros(8, dtype=np.int64)
    v = np.zeros((8, 6), dtype=np.int64)
    xi = np.zeros(19, dtype=np.int64)
    for k in range(bits.size):
        s += 1 if bits[k] else -1
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
    return J, v, xi
