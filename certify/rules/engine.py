"""The round engine of rules-model games (the one-decision shape), on ``certify.games.base.Round``.

Round flow: ``place_wager(seat=, wager=, amount=)`` for the unit wager (the Ante) and side wagers
-> ``lock_out()`` (when a progressive locks coin-in) -> ``deal(hands=, dealer=)`` (the cards as
dealt: a seat with a wrong count is a dead hand, a dealer with a wrong count a misdeal, as the
spec's ``misdeal`` says) -> ``act(seat=, action=OPTION)`` for each live seat, in seat order ->
settled. ``settle(spec, player, dealer, option, amounts)`` is the pure settlement of one seat, the
reference the bulk kernel is tested against; every pay is read through ``certify.rules.analysis``'s
``settle_unit`` (one place for what a wager pays).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Iterable, Sequence

import numpy as np

from certify.games.base import ZERO, IllegalAction, Round, cents_down, make_event, money, replay
from certify.hands import eval3_nb, rank_hand
from certify.rules.analysis import LOSS, NQ, TIE, WIN, _line_pays, one_decision, settle_unit
from certify.rules.model import RulesSpec, ranking_categories


def hand_value(spec: RulesSpec, cards: Sequence[int]) -> int:
    """The value of a hand in the spec's ranking (``value >> 20``: index in its category order)."""
    cards = [int(c) for c in cards]
    if spec.ranking == "three_card":
        return int(eval3_nb(np.int64(cards[0]), np.int64(cards[1]), np.int64(cards[2])))
    return rank_hand(cards)


def dealer_cell(spec: RulesSpec, player_value: int, dealer_value: int) -> int:
    if spec.dealer.qualifies is not None and dealer_value < spec.threshold_value(spec.dealer.qualifies):
        return NQ
    if player_value > dealer_value:
        return WIN
    return TIE if player_value == dealer_value else LOSS


def settle(spec: RulesSpec, player: Sequence[int], dealer: Sequence[int], option: str,
           amounts: dict[str, Decimal] | None = None) -> dict[str, Decimal]:
    """Net per wager of one correctly dealt seat. ``amounts``: the unit and side wagers placed
    (default: the unit wager of 1); wagers an option adds follow the unit wager."""
    unit = spec.unit
    amounts = dict(amounts or {unit: Decimal(1)})
    opt = spec.option(option)
    pv, dv = hand_value(spec, player), hand_value(spec, dealer)
    category, cell = pv >> 20, dealer_cell(spec, pv, dv)
    for name, multiple in opt.add.items():
        amounts[name] = amounts.get(name, ZERO) + amounts[unit] * multiple
    net = {}
    for name, amount in amounts.items():
        w = spec.wagers[name]
        if w.made == "side":
            net[name] = _side_net(spec, w, amount, pv, folded=opt.fold)
        elif opt.fold:
            net[name] = -amount
        else:
            net[name] = amount * _decimal(settle_unit(spec, w.settle, cell, category))
    return net


def _decimal(x) -> Decimal:
    return Decimal(x.numerator) / Decimal(x.denominator)


def _side_net(spec: RulesSpec, w, amount: Decimal, value: int, folded: bool, meter: Decimal | None = None,
              royal_winners: int = 1) -> Decimal:
    category = value >> 20
    settle = w.settle
    if settle.pay_table is not None:
        p = settle.pay_table
        if folded and not p.paid_on_fold:
            return -amount
        odds = _line_pays(p, p.ranking or spec.ranking)[category]
        if p.at_least is not None and value < spec.threshold_value(p.at_least, p.ranking):
            odds = None
        return -amount if odds is None else amount * odds
    prog = settle.progressive
    key = ranking_categories(spec.ranking)[category]
    entry = getattr(prog.pays, key)
    if entry is None or (folded and not prog.paid_on_fold):
        return -amount
    if entry.amount is not None:
        return entry.amount - amount
    share = (meter if meter is not None else prog.meter_reset) * entry.meter_percent / 100
    if key == "royal_flush":
        share = share / max(royal_winners, 1)
    return cents_down(share) - amount


def card_line(lines, cards: Sequence[int], dealer_cards: Sequence[int] = ()) -> int | None:
    """The index of the first ``CardLine`` these cards match (ranks high first; ``suited``,
    ``paired`` and ``dealer_ranks`` when given), or None: the wager loses."""
    from certify.rules.model import rank_set

    ranks = sorted((int(c) >> 2 for c in cards), reverse=True)
    dealer = sorted((int(c) >> 2 for c in dealer_cards), reverse=True)
    suited = len({int(c) & 3 for c in cards}) == 1
    for i, line in enumerate(lines):
        if len(line.ranks) != len(ranks) or any(r not in rank_set(t) for r, t in zip(ranks, line.ranks)):
            continue
        if line.suited is not None and line.suited != suited:
            continue
        if line.paired is not None and line.paired != (len(set(ranks)) == 1):
            continue
        if line.dealer_ranks is not None and (len(dealer) != len(line.dealer_ranks) or any(
                r not in rank_set(t) for r, t in zip(dealer, line.dealer_ranks))):
            continue
        return i
    return None


class RulesRound(Round):
    family = "rules"
    input_kinds = ("place_wager", "lock_out", "deal", "act", "void_seat")

    def __init__(self, spec: RulesSpec, balances=None, seats: int | None = None, meter=None):
        self.rules = one_decision(spec)  # the shape this engine plays (ShapeError otherwise)
        super().__init__(spec, balances, seats)
        self.progressive = next((n for n, w in spec.wagers.items() if w.settle.progressive is not None), None)
        if self.progressive is not None and meter is None:
            meter = spec.wagers[self.progressive].settle.progressive.meter_reset
        self.meter = None if meter is None else money(meter)
        self._events[0] = make_event("open", **self._events[0].args(),
                                     meter=None if self.meter is None else str(self.meter))
        self.dealer: tuple[int, ...] = ()

    @classmethod
    def from_open(cls, spec, event):
        args = event.args()
        return cls(spec, balances=list(args["balances"]), meter=args.get("meter"))

    @property
    def locks_out(self) -> bool:
        return self.progressive is not None and self.spec.wagers[self.progressive].settle.progressive.coin_in_lockout

    # ---------------------------------------------------------- wagers
    def _largest_add(self, unit_amount: Decimal) -> Decimal:
        adds = [sum(o.add.values(), ZERO) for o in self.rules.options]
        return unit_amount * max(adds, default=ZERO)

    def place_wager(self, seat: int, wager: str, amount) -> None:
        amount = money(amount)
        args = dict(seat=seat, wager=wager, amount=amount)
        s = self._seat("place_wager", **args)
        self._expect_phase(("betting", "locked"), "place_wager", **args)
        unit = self.spec.unit
        placeable = [n for n, w in self.spec.wagers.items() if w.made in ("unit", "side")]
        if wager not in placeable:
            self._reject("place_wager", f"{wager!r} is not a wager placed before the deal "
                                        f"(expected {' or '.join(placeable)}; the others are made by a decision)", **args)
        if wager in s.wagers:
            self._reject("place_wager", f"seat {seat} already has a {wager} of {s.wagers[wager]}", **args)
        if wager != unit and unit not in s.wagers:
            self._reject("place_wager", f"the {wager} wager needs the {unit} first", **args)
        if wager == self.progressive and self.phase == "locked":
            self._reject("place_wager", f"{wager} wager refused after the coin-in lockout: coin-in is locked out", **args)
        if self.phase == "locked" and wager == unit:
            self._reject("place_wager", "wagers are closed: coin-in is locked out", **args)
        self._check_amount(wager, "place_wager", **args)
        extra = ZERO
        if self.spec.balance_covers_raise_at_deal:
            extra = self._largest_add(amount if wager == unit else s.wagers[unit])
        if not s.can_cover(amount + extra):
            self._reject("place_wager", f"seat {seat} balance {s.balance} cannot cover the {wager} {amount}"
                                        + (f" and the {extra} a decision may add" if extra else "")
                                        + (f" on top of {s.committed()}" if s.committed() else ""), **args)
        self._record("place_wager", **args)
        s.wagers[wager] = amount

    def lock_out(self) -> None:
        self._expect_phase(("betting",), "lock_out")
        self._record("lock_out")
        self.phase = "locked"

    # ---------------------------------------------------------- the deal
    def deal(self, hands: Sequence[Sequence[int]], dealer: Sequence[int]) -> None:
        hands = tuple(tuple(int(c) for c in h) for h in hands)
        dealer = tuple(int(c) for c in dealer)
        args = dict(hands=hands, dealer=dealer)
        self._expect_phase(("locked",) if self.locks_out else ("betting", "locked"), "deal", **args)
        if len(hands) != len(self.seats):
            self._reject("deal", f"{len(hands)} hands for {len(self.seats)} seats", **args)
        everything = [c for h in hands for c in h] + list(dealer)
        if len(set(everything)) != len(everything) or any(not 0 <= c < 52 for c in everything):
            self._reject("deal", "the cards dealt must be distinct cards of one deck", **args)
        self._record("deal", **args)
        k, rule = self.rules.k, self.spec.misdeal
        self.dealer = dealer
        for s, cards in zip(self.seats, hands):
            s.cards = cards
            if s.status == "rejected":
                continue
            if self.spec.unit not in s.wagers:
                s.status = "empty"
            elif len(cards) != k:
                self._dead(s, f"dead hand: {len(cards)} cards dealt, expected {k}")
            else:
                s.status = "live"
        wrong_seat = any(s.status == "dead" for s in self.seats)
        if len(dealer) != k or (wrong_seat and rule.player_wrong_count == "void_round"):
            self._misdeal(f"misdeal: {len(dealer)} cards to the dealer, expected {k}" if len(dealer) != k
                          else "void round: a wrong number of cards to a seat")
        else:
            self.phase = "decisions"
            self._advance()

    def _dead(self, s, reason: str) -> None:
        s.status, s.error = "dead", reason
        s.net = {name: ZERO for name in s.wagers}
        self._record("dead_hand", seat=s.index, reason=reason)

    def _misdeal(self, reason: str) -> None:
        """A wrong count to the dealer: every hand dead, wagers returned; ``progressive_only``: the
        hands that made the progressive wager play for it alone."""
        self._record("misdeal", reason=reason)
        live = [s for s in self.seats if s.status == "live"]
        keep = [s for s in live if self.progressive in s.wagers
                and self.spec.misdeal.dealer_wrong_count == "progressive_only" and len(self.dealer) != self.rules.k]
        for s in live:
            if s not in keep:
                self._dead(s, f"dead: {reason}")
        if keep:
            self._settle(keep, table="misdeal", showdown=False)
        else:
            self._finish("misdeal", self.meter, self.meter)

    # ---------------------------------------------------------- decisions
    def legal_actions(self, seat: int) -> tuple[str, ...]:
        if self.phase != "decisions" or not 0 <= seat < len(self.seats):
            return ()
        s = self.seats[seat]
        if s.status != "live" or s.decisions:
            return ()
        unit = s.wagers[self.spec.unit]
        return tuple(o.name for o in self.rules.options if s.can_cover(unit * sum(o.add.values(), ZERO)))

    def view(self, seat: int) -> "RulesView":
        """What a player sees at the decision (the audit asks the spec strategy with it)."""
        s = self.seats[seat]
        return RulesView(seat, s.cards, s.wagers.get(self.spec.unit), self.legal_actions(seat))

    def act(self, seat: int, action: str) -> None:
        args = dict(seat=seat, action=action)
        s = self._seat("act", **args)
        legal = self.legal_actions(seat)
        if action not in legal:
            names = [o.name for o in self.rules.options]
            if not legal:
                reason = f"seat {seat} has no decision to make now (status {s.status}, phase {self.phase})"
            elif action in names:
                added = self.spec.option(action).add
                amount = s.wagers[self.spec.unit] * sum(added.values(), ZERO)
                reason = (f"seat {seat} balance {s.balance} cannot cover the {' and '.join(added)} {amount} "
                          f"on top of {s.committed()}")
            else:
                reason = f"{action!r} is not an option here (expected {' or '.join(legal)})"
            self._reject("act", reason, **args)
        self._record("act", **args)
        s.decisions.append(action)
        option = self.spec.option(action)
        unit = s.wagers[self.spec.unit]
        for name, multiple in option.add.items():
            s.wagers[name] = s.wagers.get(name, ZERO) + unit * multiple
        if option.fold:
            s.status = "folded"
        self._advance()

    def _advance(self) -> None:
        if any(s.status == "live" and not s.decisions for s in self.seats):
            return
        self._settle([s for s in self.seats if s.status in ("live", "folded")], table="played", showdown=True)

    # ---------------------------------------------------------- settlement
    def _settle(self, seats, table: str, showdown: bool) -> None:
        spec = self.spec
        if showdown:
            dv = hand_value(spec, self.dealer)
            qualifies = spec.dealer.qualifies is None or dv >= spec.threshold_value(spec.dealer.qualifies)
            self._record("reveal", dealer=self.dealer, qualifies=qualifies)
        values = {s.index: hand_value(spec, s.cards) for s in seats}
        categories = ranking_categories(spec.ranking)
        prog = self.progressive
        royals = sum(1 for s in seats if prog in s.wagers and categories[values[s.index] >> 20] == "royal_flush"
                     and (s.status != "folded" or spec.wagers[prog].settle.progressive.paid_on_fold))
        paid_from_meter, hands = ZERO, {}
        for s in seats:
            folded = s.status == "folded"
            hands[s.index] = categories[values[s.index] >> 20].replace("_", " ")
            option = s.decisions[0] if s.decisions else None
            s.net = {}
            for name, amount in s.wagers.items():
                w = spec.wagers[name]
                if w.made == "side":
                    if not showdown and name != prog:
                        s.net[name] = ZERO
                        continue
                    s.net[name] = _side_net(spec, w, amount, values[s.index], folded, self.meter, royals)
                    if name == prog and s.net[name] > -amount:
                        entry = getattr(w.settle.progressive.pays, categories[values[s.index] >> 20])
                        if entry.meter_percent is not None:
                            paid_from_meter += s.net[name] + amount
                elif not showdown:
                    s.net[name] = ZERO
                elif folded:
                    s.net[name] = -amount
                else:
                    cell = dealer_cell(spec, values[s.index], dv)
                    s.net[name] = amount * _decimal(settle_unit(spec, w.settle, cell, values[s.index] >> 20))
            s.status = "folded" if folded else "played"
            self._record("settle", seat=s.index, hand=hands[s.index], option=option,
                         net=tuple((k, str(v)) for k, v in s.net.items()))
        meter_after = self.meter
        if self.meter is not None:
            meter_after = self.meter - paid_from_meter
            if royals:
                meter_after += spec.wagers[prog].settle.progressive.meter_reset
        self._finish(table, self.meter, meter_after, hands)


def replay_rules(spec: RulesSpec, events: Iterable) -> RulesRound:
    return replay(lambda open_event: RulesRound.from_open(spec, open_event), events)


def play_round(spec: RulesSpec, deck: Sequence[int], antes: Sequence, balances=None, *,
               sides: Sequence[dict] | None = None, meter=None, strategy=None) -> RulesRound:
    """One round from a shuffled deck: k cards to each seat in turn, then the dealer's.
    ``sides``: per seat, the side wagers placed after the Ante ({wager: amount}); ``meter``: the
    progressive meter before the round (the spec's reset when None); ``strategy``: an object with
    ``decide(view)`` (default: the spec's strategy)."""
    rules = one_decision(spec)
    n = len(antes)
    rnd = RulesRound(spec, balances=balances if balances is not None else [None] * n, meter=meter)
    for i, ante in enumerate(antes):
        try:
            rnd.place_wager(seat=i, wager=spec.unit, amount=money(ante))
            for wager, amount in (sides[i] if sides is not None else {}).items():
                rnd.place_wager(seat=i, wager=wager, amount=money(amount))
        except IllegalAction as exc:
            rnd.void_seat(seat=i, reason=exc.reason)
    if rnd.locks_out:
        rnd.lock_out()
    k = rules.k
    rnd.deal(hands=[tuple(deck[i * k:(i + 1) * k]) for i in range(n)], dealer=tuple(deck[n * k:(n + 1) * k]))
    for i in range(n):
        if rnd.legal_actions(i):
            if strategy is not None:
                action = strategy.decide(rnd.view(i))
            else:
                action = strategy_option(spec, rules.decision, hand_value(spec, rnd.seats[i].cards))
            rnd.act(seat=i, action=action)
    return rnd


def strategy_option(spec: RulesSpec, decision: str, value: int) -> str:
    """The spec strategy's option for a hand of this value at ``decision``."""
    for rule in spec.strategy.decisions[decision]:
        if rule.at_least is None or value >= spec.threshold_value(rule.at_least):
            return rule.option
    raise ValueError(f"no strategy rule applies at {decision!r}")


class RulesView:
    """What a player sees when deciding: own cards, the unit wager, the legal options."""

    def __init__(self, seat: int, cards: tuple[int, ...], unit: Decimal | None, legal: tuple[str, ...]):
        self.seat, self.cards, self.unit, self.legal = seat, cards, unit, legal


class SpecStrategy:
    """The spec's strategy at its one decision, as the family engines' ``strategy_from_spec``
    objects (``decide(view)``): what ``certify audit`` and ``certify drive`` play and compare with."""

    def __init__(self, spec: RulesSpec):
        rules = one_decision(spec)
        self.spec, self.decision, self.options = spec, rules.decision, rules.options

    def decide(self, view: RulesView) -> str:
        """The strategy's option; one the balance cannot cover gives way to folding."""
        want = strategy_option(self.spec, self.decision, hand_value(self.spec, view.cards))
        if want in view.legal:
            return want
        return next((o.name for o in self.options if o.fold and o.name in view.legal), view.legal[0])


def strategy_from_spec(spec: RulesSpec) -> SpecStrategy:
    return SpecStrategy(spec)
