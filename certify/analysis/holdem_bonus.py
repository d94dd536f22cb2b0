"""Texas Hold'em Bonus: the exact PAR sheet, with the optimal strategy derived by the computation.

The main game is counted over every deal: player hole (unordered), dealer hole (unordered), flop
(unordered), turn, river (ordered): the cycle is C(52,2) * C(50,2) * C(48,3) * 45 * 44 =
55,627,620,048,000 deals, each counted once.

How (see ``holdem_kernel`` for the loops):

* Suit isomorphism on the player's hole: the 1,326 holes fall into 169 classes (6 pairs, 4 suited,
  12 offsuit holes each) whose members have identical distributions, because a suit permutation
  maps every (board, dealer hole) to another one bijectively. One representative per class is
  counted over *all* boards and dealer holes, then weighted by the class size.
* Per 5-card board, all 1,081 holes of the 47 other cards are evaluated once; the dealer holes
  beating / tying each player hole are counted by inclusion-exclusion over the player's two cards.
* Decisions, all exact and optimal. There is no fold after the Flop bet, so the Turn and River bets
  are independent: each adds its own amount won or lost on the same showdown. River bet iff
  ``win_pays * wins > losses`` over the river card and dealer hole, given the hole and the four
  board cards; Turn bet iff the same holds over turn, river and dealer hole given the flop. Preflop,
  make the Flop bet iff the hole's expected result with those decisions beats losing the Ante.
  A bet worth exactly zero is not made (``bet_when_indifferent`` makes it: same edge, more variance;
  that convention, with the fold row left out of the second moment, reproduces the standard
  deviation Wizard of Odds prints).
* The same counts under the spec's own strategy (its preflop fold list, Turn/River bet with a
  category or better when a hole card plays) give the wager ``main game (spec strategy)``: the table
  a simulation of the engine is tallied against.

Everything depends on the spec only through: the Flop/Turn/River multiples, ``win_pays``, the Ante's
minimum category and odds (the rules), the spec strategy, and the Bonus pay table. The showdown
counts (the heavy part) depend only on the Ante's category and ``win_pays``, so the 1x and 2x specs
share them within a process.

The Bonus side bet is counted over player hole x dealer hole: C(52,2) * C(50,2) = 1,624,350.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import combinations
from math import comb
from typing import Any

import numpy as np

from certify.analysis.par import ParError, ParSheet, WagerSheet
from certify.cards import RANKS

FULL_DECK: tuple[int, ...] = tuple(range(52))

BET_PATTERNS = ("flop", "flop+river", "flop+turn", "flop+turn+river")  # index 2*turn + river


# ---- starting-hand classes ----------------------------------------------------------------------
@dataclass(frozen=True)
class HoleClass:
    """A starting-hand class: ``name`` like "AKs", "AKo", "QQ"; ``cards`` one representative hole."""

    name: str
    cards: tuple[int, int]
    weight: int  # holes in the class: 6 pairs, 4 suited, 12 offsuit


def hole_classes() -> tuple[HoleClass, ...]:
    """The 169 classes, best-first in grid order (pairs, suited and offsuit by high then low rank)."""
    out = []
    for high in range(12, -1, -1):
        for low in range(high, -1, -1):
            if high == low:
                out.append(HoleClass(RANKS[high] * 2, (4 * high, 4 * high + 1), 6))
            else:
                out.append(HoleClass(RANKS[high] + RANKS[low] + "s", (4 * high, 4 * low), 4))
                out.append(HoleClass(RANKS[high] + RANKS[low] + "o", (4 * high, 4 * low + 1), 12))
    return tuple(out)


def class_of_hole(c1: int, c2: int) -> str:
    """The class name of a concrete hole."""
    r1, r2 = c1 >> 2, c2 >> 2
    if r1 == r2:
        return RANKS[r1] * 2
    high, low = max(r1, r2), min(r1, r2)
    return RANKS[high] + RANKS[low] + ("s" if (c1 & 3) == (c2 & 3) else "o")


# ---- the rules, as exact numbers ----------------------------------------------------------------
@dataclass(frozen=True)
class HoldemRules:
    """The main-game rules the math depends on, in Ante units."""

    flop_multiple: Fraction
    turn_multiple: Fraction
    river_multiple: Fraction
    win_pays: Fraction  # odds paid on winning Flop / Turn / River bets
    ante_category: int  # the Ante pays only when the player's winning hand reaches it ...
    ante_odds: Fraction  # ... at these odds; otherwise it pushes

    @classmethod
    def from_spec(cls, spec: Any) -> "HoldemRules":
        from certify.spec import key_category

        return cls(flop_multiple=Fraction(spec.flop.multiple_of_ante),
                   turn_multiple=Fraction(spec.turn.multiple_of_ante),
                   river_multiple=Fraction(spec.river.multiple_of_ante),
                   win_pays=Fraction(spec.win_pays),
                   ante_category=int(key_category(spec.ante.pays_at_least)),
                   ante_odds=Fraction(spec.ante.odds))

    def pays(self, pattern: int, result: int) -> tuple[Fraction, Fraction]:
        """(net result, total wagered) of a played hand with bet ``pattern`` and showdown ``result``."""
        from certify.analysis.holdem_kernel import LOSE, TIE, WIN_STRONG

        raises = self.flop_multiple + (self.turn_multiple if pattern & 2 else 0) \
            + (self.river_multiple if pattern & 1 else 0)
        wagered = 1 + raises
        if result == LOSE:
            return -wagered, wagered
        if result == TIE:
            return Fraction(0), wagered
        ante = self.ante_odds if result == WIN_STRONG else Fraction(0)
        return ante + self.win_pays * raises, wagered


# ---- the heavy part: showdown counts under the Turn / River decisions ---------------------------
@dataclass(frozen=True)
class SpecStreetRule:
    """The spec strategy's Turn / River rule: bet with this category or better when a hole card plays."""

    turn_category: int
    river_category: int
    straight_category: int = 4  # a straight or better always counts as "a hole card plays"

    @classmethod
    def from_spec(cls, spec: Any) -> "SpecStreetRule":
        from certify.hands import Category
        from certify.spec import key_category

        return cls(int(key_category(spec.strategy.turn_bet_at_least)),
                   int(key_category(spec.strategy.river_bet_at_least)), int(Category.STRAIGHT))


@dataclass(frozen=True)
class DecisionCounts:
    """Per representative hole, the deals in each (bet pattern, showdown result) cell.

    ``counts[h, 2 * turn_bet + river_bet, result]`` with result WIN_STRONG / WIN_WEAK / TIE / LOSE
    (``holdem_kernel``) under the optimal Turn / River decisions; ``rule_counts`` the same under the
    spec strategy's rule (when one was given); ``deals_per_hole`` = flops x turns x rivers x dealer
    holes for one player hole.
    """

    deck: tuple[int, ...]
    holes: tuple[tuple[int, int], ...]
    weights: tuple[int, ...]
    names: tuple[str, ...]
    counts: np.ndarray
    deals_per_hole: int
    seconds: float
    rule_counts: np.ndarray | None = None
    profile: np.ndarray | None = None  # [hole, street (Turn, River), category so far, (seen, bets)]


def deals_per_hole(deck_size: int) -> int:
    m = deck_size - 2
    return comb(m, 3) * (m - 3) * (m - 4) * comb(m - 5, 2)


def compute_decision_counts(deck: tuple[int, ...], holes: list[tuple[int, int]], weights: list[int],
                            names: list[str], ante_category: int, win_pays: Fraction,
                            rule: SpecStreetRule | None = None,
                            bet_when_indifferent: bool = False) -> DecisionCounts:
    """Run the kernel passes over ``deck`` (card codes) for the given player holes (card codes):
    the showdown counts once, then the optimal decisions and, if given, the spec rule's.

    A Turn or River bet whose expected value is exactly zero changes nothing but the variance and
    the average wager: by default it is not made; ``bet_when_indifferent`` makes it."""
    from certify.analysis import holdem_kernel as kernel

    if len(deck) < 9:
        raise ValueError(f"a Hold'em deal needs 9 cards, the deck has {len(deck)}")
    position = {card: i for i, card in enumerate(deck)}
    reps = np.array([[position[a], position[b]] for a, b in holes], dtype=np.int64)
    deck_array = np.array(deck, dtype=np.int64)
    win_pays = Fraction(win_pays)
    start = time.perf_counter()
    boards = kernel.all_boards(len(deck))
    chunks = max(1, min(256, len(boards) // 64))
    symmetry = kernel.suit_permutations(deck)
    if symmetry is None:
        codes = kernel.showdown_codes(deck_array, reps, boards, int(ante_category), chunks)
    else:  # one board per suit class evaluated
        codes = kernel.showdown_codes_by_suit_class(deck_array, reps, boards, int(ante_category),
                                                    *symmetry, chunks)
    del boards
    rule_args = np.zeros(0, np.int64) if rule is None else np.array(
        [rule.turn_category, rule.river_category, rule.straight_category], np.int64)
    counts, profile, rule_counts = kernel.decision_counts(codes, reps, deck_array, win_pays.numerator,
                                                          win_pays.denominator, 0 if bet_when_indifferent else 1,
                                                          rule_args)
    if rule is None:
        rule_counts = None
    del codes
    return DecisionCounts(deck=tuple(deck), holes=tuple(holes), weights=tuple(weights),
                          names=tuple(names), counts=counts, deals_per_hole=deals_per_hole(len(deck)),
                          seconds=time.perf_counter() - start, rule_counts=rule_counts, profile=profile)


@lru_cache(maxsize=4)
def full_deck_counts(ante_category: int, win_pays: Fraction, rule: SpecStreetRule | None = None,
                     bet_when_indifferent: bool = False) -> DecisionCounts:
    """The 169 classes over the full deck (minutes of work; cached for the process)."""
    classes = hole_classes()
    return compute_decision_counts(FULL_DECK, [c.cards for c in classes], [c.weight for c in classes],
                                   [c.name for c in classes], ante_category, win_pays, rule,
                                   bet_when_indifferent)


# ---- the main-game return table -----------------------------------------------------------------
@dataclass(frozen=True)
class HoleDecision:
    name: str
    weight: int
    ev_play: Fraction  # expected result of making the Flop bet, per Ante
    play: bool
    turn_bet_rate: Fraction  # share of flops on which the Turn bet is made (when played)
    river_bet_rate: Fraction  # share of turns on which the River bet is made (when played)


def result_names(rules: HoldemRules) -> tuple[str, str, str, str]:
    from certify.hands import CATEGORY_NAMES

    strong = CATEGORY_NAMES[rules.ante_category]
    return (f"win with {strong} or better", f"win below {strong}", "tie", "lose")


def event_names(rules: HoldemRules) -> list[str]:
    """The main game's outcome events, in return-table order: the simulation's chi-square cells."""
    labels = result_names(rules)
    return ["fold"] + [f"{BET_PATTERNS[p]}: {labels[r]}" for p in range(4) for r in range(4)]


def hole_decisions(rules: HoldemRules, dc: DecisionCounts, counts: np.ndarray | None = None,
                   preflop_fold: frozenset[str] | None = None) -> list[HoleDecision]:
    """The preflop decision of every hole class: the optimal one (play iff EV(play) > -1 Ante)
    unless a ``preflop_fold`` list is given. ``counts`` defaults to the optimal Turn/River counts."""
    counts = dc.counts if counts is None else counts
    cells = [[rules.pays(p, r)[0] for r in range(4)] for p in range(4)]
    out = []
    for h, name in enumerate(dc.names):
        c = counts[h]
        total = sum(int(c[p, r]) * cells[p][r] for p in range(4) for r in range(4))
        ev = Fraction(total) / dc.deals_per_hole
        play = ev > -1 if preflop_fold is None else name not in preflop_fold
        turn = int(c[2:].sum())
        river = int(c[1].sum() + c[3].sum())
        out.append(HoleDecision(name, dc.weights[h], ev, play, Fraction(turn, dc.deals_per_hole),
                                Fraction(river, dc.deals_per_hole)))
    return out


def main_game_sheet(rules: HoldemRules, dc: DecisionCounts, name: str = "main game",
                    spec_strategy: Any = None) -> WagerSheet:
    """The main game's exact return table: optimal play, or the spec's ``strategy`` when given
    (its preflop fold list and ``dc.rule_counts``)."""
    if spec_strategy is None:
        decisions = hole_decisions(rules, dc)
        counts = dc.counts
    else:
        if dc.rule_counts is None:
            raise ValueError("the spec strategy's counts were not computed (pass rule= to the counts)")
        counts = dc.rule_counts
        unknown = sorted(set(spec_strategy.preflop_fold) - set(dc.names))
        if unknown and len(dc.names) == 169:
            raise ParError(f"strategy.preflop_fold: {', '.join(unknown)} is not a starting-hand class as "
                           "the engine names them (high rank first, e.g. '72o', 'K2s')")
        decisions = hole_decisions(rules, dc, counts, frozenset(spec_strategy.preflop_fold))
    folded = sum(d.weight for d in decisions if not d.play) * dc.deals_per_hole
    cells = np.zeros((4, 4), dtype=object)
    for h, d in enumerate(decisions):
        if d.play:
            cells += counts[h].astype(object) * d.weight
    names = event_names(rules)
    events = [(names[0], Fraction(-1), folded, Fraction(1))]
    for pattern in range(4):
        for result in range(4):
            pays, wagered = rules.pays(pattern, result)
            events.append((names[1 + 4 * pattern + result], pays, int(cells[pattern, result]), wagered))
    played = [d for d in decisions if d.play]
    total_weight = sum(d.weight for d in decisions)
    play_rate = Fraction(sum(d.weight for d in played), total_weight)
    turn_rate = sum(d.turn_bet_rate * d.weight for d in played) / total_weight
    river_rate = sum(d.river_bet_rate * d.weight for d in played) / total_weight
    folds = ", ".join(d.name for d in decisions if not d.play) or "none"
    if spec_strategy is None:
        strategy = (f"optimal (derived): make the Flop bet with {len(played)} of {len(decisions)} "
                    f"starting hands (fold {folds}); Turn bet iff {rules.win_pays} x wins > losses over "
                    "turn, river and dealer hole; River bet iff the same over river and dealer hole")
    else:
        strategy = (f"the spec's {spec_strategy.name} strategy: fold {folds}; Turn bet with "
                    f"{spec_strategy.turn_bet_at_least} or better, River bet with "
                    f"{spec_strategy.river_bet_at_least} or better, when a hole card plays")
    chart = [f"Flop bet made on {float(play_rate):.6f} of deals; Turn bet on {float(turn_rate):.6f}, "
             f"River bet on {float(river_rate):.6f} of all deals"]
    if spec_strategy is None and dc.profile is not None:
        chart += [f"{row['street']} bet with {row['hand']} so far: {row['share_of_boards']:.4f} of "
                  f"boards, bet on {row['bet_rate']:.4f}" for row in street_profile(dc, decisions)]
    chart += preflop_grid(decisions)
    table = [{"hand": d.name, "combinations": d.weight, "ev_play": float(d.ev_play),
              "ev_play_exact": str(d.ev_play), "decision": "play" if d.play else "fold",
              "turn_bet_rate": float(d.turn_bet_rate), "river_bet_rate": float(d.river_bet_rate)}
             for d in decisions]
    cycle_note = (f"cycle: player hole x dealer hole x flop (unordered) x turn x river (ordered) = "
                  f"{total_weight:,} holes x {dc.deals_per_hole:,} deals each")  # no timing: a sheet is the
    # same bytes whenever it is computed (the PAR-sheet cache and the golden sheets rely on it)
    return WagerSheet.from_combinations(name, events, strategy=strategy, strategy_table=table,
                                        strategy_chart=chart, notes=(cycle_note,))


def street_profile(dc: DecisionCounts, decisions: list[HoleDecision]) -> list[dict[str, Any]]:
    """How often the optimal Turn / River bet is made, by the player's hand category so far,
    over the hands that make the Flop bet (every flop / 4-card board equally likely)."""
    from certify.hands import CATEGORY_NAMES

    rows = []
    for street, label in ((0, "Turn"), (1, "River")):
        seen = [0] * len(CATEGORY_NAMES)
        bets = [0] * len(CATEGORY_NAMES)
        for h, d in enumerate(decisions):
            if d.play:
                for c in range(len(CATEGORY_NAMES)):
                    seen[c] += int(dc.profile[h, street, c, 0]) * d.weight
                    bets[c] += int(dc.profile[h, street, c, 1]) * d.weight
        total = sum(seen)
        for c, name in enumerate(CATEGORY_NAMES):
            if seen[c]:
                rows.append({"street": label, "hand": name, "share_of_boards": seen[c] / total,
                             "bet_rate": bets[c] / seen[c], "boards": seen[c], "bets": bets[c]})
    return rows


def preflop_grid(decisions: list[HoleDecision]) -> list[str]:
    """13x13 chart: suited above the diagonal, offsuit below; P = make the Flop bet, f = fold."""
    by_name = {d.name: d for d in decisions}
    if len(by_name) != 169:
        return []
    lines = ["preflop (row = first rank, suited above the diagonal, offsuit below; P play, f fold):",
             "    " + " ".join(RANKS[::-1])]
    for i in range(12, -1, -1):
        marks = []
        for j in range(12, -1, -1):
            if i == j:
                key = RANKS[i] * 2
            elif j < i:
                key = RANKS[i] + RANKS[j] + "s"
            else:
                key = RANKS[j] + RANKS[i] + "o"
            marks.append("P" if by_name[key].play else "f")
        lines.append(f"  {RANKS[i]} " + " ".join(marks))
    return lines


# ---- the Bonus side bet -------------------------------------------------------------------------
def bonus_key(player: tuple[int, int], dealer: tuple[int, int]) -> str:
    """The Bonus pay-table entry (``certify.spec.HOLE_KEYS``) of a player hole against a dealer hole."""
    ranks = sorted((player[0] >> 2, player[1] >> 2), reverse=True)
    suited = (player[0] & 3) == (player[1] & 3)
    ace, king, queen, jack, ten = 12, 11, 10, 9, 8
    if ranks == [ace, ace]:
        return "aces_vs_dealer_aces" if (dealer[0] >> 2) == ace and (dealer[1] >> 2) == ace else "aces"
    if ranks[0] == ranks[1]:
        return "jacks_to_kings" if ranks[0] >= jack else ("twos_to_tens" if ranks[0] <= ten else "other")
    if ranks == [ace, king]:
        return "ak_suited" if suited else "ak_offsuit"
    if ranks[0] == ace and ranks[1] in (queen, jack):
        return "aq_aj_suited" if suited else "aq_aj_offsuit"
    return "other"


def bonus_counts(deck: tuple[int, ...] = FULL_DECK) -> dict[str, int]:
    """Player hole x dealer hole combinations of each pay-table entry, enumerated."""
    from certify.spec import HOLE_KEYS

    counts = dict.fromkeys(HOLE_KEYS, 0)
    for player in combinations(deck, 2):
        rest = [c for c in deck if c not in player]
        key = bonus_key(player, (0, 0))  # the dealer matters only to a pair of aces
        if key in ("aces", "aces_vs_dealer_aces"):
            for dealer in combinations(rest, 2):
                counts[bonus_key(player, dealer)] += 1
        else:
            counts[key] += comb(len(rest), 2)
    return counts


BONUS_EVENTS = {
    "aces_vs_dealer_aces": "A-A with dealer A-A", "aces": "A-A", "ak_suited": "A-K suited",
    "aq_aj_suited": "A-Q or A-J suited", "ak_offsuit": "A-K offsuit", "jacks_to_kings": "J-J, Q-Q or K-K",
    "aq_aj_offsuit": "A-Q or A-J offsuit", "twos_to_tens": "2-2 to 10-10", "other": "other",
}


def bonus_sheet(spec: Any, folded_classes: frozenset[str] = frozenset()) -> WagerSheet:
    """The Bonus bet, per unit bet. When the spec forfeits it on a fold (``paid_on_fold: false``),
    the main game's folded starting hands lose it whatever they hold."""
    from certify.spec import HOLE_KEYS

    table = spec.bonus.pays
    counts = bonus_counts()
    forfeited = 0
    if not spec.bonus.paid_on_fold and folded_classes:
        for player in combinations(FULL_DECK, 2):
            if class_of_hole(*player) in folded_classes:
                key = bonus_key(player, (0, 0))
                if key in ("aces", "aces_vs_dealer_aces"):
                    raise ValueError("a pair of aces cannot be a folded starting hand")
                counts[key] -= comb(50, 2)
                forfeited += comb(50, 2)
    events = []
    for key in HOLE_KEYS:
        odds = table.odds(key)
        pays = Fraction(-1) if odds is None else Fraction(odds)
        events.append((BONUS_EVENTS[key], pays, counts[key], Fraction(1)))
    if forfeited:
        events.append(("folded (Bonus forfeited)", Fraction(-1), forfeited, Fraction(1)))
    return WagerSheet.from_combinations(
        "Bonus", events, strategy="none (paid on the hole cards)",
        notes=(f"cycle: player hole x dealer hole = C(52,2) x C(50,2) = {comb(52, 2) * comb(50, 2):,}",))


# ---- the PAR sheet ------------------------------------------------------------------------------
SPEC_STRATEGY_WAGER = "main game (spec strategy)"


def par_sheet(spec: Any) -> ParSheet:
    """Main game with optimal play (first), main game as the spec's strategy plays it (what the
    simulation is tallied against), and the Bonus side bet."""
    rules = HoldemRules.from_spec(spec)
    dc = full_deck_counts(rules.ante_category, rules.win_pays, SpecStreetRule.from_spec(spec))
    main = main_game_sheet(rules, dc)
    as_spec = main_game_sheet(rules, dc, SPEC_STRATEGY_WAGER, spec_strategy=spec.strategy)
    folded = frozenset(spec.strategy.preflop_fold)  # the Bonus is forfeited as the spec strategy folds
    bonus = bonus_sheet(spec, folded)
    optimal_folds = sorted(d.name for d in hole_decisions(rules, dc) if not d.play)
    frequencies = {
        "optimal_preflop_folds": optimal_folds,
        "optimal_street_bets": street_profile(dc, hole_decisions(rules, dc)),
        "optimal_play_rate": float(1 - main.rows[0].probability),
        "spec_strategy_play_rate": float(1 - as_spec.rows[0].probability),
    }
    return ParSheet(game=spec.title, spec=spec.name, family="holdem_bonus", wagers=(main, as_spec, bonus),
                    frequencies=frequencies)
