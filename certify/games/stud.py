"""Caribbean Stud and Casino Stud: the stud family engine.

Rules come from a ``StudSpec`` and each is read in one place:

* ``settle_values`` / ``settle``: Ante and Bet of one correctly dealt seat (fold, dealer not
  qualifying, win by the Bet pay table, loss, tie). The numba kernel of the simulation is tested
  against ``settle`` round for round.
* ``progressive_award``: the progressive pay line of a hand (meter share or fixed amount, the
  royal split between seats).
* ``StudRound``: the table procedure (wagers and limits, coin-in lockout, the deal with dead
  hands and misdeals, fold/bet decisions, reveal, settlement) as a state machine with a log.

Round flow: ``place_wager`` (ante, progressive) -> ``lock_out`` (when the spec has a coin-in
lockout) -> ``deal(hands=..., dealer=...)`` -> ``act(seat=, action="fold"|"bet")`` for each live
seat -> settled automatically; ``result()``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Iterable, Sequence

from certify.hands import CATEGORY_NAMES, Category, category_of, rank_hand
from certify.games.base import ZERO, IllegalAction, Round, cents_down, make_event, money, replay

WAGERS = ("ante", "bet", "progressive")
ACTIONS = ("fold", "bet")


# ------------------------------------------------------------------ the rules, one place each

def bet_amount(spec, ante: Decimal) -> Decimal:
    """The Bet a player makes to play the hand: ``bet.multiple_of_ante`` x Ante (exactly)."""
    return ante * spec.bet.multiple_of_ante


def dealer_qualifies(spec, dealer_value: int) -> bool:
    return spec.dealer.qualifies.met_by(dealer_value)


def settle_values(spec, player_value: int, dealer_value: int, decision: str,
                  ante: Decimal = Decimal(1)) -> dict[str, Decimal]:
    """Net result of Ante and Bet for one seat from the two hand values and the decision."""
    if decision == "fold":
        return {"ante": -ante}
    if decision != "bet":
        raise ValueError(f"decision must be 'fold' or 'bet', got {decision!r}")
    bet = bet_amount(spec, ante)
    if not dealer_qualifies(spec, dealer_value):
        return {"ante": ante * spec.non_qualifying_dealer.ante_pays, "bet": ZERO}
    if player_value > dealer_value:
        odds = spec.bet.pays.odds(category_of(player_value))
        return {"ante": ante * spec.ante_pays, "bet": -bet if odds is None else bet * odds}
    if player_value < dealer_value:
        return {"ante": -ante, "bet": -bet}
    return {"ante": ZERO, "bet": ZERO}


def settle(spec, player_cards: Sequence[int], dealer_cards: Sequence[int], decision: str,
           ante: Decimal = Decimal(1)) -> dict[str, Decimal]:
    """``settle_values`` on five-card hands: the reference for the simulation kernel."""
    return settle_values(spec, rank_hand(player_cards), rank_hand(dealer_cards), decision, ante)


def progressive_award(spec, player_value: int, meter: Decimal, royal_winners: int = 1) -> Decimal | None:
    """What the progressive pays a hand (None: no award); royal shares split equally, cents down."""
    entry = spec.progressive.pays.entry(category_of(player_value))
    if entry is None:
        return None
    if entry.amount is not None:
        return entry.amount
    share = meter * entry.meter_percent / 100
    if category_of(player_value) == Category.ROYAL_FLUSH:
        share = share / max(royal_winners, 1)
    return cents_down(share)


# ------------------------------------------------------------------ strategies

class StudView:
    """What a player sees when deciding: own five cards, the dealer's up card, the Ante."""

    def __init__(self, seat: int, cards: tuple[int, ...], up_card: int, ante: Decimal, legal: tuple[str, ...]):
        self.seat, self.cards, self.up_card, self.ante, self.legal = seat, cards, up_card, ante, legal


class ThresholdStrategy:
    """Bet with the threshold hand or better (e.g. AKJ83), otherwise fold."""

    def __init__(self, threshold):
        self.threshold = threshold

    def decide(self, view: StudView) -> str:
        want = "bet" if self.threshold.met_by(rank_hand(view.cards)) else "fold"
        return want if want in view.legal else "fold"


def strategy_from_spec(spec):
    if spec.strategy.name == "threshold":
        return ThresholdStrategy(spec.strategy.bet_at_least)
    raise ValueError(f"strategy {spec.strategy.name!r} is computed by certify.analysis, "
                     "not available as a decision rule here")


# ------------------------------------------------------------------ the round

class StudRound(Round):
    family = "stud"
    input_kinds = ("place_wager", "lock_out", "deal", "act", "void_seat")

    def __init__(self, spec, balances=None, seats: int | None = None, meter: Decimal | str | None = None):
        if spec.family != "stud":
            raise ValueError(f"{spec.name} is a {spec.family} game, not stud")
        super().__init__(spec, balances, seats)
        if spec.progressive is not None and meter is None:
            meter = spec.progressive.meter_reset
        self.meter = None if meter is None else money(meter)
        self._events[0] = make_event("open", **self._events[0].args(),
                                     meter=None if self.meter is None else str(self.meter))
        self.dealer: tuple[int, ...] = ()
        self.misdeal = False

    @classmethod
    def from_open(cls, spec, event):
        args = event.args()
        return cls(spec, balances=list(args["balances"]), meter=args.get("meter"))

    @property
    def locks_out(self) -> bool:
        return self.spec.progressive is not None and self.spec.progressive.coin_in_lockout

    # ---------------------------------------------------------- wagers
    def place_wager(self, seat: int, wager: str, amount) -> None:
        amount = money(amount)
        args = dict(seat=seat, wager=wager, amount=amount)
        s = self._seat("place_wager", **args)
        self._expect_phase(("betting", "locked"), "place_wager", **args)
        if wager not in ("ante", "progressive"):
            self._reject("place_wager", f"{wager!r} is not a wager placed before the deal "
                                        "(expected ante or progressive; the Bet is an action)", **args)
        if wager in s.wagers:
            self._reject("place_wager", f"seat {seat} already has a {wager} of {s.wagers[wager]}", **args)
        if wager == "progressive":
            self._check_progressive(s, amount, args)
        else:
            self._check_amount("ante", "place_wager", **args)
        if not s.can_cover(amount + self._cover_extra(s, wager, amount)):
            self._reject("place_wager", f"seat {seat} balance {s.balance} cannot cover "
                                        f"{self._cover_text(s, wager, amount)}", **args)
        self._record("place_wager", **args)
        s.wagers[wager] = amount

    def _check_progressive(self, s, amount, args) -> None:
        prog = self.spec.progressive
        if prog is None:
            self._reject("place_wager", f"{self.spec.name} has no progressive wager", **args)
        if self.phase == "locked" and prog.coin_in_lockout:
            self._reject("place_wager", "progressive wager refused after the coin-in lockout: coin-in is locked out for this hand", **args)
        if "ante" not in s.wagers:
            self._reject("place_wager", "the progressive wager needs the ante first", **args)
        if amount != prog.wager:
            self._reject("place_wager", f"the progressive wager is exactly {prog.wager}, got {amount}", **args)

    def _cover_extra(self, s, wager, amount) -> Decimal:
        if wager == "ante" and self.spec.balance_covers_raise_at_deal:
            return bet_amount(self.spec, amount)
        if wager == "progressive" and self.spec.balance_covers_raise_at_deal:
            return bet_amount(self.spec, s.wagers["ante"])
        return ZERO

    def _cover_text(self, s, wager, amount) -> str:
        extra = self._cover_extra(s, wager, amount)
        already = s.committed()
        text = f"the {wager} {amount}"
        if extra:
            text += f" and the Bet {extra} it commits to"
        if already:
            text += f" on top of {already} already wagered"
        return text

    def lock_out(self) -> None:
        self._expect_phase(("betting",), "lock_out")
        self._record("lock_out")
        self.phase = "locked"

    # ---------------------------------------------------------- the deal
    def deal(self, hands: Sequence[Sequence[int]], dealer: Sequence[int]) -> None:
        hands = tuple(tuple(int(c) for c in h) for h in hands)
        dealer = tuple(int(c) for c in dealer)
        args = dict(hands=hands, dealer=dealer)
        prog = self.spec.progressive
        if prog is not None and prog.coin_in_lockout:
            self._expect_phase(("locked",), "deal", **args)
        else:
            self._expect_phase(("betting", "locked"), "deal", **args)
        if len(hands) != len(self.seats):
            self._reject("deal", f"{len(hands)} hands for {len(self.seats)} seats", **args)
        everything = [c for h in hands for c in h] + list(dealer)
        if len(set(everything)) != len(everything) or any(not 0 <= c < 52 for c in everything):
            self._reject("deal", "the cards dealt must be distinct cards of one deck", **args)
        self._record("deal", **args)
        size = self.spec.hand_size
        self.dealer = dealer
        for s, cards in zip(self.seats, hands):
            s.cards = cards
            if s.status == "rejected":
                continue
            if "ante" not in s.wagers:
                s.status = "empty"
            elif len(cards) != size:
                self._dead(s, f"dead hand: {len(cards)} cards dealt, expected {size}")
            else:
                s.status = "live"
        if len(dealer) != size:
            self._misdeal(f"misdeal: {len(dealer)} cards to the dealer, expected {size}")
        else:
            self.phase = "decisions"
            self._advance()

    def _dead(self, s, reason: str) -> None:
        s.status, s.error = "dead", reason
        s.net = {name: ZERO for name in s.wagers}
        self._record("dead_hand", seat=s.index, reason=reason)

    def _misdeal(self, reason: str) -> None:
        """Wrong count to the dealer: live hands play for the progressive only; if no live hand
        made the progressive wager, every hand is dead and keeps its wagers."""
        self.misdeal = True
        self._record("misdeal", reason=reason)
        live = [s for s in self.seats if s.status == "live"]
        contenders = [s for s in live if "progressive" in s.wagers and self.spec.misdeal.dealer_wrong_count == "progressive_only"]
        for s in live:
            if s not in contenders:
                self._dead(s, f"dead: {reason}")
        if contenders:
            self._settle_progressive(contenders, table="misdeal", antes_play=False)
        else:
            self._finish("misdeal", self.meter, self.meter)

    # ---------------------------------------------------------- decisions
    def legal_actions(self, seat: int) -> tuple[str, ...]:
        if self.phase != "decisions" or not 0 <= seat < len(self.seats):
            return ()
        s = self.seats[seat]
        if s.status != "live" or s.decisions:
            return ()
        bet = bet_amount(self.spec, s.wagers["ante"])
        return ACTIONS if s.can_cover(bet) else ("fold",)

    def view(self, seat: int) -> StudView:
        s = self.seats[seat]
        return StudView(seat, s.cards, self.dealer[self.spec.dealer.up_card_index], s.wagers["ante"],
                        self.legal_actions(seat))

    def act(self, seat: int, action: str) -> None:
        args = dict(seat=seat, action=action)
        s = self._seat("act", **args)
        legal = self.legal_actions(seat)
        if action not in legal:
            if not legal:
                reason = f"seat {seat} has no decision to make now (status {s.status}, phase {self.phase})"
            elif action == "bet":
                bet = bet_amount(self.spec, s.wagers["ante"])
                reason = f"seat {seat} balance {s.balance} cannot cover the Bet {bet} on top of {s.committed()}"
            else:
                reason = f"{action!r} is not an action here (expected {' or '.join(legal)})"
            self._reject("act", reason, **args)
        self._record("act", **args)
        s.decisions.append(action)
        if action == "bet":
            s.wagers["bet"] = bet_amount(self.spec, s.wagers["ante"])
        else:
            s.status = "folded"
        self._advance()

    def _advance(self) -> None:
        if any(s.status == "live" and not s.decisions for s in self.seats):
            return
        self._settle_progressive([s for s in self.seats if s.status in ("live", "folded")],
                                 table="played", antes_play=True)

    # ---------------------------------------------------------- settlement
    def _settle_progressive(self, seats, table: str, antes_play: bool) -> None:
        dealer_value = rank_hand(self.dealer) if antes_play else None
        if antes_play:
            self._record("reveal", dealer=self.dealer, qualifies=dealer_qualifies(self.spec, dealer_value))
        values = {s.index: rank_hand(s.cards) for s in seats}
        in_prog = [s for s in seats if "progressive" in s.wagers
                   and (s.status != "folded" or self.spec.progressive.paid_on_fold)]
        royals = sum(1 for s in in_prog if category_of(values[s.index]) == Category.ROYAL_FLUSH)
        paid_from_meter = ZERO
        hands = {}
        for s in seats:
            value = values[s.index]
            hands[s.index] = CATEGORY_NAMES[category_of(value)]
            if antes_play:
                decision = "fold" if s.status == "folded" else "bet"
                s.net = settle_values(self.spec, value, dealer_value, decision, s.wagers["ante"])
                s.status = "folded" if decision == "fold" else "played"
            else:
                s.net = {name: ZERO for name in s.wagers if name != "progressive"}
                s.status = "played"
            if "progressive" in s.wagers:
                award = progressive_award(self.spec, value, self.meter, royals) if s in in_prog else None
                s.net["progressive"] = -s.wagers["progressive"] + (award or ZERO)
                entry = self.spec.progressive.pays.entry(category_of(value))
                if award is not None and entry.meter_percent is not None:
                    paid_from_meter += award
            self._record("settle", seat=s.index, hand=hands[s.index],
                         net=tuple((k, str(v)) for k, v in s.net.items()))
        meter_after = self.meter
        if self.meter is not None:
            meter_after = self.meter - paid_from_meter
            if royals and self.spec.progressive.meter_reset is not None:
                meter_after += self.spec.progressive.meter_reset
        self._finish(table, self.meter, meter_after, hands)


def replay_stud(spec, events: Iterable) -> StudRound:
    return replay(lambda open_event: StudRound.from_open(spec, open_event), events)


def play_round(spec, deck: Sequence[int], strategy, antes: Sequence, progressive: Sequence[bool] | None = None,
               meter=None, balances=None) -> StudRound:
    """Play one round from a shuffled deck: five-card groups to each seat, then the dealer.
    A wager the table refuses (limits, balance) voids that seat, as the procedures runner does."""
    n = len(antes)
    rnd = StudRound(spec, balances=balances if balances is not None else [None] * n, meter=meter)
    for i, ante in enumerate(antes):
        try:                                   # a refused wager: the table returns the seat's wagers
            rnd.place_wager(seat=i, wager="ante", amount=money(ante))
            if progressive and progressive[i]:
                rnd.place_wager(seat=i, wager="progressive", amount=spec.progressive.wager)
        except IllegalAction as exc:
            rnd.void_seat(seat=i, reason=exc.reason)
    if spec.progressive is not None and spec.progressive.coin_in_lockout:
        rnd.lock_out()
    size = spec.hand_size
    hands = [tuple(deck[i * size:(i + 1) * size]) for i in range(n)]
    rnd.deal(hands=hands, dealer=tuple(deck[n * size:(n + 1) * size]))
    for i in range(n):
        if rnd.legal_actions(i):
            rnd.act(seat=i, action=strategy.decide(rnd.view(i)))
    return rnd

