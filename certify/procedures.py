"""Table procedures as data: fixture scenarios played through the engines and checked.

A fixture file (``fixtures/procedures/*.yaml``) names a spec and lists scenarios: the wagers, the
cards actually dealt (wrong counts included), the players' actions and the expected settlement.
The runner plays each scenario through the game's engine exactly as a table would:

1. each seat's ``wagers`` are placed in the order written; a refused wager (over the limit, a
   balance that cannot cover it, a Bonus without an Ante...) makes the seat ``rejected``: its
   wagers are returned (net 0) and ``error`` holds the reason;
2. stud: the dealer locks out coin-in; ``late_wagers`` are then attempted (refused after the
   lockout: the seat plays on, ``error`` holds the reason). Other games attempt them after the deal;
3. the cards are dealt as written: the engine finds dead hands and misdeals;
4. decisions are taken from each seat's ``actions`` in order (an action the rules refuse makes the
   seat ``rejected``), mulligan redraws from ``redraw``, board cards from ``board`` (the board
   steps of a rules-model game, in the order dealt);
5. the engine settles and the result is compared with ``expect``: table outcome, each seat's
   status, each wager's net (a wager not listed counts as 0), ``error`` (expected text must appear
   in the actual reason, case-insensitive), ``meter_after`` when given.

Schema (extra fields are refused)::

    spec: caribbean_stud             # name in specs/ or a path
    progressive_meter: "10000.00"    # meter at lockout (stud with a progressive); default meter_reset
    scenarios:
      - id: ...                      # unique in the file
        rule: ...                    # the rule the scenario checks, in words
        source: seed 003
        progressive_meter: "..."     # optional, overrides the file's
        seats:                       # in dealing order
          - wagers: {ante: "2.00", progressive: "1.00"}
            balance: "25.00"         # optional: credit the seat can still wager
            late_wagers: {progressive: "1.00"}   # optional
            cards: [AS, KS, QS, JS]  # as dealt, right count or not
            actions: [bet]
            redraw: [five cards]     # mulligan, when the seat takes a mulligan
        dealer: {cards: [...], redraw: [...]}   # stud: the fifth card is the up card
        board: [five cards]          # a rules-model game with board steps: its board cards, in order
        expect:
          table: played              # played | misdeal
          meter_after: "..."         # optional
          seats:
            - {status: dead, net: {ante: "0"}, error: "dead hand"}

``run_files(paths) -> list[ScenarioResult]``; ``FixtureError`` for a malformed fixture (names
the file, the scenario and the field).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator

from certify.cards import CardError, cards_str, parse_cards
from certify.errors import InputError
from certify.games import round_class
from certify.games.base import IllegalAction, RoundResult
from certify.inputs import excerpt
from certify.spec import SpecError, _node_line, load_spec, read_yaml_tree
from certify.validate import check_amount


class FixtureError(InputError):
    """A malformed fixture: the message names the file, the scenario and the field."""


# ------------------------------------------------------------------ the schema

def _amount(value: Any) -> Decimal:
    if isinstance(value, bool) or isinstance(value, float):
        raise ValueError(f"expected an exact amount as a quoted string such as \"2.50\", got {excerpt(value)}")
    try:
        amount = Decimal(str(value).strip())
    except (InvalidOperation, TypeError):
        raise ValueError(f"expected an amount such as \"2.50\" or \"-1.00\", got {excerpt(value)}") from None
    if not amount.is_finite():
        raise ValueError(f"expected a finite amount, got {excerpt(value)}")
    return check_amount(amount, "amount")


Amount = Annotated[Decimal, BeforeValidator(_amount)]


def _card_list(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace(",", " ").split()
    return value


Cards = Annotated[list[str], BeforeValidator(_card_list)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SeatFixture(_Model):
    wagers: dict[str, Amount] = Field(default_factory=dict)
    balance: Amount | None = None
    late_wagers: dict[str, Amount] = Field(default_factory=dict)
    cards: Cards = Field(default_factory=list)
    actions: list[str] = Field(default_factory=list)
    redraw: Cards | None = None


class DealerFixture(_Model):
    cards: Cards
    redraw: Cards | None = None


class SeatExpect(_Model):
    status: Literal["played", "folded", "dead", "rejected"]
    net: dict[str, Amount] = Field(default_factory=dict)
    error: str | None = None


class Expect(_Model):
    table: Literal["played", "misdeal"]
    seats: list[SeatExpect] = Field(min_length=1)
    meter_after: Amount | None = None


class Scenario(_Model):
    id: str = Field(min_length=1)
    rule: str = Field(min_length=1)
    source: str = Field(min_length=1)
    progressive_meter: Amount | None = None
    seats: list[SeatFixture] = Field(min_length=1)
    dealer: DealerFixture
    board: Cards | None = None
    expect: Expect

    @field_validator("id", mode="before")
    @classmethod
    def _id_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) else value


class Fixture(_Model):
    spec: str
    description: str = ""
    progressive_meter: Amount | None = None
    scenarios: list[Scenario] = Field(min_length=1)


# ------------------------------------------------------------------ results

@dataclass
class ScenarioResult:
    file: str
    id: str
    rule: str
    source: str
    spec: str
    passed: bool
    differences: list[str]
    expected: dict
    actual: dict
    events: list[str] = field(default_factory=list)

    def line(self) -> str:
        return f"{'PASS' if self.passed else 'FAIL'}  {self.file}::{self.id}  ({self.spec}) {self.rule}"


# ------------------------------------------------------------------ loading

def _dotted(loc: tuple) -> str:
    """("seats", 0, "cards") -> "seats[0].cards"."""
    text = ""
    for part in loc:
        part = part if isinstance(part, int) else excerpt(str(part), quoted=False)
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


def _where(path: Path, loc: tuple, scenarios: list | None) -> str:
    """"file: scenario 'id': field.path" for a pydantic error location."""
    if len(loc) >= 2 and loc[0] == "scenarios" and isinstance(loc[1], int):
        sid = None
        if scenarios and loc[1] < len(scenarios) and isinstance(scenarios[loc[1]], dict):
            sid = scenarios[loc[1]].get("id")
        name = f"scenario {excerpt(sid)}" if sid is not None else f"scenario #{loc[1] + 1}"
        rest = _dotted(loc[2:]) or "(scenario)"
        return f"{path}: {name}: {rest}"
    return f"{path}: {_dotted(loc) or '(top level)'}"


def load_fixture(path: Path) -> tuple[Fixture, Any]:
    """Parse and validate one fixture file and its spec; FixtureError when malformed."""
    try:
        data, root = read_yaml_tree(path, "fixture file")  # bounded: certify.inputs.YAML_LIMITS
    except SpecError as exc:
        raise FixtureError(str(exc)) from None
    if not isinstance(data, dict):
        raise FixtureError(f"{path}: expected a mapping with spec and scenarios at the top level")
    try:
        fixture = Fixture.model_validate(data)
    except ValidationError as exc:
        lines = []
        for error in exc.errors():
            msg = excerpt(error["msg"].removeprefix("Value error, "), 200, quoted=False)
            if error["type"] == "extra_forbidden":
                msg = "unknown field (not part of the fixture schema)"
            elif error["type"] == "missing":
                msg = "required field is missing"
            loc = tuple(error["loc"])
            where = _where(path, loc, data.get("scenarios"))
            line = _node_line(root, loc) if root is not None else None
            if line:  # "file.yaml:12: scenario ...", as the spec errors say it
                where = f"{path}:{line}{where[len(str(path)):]}"
            lines.append(f"{where}: {msg}")
        raise FixtureError("\n".join(lines)) from None
    spec_ref = fixture.spec
    if "/" in spec_ref or spec_ref.endswith((".yaml", ".yml")):
        spec_path = Path(spec_ref)
        spec_ref = str(spec_path if spec_path.is_absolute() else path.parent / spec_path)
    try:
        spec = load_spec(spec_ref)
    except SpecError as exc:
        raise FixtureError(f"{path}: spec: {exc}") from None
    try:
        _check_fixture(path, fixture, spec)
    except FixtureError as exc:  # point at the scenario's line, as the schema errors do
        text = str(exc)
        for i, sc in enumerate(fixture.scenarios):
            prefix = f"{path}: scenario {excerpt(sc.id)}:"
            line = _node_line(root, ("scenarios", i)) if root is not None else None
            if text.startswith(prefix) and line:
                raise FixtureError(f"{path}:{line}{text[len(str(path)):]}") from None
        raise
    return fixture, spec


def _parse(path: Path, sid: str, field_name: str, tokens: list[str]) -> tuple[int, ...]:
    try:
        return tuple(parse_cards(tokens))
    except CardError as exc:
        raise FixtureError(f"{path}: scenario {excerpt(sid)}: {field_name}: {exc}") from None


def _wagers_and_actions(spec) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The wager names and action names a fixture of this spec may use."""
    return tuple(spec.wagers), tuple(o.name for d in spec.decisions for o in d.options)


def _check_fixture(path: Path, fixture: Fixture, spec) -> None:
    seen: set[str] = set()
    wagers, actions = _wagers_and_actions(spec)
    for sc in fixture.scenarios:
        where = f"{path}: scenario {excerpt(sc.id)}"
        if sc.id in seen:
            raise FixtureError(f"{where}: id: the id is used twice in this file")
        seen.add(sc.id)
        if len(sc.expect.seats) != len(sc.seats):
            raise FixtureError(f"{where}: expect.seats: {len(sc.expect.seats)} expected results "
                               f"for {len(sc.seats)} seats")
        if len(sc.seats) > spec.seats:
            raise FixtureError(f"{where}: seats: {len(sc.seats)} seats, {spec.name} has {spec.seats}")
        dealt: dict[int, str] = {}
        groups = [(f"seats[{i}].cards", s.cards) for i, s in enumerate(sc.seats)]
        groups += [(f"seats[{i}].redraw", s.redraw) for i, s in enumerate(sc.seats) if s.redraw is not None]
        groups += [("dealer.cards", sc.dealer.cards)]
        if sc.dealer.redraw is not None:
            groups.append(("dealer.redraw", sc.dealer.redraw))
        if sc.board is not None:
            groups.append(("board", sc.board))
        for name, tokens in groups:
            for c in _parse(path, sc.id, name, tokens):
                if c in dealt:
                    raise FixtureError(f"{where}: {name}: card {cards_str([c])} is also in {dealt[c]} "
                                       "(one deck: a card is dealt once)")
                dealt[c] = name
        for i, s in enumerate(sc.seats):
            for a in s.actions:
                if a not in actions:
                    raise FixtureError(f"{where}: seats[{i}].actions: {excerpt(a)} is not a {spec.name} action "
                                       f"(expected {', '.join(actions)})")
        for i, e in enumerate(sc.expect.seats):
            for w in e.net:
                if w not in wagers:
                    raise FixtureError(f"{where}: expect.seats[{i}].net.{w}: not a {spec.name} wager "
                                       f"(expected {', '.join(wagers)})")
        has_board = spec.deals("board")
        if not has_board and sc.board is not None:
            raise FixtureError(f"{where}: board: {spec.name} deals no board cards")


# ------------------------------------------------------------------ playing a scenario

class _ScenarioPlayer:
    def __init__(self, path: Path, fixture: Fixture, spec, sc: Scenario):
        self.path, self.fixture, self.spec, self.sc = path, fixture, spec, sc
        self.where = f"{path}: scenario {excerpt(sc.id)}"
        self.actions = [list(s.actions) for s in sc.seats]
        self.late_errors: dict[int, str] = {}

    def cards(self, field_name: str, tokens) -> tuple[int, ...]:
        return _parse(self.path, self.sc.id, field_name, tokens)

    def build(self):
        balances = [s.balance for s in self.sc.seats]
        cls = round_class(self.spec)
        if "lock_out" in cls.input_kinds:  # a progressive's table: the meter at the lockout (default: its reset)
            return cls(self.spec, balances=balances, meter=self.sc.progressive_meter or self.fixture.progressive_meter)
        return cls(self.spec, balances=balances)

    def attempt(self, rnd, seat: int, call) -> bool:
        """Run an input; a refusal voids the seat (the table returns its wagers)."""
        try:
            call()
            return True
        except IllegalAction as exc:
            if rnd.seats[seat].status != "rejected":
                rnd.void_seat(seat=seat, reason=exc.reason)
            return False

    def late_wagers(self, rnd) -> None:
        for i, s in enumerate(self.sc.seats):
            for wager, amount in s.late_wagers.items():
                try:
                    rnd.place_wager(seat=i, wager=wager, amount=amount)
                except IllegalAction as exc:
                    self.late_errors[i] = exc.reason

    def next_action(self, seat: int) -> str:
        if not self.actions[seat]:
            raise FixtureError(f"{self.where}: seats[{seat}].actions: the seat must decide now "
                               f"({' or '.join(self.rnd.legal_actions(seat))}) but has no action left")
        return self.actions[seat].pop(0)

    def play(self):
        rnd = self.rnd = self.build()
        for i, s in enumerate(self.sc.seats):
            for wager, amount in s.wagers.items():
                if not self.attempt(rnd, i, lambda: rnd.place_wager(seat=i, wager=wager, amount=amount)):
                    break
        locking = "lock_out" in rnd.input_kinds  # a table that locks coin-in: late wagers meet the lockout
        if locking and rnd.locks_out:
            rnd.lock_out()
        if locking:
            self.late_wagers(rnd)
        hands = [self.cards(f"seats[{i}].cards", s.cards) for i, s in enumerate(self.sc.seats)]
        rnd.deal(hands=hands, dealer=self.cards("dealer.cards", self.sc.dealer.cards))
        if not locking:
            self.late_wagers(rnd)
        board = list(self.cards("board", self.sc.board)) if self.sc.board is not None else None
        while rnd.phase != "settled":
            step = self._next_step(rnd)
            if step is None:
                raise FixtureError(f"{self.where}: the round stopped in phase {rnd.phase!r}")
            kind, seat = step
            if kind == "act":
                action = self.next_action(seat)
                self.attempt(rnd, seat, lambda: rnd.act(seat=seat, action=action))
            elif kind == "redraw":
                tokens = self.sc.seats[seat].redraw
                if tokens is None:
                    raise FixtureError(f"{self.where}: seats[{seat}].redraw: the seat took a mulligan: "
                                       "give the five new cards")
                rnd.redraw(seat=seat, cards=self.cards(f"seats[{seat}].redraw", tokens))
            elif kind == "dealer_redraw":
                if self.sc.dealer.redraw is None:
                    raise FixtureError(f"{self.where}: dealer.redraw: the dealer does not stand on "
                                       f"{cards_str(rnd.dealer)}: give his five new cards")
                rnd.dealer_redraw(cards=self.cards("dealer.redraw", self.sc.dealer.redraw))
            else:   # deal_board
                if board is None:
                    raise FixtureError(f"{self.where}: board: the hand reached the {rnd.phase}: give the board")
                n = rnd.cards_awaited
                cards, board = board[:n], board[n:]
                rnd.deal_board(cards=tuple(cards))
        return rnd

    @staticmethod
    def _next_step(rnd):
        if hasattr(rnd, "next_step"):
            return rnd.next_step()
        for s in rnd.seats:                        # one decision: every live seat decides, in seat order
            if rnd.legal_actions(s.index):
                return ("act", s.index)
        return None


def _compare(sc: Scenario, result: RoundResult, late_errors: dict[int, str]) -> tuple[list[str], dict]:
    diffs: list[str] = []
    actual_seats = []
    if result.table != sc.expect.table:
        diffs.append(f"table: expected {sc.expect.table}, got {result.table}")
    if sc.expect.meter_after is not None and result.meter_after != sc.expect.meter_after:
        diffs.append(f"meter_after: expected {sc.expect.meter_after}, got {result.meter_after}")
    for i, (want, got) in enumerate(zip(sc.expect.seats, result.seats)):
        error = got.error or late_errors.get(i)
        if got.error and late_errors.get(i):
            error = f"{got.error}; {late_errors[i]}"
        actual_seats.append({"status": got.status, "net": {k: str(v) for k, v in got.net.items()},
                             "error": error, "hand": got.hand})
        if want.status != got.status:
            diffs.append(f"seat {i} status: expected {want.status}, got {got.status}"
                         + (f" ({error})" if error else ""))
        for wager in sorted(set(want.net) | set(got.net)):
            w, g = want.net.get(wager, Decimal(0)), got.net.get(wager, Decimal(0))
            if w != g:
                diffs.append(f"seat {i} net.{wager}: expected {w}, got {g}")
        if want.error is not None and (error is None or want.error.lower() not in error.lower()):
            diffs.append(f"seat {i} error: expected text {excerpt(want.error)}, got {excerpt(error)}")
        if want.error is None and late_errors.get(i) and want.status != "rejected":
            diffs.append(f"seat {i} error: a late wager was refused ({late_errors[i]}) but expect gives no error")
    actual = {"table": result.table, "seats": actual_seats,
              "meter_after": None if result.meter_after is None else str(result.meter_after)}
    return diffs, actual


def _expected_dict(sc: Scenario) -> dict:
    return json.loads(sc.expect.model_dump_json())


def run_fixture(path: Path) -> list[ScenarioResult]:
    path = Path(path)
    fixture, spec = load_fixture(path)
    results = []
    for sc in fixture.scenarios:
        player = _ScenarioPlayer(path, fixture, spec, sc)
        rnd = player.play()
        for i, leftover in enumerate(player.actions):
            if leftover and rnd.seats[i].status in ("played", "folded") and rnd.seats[i].decisions:
                raise FixtureError(f"{path}: scenario {excerpt(sc.id)}: seats[{i}].actions: {leftover} were never "
                                   "taken (the seat's decisions were already complete)")
        diffs, actual = _compare(sc, rnd.result(), player.late_errors)
        results.append(ScenarioResult(path.name, sc.id, sc.rule, sc.source, spec.name, not diffs, diffs,
                                      _expected_dict(sc), actual, [str(e) for e in rnd.events]))
    return results


def run_files(paths) -> list[ScenarioResult]:
    """Validate every file first (so a malformed one stops the run before any output), then play."""
    paths = [Path(p) for p in paths]
    for p in paths:
        load_fixture(p)
    results: list[ScenarioResult] = []
    for p in paths:
        results.extend(run_fixture(p))
    return results


def write_json(results: list[ScenarioResult], path: Path) -> None:
    """Write the results atomically (a temporary file renamed into place)."""
    path = Path(path)
    payload = {"passed": all(r.passed for r in results), "scenarios": len(results),
               "failed": sum(not r.passed for r in results), "results": [asdict(r) for r in results]}
    from certify.atomic import atomic_write

    atomic_write(path, json.dumps(payload, indent=2, default=str) + "\n")
