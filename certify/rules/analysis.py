"""Exact PAR sheets of rules-model specs (``certify.rules.model``), read from the model alone.

The shape analysed here: each seat is dealt its own hand, the dealer a hand of the same size (some
cards face up), the player makes one decision seeing its cards and the dealer's up cards, then the
hands meet (Three Card Poker, Caribbean Stud). Any hand size and ranking of the model, any options
(fold, check, raises by several multiples), any settlement the model states.

How it counts (the cycle is every player hand x every up card x every dealer hidden hand):

1. Player hands by suit class: hands equal under a permutation of the suits (same multiset of
   per-suit rank masks) have the same counts; one representative per class, weighted by its size.
2. Dealer hands holding the up cards U and none of the player's cards P, valued below a threshold
   t, by inclusion-exclusion over P's cards: ``sum over A subset of P of (-1)^|A| N(U + A, t)``.
   Five-card hands: N by rank profiles, the flushes corrected suit by suit
   (``certify.rules.counting``, about 1.5-2 s of CPU for the whole Caribbean Stud cycle);
   other hand sizes: N read from a table of every card set S of up to k cards (its row: the dense
   values of the k-card hands holding S, ascending; a binary search gives N).
3. Three thresholds per (hand, up cards) -- the qualifier, the player's value, and the next value --
   split the dealer hands into: does not qualify / qualifies and loses / ties / wins.
4. The decision is derived: each option's exact expectation (the settlement read from the model,
   scaled to integers) over those four counts, the best taken (on a tie, the option leaving less
   at risk, then the first listed). The
   spec's own strategy, if it states one, is tallied beside it.

Every figure is an integer count or a ``Fraction``; the sheet has the structure of
``certify.analysis.par`` (main game per unit wager, then each side wager), so simulate and report
read it as they read every other sheet.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb, lcm
from typing import Any

import numpy as np
from numba import njit

from certify import hands
from certify.analysis.par import ParError, ParSheet, ReturnRow, WagerSheet
from certify.analysis.frequencies import class_values
from certify.cards import RANK_NAMES
from certify.pool import cpus, map_in_order, row_ranges
from certify.rules import counting
from certify.rules.counting import count_below, sort_first, suit_class_keys
from certify.rules.model import DealStep, DecideStep, RulesSpec, category_pays, ranking_categories

DECK = 52
CELLS = ("dealer does not qualify", "win", "tie", "lose")
NQ, WIN, TIE, LOSS = range(4)
SPEC_STRATEGY_WAGER = "main game (spec strategy)"
_BINOM = np.array([[comb(n, k) for k in range(8)] for n in range(DECK + 1)], dtype=np.int64)


class ShapeError(ParError):
    """The spec's rules are outside the shapes this module counts exactly."""


# ----------------------------------------------------------------------------------------------
# Hands of k cards: every one, valued by the ranking, and the counting tables.
# ----------------------------------------------------------------------------------------------
@njit(cache=True)
def _all_hands(k):
    """Every k-card hand (sorted cards), lexicographic: (C(52, k), k) int64."""
    n = _BINOM[DECK, k]
    out = np.empty((n, k), np.int64)
    c = np.empty(k, np.int64)  # 0..k-1 (np.arange costs 0.5 s more to compile)
    for j in range(k):
        c[j] = j
    for row in range(n):
        for j in range(k):  # element by element: an array-to-slice copy compiles numba's formatted
            out[row, j] = c[j]  # shape-mismatch error path (~4 s cold)
        i = k - 1
        while i >= 0 and c[i] == DECK - k + i:
            i -= 1
        if i < 0:
            break
        c[i] += 1
        for j in range(i + 1, k):
            c[j] = c[j - 1] + 1
    return out


def _values(ranking: str, cards: np.ndarray) -> np.ndarray:
    if ranking == "three_card":
        return hands.rank_batch3(cards).astype(np.int64)
    if ranking == "five_card" and cards.shape[1] == 5:
        return hands.rank_batch(cards).astype(np.int64)
    raise ShapeError(f"the exact analysis values {cards.shape[1]}-card hands by three_card or five_card, "
                     f"not {ranking}")


@dataclass(frozen=True)
class HandTables:
    """Every k-card hand of one ranking: ``values`` (the distinct hand values, ascending: a hand's
    dense value is its index), ``classes`` (suit-class representatives, sorted cards), ``weights``
    (class sizes), ``dense`` (each representative's dense value)."""

    k: int
    ranking: str
    values: np.ndarray
    classes: np.ndarray
    weights: np.ndarray
    dense: np.ndarray

    def dense_at_least(self, value: int) -> int:
        """The smallest dense value whose hand value is >= ``value`` (a threshold's)."""
        return int(np.searchsorted(self.values, value, side="left"))

    def category(self, dense: np.ndarray | int):
        return self.values[dense] >> hands.CATEGORY_SHIFT


def _by_rank_profiles(ranking: str, k: int) -> bool:
    """Five-card hands are counted by rank profiles (``certify.rules.counting``); others by card sets."""
    return ranking == "five_card" and k == 5


@lru_cache(maxsize=2)
def hand_tables(ranking: str, k: int) -> HandTables:
    """The suit classes and values of every k-card hand of ``ranking`` (kept per process, read-only)."""
    if _by_rank_profiles(ranking, k):
        classes = counting.suit_classes()
        values = class_values()
        reps, weights = classes.reps, classes.weights
        dense = np.searchsorted(values, _values(ranking, reps)).astype(np.int64)
    else:
        cards = _all_hands(k)
        values = np.unique(_values(ranking, cards))
        _, first, weights = np.unique(suit_class_keys(cards), return_index=True, return_counts=True)
        reps = np.ascontiguousarray(cards[first])
        dense = np.searchsorted(values, _values(ranking, reps)).astype(np.int64)
    tables = HandTables(k, ranking, values.astype(np.int64), reps, weights.astype(np.int64), dense)
    for array in (tables.values, tables.classes, tables.weights, tables.dense):
        array.flags.writeable = False
    return tables


@njit(cache=True)
def _colex(cards, n):
    """Colex index of the first n entries of a sorted card array."""
    x = 0
    for i in range(n):
        x += _BINOM[cards[i], i + 1]
    return x


@njit(cache=True)
def _fill_tables(cards, dense, order, k, flat, base, width):
    """Rows of every card subset, filled in ascending dense value (hands taken in ``order``)."""
    first_row = np.zeros(k + 2, np.int64)  # a running counter per row; rows of size s start here
    for s in range(k + 1):
        first_row[s + 1] = first_row[s] + _BINOM[DECK, s]
    fill = np.zeros(first_row[k + 1], np.int64)
    sub = np.empty(k, np.int64)
    for j in range(order.shape[0]):
        h = order[j]
        for mask in range(1 << k):
            s = np.int64(0)  # typed: from a literal 0, numba compiles _colex once more (for Literal[int](0))
            for i in range(k):
                if (mask >> i) & 1:
                    sub[s] = cards[h, i]
                    s += 1
            index = _colex(sub, s)
            row = first_row[s] + index
            flat[base[s] + index * width[s] + fill[row]] = dense[h]
            fill[row] += 1


@dataclass(frozen=True)
class CardTables:
    """For s = 0..k, the row of the s-card set S (colex index) is ``flat[base[s] + colex(S) *
    width[s]: ...+ width[s]]``: the dense values of the k-card hands holding S, ascending."""

    flat: np.ndarray
    base: np.ndarray
    width: np.ndarray


@lru_cache(maxsize=2)
def card_tables(ranking: str, k: int) -> CardTables:
    """The card-set tables of every k-card hand of ``ranking`` (kept per process, read-only)."""
    cards = _all_hands(k)
    values = hand_tables(ranking, k).values
    dense = np.searchsorted(values, _values(ranking, cards)).astype(np.int64)
    width = np.array([comb(DECK - s, k - s) for s in range(k + 1)], np.int64)
    rows = np.array([comb(DECK, s) for s in range(k + 1)], np.int64)
    base = np.concatenate([[0], np.cumsum(rows * width)]).astype(np.int64)
    flat = np.empty(int(base[-1]), np.int16 if len(values) < 2**15 else np.int32)
    _fill_tables(cards, dense, np.argsort(dense, kind="stable"), k, flat, base, width)
    flat.flags.writeable = False
    return CardTables(flat, base, width)


@njit(cache=True)
def _dealer_below(p, k, up, m, thresholds, flat, base, width, out):
    """out[j] = k-card hands holding the m cards ``up`` and none of the player's cards ``p``,
    dense value < thresholds[j] (inclusion-exclusion over the player's cards)."""
    out[:] = 0
    s_cards = np.empty(k + m, np.int64)
    for mask in range(1 << k):
        s = np.int64(0)  # typed, as in _fill_tables
        for i in range(k):
            if (mask >> i) & 1:
                s_cards[s] = p[i]
                s += 1
        if s + m > k:
            continue
        for i in range(m):
            s_cards[s] = up[i]
            s += 1
        sort_first(s_cards, s)  # the row is keyed by the sorted set
        lo = base[s] + _colex(s_cards, s) * width[s]
        hi = lo + width[s]
        sign = -1 if (s - m) % 2 else 1
        for j in range(thresholds.shape[0]):
            out[j] += sign * count_below(flat[lo:hi], thresholds[j])


# _cells_by_card_sets and _tally run over player classes that do not depend on each other: each is
# compiled serially with ``nogil`` over a range of classes, the ranges run on the process's threads
# (``certify.pool``), as in ``certify.rules.counting`` (numba's ``parallel=True`` cost seconds more
# to compile, for the same run).
@njit(cache=True, nogil=True)
def _cells_by_card_sets(lo, hi, classes, dense, k, m, qualify, flat, base, width, out):
    """out[class, up card] for the classes lo..hi-1 = the dealer hands that do not qualify, that the
    player beats, that tie (-1 for an up card the player holds), by the card-set tables."""
    thresholds = np.empty(3, np.int64)
    below = np.empty(3, np.int64)
    up = np.empty(max(m, 1), np.int64)
    for ci in range(lo, hi):
        p = classes[ci]
        v = dense[ci]
        thresholds[0] = qualify
        thresholds[1] = v
        thresholds[2] = v + 1
        for u in range(out.shape[1]):
            out[ci, u, 0] = -1
            out[ci, u, 1] = -1
            out[ci, u, 2] = -1
            if m == 1:
                held = False
                for i in range(k):
                    if p[i] == u:
                        held = True
                if held:
                    continue
                up[0] = u
            _dealer_below(p, k, up, m, thresholds, flat, base, width, below)
            out[ci, u, 0] = below[0]
            out[ci, u, 1] = max(below[1] - below[0], 0)
            out[ci, u, 2] = below[2] - below[1] if v >= qualify else 0


def _class_ranges(n: int) -> list[tuple[int, int]]:
    return row_ranges(n, counting.CHUNKS_PER_CPU * cpus())


def dealer_cells(rules, reps: np.ndarray, dense: np.ndarray, qualify: int) -> np.ndarray:
    """(players, up cards or 1, 3) int32: per player hand and up card, the dealer hands that do not
    qualify / the player beats / tie (-1: an up card the player holds)."""
    if _by_rank_profiles(rules.ranking, rules.k):
        return counting.dealer_cells(reps, dense, qualify, bool(rules.up))
    t = card_tables(rules.ranking, rules.k)
    out = np.empty((len(reps), DECK if rules.up else 1, 3), np.int32)
    reps, dense = counting.read_only(reps), counting.read_only(dense)
    map_in_order(_cells_by_card_sets, [(lo, hi, reps, dense, rules.k, rules.up, qualify, t.flat, t.base, t.width, out)
                                       for lo, hi in _class_ranges(len(reps))], cpus())
    return out


@njit(cache=True, nogil=True)
def _tally(lo, hi, cells, dense, category, hidden, nets, tie_order, spec_rule_dense, spec_rule_option, acc_best,
           acc_spec, choice):
    """For the classes lo..hi-1 and every up card, from the dealer's cells: the best option by exact
    expectation (scaled integer nets[option, cell, category], tried in ``tie_order``); the spec's
    option by its rules; the counts added to acc_*[class, option, cell]; ``choice[class, up]`` the best."""
    n_options = nets.shape[0]
    counts = np.empty(4, np.int64)
    for ci in range(lo, hi):
        v = dense[ci]
        cat = category[ci]
        spec_option = -1
        for r in range(spec_rule_dense.shape[0]):
            if v >= spec_rule_dense[r]:
                spec_option = spec_rule_option[r]
                break
        for u in range(cells.shape[1]):
            choice[ci, u] = -1
            if cells[ci, u, 0] < 0:
                continue
            counts[NQ] = cells[ci, u, 0]
            counts[WIN] = cells[ci, u, 1]
            counts[TIE] = cells[ci, u, 2]
            counts[LOSS] = hidden - counts[NQ] - counts[WIN] - counts[TIE]
            best = 0
            best_ev = np.int64(0)
            for i in range(n_options):  # by amount at risk: a tie goes to the smaller
                o = tie_order[i]
                ev = np.int64(0)
                for c in range(4):
                    ev += counts[c] * nets[o, c, cat]
                if i == 0 or ev > best_ev:
                    best, best_ev = o, ev
            choice[ci, u] = best
            for c in range(4):
                acc_best[ci, best, c] += counts[c]
                if spec_option >= 0:
                    acc_spec[ci, spec_option, c] += counts[c]


# ----------------------------------------------------------------------------------------------
# The rules, read from the model: the shape, and each option's net per cell and category.
# ----------------------------------------------------------------------------------------------
def _fraction(x: Any) -> Fraction:
    return Fraction(str(x))


@dataclass(frozen=True)
class OneDecision:
    """A game of the one-decision shape, as the counting needs it."""

    ranking: str
    categories: tuple[str, ...]
    k: int  # cards per hand
    up: int  # dealer cards face up (0 or 1)
    qualifier: Any  # HandThreshold or None
    options: tuple[Any, ...]  # model Options
    nets: tuple  # nets[o][cell][category]: Fraction, per unit wager
    wagered: tuple[Fraction, ...]  # per option: total at risk, per unit wager
    decision: str


_ONE_DECISION: dict[int, tuple[RulesSpec, OneDecision]] = {}  # id(spec) -> (spec, its rules)


def one_decision(spec: RulesSpec) -> OneDecision:
    """The shape check and the rules of a one-decision game (``ShapeError`` names what differs).

    Kept per spec object (specs are frozen; the entry holds the spec, so its id is not reused):
    the round engine asks every round, and the nets cost milliseconds of Fractions each time."""
    kept = _ONE_DECISION.get(id(spec))
    if kept is not None and kept[0] is spec:
        return kept[1]
    rules = _one_decision(spec)
    if len(_ONE_DECISION) >= 32:
        _ONE_DECISION.clear()
    _ONE_DECISION[id(spec)] = (spec, rules)
    return rules


def _one_decision(spec: RulesSpec) -> OneDecision:
    deals = [s for s in spec.steps if isinstance(s, DealStep)]
    decisions = [s for s in spec.steps if isinstance(s, DecideStep)]
    why = []
    if len(decisions) != 1 or not isinstance(spec.steps[-1], DecideStep):
        why.append("exactly one decision, after every card is dealt")
    if spec.dealer_redraw is not None or any(s.deal == "board" for s in deals):
        why.append("no board cards and no dealer redraw")
    if spec.cards_dealt("dealer") != spec.cards_dealt("player"):
        why.append("the dealer's hand as big as the player's")
    up = sum(len(s.face_up) + (s.cards if s.face == "up" else 0) for s in deals if s.deal == "dealer")
    if any(s.face == "up" or s.face_up for s in deals if s.deal == "player") or up > 1:
        why.append("the player's cards face down and at most one dealer card face up")
    options = decisions[0].options if decisions else []
    if any(o.replace or o.pull_back for o in options):
        why.append("options that fold, check or add wagers (no replace or pull back)")
    for name, w in spec.wagers.items():
        kind = w.settle.kind
        if w.made in ("unit", "with_unit", "decision") and kind not in ("versus_dealer", "pay_table"):
            why.append(f"main wagers settled against the dealer or by a pay table ({name}: {kind})")
        if kind == "pay_table" and w.settle.pay_table.hand != "player":
            why.append(f"pay tables on the player's own hand ({name}: {w.settle.pay_table.hand})")
        if kind == "card_lines":
            why.append(f"no card_lines wager ({name})")
        if kind == "versus_dealer" and w.settle.versus_dealer.dealer_not_qualifying == "action":
            # the counting lumps every non-qualifying dealer hand into one cell: it cannot compare them
            why.append(f"a non-qualifying dealer settling by push, lose or odds ({name}: action is counted "
                       "in the board shape only)")
        if kind == "pay_table" and w.settle.pay_table.at_least is not None and w.settle.pay_table.at_least.ranks:
            why.append(f"pay lines (at_least) by category alone ({name})")
    if why:
        raise ShapeError(f"{spec.name}: the exact analysis counts games with " + "; ".join(dict.fromkeys(why)))
    categories = ranking_categories(spec.ranking)
    nets, wagered = [], []
    for option in options:
        per_cell = [[_option_net(spec, option, cell, c) for c in range(len(categories))] for cell in range(4)]
        nets.append(per_cell)
        wagered.append(_stake(spec, option))
    return OneDecision(spec.ranking, categories, spec.cards_dealt("player"), up, spec.dealer.qualifies,
                       tuple(options), tuple(nets), tuple(wagered), decisions[0].decide)


def standing(spec: RulesSpec, options) -> dict[str, Fraction]:
    """The main-game wagers standing after these options (in order), in unit wagers."""
    out = {}
    for name, w in spec.wagers.items():
        if w.made == "unit":
            out[name] = Fraction(1)
        elif w.made == "with_unit":
            out[name] = _fraction(w.multiple_of_unit)
    for option in options:
        for name in option.pull_back:
            out.pop(name, None)
        for name, multiple in option.add.items():
            out[name] = out.get(name, Fraction(0)) + _fraction(multiple)
    return out


def _main_wagers(spec: RulesSpec, option) -> dict[str, Fraction]:
    return standing(spec, [option])


def _stake(spec: RulesSpec, option) -> Fraction:
    """The total at risk after ``option``, in unit wagers (a fold: what it loses)."""
    return sum(_main_wagers(spec, option).values(), Fraction(0))


def _option_net(spec: RulesSpec, option, cell: int, category: int) -> Fraction:
    """The net result, in unit wagers, of the main game after ``option`` in a dealer ``cell`` with
    the player's hand of ``category`` (index in the ranking's order)."""
    stakes = _main_wagers(spec, option)
    if option.fold:
        return -sum(stakes.values(), Fraction(0))
    return sum((size * settle_unit(spec, spec.wagers[name].settle, cell, category) for name, size in stakes.items()),
               Fraction(0))


def settle_unit(spec: RulesSpec, settle, cell: int, category: int) -> Fraction:
    """Net per unit of one standing main wager, in a dealer ``cell`` (``NQ``, ``WIN``, ``TIE``, ``LOSS``)
    with the player's hand of ``category``: the one place a settlement rule of the model is read."""
    ranking = spec.ranking
    if settle.versus_dealer is not None:
        v = settle.versus_dealer
        bonus = Fraction(0)
        if v.bonus is not None:
            odds = category_pays(v.bonus.pays, ranking)[category]
            bonus = Fraction(0) if odds is None else _fraction(odds)
        if cell == NQ:
            outcome = v.dealer_not_qualifying
            if outcome == "action":
                raise ShapeError(f"{spec.name}: a dealer who does not qualify with 'action' is settled by the "
                                 "board shape only")
            base = Fraction(0) if outcome == "push" else Fraction(-1) if outcome == "lose" else _fraction(outcome)
        elif cell == WIN:
            odds = v.win if v.win is not None else category_pays(v.win_pays, ranking)[category]
            base = Fraction(-1) if odds is None else _fraction(odds)
            if v.win_at_least is not None and category < ranking_categories(ranking).index(v.win_at_least.category):
                base = Fraction(0)
        elif cell == TIE:
            base = Fraction(0) if v.tie == "push" else Fraction(-1)
        else:
            base = Fraction(-1)
        return base + bonus
    p = settle.pay_table
    odds = _line_pays(p, p.ranking or ranking)[category]
    paid = {"always": True, "player_beats_dealer": cell in (WIN, NQ),
            "player_beats_or_ties_dealer": cell in (WIN, TIE, NQ)}[p.when]
    return Fraction(-1) if odds is None or not paid else _fraction(odds)


def _line_pays(p, ranking: str) -> list:
    """A pay table's odds by category, with the categories under its ``at_least`` line losing."""
    odds = category_pays(p.pays, ranking)
    if p.at_least is not None:
        line = ranking_categories(ranking).index(p.at_least.category)
        odds = [None if c < line else o for c, o in enumerate(odds)]
    return odds


def _scaled(nets) -> tuple[np.ndarray, int]:
    flat = [x for option in nets for cell in option for x in cell]
    den = lcm(*(x.denominator for x in flat))
    arr = np.array([[[int(x * den) for x in cell] for cell in option] for option in nets], np.int64)
    return arr, den


# ----------------------------------------------------------------------------------------------
# The sheet.
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Counts:
    tables: HandTables
    rules: OneDecision
    reps: np.ndarray  # the player hands counted: suit-class representatives (or hands given)
    dense: np.ndarray  # their dense values
    category: np.ndarray  # their categories (index in the ranking's order)
    weights: np.ndarray  # hands each stands for
    acc_best: np.ndarray  # (classes, options, 4) dealer hands per class (one hand of the class)
    acc_spec: np.ndarray | None
    choice: np.ndarray  # (classes, up cards or 1): the best option index, -1 where not dealt
    hidden: int  # dealer hidden hands per (player hand, up cards)
    up_configs: int  # up-card choices per player hand


def count(spec: RulesSpec, classes: np.ndarray | None = None, weights: np.ndarray | None = None) -> Counts:
    """The counts of every player class (or of the given hands, each standing for ``weights`` hands,
    1 by default: for tests)."""
    rules = one_decision(spec)
    t = hand_tables(rules.ranking, rules.k)
    if classes is None:
        reps, dense = t.classes, t.dense
    else:
        reps = np.ascontiguousarray(np.sort(np.asarray(classes, np.int64), axis=1))
        dense = np.searchsorted(t.values, _values(rules.ranking, reps)).astype(np.int64)
    category = (t.values[dense] >> hands.CATEGORY_SHIFT).astype(np.int64)
    qualify = 0 if rules.qualifier is None else t.dense_at_least(spec.threshold_value(rules.qualifier))
    nets, _ = _scaled(rules.nets)
    spec_dense, spec_option = _spec_rules(spec, rules, t)
    n_up = DECK if rules.up else 1
    hidden = comb(DECK - rules.k - rules.up, rules.k - rules.up)
    acc_best = np.zeros((len(reps), len(rules.options), 4), np.int64)
    acc_spec = np.zeros_like(acc_best)
    choice = np.empty((len(reps), n_up), np.int8)
    tie_order = np.array(sorted(range(len(rules.options)), key=lambda o: rules.wagered[o]), np.int64)
    cells = dealer_cells(rules, reps, dense, qualify)
    dense_ro = counting.read_only(dense)
    map_in_order(_tally, [(lo, hi, cells, dense_ro, category, hidden, nets, tie_order, spec_dense, spec_option,
                           acc_best, acc_spec, choice) for lo, hi in _class_ranges(len(reps))], cpus())
    if classes is not None:
        weights = np.ones(len(reps), np.int64) if weights is None else np.asarray(weights, np.int64)
    weights = t.weights if classes is None else weights
    return Counts(t, rules, reps, dense, category, weights, acc_best, acc_spec if len(spec_dense) else None,
                  choice, hidden, DECK - rules.k if rules.up else 1)


def _spec_rules(spec: RulesSpec, rules: OneDecision, t: HandTables) -> tuple[np.ndarray, np.ndarray]:
    """The spec strategy's rules as (dense threshold, option index), in order; empty: none."""
    if spec.strategy is None or rules.decision not in spec.strategy.decisions:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    names = [o.name for o in rules.options]
    dense, option = [], []
    for rule in spec.strategy.decisions[rules.decision]:
        dense.append(0 if rule.at_least is None else t.dense_at_least(spec.threshold_value(rule.at_least)))
        option.append(names.index(rule.option))
    return np.array(dense, np.int64), np.array(option, np.int64)


def _category_name(key: str) -> str:
    return key.replace("_", " ")


def main_events(rules: OneDecision) -> tuple[list[tuple[str, Fraction, Fraction]], np.ndarray]:
    """The main game's events, (name, net, wagered) in table order, and ``index[option, cell,
    category]``, the event of each way a round ends: per option, per dealer cell, split by the
    player's category where the net depends on it (``win with pair``); the simulation kernel
    tallies by the same index."""
    n_cat = len(rules.categories)
    index = np.full((len(rules.options), 4, n_cat), -1, np.int64)
    raisers = [o for o in rules.options if not o.fold]
    events: list[tuple[str, Fraction, Fraction]] = []
    for o, option in enumerate(rules.options):
        prefix = f"{option.name}: " if len(raisers) > 1 and not option.fold else ""
        if option.fold:
            index[o] = len(events)
            events.append((option.name if option.name != "fold" else "fold", rules.nets[o][0][0], rules.wagered[o]))
            continue
        for cell in range(4):
            if cell == NQ and rules.qualifier is None:
                continue
            nets = rules.nets[o][cell]
            if len(set(nets)) == 1:
                index[o, cell] = len(events)
                events.append((prefix + CELLS[cell], nets[0], rules.wagered[o]))
            else:
                label = "win with" if cell == WIN else f"{CELLS[cell]} with"
                for c in range(n_cat):
                    index[o, cell, c] = len(events)
                    events.append((f"{prefix}{label} {_category_name(rules.categories[c])}", nets[c], rules.wagered[o]))
    return events, index


def main_sheet(counts: Counts, acc: np.ndarray, name: str, strategy: str, table=(), chart=()) -> WagerSheet:
    """The main game's return table (``main_events``) from the counts of one strategy."""
    rules, category = counts.rules, counts.category
    events, index = main_events(rules)
    weighted = acc * counts.weights[:, None, None]
    combos = [0] * len(events)
    for c in range(len(rules.categories)):
        sel = category == c
        if not sel.any():
            continue
        summed = weighted[sel].sum(axis=0)
        for o in range(len(rules.options)):
            for cell in range(4):
                if index[o, cell, c] >= 0:
                    combos[index[o, cell, c]] += int(summed[o, cell])
    return WagerSheet.from_combinations(name, [(e, net, n, w) for (e, net, w), n in zip(events, combos)],
                                        strategy=strategy, strategy_table=tuple(table), strategy_chart=tuple(chart))


def _rank_text(cards: np.ndarray) -> str:
    ranks = sorted((int(c) >> 2 for c in cards), reverse=True)
    return "-".join(RANK_NAMES[r] for r in ranks)


def strategy_summary(counts: Counts) -> tuple[list, list, str]:
    """What the computation chose: per category, how many (hand, up card) pairs take each option;
    and, with no up card, the weakest hand each non-fold option is taken with when the choice
    is "this hand or better" (the published form of the strategy)."""
    rules, category, weights = counts.rules, counts.category, counts.weights
    names = [o.name for o in rules.options]
    table, chart = [], []
    # (hand, up card) pairs per category and option: each class's pairs taking the option, times its size
    by_up_rank = _option_counts(counts.choice, len(names), 4)  # (hands, up-card rank or 1, option)
    per_class = by_up_rank.sum(axis=1) * weights[:, None]
    by_category = [np.bincount(category, weights=per_class[:, o].astype(np.float64), minlength=len(rules.categories))
                   for o in range(len(names))]  # exact: integers below 2^53
    for c, key in enumerate(rules.categories):
        row = {"category": _category_name(key)}
        for o, name in enumerate(names):
            row[name] = int(by_category[o][c])
        table.append(row)
        chart.append(f"  {_category_name(key):<15} " + "  ".join(f"{name} {row[name]:>14,}" for name in names))
    summary = ""
    if not rules.up:
        chosen = counts.choice[:, 0]
        order = np.argsort(counts.dense, kind="stable")
        fold = [o for o, opt in enumerate(rules.options) if opt.fold]
        plays = chosen[order] != (fold[0] if fold else -1)
        if fold and plays.any() and plays[np.argmax(plays):].all():  # "X or better"
            weakest = order[np.argmax(plays)]
            option = names[int(chosen[weakest])]
            weakest_hand = _rank_text(counts.reps[weakest])
            cat = _category_name(rules.categories[int(counts.category[weakest])])
            summary = f"{option} with {cat} {weakest_hand} or better, otherwise fold"
            chart.insert(0, f"  derived: {summary}")
    else:
        rows, lines = _by_hand_and_up_rank(counts, names, by_up_rank)
        table += rows
        chart += lines
    return table, chart, summary


@njit(cache=True)
def _option_counts(choice, n_options, group):
    """out[h, g, o]: the columns of ``choice[h]`` in group g (``group`` consecutive columns: the four
    up cards of one rank) that take option o (-1, not dealt, is not counted)."""
    n, cols = choice.shape
    out = np.zeros((n, (cols + group - 1) // group, n_options), np.int64)
    for h in range(n):
        for u in range(cols):
            o = choice[h, u]
            if o >= 0:
                out[h, u // group, o] += 1
    return out


def _marks(names: list[str]) -> list[str]:
    """One character per option for the chart: '.' for a fold, else the name's initial (a digit
    when two options share it)."""
    initials = [n[0].upper() for n in names]
    return ["." if n == "fold" else i if initials.count(i) == 1 else str(o)
            for o, (n, i) in enumerate(zip(names, initials))]


def _by_hand_and_up_rank(counts: Counts, names: list[str], by_up_rank: np.ndarray) -> tuple[list, list]:
    """Where the choice within a category depends on the hand or the dealer's up card: per hand
    ranks (high to low) and up-card rank, the (hand, up card) pairs taking each option (``by_up_rank``:
    ``_option_counts`` of the choices by up-card rank, per hand of each class). A hand whose every
    pair folds is not listed."""
    rules, weights = counts.rules, counts.weights
    by_rank = by_up_rank * weights[:, None, None]  # (hands, up-card rank, option)
    fold = [o for o, opt in enumerate(rules.options) if opt.fold]
    marks = _marks(names)
    table: list[dict[str, Any]] = []
    chart: list[str] = []
    for c, key in enumerate(rules.categories):
        sel = np.nonzero(counts.category == c)[0]
        if len(sel) == 0 or np.count_nonzero(by_rank[sel].sum(axis=(0, 1))) < 2:
            continue  # one option for every hand of the category
        if not chart:
            chart.append("  where it depends on the hand: its ranks, then the option by the dealer's up card ("
                         + ", ".join(f"{m} {name}" for m, name in zip(marks, names))
                         + ", ~ depends on suits; hands not listed always fold):")
            chart.append("  " + " " * 15 + " ".join(RANK_NAMES[r].rjust(2) for r in range(13)))
        codes = _rank_codes(counts.reps[sel])
        patterns, inverse = np.unique(codes, return_inverse=True)
        order = np.argsort(inverse.ravel(), kind="stable")  # the hands grouped by pattern, then summed
        starts = np.concatenate([[0], np.cumsum(np.bincount(inverse.ravel(), minlength=len(patterns)))[:-1]])
        summed = np.add.reduceat(by_rank[sel][order], starts, axis=0)
        used = summed > 0  # (pattern, up-card rank, option)
        n_used, first_used = used.sum(axis=2).tolist(), used.argmax(axis=2).tolist()
        all_fold = (summed[:, :, fold[0]].sum(axis=1) == summed.sum(axis=(1, 2))).tolist() if fold else None
        rows = summed.tolist()
        for i in range(len(patterns) - 1, -1, -1):  # highest ranks first
            if fold and all_fold[i]:
                continue
            hand = _pattern_text(int(patterns[i]), rules.k)
            row_marks = []
            for r in range(13):
                k = n_used[i][r]
                row_marks.append(marks[first_used[i][r]] if k == 1 else "~" if k else " ")
                if k:
                    table.append({"category": _category_name(key), "hand": hand, "up_card": RANK_NAMES[r],
                                  **{name: rows[i][r][o] for o, name in enumerate(names)}})
            chart.append(f"  {hand:<15}" + " ".join(m.rjust(2) for m in row_marks))
    return table, chart


def _rank_codes(reps: np.ndarray) -> np.ndarray:
    """Each hand's ranks, high to low, packed 4 bits each: ordered as the rank lists are."""
    k = reps.shape[1]
    ranks = -np.sort(-(reps >> 2), axis=1)
    return (ranks << (4 * np.arange(k - 1, -1, -1))).sum(axis=1)


def _pattern_text(code: int, k: int) -> str:
    """A rank code of k ranks as text such as 'A K J 8 3'."""
    return " ".join(RANK_NAMES[(code >> (4 * j)) & 15] for j in range(k - 1, -1, -1))


def side_sheets(spec: RulesSpec, counts: Counts) -> list[WagerSheet]:
    """Each side wager on the player's own hand, by category (the derived strategy's folds)."""
    folds = np.zeros(len(counts.reps), np.int64)  # up-card configurations each hand folds in
    for o, option in enumerate(counts.rules.options):
        if option.fold:
            folds += (counts.choice == o).sum(axis=1)
    out = []
    for name, w in spec.wagers.items():
        if w.made != "side":
            continue
        if w.settle.kind == "progressive":
            out.append(_progressive_sheet(name, w, counts))
        elif w.settle.kind == "pay_table":
            out.append(_pay_table_sheet(name, w, counts, folds))
        else:
            raise ShapeError(f"{spec.name}: side wager {name!r} ({w.settle.kind}) is not analysed exactly")
    return out


def _pay_table_sheet(name: str, w, counts: Counts, folds: np.ndarray) -> WagerSheet:
    """Per player hand when the strategy folds a hand in every up-card configuration or in none
    (or a fold does not lose the wager); otherwise per deal."""
    rules, p = counts.rules, w.settle.pay_table
    if p.when != "always" or (p.ranking or rules.ranking) != rules.ranking:
        raise ShapeError(f"side wager {name!r}: only a pay table on the player's own hand, paid always, "
                         "is analysed exactly")
    odds = _line_pays(p, rules.ranking)
    if p.paid_on_fold:
        folds = np.zeros_like(folds)
    per_deal = bool(((folds > 0) & (folds < counts.up_configs)).any())
    if per_deal:
        live, folded = (counts.up_configs - folds) * counts.hidden, folds * counts.hidden
    else:
        live, folded = (folds == 0).astype(np.int64), (folds > 0).astype(np.int64)
    events = []
    for c in reversed(range(len(rules.categories))):
        sel = counts.category == c
        pays = Fraction(-1) if odds[c] is None else _fraction(odds[c])
        events.append((_category_name(rules.categories[c]), pays, int((live[sel] * counts.weights[sel]).sum()), 1))
    if not p.paid_on_fold:
        events.append(("folded", Fraction(-1), int((folded * counts.weights).sum()), 1))
    return WagerSheet.from_combinations(name, events, strategy="none: paid on the player's own hand"
                                        + ("" if p.paid_on_fold else " (lost on a fold, as the derived strategy folds)"))


def _progressive_sheet(name: str, w, counts: Counts) -> WagerSheet:
    """Per player hand, by category: the progressive is paid on the player's own five cards."""
    rules, category, weights = counts.rules, counts.category, counts.weights
    prog = w.settle.progressive
    wager = _fraction(w.min)
    meter = _fraction(prog.meter_reset)
    total = int(weights.sum())
    rows, paid = [], 0
    key_index = {k: i for i, k in enumerate(rules.categories)}
    for key in reversed(rules.categories):
        entry = getattr(prog.pays, key)
        if entry is None:
            continue
        n = int(weights[category == key_index[key]].sum())
        share = Fraction(0) if entry.meter_percent is None else _fraction(entry.meter_percent) / 100 / wager
        fixed = Fraction(0) if entry.amount is None else _fraction(entry.amount) / wager
        rows.append(ReturnRow(event=_category_name(key), pays=fixed - 1 + share * meter,
                              probability=Fraction(n, total), combinations=n, meter_share=share))
        paid += n
    rows.append(ReturnRow(event="no win", pays=Fraction(-1), combinations=total - paid,
                          probability=Fraction(total - paid, total)))
    return WagerSheet(name=name, rows=tuple(rows), exact=True, meter=meter,
                      strategy="none (paid on the player's own hand)",
                      notes=(f"figures at the reset meter {prog.meter_reset}; pays in units of the "
                             f"{w.min} wager, M = the meter; a folded hand "
                             + ("keeps" if prog.paid_on_fold else "loses") + " it (every hand the meter "
                             "pays is played under the derived strategy when the figures are per hand)",))


def par_sheet(spec: RulesSpec) -> ParSheet:
    """The exact PAR sheet of a rules-model spec: a game with no dealer hand by backward induction
    (``certify.rules.induction``), a whole-hand replacement against a dealer who redraws by the
    replacement programme (``certify.analysis.mulligan``), else the one-decision shape
    (``ShapeError`` for other shapes)."""
    if replaces_hands(spec):
        from certify.analysis.mulligan import par_sheet as by_replacement

        return by_replacement(spec)
    if spec.deals("board") and spec.deals("dealer"):  # hold'em against the dealer's hidden hand
        from certify.rules.board import par_sheet as by_board

        return by_board(spec)
    if not spec.deals("dealer"):
        from certify.rules.induction import par_sheet as by_induction

        return by_induction(spec)
    counts = count(spec)
    table, chart, summary = strategy_summary(counts)
    decision = counts.rules.decision
    sees = "the player's cards" + (" and the dealer's up card" if counts.rules.up else "")
    wagers = [main_sheet(counts, counts.acc_best, "main game",
                         f"optimal (derived): at '{decision}' the option of highest exact expectation given "
                         f"{sees}" + (f"; that is: {summary}" if summary else ""), table, chart)]
    if counts.acc_spec is not None:
        rules_text = "; ".join(f"{r.option}" + (f" with {_threshold_text(r.at_least)} or better" if r.at_least else "")
                               for r in spec.strategy.decisions[decision])
        wagers.append(main_sheet(counts, counts.acc_spec, SPEC_STRATEGY_WAGER,
                                 f"the spec's: {rules_text}"))
    wagers += side_sheets(spec, counts)
    _check_cycle(wagers[0], counts)
    return ParSheet(game=spec.title, spec=spec.name, family="rules", wagers=tuple(wagers),
                    frequencies=frequencies(spec, counts))


def replaces_hands(spec: RulesSpec) -> bool:
    """A game whose decision replaces the whole hand or whose dealer redraws: the shape the
    replacement programme counts (``certify.analysis.mulligan.replacement_rules`` says what it
    needs)."""
    return spec.dealer_redraw is not None or any(o.replace for d in spec.decisions for o in d.options)


def _threshold_text(threshold) -> str:
    ranks = "-".join(RANK_NAMES[r] for r in threshold.ranks)
    return f"{_category_name(threshold.category)} {ranks}".strip()


def _check_cycle(sheet: WagerSheet, counts: Counts) -> None:
    k, up = counts.rules.k, counts.rules.up
    cycle = comb(DECK, k) * (DECK - k if up else 1) * counts.hidden
    if sheet.cycle != cycle:
        raise ParError(f"cycle {sheet.cycle} != {cycle}: the counting is wrong")


def frequencies(spec: RulesSpec, counts: Counts) -> dict[str, Any]:
    """The dealt-hand categories and the dealer's qualifying rate, in the ranking's own order."""
    rules, t, category, weights = counts.rules, counts.tables, counts.category, counts.weights
    by_cat = {_category_name(key): int(weights[category == c].sum()) for c, key in enumerate(rules.categories)}
    out: dict[str, Any] = {f"{rules.ranking}_categories": by_cat}
    if rules.qualifier is not None:
        q = t.dense_at_least(spec.threshold_value(rules.qualifier))
        hands_q = int(weights[counts.dense >= q].sum())
        total = comb(DECK, rules.k)
        p = Fraction(hands_q, total)
        out["dealer_qualifies"] = {"hands": hands_q, "of": total, "probability": float(p),
                                   "probability_exact": str(p)}
    return out
