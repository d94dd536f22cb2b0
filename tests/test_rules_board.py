"""The board shape of the rules model: Ultimate Texas Hold'em as a spec only (certify.rules.board).

The fast tests count a smaller game (a 20-card deck, every hole its own class): the counts
against brute force, every deal counted once, and rule changes moving the exact figures as the
combinatorics say; the bulk kernel and the round engine play the full deck's tables of a few
starting-hand classes. The slow test counts the whole game and compares it with the published analyses.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from itertools import combinations
from math import comb
from pathlib import Path

import numpy as np
import pytest

from certify import hands
from certify.rules import analysis, board
from certify.rules import board_kernel as kernel
from certify.rules.model import ranking_categories
from certify.spec import load_spec

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "specs" / "ultimate_texas_holdem.yaml"


def _spec(tmp_path=None, change=None):
    import yaml

    data = yaml.safe_load(SPEC.read_text())
    if change is None:
        return load_spec(SPEC)
    change(data)
    path = tmp_path / "ultimate_texas_holdem.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return load_spec(path)


# A smaller game closed under suit permutations: 2, 5, 8, J, A in four suits (20 cards: flushes, no
# straight, hands below the qualifier), every hole its own class, counted whole in seconds.
SMALL_DECK = tuple(4 * r + s for r in (0, 3, 6, 9, 12) for s in range(4))
SMALL_DEALS = comb(20, 2) * comb(18, 3) * comb(15, 2) * comb(13, 2)


@pytest.fixture(scope="module")
def small_counts():
    return board.count(_spec(), deck=SMALL_DECK)


def test_the_spec_reads_as_the_board_shape():
    shape = board.board_shape(_spec())
    pre, flop, river = shape.stages
    assert pre.names == ("check_preflop", "play_3x", "play_4x")  # by what they leave at risk
    assert flop.names == ("check_flop", "play_2x") and river.names == ("fold", "play_1x")
    assert shape.play == "play" and shape.stake == 2 and shape.qualify == 1 << 20
    flush, pair = 5, 1
    assert shape.base[kernel.QW][flush] == Fraction(5, 2)  # Ante 1 + Blind 3 to 2
    assert shape.base[kernel.NW][flush] == Fraction(3, 2)  # the Ante pushes, the Blind has action
    assert shape.base[kernel.QW][pair] == 1 and shape.base[kernel.NW][pair] == 0  # Blind pushes below a straight
    assert shape.base[kernel.QL][pair] == -2 and shape.base[kernel.NL][pair] == -1
    assert shape.base[kernel.QT][flush] == shape.base[kernel.NT][flush] == 0
    assert shape.unit[kernel.NW][pair] == 1 and shape.unit[kernel.NL][pair] == -1  # the Play has action


def test_a_decision_after_one_board_card_is_outside_the_shape_naming_it(tmp_path):
    def one_card_decision(d):  # the flop dealt 1 + 2 with a decision between: neither board shape
        d["steps"][3]["cards"] = 1
        d["steps"][4:4] = [{"decide": "first_card", "options": [{"name": "stay"}, {"name": "play_early", "add": {"play": 1}}],
                            "skipped_when_made": ["play"]},
                           {"deal": "board", "cards": 2, "face": "up"}]
    spec = _spec(tmp_path, one_card_decision)
    with pytest.raises(analysis.ShapeError, match=r"steps\[4\] \(decide: first_card\): one decision at most after each of "
                                                  r"0, 3, 4 and 5 board cards \(here after 1\)"):
        analysis.par_sheet(spec)
    from certify.games.kernels import KernelError, kernel_for

    with pytest.raises(KernelError, match="ultimate_texas_holdem: .*here after 1"):
        kernel_for(spec)


def test_a_face_down_flop_is_outside_the_shape(tmp_path):
    def face_down(d):
        d["steps"][3]["face"] = "down"
    with pytest.raises(analysis.ShapeError, match="the board cards face up"):
        board.board_shape(_spec(tmp_path, face_down))


def _brute_force(spec, deck, hole):
    """One hole's counts by playing out every deal of ``deck`` with the plain evaluator: each
    board's six cells over the dealer's holes, the river option by their value, each flop's option
    by the sums over its turn-river pairs; the arrays of ``board.count`` for that hole."""
    shape = board.board_shape(spec)
    base, unit, den = board._scaled(shape)
    pre, flop, river = shape.stages
    rest = [c for c in deck if c not in hole]
    fives = list(combinations(rest, 5))
    dealer_pairs = list(combinations(range(len(rest) - 5), 2))
    five_cards = np.array(fives, np.int64)
    rest_cards = np.array(rest, np.int64)
    held = (five_cards[:, :, None] == rest_cards[None, None, :]).any(axis=1)
    others = np.broadcast_to(rest_cards, held.shape)[~held].reshape(len(fives), -1)  # in deck order
    pairs = np.array(dealer_pairs, np.int64)
    rows = np.concatenate([np.repeat(five_cards[:, None, :], len(pairs), axis=1), others[:, pairs]], axis=2)
    dealer = hands.rank_batch(rows.reshape(-1, 7)).reshape(len(fives), len(dealer_pairs))
    mine = hands.rank_batch(np.array([list(five) + list(hole) for five in fives], np.int64))
    qualifies, sign = dealer >= shape.qualify, np.sign(mine[:, None] - dealer)
    cells = np.stack([((qualifies == bool(q)) & (sign == result)).sum(axis=1)
                      for q, result in [(1, 1), (1, 0), (1, -1), (0, 1), (0, 0), (0, -1)]], axis=1)
    category = mine >> 20
    b = (cells * base[:, category].T).sum(axis=1)
    u = (cells * unit[:, category].T).sum(axis=1)
    fold = int(-shape.stake * den) * len(dealer_pairs)

    def best(values):  # options listed by stake: the first of the highest
        return max(range(len(values)), key=lambda o: (values[o], -o))
    river_value = [[fold if k == kernel.FOLD else int(b[i]) + int(m) * int(u[i]) for k, m in zip(river.kinds, river.mults)]
                   for i in range(len(fives))]
    river_taken = np.array([best(v) for v in river_value], np.int64)
    river_best = [v[o] for v, o in zip(river_value, river_taken)]
    river_folds = np.array(river.kinds, np.int64)[river_taken] == kernel.FOLD
    where = {five: i for i, five in enumerate(fives)}
    out = {name: np.zeros(shape_, np.int64) for name, shape_ in
           [("all", (6, 10)), ("flop", (len(flop.names), 6, 10)), ("river", (len(river.names), 6, 10)),
            ("river_fold", 10), ("flop_fold", 10), ("check", ())]}
    every = slice(None)
    for three in combinations(rest, 3):
        boards = np.array([where[tuple(sorted(three + pair))] for pair in
                           combinations([c for c in rest if c not in three], 2)], np.int64)
        values = [fold * len(boards) if k == kernel.FOLD else
                  sum(river_best[i] for i in boards) if k == kernel.CHECK else
                  sum(int(b[i]) + int(m) * int(u[i]) for i in boards) for k, m in zip(flop.kinds, flop.mults)]
        o = best(values)
        out["check"] += values[o]
        cat = category[boards]
        np.add.at(out["all"], (every, cat), cells[boards].T)
        if flop.kinds[o] == kernel.ADD:
            np.add.at(out["flop"][o], (every, cat), cells[boards].T)
        elif flop.kinds[o] == kernel.FOLD:
            np.add.at(out["flop_fold"], cat, len(dealer_pairs))
        else:  # checked to the river: each board by its river option
            folds = river_folds[boards]
            np.add.at(out["river_fold"], cat[folds], len(dealer_pairs))
            played = boards[~folds]
            np.add.at(out["river"], (river_taken[played], every, category[played]), cells[played])
    return out


def test_the_counts_and_decisions_of_every_deal_match_brute_force(small_counts):
    spec = _spec()
    names = [c.name for c in small_counts.classes]
    reached = set()
    for hole in [(SMALL_DECK[0], SMALL_DECK[1]), (SMALL_DECK[2], SMALL_DECK[13]), (SMALL_DECK[8], SMALL_DECK[19])]:
        want = _brute_force(spec, SMALL_DECK, hole)
        k = names.index(f"{hole[0]}-{hole[1]}")
        flop_cells, river_cells = small_counts.ended_cells[k]  # the paths ended on the flop, on the river
        river_fold = river_cells[0].sum(axis=0)  # the river's option 0: fold
        assert (small_counts.all_cells[k] == want["all"]).all()
        assert (flop_cells == want["flop"]).all()
        assert (river_cells[1:] == want["river"][1:]).all() and not want["river"][0].any()
        assert (river_fold == want["river_fold"]).all()
        assert not want["flop_fold"].any() and (small_counts.folds()[k] == want["river_fold"]).all()
        assert small_counts.check_value[k] == want["check"]
        reached |= {name for name, a in want.items() if name != "check" and a.any()}
    assert reached == {"all", "flop", "river", "river_fold"}  # every path taken somewhere (no fold on the flop)


def test_every_deal_is_counted_once_and_the_sheet_adds_up(small_counts):
    deals = SMALL_DEALS  # C(20,2) holes x C(18,3) flops x C(15,2) turn-river pairs x C(13,2) dealer holes
    assert int(small_counts.all_cells.sum()) == deals
    sheet = board.main_sheet(_spec(), small_counts, full=False)
    assert sheet.cycle == deals
    assert sheet.expected_return == board.main_return(small_counts)
    assert board.main_sheet(_spec(), small_counts).cycle == small_counts.deals == deals  # checked
    ended = small_counts.ended_cells.copy()
    ended[:, 1, 0] = 0  # the river folds' deals left out
    lost = replace(small_counts, ended_cells=ended)
    with pytest.raises(analysis.ShapeError, match="the counting is wrong"):
        board.main_sheet(_spec(), lost)


def _win_with(bc, category: int) -> int:
    """Deals of the derived strategy the player wins (dealer qualifying or not) holding ``category``."""
    by_path, _ = board.played_cells(bc)
    return sum(int(c[kernel.QW, category] + c[kernel.NW, category])
               for (label, m), parts in by_path.items() if m is not None for c in parts)


def test_a_blind_line_moves_the_return_by_its_probability_times_the_change(tmp_path, small_counts):
    def even_flush(d):
        d["wagers"]["blind"]["settle"]["versus_dealer"]["win_pays"]["flush"] = 1
    changed = board.count(_spec(tmp_path, even_flush), deck=SMALL_DECK)
    deals = int(small_counts.all_cells.sum())
    old, new = board.main_return(small_counts), board.main_return(changed)
    delta = Fraction(-1, 2)
    # each strategy is optimal in its own game: the other's is no better there
    assert new >= old + Fraction(_win_with(small_counts, 5), deals) * delta
    assert old >= new - Fraction(_win_with(changed, 5), deals) * delta
    assert new < old


def test_dropping_the_3x_option_changes_nothing(tmp_path, small_counts):
    def no_3x(d):
        d["steps"][2]["options"] = [o for o in d["steps"][2]["options"] if o["name"] != "play_3x"]
    changed = board.count(_spec(tmp_path, no_3x), deck=SMALL_DECK)
    spec = _spec()
    a = board.main_sheet(spec, small_counts, full=False)
    b = board.main_sheet(_spec(tmp_path, no_3x), changed, full=False)
    assert [(r.event, r.pays, r.combinations) for r in a.rows] == [(r.event, r.pays, r.combinations) for r in b.rows]


# Seven ranks with no straight (2 3 5 6 8 9 J) in two suits: a seven-card hand may stay below a pair,
# so the dealer does not always qualify (in SMALL_DECK's five ranks it always does).
HIGH_CARD_DECK = tuple(4 * r + s for r in (0, 1, 3, 4, 6, 7, 9) for s in (0, 1))


def test_a_dealer_with_no_qualifier_moves_the_ante_by_the_non_qualifying_results(tmp_path):
    def no_qualifier(d):
        del d["dealer"]
        for w in d["wagers"].values():
            w["settle"].get("versus_dealer", {}).pop("dealer_not_qualifying", None)

    def ante_in_action(d):  # the same game written with the qualifier kept: cells still split by it
        d["wagers"]["ante"]["settle"]["versus_dealer"]["dealer_not_qualifying"] = "action"
    small_counts = board.count(_spec(), deck=HIGH_CARD_DECK)
    assert int(small_counts.all_cells[:, kernel.NW:].sum()) > 0
    unqualified = board.count(_spec(tmp_path, no_qualifier), deck=HIGH_CARD_DECK)
    (tmp_path / "b").mkdir()
    changed = board.count(_spec(tmp_path / "b", ante_in_action), deck=HIGH_CARD_DECK)
    assert int(unqualified.all_cells[:, kernel.NW:].sum()) == 0  # every dealer hand qualifies
    assert board.main_return(unqualified) == board.main_return(changed)
    assert (unqualified.check_value == changed.check_value).all()
    deals = int(small_counts.all_cells.sum())

    def ante_swing(bc):  # the Ante against a non-qualifying dealer: +1 a win, -1 a loss (was a push)
        by_path, _ = board.played_cells(bc)
        return sum(int(c[kernel.NW].sum() - c[kernel.NL].sum()) for (label, m), parts in by_path.items()
                   if m is not None for c in parts)
    old, new = board.main_return(small_counts), board.main_return(changed)
    assert new >= old + Fraction(ante_swing(small_counts), deals)
    assert old >= new - Fraction(ante_swing(changed), deals)
    assert new != old


# Published analyses (references, never inputs).
WIZARD_HOUSE_EDGE = "2.185%"  # Wizard of Odds, Ultimate Texas Hold'em, optimal strategy (per Ante)
ELEMENT_OF_RISK = "0.53%"  # beatingbonuses.com: UTH's house edge per total wagered (as Texas Hold'em Bonus)
TRIPS_50_40_30_8_6_5_3 = "1.90%"  # Wizard of Odds, the Trips side bet with this pay table
# Stephen How (discountgambling.net, "Bad Beat Bonus @ UTH", 2012): over C(52,2) x C(50,2) x C(48,5)
# = 2,781,381,002,400 deals, the ties and the losing hand's category (our cycle deals the flop and
# the turn-river pair apart: 10 times as many).
HOW_CYCLE = 2_781_381_002_400
HOW_TIES = 113_130_263_816
HOW_LOSING = {"straight_flush": 10_300_592, "quads": 471_040_512, "full_house": 8_435_225_376,
              "flush": 19_434_208_592, "straight": 18_271_076_976, "trips": 64_049_759_448,
              "two_pair": 399_099_149_640, "pair": 1_366_512_556_968, "high_card": 791_967_420_480,
              "royal_flush": 0}


def _percent(x, digits: int) -> str:
    return f"{float(x) * 100:.{digits}f}%"


@pytest.mark.slow
def test_the_full_game_agrees_with_the_published_analyses():
    spec = _spec()
    bc = board.counts_of(spec)  # what analysis.par_sheet runs for this spec (once a process: minutes)
    main = board.main_sheet(spec, bc)
    (trips,) = board.side_sheets(spec, bc)
    assert main.cycle == board.CYCLE == 10 * HOW_CYCLE
    assert _percent(main.house_edge, 3) == WIZARD_HOUSE_EDGE
    assert _percent(main.element_of_risk, 2) == ELEMENT_OF_RISK
    assert _percent(trips.house_edge, 2) == TRIPS_50_40_30_8_6_5_3
    assert int(bc.all_cells[:, [kernel.QT, kernel.NT]].sum()) == 10 * HOW_TIES
    losing = bc.all_cells[:, [kernel.QL, kernel.NL]].sum(axis=(0, 1))  # the player's losing hands
    for c, key in enumerate(ranking_categories("best_five")):
        assert 2 * int(losing[c]) == 10 * HOW_LOSING[key], key  # player and dealer are exchangeable
    # the published preflop strategy (raise 4x: any ace, K2s+ K5o+, Q6s+ Q8o+, J8s+ JTo+, 33+), derived
    checks = {ch.name for ch in board.preflop_choices(bc) if ch.option == 0}
    raises = {ch.name for ch in board.preflop_choices(bc) if ch.option == 2}
    assert {"K2s", "K5o", "Q6s", "Q8o", "J8s", "JTo", "33", "A2o"} <= raises
    assert {"K4o", "Q5s", "Q7o", "J7s", "J9o", "22", "T9s"} <= checks
    assert len(checks) + len(raises) == 169  # 3x is never the best


# The bulk kernel plays the full deck: its tables from a count of a few starting-hand classes (an
# ace pair raising, hands checking to every later option), its decks dealt with holes of those.
FEW_CLASSES = frozenset({"AA", "T8o", "72o", "J4s"})


@pytest.fixture(scope="module")
def few_classes():
    return board.count(_spec(), only=FEW_CLASSES)


@pytest.fixture(scope="module")
def few_kernel(few_classes):
    """The bulk kernel of that count, built once for the module: its river table covers every
    canonical board (about 10 s), and each test's own empty PAR cache would otherwise build it again."""
    return board.board_kernel(_spec(), few_classes)


def _decks_of(classes: frozenset[str], n: int, seed: int) -> np.ndarray:
    """Shuffled decks whose hole (positions 0-1) is of one of ``classes``."""
    from certify.rules.board_streets import class_of_hole

    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        deck = rng.permutation(52)
        if class_of_hole(int(deck[0]), int(deck[1])) in classes:
            out.append(deck)
    return np.array(out, np.uint8)


def test_the_bulk_kernel_plays_the_derived_strategy_deck_for_deck(few_classes, few_kernel):
    # a reference written apart: the flop option from the count's own table (the canonical flop
    # found by trying every suit permutation), the river one by numpy over every dealer hand
    from itertools import permutations

    spec = _spec()
    small_counts = few_classes
    k = few_kernel
    flops = small_counts.flops
    decks = _decks_of(FEW_CLASSES, 60, seed=5)
    ev, dealt = k.events(decks)
    shape = small_counts.shape
    pre, flop, river = shape.stages
    choice = {ch.name: ch.option for ch in board.preflop_choices(small_counts)}
    table, _ = board.hole_class_table()
    classes = [c.name for c in board.hole_class_table()[1]]
    where = {tuple(int(c) for c in f): i for i, f in enumerate(flops)}
    names = k.wagers[0].events
    for d, row, dealt_cat in zip(decks.astype(int).tolist(), ev, dealt):
        hole, dealer, five = list(d[:2]), list(d[2:4]), list(d[4:9])
        mine, theirs = hands.rank_hand(five + hole), hands.rank_hand(five + dealer)
        cat = mine >> 20
        cell = (0 if theirs >= 1 << 20 else 3) + (0 if mine > theirs else 1 if mine == theirs else 2)
        o = choice[classes[table[hole[0], hole[1]]]]
        if pre.kinds[o] == kernel.ADD:
            label, m = pre.names[o], pre.mults[o]
        else:
            for perm in permutations(range(4)):
                image = tuple(sorted(4 * (c >> 2) + perm[c & 3] for c in five[:3]))
                if image in where:
                    a, b = sorted(4 * (c >> 2) + perm[c & 3] for c in hole)
                    fo = small_counts.flop_choice[where[image], kernel._pair_index(a, b)]
                    break
            if flop.kinds[fo] == kernel.ADD:
                label, m = flop.names[fo], flop.mults[fo]
            else:
                rest = [c for c in range(52) if c not in hole + five]
                values = hands.rank_batch(np.array([five + list(x) for x in combinations(rest, 2)]))
                q = values >= 1 << 20
                cnt = [int(((q == bool(qq)) & (np.sign(mine - values) == res)).sum())
                       for qq, res in [(1, 1), (1, 0), (1, -1), (0, 1), (0, 0), (0, -1)]]
                play = sum(n * (shape.base[c][cat] + shape.unit[c][cat]) for c, n in enumerate(cnt))
                label, m = ("fold", None) if play <= -2 * 990 else ("play_1x", Fraction(1))
        if m is None:
            assert names[row[0]] == "fold (river)"
        else:
            want = shape.base[cell][cat] + m * shape.unit[cell][cat]
            assert names[row[0]].startswith(f"{label}: {board.CELL_NAMES[cell]}, ")
            assert k.wagers[0].nets[row[0]] == want
        assert k.wagers[1].events[row[1]] == analysis._category_name(ranking_categories("best_five")[cat])
        assert dealt_cat == cat


@pytest.mark.slow
def test_the_simulation_passes_against_the_exact_sheet_and_a_biased_deal_fails():
    from certify.simulate import simulate, verify

    sheet = analysis.par_sheet(_spec())  # the counts are kept for the kernel (board.counts_of)
    good = simulate(str(SPEC), rounds=400_000, seed=14, workers=1)
    assert verify(good, sheet, alpha=0.01, confirm_failures=False).passed
    bad = verify(simulate(str(SPEC), rounds=400_000, seed=14, workers=1, fault="naive-shuffle"), sheet,
                 alpha=0.01, confirm_failures=False)
    assert not bad.passed


# ---------------------------------------------------------------- the round engine
def test_the_round_engine_plays_the_kernel_decks_round_for_round(few_kernel):
    """RulesRound with the derived strategy (the kernel's own tables and decision functions) on
    decks dealt from the smaller game's flops: each round's money is the kernel event's net."""
    reached = engine_rounds_as_kernel(_spec(), few_kernel, _decks_of(FEW_CLASSES, 250, seed=9))
    assert reached == {"play_4x", "play_2x", "play_1x", "fold"}


def engine_rounds_as_kernel(spec, k, decks) -> set[str]:
    """Each deck played by RulesRound with the derived strategy (the kernel's own tables): the
    round's money is the kernel event's net (main wagers and Trips, 5.00 each) and its last
    decision the event's option; returns the options reached."""
    from fractions import Fraction

    from certify.rules.engine import DerivedStrategy, play_deck

    strategy = DerivedStrategy(spec, k)
    ev, _ = k.events(decks)
    main, trips = k.wagers
    reached = set()
    for r, d in enumerate(decks.astype(int).tolist()):
        rnd = play_deck(spec, d, ["5.00"], strategy, sides={"trips": "5.00"})
        net = rnd.result().seats[0].net
        assert Fraction(sum(v for name, v in net.items() if name != "trips")) / 5 == main.nets[ev[r, 0]], rnd.transcript()
        assert Fraction(net["trips"]) / 5 == trips.nets[ev[r, 1]]
        label = main.events[ev[r, 0]].split(":")[0].split(" (")[0]
        assert rnd.seats[0].decisions[-1] == label, (label, rnd.seats[0].decisions)
        reached.add(label)
    return reached


def test_the_engine_settles_every_dealer_hand_as_the_count_values_the_river():
    """One hole and board, checked to the river: the engine's nets over all 990 dealer hands, with
    the river option taken, add up to the counting's exact value of that option (base + m * unit
    over the six cells), and the option is the best of them."""
    from decimal import Decimal

    from certify.rules.engine import RulesRound

    spec = _spec()
    shape = board.board_shape(spec)
    base, unit, den = board._scaled(shape)
    hole, five = [48, 21], [44, 30, 13, 6, 2]  # A-7 on K-9-5-3-2: a river that plays
    rest = [c for c in range(52) if c not in hole + five]
    used, cnt = np.zeros(52, np.bool_), np.zeros(kernel.N_CELLS, np.int64)
    board_cards = np.array(five, np.int64)
    river = shape.stages[2]
    values = {}
    for o, name in enumerate(river.names):
        total = Decimal(0)
        for x, y in combinations(rest, 2):
            rnd = RulesRound(spec, balances=[None])
            rnd.place_wager(seat=0, wager="ante", amount="5.00")
            rnd.deal(hands=[tuple(hole)], dealer=(x, y))
            rnd.act(seat=0, action="check_preflop")
            rnd.deal_board(cards=tuple(five[:3]))
            rnd.act(seat=0, action="check_flop")
            rnd.deal_board(cards=tuple(five[3:]))
            rnd.act(seat=0, action=name)
            total += rnd.result().seats[0].total()
        values[name] = total / 5  # per unit wager
    mine = kernel._cells_against_every_dealer_hand(hole[0], hole[1], board_cards, _used(hole + five), 1 << 20, cnt)
    for o, name in enumerate(river.names):
        counted = (-shape.stake * den * 990 if river.kinds[o] == kernel.FOLD else
                   sum(int(cnt[c]) * (int(base[c, mine >> 20]) + int(river.mults[o]) * int(unit[c, mine >> 20]))
                       for c in range(kernel.N_CELLS)))
        assert values[name] * den == counted, name
    taken = kernel.river_option(hole[0], hole[1], board_cards, 1 << 20, np.array(river.kinds, np.int64),
                                np.array([int(m) for m in river.mults], np.int64), base, unit,
                                int(-shape.stake * den), used, cnt)
    assert values[river.names[taken]] == max(values.values())


def _used(cards):
    used = np.zeros(52, np.bool_)
    used[cards] = True
    return used


# ---------------------------------------------------------------- the river option table (certify.rules.board_sim)
def _river_args():
    shape = board.board_shape(_spec())
    base, unit, den = board._scaled(shape)
    river = shape.stages[2]
    return (int(shape.qualify), np.array(river.kinds, np.int64), np.array([int(m) for m in river.mults], np.int64),
            base, unit, int(-shape.stake * den))


def test_the_river_table_takes_the_exact_river_option_on_any_image_of_its_boards():
    """Random boards (most not canonical) and every hole on them: the table's option at the
    board's canonical image, the hole carried by the same suit relabelling, is ``river_option``'s
    on the board as dealt (990 dealer hands valued)."""
    from certify.rules import board_sim

    qual, kinds, mults, base, unit, fold = _river_args()
    rng = np.random.default_rng(16)
    dealt = [sorted(int(c) for c in rng.permutation(52)[:5]) for _ in range(6)]
    dealt += [[0, 1, 4, 5, 8], [0, 4, 8, 12, 16], [3, 7, 11, 15, 51], [48, 49, 50, 51, 44]]  # pairs, flushes, quads
    ranks = np.array(sorted({board_sim.canonical_board(*b)[0] for b in dealt}), np.int32)
    table = board_sim.river_option_table(ranks, qual, kinds, mults, base, unit, fold, 1, 2)
    board_row = np.full(board_sim.N_BOARDS, -1, np.int32)
    board_row[ranks] = np.arange(len(ranks), dtype=np.int32)
    used, cnt = np.zeros(52, np.bool_), np.zeros(kernel.N_CELLS, np.int64)
    taken = set()
    for five in dealt:
        cards = np.array(five, np.int64)
        for x, y in combinations([c for c in range(52) if c not in five], 2):
            want = kernel.river_option(x, y, cards, qual, kinds, mults, base, unit, fold, used, cnt)
            assert board_sim._tabled_river_option(x, y, *five, board_row, table, 1) == want, (five, x, y)
            taken.add(int(want))
    assert taken == {0, 1}  # both options on these boards


def test_a_board_outside_the_river_table_is_decided_against_every_dealer_hand(few_kernel):
    k = few_kernel
    decks = _decks_of(FEW_CLASSES, 200, seed=21)
    ev, dealt = k.events(decks)
    no_table = replace(k, params={**k.params, "board_row": np.full_like(k.params["board_row"], -1)})  # no board in the table
    again = no_table.events(decks)
    assert (again[0] == ev).all() and (again[1] == dealt).all()
    assert {k.wagers[0].events[e].split(":")[0] for e in ev[:, 0]} >= {"play_1x", "fold (river)"}


def test_the_river_table_compiled_ahead_is_the_one_the_count_calls(monkeypatch):
    """``certify run``'s battery process compiles the river table's kernel from the rules alone
    (``board_sim.compile_river_table``): only worth it if it is the signature ``river_table`` then
    calls with the count's shape, so both calls must pass the same argument types."""
    from types import SimpleNamespace

    from certify.rules import board_sim

    seen = []
    real = board_sim.river_option_table

    def recording(boards, *args):
        seen.append(tuple((type(a), getattr(a, "dtype", None), getattr(a, "ndim", None)) for a in (boards, *args[:-1])))
        return real(boards, *args)

    monkeypatch.setattr(board_sim, "river_option_table", recording)
    spec = load_spec("ultimate_texas_holdem")
    board_sim.compile_river_table(spec)
    flops = board.canonical_flops()[0][:2]
    board_sim.river_table(spec, SimpleNamespace(shape=board.board_shape(spec), flops=flops))
    assert len(seen) == 2 and seen[0] == seen[1]
    assert len(board_sim._river_option_rows.signatures) == 1
