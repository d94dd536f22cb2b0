"""The one-Play board shape (certify.rules.board) for ANY set of decisions after the board's first
cards: a decision before the board, then one after any of 3, 4 and 5 board cards (Ultimate Texas
Hold'em: 0, 3, 5). New games written as spec copies only: the Play before the flop or on the river
(0, 5), the second chance after the turn (0, 4, 5), and a 1x Play on the turn between UTH's flop and
river decisions (0, 3, 4, 5: three decisions after the first, the Play 3x on the flop and 2x on the turn).

Fast: the full deck's tables of a few starting-hand classes (``board.count(only=...)``): the kernel's
turn and flop options against the exact best option recomputed by the plain evaluator over every
unseen card; the bulk kernel's events against the sheet's (chi-square, the suite's own test) with a
wrong decision table as the negative control; the round engine's derived strategy. Slow: each
game's whole count, ``certify simulate`` against its exact sheet (PASS at a fixed seed; a wrong pay
and a wrong table FAIL), and ``certify run`` of a game written from the docs alone.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations

import numpy as np
import pytest

from certify import hands
from certify.rules import board
from certify.rules import board_kernel as kernel
from certify.rules.board_streets import class_of_hole
from certify.stats.gof import chisquare_gof
from spec_files import spec_copy
from test_board_walk import preflop_and_river_only, second_chance_after_the_turn


def turn_play_between_flop_and_river(d):
    """UTH with a fourth decision after the turn card: the Play 4x or 3x before the flop, 3x on the flop,
    2x on the turn, 1x or fold on the river. (A Play on the turn no larger than the river's is never
    taken: checking keeps the river's Play, with one card more seen.)"""
    steps = d["steps"]
    steps[4]["options"][1] = {"name": "play_flop_3x", "add": {"play": 3}}
    steps[5]["cards"] = 1
    steps[6:6] = [{"decide": "turn", "skipped_when_made": ["play"],
                   "options": [{"name": "check_turn"}, {"name": "play_turn_2x", "add": {"play": 2}}]},
                  {"deal": "board", "cards": 1, "face": "up"}]


def uth(d):
    """Ultimate Texas Hold'em as shipped."""


VARIANTS = {"0/5": (preflop_and_river_only, [0, 5]), "0/4/5": (second_chance_after_the_turn, [0, 4, 5]),
            "0/3/4/5": (turn_play_between_flop_and_river, [0, 3, 4, 5]), "UTH": (uth, [0, 3, 5])}
FEW_CLASSES = frozenset({"AA", "T8o", "72o", "J4s"})  # a raise and hands checking to every later decision


class _Few(dict):
    """Per variant, built when first asked: (spec, the count of FEW_CLASSES on the full deck, its bulk
    kernel). The river table (every canonical board) is the same for all four (one river rule)."""

    def __init__(self, tmp_path_factory):
        super().__init__()
        self.tmp = tmp_path_factory

    def __missing__(self, name):
        change, levels = VARIANTS[name]
        spec = spec_copy(self.tmp.mktemp(name.replace("/", "-")), "ultimate_texas_holdem", change)
        assert [d.board_cards for d in board.board_shape(spec).stages] == levels
        bc = board.count(spec, only=FEW_CLASSES)
        self[name] = spec, bc, board.board_kernel(spec, bc)
        return self[name]


@pytest.fixture(scope="module")
def few(tmp_path_factory):
    return _Few(tmp_path_factory)


def decks_of(classes, n: int, seed: int) -> np.ndarray:
    """``n`` decks whose hole (positions 0-1) is uniform over the holes of ``classes``, the other 50
    cards in uniform random order."""
    holes = np.array([(x, y) for y in range(52) for x in range(y) if class_of_hole(x, y) in classes], np.int64)
    rng = np.random.default_rng(seed)
    hole = holes[rng.integers(len(holes), size=n)]
    keys = rng.random((n, 52), dtype=np.float32)
    rows = np.arange(n)
    keys[rows, hole[:, 0]], keys[rows, hole[:, 1]] = -2, -1
    return np.argsort(keys, axis=1)[:, :9].astype(np.uint8)


# ---- the exact option, recomputed by the plain evaluator ---------------------------------------
def _showdowns(shape, hole, fives):
    """(B, U) per 5-card board of ``fives`` (scaled nets over every dealer hole the unseen cards make)."""
    base, unit, _ = board._scaled(shape)
    rows, mine = [], []
    for five in fives:
        unseen = [c for c in range(52) if c not in hole and c not in five]
        pairs = np.array(list(combinations(unseen, 2)), np.int64)
        rows.append(np.concatenate([np.tile(np.array(five, np.int64), (len(pairs), 1)), pairs], axis=1))
        mine.append(hands.rank_hand(list(five) + list(hole)))
    dealer = hands.rank_batch(np.concatenate(rows)).reshape(len(fives), -1)
    mine = np.array(mine, np.int64)[:, None]
    q = dealer >= shape.qualify
    cells = np.stack([(q & (mine > dealer)).sum(1), (q & (mine == dealer)).sum(1), (q & (mine < dealer)).sum(1),
                      (~q & (mine > dealer)).sum(1), (~q & (mine == dealer)).sum(1), (~q & (mine < dealer)).sum(1)], 1)
    cat = mine[:, 0] >> 20
    return (cells * base[:, cat].T).sum(1), (cells * unit[:, cat].T).sum(1)


def _best(stage, b, u, w, fold):
    """(option, value): fold, check (``w``: what follows), or a Play ending the decisions; the first of
    the highest (options listed by what they leave at risk)."""
    values = [fold if k == kernel.FOLD else w if k == kernel.CHECK else b + int(m) * u
              for k, m in zip(stage.kinds, stage.mults)]
    o = max(range(len(values)), key=lambda i: (values[i], -i))
    return o, values[o]


def exact_option(shape, hole, seen):
    """(option, value) of the decision after the board cards ``seen``, by the sums over every
    unseen card to come and every dealer hole (each board summed once per order it can come in)."""
    by_level = {d.board_cards: d for d in shape.stages}
    _, _, den = board._scaled(shape)
    fold = int(-shape.stake * den)
    rest = [c for c in range(52) if c not in hole and c not in seen]
    if len(seen) == 5:
        b, u = (int(x[0]) for x in _showdowns(shape, hole, [tuple(seen)]))
        return _best(by_level[5], b, u, b, fold * 990) if 5 in by_level else (None, b)
    b_all, u_all = _showdowns(shape, hole, [tuple(seen) + (c,) for c in rest]) if len(seen) == 4 else (None, None)
    total_b = total_u = total_w = 0
    for i, c in enumerate(rest):  # the next card
        if len(seen) == 4:
            b, u = int(b_all[i]), int(u_all[i])
            w = _best(by_level[5], b, u, b, fold * 990)[1] if 5 in by_level else b
        else:
            b, u, w = _sums(shape, hole, tuple(seen) + (c,))
        total_b, total_u, total_w = total_b + b, total_u + u, total_w + w
    deals = len(rest) * (1 if len(seen) == 4 else len(rest) - 1) * 990  # after a flop: (turn, river) in order
    return _best(by_level[len(seen)], total_b, total_u, total_w, fold * deals)


def _sums(shape, hole, four):
    """(B, U, value taken) of a 4-card board: the turn decision's, or its boards' sums."""
    rest = [c for c in range(52) if c not in hole and c not in four]
    b_all, u_all = _showdowns(shape, hole, [tuple(four) + (c,) for c in rest])
    by_level = {d.board_cards: d for d in shape.stages}
    _, _, den = board._scaled(shape)
    fold = int(-shape.stake * den)
    w5 = [(_best(by_level[5], int(b), int(u), int(b), fold * 990)[1] if 5 in by_level else int(b))
          for b, u in zip(b_all, u_all)]
    b, u, w = int(b_all.sum()), int(u_all.sum()), sum(w5)
    if 4 in by_level:
        w = _best(by_level[4], b, u, w, fold * len(rest) * 990)[1]
    return b, u, w


@pytest.mark.parametrize("name", ["0/4/5", "0/3/4/5"])
def test_the_kernel_takes_the_exact_turn_option(few, name):
    """The kernel's turn option (the walk's choice for the class representative, read through a
    suit permutation) is the exact best one, recomputed over the 46 river cards x 990 dealer holes."""
    spec, bc, k = few[name]
    shape = bc.shape
    used, cnt = np.zeros(52, np.bool_), np.zeros(kernel.N_CELLS, np.int64)
    decks = decks_of(FEW_CLASSES - {"AA"}, 3000, seed=4).astype(np.int64)
    options = np.array([board.derived_option(k.params, 4, int(d[0]), int(d[1]), d[4:9], used, cnt) for d in decks])
    sample = np.concatenate([np.flatnonzero(options == o)[:12] for o in (0, 1)])  # each option taken
    assert len(sample) == 24
    for d, o in zip(decks[sample], options[sample]):
        hole, four = (int(d[0]), int(d[1])), tuple(int(c) for c in d[4:8])
        assert o == exact_option(shape, hole, four)[0], (hole, four)


def test_the_kernel_takes_the_exact_flop_option_above_a_turn_decision(few):
    """With a turn decision below it, the flop option is still the exact best one: the value of
    checking is the sum, over the turn cards, of the turn decision's best value."""
    spec, bc, k = few["0/3/4/5"]
    used, cnt = np.zeros(52, np.bool_), np.zeros(kernel.N_CELLS, np.int64)
    decks = decks_of({"T8o", "J4s"}, 2, seed=8)
    for d in decks.astype(np.int64):
        hole, flop = (int(d[0]), int(d[1])), tuple(int(c) for c in d[4:7])
        o = board.derived_option(k.params, 3, hole[0], hole[1], d[4:9], used, cnt)
        assert o == exact_option(bc.shape, hole, flop)[0], (hole, flop)


def _chain(shape, p, d, used, cnt):
    """The option names the derived strategy takes on deck ``d``, by the kernel's decision functions."""
    out = []
    for stage in shape.stages:
        o = board.derived_option(p, stage.board_cards, int(d[0]), int(d[1]), d[4:9], used, cnt)
        out.append(stage.names[o])
        if stage.kinds[o] != kernel.CHECK:
            break
    return out


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_bulk_kernel_plays_the_decision_tables_deck_for_deck(few, name):
    """Each round's event is the option the decision functions take, settled on the round's cell and
    category; the events of every decision level are reached."""
    spec, bc, k = few[name]
    used, cnt = np.zeros(52, np.bool_), np.zeros(kernel.N_CELLS, np.int64)
    decks = decks_of(FEW_CLASSES, 3000, seed=12)
    ev, dealt = k.events(decks)
    names, nets = k.wagers[0].events, k.wagers[0].nets
    reached = set()
    for d, e in zip(decks.astype(np.int64), ev[:, 0]):
        chain = _chain(bc.shape, k.params, d, used, cnt)
        stage = bc.shape.stages[len(chain) - 1]
        last = chain[-1]
        if stage.kinds[stage.names.index(last)] == kernel.FOLD:
            assert names[e].startswith("fold ("), (chain, names[e])
        else:
            assert names[e].split(":")[0] == last, (chain, names[e])
        reached.add((stage.board_cards, last))
    levels = {level for level, _ in reached}
    assert levels == {d.board_cards for d in bc.shape.stages}, reached


def _event_test(k, bc, spec, decks):
    sheet = board.main_sheet(spec, bc)
    ev, _ = k.events(decks)
    counts = np.bincount(ev[:, 0], minlength=len(k.wagers[0].events))
    by_event = {row.event: row for row in sheet.rows}
    probs = [float(by_event[e].probability) for e in k.wagers[0].events]
    return chisquare_gof(counts, probs, alpha=0.01, name="main: outcome frequencies")


@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_bulk_kernel_agrees_with_the_exact_sheet_and_a_wrong_table_fails(few, name):
    """The kernel's main events over decks of the counted classes against the sheet's probabilities
    (the same classes: the sheet of a count of those alone); the kernel with the last decision
    before the river read from a wrong table (every option swapped) is caught."""
    spec, bc, k = few[name]
    decks = decks_of(FEW_CLASSES, 200_000, seed=3)
    good = _event_test(k, bc, spec, decks)
    assert good.applicable and good.passed, good.pvalue
    p = dict(k.params)
    levels = [d.board_cards for d in bc.shape.stages]
    if 4 in levels:
        p["turn_choice"] = np.where(p["turn_choice"] >= 0, 1 - p["turn_choice"], -1).astype(np.int8)
    elif 3 in levels:
        p["flop_choice"] = np.where(p["flop_choice"] >= 0, 1 - p["flop_choice"], -1).astype(np.int8)
    else:  # the river table's bits (one a hole) inverted
        p["river_table"] = np.ascontiguousarray(~p["river_table"])
    bad = _event_test(replace(k, params=p), bc, spec, decks)
    assert not bad.passed, bad.pvalue


def test_the_round_engine_plays_a_turn_decision_as_the_kernel(few):
    """RulesRound with the derived strategy (the kernel's own tables) on the 0/3/4/5 game: each
    round's money is the kernel event's net, the last decision taken is the event's."""
    from test_rules_board import engine_rounds_as_kernel

    spec, bc, k = few["0/3/4/5"]
    reached = engine_rounds_as_kernel(spec, k, decks_of(FEW_CLASSES, 200, seed=9))
    assert {"play_4x", "play_flop_3x", "play_turn_2x", "play_1x", "fold"} <= reached


# ---- the whole games (slow): certify simulate against the exact sheet --------------------------
@pytest.mark.slow
@pytest.mark.parametrize("name", list(VARIANTS))
def test_the_simulation_passes_against_the_exact_sheet_and_a_wrong_pay_or_table_fails(tmp_path, monkeypatch, name):
    import certify.simulate as sim
    from certify.games.kernels import WagerEvents
    from certify.rules import analysis

    change, _ = VARIANTS[name]
    spec = spec_copy(tmp_path, "ultimate_texas_holdem", change)
    path = str(tmp_path / "ultimate_texas_holdem.yaml")
    sheet = analysis.par_sheet(spec)  # the whole count (kept for the kernel: board.counts_of)
    good = sim.simulate(path, rounds=400_000, seed=14, workers=1)
    assert sim.verify(good, sheet, alpha=0.01, confirm_failures=False).passed
    k = sim.engine_kernel(path, None)  # the one the run played (kept once a process)
    main = k.wagers[0]
    last = board.board_shape(spec).stages[-2]  # the decision before the last: its Play's most frequent win
    plays = {last.names[o] for o, kind in enumerate(last.kinds) if kind == kernel.ADD}
    row = max((r for r in sheet.main.rows if r.event.split(":")[0] in plays and ": win" in r.event),
              key=lambda r: r.probability)
    wrong = main.events.index(row.event)
    nets = list(main.nets)
    nets[wrong] += 1  # one pay one unit too high
    faults = {"pay": replace(k, wagers=[WagerEvents(main.name, main.events, nets, main.scale), *k.wagers[1:]])}
    if last.board_cards == 4:
        p = dict(k.params)
        p["turn_choice"] = np.where(p["turn_choice"] >= 0, 1 - p["turn_choice"], -1).astype(np.int8)
        faults["table"] = replace(k, params=p)
    for fault, broken in faults.items():
        monkeypatch.setattr(sim, "engine_kernel", lambda spec_path, fault, broken=broken: broken)
        bad = sim.verify(sim.simulate(path, rounds=400_000, seed=14, workers=1), sheet, alpha=0.01,
                         confirm_failures=False)
        assert not bad.passed, fault


# ---- a game written from docs/rules-model.md alone, certified end to end (slow: its whole count) ----
FOUR_DECISIONS = """\
# Four-decision hold'em: a Play of 4x before the flop, 3x on the flop, 2x on the turn, 1x on the river.
model: rules/1
name: four_decision_holdem
title: Four-Decision Hold'em
version: "1.0"
source:
  documents: ["house rules sheet (test)"]
  follows: >-
    Equal Ante and Blind; two cards each to the player and the dealer. Before the flop the player
    checks or plays 4 times the Ante; after the flop checks or plays 3 times; after the turn checks
    or plays 2 times; after the river plays 1 time or folds. One Play a hand. The dealer qualifies
    with a pair; a dealer who does not qualify pushes the Ante, the Blind and the Play have action.
deck: {size: 52, jokers: 0}
seats: 6
ranking: best_five
steps:
  - {deal: player, cards: 2}
  - {deal: dealer, cards: 2}
  - decide: preflop
    options:
      - {name: check_preflop}
      - {name: play_4x, add: {play: 4}}
  - {deal: board, cards: 3, face: up}
  - decide: flop
    skipped_when_made: [play]
    options:
      - {name: check_flop}
      - {name: play_3x, add: {play: 3}}
  - {deal: board, cards: 1, face: up}
  - decide: turn
    skipped_when_made: [play]
    options:
      - {name: check_turn}
      - {name: play_2x, add: {play: 2}}
  - {deal: board, cards: 1, face: up}
  - decide: river
    skipped_when_made: [play]
    options:
      - {name: fold, fold: true}
      - {name: play_1x, add: {play: 1}}
dealer:
  qualifies: {category: pair}
wagers:
  ante:
    made: unit
    min: "5.00"
    max: "500.00"
    settle:
      versus_dealer: {win: 1, tie: push, dealer_not_qualifying: push}
  blind:
    made: with_unit
    multiple_of_unit: 1
    settle:
      versus_dealer:
        win_pays: {royal_flush: 500, straight_flush: 50, quads: 10, full_house: 3, flush: "1.5", straight: 1,
                   trips: 0, two_pair: 0, pair: 0, high_card: 0}
        win_at_least: {category: straight}
        tie: push
        dealer_not_qualifying: action
  play:
    made: decision
    settle:
      versus_dealer: {win: 1, tie: push, dealer_not_qualifying: action}
balance_covers_raise_at_deal: true
misdeal:
  dealer_wrong_count: all_dead
  player_wrong_count: dead_hand_wagers_returned
"""

FOUR_DECISIONS_PROCEDURES = """\
spec: four_decision_holdem.yaml
scenarios:
  - id: play-on-the-turn-straight-wins
    rule: Checked twice, 2x on the turn; a straight beats a qualifying pair (Ante 1, Blind 1, Play 1).
    source: house rules sheet
    seats: [{wagers: {ante: "5.00"}, cards: [AS, KD], actions: [check_preflop, check_flop, play_2x]}]
    dealer: {cards: [9C, 9H]}
    board: [QH, JC, 2D, TS, 3H]
    expect: {table: played, seats: [{status: played, net: {ante: "5.00", blind: "5.00", play: "10.00"}}]}
  - id: checked-to-the-river-and-folded
    rule: A fold on the river loses Ante and Blind.
    source: house rules sheet
    seats: [{wagers: {ante: "5.00"}, cards: [7C, 2D], actions: [check_preflop, check_flop, check_turn, fold]}]
    dealer: {cards: [QS, QH]}
    board: [KD, 9S, 4C, 3H, JD]
    expect: {table: played, seats: [{status: folded, net: {ante: "-5.00", blind: "-5.00"}}]}
  - id: play-3x-on-the-flop-loses
    rule: 3x on the flop; a lower hand loses Ante, Blind and Play to a qualifying dealer.
    source: house rules sheet
    seats: [{wagers: {ante: "5.00"}, cards: [KC, 5S], actions: [check_preflop, play_3x]}]
    dealer: {cards: [AH, 7D]}
    board: [2C, 7S, JD, 4H, 9C]
    expect: {table: played, seats: [{status: played, net: {ante: "-5.00", blind: "-5.00", play: "-15.00"}}]}
  - id: play-4x-dealer-does-not-qualify
    rule: 4x before the flop; the dealer does not qualify (Ante pushes), a win below a straight pushes the Blind, the Play wins.
    source: house rules sheet
    seats: [{wagers: {ante: "5.00"}, cards: [AH, KH], actions: [play_4x]}]
    dealer: {cards: [2S, 3D]}
    board: [9C, 8D, 5S, QH, 4C]
    expect: {table: played, seats: [{status: played, net: {ante: "0", blind: "0", play: "20.00"}}]}
"""


@pytest.mark.slow
def test_certify_run_of_a_game_with_a_turn_decision_gives_a_signed_pass(tmp_path, monkeypatch):
    """The spec and its procedure scenarios written as files (docs/rules-model.md), no code: the
    exact sheet, the simulation against it, the procedures and the signed report."""
    import json

    from certify import run as run_module
    from certify import signing

    spec_path = tmp_path / "four_decision_holdem.yaml"
    spec_path.write_text(FOUR_DECISIONS)
    fixture = tmp_path / "procedures" / "four_decision_holdem.yaml"
    fixture.parent.mkdir()
    fixture.write_text(FOUR_DECISIONS_PROCEDURES.replace("four_decision_holdem.yaml", str(spec_path)))
    # the studio's own procedures folder, beside its spec (certify run --procedures DIR)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    out = run_module.run(spec_path, "quick", seed=1, out_dir=tmp_path / "out", signing_key=signing.load_signing_key(),
                         workers=1, procedures=fixture.parent)
    report = json.loads(out["paths"]["json"].read_text())
    assert out["verdict"] == "PASS", report["section_status"]
    assert report["section_status"]["simulation"] == "pass" and report["section_status"]["procedures"] == "pass"
    assert len(report["sections"]["procedures"]["scenarios"]) == 4
    signing.verify_file(out["paths"]["pdf"], signing.default_roots(), allow_development=True)
