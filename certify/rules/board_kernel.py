"""Numba kernels of the board shape's bulk simulation (``certify.rules.board``): the derived
strategy played deck by deck.

The counting is ``certify.rules.board_streets_kernel`` (``showdown_codes_by_suit_class``,
``path_counts``): the six cells (the dealer qualifies or not, the player wins / ties / loses) and a
net ``base[cell, category] + m * unit[cell, category]`` (integers, scaled by the sheet's common
denominator) at the Play's multiple m are the same here. The river decision is taken by the exact
expectation against every dealer hand the unseen cards make, the flop and turn ones from the count's
tables.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from certify.hands import eval7_nb

from certify.rules.board_streets_kernel import ADD, CHECK, FOLD, MAX_OPTIONS, N_CELLS  # noqa: F401  (the count's own)

QW, QT, QL, NW, NT, NL = range(N_CELLS)  # dealer qualifies and player wins / ties / loses; it does not


@njit(cache=True)
def _pair_index(x, y):
    """The index 0..1325 of the hole {x < y}."""
    return y * (y - 1) // 2 + x


@njit(cache=True)
def _best(kind, mult, cnt, cat, base, unit, fold_value):
    """(index, value) of the best option: options are listed by stake ascending, so the strict
    comparison keeps the one leaving less at risk on a tie in expectation."""
    best_o = -1
    best_v = 0
    for o in range(kind.size):
        if kind[o] == FOLD:
            v = fold_value
        else:
            m = mult[o] if kind[o] == ADD else 0
            v = 0
            for c in range(N_CELLS):
                v += cnt[c] * (base[c, cat] + m * unit[c, cat])
        if best_o < 0 or v > best_v:
            best_o = o
            best_v = v
    return best_o, best_v


# ---------------------------------------------------------------- the bulk simulation
@njit(cache=True)
def _cells_against_every_dealer_hand(hole0, hole1, board, used, qual, cnt):
    """The six cells of the player's hand against every dealer hand the unseen cards make."""
    mine = eval7_nb(board[0], board[1], board[2], board[3], board[4], hole0, hole1)
    cnt[:] = 0
    for x in range(52):
        if used[x]:
            continue
        for y in range(x + 1, 52):
            if used[y]:
                continue
            v = eval7_nb(board[0], board[1], board[2], board[3], board[4], x, y)
            cell = 0 if v >= qual else 3
            if v < mine:
                cnt[cell] += 1
            elif v == mine:
                cnt[cell + 1] += 1
            else:
                cnt[cell + 2] += 1
    return mine


@njit(cache=True)
def flop_option(h0, h1, board, flop_lookup, flop_perm, perms, flop_choice):
    """The flop option of the derived strategy: the count's table at the canonical flop of
    ``board[:3]``, the hole carried there by the same suit permutation."""
    f0, f1, f2 = board[0], board[1], board[2]
    if f0 > f1:
        f0, f1 = f1, f0
    if f1 > f2:
        f1, f2 = f2, f1
    if f0 > f1:
        f0, f1 = f1, f0
    key = f0 + (f1 * (f1 - 1)) // 2 + (f2 * (f2 - 1) * (f2 - 2)) // 6
    p = flop_perm[key]
    a, b = perms[p, h0], perms[p, h1]
    return flop_choice[flop_lookup[key], _pair_index(min(a, b), max(a, b))]


@njit(cache=True, inline="always")
def _less_hole(c, a, b):
    """Card ``c``'s position in the deck less the hole cards ``a`` and ``b``."""
    return c - (1 if c > a else 0) - (1 if c > b else 0)


@njit(cache=True)
def turn_option(h0, h1, board, hole_class, rep_perm, rep_cards, perms, turn_choice):
    """The turn option of the derived strategy: the walk's choice for the hole's class
    representative (``turn_choice[class]``, 4-card boards by colex rank among the deck less that
    hole) at the image of ``board[:4]`` under the suit permutation carrying the hole onto it."""
    k = hole_class[h0, h1]
    p = rep_perm[h0, h1]
    a, b = rep_cards[k, 0], rep_cards[k, 1]
    i0 = _less_hole(perms[p, board[0]], a, b)
    i1 = _less_hole(perms[p, board[1]], a, b)
    i2 = _less_hole(perms[p, board[2]], a, b)
    i3 = _less_hole(perms[p, board[3]], a, b)
    if i0 > i1:
        i0, i1 = i1, i0
    if i2 > i3:
        i2, i3 = i3, i2
    if i0 > i2:
        i0, i2 = i2, i0
    if i1 > i3:
        i1, i3 = i3, i1
    if i1 > i2:
        i1, i2 = i2, i1
    rank = i0 + i1 * (i1 - 1) // 2 + i2 * (i2 - 1) * (i2 - 2) // 6 + i3 * (i3 - 1) * (i3 - 2) * (i3 - 3) // 24
    return turn_choice[k, rank]


@njit(cache=True)
def river_option(h0, h1, board, qual, river_kind, river_mult, base, unit, fold_river, used, cnt):
    """The river option of the derived strategy: the exact expectation of each option against
    every dealer hand the cards unseen by the player make (``used``, ``cnt``: scratch arrays)."""
    used[:] = False
    used[h0] = used[h1] = True
    for i in range(5):
        used[board[i]] = True
    mine = _cells_against_every_dealer_hand(h0, h1, board, used, qual, cnt)
    ro, _ = _best(river_kind, river_mult, cnt, mine >> 20, base, unit, fold_river * 990)
    return ro
