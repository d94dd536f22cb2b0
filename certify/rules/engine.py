"""The round engine of rules-model games, on ``certify.games.base.Round``.

``RulesRound`` plays every spec whose steps are a first deal then decisions and board deals
(``round_plan``): the one-decision shape (Three Card Poker), decisions between board deals with
pull-backs (Let It Ride) or raises of several sizes and ``skipped_when_made`` (Ultimate Texas
Hold'em), a whole-hand replacement against a dealer who redraws (Five Card Mulligan: ``redraw``
after a ``replace`` option, ``dealer_redraw`` when the first hand does not stand). Round flow: ``place_wager(seat=, wager=, amount=)`` for the unit wager (the Ante; the
``with_unit`` wagers are placed with it) and side wagers -> ``lock_out()`` (when a progressive
locks coin-in) -> ``deal(hands=, dealer=)`` (the cards as dealt: a seat with a wrong count is a
dead hand, a dealer with a wrong count a misdeal, as the spec's ``misdeal`` says) -> ``act(seat=,
action=OPTION)`` for each seat that decides, in seat order, and ``deal_board(cards=)`` per board
step, as the spec orders them -> the showdown, settled. ``settle(spec, player, dealer, option,
amounts)`` is the pure settlement of one seat of the one-decision shape, the reference the bulk
kernel is tested against; every pay is read through ``certify.rules.analysis``'s ``settle_unit``
(one place for what a wager pays). ``DerivedStrategy`` plays the analysis' derived strategy from
the bulk kernel's tables, ``play_deck`` a round from a shuffled deck.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from itertools import combinations
from typing import Iterable, Sequence

import numpy as np

from certify.games.base import ZERO, IllegalAction, Round, cents_down, make_event, money, replay
from certify.hands import eval3_nb, rank_hand
from certify.rules.analysis import LOSS, NQ, TIE, WIN, ShapeError, _line_pays, one_decision, settle_unit
from certify.rules.model import RANKINGS, DealerRedrawStep, DealStep, DecideStep, RulesSpec, ranking_categories


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


def card_lines_net(settle, amount: Decimal, cards: Sequence[int], dealer: Sequence[int], folded: bool) -> Decimal:
    """Net of a ``card_lines`` wager: the first line the player's first cards (and the dealer's,
    for a line asking) match pays its odds; no line, or a fold when not ``paid_on_fold``: lost."""
    if folded and not settle.paid_on_fold:
        return -amount
    i = card_line(settle.lines, tuple(cards)[:settle.cards], dealer)
    odds = None if i is None else settle.lines[i].pays
    return -amount if odds is None else amount * odds


@dataclass(frozen=True)
class RoundPlan:
    """The round as the engine plays it: ``player`` / ``dealer`` cards at the deal, then the
    ``stages`` in order, each ("decide", DecideStep) or ("board", cards); the showdown follows."""

    player: int
    dealer: int
    stages: tuple

    @property
    def decisions(self) -> list[DecideStep]:
        return [step for kind, step in self.stages if kind == "decide"]


def round_plan(spec: RulesSpec) -> RoundPlan:
    """The spec's steps as the round engine plays them (``ShapeError`` names what it does not)."""
    why, steps = [], list(spec.steps)
    player = dealer = 0
    while steps and isinstance(steps[0], DealStep) and steps[0].deal != "board":
        step = steps.pop(0)
        player, dealer = player + step.cards * (step.deal == "player"), dealer + step.cards * (step.deal == "dealer")
    if not player:
        why.append("a first deal to the player")
    stages: list = []
    for step in steps:
        if isinstance(step, DecideStep):
            stages.append(("decide", step))  # an option may replace the whole hand (``redraw``)
        elif isinstance(step, DealerRedrawStep):
            stages.append(("dealer_redraw", step.dealer_redraw))
        elif isinstance(step, DealStep) and step.deal == "board":
            if stages and stages[-1][0] == "board":
                stages[-1] = ("board", stages[-1][1] + step.cards)
            else:
                stages.append(("board", step.cards))
        else:
            why.append("after the first deal only decisions, board cards and a dealer redraw (no later cards to "
                       "a seat or the dealer)")
    for name, w in spec.wagers.items():
        settle = w.settle
        table = settle.pay_table or settle.progressive
        if table is not None and table.hand not in ("player", "player_first"):
            why.append(f"pay tables on the player's own hand ({name}: {table.hand})")
    if why:
        raise ShapeError(f"{spec.name}: the round engine plays games with " + "; ".join(dict.fromkeys(why)))
    return RoundPlan(player, dealer, tuple(stages))


def main_net(spec: RulesSpec, w, amount: Decimal, value: int, dealer_value: int | None) -> Decimal:
    """Net of one standing main wager of a seat that did not fold: against the dealer (a dealer
    who does not qualify settles it by ``dealer_not_qualifying``; ``action``: the hands are
    compared), or by a pay table on the player's hand (a hand under its ``at_least`` line loses)."""
    settle, category = w.settle, value >> 20
    if dealer_value is None:
        cell = WIN  # no dealer hand: only pay tables paid always (the model's validation)
    else:
        cell = WIN if value > dealer_value else TIE if value == dealer_value else LOSS
        qualifies = spec.dealer.qualifies is None or dealer_value >= spec.threshold_value(spec.dealer.qualifies)
        action = settle.versus_dealer is not None and settle.versus_dealer.dealer_not_qualifying == "action"
        if not qualifies and not action:
            cell = NQ
    p = settle.pay_table
    if p is not None and p.at_least is not None and value < spec.threshold_value(p.at_least, p.ranking):
        return -amount
    return amount * _decimal(settle_unit(spec, settle, cell, category))


def pay_table_stands(spec: RulesSpec, p, decisions: Sequence[str], value: int, dealer_value: int | None) -> bool:
    """Whether a pay-table wager is still paid by its table: not lost by an option the seat took
    (``lost_on``: a Mulligan's Bonus), and the showdown meets its ``when`` (the player's final
    hand against the dealer's, as ``settle_unit`` reads it)."""
    if set(p.lost_on) & set(decisions):
        return False
    if p.when == "always" or dealer_value is None:
        return True
    cell = dealer_cell(spec, value, dealer_value)
    return cell in ((WIN, NQ) if p.when == "player_beats_dealer" else (WIN, TIE, NQ))


class RulesRound(Round):
    """The round of any rules-model spec whose steps are a first deal (cards to each seat and to
    the dealer), then decisions and board deals in the spec's order (``round_plan``).

    Inputs: ``place_wager`` (the unit wager, which places the ``with_unit`` wagers with it, and side
    wagers) -> ``lock_out`` (a progressive's) -> ``deal(hands=, dealer=)`` -> per decision, ``act``
    for each seat that decides (live, not skipped by ``skipped_when_made``), in seat order -> per
    board step, ``deal_board(cards=)`` -> ... -> the showdown: the dealer's hand revealed, every
    seat settled. ``next_step()`` names what the round waits for."""

    input_kinds = ("place_wager", "lock_out", "deal", "act", "deal_board", "void_seat", "redraw", "dealer_redraw")

    def __init__(self, spec: RulesSpec, balances=None, seats: int | None = None, meter=None):
        self.plan = round_plan(spec)  # the shape this engine plays (ShapeError otherwise)
        super().__init__(spec, balances, seats)
        self.progressive = next((n for n, w in spec.wagers.items() if w.settle.progressive is not None), None)
        if self.progressive is not None and meter is None:
            meter = spec.wagers[self.progressive].settle.progressive.meter_reset
        self.meter = None if meter is None else money(meter)
        self._events[0] = make_event("open", **self._events[0].args(),
                                     meter=None if self.meter is None else str(self.meter))
        self.dealer: tuple[int, ...] = ()
        self.board: tuple[int, ...] = ()
        self.stage = -1  # index into plan.stages once dealt
        self._acted: set[int] = set()  # seats that decided at the current decision
        self._pulled: dict[int, list[str]] = {}  # wagers returned by a pull-back, per seat
        self._unit: dict[int, Decimal] = {}  # the unit wager placed, per seat (it may be pulled back)
        self._first: dict[int, tuple[int, ...]] = {}  # a seat's first hand, once it replaced it
        self._awaiting: list[int] = []  # seats that replaced their hand and await the new cards
        self._dealer_first: tuple[int, ...] = ()  # the dealer's first hand, once redrawn
        self._revealed = False  # the dealer's first hand shown at a redraw step

    @classmethod
    def from_open(cls, spec, event):
        args = event.args()
        return cls(spec, balances=list(args["balances"]), meter=args.get("meter"))

    @property
    def locks_out(self) -> bool:
        return self.progressive is not None and self.spec.wagers[self.progressive].settle.progressive.coin_in_lockout

    # ---------------------------------------------------------- wagers
    def _with_unit(self) -> dict[str, Decimal]:
        """The wagers placed with the unit wager: name -> multiple of it."""
        return {n: w.multiple_of_unit for n, w in self.spec.wagers.items() if w.made == "with_unit"}

    def _most_added(self) -> Decimal:
        """The raise ``balance_covers_raise_at_deal`` asks the balance to cover with the unit
        wager, in unit wagers: the largest the first decision can add (the Play, the Flop bet).
        Later wagers are offered only when the balance covers them (``legal_actions``)."""
        decisions = self.plan.decisions
        return max((sum(o.add.values(), ZERO) for o in decisions[0].options), default=ZERO) if decisions else ZERO

    def place_wager(self, seat: int, wager: str, amount) -> None:
        amount = money(amount)
        args = dict(seat=seat, wager=wager, amount=amount)
        s = self._seat("place_wager", **args)
        self._expect_phase(("betting", "locked"), "place_wager", **args)
        unit, with_unit = self.spec.unit, self._with_unit()
        placeable = [n for n, w in self.spec.wagers.items() if w.made in ("unit", "side")]
        if wager in with_unit:
            self._reject("place_wager", f"{wager!r} is placed with the {unit} ({with_unit[wager]} x it), "
                                        f"not on its own (expected {' or '.join(placeable)})", **args)
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
        placed = {wager: amount}
        if wager == unit:
            placed.update({n: amount * m for n, m in with_unit.items()})
        extra = ZERO
        if self.spec.balance_covers_raise_at_deal:
            extra = (amount if wager == unit else s.wagers[unit]) * self._most_added()
        total = sum(placed.values(), ZERO)
        if not s.can_cover(total + extra):
            what = " and ".join(f"{n} {a}" for n, a in placed.items())
            self._reject("place_wager", f"seat {seat} balance {s.balance} cannot cover the {what}"
                                        + (f" and the {extra} a decision may add" if extra else "")
                                        + (f" on top of {s.committed()}" if s.committed() else ""), **args)
        self._record("place_wager", **args)
        s.wagers.update(placed)
        if wager == unit:
            self._unit[seat] = amount

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
        k, rule = self.plan.player, self.spec.misdeal
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
        if len(dealer) != self.plan.dealer:
            self._misdeal(f"misdeal: {len(dealer)} cards to the dealer, expected {self.plan.dealer}",
                          progressive_only=rule.dealer_wrong_count == "progressive_only")
        elif wrong_seat and rule.player_wrong_count == "void_round":
            self._misdeal("void round: a wrong number of cards to a seat")
        else:
            self.phase, self.stage = "decisions", 0
            self._advance()

    def deal_board(self, cards: Sequence[int]) -> None:
        """The board cards of the current board step (shared by every hand)."""
        cards = tuple(int(c) for c in cards)
        args = dict(cards=cards)
        self._expect_phase(("board",), "deal_board", **args)
        seen = set(self.dealer) | set(self.board) | {c for s in self.seats for c in s.cards}
        if len(set(cards)) != len(cards) or any(not 0 <= c < 52 or c in seen for c in cards):
            self._reject("deal_board", "board cards must be distinct cards of the rest of the deck (not dealt yet)", **args)
        self._record("deal_board", **args)
        expected = self.plan.stages[self.stage][1]
        if len(cards) != expected:
            self._misdeal(f"misdeal: {len(cards)} board cards, expected {expected}")
            return
        self.board += cards
        self.phase, self.stage = "decisions", self.stage + 1
        self._advance()

    def _dead(self, s, reason: str) -> None:
        s.status, s.error = "dead", reason
        s.net = {name: ZERO for name in list(s.wagers) + self._pulled.get(s.index, [])}
        self._record("dead_hand", seat=s.index, reason=reason)

    def _misdeal(self, reason: str, progressive_only: bool = False) -> None:
        """A wrong count to the dealer or the board: every hand dead, wagers returned;
        ``progressive_only`` (a wrong count to the dealer): the hands that made the progressive
        wager play for it alone."""
        self._record("misdeal", reason=reason)
        live = [s for s in self.seats if s.status in ("live", "folded")]
        keep = [s for s in live if progressive_only and self.progressive in s.wagers]
        for s in live:
            if s not in keep:
                self._dead(s, f"dead: {reason}")
        if keep:
            self._settle(keep, table="misdeal", showdown=False)
        else:
            self._finish("misdeal", self.meter, self.meter)

    # ---------------------------------------------------------- decisions
    def _decision(self) -> DecideStep | None:
        if self.phase != "decisions" or not 0 <= self.stage < len(self.plan.stages):
            return None
        kind, step = self.plan.stages[self.stage]
        return step if kind == "decide" else None

    def _decides(self, s) -> bool:
        """Whether seat ``s`` has the current decision still to make."""
        step = self._decision()
        return (step is not None and s.status == "live" and s.index not in self._acted
                and not set(step.skipped_when_made) & set(s.wagers))

    def legal_actions(self, seat: int) -> tuple[str, ...]:
        if not 0 <= seat < len(self.seats) or not self._decides(self.seats[seat]):
            return ()
        s = self.seats[seat]
        unit = self._unit[seat]
        return tuple(o.name for o in self._decision().options
                     if s.can_cover(unit * sum(o.add.values(), ZERO)) and all(w in s.wagers for w in o.pull_back))

    def next_step(self) -> tuple[str, int | None] | None:
        """What the round waits for: ("act", seat), ("redraw", seat) (a seat that replaced its hand),
        ("deal_board", None), ("dealer_redraw", None) or None."""
        if self.phase in ("board", "dealer_redraw"):
            return ("deal_board" if self.phase == "board" else "dealer_redraw", None)
        for s in self.seats:
            if s.index in self._awaiting:
                return ("redraw", s.index)
            if self.legal_actions(s.index):
                return ("act", s.index)
        return None

    @property
    def cards_awaited(self) -> int:
        """The cards the round waits for: the board step's, the dealer's redraw, a seat's new hand
        (0 when it waits for none)."""
        if self.phase == "board":
            return self.plan.stages[self.stage][1]
        if self.phase == "dealer_redraw":
            return self.plan.stages[self.stage][1].cards
        return self.plan.player if self._awaiting else 0

    def view(self, seat: int) -> "RulesView":
        """What a player sees at the decision (a strategy decides with it)."""
        s = self.seats[seat]
        step = self._decision()
        return RulesView(seat, s.cards, self._unit.get(seat), self.legal_actions(seat),
                         decision=step.decide if step is not None else None, board=self.board,
                         taken=tuple(s.decisions))

    def act(self, seat: int, action: str) -> None:
        args = dict(seat=seat, action=action)
        s = self._seat("act", **args)
        legal = self.legal_actions(seat)
        if action not in legal:
            step = self._decision()
            names = [o.name for o in step.options] if step is not None else []
            if not legal:
                reason = f"seat {seat} has no decision to make now (status {s.status}, phase {self.phase})"
            elif action in names and self.spec.option(action).add:
                added = self.spec.option(action).add
                amount = self._unit[seat] * sum(added.values(), ZERO)
                reason = (f"seat {seat} balance {s.balance} cannot cover the {' and '.join(added)} {amount} "
                          f"on top of {s.committed()}")
            elif action in names:
                reason = f"seat {seat} has no {' or '.join(self.spec.option(action).pull_back)} to pull back"
            else:
                reason = f"{action!r} is not an option here (expected {' or '.join(legal)})"
            self._reject("act", reason, **args)
        self._record("act", **args)
        s.decisions.append(action)
        self._acted.add(seat)
        option = self.spec.option(action)
        unit = self._unit[seat]
        for name in option.pull_back:
            del s.wagers[name]
            self._pulled.setdefault(seat, []).append(name)
        for name, multiple in option.add.items():
            s.wagers[name] = s.wagers.get(name, ZERO) + unit * multiple
        if option.fold:
            s.status = "folded"
        if option.replace:
            self._first[seat] = s.cards
            self._awaiting.append(seat)
        self._advance()

    def _fresh(self, cards: tuple[int, ...]) -> bool:
        """Distinct cards of the deck that nobody has been dealt in this round."""
        seen = set(self.dealer) | set(self._dealer_first) | set(self.board) | {c for s in self.seats for c in s.cards}
        seen |= {c for hand in self._first.values() for c in hand}
        return len(set(cards)) == len(cards) and all(0 <= c < 52 and c not in seen for c in cards)

    def redraw(self, seat: int, cards: Sequence[int]) -> None:
        """The new hand of a seat that took an option with ``replace`` (as many cards as its first)."""
        cards = tuple(int(c) for c in cards)
        args = dict(seat=seat, cards=cards)
        s = self._seat("redraw", **args)
        if seat not in self._awaiting:
            self._reject("redraw", f"seat {seat} has not replaced its hand: no new cards are awaited", **args)
        if not self._fresh(cards):
            self._reject("redraw", "the new cards must come from the rest of the deck (not dealt yet)", **args)
        self._record("redraw", **args)
        self._awaiting.remove(seat)
        s.cards = cards
        if len(cards) != self.plan.player:
            reason = f"wrong card count: {len(cards)} new cards to seat {seat}, expected {self.plan.player}"
            if self.spec.misdeal.player_wrong_count == "void_round":
                self._misdeal(f"void round: {reason}")
                return
            self._dead(s, f"dead hand: {reason}")
        self._advance()

    def dealer_redraw(self, cards: Sequence[int]) -> None:
        """The dealer's new hand, when the first did not meet the redraw step's ``stands_on``."""
        cards = tuple(int(c) for c in cards)
        args = dict(cards=cards)
        self._expect_phase(("dealer_redraw",), "dealer_redraw", **args)
        if not self._fresh(cards):
            self._reject("dealer_redraw", "the dealer's new cards must come from the rest of the deck (not dealt yet)",
                         **args)
        self._record("dealer_redraw", **args)
        rule = self.plan.stages[self.stage][1]
        self._dealer_first, self.dealer = self.dealer, cards
        if len(cards) != rule.cards:
            self._misdeal(f"misdeal: wrong card count: {len(cards)} new cards to the dealer, expected {rule.cards}",
                          progressive_only=self.spec.misdeal.dealer_wrong_count == "progressive_only")
            return
        self.phase, self.stage = "decisions", self.stage + 1
        self._advance()

    def _dealer_redraws(self, rule) -> bool:
        """At a redraw step: the dealer's first hand revealed; whether it is replaced (it does not
        meet ``stands_on`` and a seat still plays)."""
        stands = hand_value(self.spec, self.dealer) >= self.spec.threshold_value(rule.stands_on)
        self._record("reveal", dealer=self.dealer, stands=stands)
        self._revealed = True
        return not stands and any(s.status == "live" for s in self.seats)

    def _advance(self) -> None:
        """Past every decision nobody has left to make, to the next board step or the showdown."""
        self._awaiting = [i for i in self._awaiting if self.seats[i].status == "live"]  # a voided seat draws none
        while self.phase == "decisions" and self.stage < len(self.plan.stages):
            kind, _ = self.plan.stages[self.stage]
            if kind == "decide":
                if any(self._decides(s) for s in self.seats) or self._awaiting:
                    return
                self.stage += 1
                self._acted = set()
            elif kind == "dealer_redraw":
                if self._dealer_redraws(self.plan.stages[self.stage][1]):
                    self.phase = "dealer_redraw"
                    return
                self.stage += 1
            elif self._anything_to_deal_for():
                self.phase = "board"
                return
            else:
                break  # nobody to deal for: settle now
        if self.phase == "decisions":
            self._settle([s for s in self.seats if s.status in ("live", "folded")], table="played", showdown=True)

    def _anything_to_deal_for(self) -> bool:
        """More board cards matter while a seat is live or a folded seat's side wager is paid on
        the final hand (``paid_on_fold``)."""
        for s in self.seats:
            if s.status == "live":
                return True
            if s.status == "folded" and any(self._paid_on_fold(n) for n in s.wagers):
                return True
        return False

    def _paid_on_fold(self, name: str) -> bool:
        w = self.spec.wagers[name]
        table = w.settle.pay_table or w.settle.progressive
        return w.made == "side" and table is not None and table.paid_on_fold

    # ---------------------------------------------------------- settlement
    def _value(self, cards: Sequence[int]) -> int | None:
        """The hand's value with the board, None while it has fewer cards than the ranking values."""
        hand = tuple(cards) + self.board
        low, high = RANKINGS[self.spec.ranking][1]
        return hand_value(self.spec, hand) if low <= len(hand) <= high else None

    def _settle(self, seats, table: str, showdown: bool) -> None:
        spec = self.spec
        dv = None
        if showdown and self.plan.dealer and self._value(self.dealer) is not None:
            dv = self._value(self.dealer)
            qualifies = spec.dealer.qualifies is None or dv >= spec.threshold_value(spec.dealer.qualifies)
            if not self._revealed:  # a redraw step showed the dealer's first hand already
                self._record("reveal", dealer=self.dealer, qualifies=qualifies)
        values = {s.index: self._value(s.cards) for s in seats}
        categories = ranking_categories(spec.ranking)
        prog = self.progressive
        royals = sum(1 for s in seats if prog in s.wagers and values[s.index] is not None
                     and categories[values[s.index] >> 20] == "royal_flush"
                     and (s.status != "folded" or spec.wagers[prog].settle.progressive.paid_on_fold))
        paid_from_meter, hands = ZERO, {}
        for s in seats:
            folded, value = s.status == "folded", values[s.index]
            if value is not None:
                hands[s.index] = categories[value >> 20].replace("_", " ")
            option = s.decisions[-1] if s.decisions else None
            s.net = {}
            for name, amount in s.wagers.items():
                w = spec.wagers[name]
                if w.made == "side":
                    if not showdown and name != prog:
                        s.net[name] = ZERO
                        continue
                    if w.settle.card_lines is not None:  # on the first cards: known whenever it folds
                        s.net[name] = card_lines_net(w.settle.card_lines, amount, s.cards, self.dealer, folded)
                        continue
                    if value is None:  # folded before the hand was complete
                        s.net[name] = -amount
                        continue
                    paid_by = w.settle.pay_table or w.settle.progressive
                    if w.settle.pay_table is not None and not pay_table_stands(spec, w.settle.pay_table, s.decisions,
                                                                               value, dv):
                        s.net[name] = -amount
                        continue
                    hand = value
                    if paid_by.hand == "player_first" and s.index in self._first:  # the hand before a replace
                        hand = self._value(self._first[s.index])
                    s.net[name] = _side_net(spec, w, amount, hand, folded, self.meter, royals)
                    if name == prog and s.net[name] > -amount:
                        entry = getattr(w.settle.progressive.pays, categories[value >> 20])
                        if entry.meter_percent is not None:
                            paid_from_meter += s.net[name] + amount
                elif not showdown:
                    s.net[name] = ZERO
                elif folded:
                    s.net[name] = -amount
                else:
                    s.net[name] = main_net(spec, w, amount, value, dv)
            if self._pulled.get(s.index):  # returned to the player: net 0, in the spec's order
                s.net = {name: s.net.get(name, ZERO) for name in spec.wagers
                         if name in s.net or name in self._pulled[s.index]}
            s.status = "folded" if folded else "played"
            more = {"decisions": tuple(s.decisions)} if len(self.plan.decisions) > 1 else {}
            self._record("settle", seat=s.index, hand=hands.get(s.index, "folded"), option=option,
                         net=tuple((k, str(v)) for k, v in s.net.items()), **more)
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
    ``decide(view)`` (default: the spec's strategy). A game of another shape is played by
    ``play_deck`` (board steps, several decisions, a replace or a dealer redraw; the same deck
    positions for the first deal)."""
    try:
        rules = one_decision(spec)
    except ShapeError:
        return play_deck(spec, deck, antes, strategy if strategy is not None else strategy_from_spec(spec),
                         sides=sides, balances=balances, meter=meter)
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
    """What a player sees when deciding: own cards, the unit wager, the legal options; the
    decision's name, the board so far and the options the seat took before."""

    def __init__(self, seat: int, cards: tuple[int, ...], unit: Decimal | None, legal: tuple[str, ...],
                 decision: str | None = None, board: tuple[int, ...] = (), taken: tuple[str, ...] = ()):
        self.seat, self.cards, self.unit, self.legal = seat, cards, unit, legal
        self.decision, self.board, self.taken = decision, board, taken


class SpecStrategy:
    """The spec's strategy, an object with ``decide(view)`` (``strategy_from_spec``):
    what ``certify audit`` and ``certify drive`` play and compare with. At the decision the view
    names (the one decision of the one-decision shape), on the seat's cards."""

    def __init__(self, spec: RulesSpec):
        try:
            rules = one_decision(spec)
            self.decision, self.options = rules.decision, rules.options
        except ShapeError:  # another shape: the view names the decision
            if spec.strategy is None:
                raise
            self.decision, self.options = None, [o for d in spec.decisions for o in d.options]
        self.spec = spec

    def decide(self, view: RulesView) -> str:
        """The strategy's option; one the balance cannot cover gives way to folding (or the first
        legal option)."""
        decision = self.decision or view.decision
        want = strategy_option(self.spec, decision, hand_value(self.spec, view.cards))
        if want in view.legal:
            return want
        return next((o.name for o in self.options if o.fold and o.name in view.legal), view.legal[0])


def rule_met(spec: RulesSpec, rule, cards: Sequence[int], board: Sequence[int] = ()) -> bool:
    """Whether a hand meets every condition of a strategy rule (``StrategyRule``): ``at_least``
    on the hand so far (own cards and board), ``hands`` on the first two cards' starting hand,
    ``hole_card_plays``: a pocket pair, a hole card's rank on the board, or a straight or better."""
    from certify.rules.board_streets import class_of_hole

    if rule.hands is not None and class_of_hole(int(cards[0]), int(cards[1])) not in rule.hands:
        return False
    value = None
    if rule.at_least is not None or rule.hole_card_plays:
        hand = [int(c) for c in cards] + [int(c) for c in board]
        value = hand_value(spec, hand) if len(hand) in (3, 5, 7) or spec.ranking != "best_five" \
            else max(rank_hand(list(five)) for five in combinations(hand, 5))
    if rule.at_least is not None and value < spec.threshold_value(rule.at_least):
        return False
    if rule.hole_card_plays:
        ranks = {int(c) >> 2 for c in cards[:2]}
        categories = ranking_categories(spec.ranking)
        straight = categories.index("straight") if "straight" in categories else len(categories)
        if not (len(ranks) == 1 or ranks & {int(c) >> 2 for c in board} or (value >> 20) >= straight):
            return False
    return True


class RuleStrategy:
    """The spec's strategy at every decision (``strategy.decisions``), its rules tried in order on
    what the player sees (``rule_met``): a game with several decisions, or rules beyond a threshold."""

    def __init__(self, spec: RulesSpec):
        self.spec = spec

    def option(self, decision: str, cards: Sequence[int], board: Sequence[int] = ()) -> str:
        for rule in self.spec.strategy.decisions[decision]:
            if rule_met(self.spec, rule, cards, board):
                return rule.option
        raise ValueError(f"no strategy rule applies at {decision!r}")

    def decide(self, view: "RulesView") -> str:
        """The strategy's option; one the balance cannot cover gives way to an option that adds
        nothing (a check, else a fold)."""
        want = self.option(view.decision, view.cards, view.board)
        if want in view.legal:
            return want
        cheap = [o for o in view.legal if not self.spec.option(o).add]
        return next((o for o in cheap if not self.spec.option(o).fold), cheap[0] if cheap else view.legal[0])


def strategy_from_spec(spec: RulesSpec) -> "SpecStrategy | RuleStrategy | DerivedStrategy":
    """The strategy a lab's automated play declares: the spec's own (``RuleStrategy`` where it has
    several decisions or rules beyond a threshold, else ``SpecStrategy``), else, where the spec
    states none, the optimal strategy the analysis derives and the PAR sheet is of
    (``DerivedStrategy``: Let It Ride, Ultimate Texas Hold'em; building it counts the game)."""
    if spec.strategy is not None and (len(spec.decisions) > 1 or any(
            r.hands is not None or r.hole_card_plays for rules in spec.strategy.decisions.values() for r in rules)):
        return RuleStrategy(spec)
    try:
        return SpecStrategy(spec)
    except ShapeError:
        return DerivedStrategy(spec)


class DerivedStrategy:
    """The optimal strategy the exact analysis derives, read from the tables the bulk kernel plays
    (``certify.rules.kernel.rules_kernel``) through the kernel's own decision functions, so the
    round engine and the simulation decide alike: Let It Ride's shape (``induction_first`` /
    ``induction_second``), the board shape (``certify.rules.board.derived_option``: the preflop class
    table, ``flop_option``, ``turn_option``, ``river_option``). ``kernel``: one already built (a test's smaller game)."""

    def __init__(self, spec: RulesSpec, kernel=None):
        from certify.games.kernels import KernelError, kernel_for

        self.spec = spec
        self.kernel = kernel if kernel is not None else kernel_for(spec)
        self.params = p = self.kernel.params
        self.decisions = [d.decide for d in spec.decisions]
        if p.get("board"):
            from certify.rules.board import board_shape

            self.stages = board_shape(spec).stages  # options by stake: the kernel's option indices
        elif not p.get("induction"):
            raise KernelError(f"{spec.name}: the derived strategy is played for games with decisions between "
                              "deals; this one's bulk kernel plays the spec strategy")
        self._used = np.zeros(52, np.bool_)
        self._cnt = np.zeros(6, np.int64)

    def option(self, decision: str, cards: Sequence[int], board: Sequence[int], taken: Sequence[str]) -> str:
        """The option at ``decision`` for a seat holding ``cards`` with ``board`` out, having taken
        ``taken`` before."""
        d, p = self.decisions.index(decision), self.params
        seen = np.array(list(cards) + list(board), np.int64)
        if p.get("induction"):
            from certify.rules.kernel import induction_first, induction_second

            options = self.spec.decisions[d].options
            if d == 0:
                return options[int(induction_first(seen, p["first"], p["first_table"]))].name
            o1 = [o.name for o in self.spec.decisions[0].options].index(taken[0])
            return options[int(induction_second(seen, o1, p["stake"], p["pay"], p["lines"], p["path_of"],
                                                p["tie_order"], p["den"]))].name
        from certify.rules.board import derived_option

        o = derived_option(p, self.stages[d].board_cards, int(cards[0]), int(cards[1]), seen[2:], self._used, self._cnt)
        return self.stages[d].names[o]

    def decide(self, view: RulesView) -> str:
        """The strategy's option; one the balance cannot cover gives way to folding (or the first
        legal option)."""
        want = self.option(view.decision, view.cards, view.board, view.taken)
        if want in view.legal:
            return want
        return next((o for o in view.legal if self.spec.option(o).fold), view.legal[0])


def play_deck(spec: RulesSpec, deck: Sequence[int], antes: Sequence, strategy, sides: dict | Sequence | None = None,
              balances=None, meter=None) -> RulesRound:
    """One round of any shape the engine plays, from a shuffled deck, every seat deciding by
    ``strategy.decide(view)``: the first deal's cards to each seat in turn, then the dealer's,
    then each later step's cards in the order the round awaits them (a board step, a seat's new
    hand after a replace, the dealer's redraw; one seat: the bulk kernels' deck positions).
    ``sides``: side wager name -> amount, placed by every seat (or a list of them, one per seat)."""
    n = len(antes)
    per_seat = list(sides) if isinstance(sides, (list, tuple)) else [sides or {}] * n
    rnd = RulesRound(spec, balances=balances if balances is not None else [None] * n, meter=meter)
    for i, ante in enumerate(antes):
        try:
            rnd.place_wager(seat=i, wager=spec.unit, amount=money(ante))
            for name, amount in per_seat[i].items():
                rnd.place_wager(seat=i, wager=name, amount=money(amount))
        except IllegalAction as exc:
            rnd.void_seat(seat=i, reason=exc.reason)
    if rnd.locks_out:
        rnd.lock_out()
    k, m = rnd.plan.player, rnd.plan.dealer
    rnd.deal(hands=[tuple(deck[i * k:(i + 1) * k]) for i in range(n)], dealer=tuple(deck[n * k:n * k + m]))
    position = n * k + m
    while (step := rnd.next_step()) is not None:
        kind, seat = step
        if kind == "act":
            rnd.act(seat=seat, action=strategy.decide(rnd.view(seat)))
        else:
            n_cards = rnd.cards_awaited
            cards = tuple(deck[position:position + n_cards])
            if kind == "redraw":
                rnd.redraw(seat=seat, cards=cards)
            elif kind == "dealer_redraw":
                rnd.dealer_redraw(cards=cards)
            else:
                rnd.deal_board(cards=cards)
            position += n_cards
    return rnd
