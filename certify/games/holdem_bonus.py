"""Texas Hold'em Bonus: the hold'em bonus family engine.

Rules from a ``HoldemBonusSpec``, each read in one place:

* ``hole_class``: the Bonus side bet's class of two hole cards (``spec.HOLE_KEYS``).
* ``settle_values`` / ``settle``: Ante, Flop, Turn, River and Bonus of one seat (Flop/Turn/River
  pay ``win_pays`` on a win; the Ante pays ``ante.odds`` only with ``ante.pays_at_least`` or
  better, else pushes; every main bet pushes on a tie; the Bonus pays on the hole cards, also on a
  fold when ``paid_on_fold``). The simulation kernel is tested against ``settle``.
* ``HoldemRound``: wagers and limits, the deal (two hole cards each), fold/bet before the flop
  (bet = Flop bet of ``flop.multiple_of_ante`` x Ante), check/bet on the flop (Turn bet) and on
  the turn (River bet), each offered only when the balance covers it, board cards, settlement.
  A wrong number of cards anywhere voids the round (seed 001: a malfunction voids all bets).

Round flow: ``place_wager`` (ante, bonus) -> ``deal(hands=, dealer=)`` -> ``act`` (fold | bet)
-> ``deal_board(cards=3 cards)`` -> ``act`` (check | bet) -> ``deal_board(cards=1)`` -> ``act``
(check | bet) -> ``deal_board(cards=1)`` -> settled. ``next_step()`` names what it awaits.
"""

from __future__ import annotations

import itertools
from decimal import Decimal
from typing import Iterable, Sequence

from certify.hands import CATEGORY_NAMES, category_of, rank_hand
from certify.spec import HAND_KEYS
from certify.games.base import ZERO, IllegalAction, Round, money, replay

WAGERS = ("ante", "flop", "turn", "river", "bonus")
STREETS = ("preflop", "flop", "turn")              # decision points
STREET_WAGER = {"preflop": "flop", "flop": "turn", "turn": "river"}   # what "bet" places there
BOARD_SIZES = {"flop": 3, "turn": 1, "river": 1}
ACE, KING, QUEEN, JACK, TEN = 12, 11, 10, 9, 8


# ------------------------------------------------------------------ the rules, one place each

def street_bet(spec, wager: str, ante: Decimal) -> Decimal:
    """The Flop, Turn or River bet: that street's ``multiple_of_ante`` x Ante."""
    return ante * getattr(spec, wager).multiple_of_ante


def hole_class(hole: Sequence[int], dealer_hole: Sequence[int]) -> str:
    """The Bonus pay-table line of two hole cards (the dealer's matter only for aces vs aces)."""
    hi, lo = sorted((c >> 2 for c in hole), reverse=True)
    suited = (hole[0] & 3) == (hole[1] & 3)
    if hi == lo:
        if hi == ACE:
            dealer_aces = all(c >> 2 == ACE for c in dealer_hole)
            return "aces_vs_dealer_aces" if dealer_aces else "aces"
        return "jacks_to_kings" if hi >= JACK else "twos_to_tens"
    if hi == ACE and lo == KING:
        return "ak_suited" if suited else "ak_offsuit"
    if hi == ACE and lo in (QUEEN, JACK):
        return "aq_aj_suited" if suited else "aq_aj_offsuit"
    return "other"


def settle_values(spec, player_value: int, dealer_value: int, bonus_class: str, decisions: Sequence[str],
                  ante: Decimal = Decimal(1), bonus: Decimal = ZERO) -> dict[str, Decimal]:
    """Net result of each wager of one seat. ``decisions``: ("fold",) or ("bet", flop, turn)
    with flop/turn "check" or "bet"; the hand values matter only when the seat did not fold."""
    net: dict[str, Decimal] = {}
    if decisions[0] == "fold":
        net["ante"] = -ante
    else:
        stakes = {"flop": street_bet(spec, "flop", ante)}
        if decisions[1] == "bet":
            stakes["turn"] = street_bet(spec, "turn", ante)
        if decisions[2] == "bet":
            stakes["river"] = street_bet(spec, "river", ante)
        if player_value > dealer_value:
            ante_pays = category_of(player_value) >= HAND_KEYS.index(spec.ante.pays_at_least)
            net["ante"] = ante * spec.ante.odds if ante_pays else ZERO
            net.update({k: v * spec.win_pays for k, v in stakes.items()})
        elif player_value < dealer_value:
            net["ante"] = -ante
            net.update({k: -v for k, v in stakes.items()})
        else:
            net["ante"] = ZERO
            net.update({k: ZERO for k in stakes})
    if bonus:
        odds = spec.bonus.pays.odds(bonus_class)
        if decisions[0] == "fold" and not spec.bonus.paid_on_fold:
            odds = None
        net["bonus"] = -bonus if odds is None else bonus * odds
    return net


def settle(spec, hole: Sequence[int], dealer_hole: Sequence[int], board: Sequence[int], decisions: Sequence[str],
           ante: Decimal = Decimal(1), bonus: Decimal = ZERO) -> dict[str, Decimal]:
    """``settle_values`` on cards: best five of seven for each side."""
    if decisions[0] == "fold":
        player_value = dealer_value = 0
    else:
        player_value = rank_hand(list(hole) + list(board))
        dealer_value = rank_hand(list(dealer_hole) + list(board))
    return settle_values(spec, player_value, dealer_value, hole_class(hole, dealer_hole), decisions, ante, bonus)


# ------------------------------------------------------------------ strategies

def best_value(cards: Sequence[int]) -> int:
    """Best five-card value of 5 to 7 cards."""
    cards = list(cards)
    if len(cards) in (5, 7):
        return rank_hand(cards)
    return max(rank_hand(five) for five in itertools.combinations(cards, 5))


def starting_class(hole: Sequence[int]) -> str:
    """Starting-hand class as players write it: "AKs", "72o", "TT"."""
    ranks = "23456789TJQKA"
    hi, lo = sorted((c >> 2 for c in hole), reverse=True)
    if hi == lo:
        return ranks[hi] * 2
    return ranks[hi] + ranks[lo] + ("s" if (hole[0] & 3) == (hole[1] & 3) else "o")


class HoldemView:
    def __init__(self, seat: int, street: str, hole: tuple[int, ...], board: tuple[int, ...], ante: Decimal,
                 legal: tuple[str, ...]):
        self.seat, self.street, self.hole, self.board, self.ante, self.legal = seat, street, hole, board, ante, legal


class SimpleStrategy:
    """Fold the listed starting hands; bet Turn / River with the category or better when a hole
    card plays in it (a pocket pair, a hole rank paired on the board, or a straight or better)."""

    def __init__(self, preflop_fold: Iterable[str], turn_at_least: str, river_at_least: str):
        self.preflop_fold = set(preflop_fold)
        self.at_least = {"flop": HAND_KEYS.index(turn_at_least), "turn": HAND_KEYS.index(river_at_least)}

    def decide(self, view: HoldemView) -> str:
        if view.street == "preflop":
            return "fold" if starting_class(view.hole) in self.preflop_fold else "bet"
        category = category_of(best_value(view.hole + view.board))
        hole_ranks = {c >> 2 for c in view.hole}
        hole_plays = (len(hole_ranks) == 1 or hole_ranks & {c >> 2 for c in view.board}
                      or category >= HAND_KEYS.index("straight"))
        want = "bet" if category >= self.at_least[view.street] and hole_plays else "check"
        return want if want in view.legal else "check"


def strategy_from_spec(spec):
    st = spec.strategy
    return SimpleStrategy(st.preflop_fold, st.turn_bet_at_least, st.river_bet_at_least)


# ------------------------------------------------------------------ the round

class HoldemRound(Round):
    family = "holdem_bonus"
    input_kinds = ("place_wager", "deal", "act", "deal_board", "void_seat")

    def __init__(self, spec, balances=None, seats: int | None = None):
        if spec.family != "holdem_bonus":
            raise ValueError(f"{spec.name} is a {spec.family} game, not holdem_bonus")
        super().__init__(spec, balances, seats)
        self.dealer: tuple[int, ...] = ()
        self.board: tuple[int, ...] = ()
        self.street = ""          # the decision point while phase == "decisions"
        self.used: set[int] = set()

    @classmethod
    def from_open(cls, spec, event):
        return cls(spec, balances=list(event.get("balances")))

    # ---------------------------------------------------------- wagers
    def place_wager(self, seat: int, wager: str, amount) -> None:
        self._place_ante_or_bonus(seat, wager, amount, later='the Flop bet {}',
                                  later_bet=lambda ante: street_bet(self.spec, "flop", ante), later_note='Flop, Turn and River bets are actions')

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
        self.dealer = dealer
        wrong = []
        for s, cards in zip(self.seats, hands):
            s.cards = cards
            if s.status == "rejected":
                continue
            s.status = "live" if "ante" in s.wagers else "empty"
            if s.status == "live" and len(cards) != 2:
                wrong.append(f"{len(cards)} cards to seat {s.index}, expected 2")
        if len(dealer) != 2:
            wrong.append(f"{len(dealer)} cards to the dealer, expected 2")
        if wrong:
            self._void_round(f"wrong card count ({', '.join(wrong)}): the round is void")
            return
        self.phase, self.street = "decisions", "preflop"
        self._advance()

    def _void_round(self, reason: str) -> None:
        self._record("void_round", reason=reason)
        for s in self.seats:
            if s.status in ("live", "folded", "waiting"):
                s.status, s.error = "dead", reason
                s.net = {name: ZERO for name in s.wagers}
        self._finish("misdeal")

    def deal_board(self, cards: Sequence[int]) -> None:
        cards = tuple(int(c) for c in cards)
        args = dict(cards=cards)
        self._expect_phase(("flop", "turn", "river"), "deal_board", **args)
        if not self._fresh(cards):
            self._reject("deal_board", "board cards must come from the rest of the deck (not dealt yet)", **args)
        self._record("deal_board", **args)
        self.used.update(cards)
        self.board += cards
        street, expected = self.phase, BOARD_SIZES[self.phase]
        if len(cards) != expected:
            self._void_round(f"wrong card count ({len(cards)} cards for the {street}, expected {expected}): "
                             "the round is void")
            return
        if street == "river":
            self._settle()
        else:
            self.phase, self.street = "decisions", street
            self._advance()

    # ---------------------------------------------------------- decisions
    def legal_actions(self, seat: int) -> tuple[str, ...]:
        if self.phase != "decisions" or not 0 <= seat < len(self.seats):
            return ()
        s = self.seats[seat]
        if s.status != "live" or len(s.decisions) != STREETS.index(self.street):
            return ()
        wager = STREET_WAGER[self.street]
        stake = street_bet(self.spec, wager, s.wagers["ante"])
        passive = "fold" if self.street == "preflop" else "check"
        return (passive, "bet") if s.can_cover(stake) else (passive,)

    def view(self, seat: int) -> HoldemView:
        s = self.seats[seat]
        return HoldemView(seat, self.street, s.cards, self.board, s.wagers["ante"], self.legal_actions(seat))

    def act(self, seat: int, action: str) -> None:
        args = dict(seat=seat, action=action)
        s = self._seat("act", **args)
        legal = self.legal_actions(seat)
        if action not in legal:
            if not legal:
                reason = f"seat {seat} has no decision to make now (status {s.status}, phase {self.phase})"
            elif action == "bet":
                wager = STREET_WAGER[self.street]
                stake = street_bet(self.spec, wager, s.wagers["ante"])
                reason = (f"seat {seat} balance {s.balance} cannot cover the {wager.capitalize()} bet {stake} "
                          f"on top of {s.committed()}")
            else:
                reason = f"{action!r} is not an action on the {self.street} (expected {' or '.join(legal)})"
            self._reject("act", reason, **args)
        self._record("act", **args)
        s.decisions.append(action)
        if action == "bet":
            wager = STREET_WAGER[self.street]
            s.wagers[wager] = street_bet(self.spec, wager, s.wagers["ante"])
        elif action == "fold":
            s.status = "folded"
        self._advance()

    def next_step(self) -> tuple[str, int | None] | None:
        """What the round waits for: ("act", seat) or ("deal_board", None)."""
        if self.phase == "decisions":
            for s in self.seats:
                if self.legal_actions(s.index):
                    return ("act", s.index)
            return None
        if self.phase in ("flop", "turn", "river"):
            return ("deal_board", None)
        return None

    def _advance(self) -> None:
        if self.phase != "decisions" or self.next_step() is not None:
            return
        if not any(s.status == "live" for s in self.seats):
            self._settle()       # everyone folded: only Bonus bets remain
            return
        self.phase = {"preflop": "flop", "flop": "turn", "turn": "river"}[self.street]

    def _settle(self) -> None:
        showdown = len(self.board) == 5
        dealer_value = best_value(self.dealer + self.board) if showdown else 0
        if showdown:
            self._record("reveal", dealer=self.dealer)
        hands = {}
        for s in self.seats:
            if s.status not in ("live", "folded"):
                continue
            decisions = tuple(s.decisions) + ("check",) * (3 - len(s.decisions))
            value = best_value(s.cards + self.board) if s.status == "live" else 0
            s.net = settle_values(self.spec, value, dealer_value, hole_class(s.cards, self.dealer), decisions,
                                  s.wagers["ante"], s.wagers.get("bonus", ZERO))
            if s.status == "live":
                s.status = "played"
                hands[s.index] = CATEGORY_NAMES[category_of(value)]
            self._record("settle", seat=s.index, hand=hands.get(s.index, "folded"),
                         net=tuple((k, str(v)) for k, v in s.net.items()))
        self._finish("played", hands=hands)


def replay_holdem(spec, events: Iterable) -> HoldemRound:
    return replay(lambda open_event: HoldemRound.from_open(spec, open_event), events)


def play_round(spec, deck: Sequence[int], strategy, ante, bonus=None, balance=None) -> HoldemRound:
    """One seat from a shuffled deck: player 0-1, dealer 2-3, board 4-8."""
    rnd = HoldemRound(spec, balances=[balance])
    try:                                       # a refused wager voids the seat
        rnd.place_wager(seat=0, wager="ante", amount=money(ante))
        if bonus:
            rnd.place_wager(seat=0, wager="bonus", amount=money(bonus))
    except IllegalAction as exc:
        rnd.void_seat(seat=0, reason=exc.reason)
    rnd.deal(hands=[tuple(deck[0:2])], dealer=tuple(deck[2:4]))
    position = 4
    while (step := rnd.next_step()) is not None:
        kind, seat = step
        if kind == "act":
            rnd.act(seat=seat, action=strategy.decide(rnd.view(seat)))
        else:
            n = BOARD_SIZES[rnd.phase]
            rnd.deal_board(cards=tuple(deck[position:position + n]))
            position += n
    return rnd
