"""Five Card Mulligan Poker: the PAR sheet, partly exact and partly simulated, with its CIs.

The game: the player's five cards P; the dealer's five D1. The player stands, or takes a mulligan
(Raise = ``raise.multiple_of_ante`` x Ante) and gets five new cards. The dealer stands on
``dealer.stands_on`` (Ace-high) or better, else discards and draws five new cards from what is
left. Higher hand wins, Ante and Raise paid by ``pays``; ties push.

Why not all exact: the dealer who redraws. For a player hand P, the chance that the dealer's
*final* hand is below P needs the pairs (D1, D2) of disjoint hands with D1 below Ace-high; a
mulligan adds the player's new five to that chain. So:

* exact, standing (``exact_stand``): the dealer's first five per suit class of P by
  inclusion-exclusion (``mulligan_kernel.exact_first_dealer_counts``), and the rounds in which he
  redraws by rank profiles (``mulligan_exact``): win / tie / loss counts for every hand value over
  the cycle C(52,5) x C(47,5) x C(42,5);
* simulated, the mulligan, per class: split by whether the dealer stood or redrew
  (post-stratified on the exact redraw probability); the new five and the dealer's are drawn as
  in the game;
* derived: EV(stand) (exact) - EV(mulligan) (estimated) per hand value with its standard error,
  from a *decision pass*; the computed strategy is the threshold ("stand with X or better") that
  maximises the summed advantage over all hands, refined by a second, larger run on the hand
  values near the first pass's boundary. The return tables come from an independent *evaluation
  pass* (no selection bias), for the computed strategy ("main game") and the spec's ("main game
  (spec strategy)").
* the Bonus: exact under every rule: paid on the original hand whatever the dealer holds
  (counting the hands the strategy stands on), or only when that hand is not beaten by the
  dealer's final hand (the exact standing counts).

Every simulated probability carries a standard error (``ReturnRow.std_error``) and the house
edge a standard error; all figures are in Ante units (bet 2 = Ante + Raise at risk).
Default budgets: about 780 million scenarios, about a CPU-minute; ``par_sheet(spec, samples_per_hand=...)``
trades time for precision.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from math import comb
from statistics import NormalDist
from typing import Any

import numpy as np

from certify import hands
from certify.analysis import mulligan_exact as me
from certify.analysis import mulligan_kernel as mk
from certify.analysis.frequencies import class_values, frequency_sets
from certify.analysis.par import ParError, ParSheet, ReturnRow, WagerSheet
from certify.cards import RANK_NAMES

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
    if getattr(spec, "family", None) != "mulligan":
        raise ParError(f"{getattr(spec, 'name', spec)!r} is not a mulligan game spec")
    if spec.ties != "push":
        raise ParError(f"{spec.name}: only ties that push are analysed, got ties: {spec.ties!r}")
    if spec.bonus.hand != "original_hand":
        raise ParError(f"{spec.name}: bonus.hand {spec.bonus.hand!r} is not analysed")
    return MulliganRules(
        raise_multiple=_fraction(spec.raise_.multiple_of_ante),
        odds=tuple(None if o is None else _fraction(o) for o in spec.pays.as_list()),
        stands_value=spec.dealer.stands_on.value(),
        spec_stand_value=spec.strategy.stand_at_least.value(),
        bonus_odds=tuple(None if o is None else _fraction(o) for o in spec.bonus.pays.as_list()),
        bonus_when=spec.bonus.paid_when,
        bonus_lost_on_mulligan=bool(spec.bonus.lost_on_mulligan),
    )


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
    from certify.analysis import stud

    t = stud._tables()
    return classes_for(t.reps, t.weights, stands_value)


def classes_for(reps: np.ndarray, weights: np.ndarray, stands_value: int) -> Classes:
    """The exact first-hand counts for the given player hands (every suit class by default)."""
    from certify.analysis import stud

    t = stud._tables()
    reps = np.ascontiguousarray(np.sort(np.asarray(reps, np.int64), axis=1))
    values = hands.rank_batch(reps).astype(np.int64)
    dense = np.searchsorted(class_values(), values).astype(np.int64)
    prefix0 = np.concatenate([[0], np.cumsum(np.bincount(t.dense5, minlength=len(class_values())))])
    stands_dense = int(np.searchsorted(class_values(), stands_value))
    first = mk.exact_first_dealer_counts(reps, dense, stands_dense, stud._BINOM, prefix0.astype(np.int64),
                                         t.prefix1, t.prefix2, t.sorted3, t.sorted4, t.dense5)
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
        return WagerSheet.from_combinations("bonus", events, strategy=strategy,
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
        "bonus", events, strategy=strategy,
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


def _threshold_strategy(value: int, computed: bool) -> str:
    source = ("computed: the threshold maximising EV(stand) - EV(mulligan) summed over the hands, "
              "from a decision pass independent of this table" if computed else "the spec's")
    return f"stand with {hand_text(value)} or better, else take the mulligan ({source})"


def mulligan_par_sheet(spec: Any, samples_per_hand: int = EVALUATION_SAMPLES,
                       decision_samples: int = DECISION_SAMPLES, refine_samples: int = REFINE_SAMPLES,
                       seed: int = 20260513) -> ParSheet:
    rules = mulligan_rules(spec)
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
    wagers.append(bonus_sheet(rules, rules.spec_stand_value, _threshold_strategy(rules.spec_stand_value, False)))
    bonus_cats = np.isin(cls.categories, _bonus_categories(rules))
    if (optimal[bonus_cats] != spec_stand[bonus_cats]).any():
        optimal_bonus = bonus_sheet(rules, threshold, _threshold_strategy(threshold, True))
        wagers.append(replace(optimal_bonus, name="bonus (computed strategy)"))
    freqs = frequency_sets(spec)
    freqs["mulligan_strategy"] = {"computed_stand_at_least": hand_text(threshold),
                                  "spec_stand_at_least": hand_text(rules.spec_stand_value),
                                  "mulligan_probability_computed": float(cls.weights[~optimal].sum()) / comb(52, 5),
                                  "mulligan_probability_spec": float(cls.weights[~spec_stand].sum()) / comb(52, 5)}
    return ParSheet(game=spec.title, spec=spec.name, family="mulligan", wagers=tuple(wagers),
                    frequencies=freqs)


par_sheet = mulligan_par_sheet
