"""Exact PAR sheets of the board shape with a bet on each street (Texas Hold'em Bonus).

The shape (``street_rules`` checks it and names what differs): two cards to the player and two
face down to the dealer; a decision before the flop (fold, or make the first decision wager); the 5
board cards in deal steps, with at most one more decision after each of 3, 4 and 5 board cards
(check, or make that decision's own wager). Texas Hold'em Bonus: the flop (3), a decision, the
turn, a decision, the river; a game may leave any later decision out or add one after the river.
Hands are the best five of seven, against the dealer's with no qualifier. The unit wager (the
Ante) is settled against the dealer and may pay only from a category up (``win_at_least``: a lower
winning hand pushes); the decision wagers are settled against the dealer alike; side wagers are
``card_lines`` on the player's two first cards (the dealer's may matter). The player never folds
after the first wager, so each later wager adds its own amount won or lost on the same showdown:
the decisions are independent and each is optimal alone.

The cycle is player hole x dealer hole x each board deal step (unordered within, the steps in
order); Texas Hold'em Bonus's flop x turn x river: C(52,2) x C(50,2) x C(48,3) x 45 x 44 =
55,627,620,048,000 deals, each counted once.

How (``certify.rules.board_streets_kernel`` has the loops):

* Suit isomorphism on the player's hole: the 1,326 holes fall into 169 classes (6 pairs, 4 suited,
  12 offsuit holes each) whose members have identical distributions, because a suit permutation
  maps every (board, dealer hole) to another one bijectively. One representative per class is
  counted over *all* boards and dealer holes, then weighted by the class size.
* Per 5-card board (one per suit class evaluated), all 1,081 holes of the 47 other cards are
  valued once; the dealer holes beating / tying each player hole are counted by inclusion-exclusion
  over the player's two cards.
* Decisions, all exact and optimal: each later wager iff ``win * wins > losses`` over the cards
  still to come and the dealer hole, given the hole and the board cards seen (Texas Hold'em Bonus:
  the River wager per four board cards, the Turn wager per flop); preflop, the first wager iff the
  hole's expected result with those decisions beats losing the Ante. A wager worth exactly zero is
  not made (``bet_when_indifferent`` makes it: same edge, more variance).
* The same counts under the spec's strategy (``strategy`` in the spec: starting hands that fold;
  the later wagers from a category up, ``hole_card_plays`` when a hole card must play) give the wager
  ``main game (spec strategy)``: the table a simulation of the engine is tallied against.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import combinations
from math import comb, factorial, lcm
from typing import Any

import numpy as np

from certify.analysis.par import ParError, ParSheet, WagerSheet
from certify.cards import RANKS
from certify.rules.analysis import ShapeError, _fraction
from certify.rules.model import DealStep, DecideStep, RulesSpec, ranking_categories

FULL_DECK: tuple[int, ...] = tuple(range(52))
SPEC_STRATEGY_WAGER = "main game (spec strategy)"


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
    """The class name of a concrete hole ("AKs", "72o", "TT")."""
    r1, r2 = c1 >> 2, c2 >> 2
    if r1 == r2:
        return RANKS[r1] * 2
    high, low = max(r1, r2), min(r1, r2)
    return RANKS[high] + RANKS[low] + ("s" if (c1 & 3) == (c2 & 3) else "o")


# ---- the rules, as exact numbers ----------------------------------------------------------------
WIN_STRONG, WIN_WEAK, TIE, LOSE = 0, 1, 2, 3  # showdown results (the kernel's columns)


@dataclass(frozen=True)
class StreetRules:
    """The main-game rules the math depends on, in unit wagers (Antes). The first decision (before
    the board) folds or makes the first decision wager; each later one (after ``board_cards`` board
    cards: 3, 4 or 5, at most one each) checks or makes its own wager."""

    decisions: tuple[str, ...]  # the decisions' names: before the flop, then each later one
    wagers: tuple[str, ...]  # the decision wager each makes (Texas Hold'em Bonus: Flop, Turn, River bets)
    bets: tuple[str, ...]  # the option making it
    passive: tuple[str, ...]  # the other option (fold before the flop, then check)
    multiples: tuple[Fraction, ...]  # each decision wager's multiple of the unit wager
    win_pays: Fraction  # odds paid on winning decision wagers
    ante_category: int  # the Ante pays only when the player's winning hand reaches it ...
    ante_odds: Fraction  # ... at these odds; otherwise it pushes
    board_cards: tuple[int, ...] = (3, 4)  # board cards seen at each later decision
    board_steps: tuple[int, ...] = (3, 1, 1)  # the board's deal steps (the cycle's order of dealing)

    @property
    def later(self) -> int:
        """How many decisions follow the first."""
        return len(self.decisions) - 1

    def bit(self, i: int) -> int:
        """Later decision i's bit in a bet pattern: the first later decision is the highest bit."""
        return 1 << (self.later - 1 - i)

    def pays(self, pattern: int, result: int) -> tuple[Fraction, Fraction]:
        """(net result, total wagered) of a played hand with bet ``pattern`` (the later wagers made,
        ``bit``) and showdown ``result``."""
        raises = self.multiples[0] + sum((m for i, m in enumerate(self.multiples[1:]) if pattern & self.bit(i)),
                                         Fraction(0))
        wagered = 1 + raises
        if result == LOSE:
            return -wagered, wagered
        if result == TIE:
            return Fraction(0), wagered
        ante = self.ante_odds if result == WIN_STRONG else Fraction(0)
        return ante + self.win_pays * raises, wagered

    @property
    def patterns(self) -> tuple[str, ...]:
        """The wagers standing per bet pattern: "flop", "flop+river", "flop+turn", "flop+turn+river"."""
        return tuple("+".join([self.wagers[0]] + [w for i, w in enumerate(self.wagers[1:]) if p & self.bit(i)])
                     for p in range(1 << self.later))


STREET_STEPS = [("decide",), ("deal", "board", 3), ("decide",), ("deal", "board", 1), ("decide",), ("deal", "board", 1)]
STREET_STEPS_TEXT = ("a decision, then the 5 board cards in steps with one more decision at most after each of 3, 4 "
                     "and 5 board cards (as a flop of 3, a decision, the turn, a decision, the river)")


def dealt_as_holdem(spec: RulesSpec, later: list[tuple]) -> bool:
    """Whether the steps are two cards to the player and two to the dealer, then ``later``
    (("decide",) or ("deal", "board", cards) each)."""
    kinds = [("deal", s.deal, s.cards) if isinstance(s, DealStep) else ("decide",) for s in spec.steps]
    return sorted(kinds[:2]) == [("deal", "dealer", 2), ("deal", "player", 2)] and kinds[2:] == later


def holdem_differences(spec: RulesSpec, later: list[tuple], steps: str, face_up: int, face_up_text: str) -> list[str]:
    """What a board shape's check names first: the steps (``dealt_as_holdem``, ``steps`` saying the
    later ones), the best five of seven, the player's and the dealer's cards face down, the first
    ``face_up`` board deals face up (``face_up_text``)."""
    why = []
    if not dealt_as_holdem(spec, later):
        why.append(f"the steps: 2 cards to the player and 2 to the dealer, {steps}")
    if spec.ranking != "best_five":
        why.append("the best_five ranking")
    if any((s.face == "up" or s.face_up) for s in spec.deals("dealer") + spec.deals("player")):
        why.append("the player's and the dealer's cards face down")
    if any(s.face != "up" for s in spec.deals("board")[:face_up]):
        why.append(face_up_text)
    return why


def street_levels(spec: RulesSpec) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """(board cards seen at each decision after the first, the board's deal steps) when the steps
    after the 2 + 2 hole cards are a decision, then board deals of 5 cards in all with one decision
    at most after each of 3, 4 and 5 board cards; else None."""
    later = [("deal", s.deal, s.cards) if isinstance(s, DealStep) else ("decide",) for s in spec.steps[2:]]
    if not later or later[0] != ("decide",) or not dealt_as_holdem(spec, later):
        return None
    seen, levels, steps = 0, [], []
    for kind in later[1:]:
        if kind[0] == "deal":
            if kind[1] != "board":
                return None
            seen += kind[2]
            steps.append(kind[2])
        elif seen not in (3, 4, 5) or (levels and levels[-1] == seen):
            return None
        else:
            levels.append(seen)
    return (tuple(levels), tuple(steps)) if seen == 5 else None


def is_street_shape(spec: RulesSpec) -> bool:
    """Whether the steps are the street shape's and no decision is skipped once a wager is made
    (that is the one-Play board shape's, ``certify.rules.board``); the other checks then name what
    differs."""
    return street_levels(spec) is not None and not any(d.skipped_when_made for d in spec.decisions)


def street_rules(spec: RulesSpec) -> StreetRules:
    """The shape check and the rules as the counting needs them (``ShapeError`` names what differs)."""
    shape = street_levels(spec)
    later = STREET_STEPS if shape is None else [
        ("deal", s.deal, s.cards) if isinstance(s, DealStep) else ("decide",) for s in spec.steps[2:]]
    decided_after = 0  # board deals the decisions see: those before the last decision
    for i, kind in enumerate(later):
        if kind == ("decide",):
            decided_after = sum(1 for k in later[:i] if k[0] == "deal")
    why = holdem_differences(spec, later, STREET_STEPS_TEXT, decided_after,
                             "the board cards face up until the last decision (the decisions see them)")
    if spec.dealer.qualifies is not None:
        why.append("a dealer with no qualifier")
    decisions = [s for s in spec.steps if isinstance(s, DecideStep)]
    wagers, bets, passive, multiples = [], [], [], []
    for i, d in enumerate(decisions):
        adds = [o for o in d.options if o.add]
        others = [o for o in d.options if not o.add]
        want_fold = i == 0
        if (len(adds) != 1 or len(others) != 1 or len(adds[0].add) != 1 or others[0].fold != want_fold
                or any(o.pull_back or o.replace for o in d.options) or adds[0].fold or d.skipped_when_made):
            why.append(f"at {d.decide!r} two options: " + ("fold" if want_fold else "check")
                       + " or make one decision wager (no skipped_when_made)")
            continue
        (wager, m), = adds[0].add.items()
        wagers.append(wager)
        bets.append(adds[0].name)
        passive.append(others[0].name)
        multiples.append(_fraction(m))
    if len(set(wagers)) != len(wagers):
        why.append("a different decision wager at each decision")
    settle = [spec.wagers[w].settle.versus_dealer for w in wagers]
    if any(v is None or v.win is None or v.tie != "push" or v.win_at_least or v.bonus for v in settle) \
            or len({v.win for v in settle if v is not None}) > 1:
        why.append("the decision wagers settled against the dealer alike: win X to 1, a tie pushes")
    unit = spec.wagers[spec.unit].settle.versus_dealer
    if unit is None or unit.win is None or unit.tie != "push" or unit.bonus is not None:
        why.append(f"the unit wager ({spec.unit}) settled against the dealer: win X to 1 (from a category up), "
                   "a tie pushes")
    for name, w in spec.wagers.items():
        if w.made == "with_unit":
            why.append(f"no with_unit wager ({name})")
        if w.made == "side" and (w.settle.card_lines is None or w.settle.card_lines.cards != 2):
            why.append(f"side wagers paid by card_lines on the two first cards ({name})")
    if why:
        raise ShapeError(f"{spec.name}: the street-bets analysis counts games with " + "; ".join(dict.fromkeys(why)))
    levels, steps = shape
    categories = ranking_categories(spec.ranking)
    return StreetRules(tuple(d.decide for d in decisions), tuple(wagers), tuple(bets), tuple(passive),
                       tuple(multiples), _fraction(settle[0].win),
                       categories.index(unit.win_at_least.category) if unit.win_at_least else 0, _fraction(unit.win),
                       levels, steps)


@dataclass(frozen=True)
class SpecStreetRule:
    """The spec strategy's rule at each decision after the first: the wager from ``at_least`` up
    (a category; the ranking's count of categories or more: never), when a hole card plays below ``straight`` (a pocket pair, a hole rank on
    the board, or that category or better; 0 when the strategy does not ask for a hole card)."""

    at_least: tuple[int, ...]
    straight: tuple[int, ...]


@dataclass(frozen=True)
class SpecStrategy:
    """The spec's strategy in the street shape: the starting hands folded, the later decisions' rule."""

    preflop_fold: frozenset[str]
    rule: SpecStreetRule
    text: str


NEVER = 15  # at most this category (the ranking's count, no hand reaches it): the wager is never made


def spec_strategy(spec: RulesSpec, rules: StreetRules) -> SpecStrategy | None:
    """The spec strategy as the counting plays it, or None when the spec states none
    (``ShapeError`` naming the file and the field for rules the counting does not play)."""
    if spec.strategy is None:
        return None
    categories = ranking_categories(spec.ranking)
    decided = spec.strategy.decisions
    why = []
    where = f"{spec.name}.yaml: strategy.decisions"
    first = decided.get(rules.decisions[0], [])
    folds: set[str] = set()
    for j, rule in enumerate(first):
        if rule.at_least is not None or rule.hole_card_plays:
            why.append(f"{where}.{rules.decisions[0]}.{j}: expected rules by starting hands only (hands:) at the "
                       "first decision")
    names = {c.name for c in hole_classes()}
    for cls in sorted(names):
        option = next((r.option for r in first if r.hands is None or cls in r.hands), rules.bets[0])
        if option == rules.passive[0]:
            folds.add(cls)
    street = []
    for d, bet in zip(rules.decisions[1:], rules.bets[1:]):
        rules_here = decided.get(d, [])
        betting = [j for j, r in enumerate(rules_here) if r.option == bet]
        field = next((j for j, r in enumerate(rules_here) if r.hands or (r.at_least is not None and r.at_least.ranks)),
                     None)
        if field is not None:
            why.append(f"{where}.{d}.{field}: expected a category threshold (at_least: {{category}}, "
                       "hole_card_plays), not starting hands or ranks")
        malformed = not rules_here or len(betting) > 1 or rules_here[-1].option == bet or (betting and betting[0] != 0)
        if field is None and malformed:
            why.append(f"{where}.{d}: expected one rule making the wager (from a category up, hole_card_plays), "
                       "then the check")
        if field is not None or malformed or not betting:
            street.append((len(categories), False))  # never (or refused above)
        else:
            at = rules_here[0].at_least
            street.append((categories.index(at.category) if at else 0, bool(rules_here[0].hole_card_plays)))
    if why:
        raise ShapeError(f"{spec.name}: the street-bets analysis plays a spec strategy with "
                         + "; ".join(dict.fromkeys(why)))
    straight = categories.index("straight")
    rule = SpecStreetRule(tuple(min(c, NEVER) for c, _ in street),
                          tuple(straight if plays else 0 for _, plays in street))

    def says(category: int, plays: bool) -> str:
        if category >= len(categories):
            return "never"
        return f"with {categories[category]} or better" + (" when a hole card plays" if plays else "")
    text = f"the spec's strategy: fold {', '.join(sorted(folds, key=_grid_order)) or 'none'}"
    if street:
        text += "; " + ", ".join(f"{w.capitalize()} bet {says(*s)}" for w, s in zip(rules.wagers[1:], street))
    return SpecStrategy(frozenset(folds), rule, text)


def _grid_order(name: str) -> int:
    return [c.name for c in hole_classes()].index(name)


# ---- the walk: decision points as data ----------------------------------------------------------
FOLD, CHECK, ADD = 0, 1, 2  # option kinds (board_streets_kernel's)
BOARD_LEVELS = (0, 3, 4, 5)  # board cards seen at the decision points the walk takes


@dataclass(frozen=True)
class DecisionPoint:
    """One decision of a board game: its options ordered by what they leave at risk (the tie-break
    order: fold, check, then the adds by multiple), their kinds (FOLD / CHECK / ADD), the multiple of
    the unit wager each add makes, the board cards seen (0, 3, 4 or 5) and, per option, whether it
    ends the decisions (an add whose wager every later decision lists in ``skipped_when_made``)."""

    decide: str
    names: tuple[str, ...]
    kinds: tuple[int, ...]
    mults: tuple[Fraction, ...]
    board_cards: int = 0
    ends: tuple[bool, ...] = ()


def decision_points(spec: RulesSpec) -> tuple[DecisionPoint, ...]:
    """The spec's decisions as the walk takes them (``ShapeError`` naming the field it cannot count):
    one decision before the flop and at most one after each of 3, 4 and 5 board cards; options that
    fold, check or add one decision wager; a fold only where no wager made before it can stand (an
    add before it ends the decisions, ``skipped_when_made``)."""
    why, points, seen, wagers_added = [], [], 0, []
    decisions = [(i, s) for i, s in enumerate(spec.steps) if isinstance(s, DecideStep)]
    for i, step in enumerate(spec.steps):
        if isinstance(step, DealStep) and step.deal == "board":
            seen += step.cards
        if not isinstance(step, DecideStep):
            continue
        where = f"steps[{i}] (decide: {step.decide})"
        if seen not in BOARD_LEVELS or any(p.board_cards == seen for p in points):
            why.append(f"{where}: one decision at most after each of 0, 3, 4 and 5 board cards (here after {seen})")
        later = [s for j, s in decisions if j > i]
        entries = []
        for o in step.options:
            if o.pull_back or o.replace or len(o.add) > 1 or (o.add and spec.wagers.get(next(iter(o.add))) is None):
                why.append(f"{where}: option {o.name!r} folds, checks or adds one decision wager")
                continue
            if o.fold:
                entries.append((Fraction(-1), o.name, FOLD, Fraction(0), True))
                continue
            if not o.add:
                entries.append((Fraction(0), o.name, CHECK, Fraction(0), False))
                continue
            (wager, m), = o.add.items()
            skipped = [wager in s.skipped_when_made for s in later]
            if any(skipped) and not all(skipped):
                why.append(f"{where}: option {o.name!r}: every later decision or none lists {wager!r} in skipped_when_made")
            m = _fraction(m)
            if m <= 0:
                why.append(f"{where}: option {o.name!r} adds a positive multiple")
            entries.append((m, o.name, ADD, m, all(skipped) and bool(later)))
            wagers_added.append(wager)
        if any(e[2] == FOLD for e in entries) and any(not p.ends[o] and k == ADD for p in points
                                                        for o, k in enumerate(p.kinds)):
            why.append(f"{where}: a fold after a wager that does not end the decisions (skipped_when_made)")
        entries.sort(key=lambda e: e[0])  # stable: listed order among equals
        points.append(DecisionPoint(step.decide, tuple(e[1] for e in entries), tuple(e[2] for e in entries),
                                    tuple(e[3] for e in entries), seen, tuple(e[4] for e in entries)))
    if not points or points[0].board_cards != 0:
        why.append("steps: a decision before the board")
    n_opts = {p.board_cards: len(p.names) for p in points}
    if n_opts.get(3, 1) * (n_opts[4] + 1 if 4 in n_opts else 1) > MAX_PARTIAL_PATHS:
        why.append(f"steps: at most {MAX_PARTIAL_PATHS} (flop option, turn option or none) pairs")
    for p in points:
        if len(p.names) > MAX_OPTIONS:
            why.append(f"decide: {p.decide}: at most {MAX_OPTIONS} options")
    settles = {spec.wagers[w].settle.model_dump_json() for w in wagers_added if w in spec.wagers}
    if len(settles) > 1:
        why.append("the decision wagers settled alike (one net per unit: " + ", ".join(dict.fromkeys(wagers_added)) + ")")
    if why:
        raise ShapeError(f"{spec.name}: the board walk counts games with " + "; ".join(dict.fromkeys(why)))
    return tuple(points)


MAX_OPTIONS, MAX_PARTIAL_PATHS = 8, 8  # board_streets_kernel's


@dataclass(frozen=True)
class WalkCounts:
    """What the walk counts per representative hole, in deals of the spec's cycle (each board reached
    in every order its deal steps allow): ``all_cells`` (rep, cell, category) every deal; ``path_cells``
    (rep, set, path, cell, category) the deals of each decision path below the root (set 0 the derived
    strategy, set 1 the spec rule's; ``path_of`` reads a path); ``check_value`` (rep) the derived value
    of the decisions below the root (scaled by the caller's denominator); ``flop_choice`` (rep, flop) the
    derived flop option; ``turn_choice`` (rep, 4-card board; width 0 without a turn decision) the derived
    turn option, the boards of both by the colex rank of their cards' positions in the deck less the hole;
    ``profile`` (rep, level 3 / 4 / 5, category so far, option) nodes taking it."""

    points: tuple[DecisionPoint, ...]
    all_cells: np.ndarray
    path_cells: np.ndarray
    check_value: np.ndarray
    flop_choice: np.ndarray
    turn_choice: np.ndarray
    profile: np.ndarray
    value_scale: int  # check_value's extra scale: the lcm of the multiples' denominators (1: whole multiples)
    seconds: float
    cpu_seconds: float

    def path_of(self, path: int) -> dict[int, int | None]:
        """The option taken at each decision point below the root on ``path`` (by board cards
        seen), None where the decisions had ended."""
        by_level = {p.board_cards: p for p in self.points[1:]}
        radix = {level: (len(by_level[level].names) + (0 if level == 3 else 1)) if level in by_level else 1
                 for level in (3, 4, 5)}
        out = {}
        for level in (5, 4, 3):
            digit = path % radix[level]
            path //= radix[level]
            if level in by_level:
                out[level] = None if digit == len(by_level[level].names) else digit
        return dict(sorted(out.items()))


def _orders(board_steps: tuple[int, ...]) -> int:
    """The orders a board is dealt in by steps of these sizes: 5! / prod(size!)."""
    out = factorial(sum(board_steps))
    for s in board_steps:
        out //= factorial(s)
    return out


def walk(deck: tuple[int, ...], reps: np.ndarray, qual: int, points: tuple[DecisionPoint, ...], base: np.ndarray,
         unit: np.ndarray, fold_value: int, board_steps: tuple[int, ...], rule: np.ndarray | None = None,
         prefer_risk: bool = False, profile: bool = False) -> WalkCounts:
    """The one walk (``board_streets_kernel.walk_counts``) over ``deck`` (card codes) for the player holes
    ``reps`` (deck indices), the dealer qualifying from value ``qual`` (0: always): the decisions of
    ``points`` below the root (by backward induction: the option of highest value, on a tie the one
    leaving less at risk, or more with ``prefer_risk``) and, when ``rule`` (4, 4) is given, the spec
    rule's. ``base`` / ``unit`` (6 cells x categories) the net of the main wagers and per multiple of the
    decision wagers, ``fold_value`` a fold's net per deal, all scaled alike; ``board_steps`` the sizes of
    the board deals (the cycle's order of dealing)."""
    from certify.rules import board_streets_kernel as kernel

    levels = [p.board_cards for p in points]
    done, cuts = 0, {0}
    for s in board_steps:
        done += s
        cuts.add(done)
    if done != 5 or not set(levels) <= cuts:
        raise ShapeError(f"board steps {board_steps} do not give 5 cards with decisions after {levels}")
    n_opts = np.zeros(kernel.N_LEVELS, np.int64)
    kinds = np.zeros((kernel.N_LEVELS, kernel.MAX_OPTIONS), np.int64)
    mults = np.zeros((kernel.N_LEVELS, kernel.MAX_OPTIONS), np.int64)
    ends = np.zeros((kernel.N_LEVELS, kernel.MAX_OPTIONS), np.int64)
    scale = lcm(*(m.denominator for p in points for m in p.mults))  # whole multiples: values scaled alike
    for p in points[1:]:
        level = BOARD_LEVELS.index(p.board_cards)
        n_opts[level] = len(p.names)
        kinds[level, :len(p.kinds)] = p.kinds
        mults[level, :len(p.mults)] = [int(m * scale) for m in p.mults]
        ends[level, :len(p.ends)] = p.ends
    chains = {(True, True): 20, (True, False): 10, (False, True): 5, (False, False): 1}[(3 in levels, 4 in levels)]
    multiplicity = _orders(tuple(board_steps)) // chains
    rule_rows = np.zeros((0, 4), np.int64) if rule is None else np.asarray(rule, np.int64)
    start, cpu = time.perf_counter(), time.process_time()
    deck_array = np.array(deck, np.int64)
    parts = []
    for first, codes in showdown_code_batches(deck, reps, int(qual)):
        parts.append(kernel.walk_counts(codes, reps[first:first + len(codes)], deck_array,
                                        np.asarray(base, np.int64) * scale, np.asarray(unit, np.int64), n_opts,
                                        kinds, mults, ends, int(fold_value) * scale, rule_rows, bool(prefer_risk),
                                        bool(profile), 3 if int(qual) == 0 else kernel.N_CELLS))
        del codes
    path_cells, check_value, flop_choice, turn_choice, prof = (np.concatenate(a) for a in zip(*parts))
    all_cells = path_cells[:, 0].sum(axis=1)  # every chain takes one path of the derived strategy
    return WalkCounts(tuple(points), all_cells * multiplicity, path_cells * multiplicity,
                      check_value * multiplicity, flop_choice, turn_choice, prof, scale,
                      time.perf_counter() - start, time.process_time() - cpu)


# ---- the heavy part: showdown counts under the later decisions ----------------------------------
@dataclass(frozen=True)
class DecisionCounts:
    """Per representative hole, the deals in each (bet pattern, showdown result) cell.

    ``counts[h, pattern, result]`` with pattern the later wagers made (``StreetRules.bit``: Texas
    Hold'em Bonus 2 x Turn bet + River bet) and result WIN_STRONG / WIN_WEAK / TIE / LOSE under the
    optimal later decisions; ``rule_counts`` the same under the spec strategy's rule (when one was
    given); ``deals_per_hole`` = boards in every order their deal steps give x dealer holes for one
    player hole.
    """

    deck: tuple[int, ...]
    holes: tuple[tuple[int, int], ...]
    weights: tuple[int, ...]
    names: tuple[str, ...]
    counts: np.ndarray
    deals_per_hole: int
    seconds: float
    rule_counts: np.ndarray | None = None
    profile: np.ndarray | None = None  # [hole, later decision, category so far, (seen, bets)]


def deals_per_hole(deck_size: int, board_steps: tuple[int, ...] = (3, 1, 1)) -> int:
    m = deck_size - 2
    return comb(m, 5) * _orders(tuple(board_steps)) * comb(m - 5, 2)


STREET_POINTS = (DecisionPoint("preflop", ("fold", "bet"), (FOLD, ADD), (Fraction(0), Fraction(1)), 0, (True, False)),
                 DecisionPoint("turn", ("check", "bet"), (CHECK, ADD), (Fraction(0), Fraction(1)), 3, (False, False)),
                 DecisionPoint("river", ("check", "bet"), (CHECK, ADD), (Fraction(0), Fraction(1)), 4, (False, False)))


def street_points(levels: tuple[int, ...]) -> tuple[DecisionPoint, ...]:
    """The street shape's decision points: the first (fold or bet), then check or bet after each of
    ``levels`` board cards (``STREET_POINTS`` for Texas Hold'em Bonus's 3 and 4)."""
    later = STREET_POINTS[1]
    return STREET_POINTS[:1] + tuple(DecisionPoint(f"after {level} board cards", later.names, later.kinds, later.mults,
                                                   level, later.ends) for level in levels)


def compute_decision_counts(deck: tuple[int, ...], holes: list[tuple[int, int]], weights: list[int],
                            names: list[str], ante_category: int, win_pays: Fraction,
                            rule: SpecStreetRule | None = None,
                            bet_when_indifferent: bool = False, levels: tuple[int, ...] = (3, 4),
                            board_steps: tuple[int, ...] = (3, 1, 1)) -> DecisionCounts:
    """The walk (``walk``) over ``deck`` (card codes) for the given player holes (card codes), with the
    street shape's decision points after ``levels`` board cards (``street_points``: each later wager
    decided alone, by the sign of its wins x ``win_pays`` - losses; the multiples do not change it)
    and, if given, the spec rule's; the board dealt in ``board_steps``.

    A later wager whose expected value is exactly zero changes nothing but the variance and the
    average wager: by default it is not made; ``bet_when_indifferent`` makes it."""
    from certify.rules import board_streets_kernel as kernel

    if len(deck) < 9:
        raise ValueError(f"a hold'em deal needs 9 cards, the deck has {len(deck)}")
    levels = tuple(levels)
    position = {card: i for i, card in enumerate(deck)}
    reps = np.array([[position[a], position[b]] for a, b in holes], dtype=np.int64)
    win_pays = Fraction(win_pays)
    unit = np.zeros((kernel.N_CELLS, kernel.N_CATEGORIES), np.int64)  # no qualifier: the Q cells only
    unit[0] = win_pays.numerator  # QW: won, scaled by the denominator of win_pays
    unit[2] = -win_pays.denominator  # QL: lost
    rule_rows = None
    if rule is not None:
        if len(rule.at_least) != len(levels):
            raise ValueError(f"a spec rule for {len(rule.at_least)} later decisions, the walk has {len(levels)}")
        rule_rows = np.zeros((kernel.N_LEVELS, 4), np.int64)
        for level, at_least, straight in zip(levels, rule.at_least, rule.straight):
            rule_rows[BOARD_LEVELS.index(level)] = (at_least, 1, 0, straight)  # (from, bet, else check, straight)
    wc = walk(tuple(deck), reps, 0, street_points(levels), np.zeros_like(unit), unit, 0, tuple(board_steps), rule_rows,
              bet_when_indifferent, profile=True)
    sets = [_street_counts(wc, s, levels, ante_category) for s in range(wc.path_cells.shape[1])]
    chosen = wc.profile[:, [BOARD_LEVELS.index(level) - 1 for level in levels]]
    profile = np.stack([chosen.sum(axis=3), chosen[:, :, :, 1]], axis=3)  # (seen, bets)
    return DecisionCounts(deck=tuple(deck), holes=tuple(holes), weights=tuple(weights),
                          names=tuple(names), counts=sets[0], deals_per_hole=deals_per_hole(len(deck), board_steps),
                          seconds=wc.seconds, rule_counts=sets[1] if rule is not None else None, profile=profile)


def _street_counts(wc: WalkCounts, s: int, levels: tuple[int, ...], ante_category: int) -> np.ndarray:
    """(hole, bet pattern, WIN_STRONG / WIN_WEAK / TIE / LOSE) from the walk's paths of set ``s``
    (option 1, the bet, at each of ``levels``: the pattern's bit, the first level highest; no
    qualifier: the cells QW, QT, QL)."""
    path_cells = wc.path_cells[:, s]
    out = np.zeros((path_cells.shape[0], 1 << len(levels), 4), np.int64)
    for path in range(path_cells.shape[1]):
        taken = wc.path_of(path)
        if any(taken[level] is None for level in levels):  # a skipped level: no deal takes it here
            if path_cells[:, path].any():
                raise ParError("the walk counted deals on a path the street shape never takes")
            continue
        pattern = 0
        for level in levels:
            pattern = 2 * pattern + taken[level]
        cells = path_cells[:, path]
        out[:, pattern, WIN_STRONG] += cells[:, 0, ante_category:].sum(axis=1)
        out[:, pattern, WIN_WEAK] += cells[:, 0, :ante_category].sum(axis=1)
        out[:, pattern, TIE] += cells[:, 1].sum(axis=1)
        out[:, pattern, LOSE] += cells[:, 2].sum(axis=1)
    return out


CODES_BYTES = 1 << 31  # the memory one batch of showdown codes may take


def showdown_code_batches(deck: tuple[int, ...], reps: np.ndarray, qual: int):
    """The showdown codes (``board_streets_kernel._type_codes``) of every 5-card board of ``deck``
    (card codes) for the player holes ``reps`` (deck indices, shape (R, 2)), against a dealer
    qualifying from value ``qual`` (0: always): yields (first rep, codes of a batch of reps), the
    batches as large as CODES_BYTES allows. The codes per card-type pair are counted once per board
    shape (``board_streets_kernel.board_shapes``) when the deck is closed under suit permutations,
    else once per board, and every batch is read from them. The batches share one array (a fresh
    one when the consumer still holds the last), to touch fresh memory once."""
    from certify.rules import board_streets_kernel as kernel

    deck_array = np.array(deck, dtype=np.int64)
    boards = kernel.all_boards(len(deck))
    chunks = max(1, min(256, len(boards) // 64))
    if kernel.suit_permutations(deck) is None:  # every board its own class
        class_boards = np.arange(len(boards), dtype=np.int64)
        board_class = class_boards.astype(np.int32)
    else:
        board_class, class_boards = kernel.board_shapes(deck_array, boards)
    offsets, table = kernel.class_code_tables(deck_array, boards, class_boards, int(qual), chunks)
    batches = max(1, -(-len(reps) // max(1, CODES_BYTES // (8 * len(boards)))))
    per_batch = max(1, -(-len(reps) // batches))  # batches of equal size
    buffer = None
    for first in range(0, len(reps), per_batch):
        part = reps[first:first + per_batch]
        if buffer is None or sys.getrefcount(buffer) > 2:  # the last batch is still held: never write over it
            buffer = np.empty((len(part), len(boards)), np.int64)  # numpy's: huge pages where the system has them
        codes = buffer[:len(part)]
        kernel.codes_from_class_tables(deck_array, part, boards, board_class, offsets, table, codes, chunks)
        yield first, codes
        del codes


@lru_cache(maxsize=4)
def full_deck_counts(ante_category: int, win_pays: Fraction, rule: SpecStreetRule | None = None,
                     bet_when_indifferent: bool = False, levels: tuple[int, ...] = (3, 4),
                     board_steps: tuple[int, ...] = (3, 1, 1)) -> DecisionCounts:
    """The 169 classes over the full deck (about a minute of work; cached for the process: the
    counts depend only on the Ante's category, the decision wagers' odds, the spec rule, the
    later decisions' board cards and the board's deal steps)."""
    classes = hole_classes()
    return compute_decision_counts(FULL_DECK, [c.cards for c in classes], [c.weight for c in classes],
                                   [c.name for c in classes], ante_category, win_pays, rule,
                                   bet_when_indifferent, tuple(levels), tuple(board_steps))


# ---- the main-game return table -----------------------------------------------------------------
@dataclass(frozen=True)
class HoleDecision:
    name: str
    weight: int
    ev_play: Fraction  # expected result of making the first wager, per Ante
    play: bool
    bet_rates: tuple[Fraction, ...]  # per later decision: the share of deals on which its wager is made (when played)


def event_names(rules: StreetRules) -> list[str]:
    """The main game's outcome events, in return-table order: the simulation's chi-square cells."""
    from certify.hands import CATEGORY_NAMES

    strong = CATEGORY_NAMES[rules.ante_category]
    labels = (f"win with {strong} or better", f"win below {strong}", "tie", "lose")
    return ["fold"] + [f"{pattern}: {label}" for pattern in rules.patterns for label in labels]


def hole_decisions(rules: StreetRules, dc: DecisionCounts, counts: np.ndarray | None = None,
                   preflop_fold: frozenset[str] | None = None) -> list[HoleDecision]:
    """The preflop decision of every hole class: the optimal one (play iff EV(play) > -1 Ante)
    unless a ``preflop_fold`` list is given. ``counts`` defaults to the optimal later decisions' counts."""
    counts = dc.counts if counts is None else counts
    n_patterns = 1 << rules.later
    cells = [[rules.pays(p, r)[0] for r in range(4)] for p in range(n_patterns)]
    out = []
    for h, name in enumerate(dc.names):
        c = counts[h]
        total = sum(int(c[p, r]) * cells[p][r] for p in range(n_patterns) for r in range(4))
        ev = Fraction(total) / dc.deals_per_hole
        play = ev > -1 if preflop_fold is None else name not in preflop_fold
        rates = tuple(Fraction(sum(int(c[p].sum()) for p in range(n_patterns) if p & rules.bit(i)), dc.deals_per_hole)
                      for i in range(rules.later))
        out.append(HoleDecision(name, dc.weights[h], ev, play, rates))
    return out


CARD_NAMES = {4: "turn", 5: "river"}  # the board cards after the flop


def _cycle_text(board_steps: tuple[int, ...]) -> str:
    if tuple(board_steps) == (3, 1, 1):
        return "flop (unordered) x turn x river (ordered)"
    return " x ".join(f"{n} board card{'s' if n > 1 else ''}" for n in board_steps) + " (each step unordered)"


def main_game_sheet(rules: StreetRules, dc: DecisionCounts, name: str = "main game",
                    strategy: SpecStrategy | None = None) -> WagerSheet:
    """The main game's exact return table: optimal play, or the spec's ``strategy`` when given
    (its starting hands that fold and ``dc.rule_counts``)."""
    if strategy is None:
        decisions = hole_decisions(rules, dc)
        counts = dc.counts
    else:
        if dc.rule_counts is None:
            raise ParError("the spec strategy's counts were not computed (pass rule= to the counts)")
        counts = dc.rule_counts
        decisions = hole_decisions(rules, dc, counts, strategy.preflop_fold)
    n_patterns = 1 << rules.later
    if counts.shape[1] != n_patterns:
        raise ParError(f"counts of {counts.shape[1]} bet patterns for a game with {n_patterns}")
    folded = sum(d.weight for d in decisions if not d.play) * dc.deals_per_hole
    cells = np.zeros((n_patterns, 4), dtype=object)
    for h, d in enumerate(decisions):
        if d.play:
            cells += counts[h].astype(object) * d.weight
    names = event_names(rules)
    events = [(names[0], Fraction(-1), folded, Fraction(1))]
    for pattern in range(n_patterns):
        for result in range(4):
            pays, wagered = rules.pays(pattern, result)
            events.append((names[1 + 4 * pattern + result], pays, int(cells[pattern, result]), wagered))
    played = [d for d in decisions if d.play]
    total_weight = sum(d.weight for d in decisions)
    play_rate = Fraction(sum(d.weight for d in played), total_weight)
    rates = [sum(d.bet_rates[i] * d.weight for d in played) / total_weight for i in range(rules.later)]
    folds = ", ".join(d.name for d in decisions if not d.play) or "none"
    first, *later = (w.capitalize() for w in rules.wagers)
    if strategy is None:
        text = (f"optimal (derived): make the {first} bet with {len(played)} of {len(decisions)} "
                f"starting hands (fold {folds})")
        for i, (wager, level) in enumerate(zip(later, rules.board_cards)):
            unseen = ", ".join(CARD_NAMES[c] for c in range(level + 1, 6))
            over = f"{unseen} and dealer hole" if unseen else "dealer hole"
            rule = f"{rules.win_pays} x wins > losses" if i == 0 else "the same"
            text += f"; {wager} bet iff {rule} over {over}"
    else:
        text = strategy.text
    chart = [f"{first} bet made on {float(play_rate):.6f} of deals"
             + ("; " + ", ".join(f"{w} bet on {float(r):.6f}" for w, r in zip(later, rates)) + " of all deals"
                if later else "")]
    if strategy is None and dc.profile is not None:
        chart += [f"{row['street']} bet with {row['hand']} so far: {row['share_of_boards']:.4f} of "
                  f"boards, bet on {row['bet_rate']:.4f}" for row in street_profile(rules, dc, decisions)]
    chart += preflop_grid(decisions)
    table = [{"hand": d.name, "combinations": d.weight, "ev_play": float(d.ev_play),
              "ev_play_exact": str(d.ev_play), "decision": "play" if d.play else "fold",
              **{f"{w}_bet_rate": float(r) for w, r in zip(rules.wagers[1:], d.bet_rates)}}
             for d in decisions]
    cycle_note = (f"cycle: player hole x dealer hole x {_cycle_text(rules.board_steps)} = "
                  f"{total_weight:,} holes x {dc.deals_per_hole:,} deals each")  # no timing: a sheet is the
    # same bytes whenever it is computed (the PAR-sheet cache and the golden sheets rely on it)
    return WagerSheet.from_combinations(name, events, strategy=text, strategy_table=table,
                                        strategy_chart=chart, notes=(cycle_note,))


def street_profile(rules: StreetRules, dc: DecisionCounts, decisions: list[HoleDecision]) -> list[dict[str, Any]]:
    """How often each optimal later wager is made, by the player's hand category so far, over the
    hands that make the first wager (every board seen at the decision equally likely)."""
    from certify.hands import CATEGORY_NAMES

    rows = []
    for street, label in enumerate(w.capitalize() for w in rules.wagers[1:]):
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
    """13x13 chart: suited above the diagonal, offsuit below; P = make the first wager, f = fold."""
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


# ---- card_lines side wagers ---------------------------------------------------------------------
def line_label(line) -> str:
    """A card line's event: its ``label``, else written from the pattern ("A-K suited")."""
    if line.label:
        return line.label
    text = "-".join(line.ranks)
    if line.suited is not None:
        text += " suited" if line.suited else " offsuit"
    if line.paired:
        text += " paired"
    if line.dealer_ranks:
        text += " with dealer " + "-".join(line.dealer_ranks)
    return text


def card_line_counts(lines, cards: int = 2, deck: tuple[int, ...] = FULL_DECK,
                     player_holes=None) -> list[int]:
    """Player cards x dealer cards (two each) matching each line first, then matching none (the last
    entry). A line with dealer ranks is enumerated over the dealer's cards only for the player
    cards it matches; otherwise every dealer hole counts alike."""
    from certify.rules.engine import card_line

    if cards != 2:
        raise ShapeError(f"card_lines on {cards} cards: the street shape counts lines on the two first cards")
    counts = [0] * (len(lines) + 1)
    player_lines = [line.model_copy(update={"dealer_ranks": None}) for line in lines]
    holes = combinations(deck, 2) if player_holes is None else player_holes
    for player in holes:
        rest = [c for c in deck if c not in player]
        first = card_line(player_lines, player)  # the first line the player's cards match
        if first is not None and lines[first].dealer_ranks is not None:
            for dealer in combinations(rest, 2):  # it, or a later line, by the dealer's cards
                i = card_line(lines, player, dealer)
                counts[len(lines) if i is None else i] += 1
        else:
            counts[len(lines) if first is None else first] += comb(len(rest), 2)
    return counts


def card_lines_sheet(spec: RulesSpec, name: str, folded_classes: frozenset[str] = frozenset()) -> WagerSheet:
    """A card_lines side wager, per unit bet. When it is lost on a fold (``paid_on_fold: false``),
    the folded starting hands lose it whatever they hold."""
    settle = spec.wagers[name].settle.card_lines
    lines = settle.lines
    counts = card_line_counts(lines, settle.cards)
    forfeited = 0
    if not settle.paid_on_fold and folded_classes:
        folded_holes = [h for h in combinations(FULL_DECK, 2) if class_of_hole(*h) in folded_classes]
        lost = card_line_counts(lines, settle.cards, player_holes=folded_holes)
        counts = [a - b for a, b in zip(counts, lost)]
        forfeited = sum(lost)
    events = []
    for line, n in zip(lines, counts):
        pays = Fraction(-1) if line.pays is None else _fraction(line.pays)
        events.append((line_label(line), pays, n, Fraction(1)))
    events.append(("other", Fraction(-1), counts[-1], Fraction(1)))
    if forfeited:
        events.append((f"folded ({name.capitalize()} forfeited)", Fraction(-1), forfeited, Fraction(1)))
    return WagerSheet.from_combinations(
        name.capitalize(), events, strategy="none (paid on the hole cards)",
        notes=(f"cycle: player hole x dealer hole = C(52,2) x C(50,2) = {comb(52, 2) * comb(50, 2):,}",))


# ---- the PAR sheet ------------------------------------------------------------------------------
def par_sheet(spec: RulesSpec) -> ParSheet:
    """Main game with optimal play (first), main game as the spec's strategy plays it (what the
    simulation is tallied against) when the spec states one, and each side wager."""
    rules = street_rules(spec)
    strategy = spec_strategy(spec, rules)
    dc = full_deck_counts(rules.ante_category, rules.win_pays, strategy.rule if strategy else None,
                          levels=rules.board_cards, board_steps=rules.board_steps)
    main = main_game_sheet(rules, dc)
    wagers = [main]
    optimal = hole_decisions(rules, dc)
    if strategy is not None:
        wagers.append(main_game_sheet(rules, dc, SPEC_STRATEGY_WAGER, strategy=strategy))
    folded = strategy.preflop_fold if strategy else frozenset(d.name for d in optimal if not d.play)
    wagers += [card_lines_sheet(spec, name, folded) for name, w in spec.wagers.items() if w.made == "side"]
    frequencies = {
        "optimal_preflop_folds": sorted(d.name for d in optimal if not d.play),
        "optimal_street_bets": street_profile(rules, dc, optimal),
        "optimal_play_rate": float(1 - main.rows[0].probability),
    }
    if strategy is not None:
        frequencies["spec_strategy_play_rate"] = float(1 - wagers[1].rows[0].probability)
    return ParSheet(game=spec.title, spec=spec.name, family="rules", wagers=tuple(wagers), frequencies=frequencies)


# ---- the bulk kernel: the spec strategy played deck by deck (certify.games.kernels.Kernel) -------
MAX_SIDE = 4


def card_line_tables(lines) -> tuple[np.ndarray, np.ndarray]:
    """(candidates, dealer_masks) for the kernel: ``candidates[x, y]`` the lines the player's cards
    {x, y} match in order (-1 after the last), ``dealer_masks[line]`` per dealer card (high first)
    the ranks it may have as a bit mask (every rank for a line with no dealer condition)."""
    from certify.rules.engine import card_line
    from certify.rules.model import rank_set

    player_lines = [line.model_copy(update={"dealer_ranks": None}) for line in lines]
    candidates = np.full((52, 52, len(lines) + 1), -1, np.int8)
    for x, y in combinations(range(52), 2):
        found = [i for i, line in enumerate(player_lines) if card_line([line], (x, y)) is not None]
        candidates[x, y, :len(found)] = candidates[y, x, :len(found)] = found
    masks = np.full((len(lines), 2), (1 << 13) - 1, np.int64)
    for i, line in enumerate(lines):
        if line.dealer_ranks is not None:
            if len(line.dealer_ranks) != 2:
                raise ShapeError(f"card line {line_label(line)!r}: dealer_ranks of the dealer's two cards")
            for j, token in enumerate(line.dealer_ranks):
                masks[i, j] = sum(1 << r for r in rank_set(token))
    return candidates, masks


def street_kernel(spec: RulesSpec):
    """The bulk kernel of the street shape, playing the spec's strategy (deck positions: player 0-1,
    dealer 2-3, the board 4-8 in the order dealt); events are the PAR sheet's rows. The later
    decisions are data: the board cards each sees, its category threshold and hole-card rule."""
    from certify.games.kernels import Kernel, KernelError, WagerEvents, _scale
    from certify.rules.board_sim import first_card_lines

    rules = street_rules(spec)
    strategy = spec_strategy(spec, rules)
    if strategy is None:
        raise KernelError(f"{spec.name}: the bulk kernel of a game with a wager on each street plays the spec's "
                          "strategy; the spec states none")
    names = event_names(rules)
    nets = [Fraction(-1)] + [rules.pays(p, r)[0] for p in range(1 << rules.later) for r in range(4)]
    wagers = [WagerEvents("main", names, nets, _scale(nets))]
    sides = [name for name, w in spec.wagers.items() if w.made == "side"]
    if len(sides) > MAX_SIDE:
        raise KernelError(f"{spec.name}: at most {MAX_SIDE} side wagers in the bulk kernel")
    n_lines = max([len(spec.wagers[n].settle.card_lines.lines) for n in sides], default=0)
    if n_lines > 120:  # events are int8 in the kernel
        raise KernelError(f"{spec.name}: at most 120 card lines a side wager in the bulk kernel")
    candidates = np.full((len(sides), 52, 52, n_lines + 1), -1, np.int8)  # small: it stays in cache
    masks = np.zeros((len(sides), max(n_lines, 1), 2), np.int64)
    side_lines, side_fold, side_paid = [], [], []
    for s, name in enumerate(sides):
        settle = spec.wagers[name].settle.card_lines
        events = [line_label(line) for line in settle.lines] + ["other"]
        side_nets = [Fraction(-1) if line.pays is None else _fraction(line.pays) for line in settle.lines] + [Fraction(-1)]
        if not settle.paid_on_fold:
            events.append(f"folded ({name.capitalize()} forfeited)")
            side_nets.append(Fraction(-1))
        wagers.append(WagerEvents(name, events, side_nets, _scale(side_nets)))
        c, m = card_line_tables(settle.lines)
        candidates[s, :, :, :c.shape[2]] = c
        masks[s, :m.shape[0]] = m
        side_lines.append(len(settle.lines))
        side_fold.append(len(settle.lines) + 1)
        side_paid.append(settle.paid_on_fold)
    fold = np.zeros((13, 13, 2), dtype=np.bool_)  # [high rank, low rank, suited]
    for cls in strategy.preflop_fold:
        hi, lo = RANKS.index(cls[0]), RANKS.index(cls[1])
        fold[max(hi, lo), min(hi, lo), 1 if cls[2:] == "s" else 0] = True
    side_lines = np.array(side_lines, np.int64)
    params = {"streets": True, "board": True, "fold": fold, "levels": np.array(rules.board_cards, np.int64),
              "at_least": np.array(strategy.rule.at_least, np.int64),
              "straight": np.array(strategy.rule.straight, np.int64), "strong": rules.ante_category,
              "candidates": candidates, "dealer_masks": masks,
              "first_lines": first_card_lines(candidates, masks, side_lines),
              "side_lines": side_lines, "side_fold": np.array(side_fold, np.int64),
              "side_paid_on_fold": np.array(side_paid, np.bool_)}
    return Kernel(9, 9, wagers, "7", params)


def play_rounds(decks, p, ev, dealt) -> None:
    from certify.rules.board_sim import play_street_rounds

    play_street_rounds(decks, p["fold"], p["levels"], p["at_least"], p["straight"], p["strong"],
                       p["candidates"], p["dealer_masks"], p["first_lines"], p["side_lines"], p["side_fold"],
                       p["side_paid_on_fold"], ev, dealt)
