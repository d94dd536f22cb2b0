"""``certify drive``: play rounds through an engine the suite did not write, log them, audit them.

The engine is a subprocess speaking the line protocol ``certify-drive/1`` (docs/round-log.md):
one JSON object per line on its stdin and stdout.

* harness -> engine ``{"type": "hello", "protocol": "certify-drive/1", "spec": {"name", "version"}}``;
  engine -> harness the same ``hello`` back (its ``spec`` must be the one asked for; ``engine``:
  free text naming it);
* for each round, harness -> engine ``{"type": "round", "round": n, "table": "...", "seats":
  [{"seat": 1, "wagers": {"ante": "1.00", ...}}, ...]}``; the engine deals and, at each decision,
  sends ``{"type": "decide", "round": n, "seat": s, "options": [...], "actions": [...]}`` (the
  round's log actions so far); the harness answers ``{"type": "decision", "round": n, "seat": s,
  "action": "..."}``; the engine ends the round with ``{"type": "result", "round": n, "record":
  {...}}``, the round as a round-log v1 record;
* harness -> engine ``{"type": "bye"}`` at the end; the engine exits.

The harness places the wagers (the Ante at the table minimum, each other wager of the spec at
its minimum on half of the seats, seeded) and answers each decision from the spec's strategy
(``--play spec``: the record is then marked ``"strategy": "spec"`` and its outcomes are tested
against the PAR sheet) or with a seeded random legal choice (``--play random``: every branch gets
played). Its answers come from the suite's own round, fed the actions the engine reports.

Fail closed: an engine that exits, hangs past ``timeout`` seconds on one round, writes a line that
is not a protocol message, or reports a record whose wagers or decisions are not those the
harness gave (a lie) stops the drive with :class:`EngineFailed` naming the round (exit 1), and
no log is written. A record the schema refuses is the same failure. Everything else (a wrong
payout, a card dealt twice, a biased deal) is left to the audit of the written log.
"""

from __future__ import annotations

import json
import os
import random
import selectors
import shlex
import subprocess
import tempfile
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

from certify.audit.rounds import feed
from certify.audit.schema import round_log_validator
from certify.errors import CertifyError, InputError
from certify.inputs import excerpt

PROTOCOL = "certify-drive/1"
MAX_MESSAGE = 1 << 20
START_UP = 10.0             # seconds the handshake waits at least: starting a program on a loaded machine


class EngineFailed(CertifyError):
    """The engine under test crashed, hung, broke the protocol or lied (exit 1: a finding)."""

    exit_code = 1


class _Engine:
    """The subprocess and its lines, every read bounded by a deadline."""

    def __init__(self, command: str, timeout: float, cwd: str | None = None):
        self.timeout = timeout
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise InputError(f"--engine: cannot split the command {command!r}: {exc}") from None
        if not argv:
            raise InputError("--engine: empty command")
        self.stderr = tempfile.TemporaryFile()
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
                                         cwd=cwd, bufsize=0)
        except OSError as exc:
            raise InputError(f"--engine: cannot start {argv[0]!r}: {exc.strerror or exc}") from None
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.proc.stdout, selectors.EVENT_READ)
        self.buffer = b""

    def send(self, message: dict, round_no: int | None) -> None:
        try:
            self.proc.stdin.write((json.dumps(message) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._gone(round_no) from None

    def receive(self, deadline: float, round_no: int | None) -> dict:
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not self.selector.select(left):
                waited = self.timeout if round_no is not None else max(self.timeout, START_UP)
                raise EngineFailed(f"{_at(round_no)}: the engine sent nothing for {waited:g} s "
                                   "(hung): it was stopped")
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                raise self._gone(round_no)
            self.buffer += chunk
            if len(self.buffer) > MAX_MESSAGE and b"\n" not in self.buffer:
                raise EngineFailed(f"{_at(round_no)}: the engine sent a line over {MAX_MESSAGE:,} bytes")
        line, self.buffer = self.buffer.split(b"\n", 1)
        try:
            message = json.loads(line)
        except ValueError:
            raise EngineFailed(f"{_at(round_no)}: the engine sent a line that is not JSON: "
                               f"{excerpt(line.decode('utf-8', 'replace'))}") from None
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            raise EngineFailed(f"{_at(round_no)}: expected a protocol message with a \"type\", got {excerpt(line)}")
        return message

    def _gone(self, round_no: int | None) -> EngineFailed:
        try:
            code = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = None
        self.stderr.seek(0)
        tail = self.stderr.read()[-400:].decode("utf-8", "replace").strip()
        return EngineFailed(f"{_at(round_no)}: the engine closed its output (exit status {code})"
                            + (f"; its last words: {tail}" if tail else ""))

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        self.selector.close()
        self.stderr.close()


def _at(round_no: int | None) -> str:
    return "handshake" if round_no is None else f"round {round_no}"


class Harness:
    def __init__(self, spec, play: str = "spec", seed: int = 0, seats: int = 1):
        from certify.audit.audit import spec_strategy

        if play not in ("spec", "random"):
            raise InputError(f"--play: expected spec or random, got {play!r}")
        if not 1 <= seats <= spec.seats:
            raise InputError(f"--seats: {spec.name} has {spec.seats} seat(s); {seats} asked for")
        self.spec, self.play, self.seats = spec, play, seats
        self.random = random.Random(seed)
        self.strategy = spec_strategy(spec) if play == "spec" else None

    def wagers(self) -> list[dict]:
        out = []
        for seat in range(1, self.seats + 1):
            unit = getattr(self.spec, "unit", "ante")     # the rules model names it (Let It Ride's bet_1)
            wagers = {unit: str(self.spec.wagers[unit].min)}
            for name, limit in self.spec.wagers.items():
                if getattr(limit, "made", "side") not in ("unit", "side"):
                    continue        # a rules-model wager made with the unit or by a decision (Three Card Poker's Play)
                if name != unit and self.random.random() < 0.5:
                    wagers[name] = str(limit.min)
            out.append({"seat": seat, "wagers": wagers})
        return out

    def decide(self, seats: list[dict], message: dict) -> str:
        """The answer to one decision: the spec strategy's or a random legal choice, on the suite's
        own round fed the actions so far (the engine's options when the suite sees none)."""
        options = message.get("options")
        partial = {"round": message.get("round"), "seats": [{"seat": s["seat"]} for s in seats],
                   "actions": message.get("actions") or []}
        if getattr(self.spec, "progressive", None) is not None:   # the meter does not change a decision
            partial["meter"] = {"before": str(self.spec.progressive.meter_reset)}
        seat = message.get("seat")
        try:
            fed = feed(self.spec, partial, finished=False)
            rnd = fed.round
            index = [s["seat"] for s in seats].index(seat)
            legal = rnd.legal_actions(index) if rnd is not None else ()
        except (ValueError, KeyError, TypeError):
            rnd, legal = None, ()
        if legal:
            if self.strategy is not None:
                return self.strategy.decide(rnd.view(index))
            return self.random.choice(list(legal))
        if isinstance(options, list) and options and all(isinstance(o, str) for o in options):
            return self.random.choice(options)
        raise EngineFailed(f"round {message.get('round')}: the engine asks seat {seat} to decide, but the rules "
                           f"give it no decision and the engine offers no options")


def drive(command: str, spec, rounds: int, log_path: str | Path, *, seed: int = 0, play: str = "spec",
          seats: int = 1, timeout: float = 10.0, table: str = "DRIVE-1", cwd: str | None = None) -> dict[str, Any]:
    """Play ``rounds`` rounds through the engine and write the log (a temporary file renamed only
    when every round completed: memory flat in the rounds, nothing half-written); returns the
    figures of the run."""
    from certify.atomic import check_output_path

    harness = Harness(spec, play, seed, seats)
    validator = round_log_validator(1)
    target = check_output_path(log_path)
    target.parent.mkdir(parents=True, exist_ok=True)
    # written as played (memory flat in the rounds) to a temporary file renamed only at the end
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    engine = None
    start, cpu = time.perf_counter(), time.process_time()
    try:
        with os.fdopen(fd, "wb") as out:
            engine = _Engine(command, timeout, cwd)
            hello = {"type": "hello", "protocol": PROTOCOL, "spec": {"name": spec.name, "version": str(spec.version)}}
            engine.send(hello, None)
            answer = engine.receive(time.monotonic() + max(timeout, START_UP), None)   # a process starting
            if answer.get("type") != "hello" or answer.get("protocol") != PROTOCOL or answer.get("spec") != hello["spec"]:
                raise EngineFailed(f"handshake: expected hello for {PROTOCOL} and spec {hello['spec']}, "
                                   f"got {excerpt(answer)}")
            for number in range(1, rounds + 1):
                out.write(_one_round(engine, harness, validator, number, table, timeout))
            engine.send({"type": "bye"}, None)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    finally:
        if engine is not None:
            engine.close()
    wall, used = time.perf_counter() - start, time.process_time() - cpu
    return {"rounds": rounds, "wall_s": round(wall, 3), "harness_cpu_s": round(used, 3),
            "rounds_per_s": round(rounds / wall, 1) if wall else None, "engine": answer.get("engine", ""),
            "log": str(log_path)}


def _one_round(engine: _Engine, harness: Harness, validator, number: int, table: str, timeout: float) -> bytes:
    deadline = time.monotonic() + timeout
    seats = harness.wagers()
    engine.send({"type": "round", "round": number, "table": table, "seats": seats}, number)
    answered: list[tuple[int, str]] = []
    while True:
        message = engine.receive(deadline, number)
        kind = message["type"]
        if message.get("round") != number:
            raise EngineFailed(f"round {number}: the engine sent a {kind!r} message for round "
                               f"{excerpt(message.get('round'))}")
        if kind == "decide":
            action = harness.decide(seats, message)
            answered.append((message.get("seat"), action))
            engine.send({"type": "decision", "round": number, "seat": message.get("seat"), "action": action}, number)
            continue
        if kind != "result":
            raise EngineFailed(f"round {number}: expected a decide or result message, got type {excerpt(kind)}")
        record = message.get("record")
        if not isinstance(record, dict):
            raise EngineFailed(f"round {number}: the result carries no record")
        if harness.play == "spec":
            record["strategy"] = "spec"
        error = validator.first_error(record)
        if error:
            raise EngineFailed(f"round {number}: the engine's record is not a round-log v1 record: "
                               f"{error[0]}: {error[1]}")
        _check_truthful(record, number, table, seats, answered)
        return (json.dumps(record, separators=(",", ":")) + "\n").encode()


def _check_truthful(record: dict, number: int, table: str, seats: list[dict], answered: list) -> None:
    """The record must say what happened between the harness and the engine (else: a lie)."""
    if record["round"] != number or record["table"] != table:
        raise EngineFailed(f"round {number}: the record says round {record['round']} at table "
                           f"{excerpt(record['table'])}, the harness played round {number} at {table!r}")
    placed = {(s["seat"], w): Decimal(a) for s in seats for w, a in s["wagers"].items()}
    logged = {(a["seat"], a["wager"]): Decimal(a["amount"]) for a in record["actions"] if a["type"] == "wager"}
    if placed != logged:
        raise EngineFailed(f"round {number}: the record's wagers {sorted((k, str(v)) for k, v in logged.items())} "
                           f"are not those placed {sorted((k, str(v)) for k, v in placed.items())} (a lie)")
    decisions = [(a["seat"], a["action"]) for a in record["actions"] if a["type"] == "decision"]
    if decisions != answered:
        raise EngineFailed(f"round {number}: the record's decisions {decisions} are not the answers given "
                           f"{answered} (a lie)")
