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
- mulligan: player 0-4, dealer 5-9; a player's mulligan takes the next five (10-14), then a
  dealer's redraw takes the next five after that (10-14 if the player stood, else 15-19).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import lcm

import numpy as np
from numba import njit

from certify.errors import InputError
from certify.hands import CATEGORY_NAMES, eval5_nb
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


# ------------------------------------------------------------------------------ mulligan
def mulligan_kernel(spec) -> Kernel:
    ante_raise = 1 + _frac(spec.raise_.multiple_of_ante)
    odds = [_frac(o) for o in spec.pays.as_list()]
    events, nets = [], []
    for units, stake in (("1", Fraction(1)), ("2", ante_raise)):
        for c in range(N_CATEGORIES):
            events.append(f"win with {CATEGORY_NAMES[c]}, bet {units}")
            nets.append(stake * odds[c] if odds[c] is not None else -stake)
        events += [f"tie, bet {units}", f"lose, bet {units}"]
        nets += [Fraction(0), -stake]
    main = WagerEvents("main", events, nets, _scale(nets))
    bonus_odds = [_frac(o) for o in spec.bonus.pays.as_list()]
    bevents, bnets = [], []
    bonus_paid = np.zeros(N_CATEGORIES, dtype=np.int64)
    for c in reversed(range(N_CATEGORIES)):
        if bonus_odds[c] is not None:
            bonus_paid[c] = len(bevents) + 1
            bevents.append(CATEGORY_NAMES[c])
            bnets.append(bonus_odds[c])
    bevents.append("no win")
    bnets.append(Fraction(-1))
    bonus = WagerEvents("bonus", bevents, bnets, _scale(bnets))
    when = {"always": 0, "player_beats_dealer": 1, "player_beats_or_ties_dealer": 2}[spec.bonus.paid_when]
    params = {"stand": spec.strategy.stand_at_least.value(),
              "dealer_stands": spec.dealer.stands_on.value(),
              "bonus_paid": bonus_paid, "bonus_when": when,
              "bonus_lost_on_mulligan": bool(spec.bonus.lost_on_mulligan),
              # the spec pays the Bonus on the original hand; only a seeded fault turns this on
              "bonus_on_final_hand": False,
              "main_nets": main.scaled_nets, "bonus_nets": bonus.scaled_nets}
    return Kernel("mulligan", 20, 10, [main, bonus], "5", params)


@njit(cache=True)
def _mulligan_rounds(decks, stand, dealer_stands, bonus_paid, bonus_when, lost_on_mulligan, bonus_on_final,
                     ev, dealt):
    no_win = 0
    for c in range(N_CATEGORIES):
        no_win = max(no_win, bonus_paid[c])
    per_bet = N_CATEGORIES + 2
    for r in range(decks.shape[0]):
        d = decks[r]
        p0 = eval5_nb(d[0], d[1], d[2], d[3], d[4])
        dealt[r] = p0 >> 20
        nxt = 10
        p = p0
        mulligan = p0 < stand
        if mulligan:
            p = eval5_nb(d[10], d[11], d[12], d[13], d[14])
            nxt = 15
        q = eval5_nb(d[5], d[6], d[7], d[8], d[9])
        if q < dealer_stands:
            q = eval5_nb(d[nxt], d[nxt + 1], d[nxt + 2], d[nxt + 3], d[nxt + 4])
        base = per_bet if mulligan else 0
        if p > q:
            ev[r, 0] = base + (p >> 20)
        elif p == q:
            ev[r, 0] = base + N_CATEGORIES
        else:
            ev[r, 0] = base + N_CATEGORIES + 1
        e = bonus_paid[(p if bonus_on_final else p0) >> 20]
        alive = not (mulligan and lost_on_mulligan)
        if bonus_when == 1:
            alive = alive and p > q
        elif bonus_when == 2:
            alive = alive and p >= q
        ev[r, 1] = e - 1 if e > 0 and alive else no_win


def _rounds_mulligan(decks, p, ev, dealt):
    _mulligan_rounds(decks, p["stand"], p["dealer_stands"], p["bonus_paid"], p["bonus_when"],
                     p["bonus_lost_on_mulligan"], p["bonus_on_final_hand"], ev, dealt)


def _rounds_rules(decks, p, ev, dealt):
    from certify.rules.kernel import play_rounds

    play_rounds(decks, p, ev, dealt)


def _rules_kernel(spec) -> Kernel:
    from certify.rules.kernel import rules_kernel  # rules-model specs: one kernel reading the model

    return rules_kernel(spec)


_ROUNDS = {"mulligan": _rounds_mulligan, "rules": _rounds_rules}
_BUILDERS = {"mulligan": mulligan_kernel, "rules": _rules_kernel}


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
