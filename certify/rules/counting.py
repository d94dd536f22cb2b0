"""Counting five-card hands by rank profiles and suit classes: the general machinery behind the
exact analyses of five-card games (``certify.rules.analysis`` for a hand against a dealer's with an
up card, ``certify.analysis.mulligan`` for the Mulligan's first hands).

* Suit classes: the 2,598,960 five-card hands fall into 134,459 classes under the 24 suit
  permutations (same multiset of per-suit rank masks); one representative per class, weighted by
  the class size (``suit_classes``).
* Rank profiles: valued without flushes, the hands holding given cards depend only on those cards'
  ranks, so the five-card hands holding the cards U and none of a hand P's, below a value t, are

      sum over A subset of P of (-1)^|A| N(U + A, t)

  with N read per rank multiset (``rank_tables``); the flushes that count misvalues are then
  subtracted suit by suit by inclusion-exclusion over that suit's 13-bit rank mask
  (``_flushes_between``).
* ``dealer_cells``: for every player hand and dealer up card, the dealer hands (holding the up
  card, avoiding the player's cards) that do not qualify, that the player beats, that tie; with no
  up card, ``hands_avoiding_below``.

Hand values are dense ranks 0..7461 (``frequencies.class_values``) so the tables index by them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import comb

import numpy as np
from numba import njit

from certify.analysis.frequencies import class_values
from certify.pool import cpus, map_in_order, row_ranges

# binomial coefficients C(n, k) for n < 53, k < 7: the colex index of a sorted card set
# s0 < s1 < ... is sum C(s_i, i + 1), dense in [0, C(52, k)).
_BINOM = np.array([[comb(n, k) for k in range(7)] for n in range(53)], dtype=np.int64)
_POW5 = 5 ** np.arange(13, dtype=np.int64)  # base-5 keys of rank multisets: sum count_r 5^r

def _colex_hands() -> np.ndarray:
    """Every five-card hand (sorted cards) in colex order: row i is the hand of colex rank i."""
    from certify.rules.board_streets_kernel import all_boards  # every 5-subset of range(n), colex

    return all_boards(52).astype(np.int64)


@njit(cache=True, inline="always")
def count_below(row, t):
    """Number of entries < t in a sorted row (lower bound)."""
    lo = 0
    hi = row.shape[0]
    if hi == 0 or row[0] >= t:  # none below: a flush row against a lower threshold, often
        return 0
    if row[hi - 1] < t:  # all below
        return hi
    while lo < hi:
        mid = (lo + hi) >> 1
        if row[mid] < t:
            lo = mid + 1
        else:
            hi = mid
    return lo


# ----------------------------------------------------------------------------------------------
# Counting over rank profiles. A hand's value is its rank multiset's value unless it is a flush.
# So the 5-card hands holding given cards and avoiding others are counted from the ranks: the
# "any suits" count (every hand at its non-flush value) depends only on how many cards each rank
# lost, and the flushes are corrected per suit from that suit's 13-bit rank mask.
# ----------------------------------------------------------------------------------------------
@njit(cache=True)
def _submultiset_entries(counts, values):
    """For every rank multiset R (rows of ``counts``) and sub-multiset S of R: (base-5 key of S,
    R's value, the ways to complete given cards of S's ranks into R's: prod C(4-s_r, k_r-s_r))."""
    n_entries = 0
    for i in range(counts.shape[0]):
        ways = 1
        for r in range(13):
            ways *= counts[i, r] + 1
        n_entries += ways
    keys = np.empty(n_entries, np.int64)
    vals = np.empty(n_entries, np.int64)
    weights = np.empty(n_entries, np.int64)
    sub = np.zeros(13, np.int64)
    e = 0
    for i in range(counts.shape[0]):
        sub[:] = 0
        while True:
            key = 0
            w = 1
            for r in range(13):
                key += sub[r] * _POW5[r]
                w *= _BINOM[4 - sub[r], counts[i, r] - sub[r]]
            keys[e] = key
            vals[e] = values[i]
            weights[e] = w
            e += 1
            r = 0  # the next sub-multiset: an odometer over the ranks
            while r < 13 and sub[r] == counts[i, r]:
                sub[r] = 0
                r += 1
            if r == 13:
                break
            sub[r] += 1
    return keys, vals, weights


def _rows(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(distinct keys, row starts, values): the values grouped by key, ascending in each row."""
    order = np.lexsort((values, keys))
    keys, values = keys[order], values[order]
    distinct, first = np.unique(keys, return_index=True)
    return distinct, np.append(first, len(keys)).astype(np.int64), values


@dataclass(frozen=True)
class RankTables:
    """``any_*``: per rank multiset S (row ``searchsorted(any_keys, sum s_r 5^r)``), the non-flush
    values of the 5-card rank multisets holding S, ascending, and the running count of hands
    holding given cards of S's ranks (``any_cum``). ``set_*``: per 13-bit rank set S (row
    ``set_start[S]:set_start[S + 1]``), the non-flush and the flush values of the 5-rank sets
    holding S, each ascending. ``profile_*``: the 6,175 rank multisets of five cards by key."""

    any_keys: np.ndarray
    any_start: np.ndarray
    any_values: np.ndarray
    any_cum: np.ndarray
    set_start: np.ndarray
    set_free: np.ndarray
    set_flush: np.ndarray
    profile_keys: np.ndarray
    profile_counts: np.ndarray  # (6175, 13)
    profile_free: np.ndarray  # dense value without a flush
    profile_flush: np.ndarray  # dense value as a flush (-1: the ranks are not distinct)


@lru_cache(maxsize=1)
def rank_tables() -> RankTables:
    from certify.analysis.mulligan_exact import profiles

    prof = profiles()
    values = class_values()
    order = np.argsort(prof.counts @ _POW5)
    counts = np.ascontiguousarray(prof.counts[order])
    free = np.searchsorted(values, prof.free_values[order]).astype(np.int64)
    flush_value = prof.flush_values[order]
    flush = np.where(flush_value >= 0, np.searchsorted(values, np.maximum(flush_value, 0)), -1)
    keys, vals, weights = _submultiset_entries(counts, free)
    order = np.lexsort((vals, keys))
    keys, any_values, cum = keys[order], vals[order], np.cumsum(weights[order])
    any_keys, first = np.unique(keys, return_index=True)
    any_start = np.append(first, len(keys)).astype(np.int64)
    any_cum = cum - np.repeat(np.append(0, cum[any_start[1:-1] - 1]), np.diff(any_start))
    distinct = np.nonzero(flush >= 0)[0]  # the 1,287 rank sets, and every subset of each
    masks = (counts[distinct] > 0).astype(np.int64) @ (1 << np.arange(13, dtype=np.int64))
    bits = np.array([[1 << r for r in range(13) if m >> r & 1] for m in masks], np.int64)  # (1287, 5)
    choose = (np.arange(32)[:, None] >> np.arange(5)) & 1  # the 32 subsets of five bits
    subsets = (choose @ bits.T).T.ravel()
    set_keys, set_first, set_free = _rows(subsets, np.repeat(free[distinct], 32))
    _, _, set_flush = _rows(subsets, np.repeat(flush[distinct], 32))
    set_start = np.zeros((1 << 13) + 1, np.int64)  # empty rows for sets of more than five ranks
    set_start[set_keys + 1] = np.diff(set_first)
    return RankTables(any_keys, any_start, any_values.astype(np.int64), any_cum.astype(np.int64),
                      np.cumsum(set_start), set_free.astype(np.int64), set_flush.astype(np.int64),
                      counts @ _POW5, counts, free, flush.astype(np.int64))


@njit(cache=True)
def _any_suits_below(counts, hold_rank, thresholds, out, any_keys, any_start, any_values, any_cum):
    """out[j] = 5-card hands holding a given card of ``hold_rank`` (none if -1) and no card of a
    hand with rank counts ``counts``, valued without flushes below thresholds[j]: inclusion-
    exclusion over the hand's cards, grouped by rank (C(c_r, a_r) card sets per sub-multiset a)."""
    out[:] = 0
    sub = np.zeros(13, np.int64)
    while True:
        key = _POW5[hold_rank] if hold_rank >= 0 else 0
        taken = 0
        ways = 1
        for r in range(13):
            key += sub[r] * _POW5[r]
            taken += sub[r]
            ways *= _BINOM[counts[r], sub[r]]
        if taken + (hold_rank >= 0) <= 5:
            row = count_below(any_keys, key)  # np.searchsorted: the same index, 1 s more to compile
            lo, hi = any_start[row], any_start[row + 1]
            sign = -ways if taken % 2 else ways
            for j in range(thresholds.shape[0]):
                k = count_below(any_values[lo:hi], thresholds[j])
                if k:
                    out[j] += sign * any_cum[lo + k - 1]
        r = 0
        while r < 13 and sub[r] == counts[r]:
            sub[r] = 0
            r += 1
        if r == 13:
            break
        sub[r] += 1


@njit(cache=True)
def _bit_count(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True)
def _flushes_between(avoid, hold, t0, t1, set_start, set_free, set_flush):
    """5-rank sets holding the ranks ``hold`` and none of ``avoid`` (13-bit masks) whose non-flush
    value is below t and flush value is not, for t = t0 and t1: the flushes an any-suits count
    misvalues (inclusion-exclusion over the subsets of ``avoid``)."""
    n0 = 0
    n1 = 0
    sub = avoid
    while True:
        s = sub | hold
        lo, hi = set_start[s], set_start[s + 1]
        if hi > lo:
            free, flush = set_free[lo:hi], set_flush[lo:hi]
            sign = -1 if _bit_count(sub) % 2 else 1
            n0 += sign * (count_below(free, t0) - count_below(flush, t0))
            n1 += sign * (count_below(free, t1) - count_below(flush, t1))
        if sub == 0:
            break
        sub = (sub - 1) & avoid
    return n0, n1


@njit(cache=True)
def _flushes_below_qualifier(qualify, set_start, set_free, set_flush):
    """(8192, 13): ``_flushes_between(mask, 1 << rank, qualify)`` for every mask of at most five
    ranks not holding the rank (the up card's suit in the player's hand, and the up card)."""
    out = np.zeros((1 << 13, 13), np.int64)
    for mask in range(1 << 13):
        if _bit_count(mask) <= 5:
            for r in range(13):
                if not (mask >> r) & 1:
                    out[mask, r] = _flushes_between(mask, 1 << r, qualify, qualify, set_start, set_free,
                                                    set_flush)[0]
    return out


# The three kernels below run over rows (rank profiles, player hands) that do not depend on each
# other: each is compiled serially with ``nogil`` over a range of rows, and its Python caller runs
# the ranges on the process's threads (``certify.pool``). numba's ``parallel=True`` took seconds
# more to compile each of them (and compiled their helpers again inside each parfor), for the
# same run time. Rows are written element by element: an array-to-slice copy compiles numba's
# formatted shape-mismatch error path (seconds cold).
CHUNKS_PER_CPU = 4  # ranges per thread: rows differ in cost, and the machine may be shared


@njit(cache=True, nogil=True)
def _profile_dealer_below_rows(lo, hi, profile_counts, profile_free, profile_flush, qualify, any_keys, any_start,
                               any_values, any_cum, out):
    """``_profile_dealer_below`` for the profiles lo..hi-1 (``out`` zeroed)."""
    thresholds = np.empty(5, np.int64)
    below = np.empty(5, np.int64)
    for i in range(lo, hi):
        counts = profile_counts[i]
        thresholds[0] = qualify
        thresholds[1] = profile_free[i]
        thresholds[2] = profile_free[i] + 1
        thresholds[3] = max(profile_flush[i], 0)
        thresholds[4] = max(profile_flush[i], 0) + 1
        for r in range(13):
            if counts[r] < 4:
                _any_suits_below(counts, r, thresholds, below, any_keys, any_start, any_values, any_cum)
                for j in range(5):
                    out[i, r, j] = below[j]


def _profile_dealer_below(profile_counts, profile_free, profile_flush, qualify, any_keys, any_start, any_values,
                          any_cum) -> np.ndarray:
    """(profiles, 13 up-card ranks, 5): any-suits dealer hands holding a card of that rank and
    avoiding a player hand of the profile, below (qualify, free, free + 1, flush, flush + 1)."""
    n = profile_counts.shape[0]
    out = np.zeros((n, 13, 5), np.int64)
    workers = cpus()
    map_in_order(_profile_dealer_below_rows,
                 [(lo, hi, profile_counts, profile_free, profile_flush, np.int64(qualify), any_keys, any_start,
                   any_values, any_cum, out) for lo, hi in row_ranges(n, CHUNKS_PER_CPU * workers)], workers)
    return out


@njit(cache=True, nogil=True)
def _all_dealer_counts_rows(lo, hi, reps, rep_profiles, rep_values, qualify, by_profile, flushes_q, set_start,
                            set_free, set_flush, out):
    """``_all_dealer_counts`` for the player hands lo..hi-1 (``out`` filled with -1)."""
    suit_masks = np.empty(4, np.int64)
    for ci in range(lo, hi):
        v = rep_values[ci]
        prof = rep_profiles[ci]
        for s in range(4):
            suit_masks[s] = 0
        for i in range(5):
            suit_masks[reps[ci, i] & 3] |= 1 << (reps[ci, i] >> 2)
        biggest = 0
        total = 0
        for s in range(4):
            biggest = max(biggest, suit_masks[s])
            total += suit_masks[s]
        flush = 2 if biggest == total else 0  # the player's value as a flush
        for u in range(52):
            if u == reps[ci, 0] or u == reps[ci, 1] or u == reps[ci, 2] or u == reps[ci, 3] or u == reps[ci, 4]:
                continue
            r, avoid = u >> 2, suit_masks[u & 3]
            below_q = by_profile[prof, r, 0] - flushes_q[avoid, r]
            out[ci, u, 0] = below_q
            if v < qualify:  # a player below the qualifier can only lose or be paid the Ante
                out[ci, u, 1] = 0
                out[ci, u, 2] = 0
                continue
            below, upto = _flushes_between(avoid, 1 << r, v, v + 1, set_start, set_free, set_flush)
            below_v = by_profile[prof, r, 1 + flush] - below
            # a qualifying dealer below v loses, equal to v ties
            out[ci, u, 1] = below_v - below_q
            out[ci, u, 2] = by_profile[prof, r, 2 + flush] - upto - below_v


def _all_dealer_counts(reps, rep_profiles, rep_values, qualify, by_profile, flushes_q, set_start, set_free,
                       set_flush) -> np.ndarray:
    """For each player hand and up card: (does not qualify, player wins, tie) counts.

    Rows of up cards the player holds stay -1.
    """
    n = reps.shape[0]
    out = np.full((n, 52, 3), -1, np.int32)
    workers = cpus()
    map_in_order(_all_dealer_counts_rows,
                 [(lo, hi, reps, rep_profiles, rep_values, np.int64(qualify), by_profile, flushes_q, set_start,
                   set_free, set_flush, out) for lo, hi in row_ranges(n, CHUNKS_PER_CPU * workers)], workers)
    return out


@njit(cache=True, nogil=True)
def _hands_avoiding_below_rows(lo, hi, reps, rep_profiles, thresholds, profile_counts, any_keys, any_start,
                               any_values, any_cum, set_start, set_free, set_flush, out):
    """``hands_avoiding_below`` for the hands lo..hi-1."""
    suit_masks = np.empty(4, np.int64)
    below = np.empty(thresholds.shape[1], np.int64)
    no_rank = np.int64(-1)  # not the literal: a literal argument compiles the callee once more, for it
    no_hold = np.int64(0)
    for ci in range(lo, hi):
        for s in range(4):
            suit_masks[s] = 0
        for i in range(5):
            suit_masks[reps[ci, i] & 3] |= 1 << (reps[ci, i] >> 2)
        _any_suits_below(profile_counts[rep_profiles[ci]], no_rank, thresholds[ci], below, any_keys, any_start,
                         any_values, any_cum)
        for j in range(thresholds.shape[1]):
            t = thresholds[ci, j]
            for suit in range(4):
                below[j] -= _flushes_between(suit_masks[suit], no_hold, t, t, set_start, set_free, set_flush)[0]
            out[ci, j] = below[j]


def hands_avoiding_below(reps, rep_profiles, thresholds, profile_counts, any_keys, any_start, any_values,
                         any_cum, set_start, set_free, set_flush) -> np.ndarray:
    """(n, k): 5-card hands with no card of reps[i] (sorted cards; rank profile rep_profiles[i])
    worth less than thresholds[i, j] (dense values): any suits by rank profile, less the flushes
    misvalued, suit by suit."""
    n = reps.shape[0]
    out = np.zeros(thresholds.shape, np.int64)
    workers = cpus()
    map_in_order(_hands_avoiding_below_rows,
                 [(lo, hi, reps, rep_profiles, thresholds, profile_counts, any_keys, any_start, any_values, any_cum,
                   set_start, set_free, set_flush, out) for lo, hi in row_ranges(n, CHUNKS_PER_CPU * workers)],
                 workers)
    return out


def rank_profile_index(reps: np.ndarray) -> np.ndarray:
    """Each hand's row in ``rank_tables().profile_*`` (hands as rows of card codes)."""
    return np.searchsorted(rank_tables().profile_keys, _POW5[np.asarray(reps) >> 2].sum(axis=1))


@njit(cache=True, inline="always")
def sort_first(a, n):
    """Sort a[:n] in place (insertion sort: a few entries, and np.sort would allocate per call)."""
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


@njit(cache=True)
def suit_class_keys(cards):
    """Equal exactly for hands one suit permutation maps onto the other: sorted suit rank masks."""
    out = np.empty(cards.shape[0], np.int64)
    masks = np.empty(4, np.int64)
    for h in range(cards.shape[0]):
        masks[:] = 0
        for i in range(cards.shape[1]):
            masks[cards[h, i] & 3] |= 1 << (cards[h, i] >> 2)
        sort_first(masks, 4)
        out[h] = (masks[3] << 39) | (masks[2] << 26) | (masks[1] << 13) | masks[0]
    return out


@dataclass(frozen=True)
class SuitClasses:
    reps: np.ndarray  # (134459, 5) one hand per suit class (sorted cards)
    weights: np.ndarray  # class sizes


@njit(cache=True)
def _first_of_each_class():
    """Every five-card hand in colex order, each suit class's first hand and size, in the order the
    classes are first met: one pass with an open-addressing table keyed by ``suit_class_keys``
    (no sort of the 2,598,960 keys)."""
    bits = 19  # 2^19 slots for the 134,459 classes
    slot_key = np.full(1 << bits, -1, np.int64)
    slot_class = np.empty(1 << bits, np.int64)
    keys = np.empty(140000, np.int64)
    reps = np.empty((140000, 5), np.int64)
    sizes = np.zeros(140000, np.int64)
    masks = np.empty(4, np.int64)
    n = 0
    for c4 in range(4, 52):
        for c3 in range(3, c4):
            for c2 in range(2, c3):
                for c1 in range(1, c2):
                    for c0 in range(c1):
                        masks[:] = 0
                        masks[c0 & 3] |= 1 << (c0 >> 2)
                        masks[c1 & 3] |= 1 << (c1 >> 2)
                        masks[c2 & 3] |= 1 << (c2 >> 2)
                        masks[c3 & 3] |= 1 << (c3 >> 2)
                        masks[c4 & 3] |= 1 << (c4 >> 2)
                        sort_first(masks, 4)
                        key = (masks[3] << 39) | (masks[2] << 26) | (masks[1] << 13) | masks[0]
                        slot = (key * np.int64(-7046029254386353131)) >> np.int64(64 - bits)
                        slot &= (1 << bits) - 1
                        while slot_key[slot] != key and slot_key[slot] != -1:
                            slot = (slot + 1) & ((1 << bits) - 1)
                        if slot_key[slot] == -1:
                            slot_key[slot] = key
                            slot_class[slot] = n
                            keys[n] = key
                            reps[n, 0], reps[n, 1], reps[n, 2], reps[n, 3], reps[n, 4] = c0, c1, c2, c3, c4
                            n += 1
                        sizes[slot_class[slot]] += 1
    return keys[:n], reps[:n], sizes[:n]


@lru_cache(maxsize=1)
def suit_classes() -> SuitClasses:
    """One representative per suit class (its first hand in colex order) and the class sizes, in
    ascending order of ``suit_class_keys``."""
    keys, reps, sizes = _first_of_each_class()
    order = np.argsort(keys)
    return SuitClasses(np.ascontiguousarray(reps[order]), sizes[order])



def read_only(array: np.ndarray) -> np.ndarray:
    """A read-only view (no copy). numba compiles a kernel once per write flag of each array argument:
    the hand tables' arrays are read-only, so a caller's own arrays are passed read-only too."""
    view = array.view()
    view.flags.writeable = False
    return view


def dealer_cells(reps: np.ndarray, dense: np.ndarray, qualify: int, up: bool) -> np.ndarray:
    """(n, 52 or 1, 3) int32: per player hand (sorted cards, dense values) and dealer up card, the
    five-card dealer hands (holding the up card, none of the player's cards) that do not qualify
    (dense value < ``qualify``), that the player beats, that tie it; -1 for an up card the player
    holds. With no up card, one column: the dealer's five cards all hidden."""
    t = rank_tables()
    reps = read_only(np.ascontiguousarray(reps, np.int64))
    profiles = rank_profile_index(reps)
    if up:
        by_profile = _profile_dealer_below(t.profile_counts, t.profile_free, t.profile_flush, qualify, t.any_keys,
                                           t.any_start, t.any_values, t.any_cum)
        flushes_q = _flushes_below_qualifier(qualify, t.set_start, t.set_free, t.set_flush)
        return _all_dealer_counts(reps, profiles, read_only(dense), qualify, by_profile, flushes_q, t.set_start,
                                  t.set_free, t.set_flush)
    thresholds = np.column_stack([np.full(len(reps), qualify), dense, dense + 1]).astype(np.int64)
    below = hands_avoiding_below(reps, profiles, thresholds, t.profile_counts, t.any_keys, t.any_start,
                                 t.any_values, t.any_cum, t.set_start, t.set_free, t.set_flush)
    nq = below[:, 0]
    win = np.maximum(below[:, 1] - nq, 0)
    tie = np.where(dense >= qualify, below[:, 2] - below[:, 1], 0)
    return np.stack([nq, win, tie], axis=1).astype(np.int32)[:, None, :]
