"""Unbiased integers in [0, n) from uniform words: rejection, never a bare modulo.

A W-bit word w is accepted when w < L, with L = 2^W - (2^W mod n) the largest multiple of n
not above 2^W; the result is w mod n. Each residue then comes from exactly L / n accepted
words, so the output is exactly uniform. Rejected words are discarded and replaced by the
next ones from the source. The test suite proves the mapping exhaustively on 16-bit words.
"""

from __future__ import annotations

import math

import numpy as np

from rng.base import _check_count


def acceptance_limit(n: int, word_bits: int = 32) -> int:
    """L = 2^W - (2^W mod n): words below L are accepted."""
    if not 1 <= n <= 2**word_bits:
        raise ValueError(f"the range size n must be in 1..2^{word_bits}, got {n}")
    return 2**word_bits - (2**word_bits % n)


def accept_words(words: np.ndarray, n: int, word_bits: int = 32) -> np.ndarray:
    """Map W-bit words to [0, n): the accepted words' residues, in order (rejected ones dropped)."""
    limit = acceptance_limit(n, word_bits)
    words = np.asarray(words, dtype=np.uint64)
    return (words[words < limit] % n).astype(np.int64)


def integers(source, n: int, size) -> np.ndarray:
    """``size`` unbiased integers in [0, n) (int64) drawn from ``source.random_uint32``.

    Words are drawn in batches sized from the acceptance rate; the words used depend only on
    the source's output, so the same source state always gives the same integers.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"n must be an integer, got {n!r}")
    n = int(n)
    shape = (size,) if isinstance(size, (int, np.integer)) else tuple(size)
    total = math.prod(_check_count(s) for s in shape)
    accept_rate = acceptance_limit(n) / 2**32
    out = np.empty(total, dtype=np.int64)
    filled = 0
    while filled < total:
        need = total - filled
        words = source.random_uint32(math.ceil(need / accept_rate) + 8)
        values = accept_words(words, n)
        take = min(len(values), need)
        out[filled:filled + take] = values[:take]
        filled += take
    return out.reshape(shape)
