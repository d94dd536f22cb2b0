"""Fair round logs from the suite's own engines: the example logs of ``fixtures/round_logs/``, the
logs the tests tamper with, and the benchmark's input.

Each round is one deck from the suite's DRBG (``certify.simulate.deal_chunk``: chunk sub-streams
of a master seed) played by the rules engine's ``play_round`` (antes and side wagers per seat)
and written by :func:`certify.audit.rounds.record_of`.
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
    return next((n for n, w in spec.wagers.items() if w.made == "side"), None)  # the model says which


def records(spec, rounds: int, seed: int, *, seats: int = 1, side_rate: float = 0.5, play: str = "spec",
            table: str = "T1", with_deck: bool = False, first_round: int = 1,
            shuffle: Callable[[np.ndarray], np.ndarray] | None = None) -> Iterator[dict]:
    """``rounds`` fair records; ``play`` "spec" (the spec strategy, declared in the log) or "random".
    ``shuffle(decks)`` replaces the decks dealt (a negative control: a biased shuffle)."""
    from certify.simulate import deal_chunk

    module = engine(spec)
    from certify.audit.audit import spec_strategy

    strategy = spec_strategy(spec) if play == "spec" else RandomChoice(seed)
    choose = random.Random(seed + 1)
    side = _side_wager(spec)
    ante = spec.wagers[getattr(spec, "unit", "ante")].min
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
            rnd = module.play_round(spec, deck, [ante] * seats, meter=meter, strategy=strategy,
                                    sides=[{side: spec.wagers[side].min} if s else {} for s in with_side])
            meter = rnd.result().meter_after
            number = first_round + done
            stamp = (START + timedelta(seconds=30 * number)).strftime("%Y-%m-%dT%H:%M:%SZ")
            yield record_of(rnd, number, table, stamp, seat_numbers=list(range(1, len(rnd.seats) + 1)),
                            strategy="spec" if play == "spec" else "free", deck=deck if with_deck else None)
            done += 1


def one_decision_shape(spec) -> bool:
    from certify.rules.analysis import ShapeError, one_decision

    try:
        one_decision(spec)
    except ShapeError:
        return False
    return True


def dumps(record: dict) -> str:
    return json.dumps(record, separators=(",", ":"))


def write(path, spec, rounds: int, seed: int, **kwargs) -> None:
    """Write a fair log (``.gz``: compressed) for tests and fixtures."""
    import gzip

    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "wt", encoding="utf-8") as out:
        for record in records(spec, rounds, seed, **kwargs):
            out.write(dumps(record) + "\n")


def write_bulk_columns(path, spec, rounds: int, seed: int, side_rate: float = 0.5, chunk: int = 1 << 17) -> None:
    """A fair columnar log of a rules-model game of the one-decision shape (one seat, the spec
    strategy) at numpy speed: the bulk input of bench/audit.py and of the slow tests. Each round's
    deck is the DRBG's (``deal_chunk``); the bulk kernel's loop gives each round's option, dealer
    cell and category (``certify.rules.kernel.one_decision_cells``), and each class of rounds
    settles once through ``certify.rules.engine.play_round``; the rare rounds whose award reads
    the progressive meter are each played on their own, in order."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from certify.audit.columns import CENTS, FORMAT, _meter_categories
    from certify.rules.analysis import one_decision
    from certify.rules.engine import RulesRound, play_round
    from certify.rules.kernel import one_decision_cells
    from certify.simulate import deal_chunk

    rules = one_decision(spec)
    k, names = rules.k, [o.name for o in rules.options]
    ante = spec.wagers[spec.unit].min
    side = _side_wager(spec)
    probe = RulesRound(spec, balances=[None])
    meter, lockout = probe.meter, probe.locks_out
    classes: dict[tuple, tuple] = {}
    meter_categories = _meter_categories(spec) if side is not None and spec.wagers[side].settle.progressive else {}
    choose = np.random.default_rng(seed + 1)
    decimal = pa.decimal128(18, 2)
    writer, done, index = None, 0, 0

    def money(cents: np.ndarray, null: np.ndarray | None = None):
        values = pa.array(cents, pa.int64()).cast(pa.decimal128(20, 0))
        values = pa.compute.multiply(values, pa.scalar(Decimal("0.01"), pa.decimal128(3, 2))).cast(decimal)
        return values if null is None else pa.compute.if_else(pa.array(null), pa.nulls(len(cents), decimal), values)

    def play(deck, with_side: bool, meter):
        sides = [{side: spec.wagers[side].min}] if with_side else [{}]
        result = play_round(spec, [int(x) for x in deck], [ante], sides=sides, meter=meter).result()
        return {w: int(v * CENTS) for w, v in result.seats[0].net.items()}, result.meter_after

    while done < rounds:
        n = min(chunk, rounds - done)
        decks = deal_chunk(seed, index, n, 52)
        index += 1
        option, cell, category = one_decision_cells(spec, rules, decks[:, :2 * k])
        prog = choose.random(n) < side_rate if side else np.zeros(n, bool)
        keys = np.stack([option, cell, category, prog], axis=1).astype(np.int64)
        group = ((keys[:, 0] * 4 + keys[:, 1]) * len(rules.categories) + keys[:, 2]) * 2 + keys[:, 3]
        nets = {w: np.zeros(n, np.int64) for w in spec.wagers}
        nulls = {w: np.ones(n, bool) for w in nets}
        moves = np.zeros(n, bool)
        order = np.argsort(group, kind="stable")
        for members in np.split(order, np.flatnonzero(np.diff(group[order])) + 1):
            key = tuple(int(x) for x in keys[members[0]])
            if key not in classes:
                settled, after = play(decks[members[0]], bool(key[3]), meter)
                reads_meter = bool(key[3]) and key[2] in meter_categories    # e.g. a royal at the reset level
                classes[key] = (settled, after != meter or reads_meter)
            settled, moving = classes[key]
            if moving:
                moves[members] = True
                continue
            for w, cents in settled.items():
                nets[w][members], nulls[w][members] = cents, False
        levels = [int(meter * CENTS) if meter is not None else 0]
        moving = np.flatnonzero(moves)
        for row in moving:                 # the rare rounds that move the meter, in order
            settled, meter = play(decks[row], bool(prog[row]), meter)
            for w, cents in settled.items():
                nets[w][row], nulls[w][row] = cents, False
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
            "lockout": pa.array(np.full(n, lockout)),
            "player_cards": pa.FixedSizeListArray.from_arrays(pa.array(decks[:, :k].ravel().astype(np.uint8)), k)
            .cast(pa.list_(pa.uint8())),
            "dealer_cards": pa.FixedSizeListArray.from_arrays(pa.array(decks[:, k:2 * k].ravel().astype(np.uint8)), k)
            .cast(pa.list_(pa.uint8())),
            "decision": pa.array(np.array(names)[option]), "outcome": pa.array(["played"] * n),
            f"wager_{spec.unit}": money(np.full(n, int(ante * CENTS)))}
        if side:
            columns[f"wager_{side}"] = money(np.full(n, int(spec.wagers[side].min * CENTS)), ~prog)
        if meter is not None:
            columns["meter_before"], columns["meter_after"] = money(before), money(after)
        for w in nets:
            columns[f"net_{w}"] = money(nets[w], nulls[w])
        table = pa.table(columns, metadata={"format": FORMAT})
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema, store_decimal_as_integer=True)   # read ~40% faster
        writer.write_table(table)
        done += n
    writer.close()
