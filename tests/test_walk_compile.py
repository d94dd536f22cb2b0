"""The walk's kernels (certify.rules.board_streets_kernel) as the board games read them: the turn option
per 4-card board (``WalkCounts.turn_choice``) against a brute force on test_board_walk's small deck."""

from __future__ import annotations

from functools import cache
from itertools import combinations
from math import comb

import numpy as np

from certify.hands import rank_hand
from certify.rules import board, board_streets
from certify.rules.board_streets import ADD, CHECK, FOLD
from spec_files import spec_copy
from test_board_walk import SMALL_DECK, preflop_and_river_only, second_chance_after_the_turn


def brute_turn_choices(deck, hole, qual, points, base, unit, fold):
    """The derived turn option at each 4-card board (the colex order of its cards' positions in the
    deck less the hole), by the exact sums over the river cards with the river decided at its best."""
    rest = [c for c in deck if c not in hole]
    turn, river = ({p.board_cards: p for p in points}[level] for level in (4, 5))
    dealer_holes = comb(len(rest) - 5, 2)

    def options(p, b, u, w, deals):
        return [fold * deals * dealer_holes if k == FOLD else w if k == CHECK else
                b + int(m) * u if e else int(m) * u + w for k, m, e in zip(p.kinds, p.mults, p.ends)]

    @cache  # each 5-card board is reached from five 4-card boards
    def showdown(five):
        mine = rank_hand(sorted(five + hole))
        cells = np.zeros(6, np.int64)
        for dealer in combinations([c for c in rest if c not in five], 2):
            theirs = rank_hand(sorted(five + dealer))
            q = 0 if theirs >= qual else 3
            cells[q + (0 if mine > theirs else 1 if mine == theirs else 2)] += 1
        cat = mine >> 20
        return int(cells @ base[:, cat]), int(cells @ unit[:, cat])

    choice = {}
    for at in combinations(range(len(rest)), 4):
        four = tuple(rest[i] for i in at)
        sums = np.zeros(3, np.int64)  # B, U, W over the river cards
        for card in rest:
            if card not in four:
                b, u = showdown(tuple(sorted(four + (card,))))
                sums += (b, u, max(options(river, b, u, b, 1)))
        values = options(turn, *(int(x) for x in sums), len(rest) - 4)
        choice[sum(comb(i, j + 1) for j, i in enumerate(at))] = values.index(max(values))  # the first best
    return np.array([choice[k] for k in range(len(choice))], np.int8)


def _walk(tmp_path, change, holes):
    spec = spec_copy(tmp_path, "ultimate_texas_holdem", change)
    shape = board.board_shape(spec)
    base, unit, den = board._scaled(shape)
    position = {c: i for i, c in enumerate(SMALL_DECK)}
    reps = np.array([sorted((position[a], position[b])) for a, b in holes], np.int64)
    wc = board_streets.walk(SMALL_DECK, reps, int(shape.qualify), shape.stages, base, unit, int(-shape.stake * den),
                            board.board_steps(spec))
    return shape, base, unit, den, wc


def test_the_turn_option_per_four_card_board_is_the_brute_forces(tmp_path):
    holes = [(SMALL_DECK[0], SMALL_DECK[1]), (SMALL_DECK[2], SMALL_DECK[13]), (SMALL_DECK[16], SMALL_DECK[19])]
    shape, base, unit, den, wc = _walk(tmp_path, second_chance_after_the_turn, holes)
    assert wc.turn_choice.shape == (len(holes), comb(len(SMALL_DECK) - 2, 4)) and wc.turn_choice.dtype == np.int8
    assert wc.flop_choice.shape == (len(holes), 0)  # no flop decision
    for r, hole in enumerate(holes):
        want = brute_turn_choices(SMALL_DECK, hole, int(shape.qualify), shape.stages, base, unit,
                                  int(-shape.stake * den))
        assert (wc.turn_choice[r] == want).all(), r
    assert len(np.unique(wc.turn_choice)) == 2  # the Play made on some 4-card boards, checked on others


def test_no_turn_decision_gives_no_turn_choices(tmp_path):
    *_, wc = _walk(tmp_path, preflop_and_river_only, [(SMALL_DECK[0], SMALL_DECK[1])])
    assert wc.turn_choice.shape == (1, 0)
