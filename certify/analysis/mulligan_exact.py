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

Together with the first-five counts of ``mulligan_kernel`` (the dealer stands on D1), this makes
standing exact for every hand value: its win, tie and loss counts over the cycle
C(52,5) x C(47,5) x C(42,5).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import comb, factorial

import numpy as np
from numba import njit, prange

from certify import hands
from certify.errors import InputError

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
    flush = np.array([hands._flush_value(int(m)) if c.max() == 1 else -1
                      for m, c in zip(masks, counts)], np.int64)
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


@njit(cache=True)
def _zero_on(v, counts, out):
    for r in range(N_RANKS):
        out[r] = 0 if counts[r] > 0 else v[r]
    return out


@njit(cache=True)
def _config_count(p, x, mono_p, mono_x, e_free, threshold, straights_below, multinom, u, v, w):
    """Ways to deal hands of profiles p and x (one suit each where ``mono_*``, else any suits)
    and a non-flush redraw hand for the dealer, all disjoint."""
    prod_u = 1
    shared = False
    for r in range(N_RANKS):
        m = mono_p * p[r] + mono_x * x[r]
        qp = (1 - mono_p) * p[r]
        qx = (1 - mono_x) * x[r]
        u[r] = multinom[4 - m, qp, qx]  # the free hands' suits when the dealer misses rank r
        v[r] = multinom[3 - m, qp, qx] if m <= 3 else 0  # ... when a one-suit dealer holds it
        prod_u *= u[r]
        if p[r] > 0 and x[r] > 0:
            shared = True
    if mono_p and mono_x:
        colourings = 12 if shared else 16
    elif mono_p or mono_x:
        colourings = 4
    else:
        colourings = 1
    # a dealer of any suits holds one of the a[r] cards left at each of his ranks
    dealer_any = colourings * prod_u * e_free
    f0 = junk_sum(u, v, threshold, straights_below)
    if not mono_p and not mono_x:
        dealer_one_suit = 4 * f0
    elif mono_p != mono_x:
        fh = junk_sum(u, _zero_on(v, p if mono_p else x, w), threshold, straights_below)
        dealer_one_suit = 12 * (f0 - fh) + 16 * fh  # sharing a rank with the mono hand or not
    else:
        fp = junk_sum(u, _zero_on(v, p, w), threshold, straights_below)
        fx = junk_sum(u, _zero_on(v, x, w), threshold, straights_below)
        for r in range(N_RANKS):
            w[r] = 0 if p[r] > 0 or x[r] > 0 else v[r]
        fpx = junk_sum(u, w, threshold, straights_below)
        e0 = 1 if shared else 0
        dealer_one_suit = (COLOURINGS3[e0] * fpx + COLOURINGS3[e0 + 1] * (fx - fpx + fp - fpx)
                           + COLOURINGS3[e0 + 2] * (f0 - fp - fx + fpx))
    return dealer_any - dealer_one_suit


@njit(cache=True, inline="always")
def _tally(out, dense, value_p, value_x, count):
    if count == 0:
        return
    k = 0 if value_x < value_p else (1 if value_x == value_p else 2)
    out[dense, k] += count


@njit(cache=True, parallel=True)
def stand_redraw_counts(counts, free_values, flush_values, dense_of, threshold, straights_below,
                        multinom, n_values):
    """(n_values, 3): over every (P, D1, X) with D1 a redraw hand, by P's dense value: X below,
    equal to, above P. The count of a pair of profiles is symmetric in them, so each unordered
    pair is counted once and tallied for both roles."""
    n = counts.shape[0]
    tallies = np.zeros((BLOCKS, n_values, 3), np.int64)
    for block in prange(BLOCKS):
        out = tallies[block]
        a = np.empty(N_RANKS, np.int64)
        ones = np.ones(N_RANKS, np.int64)
        u = np.empty(N_RANKS, np.int64)
        v = np.empty(N_RANKS, np.int64)
        w = np.empty(N_RANKS, np.int64)
        c = np.zeros((2, 2), np.int64)
        for i in range(block, n, BLOCKS):
            p = counts[i]
            dp = 1 if flush_values[i] >= 0 else 0
            for j in range(i, n):
                x = counts[j]
                feasible = True
                for r in range(N_RANKS):
                    a[r] = 4 - p[r] - x[r]
                    if a[r] < 0:
                        feasible = False
                if not feasible:
                    continue
                dx = 1 if flush_values[j] >= 0 else 0
                e_free = junk_sum(ones, a, threshold, straights_below)
                for mp in range(dp + 1):
                    for mx in range(dx + 1):
                        c[mp, mx] = _config_count(p, x, mp, mx, e_free, threshold, straights_below,
                                                  multinom, u, v, w)
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
    return stand_redraw_counts(prof.counts, prof.free_values, prof.flush_values,
                               dense_index(prof, values), threshold, straights, _multinomials(),
                               len(values))
