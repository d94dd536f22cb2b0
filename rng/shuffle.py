"""Fisher-Yates (Durstenfeld) shuffles and partial deals, batched over many decks in numba.

Forward Durstenfeld: for i = 0 .. k-1, pick j uniform in [i, n-1] and swap positions i and j;
the first k positions are then the first k cards of a uniformly shuffled deck, at a cost of k
draws (a full shuffle needs n-1 draws, the last range being 1).

The draws j - i are uniform in [0, n-i). Several of them come from one 32-bit word by batched
ranged generation (Brackett-Rozinsky and Lemire, 2024): for ranges r1..rm with product
P <= 2^32, multiply x by r1: the high 32 bits are the first draw, the low 32 bits are
multiplied by r2 for the second, and so on. floor(x*P / 2^32) is then the mixed-radix number
(d1, ..., dm), and the final low word is x*P mod 2^32; rejecting the word when that low word
is below 2^32 mod P (Lemire's test) makes (d1, ..., dm) exactly uniform. The test suite checks
this exhaustively with 16-bit words. A 52-card shuffle needs about 10 words, not 51.

Word consumption is deterministic: words are used strictly in order; the words left over when a
buffer runs out mid-deck are carried into the next buffer; buffer sizes depend only on the
request. The same source state therefore always gives the same decks.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from rng.base import _check_count

BUFFER_WORDS = 1 << 18


def fisher_yates(deck, draws) -> list:
    """Reference: Durstenfeld forward shuffle of ``deck`` driven by ``draws`` (draw i in
    [0, len(deck) - i)). Returns a new list; partial when fewer draws are given."""
    cards = list(deck)
    for i, d in enumerate(draws):
        if not 0 <= d < len(cards) - i:
            raise ValueError(f"draw {i} is {d}, outside [0, {len(cards) - i})")
        j = i + d
        cards[i], cards[j] = cards[j], cards[i]
    return cards


@dataclass(frozen=True)
class DrawPlan:
    """How the draws of one deck are grouped into words."""

    ranges: np.ndarray  # range of each draw, in order (uint64)
    group_ends: np.ndarray  # draw index one past the end of each group (int64)
    products: np.ndarray  # product P of each group's ranges (uint64, <= 2^W)
    thresholds: np.ndarray  # per group: reject the word when its final low part < 2^W mod P
    word_bits: int
    expected_words: float  # mean words per deck, counting rejections


@functools.lru_cache(maxsize=64)
def draw_plan(deck_size: int, k: int, word_bits: int = 32) -> DrawPlan:
    """Greedy grouping of the ranges n, n-1, ..., n-k+1 (ranges of 1 need no draw)."""
    if not 1 <= deck_size <= min(2**word_bits, 2**31 - 1):
        raise ValueError(f"deck_size must be in 1..{min(2**word_bits, 2**31 - 1)}, got {deck_size}")
    if not 0 <= k <= deck_size:
        raise ValueError(f"k must be in 0..deck_size ({deck_size}), got {k}")
    ranges = [deck_size - i for i in range(k) if deck_size - i > 1]
    ends, products, thresholds, expected = [], [], [], 0.0
    product = 1
    for index, r in enumerate(ranges):
        if product * r > 2**word_bits:
            ends.append(index)
            product = 1
        product *= r
        if index == len(ranges) - 1 or product * ranges[index + 1] > 2**word_bits:
            threshold = 2**word_bits % product
            products.append(product)
            thresholds.append(threshold)
            expected += 1 / (1 - threshold / 2**word_bits)
    if ranges:
        ends.append(len(ranges))
    return DrawPlan(np.array(ranges, dtype=np.uint64), np.array(ends, dtype=np.int64),
                    np.array(products, dtype=np.uint64), np.array(thresholds, dtype=np.uint64), word_bits, expected)


@njit(cache=True)
def _deal_kernel(words, out, first_deck, deck_size, ranges, group_ends, products, thresholds, shift, mask):
    """Deal decks out[first_deck:] from words; return (decks done, words used).

    Stops at the start of a deck whose draws would run past the end of ``words``, so that the
    caller can carry the unused words over to the next buffer.
    """
    n_decks, k = out.shape
    deck = np.empty(deck_size, dtype=np.int32)
    pos = 0
    n_words = len(words)
    n_groups = len(group_ends)
    for d in range(first_deck, n_decks):
        # Invariant: at group g, at least n_groups - g words remain (one per group, no rejection).
        if pos + n_groups > n_words:
            return d, pos
        deck_start = pos
        for i in range(deck_size):  # every deck starts from the ordered deck
            deck[i] = i
        first = 0
        for g in range(n_groups):
            # Lemire's test needs only x * P mod 2^W, the low word left after the whole chain.
            x = np.uint64(words[pos])
            pos += 1
            while ((x * products[g]) & mask) < thresholds[g]:  # rejected: rare
                if pos + n_groups - g > n_words:
                    return d, deck_start
                x = np.uint64(words[pos])
                pos += 1
            last = group_ends[g]
            for i in range(first, last):
                m = x * ranges[i]
                j = i + np.intp(m >> shift)
                x = m & mask
                card = deck[i]
                deck[i] = deck[j]
                deck[j] = card
            first = last
        for i in range(k):
            out[d, i] = deck[i]
    return n_decks, pos


def deal_words(words: np.ndarray, n_decks: int, k: int, deck_size: int, word_bits: int = 32,
               out_dtype=np.uint8) -> tuple[np.ndarray, int]:
    """Deal from a given array of words (all < 2^word_bits); return (decks dealt, words used).

    The decks array has fewer than ``n_decks`` rows when the words run out.
    """
    plan = draw_plan(deck_size, k, word_bits)
    out = np.empty((n_decks, k), dtype=out_dtype)
    done, used = _run_kernel(np.ascontiguousarray(words, dtype=np.uint32), out, 0, deck_size, plan)
    return out[:done], used


def _run_kernel(words, out, first_deck, deck_size, plan):
    return _deal_kernel(words, out, first_deck, deck_size, plan.ranges, plan.group_ends, plan.products,
                        plan.thresholds,
                        np.uint64(plan.word_bits), np.uint64(2**plan.word_bits - 1))


def deal_batch(source, n_decks: int, k: int = 52, deck_size: int = 52) -> np.ndarray:
    """The first ``k`` cards of ``n_decks`` uniformly shuffled decks of ``deck_size`` cards,
    as an (n_decks, k) uint8 array of card indices, drawing words from ``source.random_uint32``."""
    _check_count(n_decks)
    if deck_size > 256:
        raise ValueError(f"deal_batch deals decks of at most 256 cards (uint8), got {deck_size}")
    return _deal(source, n_decks, k, deck_size, np.uint8)


def _deal(source, n_decks, k, deck_size, out_dtype):
    plan = draw_plan(deck_size, k)
    out = np.empty((n_decks, k), dtype=out_dtype)
    if len(plan.ranges) == 0:
        out[:] = np.arange(k, dtype=out_dtype)
        return out
    done = 0
    carry = np.empty(0, dtype=np.uint32)
    while done < n_decks:
        want = math.ceil((n_decks - done) * plan.expected_words * 1.002) + 2 * len(plan.group_ends)
        fresh = max(min(want, BUFFER_WORDS), len(carry) + len(plan.group_ends)) - len(carry)
        words = np.concatenate([carry, source.random_uint32(fresh).astype(np.uint32, copy=False)])
        done, used = _run_kernel(words, out, done, deck_size, plan)
        carry = words[used:]
    return out


def shuffle(source, deck) -> None:
    """Shuffle the mutable sequence ``deck`` in place (Fisher-Yates), like ``random.shuffle``.

    Uses the same draws as ``deal_batch``, so one deck from ``deal_batch`` and ``shuffle`` of
    ``range(n)`` agree for the same source state.
    """
    n = len(deck)
    order = _deal(source, 1, n, max(n, 1), _order_dtype(n))[0] if n else []
    deck[:] = [deck[int(i)] for i in order]


def permutation(source, n: int) -> np.ndarray:
    """A uniformly random permutation of range(n) (int64)."""
    return _deal(source, 1, n, n, _order_dtype(n))[0].astype(np.int64) if n else np.empty(0, dtype=np.int64)


def _order_dtype(n: int):
    """uint8 up to 256 items, as ``deal_batch`` deals: ``_deal_kernel`` then has one compiled
    signature for every deck of cards (the int64 one only for longer permutations)."""
    return np.uint8 if n <= 256 else np.int64
