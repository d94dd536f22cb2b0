"""The compiled bulk engines: one numba kernel per game family, for millions of rounds (a rules-model
spec, ``family`` "rules", is played by the one kernel of ``certify.rules.kernel``).

A kernel plays one seat per deck with the spec's strategy and tallies, per wager, how many rounds
ended in each outcome event and the net money of those rounds. The per-round engines in this
package are the readable reference; the differential tests play the same decks through both.

Every rule a kernel applies comes from the spec, converted here into small integer arrays
(``*_params``): pays are scaled to integers by the least common denominator of the wager's
odds, so money is exact. Events are named as the PAR sheet's return table names them
(``certify.analysis``), which is how the simulation's tallies meet the exact probabilities.

How a shuffled deck is dealt (positions in the deck row):
- hold'em bonus: player hole 0-1, dealer hole 2-3, board 4-8 (flop 4-6, turn 7, river 8).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import lcm

import numpy as np
from numba import njit

from certify.errors import InputError
from certify.hands import CATEGORY_NAMES, best6_nb, eval5_nb, eval7_nb
from certify.validate import MAX_NET_UNITS, MAX_ROUNDS

N_CATEGORIES = len(CATEGORY_NAMES)


class KernelError(InputError):
    """The spec asks for something the bulk kernel does not play."""


def _frac(x) -> Fraction:
    return Fraction(str(x)) if x is not None else None


def _scale(amounts) -> int:
    """The least common denominator of the amounts: the money unit the kernel counts in."""
    s = 1
    for a in amounts:
        if a is not None:
            s = lcm(s, Fraction(a).denominator)
    return s


@dataclass
class WagerEvents:
    """One wager's outcome events, the net of each (in units of the wager), and the money scale."""

    name: str
    events: list[str]
    nets: list[Fraction]
    scale: int = 1

    def __post_init__(self) -> None:
        # money is tallied as count x scaled net in int64, summed over up to MAX_ROUNDS rounds
        for event, net in zip(self.events, self.nets):
            units = abs(net * self.scale)
            if units > MAX_NET_UNITS:
                raise KernelError(
                    f"wager {self.name!r}, event {event!r}: a net result of {net} wagers is {units} money units "
                    f"(1/{self.scale} of a wager); the kernels tally money in 64-bit integers over up to "
                    f"{MAX_ROUNDS:,} rounds, so a round may net at most {MAX_NET_UNITS:,} units "
                    f"((2^63 - 1) // {MAX_ROUNDS:,}): lower the pay or use fewer decimals")

    @property
    def scaled_nets(self) -> np.ndarray:
        return np.array([int(n * self.scale) for n in self.nets], dtype=np.int64)

    def index(self, event: str) -> int:
        return self.events.index(event)


@dataclass
class Kernel:
    """A family's bulk kernel, bound to one spec's rules."""

    family: str
    cards_per_round: int  # deck positions a round may use
    dealt_positions: int  # positions always dealt (the card x position check looks at these)
    wagers: list[WagerEvents]
    dealt_kind: str  # "5" (player's first five) or "7" (player's best of seven); "3": three-card
    params: dict = field(default_factory=dict)
    # the exact counts of the dealt categories and their labels, when not the five- or seven-card
    # categories (a rules-model kernel's own ranking: certify.rules.kernel)
    dealt_exact: tuple[int, ...] = ()
    dealt_labels: tuple[str, ...] = ()

    def events(self, decks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Play each deck: the event index of every round in every wager, shape (N, wagers),
        and the category of the player's dealt hand, shape (N,)."""
        decks = np.ascontiguousarray(decks, dtype=np.uint8)
        if decks.ndim != 2 or decks.shape[1] < self.cards_per_round:
            raise KernelError(f"{self.family} kernel needs decks of at least {self.cards_per_round} cards, "
                              f"got shape {decks.shape}")
        ev = np.zeros((decks.shape[0], len(self.wagers)), dtype=np.int8)
        dealt = np.zeros(decks.shape[0], dtype=np.int8)
        _ROUNDS[self.family](decks, self.params, ev, dealt)
        return ev, dealt

    def play(self, decks: np.ndarray) -> dict[str, np.ndarray]:
        """Tally a block of decks: per wager, counts and net money (scaled) per event, and the
        player's dealt-hand categories."""
        ev, dealt = self.events(decks)
        out = {"dealt": np.bincount(dealt, minlength=N_CATEGORIES).astype(np.int64)}
        for j, w in enumerate(self.wagers):
            counts = np.bincount(ev[:, j], minlength=len(w.events)).astype(np.int64)
            out[f"{w.name}.counts"] = counts
            out[f"{w.name}.money"] = counts * w.scaled_nets
        return out


# ------------------------------------------------------------------------- hold'em bonus
def holdem_kernel(spec) -> Kernel:
    from certify.analysis.holdem_bonus import BET_PATTERNS, BONUS_EVENTS
    from certify.spec import HOLE_KEYS, key_category

    if spec.strategy.name != "simple":
        raise KernelError(f"{spec.name}: the bulk kernel plays the 'simple' hold'em strategy, "
                          f"not {spec.strategy.name!r}")
    if not (spec.turn.optional and spec.river.optional):
        raise KernelError(f"{spec.name}: the bulk kernel plays optional Turn and River bets only")
    flop, turn, river = (_frac(b.multiple_of_ante) for b in (spec.flop, spec.turn, spec.river))
    win, ante_odds = _frac(spec.win_pays), _frac(spec.ante.odds)
    strong = int(key_category(spec.ante.pays_at_least))
    labels = (f"win with {CATEGORY_NAMES[strong]} or better", f"win below {CATEGORY_NAMES[strong]}", "tie", "lose")
    events, nets = ["fold"], [Fraction(-1)]
    for pattern in range(4):  # 2 * turn bet + river bet
        raises = flop + (turn if pattern & 2 else 0) + (river if pattern & 1 else 0)
        for r, label in enumerate(labels):
            events.append(f"{BET_PATTERNS[pattern]}: {label}")
            nets.append([ante_odds + win * raises, win * raises, Fraction(0), -(1 + raises)][r])
    main = WagerEvents("main", events, nets, _scale(nets))
    bevents = [BONUS_EVENTS[k] for k in HOLE_KEYS]
    bnets = [_frac(spec.bonus.pays.odds(k)) if spec.bonus.pays.odds(k) is not None else Fraction(-1)
             for k in HOLE_KEYS]
    if not spec.bonus.paid_on_fold:
        bevents.append("folded (Bonus forfeited)")
        bnets.append(Fraction(-1))
    bonus = WagerEvents("bonus", bevents, bnets, _scale(bnets))
    fold = np.zeros((13, 13, 2), dtype=np.bool_)  # [high rank, low rank, suited]
    for cls in spec.strategy.preflop_fold:
        hi, lo = "23456789TJQKA".index(cls[0]), "23456789TJQKA".index(cls[1])
        fold[max(hi, lo), min(hi, lo), 1 if cls[2] == "s" else 0] = True
    params = {"fold": fold, "turn_at_least": int(key_category(spec.strategy.turn_bet_at_least)),
              "river_at_least": int(key_category(spec.strategy.river_bet_at_least)),
              "strong": strong, "bonus_paid_on_fold": bool(spec.bonus.paid_on_fold)}
    return Kernel("holdem_bonus", 9, 9, [main, bonus], "7", params)


@njit(cache=True)
def _hole_plays(h0, h1, board, n_board, category):
    """A hole card plays: a pocket pair, a hole rank paired on the board, or a straight or better."""
    if category >= 4 or (h0 >> 2) == (h1 >> 2):
        return True
    for i in range(n_board):
        r = board[i] >> 2
        if r == (h0 >> 2) or r == (h1 >> 2):
            return True
    return False


@njit(cache=True)
def _hole_key(h0, h1, d0, d1):
    """The index in ``certify.spec.HOLE_KEYS`` of the Bonus line of these hole cards."""
    hi, lo = max(h0 >> 2, h1 >> 2), min(h0 >> 2, h1 >> 2)
    suited = (h0 & 3) == (h1 & 3)
    if hi == lo:
        if hi == 12:
            return 0 if (d0 >> 2) == 12 and (d1 >> 2) == 12 else 1
        return 5 if hi >= 9 else 7
    if hi == 12 and lo == 11:
        return 2 if suited else 4
    if hi == 12 and (lo == 10 or lo == 9):
        return 3 if suited else 6
    return 8


@njit(cache=True)
def _holdem_rounds(decks, fold, turn_at_least, river_at_least, strong, bonus_paid_on_fold, ev, dealt):
    for r in range(decks.shape[0]):
        d = decks[r]
        h0, h1, d0, d1 = d[0], d[1], d[2], d[3]
        b = d[4:9]
        pv = eval7_nb(h0, h1, b[0], b[1], b[2], b[3], b[4])
        dealt[r] = pv >> 20
        folds = fold[max(h0 >> 2, h1 >> 2), min(h0 >> 2, h1 >> 2), 1 if (h0 & 3) == (h1 & 3) else 0]
        key = _hole_key(h0, h1, d0, d1)
        ev[r, 1] = 9 if folds and not bonus_paid_on_fold else key
        if folds:
            ev[r, 0] = 0
            continue
        c_flop = eval5_nb(h0, h1, b[0], b[1], b[2]) >> 20
        turn_bet = c_flop >= turn_at_least and _hole_plays(h0, h1, b, 3, c_flop)
        c_turn = best6_nb(h0, h1, b[0], b[1], b[2], b[3]) >> 20
        river_bet = c_turn >= river_at_least and _hole_plays(h0, h1, b, 4, c_turn)
        pattern = 2 * int(turn_bet) + int(river_bet)
        dv = eval7_nb(d0, d1, b[0], b[1], b[2], b[3], b[4])
        if pv > dv:
            result = 0 if (pv >> 20) >= strong else 1
        elif pv == dv:
            result = 2
        else:
            result = 3
        ev[r, 0] = 1 + 4 * pattern + result


def _rounds_holdem(decks, p, ev, dealt):
    _holdem_rounds(decks, p["fold"], p["turn_at_least"], p["river_at_least"], p["strong"],
                   p["bonus_paid_on_fold"], ev, dealt)


def _rounds_rules(decks, p, ev, dealt):
    from certify.rules.kernel import play_rounds

    play_rounds(decks, p, ev, dealt)


def _rules_kernel(spec) -> Kernel:
    from certify.rules.kernel import rules_kernel  # rules-model specs: one kernel reading the model

    return rules_kernel(spec)


_ROUNDS = {"holdem_bonus": _rounds_holdem,
           "rules": _rounds_rules}
_BUILDERS = {"holdem_bonus": holdem_kernel,
             "rules": _rules_kernel}


def kernel_for(spec) -> Kernel:
    """The bulk kernel for a spec, with every rule read from it."""
    try:
        build = _BUILDERS[spec.family]
    except KeyError:
        raise KernelError(f"{spec.name}: no bulk kernel for family {spec.family!r}") from None
    try:
        return build(spec)
    except KernelError as exc:
        raise KernelError(f"{spec.name}: {exc}") from None
