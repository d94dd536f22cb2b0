"""Numba kernel of the board shape's exact analysis (``certify.rules.board``).

Hold'em cards: two to the player, two to the dealer, a flop of three and two more board cards; the
player decides before the flop, on the flop and on the river. For each suit-canonical flop (with its
orbit weight) and each turn-river pair, every two-card hand left in the deck (C(47, 2) = 1,081) is
valued once on that board: the player's candidate holes and the dealer's are the same set. Sorted
by value, each hand's dealer hands below / tied / above that share no card with it are counted by
inclusion-exclusion over its two cards (the hands before it, less those holding its first or its
second card), split by whether the dealer qualifies: six cells per (hole, board).

A net result is linear in the decision wager's multiple m: ``base[cell, category] + m *
unit[cell, category]`` (integers, scaled by the sheet's common denominator). From the cells the
river decision is taken per (hole, board), the flop decision per (hole, flop) from the sums over
turn and river, and the preflop one outside (per starting-hand class: the class sums over the
canonical flops weighted by their orbits are exact, the class being closed under suit permutation).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from certify.hands import eval7_nb

N_CELLS = 6  # dealer qualifies and player wins / ties / loses; dealer does not, the same three
QW, QT, QL, NW, NT, NL = range(N_CELLS)
N_CATEGORIES = 10
FOLD, CHECK, ADD = 0, 1, 2  # option kinds
_INDEX_BITS = 11  # a hand's position among the 1,081 in a sort key


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


@njit(cache=True)
def _flop_work(flop, qual, river_kind, river_mult, base, unit, fold_river,
               played, river_cells, river_fold, river_value,
               on_board, keys, hx, hy, qwith, below_q, below_n, group, cnt):
    """Every turn-river pair of one flop: accumulate per hole (pair index) the cells of all boards
    (``played``: the path of a Play already made), the cells of the river option taken
    (``river_cells``), the folds by category (``river_fold``) and the river value taken."""
    for i in range(3):
        on_board[flop[i]] = True
    f0, f1, f2 = flop[0], flop[1], flop[2]
    for t in range(52):
        if on_board[t]:
            continue
        for r in range(t + 1, 52):
            if on_board[r]:
                continue
            on_board[t] = on_board[r] = True
            k = 0
            for x in range(52):
                if on_board[x]:
                    continue
                for y in range(x + 1, 52):
                    if not on_board[y]:
                        v = eval7_nb(f0, f1, f2, t, r, x, y)
                        keys[k] = (np.int64(v) << _INDEX_BITS) | k
                        hx[k] = x
                        hy[k] = y
                        k += 1
            ks = keys[:k]
            ks.sort()
            qwith[:] = 0
            q_total = 0
            for i in range(k):
                if (ks[i] >> _INDEX_BITS) >= qual:
                    h = ks[i] & ((1 << _INDEX_BITS) - 1)
                    qwith[hx[h]] += 1
                    qwith[hy[h]] += 1
                    q_total += 1
            n_total = k - q_total
            per_card = 52 - 5 - 1  # the hands holding a given card off the board
            dealer_hands = (50 - 5) * (50 - 6) // 2
            below_q[:] = 0
            below_n[:] = 0
            done_q = 0
            done_n = 0
            g0 = 0
            while g0 < k:
                v = ks[g0] >> _INDEX_BITS
                g1 = g0
                while g1 < k and (ks[g1] >> _INDEX_BITS) == v:
                    h = ks[g1] & ((1 << _INDEX_BITS) - 1)
                    group[hx[h]] += 1
                    group[hy[h]] += 1
                    g1 += 1
                q = v >= qual
                cat = v >> 20
                for i in range(g0, g1):
                    h = ks[i] & ((1 << _INDEX_BITS) - 1)
                    x, y = hx[h], hy[h]
                    equal = (g1 - g0) + 1 - group[x] - group[y]
                    lower_q = done_q - below_q[x] - below_q[y]
                    lower_n = done_n - below_n[x] - below_n[y]
                    disjoint_q = q_total - qwith[x] - qwith[y] + (1 if q else 0)
                    disjoint_n = (n_total - (per_card - qwith[x]) - (per_card - qwith[y])
                                  + (0 if q else 1))
                    tie_q = equal if q else 0
                    tie_n = 0 if q else equal
                    cnt[QW] = lower_q
                    cnt[QT] = tie_q
                    cnt[QL] = disjoint_q - lower_q - tie_q
                    cnt[NW] = lower_n
                    cnt[NT] = tie_n
                    cnt[NL] = disjoint_n - lower_n - tie_n
                    p = _pair_index(x, y)
                    for c in range(N_CELLS):
                        played[p, c, cat] += cnt[c]
                    o, best = _best(river_kind, river_mult, cnt, cat, base, unit, fold_river * dealer_hands)
                    river_value[p] += best
                    if river_kind[o] == FOLD:
                        river_fold[p, cat] += dealer_hands
                    else:
                        for c in range(N_CELLS):
                            river_cells[p, o, c, cat] += cnt[c]
                for i in range(g0, g1):
                    h = ks[i] & ((1 << _INDEX_BITS) - 1)
                    if q:
                        below_q[hx[h]] += 1
                        below_q[hy[h]] += 1
                    else:
                        below_n[hx[h]] += 1
                        below_n[hy[h]] += 1
                    group[hx[h]] = 0
                    group[hy[h]] = 0
                if q:
                    done_q += g1 - g0
                else:
                    done_n += g1 - g0
                g0 = g1
            on_board[t] = on_board[r] = False
    for i in range(3):
        on_board[flop[i]] = False


@njit(cache=True)
def _dot(cells, m, base, unit):
    v = 0
    for c in range(N_CELLS):
        for cat in range(N_CATEGORIES):
            if cells[c, cat]:
                v += cells[c, cat] * (base[c, cat] + m * unit[c, cat])
    return v


@njit(cache=True, parallel=True)
def board_counts(flops, weights, hole_class, n_classes, qual, river_kind, river_mult, flop_kind, flop_mult,
                 base, unit, fold_river, fold_flop, n_chunks):
    """Per chunk of canonical flops and per starting-hand class (summed over its holes, weighted
    by the flop's orbit): ``all_cells`` (every board: a Play made preflop), ``flop_cells`` per flop
    option (the cells of the hands that took it), ``river_cells`` per river option, ``river_fold``
    by category, ``check_value`` (the value of checking preflop: the flop option taken, summed)."""
    n_flops = flops.shape[0]
    n_river = river_kind.size
    n_flop = flop_kind.size
    all_cells = np.zeros((n_chunks, n_classes, N_CELLS, N_CATEGORIES), np.int64)
    flop_cells = np.zeros((n_chunks, n_classes, n_flop, N_CELLS, N_CATEGORIES), np.int64)
    river_cells = np.zeros((n_chunks, n_classes, n_river, N_CELLS, N_CATEGORIES), np.int64)
    river_fold = np.zeros((n_chunks, n_classes, N_CATEGORIES), np.int64)
    flop_fold = np.zeros((n_chunks, n_classes, N_CATEGORIES), np.int64)
    check_value = np.zeros((n_chunks, n_classes), np.int64)
    flop_choice = np.full((n_flops, 1326), -1, np.int8)  # the flop option taken per (flop, hole)
    boards_per_flop = 47 * 46 // 2
    dealer_hands = 45 * 44 // 2
    for chunk in prange(n_chunks):
        played = np.zeros((1326, N_CELLS, N_CATEGORIES), np.int64)
        r_cells = np.zeros((1326, n_river, N_CELLS, N_CATEGORIES), np.int64)
        r_fold = np.zeros((1326, N_CATEGORIES), np.int64)
        r_value = np.zeros(1326, np.int64)
        on_board = np.zeros(52, np.bool_)
        keys = np.empty(1081, np.int64)
        hx = np.empty(1081, np.int64)
        hy = np.empty(1081, np.int64)
        qwith = np.zeros(52, np.int64)
        below_q = np.zeros(52, np.int64)
        below_n = np.zeros(52, np.int64)
        group = np.zeros(52, np.int64)
        cnt = np.zeros(N_CELLS, np.int64)
        for fi in range(chunk * n_flops // n_chunks, (chunk + 1) * n_flops // n_chunks):
            flop = flops[fi]
            w = weights[fi]
            played[:] = 0
            r_cells[:] = 0
            r_fold[:] = 0
            r_value[:] = 0
            _flop_work(flop, qual, river_kind, river_mult, base, unit, fold_river,
                       played, r_cells, r_fold, r_value,
                       on_board, keys, hx, hy, qwith, below_q, below_n, group, cnt)
            for i in range(3):
                on_board[flop[i]] = True
            for y in range(52):
                if on_board[y]:
                    continue
                for x in range(y):
                    if on_board[x]:
                        continue
                    p = _pair_index(x, y)
                    cls = hole_class[x, y]
                    best_o = -1
                    best_v = 0
                    for o in range(n_flop):
                        if flop_kind[o] == FOLD:
                            v = fold_flop * dealer_hands * boards_per_flop
                        elif flop_kind[o] == CHECK:
                            v = r_value[p]
                        else:
                            v = _dot(played[p], flop_mult[o], base, unit)
                        if best_o < 0 or v > best_v:
                            best_o = o
                            best_v = v
                    check_value[chunk, cls] += w * best_v
                    flop_choice[fi, p] = best_o
                    kind = flop_kind[best_o]
                    for cat in range(N_CATEGORIES):
                        for c in range(N_CELLS):
                            n = w * played[p, c, cat]
                            all_cells[chunk, cls, c, cat] += n
                            if kind == ADD:
                                flop_cells[chunk, cls, best_o, c, cat] += n
                            elif kind == FOLD:
                                flop_fold[chunk, cls, cat] += n
                            else:
                                for o in range(n_river):
                                    river_cells[chunk, cls, o, c, cat] += w * r_cells[p, o, c, cat]
                        if kind == CHECK:
                            river_fold[chunk, cls, cat] += w * r_fold[p, cat]
            for i in range(3):
                on_board[flop[i]] = False
    return all_cells, flop_cells, river_cells, river_fold, flop_fold, check_value, flop_choice


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
