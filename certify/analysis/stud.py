"""Caribbean Stud and Casino Stud, exact: every player hand against every dealer up card.

The cycle is C(52,5) player hands x 47 up cards x C(46,4) dealer hole cards
= 19,933,230,517,200 deals. It is counted, not enumerated:

1. Suit isomorphism: the 2,598,960 player hands fall into 134,459 classes under the 24 suit
   permutations (same multiset of per-suit rank masks); one representative per class, weighted
   by the class size.
2. For a player hand P and an up card u, the dealer hands to count are the 5-card hands that hold
   u and none of P's cards. They are counted by rank profiles: valued without flushes, the hands
   holding given cards depend only on those cards' ranks, so inclusion-exclusion over P

       #{dealer hands < t} = sum over A subset of P of (-1)^|A| N({u} + A, t)

   needs N only per rank multiset (``rank_tables``), once per (P's rank profile, u's rank); the
   flushes that count misvalues (all five in u's suit, avoiding P's ranks in that suit) are then
   subtracted by inclusion-exclusion over that suit's 13-bit rank mask. Three thresholds per
   (P, u): the qualifying hand, P's value, and P's value + 1, split the 163,185 dealer hands into:
   does not qualify / qualifies and loses / ties / wins. (``_tables``, the same counts over card
   sets of all 2,598,960 hands, is kept as the tests' independent reference.)
3. The decision uses those counts: bet when the Bet's expectation beats the fold's -1 Ante
   (optimal), or the spec's threshold strategy; the counts do not depend on the strategy.

Hand values are dense ranks 0..7461 (``frequencies.class_values``) so the tables index by them.
Every pay, the Bet size and the qualifying hand come from ``stud_rules(spec)``, the one place the
spec is read; amounts are exact ``Fraction``s and combination counts Python ints.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb, lcm
from typing import Any

import numpy as np
from numba import njit, prange

from certify import hands
from certify.analysis.frequencies import class_values, five_card_category_counts, threshold_value
from certify.analysis.par import ParError, ParSheet, ReturnRow, WagerSheet
from certify.cards import RANK_NAMES
from certify.rules.counting import (  # the five-card counting machinery (rank profiles, suit classes)
    _BINOM, _all_dealer_counts, _any_suits_below, _colex_hands, _flushes_below_qualifier,
    _profile_dealer_below, count_below, rank_profile_index, rank_tables, suit_classes)

DEALER_HOLE = comb(46, 4)  # 163,185 dealer hands for a given player hand and up card
CYCLE = comb(52, 5) * 47 * DEALER_HOLE


# ----------------------------------------------------------------------------------------------
# The rules: the spec is read here and nowhere else in this module.
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class StudRules:
    bet_multiple: Fraction  # the Bet, in Antes
    ante_win: Fraction  # Ante odds when the player beats a qualifying dealer
    bet_odds: tuple[Fraction | None, ...]  # Bet odds by player category (None: the Bet loses)
    no_qualify_ante: Fraction  # Ante odds when the dealer does not qualify (the Bet pushes)
    qualify_value: int  # smallest dealer hand value that qualifies
    threshold_value: int | None  # spec strategy: bet with this value or better (None: optimal)
    threshold_text: str
    progressive: Any  # the spec's progressive section, or None

    # Net results per Ante for each way a round can end (the return table's pays).
    @property
    def fold(self) -> Fraction:
        return Fraction(-1)

    @property
    def no_qualify(self) -> Fraction:
        return self.no_qualify_ante

    def win(self, category: int) -> Fraction:
        odds = self.bet_odds[category]
        return self.ante_win + (self.bet_multiple * odds if odds is not None else -self.bet_multiple)

    @property
    def tie(self) -> Fraction:
        return Fraction(0)

    @property
    def lose(self) -> Fraction:
        return -(1 + self.bet_multiple)

    @property
    def wagered_after_bet(self) -> Fraction:
        return 1 + self.bet_multiple


def _fraction(x: Any) -> Fraction:
    return Fraction(str(x))


def stud_rules(spec: Any) -> StudRules:
    if getattr(spec, "family", None) != "stud":
        raise ParError(f"{getattr(spec, 'name', spec)!r} is not a stud game spec")
    if spec.ties != "push":
        raise ParError(f"{spec.name}: only ties that push are analysed, got ties: {spec.ties!r}")
    strategy = spec.strategy
    threshold = strategy.bet_at_least if strategy.name == "threshold" else None
    return StudRules(
        bet_multiple=_fraction(spec.bet.multiple_of_ante),
        ante_win=_fraction(spec.ante_pays),
        bet_odds=tuple(None if o is None else _fraction(o) for o in spec.bet.pays.as_list()),
        no_qualify_ante=_fraction(spec.non_qualifying_dealer.ante_pays),
        qualify_value=threshold_value(spec.dealer.qualifies),
        threshold_value=None if threshold is None else threshold_value(threshold),
        threshold_text="" if threshold is None else _threshold_text(threshold),
        progressive=spec.progressive,
    )


def _threshold_text(threshold: Any) -> str:
    ranks = "-".join(RANK_NAMES[r] for r in threshold.ranks)
    return f"{threshold.category.replace('_', ' ')} {ranks}".strip()


# ----------------------------------------------------------------------------------------------
# Counting tables over all five-card hands (colex order).
# ----------------------------------------------------------------------------------------------
@njit(cache=True)
def _build_tables(hands5, dense, n_values):
    """Prefix counts (1 and 2 cards), sorted value lists (3 and 4 cards), value per hand (5)."""
    binom = _BINOM
    order = np.argsort(dense, kind="mergesort")
    hist1 = np.zeros((52, n_values + 1), np.int32)
    hist2 = np.zeros((1326, n_values + 1), np.int32)
    sorted3 = np.empty((22100, 1176), np.int16)
    sorted4 = np.empty((270725, 48), np.int16)
    fill3 = np.zeros(22100, np.int64)
    fill4 = np.zeros(270725, np.int64)
    for j in range(order.shape[0]):
        h = order[j]
        v = dense[h]
        c = hands5[h]
        for i in range(5):
            hist1[c[i], v + 1] += 1
            for k in range(i + 1, 5):
                hist2[binom[c[i], 1] + binom[c[k], 2], v + 1] += 1
                for m in range(k + 1, 5):
                    t = binom[c[i], 1] + binom[c[k], 2] + binom[c[m], 3]
                    sorted3[t, fill3[t]] = v
                    fill3[t] += 1
                    for n in range(m + 1, 5):
                        q = t + binom[c[n], 4]
                        sorted4[q, fill4[q]] = v
                        fill4[q] += 1
    for r in range(52):
        for v in range(n_values):
            hist1[r, v + 1] += hist1[r, v]
    for r in range(1326):
        for v in range(n_values):
            hist2[r, v + 1] += hist2[r, v]
    return hist1, hist2, sorted3, sorted4


@dataclass(frozen=True)
class _Tables:
    """Card-level counting tables over all 2,598,960 hands (the Mulligan's first-five count)."""

    hands5: np.ndarray  # (2598960, 5) colex order
    dense5: np.ndarray  # dense value 0..7461 of each hand
    prefix1: np.ndarray
    prefix2: np.ndarray
    sorted3: np.ndarray
    sorted4: np.ndarray
    reps: np.ndarray  # (n_classes, 5) class representatives (sorted cards)
    weights: np.ndarray  # class sizes


@lru_cache(maxsize=1)
def _tables() -> _Tables:
    hands5 = _colex_hands()
    values = hands.rank_batch(hands5)
    dense5 = np.searchsorted(class_values(), values).astype(np.int16)
    prefix1, prefix2, sorted3, sorted4 = _build_tables(hands5, dense5.astype(np.int64),
                                                       len(class_values()))
    classes = suit_classes()
    return _Tables(hands5, dense5, prefix1, prefix2, sorted3, sorted4, classes.reps, classes.weights)


def dense_value(value: int) -> int:
    """The dense rank (0..7461) of a 5-card hand value."""
    i = int(np.searchsorted(class_values(), value))
    if i == len(class_values()) or class_values()[i] != value:
        raise ParError(f"{value} is not a 5-card hand value")
    return i


@dataclass(frozen=True)
class DealerCounts:
    """Per class representative and up card: dealer hands that do not qualify / lose / tie.

    ``counts[ci, u]`` = (no_qualify, player_wins, tie) out of ``DEALER_HOLE``; -1 for an up card
    the player holds. The counts depend on the cards and the qualifying hand only.
    """

    reps: np.ndarray
    weights: np.ndarray
    values: np.ndarray  # dense value of each representative
    counts: np.ndarray


def dealer_counts(qualify_value: int, reps: np.ndarray | None = None,
                  weights: np.ndarray | None = None) -> DealerCounts:
    """Count dealer outcomes for every player class (or for the given player hands) and up card."""
    if reps is None:
        return _all_classes_dealer_counts(qualify_value)
    return _count(qualify_value, reps, weights)


@lru_cache(maxsize=2)
def _all_classes_dealer_counts(qualify_value: int) -> DealerCounts:
    """The full-cycle counts, kept per process (read-only): specs sharing a qualifier share them."""
    classes = suit_classes()
    dc = _count(qualify_value, classes.reps, classes.weights)
    for array in (dc.reps, dc.weights, dc.values, dc.counts):
        array.flags.writeable = False
    return dc


def _count(qualify_value: int, reps: np.ndarray, weights: np.ndarray | None) -> DealerCounts:
    t = rank_tables()
    reps = np.ascontiguousarray(np.sort(np.asarray(reps, dtype=np.int64), axis=1))
    if weights is None:
        weights = np.ones(len(reps), np.int64)
    values = np.searchsorted(class_values(), hands.rank_batch(reps)).astype(np.int64)
    profiles = rank_profile_index(reps)
    q = dense_value(qualify_value)
    by_profile = _profile_dealer_below(t.profile_counts, t.profile_free, t.profile_flush, q, t.any_keys,
                                       t.any_start, t.any_values, t.any_cum)
    flushes_q = _flushes_below_qualifier(q, t.set_start, t.set_free, t.set_flush)
    counts = _all_dealer_counts(reps, profiles, values, q, by_profile, flushes_q, t.set_start,
                                t.set_free, t.set_flush)
    return DealerCounts(reps, np.asarray(weights, np.int64), values, counts)


# ----------------------------------------------------------------------------------------------
# From counts to return tables.
# ----------------------------------------------------------------------------------------------
def _scaled(amounts: list[Fraction]) -> tuple[list[int], int]:
    """Integers proportional to ``amounts`` (common denominator), for exact int64 comparisons."""
    den = lcm(*(a.denominator for a in amounts))
    return [int(a * den) for a in amounts], den


def _decisions(rules: StudRules, dc: DealerCounts, categories: np.ndarray, optimal: bool) -> np.ndarray:
    """Bool (n_classes, 52): bet? Optimal: bet when E[Bet] > E[fold]; else the spec's threshold."""
    valid = dc.counts[:, :, 0] >= 0
    if not optimal:
        bet_values = class_values()[dc.values] >= rules.threshold_value
        return valid & bet_values[:, None]
    win_pays = [rules.win(c) for c in range(len(hands.Category))]
    scaled, _ = _scaled([rules.fold, rules.no_qualify, rules.tie, rules.lose] + win_pays)
    fold, no_qualify, tie, lose = scaled[:4]
    win = np.array(scaled[4:], np.int64)[categories]
    return _bet_beats_fold(dc.counts, win, no_qualify, tie, lose, fold * DEALER_HOLE)


@njit(cache=True)
def _bet_beats_fold(counts, win, no_qualify, tie, lose, fold):
    """Bool (n, 52): the Bet's scaled expectation over the dealer hands beats folding's."""
    out = np.zeros(counts.shape[:2], np.bool_)
    for i in range(counts.shape[0]):
        for u in range(52):
            nq, wins, ties = np.int64(counts[i, u, 0]), np.int64(counts[i, u, 1]), np.int64(counts[i, u, 2])
            if nq >= 0:
                loses = DEALER_HOLE - nq - wins - ties
                out[i, u] = nq * no_qualify + wins * win[i] + ties * tie + loses * lose > fold
    return out


@njit(cache=True)
def _summed_where(counts, bet):
    """(n, 3) int64: each class's dealer counts summed over the up cards it bets on."""
    out = np.zeros((counts.shape[0], 3), np.int64)
    for i in range(counts.shape[0]):
        for u in range(52):
            if bet[i, u]:
                for k in range(3):
                    out[i, k] += counts[i, u, k]
    return out


def _by_category(per_class: np.ndarray, categories: np.ndarray) -> list[int]:
    """Exact sums of an int64 per-class vector over the classes of each player category."""
    return [int(per_class[categories == c].sum()) for c in range(len(hands.Category))]


def _main_table(rules: StudRules, dc: DealerCounts, categories: np.ndarray, bet: np.ndarray,
                name: str, strategy: str, strategy_table: list, chart: list) -> WagerSheet:
    valid = dc.counts[:, :, 0] >= 0
    bets = bet.sum(axis=1) * dc.weights  # (hand, up card) pairs bet, per class
    folds = (valid & ~bet).sum(axis=1) * dc.weights
    # per class: the dealer counts summed over the up cards it bets on, times the class size
    summed = _summed_where(dc.counts, bet) * dc.weights[:, None]
    total_nq, total_tie = int(summed[:, 0].sum()), int(summed[:, 2].sum())
    win_by_category = _by_category(summed[:, 1], categories)
    fold_combos = int(folds.sum()) * DEALER_HOLE
    total_lose = int(bets.sum()) * DEALER_HOLE - total_nq - total_tie - sum(win_by_category)
    after = rules.wagered_after_bet
    events = [("fold", rules.fold, fold_combos, 1),
              ("dealer does not qualify", rules.no_qualify, total_nq, after)]
    events += [(f"win with {hands.CATEGORY_NAMES[c]}", rules.win(c), win_by_category[c], after)
               for c in range(len(hands.Category))]
    events += [("tie", rules.tie, total_tie, after), ("lose", rules.lose, total_lose, after)]
    sheet = WagerSheet.from_combinations(name, events, strategy=strategy,
                                         strategy_table=strategy_table, strategy_chart=chart)
    if dc.reps.shape[0] == len(suit_classes().reps) and sheet.cycle != CYCLE:
        raise ParError(f"stud cycle {sheet.cycle} != {CYCLE}: the counting is wrong")
    return sheet


def _rank_codes(reps: np.ndarray) -> np.ndarray:
    """Each hand's ranks, high to low, packed 4 bits each: ordered as the rank lists are."""
    ranks = -np.sort(-(reps >> 2), axis=1)
    return (ranks << (4 * np.arange(4, -1, -1))).sum(axis=1)


def _rank_text(code: int) -> str:
    """A rank code as text such as 'A K J 8 3'."""
    return " ".join(RANK_NAMES[(code >> (4 * k)) & 15] for k in range(4, -1, -1))


@njit(cache=True)
def _summed_by(group, n_groups, a, b):
    """Rows of the int64 arrays ``a`` and ``b`` summed per ``group`` index."""
    out_a = np.zeros((n_groups, a.shape[1]), np.int64)
    out_b = np.zeros((n_groups, b.shape[1]), np.int64)
    for i in range(group.shape[0]):
        out_a[group[i]] += a[i]
        out_b[group[i]] += b[i]
    return out_a, out_b


def _strategy_summary(dc: DealerCounts, categories: np.ndarray, bet: np.ndarray) -> tuple[list, list]:
    """The strategy the computation derived: per category, and per (hand ranks, up card rank) for
    every category where the decision is not the same for all hands (hands ever bet)."""
    valid = dc.counts[:, :, 0] >= 0
    # (hand, up card) pairs per class and up-card rank (up card u has rank u >> 2)
    bet_by_rank = bet.reshape(len(bet), 13, 4).sum(axis=2) * dc.weights[:, None]
    all_by_rank = valid.reshape(len(valid), 13, 4).sum(axis=2) * dc.weights[:, None]
    bet_total, all_total = _by_category(bet_by_rank.sum(axis=1), categories), \
        _by_category(all_by_rank.sum(axis=1), categories)
    table: list[dict[str, Any]] = []
    chart: list[str] = []
    mixed: list[int] = []
    for c in range(len(hands.Category)):
        b, n = bet_total[c], all_total[c]
        table.append({"category": hands.CATEGORY_NAMES[c], "bet": b, "combinations": n})
        chart.append(f"  {hands.CATEGORY_NAMES[c]:<15} bet {b:>12,} of {n:>12,} (hand, up card) pairs")
        if 0 < b < n:
            mixed.append(c)
    if not mixed:
        return table, chart
    chart.append("  where it depends on the hand: its ranks, then the decision by the dealer's up card "
                 "(B bet always, . fold always, ~ depends on suits; hands not listed always fold):")
    chart.append("  " + " " * 15 + " ".join(RANK_NAMES[r].rjust(2) for r in range(13)))
    codes = _rank_codes(dc.reps)
    for c in mixed:
        sel = np.nonzero(categories == c)[0]
        patterns, inverse = np.unique(codes[sel], return_inverse=True)
        by_bet, by_all = _summed_by(inverse, len(patterns), bet_by_rank[sel], all_by_rank[sel])
        for i in range(len(patterns) - 1, -1, -1):  # highest ranks first
            b, n = by_bet[i], by_all[i]
            if b.sum() == 0:
                continue  # never bet: the "not listed" hands
            pattern = _rank_text(int(patterns[i]))
            marks = ["B" if bi == ni else "." if bi == 0 else "~" for bi, ni in zip(b, n)]
            chart.append(f"  {pattern:<15}" + " ".join(m.rjust(2) for m in marks))
            for r in range(13):
                if n[r]:
                    table.append({"category": hands.CATEGORY_NAMES[c], "hand": pattern,
                                  "up_card": RANK_NAMES[r], "bet": int(b[r]), "combinations": int(n[r])})
    return table, chart


def progressive_sheet(rules: StudRules) -> WagerSheet | None:
    prog = rules.progressive
    if prog is None:
        return None
    wager = _fraction(prog.wager)
    meter = _fraction(prog.meter_reset)
    counts = five_card_category_counts()
    events, paid = [], 0
    for c in sorted(hands.Category, reverse=True):
        entry = prog.pays.entry(c)
        if entry is None:
            continue
        share = Fraction(0) if entry.meter_percent is None else _fraction(entry.meter_percent) / 100 / wager
        fixed = Fraction(0) if entry.amount is None else _fraction(entry.amount) / wager
        events.append(ReturnRow(event=hands.CATEGORY_NAMES[c], pays=fixed - 1 + share * meter,
                                probability=Fraction(counts[c], comb(52, 5)), combinations=counts[c],
                                meter_share=share))
        paid += counts[c]
    events.append(ReturnRow(event="no win", pays=Fraction(-1), combinations=comb(52, 5) - paid,
                            probability=Fraction(comb(52, 5) - paid, comb(52, 5))))
    return WagerSheet(name="progressive", rows=tuple(events), exact=True, meter=meter,
                      strategy="none (paid on the player's five cards)",
                      notes=(f"figures at the reset meter {prog.meter_reset}; pays in units of the "
                             f"{prog.wager} wager, M = the meter; several royals in one round share "
                             "the award (not modelled: one player)",))


SPEC_STRATEGY_WAGER = "main game (spec strategy)"


def main_game_sheets(rules: StudRules, dc: DealerCounts) -> list[WagerSheet]:
    """The main game under the optimal strategy and, if the spec names one, the spec's strategy.

    Over every class (``dealer_counts`` with no hands given) this is the full cycle; over a subset
    of player hands it is the exact sheet of the game dealt from those hands only (for tests).
    """
    categories = (class_values()[dc.values] >> hands.CATEGORY_SHIFT).astype(np.int64)
    optimal = _decisions(rules, dc, categories, optimal=True)
    table, chart = _strategy_summary(dc, categories, optimal)
    sheets = [_main_table(rules, dc, categories, optimal, "main game",
                          "optimal: bet when the Bet's expectation beats folding (-1 Ante), "
                          "given the player's five cards and the dealer's up card", table, chart)]
    if rules.threshold_value is not None:
        spec_bet = _decisions(rules, dc, categories, optimal=False)
        sheets.append(_main_table(rules, dc, categories, spec_bet, SPEC_STRATEGY_WAGER,
                                  f"the spec's: bet with {rules.threshold_text} or better, else fold",
                                  _strategy_summary(dc, categories, spec_bet)[0], []))
    return sheets


_SHEETS: dict[str, ParSheet] = {}  # per process, keyed by the spec's full content


def stud_par_sheet(spec: Any) -> ParSheet:
    """The exact PAR sheet of a stud spec: main game (optimal, and the spec's strategy), progressive.

    Computed once per process for a given spec content (a ParSheet is immutable)."""
    key = spec.model_dump_json()
    if key not in _SHEETS:
        if len(_SHEETS) >= 8:
            _SHEETS.pop(next(iter(_SHEETS)))
        _SHEETS[key] = _compute_par_sheet(spec)
    return _SHEETS[key]


def _compute_par_sheet(spec: Any) -> ParSheet:
    from certify.analysis.frequencies import frequency_sets

    rules = stud_rules(spec)
    wagers = main_game_sheets(rules, dealer_counts(rules.qualify_value))
    progressive = progressive_sheet(rules)
    if progressive is not None:
        wagers.append(progressive)
    return ParSheet(game=spec.title, spec=spec.name, family="stud", wagers=tuple(wagers),
                    frequencies=frequency_sets(spec))


par_sheet = stud_par_sheet
