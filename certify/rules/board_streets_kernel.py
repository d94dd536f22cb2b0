"""Numba kernels of the exact board-shape analyses: the counting core of Texas Hold'em Bonus
(``certify.rules.board_streets``) and Ultimate Texas Hold'em (``certify.rules.board``).

Two passes over a deck of ``n`` cards (``deck`` holds their codes; the full game uses all 52):

1. The showdown codes (``showdown_code_batches`` of ``board_streets``): for every 5-card board (one
   per board shape evaluated), one hole per pair of card types (rank, flush suit or not) is valued
   and the pairs sorted; for each representative player hole the dealer
   holes disjoint from it are counted by inclusion-exclusion over its two cards: below / equal among
   those that qualify (value at least the dealer's qualifier; 0: all do), how many qualify, below /
   equal among those that do not. One int64 code per (player hole, board) with the player's category
   (``decode_cells``: the six cells QW, QT, QL, NW, NT, NL).
2. A walk per representative hole over every board the rest of the deck makes, taking the decisions:
   - ``decision_counts`` (a wager on each street, no qualifier): the optimal River decision per 4-card
     board (bet iff wins > losses over river and dealer hole) and Turn decision per flop; each bet adds
     one unit won or lost on the same showdown, so the two are independent. It returns per hole the
     deals (flop, ordered turn and river, dealer hole) in each (bets made, result) cell; the first
     wager and the preflop decision are applied outside. The same walk counts the spec's simple
     strategy (bet with a category or better when a hole card plays), which the simulation plays.
   - ``path_counts`` (one Play made before the flop, on the flop or on the river): the river option per
     board, the flop option per flop, by the exact value ``B + m x U`` of a path over the six cells;
     it returns the deals of each path by (cell, category), the preflop decision taken outside.

Boards are indexed by their colex rank: the board {i0 < i1 < i2 < i3 < i4} (deck indices) has
index C(i0,1) + C(i1,2) + C(i2,3) + C(i3,4) + C(i4,5).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from certify.hands import all_boards, best6_nb, eval5_nb, eval7_nb  # noqa: F401  (all_boards: the board order)

# A (player hole, board) code: the dealer holes disjoint from both (at most C(45, 2) = 990 < 2^10)
# that qualify and are below / equal / in all, those that do not and are below / equal, and the
# player's category. Six cells: QW, QT, QL (dealer qualifies: the player wins, ties, loses) and NW,
# NT, NL (it does not); with no qualifier every dealer hole qualifies (QW, QT, QL: wins, ties, losses).
TIE_SHIFT = 10
TOTAL_Q_SHIFT = 20
LOWER_N_SHIFT = 30
EQUAL_N_SHIFT = 40
CATEGORY_SHIFT = 50
COUNT_MASK = (1 << TIE_SHIFT) - 1
N_CELLS = 6
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


# A card's type on a board: its rank, plus 13 when it is of the board's flush suit (the suit with
# three or more board cards, the only one a hole can make a flush in). The value of a hole on the
# board depends only on its two cards' types, so a board's codes are one per pair of types: 91
# rank pairs on a board no flush can be made on, at most 351 on the others, instead of 1,081 holes.
N_TYPES = 26
N_RANK_PAIRS = 13 * 14 // 2
N_TYPE_PAIRS = N_TYPES * (N_TYPES + 1) // 2


@njit(cache=True)
def _board_flush_suit(deck, board):
    """The suit of three or more of the board's cards, or -1."""
    for s in range(3):  # three of five cards: of a suit among the first three cards' suits
        suit = deck[board[s]] & 3
        count = 0
        for i in range(5):
            if (deck[board[i]] & 3) == suit:
                count += 1
        if count >= 3:
            return suit
    return -1


@njit(cache=True)
def _card_type(card, flush_suit):
    return (card >> 2) + (13 if (card & 3) == flush_suit else 0)


@njit(cache=True)
def _type_pair(t0, t1):
    """The index of the pair of types {t0, t1} (w(w+1)/2 + u, u <= w): below 91 for two ranks."""
    u, w = min(t0, t1), max(t0, t1)
    return w * (w + 1) // 2 + u


@njit(cache=True)
def _add_holes(per_card, avail, u, w):
    """Count the holes of type pair (u, w) (``avail``: the cards of each type off the board):
    add to ``per_card[t]`` how many of them hold one given card of type t; return how many."""
    if u == w:
        per_card[u] += avail[u] - 1
        return avail[u] * (avail[u] - 1) // 2
    per_card[u] += avail[w]
    per_card[w] += avail[u]
    return avail[u] * avail[w]


@njit(cache=True)
def _type_codes(deck, board, qual, pair_code, work, keys):
    """pair_code[_type_pair(u, w)] = the code of every hole of card types (u, w) off ``board`` (deck
    indices) against the dealer holes disjoint from it: lower and equal among those that qualify
    (value >= ``qual``; 0: all do), how many qualify, lower and equal among those that do not, and
    the hole's category. Pairs with no hole are left as they are.

    One hole per type pair is valued and the pairs sorted by value; each hole's lower / equal /
    qualifying disjoint holes are then the holes before it / in its value group / qualifying, less
    those sharing its first or its second card (inclusion-exclusion: the hole itself is the one
    sharing both), all counted per type. ``work``: (7, N_TYPES) int64; ``keys``: N_TYPE_PAIRS int64."""
    n = deck.size
    flush_suit = _board_flush_suit(deck, board)
    avail, first, second = work[0], work[1], work[2]
    avail[:] = 0
    for x in range(n):
        if x == board[0] or x == board[1] or x == board[2] or x == board[3] or x == board[4]:
            continue
        t = _card_type(deck[x], flush_suit)
        if avail[t] == 0:
            first[t] = deck[x]
        elif avail[t] == 1:
            second[t] = deck[x]
        avail[t] += 1
    c0, c1, c2, c3, c4 = deck[board[0]], deck[board[1]], deck[board[2]], deck[board[3]], deck[board[4]]
    k = 0
    for w in range(N_TYPES):
        if avail[w] == 0:
            continue
        for u in range(w):
            if avail[u]:
                keys[k] = (np.int64(eval7_nb(c0, c1, c2, c3, c4, first[u], first[w])) << 16) | (w << 5) | u
                k += 1
        if avail[w] >= 2:
            keys[k] = (np.int64(eval7_nb(c0, c1, c2, c3, c4, first[w], second[w])) << 16) | (w << 5) | w
            k += 1
    order = np.sort(keys[:k])
    qwith, below_q, below_n, group = work[3], work[4], work[5], work[6]
    work[3:] = 0
    q_total = 0
    for i in range(k):
        if (order[i] >> 16) >= qual:
            q_total += _add_holes(qwith, avail, (order[i] & 31), (order[i] >> 5) & 31)
    done_q = 0
    done_n = 0
    g0 = 0
    while g0 < k:
        v = order[g0] >> 16
        g1 = g0
        size = 0
        while g1 < k and (order[g1] >> 16) == v:
            size += _add_holes(group, avail, order[g1] & 31, (order[g1] >> 5) & 31)
            g1 += 1
        q = v >= qual
        for i in range(g0, g1):
            u, w = order[i] & 31, (order[i] >> 5) & 31
            equal = size + 1 - group[u] - group[w]  # the others in the group, less shared cards
            disjoint_q = q_total - qwith[u] - qwith[w] + (1 if q else 0)
            code = (disjoint_q << TOTAL_Q_SHIFT) | ((v >> 20) << CATEGORY_SHIFT)
            code |= (done_q - below_q[u] - below_q[w]) | ((done_n - below_n[u] - below_n[w]) << LOWER_N_SHIFT)
            code |= (equal << TIE_SHIFT) if q else (equal << EQUAL_N_SHIFT)
            pair_code[w * (w + 1) // 2 + u] = code
        for i in range(g0, g1):
            u, w = order[i] & 31, (order[i] >> 5) & 31
            _add_holes(below_q if q else below_n, avail, u, w)
            group[u] = 0
            group[w] = 0
        if q:
            done_q += size
        else:
            done_n += size
        g0 = g1


@njit(cache=True)
def _board_class_codes(deck, board, qual, local, keys, hole_x, hole_y, scratch):
    """local[x, y] = the code (``_type_codes``) of every hole {x, y} off ``board`` (deck indices).
    ``keys``, ``hole_x``, ``hole_y`` and ``scratch`` are not used any more (the per-hole sort they
    held became a per-type one): kept so the river table's callers need no change."""
    pair_code = np.empty(N_TYPE_PAIRS, np.int64)
    _type_codes(deck, board, qual, pair_code, np.empty((7, N_TYPES), np.int64), np.empty(N_TYPE_PAIRS, np.int64))
    flush_suit = _board_flush_suit(deck, board)
    n = deck.size
    for x in range(n):
        if x == board[0] or x == board[1] or x == board[2] or x == board[3] or x == board[4]:
            continue
        tx = _card_type(deck[x], flush_suit)
        for y in range(x + 1, n):
            if y == board[0] or y == board[1] or y == board[2] or y == board[3] or y == board[4]:
                continue
            local[x, y] = local[y, x] = pair_code[_type_pair(tx, _card_type(deck[y], flush_suit))]


@njit(cache=True, inline="always")
def decode_cells(code, dealer_holes, cnt):
    """The six cells of a code into ``cnt`` (QW, QT, QL, NW, NT, NL); returns the category."""
    total_q = (code >> TOTAL_Q_SHIFT) & COUNT_MASK
    cnt[0] = code & COUNT_MASK
    cnt[1] = (code >> TIE_SHIFT) & COUNT_MASK
    cnt[2] = total_q - cnt[0] - cnt[1]
    cnt[3] = (code >> LOWER_N_SHIFT) & COUNT_MASK
    cnt[4] = (code >> EQUAL_N_SHIFT) & COUNT_MASK
    cnt[5] = dealer_holes - total_q - cnt[3] - cnt[4]
    return code >> CATEGORY_SHIFT


# A board's shape: the ranks of its cards of the flush suit (none when it has no flush suit) and the
# multiset of its other ranks. Over a deck closed under suit permutations the shape fixes the card
# types and their counts off the board, so the type-pair codes: 42,796 shapes (6,188 of them
# without a flush suit) stand for the 2,598,960 boards of the full deck.
_SHAPE_BASE = (0, 0, 0, 6188, 6188 + 286 * 91, 6188 + 286 * 91 + 715 * 13)  # by flush cards (0, 3, 4, 5)
N_SHAPES = _SHAPE_BASE[5] + 1287


@njit(cache=True)
def _board_shape(deck, board, binom, ranks):
    """The index of the board's shape: _SHAPE_BASE[flush cards] + (set index of the flush ranks) x
    (multisets of the other ranks) + (multiset index of the other ranks); ``ranks``: 5 int64."""
    flush_suit = _board_flush_suit(deck, board)
    k = 0  # the flush ranks first, then the others
    for i in range(5):
        if (deck[board[i]] & 3) == flush_suit:
            ranks[k] = deck[board[i]] >> 2
            k += 1
    j = k
    for i in range(5):
        if (deck[board[i]] & 3) != flush_suit:
            ranks[j] = deck[board[i]] >> 2
            j += 1
    for i in range(1, 5):  # insertion sort of each part
        r = ranks[i]
        at = i
        while at > (0 if i < k else k) and ranks[at - 1] > r:
            ranks[at] = ranks[at - 1]
            at -= 1
        ranks[at] = r
    index = 0
    for i in range(k):  # a set of ranks by its colex rank
        index += binom[ranks[i], i + 1]
    index *= binom[12 + 5 - k, 5 - k]  # the multisets of 5 - k ranks
    for i in range(5 - k):  # a multiset a0 <= a1 <= ... as the set {a0, a1 + 1, ...}
        index += binom[ranks[k + i] + i, i + 1]
    return _SHAPE_BASE[k] + index


@njit(cache=True)
def board_shapes(deck, boards):
    """The shapes of ``boards`` over a deck closed under suit permutations: (shape index of every
    board, int32; the first board of each shape, -1 for a shape no board has)."""
    binom = _binomials(17)
    ranks = np.empty(5, np.int64)
    board_shape = np.empty(boards.shape[0], np.int32)
    first = np.full(N_SHAPES, -1, np.int64)
    for bi in range(boards.shape[0]):
        s = _board_shape(deck, boards[bi], binom, ranks)
        board_shape[bi] = s
        if first[s] < 0:
            first[s] = bi
    return board_shape, first


@njit(cache=True, parallel=True)
def class_code_tables(deck, boards, class_boards, qual, n_chunks):
    """The type-pair codes (``_type_codes``) of the boards ``boards[class_boards]`` (-1: none):
    (offsets, table), class c's from table[offsets[c]]: N_TYPE_PAIRS entries on a board a flush can
    be made on, N_RANK_PAIRS on the others; NOT_DEALT for a type pair with no hole."""
    n_classes = class_boards.size
    offsets = np.zeros(n_classes + 1, np.int64)
    for c in range(n_classes):
        size = 0
        if class_boards[c] >= 0:
            size = N_TYPE_PAIRS if _board_flush_suit(deck, boards[class_boards[c]]) >= 0 else N_RANK_PAIRS
        offsets[c + 1] = offsets[c] + size
    table = np.full(offsets[n_classes], NOT_DEALT, np.int64)
    for chunk in prange(n_chunks):
        work = np.empty((7, N_TYPES), np.int64)
        keys = np.empty(N_TYPE_PAIRS, np.int64)
        for c in range(chunk * n_classes // n_chunks, (chunk + 1) * n_classes // n_chunks):
            if class_boards[c] >= 0:
                _type_codes(deck, boards[class_boards[c]], qual, table[offsets[c]:offsets[c + 1]], work, keys)
    return offsets, table


@njit(cache=True, parallel=True)
def codes_from_class_tables(deck, reps, boards, board_class, offsets, table, out, n_chunks):
    """out[r, b] = the code of representative hole r on board b: its type pair's in the table of the
    board's class (``class_code_tables``), NOT_DEALT where they overlap. A board's class shares its
    card types (rank, flush suit or not) and so its codes. Written board after board, every hole's
    row in order; a deck of at most 63 cards (a card a bit of an int64)."""
    n_boards = boards.shape[0]
    n_reps = reps.shape[0]
    pair = np.empty((5, n_reps), np.int64)  # [flush suit + 1, rep]: the rep's type pair
    hole_bits = np.empty(n_reps, np.int64)
    for r in range(n_reps):
        a, b = reps[r, 0], reps[r, 1]
        hole_bits[r] = (np.int64(1) << a) | (np.int64(1) << b)
        for s in range(-1, 4):
            pair[s + 1, r] = _type_pair(_card_type(deck[a], s), _card_type(deck[b], s))
    for chunk in prange(n_chunks):
        for bi in range(chunk * n_boards // n_chunks, (chunk + 1) * n_boards // n_chunks):
            board = boards[bi]
            board_bits = np.int64(0)
            for i in range(5):
                board_bits |= np.int64(1) << board[i]
            row = pair[_board_flush_suit(deck, board) + 1]
            at = offsets[board_class[bi]]
            for r in range(n_reps):
                out[r, bi] = NOT_DEALT if board_bits & hole_bits[r] else table[at + row[r]]


def showdown_codes(deck, reps, boards, qual, n_chunks):
    """The code (``_type_codes``) per (representative hole, board); NOT_DEALT where they overlap.
    ``reps`` is an (R, 2) array of deck indices; ``boards`` an (B, 5) array of deck indices; every
    board is evaluated."""
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    every = np.arange(len(boards), dtype=np.int64)
    offsets, table = class_code_tables(deck, boards, every, qual, n_chunks)
    out = np.empty((len(reps), len(boards)), np.int64)
    codes_from_class_tables(deck, reps, boards, every.astype(np.int32), offsets, table, out, n_chunks)
    return out


def showdown_codes_by_suit_class(deck, reps, boards, qual, perms, inverse, n_chunks):
    """``showdown_codes`` over ``boards = all_boards(n)`` of a deck closed under the 24 suit
    permutations (``perms``, ``inverse``: ``suit_permutations``, which says so): one board per
    shape (``board_shapes``) evaluated, its codes read for every board of the shape."""
    board_shape, first = board_shapes(deck, boards)
    offsets, table = class_code_tables(deck, boards, first, qual, n_chunks)
    out = np.empty((len(reps), len(boards)), np.int64)
    codes_from_class_tables(deck, reps, boards, board_shape, offsets, table, out, n_chunks)
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
    four = np.empty(5, np.int64)
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
                        _four_boards(i0, i1, i2, i3, i4, binom, four)
                        for k in range(5):
                            river_net[four[k]] += d
    for i2 in range(2, m):
        for i1 in range(1, i2):
            for i0 in range(i1):
                turn_net[_rank3(i0, i1, i2, binom)] = _flop_sum(river_net, i0, i1, i2, m, binom)


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
def _hole_counts(row, to_deck, binom, dealer_holes, min_category, patterns4, counts):
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
                        strong = (code >> CATEGORY_SHIFT) >= min_category
                        losses = dealer_holes - wins - ties
                        _four_boards(i0, i1, i2, i3, i4, binom, four)
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
def decision_counts(codes, reps, deck, min_category, win_num, win_den, min_net, rule):
    """Per representative hole, deals in each (bet pattern, result) cell under the optimal Turn /
    River decisions and, when ``rule`` is given, under the spec strategy's: two walks over the
    boards per hole (the decisions, then the counts of both strategies at once) and one table of
    the player's category per flop and 4-card board, shared by the profile and the rule.

    ``codes`` comes from ``showdown_codes`` over ``all_boards(deck.size)`` with no qualifier; the
    Ante pays on a win from ``min_category`` up (WIN_STRONG); winning raises pay
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
        _hole_counts(row, to_deck, binom, dealer_holes, min_category, patterns4, local)
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


# ---------------------------------------------------------------- decisions on one Play
# The board shape of ``certify.rules.board`` (Ultimate Texas Hold'em): a Play made once, before
# the flop, on the flop or on the river (or a fold), settled with the other main wagers on one
# showdown against the dealer. A path's net is linear in the Play's multiple m: over a (hole,
# board)'s six cells, ``B + m x U`` with B = sum cells x base[cell, category] and U = sum cells x
# unit[cell, category] (integers, scaled by the sheet's common denominator).
FOLD, CHECK, ADD = 0, 1, 2  # option kinds
MAX_FLOP_OPTIONS = 7  # a board's count of each flop option is packed 8 bits an option


@njit(cache=True)
def _board_value(code, dealer_holes, base, unit, river_kind, river_mult, fold_river, cnt):
    """(category, B, U, river option, its value) of one (hole, board); the cells into ``cnt``.
    Options are listed by stake ascending, so the strict comparison keeps the one leaving less at
    risk on a tie in expectation."""
    cat = decode_cells(code, dealer_holes, cnt)
    b = 0
    u = 0
    for c in range(N_CELLS):
        b += cnt[c] * base[c, cat]
        u += cnt[c] * unit[c, cat]
    best_o = -1
    best_v = 0
    for o in range(river_kind.size):
        if river_kind[o] == FOLD:
            v = fold_river * dealer_holes
        elif river_kind[o] == ADD:
            v = b + river_mult[o] * u
        else:
            v = b
        if best_o < 0 or v > best_v:
            best_o = o
            best_v = v
    return cat, b, u, best_o, best_v


@njit(cache=True)
def _flop_sum(sums, i0, i1, i2, m, binom):
    """A flop's sum over its boards, from per-4-card-board sums (each board of the flop is reached
    through two of them: the flop with its turn, the flop with its river)."""
    total = 0
    for t in range(m):
        if t < i0:
            total += sums[_rank4(t, i0, i1, i2, binom)]
        elif i0 < t < i1:
            total += sums[_rank4(i0, t, i1, i2, binom)]
        elif i1 < t < i2:
            total += sums[_rank4(i0, i1, t, i2, binom)]
        elif t > i2:
            total += sums[_rank4(i0, i1, i2, t, binom)]
    return total // 2


@njit(cache=True, parallel=True)
def path_counts(codes, reps, deck, base, unit, river_kind, river_mult, flop_kind, flop_mult, fold_river, fold_flop):
    """Per representative hole, the deals (flop, turn-river pair, dealer hole) on each path of the
    derived river and flop decisions, by (cell, category), from the codes of every board
    (``showdown_codes*`` with the dealer's qualifier).

    Two walks over the boards per hole. The first values each board (its river option by the exact
    expectation over the dealer's holes) and adds B, U and the river value taken to its five 4-card
    boards; a flop's sums are then read from its 4-card boards, and its option is the best of the
    fold (``fold_flop`` per deal), the check (the river values) and each Play (B + m x U). The
    second adds each board's cells to the paths its ten flops took. Returns ``all_cells`` (R, 6,
    10: every deal, for a Play made preflop), ``flop_cells`` (R, flop option, 6, 10), ``river_cells``
    (R, river option, 6, 10: flops checked), ``river_fold`` and ``flop_fold`` (R, 10: deals folded,
    by category), ``check_value`` (R: the value of checking preflop) and ``flop_choice`` (R, flop by
    the colex rank of its cards among the deck less the hole: the flop option taken)."""
    n = deck.size
    binom = _binomials(n)
    m = n - 2
    dealer_holes = (m - 5) * (m - 6) // 2
    boards_per_flop = (m - 3) * (m - 4) // 2
    n_reps = reps.shape[0]
    n_flop, n_river = flop_kind.size, river_kind.size
    all_cells = np.zeros((n_reps, N_CELLS, N_CATEGORIES), np.int64)
    flop_cells = np.zeros((n_reps, n_flop, N_CELLS, N_CATEGORIES), np.int64)
    river_cells = np.zeros((n_reps, n_river, N_CELLS, N_CATEGORIES), np.int64)
    river_fold = np.zeros((n_reps, N_CATEGORIES), np.int64)
    flop_fold = np.zeros((n_reps, N_CATEGORIES), np.int64)
    check_value = np.zeros(n_reps, np.int64)
    flop_choice = np.empty((n_reps, binom[m, 3]), np.int8)
    for r in prange(n_reps):
        to_deck = _rest_of_deck(reps, r, n)
        row = codes[r]
        cnt = np.zeros(N_CELLS, np.int64)
        sum_b = np.zeros(binom[m, 4], np.int64)
        sum_u = np.zeros(binom[m, 4], np.int64)
        sum_v = np.zeros(binom[m, 4], np.int64)
        four = np.empty(5, np.int64)
        for i4 in range(4, m):
            for i3 in range(3, i4):
                for i2 in range(2, i3):
                    for i1 in range(1, i2):
                        for i0 in range(i1):
                            code = row[_board_index(to_deck[i0], to_deck[i1], to_deck[i2], to_deck[i3],
                                                    to_deck[i4], binom)]
                            _, b, u, _, v = _board_value(code, dealer_holes, base, unit, river_kind, river_mult,
                                                         fold_river, cnt)
                            _four_boards(i0, i1, i2, i3, i4, binom, four)
                            for k in range(5):
                                sum_b[four[k]] += b
                                sum_u[four[k]] += u
                                sum_v[four[k]] += v
        value = 0
        for i2 in range(2, m):
            for i1 in range(1, i2):
                for i0 in range(i1):
                    best_o = -1
                    best_v = 0
                    for o in range(n_flop):
                        if flop_kind[o] == FOLD:
                            v = fold_flop * dealer_holes * boards_per_flop
                        elif flop_kind[o] == CHECK:
                            v = _flop_sum(sum_v, i0, i1, i2, m, binom)
                        else:
                            v = _flop_sum(sum_b, i0, i1, i2, m, binom) + flop_mult[o] * _flop_sum(
                                sum_u, i0, i1, i2, m, binom)
                        if best_o < 0 or v > best_v:
                            best_o = o
                            best_v = v
                    flop_choice[r, _rank3(i0, i1, i2, binom)] = best_o
                    value += best_v
        check_value[r] = value
        taken = sum_b  # reused: per 4-card board, its four flops' options, 8 bits an option
        for i3 in range(3, m):
            for i2 in range(2, i3):
                for i1 in range(1, i2):
                    for i0 in range(i1):
                        taken[_rank4(i0, i1, i2, i3, binom)] = (
                            (1 << (8 * flop_choice[r, _rank3(i1, i2, i3, binom)]))
                            + (1 << (8 * flop_choice[r, _rank3(i0, i2, i3, binom)]))
                            + (1 << (8 * flop_choice[r, _rank3(i0, i1, i3, binom)]))
                            + (1 << (8 * flop_choice[r, _rank3(i0, i1, i2, binom)])))
        for i4 in range(4, m):
            for i3 in range(3, i4):
                for i2 in range(2, i3):
                    for i1 in range(1, i2):
                        for i0 in range(i1):
                            code = row[_board_index(to_deck[i0], to_deck[i1], to_deck[i2], to_deck[i3],
                                                    to_deck[i4], binom)]
                            cat, _, _, ro, _ = _board_value(code, dealer_holes, base, unit, river_kind, river_mult,
                                                            fold_river, cnt)
                            _four_boards(i0, i1, i2, i3, i4, binom, four)
                            packed = 0
                            for k in range(5):
                                packed += taken[four[k]]  # each flop of the board twice
                            for c in range(N_CELLS):
                                all_cells[r, c, cat] += 10 * cnt[c]
                            for o in range(n_flop):
                                ways = ((packed >> (8 * o)) & 0xFF) // 2
                                if ways == 0:
                                    continue
                                if flop_kind[o] == ADD:
                                    for c in range(N_CELLS):
                                        flop_cells[r, o, c, cat] += ways * cnt[c]
                                elif flop_kind[o] == FOLD:
                                    flop_fold[r, cat] += ways * dealer_holes
                                elif river_kind[ro] == FOLD:
                                    river_fold[r, cat] += ways * dealer_holes
                                else:
                                    for c in range(N_CELLS):
                                        river_cells[r, ro, c, cat] += ways * cnt[c]
    return all_cells, flop_cells, river_cells, river_fold, flop_fold, check_value, flop_choice


@njit(cache=True, inline="always")
def _four_boards(i0, i1, i2, i3, i4, binom, four):
    """The colex ranks of a board's five 4-card boards (without each of its cards)."""
    four[0] = _rank4(i1, i2, i3, i4, binom)
    four[1] = _rank4(i0, i2, i3, i4, binom)
    four[2] = _rank4(i0, i1, i3, i4, binom)
    four[3] = _rank4(i0, i1, i2, i4, binom)
    four[4] = _rank4(i0, i1, i2, i3, binom)


@njit(cache=True)
def flop_choice_table(flops, hole_class, rep_cards, rep_choice, perms):
    """The flop option per (flop of ``flops``, hole by pair index y(y-1)/2 + x, x < y) of the full
    deck, -1 where they share a card: the option of the hole's class representative (``rep_cards``
    sorted) at the flop's image under a suit permutation carrying the hole onto it (``rep_choice``
    from ``path_counts``; every such permutation gives the same option, the values being equal)."""
    binom = _binomials(52)
    out = np.full((flops.shape[0], 1326), -1, np.int8)
    image = np.empty(3, np.int64)
    for fi in range(flops.shape[0]):
        f0, f1, f2 = flops[fi, 0], flops[fi, 1], flops[fi, 2]
        for y in range(52):
            for x in range(y):
                if x == f0 or x == f1 or x == f2 or y == f0 or y == f1 or y == f2:
                    continue
                k = hole_class[x, y]
                a, b = rep_cards[k, 0], rep_cards[k, 1]
                p = 0
                while not ((perms[p, x] == a and perms[p, y] == b) or (perms[p, x] == b and perms[p, y] == a)):
                    p += 1
                for i in range(3):
                    c = perms[p, flops[fi, i]]
                    image[i] = c - (1 if c > a else 0) - (1 if c > b else 0)
                image.sort()
                out[fi, y * (y - 1) // 2 + x] = rep_choice[k, _rank3(image[0], image[1], image[2], binom)]
    return out

