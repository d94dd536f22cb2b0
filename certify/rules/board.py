"""Exact PAR sheets of the board shape of the rules model: hold'em against the dealer's hidden hand.

The shape (``board_shape`` checks it and names what differs): two cards to the player and two face
down to the dealer, one decision before the flop, the flop (3 board cards), a decision, the turn and
river (2 board cards), a last decision; hands are the best five of seven. One decision wager (the
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
decision is taken per (hole, board), the flop decision per (hole, flop) from sums kept per 4-card
board, the preflop decision per class; the class's counts are its representative's times its
holes (a suit permutation maps every deal of one hole onto a deal of another). On a tie in
expectation the option leaving less at risk is taken. The cycle is every player hole x flop x
turn-river pair x dealer hole: C(52,2) x C(50,3) x C(47,2) x C(45,2).
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
STAGES = ("preflop", "flop", "river")  # the decisions, by board cards seen: 0, 3, 5
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


def stages_of(shape: "BoardShape") -> tuple[StageOptions, StageOptions | None, StageOptions]:
    """(first, middle or None, last) decision."""
    return shape.stages[0], shape.stages[1] if len(shape.stages) == 3 else None, shape.stages[-1]


def last_fold_event(last: StageOptions) -> str:
    from certify.rules import board_streets_kernel as kernel

    return f"{last.names[last.kinds.index(kernel.FOLD)]} ({last.decide})" if kernel.FOLD in last.kinds else "fold"


@dataclass(frozen=True)
class BoardShape:
    stages: tuple[StageOptions, ...]  # the first decision, then one or two more (board_cards: 3, 4 or 5)
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
            or not later or later[0] != ("decide",) or len(spec.decisions) not in (2, 3):
        later = BOARD_STEPS  # the reason is then named against the common shape
    why = holdem_differences(spec, later, "a decision, the 5 board cards in steps with one or two more decisions "
                             "between them or after them (as a flop of 3, a decision, 2 more board cards, a last "
                             "decision)", len(spec.deals("board")), "the board cards face up (the decisions see them)")
    decision_wagers = [n for n, w in spec.wagers.items() if w.made == "decision"]
    if len(decision_wagers) != 1:
        why.append("one decision wager (the Play)")
    play = decision_wagers[0] if decision_wagers else ""
    decisions = spec.decisions
    for d in decisions[1:] if len(decisions) in (2, 3) else []:
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
    flop_cells: np.ndarray  # (class, flop option, cell, category): the hands taking each flop option
    river_cells: np.ndarray  # (class, river option, cell, category)
    river_fold: np.ndarray  # (class, category): dealer hands of the river folds
    flop_fold: np.ndarray  # (class, category)
    check_value: np.ndarray  # (class,): value of checking preflop, scaled by den
    seconds: float
    cpu_seconds: float
    flops: np.ndarray | None = None  # the canonical flops counted
    flop_choice: np.ndarray | None = None  # (flop, hole pair index): the flop option taken, -1 not dealt
    deals: int = CYCLE  # the deals counted (a smaller game's for tests)


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
    per_rep = [wc.all_cells, *_stage_arrays(shape, wc), wc.check_value, wc.flop_choice]
    weights = np.array([classes[k].weight for k in counted], np.int64)
    out = []
    for a in per_rep[:6]:  # per class: the representative's counts times the class's holes
        full = np.zeros((len(classes),) + a.shape[1:], np.int64)
        full[counted] = a * weights.reshape((-1,) + (1,) * (a.ndim - 1))
        out.append(full)
    flops = flop_choice = None
    if len(deck) == DECK and [d.board_cards for d in shape.stages] == [0, 3, 5]:  # the bulk kernel's tables
        flops = canonical_flops()[0]
        rep_choice = np.full((len(classes), comb(DECK - 2, 3)), -1, np.int8)
        rep_choice[counted] = per_rep[6]
        rep_cards = np.sort(np.array([c.cards for c in classes], np.int64), axis=1)
        flop_choice = kernel.flop_choice_table(flops, table, rep_cards, rep_choice, kernel.suit_permutations(deck)[0])
    per_hole = cycle_of(spec, len(deck)) // comb(len(deck), 2)
    return BoardCounts(shape, den, classes, *out, wc.seconds, wc.cpu_seconds, flops, flop_choice,
                       per_hole * int(weights.sum()))


def _stage_arrays(shape: BoardShape, wc) -> tuple[np.ndarray, ...]:
    """The walk's paths (set 0) as the sheet reads them: ``flop_cells`` (rep, flop option, cell,
    category: the Play made or the fold on the flop), ``river_cells`` (rep, river option, ...: the
    flop checked), ``river_fold`` and ``flop_fold`` (rep, category)."""
    from certify.rules import board_streets_kernel as kernel

    _, flop, river = stages_of(shape)
    paths = wc.path_cells[:, 0]
    n_reps, n_cat = paths.shape[0], paths.shape[-1]
    flop_cells = np.zeros((n_reps, len(flop.names) if flop else 0, kernel.N_CELLS, n_cat), np.int64)
    river_cells = np.zeros((n_reps, len(river.names), kernel.N_CELLS, n_cat), np.int64)
    river_fold = np.zeros((n_reps, n_cat), np.int64)
    flop_fold = np.zeros((n_reps, n_cat), np.int64)
    for path in range(paths.shape[1]):
        if not paths[:, path].any():
            continue  # a path no deal takes (the river skipped with no Play to skip it)
        taken = wc.path_of(path)
        fo, ro = taken[flop.board_cards] if flop else None, taken[river.board_cards]
        if ro is None and flop.kinds[fo] == kernel.ADD:
            flop_cells[:, fo] += paths[:, path]
        elif ro is None:
            flop_fold += paths[:, path].sum(axis=1)
        elif river.kinds[ro] == kernel.FOLD:
            river_fold += paths[:, path].sum(axis=1)
        else:
            river_cells[:, ro] += paths[:, path]
    return flop_cells, river_cells, river_fold, flop_fold


_COUNTS: dict[tuple[str, bool], BoardCounts] = {}  # (spec JSON, computed under no_reads)


_COUNT_ARRAYS = ("all_cells", "flop_cells", "river_cells", "river_fold", "flop_fold", "check_value", "flops",
                 "flop_choice")


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
    the river) the (cell, category) arrays played on it, and the river folds."""
    from certify.rules import board_kernel as kernel

    pre, flop, river = stages_of(bc.shape)
    by_path: dict[tuple, list] = {}
    river_folds = np.zeros(bc.river_fold.shape[1], np.int64)
    for k, ch in enumerate(preflop_choices(bc)):
        kind, m = pre.kinds[ch.option], pre.mults[ch.option]
        if kind == kernel.ADD:
            by_path.setdefault((pre.names[ch.option], m), []).append(bc.all_cells[k])
        elif kind == kernel.FOLD:
            by_path.setdefault((f"fold ({pre.decide})", None), []).append(bc.all_cells[k])
        else:
            for o, (fk, fm) in enumerate(zip(flop.kinds, flop.mults) if flop else ()):
                if fk == kernel.ADD:
                    by_path.setdefault((flop.names[o], fm), []).append(bc.flop_cells[k, o])
            if bc.flop_fold[k].any():
                by_path.setdefault((f"fold ({flop.decide})", None), []).append(bc.flop_fold[k][None, :])
            for o, (rk, rm) in enumerate(zip(river.kinds, river.mults)):
                if rk != kernel.FOLD:
                    by_path.setdefault((river.names[o], rm), []).append(bc.river_cells[k, o])
            river_folds += bc.river_fold[k]
    return by_path, int(river_folds.sum())


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
    pre, flop, river = stages_of(shape)
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
    events.append((last_fold_event(river),
                   -shape.stake, river_folds, shape.stake))
    events = [e for e in events if e[2]]
    table, chart = _strategy_report(bc, choices)
    sheet = WagerSheet.from_combinations(
        "main game", events,
        strategy=(f"optimal (derived): at '{pre.decide}' per starting hand, "
                  + "".join(f"at '{d.decide}' per hole and {SEEN[d.board_cards]}, " for d in (flop, river) if d)
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

    pre, flop, river = stages_of(bc.shape)
    table = []
    for k, ch in enumerate(choices):
        per_hole = max(1, int(bc.all_cells[k].sum()))  # the class's deals: C(50,3) x C(47,2) x C(45,2) a hole
        row = {"hand": ch.name, "combinations": ch.weight, "decision": pre.names[ch.option]}
        for name, v in zip(pre.names, ch.values):
            row[f"ev_{name}"] = float(v)
            row[f"ev_{name}_exact"] = str(v)
        if pre.kinds[ch.option] == kernel.CHECK:
            for o, name in enumerate(flop.names if flop else ()):
                if flop.kinds[o] == kernel.ADD:
                    row[f"{name}_rate"] = float(Fraction(int(bc.flop_cells[k, o].sum()), per_hole))
            for o, name in enumerate(river.names):
                if river.kinds[o] != kernel.FOLD:
                    row[f"{name}_rate"] = float(Fraction(int(bc.river_cells[k, o].sum()), per_hole))
            row["river_fold_rate"] = float(Fraction(int(bc.river_fold[k].sum()), per_hole))
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
    folded = bc.river_fold.sum(axis=0) + bc.flop_fold.sum(axis=0)
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


def board_kernel(spec: RulesSpec, bc: BoardCounts | None = None):
    """The bulk kernel of a board-shape spec, playing the derived strategy; its events are the
    PAR sheet's rows (``main_sheet``, ``side_sheets``), so a simulation is tallied against them."""
    from certify.games.kernels import Kernel, KernelError, WagerEvents, _scale
    from certify.rules import board_kernel as kernel
    from certify.rules import board_streets
    from certify.rules.board_sim import N_CANONICAL_FLOPS, river_table

    if board_streets.is_street_shape(spec):  # a wager on each street: the spec strategy's kernel
        return board_streets.street_kernel(spec)
    bc = counts_of(spec) if bc is None else bc
    shape = bc.shape
    base, unit, den = _scaled(shape)
    if [d.board_cards for d in shape.stages] != [0, 3, 5]:
        raise KernelError(f"{spec.name}: the board shape's bulk kernel plays decisions before the flop, on the flop "
                          f"and on the river; this game decides after {[d.board_cards for d in shape.stages]} board cards "
                          "(its exact sheet is counted: certify analyze)")
    pre, flop, river = shape.stages
    categories = ranking_categories(spec.ranking)
    sheet = main_sheet(spec, bc, full=bc.flops is None or len(bc.flops) == N_CANONICAL_FLOPS)
    names = [row.event for row in sheet.rows]
    main = WagerEvents("main", names, [Fraction(row.pays) for row in sheet.rows], _scale([row.pays for row in sheet.rows]))

    def index_of(stage: StageOptions) -> np.ndarray:
        out = np.full((len(stage.names), kernel.N_CELLS, len(categories)), -1, np.int64)
        for o, (name, kind, m) in enumerate(zip(stage.names, stage.kinds, stage.mults)):
            if kind == kernel.FOLD:
                continue
            for c, run in event_runs(m, shape, len(categories)):
                label = _row(name, c, run, np.zeros((kernel.N_CELLS, len(categories))), m, shape, categories)[0]
                for cat in run:
                    out[o, c, cat] = names.index(label) if label in names else -1
        return out

    def fold_at(label: str) -> int:
        return names.index(label) if label in names else -1
    folds = np.array([fold_at(f"fold ({pre.decide})"), fold_at(f"fold ({flop.decide})"), fold_at(last_fold_event(river))],
                     np.int64)
    table, _ = hole_class_table()
    class_option = np.array([ch.option for ch in preflop_choices(bc)], np.int64)
    lookup, perm, perms = flop_lookup(bc.flops if bc.flops is not None else canonical_flops()[0])
    board_row, river_options, river_bits = river_table(spec, bc)
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
    params = {"board": True, "hole_class": table, "class_option": class_option,
              "pre_kind": np.array(pre.kinds, np.int64), "flop_lookup": lookup, "flop_perm": perm, "perms": perms,
              "flop_choice": bc.flop_choice, "flop_kind": np.array(flop.kinds, np.int64),
              "river_kind": np.array(river.kinds, np.int64),
              "river_mult": np.array([int(m) for m in river.mults], np.int64), "base": base, "unit": unit,
              "fold_river": int(-shape.stake * den), "qual": int(shape.qualify),
              "board_row": board_row, "river_table": river_options, "river_bits": river_bits,
              "pre_index": index_of(pre), "flop_index": index_of(flop), "river_index": index_of(river),
              "fold_index": folds, "side_index": np.array(side_index, np.int64).reshape(len(side_index), len(categories)),
              "side_fold": np.array(side_fold, np.int64), "side_paid_on_fold": np.array(side_paid, np.bool_)}
    return Kernel(9, 9, wagers, "7", params)


def play_rounds(decks, p, ev, dealt) -> None:
    from certify.rules import board_sim

    if p.get("streets"):
        from certify.rules.board_streets import play_rounds as play_streets

        play_streets(decks, p, ev, dealt)
        return

    out = np.empty((decks.shape[0], ev.shape[1]), np.int64)
    board_sim.play_board_rounds(decks, p["hole_class"], p["class_option"], p["pre_kind"], p["flop_lookup"],
                                p["flop_perm"], p["perms"], p["flop_choice"], p["flop_kind"], p["river_kind"],
                                p["river_mult"], p["base"], p["unit"], p["fold_river"], p["qual"], p["board_row"],
                                p["river_table"], p["river_bits"], p["pre_index"], p["flop_index"], p["river_index"],
                                p["fold_index"], p["side_index"], p["side_fold"], p["side_paid_on_fold"], out, dealt)
    if (out < 0).any():
        from certify.games.kernels import KernelError

        raise KernelError("a round ended in an event the PAR sheet gives no deal: the kernel and the sheet disagree")
    ev[:] = out
