"""A test engine speaking certify-drive/1 (docs/round-log.md) for any rules-model spec with
decisions between deals (Let It Ride, Ultimate Texas Hold'em): it deals from its own seeded
shuffle and settles with the suite's round class, so it stands for a correct engine; ``--fault``
makes it wrong the way a studio's engine could be:

- ``mispay``: the first wager that wins is paid one unit more;
- ``raise-5x``: a Play made at 4x the Ante is settled as if it were 5x (an illegal raise size);
- ``pull-back-late``: the first pull-back of the round is logged after the last board card (out
  of turn; the harness sees the decisions out of the order it answered them: a lie).

    python tests/drive_rules_engine.py [--seed S] [--fault F]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from certify.cards import card_str  # noqa: E402
from certify.rules.engine import RulesRound  # noqa: E402
from certify.spec import load_spec  # noqa: E402


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def receive() -> dict:
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return json.loads(line)


def play(spec, message: dict, shuffle: random.Random, fault: str | None) -> dict:
    number, seats = message["round"], message["seats"]
    rnd = RulesRound(spec, balances=[None] * len(seats))
    actions: list[dict] = []
    for i, seat in enumerate(seats):
        for wager, amount in seat["wagers"].items():
            rnd.place_wager(seat=i, wager=wager, amount=amount)
            actions.append({"type": "wager", "seat": seat["seat"], "wager": wager, "amount": amount})
    if rnd.locks_out:
        rnd.lock_out()
        actions.append({"type": "lockout"})
    deck = list(range(52))
    shuffle.shuffle(deck)
    k, m = rnd.plan.player, rnd.plan.dealer
    hands = [tuple(deck[i * k:(i + 1) * k]) for i in range(len(seats))]
    dealer, top = tuple(deck[len(seats) * k:len(seats) * k + m]), len(seats) * k + m
    rnd.deal(hands=hands, dealer=dealer)
    actions += [{"type": "deal", "to": s["seat"], "cards": [card_str(c) for c in h]} for s, h in zip(seats, hands)]
    actions.append({"type": "deal", "to": "dealer", "cards": [card_str(c) for c in dealer]})
    late = None
    while (step := rnd.next_step()) is not None:
        kind, i = step
        if kind == "act":
            send({"type": "decide", "round": number, "seat": seats[i]["seat"], "options": list(rnd.legal_actions(i)),
                  "actions": actions})
            answer = receive()
            rnd.act(seat=i, action=answer["action"])
            decision = {"type": "decision", "seat": seats[i]["seat"], "action": answer["action"]}
            if fault == "pull-back-late" and "pull_back" in answer["action"] and late is None:
                late = decision
            else:
                actions.append(decision)
        else:
            cards = tuple(deck[top:top + rnd.cards_awaited])
            top += len(cards)
            rnd.deal_board(cards=cards)
            actions.append({"type": "deal", "to": "board", "cards": [card_str(c) for c in cards]})
    if late is not None:
        actions.append(late)
    if any(e.kind == "reveal" for e in rnd.events):
        actions.append({"type": "reveal"})
    result = rnd.result()
    settlement = [{"seat": seats[i]["seat"], "wager": w, "net": str(net)}
                  for i, sr in enumerate(result.seats) for w, net in sr.net.items()]
    if fault == "mispay":
        won = next((e for e in settlement if Decimal(e["net"]) > 0), None)
        if won is not None:
            won["net"] = str(Decimal(won["net"]) + 1)
    if fault == "raise-5x":
        for i, s in enumerate(rnd.seats):
            if "play_4x" in s.decisions:
                entry = next(e for e in settlement if e["seat"] == seats[i]["seat"] and e["wager"] == "play")
                entry["net"] = str(Decimal(entry["net"]) * 5 / 4)
    return {"log": "certify-round-log/1", "round": number, "table": message["table"],
            "time": f"2026-01-01T{number // 3600 % 24:02d}:{number // 60 % 60:02d}:{number % 60:02d}Z",
            "spec": {"name": spec.name, "version": str(spec.version)}, "seats": [{"seat": s["seat"]} for s in seats],
            "actions": actions, "outcome": result.table, "settlement": settlement}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fault", default=None)
    args = parser.parse_args()
    shuffle = random.Random(args.seed)
    hello = receive()
    spec = load_spec(hello["spec"]["name"])
    send({"type": "hello", "protocol": hello["protocol"], "spec": hello["spec"], "engine": "tests/drive_rules_engine.py"})
    while True:
        message = receive()
        if message["type"] == "bye":
            return
        send({"type": "result", "round": message["round"], "record": play(spec, message, shuffle, args.fault)})


if __name__ == "__main__":
    main()
