"""The compiled kernel and the per-round rules settle the same decks identically (the engines'
``settle`` functions with the spec's strategy objects; the full state machine is compared on fewer
rounds in test_games_kernel_agreement.py).

The kernel plays 100,000 rounds per spec. The slow tier settles all of them by the rules; the default
tier settles the first 10,000 and, from the whole 100,000, the first 100 rounds of every outcome cell
(the player's dealt category and the event of every wager): every pay line and result the kernel
reached is checked against the rules, a rare one (fewer than 100 rounds) in every round it occurs."""

import zlib
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from certify.games import kernels
from certify.hands import rank_hand
from certify.rules import engine as rules_engine
from certify.rules.analysis import replaces_hands
from certify.spec import load_spec
from rng import shuffle, streams

ROUNDS = 100_000
FIRST_ROUNDS, PER_CELL = 10_000, 100  # the default tier's rounds: see the docstring
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
    """Hold'em Bonus (rules model): the spec strategy's options (``RuleStrategy.option``), each
    standing wager by the engine's ``main_net``, the Bonus by ``card_lines_net``."""
    hole, dealer, board = tuple(deck[0:2]), tuple(deck[2:4]), tuple(deck[4:9])
    taken = [strategy.option("preflop", hole)]
    if not spec.option(taken[0]).fold:
        taken += [strategy.option("turn", hole, board[:3]), strategy.option("river", hole, board[:4])]
    folded = spec.option(taken[0]).fold
    amounts = {"ante": ONE}
    for name in taken:
        amounts.update({w: ONE * m for w, m in spec.option(name).add.items()})
    pv, dv = rank_hand(list(hole + board)), rank_hand(list(dealer + board))
    main = -ONE if folded else sum((rules_engine.main_net(spec, spec.wagers[w], a, pv, dv) for w, a in amounts.items()),
                                   Decimal(0))
    bonus = rules_engine.card_lines_net(spec.wagers["bonus"].settle.card_lines, ONE, hole, dealer, folded)
    return {"main": main, "bonus": bonus}


def _per_round(spec):
    """The per-round reference of a spec's shape: a replace, board streets, or stud."""
    if replaces_hands(spec):
        return _mulligan
    return _holdem if spec.deals("board") else _stud


def rounds_to_settle(events, dealt, every_round):
    """All rounds, or the first FIRST_ROUNDS plus the first PER_CELL rounds of every outcome cell
    (dealt category, event of each wager), in round order."""
    if every_round:
        return np.arange(len(dealt))
    _, cell = np.unique(np.column_stack([dealt, events]), axis=0, return_inverse=True)
    cell = cell.ravel()
    order = np.argsort(cell, kind="stable")  # round order within each cell
    starts = np.searchsorted(cell[order], cell[order])  # each round's cell's first position in `order`
    early = order[np.arange(len(order)) - starts < PER_CELL]
    return np.union1d(np.arange(min(FIRST_ROUNDS, len(dealt))), early)


SPEC_NAMES = ["caribbean_stud", "casino_stud", "five_card_mulligan", "five_card_mulligan_online",
              "texas_holdem_bonus", "texas_holdem_bonus_2x"]


@pytest.mark.parametrize("every_round", [False, pytest.param(True, marks=pytest.mark.slow, id="all")])
@pytest.mark.parametrize("name", SPEC_NAMES)
def test_kernel_settles_like_the_rules_round_for_round(name, every_round):
    spec = load_spec(name)
    kernel = kernels.kernel_for(spec)
    per_round = _per_round(spec)
    strategy = rules_engine.strategy_from_spec(spec)
    decks = shuffle.deal_batch(streams.stream(20261129, (1, zlib.crc32(name.encode()))), ROUNDS,
                               kernel.cards_per_round)
    events, dealt = kernel.events(decks)
    mismatches = []
    for r in rounds_to_settle(events, dealt, every_round):
        deck = [int(c) for c in decks[r]]
        want = {k: Fraction(v) for k, v in per_round(spec, deck, strategy).items()}
        got = {w.name: w.nets[events[r, j]] for j, w in enumerate(kernel.wagers)}
        if got != want:
            mismatches.append((int(r), deck, got, want))
            if len(mismatches) > 5:
                break
    assert not mismatches, mismatches


def test_the_default_tier_settles_every_outcome_cell_and_rare_ones_in_every_round():
    # after the first rounds: a rare cell (3 rounds), a common one (150: its first 100), and a cell
    # that differs from the commonest in one wager's event only (the last round)
    dealt = np.array([0] * 12_000 + [1] * 3 + [3] * 150 + [0] * 50 + [0])
    events = np.zeros((len(dealt), 2), np.int8)
    events[-1, 1] = 5
    picked = rounds_to_settle(events, dealt, every_round=False)
    rare, common = 12_000 + np.arange(3), 12_003 + np.arange(100)
    assert np.array_equal(picked, np.concatenate([np.arange(FIRST_ROUNDS), rare, common, [len(dealt) - 1]]))
    assert np.array_equal(rounds_to_settle(events, dealt, every_round=True), np.arange(len(dealt)))
