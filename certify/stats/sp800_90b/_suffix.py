"""Suffix array and LCP of a symbol string, and the tuple counts SP 800-90B 6.3.5/6.3.6 need.

The t-tuple and LRS estimators need, for every length W, the largest number of occurrences of
any W-tuple (Q[W]) and the number of pairs of equal W-tuples (sum over tuples of C(count, 2)).
Both come from the LCP intervals of the suffix array: an interval whose suffixes share h
symbols, inside a parent interval sharing h' < h, is the set of occurrences of one W-tuple for
every W in (h', h]. One pass over the LCP array with a stack gives all of them.

The suffix array: each suffix's first few symbols, packed into a uint64 with its position in
the low bits, sorted with one (SIMD) ``np.sort``; suffixes still tied after those symbols are
re-sorted by the next symbols, group by group; a string with very long repeats falls back to
prefix doubling.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic


@nb.njit(cache=True, nogil=True)
def _pack(sym, width, per, positions):
    """The ``per`` symbols from each position (zero-padded past the end), and how many are real."""
    n = sym.size
    m = positions.size
    key = np.zeros(m, dtype=np.uint64)
    real = np.zeros(m, dtype=np.int64)
    for j in range(m):
        p = positions[j]
        k = np.uint64(0)
        for t in range(per):
            k = k << np.uint64(width)
            if p + t < n:
                k |= np.uint64(sym[p + t])
        key[j] = k
        real[j] = min(max(n - p, 0), per)
    return key, real


@nb.njit(cache=True, nogil=True)
def _pack_all(sym, width, per, pos_bits):
    """For every suffix: its first ``per`` symbols above ``pos_bits`` bits holding n-1-position
    (rolled from the end, O(n))."""
    n = sym.size
    out = np.empty(n, dtype=np.uint64)
    k = np.uint64(0)
    top = np.uint64(width * (per - 1))
    for i in range(n - 1, -1, -1):
        k = (k >> np.uint64(width)) | (np.uint64(sym[i]) << top)
        out[i] = (k << np.uint64(pos_bits)) | np.uint64(n - 1 - i)
    return out


def suffix_array(sym: np.ndarray, width: int) -> np.ndarray:
    """Suffix array of ``sym`` (values < 2**width), lexicographic with a prefix before its extensions."""
    n = sym.size
    pos_bits = max(1, int(n - 1).bit_length())
    per = (64 - pos_bits) // width
    if per < 1:
        return _doubling(sym)
    combined = _pack_all(sym, width, per, pos_bits)
    combined.sort()
    sa = (n - 1) - (combined & np.uint64((1 << pos_bits) - 1)).astype(np.int64)
    symkey = combined >> np.uint64(pos_bits)
    del combined
    full = sa <= n - per
    tied = np.zeros(n, dtype=bool)
    same = (symkey[1:] == symkey[:-1]) & full[1:] & full[:-1]
    # the rank of each suffix's first `per` symbols (a suffix shorter than that is unique)
    first_rank = np.empty(n, dtype=np.int64)
    first_rank[sa] = np.concatenate(([0], np.cumsum(~same)))
    tied[1:] |= same
    tied[:-1] |= same
    offset = per
    rounds = 0
    while tied.any():
        rounds += 1
        if rounds > 8:
            return _doubling(sym, first_rank, per)
        idx = np.flatnonzero(tied)
        # group ids: runs of tied entries separated by a 'not same' boundary
        starts = np.ones(idx.size, dtype=bool)
        starts[1:] = ~((idx[1:] == idx[:-1] + 1) & same[idx[1:] - 1])
        group = np.cumsum(starts)
        members = sa[idx]
        nkey, nreal = _pack(sym, width, per, members + offset)
        order = np.lexsort((nreal, nkey, group))
        sa[idx] = members[order]
        g2, k2, r2 = group[order], nkey[order], nreal[order]
        same2 = (g2[1:] == g2[:-1]) & (k2[1:] == k2[:-1]) & (r2[1:] == per) & (r2[:-1] == per)
        same = np.zeros(n - 1, dtype=bool)
        contiguous = idx[1:] == idx[:-1] + 1
        same[idx[:-1][contiguous]] = same2[contiguous]
        tied = np.zeros(n, dtype=bool)
        tied[1:] |= same
        tied[:-1] |= same
        offset += per
    return sa


def _doubling(sym: np.ndarray, rank: np.ndarray | None = None, k: int = 1) -> np.ndarray:
    """Prefix doubling (Manber-Myers): for strings with very long repeats. ``rank`` may give
    the order of the first ``k`` symbols of each suffix already (ties equal)."""
    n = sym.size
    rank = sym.astype(np.int64) if rank is None else rank
    while True:
        second = np.full(n, -1, dtype=np.int64)
        second[:n - k] = rank[k:]
        order = np.argsort(rank * (n + 1) + (second + 1), kind="stable")
        r, s = rank[order], second[order]
        change = np.ones(n, dtype=np.int64)
        change[1:] = (r[1:] != r[:-1]) | (s[1:] != s[:-1])
        new_rank = np.empty(n, dtype=np.int64)
        new_rank[order] = np.cumsum(change) - 1
        rank = new_rank
        if rank[order[-1]] == n - 1 or k >= n:
            return order
        k *= 2


@nb.njit(cache=True, nogil=True)
def lcp_array(sym, sa):
    """Kasai et al.: lcp[r] = common prefix of suffixes sa[r-1] and sa[r] (lcp[0] = 0)."""
    n = sym.size
    rank = np.empty(n, dtype=np.int64)
    for r in range(n):
        rank[sa[r]] = r
    lcp = np.zeros(n, dtype=np.int64)
    h = 0
    for i in range(n):
        r = rank[i]
        if r > 0:
            j = sa[r - 1]
            while i + h < n and j + h < n and sym[i + h] == sym[j + h]:
                h += 1
            lcp[r] = h
            if h > 0:
                h -= 1
        else:
            h = 0
    return lcp


@nb.njit(cache=True, nogil=True)
def tuple_statistics(lcp):
    """From the LCP array: v (the LRS length), Q[W] (largest count of a W-tuple, W = 0..v) and
    pairs[W] (number of pairs of equal W-tuples), by one stack pass over the LCP intervals."""
    n = lcp.size
    v = 0
    for r in range(n):
        if lcp[r] > v:
            v = lcp[r]
    best = np.zeros(v + 2, dtype=np.int64)
    diff = np.zeros(v + 2, dtype=np.int64)
    st_h = np.zeros(v + 2, dtype=np.int64)
    st_lb = np.zeros(v + 2, dtype=np.int64)
    top = 0  # st[0] is the root interval (h = 0)
    for i in range(1, n + 1):
        cur = lcp[i] if i < n else 0
        lb = i - 1
        while cur < st_h[top]:
            h = st_h[top]
            size = i - st_lb[top]
            lb = st_lb[top]
            top -= 1
            parent = cur if cur > st_h[top] else st_h[top]
            if size > best[h]:
                best[h] = size
            pairs = size * (size - 1) // 2
            diff[parent + 1] += pairs
            diff[h + 1] -= pairs
        if cur > st_h[top]:
            top += 1
            st_h[top] = cur
            st_lb[top] = lb
    q = np.ones(v + 1, dtype=np.int64)
    running = 1
    for w in range(v, 0, -1):
        if best[w] > running:
            running = best[w]
        q[w] = running
    q[0] = n
    pairs_w = np.zeros(v + 1, dtype=np.int64)
    acc = 0
    for w in range(0, v + 1):
        acc += diff[w]
        pairs_w[w] = acc
    return v, q, pairs_w


@nb.njit(cache=True, nogil=True)
def _window_keys(sym, width, per):
    """The first ``per`` symbols of every suffix in one uint64, first symbol highest, zero-padded
    past the end (rolled from the end, O(n))."""
    n = sym.size
    out = np.empty(n, dtype=np.uint64)
    k = np.uint64(0)
    top = np.uint64(width * (per - 1))
    for i in range(n - 1, -1, -1):
        k = (k >> np.uint64(width)) | (np.uint64(sym[i]) << top)
        out[i] = k
    return out


@nb.njit(cache=True, nogil=True)
def _window_lcp(full, short_keys, short_len, short_at, width, per):
    """The LCP array of the suffixes in sorted order, when their first ``per`` symbols decide it:
    ``full`` the sorted keys of the suffixes of ``per`` symbols or more; the shorter suffixes
    (``short_*``, in sorted order) go before ``full[short_at[j]]``. Returns (lcp, decided):
    decided is False when two long suffixes share all ``per`` symbols (their order is not known)."""
    n = full.size + short_keys.size
    lcp = np.zeros(n, dtype=np.int64)
    spare = 64 - width * per
    j = 0
    f = 0
    prev_key = np.uint64(0)
    prev_len = 0
    for r in range(n):
        if j < short_keys.size and short_at[j] == f:
            key = short_keys[j]
            length = short_len[j]
            j += 1
        else:
            key = full[f]
            length = per
            f += 1
        if r > 0:
            x = key ^ prev_key
            if x == 0:
                common = per
            else:
                common = (_clz(x) - spare) // width
            if common > length:
                common = length
            if common > prev_len:
                common = prev_len
            if common >= per:
                return lcp, False
            lcp[r] = common
        prev_key = key
        prev_len = length
    return lcp, True


@intrinsic
def _clz(typingctx, x):
    """Count of leading zero bits of a uint64 (LLVM ctlz)."""
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.zext(builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0)), ir.IntType(64))

    return sig, codegen


def window_lcp(sym: np.ndarray, width: int) -> np.ndarray | None:
    """The suffix array's LCP array from one sort of each suffix's first 64 bits (no suffix array
    is built), or None when two suffixes share those bits (then ``suffix_array`` is needed)."""
    n = sym.size
    per = 64 // width
    if n <= per:
        return None
    keys = _window_keys(sym, width, per)
    full = np.sort(keys[:n - per + 1])
    short_keys = keys[n - per + 1:]
    short_len = np.arange(per - 1, 0, -1, dtype=np.int64)
    order = np.lexsort((short_len, short_keys))   # a prefix (zero-padded) before its extensions
    short_keys, short_len = short_keys[order], short_len[order]
    short_at = np.searchsorted(full, short_keys, side="left").astype(np.int64)
    lcp, decided = _window_lcp(full, short_keys, short_len, short_at, width, per)
    return lcp if decided else None


def tuple_counts(sym: np.ndarray, width: int):
    """(v, Q, pairs) for the symbol string ``sym`` (see ``tuple_statistics``)."""
    sym = np.ascontiguousarray(sym, dtype=np.uint8)
    lcp = window_lcp(sym, width)
    if lcp is None:
        lcp = suffix_lcp(sym, width)
    return tuple_statistics(lcp)


def suffix_lcp(sym: np.ndarray, width: int) -> np.ndarray:
    """The LCP array through the full suffix array (any string)."""
    sa = suffix_array(sym, width)
    return lcp_array(sym, sa)
