"""Exact PAR sheets of the board shape of the rules model: hold'em against the dealer's hidden hand.

The shape (``board_shape`` checks it and names what differs): two cards to the player and two face
down to the dealer, one decision before the board, then the 5 board cards in steps with one, two or
three more decisions, each after 3, 4 or 5 of them (Ultimate Texas Hold'em: the flop (3 board
cards), a decision, the turn and river (2 board cards), a last decision); hands are the best five
of seven. One decision wager (the
Play) is made by the options in multiples of the unit wager; a decision with ``skipped_when_made``
is skipped by a seat that has made it. Options fold, check or add (Ultimate Texas Hold'em: 4x or 3x
preflop, 2x on the flop, 1x or fold on the river). Main wagers are settled against the dealer, a
dealer who does not qualify doing to each what the spec says (``action``: nothing); side wagers
are paid by a table on the player's own hand.

The counting is the street shape's (``certify.rules.board_streets_kernel``, one counting core for
both board shapes): per starting-hand class (169) one representative hole; every 5-card board (one
per suit class evaluated) values the 1,081 two-card hands left once and counts, by inclusion-exclusion
over the hole's two cards, the dealer hands below / tied / above it, split by the dealer's
qualifying: six cells and the player's category per (hole, board). The result of a path is linear
in the Play's multiple, so every value is ``base + m * unit`` over those six cells. The river
decision is taken per (hole, board), the turn decision per (hole, 4 board cards), the flop decision
per (hole, flop) from sums kept per 4-card board, the preflop decision per class; the class's
counts are its representative's times its holes (a suit permutation maps every deal of one hole
onto a deal of another). On a tie in expectation the option leaving less at risk is taken. The cycle
is every player hole x flop x turn-river pair x dealer hole: C(52,2) x C(50,3) x C(47,2) x C(45,2).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import combinations, permutations
from math import comb, lcm
from typing import Any

import numpy as np

from certify.analysis.par import ParSheet, WagerSheet
from certify.rules.analysis import LOSS, NQ, TIE, WIN, ShapeError, _category_name, _fraction, _line_pays, settle_unit
from certify.rules.board_streets import DecisionPoint
from certify.rules.model import DealStep, RulesSpec, ranking_categories

DECK = 52
CELL_NAMES = ("win, dealer qualifies", "tie, dealer qualifies", "lose, dealer qualifies",
              "win, dealer does not qualify", "tie, dealer does not qualify", "lose, dealer does not qualify")
_RESULT = (WIN, TIE, LOSS, WIN, TIE, LOSS)
BOARD_STEPS = [("decide",), ("deal", "board", 3), ("decide",), ("deal", "board", 2), ("decide",)]  # after the holes
CYCLE = comb(52, 2) * comb(50, 3) * comb(47, 2) * comb(45, 2)
SEEN = {3: "flop", 4: "four board cards", 5: "board"}  # what a decision after so many board cards sees


StageOptions = DecisionPoint  # one decision's options, by what they leave at risk (the tie-break order)


def board_steps(spec: RulesSpec) -> tuple[int, ...]:
    """The sizes of the board deals, in order ((3, 2) for Ultimate Texas Hold'em)."""
    return tuple(s.cards for s in spec.deals("board"))


def cycle_of(spec: RulesSpec, deck_size: int = DECK) -> int:
    """Player hole x the board in each order its deal steps give x dealer hole."""
    from certify.rules.board_streets import _orders

    m = deck_size - 2
    return comb(deck_size, 2) * comb(m, 5) * _orders(board_steps(spec)) * comb(m - 5, 2)


def cycle_text(spec: RulesSpec) -> str:
    if board_steps(spec) == (3, 2):
        return f"player hole x flop x turn-river x dealer hole = C(52,2) x C(50,3) x C(47,2) x C(45,2) = {CYCLE:,}"
    return (f"player hole x board dealt {' + '.join(map(str, board_steps(spec)))} (each deal unordered) x dealer "
            f"hole = {cycle_of(spec):,}")


def stages_of(shape: "BoardShape") -> tuple[StageOptions, tuple[StageOptions, ...], StageOptions]:
    """(first, the middle ones (0 to 2), last) decision."""
    return shape.stages[0], shape.stages[1:-1], shape.stages[-1]


def fold_option(stage: StageOptions) -> int | None:
    from certify.rules import board_streets_kernel as kernel

    return stage.kinds.index(kernel.FOLD) if kernel.FOLD in stage.kinds else None


def last_fold_event(last: StageOptions) -> str:
    from certify.rules import board_streets_kernel as kernel

    return f"{last.names[last.kinds.index(kernel.FOLD)]} ({last.decide})" if kernel.FOLD in last.kinds else "fold"


@dataclass(frozen=True)
class BoardShape:
    stages: tuple[StageOptions, ...]  # the first decision, then one to three more (board_cards: 3, 4, 5)
    play: str  # the decision wager
    stake: Fraction  # the unit and with-unit wagers, in unit wagers: what a fold loses
    base: tuple  # base[cell][category]: their net, Fractions
    unit: tuple  # unit[cell][category]: the Play's net per unit of its multiple
    qualify: int  # the dealer's qualifying value (best-five packing), 0: always qualifies


def board_shape(spec: RulesSpec) -> BoardShape:
    """The shape check and the rules as the counting needs them (``ShapeError`` names what differs)."""
    from certify.rules import board_kernel as kernel
    from certify.rules.board_streets import decision_points, holdem_differences

    later = [("deal", s.deal, s.cards) if isinstance(s, DealStep) else ("decide",) for s in spec.steps[2:]]
    if any(k[:2] not in (("decide",), ("deal", "board")) for k in later) or sum(k[2] for k in later if k[0] == "deal") != 5 \
            or not later or later[0] != ("decide",) or len(spec.decisions) not in (2, 3, 4):
        later = BOARD_STEPS  # the reason is then named against the common shape
    why = holdem_differences(spec, later, "a decision, the 5 board cards in steps with one, two or three more "
                             "decisions between them or after them, each after 3, 4 or 5 board cards (as a flop of 3, "
                             "a decision, 2 more board cards, a last decision)", len(spec.deals("board")),
                             "the board cards face up (the decisions see them)")
    decision_wagers = [n for n, w in spec.wagers.items() if w.made == "decision"]
    if len(decision_wagers) != 1:
        why.append("one decision wager (the Play)")
    play = decision_wagers[0] if decision_wagers else ""
    decisions = spec.decisions
    for d in decisions[1:] if len(decisions) in (2, 3, 4) else []:
        if play not in d.skipped_when_made:
            why.append(f"one Play a hand: the later decisions skipped_when_made: [{play}]")
    for d in decisions:
        for o in d.options:
            if o.pull_back or o.replace or set(o.add) - {play}:
                why.append(f"options that fold, check or add the Play ({o.name})")
    for name, w in spec.wagers.items():
        kind = w.settle.kind
        if w.made != "side" and kind != "versus_dealer":
            why.append(f"main wagers settled against the dealer ({name}: {kind})")
        if w.made == "side" and (kind != "pay_table" or w.settle.pay_table.hand != "player"
                                 or w.settle.pay_table.when != "always" or w.settle.pay_table.ranking not in (None, spec.ranking)):
            why.append(f"side wagers paid always by a table on the player's own hand ({name})")
        if kind == "versus_dealer" and w.settle.versus_dealer.bonus is not None:
            why.append(f"no Ante bonus ({name})")
    if spec.strategy is not None:
        why.append("no spec strategy (the analysis derives the strategy of every decision)")
    if why:
        raise ShapeError(f"{spec.name}: the board-shape analysis counts games with " + "; ".join(dict.fromkeys(why)))
    stages = decision_points(spec)
    main = [n for n, w in spec.wagers.items() if w.made in ("unit", "with_unit")]
    stake = sum((Fraction(1) if spec.wagers[n].made == "unit" else _fraction(spec.wagers[n].multiple_of_unit))
                for n in main)
    n_cat = len(ranking_categories(spec.ranking))
    base = tuple(tuple(sum(((Fraction(1) if spec.wagers[n].made == "unit" else _fraction(spec.wagers[n].multiple_of_unit))
                            * cell_net(spec, spec.wagers[n].settle, cell, cat) for n in main), Fraction(0))
                       for cat in range(n_cat)) for cell in range(kernel.N_CELLS))
    unit = tuple(tuple(cell_net(spec, spec.wagers[play].settle, cell, cat) for cat in range(n_cat))
                 for cell in range(kernel.N_CELLS))
    qualify = 0 if spec.dealer.qualifies is None else spec.threshold_value(spec.dealer.qualifies)
    return BoardShape(tuple(stages), play, stake, base, unit, qualify)


def cell_net(spec: RulesSpec, settle, cell: int, category: int) -> Fraction:
    """Net per unit of a wager settled against the dealer, in one of the six cells: a dealer who
    does not qualify settles it by ``dealer_not_qualifying`` unless that is ``action``."""
    v = settle.versus_dealer
    qualifies = cell < 3
    if not qualifies and v.dealer_not_qualifying not in (None, "action"):
        return settle_unit(spec, settle, NQ, category)
    return settle_unit(spec, settle, _RESULT[cell], category)


# ----------------------------------------------------------------------------------------------
# The counting.
# ----------------------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def canonical_flops() -> tuple[np.ndarray, np.ndarray]:
    """One flop per suit-permutation orbit (the smallest image) and the orbit's size: 1,755 flops
    weighing C(52, 3) = 22,100."""
    perms = list(permutations(range(4)))
    orbit: dict[tuple, int] = {}
    for flop in combinations(range(DECK), 3):
        key = min(tuple(sorted(4 * (c >> 2) + p[c & 3] for c in flop)) for p in perms)
        orbit[key] = orbit.get(key, 0) + 1
    flops = sorted(orbit)
    return np.array(flops, np.int64), np.array([orbit[f] for f in flops], np.int64)


@lru_cache(maxsize=1)
def hole_class_table() -> tuple[np.ndarray, tuple]:
    """table[x, y] = the starting-hand class (index into ``hole_classes()``) of the hole {x, y}."""
    from certify.rules.board_streets import class_of_hole, hole_classes

    classes = hole_classes()
    index = {c.name: i for i, c in enumerate(classes)}
    table = np.full((DECK, DECK), -1, np.int64)
    for x in range(DECK):
        for y in range(DECK):
            if x != y:
                table[x, y] = index[class_of_hole(x, y)]
    return table, classes


@dataclass(frozen=True)
class BoardCounts:
    shape: BoardShape
    den: int
    classes: tuple  # HoleClass
    all_cells: np.ndarray  # (class, cell, category): every board, per class (summed over its holes)
    ended_cells: np.ndarray  # (class, later decision, option, cell, category): the deals of the hands that
    #   checked before the board whose decisions ended there on that option (a Play made, a fold; at the last
    #   decision every option)
    check_value: np.ndarray  # (class,): value of checking preflop, scaled by den
    seconds: float
    cpu_seconds: float
    flops: np.ndarray | None = None  # the canonical flops counted
    flop_choice: np.ndarray | None = None  # (flop, hole pair index): the flop option taken, -1 not dealt
    turn_choice: np.ndarray | None = None  # (class, 4 cards by colex rank among the deck less the class's
    #   representative hole): the turn option taken (the walk's), -1 a class not counted
    deals: int = CYCLE  # the deals counted (a smaller game's for tests)

    def folds(self) -> np.ndarray:
        """(class, category): the deals of the hands folding after the board's first cards."""
        out = np.zeros((self.all_cells.shape[0], self.all_cells.shape[2]), np.int64)
        for s, stage in enumerate(self.shape.stages[1:]):
            f = fold_option(stage)
            if f is not None:
                out += self.ended_cells[:, s, f].sum(axis=1)
        return out


def _scaled(shape: BoardShape) -> tuple[np.ndarray, np.ndarray, int]:
    den = lcm(*(x.denominator for table in (shape.base, shape.unit) for row in table for x in row),
              *(m.denominator for s in shape.stages for m in s.mults), shape.stake.denominator)
    base = np.array([[int(x * den) for x in row] for row in shape.base], np.int64)
    unit = np.array([[int(x * den) for x in row] for row in shape.unit], np.int64)
    return base, unit, den


def count(spec: RulesSpec, deck: tuple[int, ...] | None = None, only: frozenset[str] | None = None) -> BoardCounts:
    """Count the derived strategy's paths over every starting-hand class of the full deck (minutes).

    For tests: ``deck``, a smaller deck (card codes) whose every hole is its own class (the whole
    game dealt from it: no flop table for the bulk kernel), or ``only``, the classes of the full
    deck to count (the others' counts are zero: the bulk kernel then plays only holes of these)."""
    from certify.rules import board_streets_kernel as kernel
    from certify.rules.board_streets import HoleClass, walk

    shape = board_shape(spec)
    base, unit, den = _scaled(shape)
    if any(m.denominator != 1 for s in shape.stages for m in s.mults):
        raise ShapeError(f"{spec.name}: the board-shape analysis counts whole multiples of the unit wager")
    table, classes = hole_class_table()
    if deck is not None:
        classes = tuple(HoleClass(f"{a}-{b}", (a, b), 1) for a, b in combinations(deck, 2))
    counted = [k for k, c in enumerate(classes) if only is None or c.name in only]
    deck = tuple(range(DECK)) if deck is None else tuple(deck)
    position = {card: i for i, card in enumerate(deck)}
    reps = np.array([sorted((position[classes[k].cards[0]], position[classes[k].cards[1]])) for k in counted], np.int64)
    wc = walk(deck, reps, int(shape.qualify), shape.stages, base, unit, int(-shape.stake * den), board_steps(spec))
    per_rep = [wc.all_cells, _ended_cells(shape, wc), wc.check_value]
    weights = np.array([classes[k].weight for k in counted], np.int64)
    out = []
    for a in per_rep:  # per class: the representative's counts times the class's holes
        full = np.zeros((len(classes),) + a.shape[1:], np.int64)
        full[counted] = a * weights.reshape((-1,) + (1,) * (a.ndim - 1))
        out.append(full)
    levels = [d.board_cards for d in shape.stages]
    flops = flop_choice = turn_choice = None
    if len(deck) == DECK and 3 in levels:  # the bulk kernel's tables (the full deck's)
        flops = canonical_flops()[0]
        rep_choice = np.full((len(classes), comb(DECK - 2, 3)), -1, np.int8)
        rep_choice[counted] = wc.flop_choice
        rep_cards = np.sort(np.array([c.cards for c in classes], np.int64), axis=1)
        flop_choice = kernel.flop_choice_table(flops, table, rep_cards, rep_choice, kernel.suit_permutations(deck)[0])
    if len(deck) == DECK and 4 in levels:
        turn_choice = np.full((len(classes), comb(DECK - 2, 4)), -1, np.int8)
        turn_choice[counted] = wc.turn_choice
    per_hole = cycle_of(spec, len(deck)) // comb(len(deck), 2)
    return BoardCounts(shape, den, classes, *out, wc.seconds, wc.cpu_seconds, flops, flop_choice, turn_choice,
                       per_hole * int(weights.sum()))


def _ended_cells(shape: BoardShape, wc) -> np.ndarray:
    """The walk's paths (set 0) as the sheet reads them: (rep, later decision, option, cell,
    category), each path's deals at the last decision it took (the one that ended it)."""
    from certify.rules import board_streets_kernel as kernel

    later = shape.stages[1:]
    paths = wc.path_cells[:, 0]
    n_reps, n_cat = paths.shape[0], paths.shape[-1]
    out = np.zeros((n_reps, len(later), max(len(d.names) for d in later), kernel.N_CELLS, n_cat), np.int64)
    for path in range(paths.shape[1]):
        if not paths[:, path].any():
            continue  # a path no deal takes (a decision skipped with no Play to skip it)
        taken = wc.path_of(path)
        s = max(s for s, d in enumerate(later) if taken[d.board_cards] is not None)
        out[:, s, taken[later[s].board_cards]] += paths[:, path]
    return out


_COUNTS: dict[tuple[str, bool], BoardCounts] = {}  # (spec JSON, computed under no_reads)


_COUNT_ARRAYS = ("all_cells", "ended_cells", "check_value", "flops", "flop_choice", "turn_choice")


def counts_of(spec: RulesSpec) -> BoardCounts:
    """``count(spec)`` once per process (the sheet and the bulk kernel both need it), kept as a
    table entry of the PAR-sheet cache (``certify.analysis.cache.cached_tables``): a warm run
    builds its kernel without counting again."""
    from certify.analysis.cache import cached_tables, reads_refused

    key = (spec.model_dump_json(), bool(reads_refused()))  # counts read from the cache serve no recomputation
    if key not in _COUNTS:
        def compute():
            bc = count(spec)
            return {name: getattr(bc, name) for name in _COUNT_ARRAYS if getattr(bc, name) is not None}, {"seconds": bc.seconds,
                                                                          "cpu_seconds": bc.cpu_seconds}

        arrays, values, _ = cached_tables("board-counts", spec, compute)
        shape = board_shape(spec)
        _COUNTS[key] = BoardCounts(shape, _scaled(shape)[2], hole_class_table()[1],
                                   **{name: arrays.get(name) for name in _COUNT_ARRAYS},
                                   seconds=float(values["seconds"]), cpu_seconds=float(values["cpu_seconds"]),
                                   deals=cycle_of(spec))
    return _COUNTS[key]


# ----------------------------------------------------------------------------------------------
# The sheet.
# ----------------------------------------------------------------------------------------------
def _value(cells: np.ndarray, m: Fraction, shape: BoardShape) -> Fraction:
    """The exact net of a path over ``cells`` (cell, category) at Play multiple m, in unit wagers."""
    total = Fraction(0)
    for c in range(cells.shape[0]):
        for cat in range(cells.shape[1]):
            n = int(cells[c, cat])
            if n:
                total += n * (shape.base[c][cat] + m * shape.unit[c][cat])
    return total


@dataclass(frozen=True)
class PreflopChoice:
    name: str
    weight: int  # holes in the class
    option: int  # index into the preflop StageOptions
    values: tuple[Fraction, ...]  # per option: expected net per hand, in unit wagers


def preflop_choices(bc: BoardCounts) -> list[PreflopChoice]:
    from certify.rules import board_kernel as kernel

    shape = bc.shape
    pre = shape.stages[0]
    out = []
    for k, cls in enumerate(bc.classes):
        deals = max(1, int(bc.all_cells[k].sum()))  # C(50,3) x C(47,2) x C(45,2) a hole when every flop is dealt
        values = []
        for kind, m in zip(pre.kinds, pre.mults):
            if kind == kernel.FOLD:
                values.append(-shape.stake)
            elif kind == kernel.CHECK:
                values.append(Fraction(int(bc.check_value[k]), bc.den * deals))
            else:
                values.append(_value(bc.all_cells[k], m, shape) / deals)
        best = max(range(len(values)), key=lambda o: (values[o], -o))  # first (least at risk) on a tie
        out.append(PreflopChoice(cls.name, cls.weight, best, tuple(values)))
    return out


def event_runs(m: Fraction, shape: BoardShape, n_categories: int) -> list[tuple[int, list[int]]]:
    """(cell, categories) of each event of a path at Play multiple m: per cell, the runs of
    categories (strongest first) paying the same merged into one event."""
    out = []
    for c in range(len(shape.base)):
        run: list[int] = []
        for cat in reversed(range(n_categories)):
            pays = shape.base[c][cat] + m * shape.unit[c][cat]
            if run and shape.base[c][run[-1]] + m * shape.unit[c][run[-1]] != pays:
                out.append((c, run))
                run = []
            run.append(cat)
        out.append((c, run))
    return out


def _events(label: str, cells: np.ndarray, m: Fraction, shape: BoardShape, categories) -> list[tuple]:
    """Rows of one path: per cell, runs of categories with the same pay merged."""
    out = [_row(label, c, run, cells, m, shape, categories) for c, run in event_runs(m, shape, cells.shape[1])]
    return [row for row in out if row[2]]


def _row(label, c, run, cells, m, shape, categories) -> tuple:
    names = [_category_name(categories[k]) for k in (run[0], run[-1])]
    text = names[0] if len(run) == 1 else f"{names[1]} to {names[0]}"
    n = int(sum(int(cells[c, k]) for k in run))
    return (f"{label}: {CELL_NAMES[c]}, {text}", shape.base[c][run[0]] + m * shape.unit[c][run[0]], n,
            shape.stake + m)


def played_cells(bc: BoardCounts) -> tuple[dict[tuple, list], int]:
    """The derived strategy's deals: per path (option name, Play multiple; None for a fold before
    the last decision) the (cell, category) arrays played on it, and the last decision's folds."""
    from certify.rules import board_kernel as kernel

    pre, middle, last = stages_of(bc.shape)
    by_path: dict[tuple, list] = {}
    last_folds = np.zeros(bc.all_cells.shape[2], np.int64)
    last_fold = fold_option(last)
    for k, ch in enumerate(preflop_choices(bc)):
        kind, m = pre.kinds[ch.option], pre.mults[ch.option]
        if kind == kernel.ADD:
            by_path.setdefault((pre.names[ch.option], m), []).append(bc.all_cells[k])
        elif kind == kernel.FOLD:
            by_path.setdefault((f"fold ({pre.decide})", None), []).append(bc.all_cells[k])
        else:
            for s, stage in enumerate(middle):
                for o, (sk, sm) in enumerate(zip(stage.kinds, stage.mults)):
                    if sk == kernel.ADD:
                        by_path.setdefault((stage.names[o], sm), []).append(bc.ended_cells[k, s, o])
                f = fold_option(stage)
                if f is not None and bc.ended_cells[k, s, f].any():
                    folded = bc.ended_cells[k, s, f].sum(axis=0)[None, :]
                    by_path.setdefault((f"fold ({stage.decide})", None), []).append(folded)
            for o, (lk, lm) in enumerate(zip(last.kinds, last.mults)):
                if lk != kernel.FOLD:
                    by_path.setdefault((last.names[o], lm), []).append(bc.ended_cells[k, len(middle), o])
            if last_fold is not None:
                last_folds += bc.ended_cells[k, len(middle), last_fold].sum(axis=0)
    return by_path, int(last_folds.sum())


def main_return(bc: BoardCounts) -> Fraction:
    """The exact expected net per deal (unit wagers) under the derived strategy."""
    by_path, river_folds = played_cells(bc)
    total = Fraction(-river_folds) * bc.shape.stake
    deals = river_folds
    for (label, m), parts in by_path.items():
        for cells in parts:
            deals += int(cells.sum())
            total += -int(cells.sum()) * bc.shape.stake if m is None else _value(cells, m, bc.shape)
    return total / deals


def main_sheet(spec: RulesSpec, bc: BoardCounts, full: bool = True) -> WagerSheet:
    from certify.rules import board_kernel as kernel

    shape = bc.shape
    categories = ranking_categories(spec.ranking)
    pre, _, last = stages_of(shape)
    choices = preflop_choices(bc)
    zero = np.zeros_like(bc.all_cells[0])
    by_path, river_folds = played_cells(bc)
    events = []
    for (label, m), parts in by_path.items():
        cells = sum(parts, zero.copy()) if m is not None else None
        if m is None:
            events.append((label, -shape.stake, int(sum(int(p.sum()) for p in parts)), shape.stake))
        else:
            events += _events(label, cells, m, shape, categories)
    events.append((last_fold_event(last), -shape.stake, river_folds, shape.stake))
    events = [e for e in events if e[2]]
    table, chart = _strategy_report(bc, choices)
    sheet = WagerSheet.from_combinations(
        "main game", events,
        strategy=(f"optimal (derived): at '{pre.decide}' per starting hand, "
                  + "".join(f"at '{d.decide}' per hole and {SEEN[d.board_cards]}, " for d in shape.stages[1:])
                  + "the option of highest exact expectation against the dealer's unseen hand (on a tie, the one "
                    "leaving less at risk)"),
        strategy_table=table, strategy_chart=chart,
        notes=(f"amounts per unit wager ({spec.unit}); cycle: {cycle_text(spec)}",))
    if full and sheet.cycle != bc.deals:
        raise ShapeError(f"cycle {sheet.cycle} != {bc.deals}: the counting is wrong")
    return sheet


def _strategy_report(bc: BoardCounts, choices: list[PreflopChoice]) -> tuple[list[dict], list[str]]:
    from certify.cards import RANKS
    from certify.rules import board_kernel as kernel

    pre, middle, last = stages_of(bc.shape)
    table = []
    for k, ch in enumerate(choices):
        per_hole = max(1, int(bc.all_cells[k].sum()))  # the class's deals: C(50,3) x C(47,2) x C(45,2) a hole
        row = {"hand": ch.name, "combinations": ch.weight, "decision": pre.names[ch.option]}
        for name, v in zip(pre.names, ch.values):
            row[f"ev_{name}"] = float(v)
            row[f"ev_{name}_exact"] = str(v)
        if pre.kinds[ch.option] == kernel.CHECK:
            rates: dict[str, int] = {}  # an option's deals by its name (summed where two decisions share one)
            for s, stage in enumerate(bc.shape.stages[1:]):
                for o, name in enumerate(stage.names):
                    if stage.kinds[o] == kernel.ADD or (s == len(middle) and stage.kinds[o] != kernel.FOLD):
                        rates[f"{name}_rate"] = rates.get(f"{name}_rate", 0) + int(bc.ended_cells[k, s, o].sum())
                    elif stage.kinds[o] == kernel.FOLD and s < len(middle):
                        rates[f"fold_{stage.decide}_rate"] = int(bc.ended_cells[k, s, o].sum())
            f = fold_option(last)
            rates["river_fold_rate"] = 0 if f is None else int(bc.ended_cells[k, len(middle), f].sum())
            row.update({key: float(Fraction(n, per_hole)) for key, n in rates.items()})
        table.append(row)
    marks = {}
    for o, name in enumerate(pre.names):
        kind = pre.kinds[o]
        marks[o] = "c" if kind == kernel.CHECK else "f" if kind == kernel.FOLD else str(pre.mults[o])
    by_name = {ch.name: ch for ch in choices}
    if len(by_name) != 169:  # a smaller deck's game (tests): no chart
        return table, []
    legend = ", ".join(f"{marks[o]} {pre.names[o]}" for o in range(len(pre.names)))
    chart = [f"{pre.decide} (row = first rank, suited above the diagonal, offsuit below; {legend}):",
             "    " + " ".join(RANKS[::-1])]
    for i in range(12, -1, -1):
        row = []
        for j in range(12, -1, -1):
            key = RANKS[i] * 2 if i == j else (RANKS[i] + RANKS[j] + "s" if j < i else RANKS[j] + RANKS[i] + "o")
            row.append(marks[by_name[key].option][0])
        chart.append(f"  {RANKS[i]} " + " ".join(row))
    return table, chart


def side_sheets(spec: RulesSpec, bc: BoardCounts) -> list[WagerSheet]:
    """Each side wager by the player's final category (every deal; a fold loses it unless
    ``paid_on_fold``, as the derived strategy folds)."""
    categories = ranking_categories(spec.ranking)
    by_cat = bc.all_cells.sum(axis=(0, 1))
    from certify.rules import board_kernel as kernel

    pre = bc.shape.stages[0]
    folded = bc.folds().sum(axis=0)  # after board cards, and before them (every deal of a class folding)
    for k, ch in enumerate(preflop_choices(bc)):
        if pre.kinds[ch.option] == kernel.FOLD:
            folded = folded + bc.all_cells[k].sum(axis=0)
    out = []
    for name, w in spec.wagers.items():
        if w.made != "side":
            continue
        p = w.settle.pay_table
        odds = _line_pays(p, spec.ranking)
        live = by_cat if p.paid_on_fold else by_cat - folded
        events = []
        for c in reversed(range(len(categories))):
            pays = Fraction(-1) if odds[c] is None else _fraction(odds[c])
            events.append((_category_name(categories[c]), pays, int(live[c]), 1))
        if not p.paid_on_fold:
            events.append(("folded", Fraction(-1), int(folded.sum()), 1))
        out.append(WagerSheet.from_combinations(
            name, events, strategy="none: paid on the player's own hand"
            + ("" if p.paid_on_fold else " (lost on a fold, as the derived strategy folds)"),
            notes=(f"per deal of the main game's cycle ({cycle_of(spec):,})",)))
    return out


def par_sheet(spec: RulesSpec) -> ParSheet:
    """The exact PAR sheet: main game with the derived strategy, then each side wager (a game with
    a wager on each street: ``certify.rules.board_streets``)."""
    from certify.rules import board_streets

    if board_streets.is_street_shape(spec):
        return board_streets.par_sheet(spec)
    bc = counts_of(spec)
    main = main_sheet(spec, bc)
    choices = preflop_choices(bc)
    pre = bc.shape.stages[0]
    taken = {name: sum(ch.weight for ch in choices if pre.names[ch.option] == name) for name in pre.names}
    by_option: dict[str, Fraction] = {}
    for row in main.rows:  # the share of deals ending on each option (the Play's size, or a fold)
        option = row.event.split(":")[0].split(" (")[0]
        by_option[option] = by_option.get(option, Fraction(0)) + row.probability
    frequencies: dict[str, Any] = {
        f"{pre.decide}_holes_by_option": taken,
        "deals_by_final_option": {k: float(v) for k, v in by_option.items()},
        "deals_by_final_option_exact": {k: str(v) for k, v in by_option.items()},
        "dealer_qualifier": str(spec.dealer.qualifies.category) if spec.dealer.qualifies else None}
    return ParSheet(game=spec.title, spec=spec.name, family="rules", wagers=(main, *side_sheets(spec, bc)),
                    frequencies=frequencies)


# ----------------------------------------------------------------------------------------------
# The bulk kernel: the derived strategy played deck by deck (certify.games.kernels.Kernel).
# ----------------------------------------------------------------------------------------------
def flop_lookup(flops: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lookup, perm, perms): for every flop by colex rank of its sorted cards, the index of its
    orbit's flop in ``flops`` (-1: not counted) and a suit permutation (row of ``perms``: card ->
    card, the first in ``itertools.permutations`` order) carrying it there."""
    from certify.rules.board_sim import flop_images

    table = list(permutations(range(4)))
    perms = np.array([[4 * (c >> 2) + p[c & 3] for c in range(DECK)] for p in table], np.int64)
    lookup, perm = flop_images(np.ascontiguousarray(flops, np.int64), perms)
    return lookup, perm, perms


def rep_permutations(hole_class: np.ndarray, rep_cards: np.ndarray, perms: np.ndarray) -> np.ndarray:
    """``out[x, y]``: a row of ``perms`` (the first) carrying the hole {x, y} onto its class's
    representative ``rep_cards[hole_class[x, y]]`` (sorted)."""
    rows = perms.tolist()
    out = np.zeros((DECK, DECK), np.int64)
    for x in range(DECK):
        for y in range(DECK):
            if x != y:
                rep = sorted(int(c) for c in rep_cards[hole_class[x, y]])
                out[x, y] = next(p for p, row in enumerate(rows) if sorted((row[x], row[y])) == rep)
    return out


def board_kernel(spec: RulesSpec, bc: BoardCounts | None = None):
    """The bulk kernel of a board-shape spec, playing the derived strategy; its events are the
    PAR sheet's rows (``main_sheet``, ``side_sheets``), so a simulation is tallied against them.

    The decisions as integer tables by level (board cards seen 0, 3, 4, 5; ``n_opts`` 0 where the
    game has none): the preflop option per class, the flop's from the count's table of canonical
    flops (``flop_choice``), the turn's from the walk's per class representative (``turn_choice``,
    the hole and board carried onto the representative by a suit permutation), the river's from the
    river option table (exact per board)."""
    from certify.games.kernels import Kernel, KernelError, WagerEvents, _scale
    from certify.rules import board_kernel as kernel
    from certify.rules import board_streets
    from certify.rules.board_sim import N_BOARDS, N_CANONICAL_FLOPS, river_table

    if board_streets.is_street_shape(spec):  # a wager on each street: the spec strategy's kernel
        return board_streets.street_kernel(spec)
    bc = counts_of(spec) if bc is None else bc
    shape = bc.shape
    base, unit, den = _scaled(shape)
    levels = [d.board_cards for d in shape.stages]
    if (3 in levels and bc.flop_choice is None) or (4 in levels and bc.turn_choice is None):
        raise KernelError(f"{spec.name}: the board shape's bulk kernel plays the full deck's decision tables; these "
                          "counts have none (a smaller deck's)")
    pre, _, last = stages_of(shape)
    categories = ranking_categories(spec.ranking)
    sheet = main_sheet(spec, bc, full=bc.flops is None or len(bc.flops) == N_CANONICAL_FLOPS)
    names = [row.event for row in sheet.rows]
    main = WagerEvents("main", names, [Fraction(row.pays) for row in sheet.rows], _scale([row.pays for row in sheet.rows]))
    n_levels = len(board_streets.BOARD_LEVELS)
    n_opts = np.zeros(n_levels, np.int64)
    kinds = np.zeros((n_levels, kernel.MAX_OPTIONS), np.int64)
    index = np.full((n_levels, kernel.MAX_OPTIONS, kernel.N_CELLS, len(categories)), -1, np.int64)
    fold_index = np.full(n_levels, -1, np.int64)
    for stage in shape.stages:
        level = board_streets.BOARD_LEVELS.index(stage.board_cards)
        n_opts[level] = len(stage.names)
        kinds[level, :len(stage.kinds)] = stage.kinds
        for o, (name, kind, m) in enumerate(zip(stage.names, stage.kinds, stage.mults)):
            if kind == kernel.FOLD:
                label = last_fold_event(stage) if stage is last else f"fold ({stage.decide})"
                fold_index[level] = names.index(label) if label in names else -1
                continue
            for c, run in event_runs(m, shape, len(categories)):
                label = _row(name, c, run, np.zeros((kernel.N_CELLS, len(categories))), m, shape, categories)[0]
                for cat in run:
                    index[level, o, c, cat] = names.index(label) if label in names else -1
    next_level = np.array([next((j for j in range(i + 1, n_levels) if n_opts[j]), -1) for i in range(n_levels)],
                          np.int64)  # per level, the next one with a decision (-1: none)
    table, classes = hole_class_table()
    class_option = np.array([ch.option for ch in preflop_choices(bc)], np.int64)
    lookup, perm, perms = flop_lookup(bc.flops if bc.flops is not None else canonical_flops()[0])
    rep_cards = np.sort(np.array([c.cards for c in classes], np.int64), axis=1)
    turn = bc.turn_choice if bc.turn_choice is not None else np.zeros((1, 1), np.int8)
    rep_perm = (rep_permutations(table, rep_cards, perms) if bc.turn_choice is not None
                else np.zeros((DECK, DECK), np.int64))
    if 5 in levels:
        river = shape.stages[levels.index(5)]
        river_kind, river_mult = np.array(river.kinds, np.int64), np.array([int(m) for m in river.mults], np.int64)
        board_row, river_options, river_bits = river_table(spec, bc)
    else:  # no decision after the river card: no table read
        river_kind, river_mult = np.array([kernel.CHECK], np.int64), np.zeros(1, np.int64)
        board_row, river_options, river_bits = np.full(N_BOARDS, -1, np.int32), np.zeros((1, 1), np.uint8), 1
    wagers = [main]
    side_index, side_fold, side_paid = [], [], []
    for side in side_sheets(spec, bc):
        side_names = [row.event for row in side.rows]
        wagers.append(WagerEvents(side.name, side_names, [Fraction(row.pays) for row in side.rows],
                                  _scale([row.pays for row in side.rows])))
        side_index.append([side_names.index(_category_name(categories[c])) for c in range(len(categories))])
        side_fold.append(side_names.index("folded") if "folded" in side_names else -1)
        side_paid.append(spec.wagers[side.name].settle.pay_table.paid_on_fold)
    if len(names) > 127:
        raise KernelError(f"{spec.name}: {len(names)} main events, more than the kernel's 127")
    params = {"board": True, "hole_class": table, "class_option": class_option, "n_opts": n_opts, "kinds": kinds,
              "next_level": next_level, "flop_lookup": lookup, "flop_perm": perm, "perms": perms,
              "flop_choice": bc.flop_choice if bc.flop_choice is not None else np.zeros((1, 1), np.int8),
              "rep_perm": rep_perm, "rep_cards": rep_cards, "turn_choice": turn,
              "river_kind": river_kind, "river_mult": river_mult, "base": base, "unit": unit,
              "fold_river": int(-shape.stake * den), "qual": int(shape.qualify),
              "board_row": board_row, "river_table": river_options, "river_bits": river_bits,
              "index": index, "fold_index": fold_index,
              "side_index": np.array(side_index, np.int64).reshape(len(side_index), len(categories)),
              "side_fold": np.array(side_fold, np.int64), "side_paid_on_fold": np.array(side_paid, np.bool_)}
    return Kernel(9, 9, wagers, "7", params)


def derived_option(p: dict, level: int, h0: int, h1: int, board: np.ndarray, used: np.ndarray, cnt: np.ndarray) -> int:
    """The derived strategy's option (index into the stage's options) after ``level`` board cards
    (``board``, as dealt), read from the bulk kernel's tables ``p`` by its own decision functions."""
    from certify.rules import board_kernel as kernel

    if level == 0:
        return int(p["class_option"][p["hole_class"][h0, h1]])
    if level == 3:
        return int(kernel.flop_option(h0, h1, board, p["flop_lookup"], p["flop_perm"], p["perms"], p["flop_choice"]))
    if level == 4:
        return int(kernel.turn_option(h0, h1, board, p["hole_class"], p["rep_perm"], p["rep_cards"], p["perms"],
                                      p["turn_choice"]))
    return int(kernel.river_option(h0, h1, board, p["qual"], p["river_kind"], p["river_mult"], p["base"], p["unit"],
                                   p["fold_river"], used, cnt))


def play_rounds(decks, p, ev, dealt) -> None:
    from certify.rules import board_sim

    if p.get("streets"):
        from certify.rules.board_streets import play_rounds as play_streets

        play_streets(decks, p, ev, dealt)
        return

    out = np.empty((decks.shape[0], ev.shape[1]), np.int64)
    board_sim.play_board_rounds(decks, p["hole_class"], p["class_option"], p["n_opts"], p["kinds"], p["next_level"],
                                p["flop_lookup"], p["flop_perm"], p["perms"], p["flop_choice"], p["rep_perm"],
                                p["rep_cards"], p["turn_choice"], p["river_kind"], p["river_mult"], p["base"],
                                p["unit"], p["fold_river"], p["qual"], p["board_row"], p["river_table"],
                                p["river_bits"], p["index"], p["fold_index"], p["side_index"], p["side_fold"],
                                p["side_paid_on_fold"], out, dealt)
    if (out < 0).any():
        from certify.games.kernels import KernelError

        raise KernelError("a round ended in an event the PAR sheet gives no deal: the kernel and the sheet disagree")
    ev[:] = out
