"""Poker hand evaluation: a total order of 5-card hands and of the best five of 7 cards.

A hand value is a non-negative int, larger is better. ``value >> 20`` is the category
(:class:`Category`); the low 20 bits hold the ranks that break ties inside the category, most
significant first, four bits each (a straight or straight flush is known by its top card, the
wheel A-2-3-4-5 by its five). Equal values are exactly equal hands, so the 2,598,960 five-card
hands take exactly 7,462 distinct values.

How a 7-card hand is evaluated without looking at its 21 five-card subsets:

* every card has a 64-bit key: ``5**rank << 16`` plus ``1 << 4*suit``. The sum of the keys of a
  hand holds the base-5 number of its rank counts (each count is at most 4) above 16 bits of
  per-suit counts (4 bits each, at most 7).
* a suit count of 5 or more means a flush (only one suit can have it): the 13-bit mask of that
  suit's ranks indexes ``FLUSH_VALUES`` (8,192 entries).
* otherwise the value depends only on the rank counts. The base-5 numbers of the 49,205 possible
  7-card rank multisets (6,175 for 5 cards) are mapped to table slots by a perfect hash built at
  import time: a multiplicative hash picks a bucket and a base slot, and a per-bucket XOR
  displacement, found greedily, makes the slots collision-free (hash-and-displace).

The per-card work is one table load and one add; the per-hand work is a multiply, two shifts and
two loads from tables that fit in L2 cache. The tables are module-level numpy arrays, so
``eval5_nb`` and ``eval7_nb`` can be called from any other ``@njit`` kernel with no arguments
beyond the cards. They do not check their input: cards must be distinct ints in 0..51.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from enum import IntEnum

import numpy as np
from numba import njit

from certify.cards import CardError


class Category(IntEnum):
    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    TRIPS = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    QUADS = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9


CATEGORY_NAMES = (
    "high card",
    "pair",
    "two pair",
    "trips",
    "straight",
    "flush",
    "full house",
    "quads",
    "straight flush",
    "royal flush",
)

CATEGORY_SHIFT = 20
N_RANKS = 13

# ---------------------------------------------------------------------------------------------
# The value of a set of ranks: the readable rules, used once to fill the tables. Plain numpy over
# every rank set at once (no compiled kernel: compiling the table builders cost every cold process
# about 6 s of CPU; numpy builds all the tables in about 0.2 s).
# ---------------------------------------------------------------------------------------------


@njit(cache=True)
def _pack(category, r0, r1, r2, r3, r4):
    """Category above up to five tie-break ranks (pass 0 for unused places)."""
    return (category << 20) | (r0 << 16) | (r1 << 12) | (r2 << 8) | (r3 << 4) | r4


_RANKS = np.arange(N_RANKS, dtype=np.int64)
_MASKS = np.arange(1 << N_RANKS, dtype=np.int64)  # every 13-bit set of ranks
# The highest rank in a set of ranks (-1: none); exact, as the masks are below 2**53.
_HIGHEST = np.where(_MASKS > 0, np.floor(np.log2(np.maximum(_MASKS, 1))).astype(np.int64), -1)


def _straight_tops(masks: np.ndarray) -> np.ndarray:
    """Top rank of the highest straight in each 13-bit rank mask, 3 for the wheel, -1 for none."""
    top = np.full(masks.shape, -1, np.int64)
    top[masks & 0x100F == 0x100F] = 3  # A, 2, 3, 4, 5: the ace plays low
    for t in range(4, N_RANKS):
        top[(masks >> (t - 4)) & 0x1F == 0x1F] = t
    return top


_STRAIGHT_TOP = _straight_tops(_MASKS)


def _bit(rank: np.ndarray) -> np.ndarray:
    """The mask of each rank (0 for -1, none)."""
    return np.where(rank >= 0, np.int64(1) << np.maximum(rank, 0), 0)


def _packed(category: int, *ranks: np.ndarray) -> np.ndarray:
    """``_pack`` over arrays: the category above up to five tie-break ranks."""
    out = np.int64(category) << CATEGORY_SHIFT
    for place, rank in enumerate(ranks):
        out = out | (np.asarray(rank, np.int64) << (16 - 4 * place))
    return out


def _top_five(masks: np.ndarray) -> list[np.ndarray]:
    """The five highest ranks of each mask, high first (0 where a mask holds fewer)."""
    ranks = []
    for _ in range(5):
        rank = _HIGHEST[masks]
        ranks.append(np.maximum(rank, 0))
        masks = masks & ~_bit(rank)
    return ranks


def _counts_values(counts: np.ndarray) -> np.ndarray:
    """Best 5-card hand, ignoring flushes, from rows of rank counts of 5 to 7 cards.

    Kickers are the highest ranks not already used; a sixth or seventh card never counts.
    """
    counts = np.asarray(counts, np.int64).reshape(-1, N_RANKS)
    bits = np.int64(1) << _RANKS
    any_, two, three, four = ((counts >= k).astype(np.int64) @ bits for k in (1, 2, 3, 4))
    quad, trips, pair = _HIGHEST[four], _HIGHEST[three], _HIGHEST[two]
    full_pair = _HIGHEST[two & ~_bit(trips)]  # may be a second set of trips
    second_pair = _HIGHEST[two & ~_bit(pair)]
    k1_trips = _HIGHEST[any_ & ~_bit(trips)]
    k1 = _HIGHEST[any_ & ~_bit(pair)]
    k2 = _HIGHEST[any_ & ~_bit(pair) & ~_bit(k1)]
    top = _STRAIGHT_TOP[any_]
    cases = (  # the first that holds decides
        (quad >= 0, _packed(7, quad, _HIGHEST[any_ & ~_bit(quad)])),
        ((trips >= 0) & (full_pair >= 0), _packed(6, trips, full_pair)),
        (top >= 0, _packed(4, top)),
        (trips >= 0, _packed(3, trips, k1_trips, _HIGHEST[any_ & ~_bit(trips) & ~_bit(k1_trips)])),
        ((pair >= 0) & (second_pair >= 0),
         _packed(2, pair, second_pair, _HIGHEST[any_ & ~_bit(pair) & ~_bit(second_pair)])),
        (pair >= 0, _packed(1, pair, k1, k2, _HIGHEST[any_ & ~_bit(pair) & ~_bit(k1) & ~_bit(k2)])),
    )
    return np.select([held for held, _ in cases], [value for _, value in cases], _packed(0, *_top_five(any_)))


def _flush_values(masks: np.ndarray) -> np.ndarray:
    """Best 5-card hand from masks of 5..7 ranks of one suit: straight flush or flush."""
    masks = np.asarray(masks, np.int64)
    top = _STRAIGHT_TOP[masks]
    return np.select([top == 12, top >= 0], [_packed(9, 12), _packed(8, top)], _packed(5, *_top_five(masks)))


def _counts_value(counts) -> int:
    """``_counts_values`` of one row of 13 rank counts."""
    return int(_counts_values(counts)[0])


def _flush_value(mask: int) -> int:
    """``_flush_values`` of one rank mask."""
    return int(_flush_values(np.array([mask], np.int64))[0])


# ---------------------------------------------------------------------------------------------
# Table construction.
# ---------------------------------------------------------------------------------------------


def _rank_multisets(n_cards: int) -> tuple[np.ndarray, np.ndarray]:
    """Base-5 keys (int64) and values (int32) of every multiset of n_cards ranks with no rank more
    than 4 times, in the order of their non-decreasing rank sequences (lexicographic)."""
    sequences = np.array(list(itertools.combinations_with_replacement(range(N_RANKS), n_cards)), np.int64)
    cells = (np.arange(len(sequences), dtype=np.int64)[:, None] * N_RANKS + sequences).ravel()
    counts = np.bincount(cells, minlength=len(sequences) * N_RANKS).reshape(len(sequences), N_RANKS)
    counts = counts[counts.max(axis=1) <= 4]
    return counts @ (np.int64(5) ** _RANKS), _counts_values(counts).astype(np.int32)


def _place_buckets(keys: np.ndarray, multiplier: int, bucket_bits: int, slot_bits: int):
    """Hash-and-displace: one XOR displacement per bucket making every key's slot unique.

    Buckets are placed biggest first (ties: lower bucket first), each at its smallest
    displacement. Returns (displacements, slot of each key), or an empty displacement array when
    some bucket cannot be placed (the caller then tries another multiplier).
    """
    n_buckets, n_slots = 1 << bucket_bits, 1 << slot_bits
    h = np.asarray(keys, np.int64) * np.int64(multiplier)  # wraps modulo 2**64, as the evaluators' does
    bucket = (h >> (64 - bucket_bits)) & (n_buckets - 1)
    base = ((h >> (64 - bucket_bits - slot_bits)) & (n_slots - 1)).tolist()
    sizes = np.bincount(bucket, minlength=n_buckets)
    start = np.concatenate([[0], np.cumsum(sizes)]).tolist()
    order = np.argsort(bucket, kind="stable").tolist()
    taken = bytearray(n_slots)
    displacement = np.zeros(n_buckets, np.uint16)
    slot_of = np.empty(len(keys), np.int64)
    for b in np.argsort(-sizes, kind="stable").tolist():
        members = order[start[b]:start[b + 1]]
        if not members:
            break
        bases = [base[m] for m in members]
        d = _first_free(taken, bases) if len(set(bases)) == len(bases) else n_slots  # equal bases never part
        if d == n_slots:
            return np.zeros(0, np.uint16), slot_of
        for m, s in zip(members, bases):
            taken[s ^ d] = 1
            slot_of[m] = s ^ d
        displacement[b] = d
    return displacement, slot_of


def _first_free(taken: bytearray, bases: list[int]) -> int:
    """The smallest d with every ``base ^ d`` slot free (``len(taken)``: none)."""
    n_slots, d = len(taken), 0
    if len(bases) == 1:  # most buckets: a plain scan
        (s0,) = bases
        while d < n_slots and taken[s0 ^ d]:
            d += 1
        return d
    while d < n_slots:
        for s in bases:
            if taken[s ^ d]:
                break
        else:
            return d
        d += 1
    return d


# Odd 63-bit multipliers tried in turn (fractional parts of sqrt(2), sqrt(3), ... as hex digits).
_MULTIPLIERS = (0x6A09E667F3BCC909, 0x3C6EF372FE94F82B, 0x510E527FADE682D1, 0x1F83D9ABFB41BD6B)


def _perfect_hash(n_cards: int, bucket_bits: int, slot_bits: int):
    keys, values = _rank_multisets(n_cards)
    for multiplier in _MULTIPLIERS:
        displacement, slot_of = _place_buckets(keys, multiplier, bucket_bits, slot_bits)
        if len(displacement):
            table = np.zeros(1 << slot_bits, np.int32)
            table[slot_of] = values
            return multiplier, displacement, table
    raise RuntimeError(f"no perfect hash found for the {n_cards}-card rank multisets")


def _flush_table() -> np.ndarray:
    table = np.zeros(1 << N_RANKS, np.int32)
    flushes = _MASKS[((_MASKS[:, None] >> _RANKS) & 1).sum(axis=1) >= 5]  # 5 or more ranks
    table[flushes] = _flush_values(flushes)
    return table


def _card_keys() -> np.ndarray:
    return np.array([(5 ** (c >> 2) << 16) | (1 << 4 * (c & 3)) for c in range(52)], np.int64)


CARD_KEYS = _card_keys()
FLUSH_VALUES = _flush_table()
RANK_BITS = np.array([1 << (c >> 2) for c in range(52)], np.int64)

# 5 cards: 6,175 rank multisets in 8,192 slots; 7 cards: 49,205 in 65,536 slots.
_H5_BUCKET_BITS, _H5_SLOT_BITS = 11, 13
_H7_BUCKET_BITS, _H7_SLOT_BITS = 14, 16
H5_MULTIPLIER, H5_DISPLACEMENT, H5_VALUES = _perfect_hash(5, _H5_BUCKET_BITS, _H5_SLOT_BITS)
H7_MULTIPLIER, H7_DISPLACEMENT, H7_VALUES = _perfect_hash(7, _H7_BUCKET_BITS, _H7_SLOT_BITS)

# Numba freezes module-level ints and arrays into the compiled code as constants.
_H5_BUCKET_SHIFT, _H5_SLOT_SHIFT = 64 - _H5_BUCKET_BITS, 64 - _H5_BUCKET_BITS - _H5_SLOT_BITS
_H7_BUCKET_SHIFT, _H7_SLOT_SHIFT = 64 - _H7_BUCKET_BITS, 64 - _H7_BUCKET_BITS - _H7_SLOT_BITS
_H5_BUCKET_MASK, _H5_SLOT_MASK = (1 << _H5_BUCKET_BITS) - 1, (1 << _H5_SLOT_BITS) - 1
_H7_BUCKET_MASK, _H7_SLOT_MASK = (1 << _H7_BUCKET_BITS) - 1, (1 << _H7_SLOT_BITS) - 1
_SUIT_OVERFLOW = 0x8888  # bit 3 of each suit nibble, set after adding 3 when the count is >= 5

# ---------------------------------------------------------------------------------------------
# The evaluators (callable from other @njit kernels).
# ---------------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _flush_suit(key):
    """The suit with 5 or more cards, or -1."""
    over = ((key & 0xFFFF) + 0x3333) & _SUIT_OVERFLOW
    if over == 0:
        return -1
    if over & 0x8:
        return 0
    if over & 0x80:
        return 1
    if over & 0x800:
        return 2
    return 3


@njit(cache=True, inline="always")
def _suit_mask(suit, c):
    return RANK_BITS[c] if (c & 3) == suit else 0


@njit(cache=True)
def eval5_nb(c0, c1, c2, c3, c4):
    """Value of a 5-card hand (distinct cards 0..51, unchecked)."""
    key = CARD_KEYS[c0] + CARD_KEYS[c1] + CARD_KEYS[c2] + CARD_KEYS[c3] + CARD_KEYS[c4]
    suit = _flush_suit(key)
    if suit >= 0:
        return FLUSH_VALUES[RANK_BITS[c0] | RANK_BITS[c1] | RANK_BITS[c2] | RANK_BITS[c3] | RANK_BITS[c4]]
    h = (key >> 16) * H5_MULTIPLIER
    slot = ((h >> _H5_SLOT_SHIFT) & _H5_SLOT_MASK) ^ H5_DISPLACEMENT[(h >> _H5_BUCKET_SHIFT) & _H5_BUCKET_MASK]
    return H5_VALUES[slot]


@njit(cache=True)
def best6_nb(c0, c1, c2, c3, c4, c5):
    """Value of the best five of six cards (hold'em on the turn): the max over the six fives."""
    best = eval5_nb(c1, c2, c3, c4, c5)
    best = max(best, eval5_nb(c0, c2, c3, c4, c5))
    best = max(best, eval5_nb(c0, c1, c3, c4, c5))
    best = max(best, eval5_nb(c0, c1, c2, c4, c5))
    best = max(best, eval5_nb(c0, c1, c2, c3, c5))
    return max(best, eval5_nb(c0, c1, c2, c3, c4))


@njit(cache=True, inline="always")
def _value7(key, c0, c1, c2, c3, c4, c5, c6):
    """Value of 7 cards given the sum of their CARD_KEYS."""
    suit = _flush_suit(key)
    if suit >= 0:
        mask = (
            _suit_mask(suit, c0) | _suit_mask(suit, c1) | _suit_mask(suit, c2) | _suit_mask(suit, c3)
            | _suit_mask(suit, c4) | _suit_mask(suit, c5) | _suit_mask(suit, c6)
        )
        return FLUSH_VALUES[mask]
    h = (key >> 16) * H7_MULTIPLIER
    slot = ((h >> _H7_SLOT_SHIFT) & _H7_SLOT_MASK) ^ H7_DISPLACEMENT[(h >> _H7_BUCKET_SHIFT) & _H7_BUCKET_MASK]
    return H7_VALUES[slot]


@njit(cache=True)
def eval7_nb(c0, c1, c2, c3, c4, c5, c6):
    """Value of the best five of 7 cards (distinct cards 0..51, unchecked)."""
    key = (
        CARD_KEYS[c0] + CARD_KEYS[c1] + CARD_KEYS[c2] + CARD_KEYS[c3]
        + CARD_KEYS[c4] + CARD_KEYS[c5] + CARD_KEYS[c6]
    )
    return _value7(key, c0, c1, c2, c3, c4, c5, c6)


@njit(cache=True, nogil=True)
def _batch5(cards, out):
    for i in range(cards.shape[0]):
        out[i] = eval5_nb(cards[i, 0], cards[i, 1], cards[i, 2], cards[i, 3], cards[i, 4])


@njit(cache=True, nogil=True)
def _batch7(cards, out):
    for i in range(cards.shape[0]):
        out[i] = eval7_nb(cards[i, 0], cards[i, 1], cards[i, 2], cards[i, 3], cards[i, 4], cards[i, 5], cards[i, 6])


def _usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _batch_on_threads(kernel, cards: np.ndarray, out: np.ndarray) -> None:
    """``kernel(cards, out)`` in one chunk per usable CPU on the process's thread pool
    (``certify.pool``): the kernels release the GIL, and a parfor twin compiled for seconds."""
    from certify.pool import map_in_order

    workers = min(_usable_cpus(), max(1, cards.shape[0] // 4096))
    bounds = np.linspace(0, cards.shape[0], workers + 1).astype(np.int64)
    map_in_order(kernel, [(cards[a:b], out[a:b]) for a, b in zip(bounds[:-1], bounds[1:])], workers)


# ---------------------------------------------------------------------------------------------
# Three-card poker: its own category order (a straight beats a flush, trips beat a straight).
# ---------------------------------------------------------------------------------------------

# The categories of a three-card hand, weakest first: a three-card value's ``value >> 20`` is the
# index in this tuple (not a ``Category``); names are ``certify.spec.HAND_KEYS`` keys.
THREE_CARD_ORDER = ("high_card", "pair", "flush", "straight", "trips", "straight_flush")


@njit(cache=True)
def eval3_nb(c0, c1, c2):
    """Value of a 3-card hand in three-card poker order (distinct cards 0..51, unchecked).

    Ranks break ties high first (a pair: its rank, then the kicker); a straight is known by its
    top card, A-2-3 by its 3 (the lowest straight), A-K-Q the highest."""
    c0, c1, c2 = np.int64(c0), np.int64(c1), np.int64(c2)  # decks arrive as uint8
    a, b, c = c0 >> 2, c1 >> 2, c2 >> 2
    if a < b:
        a, b = b, a
    if b < c:
        b, c = c, b
    if a < b:
        a, b = b, a
    flush = (c0 & 3) == (c1 & 3) and (c1 & 3) == (c2 & 3)
    top = -1
    if a == b + 1 and b == c + 1:
        top = a
    elif a == 12 and b == 1 and c == 0:  # A-2-3: the ace plays low
        top = 1
    if top >= 0:
        return _pack(5 if flush else 3, top, 0, 0, 0, 0)
    if a == c:
        return _pack(4, a, 0, 0, 0, 0)
    if a == b:
        return _pack(1, a, c, 0, 0, 0)
    if b == c:
        return _pack(1, b, a, 0, 0, 0)
    return _pack(2 if flush else 0, a, b, c, 0, 0)


@njit(cache=True)
def _batch3(cards, out):
    for i in range(cards.shape[0]):
        out[i] = eval3_nb(cards[i, 0], cards[i, 1], cards[i, 2])


def rank_batch3(cards: np.ndarray) -> np.ndarray:
    """Three-card values (``THREE_CARD_ORDER``) of an (N, 3) integer array of distinct cards."""
    arr = np.ascontiguousarray(np.asarray(cards))
    if arr.ndim != 2 or arr.shape[1] != 3 or not np.issubdtype(arr.dtype, np.integer):
        raise CardError(f"expected an (N, 3) integer array of cards, got shape {arr.shape}")
    if arr.size and (int(arr.min()) < 0 or int(arr.max()) >= 52):
        raise CardError(f"card codes must be in 0..51, got {int(arr.min())}..{int(arr.max())}")
    out = np.empty(arr.shape[0], np.int32)
    _batch3(arr, out)
    return out


# ---------------------------------------------------------------------------------------------
# The Python API.
# ---------------------------------------------------------------------------------------------


def _checked_cards(cards: Sequence[int]) -> list[int]:
    out = [int(c) for c in cards]
    if len(out) not in (5, 7):
        raise CardError(f"expected 5 or 7 cards, got {len(out)}: {out}")
    for c in out:
        if not 0 <= c < 52:
            raise CardError(f"card code {c} is outside 0..51")
    if len(set(out)) != len(out):
        dup = next(c for c in out if out.count(c) > 1)
        raise CardError(f"duplicate card code {dup} in {out}")
    return out


def rank_hand(cards: Sequence[int]) -> int:
    """Value of a 5-card hand or of the best five of 7 cards; larger is better."""
    c = _checked_cards(cards)
    return int(eval5_nb(*c) if len(c) == 5 else eval7_nb(*c))


def category_of(value: int) -> Category:
    return Category(int(value) >> CATEGORY_SHIFT)


def rank_batch(cards: np.ndarray, parallel: bool = False) -> np.ndarray:
    """Values of N hands given as an (N, 5) or (N, 7) integer array of distinct cards 0..51.

    Card ranges are checked (one vectorised pass); distinctness within a row is the caller's
    promise (a row with a repeated card gets a meaningless value, never a crash).
    """
    arr = np.asarray(cards)
    if arr.ndim != 2 or arr.shape[1] not in (5, 7):
        raise CardError(f"expected an (N, 5) or (N, 7) array of cards, got shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise CardError(f"expected an integer array of cards, got dtype {arr.dtype}")
    if arr.size and (int(arr.min()) < 0 or int(arr.max()) >= 52):
        raise CardError(f"card codes must be in 0..51, got {int(arr.min())}..{int(arr.max())}")
    # one compiled signature per kernel whatever the caller's dtype, layout or write flag (each would
    # compile its own): a fresh C-ordered uint8 copy, lossless for the codes 0..51 checked above
    arr = np.array(arr, dtype=np.uint8, order="C")
    out = np.empty(arr.shape[0], np.int32)
    kernel = _batch5 if arr.shape[1] == 5 else _batch7
    if parallel:
        _batch_on_threads(kernel, arr, out)
    else:
        kernel(arr, out)
    return out


def _display_order(five: Sequence[int]) -> list[int]:
    """Order five cards as a player reads the hand: bigger groups first, high to low, wheel 5-high."""
    ranks = [c >> 2 for c in five]
    if sorted(ranks) == [0, 1, 2, 3, 12]:
        return sorted(five, key=lambda c: ((c >> 2) + 1) % 13, reverse=True)
    return sorted(five, key=lambda c: (ranks.count(c >> 2), c >> 2, c & 3), reverse=True)


def best_five(cards7: Sequence[int]) -> list[int]:
    """The five of 7 cards that make the hand's value (the first such five, in display order)."""
    c = _checked_cards(cards7)
    if len(c) == 5:
        return _display_order(c)
    target = eval7_nb(*c)
    for five in itertools.combinations(c, 5):
        if eval5_nb(*five) == target:
            return _display_order(five)
    raise AssertionError("no five of the seven cards reach the 7-card value")  # cannot happen


def hand_class(value: int) -> int:
    """Position of a value among the 7,462 distinct hands: 1 is a royal flush, 7462 is 7-5-4-3-2."""
    i = int(np.searchsorted(CLASS_VALUES, int(value)))
    if i == len(CLASS_VALUES) or CLASS_VALUES[i] != value:
        raise ValueError(f"{value} is not a poker hand value")
    return len(CLASS_VALUES) - i


# Every distinct 5-card value, ascending: the flush table covers flushes and straight flushes,
# the 5-card rank-multiset table everything else.
CLASS_VALUES = np.unique(np.concatenate([FLUSH_VALUES[FLUSH_VALUES > 0], H5_VALUES[H5_VALUES > 0]]))


# ---------------------------------------------------------------------------------------------
# Exhaustive enumeration (tests, bench, and exact analyses).
# ---------------------------------------------------------------------------------------------


@njit(cache=True)
def all_boards(n: int) -> np.ndarray:
    """Every 5-subset of range(n) in colex order, so row i is the subset of colex rank i
    (C(i0,1) + C(i1,2) + C(i2,3) + C(i3,4) + C(i4,5) for i0 < ... < i4)."""
    count = 0
    for i4 in range(4, n):
        count += (i4 * (i4 - 1) * (i4 - 2) * (i4 - 3)) // 24
    boards = np.empty((count, 5), dtype=np.int8)
    row = 0
    for i4 in range(4, n):
        for i3 in range(3, i4):
            for i2 in range(2, i3):
                for i1 in range(1, i2):
                    for i0 in range(i1):
                        boards[row, 0] = i0
                        boards[row, 1] = i1
                        boards[row, 2] = i2
                        boards[row, 3] = i3
                        boards[row, 4] = i4
                        row += 1
    return boards


def all_five_card_hands() -> np.ndarray:
    """All C(52, 5) = 2,598,960 five-card hands as a (2598960, 5) uint8 array, in colex order."""
    return all_boards(52).astype(np.uint8)


@njit(cache=True, nogil=True)
def _seven_card_category_counts(first_cards):
    """Category counts of every 7-card hand whose lowest card is in first_cards.

    The key sums are carried down the loops, so the innermost step is one add and one lookup.
    """
    counts = np.zeros(10, np.int64)
    k = CARD_KEYS
    for a in first_cards:
        for b in range(a + 1, 47):
            kb = k[a] + k[b]
            for c in range(b + 1, 48):
                kc = kb + k[c]
                for d in range(c + 1, 49):
                    kd = kc + k[d]
                    for e in range(d + 1, 50):
                        ke = kd + k[e]
                        for f in range(e + 1, 51):
                            kf = ke + k[f]
                            for g in range(f + 1, 52):
                                counts[_value7(kf + k[g], a, b, c, d, e, f, g) >> 20] += 1
    return counts


def seven_card_category_counts() -> np.ndarray:
    """Category counts over all C(52, 7) = 133,784,560 seven-card hands (index = Category), the
    lowest cards dealt round-robin to one chunk per usable CPU on ``certify.pool``'s threads."""
    from certify.pool import map_in_order

    workers = _usable_cpus()
    chunks = [(np.arange(w, 46, workers, dtype=np.int64),) for w in range(workers)]
    return np.sum(map_in_order(_seven_card_category_counts, chunks, workers), axis=0)
