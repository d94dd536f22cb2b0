#!/usr/bin/env python3
"""An example Caribbean Stud engine that the suite did not write: a studio's game server in miniature.

It speaks the ``certify-drive/1`` line protocol of ``certify drive`` (docs/round-log.md) on
stdin/stdout and writes each round as a round-log v1 record. It deliberately imports nothing from
``certify``: its shuffle (``random.SystemRandom``, the OS generator), its hand evaluator and its
settlement are its own, written from the rules of specs/caribbean_stud.yaml, so the suite tests a
separate implementation of the game, as a lab would.

    certify drive --engine "python examples/caribbean_stud_engine.py" --spec caribbean_stud --rounds 1000

``--fault`` makes it wrong on purpose (the negative controls of the tests):
``flush-pays-4`` pays a flush 4 to 1 on the Bet instead of 5; ``duplicate-card`` deals the
dealer's last card again as his first, now and then; ``hang`` stops answering in round 3;
``crash`` exits in round 3; ``lie`` records the opposite of the player's decision.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from datetime import datetime, timezone
from decimal import ROUND_DOWN, Decimal

PROTOCOL = "certify-drive/1"
SPEC = {"name": "caribbean_stud", "version": "1.0"}
RANKS, SUITS = "23456789TJQKA", "cdhs"
DECK = [r + s for r in RANKS for s in SUITS]

# Bet odds by category (0 high card .. 9 royal flush), progressive lines, table rules.
HIGH, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH, ROYAL = range(10)
BET_ODDS = {ROYAL: 100, STRAIGHT_FLUSH: 50, QUADS: 20, FULL_HOUSE: 7, FLUSH: 5, STRAIGHT: 4, TRIPS: 3,
            TWO_PAIR: 2, PAIR: 1, HIGH: 1}
PROGRESSIVE_FIXED = {QUADS: Decimal("500.00"), FULL_HOUSE: Decimal("100.00"), FLUSH: Decimal("50.00")}
PROGRESSIVE_METER = {ROYAL: Decimal(1), STRAIGHT_FLUSH: Decimal("0.10")}
METER_RESET = Decimal("10000.00")
CENT = Decimal("0.01")


def evaluate(hand: list[str]) -> tuple:
    """(category, ranks for tie-breaks): a larger tuple is a better hand."""
    ranks = sorted((RANKS.index(c[0]) for c in hand), reverse=True)
    counts = Counter(ranks)
    by_count = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    ordered = [r for r, n in by_count for _ in range(n)]
    flush = len({c[1] for c in hand}) == 1
    distinct = sorted(set(ranks), reverse=True)
    straight_top = None
    if len(distinct) == 5 and distinct[0] - distinct[4] == 4:
        straight_top = distinct[0]
    elif distinct == [12, 3, 2, 1, 0]:          # the wheel, A-2-3-4-5
        straight_top = 3
    if straight_top is not None and flush:
        return (ROYAL if straight_top == 12 else STRAIGHT_FLUSH, [straight_top])
    shape = [n for _, n in by_count]
    if shape[0] == 4:
        return (QUADS, ordered)
    if shape[:2] == [3, 2]:
        return (FULL_HOUSE, ordered)
    if flush:
        return (FLUSH, ranks)
    if straight_top is not None:
        return (STRAIGHT, [straight_top])
    if shape[0] == 3:
        return (TRIPS, ordered)
    if shape[:2] == [2, 2]:
        return (TWO_PAIR, ordered)
    if shape[0] == 2:
        return (PAIR, ordered)
    return (HIGH, ranks)


def dealer_qualifies(value: tuple, fault: str | None = None) -> bool:
    """Ace and King or better (the ``qualify-aq`` fault: Ace and Queen)."""
    category, ranks = value
    second = 10 if fault == "qualify-aq" else 11
    return category > HIGH or (ranks[0] == 12 and ranks[1] >= second)


class Table:
    def __init__(self, fault: str | None, seed: int | None = None):
        from random import Random, SystemRandom

        self.fault = fault
        self.shuffler = SystemRandom() if seed is None else Random(seed)   # a seed: reproducible tests only
        self.meter = METER_RESET

    def play(self, message: dict, ask) -> dict:
        number, seats = message["round"], message["seats"]
        if self.fault == "crash" and number == 3:
            sys.exit(3)
        if self.fault == "hang" and number == 3:
            time.sleep(3600)
        deck = DECK[:]
        self.shuffler.shuffle(deck)
        if self.fault == "redeal-big-wins" and self.shuffler.random() < 0.5 and any(
                evaluate(deck[5 * i:5 * i + 5])[0] >= STRAIGHT for i in range(len(seats))):
            self.shuffler.shuffle(deck)      # a straight or better would be paid: deal again
        actions = []
        for s in seats:
            for wager, amount in s["wagers"].items():
                actions.append({"type": "wager", "seat": s["seat"], "wager": wager, "amount": amount})
        actions.append({"type": "lockout"})
        hands, position = {}, 0
        for s in seats:
            hands[s["seat"]] = deck[position:position + 5]
            position += 5
            actions.append({"type": "deal", "to": s["seat"], "cards": hands[s["seat"]]})
        dealer = deck[position:position + 5]
        if self.fault == "duplicate-card" and number % 50 == 7:
            dealer = [dealer[4]] + dealer[1:]
        actions.append({"type": "deal", "to": "dealer", "cards": dealer})
        decisions = {}
        for s in seats:
            choice = ask(number, s["seat"], ["fold", "bet"], actions)
            decisions[s["seat"]] = choice
            recorded = {"fold": "bet", "bet": "fold"}[choice] if self.fault == "lie" else choice
            actions.append({"type": "decision", "seat": s["seat"], "action": recorded})
        actions.append({"type": "reveal"})
        meter_before = self.meter
        settlement = self.settle(seats, hands, dealer, decisions)
        return {"log": "certify-round-log/1", "round": number, "table": message["table"],
                "time": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ"), "spec": SPEC,
                "meter": {"before": str(meter_before), "after": str(self.meter)},
                "seats": [{"seat": s["seat"]} for s in seats], "actions": actions, "outcome": "played",
                "settlement": settlement}

    def settle(self, seats, hands, dealer, decisions) -> list[dict]:
        """Each wager's net; the meter pays its shares (cents down) and resets after a royal."""
        meter_before = self.meter
        dealer_value = evaluate(dealer)
        qualifies = dealer_qualifies(dealer_value, self.fault)
        values = {seat: evaluate(hand) for seat, hand in hands.items()}
        in_progressive = [s["seat"] for s in seats if "progressive" in s["wagers"] and decisions[s["seat"]] == "bet"]
        royals = sum(1 for seat in in_progressive if values[seat][0] == ROYAL)
        out, paid_from_meter = [], Decimal(0)
        for s in seats:
            seat, ante = s["seat"], Decimal(s["wagers"]["ante"])
            value = values[seat]
            if decisions[seat] == "fold":
                out.append({"seat": seat, "wager": "ante", "net": str(-ante)})
            else:
                bet = 2 * ante
                if not qualifies:
                    ante_net, bet_net = ante, Decimal(0)
                elif value > dealer_value:
                    odds = BET_ODDS[value[0]]
                    if self.fault == "flush-pays-4" and value[0] == FLUSH:
                        odds = 4
                    ante_net, bet_net = ante, bet * odds
                elif value < dealer_value:
                    ante_net, bet_net = -ante, -bet
                else:
                    ante_net, bet_net = Decimal(0), Decimal(0)
                out.append({"seat": seat, "wager": "ante", "net": str(ante_net)})
                out.append({"seat": seat, "wager": "bet", "net": str(bet_net)})
            if "progressive" in s["wagers"]:
                stake = Decimal(s["wagers"]["progressive"])
                award = Decimal(0)
                if seat in in_progressive:
                    category = value[0]
                    if category in PROGRESSIVE_FIXED:
                        award = PROGRESSIVE_FIXED[category]
                    elif category in PROGRESSIVE_METER:
                        share = meter_before * PROGRESSIVE_METER[category]
                        if category == ROYAL:
                            share = share / royals
                        award = share.quantize(CENT, rounding=ROUND_DOWN)
                        paid_from_meter += award
                out.append({"seat": seat, "wager": "progressive", "net": str(award - stake)})
        self.meter = meter_before - paid_from_meter + (METER_RESET if royals else 0)
        return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fault", choices=["flush-pays-4", "duplicate-card", "hang", "crash", "lie", "redeal-big-wins",
                                            "qualify-aq"])
    parser.add_argument("--seed", type=int, default=None,
                        help="shuffle with random.Random(SEED) instead of the OS generator (reproducible tests)")
    args = parser.parse_args()
    table = Table(args.fault, args.seed)
    out = sys.stdout

    def send(message: dict) -> None:
        out.write(json.dumps(message) + "\n")
        out.flush()

    def receive() -> dict | None:
        line = sys.stdin.readline()
        return json.loads(line) if line else None

    def ask(number, seat, options, actions) -> str:
        send({"type": "decide", "round": number, "seat": seat, "options": options, "actions": actions})
        answer = receive()
        if not answer or answer.get("type") != "decision" or answer.get("action") not in options:
            raise SystemExit(f"round {number}: expected a decision among {options}, got {answer!r}")
        return answer["action"]

    while (message := receive()) is not None:
        kind = message.get("type")
        if kind == "hello":
            if message.get("spec") != SPEC:
                raise SystemExit(f"this engine plays {SPEC}, not {message.get('spec')}")
            send({"type": "hello", "protocol": PROTOCOL, "spec": SPEC, "engine": "example Caribbean Stud engine 1.0"})
        elif kind == "round":
            send({"type": "result", "round": message["round"], "record": table.play(message, ask)})
        elif kind == "bye":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
