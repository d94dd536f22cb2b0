"""The side wagers no decision settles differently: the math a free-play log can be judged on.

Whether a side wager's result depends on the decisions is read from the rules model
(``certify.rules.model``), never from a game's name. A side wager is *decision-free* when no option
of any decision removes it, changes the cards it is paid on or makes its pay depend on the
showdown:

- ``card_lines`` (on the first cards, Hold'em Bonus's Bonus): paid on a fold (``paid_on_fold``)
  where the game has a fold option, no option replaces the cards, and a line reading the dealer's
  cards (``dealer_ranks``) only where the dealer never redraws (a redraw happens only while a seat
  is live);
- ``pay_table`` (Ultimate Texas Hold'em's Trips): ``when: always`` (not the comparison with the
  dealer), no ``lost_on`` option (Five Card Mulligan's Bonus is lost on a mulligan: refused),
  paid on a fold where there is one, on the player's first hand or on a hand no option replaces,
  the game's own ranking, no ``at_least`` line inside a category (the rows are by category);
- ``progressive``: paid on a fold where there is one (Caribbean Stud's is not: refused), on a
  hand no option replaces.

Each round's event of such a wager (the line the cards match, else "other"; the hand's category;
the paying category, else "no win") is the rules' own reading of the cards dealt, for the first
seat that placed it; its net is the log's, in units of its own amount. ``sheet_rows`` checks
that the PAR sheet's rows for the wager are exactly these events with the model's pays (a row such
as "folded" is the mark of a sheet that depends on the strategy: refused).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

OTHER, NO_WIN = "other", "no win"


@dataclass(frozen=True)
class FreeWager:
    """A decision-free side wager: its events in the order the model lists them and each event's
    pay per unit of the wager (None: paid from the progressive meter)."""

    name: str
    kind: str
    events: tuple[str, ...]
    pays: tuple[Fraction | None, ...]


@dataclass(frozen=True)
class DecisionFree:
    wagers: dict[str, FreeWager]
    refused: dict[str, str]            # side wager -> what decision changes it


def _fraction(x) -> Fraction:
    return Fraction(Decimal(str(x)))


def why_decided(spec, name: str, wager) -> str | None:
    """What makes this side wager's result depend on a decision (None: nothing does)."""
    options = [o for d in spec.decisions for o in d.options]
    folds = [o.name for o in options if o.fold]
    replaces = [o.name for o in options if o.replace]
    settle = wager.settle
    if settle.versus_dealer is not None:
        return "settled by the comparison with the dealer's hand, which the decisions decide"
    table = settle.card_lines or settle.pay_table or settle.progressive
    if folds and not table.paid_on_fold:
        return f"lost on a fold ({', '.join(folds)}; paid_on_fold: false)"
    if settle.card_lines is not None:
        if replaces:
            return f"the option {', '.join(replaces)} replaces the cards it is paid on"
        if spec.dealer_redraw is not None and any(line.dealer_ranks for line in settle.card_lines.lines):
            return "a line reads the dealer's cards, which the dealer redraws only while a seat is live"
        labels = [_line_label(line) for line in settle.card_lines.lines]
        if len(set(labels)) != len(labels) or OTHER in labels:
            return "two lines share an event name: the PAR rows cannot be told apart"
        return None
    if settle.pay_table is not None:
        p = settle.pay_table
        if p.lost_on:
            return f"lost on the option {', '.join(p.lost_on)} (lost_on)"
        if p.when != "always":
            return f"paid only when {p.when.replace('_', ' ')} (the showdown the decisions decide)"
        if p.ranking not in (None, spec.ranking):
            return f"valued by the {p.ranking} ranking, not the game's: not tallied by category"
        if p.at_least is not None and p.at_least.ranks:
            return "a pay line (at_least) inside a category: the PAR rows are by category"
        if p.hand == "player_and_dealer":
            return "paid on the player's and the dealer's cards together: not tallied"
    if getattr(table, "hand", "player") == "player" and replaces:
        return f"the option {', '.join(replaces)} replaces the hand it is paid on"
    return None


def _line_label(line) -> str:
    from certify.rules.board_streets import line_label

    return line_label(line)


def _events(spec, name: str, wager) -> FreeWager:
    from certify.rules.analysis import _category_name
    from certify.rules.model import category_pays, ranking_categories

    settle = wager.settle
    if settle.card_lines is not None:
        lines = settle.card_lines.lines
        return FreeWager(name, "card_lines", tuple(_line_label(line) for line in lines) + (OTHER,),
                         tuple(Fraction(-1) if line.pays is None else _fraction(line.pays) for line in lines)
                         + (Fraction(-1),))
    categories = ranking_categories(spec.ranking)
    if settle.pay_table is not None:
        p = settle.pay_table
        odds = category_pays(p.pays, spec.ranking)
        floor = spec.threshold_value(p.at_least) >> 20 if p.at_least is not None else 0
        events, pays = [], []
        for c in reversed(range(len(categories))):
            events.append(_category_name(categories[c]))
            pays.append(Fraction(-1) if odds[c] is None or c < floor else _fraction(odds[c]))
        return FreeWager(name, "pay_table", tuple(events), tuple(pays))
    prog = settle.progressive
    events, pays = [], []
    for key in reversed(categories):
        entry = getattr(prog.pays, key)
        if entry is None:
            continue
        events.append(_category_name(key))
        pays.append(None if entry.meter_percent is not None else _fraction(entry.amount) / _fraction(wager.min) - 1)
    return FreeWager(name, "progressive", tuple(events) + (NO_WIN,), tuple(pays) + (Fraction(-1),))


def decision_free(spec) -> DecisionFree:
    """The spec's decision-free side wagers and, for every other side wager, why not."""
    wagers, refused = {}, {}
    if not hasattr(spec, "decisions") or not hasattr(spec, "wagers"):
        return DecisionFree({}, {})
    for name, wager in spec.wagers.items():
        if wager.made != "side":
            continue
        why = why_decided(spec, name, wager)
        if why is None:
            wagers[name] = _events(spec, name, wager)
        else:
            refused[name] = why
    return DecisionFree(wagers, refused)


def round_events(spec, free: DecisionFree, rnd, record: dict) -> tuple:
    """``(wager, event, logged net / own amount or None)`` per decision-free wager, for the first
    seat of a played round that placed it (a dead or voided seat is not dealt a hand)."""
    if not free.wagers or rnd is None or rnd.phase != "settled" or rnd.result().table != "played":
        return ()
    from certify.rules.engine import card_line
    from certify.rules.model import ranking_categories

    numbers = [s["seat"] for s in record["seats"]]
    logged = {(e["seat"], e["wager"]): e["net"] for e in record["settlement"]}
    categories = ranking_categories(spec.ranking)
    out = []
    for name, fw in free.wagers.items():
        seat = next((s for s in rnd.seats if name in s.wagers and s.status in ("played", "folded")), None)
        if seat is None:
            continue
        settle = spec.wagers[name].settle
        if fw.kind == "card_lines":
            i = card_line(settle.card_lines.lines, tuple(seat.cards)[:settle.card_lines.cards], rnd.dealer)
            event = OTHER if i is None else fw.events[i]
        else:
            table = settle.pay_table or settle.progressive
            cards = rnd._first.get(seat.index, seat.cards) if table.hand == "player_first" else seat.cards
            value = rnd._value(cards)
            if value is None:
                event = "(no complete hand)"       # no row of the sheet: the chi-square fails on it
            else:
                event = categories[value >> 20].replace("_", " ")
                if fw.kind == "progressive" and event not in fw.events:
                    event = NO_WIN
        net = logged.get((numbers[seat.index], name))
        out.append((name, event, None if net is None else Fraction(Decimal(net)) / Fraction(seat.wagers[name])))
    return tuple(out)


def sheet_rows(fw: FreeWager, sheet) -> tuple[Any, str | None]:
    """The PAR sheet's wager for ``fw`` when its rows are exactly the model's events with the
    model's pays (the meter's rows: a share of the meter), else (None, why not)."""
    wager = next((w for w in sheet.wagers if w.name.lower() == fw.name.lower()), None)
    if wager is None:
        return None, f"the PAR sheet has no wager {fw.name!r}"
    rows = {row.event: row for row in wager.rows}
    if len(rows) != len(wager.rows) or set(rows) != set(fw.events):
        extra = sorted(set(rows) - set(fw.events))
        missing = sorted(set(fw.events) - set(rows))
        return None, (f"the PAR sheet's rows of {wager.name!r} are not the model's events"
                      + (f" (rows the model has no event for, such as a fold: {extra})" if extra else "")
                      + (f" (events with no row: {missing})" if missing else "")
                      + ": it depends on the strategy or on another reading of the cards")
    for event, pays in zip(fw.events, fw.pays):
        row = rows[event]
        if pays is None:
            if not row.meter_share:
                return None, f"{wager.name!r}, {event!r}: the model pays a share of the meter, the sheet does not"
        elif row.meter_share or Fraction(row.pays) != pays:
            return None, f"{wager.name!r}, {event!r}: the sheet pays {row.pays}, the model {pays}"
    return wager, None
