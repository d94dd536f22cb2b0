"""Numba kernels for the exact Texas Hold'em Bonus analysis.

Two passes over a deck of ``n`` cards (``deck`` holds their codes; the full game uses all 52):

1. ``showdown_codes``: for every 5-card board, evaluate every two-card hole left in the deck once,
   sort the values, then for each representative player hole count the dealer holes that are
   disjoint from it and lower / equal by inclusion-exclusion over the two player cards
   (all holes lower, minus the holes holding the player's first card, minus those holding the second).
   The result is one packed int32 per (player hole, board): wins | ties << 10 | strong << 20,
   where "strong" means the player's hand reaches the category that makes the Ante pay.
2. ``decision_counts``: per player hole, walk every board the rest of the deck can make and derive
   the optimal River decision (per 4-card board: bet iff wins > losses over river and dealer hole)
   and the optimal Turn decision (per flop: bet iff wins > losses over turn, river and dealer hole).
   Each bet adds one unit won or lost on the same showdown, so the two are independent. It returns,
   per hole, the number of deals (flop, then ordered turn and river, then dealer hole) in each
   (bets made, result) cell; the Flop multiple and the preflop decision are applied outside.
   The same walk counts the spec's simple strategy (bet with a category or better when a hole
   card plays), which is what the simulation plays and is tallied against.

Boards are indexed by their colex rank: the board {i0 < i1 < i2 < i3 < i4} (deck indices) has
index C(i0,1) + C(i1,2) + C(i2,3) + C(i3,4) + C(i4,5).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from certify.hands import best6_nb, eval5_nb, eval7_nb

TIE_SHIFT = 10
STRONG_SHIFT = 20
COUNT_MASK = (1 << TIE_SHIFT) - 1
NOT_DEALT = -1  # code for a board that shares a card with the player's hole

# Result columns of the decision counts.
WIN_STRONG, WIN_WEAK, TIE, LOSE = 0, 1, 2, 3
# Bet-pattern rows: 2 * (turn bet made) + (river bet made).
N_PATTERNS, N_RESULTS = 4, 4


def binomial_table(n_max: int = 52, k_max: int = 5) -> np.ndarray:
    """``table[n, k] = C(n, k)`` as int64, zero when k > n."""
    table = np.zeros((n_max + 1, k_max + 1), dtype=np.int64)
    for n in range(n_max + 1):
        table[n, 0] = 1
        for k in range(1, min(n, k_max) + 1):
            table[n, k] = table[n - 1, k - 1] + (table[n - 1, k] if k <= n - 1 else 0)
    return table


@njit(cache=True)
def all_boards(n: int) -> np.ndarray:
    """Every 5-subset of range(n) in colex order, so row i is the board of colex rank i."""
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


@njit(cache=True)
def _showdown_chunk(deck, reps, boards, min_category, start, stop, out):
    n = deck.size
    n_rest = n - 5
    values = np.empty((n, n), dtype=np.int32)
    flat = np.empty(n_rest * (n_rest - 1) // 2, dtype=np.int32)
    rest = np.empty(n_rest, dtype=np.int64)
    on_board = np.zeros(n, dtype=np.bool_)
    for bi in range(start, stop):
        b0, b1, b2, b3, b4 = boards[bi, 0], boards[bi, 1], boards[bi, 2], boards[bi, 3], boards[bi, 4]
        on_board[b0] = on_board[b1] = on_board[b2] = on_board[b3] = on_board[b4] = True
        k = 0
        for i in range(n):
            if not on_board[i]:
                rest[k] = i
                k += 1
        c0, c1, c2, c3, c4 = deck[b0], deck[b1], deck[b2], deck[b3], deck[b4]
        f = 0
        for x in range(n_rest):
            ix = rest[x]
            for y in range(x + 1, n_rest):
                iy = rest[y]
                v = eval7_nb(c0, c1, c2, c3, c4, deck[ix], deck[iy])
                values[ix, iy] = v
                values[iy, ix] = v
                flat[f] = v
                f += 1
        flat.sort()
        for r in range(reps.shape[0]):
            a = reps[r, 0]
            b = reps[r, 1]
            if on_board[a] or on_board[b]:
                out[r, bi] = NOT_DEALT
                continue
            v = values[a, b]
            lower = np.searchsorted(flat, v, "left")
            equal = np.searchsorted(flat, v, "right") - lower - 1  # minus the player's own hole
            for x in range(n_rest):
                ix = rest[x]
                if ix != a and ix != b:
                    va = values[a, ix]
                    vb = values[b, ix]
                    if va < v:
                        lower -= 1
                    elif va == v:
                        equal -= 1
                    if vb < v:
                        lower -= 1
                    elif vb == v:
                        equal -= 1
            strong = 1 if (v >> 20) >= min_category else 0
            out[r, bi] = lower | (equal << TIE_SHIFT) | (strong << STRONG_SHIFT)
        on_board[b0] = on_board[b1] = on_board[b2] = on_board[b3] = on_board[b4] = False


@njit(cache=True, parallel=True)
def showdown_codes(deck, reps, boards, min_category, n_chunks):
    """Packed (wins, ties, strong) per (representative hole, board); NOT_DEALT where they overlap.

    ``reps`` is an (R, 2) array of deck indices; ``boards`` an (B, 5) array of deck indices.
    """
    n_boards = boards.shape[0]
    out = np.empty((reps.shape[0], n_boards), dtype=np.int32)
    for chunk in prange(n_chunks):
        start = chunk * n_boards // n_chunks
        stop = (chunk + 1) * n_boards // n_chunks
        _showdown_chunk(deck, reps, boards, min_category, start, stop, out)
    return out


@njit(cache=True)
def _board_class_codes(deck, board, min_category, local, keys, hole_x, hole_y, below, group):
    """local[x, y] = the packed code of every hole {x, y} off ``board`` (deck indices): the holes
    are sorted by value once, then each hole's lower / equal disjoint holes are the holes before it
    / in its value group, less those sharing its first or its second card."""
    n = deck.size
    on_board = np.zeros(n, np.bool_)
    for i in range(5):
        on_board[board[i]] = True
    c0, c1, c2, c3, c4 = deck[board[0]], deck[board[1]], deck[board[2]], deck[board[3]], deck[board[4]]
    k = 0
    for x in range(n):
        if not on_board[x]:
            for y in range(x + 1, n):
                if not on_board[y]:
                    keys[k] = (np.int64(eval7_nb(c0, c1, c2, c3, c4, deck[x], deck[y])) << 16) | k
                    hole_x[k] = x
                    hole_y[k] = y
                    k += 1
    order = np.sort(keys[:k])
    below[:] = 0  # per card: holes of lower value holding it
    done = 0
    g0 = 0
    while g0 < k:
        v = order[g0] >> 16
        g1 = g0
        while g1 < k and (order[g1] >> 16) == v:
            h = order[g1] & 0xFFFF
            group[hole_x[h]] += 1
            group[hole_y[h]] += 1
            g1 += 1
        strong = 1 if (v >> 20) >= min_category else 0
        for i in range(g0, g1):
            h = order[i] & 0xFFFF
            x, y = hole_x[h], hole_y[h]
            lower = done - below[x] - below[y]
            equal = (g1 - g0) + 1 - group[x] - group[y]  # the others in the group, less shared cards
            local[x, y] = local[y, x] = lower | (equal << TIE_SHIFT) | (strong << STRONG_SHIFT)
        for i in range(g0, g1):
            h = order[i] & 0xFFFF
            below[hole_x[h]] += 1
            below[hole_y[h]] += 1
            group[hole_x[h]] = 0
            group[hole_y[h]] = 0
        done += g1 - g0
        g0 = g1


@njit(cache=True, parallel=True)
def showdown_codes_by_suit_class(deck, reps, boards, min_category, perms, inverse, n_chunks):
    """``showdown_codes`` over every board of a deck closed under the 24 suit permutations
    (``perms[p, i]``: the deck index of card i permuted; ``inverse[p]``: the inverse's row).

    Only one board per suit class is evaluated (its suit masks in descending order); every board
    of its class is an image pi(board), and the code of rep r there is the class board's code of
    the hole pi^-1(r)."""
    n = deck.size
    binom = _binomials(n)
    n_boards = boards.shape[0]
    out = np.empty((reps.shape[0], n_boards), dtype=np.int32)
    n_holes = n * (n - 1) // 2
    for chunk in prange(n_chunks):
        local = np.zeros((n, n), np.int32)
        keys = np.empty(n_holes, np.int64)
        hole_x = np.empty(n_holes, np.int64)
        hole_y = np.empty(n_holes, np.int64)
        below = np.zeros(n, np.int64)
        group = np.zeros(n, np.int64)
        masks = np.zeros(4, np.int64)
        image = np.empty(5, np.int64)
        on_image = np.zeros(n, np.bool_)
        for bi in range(chunk * n_boards // n_chunks, (chunk + 1) * n_boards // n_chunks):
            board = boards[bi]
            masks[:] = 0
            for i in range(5):
                masks[deck[board[i]] & 3] |= 1 << (deck[board[i]] >> 2)
            if masks[0] < masks[1] or masks[1] < masks[2] or masks[2] < masks[3]:
                continue  # not its class's board
            _board_class_codes(deck, board, min_category, local, keys, hole_x, hole_y, below, group)
            for p in range(perms.shape[0]):
                for i in range(5):
                    image[i] = perms[p, board[i]]
                    on_image[image[i]] = True
                image.sort()
                bj = _board_index(image[0], image[1], image[2], image[3], image[4], binom)
                q = inverse[p]
                for r in range(reps.shape[0]):
                    a, b = reps[r, 0], reps[r, 1]
                    if on_image[a] or on_image[b]:
                        out[r, bj] = NOT_DEALT
                    else:
                        out[r, bj] = local[perms[q, a], perms[q, b]]
                for i in range(5):
                    on_image[image[i]] = False
    return out


def suit_permutations(deck) -> tuple[np.ndarray, np.ndarray] | None:
    """(perms, inverse) for ``showdown_codes_by_suit_class``, or None when a suit permutation
    takes a card of ``deck`` out of it."""
    from itertools import permutations

    position = {int(c): i for i, c in enumerate(deck)}
    table = list(permutations(range(4)))
    perms = []
    for perm in table:
        row = [position.get(4 * (int(c) >> 2) + perm[int(c) & 3]) for c in deck]
        if None in row:
            return None
        perms.append(row)
    inverse = [table.index(tuple(perm.index(s) for s in range(4))) for perm in table]
    return np.array(perms, np.int64), np.array(inverse, np.int64)


@njit(cache=True)
def _board_index(j0, j1, j2, j3, j4, binom):
    return binom[j0, 1] + binom[j1, 2] + binom[j2, 3] + binom[j3, 4] + binom[j4, 5]


@njit(cache=True)
def _rank3(x, y, z, binom):
    return binom[x, 1] + binom[y, 2] + binom[z, 3]


@njit(cache=True)
def _rank4(w, x, y, z, binom):
    return binom[w, 1] + binom[x, 2] + binom[y, 3] + binom[z, 4]


@njit(cache=True)
def _net(code, dealer_holes, win_num, win_den):
    """(win_num / win_den) * wins - losses, scaled by win_den: the sign of a raise's EV."""
    wins = code & COUNT_MASK
    ties = (code >> TIE_SHIFT) & COUNT_MASK
    return win_num * wins - win_den * (dealer_holes - wins - ties)


@njit(cache=True)
def _hole_decisions(row, to_deck, binom, dealer_holes, win_num, win_den, river_net, turn_net):
    """Fill river_net (per 4-card board) and turn_net (per flop) with the summed wins - losses.

    One walk over the boards adds each board to its five 4-card boards; a flop's sum is then half
    the sum over its 4-card boards (each board of the flop is reached through either of its turn
    and river cards)."""
    m = to_deck.size
    river_net[:] = 0
    for i4 in range(4, m):
        j4 = to_deck[i4]
        for i3 in range(3, i4):
            j3 = to_deck[i3]
            for i2 in range(2, i3):
                j2 = to_deck[i2]
                for i1 in range(1, i2):
                    j1 = to_deck[i1]
                    for i0 in range(i1):
                        d = _net(row[_board_index(to_deck[i0], j1, j2, j3, j4, binom)], dealer_holes, win_num, win_den)
                        river_net[_rank4(i1, i2, i3, i4, binom)] += d
                        river_net[_rank4(i0, i2, i3, i4, binom)] += d
                        river_net[_rank4(i0, i1, i3, i4, binom)] += d
                        river_net[_rank4(i0, i1, i2, i4, binom)] += d
                        river_net[_rank4(i0, i1, i2, i3, binom)] += d
    for i2 in range(2, m):
        for i1 in range(1, i2):
            for i0 in range(i1):
                total = 0
                for t in range(m):
                    if t < i0:
                        total += river_net[_rank4(t, i0, i1, i2, binom)]
                    elif i0 < t < i1:
                        total += river_net[_rank4(i0, t, i1, i2, binom)]
                    elif i1 < t < i2:
                        total += river_net[_rank4(i0, i1, t, i2, binom)]
                    elif t > i2:
                        total += river_net[_rank4(i0, i1, i2, t, binom)]
                turn_net[_rank3(i0, i1, i2, binom)] = total // 2  # even: each board counted twice


@njit(cache=True)
def four_board_patterns(m, binom, turn_bet3, river_bet4, out):
    """out[rank of a 4-card board] = river bet (0 / 1) + 2 x the Turn bets made on its four flops
    (0..4): all a board needs to know of the decisions, whichever of its cards came last."""
    for i3 in range(3, m):
        for i2 in range(2, i3):
            for i1 in range(1, i2):
                for i0 in range(i1):
                    turns = (turn_bet3[_rank3(i1, i2, i3, binom)] + turn_bet3[_rank3(i0, i2, i3, binom)]
                             + turn_bet3[_rank3(i0, i1, i3, binom)] + turn_bet3[_rank3(i0, i1, i2, binom)])
                    k = _rank4(i0, i1, i2, i3, binom)
                    out[k] = river_bet4[k] + 2 * turns


@njit(cache=True)
def _hole_counts(row, to_deck, binom, dealer_holes, patterns4, counts):
    """Add, per board, the deals of each (bets made, result) cell under each set s of decisions
    (``patterns4[s]`` from ``four_board_patterns``) into ``counts[s]``. One walk over the boards
    serves every set (the optimal and the spec's).

    A board is dealt as a 4-card board plus the river (5 ways), the 4-card board as a flop plus the
    turn (4 ways): the River bet is the 4-card board's, the Turn bet the flop's."""
    m = to_deck.size
    n_sets = patterns4.shape[0]
    four = np.empty(5, dtype=np.int64)  # the 4-card boards without each position
    patterns = np.empty(N_PATTERNS, dtype=np.int64)
    for i4 in range(4, m):
        for i3 in range(3, i4):
            for i2 in range(2, i3):
                for i1 in range(1, i2):
                    for i0 in range(i1):
                        code = row[_board_index(to_deck[i0], to_deck[i1], to_deck[i2], to_deck[i3],
                                                to_deck[i4], binom)]
                        wins = code & COUNT_MASK
                        ties = (code >> TIE_SHIFT) & COUNT_MASK
                        strong = (code >> STRONG_SHIFT) & 1
                        losses = dealer_holes - wins - ties
                        four[0] = _rank4(i1, i2, i3, i4, binom)
                        four[1] = _rank4(i0, i2, i3, i4, binom)
                        four[2] = _rank4(i0, i1, i3, i4, binom)
                        four[3] = _rank4(i0, i1, i2, i4, binom)
                        four[4] = _rank4(i0, i1, i2, i3, binom)
                        for s in range(n_sets):
                            patterns[:] = 0
                            for k in range(5):
                                x = patterns4[s, four[k]]
                                river, turns = x & 1, x >> 1
                                patterns[2 + river] += turns
                                patterns[river] += 4 - turns
                            _add_cells(counts[s], patterns, strong, wins, ties, losses)


@njit(cache=True, inline="always")
def _add_cells(counts, patterns, strong, wins, ties, losses):
    for pat in range(N_PATTERNS):
        c = patterns[pat]
        if c:
            if strong:
                counts[pat, WIN_STRONG] += c * wins
            else:
                counts[pat, WIN_WEAK] += c * wins
            counts[pat, TIE] += c * ties
            counts[pat, LOSE] += c * losses


@njit(cache=True)
def _binomials(n):
    binom = np.zeros((n + 1, 6), dtype=np.int64)
    for a in range(n + 1):
        binom[a, 0] = 1
        for k in range(1, 6):
            if k <= a:
                binom[a, k] = binom[a - 1, k - 1] + (binom[a - 1, k] if k <= a - 1 else 0)
    return binom


@njit(cache=True)
def _rest_of_deck(reps, r, n):
    """Deck indices without the hole of rep r, ascending: rep-space index -> deck index."""
    a = min(reps[r, 0], reps[r, 1])
    b = max(reps[r, 0], reps[r, 1])
    to_deck = np.empty(n - 2, dtype=np.int64)
    k = 0
    for i in range(n):
        if i != a and i != b:
            to_deck[k] = i
            k += 1
    return to_deck


@njit(cache=True)
def street_categories(deck, h0, h1, to_deck, binom):
    """The player's hand category with each flop (hole + 3 cards) and each 4-card board (best five
    of six), indexed by the boards' rep-space colex ranks."""
    m = to_deck.size
    flop_category = np.empty(binom[m, 3], dtype=np.int8)
    turn_category = np.empty(binom[m, 4], dtype=np.int8)
    for i2 in range(2, m):
        c2 = deck[to_deck[i2]]
        for i1 in range(1, i2):
            c1 = deck[to_deck[i1]]
            for i0 in range(i1):
                flop_category[_rank3(i0, i1, i2, binom)] = eval5_nb(h0, h1, deck[to_deck[i0]], c1, c2) >> 20
    for i3 in range(3, m):
        c3 = deck[to_deck[i3]]
        for i2 in range(2, i3):
            c2 = deck[to_deck[i2]]
            for i1 in range(1, i2):
                c1 = deck[to_deck[i1]]
                for i0 in range(i1):
                    turn_category[_rank4(i0, i1, i2, i3, binom)] = \
                        best6_nb(h0, h1, deck[to_deck[i0]], c1, c2, c3) >> 20
    return flop_category, turn_category


@njit(cache=True)
def _profile(flop_category, turn_category, turn_bet3, river_bet4, out):
    """out[street, category, 0] += situations, out[street, category, 1] += bets made
    (street 0: Turn bet, seen the flop; street 1: River bet, seen the turn)."""
    for k in range(flop_category.size):
        out[0, flop_category[k], 0] += 1
        out[0, flop_category[k], 1] += turn_bet3[k]
    for k in range(turn_category.size):
        out[1, turn_category[k], 0] += 1
        out[1, turn_category[k], 1] += river_bet4[k]


N_CATEGORIES = 10


@njit(cache=True, parallel=True)
def decision_counts(codes, reps, deck, win_num, win_den, min_net, rule):
    """Per representative hole, deals in each (bet pattern, result) cell under the optimal Turn /
    River decisions and, when ``rule`` is given, under the spec strategy's: two walks over the
    boards per hole (the decisions, then the counts of both strategies at once) and one table of
    the player's category per flop and 4-card board, shared by the profile and the rule.

    ``codes`` comes from ``showdown_codes`` over ``all_boards(deck.size)``; winning raises pay
    win_num / win_den to 1. River bet iff (win_num * wins - win_den * losses) summed over river and
    dealer hole is >= min_net; Turn bet iff the same sum over turn, river and dealer hole is >= min_net.
    min_net=1 bets only when it gains; min_net=0 also bets when indifferent (the same EV).
    ``rule``: (turn category, river category, straight category) of the spec strategy, or an
    empty array for none. Returns ``counts`` (R, 4, 4): [hole, 2 * turn_bet + river_bet,
    WIN_STRONG / WIN_WEAK / TIE / LOSE], each cell a number of (flop, turn, river, dealer hole)
    deals; ``profile`` (R, 2, 10, 2): per street (Turn, River) and the player's category so far,
    [boards seen, bets]; ``rule_counts`` (R, 4, 4) (zeros without a rule)."""
    n = deck.size
    binom = _binomials(n)
    m = n - 2
    dealer_holes = (m - 5) * (m - 6) // 2
    n_sets = 2 if rule.size else 1
    counts = np.zeros((reps.shape[0], N_PATTERNS, N_RESULTS), dtype=np.int64)
    rule_counts = np.zeros((reps.shape[0], N_PATTERNS, N_RESULTS), dtype=np.int64)
    profile = np.zeros((reps.shape[0], 2, N_CATEGORIES, 2), dtype=np.int64)
    for r in prange(reps.shape[0]):
        to_deck = _rest_of_deck(reps, r, n)
        h0, h1 = deck[reps[r, 0]], deck[reps[r, 1]]
        river_net = np.zeros(binom[m, 4], dtype=np.int64)
        turn_net = np.zeros(binom[m, 3], dtype=np.int64)
        row = codes[r]
        _hole_decisions(row, to_deck, binom, dealer_holes, win_num, win_den, river_net, turn_net)
        river_bets = np.zeros((n_sets, binom[m, 4]), dtype=np.int64)
        turn_bets = np.zeros((n_sets, binom[m, 3]), dtype=np.int64)
        river_bets[0] = (river_net >= min_net).astype(np.int64)
        turn_bets[0] = (turn_net >= min_net).astype(np.int64)
        flop_category, turn_category = street_categories(deck, h0, h1, to_deck, binom)
        if rule.size:
            rule_decisions(deck, h0, h1, to_deck, binom, flop_category, turn_category, rule[0], rule[1],
                           rule[2], turn_bets[1], river_bets[1])
        patterns4 = np.empty((n_sets, binom[m, 4]), dtype=np.int64)
        for s in range(n_sets):
            four_board_patterns(m, binom, turn_bets[s], river_bets[s], patterns4[s])
        local = np.zeros((n_sets, N_PATTERNS, N_RESULTS), dtype=np.int64)
        _hole_counts(row, to_deck, binom, dealer_holes, patterns4, local)
        counts[r] = local[0]
        if rule.size:
            rule_counts[r] = local[1]
        local_profile = np.zeros((2, N_CATEGORIES, 2), dtype=np.int64)
        _profile(flop_category, turn_category, turn_bets[0], river_bets[0], local_profile)
        profile[r] = local_profile
    return counts, profile, rule_counts


@njit(cache=True)
def hole_plays_rule(h0, h1, board, category, straight_category):
    """The spec strategy's "a hole card plays": a pocket pair, a hole rank paired on the board, or
    a straight or better (the retired family engine's simple strategy)."""
    r0 = h0 >> 2
    r1 = h1 >> 2
    if r0 == r1 or category >= straight_category:
        return True
    for c in board:
        if (c >> 2) == r0 or (c >> 2) == r1:
            return True
    return False


@njit(cache=True)
def rule_decisions(deck, h0, h1, to_deck, binom, flop_category, four_category, turn_category,
                   river_category, straight_category, turn_bet3, river_bet4):
    """The spec strategy's Turn bet per flop and River bet per 4-card board (rep-space ranks),
    from the player's categories there (``street_categories``), into turn_bet3 / river_bet4."""
    m = to_deck.size
    board = np.empty(4, dtype=np.int64)
    for i2 in range(2, m):
        for i1 in range(1, i2):
            for i0 in range(i1):
                k = _rank3(i0, i1, i2, binom)
                board[0], board[1], board[2] = deck[to_deck[i0]], deck[to_deck[i1]], deck[to_deck[i2]]
                turn_bet3[k] = flop_category[k] >= turn_category and hole_plays_rule(
                    h0, h1, board[:3], flop_category[k], straight_category)
    for i3 in range(3, m):
        for i2 in range(2, i3):
            for i1 in range(1, i2):
                for i0 in range(i1):
                    k = _rank4(i0, i1, i2, i3, binom)
                    board[0], board[1] = deck[to_deck[i0]], deck[to_deck[i1]]
                    board[2], board[3] = deck[to_deck[i2]], deck[to_deck[i3]]
                    river_bet4[k] = four_category[k] >= river_category and hole_plays_rule(
                        h0, h1, board, four_category[k], straight_category)
