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
from decimal import Decimal
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


def write_stud_columns(path, spec, rounds: int, seed: int, side_rate: float = 0.5, chunk: int = 1 << 17) -> None:
    """A fair columnar log of a stud game (one seat, the spec strategy) at numpy speed: the bulk
    input of bench/audit.py. Each round's deck is the DRBG's (``deal_chunk``); rounds settle by
    class as the columnar audit settles them (certify.audit.columns), each class once through
    ``play_round``, the rare rounds that move the progressive meter each on their own, in order."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from certify.audit.columns import CENTS, FORMAT
    from certify.games import stud
    from certify.hands import CATEGORY_SHIFT, rank_batch
    from certify.simulate import deal_chunk

    strategy = stud.strategy_from_spec(spec)
    ante = spec.wagers["ante"].min
    side = _side_wager(spec)
    side_min = spec.wagers[side].min if side else None
    meter = spec.progressive.meter_reset if getattr(spec, "progressive", None) is not None else None
    want: dict[int, str] = {}
    classes: dict[tuple, tuple] = {}
    choose = np.random.default_rng(seed + 1)
    decimal = pa.decimal128(18, 2)
    writer, done, index = None, 0, 0

    def money(cents: np.ndarray, null: np.ndarray | None = None):
        values = pa.array(cents, pa.int64()).cast(pa.decimal128(20, 0))
        values = pa.compute.multiply(values, pa.scalar(Decimal("0.01"), pa.decimal128(3, 2))).cast(decimal)
        return values if null is None else pa.compute.if_else(pa.array(null), pa.nulls(len(cents), decimal), values)

    while done < rounds:
        n = min(chunk, rounds - done)
        decks = deal_chunk(seed, index, n, 52).astype(np.int64)
        index += 1
        pv, dv = rank_batch(decks[:, :5]), rank_batch(decks[:, 5:10])
        values, first, back = np.unique(pv, return_index=True, return_inverse=True)
        for v, row in zip(values, first):
            if int(v) not in want:
                want[int(v)] = strategy.decide(stud.StudView(0, tuple(int(c) for c in decks[row, :5]), 0, ante,
                                                             stud.ACTIONS))
        bet = np.array([want[int(v)] == "bet" for v in values])[back.reshape(-1)]
        prog = choose.random(n) < side_rate if side else np.zeros(n, bool)
        values, back = np.unique(dv, return_inverse=True)
        qual = np.array([stud.dealer_qualifies(spec, int(v)) for v in values])[back.reshape(-1)]
        keys = np.stack([bet, qual, np.sign(pv - dv), pv >> CATEGORY_SHIFT, prog], axis=1).astype(np.int64)
        group = (((keys[:, 0] * 2 + keys[:, 1]) * 3 + keys[:, 2] + 1) * 16 + keys[:, 3]) * 2 + keys[:, 4]
        nets = {w: np.zeros(n, np.int64) for w in ("ante", "bet", side)}
        nulls = {w: np.ones(n, bool) for w in nets}
        moves = np.zeros(n, bool)
        order = np.argsort(group, kind="stable")
        for members in np.split(order, np.flatnonzero(np.diff(group[order])) + 1):
            k = keys[members[0]]
            key = tuple(int(x) for x in k)
            if key not in classes:
                rnd = stud.play_round(spec, [int(x) for x in decks[members[0]]], strategy, antes=[ante],
                                      progressive=[bool(k[4])], meter=meter)
                result = rnd.result()
                classes[key] = ({w: int(v * CENTS) for w, v in result.seats[0].net.items()},
                                result.meter_after != result.meter_before)
            settled, moving = classes[key]
            if moving:
                moves[members] = True
                continue
            for w, cents in settled.items():
                nets[w][members], nulls[w][members] = cents, False
        levels = [int(meter * CENTS) if meter is not None else 0]
        moving = np.flatnonzero(moves)
        for row in moving:                 # the rare rounds that move the meter, in order
            rnd = stud.play_round(spec, [int(x) for x in decks[row]], strategy, antes=[ante],
                                  progressive=[bool(prog[row])], meter=Decimal(levels[-1]) / CENTS)
            result = rnd.result()
            for w, v in result.seats[0].net.items():
                nets[w][row], nulls[w][row] = int(v * CENTS), False
            meter = result.meter_after
            levels.append(int(meter * CENTS))
        levels = np.array(levels, np.int64)
        before = levels[np.searchsorted(moving, np.arange(n), side="left")]
        after = before.copy()
        after[moving] = levels[1:]
        numbers = np.arange(done + 1, done + n + 1)
        stamps = (np.datetime64("2026-01-01T00:00:00") + numbers.astype("timedelta64[s]") * 30).astype("datetime64[us]")
        columns = {
            "round": pa.array(numbers, pa.int64()), "table": pa.array(["T1"] * n),
            "time": pa.array(stamps).cast(pa.timestamp("us", tz="UTC")),
            "spec_name": pa.array([spec.name] * n), "spec_version": pa.array([str(spec.version)] * n),
            "strategy": pa.array(["spec"] * n), "seat": pa.array(np.ones(n, np.int16)),
            "lockout": pa.array(np.full(n, meter is not None)),
            "player_cards": pa.FixedSizeListArray.from_arrays(pa.array(decks[:, :5].ravel().astype(np.uint8)), 5)
            .cast(pa.list_(pa.uint8())),
            "dealer_cards": pa.FixedSizeListArray.from_arrays(pa.array(decks[:, 5:10].ravel().astype(np.uint8)), 5)
            .cast(pa.list_(pa.uint8())),
            "decision": pa.array(np.where(bet, "bet", "fold")), "outcome": pa.array(["played"] * n),
            "wager_ante": money(np.full(n, int(ante * CENTS)))}
        if side:
            columns[f"wager_{side}"] = money(np.full(n, int(side_min * CENTS)), ~prog)
        if meter is not None:
            columns["meter_before"], columns["meter_after"] = money(before), money(after)
        for w in nets:
            columns[f"net_{w}"] = money(nets[w], nulls[w])
        table = pa.table(columns, metadata={"format": FORMAT})
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema)
        writer.write_table(table)
        done += n
    writer.close()
