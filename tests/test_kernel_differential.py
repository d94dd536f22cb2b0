"""The compiled kernel and the per-round rules settle the same decks identically, 100,000 rounds
per spec (the engines' ``settle`` functions with the spec's strategy objects; the full state
machine is compared on fewer rounds in test_games_kernel_agreement.py)."""

import zlib
from decimal import Decimal
from fractions import Fraction

import pytest

from certify.games import holdem_bonus, kernels
from certify.hands import rank_hand
from certify.rules import engine as rules_engine
from certify.rules.analysis import replaces_hands
from certify.spec import load_spec
from rng import shuffle, streams

ROUNDS = 100_000
ONE = Decimal(1)


def _stud(spec, deck, strategy):
    """A stud spec (rules model): the engine's pure ``settle`` of Ante and Bet, the progressive by
    its pay line at the reset meter (the one place each is read, certify.rules.engine)."""
    player, dealer = tuple(deck[0:5]), tuple(deck[5:10])
    decision = strategy.decide(rules_engine.RulesView(0, player, ONE, ("fold", "bet")))
    net = rules_engine.settle(spec, player, dealer, decision)
    out = {"main": sum(net.values(), Decimal(0))}
    if "progressive" in spec.wagers:
        w = spec.wagers["progressive"]
        out["progressive"] = rules_engine._side_net(spec, w, w.min, rank_hand(player), folded=decision == "fold")
    return out


def _mulligan(spec, deck, strategy):
    """A whole-hand replacement (rules model): the engine's rules, each read in its one place
    (``main_net``, ``pay_table_stands``, ``_side_net``), on the kernel's deck positions."""
    original = tuple(deck[0:5])
    decision = strategy.decide(rules_engine.RulesView(0, original, ONE, ("stand", "mulligan"),
                                                      decision="stand_or_mulligan"))
    replaced = spec.option(decision).replace
    final = tuple(deck[10:15]) if replaced else original
    redraw_at = 15 if replaced else 10
    dealer = tuple(deck[5:10])
    if rank_hand(dealer) < spec.threshold_value(spec.dealer_redraw.stands_on):
        dealer = tuple(deck[redraw_at:redraw_at + 5])
    value, dealer_value = rank_hand(final), rank_hand(dealer)
    stakes = {spec.unit: ONE, **{w: ONE * m for w, m in spec.option(decision).add.items()}}
    main = sum((rules_engine.main_net(spec, spec.wagers[w], a, value, dealer_value) for w, a in stakes.items()),
               Decimal(0))
    bonus = spec.wagers["bonus"]
    paid = rules_engine.pay_table_stands(spec, bonus.settle.pay_table, [decision], value, dealer_value)
    return {"main": main, "bonus": rules_engine._side_net(spec, bonus, ONE, rank_hand(original), False) if paid
            else -ONE}


def _holdem(spec, deck, strategy):
    hole, dealer, board = tuple(deck[0:2]), tuple(deck[2:4]), tuple(deck[4:9])
    legal = ("check", "bet")
    pre = strategy.decide(holdem_bonus.HoldemView(0, "preflop", hole, (), ONE, ("fold", "bet")))
    if pre == "fold":
        decisions = ("fold",)
    else:
        turn = strategy.decide(holdem_bonus.HoldemView(0, "flop", hole, board[:3], ONE, legal))
        river = strategy.decide(holdem_bonus.HoldemView(0, "turn", hole, board[:4], ONE, legal))
        decisions = ("bet", turn, river)
    net = holdem_bonus.settle(spec, hole, dealer, board, decisions, bonus=ONE)
    main = sum((net.get(w, Decimal(0)) for w in ("ante", "flop", "turn", "river")), Decimal(0))
    return {"main": main, "bonus": net["bonus"]}


PER_ROUND = {"rules": (rules_engine, _stud), "replacement": (rules_engine, _mulligan), "holdem_bonus": (holdem_bonus, _holdem)}


@pytest.mark.parametrize("name", ["caribbean_stud", "casino_stud", "five_card_mulligan",
                                  "five_card_mulligan_online", "texas_holdem_bonus", "texas_holdem_bonus_2x"])
def test_kernel_settles_like_the_rules_round_for_round(name):
    spec = load_spec(name)
    kernel = kernels.kernel_for(spec)
    module, per_round = PER_ROUND["replacement" if spec.family == "rules" and replaces_hands(spec) else spec.family]
    strategy = module.strategy_from_spec(spec)
    decks = shuffle.deal_batch(streams.stream(20261129, (1, zlib.crc32(name.encode()))), ROUNDS,
                               kernel.cards_per_round)
    events, _ = kernel.events(decks)
    mismatches = []
    for r in range(ROUNDS):
        deck = [int(c) for c in decks[r]]
        want = {k: Fraction(v) for k, v in per_round(spec, deck, strategy).items()}
        got = {w.name: w.nets[events[r, j]] for j, w in enumerate(kernel.wagers)}
        if got != want:
            mismatches.append((r, deck, got, want))
            if len(mismatches) > 5:
                break
    assert not mismatches, mismatches
