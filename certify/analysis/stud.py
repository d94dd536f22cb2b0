"""Caribbean Stud and Casino Stud, exact: every player hand against every dealer up card.

The cycle is C(52,5) player hands x 47 up cards x C(46,4) dealer hole cards
= 19,933,230,517,200 deals. It is counted, not enumerated:

1. Suit isomorphism: the 2,598,960 player hands fall into 134,459 classes under the 24 suit
   permutations (same multiset of per-suit rank masks); one representative per class, weighted
   by the class size.
2. For a player hand P and an up card u, the dealer hands to count are the 5-card hands that hold
   u and none of P's cards. They are counted by rank profiles: valued without flushes, the hands
   holding given cards depend only on those cards' ranks, so inclusion-exclusion over P

       #{dealer hands < t} = sum over A subset of P of (-1)^|A| N({u} + A, t)

   needs N only per rank multiset (``rank_tables``), once per (P's rank profile, u's rank); the
   flushes that count misvalues (all five in u's suit, avoiding P's ranks in that suit) are then
   subtracted by inclusion-exclusion over that suit's 13-bit rank mask. Three thresholds per
   (P, u): the qualifying hand, P's value, and P's value + 1, split the 163,185 dealer hands into:
   does not qualify / qualifies and loses / ties / wins. (``_tables``, the same counts over card
   sets of all 2,598,960 hands, is kept as the tests' independent reference.)
3. The decision uses those counts: bet when the Bet's expectation beats the fold's -1 Ante
   (optimal), or the spec's threshold strategy; the counts do not depend on the strategy.

Hand values are dense ranks 0..7461 (``frequencies.class_values``) so the tables index by them.
Every pay, the Bet size and the qualifying hand come from ``stud_rules(spec)``, the one place the
spec is read; amounts are exact ``Fraction``s and combination counts Python ints.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb, lcm
from typing import Any

import numpy as np
from numba import njit, prange

from certify import hands
from certify.analysis.frequencies import class_values, five_card_category_counts, threshold_value
from certify.analysis.par import ParError, ParSheet, ReturnRow, WagerSheet
from certify.cards import RANK_NAMES

DEALER_HOLE = comb(46, 4)  # 163,185 dealer hands for a given player hand and up card
CYCLE = comb(52, 5) * 47 * DEALER_HOLE

# binomial coefficients C(n, k) for n < 53, k < 7: the colex index of a sorted card set
# s0 < s1 < ... is sum C(s_i, i + 1), dense in [0, C(52, k)).
_BINOM = np.array([[comb(n, k) for k in range(7)] for n in range(53)], dtype=np.int64)
_POW5 = 5 ** np.arange(13, dtype=np.int64)  # base-5 keys of rank multisets: sum count_r 5^r


# ----------------------------------------------------------------------------------------------
# The rules: the spec is read here and nowhere else in this module.
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class StudRules:
    bet_multiple: Fraction  # the Bet, in Antes
    ante_win: Fraction  # Ante odds when the player beats a qualifying dealer
    bet_odds: tuple[Fraction | None, ...]  # Bet odds by player category (None: the Bet loses)
    no_qualify_ante: Fraction  # Ante odds when the dealer does not qualify (the Bet pushes)
    qualify_value: int  # smallest dealer hand value that qualifies
    threshold_value: int | None  # spec strategy: bet with this value or better (None: optimal)
    threshold_text: str
    progressive: Any  # the spec's progressive section, or None

    # Net results per Ante for each way a round can end (the return table's pays).
    @property
    def fold(self) -> Fraction:
        return Fraction(-1)

    @property
    def no_qualify(self) -> Fraction:
        return self.no_qualify_ante

    def win(self, category: int) -> Fraction:
        odds = self.bet_odds[category]
        return self.ante_win + (self.bet_multiple * odds if odds is not None else -self.bet_multiple)

    @property
    def tie(self) -> Fraction:
        return Fraction(0)

    @property
    def lose(self) -> Fraction:
        return -(1 + self.bet_multiple)

    @property
    def wagered_after_bet(self) -> Fraction:
        return 1 + self.bet_multiple


def _fraction(x: Any) -> Fraction:
    return Fraction(str(x))


def stud_rules(spec: Any) -> StudRules:
    if getattr(spec, "family", None) != "stud":
        raise ParError(f"{getattr(spec, 'name', spec)!r} is not a stud game spec")
    if spec.ties != "push":
        raise ParError(f"{spec.name}: only ties that push are analysed, got ties: {spec.ties!r}")
    strategy = spec.strategy
    threshold = strategy.bet_at_least if strategy.name == "threshold" else None
    return StudRules(
        bet_multiple=_fraction(spec.bet.multiple_of_ante),
        ante_win=_fraction(spec.ante_pays),
        bet_odds=tuple(None if o is None else _fraction(o) for o in spec.bet.pays.as_list()),
        no_qualify_ante=_fraction(spec.non_qualifying_dealer.ante_pays),
        qualify_value=threshold_value(spec.dealer.qualifies),
        threshold_value=None if threshold is None else threshold_value(threshold),
        threshold_text="" if threshold is None else _threshold_text(threshold),
        progressive=spec.progressive,
    )


def _threshold_text(threshold: Any) -> str:
    ranks = "-".join(RANK_NAMES[r] for r in threshold.ranks)
    return f"{threshold.category.replace('_', ' ')} {ranks}".strip()


# ----------------------------------------------------------------------------------------------
# Counting tables over all five-card hands (colex order).
# ----------------------------------------------------------------------------------------------
@njit(cache=True)
def _colex_hands():
    out = np.empty((2598960, 5), np.int64)
    n = 0
    for e in range(4, 52):
        for d in range(3, e):
            for c in range(2, d):
                for b in range(1, c):
                    for a in range(b):
                        out[n, 0] = a
                        out[n, 1] = b
                        out[n, 2] = c
                        out[n, 3] = d
                        out[n, 4] = e
                        n += 1
    return out


@njit(cache=True)
def _build_tables(hands5, dense, n_values):
    """Prefix counts (1 and 2 cards), sorted value lists (3 and 4 cards), value per hand (5)."""
    binom = _BINOM
    order = np.argsort(dense, kind="mergesort")
    hist1 = np.zeros((52, n_values + 1), np.int32)
    hist2 = np.zeros((1326, n_values + 1), np.int32)
    sorted3 = np.empty((22100, 1176), np.int16)
    sorted4 = np.empty((270725, 48), np.int16)
    fill3 = np.zeros(22100, np.int64)
    fill4 = np.zeros(270725, np.int64)
    for j in range(order.shape[0]):
        h = order[j]
        v = dense[h]
        c = hands5[h]
        for i in range(5):
            hist1[c[i], v + 1] += 1
            for k in range(i + 1, 5):
                hist2[binom[c[i], 1] + binom[c[k], 2], v + 1] += 1
                for m in range(k + 1, 5):
                    t = binom[c[i], 1] + binom[c[k], 2] + binom[c[m], 3]
                    sorted3[t, fill3[t]] = v
                    fill3[t] += 1
                    for n in range(m + 1, 5):
                        q = t + binom[c[n], 4]
                        sorted4[q, fill4[q]] = v
                        fill4[q] += 1
    for r in range(52):
        for v in range(n_values):
            hist1[r, v + 1] += hist1[r, v]
    for r in range(1326):
        for v in range(n_values):
            hist2[r, v + 1] += hist2[r, v]
    return hist1, hist2, sorted3, sorted4


@njit(cache=True, inline="always")
def count_below(row, t):
    """Number of entries < t in a sorted row (lower bound)."""
    lo = 0
    hi = row.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if row[mid] < t:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, inline="always")
def _count_below_and_equal(row, t):
    """(entries < t, entries <= t) in a sorted row: one search, then the few equal entries."""
    lo = count_below(row, t)
    hi = lo
    while hi < row.shape[0] and row[hi] == t:
        hi += 1
    return lo, hi


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
            row = np.searchsorted(any_keys, key)
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


@njit(cache=True, parallel=True)
def _profile_dealer_below(profile_counts, profile_free, profile_flush, qualify, any_keys, any_start,
                          any_values, any_cum):
    """(profiles, 13 up-card ranks, 5): any-suits dealer hands holding a card of that rank and
    avoiding a player hand of the profile, below (qualify, free, free + 1, flush, flush + 1)."""
    n = profile_counts.shape[0]
    out = np.zeros((n, 13, 5), np.int64)
    for i in prange(n):
        counts = profile_counts[i]
        thresholds = np.array([qualify, profile_free[i], profile_free[i] + 1,
                               max(profile_flush[i], 0), max(profile_flush[i], 0) + 1], np.int64)
        below = np.empty(5, np.int64)
        for r in range(13):
            if counts[r] < 4:
                _any_suits_below(counts, r, thresholds, below, any_keys, any_start, any_values, any_cum)
                out[i, r] = below
    return out


@njit(cache=True, parallel=True)
def _all_dealer_counts(reps, rep_profiles, rep_values, qualify, by_profile, flushes_q, set_start,
                       set_free, set_flush):
    """For each player hand and up card: (does not qualify, player wins, tie) counts.

    Rows of up cards the player holds stay -1.
    """
    n = reps.shape[0]
    out = np.full((n, 52, 3), -1, np.int32)
    for ci in prange(n):
        p = reps[ci]
        v = rep_values[ci]
        suit_masks = np.zeros(4, np.int64)
        for i in range(5):
            suit_masks[p[i] & 3] |= 1 << (p[i] >> 2)
        flush = 2 if suit_masks.max() == suit_masks.sum() else 0  # the player's value as a flush
        for u in range(52):
            if u == p[0] or u == p[1] or u == p[2] or u == p[3] or u == p[4]:
                continue
            r, avoid = u >> 2, suit_masks[u & 3]
            any_suits = by_profile[rep_profiles[ci], r]
            below_q = any_suits[0] - flushes_q[avoid, r]
            out[ci, u, 0] = below_q
            if v < qualify:  # a player below the qualifier can only lose or be paid the Ante
                out[ci, u, 1] = 0
                out[ci, u, 2] = 0
                continue
            below, upto = _flushes_between(avoid, 1 << r, v, v + 1, set_start, set_free, set_flush)
            below_v = any_suits[1 + flush] - below
            # a qualifying dealer below v loses, equal to v ties
            out[ci, u, 1] = below_v - below_q
            out[ci, u, 2] = any_suits[2 + flush] - upto - below_v
    return out


@njit(cache=True, parallel=True)
def hands_avoiding_below(reps, rep_profiles, thresholds, profile_counts, any_keys, any_start, any_values,
                         any_cum, set_start, set_free, set_flush):
    """(n, k): 5-card hands with no card of reps[i] (sorted cards; rank profile rep_profiles[i])
    worth less than thresholds[i, j] (dense values): any suits by rank profile, less the flushes
    misvalued, suit by suit."""
    n = reps.shape[0]
    out = np.zeros(thresholds.shape, np.int64)
    for ci in prange(n):
        p = reps[ci]
        suit_masks = np.zeros(4, np.int64)
        for i in range(5):
            suit_masks[p[i] & 3] |= 1 << (p[i] >> 2)
        below = np.empty(thresholds.shape[1], np.int64)
        _any_suits_below(profile_counts[rep_profiles[ci]], -1, thresholds[ci], below, any_keys, any_start,
                         any_values, any_cum)
        for j in range(thresholds.shape[1]):
            t = thresholds[ci, j]
            for suit in range(4):
                below[j] -= _flushes_between(suit_masks[suit], 0, t, t, set_start, set_free, set_flush)[0]
            out[ci, j] = below[j]
    return out


def rank_profile_index(reps: np.ndarray) -> np.ndarray:
    """Each hand's row in ``rank_tables().profile_*`` (hands as rows of card codes)."""
    return np.searchsorted(rank_tables().profile_keys, _POW5[np.asarray(reps) >> 2].sum(axis=1))


@njit(cache=True)
def _suit_class_keys(hands5):
    """A key per hand equal for two hands exactly when a suit permutation maps one onto the other:
    the four 13-bit rank masks of the suits, sorted and packed."""
    n = hands5.shape[0]
    out = np.empty(n, np.int64)
    masks = np.empty(4, np.int64)
    for h in range(n):
        masks[:] = 0
        for i in range(5):
            c = hands5[h, i]
            masks[c & 3] |= 1 << (c >> 2)
        for i in range(1, 4):  # insertion sort of the four masks
            x = masks[i]
            j = i - 1
            while j >= 0 and masks[j] > x:
                masks[j + 1] = masks[j]
                j -= 1
            masks[j + 1] = x
        out[h] = (masks[3] << 39) | (masks[2] << 26) | (masks[1] << 13) | masks[0]
    return out


@dataclass(frozen=True)
class SuitClasses:
    reps: np.ndarray  # (134459, 5) one hand per suit class (sorted cards)
    weights: np.ndarray  # class sizes


@lru_cache(maxsize=1)
def suit_classes() -> SuitClasses:
    hands5 = _colex_hands()
    _, first, weights = np.unique(_suit_class_keys(hands5), return_index=True, return_counts=True)
    return SuitClasses(np.ascontiguousarray(hands5[first]), weights.astype(np.int64))


@dataclass(frozen=True)
class _Tables:
    """Card-level counting tables over all 2,598,960 hands (the Mulligan's first-five count)."""

    hands5: np.ndarray  # (2598960, 5) colex order
    dense5: np.ndarray  # dense value 0..7461 of each hand
    prefix1: np.ndarray
    prefix2: np.ndarray
    sorted3: np.ndarray
    sorted4: np.ndarray
    reps: np.ndarray  # (n_classes, 5) class representatives (sorted cards)
    weights: np.ndarray  # class sizes


@lru_cache(maxsize=1)
def _tables() -> _Tables:
    hands5 = _colex_hands()
    values = hands.rank_batch(hands5)
    dense5 = np.searchsorted(class_values(), values).astype(np.int16)
    prefix1, prefix2, sorted3, sorted4 = _build_tables(hands5, dense5.astype(np.int64),
                                                       len(class_values()))
    classes = suit_classes()
    return _Tables(hands5, dense5, prefix1, prefix2, sorted3, sorted4, classes.reps, classes.weights)


def dense_value(value: int) -> int:
    """The dense rank (0..7461) of a 5-card hand value."""
    i = int(np.searchsorted(class_values(), value))
    if i == len(class_values()) or class_values()[i] != value:
        raise ParError(f"{value} is not a 5-card hand value")
    return i


@dataclass(frozen=True)
class DealerCounts:
    """Per class representative and up card: dealer hands that do not qualify / lose / tie.

    ``counts[ci, u]`` = (no_qualify, player_wins, tie) out of ``DEALER_HOLE``; -1 for an up card
    the player holds. The counts depend on the cards and the qualifying hand only.
    """

    reps: np.ndarray
    weights: np.ndarray
    values: np.ndarray  # dense value of each representative
    counts: np.ndarray


def dealer_counts(qualify_value: int, reps: np.ndarray | None = None,
                  weights: np.ndarray | None = None) -> DealerCounts:
    """Count dealer outcomes for every player class (or for the given player hands) and up card."""
    if reps is None:
        return _all_classes_dealer_counts(qualify_value)
    return _count(qualify_value, reps, weights)


@lru_cache(maxsize=2)
def _all_classes_dealer_counts(qualify_value: int) -> DealerCounts:
    """The full-cycle counts, kept per process (read-only): specs sharing a qualifier share them."""
    classes = suit_classes()
    dc = _count(qualify_value, classes.reps, classes.weights)
    for array in (dc.reps, dc.weights, dc.values, dc.counts):
        array.flags.writeable = False
    return dc


def _count(qualify_value: int, reps: np.ndarray, weights: np.ndarray | None) -> DealerCounts:
    t = rank_tables()
    reps = np.ascontiguousarray(np.sort(np.asarray(reps, dtype=np.int64), axis=1))
    if weights is None:
        weights = np.ones(len(reps), np.int64)
    values = np.searchsorted(class_values(), hands.rank_batch(reps)).astype(np.int64)
    profiles = rank_profile_index(reps)
    q = dense_value(qualify_value)
    by_profile = _profile_dealer_below(t.profile_counts, t.profile_free, t.profile_flush, q, t.any_keys,
                                       t.any_start, t.any_values, t.any_cum)
    flushes_q = _flushes_below_qualifier(q, t.set_start, t.set_free, t.set_flush)
    counts = _all_dealer_counts(reps, profiles, values, q, by_profile, flushes_q, t.set_start,
                                t.set_free, t.set_flush)
    return DealerCounts(reps, np.asarray(weights, np.int64), values, counts)


# ----------------------------------------------------------------------------------------------
# From counts to return tables.
# ----------------------------------------------------------------------------------------------
def _scaled(amounts: list[Fraction]) -> tuple[list[int], int]:
    """Integers proportional to ``amounts`` (common denominator), for exact int64 comparisons."""
    den = lcm(*(a.denominator for a in amounts))
    return [int(a * den) for a in amounts], den


def _decisions(rules: StudRules, dc: DealerCounts, categories: np.ndarray, optimal: bool) -> np.ndarray:
    """Bool (n_classes, 52): bet? Optimal: bet when E[Bet] > E[fold]; else the spec's threshold."""
    valid = dc.counts[:, :, 0] >= 0
    if not optimal:
        bet_values = class_values()[dc.values] >= rules.threshold_value
        return valid & bet_values[:, None]
    win_pays = [rules.win(c) for c in range(len(hands.Category))]
    scaled, _ = _scaled([rules.fold, rules.no_qualify, rules.tie, rules.lose] + win_pays)
    fold, no_qualify, tie, lose = scaled[:4]
    win = np.array(scaled[4:], np.int64)[categories]
    return _bet_beats_fold(dc.counts, win, no_qualify, tie, lose, fold * DEALER_HOLE)


@njit(cache=True)
def _bet_beats_fold(counts, win, no_qualify, tie, lose, fold):
    """Bool (n, 52): the Bet's scaled expectation over the dealer hands beats folding's."""
    out = np.zeros(counts.shape[:2], np.bool_)
    for i in range(counts.shape[0]):
        for u in range(52):
            nq, wins, ties = np.int64(counts[i, u, 0]), np.int64(counts[i, u, 1]), np.int64(counts[i, u, 2])
            if nq >= 0:
                loses = DEALER_HOLE - nq - wins - ties
                out[i, u] = nq * no_qualify + wins * win[i] + ties * tie + loses * lose > fold
    return out


@njit(cache=True)
def _summed_where(counts, bet):
    """(n, 3) int64: each class's dealer counts summed over the up cards it bets on."""
    out = np.zeros((counts.shape[0], 3), np.int64)
    for i in range(counts.shape[0]):
        for u in range(52):
            if bet[i, u]:
                for k in range(3):
                    out[i, k] += counts[i, u, k]
    return out


def _by_category(per_class: np.ndarray, categories: np.ndarray) -> list[int]:
    """Exact sums of an int64 per-class vector over the classes of each player category."""
    return [int(per_class[categories == c].sum()) for c in range(len(hands.Category))]


def _main_table(rules: StudRules, dc: DealerCounts, categories: np.ndarray, bet: np.ndarray,
                name: str, strategy: str, strategy_table: list, chart: list) -> WagerSheet:
    valid = dc.counts[:, :, 0] >= 0
    bets = bet.sum(axis=1) * dc.weights  # (hand, up card) pairs bet, per class
    folds = (valid & ~bet).sum(axis=1) * dc.weights
    # per class: the dealer counts summed over the up cards it bets on, times the class size
    summed = _summed_where(dc.counts, bet) * dc.weights[:, None]
    total_nq, total_tie = int(summed[:, 0].sum()), int(summed[:, 2].sum())
    win_by_category = _by_category(summed[:, 1], categories)
    fold_combos = int(folds.sum()) * DEALER_HOLE
    total_lose = int(bets.sum()) * DEALER_HOLE - total_nq - total_tie - sum(win_by_category)
    after = rules.wagered_after_bet
    events = [("fold", rules.fold, fold_combos, 1),
              ("dealer does not qualify", rules.no_qualify, total_nq, after)]
    events += [(f"win with {hands.CATEGORY_NAMES[c]}", rules.win(c), win_by_category[c], after)
               for c in range(len(hands.Category))]
    events += [("tie", rules.tie, total_tie, after), ("lose", rules.lose, total_lose, after)]
    sheet = WagerSheet.from_combinations(name, events, strategy=strategy,
                                         strategy_table=strategy_table, strategy_chart=chart)
    if dc.reps.shape[0] == len(suit_classes().reps) and sheet.cycle != CYCLE:
        raise ParError(f"stud cycle {sheet.cycle} != {CYCLE}: the counting is wrong")
    return sheet


def _rank_codes(reps: np.ndarray) -> np.ndarray:
    """Each hand's ranks, high to low, packed 4 bits each: ordered as the rank lists are."""
    ranks = -np.sort(-(reps >> 2), axis=1)
    return (ranks << (4 * np.arange(4, -1, -1))).sum(axis=1)


def _rank_text(code: int) -> str:
    """A rank code as text such as 'A K J 8 3'."""
    return " ".join(RANK_NAMES[(code >> (4 * k)) & 15] for k in range(4, -1, -1))


@njit(cache=True)
def _summed_by(group, n_groups, a, b):
    """Rows of the int64 arrays ``a`` and ``b`` summed per ``group`` index."""
    out_a = np.zeros((n_groups, a.shape[1]), np.int64)
    out_b = np.zeros((n_groups, b.shape[1]), np.int64)
    for i in range(group.shape[0]):
        out_a[group[i]] += a[i]
        out_b[group[i]] += b[i]
    return out_a, out_b


def _strategy_summary(dc: DealerCounts, categories: np.ndarray, bet: np.ndarray) -> tuple[list, list]:
    """The strategy the computation derived: per category, and per (hand ranks, up card rank) for
    every category where the decision is not the same for all hands (hands ever bet)."""
    valid = dc.counts[:, :, 0] >= 0
    # (hand, up card) pairs per class and up-card rank (up card u has rank u >> 2)
    bet_by_rank = bet.reshape(len(bet), 13, 4).sum(axis=2) * dc.weights[:, None]
    all_by_rank = valid.reshape(len(valid), 13, 4).sum(axis=2) * dc.weights[:, None]
    bet_total, all_total = _by_category(bet_by_rank.sum(axis=1), categories), \
        _by_category(all_by_rank.sum(axis=1), categories)
    table: list[dict[str, Any]] = []
    chart: list[str] = []
    mixed: list[int] = []
    for c in range(len(hands.Category)):
        b, n = bet_total[c], all_total[c]
        table.append({"category": hands.CATEGORY_NAMES[c], "bet": b, "combinations": n})
        chart.append(f"  {hands.CATEGORY_NAMES[c]:<15} bet {b:>12,} of {n:>12,} (hand, up card) pairs")
        if 0 < b < n:
            mixed.append(c)
    if not mixed:
        return table, chart
    chart.append("  where it depends on the hand: its ranks, then the decision by the dealer's up card "
                 "(B bet always, . fold always, ~ depends on suits; hands not listed always fold):")
    chart.append("  " + " " * 15 + " ".join(RANK_NAMES[r].rjust(2) for r in range(13)))
    codes = _rank_codes(dc.reps)
    for c in mixed:
        sel = np.nonzero(categories == c)[0]
        patterns, inverse = np.unique(codes[sel], return_inverse=True)
        by_bet, by_all = _summed_by(inverse, len(patterns), bet_by_rank[sel], all_by_rank[sel])
        for i in range(len(patterns) - 1, -1, -1):  # highest ranks first
            b, n = by_bet[i], by_all[i]
            if b.sum() == 0:
                continue  # never bet: the "not listed" hands
            pattern = _rank_text(int(patterns[i]))
            marks = ["B" if bi == ni else "." if bi == 0 else "~" for bi, ni in zip(b, n)]
            chart.append(f"  {pattern:<15}" + " ".join(m.rjust(2) for m in marks))
            for r in range(13):
                if n[r]:
                    table.append({"category": hands.CATEGORY_NAMES[c], "hand": pattern,
                                  "up_card": RANK_NAMES[r], "bet": int(b[r]), "combinations": int(n[r])})
    return table, chart


def progressive_sheet(rules: StudRules) -> WagerSheet | None:
    prog = rules.progressive
    if prog is None:
        return None
    wager = _fraction(prog.wager)
    meter = _fraction(prog.meter_reset)
    counts = five_card_category_counts()
    events, paid = [], 0
    for c in sorted(hands.Category, reverse=True):
        entry = prog.pays.entry(c)
        if entry is None:
            continue
        share = Fraction(0) if entry.meter_percent is None else _fraction(entry.meter_percent) / 100 / wager
        fixed = Fraction(0) if entry.amount is None else _fraction(entry.amount) / wager
        events.append(ReturnRow(event=hands.CATEGORY_NAMES[c], pays=fixed - 1 + share * meter,
                                probability=Fraction(counts[c], comb(52, 5)), combinations=counts[c],
                                meter_share=share))
        paid += counts[c]
    events.append(ReturnRow(event="no win", pays=Fraction(-1), combinations=comb(52, 5) - paid,
                            probability=Fraction(comb(52, 5) - paid, comb(52, 5))))
    return WagerSheet(name="progressive", rows=tuple(events), exact=True, meter=meter,
                      strategy="none (paid on the player's five cards)",
                      notes=(f"figures at the reset meter {prog.meter_reset}; pays in units of the "
                             f"{prog.wager} wager, M = the meter; several royals in one round share "
                             "the award (not modelled: one player)",))


SPEC_STRATEGY_WAGER = "main game (spec strategy)"


def main_game_sheets(rules: StudRules, dc: DealerCounts) -> list[WagerSheet]:
    """The main game under the optimal strategy and, if the spec names one, the spec's strategy.

    Over every class (``dealer_counts`` with no hands given) this is the full cycle; over a subset
    of player hands it is the exact sheet of the game dealt from those hands only (for tests).
    """
    categories = (class_values()[dc.values] >> hands.CATEGORY_SHIFT).astype(np.int64)
    optimal = _decisions(rules, dc, categories, optimal=True)
    table, chart = _strategy_summary(dc, categories, optimal)
    sheets = [_main_table(rules, dc, categories, optimal, "main game",
                          "optimal: bet when the Bet's expectation beats folding (-1 Ante), "
                          "given the player's five cards and the dealer's up card", table, chart)]
    if rules.threshold_value is not None:
        spec_bet = _decisions(rules, dc, categories, optimal=False)
        sheets.append(_main_table(rules, dc, categories, spec_bet, SPEC_STRATEGY_WAGER,
                                  f"the spec's: bet with {rules.threshold_text} or better, else fold",
                                  _strategy_summary(dc, categories, spec_bet)[0], []))
    return sheets


_SHEETS: dict[str, ParSheet] = {}  # per process, keyed by the spec's full content


def stud_par_sheet(spec: Any) -> ParSheet:
    """The exact PAR sheet of a stud spec: main game (optimal, and the spec's strategy), progressive.

    Computed once per process for a given spec content (a ParSheet is immutable)."""
    key = spec.model_dump_json()
    if key not in _SHEETS:
        if len(_SHEETS) >= 8:
            _SHEETS.pop(next(iter(_SHEETS)))
        _SHEETS[key] = _compute_par_sheet(spec)
    return _SHEETS[key]


def _compute_par_sheet(spec: Any) -> ParSheet:
    from certify.analysis.frequencies import frequency_sets

    rules = stud_rules(spec)
    wagers = main_game_sheets(rules, dealer_counts(rules.qualify_value))
    progressive = progressive_sheet(rules)
    if progressive is not None:
        wagers.append(progressive)
    return ParSheet(game=spec.title, spec=spec.name, family="stud", wagers=tuple(wagers),
                    frequencies=frequency_sets(spec))


par_sheet = stud_par_sheet
