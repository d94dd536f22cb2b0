"""The replacement programme: exact PAR sheets of a whole-hand replacement against a dealer who
redraws (Five Card Mulligan Poker), chosen by the shape of the rules
(``certify.rules.analysis.par_sheet`` when ``replaces_hands(spec)``; ``replacement_rules`` reads
the rules-model spec and names what it does not count).

The game: the player's five cards P; the dealer's five D1. The player stands, or replaces the hand
(a mulligan, adding a wager of ``raise_multiple`` x Ante) and gets five new cards Y. The dealer
stands on the redraw step's ``stands_on`` (Ace-high) or better, else discards and draws five new
cards X from what is left. Higher hand wins, Ante and Raise paid by one table; ties push.

The hard part is the dealer who redraws: his new five depend on which cards his first five took,
and a mulligan adds the player's new five to that chain, so no per-hand table gives the outcome.
Every row is counted over the cycle C(52,5) x C(47,5) x C(42,5) x C(37,5):

* standing (``exact_stand``): the dealer's first five per suit class of P by rank profiles
  (``certify.rules.counting.hands_avoiding_below``), and the rounds in which he redraws by rank
  profiles (``mulligan_exact``): win / tie / loss counts for every hand value;
* the mulligan (``mulligan_dp``): a dynamic programme over the ranks for the four hands P, D1, Y,
  X, with the comparison replaced by exchangeability (Y and X, or Y and D1, are exchangeable);
* the strategy: EV(stand) - EV(mulligan), both counted, for the hand values around the sign change
  (found by bisection over the high-card values); the threshold maximises the summed advantage.
  A cheap *screening pass* (the mulligan simulated, standing counted) checks every other value.
* the Bonus: exact under every rule: paid on the original hand whatever the dealer holds
  (counting the hands the strategy stands on), or only when that hand is not beaten by the
  dealer's final hand (the exact standing counts).

The exact method covers a dealer and a strategy whose thresholds are high cards (both specs). For
other rules the mulligan is simulated instead (``exact=False`` forces it): per suit class of P,
split by whether the dealer stood or redrew, with a decision pass, a refined pass near its
threshold and an independent evaluation pass; every simulated row then carries a standard error.
All figures are in Ante units (bet 2 = Ante + Raise at risk).
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from math import comb
from statistics import NormalDist
from typing import Any

import numpy as np

from certify import hands
from certify.analysis import mulligan_dp as dp
from certify.analysis import mulligan_exact as me
from certify.analysis import mulligan_kernel as mk
from certify.analysis.frequencies import (
    FIVE_CARD_HANDS, class_values, dealer_qualification_probability, frequency_sets, hands_meeting,
)
from certify.analysis.par import ParError, ParSheet, ReturnRow, WagerSheet
from certify.cards import RANK_NAMES
from certify.rules.model import category_pays

FIRST_HANDS = comb(47, 5)  # dealer first hands for a given player hand
N_CAT = len(hands.Category)
SPEC_STRATEGY_WAGER = "main game (spec strategy)"
# significant ranks shown for a hand value of each category (high card .. royal flush)
_SHOWN_RANKS = (5, 4, 3, 3, 1, 5, 2, 2, 1, 0)

# default Monte Carlo budgets, in scenarios per player hand (a class gets this x its size)
DECISION_SAMPLES = 20
REFINE_SAMPLES = 6000
EVALUATION_SAMPLES = 300
MIN_STRATUM_SAMPLES = 30  # expected scenarios in the rarer stratum (dealer stood / redrew) per class
CHART_VALUES = 12  # hand values shown on either side of the threshold
REFINE_VALUES = 30  # hand values refined on either side of the decision pass's threshold


# ----------------------------------------------------------------------------------------------
# The rules: the spec is read here and nowhere else in this module.
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MulliganRules:
    raise_multiple: Fraction
    odds: tuple[Fraction | None, ...]  # Ante-and-Raise odds by the winner's category (None: loses)
    stands_value: int  # dealer stands with this hand value or better
    spec_stand_value: int  # the spec's strategy: stand with this value or better
    bonus_odds: tuple[Fraction | None, ...]
    bonus_when: str  # "always" | "player_beats_dealer" | "player_beats_or_ties_dealer"
    bonus_lost_on_mulligan: bool
    bonus_name: str | None = "bonus"  # the side wager's name (None: the game has none)

    @property
    def bet2(self) -> Fraction:
        return 1 + self.raise_multiple

    def win(self, category: int, stake: Fraction) -> Fraction:
        odds = self.odds[category]
        return -stake if odds is None else stake * odds

    def bet1_pays(self) -> np.ndarray:
        """Net result standing, by outcome: win with category 0..9, tie, lose."""
        return np.array([float(self.win(c, Fraction(1))) for c in range(N_CAT)] + [0.0, -1.0])

    def bet2_pays(self) -> np.ndarray:
        return np.array([float(self.win(c, self.bet2)) for c in range(N_CAT)]
                        + [0.0, -float(self.bet2)])


def _fraction(x: Any) -> Fraction:
    return Fraction(str(x))


def mulligan_rules(spec: Any) -> MulliganRules:
    """The rules this programme counts, read from a rules-model spec of the replacement shape
    (``replacement_rules``; ``ShapeError`` names what differs)."""
    return replacement_rules(spec)


def replacement_rules(spec: Any) -> MulliganRules:
    """The rules of a rules-model spec of the shape this programme counts (``ShapeError`` names
    what differs): five cards to the player and five to the dealer (no up card, no qualifier); one
    decision between standing and replacing the whole hand (which may add a decision wager, a
    multiple of the Ante); the dealer's redraw of five unless a threshold is met; the Ante and that
    wager paid by one table against the dealer's final hand, ties pushing; at most one side wager, a
    table on the player's first hand, lost on the replacement or not; the spec's strategy a
    threshold (stand at or above it, else replace)."""
    from certify.rules.analysis import ShapeError
    from certify.rules.model import DealerRedrawStep, DealStep, DecideStep

    why: list[str] = []
    kinds = [type(s) for s in spec.steps]
    if spec.ranking != "five_card":
        why.append(f"the five_card ranking (not {spec.ranking})")
    if kinds != [DealStep, DealStep, DecideStep, DealerRedrawStep] or \
            [(s.deal, s.cards, s.face, tuple(s.face_up)) for s in spec.steps[:2]] != \
            [("player", 5, "down", ()), ("dealer", 5, "down", ())]:
        why.append("the steps: five cards face down to the player, five to the dealer, one decision, "
                   "the dealer's redraw")
    if why:
        raise ShapeError(f"{spec.name}: the replacement programme counts " + "; ".join(why))
    decision, redraw = spec.steps[2], spec.steps[3].dealer_redraw
    stand = [o for o in decision.options if not (o.fold or o.add or o.pull_back or o.replace)]
    replace_ = [o for o in decision.options if o.replace and not o.pull_back]
    if len(decision.options) != 2 or len(stand) != 1 or len(replace_) != 1 or len(replace_[0].add) > 1:
        why.append(f"a decision ({decision.decide}) between standing and replacing the whole hand, which adds "
                   "at most one decision wager")
    if redraw.cards != 5 or spec.dealer.qualifies is not None:
        why.append("a dealer redraw of five cards and no dealer qualifier")
    if why:
        raise ShapeError(f"{spec.name}: the replacement programme counts " + "; ".join(why))
    stand, replace_ = stand[0], replace_[0]
    unit = spec.wagers[spec.unit]
    main = [unit.settle.versus_dealer] + [spec.wagers[w].settle.versus_dealer for w in replace_.add]
    side = [(n, w) for n, w in spec.wagers.items() if w.made == "side"]
    if any(v is None or v.win_at_least is not None or v.bonus is not None or v.tie != "push" for v in main) \
            or len({_odds_by_category(v) for v in main}) != 1:
        why.append("the Ante and the replacement's wager settled against the dealer by one table, ties pushing")
    table = side[0][1].settle.pay_table if len(side) == 1 else None
    if len(side) > 1 or (side and (table is None or table.hand != "player_first" or table.at_least is not None
                                   or (table.ranking or "five_card") != "five_card"
                                   or set(table.lost_on) - {replace_.name})):
        why.append("at most one side wager, paid by a table on the player's first hand (lost on the replacement "
                   "or not)")
    rules = (spec.strategy.decisions.get(decision.decide) if spec.strategy is not None else None) or []
    if [(r.option, r.at_least is None) for r in rules] != [(stand.name, False), (replace_.name, True)]:
        why.append(f"the spec's strategy a threshold: {stand.name} at or above it, else {replace_.name}")
    if why:
        raise ShapeError(f"{spec.name}: the replacement programme counts " + "; ".join(why))
    no_bonus = (None,) * N_CAT
    return MulliganRules(
        raise_multiple=_fraction(next(iter(replace_.add.values()), 0)),
        odds=_odds_by_category(main[0]),
        stands_value=spec.threshold_value(redraw.stands_on),
        spec_stand_value=spec.threshold_value(rules[0].at_least),
        bonus_odds=no_bonus if table is None else tuple(
            None if o is None else _fraction(o) for o in category_pays(table.pays, "five_card")),
        bonus_when="always" if table is None else table.when,
        bonus_lost_on_mulligan=table is not None and replace_.name in table.lost_on,
        bonus_name=side[0][0] if side else None,
    )


def _odds_by_category(versus) -> tuple[Fraction | None, ...]:
    if versus.win_pays is not None:
        return tuple(None if o is None else _fraction(o) for o in category_pays(versus.win_pays, "five_card"))
    return (_fraction(versus.win),) * N_CAT


def hand_text(value: int) -> str:
    """'A K 9 5 4 (high card)', 'pair of 7s, A K 9', 'two pair A 8, 4', ... for a hand value."""
    category = value >> hands.CATEGORY_SHIFT
    ranks = [RANK_NAMES[(value >> (16 - 4 * i)) & 15] for i in range(_SHOWN_RANKS[category])]
    name = hands.CATEGORY_NAMES[category]
    if category == hands.Category.HIGH_CARD:
        return f"{' '.join(ranks)} (high card)"
    groups = {hands.Category.PAIR: 1, hands.Category.TWO_PAIR: 2, hands.Category.TRIPS: 1,
              hands.Category.FULL_HOUSE: 2, hands.Category.QUADS: 1}.get(category)
    if groups is None:
        return f"{name} {' '.join(ranks)}".strip()
    kickers = f", {' '.join(ranks[groups:])}" if len(ranks) > groups else ""
    return f"{name} {' '.join(ranks[:groups])}{kickers}"


# ----------------------------------------------------------------------------------------------
# Classes and the exact first-hand counts.
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Classes:
    reps: np.ndarray  # (n, 5) sorted cards
    weights: np.ndarray  # hands in each class
    values: np.ndarray  # hand value (certify.hands)
    categories: np.ndarray
    first: np.ndarray  # (n, 3) dealer first hands: redraw, stand and lose to P, stand and tie P


@lru_cache(maxsize=4)
def _classes(stands_value: int) -> Classes:
    from certify.rules import counting

    t = counting.suit_classes()
    return classes_for(t.reps, t.weights, stands_value)


def classes_for(reps: np.ndarray, weights: np.ndarray, stands_value: int) -> Classes:
    """The exact first-hand counts for the given player hands (every suit class by default)."""
    from certify.rules import counting

    t = counting.rank_tables()
    reps = np.ascontiguousarray(np.sort(np.asarray(reps, np.int64), axis=1))
    values = hands.rank_batch(reps).astype(np.int64)
    dense = np.searchsorted(class_values(), values).astype(np.int64)
    stands_dense = int(np.searchsorted(class_values(), stands_value))
    thresholds = np.column_stack([np.full(len(reps), stands_dense), np.maximum(dense, stands_dense),
                                  np.maximum(dense + 1, stands_dense)]).astype(np.int64)
    below = counting.hands_avoiding_below(counting.read_only(reps), counting.rank_profile_index(reps), thresholds,
                                          t.profile_counts, t.any_keys, t.any_start, t.any_values, t.any_cum,
                                          t.set_start, t.set_free, t.set_flush)  # read-only: one compiled signature
    # dealer first hands that redraw, stand and lose to P, stand and tie P
    first = np.column_stack([below[:, 0], below[:, 1] - below[:, 0], below[:, 2] - below[:, 1]])
    return Classes(reps, np.asarray(weights, np.int64), values, values >> hands.CATEGORY_SHIFT, first)


@dataclass(frozen=True)
class ExactStand:
    """Standing, counted: by the player's dense hand value, the rounds (P, D1, X) of the cycle
    C(52,5) x C(47,5) x C(42,5) in which the player's five win, tie and lose against the dealer's
    final hand (D1 if it stands, else his new five X; X is counted whether dealt or not)."""

    counts: np.ndarray  # (7462, 3) int64: win, tie, lose
    rounds: np.ndarray  # (7462,) int64: all rounds of each value

    def probabilities(self, values: np.ndarray) -> np.ndarray:
        """(n, 3) win, tie, lose probabilities of standing with hands of these values."""
        dense = np.searchsorted(class_values(), values)
        return self.counts[dense] / self.rounds[dense, None]


@lru_cache(maxsize=4)
def exact_stand(stands_value: int) -> ExactStand:
    """The first five by inclusion-exclusion per suit class, the redraw by rank profiles."""
    cls = _classes(stands_value)
    dense = np.searchsorted(class_values(), cls.values)

    def by_value(per_hand: np.ndarray) -> np.ndarray:  # summed over the hands of each value
        out = np.zeros(len(class_values()), np.int64)
        np.add.at(out, dense, cls.weights * per_hand.astype(np.int64))
        return out * comb(42, 5)

    try:
        redraw = me.stand_when_dealer_redraws(stands_value)
    except me.ExactError as exc:
        raise ParError(str(exc)) from None
    rounds = by_value(np.full(len(cls.weights), FIRST_HANDS))
    win = by_value(cls.first[:, 1]) + redraw[:, 0]
    tie = by_value(cls.first[:, 2]) + redraw[:, 1]
    counts = np.column_stack([win, tie, rounds - win - tie])
    if (counts < 0).any() or (redraw.sum(axis=1) != by_value(cls.first[:, 0])).any():
        raise ParError("exact stand counts: the first-five and redraw counts disagree")
    return ExactStand(counts, rounds)


# ----------------------------------------------------------------------------------------------
# Estimates per class from the joint tallies.
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Estimates:
    """Per class: outcome probabilities of each decision and their sampling variances."""

    stand_p: np.ndarray  # (n, 3) win, tie, lose
    stand_var: np.ndarray  # (n, 3)
    mull_p: np.ndarray  # (n, 12) win with category 0..9, tie, lose
    mull_var: np.ndarray
    ev_stand: np.ndarray
    ev_mull: np.ndarray
    diff_var: np.ndarray  # variance of the estimate of ev_stand - ev_mull
    stand_ev_var: np.ndarray
    mull_ev_var: np.ndarray
    samples: int


def _freq_and_var(counts: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    nn = np.maximum(n, 1)[:, None]
    q = counts / nn
    return q, q * (1 - q) / nn


def _mean_var(counts: np.ndarray, pays: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance-of-the-mean of a payoff over tallied outcomes."""
    nn = np.maximum(n, 1)
    mean = (counts * pays).sum(axis=1) / nn
    second = (counts * pays * pays).sum(axis=1) / nn
    return mean, np.maximum(second - mean * mean, 0) / nn


def estimates(rules: MulliganRules, cls: Classes, joint: np.ndarray,
              exact: ExactStand | None = None) -> Estimates:
    """Per class, from the joint tallies; with ``exact``, standing is taken from the counts (the
    average over every hand of the class's value) and only the mulligan is estimated."""
    pay2 = rules.bet2_pays()
    p_ns = cls.first[:, 0] / FIRST_HANDS
    p_s_win = cls.first[:, 1] / FIRST_HANDS
    p_s_tie = cls.first[:, 2] / FIRST_HANDS
    p_s_lose = 1 - p_ns - p_s_win - p_s_tie
    stood, redrew = joint[:, 0], joint[:, 1]
    n_s, n_ns = stood.sum(axis=(1, 2)), redrew.sum(axis=(1, 2))
    if ((n_ns == 0) & (p_ns > 0)).any() or ((n_s == 0) & (p_ns < 1)).any():
        raise ParError("mulligan simulation: a class got no scenario in a stratum; raise the budget")
    # standing: exact where the dealer stood, the conditional frequencies where he redrew
    q, qv = _freq_and_var(redrew.sum(axis=2), n_ns)
    stand_p = np.column_stack([p_s_win, p_s_tie, p_s_lose]) + p_ns[:, None] * q
    stand_var = p_ns[:, None] ** 2 * qv
    # the mulligan, post-stratified on the exact redraw probability
    q0, q0v = _freq_and_var(stood.sum(axis=1), n_s)
    q1, q1v = _freq_and_var(redrew.sum(axis=1), n_ns)
    mull_p = (1 - p_ns)[:, None] * q0 + p_ns[:, None] * q1
    mull_var = (1 - p_ns)[:, None] ** 2 * q0v + p_ns[:, None] ** 2 * q1v
    win_pay = np.array([float(rules.win(c, Fraction(1))) for c in range(N_CAT)])[cls.categories]
    stand_pays = np.column_stack([win_pay, np.zeros_like(win_pay), np.full_like(win_pay, -1.0)])
    ev_stand = (stand_p * stand_pays).sum(axis=1)
    ev_mull = (mull_p * pay2).sum(axis=1)
    # variance of the difference: the mulligan's stood stratum, and stand - mulligan where the
    # dealer redrew (both decisions saw the same dealer hand there)
    _, m0v = _mean_var(stood.sum(axis=1), pay2, n_s)
    diff = stand_pays[:, :, None] - pay2[None, None, :]  # (n, 3, 12)
    flat = redrew.reshape(len(redrew), -1)
    nn = np.maximum(n_ns, 1)
    d_mean = (flat * diff.reshape(len(diff), -1)).sum(axis=1) / nn
    d_second = (flat * diff.reshape(len(diff), -1) ** 2).sum(axis=1) / nn
    diff_var = (1 - p_ns) ** 2 * m0v + p_ns ** 2 * np.maximum(d_second - d_mean ** 2, 0) / nn
    s_mean = (redrew.sum(axis=2) * stand_pays).sum(axis=1) / nn
    s_second = (redrew.sum(axis=2) * stand_pays ** 2).sum(axis=1) / nn
    stand_ev_var = p_ns ** 2 * np.maximum(s_second - s_mean ** 2, 0) / nn
    _, m1v = _mean_var(redrew.sum(axis=1), pay2, n_ns)
    mull_ev_var = (1 - p_ns) ** 2 * m0v + p_ns ** 2 * m1v
    if exact is not None:
        stand_p = exact.probabilities(cls.values)
        stand_var = np.zeros_like(stand_p)
        ev_stand = (stand_p * stand_pays).sum(axis=1)
        diff_var, stand_ev_var = mull_ev_var, np.zeros_like(ev_stand)
    return Estimates(stand_p, stand_var, mull_p, mull_var, ev_stand, ev_mull, diff_var, stand_ev_var,
                     mull_ev_var, int(joint.sum()))


def simulate(rules: MulliganRules, cls: Classes, per_hand: int, seed: int, stream: int,
             select: np.ndarray | None = None) -> np.ndarray:
    """Joint tallies (n, 2, 3, 12) from ``per_hand`` x class size scenarios per class (zero for
    classes not selected)."""
    p_ns = cls.first[:, 0] / FIRST_HANDS
    rarer = np.minimum(p_ns, 1 - p_ns)  # a stratum of probability zero needs no scenario
    floor = np.where(rarer > 0, np.ceil(MIN_STRATUM_SAMPLES / np.where(rarer > 0, rarer, 1)), 1)
    samples = np.maximum(cls.weights * int(per_hand), floor.astype(np.int64))
    if select is not None:
        samples = np.where(select, samples, 0)
    return mk.simulate_classes(cls.reps, cls.values, samples.astype(np.int64), rules.stands_value,
                               int(seed), int(stream))


# ----------------------------------------------------------------------------------------------
# The strategy: per hand value, EV(stand) - EV(mulligan); the best threshold.
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ValueAdvantage:
    values: np.ndarray  # distinct hand values present, ascending
    weights: np.ndarray  # hands with that value
    ev_stand: np.ndarray
    ev_mull: np.ndarray
    diff: np.ndarray  # EV(stand) - EV(mulligan), Ante units, averaged over the value's hands
    diff_se: np.ndarray


def value_advantage(cls: Classes, est: Estimates) -> ValueAdvantage:
    values, inverse = np.unique(cls.values, return_inverse=True)
    w = cls.weights.astype(float)
    total = np.bincount(inverse, weights=w)

    def avg(x):
        return np.bincount(inverse, weights=w * x) / total

    var = np.bincount(inverse, weights=w * w * est.diff_var) / total ** 2
    return ValueAdvantage(values, total.astype(np.int64), avg(est.ev_stand), avg(est.ev_mull),
                          avg(est.ev_stand - est.ev_mull), np.sqrt(var))


def best_threshold(adv: ValueAdvantage) -> int:
    """The hand value T maximising the summed advantage of standing on every hand >= T."""
    gain = np.cumsum((adv.weights * adv.diff)[::-1])[::-1]  # standing on values[i:]
    gain = np.append(gain, 0.0)  # never stand
    i = int(np.argmax(gain))
    if i == len(adv.values):
        raise ParError("the computed strategy never stands: not a threshold game")
    return int(adv.values[i])


# ----------------------------------------------------------------------------------------------
# Return tables.
# ----------------------------------------------------------------------------------------------
def main_sheet(rules: MulliganRules, cls: Classes, est: Estimates, stand: np.ndarray, name: str,
               strategy: str, table: list, chart: list, notes: tuple[str, ...] = ()) -> WagerSheet:
    total = float(cls.weights.sum())
    f = cls.weights / total
    fs, fm = np.where(stand, f, 0.0), np.where(stand, 0.0, f)
    rows = []
    for standing, stake, frac in ((True, Fraction(1), fs), (False, rules.bet2, fm)):
        pays = [rules.win(c, stake) for c in range(N_CAT)] + [Fraction(0), -stake]  # exact
        for o in range(N_CAT + 2):
            if standing:
                if o < N_CAT:
                    sel = cls.categories == o
                    p = float((frac[sel] * est.stand_p[sel, 0]).sum())
                    var = float((frac[sel] ** 2 * est.stand_var[sel, 0]).sum())
                else:
                    j = o - N_CAT + 1
                    p = float((frac * est.stand_p[:, j]).sum())
                    var = float((frac ** 2 * est.stand_var[:, j]).sum())
            else:
                p = float((frac * est.mull_p[:, o]).sum())
                var = float((frac ** 2 * est.mull_var[:, o]).sum())
            label = (f"win with {hands.CATEGORY_NAMES[o]}" if o < N_CAT
                     else "tie" if o == N_CAT else "lose")
            bet = "1" if standing else "2"
            rows.append(ReturnRow(event=f"{label}, bet {bet}", pays=pays[o], probability=p,
                                  wagered=stake, std_error=math.sqrt(var)))
    edge_var = float((fs ** 2 * est.stand_ev_var).sum() + (fm ** 2 * est.mull_ev_var).sum())
    return WagerSheet(name=name, rows=tuple(rows), exact=False, strategy=strategy,
                      strategy_table=table, strategy_chart=chart, samples=est.samples,
                      house_edge_std_error=math.sqrt(edge_var), notes=notes + row_intervals(rows))


def row_intervals(rows: list[ReturnRow], level: float = 0.95) -> tuple[str, ...]:
    """The confidence interval of each simulated row's probability, as printable lines."""
    z = NormalDist().inv_cdf(0.5 + level / 2)
    return tuple(f"{100 * level:g}% CI {r.event}: [{float(r.probability) - z * r.std_error:.8f}, "
                 f"{float(r.probability) + z * r.std_error:.8f}]" for r in rows if r.std_error > 0)


def _bonus_categories(rules: MulliganRules) -> list[int]:
    return [c for c in reversed(range(N_CAT)) if rules.bonus_odds[c] is not None]


def bonus_sheet(rules: MulliganRules, stand_at_least: int, strategy: str) -> WagerSheet:
    """The Bonus on the original hand, lost on a mulligan if the spec says so: exact under every
    rule (the player stands with ``stand_at_least`` or better)."""
    paid_cats = _bonus_categories(rules)
    values = class_values()
    kept = (values >= stand_at_least) if rules.bonus_lost_on_mulligan else np.ones(len(values), bool)
    categories = values >> hands.CATEGORY_SHIFT
    if rules.bonus_when == "always":
        cls = _classes(rules.stands_value)
        keeps = np.isin(cls.values, values[kept])
        events, paid = [], 0
        for c in paid_cats:
            n = int(cls.weights[keeps & (cls.categories == c)].sum())
            events.append((hands.CATEGORY_NAMES[c], rules.bonus_odds[c], n, 1))
            paid += n
        events.append(("no win", Fraction(-1), comb(52, 5) - paid, 1))
        return WagerSheet.from_combinations(rules.bonus_name, events, strategy=strategy,
                                            notes=("paid on the original hand whatever the dealer "
                                                   "holds; exact",))
    if not rules.bonus_lost_on_mulligan:
        raise ParError("a Bonus that needs a win and survives a mulligan is not analysed")
    with_tie = rules.bonus_when == "player_beats_or_ties_dealer"
    exact = exact_stand(rules.stands_value)
    not_beaten = exact.counts[:, 0] + (exact.counts[:, 1] if with_tie else 0)
    events, paid = [], 0
    for c in paid_cats:
        n = sum(int(x) for x in not_beaten[kept & (categories == c)])
        events.append((hands.CATEGORY_NAMES[c], rules.bonus_odds[c], n, 1))
        paid += n
    events.append(("no win", Fraction(-1), me.CYCLE_STAND - paid, 1))
    when = "beats" if not with_tie else "beats or ties"
    return WagerSheet.from_combinations(
        rules.bonus_name, events, strategy=strategy,
        notes=(f"paid on the original hand only if it {when} the dealer's final hand; exact: "
               "counted over the cycle C(52,5) x C(47,5) x C(42,5) of the player's five, the "
               "dealer's first five and the five he would draw",))


def _strategy_report(adv: ValueAdvantage, threshold: int, cls: Classes,
                     stand: np.ndarray) -> tuple[list, list]:
    table: list[dict[str, Any]] = []
    chart: list[str] = []
    for c in range(N_CAT):
        sel = cls.categories == c
        table.append({"category": hands.CATEGORY_NAMES[c], "stand": int(cls.weights[sel & stand].sum()),
                      "hands": int(cls.weights[sel].sum())})
    i = int(np.searchsorted(adv.values, threshold))
    lo, hi = max(0, i - CHART_VALUES), min(len(adv.values), i + CHART_VALUES)
    chart.append("  hand values near the boundary: EV(stand), EV(mulligan), difference +- 1 SE "
                 "(decision pass, Ante units):")
    for j in range(hi - 1, lo - 1, -1):
        decision = "stand" if adv.values[j] >= threshold else "mulligan"
        resolved = abs(adv.diff[j]) >= 2 * adv.diff_se[j]
        chart.append(f"  {hand_text(int(adv.values[j])):<26} {adv.ev_stand[j]:+.5f} {adv.ev_mull[j]:+.5f} "
                     f"{adv.diff[j]:+.5f} +- {adv.diff_se[j]:.5f}  {decision}"
                     + ("" if resolved else "  (sign not resolved at 2 SE)"))
        table.append({"hand": hand_text(int(adv.values[j])), "hands": int(adv.weights[j]),
                      "ev_stand": float(adv.ev_stand[j]), "ev_mulligan": float(adv.ev_mull[j]),
                      "difference": float(adv.diff[j]), "difference_se": float(adv.diff_se[j]),
                      "decision": decision})
    wrong_side = [j for j in range(len(adv.values))
                  if (adv.values[j] >= threshold) != (adv.diff[j] > 0)
                  and abs(adv.diff[j]) > 3 * adv.diff_se[j]]
    chart.append(f"  hand values on the other side of the threshold by more than 3 SE: {len(wrong_side)}")
    return table, chart


def _threshold_strategy(value: int, computed: bool, exact: bool = False) -> str:
    if computed and exact:
        source = ("computed: the threshold maximising the counted EV(stand) - EV(mulligan) summed "
                  "over the hands")
    elif computed:
        source = ("computed: the threshold maximising EV(stand) - EV(mulligan) summed over the hands, "
                  "from a decision pass independent of this table")
    else:
        source = "the spec's"
    return f"stand with {hand_text(value)} or better, else take the mulligan ({source})"


# ----------------------------------------------------------------------------------------------
# The exact sheet (a dealer and a strategy with high-card thresholds).
# ----------------------------------------------------------------------------------------------
EXACT_WINDOW = 8  # high-card values on either side of the sign change compared exactly
PREFETCH_MARGIN = 1  # values beyond the window around the screening pass's guess counted at once
GUESS_BAND = 200  # high-card values on either side of the screening's sign change averaged for the guess


@dataclass(frozen=True)
class ExactDecision:
    value: int
    hands: int
    ev_stand: Fraction
    ev_mulligan: Fraction

    @property
    def difference(self) -> Fraction:
        return self.ev_stand - self.ev_mulligan


def _ev_stand(rules: MulliganRules, exact: ExactStand, value: int) -> Fraction:
    d = int(np.searchsorted(class_values(), value))
    win, _, lose = (int(x) for x in exact.counts[d])
    return (rules.win(value >> hands.CATEGORY_SHIFT, Fraction(1)) * win - lose) / int(exact.rounds[d])


def _ev_mulligan(rules: MulliganRules, out: dp.MulliganOutcomes) -> Fraction:
    won = sum(rules.win(c, rules.bet2) * n for c, n in enumerate(out.wins))
    return (won - rules.bet2 * out.losses) / out.total


def exact_decision(rules: MulliganRules, value: int, hands_of_value: int) -> ExactDecision:
    """EV(stand) and EV(mulligan) of the hands of one value, both counted."""
    out = dp.mulligan_of_value(value, rules.stands_value)
    return ExactDecision(value, hands_of_value, _ev_stand(rules, exact_stand(rules.stands_value), value),
                         _ev_mulligan(rules, out))


def first_at_least_zero(difference, n: int, guess: int) -> int:
    """The first i in [0, n) with difference(i) >= 0, for a sign that changes once (difference(n - 1)
    >= 0 is known): galloping from ``guess`` brackets it, bisection finds it. The same index as a
    bisection over [0, n), in a few evaluations when the guess is close."""
    lo, hi = 0, n - 1
    g = min(max(guess, 0), n - 1)
    step = 1
    if difference(g) >= 0:
        hi = g
        while hi - step >= lo:
            if difference(hi - step) >= 0:
                hi -= step
                step *= 2
            else:
                lo = hi - step + 1
                break
    else:
        lo = g + 1
        while lo + step - 1 < hi:
            probe = lo + step - 1
            if difference(probe) >= 0:
                hi = probe
                break
            lo = probe + 1
            step *= 2
    while lo < hi:
        mid = (lo + hi) // 2
        if difference(mid) >= 0:
            hi = mid
        else:
            lo = mid + 1
    return lo


def guessed_change(adv: ValueAdvantage) -> int:
    """Where the exact search starts, among the high-card values: how many have a counted EV(stand)
    below the screening pass's EV(mulligan) averaged over the GUESS_BAND values on either side of
    its own sign change. The mulligan's expectation barely moves from one high card to the next
    (the cards taken away differ by a rank or two) while standing's does, so the average places the
    change within a value or so, where one value's simulated difference is off by several."""
    is_high = adv.values >> hands.CATEGORY_SHIFT == hands.Category.HIGH_CARD
    ev_stand, ev_mull, weights = adv.ev_stand[is_high], adv.ev_mull[is_high], adv.weights[is_high]
    rough = int(np.count_nonzero(adv.diff[is_high] < 0))
    band = slice(max(0, rough - GUESS_BAND), rough + GUESS_BAND)
    mulligan = float((ev_mull[band] * weights[band]).sum() / weights[band].sum())
    return int(np.count_nonzero(ev_stand < mulligan))


def exact_threshold(rules: MulliganRules, adv: ValueAdvantage) -> tuple[int, list[ExactDecision]]:
    """The best high-card threshold: the sign change of EV(stand) - EV(mulligan) over the
    high-card values, searched from where the screening pass puts it (``guessed_change``,
    ``first_at_least_zero``),
    then every value within EXACT_WINDOW of it compared exactly; the threshold maximises the
    summed advantage over the window."""
    is_high = adv.values >> hands.CATEGORY_SHIFT == hands.Category.HIGH_CARD
    high = [(int(v), int(w)) for v, w in zip(adv.values[is_high], adv.weights[is_high])]

    def decide(i: int) -> ExactDecision:
        return exact_decision(rules, high[i][0], high[i][1])

    guess = guessed_change(adv)
    # the values the search and the window will most likely ask for, counted in one programme
    near = range(max(0, guess - EXACT_WINDOW - PREFETCH_MARGIN), min(len(high), guess + EXACT_WINDOW + PREFETCH_MARGIN))
    dp.mulligan_of_values([high[i][0] for i in near] + [high[-1][0]], rules.stands_value)
    if decide(len(high) - 1).difference <= 0:
        raise me.ExactError("standing never beats the mulligan on a high card: no high-card threshold")
    lo = first_at_least_zero(lambda i: decide(i).difference, len(high), guess)
    first, last = max(0, lo - EXACT_WINDOW), min(len(high), lo + EXACT_WINDOW)
    window = [decide(i) for i in range(first, last)]
    gains = [sum(d.hands * d.difference for d in window[i:]) for i in range(len(window) + 1)]
    best = max(range(len(gains)), key=lambda i: gains[i])
    if (best == 0 and first > 0) or (best == len(window) and last < len(high)):
        raise ParError("the exact threshold is at the edge of the compared window: widen EXACT_WINDOW")
    threshold = window[best].value if best < len(window) else high[last][0]
    return threshold, window


# A run over every hand below a threshold costs about as much as 15 runs of one hand value.
SHIFTED_VALUES = 12


def mulligan_below_near(rules: MulliganRules, threshold: int, known: int, known_outcomes: dp.MulliganOutcomes,
                        high_values: np.ndarray) -> dp.MulliganOutcomes:
    """``dp.mulligan_below(threshold)`` from the outcomes below another threshold ``known``: the
    same counts plus (or minus) those of the high-card values between the two
    (``dp.mulligan_of_value``, already counted for the exact window), when there are at most
    SHIFTED_VALUES of them; else counted afresh."""
    lo, hi = sorted((threshold, known))
    between = [int(v) for v in high_values if lo <= v < hi]
    if len(between) > SHIFTED_VALUES:
        return dp.mulligan_below(threshold, rules.stands_value)
    sign = 1 if threshold > known else -1
    return known_outcomes.plus([dp.mulligan_of_value(v, rules.stands_value) for v in between], sign)


def exact_main_sheet(rules: MulliganRules, threshold: int, name: str, strategy: str, table: list,
                     chart: list, notes: tuple[str, ...] = (),
                     mulligan: dp.MulliganOutcomes | None = None) -> WagerSheet:
    """Standing with ``threshold`` or better, else the mulligan (``mulligan``: its outcomes below
    ``threshold`` if already counted): every row counted over the cycle
    C(52,5) x C(47,5) x C(42,5) x C(37,5) (the dealer's redraw counted whether dealt or not)."""
    exact = exact_stand(rules.stands_value)
    values = class_values()
    stands = values >= threshold
    categories = values >> hands.CATEGORY_SHIFT
    after = comb(37, 5)
    mull = dp.mulligan_below(threshold, rules.stands_value) if mulligan is None else mulligan

    def total(sel: np.ndarray, column: int) -> int:
        return sum(int(x) for x in exact.counts[sel, column]) * after

    one, two = Fraction(1), rules.bet2
    events = [(f"win with {hands.CATEGORY_NAMES[c]}, bet 1", rules.win(c, one),
               total(stands & (categories == c), 0), one) for c in range(N_CAT)]
    events += [("tie, bet 1", Fraction(0), total(stands, 1), one),
               ("lose, bet 1", -one, total(stands, 2), one)]
    events += [(f"win with {hands.CATEGORY_NAMES[c]}, bet 2", rules.win(c, two), mull.wins[c], two)
               for c in range(N_CAT)]
    events += [("tie, bet 2", Fraction(0), mull.ties, two), ("lose, bet 2", -two, mull.losses, two)]
    sheet = WagerSheet.from_combinations(name, events, strategy=strategy, strategy_table=table,
                                         strategy_chart=chart, notes=notes)
    if sheet.cycle != dp.CYCLE_MULLIGAN:
        raise ParError(f"{name}: the counts add up to {sheet.cycle:,}, not the cycle {dp.CYCLE_MULLIGAN:,}")
    return sheet


def _category_table(threshold: int, adv: ValueAdvantage) -> list[dict[str, Any]]:
    """Hands of each category, and how many of them stand with ``threshold`` or better."""
    values = class_values()
    table = []
    for c in range(N_CAT):
        sel = (values >> hands.CATEGORY_SHIFT) == c
        table.append({"category": hands.CATEGORY_NAMES[c],
                      "stand": int(adv.weights[np.isin(adv.values, values[sel & (values >= threshold)])].sum()),
                      "hands": int(adv.weights[np.isin(adv.values, values[sel])].sum())})
    return table


def _window_rows(window: list[ExactDecision], threshold: int) -> list[dict[str, Any]]:
    return [{"hand": hand_text(d.value), "hands": d.hands, "ev_stand": float(d.ev_stand),
             "ev_mulligan": float(d.ev_mulligan), "difference": float(d.difference),
             "difference_exact": str(d.difference),
             "decision": "stand" if d.value >= threshold else "mulligan"} for d in reversed(window)]


def _exact_report(window: list[ExactDecision], threshold: int, adv: ValueAdvantage) -> tuple[list, list]:
    """The computed strategy's table and chart; refuses a screening pass that contradicts it."""
    rows = _window_rows(window, threshold)
    chart = ["  hand values near the boundary: EV(stand), EV(mulligan), difference, all counted "
             "(Ante units):"]
    chart += [f"  {r['hand']:<26} {r['ev_stand']:+.7f} {r['ev_mulligan']:+.7f} {r['difference']:+.7f}  "
              f"{r['decision']}" for r in rows]
    lo, hi = window[0].value, window[-1].value
    outside = [j for j in range(len(adv.values)) if not lo <= adv.values[j] <= hi
               and (adv.values[j] >= threshold) != (adv.diff[j] > 0) and abs(adv.diff[j]) > 3 * adv.diff_se[j]]
    chart.append(f"  outside these values, the screening pass (simulated mulligan, counted standing) puts "
                 f"{len(outside)} hand values on the other side of the threshold by more than 3 SE")
    if outside:
        raise ParError(f"the screening pass disagrees with the exact threshold {hand_text(threshold)} "
                       f"at {hand_text(int(adv.values[outside[0]]))}: not a threshold strategy here")
    return _category_table(threshold, adv) + rows, chart


def _exact_par_sheet(spec: Any, rules: MulliganRules, decision_samples: int, seed: int) -> ParSheet:
    me.high_card_tuple(rules.stands_value)  # raises for a rule the exact method does not cover
    me.high_card_tuple(rules.spec_stand_value)
    # the spec's strategy needs no search: its mulligan is counted beside everything else
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="mulligan-below") as pool:
        spec_mulligan = pool.submit(dp.mulligan_below, rules.spec_stand_value, rules.stands_value)
        cls = _classes(rules.stands_value)
        exact = exact_stand(rules.stands_value)
        adv = value_advantage(cls, estimates(rules, cls, simulate(rules, cls, decision_samples, seed, 0), exact))
        threshold, window = exact_threshold(rules, adv)
        spec_outcomes = spec_mulligan.result()
    is_high = adv.values >> hands.CATEGORY_SHIFT == hands.Category.HIGH_CARD
    optimal_outcomes = mulligan_below_near(rules, threshold, rules.spec_stand_value, spec_outcomes,
                                           adv.values[is_high])
    table, chart = _exact_report(window, threshold, adv)
    note = ("exact: every row counted over the cycle C(52,5) x C(47,5) x C(42,5) x C(37,5) = "
            f"{dp.CYCLE_MULLIGAN:,} (player's five, dealer's first five, the player's new five, the "
            "dealer's new five, each counted whether dealt or not): standing by rank profiles, the "
            "mulligan by a dynamic programme over the ranks with exchangeable pairs of hands",)
    wagers = [exact_main_sheet(rules, threshold, "main game", _threshold_strategy(threshold, True, exact=True),
                               table, chart, note, optimal_outcomes)]
    spec_table = _category_table(rules.spec_stand_value, adv) + _window_rows(window, rules.spec_stand_value)
    wagers.append(exact_main_sheet(rules, rules.spec_stand_value, SPEC_STRATEGY_WAGER,
                                   _threshold_strategy(rules.spec_stand_value, False), spec_table, [], note,
                                   spec_outcomes))
    return _with_bonus_and_frequencies(spec, rules, cls, wagers, threshold)


def _with_bonus_and_frequencies(spec: Any, rules: MulliganRules, cls: Classes, wagers: list,
                                threshold: int) -> ParSheet:
    optimal, spec_stand = cls.values >= threshold, cls.values >= rules.spec_stand_value
    if rules.bonus_name is not None:
        wagers.append(bonus_sheet(rules, rules.spec_stand_value, _threshold_strategy(rules.spec_stand_value, False)))
        bonus_cats = np.isin(cls.categories, _bonus_categories(rules))
        if (optimal[bonus_cats] != spec_stand[bonus_cats]).any():
            optimal_bonus = bonus_sheet(rules, threshold, _threshold_strategy(threshold, True))
            wagers.append(replace(optimal_bonus, name=f"{rules.bonus_name} (computed strategy)"))
    freqs = _frequencies(spec, rules)
    freqs["mulligan_strategy"] = {"computed_stand_at_least": hand_text(threshold),
                                  "spec_stand_at_least": hand_text(rules.spec_stand_value),
                                  "mulligan_probability_computed": float(cls.weights[~optimal].sum()) / comb(52, 5),
                                  "mulligan_probability_spec": float(cls.weights[~spec_stand].sum()) / comb(52, 5)}
    return ParSheet(game=spec.title, spec=spec.name, family="rules", wagers=tuple(wagers),
                    frequencies=freqs)


def _frequencies(spec: Any, rules: MulliganRules) -> dict[str, Any]:
    """The five-card categories and the share of the dealer's first fives that stand."""
    freqs = frequency_sets(spec)
    if "dealer_stands" not in freqs:  # a rules-model spec: the threshold is its redraw step's
        threshold = spec.dealer_redraw.stands_on
        p = dealer_qualification_probability(threshold)
        freqs["dealer_stands"] = {"hands": hands_meeting(threshold), "of": FIVE_CARD_HANDS, "probability": float(p),
                                  "probability_exact": str(p)}
    return freqs


def mulligan_par_sheet(spec: Any, samples_per_hand: int = EVALUATION_SAMPLES,
                       decision_samples: int = DECISION_SAMPLES, refine_samples: int = REFINE_SAMPLES,
                       seed: int = 20260513, exact: bool = True) -> ParSheet:
    """Exact when the dealer's and the strategy's thresholds are high cards (both specs); else the
    mulligan is simulated (``samples_per_hand``, ``refine_samples``; ``exact=False`` forces it)."""
    rules = mulligan_rules(spec)
    if exact:
        try:
            return _exact_par_sheet(spec, rules, decision_samples, seed)
        except me.ExactError:
            pass  # a rule outside the exact method: simulate the mulligan
    return _simulated_par_sheet(spec, rules, samples_per_hand, decision_samples, refine_samples, seed)


def _simulated_par_sheet(spec: Any, rules: MulliganRules, samples_per_hand: int, decision_samples: int,
                         refine_samples: int, seed: int) -> ParSheet:
    cls = _classes(rules.stands_value)
    exact = exact_stand(rules.stands_value)
    # decision pass, then a larger run on the hand values around its threshold
    joint = simulate(rules, cls, decision_samples, seed, 0)
    adv = value_advantage(cls, estimates(rules, cls, joint, exact))
    first_threshold = best_threshold(adv)
    i = int(np.searchsorted(adv.values, first_threshold))
    window = adv.values[max(0, i - REFINE_VALUES):i + REFINE_VALUES]
    if refine_samples > 0:
        joint = joint + simulate(rules, cls, refine_samples, seed, 1, np.isin(cls.values, window))
        adv = value_advantage(cls, estimates(rules, cls, joint, exact))
    threshold = best_threshold(adv)
    if refine_samples > 0 and not window[0] < threshold <= window[-1]:
        raise ParError(f"the refined threshold {hand_text(threshold)} left the refined window "
                       f"{hand_text(int(window[0]))} .. {hand_text(int(window[-1]))}: raise the budgets")
    # evaluation pass
    est = estimates(rules, cls, simulate(rules, cls, samples_per_hand, seed, 2), exact)
    optimal = cls.values >= threshold
    table, chart = _strategy_report(adv, threshold, cls, optimal)
    note = (f"partly exact: every 'bet 1' row (standing) is counted over the cycle C(52,5) x "
            f"C(47,5) x C(42,5) (std_error 0); the 'bet 2' rows (the mulligan) are simulated "
            f"({est.samples:,} scenarios, {samples_per_hand} per player hand, stratified by the "
            f"{len(cls.reps):,} suit classes of the player's hand); std_error per row",)
    wagers = [main_sheet(rules, cls, est, optimal, "main game", _threshold_strategy(threshold, True),
                         table, chart, note)]
    spec_stand = cls.values >= rules.spec_stand_value
    wagers.append(main_sheet(rules, cls, est, spec_stand, SPEC_STRATEGY_WAGER,
                             _threshold_strategy(rules.spec_stand_value, False),
                             _strategy_report(adv, rules.spec_stand_value, cls, spec_stand)[0], [],
                             note))
    return _with_bonus_and_frequencies(spec, rules, cls, wagers, threshold)

par_sheet = mulligan_par_sheet
