"""The compiled bulk engine's interface: every spec is played by the one kernel of the rules model
(``certify.rules.kernel``, with ``board`` / ``board_streets`` for board games), for millions of rounds.

A kernel plays one seat per deck with the spec's strategy and tallies, per wager, how many rounds
ended in each outcome event and the net money of those rounds. The round engine
(``certify.rules.engine``) is the readable reference; the differential tests play the same decks
through both.

Every rule a kernel applies comes from the spec, converted here into small integer arrays
(``*_params``): pays are scaled to integers by the least common denominator of the wager's
odds, so money is exact. Events are named as the PAR sheet's return table names them
(``certify.analysis``), which is how the simulation's tallies meet the exact probabilities.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import lcm

import numpy as np

from certify.errors import InputError
from certify.hands import CATEGORY_NAMES
from certify.validate import MAX_NET_UNITS, MAX_ROUNDS

N_CATEGORIES = len(CATEGORY_NAMES)


class KernelError(InputError):
    """The spec asks for something the bulk kernel does not play."""


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
    """The bulk kernel, bound to one spec's rules."""

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
            raise KernelError(f"the kernel needs decks of at least {self.cards_per_round} cards, "
                              f"got shape {decks.shape}")
        ev = np.zeros((decks.shape[0], len(self.wagers)), dtype=np.int8)
        dealt = np.zeros(decks.shape[0], dtype=np.int8)
        from certify.rules.kernel import play_rounds

        play_rounds(decks, self.params, ev, dealt)
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


def kernel_for(spec) -> Kernel:
    """The bulk kernel for a spec, with every rule read from it."""
    from certify.rules.kernel import rules_kernel  # imported here: it builds on this module's types

    try:
        return rules_kernel(spec)
    except KernelError as exc:
        raise KernelError(f"{spec.name}: {exc}") from None
