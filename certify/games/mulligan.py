"""Five Card Mulligan Poker: the mulligan family engine.

Rules from a ``MulliganSpec``, each read in one place:

* ``dealer_stands``: the dealer stands on the ``dealer.stands_on`` threshold, else redraws five.
* ``settle_values`` / ``settle``: Ante, Raise and Bonus of one seat (the Ante-and-Raise table on a
  win, ties push, the Bonus on the original hand under the spec's ``paid_when`` condition and
  lost on a mulligan). The simulation kernel is tested against ``settle``.
* ``MulliganRound``: wagers and limits, the deal, stand/mulligan decisions (a mulligan places a
  Raise equal to ``raise.multiple_of_ante`` x Ante), the player's redraw, the dealer's reveal and
  redraw, settlement. A wrong number of cards to anyone voids the round (``wrong_card_count``).

Round flow: ``place_wager`` (ante, bonus) -> ``deal(hands=, dealer=)`` -> ``act(seat=,
action="stand"|"mulligan")`` -> ``redraw(seat=, cards=)`` for each mulligan -> ``dealer_redraw
(cards=)`` if the dealer does not stand -> settled. ``next_step()`` names what the round awaits.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Iterable, Sequence

from certify.hands import CATEGORY_NAMES, category_of, rank_hand
from certify.games.base import ZERO, IllegalAction, Round, money, replay

WAGERS = ("ante", "raise", "bonus")
ACTIONS = ("stand", "mulligan")


# ------------------------------------------------------------------ the rules, one place each

def raise_amount(spec, ante: Decimal) -> Decimal:
    """The Raise a mulligan needs: ``raise.multiple_of_ante`` x Ante."""
    return ante * spec.raise_.multiple_of_ante


def dealer_stands(spec, dealer_value: int) -> bool:
    return spec.dealer.stands_on.met_by(dealer_value)


def bonus_paid(spec, original_value: int, final_value: int, dealer_value: int, took_mulligan: bool) -> Decimal | None:
    """Odds the Bonus pays (None: it loses)."""
    bonus = spec.bonus
    if took_mulligan and bonus.lost_on_mulligan:
        return None
    if bonus.paid_when == "player_beats_dealer" and not final_value > dealer_value:
        return None
    if bonus.paid_when == "player_beats_or_ties_dealer" and not final_value >= dealer_value:
        return None
    return bonus.pays.odds(category_of(original_value))


def settle_values(spec, original_value: int, final_value: int, dealer_value: int, decision: str,
                  ante: Decimal = Decimal(1), bonus: Decimal = ZERO) -> dict[str, Decimal]:
    """Net result of each wager of one seat; ``dealer_value`` is the dealer's final hand."""
    if decision not in ACTIONS:
        raise ValueError(f"decision must be 'stand' or 'mulligan', got {decision!r}")
    took_mulligan = decision == "mulligan"
    stakes = {"ante": ante}
    if took_mulligan:
        stakes["raise"] = raise_amount(spec, ante)
    if final_value > dealer_value:
        odds = spec.pays.odds(category_of(final_value))
        net = {k: (-v if odds is None else v * odds) for k, v in stakes.items()}
    elif final_value < dealer_value:
        net = {k: -v for k, v in stakes.items()}
    else:
        net = {k: ZERO for k in stakes}
    if bonus:
        odds = bonus_paid(spec, original_value, final_value, dealer_value, took_mulligan)
        net["bonus"] = -bonus if odds is None else bonus * odds
    return net


def settle(spec, original: Sequence[int], decision: str, player_redraw: Sequence[int] | None,
           dealer_first: Sequence[int], dealer_redraw: Sequence[int] | None,
           ante: Decimal = Decimal(1), bonus: Decimal = ZERO) -> dict[str, Decimal]:
    """``settle_values`` on cards: the dealer redraws (from ``dealer_redraw``) unless he stands."""
    original_value = rank_hand(original)
    final_value = rank_hand(player_redraw) if decision == "mulligan" else original_value
    dealer_value = rank_hand(dealer_first)
    if not dealer_stands(spec, dealer_value):
        dealer_value = rank_hand(dealer_redraw)
    return settle_values(spec, original_value, final_value, dealer_value, decision, ante, bonus)


# ------------------------------------------------------------------ strategies

class MulliganView:
    def __init__(self, seat: int, cards: tuple[int, ...], ante: Decimal, legal: tuple[str, ...]):
        self.seat, self.cards, self.ante, self.legal = seat, cards, ante, legal


class ThresholdStrategy:
    """Stand with the threshold hand or better (the inventor's AK954), else take a mulligan."""

    def __init__(self, threshold):
        self.threshold = threshold

    def decide(self, view: MulliganView) -> str:
        want = "stand" if self.threshold.met_by(rank_hand(view.cards)) else "mulligan"
        return want if want in view.legal else "stand"


def strategy_from_spec(spec):
    return ThresholdStrategy(spec.strategy.stand_at_least)


# ------------------------------------------------------------------ the round

class MulliganRound(Round):
    family = "mulligan"
    input_kinds = ("place_wager", "deal", "act", "redraw", "dealer_redraw", "void_seat")

    def __init__(self, spec, balances=None, seats: int | None = None):
        if spec.family != "mulligan":
            raise ValueError(f"{spec.name} is a {spec.family} game, not mulligan")
        super().__init__(spec, balances, seats)
        self.dealer_first: tuple[int, ...] = ()
        self.dealer: tuple[int, ...] = ()
        self.originals: dict[int, tuple[int, ...]] = {}
        self.used: set[int] = set()

    @classmethod
    def from_open(cls, spec, event):
        return cls(spec, balances=list(event.get("balances")))

    # ---------------------------------------------------------- wagers
    def place_wager(self, seat: int, wager: str, amount) -> None:
        self._place_ante_or_bonus(seat, wager, amount, later='the Raise {} a mulligan needs',
                                  later_bet=lambda ante: raise_amount(self.spec, ante), later_note='the Raise comes with a mulligan')

    # ---------------------------------------------------------- dealing
    def _fresh(self, cards: tuple[int, ...]) -> bool:
        return len(set(cards)) == len(cards) and all(0 <= c < 52 and c not in self.used for c in cards)

    def deal(self, hands: Sequence[Sequence[int]], dealer: Sequence[int]) -> None:
        hands = tuple(tuple(int(c) for c in h) for h in hands)
        dealer = tuple(int(c) for c in dealer)
        args = dict(hands=hands, dealer=dealer)
        self._expect_phase(("betting",), "deal", **args)
        if len(hands) != len(self.seats):
            self._reject("deal", f"{len(hands)} hands for {len(self.seats)} seats", **args)
        if not self._fresh(tuple(c for h in hands for c in h) + dealer):
            self._reject("deal", "the cards dealt must be distinct cards of one deck", **args)
        self._record("deal", **args)
        self.used.update(c for h in hands for c in h)
        self.used.update(dealer)
        self.dealer_first = self.dealer = dealer
        size = self.spec.hand_size
        wrong = [f"{len(h)} cards to seat {i}" for i, h in enumerate(hands)
                 if len(h) != size and "ante" in self.seats[i].wagers and self.seats[i].status != "rejected"]
        if len(dealer) != size:
            wrong.append(f"{len(dealer)} cards to the dealer")
        for s, cards in zip(self.seats, hands):
            s.cards = cards
            if s.status == "rejected":
                continue
            s.status = "live" if "ante" in s.wagers else "empty"
            if s.status == "live":
                self.originals[s.index] = cards
        if wrong:
            self._void_round(f"wrong card count ({', '.join(wrong)}, expected {size}): the round is void")
            return
        self.phase = "decisions"
        self._advance()

    def _void_round(self, reason: str) -> None:
        self._record("void_round", reason=reason)
        for s in self.seats:
            if s.status in ("live", "waiting"):
                s.status, s.error = "dead", reason
                s.net = {name: ZERO for name in s.wagers}
        self._finish("misdeal")

    # ---------------------------------------------------------- decisions and draws
    def legal_actions(self, seat: int) -> tuple[str, ...]:
        if self.phase != "decisions" or not 0 <= seat < len(self.seats):
            return ()
        s = self.seats[seat]
        if s.status != "live" or s.decisions:
            return ()
        return ACTIONS if s.can_cover(raise_amount(self.spec, s.wagers["ante"])) else ("stand",)

    def view(self, seat: int) -> MulliganView:
        s = self.seats[seat]
        return MulliganView(seat, s.cards, s.wagers["ante"], self.legal_actions(seat))

    def act(self, seat: int, action: str) -> None:
        args = dict(seat=seat, action=action)
        s = self._seat("act", **args)
        legal = self.legal_actions(seat)
        if action not in legal:
            if not legal:
                reason = f"seat {seat} has no decision to make now (status {s.status}, phase {self.phase})"
            elif action == "mulligan":
                reason = (f"seat {seat} balance {s.balance} cannot cover the Raise "
                          f"{raise_amount(self.spec, s.wagers['ante'])} "
                          f"on top of {s.committed()}: a mulligan is not allowed")
            else:
                reason = f"{action!r} is not an action here (expected {' or '.join(legal)})"
            self._reject("act", reason, **args)
        self._record("act", **args)
        s.decisions.append(action)
        if action == "mulligan":
            s.wagers["raise"] = raise_amount(self.spec, s.wagers["ante"])
        self._advance()

    def next_step(self) -> tuple[str, int | None] | None:
        """What the round waits for: ("act", seat), ("redraw", seat), ("dealer_redraw", None)."""
        if self.phase == "decisions":
            for s in self.seats:
                if s.status == "live" and not s.decisions:
                    return ("act", s.index)
                if s.status == "live" and s.decisions == ["mulligan"] and s.cards == self.originals[s.index]:
                    return ("redraw", s.index)
            return None
        if self.phase == "dealer_redraw":
            return ("dealer_redraw", None)
        return None

    def redraw(self, seat: int, cards: Sequence[int]) -> None:
        cards = tuple(int(c) for c in cards)
        args = dict(seat=seat, cards=cards)
        s = self._seat("redraw", **args)
        if self.phase != "decisions" or not (s.status == "live" and s.decisions == ["mulligan"]
                                             and s.cards == self.originals[seat]):
            self._reject("redraw", f"seat {seat} has not taken a mulligan awaiting new cards", **args)
        if not self._fresh(cards):
            self._reject("redraw", "the new cards must come from the rest of the deck (not dealt yet)", **args)
        self._record("redraw", **args)
        self.used.update(cards)
        s.cards = cards
        if len(cards) != self.spec.player_redraw_cards:
            self._void_round(f"wrong card count ({len(cards)} new cards to seat {seat}, expected "
                             f"{self.spec.player_redraw_cards}): the round is void")
            return
        self._advance()

    def dealer_redraw(self, cards: Sequence[int]) -> None:
        cards = tuple(int(c) for c in cards)
        args = dict(cards=cards)
        self._expect_phase(("dealer_redraw",), "dealer_redraw", **args)
        if not self._fresh(cards):
            self._reject("dealer_redraw", "the dealer's new cards must come from the rest of the deck", **args)
        self._record("dealer_redraw", **args)
        self.used.update(cards)
        self.dealer = cards
        if len(cards) != self.spec.dealer.redraw_cards:
            self._void_round(f"wrong card count ({len(cards)} new cards to the dealer, expected "
                             f"{self.spec.dealer.redraw_cards}): the round is void")
            return
        self._settle()

    def _advance(self) -> None:
        if self.phase != "decisions" or self.next_step() is not None:
            return
        stands = dealer_stands(self.spec, rank_hand(self.dealer_first))
        self._record("reveal", dealer=self.dealer_first, stands=stands)
        if stands:
            self._settle()
        else:
            self.phase = "dealer_redraw"

    def _settle(self) -> None:
        dealer_value = rank_hand(self.dealer)
        hands = {}
        for s in self.seats:
            if s.status != "live":
                continue
            original_value, final_value = rank_hand(self.originals[s.index]), rank_hand(s.cards)
            s.net = settle_values(self.spec, original_value, final_value, dealer_value, s.decisions[0],
                                  s.wagers["ante"], s.wagers.get("bonus", ZERO))
            s.status = "played"
            hands[s.index] = CATEGORY_NAMES[category_of(final_value)]
            self._record("settle", seat=s.index, hand=hands[s.index],
                         net=tuple((k, str(v)) for k, v in s.net.items()))
        self._finish("played", hands=hands)


def replay_mulligan(spec, events: Iterable) -> MulliganRound:
    return replay(lambda open_event: MulliganRound.from_open(spec, open_event), events)


def play_round(spec, deck: Sequence[int], strategy, ante, bonus=None, balance=None) -> MulliganRound:
    """One seat from a shuffled deck: player 0-4, dealer 5-9, then draws in order."""
    rnd = MulliganRound(spec, balances=[balance])
    try:                                       # a refused wager voids the seat
        rnd.place_wager(seat=0, wager="ante", amount=money(ante))
        if bonus:
            rnd.place_wager(seat=0, wager="bonus", amount=money(bonus))
    except IllegalAction as exc:
        rnd.void_seat(seat=0, reason=exc.reason)
    rnd.deal(hands=[tuple(deck[0:5])], dealer=tuple(deck[5:10]))
    position = 10
    while (step := rnd.next_step()) is not None:
        kind, seat = step
        if kind == "act":
            rnd.act(seat=seat, action=strategy.decide(rnd.view(seat)))
        elif kind == "redraw":
            rnd.redraw(seat=seat, cards=tuple(deck[position:position + 5]))
            position += 5
        else:
            rnd.dealer_redraw(cards=tuple(deck[position:position + 5]))
            position += 5
    return rnd
