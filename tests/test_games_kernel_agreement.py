"""The bulk kernels (certify.games.kernels) and the per-round engines agree round for round.

Both deal a shuffled deck the same way; for every deck the kernel's outcome event, priced by its
own net table, must equal the engine's settlement (Ante 1.00, side bets 1.00)."""

import random
import zlib
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from certify.games import engine
from certify.rules.analysis import replaces_hands
from certify.spec import SPECS_DIR, load_spec, parse_spec, read_yaml

kernels = pytest.importorskip("certify.games.kernels")

ROUNDS = 3000


def _decks(seed: int) -> np.ndarray:
    rng = random.Random(seed)
    rows = []
    for _ in range(ROUNDS):
        deck = list(range(52))
        rng.shuffle(deck)
        rows.append(deck)
    return np.array(rows, dtype=np.uint8)


def _strategy(spec):
    """The spec's strategy, built once a test (a stateless object: building it reads the spec's
    rules, most of a round's time if built every round)."""
    return engine(spec).strategy_from_spec(spec)


def _engine_nets(spec, deck, strategy) -> dict[str, Fraction]:
    games = engine(spec)
    if replaces_hands(spec):  # a mulligan: one seat, the side wager too
        rnd = games.play_deck(spec, deck, ["1.00"], strategy, sides={"bonus": "1.00"})
        net = rnd.result().seats[0].net
        out = {"main": net["ante"] + net.get("raise", Decimal(0)), "bonus": net["bonus"]}
    elif spec.deals("board"):  # Hold'em Bonus: the Bonus placed, board steps dealt
        rnd = games.play_round(spec, deck, ["1.00"], strategy=strategy, sides=[{"bonus": "1.00"}])
        net = rnd.result().seats[0].net
        out = {"main": sum((v for k, v in net.items() if k != "bonus"), Decimal(0)), "bonus": net["bonus"]}
    else:  # the stud games: one seat, the progressive when the game has one
        prog = "progressive" in spec.wagers
        rnd = games.RulesRound(spec, balances=[None])
        rnd.place_wager(seat=0, wager="ante", amount="1.00")
        if prog:
            rnd.place_wager(seat=0, wager="progressive", amount="1.00")
        if rnd.locks_out:
            rnd.lock_out()
        rnd.deal(hands=[deck[0:5]], dealer=deck[5:10])
        if rnd.legal_actions(0):
            rnd.act(seat=0, action=strategy.decide(rnd.view(0)))
        net = rnd.result().seats[0].net
        out = {"main": net["ante"] + net.get("bet", Decimal(0))}
        if prog:
            out["progressive"] = net["progressive"]
    return {k: Fraction(str(v)) for k, v in out.items()}


@pytest.mark.parametrize("name", ["caribbean_stud", "casino_stud", "five_card_mulligan",
                                  "five_card_mulligan_online", "texas_holdem_bonus", "texas_holdem_bonus_2x"])
def test_kernel_agrees_with_engine_round_for_round(name):
    spec = load_spec(name)
    try:
        kernel = kernels.kernel_for(spec)
    except kernels.KernelError as exc:
        pytest.skip(str(exc))
    decks = _decks(zlib.crc32(name.encode()))
    events, _ = kernel.events(decks)
    strategy = _strategy(spec)
    for r in range(ROUNDS):
        want = _engine_nets(spec, [int(c) for c in decks[r]], strategy)
        got = {w.name: w.nets[events[r, j]] for j, w in enumerate(kernel.wagers)}
        assert got == want, (r, [int(c) for c in decks[r]], got, want)


def test_agreement_check_catches_a_wrong_payout():
    """Negative control: an engine paying a full house 8 to 1 instead of 7 disagrees with the kernel."""
    spec = load_spec("casino_stud")
    kernel = kernels.kernel_for(spec)
    path = SPECS_DIR / "casino_stud.yaml"
    data = read_yaml(path)
    data["wagers"]["bet"]["settle"]["versus_dealer"]["win_pays"]["full_house"] = 8
    wrong = parse_spec(data, path)
    decks = _decks(5)
    events, _ = kernel.events(decks)
    disagreements = 0
    strategy = _strategy(wrong)
    for r in range(ROUNDS):
        want = _engine_nets(wrong, [int(c) for c in decks[r]], strategy)
        got = {w.name: w.nets[events[r, j]] for j, w in enumerate(kernel.wagers)}
        disagreements += got != want
    assert disagreements > 0
