"""What every game engine shares: exact money, the event log, seats and the round skeleton.

A round is a state machine. The player's choices go through ``legal_actions(seat)`` then
``act(seat=..., action=...)``; the dealer's steps (``deal``, draws, board cards) are methods too,
so a procedure fixture can feed the exact cards dealt, wrong counts included. Every accepted
input is appended to an append-only log of frozen ``Event``s before its effects are applied; a
refused input is logged as a ``rejected`` event and raises ``IllegalAction`` (state unchanged).
Events the engine derives (dead hands, reveals, settlement) are logged too, and ``replay``
rebuilds a round from the input events alone: the rebuilt round's log and result are identical.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_DOWN, Decimal
from typing import Any, Iterable, Mapping

from certify.cards import cards_str
from certify.errors import InputError

CENT = Decimal("0.01")
ZERO = Decimal("0")


class IllegalAction(InputError):
    """A wager or action the rules do not allow; ``reason`` says which rule."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def money(value: Any) -> Decimal:
    """An exact amount from a Decimal, int or decimal string (floats are refused: not exact)."""
    if isinstance(value, bool) or isinstance(value, float):
        raise IllegalAction(f"amount {value!r} is not exact: give it as a decimal string")
    try:
        amount = value if isinstance(value, Decimal) else Decimal(str(value))
    except ArithmeticError:
        raise IllegalAction(f"amount {value!r} is not a decimal amount") from None
    if not amount.is_finite():
        raise IllegalAction(f"amount {value!r} is not a finite amount")
    return amount


def cents_down(amount: Decimal) -> Decimal:
    """Round a share (a percentage of the meter, a split royal) down to the cent: the house
    pays whole cents and the fraction stays in the meter."""
    return amount.quantize(CENT, rounding=ROUND_DOWN)


def _freeze(value: Any) -> Any:
    if isinstance(value, (str, int, Decimal)) or value is None:   # the common case, before the slow ABC check
        return value
    if isinstance(value, Mapping):
        return tuple((k, _freeze(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


@dataclass(frozen=True)
class Event:
    """One step of a round. ``data`` is a tuple of (name, value) pairs so the event is hashable."""

    kind: str
    data: tuple = ()

    def get(self, key: str, default: Any = None) -> Any:
        for name, value in self.data:
            if name == key:
                return value
        return default

    def args(self) -> dict:
        return {name: value for name, value in self.data}

    def __str__(self) -> str:
        parts = []
        for name, value in self.data:
            if name in ("cards", "board", "dealer") and isinstance(value, tuple):
                value = cards_str(value)
            elif name == "hands":
                value = " | ".join(cards_str(h) for h in value)
            parts.append(f"{name}={value}")
        return f"{self.kind}({', '.join(parts)})"


def make_event(kind: str, **data: Any) -> Event:
    return Event(kind, tuple((k, _freeze(v)) for k, v in data.items()))


@dataclass
class Seat:
    """One player position. ``balance`` is the credit still available for wagers (None: no limit)."""

    index: int
    balance: Decimal | None = None
    wagers: dict[str, Decimal] = field(default_factory=dict)
    cards: tuple[int, ...] = ()
    status: str = "waiting"          # waiting | live | folded | dead | rejected | played
    decisions: list[str] = field(default_factory=list)
    net: dict[str, Decimal] = field(default_factory=dict)
    error: str | None = None

    def committed(self) -> Decimal:
        return sum(self.wagers.values(), ZERO)

    def can_cover(self, amount: Decimal) -> bool:
        return self.balance is None or self.committed() + amount <= self.balance


@dataclass(frozen=True)
class SeatResult:
    status: str
    net: dict[str, Decimal]
    error: str | None = None
    hand: str | None = None

    def total(self) -> Decimal:
        return sum(self.net.values(), ZERO)


@dataclass(frozen=True)
class RoundResult:
    table: str                        # played | misdeal | void
    seats: tuple[SeatResult, ...]
    meter_before: Decimal | None = None
    meter_after: Decimal | None = None


class Round:
    """The skeleton of a round: seats, wagers, the log. The rules engine adds the phases and rules."""

    input_kinds: tuple[str, ...] = ()  # event kinds that are inputs, replayed by calling a method

    def __init__(self, spec, balances: Iterable[Decimal | str | None] | None = None, seats: int | None = None):
        balances = list(balances) if balances is not None else None
        n = seats if seats is not None else (len(balances) if balances is not None else 1)
        balances = balances if balances is not None else [None] * n
        if len(balances) != n:
            raise ValueError(f"{n} seats but {len(balances)} balances")
        if not 1 <= n <= spec.seats:
            raise ValueError(f"{spec.name} has {spec.seats} seat(s); {n} asked for")
        self.spec = spec
        self.seats = [Seat(i, None if b is None else money(b)) for i, b in enumerate(balances)]
        self.phase = "betting"
        self._events: list[Event] = [make_event("open", spec=spec.name, seats=n,
                                                balances=tuple(None if b is None else str(money(b)) for b in balances))]

    # ------------------------------------------------------------ the log
    @property
    def events(self) -> tuple[Event, ...]:
        return tuple(self._events)

    def _record(self, kind: str, **data: Any) -> None:
        self._events.append(make_event(kind, **data))

    def _reject(self, attempt: str, reason: str, **data: Any) -> None:
        self._record("rejected", attempt=attempt, reason=reason, **data)
        raise IllegalAction(reason)

    # ------------------------------------------------------------ helpers for families
    def _seat(self, attempt: str, **args: Any) -> Seat:
        """The seat named by ``args['seat']`` (the arguments of the attempted input)."""
        seat = args["seat"]
        if not isinstance(seat, int) or not 0 <= seat < len(self.seats):
            self._reject(attempt, f"no seat {seat} (seats 0..{len(self.seats) - 1})", **args)
        return self.seats[seat]

    def _expect_phase(self, phases: tuple[str, ...], attempt: str, **data: Any) -> None:
        if self.phase not in phases:
            self._reject(attempt, f"{attempt} is not allowed now (phase {self.phase!r}, "
                                  f"expected {' or '.join(phases)})", **data)

    def _check_amount(self, spec_wager: str, attempt: str, **data: Any) -> None:
        """Whole cents, positive, within the spec's limits for ``spec_wager`` (``data['amount']``)."""
        amount = data["amount"]
        limit = self.spec.wagers.get(spec_wager)
        if amount != amount.quantize(CENT) or amount <= 0:
            self._reject(attempt, f"{spec_wager} {amount}: expected a positive amount in whole cents", **data)
        if limit is not None and not limit.min <= amount <= limit.max:
            side = f"above the maximum {limit.max}" if amount > limit.max else f"below the minimum {limit.min}"
            if limit.min == limit.max:
                side = f"the {spec_wager} is exactly {limit.min}"
            self._reject(attempt, f"{spec_wager} {amount} is outside the table limits "
                                  f"{limit.min}-{limit.max} ({side})", **data)

    def _place_ante_or_bonus(self, seat: int, wager: str, amount, *, later: str, later_bet,
                             later_note: str) -> None:
        """An Ante, or a Bonus side bet on an Ante, before the deal (Mulligan, Hold'em Bonus).

        ``later_bet(ante)`` is the bet the hand needs to go on (``later`` names it: "the Raise a
        mulligan needs", "the Flop bet"); when the spec says the balance must cover it at the deal,
        a wager the balance cannot follow with it is refused. ``later_note`` says when it is made.
        """
        amount = money(amount)
        args = dict(seat=seat, wager=wager, amount=amount)
        s = self._seat("place_wager", **args)
        self._expect_phase(("betting",), "place_wager", **args)
        if wager not in ("ante", "bonus"):
            self._reject("place_wager", f"{wager!r} is not a wager placed before the deal "
                                        f"(expected ante or bonus; {later_note})", **args)
        if wager in s.wagers:
            self._reject("place_wager", f"seat {seat} already has a {wager} of {s.wagers[wager]}", **args)
        if wager == "bonus" and "ante" not in s.wagers:
            self._reject("place_wager", "a Bonus bet cannot be placed without an Ante", **args)
        self._check_amount(wager, "place_wager", **args)
        extra = ZERO
        if self.spec.balance_covers_raise_at_deal:
            extra = later_bet(amount if wager == "ante" else s.wagers["ante"])
        if not s.can_cover(amount + extra):
            self._reject("place_wager", f"seat {seat} balance {s.balance} cannot cover the {wager} {amount}"
                                        + (f" and {later.format(extra)}" if extra else "")
                                        + (f" on top of {s.committed()}" if s.committed() else ""), **args)
        self._record("place_wager", **args)
        s.wagers[wager] = amount

    def input(self, kind: str, **args: Any) -> None:
        """Apply one input event by its kind (``place_wager``, ``deal``, ``act`` ...): the one entry
        point a log of any game is fed through (``replay``, ``certify audit``). A kind that is no
        step of this game is an ``IllegalAction`` naming the steps it has."""
        if kind not in self.input_kinds:
            raise IllegalAction(f"{self.spec.name} has no step {kind!r} (its steps: {', '.join(self.input_kinds)})")
        getattr(self, kind)(**args)

    def transcript(self) -> str:
        """The round as readable lines, one event per line (for reports and failing tests)."""
        return "\n".join(str(e) for e in self._events)

    def void_seat(self, seat: int, reason: str) -> None:
        """The table refuses a seat's play (an illegal wager or action): its wagers are returned,
        and a round waiting on decisions goes on without the seat."""
        s = self._seat("void_seat", seat=seat, reason=reason)
        self._record("void_seat", seat=seat, reason=reason)
        s.status, s.error = "rejected", reason
        s.net = {name: ZERO for name in s.wagers}
        if self.phase == "decisions":
            self._advance()

    def _advance(self) -> None:
        """Move the round on once nothing more is awaited (the next street, the showdown)."""

    def result(self) -> RoundResult:
        if self.phase != "settled":
            raise IllegalAction(f"the round is not settled yet (phase {self.phase!r})")
        return self._result

    def _finish(self, table: str, meter_before=None, meter_after=None, hands: Mapping[int, str] | None = None) -> None:
        hands = hands or {}
        for s in self.seats:
            if s.status in ("waiting",):
                s.status = "rejected" if s.error else "dead"
        seats = tuple(SeatResult(s.status, dict(s.net), s.error, hands.get(s.index)) for s in self.seats)
        self._result = RoundResult(table, seats, meter_before, meter_after)
        self.phase = "settled"
        self._record("result", table=table,
                     seats=tuple((r.status, tuple((k, str(v)) for k, v in r.net.items())) for r in seats),
                     meter_after=None if meter_after is None else str(meter_after))


def replay(round_factory, events: Iterable[Event]) -> Round:
    """Rebuild a round by feeding the input events of a log to a fresh round.

    ``round_factory(open_event)`` builds the fresh round from the log's ``open`` event. Rejected
    attempts are re-attempted and must be rejected again; derived events are regenerated.
    """
    events = list(events)
    if not events or events[0].kind != "open":
        raise ValueError("an event log starts with an 'open' event")
    rnd = round_factory(events[0])
    for event in events[1:]:
        if event.kind == "rejected":
            args = event.args()
            kind, reason = args.pop("attempt"), args.pop("reason")
            try:
                getattr(rnd, kind)(**args)
            except IllegalAction:
                continue
            raise ValueError(f"replay accepted {kind} {args} which the original round rejected ({reason})")
        if event.kind in rnd.input_kinds:
            rnd.input(event.kind, **event.args())
    return rnd
