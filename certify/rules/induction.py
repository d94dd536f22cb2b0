"""Exact PAR sheets of rules-model games with no dealer hand, by backward induction over the steps.

The shape: the player is dealt a first hand, then decisions and deals follow in the model's order
(board or player cards), and every wager is paid by a table on the player's final hand (Let It
Ride: three bets, two pull-backs). Cards dealt face down to the board are seen only at the
showdown, so they are dealt after the last decision here (the same deal: they come from the same
shuffled deck).

For each suit class of the first hand (one representative, weighted by its size) every later deal
is enumerated (ordered by step, unordered within a step): an array with one axis per later deal
step. The value of each path of options (one option per decision) at the end is the net of the
wagers it leaves standing; going back through the steps, a deal sums its axis and a decision takes,
at every point of the information it sees, the option of highest exact expectation (on a tie, the
one leaving less at risk, then the first listed). The chosen options then select, deal by deal, the path each final hand was
played on, and the sheet tallies (wagers standing, final hand) with integer counts.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations, product
from math import comb, lcm
from types import SimpleNamespace

import numpy as np

from certify import hands
from certify.analysis.par import ParSheet, WagerSheet
from certify.rules.analysis import DECK, ShapeError, _all_hands, _fraction, standing
from certify.rules.counting import suit_class_keys
from certify.rules.model import DealStep, DecideStep, RulesSpec, category_pays, ranking_categories


def _shape(spec: RulesSpec) -> tuple[int, list]:
    """(first hand size, the later steps: ("deal", n) or ("decide", DecideStep)), or ShapeError."""
    why = []
    if spec.deals("dealer") or spec.dealer_redraw is not None:
        why.append("no dealer hand")
    if not isinstance(spec.steps[0], DealStep) or spec.steps[0].deal != "player":
        why.append("a first deal to the player")
    for name, w in spec.wagers.items():
        p = w.settle.pay_table
        if p is None or p.hand != "player" or p.when != "always" or (p.ranking or spec.ranking) != spec.ranking:
            why.append(f"every wager paid by a table on the player's hand ({name})")
        if w.made == "side":
            why.append(f"no side wager ({name})")
    if any(o.replace or o.fold for d in spec.decisions for o in d.options):
        why.append("options that pull back, add or check (no fold or replace)")
    if why:
        raise ShapeError(f"{spec.name}: the backward induction counts games with " + "; ".join(dict.fromkeys(why)))
    seen, unseen = [], 0
    for step in spec.steps[1:]:
        if isinstance(step, DecideStep):
            seen.append(("decide", step))
        elif step.deal == "board" and step.face == "down" and len(step.face_up) < step.cards:
            if step.face_up:
                raise ShapeError(f"{spec.name}: a board deal partly face up is not analysed")
            unseen += step.cards  # seen only at the showdown
        else:
            seen.append(("deal", step.cards))
    if unseen:
        seen.append(("deal", unseen))
    return spec.steps[0].cards, seen


def _later_positions(first: int, deals: list[int]) -> np.ndarray:
    """Every later deal as positions in the remaining deck (sorted): (F, sum(deals)), step by step."""
    rows = [()]
    for n in deals:
        rows = [r + c for r in rows for c in combinations([p for p in range(DECK - first) if p not in r], n)]
    return np.array(rows, np.int64).reshape(len(rows), sum(deals))


def _paths(spec: RulesSpec, decisions: list[DecideStep]) -> list[tuple]:
    return list(product(*[range(len(d.options)) for d in decisions]))


def _standing(spec: RulesSpec, decisions: list[DecideStep], path: tuple) -> dict[str, Fraction]:
    return standing(spec, [d.options[o] for d, o in zip(decisions, path)])


def _solve(spec: RulesSpec, first_hands: np.ndarray | None = None) -> SimpleNamespace:
    """Every later deal of every first hand (suit classes, or the hands given, weight 1), valued,
    and the options chosen by backward induction."""
    first, later = _shape(spec)
    deals = [n for kind, n in later if kind == "deal"]
    decisions = [step for kind, step in later if kind == "decide"]
    level, seen = [], 0
    for kind, _ in later:
        if kind == "deal":
            seen += 1
        else:
            level.append(seen)
    k_final = first + sum(deals)
    ranking = spec.ranking
    if ranking != "five_card" or k_final != 5:
        raise ShapeError(f"{spec.name}: the backward induction values five-card hands (five_card ranking)")

    # the first hands by suit class, and every later deal for each
    if first_hands is None:
        all_first = _all_hands(first)
        _, index, weights = np.unique(suit_class_keys(all_first), return_index=True, return_counts=True)
        reps = all_first[index]
    else:
        reps = np.sort(np.asarray(first_hands, np.int64), axis=1)
        weights = np.ones(len(reps), np.int64)
    rest = np.array([[c for c in range(DECK) if c not in set(r)] for r in reps.tolist()], np.int64)
    positions = _later_positions(first, deals)
    axes = [comb(DECK - first - sum(deals[:i]), n) for i, n in enumerate(deals)]
    later_cards = rest[:, positions]  # (reps, F, later)
    final = np.concatenate([np.broadcast_to(reps[:, None, :], later_cards.shape[:2] + (first,)), later_cards], axis=2)
    values = hands.rank_batch(final.reshape(-1, k_final)).reshape(len(reps), -1).astype(np.int64)

    # each wager's net per unit by final hand, scaled to integers
    names = list(spec.wagers)
    categories = ranking_categories(ranking)
    cat = values >> hands.CATEGORY_SHIFT
    met = {}
    for name in names:
        p = spec.wagers[name].settle.pay_table
        met[name] = values >= (spec.threshold_value(p.at_least) if p.at_least is not None else 0)
    odds = {name: category_pays(spec.wagers[name].settle.pay_table.pays, ranking) for name in names}
    pay_of = {name: [Fraction(-1) if o is None else _fraction(o) for o in odds[name]] for name in names}
    paths = _paths(spec, decisions)
    stakes = {path: _standing(spec, decisions, path) for path in paths}
    den = lcm(*(x.denominator for name in names for x in pay_of[name]),
              *(s.denominator for st in stakes.values() for s in st.values()))
    wager_net = {}
    for name in names:
        table = np.array([int(x * den) for x in pay_of[name]], np.int64)
        wager_net[name] = np.where(met[name], table[cat], -den)
    shape = (len(reps),) + tuple(axes)
    final_value = {}
    for path in paths:
        total = np.zeros(values.shape, np.int64)
        for name, stake in stakes[path].items():
            total += wager_net[name] * int(stake * den)  # scaled twice: den^2 per unit
        final_value[path] = total.reshape(shape)

    # backward induction: choice[d][prefix] = the option index at each point decision d sees
    choice: list[dict] = [dict() for _ in decisions]
    value = dict(final_value)
    for d in reversed(range(len(decisions))):
        keep = 1 + level[d]  # the rep axis and the deal axes seen at decision d
        prefixes = sorted({p[:d] for p in value})
        new_value = {}
        for prefix in prefixes:
            # on a tie the option leaving less at risk, then the first listed
            at_risk = [sum(_standing(spec, decisions[:d + 1], prefix + (o,)).values(), Fraction(0))
                       for o in range(len(decisions[d].options))]
            order = sorted(range(len(at_risk)), key=lambda o: at_risk[o])
            options = [value[prefix + (o,)] for o in order]
            summed = [v.sum(axis=tuple(range(keep, v.ndim))) if v.ndim > keep else v for v in options]
            stack = np.stack(summed)
            best = np.argmax(stack, axis=0)  # the first of ``order`` on a tie
            choice[d][prefix] = np.array(order)[best]
            new_value[prefix] = np.take_along_axis(stack, best[None], axis=0)[0]
        value = new_value

    return SimpleNamespace(**{k: v for k, v in locals().items() if k != "new_value"})


def first_choices(spec: RulesSpec, first_hands) -> list[str]:
    """The option the derived strategy takes at the first decision with each of these first hands."""
    ctx = _solve(spec, np.array(first_hands))
    choice = ctx.choice[0][()]
    return [ctx.decisions[0].options[int(c)].name for c in choice]


def outcome_codes(spec: RulesSpec, values: np.ndarray) -> np.ndarray:
    """A final hand's outcome code: its category, and which wagers' pay lines (``at_least``) it
    meets, one bit per wager in the spec's order: ``category << n_wagers | bits``."""
    code = (values >> hands.CATEGORY_SHIFT) << len(spec.wagers)
    for w, name in enumerate(spec.wagers):
        line = spec.wagers[name].settle.pay_table.at_least
        code = code + ((values >= (spec.threshold_value(line) if line is not None else 0)).astype(np.int64) << w)
    return code


def outcome_events(spec: RulesSpec, decisions: list[DecideStep]) -> tuple[list[tuple[str, Fraction, Fraction]], np.ndarray]:
    """The main game's events, (name, net, wagered) in table order -- per set of wagers left
    standing, each category strongest first, a paid category under a pay line just below it --
    and ``index[path, code]``, the event of each options path (``_paths`` order) and outcome code.
    The sheet and the bulk kernel tally by the same index."""
    names, ranking = list(spec.wagers), spec.ranking
    categories = ranking_categories(ranking)
    odds = {n: category_pays(spec.wagers[n].settle.pay_table.pays, ranking) for n in names}
    paths = _paths(spec, decisions)
    n_w = len(names)
    lines = [spec.wagers[n].settle.pay_table.at_least for n in names]
    lines = [0 if t is None else spec.threshold_value(t) for t in lines]
    possible = set()  # the codes a hand can have: at the start of its category or at a pay line in it
    for c in range(len(categories)):
        for v in [c << hands.CATEGORY_SHIFT] + [t for t in lines if t >> hands.CATEGORY_SHIFT == c]:
            possible.add((c << n_w) + sum(int(v >= t) << w for w, t in enumerate(lines)))
    index = np.full((len(paths), len(categories) << n_w), -1, np.int64)
    keyed: dict[tuple, int] = {}
    for p, path in enumerate(paths):
        stakes = _standing(spec, decisions, path)
        label = "+".join(stakes) or "no wager standing"
        wagered = sum(stakes.values(), Fraction(0))
        for code in sorted(possible):
            c, bits = divmod(code, 1 << n_w)
            net, under = Fraction(0), False
            for w, name in enumerate(names):
                if name in stakes:
                    paid = bits >> w & 1 and odds[name][c] is not None
                    under |= not bits >> w & 1 and odds[name][c] is not None
                    net += stakes[name] * (_fraction(odds[name][c]) if paid else Fraction(-1))
            event = f"{label}: {categories[c].replace('_', ' ')}" + (" (below the pay line)" if under else "")
            index[p, code] = keyed.setdefault((event, net, wagered), len(keyed))
    events = list(keyed)
    order = sorted(range(len(events)), key=lambda e: (-events[e][2], events[e][0].split(": ")[0],
                                                      -_category_rank(events[e][0], categories), events[e][0]))
    rank = np.empty(len(order) + 1, np.int64)
    rank[order] = np.arange(len(order))
    rank[-1] = -1  # an impossible code stays -1
    return [events[e] for e in order], rank[index]


def par_sheet(spec: RulesSpec) -> ParSheet:
    """The exact PAR sheet, the strategy derived by backward induction."""
    ctx = _solve(spec)
    paths, decisions, choice, shape, reps, weights = ctx.paths, ctx.decisions, ctx.choice, ctx.shape, ctx.reps, ctx.weights
    names, stakes, met, odds, pay_of, cat, categories = ctx.names, ctx.stakes, ctx.met, ctx.odds, ctx.pay_of, ctx.cat, ctx.categories
    axes, first = ctx.axes, ctx.first
    # the path each final hand is played on, and the tally
    played = {}
    for path in paths:
        mask = np.ones(shape, bool)
        for d in range(len(decisions)):
            c = choice[d][path[:d]]
            mask &= (c == path[d]).reshape(c.shape + (1,) * (len(shape) - c.ndim))
        played[path] = mask.reshape(len(reps), -1)
    code = outcome_codes(spec, ctx.values)
    events, index = outcome_events(spec, decisions)
    n_codes = index.shape[1]
    combos = [0] * len(events)
    for p, path in enumerate(paths):
        per_rep = np.where(played[path], code, n_codes)  # n_codes: not played on this path
        rows_code = (np.arange(len(reps))[:, None] * (n_codes + 1) + per_rep).ravel()
        tally = np.bincount(rows_code, minlength=len(reps) * (n_codes + 1)).reshape(len(reps), n_codes + 1)
        totals = (tally[:, :n_codes] * weights[:, None]).sum(axis=0)
        for g in np.nonzero(totals)[0]:
            combos[index[p, g]] += int(totals[g])
    rows = [(event, net, n, wagered) for (event, net, wagered), n in zip(events, combos)]
    strategy, table = _strategy(spec, decisions, choice, reps, weights, axes)
    main = WagerSheet.from_combinations(
        "main game", rows, strategy="optimal (derived by backward induction): at each decision the option "
        "of highest exact expectation given the cards the player sees", strategy_table=table, strategy_chart=strategy,
        notes=(f"amounts per unit wager ({spec.unit}); every wager that stands is paid on the player's final hand",))
    cycle = comb(DECK, first) * int(np.prod(axes))
    if main.cycle != cycle:
        raise ShapeError(f"cycle {main.cycle} != {cycle}: the counting is wrong")
    return ParSheet(game=spec.title, spec=spec.name, family="rules", wagers=(main,),
                    frequencies={"five_card_categories": _category_counts()})


def _category_rank(event: str, categories: tuple[str, ...]) -> float:
    """Strongest first in the table: the category's place, a hand under the pay line just below."""
    text = event.split(": ", 1)[1]
    under = text.endswith("(below the pay line)")
    name = text.replace(" (below the pay line)", "").replace(" ", "_")
    return categories.index(name) - (0.5 if under else 0)


def _category_counts() -> dict[str, int]:
    counts = np.bincount(hands.rank_batch(hands.all_five_card_hands()) >> hands.CATEGORY_SHIFT, minlength=10)
    return {hands.CATEGORY_NAMES[c]: int(n) for c, n in enumerate(counts)}


def _strategy(spec, decisions, choice, reps, weights, axes) -> tuple[list[str], list[dict]]:
    """How often each option is taken at each decision (over the points the decision sees, on every
    path leading there), and at the first decision the first hands by rank pattern."""
    chart, table = [], []
    for d, decision in enumerate(decisions):
        for prefix, c in choice[d].items():
            per_point = np.prod(axes[:c.ndim - 1]) if c.ndim > 1 else 1
            counts = [int(((c == o).reshape(len(reps), -1).sum(axis=1) * weights).sum()) for o in range(len(decision.options))]
            before = ", ".join(decisions[i].options[o].name for i, o in enumerate(prefix)) or "start"
            row = {"decision": decision.decide, "after": before}
            row.update({opt.name: n for opt, n in zip(decision.options, counts)})
            table.append(row)
            chart.append(f"  {decision.decide} after {before}: " + ", ".join(
                f"{opt.name} {n:,}" for opt, n in zip(decision.options, counts)) + f" (of {int(weights.sum()) * int(per_point):,})")
    return chart, table


def option_values(spec: RulesSpec, first_hands) -> tuple[SimpleNamespace, list[dict]]:
    """Each option's exact value at every decision, for these first hands (weight 1 each), with the
    derived strategy's play after it (what the audit prices a free-play decision by): ``q[d][prefix]``
    (``prefix``: the options taken at the decisions before) is an array (options, hands, *the deal
    axes decision d sees) of the net summed over the deals it does not see, in units of
    ``ctx.den ** 2`` per unit wager. The backward induction of ``_solve``, its stacks kept."""
    ctx = _solve(spec, np.asarray(first_hands, np.int64))
    value, q = dict(ctx.final_value), [dict() for _ in ctx.decisions]
    for d in reversed(range(len(ctx.decisions))):
        keep = 1 + ctx.level[d]
        best = {}
        for prefix in sorted({p[:d] for p in value}):
            options = [value[prefix + (o,)] for o in range(len(ctx.decisions[d].options))]
            stack = np.stack([v.sum(axis=tuple(range(keep, v.ndim))) if v.ndim > keep else v for v in options])
            q[d][prefix] = stack
            best[prefix] = stack.max(axis=0)       # ties change no value
        value = best
    return ctx, q
