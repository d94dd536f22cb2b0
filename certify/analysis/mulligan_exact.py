"""Exact Five Card Mulligan counts over rank profiles instead of cards.

The hard part of the game is the dealer who redraws: his second five depend on which cards his
first five took, so no per-hand table gives P(dealer's final hand < P). Here the cards are not
enumerated at all. A round is a few disjoint hands; each hand is a *rank profile* (its multiset of
ranks, 6,175 of them) and, when its five ranks are distinct, flush or not. For fixed profiles the
number of ways to give the hands suits is a product over the 13 ranks of multinomials (the suits
left at a rank are shared out among the hands that hold it), times the ways to colour the hands
that must be one suit ("mono": a flush, or a hand whose non-flush count is "any suits" minus
"one suit"): two mono hands that share a rank need different suits. So every count is an
integer sum over pairs of profiles, and the dealer's *first* five, which must be a non-flush high
card below ``stands_on`` (five distinct ranks, lexicographically below the threshold, not a
straight), is summed over all its rank sets at once by a dynamic programme over the ranks.

What this module counts, for every value v of the player's five P (the dealer redraws):

    #(P, D1, X): P of value v, D1 a first dealer hand below ``stands_on``, X the dealer's new five,
                 all disjoint, by X below / equal to / above v.

Together with the first-five counts of ``counting.hands_avoiding_below`` (the dealer stands on D1), this makes
standing exact for every hand value: its win, tie and loss counts over the cycle
C(52,5) x C(47,5) x C(42,5).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import comb, factorial

import numpy as np
from numba import njit

from certify import hands
from certify.errors import InputError
from certify.pool import cpus, map_in_order, row_ranges

N_RANKS = hands.N_RANKS
CYCLE_STAND = comb(52, 5) * comb(47, 5) * comb(42, 5)  # (P, D1, X), X dealt whether used or not
# straights as 13-bit rank masks (rank 0 is the deuce, 12 the ace): the wheel, then 2-6 .. T-A
STRAIGHT_MASKS = np.array([0x100F] + [0x1F << low for low in range(9)], np.int64)
# colourings with 4 suits of three mono hands, by how many pairs of them share a rank
COLOURINGS3 = np.array([64, 48, 36, 24], np.int64)
BLOCKS = 64  # the outer profiles are split into this many blocks, each with its own tallies


class ExactError(InputError):
    """A rule this exact method does not cover."""


def _multinomials() -> np.ndarray:
    """table[n, a, b] = n! / (a! b! (n-a-b)!), the ways to give a and b of n suits to two hands."""
    table = np.zeros((5, 5, 5), np.int64)
    for n in range(5):
        for a in range(n + 1):
            for b in range(n + 1 - a):
                table[n, a, b] = factorial(n) // (factorial(a) * factorial(b) * factorial(n - a - b))
    return table


@dataclass(frozen=True)
class Profiles:
    counts: np.ndarray  # (6175, 13) rank counts
    free_values: np.ndarray  # the hand's value without a flush
    flush_values: np.ndarray  # its value as a flush (-1: its ranks are not distinct)


@lru_cache(maxsize=1)
def profiles() -> Profiles:
    keys, values = hands._rank_multisets(5)
    counts = (keys[:, None] // 5 ** np.arange(N_RANKS, dtype=np.int64)) % 5
    masks = (counts > 0).astype(np.int64) @ (1 << np.arange(N_RANKS, dtype=np.int64))
    flush = np.where(counts.max(axis=1) == 1, hands.FLUSH_VALUES[masks], -1).astype(np.int64)
    return Profiles(np.ascontiguousarray(counts, np.int64), values.astype(np.int64), flush)


def high_card_tuple(value: int) -> tuple[int, ...]:
    """The five ranks (high to low, 0 where the threshold names fewer) of a high-card threshold."""
    if value >> hands.CATEGORY_SHIFT != hands.Category.HIGH_CARD:
        raise ExactError(f"the exact Mulligan count needs high-card thresholds (dealer and strategy); "
                         f"got the hand value {value:#x}")
    return tuple((value >> (16 - 4 * k)) & 15 for k in range(5))


def junk_threshold(stands_value: int) -> tuple[np.ndarray, np.ndarray]:
    """The dealer's redraw hands as (rank tuple to stay below, straight masks below it).

    Only a threshold inside high card is covered: then the hands that redraw are exactly the
    non-flush, non-straight hands of five distinct ranks whose ranks, high to low, are
    lexicographically below the threshold's.
    """
    tuple_ = high_card_tuple(stands_value)
    below = []
    for mask in STRAIGHT_MASKS:
        ranks = sorted((r for r in range(N_RANKS) if mask >> r & 1), reverse=True)
        if tuple(ranks) < tuple_:
            below.append(int(mask))
    return np.array(tuple_, np.int64), np.array(below, np.int64)


# ----------------------------------------------------------------------------------------------
# The dealer's first five, summed over its rank sets.
# ----------------------------------------------------------------------------------------------
@njit(cache=True)
def junk_sum(u, v, threshold, straights_below):
    """Sum over the rank sets R of the redraw hands (5 distinct ranks, below ``threshold``, not
    a straight) of prod_{r in R} v[r] * prod_{r not in R} u[r].

    A dynamic programme from the ace down: ``eq[k]`` / ``lt[k]`` hold the sums over the choices
    of k ranks so far that equal / are already below the threshold's first k ranks."""
    eq = np.zeros(6, np.int64)
    lt = np.zeros(6, np.int64)
    eq[0] = 1
    for r in range(N_RANKS - 1, -1, -1):
        ur = u[r]
        vr = v[r]
        for k in range(5, 0, -1):
            t = threshold[k - 1]
            add_lt = lt[k - 1] * vr
            add_eq = 0
            if r < t:
                add_lt += eq[k - 1] * vr
            elif r == t:
                add_eq = eq[k - 1] * vr
            lt[k] = lt[k] * ur + add_lt
            eq[k] = eq[k] * ur + add_eq
        eq[0] *= ur
    total = lt[5]
    for s in range(straights_below.shape[0]):
        mask = straights_below[s]
        prod = 1
        for r in range(N_RANKS):
            prod *= v[r] if (mask >> r) & 1 else u[r]
        total -= prod
    return total


@njit(cache=True, inline="always")
def _tally(out, dense, value_p, value_x, count):
    if count == 0:
        return
    k = 0 if value_x < value_p else (1 if value_x == value_p else 2)
    out[dense, k] += count


# ----------------------------------------------------------------------------------------------
# Tables by the combined profile s = p + x of the two hands (10 cards, at most 4 a rank). With no
# one-suit hand, the suits at rank r split as C(4, s_r) C(s_r, p_r) (the dealer misses r) or
# C(3, s_r) C(s_r, p_r) (a one-suit dealer holds it): the factor C(s_r, p_r) is common, so a pair's
# count is prod_r C(s_r, p_r) times a number of s alone, looked up instead of summed per pair.
# ----------------------------------------------------------------------------------------------
COMBINED = 10  # cards in p + x
_BINOM4 = np.array([[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [1, 2, 1, 0, 0], [1, 3, 3, 1, 0],
                    [1, 4, 6, 4, 1]], np.int64)  # C(n, k), n and k up to 4


@lru_cache(maxsize=1)
def combined_offsets() -> tuple[np.ndarray, int]:
    """off[L, rem, t]: the rank of the combined profiles with t cards of rank 12 - L among those
    whose ranks 12 - L .. 0 add up to rem (the L ranks above fixed; ace first, the order of the
    profiles in ``stand_redraw_counts``); a profile's index is the sum over L of
    off[L, rem_L, s_(12-L)]. Plain Python (1,430 additions; compiled it cost 1.5 s of numba
    compile per cold process); read-only."""
    completions = np.zeros((N_RANKS + 1, COMBINED + 1), np.int64)
    completions[N_RANKS, 0] = 1
    for r in range(N_RANKS - 1, -1, -1):
        for rem in range(COMBINED + 1):
            for t in range(min(4, rem) + 1):
                completions[r, rem] += completions[r + 1, rem - t]
    off = np.zeros((N_RANKS, COMBINED + 1, 5), np.int64)
    for r in range(N_RANKS):
        for rem in range(COMBINED + 1):
            acc = 0
            for t in range(5):
                off[r, rem, t] = acc
                if t <= rem:
                    acc += completions[r + 1, rem - t]
    off.flags.writeable = False
    return off, int(completions[0, COMBINED])


@njit(cache=True, nogil=True)
def _combined_range(first, stop, off, threshold, straights_below, free, dealer_any):
    """``combined_tables`` for the combined profiles first .. stop - 1, written into ``free`` and
    ``dealer_any``."""
    s = np.empty(N_RANKS, np.int64)
    ones = np.ones(N_RANKS, np.int64)
    u = np.empty(N_RANKS, np.int64)
    v = np.empty(N_RANKS, np.int64)
    a = np.empty(N_RANKS, np.int64)
    for idx in range(first, stop):
        rem = COMBINED
        left = idx
        for lv in range(N_RANKS):  # unrank, ace first: the largest t whose offset is not above what is left
            t = 0
            while t < 4 and t + 1 <= rem and off[lv, rem, t + 1] <= left:
                t += 1
            s[N_RANKS - 1 - lv] = t
            left -= off[lv, rem, t]
            rem -= t
        prod_u = 1
        for r in range(N_RANKS):
            a[r] = 4 - s[r]
            u[r] = _BINOM4[4, s[r]]
            v[r] = _BINOM4[3, s[r]]
            prod_u *= u[r]
        e_free = junk_sum(ones, a, threshold, straights_below)
        dealer_any[idx] = e_free
        free[idx] = prod_u * e_free - 4 * junk_sum(u, v, threshold, straights_below)


COMBINED_CHUNKS = 16  # combined_tables' ranges of profiles, run on the process's threads


def combined_tables(off, n_combined, threshold, straights_below):
    """Per combined profile s (by its index): ``free`` = the deals of both hands of any suits and a
    non-flush redraw hand (any suits - one suit), over prod_r C(s_r, p_r); ``dealer_any`` = the
    dealer's redraw rank sets with any suits on the cards left."""
    free = np.zeros(n_combined, np.int64)
    dealer_any = np.zeros(n_combined, np.int64)
    map_in_order(_combined_range, [(lo, hi, off, threshold, straights_below, free, dealer_any)
                                   for lo, hi in row_ranges(n_combined, COMBINED_CHUNKS)], cpus())
    return free, dealer_any


@njit(cache=True)
def junk_avoiding(threshold, straights_below):
    """by_mask[z]: the dealer's redraw rank sets that miss every rank in the 13-bit mask z (the
    one-suit dealer against two one-suit hands: no other suit factor is left)."""
    ones = np.ones(N_RANKS, np.int64)
    v = np.empty(N_RANKS, np.int64)
    by_mask = np.zeros(1 << N_RANKS, np.int64)
    for z in range(1 << N_RANKS):
        for r in range(N_RANKS):
            v[r] = 0 if (z >> r) & 1 else 1
        by_mask[z] = junk_sum(ones, v, threshold, straights_below)
    return by_mask


@njit(cache=True)
def _one_suit_and_free_from(mono, free, varying, last, mono_mask, e_free, threshold, straights_below,
                            eqs, lts, prod_u, straight):
    """Ways to deal a one-suit hand on the ranks ``mono``, a hand of any suits of profile ``free``
    and a non-flush redraw hand for the dealer, all disjoint (``e_free``: the dealer's first fives
    of any suits on the cards left). The dealer of one suit is summed over his rank sets with and
    without the mono hand's ranks in one pass, ace first.

    Resumable: the programme's state after each rank is kept in ``eqs`` / ``lts`` / ``prod_u`` /
    ``straight`` (level L: after L ranks) for the hands last seen, and only the ranks from the
    first one at which ``varying`` (the hand that changes from call to call) differs from ``last``
    are redone. The profiles come sorted ace first, so consecutive calls share 9 of 13 ranks on
    average."""
    level = 0
    while level < N_RANKS and varying[N_RANKS - 1 - level] == last[N_RANKS - 1 - level]:
        level += 1
    for lv in range(level, N_RANKS):
        r = N_RANKS - 1 - lv
        m = mono[r]
        ur = _BINOM4[4 - m, free[r]]
        vr = _BINOM4[3 - m, free[r]] if m + free[r] <= 3 else 0
        prod_u[lv + 1] = prod_u[lv] * ur
        for h in range(2):
            vh = 0 if h == 1 and m == 1 else vr
            for k in range(5, 0, -1):
                t = threshold[k - 1]
                add_lt = lts[lv, h, k - 1] * vh
                add_eq = 0
                if r < t:
                    add_lt += eqs[lv, h, k - 1] * vh
                elif r == t:
                    add_eq = eqs[lv, h, k - 1] * vh
                lts[lv + 1, h, k] = lts[lv, h, k] * ur + add_lt
                eqs[lv + 1, h, k] = eqs[lv, h, k] * ur + add_eq
            lts[lv + 1, h, 0] = lts[lv, h, 0] * ur
            eqs[lv + 1, h, 0] = eqs[lv, h, 0] * ur
        for s in range(straights_below.shape[0]):
            straight[lv + 1, s] = straight[lv, s] * (vr if (straights_below[s] >> r) & 1 else ur)
        last[r] = varying[r]
    f0, fh = lts[N_RANKS, 0, 5], lts[N_RANKS, 1, 5]
    for s in range(straights_below.shape[0]):
        f0 -= straight[N_RANKS, s]
        if straights_below[s] & mono_mask == 0:
            fh -= straight[N_RANKS, s]
    # a dealer of any suits, less one of one suit: sharing a rank with the mono hand (12 suit
    # pairs) or not (16)
    return 4 * prod_u[N_RANKS] * e_free - (12 * (f0 - fh) + 16 * fh)


@njit(cache=True)
def _fresh_state(n_straights):
    """The resumable state of ``_one_suit_and_free_from`` before any rank, and no hand seen."""
    eqs = np.zeros((N_RANKS + 1, 2, 6), np.int64)
    lts = np.zeros((N_RANKS + 1, 2, 6), np.int64)
    eqs[0, 0, 0] = 1
    eqs[0, 1, 0] = 1
    prod_u = np.ones(N_RANKS + 1, np.int64)
    straight = np.ones((N_RANKS + 1, n_straights), np.int64)
    last = np.full(N_RANKS, -1, np.int64)
    return eqs, lts, prod_u, straight, last


@njit(cache=True, inline="always")
def _both_one_suit(mask_p, mask_x, e_free, by_mask):
    """Ways to deal two one-suit hands (rank masks) and a non-flush redraw hand, all disjoint:
    every suit factor is 1, so only the dealer's rank sets that miss either hand's ranks matter;
    colourings of three one-suit hands by how many pairs of them share a rank."""
    e0 = 1 if mask_p & mask_x else 0
    f0, fp, fx, fpx = by_mask[0], by_mask[mask_p], by_mask[mask_x], by_mask[mask_p | mask_x]
    colourings = 12 if e0 else 16
    one_suit = (COLOURINGS3[e0] * fpx + COLOURINGS3[e0 + 1] * (fx - fpx + fp - fpx)
                + COLOURINGS3[e0 + 2] * (f0 - fp - fx + fpx))
    return colourings * e_free - one_suit


@njit(cache=True, nogil=True)
def _redraw_block(block, n_blocks, counts, masks, free_values, flush_values, dense_of, threshold, straights_below,
                  multinom, off, free, dealer_any, by_mask, out):
    """``stand_redraw_counts``'s tallies (n_values, 3) for the outer profiles i = block,
    block + n_blocks, .., added into ``out`` (its own array: blocks run on threads)."""
    n = counts.shape[0]
    c = np.zeros((2, 2), np.int64)
    ns = straights_below.shape[0]
    for i in range(block, n, n_blocks):
        p = counts[i]
        dp = 1 if flush_values[i] >= 0 else 0
        # resumable one-suit sums over the j that follow: P of one suit (mono_p), X of one suit (mono_x)
        eq_p, lt_p, u_p, st_p, last_p = _fresh_state(ns)
        eq_x, lt_x, u_x, st_x, last_x = _fresh_state(ns)
        # the combined profile's index and prod_r C(s_r, p_r), resumable the same way: level L
        # holds them after the L highest ranks, valid up to ``known`` levels for ``last_ix``
        idx_at = np.zeros(N_RANKS + 1, np.int64)
        rem_at = np.full(N_RANKS + 1, COMBINED, np.int64)
        split_at = np.ones(N_RANKS + 1, np.int64)
        last_ix = np.full(N_RANKS, -1, np.int64)
        known = 0
        for j in range(i, n):
            x = counts[j]
            level = 0
            while level < known and x[N_RANKS - 1 - level] == last_ix[N_RANKS - 1 - level]:
                level += 1
            fits = True
            for lv in range(level, N_RANKS):
                r = N_RANKS - 1 - lv
                s = p[r] + x[r]
                last_ix[r] = x[r]
                if s > 4:
                    known = lv  # levels 0..lv hold; rank r itself does not fit
                    fits = False
                    break
                idx_at[lv + 1] = idx_at[lv] + off[lv, rem_at[lv], s]
                rem_at[lv + 1] = rem_at[lv] - s
                split_at[lv + 1] = split_at[lv] * multinom[s, p[r], 0]
            if not fits:
                continue
            known = N_RANKS
            idx = idx_at[N_RANKS]
            split = split_at[N_RANKS]  # prod_r C(s_r, p_r)
            dx = 1 if flush_values[j] >= 0 else 0
            c[0, 0] = split * free[idx]
            if dp == 0 and dx == 0:
                _tally(out, dense_of[i, 0], free_values[i], free_values[j], c[0, 0])
                if j != i:
                    _tally(out, dense_of[j, 0], free_values[j], free_values[i], c[0, 0])
                continue
            e_free = dealer_any[idx]
            if dp:
                c[1, 0] = _one_suit_and_free_from(p, x, x, last_p, masks[i], e_free, threshold,
                                                  straights_below, eq_p, lt_p, u_p, st_p)
            if dx:
                c[0, 1] = _one_suit_and_free_from(x, p, x, last_x, masks[j], e_free, threshold,
                                                  straights_below, eq_x, lt_x, u_x, st_x)
            if dp and dx:
                c[1, 1] = _both_one_suit(masks[i], masks[j], e_free, by_mask)
            # non-flush = any suits - one suit; a flush = one suit
            for fp in range(dp + 1):
                for fx in range(dx + 1):
                    total = 0
                    for mp in range(dp + 1):
                        sp = (1 if mp == 1 else 0) if fp == 1 else (1 if mp == 0 else -1)
                        for mx in range(dx + 1):
                            sx = (1 if mx == 1 else 0) if fx == 1 else (1 if mx == 0 else -1)
                            total += sp * sx * c[mp, mx]
                    vp = flush_values[i] if fp else free_values[i]
                    vx = flush_values[j] if fx else free_values[j]
                    _tally(out, dense_of[i, fp], vp, vx, total)
                    if j != i:
                        _tally(out, dense_of[j, fx], vx, vp, total)


def stand_redraw_counts(counts, free_values, flush_values, dense_of, threshold, straights_below,
                        multinom, n_values, off, free, dealer_any, by_mask):
    """(n_values, 3): over every (P, D1, X) with D1 a redraw hand, by P's dense value: X below,
    equal to, above P. The count of a pair of profiles is symmetric in them, so each unordered
    pair is counted once and tallied for both roles. Pairs with no one-suit hand (no flush
    possible) take the tables by combined profile; the others count their one-suit
    configurations. The outer profiles are dealt round-robin into BLOCKS blocks, each tallied on
    its own (``_redraw_block``, on the process's threads) and the integer tallies then added."""
    masks = ((counts > 0).astype(np.int64) << np.arange(N_RANKS, dtype=np.int64)).sum(axis=1)
    tallies = np.zeros((BLOCKS, n_values, 3), np.int64)
    args = (counts, masks, free_values, flush_values, dense_of, threshold, straights_below, multinom, off, free,
            dealer_any, by_mask)
    map_in_order(_redraw_block, [(block, BLOCKS, *args, tallies[block]) for block in range(BLOCKS)], cpus())
    return tallies.sum(axis=0)


def dense_index(prof: Profiles, values: np.ndarray) -> np.ndarray:
    """(6175, 2): the dense value (index in ``values``) of each profile without / with a flush."""
    free = np.searchsorted(values, prof.free_values)
    flush = np.where(prof.flush_values >= 0, np.searchsorted(values, np.maximum(prof.flush_values, 0)), -1)
    return np.ascontiguousarray(np.column_stack([free, flush]).astype(np.int64))


@lru_cache(maxsize=4)
def stand_when_dealer_redraws(stands_value: int) -> np.ndarray:
    """(7462, 3) int64 by the player's dense value: rounds (P, D1, X) in which the dealer redraws
    and his new five are below / equal to / above P."""
    from certify.analysis.frequencies import class_values

    values = class_values()
    prof = profiles()
    threshold, straights = junk_threshold(stands_value)
    off, n_combined = combined_offsets()
    free, dealer_any = combined_tables(off, n_combined, threshold, straights)
    # the profiles ordered ace first (rank 12 the primary key), so that consecutive ones share the
    # high ranks and the one-suit sums resume from the first rank that differs
    order = np.lexsort(prof.counts.T)
    return stand_redraw_counts(np.ascontiguousarray(prof.counts[order]), prof.free_values[order],
                               prof.flush_values[order], np.ascontiguousarray(dense_index(prof, values)[order]),
                               threshold, straights, _multinomials(), len(values), off, free, dealer_any,
                               junk_avoiding(threshold, straights))
