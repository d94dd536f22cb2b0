"""Compiled hot loops: GF(2) rank of packed matrices, bit-sliced Berlekamp-Massey, Maurer's
universal accumulation and a general (possibly periodic) non-overlapping template scan."""

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


@njit(cache=True, nogil=True)
def _sliced_at_most(planes, k, lanes):
    """Mask of the lanes whose bit-sliced value (planes[p] = bit p of every lane) is <= k."""
    below = _ZERO
    equal = lanes
    for p in range(planes.size - 1, -1, -1):
        if (k >> p) & 1:
            below |= equal & ~planes[p]
            equal &= planes[p]
        else:
            equal &= ~planes[p]
    return below | equal


@njit(cache=True, nogil=True)
def _sliced_max(planes, lanes):
    best = 0
    candidates = lanes
    for p in range(planes.size - 1, -1, -1):
        hit = candidates & planes[p]
        if hit != _ZERO:
            best |= 1 << p
            candidates = hit
    return best


@njit(cache=True, nogil=True)
def _sliced_min(planes, lanes):
    best = 0
    candidates = lanes
    for p in range(planes.size - 1, -1, -1):
        miss = candidates & ~planes[p]
        if miss != _ZERO:
            candidates = miss
        else:
            best |= 1 << p
    return best


@njit(cache=True, nogil=True)
def _sliced_reflect(planes, k, lanes):
    """value <- k - value in ``lanes`` (k >= value there): a ripple-borrow subtraction per plane."""
    borrow = _ZERO
    for p in range(planes.size):
        b = planes[p]
        if (k >> p) & 1:
            diff = ~(b ^ borrow)
            borrow = b & borrow
        else:
            diff = b ^ borrow
            borrow = b | borrow
        planes[p] = (b & ~lanes) | (diff & lanes)


@njit(cache=True, nogil=True)
def linear_complexities(bits, n_blocks, M):
    """Berlekamp-Massey linear complexity of each M-bit block, 64 blocks at once (bit-sliced).

    Bit b of every word belongs to block b: R[M-1-j] holds bit j of the 64 blocks, C[i] the i-th
    coefficient of their connection polynomials, L their lengths (one word per bit of L). Each
    step is the textbook step for all 64 blocks with masks instead of branches: d = the blocks
    whose discrepancy is 1, g = those of them where 2L <= N (L <- N+1-L, B <- C). x^(N-m) B is kept
    already shifted (Bst[base + i]; the shift by x is base -= 1), so m is never needed. Per block
    the degrees obey deg C <= L and deg x^(N-m)B <= N+1-L, so the loops stop at the largest L
    (discrepancy) and at max(L_max, N+2-L_min) (update): about M^2/4 word operations per 64
    blocks, with no data-dependent branch."""
    out = np.empty(n_blocks, dtype=np.int64)
    R = np.empty(M, dtype=np.uint64)
    C = np.empty(M + 3, dtype=np.uint64)
    Bst = np.empty(2 * M + 6, dtype=np.uint64)
    n_planes = 1
    while (1 << n_planes) <= M + 1:
        n_planes += 1
    Lp = np.empty(n_planes, dtype=np.uint64)
    for first in range(0, n_blocks, 64):
        width = min(64, n_blocks - first)
        lanes = _ALL if width == 64 else (_ONE << np.uint64(width)) - _ONE
        for j in range(M):
            R[j] = _ZERO
        for b in range(width):
            base = (first + b) * M
            for j in range(M):
                R[M - 1 - j] |= np.uint64(bits[base + j]) << np.uint64(b)
        for i in range(M + 3):
            C[i] = _ZERO
        for i in range(2 * M + 6):
            Bst[i] = _ZERO
        for p in range(n_planes):
            Lp[p] = _ZERO
        C[0] = _ALL
        base_b = M + 3
        Bst[base_b + 1] = _ALL  # B = 1, m = -1: at N = 0, x^(N-m) B = x
        l_min = 0
        l_max = 0
        top = 1
        for N in range(M):
            start = M - 1 - N
            d = _ZERO
            for i in range(l_max + 1):
                d ^= C[i] & R[start + i]
            d &= lanes
            g = _ZERO
            if d != _ZERO:
                g = d & _sliced_at_most(Lp, N >> 1, lanes)
                if g != _ZERO:
                    _sliced_reflect(Lp, N + 1, g)
                    l_min = _sliced_min(Lp, lanes)
                    l_max = _sliced_max(Lp, lanes)
            keep = ~g
            for i in range(top + 1):
                c = C[i]
                s = Bst[base_b + i]
                C[i] = c ^ (s & d)
                Bst[base_b + i] = (s & keep) | (c & g)
            base_b -= 1
            top = max(top, l_max, N + 2 - l_min)  # never shrinks: entries above stay zero
        for b in range(width):
            v = 0
            for p in range(n_planes):
                v |= int((Lp[p] >> np.uint64(b)) & _ONE) << p
            out[first + b] = v
    return out


@njit(cache=True, nogil=True)
def block_codes(bits, count, L):
    """The first ``count`` non-overlapping L-bit blocks as integers, most significant bit first."""
    codes = np.empty(count, dtype=np.int64)
    for i in range(count):
        code = 0
        for j in range(i * L, (i + 1) * L):
            code = (code << 1) | bits[j]
        codes[i] = code
    return codes


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
def pairs_as_complex(bits):
    """z_j = y_2j + i y_2j+1 with y = 2 bits - 1: the even and odd halves of an even-length
    real sequence packed into one complex sequence of half the length."""
    h = bits.size // 2
    z = np.empty(h, dtype=np.complex128)
    for j in range(h):
        z[j] = complex(2.0 * bits[2 * j] - 1.0, 2.0 * bits[2 * j + 1] - 1.0)
    return z


@njit(cache=True, nogil=True)
def real_dft_moduli_below(Z, twiddle, below2, above2):
    """From Z = FFT(pairs_as_complex(bits)) (length h = n/2), the n-point DFT of y is
    X_k = E_k + w^k O_k with E_k = (Z_k + conj Z_(h-k)) / 2, O_k = (Z_k - conj Z_(h-k)) / 2i and
    twiddle[k] = w^k = exp(-2 pi i k / n). Counts k < h with |X_k|^2 < below2 (surely below the
    threshold) and with below2 <= |X_k|^2 <= above2 (too close to call at this precision)."""
    h = Z.size
    below = 0
    unsure = 0
    for k in range(h):
        a = Z[k]
        b = np.conj(Z[(h - k) % h])
        x = 0.5 * (a + b) + twiddle[k] * (-0.5j * (a - b))
        q = x.real * x.real + x.imag * x.imag
        if q < below2:
            below += 1
        elif q <= above2:
            unsure += 1
    return below, unsure
