"""The rules model: a house-banked poker game as data (``model: rules/1``), see docs/rules-model.md.

A spec written in the model is a ``RulesSpec``. ``certify.spec.load_spec`` returns one for a YAML
file whose top level has ``model: rules/1`` (every spec: a file without it is refused). Validation is in two passes, both reported as ``file:line: field.path: expectation``:

1. the shape (pydantic, unknown fields refused; money, odds, ranks and ``HandThreshold`` are the
   types of ``certify.spec``);
2. the cross-references (``RulesSpec.problems()``): every wager an option adds or pulls back
   exists and is of the right kind, every pay table names exactly the categories of its ranking,
   thresholds use categories of the ranking in play, hands have the card counts their ranking
   needs, the deck holds the cards a full table is dealt.

The game: ``ranking`` (the hand ranking of the showdown), ``steps`` (deals, decisions, the dealer's
redraw, in order; the showdown follows the last step), ``dealer`` (qualifier), ``wagers`` (how each
is made and how it is settled), ``misdeal`` / ``dead_hand``, ``seats``, ``strategy``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Literal, Union

from pydantic import BeforeValidator, Discriminator, Field, Tag, model_serializer, model_validator

from certify.spec import (
    HAND_KEYS, HandKey, HandThreshold, Model, Money, Multiple, Odds, PayEntry, ProgressivePayTable,
    Source, _odds,
)

MODEL_TAG = "rules/1"

# The rankings a hand can be valued by: the categories each knows, weakest first, and how many
# cards a hand must hold (min, max; best_five takes the best five of six or seven).
RANKINGS: dict[str, tuple[tuple[str, ...], tuple[int, int]]] = {
    "five_card": (HAND_KEYS, (5, 5)),
    "best_five": (HAND_KEYS, (5, 7)),
    "three_card": (("high_card", "pair", "flush", "straight", "trips", "straight_flush"), (3, 3)),
}
RankingName = Literal["five_card", "best_five", "three_card"]


def ranking_categories(name: str) -> tuple[str, ...]:
    return RANKINGS[name][0]


# ---------------------------------------------------------------- the deal and the decisions

class DealStep(Model):
    """Cards to each seat (``player``), to the dealer, or to the board (shared by every hand)."""

    deal: Literal["player", "dealer", "board"]
    cards: int = Field(ge=1, le=7)
    face: Literal["down", "up"] = "down"
    face_up: list[int] = Field(default_factory=list, description="indices (0-based) of the cards of "
                                                                  "this step dealt face up, e.g. the dealer's up card")


class Option(Model):
    """One choice at a decision: fold, or any of add (wagers created, in multiples of the
    unit wager), pull_back (wagers returned to the player), replace (the whole hand redrawn)."""

    name: str = Field(pattern=r"^[a-z0-9_]+$")
    fold: bool = False
    add: dict[str, Multiple] = Field(default_factory=dict)
    pull_back: list[str] = Field(default_factory=list)
    replace: bool = False

    @model_validator(mode="after")
    def _fold_alone(self) -> "Option":
        if self.fold and (self.add or self.pull_back or self.replace):
            raise ValueError("a fold option ends the hand: it cannot also add, pull back or replace")
        return self


class DecideStep(Model):
    """A decision every live seat makes, seeing its own cards, the board and the dealer's up cards."""

    decide: str = Field(pattern=r"^[a-z0-9_]+$")
    options: list[Option] = Field(min_length=2)
    skipped_when_made: list[str] = Field(default_factory=list, description="decision wagers: a seat that "
                                         "has made any of them skips this decision (one Play bet a hand)")

    @model_serializer(mode="wrap")
    def _without_empty_skip(self, handler):
        # left out when empty: the dump of every spec written before the field is unchanged (the
        # PAR-sheet cache and the golden sheets are keyed by it)
        data = handler(self)
        if not self.skipped_when_made and isinstance(data, dict):
            data.pop("skipped_when_made", None)
        return data

    @model_validator(mode="after")
    def _unique(self) -> "DecideStep":
        names = [o.name for o in self.options]
        if len(set(names)) != len(names):
            raise ValueError(f"options: option names must be unique, got {names}")
        return self


class DealerRedraw(Model):
    stands_on: HandThreshold
    cards: int = Field(ge=1, le=7)


class DealerRedrawStep(Model):
    """The dealer replaces the whole hand with ``cards`` new ones unless it meets ``stands_on``."""

    dealer_redraw: DealerRedraw


STEP_KINDS = frozenset({"deal", "decide", "dealer_redraw"})


def _step_kind(value: Any) -> str | None:
    if isinstance(value, dict):
        for kind in ("deal", "decide", "dealer_redraw"):
            if kind in value:
                return kind
        return None
    return {DealStep: "deal", DecideStep: "decide", DealerRedrawStep: "dealer_redraw"}.get(type(value))


Step = Annotated[
    Union[Annotated[DealStep, Tag("deal")], Annotated[DecideStep, Tag("decide")],
          Annotated[DealerRedrawStep, Tag("dealer_redraw")]],
    Discriminator(_step_kind, custom_error_type="step_kind",
                  custom_error_message="expected a step with one of the keys deal, decide, dealer_redraw"),
]


class Dealer(Model):
    qualifies: HandThreshold | None = None


# ---------------------------------------------------------------- settlement

def _push_lose_or_odds(value: Any) -> Any:
    if isinstance(value, str) and value.strip().lower() in ("push", "lose", "action"):
        return value.strip().lower()
    return _odds(value)


# "action": a dealer who does not qualify changes nothing, the hands are compared (UTH's Blind, Play).
Outcome = Annotated[Union[Literal["push", "lose", "action"], Decimal], BeforeValidator(_push_lose_or_odds)]
CategoryPays = dict[HandKey, PayEntry]


class WinAtLeast(Model):
    """A winning hand below ``category`` is not paid: the wager ``otherwise`` (push)."""

    category: HandKey
    otherwise: Literal["push"] = "push"


class AnteBonus(Model):
    """Paid on top of the result against the dealer, on the player's hand, whatever the dealer
    holds, unless the player folded (the Ante Bonus of Three Card Poker)."""

    pays: CategoryPays


class VersusDealer(Model):
    """Settled by comparing the player's hand with the dealer's: a win is paid ``win`` (odds X to 1)
    or by ``win_pays`` (odds by the player's category); a tie ``tie``; a loss loses."""

    win: Odds | None = None
    win_pays: CategoryPays | None = None
    win_at_least: WinAtLeast | None = None
    tie: Literal["push", "lose"] = "push"
    dealer_not_qualifying: Outcome | None = None
    bonus: AnteBonus | None = None

    @model_validator(mode="after")
    def _one_win_rule(self) -> "VersusDealer":
        if (self.win is None) == (self.win_pays is None):
            raise ValueError("expected exactly one of win (odds) or win_pays (odds by category)")
        return self


HandSource = Literal["player", "player_first", "player_and_dealer"]


class PayTableSettle(Model):
    """Paid by a table on a hand: the player's (own cards and the board), the player's first hand
    (before a replace), or the player's and the dealer's cards together. ``when`` conditions the
    pay on the showdown; ``lost_on`` lists the options (by name) that lose the wager."""

    hand: HandSource = "player"
    ranking: RankingName | None = None
    pays: CategoryPays
    at_least: HandThreshold | None = Field(default=None, description="pays only on this hand or better "
                                                                     "(a pair of tens or better): a lower hand loses")
    when: Literal["always", "player_beats_dealer", "player_beats_or_ties_dealer"] = "always"
    paid_on_fold: bool = False
    lost_on: list[str] = Field(default_factory=list)


class CardLine(Model):
    """One line of a pay table on the first cards dealt (hold'em hole cards): ranks high first,
    each a rank or a range such as "2-10"; optional conditions on suits, a pair, the dealer's."""

    ranks: list[Annotated[str, BeforeValidator(lambda v: str(v).strip().upper())]] = Field(min_length=1, max_length=5)
    suited: bool | None = None
    paired: bool | None = None
    dealer_ranks: list[Annotated[str, BeforeValidator(lambda v: str(v).strip().upper())]] | None = None
    pays: PayEntry
    label: str | None = Field(default=None, description="the line's event in the PAR sheet (default: "
                                                         "written from the pattern)")

    @model_serializer(mode="wrap")
    def _without_unset_label(self, handler):
        data = handler(self)  # left out when not given, as StrategyRule's conditions
        if isinstance(data, dict) and data.get("label") is None:
            data.pop("label", None)
        return data

    @model_validator(mode="after")
    def _ranks_parse(self) -> "CardLine":
        for token in self.ranks + (self.dealer_ranks or []):
            rank_set(token)
        return self


def rank_set(token: str) -> frozenset[int]:
    """The ranks of a token "A", "10" or a range "2-10"."""
    from certify.spec import _rank

    low, _, high = token.partition("-")
    try:
        a, b = _rank(low), _rank(high) if high else _rank(low)
    except ValueError:
        raise ValueError(f"expected a rank or a range such as \"2-10\", got {token!r}") from None
    if b < a:
        raise ValueError(f"expected a range low-high such as \"2-10\", got {token!r}")
    return frozenset(range(a, b + 1))


class CardLinesSettle(Model):
    """Paid by the first matching line on the player's first ``cards`` cards; no line: loses."""

    cards: int = Field(ge=1, le=5)
    lines: list[CardLine] = Field(min_length=1)
    paid_on_fold: bool = False


class ProgressiveSettle(Model):
    """A progressive: each category pays a share of the meter, a fixed amount, or nothing; the
    wager is collected and the award paid on top of it."""

    hand: HandSource = "player"
    pays: ProgressivePayTable
    royal_split: Literal["equal_shares"] = "equal_shares"
    meter_reset: Money
    meter_advance: Money | None = None
    coin_in_lockout: bool = True
    paid_on_fold: bool = False


class Settlement(Model):
    versus_dealer: VersusDealer | None = None
    pay_table: PayTableSettle | None = None
    card_lines: CardLinesSettle | None = None
    progressive: ProgressiveSettle | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> "Settlement":
        given = [k for k in ("versus_dealer", "pay_table", "card_lines", "progressive") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("expected exactly one of versus_dealer, pay_table, card_lines, progressive"
                             + (f", got {', '.join(given)}" if given else ""))
        return self

    @property
    def kind(self) -> str:
        return next(k for k in ("versus_dealer", "pay_table", "card_lines", "progressive") if getattr(self, k) is not None)


class Wager(Model):
    """How a wager is made and settled. ``made``: ``unit`` (the one wager every other is a multiple
    of, placed before the deal, within min/max), ``with_unit`` (placed with it, ``multiple_of_unit``
    times it), ``decision`` (created by an option's ``add``), ``side`` (optional, before the deal,
    within min/max, settled on its own)."""

    made: Literal["unit", "with_unit", "decision", "side"]
    min: Money | None = None
    max: Money | None = None
    multiple_of_unit: Multiple | None = None
    settle: Settlement

    @model_validator(mode="after")
    def _limits(self) -> "Wager":
        limited = self.made in ("unit", "side")
        if limited and (self.min is None or self.max is None):
            raise ValueError(f"a {self.made} wager needs its table limits min and max")
        if not limited and (self.min is not None or self.max is not None):
            raise ValueError(f"a {self.made} wager takes no limits: its size follows the unit wager")
        if limited and (self.min <= 0 or self.max < self.min):
            raise ValueError(f"expected 0 < min <= max, got min {self.min} and max {self.max}")
        if (self.made == "with_unit") != (self.multiple_of_unit is not None):
            raise ValueError("multiple_of_unit is given exactly for a with_unit wager")
        return self


# ---------------------------------------------------------------- table procedures, strategy

class MisdealRule(Model):
    """A wrong card count to the dealer: ``all_dead`` (every wager returned), ``progressive_only``
    (hands play for the progressive only), ``void_round``; to a seat: a dead hand, wagers returned."""

    dealer_wrong_count: Literal["all_dead", "progressive_only", "void_round"] = "all_dead"
    player_wrong_count: Literal["dead_hand_wagers_returned", "void_round"] = "dead_hand_wagers_returned"


STARTING_HAND = r"^[2-9TJQKA]{2}[so]?$"  # "TT", "AKs", "72o": high rank first


class StrategyRule(Model):
    """One rule: the option, taken when the hand meets every condition given (none: always).
    ``at_least``: the hand so far (own cards and board) meets the threshold; ``hands``: the first
    two cards are one of these starting hands ("AKs", "72o", "TT"; high rank first);
    ``hole_card_plays``: a hole card is part of the hand -- a pocket pair, a hole card's rank on the
    board, or a straight or better (whose five cards a hole card almost always completes)."""

    option: str
    at_least: HandThreshold | None = None
    hands: list[Annotated[str, Field(pattern=STARTING_HAND)]] | None = None
    hole_card_plays: bool | None = None

    @property
    def conditional(self) -> bool:
        return self.at_least is not None or self.hands is not None or bool(self.hole_card_plays)

    @model_serializer(mode="wrap")
    def _without_unset_conditions(self, handler):
        # left out when not given: the dump of every spec written before these fields is unchanged
        # (the PAR-sheet cache and the golden sheets are keyed by it)
        data = handler(self)
        if isinstance(data, dict):
            for key in ("hands", "hole_card_plays"):
                if data.get(key) is None:
                    data.pop(key, None)
        return data


class Strategy(Model):
    """The house's simple strategy the engine plays: per decision, rules tried in order; the
    first whose ``at_least`` the hand meets (or that has none) gives the option. The PAR sheet
    derives the optimal strategy by itself and also gives this one's figures."""

    name: Literal["threshold"] = "threshold"
    decisions: dict[str, list[StrategyRule]]


# ---------------------------------------------------------------- the spec

class RulesSpec(Model):
    model: Literal["rules/1"]
    name: str = Field(pattern=r"^[a-z0-9_]+$")
    title: str
    version: Annotated[str, BeforeValidator(lambda v: str(v) if isinstance(v, (int, float)) else v)]
    source: Source
    deck: "DeckRule" = Field(default_factory=lambda: DeckRule())
    seats: int = Field(ge=1, le=9)
    ranking: RankingName
    steps: list[Step] = Field(min_length=1)
    dealer: Dealer = Field(default_factory=lambda: Dealer())
    wagers: dict[Annotated[str, Field(pattern=r"^[a-z0-9_]+$")], Wager] = Field(min_length=1)
    balance_covers_raise_at_deal: bool
    misdeal: MisdealRule = Field(default_factory=lambda: MisdealRule())
    strategy: Strategy | None = None

    # ---- what the rest of the suite asks of any spec
    def limit(self, wager: str):
        return self.wagers[wager]

    @property
    def unit(self) -> str:
        """The name of the unit wager (the Ante)."""
        return next(name for name, w in self.wagers.items() if w.made == "unit")

    def deals(self, to: str) -> list[DealStep]:
        return [s for s in self.steps if isinstance(s, DealStep) and s.deal == to]

    def cards_dealt(self, to: str) -> int:
        return sum(s.cards for s in self.deals(to))

    @property
    def decisions(self) -> list[DecideStep]:
        return [s for s in self.steps if isinstance(s, DecideStep)]

    @property
    def dealer_redraw(self) -> DealerRedraw | None:
        return next((s.dealer_redraw for s in self.steps if isinstance(s, DealerRedrawStep)), None)

    def option(self, name: str) -> Option:
        return next(o for d in self.decisions for o in d.options if o.name == name)

    def threshold_value(self, threshold: HandThreshold, ranking: str | None = None) -> int:
        """The smallest hand value (in ``ranking``'s order, the game's by default) meeting it."""
        categories = ranking_categories(ranking or self.ranking)
        value = categories.index(threshold.category) << 20
        for place, rank in enumerate(threshold.ranks):
            value |= rank << (20 - 4 * (place + 1))
        return value

    # ---- the cross-references
    def problems(self) -> list[tuple[tuple, str]]:
        """(field path, what was expected) for every rule that refers to something it cannot."""
        out: list[tuple[tuple, str]] = []
        units = [n for n, w in self.wagers.items() if w.made == "unit"]
        if len(units) != 1:
            out.append((("wagers",), f"expected exactly one wager made: unit (the Ante), got {len(units) or 'none'}"
                        + (f" ({', '.join(units)})" if units else "")))
        created: set[str] = set()
        option_names: set[str] = set()
        for i, step in enumerate(self.steps):
            if isinstance(step, DecideStep):
                for j, opt in enumerate(step.options):
                    where = ("steps", i, "options", j)
                    if opt.name in option_names:
                        out.append((where + ("name",), f"option {opt.name!r} is named at two decisions"))
                    option_names.add(opt.name)
                    for w in opt.add:
                        if w not in self.wagers or self.wagers[w].made != "decision":
                            out.append((where + ("add", w), "expected a wager with made: decision"))
                        created.add(w)
                    for w in opt.pull_back:
                        if w not in self.wagers or self.wagers[w].made not in ("unit", "with_unit"):
                            out.append((where + ("pull_back",), f"{w!r}: expected a wager with made: unit or with_unit"))
                    if opt.replace and not self.deals("player"):
                        out.append((where + ("replace",), "nothing to replace: no cards dealt to the player"))
                for w in step.skipped_when_made:
                    if w not in self.wagers or self.wagers[w].made != "decision":
                        out.append((("steps", i, "skipped_when_made"), f"{w!r}: expected a wager with made: decision"))
            elif isinstance(step, DealStep):
                for k in step.face_up:
                    if not 0 <= k < step.cards:
                        out.append((("steps", i, "face_up"), f"expected card indices 0..{step.cards - 1}, got {k}"))
        for name, w in self.wagers.items():
            if w.made == "decision" and name not in created:
                out.append((("wagers", name, "made"), "no option adds this decision wager"))
            out.extend(self._settlement_problems(name, w.settle, option_names))
        out.extend(self._hand_problems())
        if self.dealer.qualifies is not None:
            out.extend(self._threshold_problem(("dealer", "qualifies"), self.dealer.qualifies, self.ranking))
        redraw = self.dealer_redraw
        if redraw is not None:
            i = next(i for i, s in enumerate(self.steps) if isinstance(s, DealerRedrawStep))
            out.extend(self._threshold_problem(("steps", i, "dealer_redraw", "stands_on"), redraw.stands_on, self.ranking))
        if self.strategy is not None:
            decisions = {d.decide: d for d in self.decisions}
            for dname, rules in self.strategy.decisions.items():
                where = ("strategy", "decisions", dname)
                if dname not in decisions:
                    out.append((where, f"no decision {dname!r} in the steps (have {', '.join(decisions) or 'none'})"))
                    continue
                names = [o.name for o in decisions[dname].options]
                for j, rule in enumerate(rules):
                    if rule.option not in names:
                        out.append((where + (j, "option"), f"expected one of {', '.join(names)}, got {rule.option!r}"))
                    if rule.at_least is not None:
                        out.extend(self._threshold_problem(where + (j, "at_least"), rule.at_least, self.ranking))
                if not rules or rules[-1].conditional:
                    out.append((where, "the last rule must have no condition (what to do otherwise)"))
                for j, rule in enumerate(rules):
                    if rule.hands is not None and self.deals("player")[:1] != [] and self.deals("player")[0].cards != 2:
                        out.append((where + (j, "hands"), "starting hands are two cards: the first deal to "
                                                          "the player must be 2 cards"))
                    for k, hand in enumerate(rule.hands or []):
                        if hand[0] != hand[1] and "23456789TJQKA".index(hand[0]) < "23456789TJQKA".index(hand[1]):
                            out.append((where + (j, "hands", k), f"expected the high rank first, got {hand!r}"))
                        if (hand[0] == hand[1]) != (len(hand) == 2):
                            out.append((where + (j, "hands", k), f"expected a pair as \"TT\" or two ranks and s "
                                                                 f"(suited) or o (offsuit) as \"AKs\", got {hand!r}"))
        return out

    def _threshold_problem(self, where: tuple, threshold: HandThreshold, ranking: str) -> list:
        if threshold.category not in ranking_categories(ranking):
            return [(where + ("category",), f"expected a category of the {ranking} ranking "
                                            f"({', '.join(ranking_categories(ranking))}), got {threshold.category!r}")]
        return []

    def _settlement_problems(self, name: str, settle: Settlement, option_names: set[str]) -> list:
        where = ("wagers", name, "settle", settle.kind)
        out: list = []
        if settle.versus_dealer is not None:
            v = settle.versus_dealer
            if not self.deals("dealer"):
                out.append((where, "a wager settled against the dealer needs cards dealt to the dealer"))
            if self.dealer.qualifies is not None and v.dealer_not_qualifying is None:
                out.append((where + ("dealer_not_qualifying",), "required when the dealer has a qualifier "
                                                                "(push, lose, action, or odds X to 1)"))
            if self.dealer.qualifies is None and v.dealer_not_qualifying is not None:
                out.append((where + ("dealer_not_qualifying",), "the dealer has no qualifier (dealer.qualifies)"))
            if v.win_pays is not None:
                out.extend(_pays_problems(where + ("win_pays",), v.win_pays, self.ranking))
            if v.bonus is not None:
                out.extend(_pays_problems(where + ("bonus", "pays"), v.bonus.pays, self.ranking))
            if v.win_at_least is not None and v.win_at_least.category not in ranking_categories(self.ranking):
                out.append((where + ("win_at_least", "category"), f"not a category of the {self.ranking} ranking"))
        if settle.pay_table is not None:
            p = settle.pay_table
            ranking = p.ranking or self.ranking
            out.extend(_pays_problems(where + ("pays",), p.pays, ranking))
            if p.at_least is not None:
                out.extend(self._threshold_problem(where + ("at_least",), p.at_least, ranking))
            for j, opt in enumerate(p.lost_on):
                if opt not in option_names:
                    out.append((where + ("lost_on",), f"no option named {opt!r}"))
            if p.when != "always" and not self.deals("dealer"):
                out.append((where + ("when",), "the dealer is dealt no cards to compare with"))
            size = self._hand_size(p.hand)
            low, high = RANKINGS[ranking][1]
            if not low <= size <= high:
                out.append((where + ("hand",), f"the {p.hand} hand holds {size} cards; the {ranking} "
                                               f"ranking values {low}" + (f" to {high}" if high != low else "") + " cards"))
        if settle.card_lines is not None and settle.card_lines.cards > self.cards_dealt("player"):
            out.append((where + ("cards",), f"the player is dealt {self.cards_dealt('player')} cards"))
        if settle.progressive is not None:
            w = self.wagers[name]
            if w.made != "side" or w.min != w.max:
                out.append((("wagers", name), "a progressive is a side wager of one fixed amount (min = max)"))
        return out

    def _hand_size(self, hand: str) -> int:
        player, board = self.cards_dealt("player"), self.cards_dealt("board")
        if hand == "player_and_dealer":
            return player + self.cards_dealt("dealer")
        if hand == "player_first":
            return self.deals("player")[0].cards if self.deals("player") else 0
        return player + board

    def _hand_problems(self) -> list:
        out = []
        low, high = RANKINGS[self.ranking][1]
        board = self.cards_dealt("board")
        for who in ("player", "dealer"):
            n = self.cards_dealt(who)
            if who == "dealer" and n == 0:
                continue
            if not low <= n + board <= high:
                out.append((("steps",), f"the {who}'s hand holds {n + board} cards ({n} dealt + {board} on the "
                                        f"board); the {self.ranking} ranking values {low}"
                                        + (f" to {high}" if high != low else "") + " cards"))
        redraw = self.dealer_redraw
        replaces = any(o.replace for d in self.decisions for o in d.options)
        most = (self.seats * self.cards_dealt("player") * (2 if replaces else 1) + board
                + self.cards_dealt("dealer") + (redraw.cards if redraw else 0))
        if most > self.deck.size:
            out.append((("seats",), f"a full table of {self.seats} seats needs up to {most} cards, "
                                    f"more than the deck's {self.deck.size}"))
        return out


class DeckRule(Model):
    size: Literal[52] = 52
    jokers: Literal[0] = 0


def _pays_problems(where: tuple, pays: dict, ranking: str) -> list:
    want = set(ranking_categories(ranking))
    got = set(pays)
    out = []
    for key in sorted(got - want):
        out.append((where + (key,), f"not a category of the {ranking} ranking ({', '.join(ranking_categories(ranking))})"))
    missing = [k for k in ranking_categories(ranking) if k not in got]
    if missing:
        out.append((where, f"missing {', '.join(missing)}: give every category of the {ranking} ranking "
                           "(odds, or lose)"))
    return out


RulesSpec.model_rebuild()


def category_pays(pays: dict, ranking: str) -> list[Decimal | None]:
    """A pay table as a list indexed by the ranking's category order (None: the wager loses)."""
    return [pays[key] for key in ranking_categories(ranking)]
