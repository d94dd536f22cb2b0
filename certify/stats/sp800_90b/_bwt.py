"""The Burrows-Wheeler transform as bzip2 computes it: the block's cyclic rotations sorted, the
last column read off. The compression statistic of SP 800-90B 5.1.11 is the length of bzip2's
output, which depends on the block only through this transform (the order of identical rotations
does not change the last column, and the original rotation's index is a fixed 24-bit field).

``cyclic_bwt_reference`` is the plain, obviously correct form (prefix doubling on numpy sorts):
the yardstick the fast transform is tested against, too slow for the permutation tests."""

from __future__ import annotations

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
