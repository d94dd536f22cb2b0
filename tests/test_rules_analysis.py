"""Exact PAR sheets from the rules model (certify.rules.analysis): Three Card Poker against the
published figures, the derived strategy, rule changes moving the figures by the combinatorics,
the counting against brute force (Caribbean and Casino Stud: tests/test_rules_stud.py)."""

from decimal import Decimal
from fractions import Fraction
from itertools import chain, combinations
from math import comb
from pathlib import Path

import numpy as np
import pytest
import yaml

from certify import hands
from certify.cards import parse_cards
from certify.analysis import par_sheet
from certify.rules import analysis, counting
from certify.spec import SPECS_DIR, load_spec
from spec_files import spec_copy

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def tcp():
    return load_spec("three_card_poker")


@pytest.fixture(scope="module")
def sheet(tcp):
    return par_sheet(tcp)


def _variant(tmp_path, edit, name="three_card_poker"):
    return analysis.par_sheet(spec_copy(tmp_path, name, edit))


def test_three_card_poker_matches_the_published_house_edges(sheet):
    # Wizard of Odds, Three Card Poker: Ante/Play 3.37% per Ante (Ante Bonus 1/4/5), Pair Plus
    # 7.28% (1/3/6/30/40). References to test against, not inputs: the sheet is counted.
    assert sheet.main.cycle == comb(52, 3) * comb(49, 3)
    assert round(100 * float(sheet.main.house_edge), 2) == 3.37
    assert round(100 * float(sheet.wager("pair_plus").house_edge), 2) == 7.28
    assert sheet.wager("pair_plus").house_edge == Fraction(402, 5525)  # exact; 22,100 hands
    assert sheet.wager("pair_plus").cycle == comb(52, 3)


def test_the_optimal_strategy_is_derived_as_play_q64_or_better(tcp, sheet):
    counts = analysis.count(tcp)
    threshold = counts.tables.dense_at_least(tcp.threshold_value(
        tcp.strategy.decisions["play_or_fold"][0].at_least))
    play = [o.name for o in counts.rules.options].index("play")
    assert np.array_equal(counts.choice[:, 0] == play, counts.dense >= threshold)
    assert "play with high card Q-6-4 or better" in sheet.main.strategy
    spec_strategy = sheet.wager(analysis.SPEC_STRATEGY_WAGER)
    assert [r.combinations for r in spec_strategy.rows] == [r.combinations for r in sheet.main.rows]


def test_a_changed_pay_line_moves_the_edge_by_its_combinations(tmp_path, sheet):
    def flush_pays_4(d):
        d["wagers"]["pair_plus"]["settle"]["pay_table"]["pays"]["flush"] = 4
    changed = _variant(tmp_path, flush_pays_4)
    flushes = 1096  # three-card flushes that are not straight flushes
    assert flushes == 4 * (comb(13, 3) - 12)
    assert sheet.wager("pair_plus").house_edge - changed.wager("pair_plus").house_edge == Fraction(flushes, comb(52, 3))

    def straight_bonus_2(d):
        d["wagers"]["ante"]["settle"]["versus_dealer"]["bonus"]["pays"]["straight"] = 2
    changed = _variant(tmp_path, straight_bonus_2)
    straights = 4 ** 3 * 12 - 48  # every straight plays, against every dealer hand
    assert sheet.main.house_edge - changed.main.house_edge == Fraction(straights, comb(52, 3))


def test_a_changed_qualifier_moves_the_dealer_frequency_by_its_hands(tmp_path, sheet):
    def king_high(d):
        d["dealer"]["qualifies"]["ranks"] = ["K"]
    changed = _variant(tmp_path, king_high)
    # Queen-high hands with no pair, straight or flush: Q + two lower distinct ranks (not Q-J-10)
    # in any suits but not one suit
    queen_high = (comb(10, 2) - 1) * (4 ** 3 - 4)
    assert sheet.frequencies["dealer_qualifies"]["hands"] - changed.frequencies["dealer_qualifies"]["hands"] == queen_high
    assert changed.main.house_edge != sheet.main.house_edge


def test_an_extra_raise_multiple_is_a_choice_the_computation_takes(tmp_path, sheet):
    def play_twice(d):
        d["steps"][2]["options"].append({"name": "play_2x", "add": {"play": 2}})
    changed = _variant(tmp_path, play_twice)
    events = [r.event for r in changed.main.rows]
    assert "play_2x: win with pair" in events and "play: dealer does not qualify with pair" in events
    assert changed.main.house_edge < sheet.main.house_edge  # a choice more can only help the player
    twice = sum(r.combinations for r in changed.main.rows if r.event.startswith("play_2x:"))
    assert 0 < twice < changed.main.cycle


def _brute_cells(spec, player, qualify_value):
    """(no qualify, win, tie, lose) over every dealer hand of the remaining cards, by enumeration."""
    rest = np.array([c for c in range(52) if c not in player])
    dealer = np.array(list(combinations(rest, 3)))
    d = hands.rank_batch3(dealer).astype(np.int64)
    p = int(hands.rank_batch3(np.array([player]))[0])
    nq = int((d < qualify_value).sum())
    q = d >= qualify_value
    return nq, int((q & (d < p)).sum()), int((q & (d == p)).sum()), int((q & (d > p)).sum())


def test_the_counting_agrees_with_brute_force_over_the_dealer_hands(tcp):
    rng = np.random.default_rng(14)
    players = [tuple(sorted(rng.choice(52, 3, replace=False).tolist())) for _ in range(12)]
    players += [(0, 4, 8), (40, 44, 48), (47, 46, 51)[::-1], (0, 1, 2)]  # 2-3-4, Q-K-A, straight flush
    players = [tuple(sorted(p)) for p in players]
    counts = analysis.count(tcp, classes=np.array(players))
    q = tcp.threshold_value(tcp.dealer.qualifies)
    for i, player in enumerate(players):
        got = tuple(int(x) for x in counts.acc_best[i].sum(axis=0))
        assert got == _brute_cells(tcp, player, q), player


def _brute_five_card_cells(player, up, qualify):
    """(not qualifying, beaten, tying) dealer five-card hands holding ``up`` (None: any) and none of
    the player's cards, each dealer hand valued by the evaluator."""
    rest = [c for c in range(52) if c not in player and c != up]
    k = 4 if up is not None else 5
    hidden = np.fromiter(chain.from_iterable(combinations(rest, k)), np.int64,  # no list of 1.5M tuples
                         count=k * comb(len(rest), k)).reshape(-1, k)
    dealer = hidden if up is None else np.column_stack([hidden, np.full(len(hidden), up)])
    d = hands.rank_batch(dealer).astype(np.int64)
    p = int(hands.rank_batch(np.array([player]))[0])
    q = d >= qualify
    return int((~q).sum()), int((q & (d < p)).sum()) if p >= qualify else 0, \
        int((q & (d == p)).sum()) if p >= qualify else 0


def test_five_card_hands_counted_by_rank_profiles_agree_with_brute_force():
    # the generic analysis counts five-card dealers by rank profiles (certify.rules.counting): every
    # player and up card checked against the evaluator over the dealer's 163,185 hidden hands
    from certify.cards import parse_cards

    spec = load_spec("caribbean_stud")
    rules = analysis.one_decision(spec)
    t = analysis.hand_tables(rules.ranking, rules.k)
    players = [sorted(parse_cards(text)) for text in
               ("Ac Kc Qc Jc 9c", "Ad Kh 4s 3c 2d", "7h 7d 7s 2c 2h", "Tc 9h 8d 7s 6c", "Ks Kh 9d 4c 2s")]
    reps = np.array(players, np.int64)
    dense = np.searchsorted(t.values, hands.rank_batch(reps)).astype(np.int64)
    qualify_value = spec.threshold_value(rules.qualifier)
    qualify = t.dense_at_least(qualify_value)
    cells = analysis.dealer_cells(rules, reps, dense, qualify)
    assert cells.shape == (len(players), 52, 3)
    ups = [0, 20, 51]
    for i, player in enumerate(players):
        for up in ups:
            if up in player:
                assert (cells[i, up] == -1).all()
                continue
            assert tuple(int(x) for x in cells[i, up]) == _brute_five_card_cells(player, up, qualify_value), \
                (player, up)
    no_up = counting.dealer_cells(reps[:1], dense[:1], qualify, up=False)  # the dealer's five all hidden
    assert tuple(int(x) for x in no_up[0, 0]) == _brute_five_card_cells(players[0], None, qualify_value)


def test_three_card_values_follow_the_three_card_order():
    from certify.cards import parse_cards

    def v(text):
        return int(hands.rank_batch3(np.array([parse_cards(text)]))[0])

    order = ["2c 3d 5h", "Ac Kd Jh", "2c 2d 3h", "Ac Ad Kh", "2c 3c 5c", "Ac Kc Jc", "Ac 2d 3h",
             "2c 3d 4h", "Ac Kd Qh", "2c 2d 2h", "Ac Ad Ah", "Ac 2c 3c", "Ac Kc Qc"]
    values = [v(t) for t in order]
    assert values == sorted(values) and len(set(values)) == len(values)
    names = [hands.THREE_CARD_ORDER[x >> 20] for x in values]
    assert names == ["high_card"] * 2 + ["pair"] * 2 + ["flush"] * 2 + ["straight"] * 3 + ["trips"] * 2 \
        + ["straight_flush"] * 2
    counts = np.bincount(hands.rank_batch3(analysis._all_hands(3)) >> 20, minlength=6)
    assert counts.tolist() == [16440, 3744, 1096, 720, 52, 48]


def test_a_game_outside_the_counted_shape_is_refused_naming_why(tmp_path):
    def second_decision(d):
        d["steps"].append({"decide": "again", "options": [{"name": "check"}, {"name": "fold_late", "fold": True}]})
    with pytest.raises(analysis.ShapeError, match="exactly one decision"):
        _variant(tmp_path, second_decision)


def test_a_one_decision_game_whose_non_qualifying_dealer_has_action_is_refused(tmp_path):
    # 'action' compares the hands; the one-decision counting lumps every non-qualifying dealer hand
    # into one cell, so it must refuse (not settle it as a push or crash on the word)
    def ante_action(d):
        d["wagers"]["ante"]["settle"]["versus_dealer"]["dealer_not_qualifying"] = "action"
    with pytest.raises(analysis.ShapeError, match=r"ante: action is counted in the board shape only"):
        _variant(tmp_path, ante_action)
    from certify.rules.engine import RulesRound
    data = yaml.safe_load((SPECS_DIR / "three_card_poker.yaml").read_text())
    ante_action(data)
    (tmp_path / "three_card_poker.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    # the round engine compares the hands ('action'): a higher player hand wins the Ante against a
    # dealer who does not qualify, a lower one loses it; the Play still pushes
    spec = load_spec(tmp_path / "three_card_poker.yaml")
    for player, ante in (("AS KD 9C", "5.00"), ("TS 8D 2C", "-5.00")):
        rnd = RulesRound(spec, balances=[None])
        rnd.place_wager(seat=0, wager="ante", amount="5.00")
        rnd.deal(hands=[parse_cards(player)], dealer=parse_cards("JH 9D 4S"))
        rnd.act(seat=0, action="play")
        assert rnd.result().seats[0].net == {"ante": Decimal(ante), "play": Decimal(0)}


# ---------------------------------------------------------------- Let It Ride (backward induction)
@pytest.fixture(scope="module")
def lir():
    return load_spec("let_it_ride")


@pytest.fixture(scope="module")
def lir_sheet(lir):
    return par_sheet(lir)


def test_let_it_ride_matches_the_published_house_edge(lir_sheet):
    # Wizard of Odds, Let It Ride (1-2-3-5-8-11-50-200-1000): house edge 3.51% of one bet, element
    # of risk 2.86% (a tie in expectation pulls the bet back). References, not inputs.
    main = lir_sheet.main
    assert main.cycle == comb(52, 3) * 49 * 48
    assert round(100 * float(main.house_edge), 2) == 3.51
    assert round(100 * float(main.element_of_risk), 2) == 2.86


def test_let_it_ride_first_decisions_are_the_published_strategy(lir):
    from certify.cards import parse_cards
    from certify.rules.induction import first_choices

    # Wizard of Odds: ride with a paying pair or trips, three to a royal, three suited in a row
    # (not 2-3-4, A-2-3), three to a straight flush spread 4 with a high card (ten or better),
    # spread 5 with two
    ride = {"Tc Th 2d": True, "9c 9h Ad": False, "5c 5d 5h": True, "Jh Qh Kh": True, "3s 4s 5s": True,
            "2s 3s 4s": False, "As 2s 3s": False, "Ts Js Ah": False, "8s 9s Js": True, "6s 7s 9s": False, "7s 8s Ts": True, "6s 8s Ts": False, "8s Ts Qs": True, "9s Js Ks": True,
            "Ac Kd Qh": False, "7c 8d 9h": False}
    got = first_choices(lir, [parse_cards(t) for t in ride])
    assert [g == "let_it_ride" for g in got] == list(ride.values()), dict(zip(ride, got))


def test_let_it_ride_a_better_royal_moves_the_edge_by_its_combinations(tmp_path, lir_sheet):
    def royal_1001(d):
        for name in ("bet_1",):
            d["wagers"][name]["settle"]["pay_table"]["pays"]["royal_flush"] = 1001
        for name in ("bet_2", "bet_3"):
            d["wagers"][name]["settle"] = d["wagers"]["bet_1"]["settle"]
    changed = _variant(tmp_path, royal_1001, name="let_it_ride")
    royal_bets = sum(r.combinations * r.wagered for r in lir_sheet.main.rows if r.event.endswith(": royal flush"))
    if changed.main.strategy_chart == lir_sheet.main.strategy_chart:  # the same decisions
        assert lir_sheet.main.house_edge - changed.main.house_edge == Fraction(royal_bets, lir_sheet.main.cycle)
    assert changed.main.house_edge < lir_sheet.main.house_edge
