"""Engines: replay from the event log, strategies as objects, illegal inputs refused, pure settle."""

import dataclasses
import random
from decimal import Decimal

import pytest

from certify.cards import parse_cards
from certify.games.base import Event, IllegalAction, make_event
from certify.rules import engine as rules_engine
from certify.spec import load_spec

D = Decimal


def _deck(rng):
    deck = list(range(52))
    rng.shuffle(deck)
    return deck


# ---------------------------------------------------------------- random rounds replay identically

def _has_progressive(spec):
    return "progressive" in spec.wagers


def play_stud(spec, deck, strategy, antes, progressive=None, meter=None, balances=None):
    """One round of a stud spec (rules model) from a shuffled deck: five cards to each seat, then
    the dealer's; the progressive where asked; each live seat asks ``strategy.decide(view)``. A
    wager the table refuses voids that seat, as the procedures runner does."""
    n = len(antes)
    rnd = rules_engine.RulesRound(spec, balances=balances if balances is not None else [None] * n, meter=meter)
    for i, ante in enumerate(antes):
        try:
            rnd.place_wager(seat=i, wager="ante", amount=ante)
            if progressive and progressive[i]:
                rnd.place_wager(seat=i, wager="progressive", amount=spec.wagers["progressive"].min)
        except IllegalAction as exc:
            rnd.void_seat(seat=i, reason=exc.reason)
    if rnd.locks_out:
        rnd.lock_out()
    rnd.deal(hands=[tuple(deck[i * 5:(i + 1) * 5]) for i in range(n)], dealer=tuple(deck[n * 5:n * 5 + 5]))
    for i in range(n):
        if rnd.legal_actions(i):
            rnd.act(seat=i, action=strategy.decide(rnd.view(i)))
    return rnd


def _random_stud_round(spec, rng):
    seats = rng.randint(1, spec.seats)
    antes = [rng.choice(["1.00", "1.50", "2.00", "2.50"]) for _ in range(seats)]
    prog = [_has_progressive(spec) and rng.random() < 0.6 for _ in range(seats)]
    # some balances too small for the Bet: those seats must fold
    balances = [rng.choice([None, None, "4.00", "7.50"]) for _ in range(seats)]
    strategy = rules_engine.strategy_from_spec(spec)
    meter = "12345.67" if _has_progressive(spec) else None
    return play_stud(spec, _deck(rng), strategy, antes, prog, meter=meter, balances=balances)


@pytest.mark.parametrize("name", ["caribbean_stud", "casino_stud"])
def test_stud_rounds_replay_identically(name):
    spec, rng = load_spec(name), random.Random(20261129)
    outcomes = set()
    for _ in range(300):
        rnd = _random_stud_round(spec, rng)
        again = rules_engine.replay_rules(spec, rnd.events)
        assert again.events == rnd.events
        assert again.result() == rnd.result()
        outcomes.update(s.status for s in rnd.result().seats)
    assert {"played", "folded"} <= outcomes


@pytest.mark.parametrize("name", ["five_card_mulligan", "five_card_mulligan_online"])
def test_mulligan_rounds_replay_identically(name):
    spec, rng = load_spec(name), random.Random(7)
    strategy = rules_engine.strategy_from_spec(spec)
    kinds = set()
    for _ in range(300):
        bonus = rng.choice([None, "1.00", "5.00"])
        rnd = rules_engine.play_deck(spec, _deck(rng), [rng.choice(["1.00", "5.00", "25.00"])], strategy,
                                     sides={"bonus": bonus} if bonus else None)
        again = rules_engine.replay_rules(spec, rnd.events)
        assert again.events == rnd.events and again.result() == rnd.result()
        kinds.update(e.kind for e in rnd.events)
    assert {"redraw", "dealer_redraw"} <= kinds     # both sides took mulligans in the sample


@pytest.mark.parametrize("name", ["texas_holdem_bonus", "texas_holdem_bonus_2x"])
def test_holdem_rounds_replay_identically(name):
    spec, rng = load_spec(name), random.Random(11)
    strategy = rules_engine.strategy_from_spec(spec)
    paths = set()
    for _ in range(300):
        bonus = rng.choice([None, "1.00"])
        rnd = rules_engine.play_round(spec, _deck(rng), ["5.00"], balances=[rng.choice([None, "12.00", "100.00"])],
                                      strategy=strategy, sides=[{"bonus": bonus} if bonus else {}])
        again = rules_engine.replay_rules(spec, rnd.events)
        assert again.events == rnd.events and again.result() == rnd.result()
        paths.add(tuple(e.get("action") for e in rnd.events if e.kind == "act"))
    assert {("fold",), ("bet_flop", "bet_turn", "bet_river"), ("bet_flop", "check_turn", "check_river")} <= paths


def test_tampered_log_replays_to_a_different_round():
    spec = load_spec("casino_stud")
    rnd = play_stud(spec, list(range(52)), rules_engine.strategy_from_spec(spec), ["1.00"])
    events = list(rnd.events)
    i = next(k for k, e in enumerate(events) if e.kind == "act")
    flipped = "fold" if events[i].get("action") == "bet" else "bet"
    events[i] = make_event("act", seat=0, action=flipped)
    assert rules_engine.replay_rules(spec, events).result() != rnd.result()


def test_events_are_immutable():
    spec = load_spec("casino_stud")
    rnd = play_stud(spec, list(range(52)), rules_engine.strategy_from_spec(spec), ["1.00"])
    assert isinstance(rnd.events, tuple)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rnd.events[0].kind = "changed"
    assert isinstance(rnd.events[0], Event)


# ---------------------------------------------------------------- strategies are objects

class AlwaysBet:
    def decide(self, view):
        return "bet" if "bet" in view.legal else view.legal[0]


class AlwaysFold:
    def decide(self, view):
        return "fold"


class AlwaysMulligan:
    def decide(self, view):
        return "mulligan"


def test_strategy_object_changes_stud_decisions():
    spec, rng = load_spec("caribbean_stud"), random.Random(3)
    differ = 0
    for _ in range(50):
        deck = _deck(rng)
        a = play_stud(spec, deck, AlwaysBet(), ["1.00"] * 3, meter="10000.00")
        b = play_stud(spec, deck, AlwaysFold(), ["1.00"] * 3, meter="10000.00")
        c = play_stud(spec, deck, rules_engine.strategy_from_spec(spec), ["1.00"] * 3, meter="10000.00")
        assert all(s.status == "played" for s in a.result().seats)
        assert all(s.status == "folded" and s.net == {"ante": D("-1.00")} for s in b.result().seats)
        differ += a.result() != c.result()
    assert differ > 0


def test_strategy_object_changes_mulligan_and_holdem_decisions():
    spec, rng = load_spec("five_card_mulligan"), random.Random(5)
    deck = _deck(rng)
    forced = rules_engine.play_deck(spec, deck, ["1.00"], AlwaysMulligan())
    assert [e.get("action") for e in forced.events if e.kind == "act"] == ["mulligan"]
    assert "raise" in forced.result().seats[0].net
    hspec = load_spec("texas_holdem_bonus")
    folded = rules_engine.play_round(hspec, deck, ["1.00"], strategy=AlwaysFold())
    assert folded.result().seats[0].status == "folded"

    class AlwaysAdd:
        def decide(self, view):
            return next(o for o in view.legal if hspec.option(o).add)
    betting = rules_engine.play_round(hspec, deck, ["1.00"], strategy=AlwaysAdd())
    assert [e.get("action") for e in betting.events if e.kind == "act"] == ["bet_flop", "bet_turn", "bet_river"]


def test_mulligan_threshold_is_the_inventors():
    spec = load_spec("five_card_mulligan")
    strategy = rules_engine.strategy_from_spec(spec)
    view = lambda text: rules_engine.RulesView(0, tuple(parse_cards(text)), D(1), ("stand", "mulligan"),
                                               decision="stand_or_mulligan")
    assert strategy.decide(view("AS KD 9C 5H 4D")) == "stand"
    assert strategy.decide(view("AS KD 9C 5H 3D")) == "mulligan"
    assert strategy.decide(view("2S 2D 9C 5H 3D")) == "stand"


# ---------------------------------------------------------------- illegal inputs are refused

def _rejects(call, text):
    with pytest.raises(IllegalAction) as err:
        call()
    assert text in err.value.reason, err.value.reason


def test_stud_refuses_illegal_wagers_and_actions():
    spec = load_spec("caribbean_stud")
    rnd = rules_engine.RulesRound(spec, balances=[None, "2.99"], meter="10000.00")
    _rejects(lambda: rnd.place_wager(seat=0, wager="ante", amount="2.51"), "outside the table limits")
    _rejects(lambda: rnd.place_wager(seat=0, wager="bet", amount="2.00"), "not a wager placed before the deal")
    _rejects(lambda: rnd.place_wager(seat=0, wager="progressive", amount="1.00"), "needs the ante first")
    _rejects(lambda: rnd.place_wager(seat=0, wager="ante", amount="1.005"), "whole cents")
    _rejects(lambda: rnd.place_wager(seat=5, wager="ante", amount="1.00"), "no seat 5")
    rnd.place_wager(seat=0, wager="ante", amount="1.00")
    rnd.place_wager(seat=1, wager="ante", amount="1.00")
    _rejects(lambda: rnd.place_wager(seat=0, wager="ante", amount="1.00"), "already has")
    _rejects(lambda: rnd.act(seat=0, action="bet"), "no decision to make now")
    _rejects(lambda: rnd.deal(hands=[parse_cards("AS KS QS JS TS"), parse_cards("2C 3C 4C 5C 7D")],
                              dealer=parse_cards("AH KH QH JH 9H")), "not allowed now")   # lockout first
    rnd.lock_out()
    _rejects(lambda: rnd.place_wager(seat=0, wager="progressive", amount="1.00"), "locked out")
    _rejects(lambda: rnd.deal(hands=[parse_cards("AS KS QS JS TS"), parse_cards("AS 3C 4C 5C 7D")],
                              dealer=parse_cards("AH KH QH JH 9H")), "distinct")
    rnd.deal(hands=[parse_cards("AS KS QS JS TS"), parse_cards("2C 3C 4C 5C 7D")],
             dealer=parse_cards("AH KH QH JH 9H"))
    assert rnd.legal_actions(1) == ("fold",)          # balance 2.99 cannot cover 1.00 + Bet 2.00
    before = [(dict(s.wagers), s.status, list(s.decisions)) for s in rnd.seats]
    _rejects(lambda: rnd.act(seat=1, action="bet"), "cannot cover the bet")
    _rejects(lambda: rnd.act(seat=0, action="check"), "not an option")
    assert [(dict(s.wagers), s.status, list(s.decisions)) for s in rnd.seats] == before   # refusals change nothing
    rnd.act(seat=0, action="bet")
    _rejects(lambda: rnd.act(seat=0, action="bet"), "no decision to make now")
    rnd.act(seat=1, action="fold")
    assert rnd.result().seats[0].net == {"ante": D("1.00"), "bet": D("200.00")}


def test_mulligan_refuses_illegal_steps():
    spec = load_spec("five_card_mulligan")
    rnd = rules_engine.RulesRound(spec)
    _rejects(lambda: rnd.place_wager(seat=0, wager="bonus", amount="1.00"), "needs the ante first")
    rnd.place_wager(seat=0, wager="ante", amount="5.00")
    _rejects(lambda: rnd.place_wager(seat=0, wager="raise", amount="5.00"), "made by a decision")
    rnd.deal(hands=[parse_cards("2C 5D 8H JS KC")], dealer=parse_cards("KS QS 9H 6D 3C"))
    _rejects(lambda: rnd.redraw(seat=0, cards=parse_cards("AH AD 9C 4S 3H")), "has not replaced its hand")
    _rejects(lambda: rnd.dealer_redraw(cards=parse_cards("AH AD 9C 4S 3H")), "not allowed now")
    rnd.act(seat=0, action="mulligan")
    _rejects(lambda: rnd.redraw(seat=0, cards=parse_cards("2C AD 9C 4S 3H")), "rest of the deck")
    rnd.redraw(seat=0, cards=parse_cards("AH AD 9C 4S 3H"))
    assert rnd.next_step() == ("dealer_redraw", None)      # K-high dealer must redraw
    rnd.dealer_redraw(cards=parse_cards("8C 6S 4H 3D 2D"))
    assert rnd.result().seats[0].net == {"ante": D("5.00"), "raise": D("5.00")}


def test_holdem_refuses_illegal_steps():
    spec = load_spec("texas_holdem_bonus")
    rnd = rules_engine.RulesRound(spec, balances=["12.00"])
    rnd.place_wager(seat=0, wager="ante", amount="5.00")
    _rejects(lambda: rnd.place_wager(seat=0, wager="flop", amount="5.00"), "made by a decision")
    _rejects(lambda: rnd.deal_board(cards=parse_cards("2C 3C 4C")), "not allowed now")
    rnd.deal(hands=[parse_cards("AC AD")], dealer=parse_cards("7H 2S"))
    _rejects(lambda: rnd.act(seat=0, action="check_turn"), "not an option here")
    rnd.act(seat=0, action="bet_flop")
    _rejects(lambda: rnd.act(seat=0, action="bet_flop"), "no decision to make now")
    rnd.deal_board(cards=parse_cards("AH 9S 4D"))
    assert rnd.legal_actions(0) == ("check_turn",)        # 12.00 cannot cover a third 5.00
    _rejects(lambda: rnd.act(seat=0, action="bet_turn"), "cannot cover the turn")
    rnd.act(seat=0, action="check_turn")
    rnd.deal_board(cards=parse_cards("5C"))
    rnd.act(seat=0, action="check_river")
    rnd.deal_board(cards=parse_cards("KH"))
    assert rnd.result().seats[0].net == {"ante": D("0"), "flop": D("5.00")}


# ---------------------------------------------------------------- pure settle functions

def test_stud_settle_reads_the_spec():
    spec = load_spec("casino_stud")
    cards = lambda text: parse_cards(text)
    settle = rules_engine.settle
    assert settle(spec, cards("AS KS QS JS TS"), cards("AH KD 5C 4S 2D"), "bet") == {"ante": 1, "bet": 200}
    assert settle(spec, cards("2C 5D 7H 9S JD"), cards("KC QD 8H 6S 3C"), "bet") == {"ante": 1, "bet": 0}
    assert settle(spec, cards("2C 5D 7H 9S JD"), cards("KC QD 8H 6S 3C"), "fold") == {"ante": -1}
    assert settle(spec, cards("5C 5D KH 9S 2D"), cards("6C 6D 4H 3S 2C"), "bet", {"ante": D("3")}) == {"ante": -3, "bet": -6}


def test_settle_agrees_with_engine_round_for_round():
    """The engine's settlement is the pure settle function (one owner of each rule)."""
    rng = random.Random(99)
    spec = load_spec("casino_stud")
    for _ in range(100):
        deck = _deck(rng)
        rnd = play_stud(spec, deck, rules_engine.strategy_from_spec(spec), ["2.00"])
        decision = [e.get("action") for e in rnd.events if e.kind == "act"][0]
        assert rnd.result().seats[0].net == rules_engine.settle(spec, deck[:5], deck[5:10], decision, {"ante": D("2.00")})


def test_hole_classes():
    c = parse_cards
    lines = load_spec("texas_holdem_bonus").wagers["bonus"].settle.card_lines.lines
    label = lambda hole, dealer: (lambda i: "other" if i is None else lines[i].label)(  # noqa: E731
        rules_engine.card_line(lines, c(hole), c(dealer)))
    assert label("AC AD", "AH AS") == "A-A with dealer A-A"
    assert label("AC AD", "AH KS") == "A-A"
    assert label("KS AS", "2H 3S") == "A-K suited"
    assert label("AH JH", "2H 3S") == "A-Q or A-J suited"
    assert label("AH KD", "2H 3S") == "A-K offsuit"
    assert label("JH JD", "2H 3S") == "J-J, Q-Q or K-K"
    assert label("QC AD", "2H 3S") == "A-Q or A-J offsuit"
    assert label("TC TD", "2H 3S") == "2-2 to 10-10"
    assert label("AC TC", "2H 3S") == "other"


def test_progressive_award_split_and_rounding():
    # the award is paid on top of the collected $1.00 wager: net = award - 1.00
    spec = load_spec("caribbean_stud")
    from certify.hands import rank_hand
    w, one = spec.wagers["progressive"], D("1.00")
    award = lambda cards, meter, winners=1: rules_engine._side_net(  # noqa: E731
        spec, w, one, rank_hand(parse_cards(cards)), folded=False, meter=D(meter), royal_winners=winners) + one
    assert award("AS KS QS JS TS", "10000.00", 3) == D("3333.33")
    assert award("9C 8C 7C 6C 5C", "12345.67") == D("1234.56")
    assert award("2C 3D 4H 5S 6C", "10000") == 0
    assert rules_engine._side_net(spec, w, one, rank_hand(parse_cards("AS KS QS JS TS")), folded=True) == -one


def test_dealer_up_card_comes_from_the_spec():
    """Caribbean Stud turns the dealer's fifth card up (seed 003); the online game its top card."""
    for name, index in (("caribbean_stud", 4), ("casino_stud", 0)):
        dealer = load_spec(name).deals("dealer")
        assert len(dealer) == 1 and dealer[0].cards == 5 and dealer[0].face_up == [index]


def test_random_stud_procedures_replay_and_keep_invariants():
    """Random deals with wrong counts, late progressive coins and refused bets: the log replays
    to the same round, dead hands keep every wager, a misdeal never settles an Ante."""
    spec, rng = load_spec("caribbean_stud"), random.Random(2026)
    tables = set()
    for _ in range(300):
        n = rng.randint(1, spec.seats)
        rnd = rules_engine.RulesRound(spec, balances=[rng.choice([None, "3.00", "9.00"]) for _ in range(n)],
                                      meter="10000.00")
        for i in range(n):
            try:
                rnd.place_wager(seat=i, wager="ante", amount=rng.choice(["1.00", "2.50", "2.75"]))
                if rng.random() < 0.5:
                    rnd.place_wager(seat=i, wager="progressive", amount="1.00")
            except IllegalAction as exc:
                rnd.void_seat(seat=i, reason=exc.reason)
        rnd.lock_out()
        with pytest.raises(IllegalAction):
            rnd.place_wager(seat=0, wager="progressive", amount="1.00")
        deck = _deck(rng)
        counts = [rng.choice([5, 5, 5, 4, 6]) for _ in range(n + 1)]
        hands, pos = [], 0
        for c in counts[:-1]:
            hands.append(deck[pos:pos + c])
            pos += c
        rnd.deal(hands=hands, dealer=deck[pos:pos + counts[-1]])
        for i in range(n):
            if rnd.legal_actions(i):
                choice = rng.choice(["bet", "fold"])
                try:
                    rnd.act(seat=i, action=choice)
                except IllegalAction as exc:
                    rnd.void_seat(seat=i, reason=exc.reason)
        result = rnd.result()
        tables.add(result.table)
        again = rules_engine.replay_rules(spec, rnd.events)
        assert again.events == rnd.events and again.result() == result
        for seat, count in zip(result.seats, counts):
            if seat.status in ("dead", "rejected"):
                assert all(v == 0 for v in seat.net.values())
            if count != 5 and seat.status != "rejected":
                assert seat.status == "dead"
            if result.table == "misdeal":
                assert seat.net.get("ante", D(0)) == 0 and "bet" not in seat.net
    assert tables == {"played", "misdeal"}
