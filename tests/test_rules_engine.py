"""The engine and the bulk kernel of rules-model games (certify.rules.engine, certify.rules.kernel):
the kernel against the engine's settlement deck for deck, replay, the registry, the simulation
against the exact sheet and its negative control."""

from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import yaml

from certify.analysis import par_sheet
from certify.games import replay_round, round_class
from certify.games.base import IllegalAction
from certify.games.kernels import kernel_for
from certify.rules.engine import RulesRound, play_round, settle, strategy_option, hand_value
from certify.spec import SPECS_DIR, load_spec

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def tcp():
    return load_spec("three_card_poker")


def _decks(n, seed=14):
    rng = np.random.default_rng(seed)
    return np.array([rng.permutation(52) for _ in range(n)], np.uint8)


def test_the_kernel_settles_every_deck_as_the_engine_does(tcp):
    kernel = kernel_for(tcp)
    decks = _decks(3000)
    ev, dealt = kernel.events(decks)
    wagers = {w.name: w for w in kernel.wagers}
    amounts = {"ante": Decimal(1), "pair_plus": Decimal(1)}
    for r, deck in enumerate(decks):
        player, dealer = [int(c) for c in deck[:3]], [int(c) for c in deck[3:6]]
        option = strategy_option(tcp, "play_or_fold", hand_value(tcp, player))
        net = settle(tcp, player, dealer, option, amounts)
        main = sum(v for k, v in net.items() if k != "pair_plus")
        assert Fraction(main) == wagers["main"].nets[ev[r, 0]], (r, player, dealer, option)
        assert Fraction(net["pair_plus"]) == wagers["pair_plus"].nets[ev[r, 1]]
        assert dealt[r] == hand_value(tcp, player) >> 20


def test_kernel_events_are_the_par_sheet_events(tcp):
    sheet = par_sheet(tcp)
    kernel = kernel_for(tcp)
    main, side = kernel.wagers
    assert main.events == [r.event for r in sheet.wager("main game (spec strategy)").rows]
    assert main.nets == [r.pays for r in sheet.wager("main game (spec strategy)").rows]
    assert side.events == [r.event for r in sheet.wager("pair_plus").rows]
    assert list(kernel.dealt_exact) == [16440, 3744, 1096, 720, 52, 48]


def test_a_round_replays_from_its_log_and_refuses_what_the_rules_refuse(tcp):
    assert round_class(tcp) is RulesRound
    deck = [int(c) for c in _decks(1, seed=3)[0]]
    rnd = play_round(tcp, deck, antes=["5.00", "10.00"])
    again = replay_round(tcp, rnd.events)
    assert again.events == rnd.events and again.result() == rnd.result()
    fresh = RulesRound(tcp, balances=[None])
    with pytest.raises(IllegalAction, match="made by a decision"):
        fresh.place_wager(seat=0, wager="play", amount="5.00")
    fresh.place_wager(seat=0, wager="ante", amount="5.00")
    fresh.deal(hands=[(0, 5, 10)], dealer=(20, 30, 40))
    with pytest.raises(IllegalAction, match="not an option"):
        fresh.act(seat=0, action="raise")
    assert fresh.events[-1].kind == "rejected"


def test_the_simulation_passes_against_the_exact_sheet_and_catches_a_misread_rule(tmp_path, tcp):
    from certify.simulate import simulate, verify

    good = simulate(str(SPECS_DIR / "three_card_poker.yaml"), rounds=300_000, seed=14, workers=1)
    assert verify(good, par_sheet(tcp), alpha=0.01, confirm_failures=False).passed
    data = yaml.safe_load((SPECS_DIR / "three_card_poker.yaml").read_text())
    data["dealer"]["qualifies"]["ranks"] = ["K"]  # the engine misreads the qualifier
    wrong = tmp_path / "three_card_poker.yaml"
    wrong.write_text(yaml.safe_dump(data, sort_keys=False))
    bad = simulate(str(wrong), rounds=300_000, seed=14, workers=1)
    assert not verify(bad, par_sheet(tcp), alpha=0.01, confirm_failures=False).passed


def test_a_wrong_expected_net_in_a_fixture_fails(tmp_path):
    from certify.procedures import run_files

    text = (ROOT / "fixtures" / "procedures" / "three_card_poker.yaml").read_text()
    wrong = tmp_path / "tcp.yaml"
    wrong.write_text(text.replace('net: {ante: "25.00", play: "5.00", pair_plus: "300.00"}',
                                  'net: {ante: "20.00", play: "5.00", pair_plus: "300.00"}')
                     .replace("spec: three_card_poker", f"spec: {SPECS_DIR / 'three_card_poker.yaml'}"))
    results = run_files([wrong])
    failed = [r for r in results if not r.passed]
    assert [r.id for r in failed] == ["trips-ante-bonus-4-pair-plus-30"]
    assert "net.ante: expected 20.00, got 25.00" in failed[0].differences[0]


# ---------------------------------------------------------------- Let It Ride: the induction kernel
def _lir_reference_event(spec, deck, first_option):
    """The event of one deck by a slow, separate reading: the second decision by its exact
    expectation over the 48 cards left (Fractions), the standing bets paid on the final hand."""
    from certify.rules.engine import hand_value

    cards = [int(c) for c in deck[:5]]
    line = spec.threshold_value(spec.wagers["bet_1"].settle.pay_table.at_least)
    pays = spec.wagers["bet_1"].settle.pay_table.pays

    def net(value):
        odds = pays[["high_card", "pair", "two_pair", "trips", "straight", "flush", "full_house", "quads",
                     "straight_flush", "royal_flush"][value >> 20]]
        return Fraction(-1) if odds is None or value < line else Fraction(odds)

    rest = [c for c in range(52) if c not in cards[:4]]
    ride_second = sum(net(hand_value(spec, cards[:4] + [c])) for c in rest) > 0  # a tie pulls back
    standing = ["bet_1"] * (first_option == "let_it_ride") + ["bet_2"] * ride_second + ["bet_3"]
    value = hand_value(spec, cards)
    category = ["high card", "pair", "two pair", "trips", "straight", "flush", "full house", "quads",
                "straight flush", "royal flush"][value >> 20]
    under = value < line and pays[category.replace(" ", "_")] is not None
    return "+".join(standing) + ": " + category + (" (below the pay line)" if under else "")


def test_the_let_it_ride_kernel_plays_the_derived_strategy_deck_for_deck():
    from certify.rules.induction import first_choices

    spec = load_spec("let_it_ride")
    kernel = kernel_for(spec)
    decks = _decks(300, seed=7)
    ev, dealt = kernel.events(decks)
    firsts = first_choices(spec, [sorted(int(c) for c in d[:3]) for d in decks])
    for r, deck in enumerate(decks):
        assert kernel.wagers[0].events[ev[r, 0]] == _lir_reference_event(spec, deck, firsts[r]), r


def test_the_let_it_ride_simulation_passes_and_a_misread_pay_fails(tmp_path):
    from certify.simulate import simulate, verify

    spec = load_spec("let_it_ride")
    sheet = par_sheet(spec)
    good = simulate(str(SPECS_DIR / "let_it_ride.yaml"), rounds=200_000, seed=14, workers=1)
    assert verify(good, sheet, alpha=0.01, confirm_failures=False).passed
    text = (SPECS_DIR / "let_it_ride.yaml").read_text().replace("flush: 8,", "flush: 9,")
    wrong = tmp_path / "let_it_ride.yaml"
    wrong.write_text(text)
    bad = verify(simulate(str(wrong), rounds=200_000, seed=14, workers=1), sheet, alpha=0.01, confirm_failures=False)
    assert not bad.passed
    assert not next(t for t in bad.tests if t.name == "main: payouts").passed


# ---------------------------------------------------------------- Let It Ride: the round engine
def test_the_let_it_ride_engine_plays_the_simulation_decks_as_the_kernel():
    from certify.rules.engine import DerivedStrategy, play_deck
    from certify.simulate import deal_chunk

    spec = load_spec("let_it_ride")
    kernel = kernel_for(spec)
    strategy = DerivedStrategy(spec, kernel)
    decks = deal_chunk(1, 0, 400, kernel.cards_per_round)  # chunk 0 of seed 1, as `certify simulate --seed 1` deals it
    ev, dealt = kernel.events(decks)
    main = kernel.wagers[0]
    paths = set()
    for r, deck in enumerate(decks):
        rnd = play_deck(spec, [int(c) for c in deck], ["5.00"], strategy)
        seat = rnd.result().seats[0]
        event = main.events[ev[r, 0]]
        assert Fraction(seat.total()) / 5 == main.nets[ev[r, 0]], (r, rnd.transcript())
        standing = "+".join(n for n in spec.wagers if n not in rnd._pulled.get(0, []))
        assert event.split(": ")[0] == standing and seat.hand == event.split(": ")[1].split(" (")[0], r
        assert dealt[r] == hand_value(spec, [int(c) for c in deck[:5]]) >> 20
        paths.add(tuple(rnd.seats[0].decisions))
    assert len(paths) >= 3  # the decks reach pull-backs at both decisions and rides


@pytest.mark.parametrize("first", [[40, 41, 7], [48, 44, 3]])  # Q-Q-3 rides; A-K-2 pulls back, then depends
def test_the_let_it_ride_engine_sums_to_the_exact_value_of_a_first_hand(first):
    """Every completion of one first hand played by the engine: the nets add up to the backward
    induction's exact value of that hand (scaled by den^2 per unit wager)."""
    from certify.rules import induction
    from certify.rules.engine import DerivedStrategy, play_deck

    spec = load_spec("let_it_ride")
    ctx = induction._solve(spec, [first])
    strategy = DerivedStrategy(spec)
    rest = [c for c in range(52) if c not in first]
    total, seconds = Fraction(0), set()
    for a in rest:
        for b in rest:
            if a != b:
                rnd = play_deck(spec, first + [a, b], ["5.00"], strategy)
                total += Fraction(rnd.result().seats[0].total()) / 5
                seconds.add(rnd.seats[0].decisions[1])
    assert total * ctx.den ** 2 == int(ctx.value[()][0])
    assert len(seconds) == (1 if first[0] == 40 else 2)


def test_a_let_it_ride_round_replays_and_refuses_a_pull_back_out_of_turn():
    from certify.rules.engine import DerivedStrategy, play_deck

    spec = load_spec("let_it_ride")
    deck = [int(c) for c in _decks(1, seed=11)[0]]
    rnd = play_deck(spec, deck, ["5.00", "10.00"], DerivedStrategy(spec))
    again = replay_round(spec, rnd.events)
    assert again.events == rnd.events and again.result() == rnd.result()
    assert [e.kind for e in rnd.events].count("deal_board") == 2
    fresh = RulesRound(spec, balances=[None])
    with pytest.raises(IllegalAction, match="placed with the bet_1"):
        fresh.place_wager(seat=0, wager="bet_3", amount="5.00")
    fresh.place_wager(seat=0, wager="bet_1", amount="5.00")
    assert fresh.seats[0].wagers == {"bet_1": Decimal("5.00"), "bet_2": Decimal("5.00"), "bet_3": Decimal("5.00")}
    fresh.deal(hands=[(0, 5, 10)], dealer=())
    assert fresh.legal_actions(0) == ("let_it_ride", "pull_back_first")
    with pytest.raises(IllegalAction, match="not an option"):
        fresh.act(seat=0, action="pull_back_second")
    fresh.act(seat=0, action="pull_back_first")
    assert fresh.next_step() == ("deal_board", None) and fresh.cards_awaited == 1
    with pytest.raises(IllegalAction, match="rest of the deck"):
        fresh.deal_board(cards=(5,))


def test_the_let_it_ride_second_decision_table_is_the_exact_expectation_it_replaces():
    from certify.rules.kernel import _colex, induction_first, induction_second
    from certify.simulate import deal_chunk

    p = kernel_for(load_spec("let_it_ride")).params
    decks = deal_chunk(1, 0, 5000, 5).astype(np.int64)
    chosen = set()
    for d in decks:
        o1 = induction_first(d, p["first"], p["first_table"])
        o2 = induction_second(d, o1, p["stake"], p["pay"], p["lines"], p["path_of"], p["tie_order"], p["den"])
        assert p["second_table"][_colex(d, 4), o1] == o2
        chosen.add((int(o1), int(o2)))
    assert len(chosen) >= 3
