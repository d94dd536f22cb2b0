"""The Burrows-Wheeler transform as bzip2 computes it: the block's cyclic rotations sorted, the
last column read off. The compression statistic of SP 800-90B 5.1.11 is the length of bzip2's
output, which depends on the block only through this transform (the order of identical rotations
does not change the last column, and the original rotation's index is a fixed 24-bit field).

``cyclic_bwt_reference`` is the plain, obviously correct form (prefix doubling on numpy sorts):
the yardstick the fast transform is tested against, too slow for the permutation tests.
``bwt_last_column`` is the fast one (numba, callable from other compiled code), below."""

from __future__ import annotations

import math

import numba as nb
import numpy as np


def cyclic_bwt_reference(block: np.ndarray) -> tuple[np.ndarray, int]:
    """(last column, index of the original rotation) of ``block``'s sorted cyclic rotations.

    Rotation i is block[i:] + block[:i]; rotations are ranked by their first h bytes, h doubling
    (rank of the first h, then of the next h, cyclically) until every rank differs or h covers the
    block (a periodic block has identical rotations: any order of them gives the same column)."""
    block = np.ascontiguousarray(block, dtype=np.uint8)
    n = block.size
    if n == 0:
        raise ValueError("an empty block has no Burrows-Wheeler transform")
    rank = block.astype(np.int64)
    h = 1
    while True:
        key = rank * (n + 256) + np.roll(rank, -h)
        order = np.argsort(key, kind="stable")
        sorted_key = key[order]
        fresh = np.empty(n, dtype=np.int64)
        fresh[order] = np.concatenate(([0], np.cumsum(sorted_key[1:] != sorted_key[:-1])))
        rank = fresh
        h *= 2
        if rank.max() == n - 1 or h >= n:
            break
    order = np.argsort(rank, kind="stable")
    last = block[(order - 1) % n]
    return last, int(np.flatnonzero(order == 0)[0])


# ---------------------------------------------------------------------------------------------
# The fast transform (numba, callable from other compiled code).
#
# Blocks of decimal text (digits and spaces) are sorted by numbers: every rotation is a head
# (a suffix of one number, then its space) followed by the whole numbers after it, and since the
# strings "digits + space" are prefix-free with ' ' < '0', the order of rotations is the order of
# (head string, cyclic rank of the number sequence after the head). So the block sorts as one
# cyclic suffix sort of its ~n/3.6 numbers and a counting pass over the heads (two spaces in a
# row enclose an empty number, which changes nothing of this). Any other block is
# a cyclic suffix sort of its bytes. Both sorts are the same routine: the first symbols of each
# rotation packed into a uint64 and radix-sorted, ties refined by prefix doubling (Larsson-
# Sadakane) with the ranks of the symbols further on. (_suffix.suffix_array sorts linear suffixes
# in Python-level numpy; bzip2 needs cyclic rotations, inside compiled code, without the GIL.)
# ---------------------------------------------------------------------------------------------

_SMALL = 16          # ranges this short are insertion-sorted
_MAX_DIGITS = 18     # 11**18 < 2**63: a number's padded base-11 key fits a uint64
_SHORT_KEYS = 11 ** 4  # the unpadded keys of numbers of at most 4 digits
_LSD_BITS = 24       # radix-sorted from the low end first where no entropy says otherwise


@nb.njit(cache=True, nogil=True)
def _bit_length(x):
    """Bits of the uint64 ``x`` (one signature: every caller passes a uint64)."""
    bits = 0
    while x:
        bits += 1
        x = x >> np.uint64(1)
    return bits


@nb.njit(cache=True, nogil=True)
def _insertion_sort(keys, order, lo, hi):
    for i in range(lo + 1, hi):
        k = keys[i]
        o = order[i]
        j = i - 1
        while j >= lo and keys[j] > k:
            keys[j + 1] = keys[j]
            order[j + 1] = order[j]
            j -= 1
        keys[j + 1] = k
        order[j + 1] = o


@nb.njit(cache=True, nogil=True)
def _radix_pass(src_k, src_o, dst_k, dst_o, lo, hi, shift, w, count):
    """Stable counting sort of src[lo:hi] by key bits [shift - w, shift) into dst[lo:hi];
    then count[d] is the end of digit d's range."""
    low = np.uint64(shift - w)
    mask = np.uint64((1 << w) - 1)
    for d in range((1 << w) + 1):
        count[d] = 0
    for i in range(lo, hi):
        count[((src_k[i] >> low) & mask) + np.uint64(1)] += 1
    count[0] = lo
    for d in range(1 << w):
        count[d + 1] += count[d]
    for i in range(lo, hi):
        d = (src_k[i] >> low) & mask
        at = count[d]
        dst_o[at] = src_o[i]
        dst_k[at] = src_k[i]
        count[d] = at + 1


@nb.njit(cache=True, nogil=True)
def _sorted_order(keys, bits, lsd_bits):
    """(order, sorted keys) of uint64 ``keys`` < 2**bits: LSD radix (8-bit digits, streaming
    writes) on the top ``lsd_bits`` bits (enough to leave runs of a few equal ones), then each
    run still tied there by MSD radix down to short ranges, which are insertion-sorted."""
    m = keys.size
    order = np.empty(m, dtype=np.int32)
    sk = np.empty(m, dtype=np.uint64)
    for i in range(m):
        order[i] = i
        sk[i] = keys[i]
    if bits == 0 or m < 2:
        return order, sk
    tmp_o = np.empty(m, dtype=np.int32)
    tmp_k = np.empty(m, dtype=np.uint64)
    count = np.empty(257, dtype=np.int64)
    low = bits - min(bits, lsd_bits)
    shift = low
    while shift < bits:
        w = min(8, bits - shift)
        _radix_pass(sk, order, tmp_k, tmp_o, np.int64(0), m, shift + w, w, count)
        sk, tmp_k = tmp_k, sk
        order, tmp_o = tmp_o, order
        shift += w
    if low == 0:
        return order, sk
    stack_lo = np.empty(8 * 257 + 8, dtype=np.int64)   # ranges left to sort, depth first
    stack_hi = np.empty(8 * 257 + 8, dtype=np.int64)
    stack_shift = np.empty(8 * 257 + 8, dtype=np.int64)
    p = 0
    while p < m:
        q = p + 1
        top = sk[p] >> np.uint64(low)
        while q < m and (sk[q] >> np.uint64(low)) == top:
            q += 1
        if q - p > 1:
            stack_lo[0] = p
            stack_hi[0] = q
            stack_shift[0] = low
            depth = 1
            while depth > 0:
                depth -= 1
                lo = stack_lo[depth]
                hi = stack_hi[depth]
                shift = stack_shift[depth]
                if hi - lo <= _SMALL:
                    _insertion_sort(sk, order, lo, hi)
                    continue
                w = min(8, shift)
                _radix_pass(sk, order, tmp_k, tmp_o, lo, hi, shift, w, count)
                for i in range(lo, hi):
                    sk[i] = tmp_k[i]
                    order[i] = tmp_o[i]
                shift -= w
                start = lo
                for d in range(1 << w):
                    end = count[d]
                    if end - start > 1 and shift > 0:
                        stack_lo[depth] = start
                        stack_hi[depth] = end
                        stack_shift[depth] = shift
                        depth += 1
                    start = end
        p = q
    return order, sk


@nb.njit(cache=True, nogil=True)
def _sort_by(buf, order, lo, hi):
    """Sort order[lo:hi] by buf[lo:hi] (uint64, int64 bounds: _insertion_sort's one signature;
    buf permuted alike)."""
    size = hi - lo
    if size <= _SMALL:
        _insertion_sort(buf, order, lo, hi)
        return
    keys = np.empty(size, dtype=np.uint64)
    top = 0
    ordered = True     # (long repeats: a group's next ranks often all equal, or already in order)
    for t in range(size):
        keys[t] = buf[lo + t]
        top = max(top, buf[lo + t])
        ordered &= t == 0 or buf[lo + t - 1] <= buf[lo + t]
    if ordered:
        return
    perm, sk = _sorted_order(keys, _bit_length(np.uint64(top)), np.int64(_LSD_BITS))
    members = np.empty(size, dtype=np.int32)
    for t in range(size):
        members[t] = order[lo + t]
    for t in range(size):
        order[lo + t] = members[perm[t]]
        buf[lo + t] = sk[t]


@nb.njit(cache=True, nogil=True)
def _cyclic_period(sym):
    """The least p dividing m with sym[i] = sym[(i + p) % m] for all i (prefix function)."""
    m = sym.size
    border = np.zeros(m, dtype=np.int32)
    b = 0
    for i in range(1, m):
        while b > 0 and sym[i] != sym[b]:
            b = border[b - 1]
        if sym[i] == sym[b]:
            b += 1
        border[i] = b
    p = m - border[m - 1]
    return p if m % p == 0 else m


@nb.njit(cache=True, nogil=True)
def cyclic_order(sym, alphabet):
    """The order of the cyclic rotations of ``sym`` (ints in [0, alphabet)), as int32 starts.

    Identical rotations (a periodic ``sym``) come in an arbitrary order among themselves."""
    m = sym.size
    if alphabet <= 1 or m == 1:
        order = np.empty(m, dtype=np.int32)
        for i in range(m):
            order[i] = i
        return order
    # the first `per` symbols of each rotation as one base-`alphabet` number (the most that fit
    # a uint64), rolled forward without a division
    lead = np.uint64(1)          # alphabet ** (per - 1)
    per = 1
    big = np.uint64(0xFFFFFFFFFFFFFFFF)
    while lead <= big // np.uint64(alphabet) // np.uint64(alphabet):
        lead *= np.uint64(alphabet)
        per += 1
    base = np.uint64(alphabet)
    keys = np.empty(m, dtype=np.uint64)
    k = np.uint64(0)
    for t in range(per):
        k = k * base + np.uint64(sym[t % m])
    keys[0] = k
    ahead = per % m          # (i + per) % m, kept without a division per symbol
    for i in range(m - 1):
        k = (k - np.uint64(sym[i]) * lead) * base + np.uint64(sym[ahead])
        keys[i + 1] = k
        ahead += 1
        if ahead == m:
            ahead = 0
    # radix-sort from the low end as many top bits as carry ~log2(m) + 3 bits of information
    # (symbols of a skewed or barely used alphabet carry less than their log2(alphabet) bits)
    entropy = math.log2(alphabet)
    if alphabet <= 4 * m:    # (a sparse alphabet: assume every symbol carries its bits)
        seen = np.zeros(alphabet, dtype=np.int64)
        for i in range(m):
            seen[sym[i]] += 1
        entropy = 0.0
        for c in range(alphabet):
            if seen[c]:
                entropy -= seen[c] / m * math.log2(seen[c] / m)
    bits = _bit_length(lead * base - np.uint64(1))
    needed = (_bit_length(np.uint64(m)) + 3) * math.log2(alphabet) / max(entropy, 1e-3)
    order, sk = _sorted_order(keys, bits, min(64, 8 * int(math.ceil(needed / 8))))
    groups = np.empty(m, dtype=np.int32)      # (lo, hi) pairs of still-tied ranges, flattened
    ng = 0
    p = 0
    while p < m:
        q = p + 1
        while q < m and sk[q] == sk[p]:
            q += 1
        if q - p > 1:
            groups[2 * ng] = p
            groups[2 * ng + 1] = q
            ng += 1
        p = q
    if ng == 0:
        return order
    # ranks: the first position of each rotation's group of equal prefixes
    rank = np.empty(m, dtype=np.int32)
    for p in range(m):
        rank[order[p]] = p
    for g in range(ng):
        lo, hi = groups[2 * g], groups[2 * g + 1]
        for t in range(lo, hi):
            rank[order[t]] = lo
    h = per
    period = _cyclic_period(sym)   # rotations equal on that many symbols are identical
    buf = np.empty(m, dtype=np.uint64)
    fresh = np.empty(m, dtype=np.int32)
    while ng > 0 and h < period:
        nn = 0
        for g in range(ng):
            lo, hi = groups[2 * g], groups[2 * g + 1]
            for t in range(lo, hi):
                at = order[t] + h     # h < m
                buf[t] = rank[at - m if at >= m else at]
            _sort_by(buf, order, np.int64(lo), np.int64(hi))
            a = lo
            while a < hi:
                b = a + 1
                while b < hi and buf[b] == buf[a]:
                    b += 1
                for t in range(a, b):
                    rank[order[t]] = a
                if b - a > 1:
                    fresh[2 * nn] = a
                    fresh[2 * nn + 1] = b
                    nn += 1
                a = b
        groups, fresh = fresh, groups
        ng = nn
        h *= 2
    return order


@nb.njit(cache=True, nogil=True)
def _byte_bwt(block):
    """Last column by a cyclic suffix sort of the bytes themselves (any block)."""
    n = block.size
    dense = np.zeros(256, dtype=np.int64)
    for i in range(n):
        dense[block[i]] = 1
    alphabet = 0
    for c in range(256):
        if dense[c]:
            dense[c] = alphabet
            alphabet += 1
    sym = np.empty(n, dtype=np.int32)
    for i in range(n):
        sym[i] = dense[block[i]]
    order = cyclic_order(sym, np.int64(alphabet))
    out = np.empty(n, dtype=np.uint8)
    for p in range(n):
        j = order[p]
        out[p] = block[j - 1 if j > 0 else n - 1]
    return out


@nb.njit(cache=True, nogil=True)
def _number_key(text, start, length, width):
    """Digits text[start:start+length] as a base-11 key padded to ``width`` places (digit c is
    c - '0' + 1, a place past the end is 0 like the space that ends it): keys compare as the
    strings followed by a space."""
    k = np.uint64(0)
    for t in range(width):
        k *= np.uint64(11)
        if t < length:
            k += np.uint64(text[start + t] - 47)
    return k


@nb.njit(cache=True, nogil=True)
def _decimal_bwt(block, out):
    """Last column of a block of digits and spaces with a space somewhere (numbers separated by
    spaces; two spaces in a row enclose an empty number); False, nothing written, otherwise."""
    n = block.size
    spaces = 0
    others = 0
    for i in range(n):      # branch-free: a byte is a space, a digit or neither
        c = block[i]
        spaces += c == 32
        others += (c != 32) & ((c < 48) | (c > 57))
    if others or not spaces:
        return False
    first_space = 0
    while block[first_space] != 32:
        first_space += 1
    # rotate so the text is T_0 ' ' T_1 ' ' ... T_{m-1} ' ' (T_{m-1} may join the block's two ends)
    text = np.empty(n, dtype=np.uint8)
    tail = n - first_space - 1
    for i in range(n):
        text[i] = block[i + first_space + 1 if i < tail else i - tail]
    m = spaces
    starts = np.empty(m, dtype=np.int32)
    lengths = np.empty(m, dtype=np.int32)
    keys = np.empty(m, dtype=np.uint64)     # the number's digits in base 11
    j = 0
    s = 0
    k = np.uint64(0)
    width = 0
    for i in range(n):      # branch-free: number j's entries are rewritten until its space
        c = text[i]
        space = c == 32
        starts[j] = s
        lengths[j] = i - s
        keys[j] = k
        width = max(width, i - s)
        k = (k * np.uint64(11) + np.uint64(c - 47)) * np.uint64(1 - space)
        s += (i + 1 - s) * space
        j += space
    if width > _MAX_DIGITS:
        return False
    pad = np.empty(width + 1, dtype=np.uint64)
    pad[0] = 1
    for t in range(width):
        pad[t + 1] = pad[t] * np.uint64(11)
    bits = _bit_length(pad[width] - np.uint64(1))
    # distinct numbers: the unpadded keys (base 11 with digits 1..10 gives every digit string its
    # own integer) of numbers up to 4 digits through a table; longer ones (in 8-bit text just the
    # one joining the block's ends) all go to the sort with one of each short one
    slot = np.empty(_SHORT_KEYS, dtype=np.int32)
    for x in range(_SHORT_KEYS):
        slot[x] = -1
    candidate = np.empty(m, dtype=np.int32)     # its position in the text
    number = np.empty(m, dtype=np.int32)        # first its candidate, then its dense rank
    nc = 0
    for j in range(m):
        k = keys[j]
        if k < _SHORT_KEYS:
            if slot[k] < 0:
                slot[k] = nc
                candidate[nc] = j
                nc += 1
            number[j] = slot[k]
        else:
            candidate[nc] = j
            number[j] = nc
            nc += 1
    padded = np.empty(nc, dtype=np.uint64)
    for c in range(nc):
        j = candidate[c]
        padded[c] = keys[j] * pad[width - lengths[j]]
    order, sk = _sorted_order(padded, bits, np.int64(_LSD_BITS))
    rank_of = np.empty(nc, dtype=np.int32)
    rep = np.empty(nc, dtype=np.int32)          # a position of each distinct number
    distinct = 0
    for p in range(nc):
        if p == 0 or sk[p] != sk[p - 1]:
            rep[distinct] = candidate[order[p]]
            distinct += 1
        rank_of[order[p]] = distinct - 1
    mult = np.zeros(distinct, dtype=np.int64)
    for j in range(m):
        u = rank_of[number[j]]
        number[j] = u
        mult[u] += 1
    # heads: each distinct number's suffixes from offset d < its length. The empty head (the
    # rotation at the space after a number) sorts first: out[:m], one per number, in the order
    # of the numbers after them, each the byte before that space.
    off = np.empty(distinct + 1, dtype=np.int64)
    off[0] = 0
    last_char = np.empty(distinct, dtype=np.uint8)
    for u in range(distinct):
        length = lengths[rep[u]]
        off[u + 1] = off[u] + length
        last_char[u] = text[starts[rep[u]] + length - 1] if length else 32
    heads = off[distinct]
    head_key = np.empty(heads, dtype=np.uint64)
    head_char = np.empty(heads, dtype=np.uint8)   # the byte before that rotation
    for u in range(distinct):
        s, length = starts[rep[u]], lengths[rep[u]]
        for d in range(length):
            head_key[off[u] + d] = _number_key(text, s + d, length - d, np.int64(width))
            head_char[off[u] + d] = 32 if d == 0 else text[s + d - 1]
    horder, hsk = _sorted_order(head_key, bits, np.int64(_LSD_BITS))
    head_rank = np.empty(heads, dtype=np.int32)
    r = -1
    for p in range(heads):
        if p == 0 or hsk[p] != hsk[p - 1]:
            r += 1
        head_rank[horder[p]] = r
    fill = np.zeros(r + 2, dtype=np.int64)
    for u in range(distinct):
        for x in range(off[u], off[u + 1]):
            fill[head_rank[x] + 1] += mult[u]
    fill[0] = m
    for x in range(r + 1):
        fill[x + 1] += fill[x]
    # rotations in order: by head, then by the numbers after it (the order of rotation j's
    # numbers, walked once, puts every head of number j-1 in place within its bucket)
    seq = cyclic_order(number, np.int64(distinct))
    before = np.empty(m, dtype=np.int32)     # the number before each, in that order (a gather
    for p in range(m):                       # on its own: twice as fast as inside the next loop)
        j = seq[p]
        u = number[j - 1 if j > 0 else m - 1]
        before[p] = u
        out[p] = last_char[u]
    for p in range(m):
        u = before[p]
        for x in range(off[u], off[u + 1]):
            b = head_rank[x]
            out[fill[b]] = head_char[x]
            fill[b] += 1
    return True


@nb.njit(cache=True, nogil=True)
def bwt_last_column(block):
    """The last column of ``block``'s sorted cyclic rotations (uint8 array in, uint8 array out):
    ``cyclic_bwt_reference(block)[0]``, exactly, for any bytes; fast for decimal text."""
    if block.size == 0:
        raise ValueError("an empty block has no Burrows-Wheeler transform")
    out = np.empty(block.size, dtype=np.uint8)
    if _decimal_bwt(block, out):
        return out
    return _byte_bwt(block)
