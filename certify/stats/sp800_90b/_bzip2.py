"""The length of bzip2's output, computed as a bit count, exact to libbz2 1.0.8.

SP 800-90B 5.1.11's statistic is ``len(bz2.compress(text, 5))``. Everything bzip2 writes after
the Burrows-Wheeler transform is a deterministic function of the transform's last column, and
its length can be counted without writing a bit: the block splitting with the first run-length
coding (RLE1), the move-to-front coding with RUNA/RUNB zero runs, and the choice of Huffman
tables over groups of 50 symbols (four refinement passes, code lengths at most 17). This module
follows libbz2 1.0.8 (bzlib.c ``copy_input_until_stop`` / ``add_pair_to_block``, compress.c
``generateMTFValues`` / ``sendMTFValues``, huffman.c ``BZ2_hbMakeCodeLengths``) step for step
where the length depends on it; it never touches the CRC (a fixed 32-bit field). Two places
where libbz2 could differ from the plain algorithm do not: the nGroups == 6 fast path packs
two tables' group costs into 16-bit lanes, but a group costs at most 50 x 17 bits, so it picks
the same tables; and nSelectors = ceil(nMTF / 50) <= 18,001 never reaches BZ_MAX_SELECTORS.

``block_bits`` works on one block's last column and is callable from other numba code (nogil),
so a permutation kernel can count a shuffled text's size in its own thread. ``bzip2_size`` is
the Python entry (a stream of any bytes, any level), checked against libbz2 by the tests."""

from __future__ import annotations

from typing import Callable

import numba as nb
import numpy as np
from numba.core import types
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros
from numba.extending import intrinsic

from ._bwt import _byte_bwt, _decimal_bwt, cyclic_bwt_reference

GROUP_SIZE = 50          # BZ_G_SIZE: symbols coded with one selected table
N_ITERS = 4              # BZ_N_ITERS: refinement passes over the tables
MAX_CODE_LEN = 17        # BZ2_hbMakeCodeLengths' maxLen since 1.0.3
LESSER_ICOST = 0         # initial length of a symbol inside a table's starting range
GREATER_ICOST = 15       # ... and outside it
RUN_MAX = 255            # RLE1 cuts runs at 255 bytes
STREAM_HEADER_BITS = 32  # "BZh" + level digit
STREAM_TRAILER_BITS = 80  # 48-bit end-of-stream magic + 32-bit combined CRC
BLOCK_HEADER_BITS = 48 + 32 + 1 + 24  # magic, block CRC, randomised flag, origPtr


@nb.njit(cache=True, nogil=True)
def block_limit(level):
    """nblockMAX: a block is full once it holds this many bytes (after RLE1); the 19 spare
    bytes leave room for the pending run that may follow."""
    return 100_000 * level - 19


# ---------------------------------------------------------------- RLE1 and block splitting

@nb.njit(inline="always")
def _put_run(out, at, ch, run):
    """add_pair_to_block: a run of 1..3 bytes as is, of 4..255 as four bytes and a count byte
    (the count is run - 4, which also marks byte value run - 4 as used)."""
    for _ in range(min(run, 4)):
        out[at] = ch
        at += 1
    if run >= 4:
        out[at] = run - 4
        at += 1
    return at


BYTE_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)


@nb.njit(inline="always")
def _zero_byte_flags(x):
    """The high bit of each byte of x that is zero (exact: no carry between bytes)."""
    return ~(((x & BYTE_LOW7) + BYTE_LOW7) | x | BYTE_LOW7)


@nb.njit(inline="always")
def _run_of_4_ends_in(data, lo, hi):
    for i in range(max(lo, 3), hi):
        if data[i] == data[i - 1] and data[i - 1] == data[i - 2] and data[i - 2] == data[i - 3]:
            return True
    return False


@nb.njit(cache=True, nogil=True)
def _has_run_of_4(data):
    """Whether 4 equal bytes follow one another somewhere: 8 bytes at a time, byte j of word k
    flagging data[8k + j] == data[8k + j + 1], a run of 4 being three flags in a row."""
    words = data.size // 8
    if words < 3:
        return _run_of_4_ends_in(data, 0, data.size)
    w = data[:words * 8].view(np.uint64)
    eight = np.uint64(8)
    found = np.uint64(0)
    flags = _zero_byte_flags(w[0] ^ ((w[0] >> eight) | (w[1] << np.uint64(56))))
    for k in range(words - 2):
        after = _zero_byte_flags(w[k + 1] ^ ((w[k + 1] >> eight) | (w[k + 2] << np.uint64(56))))
        found |= flags & ((flags >> eight) | (after << np.uint64(56))) & ((flags >> np.uint64(16)) | (after << np.uint64(48)))
        flags = after
    return found != 0 or _run_of_4_ends_in(data, (words - 2) * 8, data.size)


@nb.njit(cache=True, nogil=True)
def _run_free_starts(data, nblock_max):
    """Block boundaries of data without a run of 4 (RLE1 leaves it as it is): at a check the
    block holds every byte before the pending run, so a block closes at the first run start
    at or past nblock_max bytes in, and that run opens the next block."""
    starts = np.empty(data.size // max(nblock_max, 1) + 3, dtype=np.int64)
    starts[0] = 0
    n_blocks = 0
    while True:
        r = starts[n_blocks] + nblock_max
        while r < data.size and data[r] == data[r - 1]:
            r += 1
        if r >= data.size:
            break
        n_blocks += 1
        starts[n_blocks] = r
    n_blocks += 1
    starts[n_blocks] = data.size
    return starts[:n_blocks + 1]


@nb.njit(cache=True, nogil=True)
def rle1_blocks(data, nblock_max):
    """bzip2's blocks of ``data`` after RLE1: (bytes of all blocks one after the other, block
    boundaries as offsets into them, len = blocks + 1).

    As copy_input_until_stop in BZ_RUN mode (Python's ``compress`` before its ``flush``): before
    each input byte, and once more after the last, a block holding nblock_max bytes or more is
    closed; a byte extends the pending run unless it differs or the run is 255 long, in which case
    the pending run goes into the block first. The last pending run goes into the last block
    (a block of its own when the one before is full). Data without a run of 4 (decimal text of
    8-bit values) comes back as it is, only split."""
    if data.size and not _has_run_of_4(data):
        return data, _run_free_starts(data, nblock_max)
    out = np.empty(data.size + data.size // 4 + 8, dtype=np.uint8)
    starts = np.empty(data.size // max(nblock_max, 1) + 3, dtype=np.int64)
    starts[0] = 0
    n_blocks = 0
    at = 0
    ch = -1
    run = 0
    for i in range(data.size):
        if at - starts[n_blocks] >= nblock_max:
            n_blocks += 1
            starts[n_blocks] = at
        b = np.int64(data[i])
        if b != ch or run == RUN_MAX:
            if ch >= 0:
                at = _put_run(out, at, ch, run)
            ch = b
            run = 1
        else:
            run += 1
    if ch >= 0:                      # empty data: no block at all
        if at - starts[n_blocks] >= nblock_max:
            n_blocks += 1
            starts[n_blocks] = at
        at = _put_run(out, at, ch, run)
        n_blocks += 1
        starts[n_blocks] = at
    return out[:at], starts[:n_blocks + 1]


# ---------------------------------------------------------------- Huffman code lengths

@nb.njit(inline="always")
def _up_heap(heap, weight, z):
    tmp = heap[z]
    while weight[tmp] < weight[heap[z >> 1]]:
        heap[z] = heap[z >> 1]
        z >>= 1
    heap[z] = tmp


@nb.njit(inline="always")
def _down_heap(heap, weight, n_heap, z):
    tmp = heap[z]
    while True:
        y = z << 1
        if y > n_heap:
            break
        if y < n_heap and weight[heap[y + 1]] < weight[heap[y]]:
            y += 1
        if weight[tmp] < weight[heap[y]]:
            break
        heap[z] = heap[y]
        z = y
    heap[z] = tmp


@nb.njit(cache=True, nogil=True)
def code_lengths(freq, alpha_size, max_len, lengths):
    """BZ2_hbMakeCodeLengths into ``lengths[:alpha_size]``: Huffman merging on a binary heap
    whose keys are weight << 8 | subtree depth (ties go to the shallower tree, then to heap
    order); a zero frequency counts as 1; while some code is longer than ``max_len`` every
    weight w becomes 1 + w // 2 and the tree is built again. Returns how many times it was."""
    heap = np.zeros(alpha_size + 2, dtype=np.int64)
    weight = np.zeros(alpha_size * 2 + 2, dtype=np.int64)
    parent = np.zeros(alpha_size * 2 + 2, dtype=np.int64)
    for i in range(alpha_size):
        weight[i + 1] = (freq[i] if freq[i] > 0 else 1) << 8
    rescales = 0
    while True:
        n_nodes = alpha_size
        n_heap = 0
        heap[0] = 0
        weight[0] = 0
        parent[0] = -2
        for i in range(1, alpha_size + 1):
            parent[i] = -1
            n_heap += 1
            heap[n_heap] = i
            _up_heap(heap, weight, n_heap)
        while n_heap > 1:
            n1 = heap[1]
            heap[1] = heap[n_heap]
            n_heap -= 1
            _down_heap(heap, weight, n_heap, 1)
            n2 = heap[1]
            heap[1] = heap[n_heap]
            n_heap -= 1
            _down_heap(heap, weight, n_heap, 1)
            n_nodes += 1
            parent[n1] = n_nodes
            parent[n2] = n_nodes
            depth = 1 + max(weight[n1] & 0xFF, weight[n2] & 0xFF)
            weight[n_nodes] = ((weight[n1] & ~0xFF) + (weight[n2] & ~0xFF)) | depth
            parent[n_nodes] = -1
            n_heap += 1
            heap[n_heap] = n_nodes
            _up_heap(heap, weight, n_heap)
        too_long = False
        for i in range(1, alpha_size + 1):
            depth = 0
            k = i
            while parent[k] >= 0:
                k = parent[k]
                depth += 1
            lengths[i - 1] = depth
            if depth > max_len:
                too_long = True
        if not too_long:
            return rescales
        rescales += 1
        for i in range(1, alpha_size + 1):
            weight[i] = (1 + (weight[i] >> 8) // 2) << 8


# ---------------------------------------------------------------- one block

NIBBLE_ONES = np.uint64(0x1111111111111111)
NIBBLE_HIGHS = np.uint64(0x8888888888888888)


@nb.njit(inline="always")
def _front_nibbles(y, ll):
    """Move-to-front on a list of at most 16 symbols held as the nibbles of ``y`` (position 0 in
    the lowest): (old position of ``ll``, the list with ``ll`` moved to the front). ``ll``'s
    position is the lowest zero nibble of y XOR ll-in-every-nibble (the borrow trick finds the
    lowest one exactly): no memory round trip and no data-dependent branch, several times faster
    than the list walk on decimal text (11 symbols)."""
    x = y ^ (ll * NIBBLE_ONES)
    flags = (x - NIBBLE_ONES) & ~x & NIBBLE_HIGHS
    upto = flags ^ (flags - np.uint64(1))                  # nibbles 0..j
    j = np.int64(trailing_zeros(flags) >> 2)
    return j, (y & ~upto) | ((y << np.uint64(4)) & upto) | ll


@nb.njit(inline="always")
def _front_list(yy, ll):
    """Move-to-front on a list in memory (any alphabet): the old position of ``ll``."""
    prev = yy[0]
    if prev == ll:
        return 0
    j = 1
    while True:
        cur = yy[j]
        yy[j] = prev
        if cur == ll:
            break
        prev = cur
        j += 1
    yy[0] = ll
    return j


@intrinsic
def _popcount(typingctx, x):
    """The number of set bits of a uint64 (llvm.ctpop)."""
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return types.uint64(types.uint64), codegen


@nb.njit(inline="always")
def _emit_one_by_one(hist, row, fill, run, value):
    """A run of ``run`` MTF zeros, then ``value``, into the group histograms symbol by symbol
    (for a group boundary inside): the run as RUNA (0) / RUNB (1), run + 1 in bijective base 2,
    least significant digit first."""
    if run > 0:
        z = run - 1
        while True:
            hist[row, z & 1] += 1
            fill += 1
            if fill == GROUP_SIZE:
                row += 1
                fill = 0
            if z < 2:
                break
            z = (z - 2) // 2
    hist[row, value] += 1
    fill += 1
    if fill == GROUP_SIZE:
        row += 1
        fill = 0
    return row, fill


@nb.njit(cache=True, nogil=True)
def _mtf_group_histograms(last, seq, n_in_use):
    """generateMTFValues, keeping only what the coder needs: each 50-symbol group's histogram of
    MTF values (RUNA = 0, RUNB = 1, value j + 1 for MTF position j >= 1, EOB = n_in_use + 1;
    uint8: a group holds 50) and the number of MTF values nMTF.

    A run of r zeros is r + 1 in binary without its top bit, 0 as RUNA and 1 as RUNB: so many
    symbols, so many RUNBs, counted at once (the RUNA/RUNB counts of the current group kept in
    registers) unless a group boundary falls inside; the loop has no data-dependent branch but
    that rare one."""
    eob = n_in_use + 1
    rows = (last.size + 1 + GROUP_SIZE - 1) // GROUP_SIZE
    hist = np.zeros((rows, n_in_use + 2), dtype=np.uint8)
    small = n_in_use <= 16
    y = np.uint64(0)
    if small:
        for s in range(n_in_use - 1, -1, -1):
            y = (y << np.uint64(4)) | np.uint64(s)
    yy = np.empty(256, dtype=np.uint8)
    for s in range(256):
        yy[s] = s
    row = 0
    fill = 0
    run = 0
    run_a = 0
    run_b = 0
    for i in range(last.size):
        ll = seq[last[i]]
        if small:
            j, y = _front_nibbles(y, np.uint64(ll))
        else:
            j = _front_list(yy, ll)
        emits = np.int64(j != 0)                  # a zero only lengthens the run
        code = np.uint64(run + 1)
        digits = np.int64(63 - leading_zeros(code))
        ones = np.int64(_popcount(code)) - 1
        size = emits * (digits + 1)
        if fill + size < GROUP_SIZE:
            run_a += emits * (digits - ones)
            run_b += emits * ones
            hist[row, j + 1] += emits
            fill += size
        else:
            hist[row, 0] += run_a
            hist[row, 1] += run_b
            run_a = 0
            run_b = 0
            row, fill = _emit_one_by_one(hist, row, fill, run, j + 1)
        run = (run + 1) * (1 - emits)
    hist[row, 0] += run_a
    hist[row, 1] += run_b
    row, fill = _emit_one_by_one(hist, row, fill, run, eob)
    n_mtf = row * GROUP_SIZE + fill
    return hist[:(n_mtf + GROUP_SIZE - 1) // GROUP_SIZE], n_mtf


@nb.njit(cache=True, nogil=True)
def _table_count(n_mtf):
    if n_mtf < 200:
        return 2
    if n_mtf < 600:
        return 3
    if n_mtf < 1200:
        return 4
    if n_mtf < 2400:
        return 5
    return 6


@nb.njit(cache=True, nogil=True)
def _initial_lengths(mtf_freq, n_mtf, n_groups, alpha_size, lengths):
    """sendMTFValues' starting tables: table nPart - 1 is cheap (0) on a run of consecutive MTF
    values holding about remaining / nPart of the symbols, dear (15) elsewhere; every other
    table's run gives back its last value (libbz2's odd-partition adjustment)."""
    n_part = n_groups
    rem_f = n_mtf
    gs = 0
    while n_part > 0:
        t_freq = rem_f // n_part
        ge = gs - 1
        a_freq = 0
        while a_freq < t_freq and ge < alpha_size - 1:
            ge += 1
            a_freq += mtf_freq[ge]
        if ge > gs and n_part != n_groups and n_part != 1 and (n_groups - n_part) % 2 == 1:
            a_freq -= mtf_freq[ge]
            ge -= 1
        for v in range(alpha_size):
            lengths[n_part - 1, v] = LESSER_ICOST if gs <= v <= ge else GREATER_ICOST
        n_part -= 1
        gs = ge + 1
        rem_f -= a_freq


@nb.njit(cache=True, nogil=True)
def _choose_tables(hist, n_groups, alpha_size, lengths, selectors, rfreq):
    """One refinement pass: each group takes the table that codes it in the fewest bits (the
    first such table on a tie), and each table's frequencies sum its groups' histograms."""
    for t in range(rfreq.shape[0]):
        for v in range(alpha_size):
            rfreq[t, v] = 0
    for g in range(hist.shape[0]):
        best = 0
        best_cost = 1 << 30
        for t in range(n_groups):
            cost = 0
            for v in range(alpha_size):
                cost += hist[g, v] * lengths[t, v]
            if cost < best_cost:
                best_cost = cost
                best = t
        selectors[g] = best
        for v in range(alpha_size):
            rfreq[best, v] += hist[g, v]


@nb.njit(cache=True, nogil=True)
def _selector_bits(selectors, n_groups):
    """The selectors are sent move-to-front coded in unary: position j costs j + 1 bits."""
    pos = np.empty(n_groups, dtype=np.int64)
    for t in range(n_groups):
        pos[t] = t
    bits = 0
    for s in selectors:
        j = 0
        prev = pos[0]
        while prev != s:
            j += 1
            cur = pos[j]
            pos[j] = prev
            prev = cur
        pos[0] = s
        bits += j + 1
    return bits


@nb.njit(cache=True, nogil=True)
def _table_bits(lengths, n_groups, alpha_size):
    """Each table: its first length in 5 bits, then per symbol 2 bits per unit step from the
    previous length and a 1-bit stop."""
    bits = 0
    for t in range(n_groups):
        cur = lengths[t, 0]
        bits += 5
        for v in range(alpha_size):
            bits += 2 * abs(lengths[t, v] - cur) + 1
            cur = lengths[t, v]
    return bits


@nb.njit(cache=True, nogil=True)
def block_coding(last):
    """How bzip2 codes one block, given the block's Burrows-Wheeler last column (the block's
    bytes enter only as the set of used values, which the column shares): (bits written from
    the block magic to the last Huffman code, nMTF, number of tables, Huffman rescale rounds)."""
    in_use = np.zeros(256, dtype=np.bool_)
    for b in last:
        in_use[b] = True
    seq = np.zeros(256, dtype=np.uint8)
    n_in_use = np.int64(0)         # not the literal 0: a callee typed with it compiles twice
    ranges_used = 0
    for r in range(16):
        used = False
        for b in range(16 * r, 16 * r + 16):
            if in_use[b]:
                seq[b] = n_in_use
                n_in_use += 1
                used = True
        ranges_used += used
    alpha_size = n_in_use + 2

    hist, n_mtf = _mtf_group_histograms(last, seq, n_in_use)
    mtf_freq = np.zeros(alpha_size, dtype=np.int64)
    for g in range(hist.shape[0]):
        for v in range(alpha_size):
            mtf_freq[v] += hist[g, v]

    n_groups = _table_count(n_mtf)
    lengths = np.empty((n_groups, alpha_size), dtype=np.int64)
    _initial_lengths(mtf_freq, n_mtf, n_groups, alpha_size, lengths)
    selectors = np.zeros(hist.shape[0], dtype=np.int64)
    rfreq = np.zeros((n_groups, alpha_size), dtype=np.int64)
    rescales = 0
    for _ in range(N_ITERS):
        _choose_tables(hist, n_groups, alpha_size, lengths, selectors, rfreq)
        for t in range(n_groups):
            rescales += code_lengths(rfreq[t], alpha_size, MAX_CODE_LEN, lengths[t])

    data_bits = 0
    for t in range(n_groups):
        for v in range(alpha_size):
            data_bits += rfreq[t, v] * lengths[t, v]
    bits = (BLOCK_HEADER_BITS + 16 + 16 * ranges_used + 3 + 15 + _selector_bits(selectors, n_groups)
            + _table_bits(lengths, n_groups, alpha_size) + data_bits)
    return bits, n_mtf, n_groups, rescales


@nb.njit(inline="always")
def block_bits(last):
    """Bits bzip2 writes for the block whose Burrows-Wheeler last column is ``last``."""
    return block_coding(last)[0]


@nb.njit(cache=True, nogil=True)
def stream_bytes(block_bit_total):
    """The stream's length in bytes: header, the blocks' bits, trailer, padded to a byte."""
    return (STREAM_HEADER_BITS + block_bit_total + STREAM_TRAILER_BITS + 7) // 8


@nb.njit(cache=True, nogil=True)
def compressed_size(data, level):
    """``len(bz2.compress(data, level))`` for a uint8 array, in numba: the blocks' last columns
    by ``_bwt.bwt_last_column``'s two routes (fast on decimal text, exact on any bytes), called
    here directly: one compiled level less to link and optimise (the cold compile)."""
    blocks, starts = rle1_blocks(data, block_limit(level))
    total = np.int64(0)
    for b in range(starts.size - 1):
        block = blocks[starts[b]:starts[b + 1]]      # never empty
        last = np.empty(block.size, dtype=np.uint8)
        if not _decimal_bwt(block, last):
            last = _byte_bwt(block)
        total += block_bits(last)
    return stream_bytes(total)


# ---------------------------------------------------------------- Python entry

def bzip2_size(text: bytes | np.ndarray, level: int = 9,
               bwt: Callable[[np.ndarray], tuple[np.ndarray, int]] | None = None) -> int:
    """``len(bz2.compress(text, level))`` computed without libbz2. ``bwt(block)`` gives a block's
    (last column, original rotation index) as ``_bwt.cyclic_bwt_reference`` does (the default)."""
    if isinstance(level, bool) or not isinstance(level, (int, np.integer)) or not 1 <= level <= 9:
        raise ValueError(f"bzip2 level must be an integer 1..9, got {level!r}")
    data = np.frombuffer(text, dtype=np.uint8).copy() if isinstance(text, (bytes, bytearray, memoryview)) \
        else np.array(text, copy=True)
    if data.dtype != np.uint8 or data.ndim != 1:
        raise ValueError(f"bzip2 text must be bytes or a 1-d uint8 array, got {data.dtype} of shape {data.shape}")
    if data.size == 0:
        raise ValueError("bzip2 text is empty: the 5.1.11 statistic needs at least one byte")
    transform = cyclic_bwt_reference if bwt is None else bwt
    blocks, starts = rle1_blocks(data, block_limit(int(level)))
    total = 0
    for b in range(starts.size - 1):
        block = blocks[starts[b]:starts[b + 1]]
        last = np.ascontiguousarray(transform(block)[0], dtype=np.uint8)
        if last.shape != block.shape:
            raise ValueError(f"BWT of block {b} has {last.size} bytes, the block has {block.size}")
        if not np.array_equal(np.bincount(last, minlength=256), np.bincount(block, minlength=256)):
            raise ValueError(f"BWT of block {b} is not a permutation of the block's bytes")
        total += block_bits(last)
    return int(stream_bytes(total))
