"""Numba kernels of the board shape's bulk simulation (``certify.rules.board``): the derived
strategy played deck by deck.

The counting is ``certify.rules.board_streets_kernel`` (``showdown_codes_by_suit_class``,
``path_counts``): the six cells (the dealer qualifies or not, the player wins / ties / loses) and a
net ``base[cell, category] + m * unit[cell, category]`` (integers, scaled by the sheet's common
denominator) at the Play's multiple m are the same here. The river decision is taken by the exact
expectation against every dealer hand the unseen cards make, the flop one from the count's table.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from certify.hands import eval7_nb

from certify.rules.board_streets_kernel import ADD, CHECK, FOLD, N_CELLS  # noqa: F401  (the count's own)

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
    f = np.sort(board[:3])
    key = f[0] + (f[1] * (f[1] - 1)) // 2 + (f[2] * (f[2] - 1) * (f[2] - 2)) // 6
    p = flop_perm[key]
    a, b = perms[p, h0], perms[p, h1]
    return flop_choice[flop_lookup[key], _pair_index(min(a, b), max(a, b))]


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


@njit(cache=True)
def play_board_rounds(decks, hole_class, class_option, pre_kind, flop_lookup, flop_perm, perms, flop_choice,
                      flop_kind, river_kind, river_mult, base, unit, fold_river, qual,
                      pre_index, flop_index, river_index, fold_index, side_index, side_fold, side_paid_on_fold,
                      ev, dealt):
    """Deal and play each deck: player 0-1, dealer 2-3, flop 4-6, turn and river 7-8. Preflop by the
    class table, the flop by the table of the canonical flop (the hole carried by the same suit
    permutation), the river by the exact expectation against every dealer hand; then the showdown.
    ``ev[r, 0]``: the main event (-1 where the sheet has none: a defect); ``ev[r, 1 + s]``: side s."""
    used = np.zeros(52, np.bool_)
    board = np.empty(5, np.int64)
    cnt = np.zeros(N_CELLS, np.int64)
    for r in range(decks.shape[0]):
        d = decks[r]
        h0, h1 = np.int64(d[0]), np.int64(d[1])
        for i in range(5):
            board[i] = d[4 + i]
        mine = eval7_nb(board[0], board[1], board[2], board[3], board[4], h0, h1)
        theirs = eval7_nb(board[0], board[1], board[2], board[3], board[4], np.int64(d[2]), np.int64(d[3]))
        cat = mine >> 20
        dealt[r] = cat
        q = theirs >= qual
        cell = (0 if q else 3) + (0 if mine > theirs else 1 if mine == theirs else 2)
        folded = False
        o = class_option[hole_class[h0, h1]]
        if pre_kind[o] == ADD:
            ev[r, 0] = pre_index[o, cell, cat]
        elif pre_kind[o] == FOLD:
            ev[r, 0] = fold_index[0]
            folded = True
        else:
            fo = flop_option(h0, h1, board, flop_lookup, flop_perm, perms, flop_choice)
            if flop_kind[fo] == ADD:
                ev[r, 0] = flop_index[fo, cell, cat]
            elif flop_kind[fo] == FOLD:
                ev[r, 0] = fold_index[1]
                folded = True
            else:
                ro = river_option(h0, h1, board, qual, river_kind, river_mult, base, unit, fold_river, used, cnt)
                if river_kind[ro] == FOLD:
                    ev[r, 0] = fold_index[2]
                    folded = True
                else:
                    ev[r, 0] = river_index[ro, cell, cat]
        for s in range(side_index.shape[0]):
            if folded and not side_paid_on_fold[s]:
                ev[r, 1 + s] = side_fold[s]
            else:
                ev[r, 1 + s] = side_index[s, cat]
