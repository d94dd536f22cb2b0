"""The one walk of the board games (certify.rules.board_streets.walk, board_streets_kernel.walk_counts):
decision points given as data, checked against an independent brute force on small decks.

New games written as spec copies only: Ultimate Texas Hold'em with the Play allowed only before the
flop and on the river, and with its second chance after the turn instead of the flop; the walk's
independent wagers (Texas Hold'em Bonus) with a fourth wager after the river card. Shapes the walk
cannot count are refused naming the spec field.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from itertools import combinations
from math import comb

import numpy as np
import pytest

from certify.cards import parse_cards
from certify.hands import rank_hand
from certify.rules import board, board_streets
from certify.rules.analysis import ShapeError
from certify.rules.board_streets import ADD, CHECK, FOLD, DecisionPoint
from spec_files import spec_copy

# test_rules_board's smaller game: 2, 5, 8, J, A in four suits (flushes, hands below the qualifier)
SMALL_DECK = tuple(4 * r + s for r in (0, 3, 6, 9, 12) for s in range(4))


def brute_force(deck, hole, qual, points, base, unit, fold, steps, prefer_risk=False):
    """One hole's deals played out with the plain evaluator over every order the deal steps give:
    each board's six cells over the dealer's holes, each decision by the exact sum over what is
    unseen (the wagers made before a decision cannot change it: R x U is common to its options).
    Returns (every deal's cells, {path: cells}, the value below the root); a path maps each later
    decision's board cards to its option, None once the decisions ended."""
    rest = [c for c in deck if c not in hole]
    at = {p.board_cards: p for p in points[1:]}

    @cache
    def value(cards):
        return rank_hand(sorted(cards))

    @cache
    def showdown(five):
        mine = value(five + hole)
        cells = np.zeros(6, np.int64)
        for dealer in combinations([c for c in rest if c not in five], 2):
            theirs = value(five + dealer)
            q = 0 if theirs >= qual else 3
            cells[q + (0 if mine > theirs else 1 if mine == theirs else 2)] += 1
        cat = mine >> 20
        return cells, cat, int(cells @ base[:, cat]), int(cells @ unit[:, cat])

    def deals(board, i):  # every board completing ``board`` by the steps from i, in order
        if i == len(steps):
            yield board
            return
        for cards in combinations([c for c in rest if c not in board], steps[i]):
            yield from deals(board + cards, i + 1)

    @cache
    def sums(board, i):  # (B, U, W of the children, deals) summed over the completions of ``board``
        if i == len(steps):
            _, _, b, u = showdown(board)
            return b, u, b, 1
        parts = [outcome(tuple(sorted(board + cards)), i + 1)
                 for cards in combinations([c for c in rest if c not in board], steps[i])]
        return tuple(sum(p[j] for p in parts) for j in range(4))

    def outcome(board, i):  # (B, U, value taken, deals)
        s = sums(board, i)
        return s[0], s[1], decide(board, s)[1], s[3]

    def decide(board, s):
        p = at.get(len(board))
        b, u, w, n = s
        if p is None or len(board) == 0:
            return None, w
        values = [fold * n * comb(len(rest) - 5, 2) if k == FOLD else w if k == CHECK else
                  b + int(m) * u if e else int(m) * u + w for k, m, e in zip(p.kinds, p.mults, p.ends)]
        order = range(len(values) - 1, -1, -1) if prefer_risk else range(len(values))
        best = max(order, key=lambda o: values[o])
        return best, values[best]

    all_cells = np.zeros((6, 10), np.int64)
    paths: dict[tuple, np.ndarray] = {}

    def walk(board, i, path, ended):  # ``board`` just dealt by step i - 1
        key = tuple(sorted(board))
        if len(board) in at and len(board) > 0:
            o = None if ended else decide(key, sums(key, i))[0]
            path = path + ((len(board), o),)
            if o is not None:
                p = at[len(board)]
                ended = p.kinds[o] == FOLD or (p.kinds[o] == ADD and p.ends[o])
        if i == len(steps):
            cells, cat, _, _ = showdown(key)
            all_cells[:, cat] += cells
            paths.setdefault(path, np.zeros((6, 10), np.int64))[:, cat] += cells
            return
        for cards in combinations([c for c in rest if c not in board], steps[i]):
            walk(board + cards, i + 1, path, ended)

    walk((), 0, (), False)
    return all_cells, paths, sums((), 0)[2]


def by_path(wc, r, s=0):
    out = {}
    for path in range(wc.path_cells.shape[2]):
        if wc.path_cells[r, s, path].any():
            out[tuple(wc.path_of(path).items())] = wc.path_cells[r, s, path]
    return out


def _same(got, want):
    assert set(got) == set(want), (sorted(got), sorted(want))
    for key in want:
        assert (got[key] == want[key]).all(), key


# ---- Ultimate Texas Hold'em variants: one Play, made once -----------------------------------------
def preflop_and_river_only(d):
    """The Play 4x or 3x before the flop, else 1x on the river or fold: no decision on the flop."""
    steps = d["steps"]
    del steps[4]  # the flop decision
    steps[3]["cards"], steps[4]["cards"] = 3, 2


def second_chance_after_the_turn(d):
    """The 2x Play after the turn (four board cards) instead of on the flop, then 1x on the river."""
    steps = d["steps"]
    flop_decision = steps.pop(4)
    flop_decision["decide"] = "turn"
    steps[4:5] = [{"deal": "board", "cards": 1, "face": "up"}, flop_decision, {"deal": "board", "cards": 1, "face": "up"}]


@pytest.mark.parametrize("change, levels, orders", [(preflop_and_river_only, [0, 5], 10),
                                                    (second_chance_after_the_turn, [0, 4, 5], 20)])
def test_a_new_one_play_game_is_counted_exactly(tmp_path, change, levels, orders):
    spec = spec_copy(tmp_path, "ultimate_texas_holdem", change)
    shape = board.board_shape(spec)
    assert [p.board_cards for p in shape.stages] == levels
    base, unit, den = board._scaled(shape)
    points, fold = shape.stages, int(-shape.stake * den)
    position = {c: i for i, c in enumerate(SMALL_DECK)}
    holes = [(SMALL_DECK[0], SMALL_DECK[1]), (SMALL_DECK[2], SMALL_DECK[13])]
    reps = np.array([sorted((position[a], position[b])) for a, b in holes], np.int64)
    wc = board_streets.walk(SMALL_DECK, reps, int(shape.qualify), points, base, unit, fold, board.board_steps(spec))
    for r, hole in enumerate(holes):
        all_cells, paths, check = brute_force(SMALL_DECK, hole, int(shape.qualify), points, base, unit, fold,
                                              board.board_steps(spec))
        assert (wc.all_cells[r] == all_cells).all()
        _same(by_path(wc, r), {tuple(p): c for p, c in paths.items()})
        assert wc.check_value[r] == check
    # the sheet's counting: every deal of the cycle once, the river folds and Plays by path
    bc = board.count(spec, deck=SMALL_DECK)
    deals = comb(20, 2) * comb(18, 5) * orders * comb(13, 2)
    assert bc.deals == deals == int(bc.all_cells.sum())
    sheet = board.main_sheet(spec, bc)
    assert sheet.cycle == deals and sheet.expected_return == board.main_return(bc)
    last = shape.stages[-1]
    assert bc.folds().any() and bc.ended_cells[:, -1, last.kinds.index(ADD)].any()  # river folds and Plays


def test_a_chance_to_play_taken_away_leaves_the_player_no_better_off(tmp_path):
    """The full game's derived strategy can play the smaller game's, so its return is at least as high."""
    full = board.main_return(board.count(spec_copy(tmp_path, "ultimate_texas_holdem", lambda d: None), deck=SMALL_DECK))
    (tmp_path / "smaller").mkdir()
    smaller = spec_copy(tmp_path / "smaller", "ultimate_texas_holdem", preflop_and_river_only)
    assert board.main_return(board.count(smaller, deck=SMALL_DECK)) <= full


# ---- independent wagers (Texas Hold'em Bonus) with a fourth one after the river card ---------------
HOLDEM_DECK = tuple(parse_cards("9h Th Jh Qh Kh Ah Ts Js Qs Ks As".split()))


def test_a_wager_on_every_street_and_after_the_river_is_counted_exactly():
    points = board_streets.STREET_POINTS + (
        DecisionPoint("showdown", ("check", "bet"), (CHECK, ADD), (Fraction(0), Fraction(1)), 5, (False, False)),)
    unit = np.zeros((6, 10), np.int64)
    unit[0], unit[2] = 1, -1
    base = np.zeros_like(unit)
    base[0, 4:] = 1  # the Ante from a straight up
    base[2] = -1
    holes = list(combinations(HOLDEM_DECK, 2))[::9]
    position = {c: i for i, c in enumerate(HOLDEM_DECK)}
    reps = np.array([[position[a], position[b]] for a, b in holes], np.int64)
    for prefer_risk in (False, True):
        wc = board_streets.walk(HOLDEM_DECK, reps, 0, points, base, unit, 0, (3, 1, 1), prefer_risk=prefer_risk)
        for r, hole in enumerate(holes):
            all_cells, paths, check = brute_force(HOLDEM_DECK, hole, 0, points, base, unit, 0, (3, 1, 1), prefer_risk)
            assert (wc.all_cells[r] == all_cells).all()
            _same(by_path(wc, r), {tuple(p): c for p, c in paths.items()})
            assert wc.check_value[r] == check
    assert any(dict(key)[5] == 1 for r in range(len(holes)) for key in by_path(wc, r))  # a bet after the river card


# ---- shapes the walk cannot count: refused, naming the field ---------------------------------------
def fold_on_the_turn(d):  # Hold'em Bonus with a fold at the turn: the Flop bet would be lost with it
    d["steps"][4]["options"].append({"name": "give_up", "fold": True})


def two_card_flop(d):
    d["steps"][3]["cards"], d["steps"][5]["cards"] = 2, 3


def river_not_skipped(d):
    d["steps"][6]["skipped_when_made"] = []


@pytest.mark.parametrize("name, change, reason", [
    ("texas_holdem_bonus", fold_on_the_turn,
     r"steps\[4\] \(decide: turn\): a fold after a wager that does not end the decisions \(skipped_when_made\)"),
    ("ultimate_texas_holdem", two_card_flop,
     r"steps\[4\] \(decide: flop\): one decision at most after each of 0, 3, 4 and 5 board cards \(here after 2\)"),
    ("ultimate_texas_holdem", river_not_skipped,
     r"option 'play_4x': every later decision or none lists 'play' in skipped_when_made")])
def test_a_shape_the_walk_cannot_count_is_refused_naming_the_field(tmp_path, name, change, reason):
    spec = spec_copy(tmp_path, name, change)
    with pytest.raises(ShapeError, match=reason):
        board_streets.decision_points(spec)
    if name == "ultimate_texas_holdem":  # the one-Play shape's own check may name the field first
        with pytest.raises(ShapeError, match=reason if change is two_card_flop else "skipped_when_made"):
            board.board_shape(spec)
