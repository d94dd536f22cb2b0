"""Compiled kernels of the Five Card Mulligan analysis (see ``certify.analysis.mulligan``).

Per player-hand suit class P (sorted cards, value v; the first five are counted by rank profiles,
``counting.hands_avoiding_below``):

* ``simulate_classes``: Monte Carlo of the rest, with common random numbers for the two decisions.
  Each scenario deals from the 47 unseen cards the dealer's first five D1, then five cards Y (a
  mulligan's new hand), then, only when D1 is below the threshold, five cards X (his redraw, the
  same under both decisions). D1, the player's new five and the dealer's new five are three
  disjoint uniformly random 5-sets of the 47 whichever is dealt first, so each decision's outcome
  has its true distribution, and the two decisions face the same dealer hand (common random
  numbers: their difference has a small variance).

Random numbers: SplitMix64, one stream per (seed, pass, class), so results do not depend on how
threads are scheduled. Five cards are dealt from one 32-bit draw (Brackett-Rozinsky and Lemire's
batched ranged integers): Lemire's multiply-and-reject on the product of the five ranges (below
2^32), its index read digit by digit, so exactly uniform (no modulo bias) at a fifth of the draws.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from certify.hands import eval5_nb
from certify.pool import cpus, map_in_order, row_ranges

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
MASK32 = np.uint64(0xFFFFFFFF)

# the joint tally of a scenario: [dealer stood on his first five (0) or redrew (1),
#   standing: the player's hand wins / ties / loses,
#   a mulligan: the new hand wins with category 0..9 / ties (10) / loses (11)]
STAND_WIN, STAND_TIE, STAND_LOSE = 0, 1, 2
MULL_TIE, MULL_LOSE = 10, 11


@njit(cache=True, inline="always")
def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * MIX1
    z = (z ^ (z >> np.uint64(27))) * MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def stream_state(seed, stream, index):
    """The starting state of the stream for (seed, pass, class index)."""
    s = _mix(np.uint64(seed) * GOLDEN + np.uint64(0x632BE59BD9B4E019))
    s = _mix(s ^ (np.uint64(stream) * MIX2 + np.uint64(1)))
    return _mix(s ^ (np.uint64(index) * MIX1 + np.uint64(7)))


@njit(cache=True, inline="always")
def _deal_five(state, rest, first, digits):
    """A partial Fisher-Yates step of five: rest[first:first + 5] become five uniform distinct cards of
    rest[first:]; returns the new state. The five indices (ranges n, n - 1, .., n - 4, their product
    N < 2^32) are the digits of one Lemire draw on N: x * N = index * 2^32 + leftover, read range by
    range; a leftover below 2^32 mod N is rejected, as in Lemire's single draw."""
    n = rest.shape[0] - first
    bound = np.uint64(n * (n - 1) * (n - 2) * (n - 3) * (n - 4))
    threshold = (np.uint64(1 << 32) - bound) % bound
    while True:
        state = state + GOLDEN
        left = _mix(state) >> np.uint64(32)
        for i in range(5):
            prod = left * np.uint64(n - i)
            digits[i] = np.int64(prod >> np.uint64(32))
            left = prod & MASK32
        if left >= threshold:
            break
    for i in range(5):
        j = first + i + digits[i]
        t = rest[first + i]
        rest[first + i] = rest[j]
        rest[j] = t
    return state


@njit(cache=True)
def _simulate_class(p, v, n, stands_value, state, joint):
    rest = np.empty(47, np.int64)
    k = 0
    for c in range(52):
        if c != p[0] and c != p[1] and c != p[2] and c != p[3] and c != p[4]:
            rest[k] = c
            k += 1
    digits = np.empty(5, np.int64)
    for _ in range(n):
        state = _deal_five(state, rest, 0, digits)  # the dealer's first five
        state = _deal_five(state, rest, 5, digits)  # a mulligan's new hand
        d1 = eval5_nb(rest[0], rest[1], rest[2], rest[3], rest[4])
        y = eval5_nb(rest[5], rest[6], rest[7], rest[8], rest[9])
        stood = d1 >= stands_value
        dealer = d1
        if not stood:  # his redraw, dealt only when he takes it
            state = _deal_five(state, rest, 10, digits)
            dealer = eval5_nb(rest[10], rest[11], rest[12], rest[13], rest[14])
        if v > dealer:
            s_out = STAND_WIN
        elif v == dealer:
            s_out = STAND_TIE
        else:
            s_out = STAND_LOSE
        if y > dealer:
            m_out = y >> 20
        elif y == dealer:
            m_out = MULL_TIE
        else:
            m_out = MULL_LOSE
        joint[0 if stood else 1, s_out, m_out] += 1


@njit(cache=True, nogil=True)
def _simulate_range(reps, values, samples, stands_value, seed, stream, first, stop, joint):
    """``simulate_classes`` for the classes first .. stop - 1, tallied into ``joint``."""
    for ci in range(first, stop):
        _simulate_class(reps[ci], values[ci], samples[ci], stands_value, stream_state(seed, stream, ci), joint[ci])


SIMULATE_CHUNKS = 64  # ranges of classes, run on the process's threads (each class has its own stream)


def simulate_classes(reps, values, samples, stands_value, seed, stream):
    """Joint tallies per class, shape (n, 2, 3, 12): [dealer stood on his first five (0) or
    redrew (1), stand outcome (win, tie, lose), mulligan outcome (win with category 0..9, tie,
    lose)], from ``samples[c]`` scenarios of class c. Class c draws from its own stream, so the
    tallies do not depend on how the classes are split among threads."""
    n = reps.shape[0]
    joint = np.zeros((n, 2, 3, 12), np.int64)
    map_in_order(_simulate_range, [(reps, values, samples, np.int64(stands_value), np.int64(seed), np.int64(stream),
                                    lo, hi, joint) for lo, hi in row_ranges(n, SIMULATE_CHUNKS)], cpus())
    return joint
