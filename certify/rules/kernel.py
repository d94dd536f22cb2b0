"""The bulk kernel of rules-model games: one compiled loop that reads the model as integer tables.

For the one-decision shape (``certify.rules.analysis.one_decision``): the player's k cards are deck
positions 0..k-1, the dealer's k..2k-1. Per round: both hands valued by the ranking (``eval3_nb``
or ``eval5_nb``), the spec strategy's option (its rules as (threshold value, option) pairs, tried
in order), the dealer cell (does not qualify / win / tie / lose), and the main game's event from
the same ``index[option, cell, category]`` the PAR sheet is built from (``analysis.main_events``),
so the tallies meet the sheet's rows by name. Side wagers: the event of the player's category (a
pay-table or progressive line), ``folded`` / ``no win`` when a fold loses it.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb, lcm

import numpy as np
from numba import njit

from certify.games.kernels import Kernel, KernelError, WagerEvents, _scale
from certify.hands import CATEGORY_NAMES, eval3_nb, eval5_nb
from certify.pool import cpus, map_in_order
from certify.rules.analysis import (
    DECK, ShapeError, _category_name, _fraction, _line_pays, main_events, one_decision, replaces_hands,
)
from certify.rules.model import RulesSpec, ranking_categories

MAX_SIDE = 4  # side wagers a kernel tallies


def rules_kernel(spec: RulesSpec) -> Kernel:
    if replaces_hands(spec):  # a whole-hand replacement against a dealer who redraws
        return replacement_kernel(spec)
    if spec.deals("board") and spec.deals("dealer"):  # hold'em against the dealer: certify.rules.board
        from certify.rules.board import board_kernel

        try:
            return board_kernel(spec)
        except ShapeError as exc:
            raise KernelError(str(exc)) from None
    if not spec.deals("dealer"):
        return induction_kernel(spec)
    try:
        rules = one_decision(spec)
    except ShapeError as exc:
        raise KernelError(f"the bulk kernel plays the one-decision shape: {exc}") from None
    if spec.strategy is None or rules.decision not in spec.strategy.decisions:
        raise KernelError(f"{spec.name}: the bulk kernel plays the spec's strategy; the spec states none "
                          f"for the decision {rules.decision!r}")
    rule_value, rule_option = strategy_rules(spec, rules)
    events, index = main_events(rules)
    nets = [net for _, net, _ in events]
    main = WagerEvents("main", [e for e, _, _ in events], nets, _scale(nets))
    wagers = [main]
    side_index, side_fold, side_paid_on_fold = [], [], []
    for name, w in spec.wagers.items():
        if w.made != "side":
            continue
        side, by_category, fold_event, paid_on_fold = _side_events(spec, name, w, rules)
        wagers.append(side)
        side_index.append(by_category)
        side_fold.append(fold_event)
        side_paid_on_fold.append(paid_on_fold)
    if len(side_index) > MAX_SIDE:
        raise KernelError(f"{spec.name}: at most {MAX_SIDE} side wagers in the bulk kernel")
    n_cat = len(rules.categories)
    params = {
        "k": rules.k, "three_card": spec.ranking == "three_card",
        "qualify": -1 if rules.qualifier is None else spec.threshold_value(rules.qualifier),
        "rule_value": rule_value, "rule_option": rule_option, "index": index,
        "side_index": np.array(side_index, np.int64).reshape(len(side_index), n_cat),
        "side_fold": np.array(side_fold, np.int64), "side_paid_on_fold": np.array(side_paid_on_fold, np.bool_),
        "fold": np.array([o.fold for o in rules.options], np.bool_),
    }
    labels = tuple(_category_name(c) for c in ranking_categories(spec.ranking))
    exact = tuple(int(n) for n in np.bincount(_dealt_categories(spec.ranking, rules.k), minlength=len(labels)))
    return Kernel(2 * rules.k, 2 * rules.k, wagers, str(rules.k), params, exact, labels)


def built_from_count(spec: RulesSpec) -> bool:
    """Whether ``rules_kernel(spec)`` runs the spec's exact count first (minutes when cold): the
    one-Play board shape plays the strategy its count derives (``certify.rules.board``). Every
    other kernel is built from the spec's rules alone, in a second or two."""
    from certify.rules.board_streets import is_street_shape

    return not replaces_hands(spec) and spec.deals("board") and spec.deals("dealer") and not is_street_shape(spec)


def strategy_rules(spec: RulesSpec, rules) -> tuple[np.ndarray, np.ndarray]:
    """The spec strategy at the one decision as (threshold value, option index) pairs, tried in
    order (the last rule applies when none is met): the kernel's and the columnar audit's input."""
    names = [o.name for o in rules.options]
    decided = spec.strategy.decisions[rules.decision]
    rule_value = np.array([0 if r.at_least is None else spec.threshold_value(r.at_least) for r in decided], np.int64)
    return rule_value, np.array([names.index(r.option) for r in decided], np.int64)


def one_decision_cells(spec: RulesSpec, rules, cards: np.ndarray) -> tuple[np.ndarray, ...]:
    """For rounds of the one-decision shape given as (n, 2k) cards (player's k, dealer's k, all
    distinct cards of the deck): the spec strategy's option, the dealer cell (``NQ``, ``WIN``,
    ``TIE``, ``LOSS``) and the player's category, by the bulk kernel's own loop: its event table
    replaced by one numbering each (option, cell, category) once."""
    if spec.strategy is not None and rules.decision in spec.strategy.decisions:
        rule_value, rule_option = strategy_rules(spec, rules)
    else:
        rule_value, rule_option = np.zeros(1, np.int64), np.zeros(1, np.int64)
    n_opt, n_cat = len(rules.options), len(rules.categories)
    identity = np.arange(n_opt * 4 * n_cat, dtype=np.int64).reshape(n_opt, 4, n_cat)
    # the simulation's types (uint8 decks, int8 events): the kernel compiled once serves both
    ev = np.empty((len(cards), 1), np.int8 if identity.size <= 128 else np.int16)
    dealt = np.empty(len(cards), np.int8)
    _play(np.ascontiguousarray(cards, np.uint8), rules.k, spec.ranking == "three_card",
          -1 if rules.qualifier is None else spec.threshold_value(rules.qualifier), rule_value, rule_option,
          identity, np.array([o.fold for o in rules.options], np.bool_), np.zeros((0, n_cat), np.int64),
          np.zeros(0, np.int64), np.zeros(0, np.bool_), ev, dealt)
    code = ev[:, 0].astype(np.int64)
    return code // (4 * n_cat), (code // n_cat) % 4, code % n_cat


def _dealt_categories(ranking: str, k: int) -> np.ndarray:
    """The category of every k-card hand (the exact counts the dealt hands are tested against)."""
    from certify.rules.analysis import _all_hands, _values

    return (_values(ranking, _all_hands(k)) >> 20).astype(np.int64)


def _side_events(spec: RulesSpec, name: str, w, rules) -> tuple[WagerEvents, list[int], int, bool]:
    """A side wager's events as its PAR sheet names them, and the event of each category."""
    categories = ranking_categories(rules.ranking)
    settle = w.settle
    if settle.kind == "pay_table":
        odds = _line_pays(settle.pay_table, rules.ranking)
        order = list(reversed(range(len(categories))))
        events = [_category_name(categories[c]) for c in order]
        nets = [Fraction(-1) if odds[c] is None else _fraction(odds[c]) for c in order]
        by_category = [order.index(c) for c in range(len(categories))]
        paid_on_fold = settle.pay_table.paid_on_fold
        fold_event = len(events)
        if not paid_on_fold:
            events.append("folded")
            nets.append(Fraction(-1))
    elif settle.kind == "progressive":
        prog = settle.progressive
        wager, meter = _fraction(w.min), _fraction(prog.meter_reset)
        events, nets, by_category = [], [], [-1] * len(categories)
        for c in reversed(range(len(categories))):
            entry = getattr(prog.pays, categories[c])
            if entry is None:
                continue
            award = _fraction(entry.amount) if entry.amount is not None else _fraction(entry.meter_percent) / 100 * meter
            by_category[c] = len(events)
            events.append(_category_name(categories[c]))
            nets.append(award / wager - 1)
        fold_event = len(events)
        by_category = [fold_event if e < 0 else e for e in by_category]
        events.append("no win")
        nets.append(Fraction(-1))
        paid_on_fold = prog.paid_on_fold
    else:
        raise KernelError(f"{spec.name}: side wager {name!r} ({settle.kind}) is not played by the bulk kernel")
    return WagerEvents(name.lower(), events, nets, _scale(nets)), by_category, fold_event, paid_on_fold


@njit(cache=True)
def _play(decks, k, three_card, qualify, rule_value, rule_option, index, fold, side_index, side_fold,
          side_paid_on_fold, ev, dealt):
    # no branch on the cards in the loop (a fold is as likely as a bet, so a branch on it
    # mispredicts half the time and costs more than the dealer's evaluation it would skip)
    n_rules = rule_value.shape[0]
    side_event = np.empty((index.shape[0], side_index.shape[0], side_index.shape[1]), np.int64)
    for o in range(index.shape[0]):
        for s in range(side_index.shape[0]):
            for c in range(side_index.shape[1]):
                lost = fold[o] and not side_paid_on_fold[s]
                side_event[o, s, c] = side_fold[s] if lost else side_index[s, c]
    for r in range(decks.shape[0]):
        d = decks[r]
        if three_card:
            pv = eval3_nb(d[0], d[1], d[2])
            dv = eval3_nb(d[3], d[4], d[5])
        else:
            pv = eval5_nb(d[0], d[1], d[2], d[3], d[4])
            dv = eval5_nb(d[5], d[6], d[7], d[8], d[9])
        cat = pv >> 20
        dealt[r] = cat
        option = rule_option[n_rules - 1]  # the first rule met, else the last
        for i in range(n_rules - 2, -1, -1):
            option += (pv >= rule_value[i]) * (rule_option[i] - option)
        qualifies = (qualify < 0) | (dv >= qualify)
        cell = qualifies * (1 + (pv <= dv) + (pv < dv))  # 0 dealer does not qualify, 1 win, 2 tie, 3 loss
        ev[r, 0] = index[option, cell, cat]
        for s in range(side_index.shape[0]):
            ev[r, 1 + s] = side_event[option, s, cat]


def play_rounds(decks, p, ev, dealt) -> None:
    if p.get("replacement"):
        _play_replacement_rounds(decks, p, ev, dealt)
        return
    if p.get("board"):
        from certify.rules.board import play_rounds as play_board

        play_board(decks, p, ev, dealt)
        return
    if p.get("induction"):
        _play_induction(decks, p["first"], p["first_table"], p["second"], p["second_table"], p["path_of"], p["lines"],
                        p["index"], ev, dealt)
        return
    _play(decks, p["k"], p["three_card"], p["qualify"], p["rule_value"], p["rule_option"], p["index"],
          p["fold"], p["side_index"], p["side_fold"], p["side_paid_on_fold"], ev, dealt)


# ---------------------------------------------------------------- no dealer: decisions between deals
def induction_kernel(spec: RulesSpec) -> Kernel:
    """Games the backward induction counts (``certify.rules.induction``), played with the derived
    strategy: the first decision from a table over every first hand (the analysis' choice, by suit
    class), a second decision before the last card by its exact expectation over the cards left
    (``induction_second``, tabled once for every four cards: ``induction_second_table``).
    Deck positions: the first hand, then each later deal in the order the analysis deals them."""
    from certify.rules import induction
    from certify.rules.analysis import _all_hands
    from certify.rules.counting import suit_class_keys

    try:
        first, later = induction._shape(spec)
    except ShapeError as exc:
        raise KernelError(str(exc)) from None
    deals = [n for kind, n in later if kind == "deal"]
    decisions = [step for kind, step in later if kind == "decide"]
    levels = []
    seen = 0
    for kind, _ in later:
        seen += kind == "deal"
        if kind == "decide":
            levels.append(seen)
    if first + sum(deals) != 5 or not decisions or levels[0] != 0 or len(decisions) > 2 \
            or (len(decisions) == 2 and (levels[1] != len(deals) - 1 or deals[-1] != 1)):
        raise KernelError(f"{spec.name}: the bulk kernel plays a first decision on the first hand and at most "
                          "a second one before a last single card, to a five-card hand")
    ctx = induction._solve(spec)
    hands_first = _all_hands(first)
    _, inverse = np.unique(suit_class_keys(hands_first), return_inverse=True)
    colex = np.zeros(len(hands_first), np.int64)
    for i in range(first):
        colex += np.array([comb(int(c), i + 1) for c in hands_first[:, i]], np.int64)
    first_table = np.empty(len(hands_first), np.int64)
    first_table[colex] = ctx.choice[0][()][inverse.ravel()]
    paths = induction._paths(spec, decisions)
    names = list(spec.wagers)
    den = 1
    stakes = {path: induction._standing(spec, decisions, path) for path in paths}
    odds = {n: _line_pays(spec.wagers[n].settle.pay_table, spec.ranking) for n in names}
    for n in names:
        den = lcm(den, *(_fraction(o).denominator for o in odds[n] if o is not None))
    for st in stakes.values():
        den = lcm(den, *(v.denominator for v in st.values()))
    stake = np.array([[int(stakes[p].get(n, Fraction(0)) * den) for n in names] for p in paths], np.int64)
    pay = np.array([[-den if o is None else int(_fraction(o) * den) for o in odds[n]] for n in names], np.int64)
    lines = np.array([0 if spec.wagers[n].settle.pay_table.at_least is None
                      else spec.threshold_value(spec.wagers[n].settle.pay_table.at_least) for n in names], np.int64)
    n_second = len(decisions[1].options) if len(decisions) == 2 else 1
    path_of = np.array([[paths.index((o1, o2) if len(decisions) == 2 else (o1,)) for o2 in range(n_second)]
                        for o1 in range(len(decisions[0].options))], np.int64)
    tie_order = np.array([sorted(range(n_second), key=lambda o2: sum(stakes[paths[path_of[o1, o2]]].values()))
                          for o1 in range(len(decisions[0].options))], np.int64)
    events, index = induction.outcome_events(spec, decisions)
    nets = [net for _, net, _ in events]
    main = WagerEvents("main", [e for e, _, _ in events], nets, _scale(nets))
    second_table = (induction_second_table(len(decisions[0].options), stake, pay, lines, path_of, tie_order, den)
                    if len(decisions) == 2 else np.zeros((1, 1), np.int8))
    params = {"first": first, "first_table": first_table, "second": len(decisions) == 2, "stake": stake, "den": den,
              "pay": pay, "lines": lines, "path_of": path_of, "tie_order": tie_order, "index": index,
              "second_table": second_table}
    return Kernel(5, 5, [main], "5", dict(params, induction=True))


FOUR = np.int64(4)  # a typed global, not the literal 4: a literal argument compiles _colex once more


@njit(cache=True)
def _colex(cards, n):
    """The colex rank of the first ``n`` cards (distinct, any order): the sum of C(c, i + 1) over
    them, i being how many of them are below c (no sorting, no allocation: it runs every round)."""
    x = 0
    for i in range(n):
        c = cards[i]
        below = 0
        for j in range(n):
            below += cards[j] < c
        b = 1
        for j in range(below + 1):  # C(c, below + 1)
            b = b * (c - j) // (j + 1)
        x += b
    return x


@njit(cache=True)
def induction_first(cards, first, first_table):
    """The first option of the derived strategy: the analysis' table, read at the colex rank of
    the first hand (``cards[:first]``)."""
    return first_table[_colex(cards, first)]


@njit(cache=True)
def _best_second(values, o1, stake, pay, lines, path_of, tie_order, den):
    """The second option after the first option ``o1``: the one whose summed exact result over the
    last card's hands (``values``: the five-card values, one per card left) is highest, the first
    in ``tie_order`` on a tie. The one arg-max behind ``induction_second`` and its table."""
    n_w = stake.shape[1]
    best = np.int64(0)
    o2 = 0
    for t in range(tie_order.shape[1]):
        o = tie_order[o1, t]
        row = stake[path_of[o1, o]]
        evsum = np.int64(0)
        for i in range(values.shape[0]):
            v = values[i]
            for w in range(n_w):
                if row[w]:
                    evsum += row[w] * (pay[w, v >> 20] if v >= lines[w] else -den)
        if t == 0 or evsum > best:
            best, o2 = evsum, o
    return o2


@njit(cache=True)
def _last_card_values(cards, values):
    """``values``: the value of the four ``cards[:4]`` with each of the 48 cards left, in card order."""
    k = 0
    for x in range(52):
        if x != cards[0] and x != cards[1] and x != cards[2] and x != cards[3]:
            values[k] = eval5_nb(cards[0], cards[1], cards[2], cards[3], np.int64(x))
            k += 1


@njit(cache=True)
def induction_second(cards, o1, stake, pay, lines, path_of, tie_order, den):
    """The second option, before the last card: the one of highest exact expectation over the 48
    cards left beside the four seen (``cards[:4]``), the first in ``tie_order`` on a tie."""
    values = np.empty(48, np.int64)
    _last_card_values(cards, values)
    return _best_second(values, o1, stake, pay, lines, path_of, tie_order, den)


@njit(cache=True, nogil=True)
def _second_table_rows(d_lo, d_hi, stake, pay, lines, path_of, tie_order, den, table):
    """``induction_second_table``'s rows of the four-card sets whose highest card is in d_lo..d_hi-1."""
    cards = np.empty(4, np.int64)
    values = np.empty(48, np.int64)
    for d in range(d_lo, d_hi):
        for c in range(2, d):
            for b in range(1, c):
                for a in range(b):
                    cards[0], cards[1], cards[2], cards[3] = a, b, c, d
                    _last_card_values(cards, values)
                    row_at = _colex(cards, FOUR)
                    for o1 in range(table.shape[1]):
                        table[row_at, o1] = _best_second(values, o1, stake, pay, lines, path_of, tie_order, den)


def _highest_card_ranges(parts: int) -> list[tuple[int, int]]:
    """Ranges of the highest card d of four holding near-equal shares of the C(52, 4) sets (C(d, 3) each)."""
    work = [comb(d, 3) for d in range(DECK)]
    bounds, done = [0], 0
    for d in range(DECK - 1):
        done += work[d]
        if done * parts >= sum(work) * len(bounds):
            bounds.append(d + 1)
    return list(zip(bounds, bounds[1:] + [DECK]))


def induction_second_table(n_first, stake, pay, lines, path_of, tie_order, den) -> np.ndarray:
    """``induction_second`` of every four cards (by colex rank) after each first option: the
    simulation reads its second decision here instead of valuing 48 hands a round (the same
    values and the same arg-max, ``_best_second``: the same choice). The sets, by their highest
    card, are split over the process's threads (``certify.pool``)."""
    table = np.zeros((comb(DECK, 4), n_first), np.int8)
    workers = cpus()
    map_in_order(_second_table_rows, [(lo, hi, stake, pay, lines, path_of, tie_order, np.int64(den), table)
                                      for lo, hi in _highest_card_ranges(4 * workers)], workers)
    return table


@njit(cache=True)
def _play_induction(decks, first, first_table, second, second_table, path_of, lines, index, ev, dealt):
    n_w = lines.shape[0]
    cards = np.empty(5, np.int64)
    for r in range(decks.shape[0]):
        d = decks[r]
        for i in range(5):
            cards[i] = d[i]
        o1 = induction_first(cards, first, first_table)
        o2 = 0
        if second:
            o2 = second_table[_colex(cards, FOUR), o1]
        value = eval5_nb(cards[0], cards[1], cards[2], cards[3], cards[4])
        dealt[r] = value >> 20
        code = (value >> 20) << n_w
        for w in range(n_w):
            if value >= lines[w]:
                code += 1 << w
        ev[r, 0] = index[path_of[o1, o2], code]


# ---------------------------------------------------------------- a whole-hand replacement, a dealer who redraws
WHEN_CODES = {"always": 0, "player_beats_dealer": 1, "player_beats_or_ties_dealer": 2}


def replacement_kernel(spec: RulesSpec) -> Kernel:
    """The shape the replacement programme counts (``certify.analysis.mulligan.replacement_rules``:
    stand or replace the five cards, the dealer redraws below a threshold), playing the spec's
    threshold strategy. Deck positions: player 0-4, dealer 5-9; a replaced hand takes the next
    five (10-14), then the dealer's redraw the five after (10-14 if the player stood, else 15-19).
    Events as the sheet names them: ``win with <category>, bet 1|2``, ``tie, bet N``, ``lose, bet N``
    (bet 2: after a replace, the Ante and the wager it adds at risk); the side wager's paid
    categories (highest first), then ``no win``."""
    from certify.analysis.mulligan import mulligan_rules

    try:
        rules = mulligan_rules(spec)
    except ShapeError as exc:
        raise KernelError(str(exc)) from None
    events, nets = [], []
    for units, stake in (("1", Fraction(1)), ("2", rules.bet2)):
        for c in range(len(CATEGORY_NAMES)):
            events.append(f"win with {CATEGORY_NAMES[c]}, bet {units}")
            nets.append(rules.win(c, stake))
        events += [f"tie, bet {units}", f"lose, bet {units}"]
        nets += [Fraction(0), -stake]
    wagers = [WagerEvents("main", events, nets, _scale(nets))]
    side_paid = np.zeros(len(CATEGORY_NAMES), np.int64)  # 1 + the side event of each category; 0: no win
    if rules.bonus_name is not None:
        side_events, side_nets = [], []
        for c in reversed(range(len(CATEGORY_NAMES))):
            if rules.bonus_odds[c] is not None:
                side_paid[c] = len(side_events) + 1
                side_events.append(CATEGORY_NAMES[c])
                side_nets.append(rules.bonus_odds[c])
        wagers.append(WagerEvents(rules.bonus_name.lower(), side_events + ["no win"], side_nets + [Fraction(-1)],
                                  _scale(side_nets + [Fraction(-1)])))
    params = {"replacement": True, "stand": rules.spec_stand_value, "dealer_stands": rules.stands_value,
              "bonus_paid": side_paid, "bonus_when": WHEN_CODES[rules.bonus_when],
              "bonus_lost_on_mulligan": rules.bonus_lost_on_mulligan,
              # the side wager is paid on the first hand; only a seeded fault turns this on
              "bonus_on_final_hand": False, "side": rules.bonus_name is not None}
    return Kernel(20, 10, wagers, "5", params)


@njit(cache=True)
def _play_replacement(decks, stand, dealer_stands, bonus_paid, bonus_when, lost_on_replace, on_final_hand, side,
                      ev, dealt):
    n_cat = bonus_paid.shape[0]
    no_win = 0
    for c in range(n_cat):
        no_win = max(no_win, bonus_paid[c])
    for r in range(decks.shape[0]):
        d = decks[r]
        first = eval5_nb(d[0], d[1], d[2], d[3], d[4])
        dealt[r] = first >> 20
        nxt = 10
        p = first
        replaced = first < stand
        if replaced:
            p = eval5_nb(d[10], d[11], d[12], d[13], d[14])
            nxt = 15
        q = eval5_nb(d[5], d[6], d[7], d[8], d[9])
        if q < dealer_stands:
            q = eval5_nb(d[nxt], d[nxt + 1], d[nxt + 2], d[nxt + 3], d[nxt + 4])
        base = n_cat + 2 if replaced else 0
        if p > q:
            ev[r, 0] = base + (p >> 20)
        elif p == q:
            ev[r, 0] = base + n_cat
        else:
            ev[r, 0] = base + n_cat + 1
        if side:
            e = bonus_paid[(p if on_final_hand else first) >> 20]
            alive = not (replaced and lost_on_replace)
            if bonus_when == 1:
                alive = alive and p > q
            elif bonus_when == 2:
                alive = alive and p >= q
            ev[r, 1] = e - 1 if e > 0 and alive else no_win


def _play_replacement_rounds(decks, p, ev, dealt) -> None:
    _play_replacement(decks, p["stand"], p["dealer_stands"], p["bonus_paid"], p["bonus_when"],
                      p["bonus_lost_on_mulligan"], p["bonus_on_final_hand"], p["side"], ev, dealt)
