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
2. One walk (``walk_counts``) per representative hole over every board the rest of the deck makes,
   taking the decisions given as data: decision points after 0, 3, 4 and 5 board cards, each with
   its options (fold, check, add a multiple of the unit wager, ending the decisions or not), by
   backward induction over the exact values ``B + R x U`` (R: the decision wagers made); the same
   walk counts a spec strategy of category thresholds. Texas Hold'em Bonus (a wager on each street,
   decisions after 0, 3, 4) and Ultimate Texas Hold'em (one Play, after 0, 3, 5) are two inputs of it.

Boards are indexed by their colex rank: the board {i0 < i1 < i2 < i3 < i4} (deck indices) has
index C(i0,1) + C(i1,2) + C(i2,3) + C(i3,4) + C(i4,5).
"""

from __future__ import annotations

from math import comb

import numpy as np
from numba import njit

from certify.hands import all_boards, best6_nb, eval5_nb, eval7_nb  # noqa: F401  (all_boards: the board order)
from certify.pool import cpus, map_in_order

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
    k = np.int64(0)  # not a literal 0: _heap_sort(keys, k) would compile a copy for Literal[int](0) too
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
    _heap_sort(keys, k)  # the keys are distinct: the order np.sort gives
    order = keys
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
def _heap_sort(a, n):
    """Sort a[:n] ascending in place (heapsort): a few lines of IR where np.sort compiles a quicksort
    (2-3 s). First the max-heap is built (a[n // 2 - 1], ..., a[0] sifted down), then its top is
    moved to the end of the heap, which shrinks by one, until one element is left."""
    end = n
    start = n // 2
    while end > 1:
        if start > 0:
            start -= 1
        else:
            end -= 1
            top = a[0]
            a[0] = a[end]
            a[end] = top
        i = start
        x = a[i]  # sift a[start] down the heap a[:end]
        child = 2 * i + 1
        while child < end:
            if child + 1 < end and a[child + 1] > a[child]:
                child += 1
            if a[child] <= x:
                break
            a[i] = a[child]
            i = child
            child = 2 * i + 1
        a[i] = x


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


@njit(cache=True)
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


def board_shapes(deck, boards):
    """The shapes of ``boards`` over a deck closed under suit permutations: (shape index of every
    board, int32; the first board of each shape, -1 for a shape no board has). Chunks of boards run
    on the process's threads (``_shapes_of``)."""
    board_shape = np.empty(boards.shape[0], np.int32)
    binom = binomial_table(17)
    map_in_order(_shapes_of, [(deck, boards, binom, board_shape, b0, b1) for b0, b1 in _chunks(boards.shape[0], 64)],
                 cpus())
    first = np.full(N_SHAPES, -1, np.int64)
    shapes, at = np.unique(board_shape, return_index=True)  # the first occurrence of each
    first[shapes] = at
    return board_shape, first


def _chunks(n, n_chunks):
    """(start, stop) of ``n_chunks`` near-equal parts of range(n) (fewer when n is smaller), in order."""
    n_chunks = max(1, min(int(n_chunks), int(n)))
    return [(c * n // n_chunks, (c + 1) * n // n_chunks) for c in range(n_chunks)]


@njit(cache=True, nogil=True)
def _shapes_of(deck, boards, binom, board_shape, b0, b1):
    """board_shape[b] = the shape index of boards[b] for b0 <= b < b1."""
    ranks = np.empty(5, np.int64)
    for bi in range(b0, b1):
        board_shape[bi] = _board_shape(deck, boards[bi], binom, ranks)


def class_code_tables(deck, boards, class_boards, qual, n_chunks):
    """The type-pair codes (``_type_codes``) of the boards ``boards[class_boards]`` (-1: none):
    (offsets, table), class c's from table[offsets[c]]: N_TYPE_PAIRS entries on a board a flush can
    be made on, N_RANK_PAIRS on the others; NOT_DEALT for a type pair with no hole. ``n_chunks``
    chunks of classes run on the process's threads (``_class_codes``)."""
    offsets = _class_offsets(deck, boards, class_boards)
    table = np.full(offsets[-1], NOT_DEALT, np.int64)
    map_in_order(_class_codes, [(deck, boards, class_boards, qual, offsets, table, c0, c1)
                                for c0, c1 in _chunks(class_boards.size, n_chunks)], cpus())
    return offsets, table


@njit(cache=True, nogil=True)
def _class_offsets(deck, boards, class_boards):
    """Where each class's codes start in ``class_code_tables``' table (one more: its size)."""
    n_classes = class_boards.size
    offsets = np.zeros(n_classes + 1, np.int64)
    for c in range(n_classes):
        size = 0
        if class_boards[c] >= 0:
            size = N_TYPE_PAIRS if _board_flush_suit(deck, boards[class_boards[c]]) >= 0 else N_RANK_PAIRS
        offsets[c + 1] = offsets[c] + size
    return offsets


@njit(cache=True, nogil=True)
def _class_codes(deck, boards, class_boards, qual, offsets, table, c0, c1):
    """``class_code_tables``' codes of the classes c0 <= c < c1."""
    work = np.empty((7, N_TYPES), np.int64)
    keys = np.empty(N_TYPE_PAIRS, np.int64)
    for c in range(c0, c1):
        if class_boards[c] >= 0:
            _type_codes(deck, boards[class_boards[c]], qual, table[offsets[c]:offsets[c + 1]], work, keys)


def codes_from_class_tables(deck, reps, boards, board_class, offsets, table, out, n_chunks):
    """out[r, b] = the code of representative hole r on board b: its type pair's in the table of the
    board's class (``class_code_tables``), NOT_DEALT where they overlap. A board's class shares its
    card types (rank, flush suit or not) and so its codes. ``n_chunks`` chunks of boards run on the
    process's threads (``_codes_of_boards``), each board written in every hole's row; a deck of at
    most 63 cards (a card a bit of an int64)."""
    pair, hole_bits = _rep_type_pairs(deck, reps)
    map_in_order(_codes_of_boards, [(deck, boards, board_class, offsets, table, pair, hole_bits, out, b0, b1)
                                    for b0, b1 in _chunks(boards.shape[0], n_chunks)], cpus())


@njit(cache=True, nogil=True)
def _rep_type_pairs(deck, reps):
    """(pair[flush suit + 1, rep]: the rep's type pair on a board of that flush suit (-1: none),
    hole_bits[rep]: its two cards as bits of deck indices)."""
    n_reps = reps.shape[0]
    pair = np.empty((5, n_reps), np.int64)
    hole_bits = np.empty(n_reps, np.int64)
    for r in range(n_reps):
        a, b = reps[r, 0], reps[r, 1]
        hole_bits[r] = (np.int64(1) << a) | (np.int64(1) << b)
        for s in range(-1, 4):
            pair[s + 1, r] = _type_pair(_card_type(deck[a], s), _card_type(deck[b], s))
    return pair, hole_bits


@njit(cache=True, nogil=True)
def _codes_of_boards(deck, boards, board_class, offsets, table, pair, hole_bits, out, b0, b1):
    """``codes_from_class_tables`` for the boards b0 <= b < b1."""
    for bi in range(b0, b1):
        board = boards[bi]
        board_bits = np.int64(0)
        for i in range(5):
            board_bits |= np.int64(1) << board[i]
        row = pair[_board_flush_suit(deck, board) + 1]
        at = offsets[board_class[bi]]
        for r in range(hole_bits.size):
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
def _binomials(n):
    binom = np.zeros((n + 1, 6), dtype=np.int64)
    for a in range(n + 1):
        binom[a, 0] = 1
        for k in range(1, 6):
            if k <= a:
                binom[a, k] = binom[a - 1, k - 1] + (binom[a - 1, k] if k <= a - 1 else 0)
    return binom


@njit(cache=True, nogil=True)
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


N_CATEGORIES = 10


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


# ---------------------------------------------------------------- the walk: decisions on the board
# One backward induction for every board game of the rules model: decision points after 0 (the root,
# decided per starting-hand class outside), 3, 4 and 5 board cards, as data. The main wagers are
# settled on one showdown against the dealer, so a deal's net is linear in R, the decision wagers'
# multiples made so far: over a (hole, board)'s six cells, ``B + R x U`` with B = sum cells x
# base[cell, category] and U = sum cells x unit[cell, category] (integers, scaled by the sheet's
# common denominator). An option folds (losing the stake), checks, or adds m to R and either ends
# the decisions (Ultimate Texas Hold'em's Play: the later decisions are skipped once it is made) or
# not (Texas Hold'em Bonus: a wager on each street). A fold is never reachable once R > 0 (the
# Python caller refuses such rules), so every node's value is R x (sum U) + W with W independent of
# R: the decisions do not depend on the wagers made before them, and one table per level serves
# every root option.
FOLD, CHECK, ADD = 0, 1, 2  # option kinds
N_LEVELS = 4  # decision levels by board cards seen: 0 (root), 3, 4, 5
MAX_OPTIONS = 8
MAX_PARTIAL_PATHS = 8  # (flop option, turn option) pairs: packed 8 bits each in an int64 per 4-card board
PACK_BITS = 8


@njit(cache=True)
def _board_value(code, dealer_holes, base, unit, river_kind, river_mult, fold_river, cnt):
    """(category, B, U, river option, its value) of one (hole, board); the cells into ``cnt``.
    Options are listed by stake ascending, so the strict comparison keeps the one leaving less at
    risk on a tie in expectation (the river option table of ``board_sim`` reads it)."""
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


@njit(cache=True, nogil=True)
def _best_option(n, kinds, mults, ends, fold_v, sum_b, sum_u, cont_w, prefer_risk):
    """(option, value) at a node whose ``n`` options are ``kinds`` / ``mults`` / ``ends`` (one level's
    rows): fold ``fold_v``; check ``cont_w`` (the children's values); add m ending the decisions
    ``sum_b + m x sum_u``, not ending ``m x sum_u + cont_w``. Options are listed by stake ascending:
    on a tie the first (least at risk) is kept, the last with ``prefer_risk``. The level's rows, not
    the level, are passed: a literal level compiled one copy per level."""
    best_o = -1
    best_v = 0
    for o in range(n):
        k = kinds[o]
        if k == FOLD:
            v = fold_v
        elif k == CHECK:
            v = cont_w
        elif ends[o]:
            v = sum_b + mults[o] * sum_u
        else:
            v = mults[o] * sum_u + cont_w
        if best_o < 0 or v > best_v or (prefer_risk and v == best_v):
            best_o = o
            best_v = v
    return best_o, best_v


def _ended(level, o, kinds, ends):
    """Whether option o of ``level`` ends the decisions (a fold, or an add ending them)."""
    return bool(kinds[level, o] == FOLD or (kinds[level, o] == ADD and ends[level, o] != 0))


@njit(cache=True, nogil=True)
def _rule_option(rule_row, h0, h1, board, category):
    """The spec strategy's option at a level whose row of ``rule`` is ``rule_row`` = (category at
    least, option then, option else, straight category: a hole card must play below it, 0: no hole
    card asked)."""
    if category >= rule_row[0] and hole_plays_rule(h0, h1, board, category, rule_row[3]):
        return rule_row[1]
    return rule_row[2]


@njit(cache=True)
def _flop_sums(sum_b, sum_u, sum_w, need_b, i0, i1, i2, m, binom):
    """A flop's sums of B (0 unless ``need_b``), U and W over its 4-card boards (the flop with each
    turn card)."""
    sb = np.int64(0)
    su = np.int64(0)
    sw = np.int64(0)
    for t in range(m):
        if t == i0 or t == i1 or t == i2:
            continue
        if t < i0:
            k = _rank4(t, i0, i1, i2, binom)
        elif t < i1:
            k = _rank4(i0, t, i1, i2, binom)
        elif t < i2:
            k = _rank4(i0, i1, t, i2, binom)
        else:
            k = _rank4(i0, i1, i2, t, binom)
        if need_b:
            sb += sum_b[k]
        su += sum_u[k]
        sw += sum_w[k]
    return sb, su, sw


def walk_counts(codes, reps, deck, base, unit, n_opts, kinds, mults, ends, fold_value, rule, prefer_risk,
                with_profile, live_cells):
    """Per representative hole, the deals on each decision path, by (cell, category), from the codes
    of every board (``showdown_codes*`` with the dealer's qualifier).

    Decision levels 0, 3, 4, 5 (board cards seen): ``n_opts[level]`` options (0: no decision there;
    the root's are the caller's), ``kinds`` / ``mults`` / ``ends`` (N_LEVELS, MAX_OPTIONS) by stake
    ascending; ``fold_value`` per deal (scaled). ``rule`` (N_LEVELS, 4) plays the spec strategy as a
    second set of decisions (``_rule_option``; shape (0, 4): none). Counted in chains: per board,
    each way to pick its cards seen at the decision levels 3 and 4 (20 with both, 10 or 5 with one,
    1 with neither); the caller scales to the spec's deal order.

    Two walks over the boards per hole. The first values each board (its level-5 option, if any)
    and adds B, U and the value taken to its five 4-card boards; a 4-card board's option, then a
    flop's (from its 4-card boards: over its turn cards, halved without a turn decision, each board
    being reached twice), are the best by ``_best_option``. The second adds each board's cells to
    the path its chains took. Returns ``path_cells`` (R, set,
    path, 6, 10; path = ((flop option) x (turn option + 1) + turn option) x (river options + 1) +
    river option, a skipped level counted as its option count), ``check_value`` (R: the value W of
    the root's subtree, set 0), ``flop_choice`` (R, flop by the colex rank of its cards among the
    deck less the hole: set 0's option), ``turn_choice`` (R, 4-card board by the colex rank of its
    cards among the deck less the hole, as ``flop_choice``: set 0's option; width 0 without a turn
    decision) and ``profile`` (R, level 3 / 4 / 5, player's category so far, option: nodes taking it,
    set 0, when ``with_profile``). ``live_cells``: 3 when the dealer always qualifies (the cells NW,
    NT, NL are then empty), else 6.

    Each hole is one call of the compiled ``_walk_hole`` (nogil), the holes run on the process's
    threads (``certify.pool``) and write their own rows of the results."""
    n = int(deck.size)
    m = n - 2
    on3, on4, on5 = bool(n_opts[1] > 0), bool(n_opts[2] > 0), bool(n_opts[3] > 0)
    radix4 = int(n_opts[2]) + 1 if on4 else 1
    radix5 = int(n_opts[3]) + 1 if on5 else 1
    n_partial = (int(n_opts[1]) if on3 else 1) * radix4
    n_sets = 2 if rule.shape[0] else 1
    flags = np.zeros(N_FLAGS, np.bool_)
    flags[NEED_B] = any(kinds[level, o] == ADD and ends[level, o] for level in (1, 2) for o in range(n_opts[level]))
    flags[LEAF_ZERO] = not on5 and not np.any(base)  # every board's value is 0: no sums of it
    flags[PREFER_RISK] = bool(prefer_risk)
    flags[WITH_PROFILE] = bool(with_profile)
    ended3 = np.array([on4 and o < n_opts[1] and _ended(1, o, kinds, ends) for o in range(MAX_OPTIONS)], np.bool_)
    partial_ended = np.array([(on3 and _ended(1, f // radix4, kinds, ends))
                              or (on4 and f % radix4 < n_opts[2] and _ended(2, f % radix4, kinds, ends))
                              for f in range(n_partial)], np.bool_)
    n_reps = reps.shape[0]
    n3, n4 = comb(m, 3), comb(m, 4)
    path_cells = np.zeros((n_reps, n_sets, n_partial * radix5, N_CELLS, N_CATEGORIES), np.int64)
    check_value = np.zeros(n_reps, np.int64)
    flop_choice = np.zeros((n_reps, n3 if on3 else 0), np.int8)
    turn_choice = np.zeros((n_reps, n4 if on4 else 0), np.int8)
    profile = np.zeros((n_reps, 3, N_CATEGORIES, MAX_OPTIONS), np.int64)
    results = (path_cells, check_value, flop_choice, turn_choice, profile)
    fixed = (codes, reps, deck, np.ascontiguousarray(base, np.int64), np.ascontiguousarray(unit, np.int64),
             n_opts, kinds, mults, ends, int(fold_value), rule, flags, int(live_cells), ended3, partial_ended)
    map_in_order(_walk_hole, [(r, *fixed, *results) for r in range(n_reps)], cpus())
    return results


# Flags of a walk (``walk_counts``): passed as one array.
NEED_B, LEAF_ZERO, PREFER_RISK, WITH_PROFILE = range(4)
N_FLAGS = 4


def _walk_hole(r, codes, reps, deck, base, unit, n_opts, kinds, mults, ends, fold_value, rule, flags, live_cells,
               ended3, partial_ended, path_cells, check_value, flop_choice, turn_choice, profile):
    """``walk_counts`` for representative hole r: its rows of the results. Each step is its own
    compiled entry (nogil): called from here, none is linked into a caller whose final LLVM module
    would optimize them all again as one."""
    n = deck.size
    binom = binomial_table(n)
    m = n - 2
    dealer_holes = (m - 5) * (m - 6) // 2
    on3, on4 = bool(n_opts[1] > 0), bool(n_opts[2] > 0)
    mid = on3 or on4
    n_sets = path_cells.shape[1]
    n3, n4 = comb(m, 3), comb(m, 4)
    to_deck = np.array([i for i in range(n) if i != reps[r, 0] and i != reps[r, 1]], np.int64)  # rep space -> deck
    h0, h1 = int(deck[reps[r, 0]]), int(deck[reps[r, 1]])
    sum_b = np.zeros(n4 if flags[NEED_B] else 1, np.int64)
    sum_u = np.zeros(n4 if mid else 1, np.int64)
    sum_w = np.zeros(n4 if mid else 1, np.int64)
    leaf = np.zeros(comb(m, 5) if n_opts[3] > 0 else 1, np.int8)  # set 0's option after 5 cards, in walk order
    w0 = _value_boards(r, codes[r], to_deck, binom, dealer_holes, base, unit, n_opts, kinds, mults, ends,
                       fold_value * dealer_holes, flags, live_cells, mid, sum_b, sum_u, sum_w, leaf, profile)
    if mid and (flags[WITH_PROFILE] or n_sets > 1):
        flop_category, four_category = street_categories(deck, h0, h1, to_deck, binom)
    else:
        flop_category = four_category = np.zeros(1, np.int8)
    choice3 = np.zeros((n_sets, n3 if on3 else 1), np.int8)
    choice4 = np.zeros((n_sets, n4 if on4 else 1), np.int8)
    if on4:  # the turn decision per 4-card board; its value replaces the sum of its boards'
        w0 += _turn_decisions(r, deck, to_deck, h0, h1, binom, n_opts, kinds, mults, ends, rule, flags,
                              fold_value * (m - 4) * dealer_holes, sum_b, sum_u, sum_w, four_category, choice4,
                              turn_choice, profile)
    if on3:  # the flop decision, from its 4-card boards (each board twice without a turn decision)
        fold3 = fold_value * ((m - 3) * (m - 4) if on4 else (m - 3) * (m - 4) // 2) * dealer_holes
        w0 += _flop_decisions(r, deck, to_deck, h0, h1, binom, n_opts, kinds, mults, ends, rule, flags, fold3,
                              sum_b, sum_u, sum_w, flop_category, choice3, flop_choice, profile)
    check_value[r] = w0
    packed = np.zeros((n_sets, n4 if mid else 1), np.int64)  # per 4-card board and set: its chains'
    if mid:  # (flop, turn) options, 8 bits each
        _pack_chains(m, binom, n_opts, choice3, choice4, ended3, packed)
    _add_paths(r, codes[r], deck, to_deck, h0, h1, binom, dealer_holes, n_opts, rule, live_cells, partial_ended,
               packed, leaf, path_cells)


@njit(cache=True, nogil=True)
def _value_boards(r, row, to_deck, binom, dealer_holes, base, unit, n_opts, kinds, mults, ends, fold5, flags,
                  live_cells, mid, sum_b, sum_u, sum_w, leaf, profile):
    """The first walk: each board's B, U and value (its level-5 option into ``leaf``, in walk order)
    summed per 4-card board (``sum_*``, when a decision precedes the river); returns the sum of the
    boards' values when none does."""
    m = to_deck.size
    on5 = n_opts[3] > 0
    need_b, leaf_zero, prefer_risk, with_profile = flags[NEED_B], flags[LEAF_ZERO], flags[PREFER_RISK], flags[WITH_PROFILE]
    kinds5, mults5, ends5 = kinds[3], mults[3], ends[3]
    cnt = np.zeros(N_CELLS, np.int64)
    four = np.empty(5, np.int64)
    bi = 0
    w0 = 0
    for i4 in range(4, m):
        for i3 in range(3, i4):
            for i2 in range(2, i3):
                for i1 in range(1, i2):
                    for i0 in range(i1):
                        code = row[_board_index(to_deck[i0], to_deck[i1], to_deck[i2], to_deck[i3], to_deck[i4], binom)]
                        cat = decode_cells(code, dealer_holes, cnt)
                        b = np.int64(0)  # not a literal 0: typed Literal[int](0) on the first pass, the
                        u = np.int64(0)  # call below would compile a second copy of _best_option
                        for c in range(live_cells):
                            b += cnt[c] * base[c, cat]
                            u += cnt[c] * unit[c, cat]
                        w = b
                        if on5:
                            o, w = _best_option(n_opts[3], kinds5, mults5, ends5, fold5, b, u, b, prefer_risk)
                            leaf[bi] = o
                            bi += 1
                            if with_profile:
                                profile[r, 2, cat, o] += 1
                        if mid:
                            _four_boards(i0, i1, i2, i3, i4, binom, four)
                            for k in range(5):
                                if need_b:
                                    sum_b[four[k]] += b
                                sum_u[four[k]] += u
                                if not leaf_zero:
                                    sum_w[four[k]] += w
                        else:
                            w0 += w
    return w0


@njit(cache=True, nogil=True)
def _turn_decisions(r, deck, to_deck, h0, h1, binom, n_opts, kinds, mults, ends, rule, flags, fold4, sum_b, sum_u,
                    sum_w, four_category, choice4, turn_choice, profile):
    """Each 4-card board's turn option (set 0 into ``turn_choice`` too; the rule's as set 1), its value
    replacing ``sum_w``; returns the sum of the values when no flop decision precedes."""
    m = to_deck.size
    on3 = n_opts[1] > 0
    n_sets = choice4.shape[0]
    need_b, prefer_risk, with_profile = flags[NEED_B], flags[PREFER_RISK], flags[WITH_PROFILE]
    kinds4, mults4, ends4 = kinds[2], mults[2], ends[2]
    cards = np.empty(5, np.int64)
    w0 = 0
    for i3 in range(3, m):
        for i2 in range(2, i3):
            for i1 in range(1, i2):
                for i0 in range(i1):
                    k = _rank4(i0, i1, i2, i3, binom)
                    o, w = _best_option(n_opts[2], kinds4, mults4, ends4, fold4, sum_b[k] if need_b else 0,
                                        sum_u[k], sum_w[k], prefer_risk)
                    choice4[0, k] = o
                    turn_choice[r, k] = o
                    sum_w[k] = w
                    if not on3:
                        w0 += w
                    if with_profile:
                        profile[r, 1, four_category[k], o] += 1
                    if n_sets > 1:
                        cards[0], cards[1] = deck[to_deck[i0]], deck[to_deck[i1]]
                        cards[2], cards[3] = deck[to_deck[i2]], deck[to_deck[i3]]
                        choice4[1, k] = _rule_option(rule[2], h0, h1, cards[:4], four_category[k])
    return w0


@njit(cache=True, nogil=True)
def _flop_decisions(r, deck, to_deck, h0, h1, binom, n_opts, kinds, mults, ends, rule, flags, fold3, sum_b, sum_u,
                    sum_w, flop_category, choice3, flop_choice, profile):
    """Each flop's option from its 4-card boards' sums (set 0 into ``flop_choice`` too; the rule's as
    set 1); returns the sum of the values."""
    m = to_deck.size
    halve = 1 if n_opts[2] > 0 else 2  # without a turn decision each board is summed twice
    n_sets = choice3.shape[0]
    need_b, prefer_risk, with_profile = flags[NEED_B], flags[PREFER_RISK], flags[WITH_PROFILE]
    kinds3, mults3, ends3 = kinds[1], mults[1], ends[1]
    cards = np.empty(5, np.int64)
    w0 = 0
    for i2 in range(2, m):
        for i1 in range(1, i2):
            for i0 in range(i1):
                k = _rank3(i0, i1, i2, binom)
                sb, su, sw = _flop_sums(sum_b, sum_u, sum_w, need_b, i0, i1, i2, m, binom)
                sb //= halve
                su //= halve
                sw //= halve
                o, w = _best_option(n_opts[1], kinds3, mults3, ends3, fold3, sb, su, sw, prefer_risk)
                choice3[0, k] = o
                flop_choice[r, k] = o
                w0 += w
                if with_profile:
                    profile[r, 0, flop_category[k], o] += 1
                if n_sets > 1:
                    cards[0], cards[1], cards[2] = deck[to_deck[i0]], deck[to_deck[i1]], deck[to_deck[i2]]
                    choice3[1, k] = _rule_option(rule[1], h0, h1, cards[:3], flop_category[k])
    return w0


@njit(cache=True, nogil=True)
def _pack_chains(m, binom, n_opts, choice3, choice4, ended3, packed):
    """packed[set, 4-card board] = its chains' (flop, turn) options, one count per PACK_BITS field."""
    on3, on4 = n_opts[1] > 0, n_opts[2] > 0
    radix4 = n_opts[2] + 1 if on4 else 1
    for i3 in range(3, m):
        for i2 in range(2, i3):
            for i1 in range(1, i2):
                for i0 in range(i1):
                    k = _rank4(i0, i1, i2, i3, binom)
                    for s in range(packed.shape[0]):
                        p4 = choice4[s, k] if on4 else 0
                        if on3:
                            total = 0
                            for f in (_rank3(i1, i2, i3, binom), _rank3(i0, i2, i3, binom),
                                      _rank3(i0, i1, i3, binom), _rank3(i0, i1, i2, binom)):
                                o3 = choice3[s, f]
                                p = n_opts[2] if ended3[o3] else p4
                                total += 1 << (PACK_BITS * (o3 * radix4 + p))
                            packed[s, k] = total
                        else:
                            packed[s, k] = 1 << (PACK_BITS * p4)


@njit(cache=True, nogil=True)
def _add_paths(r, row, deck, to_deck, h0, h1, binom, dealer_holes, n_opts, rule, live_cells, partial_ended,
               packed, leaf, path_cells):
    """The second walk: each board's cells to the paths its chains took (``packed``; the river option
    set 0's from ``leaf``, the rule's evaluated)."""
    m = to_deck.size
    on3, on5 = n_opts[1] > 0, n_opts[3] > 0
    mid = on3 or n_opts[2] > 0
    radix5 = n_opts[3] + 1 if on5 else 1
    n_sets = path_cells.shape[1]
    halve = 1 if on3 and not n_opts[2] > 0 else 0  # a shift: each (flop, board) packed twice without a turn decision
    cnt = np.zeros(N_CELLS, np.int64)
    four = np.empty(5, np.int64)
    cards = np.empty(5, np.int64)
    bi = 0
    for i4 in range(4, m):
        for i3 in range(3, i4):
            for i2 in range(2, i3):
                for i1 in range(1, i2):
                    for i0 in range(i1):
                        code = row[_board_index(to_deck[i0], to_deck[i1], to_deck[i2], to_deck[i3], to_deck[i4], binom)]
                        cat = decode_cells(code, dealer_holes, cnt)
                        if mid:
                            _four_boards(i0, i1, i2, i3, i4, binom, four)
                        for s in range(n_sets):
                            total = 1
                            if mid:
                                total = 0
                                for k in range(5):
                                    total += packed[s, four[k]]
                            o5 = 0
                            if on5:
                                if s == 0:
                                    o5 = leaf[bi]
                                else:
                                    cards[0], cards[1], cards[2] = deck[to_deck[i0]], deck[to_deck[i1]], deck[to_deck[i2]]
                                    cards[3], cards[4] = deck[to_deck[i3]], deck[to_deck[i4]]
                                    o5 = _rule_option(rule[3], h0, h1, cards, cat)
                            f = 0
                            while total:  # the (flop, turn) fields taken, lowest first
                                ways = (total & 0xFF) >> halve
                                if ways:
                                    path = f * radix5 + ((n_opts[3] if partial_ended[f] else o5) if on5 else 0)
                                    for c in range(live_cells):
                                        path_cells[r, s, path, c, cat] += ways * cnt[c]
                                total >>= PACK_BITS
                                f += 1
                        bi += 1


@njit(cache=True)
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

