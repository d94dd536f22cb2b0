"""Fair round logs from the suite's own engines: the example logs of ``fixtures/round_logs/``, the
logs the tests tamper with, and the benchmark's input.

Each round is one deck from the suite's DRBG (``certify.simulate.deal_chunk``: chunk sub-streams
of a master seed) played by the family's ``play_round`` and written by
:func:`certify.audit.rounds.record_of`. The family modules' ``play_round`` functions take their
wagers in two shapes (stud: antes and progressive flags per seat; the others: one seat's ante and
side bet), which is the only place this module knows a family; the audit itself knows none.
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta, timezone
from typing import Callable, Iterator

import numpy as np

from certify.audit.rounds import record_of
from certify.games import engine

START = datetime(2026, 1, 1, tzinfo=timezone.utc)
CHUNK = 4096


class RandomChoice:
    """A seeded random legal choice at every decision (free play that reaches every branch)."""

    def __init__(self, seed: int):
        self.random = random.Random(seed)

    def decide(self, view) -> str:
        return self.random.choice(view.legal)


def _side_wager(spec) -> str | None:
    if spec.family == "rules":      # the rules model says which wagers are side bets
        return next((n for n, w in spec.wagers.items() if w.made == "side"), None)
    return next((w for w in spec.wagers if w != "ante"), None)


def _play_rules(spec, deck: list[int], strategy, ante, sides: list[bool], side: str | None, meter):
    """One round of a rules-model spec through its round's inputs: the Ante (and the side wager
    where ``sides`` says) per seat, k cards to each seat in turn and to the dealer, each decision."""
    from certify.rules.analysis import one_decision
    from certify.rules.engine import RulesRound

    k, n = one_decision(spec).k, len(sides)
    rnd = RulesRound(spec, balances=[None] * n, meter=meter)
    for seat, with_side in enumerate(sides):
        rnd.place_wager(seat=seat, wager=spec.unit, amount=ante)
        if with_side:
            rnd.place_wager(seat=seat, wager=side, amount=spec.wagers[side].min)
    if rnd.locks_out:
        rnd.lock_out()
    rnd.deal(hands=[tuple(deck[i * k:(i + 1) * k]) for i in range(n)], dealer=tuple(deck[n * k:(n + 1) * k]))
    for seat in range(n):
        if rnd.legal_actions(seat):
            rnd.act(seat=seat, action=strategy.decide(rnd.view(seat)))
    return rnd


def records(spec, rounds: int, seed: int, *, seats: int = 1, side_rate: float = 0.5, play: str = "spec",
            table: str = "T1", with_deck: bool = False, first_round: int = 1,
            shuffle: Callable[[np.ndarray], np.ndarray] | None = None) -> Iterator[dict]:
    """``rounds`` fair records; ``play`` "spec" (the spec strategy, declared in the log) or "random".
    ``shuffle(decks)`` replaces the decks dealt (a negative control: a biased shuffle)."""
    from certify.simulate import deal_chunk

    module = engine(spec)
    strategy = module.strategy_from_spec(spec) if play == "spec" else RandomChoice(seed)
    choose = random.Random(seed + 1)
    side = _side_wager(spec)
    ante = spec.wagers["ante"].min
    meter = spec.progressive.meter_reset if getattr(spec, "progressive", None) is not None else None
    done = 0
    chunk = 0
    while done < rounds:
        decks = deal_chunk(seed, chunk, min(CHUNK, rounds - done), 52)
        if shuffle is not None:
            decks = shuffle(decks)
        chunk += 1
        for deck in decks:
            deck = [int(c) for c in deck]
            with_side = [side is not None and choose.random() < side_rate for _ in range(seats)]
            if spec.family == "rules":
                rnd = _play_rules(spec, deck, strategy, ante, with_side, side, meter)
            elif spec.family == "stud":
                rnd = module.play_round(spec, deck, strategy, antes=[ante] * seats, progressive=with_side,
                                        meter=meter)
            else:
                bonus = spec.wagers[side].min if with_side[0] else None
                rnd = module.play_round(spec, deck, strategy, ante, bonus)
            meter = rnd.result().meter_after if meter is not None or spec.family == "rules" else None
            number = first_round + done
            stamp = (START + timedelta(seconds=30 * number)).strftime("%Y-%m-%dT%H:%M:%SZ")
            yield record_of(rnd, number, table, stamp, seat_numbers=list(range(1, len(rnd.seats) + 1)),
                            strategy="spec" if play == "spec" else "free", deck=deck if with_deck else None)
            done += 1


def dumps(record: dict) -> str:
    return json.dumps(record, separators=(",", ":"))


def write(path, spec, rounds: int, seed: int, **kwargs) -> None:
    """Write a fair log (``.gz``: compressed) for tests and fixtures."""
    import gzip

    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "wt", encoding="utf-8") as out:
        for record in records(spec, rounds, seed, **kwargs):
            out.write(dumps(record) + "\n")
