"""The bulk simulation loops of the board shapes (hold'em against the dealer), compiled.

``play_street_rounds``: a wager on each street (Texas Hold'em Bonus), the spec's strategy. Its later
decisions (after 3, 4 or 5 board cards, as data) and their rules (a category or better when a hole
card plays) are decided without the evaluator whenever the cards already decide them: a pocket
pair or a hole rank on the board is a pair or better, and best five of six cards below the
straight is certain when no suit has five cards, no five ranks run and six cards show five ranks
or more. Only the rest are evaluated. Side wagers read the card line of the player's two cards
from one table (``first_card_lines``), walking the lines only where a dealer condition must be
checked.

Deck positions: player 0-1, dealer 2-3, the board 4-8 in the order dealt (flop 4-6, turn 7, river 8).
"""

from __future__ import annotations

import hashlib

import numpy as np
from numba import njit

from certify.hands import CATEGORY_NAMES, best6_nb, eval5_nb, eval7_nb
from certify.pool import cpus, map_in_order, row_ranges
from certify.rules.board_kernel import CHECK, FOLD, _pair_index, flop_option, river_option, turn_option
from certify.rules.board_streets_kernel import _board_class_codes, _board_value

PAIR = CATEGORY_NAMES.index("pair")
STRAIGHT = CATEGORY_NAMES.index("straight")
WIN_STRONG, WIN_WEAK, TIE, LOSE = 0, 1, 2, 3  # showdown results (board_streets' columns)
ALL_RANKS = (1 << 13) - 1
WALK_LINES = -1  # first_card_lines: the dealer's cards decide, walk the lines


def _rank_mask_tables() -> tuple[np.ndarray, np.ndarray]:
    """(runs, ranks) over every 13-bit rank mask: whether five ranks run in it (A-2-3-4-5 too),
    how many ranks it holds."""
    masks = np.arange(1 << 13)
    runs = np.zeros(1 << 13, np.bool_)
    for run in [0x1F << low for low in range(9)] + [0x100F]:
        runs |= (masks & run) == run
    ranks = np.array([bin(m).count("1") for m in range(1 << 13)], np.int8)
    return runs, ranks


RUNS, RANK_COUNT = _rank_mask_tables()  # frozen into the compiled loop as constants


def first_card_lines(candidates: np.ndarray, masks: np.ndarray, side_lines: np.ndarray) -> np.ndarray:
    """``out[s, x, y]``: side wager s's event for player cards {x, y} when their first matching line
    asks nothing of the dealer (the line, or ``side_lines[s]``, "other", when none matches), else
    WALK_LINES (``board_streets.card_line_tables``' candidates and dealer masks)."""
    first = candidates[:, :, :, 0].astype(np.int64)
    out = np.broadcast_to(side_lines[:, None, None], first.shape).astype(np.int8)
    for s in range(candidates.shape[0]):
        has = first[s] >= 0
        line = np.where(has, first[s], 0)
        any_dealer = (masks[s, line, 0] == ALL_RANKS) & (masks[s, line, 1] == ALL_RANKS)
        out[s][has] = np.where(any_dealer[has], first[s][has], WALK_LINES)
    return out


@njit(cache=True, inline="always")
def _card_line_event(candidates, masks, s, n_lines, h0, h1, d0, d1):
    """The first card line of side wager s the player's cards (and the dealer's, for a line
    asking) match; ``n_lines`` (the "other" event) when none does."""
    dh, dl = max(d0 >> 2, d1 >> 2), min(d0 >> 2, d1 >> 2)
    for k in range(candidates.shape[3]):
        line = candidates[s, h0, h1, k]
        if line < 0:
            break
        if (masks[s, line, 0] >> dh) & 1 and (masks[s, line, 1] >> dl) & 1:
            return line
    return n_lines


@njit(cache=True, inline="always")
def _hole_rank_shown(h0, h1, decks, r, n_board):
    """A pocket pair, or a hole card's rank among the first ``n_board`` board cards."""
    r0, r1 = h0 >> 2, h1 >> 2
    if r0 == r1:
        return True
    for i in range(4, 4 + n_board):
        b = decks[r, i] >> 2
        if b == r0 or b == r1:
            return True
    return False


@njit(cache=True, inline="always")
def _needs(at_least, straight, shown):
    """The category the street rule asks for: ``at_least`` when a hole rank shows (the hole card
    plays), else also the straight (0: no hole card is asked for)."""
    return at_least if shown else max(at_least, straight)


@njit(cache=True, inline="always")
def _six_may_reach_straight(c0, c1, c2, c3, c4, c5):
    """False only when the best five of these six cards is certainly below a straight: no suit
    with five cards, no five ranks running, six ranks or five (at most one pair)."""
    suits = 0
    ranks = 0
    for c in (c0, c1, c2, c3, c4, c5):
        suits += 1 << (4 * (c & 3))
        ranks |= 1 << (c >> 2)
    return ((suits + 0x3333) & 0x8888) != 0 or RUNS[ranks] or RANK_COUNT[ranks] <= 4


@njit(cache=True)
def play_street_rounds(decks, fold, levels, at_least, straight, strong, candidates, masks,
                       first_lines, side_lines, side_fold, side_paid_on_fold, ev, dealt):
    """Deal and play each deck by the spec strategy. ``ev[r, 0]``: 0 fold, else 1 + 4 x (bet pattern:
    the later wagers made, the first later decision the highest bit) + result (WIN_STRONG / WIN_WEAK
    / TIE / LOSE); ``ev[r, 1 + s]``: side wager s's card line. Later decision i sees ``levels[i]``
    board cards (3, 4 or 5) and makes its wager when the player's best five so far reach
    ``at_least[i]`` and a hole card plays: a pocket pair, a hole rank on the board, or
    ``straight[i]`` or better (0: no hole card asked for)."""
    n_sides = side_lines.size
    for r in range(decks.shape[0]):
        h0, h1, d0, d1 = decks[r, 0], decks[r, 1], decks[r, 2], decks[r, 3]
        b0, b1, b2, b3, b4 = decks[r, 4], decks[r, 5], decks[r, 6], decks[r, 7], decks[r, 8]
        pv = eval7_nb(h0, h1, b0, b1, b2, b3, b4)
        dealt[r] = pv >> 20
        folds = fold[max(h0 >> 2, h1 >> 2), min(h0 >> 2, h1 >> 2), 1 if (h0 & 3) == (h1 & 3) else 0]
        for s in range(n_sides):
            if folds and not side_paid_on_fold[s]:
                ev[r, 1 + s] = side_fold[s]
            else:
                e = first_lines[s, h0, h1]
                ev[r, 1 + s] = e if e != WALK_LINES else _card_line_event(
                    candidates, masks, s, side_lines[s], h0, h1, d0, d1)
        if folds:
            ev[r, 0] = 0
            continue
        pattern = 0
        for i in range(levels.size):
            seen = levels[i]
            shown = _hole_rank_shown(h0, h1, decks, r, seen)
            need = _needs(at_least[i], straight[i], shown)
            if shown and need <= PAIR:
                bet = True
            elif seen == 3:
                bet = (eval5_nb(h0, h1, b0, b1, b2) >> 20) >= need
            elif seen == 4:
                if need >= STRAIGHT and not _six_may_reach_straight(h0, h1, b0, b1, b2, b3):
                    bet = False
                else:
                    bet = (best6_nb(h0, h1, b0, b1, b2, b3) >> 20) >= need
            else:
                bet = (pv >> 20) >= need
            pattern = 2 * pattern + int(bet)
        dv = eval7_nb(d0, d1, b0, b1, b2, b3, b4)
        if pv > dv:
            result = WIN_STRONG if (pv >> 20) >= strong else WIN_WEAK
        elif pv == dv:
            result = TIE
        else:
            result = LOSE
        ev[r, 0] = 1 + 4 * pattern + result


# ---------------------------------------------------------------- the board shape (Ultimate Texas Hold'em)
# The derived strategy's river decision (``board_kernel.river_option``: the exact expectation of each
# option against the 990 dealer hands) is taken once per (canonical 5-card board, hole) and kept as a
# table of option indices: every board is a suit permutation of one whose suits' rank masks do not
# increase (134,459 of the 2,598,960), and a hole's decision is its image's there. A round then reads
# its decision instead of valuing 990 dealer hands.
N_BOARDS = 2_598_960  # C(52, 5): boards by colex rank
N_CANONICAL_FLOPS = 1755  # suit-permutation orbits of the C(52, 3) flops (board.canonical_flops)
N_PAIRS = 1326  # holes {x < y} by _pair_index
DEALER_HANDS = 990  # C(45, 2): the dealer's holes once the player's hole and the board are dealt


@njit(cache=True)
def flop_images(flops, perms):
    """(lookup, perm) of ``board.flop_lookup``: per flop (colex rank), the row in ``flops`` of its
    image under the first permutation of ``perms`` carrying it into ``flops`` (-1: none), and that
    permutation."""
    row = np.full(22100, -1, np.int64)  # C(52, 3)
    for i in range(flops.shape[0]):
        a, b, c = _sort3(flops[i, 0], flops[i, 1], flops[i, 2])
        row[_colex3(a, b, c)] = i
    lookup = np.full(22100, -1, np.int64)
    perm = np.zeros(22100, np.int64)
    for f2 in range(2, 52):
        for f1 in range(1, f2):
            for f0 in range(f1):
                key = _colex3(f0, f1, f2)
                for p in range(perms.shape[0]):
                    a, b, c = _sort3(perms[p, f0], perms[p, f1], perms[p, f2])
                    i = row[_colex3(a, b, c)]
                    if i >= 0:
                        lookup[key] = i
                        perm[key] = p
                        break
    return lookup, perm


@njit(cache=True, inline="always")
def _sort3(a, b, c):
    if a > b:
        a, b = b, a
    if b > c:
        b, c = c, b
    if a > b:
        a, b = b, a
    return a, b, c


@njit(cache=True, inline="always")
def _colex3(a, b, c):
    return a + b * (b - 1) // 2 + c * (c - 1) * (c - 2) // 6


@njit(cache=True, inline="always")
def _colex5(c0, c1, c2, c3, c4):
    """The colex rank of the board {c0 < c1 < c2 < c3 < c4}."""
    return (c0 + c1 * (c1 - 1) // 2 + c2 * (c2 - 1) * (c2 - 2) // 6 + c3 * (c3 - 1) * (c3 - 2) * (c3 - 3) // 24
            + c4 * (c4 - 1) * (c4 - 2) * (c4 - 3) * (c4 - 4) // 120)


@njit(cache=True, inline="always")
def _suit_labels(c0, c1, c2, c3, c4):
    """A suit relabelling (suit -> 0..3, packed 2 bits a suit) putting the board's suits in
    non-increasing order of their rank masks: the board's canonical image."""
    m0 = m1 = m2 = m3 = 0
    for c in (c0, c1, c2, c3, c4):
        s = c & 3
        bit = 1 << (c >> 2)
        if s == 0:
            m0 |= bit
        elif s == 1:
            m1 |= bit
        elif s == 2:
            m2 |= bit
        else:
            m3 |= bit
    l0 = int(m1 > m0) + int(m2 > m0) + int(m3 > m0)
    l1 = int(m0 >= m1) + int(m2 > m1) + int(m3 > m1)
    l2 = int(m0 >= m2) + int(m1 >= m2) + int(m3 > m2)
    l3 = int(m0 >= m3) + int(m1 >= m3) + int(m2 >= m3)
    return l0 | (l1 << 2) | (l2 << 4) | (l3 << 6)


@njit(cache=True, inline="always")
def _relabel(c, labels):
    return 4 * (c >> 2) + ((labels >> (2 * (c & 3))) & 3)


@njit(cache=True, inline="always")
def _sort5(a, b, c, d, e):
    """The five values ascending (a sorting network)."""
    if a > b:
        a, b = b, a
    if d > e:
        d, e = e, d
    if c > e:
        c, e = e, c
    if c > d:
        c, d = d, c
    if b > e:
        b, e = e, b
    if a > d:
        a, d = d, a
    if a > c:
        a, c = c, a
    if b > d:
        b, d = d, b
    if b > c:
        b, c = c, b
    return a, b, c, d, e


@njit(cache=True)
def canonical_board(c0, c1, c2, c3, c4):
    """(colex rank of the board's canonical image, its suit labels for ``_relabel``)."""
    labels = _suit_labels(c0, c1, c2, c3, c4)
    a, b, c, d, e = _sort5(_relabel(c0, labels), _relabel(c1, labels), _relabel(c2, labels),
                           _relabel(c3, labels), _relabel(c4, labels))
    return _colex5(a, b, c, d, e), labels


@njit(cache=True)
def _boards_seen(flops):
    """Per board colex rank: whether it is the canonical image of a board on one of the flops."""
    seen = np.zeros(N_BOARDS, np.bool_)
    on = np.zeros(52, np.bool_)
    for f in range(flops.shape[0]):
        f0, f1, f2 = flops[f, 0], flops[f, 1], flops[f, 2]
        on[f0] = on[f1] = on[f2] = True
        for t in range(52):
            if on[t]:
                continue
            for r in range(t + 1, 52):
                if not on[r]:
                    seen[canonical_board(f0, f1, f2, t, r)[0]] = True
        on[f0] = on[f1] = on[f2] = False
    return seen


def canonical_boards_of_flops(flops) -> np.ndarray:
    """The colex ranks of the canonical images of every board on the given flops (sorted, unique):
    the boards a count over those flops deals (int32)."""
    return np.flatnonzero(_boards_seen(flops)).astype(np.int32)


@njit(cache=True, inline="always")
def _binomial(n, k):
    v = 1
    for i in range(k):
        v = v * (n - i) // (i + 1)
    return v


@njit(cache=True)
def _unrank5(rank):
    """The board of a colex rank (ascending cards)."""
    out = np.empty(5, np.int64)
    for k in range(5, 0, -1):
        c = k - 1
        while _binomial(c + 1, k) <= rank:  # the largest c with C(c, k) <= rank
            c += 1
        rank -= _binomial(c, k)
        out[k - 1] = c
    return out


@njit(cache=True)
def _board_options(board, qual, river_kind, river_mult, base, unit, fold_river, bits, row,
                   deck, on_board, local, keys, hole_x, hole_y, scratch, cnt):
    """Every hole's river option on one board into ``row`` (``bits`` bits each, by _pair_index):
    the counting core's code of each hole off the board (``_board_class_codes``: its cells against
    the 990 dealer hands) and its best river option by the same valuation (``_board_value``)."""
    _board_class_codes(deck, board, qual, local, keys, hole_x, hole_y, scratch)
    on_board[:] = False
    for i in range(5):
        on_board[board[i]] = True
    for y in range(52):
        if on_board[y]:
            continue
        for x in range(y):
            if not on_board[x]:
                o = _board_value(local[x, y], DEALER_HANDS, base, unit, river_kind, river_mult, fold_river, cnt)[3]
                at = _pair_index(x, y) * bits
                row[at >> 3] |= np.uint8(o << (at & 7))


@njit(cache=True, nogil=True)
def _river_option_rows(boards, lo, hi, qual, river_kind, river_mult, base, unit, fold_river, bits, table):
    """``river_option_table``'s rows lo..hi-1 (``table`` zeroed), with this chunk's scratch arrays."""
    deck = np.arange(52, dtype=np.int64)  # the full deck: deck index = card
    on_board = np.zeros(52, np.bool_)
    local = np.zeros((52, 52), np.int64)
    keys = np.empty(N_PAIRS, np.int64)
    hole_x = np.empty(N_PAIRS, np.int64)
    hole_y = np.empty(N_PAIRS, np.int64)
    scratch = np.zeros((4, 52), np.int64)
    cnt = np.zeros(6, np.int64)
    for i in range(lo, hi):
        _board_options(_unrank5(boards[i]), qual, river_kind, river_mult, base, unit, fold_river, bits,
                       table[i], deck, on_board, local, keys, hole_x, hole_y, scratch, cnt)


def river_option_table(boards, qual, river_kind, river_mult, base, unit, fold_river, bits, n_chunks) -> np.ndarray:
    """``table[i]``: the river option of every hole on the board of colex rank ``boards[i]``,
    ``bits`` bits a hole (by _pair_index), as ``river_option`` takes it. The boards are cut into
    ``n_chunks`` ranges run on the process's threads (``certify.pool``): a serial ``nogil`` kernel
    compiles in a third of the time numba's ``parallel=True`` took (which also compiled the
    counting core again inside its parfor), for the same run."""
    table = np.zeros((boards.size, (N_PAIRS * bits + 7) // 8), np.uint8)
    args = (np.int64(qual), river_kind, river_mult, base, unit, np.int64(fold_river), np.int64(bits), table)
    map_in_order(_river_option_rows, [(boards, lo, hi, *args) for lo, hi in row_ranges(boards.size, n_chunks)], cpus())
    return table


@njit(cache=True, inline="always")
def _tabled_river_option(h0, h1, b0, b1, b2, b3, b4, board_row, table, bits):
    """The table's river option of hole {h0, h1} on this board, or -1 when its canonical board
    is not in the table."""
    rank, labels = canonical_board(b0, b1, b2, b3, b4)
    i = board_row[rank]
    if i < 0:
        return -1
    a, b = _relabel(h0, labels), _relabel(h1, labels)
    at = _pair_index(min(a, b), max(a, b)) * bits
    return (table[i, at >> 3] >> (at & 7)) & ((1 << bits) - 1)


@njit(cache=True, inline="always")
def _settle_sides(ev, r, folded, cat, side_index, side_fold, side_paid_on_fold):
    for s in range(side_index.shape[0]):
        if folded and not side_paid_on_fold[s]:
            ev[r, 1 + s] = side_fold[s]
        else:
            ev[r, 1 + s] = side_index[s, cat]


@njit(cache=True)
def play_board_rounds(decks, hole_class, class_option, n_opts, kinds, next_level, flop_lookup, flop_perm, perms,
                      flop_choice, rep_perm, rep_cards, turn_choice, river_kind, river_mult, base, unit, fold_river,
                      qual, board_row, river_table, river_bits, index, fold_index, side_index, side_fold,
                      side_paid_on_fold, ev, dealt):
    """Deal and play each deck: player 0-1, dealer 2-3, flop 4-6, turn and river 7-8. The decisions
    by level (board cards seen 0, 3, 4, 5: ``n_opts`` options there, 0 none; ``kinds``; ``next_level``
    the level of the next decision, -1 none): preflop by the class table, the flop by the table of
    the canonical flop (``flop_option``), the turn by the class representative's table
    (``turn_option``), the river by the river option table (``river_option_table``, its row per
    board colex rank ``board_row``; a board outside it by ``river_option``); a check goes on to the
    next decision, a fold or a Play ends them (a Play made, every later decision is skipped), and
    the last one's option is played to the showdown. ``ev[r, 0]``: the main event (``index[level,
    option, cell, category]``, ``fold_index[level]``; -1 where the sheet has none: a defect);
    ``ev[r, 1 + s]``: side s.

    The rounds reaching the river are read from the tables after the loop, in two passes (the rows,
    then the options): the reads of one pass do not wait for each other."""
    n = decks.shape[0]
    used = np.zeros(52, np.bool_)
    board = np.empty(5, np.int64)
    cnt = np.zeros(6, np.int64)
    waiting = np.empty(n, np.int64)  # rounds at the river: round, canonical board, hole's bit, cell, category
    rank_of = np.empty(n, np.int64)
    at_of = np.empty(n, np.int64)
    cell_of = np.empty(n, np.int64)
    cat_of = np.empty(n, np.int64)
    n_waiting = 0
    river = n_opts.size - 1  # the level after 5 board cards
    for r in range(n):
        h0, h1 = np.int64(decks[r, 0]), np.int64(decks[r, 1])
        for i in range(5):
            board[i] = decks[r, 4 + i]
        mine = eval7_nb(board[0], board[1], board[2], board[3], board[4], h0, h1)
        theirs = eval7_nb(board[0], board[1], board[2], board[3], board[4], decks[r, 2], decks[r, 3])
        cat = mine >> 20
        dealt[r] = cat
        q = theirs >= qual
        cell = (0 if q else 3) + (0 if mine > theirs else 1 if mine == theirs else 2)
        level = 0
        o = class_option[hole_class[h0, h1]]
        while kinds[level, o] == CHECK and next_level[level] >= 0 and next_level[level] != river:
            level = next_level[level]
            if level == 1:
                o = flop_option(h0, h1, board, flop_lookup, flop_perm, perms, flop_choice)
            else:
                o = turn_option(h0, h1, board, hole_class, rep_perm, rep_cards, perms, turn_choice)
        if kinds[level, o] == CHECK and next_level[level] == river:
            rank, labels = canonical_board(board[0], board[1], board[2], board[3], board[4])
            a, b = _relabel(h0, labels), _relabel(h1, labels)
            waiting[n_waiting] = r
            rank_of[n_waiting] = rank
            at_of[n_waiting] = _pair_index(min(a, b), max(a, b)) * river_bits
            cell_of[n_waiting] = cell
            cat_of[n_waiting] = cat
            n_waiting += 1
            continue
        folded = kinds[level, o] == FOLD
        ev[r, 0] = fold_index[level] if folded else index[level, o, cell, cat]
        _settle_sides(ev, r, folded, cat, side_index, side_fold, side_paid_on_fold)
    for j in range(n_waiting):
        rank_of[j] = board_row[rank_of[j]]  # the table's row (-1: not in it)
    mask = (1 << river_bits) - 1
    for j in range(n_waiting):
        r = waiting[j]
        row = rank_of[j]
        if row >= 0:
            ro = (river_table[row, at_of[j] >> 3] >> (at_of[j] & 7)) & mask
        else:
            for i in range(5):
                board[i] = decks[r, 4 + i]
            ro = river_option(np.int64(decks[r, 0]), np.int64(decks[r, 1]), board, qual, river_kind, river_mult,
                              base, unit, fold_river, used, cnt)
        folded = river_kind[ro] == FOLD
        ev[r, 0] = fold_index[river] if folded else index[river, ro, cell_of[j], cat_of[j]]
        _settle_sides(ev, r, folded, cat_of[j], side_index, side_fold, side_paid_on_fold)


_RIVER_TABLES: dict[str, tuple[np.ndarray, np.ndarray]] = {}


def _river_args(shape) -> tuple:
    """``river_option_table``'s arguments after ``boards`` and before ``n_chunks``, from the rules."""
    from certify.rules.board import _scaled

    base, unit, den = _scaled(shape)
    river = next(d for d in shape.stages if d.board_cards == 5)
    bits = next(b for b in (1, 2, 4, 8) if len(river.kinds) <= 1 << b)
    return (int(shape.qualify), np.array(river.kinds, np.int64), np.array([int(m) for m in river.mults], np.int64),
            base, unit, int(-shape.stake * den), bits)


def compile_river_table(spec) -> None:
    """Load or compile, into numba's on-disk cache, the river table's kernels (``canonical_boards_of_flops``,
    ``river_option_table``) through the code path ``river_table`` takes, on one flop and four of its
    boards: they need the rules only, not the count, so ``certify run``'s battery process compiles
    them while the caller counts (``certify.run._compile_ahead``). A game with no decision after the
    river has no river table: nothing to do."""
    from certify.rules.board import board_shape, canonical_flops

    shape = board_shape(spec)
    if not any(d.board_cards == 5 for d in shape.stages):
        return
    boards = canonical_boards_of_flops(np.ascontiguousarray(canonical_flops()[0][:1], np.int64))
    river_option_table(boards[:4], *_river_args(shape), 1)


def river_table(spec, bc, n_chunks: int = 64) -> tuple[np.ndarray, np.ndarray, int]:
    """(board_row, table, bits) for ``play_board_rounds``: the river option table over every board
    the count ``bc`` deals (``BoardCounts.flops``; None: every canonical flop), and per board colex
    rank its row (-1: not a board of the count). Built once a spec from its rules (``bc.shape``) and
    kept as the table entry ``board-river-options`` of the PAR-sheet cache for the full game."""
    from certify.analysis.cache import cached_tables
    from certify.rules.board import canonical_flops

    flops = canonical_flops()[0] if bc.flops is None else bc.flops
    args = _river_args(bc.shape)
    base, unit, bits = args[3], args[4], args[6]
    key = hashlib.sha256(repr(args[:3] + args[5:]).encode() + base.tobytes() + unit.tobytes()
                         + np.ascontiguousarray(flops, np.int64).tobytes()).hexdigest()

    def compute():  # the same river rules give the same table (games differing before the river share it)
        if key not in _RIVER_TABLES:
            boards = canonical_boards_of_flops(np.ascontiguousarray(flops, np.int64))
            _RIVER_TABLES.clear()  # one kept (22 MB for the full deck)
            _RIVER_TABLES[key] = boards, river_option_table(boards, *args, n_chunks)
        boards, table = _RIVER_TABLES[key]
        return {"boards": boards, "table": table}, {"bits": bits}

    if len(flops) == N_CANONICAL_FLOPS:  # the full game: a table of the spec alone
        arrays, values, _ = cached_tables("board-river-options", spec, compute)
    else:
        arrays, values = compute()
    boards, table = arrays["boards"], arrays["table"]
    if int(values["bits"]) != bits or table.shape != (len(boards), (N_PAIRS * bits + 7) // 8):
        raise ValueError(f"{spec.name}: the river option table does not fit the spec's river options")
    board_row = np.full(N_BOARDS, -1, np.int32)
    board_row[boards] = np.arange(len(boards), dtype=np.int32)
    return board_row, np.ascontiguousarray(table), bits
