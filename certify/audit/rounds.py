"""One logged round through the suite's own rules: the log's actions fed to the spec's round class.

The log's action vocabulary maps onto the engines' input events with no game-specific code:

=========================================  =================================================
log action                                 engine input (``Round.input``)
=========================================  =================================================
``wager`` seat, wager, amount              ``place_wager(seat, wager, amount)``
``lockout``                                ``lock_out()``
``deal`` to seats / dealer, before the     ``deal(hands=..., dealer=...)``: the first deal,
first decision                             gathered card by card in the order dealt
``deal`` to ``board``                      ``deal_board(cards)``
``deal`` to a seat after the first deal    ``redraw(seat, cards)`` (a draw, a mulligan)
``deal`` to ``dealer`` after it            ``dealer_redraw(cards)``
``decision`` seat, action                  ``act(seat, action)``
``void_seat`` seat, reason                 ``void_seat(seat, reason)``
``reveal``                                 nothing (the dealer's cards are already dealt)
=========================================  =================================================

A step the game does not have (a draw in Caribbean Stud) is an illegal action, as is any input
the round class refuses (a Bet the balance cannot cover, a Bonus without an Ante, a decision
out of turn): the engine's own reason names the rule. Seats are numbered as the log numbers
them; the engine's seat index is the seat's place in the log's ``seats`` list.

``feed(spec, record)`` -> :class:`Fed` (the round, the cards in dealing order, the findings);
``compare(spec, record, fed)`` -> the settlement differences; ``record_of(round, ...)`` writes a
round of the suite's own engines as a log record (the inverse mapping, for tests and fixtures).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Sequence

from certify.cards import CardError, card_str, parse_card
from certify.games import round_class
from certify.games.base import IllegalAction, make_event

LOG_FORMAT = "certify-round-log/1"
_CODES = {card_str(c): c for c in range(52)}   # the canonical tokens ("As"); others go through parse_card


def card_code(token: str) -> int:
    code = _CODES.get(token)
    return parse_card(token) if code is None else code


@dataclass
class Finding:
    """One thing wrong with one round: ``kind`` is the finding class (integrity, rules, decisions)."""

    kind: str
    what: str
    round: Any
    where: str = ""
    detail: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"class": self.kind, "what": self.what, "round": self.round, "where": self.where, **self.detail}

    def line(self) -> str:
        where = f"{self.where}: " if self.where else ""
        return f"{where}round {self.round}: {self.kind}: {self.what}"


@dataclass
class Fed:
    round: Any = None                        # the engine's round (None: it could not be built)
    dealt: list[int] = field(default_factory=list)      # every card in the order the log deals it
    findings: list[Finding] = field(default_factory=list)
    decisions: int = 0
    deviations: int = 0                      # decisions other than the spec strategy's
    choices: list = field(default_factory=list)   # rules model: (the seat's cards sorted, option, unit wager,
    #                                               the board seen, the options taken before)


def _cards(tokens: Sequence[str], fed: Fed, rid, where: str) -> list[int] | None:
    out = []
    for i, token in enumerate(tokens):
        try:
            out.append(card_code(token))
        except CardError as exc:
            fed.findings.append(Finding("integrity", f"card not in the deck: {exc}", rid, f"{where}[{i}]"))
            return None
    return out


def open_round(spec, record: dict):
    """A fresh round of the spec's round class from the log's seats, balances and meter."""
    balances = tuple(s.get("balance") for s in record["seats"])
    meter = (record.get("meter") or {}).get("before")
    event = make_event("open", spec=spec.name, seats=len(balances), balances=balances, meter=meter)
    return round_class(spec).from_open(spec, event)


def feed(spec, record: dict, strategy=None, where: str = "", finished: bool = True) -> Fed:
    """Feed one record's actions to the spec's round class; ``strategy``: also count the decisions
    that differ from it (the spec's strategy). ``finished=False``: the actions of a round still in
    play (``certify drive`` mirrors a round to answer a decision)."""
    fed = Fed()
    rid = record["round"]
    index = {}
    for i, s in enumerate(record["seats"]):
        if s["seat"] in index:
            fed.findings.append(Finding("integrity", f"seat {s['seat']} listed twice", rid, f"{where}seats[{i}]"))
            return fed
        index[s["seat"]] = i
    seen: dict[int, str] = {}
    for a, action in enumerate(record["actions"]):   # integrity first: a bad card stops the round
        if action["type"] != "deal":
            continue
        cards = _cards(action["cards"], fed, rid, f"{where}actions[{a}].cards")
        if cards is None:
            return fed
        for j, c in enumerate(cards):
            if c in seen:
                fed.findings.append(Finding("integrity", f"card {card_str(c)} dealt twice in one round "
                                            f"(first at {seen[c]})", rid, f"{where}actions[{a}].cards[{j}]"))
                return fed
            seen[c] = f"actions[{a}].cards[{j}]"
        fed.dealt.extend(cards)
    try:
        rnd = open_round(spec, record)
    except (ValueError, IllegalAction) as exc:
        fed.findings.append(Finding("rules", f"the round cannot be opened: {exc}", rid, f"{where}seats"))
        return fed
    fed.round = rnd
    first_deal: dict | None = None     # gathering the first deal: {"hands": [[...]], "dealer": [...]}
    first_done = False

    def seat_of(number, a: int) -> int:
        if number not in index:
            raise IllegalAction(f"seat {number} is not at this round (seats {sorted(index)})")
        return index[number]

    def flush() -> None:
        nonlocal first_deal, first_done
        if first_deal is not None:
            rnd.input("deal", hands=tuple(tuple(h) for h in first_deal["hands"]), dealer=tuple(first_deal["dealer"]))
            first_deal, first_done = None, True

    for a, action in enumerate(record["actions"]):
        kind = action["type"]
        try:
            if kind == "deal":
                cards = [card_code(t) for t in action["cards"]]
                to = action["to"]
                if not first_done and to != "board":
                    if first_deal is None:
                        first_deal = {"hands": [[] for _ in index], "dealer": []}
                    target = first_deal["dealer"] if to == "dealer" else first_deal["hands"][seat_of(to, a)]
                    target.extend(cards)
                    continue
                flush()
                if to == "board":
                    rnd.input("deal_board", cards=tuple(cards))
                elif to == "dealer":
                    rnd.input("dealer_redraw", cards=tuple(cards))
                else:
                    rnd.input("redraw", seat=seat_of(to, a), cards=tuple(cards))
                continue
            flush()
            if kind == "wager":
                rnd.input("place_wager", seat=seat_of(action["seat"], a), wager=action["wager"],
                          amount=Decimal(action["amount"]))
            elif kind == "lockout":
                rnd.input("lock_out")
            elif kind == "decision":
                seat = seat_of(action["seat"], a)
                fed.decisions += 1
                if strategy is not None and rnd.legal_actions(seat):
                    want = strategy.decide(rnd.view(seat))
                    if want != action["action"]:
                        fed.deviations += 1
                        fed.findings.append(Finding("decisions", f"seat {action['seat']} decided "
                                                    f"{action['action']!r}; the spec strategy decides {want!r}",
                                                    rid, f"{where}actions[{a}]"))
                if rnd.legal_actions(seat):   # what the decision cost (free play): what the seat saw
                    s = rnd.seats[seat]
                    fed.choices.append((tuple(sorted(s.cards)), action["action"], s.wagers.get(spec.unit),
                                        tuple(rnd.board), tuple(s.decisions)))
                rnd.input("act", seat=seat, action=action["action"])
            elif kind == "void_seat":
                rnd.input("void_seat", seat=seat_of(action["seat"], a), reason=action["reason"])
        except IllegalAction as exc:
            fed.findings.append(Finding("rules", f"illegal action: {exc.reason}{_settled_note(rnd)}", rid,
                                        f"{where}actions[{a}]", {"action": action}))
            fed.round = None
            return fed
    try:
        flush()
    except IllegalAction as exc:
        fed.findings.append(Finding("rules", f"illegal action: {exc.reason}", rid, f"{where}actions"))
        fed.round = None
        return fed
    if finished and rnd.phase != "settled":
        fed.findings.append(Finding("rules", f"the round is not finished by its actions: the rules still await "
                                    f"input (phase {rnd.phase!r})", rid, f"{where}actions"))
        fed.round = None
    return fed


def _settled_note(rnd) -> str:
    """Why a round takes no more input: the rules already ended it (a misdeal, a void round)."""
    if rnd.phase != "settled":
        return ""
    ended = [str(e) for e in rnd.events if e.kind in ("misdeal", "void_round")]
    return f"; the rules had already ended the round as {rnd.result().table!r}" + (f": {ended[-1]}" if ended else "")


def _rule_text(spec, rnd, seat_result) -> str:
    parts = [f"{spec.name} {spec.version}: table {rnd.result().table}", f"seat {seat_result.status}"]
    if seat_result.hand:
        parts.append(f"hand {seat_result.hand}")
    if seat_result.error:
        parts.append(seat_result.error)
    reveal = [e for e in rnd.events if e.kind == "reveal"]
    if reveal:
        parts.append(str(reveal[-1]))
    return "; ".join(parts)


def compare(spec, record: dict, fed: Fed, where: str = "") -> list[Finding]:
    """Every difference between the logged settlement and the rules' (fed.round must be settled)."""
    rid = record["round"]
    result = fed.round.result()
    numbers = [s["seat"] for s in record["seats"]]
    out: list[Finding] = []
    logged: dict[tuple[int, str], Decimal] = {}
    for i, entry in enumerate(record["settlement"]):
        key = (entry["seat"], entry["wager"])
        if key in logged:
            out.append(Finding("rules", f"seat {key[0]} {key[1]} settled twice", rid, f"{where}settlement[{i}]"))
        logged[key] = Decimal(entry["net"])
    correct: dict[tuple[int, str], Decimal] = {}
    results = dict(zip(numbers, result.seats))
    for number, seat_result in results.items():
        for wager, net in seat_result.net.items():
            correct[(number, wager)] = net

    def rule(number) -> str:          # written only for a difference
        return _rule_text(spec, fed.round, results[number]) if number in results else ""

    for key in list(correct) + [k for k in logged if k not in correct]:
        got, want = logged.get(key), correct.get(key)
        if got != want:
            out.append(Finding("rules", f"seat {key[0]} {key[1]}: logged {_amount(got)}, correct {_amount(want)}",
                               rid, f"{where}settlement",
                               {"seat": key[0], "wager": key[1], "logged": _amount(got), "correct": _amount(want),
                                "rule": rule(key[0])}))
    if record["outcome"] != result.table:
        out.append(Finding("rules", f"outcome logged {record['outcome']!r}, the rules make it {result.table!r}",
                           rid, f"{where}outcome", {"wager": "(round outcome)", "logged": record["outcome"],
                                                    "correct": result.table, "rule": rule(numbers[0])}))
    if result.meter_after is not None:
        logged_meter = (record.get("meter") or {}).get("after")
        if logged_meter is None or Decimal(logged_meter) != result.meter_after:
            out.append(Finding("rules", f"meter after logged {logged_meter}, correct {result.meter_after}", rid,
                               f"{where}meter.after", {"wager": "(progressive meter)", "logged": logged_meter,
                                                        "correct": str(result.meter_after),
                                                        "rule": "meter before minus the meter shares paid"}))
    return out


def _amount(value: Decimal | None) -> str:
    return "not settled" if value is None else str(value)


# ------------------------------------------------------------------ the inverse: a round as a record

def record_of(rnd, round_no: int, table: str, time: str, seat_numbers: Sequence[int] | None = None,
              strategy: str | None = None, deck: Sequence[int] | None = None) -> dict[str, Any]:
    """A settled round of the suite's engines as a log record (every input event, in order)."""
    spec = rnd.spec
    numbers = list(seat_numbers) if seat_numbers is not None else list(range(len(rnd.seats)))
    actions: list[dict] = []
    for event in rnd.events:
        args = event.args()
        kind = event.kind
        if kind == "place_wager":
            actions.append({"type": "wager", "seat": numbers[args["seat"]], "wager": args["wager"],
                            "amount": str(args["amount"])})
        elif kind == "lock_out":
            actions.append({"type": "lockout"})
        elif kind == "deal":
            for i, hand in enumerate(args["hands"]):
                if hand:
                    actions.append({"type": "deal", "to": numbers[i], "cards": [card_str(c) for c in hand]})
            actions.append({"type": "deal", "to": "dealer", "cards": [card_str(c) for c in args["dealer"]]})
        elif kind == "act":
            actions.append({"type": "decision", "seat": numbers[args["seat"]], "action": args["action"]})
        elif kind == "deal_board":
            actions.append({"type": "deal", "to": "board", "cards": [card_str(c) for c in args["cards"]]})
        elif kind == "redraw":
            actions.append({"type": "deal", "to": numbers[args["seat"]], "cards": [card_str(c) for c in args["cards"]]})
        elif kind == "dealer_redraw":
            actions.append({"type": "deal", "to": "dealer", "cards": [card_str(c) for c in args["cards"]]})
        elif kind == "void_seat":
            actions.append({"type": "void_seat", "seat": numbers[args["seat"]], "reason": args["reason"]})
        elif kind == "reveal":
            actions.append({"type": "reveal"})
    result = rnd.result()
    record: dict[str, Any] = {"log": LOG_FORMAT, "round": round_no, "table": table, "time": time,
                              "spec": {"name": spec.name, "version": str(spec.version)}}
    if strategy:
        record["strategy"] = strategy
    if result.meter_before is not None:
        record["meter"] = {"before": str(result.meter_before), "after": str(result.meter_after)}
    record["seats"] = [dict({"seat": numbers[s.index]}, **({"balance": str(s.balance)} if s.balance is not None else {}))
                       for s in rnd.seats]
    record["actions"] = actions
    record["outcome"] = result.table
    record["settlement"] = [{"seat": numbers[i], "wager": w, "net": str(net)}
                            for i, sr in enumerate(result.seats) for w, net in sr.net.items()]
    if deck is not None:
        record["deck"] = [card_str(c) for c in deck]
    return record
