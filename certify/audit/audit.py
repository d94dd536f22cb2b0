"""``certify audit``: every logged round against the rules, all of them against the math.

One streaming pass over the logs (``certify.audit.log``), in the order given. For each round:

1. **integrity**: the schema (else exit 2), round ids per table consecutive (a repeat or a step
   back is a duplicate, a jump is missing rounds), time never going backwards per table, no card
   dealt twice in a round, every card a card of the deck, the dealt cards the deck's own order
   when the log gives the deck;
2. **rules**: the round re-settled by the spec's round class (``certify.audit.rounds``): every
   illegal action, and every wager whose logged net differs from the rules' (round, seat, wager,
   logged, correct, the rule), the round's outcome (played / misdeal) and the progressive meter;
   where the log declares the spec strategy, every decision that is not the strategy's;
3. **fairness** of the cards as dealt, with ``certify.stats.cards`` (the module ``certify rng``
   uses): the first k cards of each round's first deal (the cards dealt before any decision; k the
   smallest first-deal size of at least 1% of the rounds, as seats come and go: rounds dealing
   fewer are counted and left out) as a deal of k cards in dealing order: card x position over
   every round (tallied as read, constant memory), and the card
   battery (``certify.stats.battery.CARD_TESTS``: suit and rank by position, adjacent pairs, runs,
   gaps, coupon collector, poker categories of each 5-card slot, serial independence, repeated
   deals) on the first ``sample`` rounds; where the log gives deck orders, the same battery on
   the decks;
4. **math**, on the rounds that declare the spec strategy: for each wager of the PAR sheet
   (``certify.analysis.cache.load_or_compute``), the net results of the first seat of each round
   (seats of one round share the dealer's cards, so only one is taken) in units of its initial
   wager, against the sheet's return table with rows of equal pays merged (chi-square,
   ``certify.stats.gof.chisquare_gof``) and the mean against the sheet's return (RTP with its
   confidence interval, ``certify.stats.gof.mean_return_test``; not for a wager paid from a
   meter, whose return depends on the meter);
5. **verdict**: Holm-Bonferroni at alpha over every statistical test
   (``certify.stats.multiple.holm``; a log has no fresh data, so the stage-1 verdict stands: a fair
   log fails with probability at most alpha); every exact finding (integrity, rules, decisions)
   fails the audit outright. Exit 0 pass, 1 findings, 2 unusable input.

Memory: the tallies are constant; the battery's sample holds ``sample`` x k bytes (and
``sample`` x 52 for decks), whatever the size of the log. Findings are counted in full and the
first :data:`KEEP_FINDINGS` of each class are kept for the report.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from certify.audit.log import LogError, LogFile, check_log_path, read_lines, read_records
from certify.audit.rounds import Finding, card_code, compare, feed
from certify.cards import card_str

KEEP_FINDINGS = 200
CARD_BLOCK = 4096            # rounds whose cards are tallied at once
BATCH = 500                  # lines a worker re-settles at once (--jobs)
DEFAULT_SAMPLE = 1_000_000
CLASSES = ("integrity", "rules", "decisions")
METER_CELL = "meter award"


@dataclass
class Tally:
    """Everything the pass keeps: bounded whatever the number of rounds."""

    rounds: int = 0
    findings: dict[str, list[Finding]] = field(default_factory=lambda: {c: [] for c in CLASSES})
    counts: Counter = field(default_factory=Counter)
    positions: dict[int, np.ndarray] = field(default_factory=dict)   # first-deal size k -> k x 52 counts
    sample: dict[int, list[np.ndarray]] = field(default_factory=lambda: defaultdict(list))
    sample_rows: int = 0
    sample_order: list[int] = field(default_factory=list)    # the first-deal size of each sample block, in order
    k: int | None = None                      # the positions tested (chosen at the end: ``choose_k``)
    short_deals: int = 0                      # rounds whose first deal is shorter than k (left out)
    decks: list[np.ndarray] = field(default_factory=list)
    deck_rows: int = 0
    declared: int = 0                         # rounds that declare the spec strategy
    free_rounds: int = 0                      # rounds that declare none (free play)
    choices: Counter = field(default_factory=Counter)    # free play, rules model: (cards, option) -> Antes wagered
    choice_count: Counter = field(default_factory=Counter)   # ... -> decisions
    decisions: int = 0
    free_deviations: int = 0                  # free play: decisions other than the spec strategy's
    outcomes: Counter = field(default_factory=Counter)   # first seat's ((wager, net/first, net/own), ...)
    dealer: Counter = field(default_factory=Counter)     # (reveal flag, met) -> rounds
    side_events: Counter = field(default_factory=Counter)   # decision-free side wagers: (wager, event) -> rounds
    side_nets: Counter = field(default_factory=Counter)     # ... (wager, logged net / own amount) -> rounds
    last: dict[str, tuple[int, datetime, str]] = field(default_factory=dict)
    first_seen: dict[str, tuple[int, int]] = field(default_factory=dict)   # columnar: table -> first (round, time us)

    def add(self, finding: Finding) -> None:
        self.counts[finding.kind] += 1
        kept = self.findings[finding.kind]
        if len(kept) < KEEP_FINDINGS:
            kept.append(finding)


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _first_deal(record: dict, dealt: list[int]) -> int:
    """How many cards the log deals before its first decision (or board card)."""
    count = 0
    for action in record["actions"]:
        if action["type"] == "deal":
            if action["to"] == "board":
                break
            count += len(action["cards"])
        elif action["type"] in ("decision", "void_seat", "reveal"):
            break
    return min(count, len(dealt))


@dataclass
class Examined:
    """One round through the rules: its findings (illegal actions, settlement differences,
    decisions), the cards in dealing order, whether the rules settled it."""

    findings: list[Finding]
    dealt: list[int]
    decisions: int
    settled: bool
    dealer: tuple[str, bool] | None = None    # the rules' reveal: ("qualifies" | "stands", met or not)
    choices: tuple = ()                       # rules model: (cards, option, unit wager, board, taken) per decision
    sides: tuple = ()                         # decision-free side wagers: (wager, event, net per own amount)


def examine(spec, strategy, record: dict, where: str, free=None) -> Examined:
    """One round through the rules; ``free``: the spec's decision-free side wagers
    (``certify.audit.sides.decision_free``), whose events are read off the re-settled round."""
    from certify.audit.sides import round_events

    fed = feed(spec, record, strategy, f"{where}: ")
    findings = list(fed.findings)
    if fed.round is not None:
        findings += compare(spec, record, fed, f"{where}: ")
    sides = round_events(spec, free, fed.round, record) if free is not None else ()
    return Examined(findings, fed.dealt, fed.decisions, fed.round is not None, _dealer_flag(fed.round),
                    tuple(fed.choices), sides)


# The engines' reveal event says whether the dealer's first five cards met the spec's threshold;
# the flag's name -> the spec's dealer field holding that threshold.
DEALER_FLAGS = {"qualifies": "qualifies", "stands": "stands_on"}


def dealer_share(spec, threshold) -> tuple[int, int, str] | None:
    """How many of the dealer's possible hands meet ``threshold``, of how many: the k-card hands
    of the spec's ranking (Three Card Poker: 3 cards, its three-card ranking), counted from the
    model's hand tables; a dealer who plays the board too: ``_dealer_share_with_board``."""
    from math import comb

    from certify.rules.engine import round_plan

    if any(kind == "board" for kind, _ in round_plan(spec).stages):
        return _dealer_share_with_board(spec, threshold)   # the dealer plays the board too (UTH)
    from certify.rules.analysis import hand_tables

    k = spec.cards_dealt("dealer")  # the dealer's first hand (a redraw step's threshold is met by it)
    tables = hand_tables(spec.ranking, k)
    at_least = tables.dense_at_least(spec.threshold_value(threshold))
    hands = int(tables.weights[tables.dense >= at_least].sum())
    return hands, comb(52, k), f"{k}-card hands ({spec.ranking} ranking)"


def dealer_threshold(spec, field_name: str):
    """The spec's threshold behind a reveal flag: the dealer's qualifier, or the hand the dealer
    stands on (a rules-model spec: its redraw step's)."""
    if field_name == "stands_on" and getattr(spec, "dealer_redraw", None) is not None:
        return spec.dealer_redraw.stands_on
    return getattr(getattr(spec, "dealer", None), field_name, None)


def _dealer_share_with_board(spec, threshold) -> tuple[int, int, str] | None:
    """A rules-model game whose dealer plays the best five of own cards and the board (Ultimate
    Texas Hold'em: 2 + 5): the share of the 133,784,560 seven-card hands whose best five meet a
    threshold of a category alone, counted by enumeration
    (``certify.analysis.frequencies.seven_card_category_counts``). None (no test) for any other
    dealer hand or a threshold naming ranks."""
    from math import comb

    from certify.rules.engine import round_plan

    plan = round_plan(spec)
    cards = plan.dealer + sum(n for kind, n in plan.stages if kind == "board")
    if spec.ranking != "best_five" or cards != 7 or threshold.ranks:
        return None
    from certify.analysis.frequencies import seven_card_category_counts

    at_least = spec.threshold_value(threshold) >> 20
    hands = sum(n for category, n in seven_card_category_counts().items() if int(category) >= at_least)
    return hands, comb(52, 7), "seven-card hands (the dealer's two and the board), best five"


def _dealer_flag(rnd) -> tuple[str, bool] | None:
    if rnd is None:
        return None
    reveal = next((e for e in reversed(rnd.events) if e.kind == "reveal"), None)
    args = reveal.args() if reveal is not None else {}
    return next(((flag, bool(args[flag])) for flag in DEALER_FLAGS if flag in args), None)


_STRATEGIES: dict[str, Any] = {}


def spec_strategy(spec):
    """The strategy rounds declaring ``"strategy": "spec"`` are held to (the engine module's
    ``strategy_from_spec``: a rules-model game with decisions between deals gets the analysis'
    derived strategy, whose tables take a while to build: kept per spec for the process, so a
    drive and its audit build them once); None where the spec gives none."""
    from certify.games import engine

    try:
        key = spec.model_dump_json()
    except AttributeError:
        key = None
    if key is not None and key in _STRATEGIES:
        return _STRATEGIES[key]
    try:
        strategy = engine(spec).strategy_from_spec(spec)
    except ValueError:
        strategy = None
    if key is not None:
        if len(_STRATEGIES) >= 4:
            _STRATEGIES.clear()
        _STRATEGIES[key] = strategy
    return strategy



_WORKER: dict[str, Any] = {}


def _worker_start(spec) -> None:
    from certify.audit.schema import round_log_validator

    from certify.audit.sides import decision_free

    _WORKER.update(spec=spec, strategy=spec_strategy(spec), validator=round_log_validator(1),
                   free=decision_free(spec))


def _examine_batch(path: str, batch: list[tuple[int, bytes]]) -> list[tuple[int, dict, Examined]]:
    """A worker's share (``--jobs``): parse, validate and re-settle a batch of lines."""
    from certify.audit.log import parse_line

    spec, strategy, validator = _WORKER["spec"], _WORKER["strategy"], _WORKER["validator"]
    out = []
    for number, line in batch:
        where = f"{path}:{number}"
        record = parse_line(line, where, validator, spec)
        out.append((number, record, examine(spec, strategy, record, where, _WORKER["free"])))
    return out


class Auditor:
    def __init__(self, spec, sheet=None, alpha: float = 0.01, sample: int = DEFAULT_SAMPLE):
        from certify.audit.sides import decision_free

        self.spec, self.sheet, self.alpha, self.sample_limit = spec, sheet, alpha, sample
        self.tally = Tally()
        self.strategy = spec_strategy(spec)
        self.free = decision_free(spec)       # the side wagers no decision changes (every round's math)
        self.priced_by_path = _induction_shape(spec) is None
        self._pending: dict[int, list[bytes]] = {}       # first deals not yet tallied, by size
        self._outcome_keys: dict[tuple, tuple | None] = {}

    # ------------------------------------------------------------------ one round
    def round(self, record: dict, where: str, examined: "Examined | None" = None) -> None:
        """Tally one round; ``examined`` is its re-settlement when a worker did it (``--jobs``)."""
        self.tally.rounds += 1
        self._sequence(record, where)
        self.settle(record, where, examined)

    def settle(self, record: dict, where: str, examined: "Examined | None" = None, cards: bool = True) -> None:
        """Everything of one round but its place in the sequence (``round`` counts and sequences it;
        the columnar path does both for a whole batch, and tallies the cards itself: ``cards``)."""
        t = self.tally
        declared = record.get("strategy") == "spec"
        t.free_rounds += not declared
        if examined is None:
            examined = examine(self.spec, self.strategy, record, where, self.free)
        t.decisions += examined.decisions
        if examined.dealer is not None:
            t.dealer[examined.dealer] += 1
        for finding in examined.findings:
            if finding.kind == "decisions" and not declared:
                t.free_deviations += 1
                continue
            t.add(finding)
        self._deck(record, examined.dealt, where)
        if cards:
            self._cards(record, examined.dealt)
        if examined.settled and declared:
            t.declared += 1
            self._outcome(record)
        for name, event, net in examined.sides:
            t.side_events[(name, event)] += 1
            if net is not None:
                t.side_nets[(name, net)] += 1
        if not declared:
            for cards, option, unit, board, taken in examined.choices:
                # by the cards alone where the value reads nothing else (one decision; bounded for a
                # board game, whose cost is not given); the induction's games by all the seat saw
                key = (cards, option, board, taken) if self.priced_by_path else (cards, option)
                t.choices[key] += Decimal(unit) if unit is not None else Decimal(0)
                t.choice_count[key] += 1

    def _sequence(self, record: dict, where: str) -> None:
        t = self.tally
        table, number = record["table"], record["round"]
        try:
            stamp = _time(record["time"])
        except ValueError as exc:
            raise LogError(f"{where}: time: expected an ISO 8601 time, got {record['time']!r} ({exc})") from None
        if stamp.tzinfo is None:
            raise LogError(f"{where}: time: expected a UTC offset or Z, got {record['time']!r}")
        previous = t.last.get(table)
        if previous is not None:
            last_number, last_time, last_where = previous
            if number <= last_number:
                t.add(Finding("integrity", f"round id {number} repeats or goes back at table {table!r} "
                                           f"(round {last_number} at {last_where})", number, f"{where}: round"))
            elif number > last_number + 1:
                t.add(Finding("integrity", f"rounds {last_number + 1}..{number - 1} of table {table!r} are missing",
                              number, f"{where}: round", {"missing": number - last_number - 1}))
            if stamp < last_time:
                t.add(Finding("integrity", f"time goes backwards at table {table!r}: {record['time']} after "
                                           f"{last_time.isoformat()}", number, f"{where}: time"))
        t.last[table] = (max(number, previous[0]) if previous else number,
                         max(stamp, previous[1]) if previous else stamp, where)

    def _deck(self, record: dict, dealt: list[int], where: str) -> None:
        if "deck" not in record:
            return
        t = self.tally
        try:
            deck = [card_code(c) for c in record["deck"]]
        except ValueError as exc:
            t.add(Finding("integrity", f"deck: card not in the deck: {exc}", record["round"], f"{where}: deck"))
            return
        if len(set(deck)) != len(deck) or len(deck) != 52:
            t.add(Finding("integrity", f"deck: expected the 52 distinct cards of the deck, got {len(deck)} cards, "
                                       f"{len(set(deck))} distinct", record["round"], f"{where}: deck"))
            return
        if deck[:len(dealt)] != dealt:
            at = next(i for i, (a, b) in enumerate(zip(deck, dealt)) if a != b) if dealt else 0
            t.add(Finding("integrity", f"the cards dealt are not the deck's order: card {at + 1} dealt "
                                       f"{card_str(dealt[at])}, the deck has {card_str(deck[at])}",
                          record["round"], f"{where}: deck"))
        if t.deck_rows < self.sample_limit:
            t.decks.append(np.array(deck, dtype=np.uint8))
            t.deck_rows += 1

    def _cards(self, record: dict, dealt: list[int]) -> None:
        if not dealt or len(set(dealt)) != len(dealt):
            return
        first = _first_deal(record, dealt)
        if first == 0:
            return
        pending = self._pending.setdefault(first, [])
        pending.append(bytes(dealt[:first]))       # tallied a block at a time (numpy per block, not per round)
        if len(pending) >= CARD_BLOCK:
            self.flush_cards(first)

    def flush_cards(self, size: int | None = None) -> None:
        """Tally the rounds' cards still pending (all sizes, or one), in the order read."""
        for first in [size] if size is not None else list(self._pending):
            rows = self._pending.pop(first, [])
            if rows:
                self.add_cards(np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(-1, first))

    def add_cards(self, block: np.ndarray) -> None:
        """Card x position of a block of first deals (rows in dealing order), and the battery's
        sample while it has room (the columnar path tallies its batches here too)."""
        t = self.tally
        first = block.shape[1]
        table = t.positions.get(first)
        if table is None:
            table = t.positions[first] = np.zeros((first, 52), dtype=np.int64)
        table += np.stack([np.bincount(block[:, j], minlength=52) for j in range(first)])
        self.add_sample(block)

    def add_sample(self, block: np.ndarray) -> None:
        """The battery's sample takes the block's first rows while it has room."""
        t = self.tally
        room = self.sample_limit - t.sample_rows
        if room > 0:
            take = block[:room].astype(np.uint8)
            t.sample[block.shape[1]].append(take)
            t.sample_order.append(block.shape[1])
            t.sample_rows += len(take)

    def choose_k(self) -> int | None:
        """The positions tested: the smallest first-deal size among those of at least 1% of the
        rounds (seats come and go; the first k cards of every longer deal are a deal of k cards).
        Rounds dealing fewer are left out and counted."""
        t = self.tally
        self.flush_cards()
        sizes = {k: int(table[0].sum()) for k, table in t.positions.items()}
        total = sum(sizes.values())
        if not total:
            return None
        k = min(k for k, n in sizes.items() if n >= 0.01 * total)
        t.k, t.short_deals = k, sum(n for size, n in sizes.items() if size < k)
        return k

    def _outcome(self, record: dict) -> None:
        key = self.outcome_key(record)
        if key is not None:
            self.tally.outcomes[key] += 1

    def outcome_key(self, record: dict) -> tuple | None:
        """``_outcome_key`` remembered by the strings it reads (a few distinct ones in a log)."""
        raw = (record["outcome"], tuple(a["seat"] if a["type"] == "void_seat" else (a["seat"], a["wager"], a["amount"])
                                        for a in record["actions"] if a["type"] in ("wager", "void_seat")),
               tuple(s["seat"] for s in record["seats"]),
               tuple((e["seat"], e["wager"], e["net"]) for e in record["settlement"]))
        if raw not in self._outcome_keys:
            if len(self._outcome_keys) > 100_000:
                self._outcome_keys.clear()
            self._outcome_keys[raw] = self._outcome_key(record)
        return self._outcome_keys[raw]

    def _outcome_key(self, record: dict) -> tuple | None:
        """The first seat with an accepted initial wager: each settled wager's net in units of the
        seat's first wager and of its own amount (which wagers are side bets is the PAR sheet's to
        say, read only when the tests run: a log of free play never needs the sheet)."""
        placed: dict[int, dict[str, Decimal]] = {}
        voided = {a["seat"] for a in record["actions"] if a["type"] == "void_seat"}
        for a in record["actions"]:
            if a["type"] == "wager" and a["seat"] not in voided:
                placed.setdefault(a["seat"], {})[a["wager"]] = Decimal(a["amount"])
        if not placed or record["outcome"] != "played":
            return None
        seat = next(s["seat"] for s in record["seats"] if s["seat"] in placed)
        wagers = placed[seat]
        first = Fraction(next(iter(wagers.values())))
        key = tuple(sorted((e["wager"], Fraction(Decimal(e["net"])) / first,
                            Fraction(Decimal(e["net"])) / Fraction(wagers[e["wager"]]) if e["wager"] in wagers else None)
                           for e in record["settlement"] if e["seat"] == seat))
        return key

    def nets(self) -> dict[str, Counter]:
        """Per PAR-sheet wager, the count of each net result in that wager's units: the main game
        sums every wager that is no side bet of the sheet, in units of the first wager."""
        sides = {w.name.lower(): w.name for w in self.sheet.wagers}
        names = [w.name for w in self.sheet.wagers]
        main_name = next((n for n in ("main game (spec strategy)", "main game") if n in names), self.sheet.main.name)
        out: dict[str, Counter] = defaultdict(Counter)
        for key, n in self.tally.outcomes.items():
            out[main_name][sum((by_first for name, by_first, _ in key if name not in sides), Fraction(0))] += n
            for name, _, by_own in key:
                if name in sides and by_own is not None:
                    out[sides[name]][by_own] += n
        return out

    # ------------------------------------------------------------------ the tests
    def tests(self) -> dict[str, list]:
        """The card tests (fairness); the math: what no decision changes, so the math a free-play
        log can be judged on (the dealer's rate; the decision-free side wagers of every round), and
        the outcomes of the declared rounds."""
        self.flush_cards()
        return {"fairness": self._fairness(), "math": self._dealer_rates() + self._decision_free() + self._math()}

    def _fairness(self) -> list:
        from certify.stats import cards
        from certify.stats.battery import CARD_TESTS

        t, alpha, out = self.tally, self.alpha, []
        k = self.choose_k()
        if k:
            positions = sum(table[:k] for size, table in t.positions.items() if size >= k)
            tallied = int(positions[0].sum())
            out.append(_named(cards.card_position_table(positions, tallied, alpha),
                              "dealt cards: CardPosition (every round)"))
            sample = np.vstack([np.vstack(rows)[:, :k] for size, rows in t.sample.items() if size >= k])
            for name, test in CARD_TESTS:
                if name == "CardPosition" and len(sample) == tallied:
                    continue       # the whole log is the sample: the test above is this one
                out.append(_named(test(sample, alpha), f"dealt cards: {name}"))
        if t.deck_rows:
            decks = np.vstack(t.decks)
            for name, test in CARD_TESTS:
                out.append(_named(test(decks, alpha), f"deck orders: {name}"))
        return out

    def _dealer_rates(self) -> list:
        """How often the dealer's first five cards met the spec's threshold (the rules' own reveal),
        against the exact share of the 2,598,960 five-card hands that meet it: an exact binomial
        test with its Clopper-Pearson interval. Any deal, any seats: the dealer's five are a uniform
        five-card hand."""
        from certify.stats.gof import binomial_test

        out = []
        for flag, field_name in DEALER_FLAGS.items():
            met, missed = self.tally.dealer[(flag, True)], self.tally.dealer[(flag, False)]
            total = met + missed
            threshold = dealer_threshold(self.spec, field_name)
            if not total or threshold is None:
                continue
            share = dealer_share(self.spec, threshold)
            if share is None:
                continue
            hands, of, what_hands = share
            what = "qualifies" if flag == "qualifies" else "stands (no mulligan)"
            out.append(binomial_test(met, total, hands / of, alpha=self.alpha, confidence=1 - self.alpha,
                                     name=f"dealer {what}: rate",
                                     looked_at=f"rounds in which the dealer {what}: {met:,} of {total:,}, against "
                                               f"the exact {hands:,} of {of:,} {what_hands}"))
        return out

    def _math(self) -> list:
        """Outcomes and RTP of the declared rounds, per wager of the PAR sheet (a side wager tested
        on every round as decision-free is not tested again on the declared ones)."""
        from certify.stats.gof import chisquare_gof

        out = []
        if self.sheet is None or not self.tally.outcomes:
            return out
        nets = self.nets()
        tested = {name.lower() for name in self._free_rows()[0]}
        for wager in self.sheet.wagers:
            observed = nets.get(wager.name)
            if not observed or wager.name.lower() in tested:
                continue
            cells = _pay_cells(wager)
            counts, unknown = _net_counts(observed, cells)
            name = f"{wager.name}: "
            n = sum(observed.values())
            out += _nets_outside(name, unknown, n, self.alpha)
            labels = [str(k) for k in cells]
            chi = chisquare_gof([counts[k] for k in cells], [float(p) for p in cells.values()],
                                alpha=self.alpha, name=name + "outcome frequencies",
                                cell_labels=[f"net {lab}" for lab in labels],
                                looked_at=f"net results of {n:,} rounds (first seat, spec strategy) against "
                                          f"the PAR sheet, rows of equal pays merged")
            chi.details.update({"labels": [f"net {lab}" for lab in labels], "observed": [counts[k] for k in cells],
                                "expected": [float(p) * n for p in cells.values()]})
            out.append(chi)
            out += _rtp(name + "RTP", wager, cells, counts, self.alpha)
        return out

    def _free_rows(self) -> tuple[dict, dict[str, str]]:
        """The decision-free side wagers tallied whose PAR rows line up with the model's events
        (``certify.audit.sides.sheet_rows``): name -> the sheet's wager; and every side wager
        not tested in every round, with why (a decision changes it, or its sheet rows do not
        line up: refused, never tested against rows of another reading)."""
        from certify.audit.sides import sheet_rows

        t, rows, why = self.tally, {}, dict(self.free.refused)
        tallied = {name for name, _ in t.side_events}
        for name, fw in self.free.wagers.items():
            if name not in tallied:
                why[name] = "no round placed it"
            elif self.sheet is None:
                why[name] = "no PAR sheet was read"
            else:
                wager, refusal = sheet_rows(fw, self.sheet)
                if wager is None:
                    why[name] = refusal
                else:
                    rows[name] = wager
        return rows, why

    def _decision_free(self) -> list:
        """Every round's decision-free side wagers (free play and declared alike): the events the
        rules read off the cards (the line matched, the hand's category) against the PAR rows'
        probabilities (chi-square), the logged nets in the sheet's pays (exact) and their mean
        against the sheet's return (RTP with its interval; not for a wager paid from the meter)."""
        from certify.stats.gof import chisquare_gof

        t, out = self.tally, []
        for name, wager in self._free_rows()[0].items():
            fw = self.free.wagers[name]
            events = {event: n for (w, event), n in t.side_events.items() if w == name}
            n = sum(events.values())
            known = [row.event for row in wager.rows]
            stray = {e: c for e, c in events.items() if e not in known}
            label = f"{wager.name} (every round, no decision changes it): "
            probabilities = [float(row.probability) for row in wager.rows] + ([0.0] if stray else [])
            observed = [events.get(e, 0) for e in known] + ([sum(stray.values())] if stray else [])
            cells = known + ([f"not a row: {sorted(stray)}"] if stray else [])
            chi = chisquare_gof(observed, probabilities, alpha=self.alpha, name=label + "dealt events",
                                cell_labels=cells,
                                looked_at=f"the event the rules read off the cards of {n:,} rounds (first seat "
                                          f"placing it; free play and declared alike) against the PAR rows "
                                          f"({', '.join(fw.events)})")
            chi.details.update({"labels": cells, "observed": observed, "expected": [p * n for p in probabilities]})
            out.append(chi)
            nets = Counter({net: c for (w, net), c in t.side_nets.items() if w == name})
            pay_cells = _pay_cells(wager)
            counts, unknown = _net_counts(nets, pay_cells)
            out += _nets_outside(label, unknown, sum(nets.values()), self.alpha)
            out += _rtp(label + "RTP", wager, pay_cells, counts, self.alpha)
        return out

    def decision_cost(self) -> dict | None:
        """What the free-play decisions cost against the optimal strategy, where the analysis gives
        each option's exact expectation given the player's cards (rules-model games with no dealer
        card face up: ``certify.rules.analysis.count`` counts the dealer's hands left): per decision
        the best option's expectation less the chosen one's, in units of the Ante, times the Ante.
        The main game only (a side bet lost on a fold is not counted). Reported, not judged."""
        t = self.tally
        if not t.choices:
            return None
        from certify.rules.analysis import ShapeError, count, one_decision

        try:
            rules = one_decision(self.spec)
        except ShapeError as exc:
            if self.priced_by_path:
                return self._induction_cost()
            return self._cost_not_given(_why_no_values(self.spec, exc))
        if rules.up:
            return self._cost_not_given("the decision sees the dealer's up card: the analysis keeps each option's "
                                        "value per hand class over every up card, not per up card")
        hands = sorted({cards for cards, _ in t.choices})
        counts = count(self.spec, classes=np.array(hands, dtype=np.int64))
        cells = counts.acc_best.sum(axis=1)
        names = [o.name for o in rules.options]
        values = {}
        for i, cards in enumerate(hands):
            category = int(counts.category[i])
            values[cards] = [sum((int(cells[i][c]) * rules.nets[o][c][category] for c in range(4)), Fraction(0))
                             / counts.hidden for o in range(len(names))]
        costs = _Costs()
        for (cards, option), units in t.choices.items():
            if option not in names:
                continue
            ev = values[cards]
            costs.add(max(ev) - ev[names.index(option)], t.choice_count[(cards, option)], units)
        return costs.result("the main game's exact expectation of each option given the player's cards, over "
                            "the dealer's hands left; side bets not counted")

    def _cost_not_given(self, why: str) -> dict:
        t = self.tally
        return {"decisions": sum(t.choice_count.values()), "expected cost": None, "not given": why}

    def _induction_cost(self) -> dict:
        """Let It Ride's shape (``certify.rules.induction.option_values``): at each decision the value
        of every option given the seat's first hand, the board it saw and the options it took, with
        the derived strategy's play after it; the cost of a decision is the best value less the
        chosen one's (summed over a round's decisions, the expected loss against optimal play)."""
        from certify.rules.induction import option_values

        t, spec = self.tally, self.spec
        names = [[o.name for o in d.options] for d in spec.decisions]
        first = spec.steps[0].cards
        by_hand: dict[tuple, list] = defaultdict(list)
        for key, units in t.choices.items():
            by_hand[key[0][:first]].append((key, units))
        hands = sorted(by_hand)
        costs = _Costs()
        for start in range(0, len(hands), 256):      # memory: ~180 KB a first hand
            chunk = hands[start:start + 256]
            row = {h: i for i, h in enumerate(chunk)}
            ctx, q = option_values(spec, np.array(chunk, np.int64))
            unseen = [int(np.prod(ctx.axes[ctx.level[d]:])) for d in range(len(ctx.decisions))]
            scale = ctx.den ** 2
            for (cards, option, board, taken), units in (item for hand in chunk for item in by_hand[hand]):
                hand = cards[:first]
                d = len(taken)
                if d >= len(names) or option not in names[d] or any(
                        o not in names[i] for i, o in enumerate(taken)) or len(board) != ctx.level[d]:
                    continue
                prefix = tuple(names[i].index(o) for i, o in enumerate(taken))
                left = [c for c in range(52) if c not in hand]
                at = [row[hand]]
                for card in board:                      # each board card's place among the cards left
                    at.append(left.index(card))
                    left.remove(card)
                values = q[d][prefix][(slice(None),) + tuple(at)]
                costs.add(Fraction(int(values.max() - values[names[d].index(option)]), scale * unseen[d]),
                          t.choice_count[(cards, option, board, taken)], units)
        return costs.result("each option's exact expectation given the seat's first hand, the board it saw and the "
                            "options it took, with the derived strategy's play after it (backward induction)")

    def _free_summary(self) -> dict:
        """Per side wager: tested in every round (rounds, events), or why not."""
        t = self.tally
        rows, why = self._free_rows()
        out = {}
        for name in self.free.wagers:
            rounds = sum(n for (w, _), n in t.side_events.items() if w == name)
            out[name] = ({"tested_in_every_round": True, "rounds": rounds, "par_wager": rows[name].name}
                         if name in rows else {"tested_in_every_round": False, "rounds": rounds, "why_not": why[name]})
        for name, reason in self.free.refused.items():
            out[name] = {"tested_in_every_round": False, "why_not": f"a decision changes it: {reason}"}
        return out

    # ------------------------------------------------------------------ the results
    def results(self, files: list[LogFile]) -> dict[str, Any]:
        """Everything the audit found and tested; the verdict is not decided here but by
        ``certify.audit.report.judge_audit`` (the report machinery's ``judge``), the one owner."""
        from certify.stats.multiple import Unconfirmable, confirm, holm

        t = self.tally
        tests = self.tests()
        every = tests["fairness"] + tests["math"]
        statistical = {r.name: r.pvalue for r in every if r.applicable and r.pvalue is not None}
        exact_fail = [r.name for r in every if r.applicable and r.pvalue is None and not r.passed]

        def no_fresh_data(_names):
            raise Unconfirmable("a log is read to its end: there are no fresh rounds to repeat a test on")

        family = holm(statistical, self.alpha) if statistical else None
        confirmed = confirm(family, no_fresh_data) if family is not None else None
        return {
            "schema": "certify.audit/1",
            "spec": {"name": self.spec.name, "version": str(self.spec.version)},
            "alpha": self.alpha,
            "false_alarm_rate": f"a fair, correctly settled log fails with probability at most alpha = {self.alpha}"
                                " (Holm-Bonferroni over the statistical tests; exact findings have none)",
            "files": [f.to_dict() for f in files],
            "rounds": t.rounds,
            "period": _period(files),
            "findings": {c: {"count": t.counts[c], "first": [f.to_dict() for f in t.findings[c]]} for c in CLASSES},
            "fairness": {"positions": t.k, "short_first_deals": t.short_deals,
                         "first_deal_sizes": {str(k): int(v[0].sum()) for k, v in sorted(t.positions.items())},
                         "battery_sample": t.sample_rows,
                         "deck_orders": t.deck_rows,
                         "tests": [r.to_dict() for r in tests["fairness"]]},
            "math": {"declared_rounds": t.declared, "free_play_rounds": t.free_rounds, "par_sheet": getattr(self.sheet, "spec", None) and
                     self.sheet.spec, "tests": [r.to_dict() for r in tests["math"]],
                     "free_play_decisions": t.decisions if not t.declared else None,
                     "free_play_deviations_from_spec_strategy": t.free_deviations,
                     "free_play_decision_cost": self.decision_cost(),
                     "decision_free_wagers": self._free_summary()},
            "family": None if family is None else family.to_dict(),
            "confirmation": None if confirmed is None else confirmed.to_dict(),
            "exact_failures": exact_fail,
        }


def _pay_cells(wager) -> dict[Any, Fraction]:
    """A sheet wager's return table with rows of equal pays merged (the meter's rows: one cell)."""
    cells: dict[Any, Fraction] = {}
    for row in wager.rows:
        key = METER_CELL if row.meter_share else Fraction(row.pays)
        cells[key] = cells.get(key, Fraction(0)) + Fraction(row.probability)
    return cells


def _net_counts(observed: Counter, cells: dict) -> tuple[Counter, Counter]:
    """The nets counted by cell, and the nets that are in no cell."""
    counts, unknown = Counter(), Counter()
    for net, n in observed.items():
        if net in cells:
            counts[net] += n
        elif METER_CELL in cells:
            # paid from the meter: the award follows the meter, which falls with each award
            # (below the fixed pays, even below the stake, once it has fallen far enough):
            # any net that is not a fixed pay
            counts[METER_CELL] += n
        else:
            unknown[net] += n
    return counts, unknown


def _nets_outside(name: str, unknown: Counter, n: int, alpha: float) -> list:
    from certify.stats.result import TestResult

    if not unknown:
        return []
    return [TestResult(name=name + "nets in the return table", statistic=float(sum(unknown.values())),
                       pvalue=None, alpha=alpha, passed=False, n=n,
                       looked_at="every net result is one of the PAR sheet's pays (exact)",
                       details={"not_in_table": {str(k): v for k, v in unknown.items()}})]


def _rtp(name: str, wager, cells: dict, counts: Counter, alpha: float) -> list:
    """The mean net against the sheet's return (none for a wager paid from the meter)."""
    from certify.stats.gof import mean_return_test

    if METER_CELL in cells or not sum(counts.values()):
        return []
    keys = list(cells)
    return [mean_return_test(np.array([counts[k] for k in keys], dtype=np.float64), np.array([float(k) for k in keys]),
                             float(wager.expected_return), wager.std_dev, alpha=alpha, name=name,
                             probabilities=[float(cells[k]) for k in keys])]


class _Costs:
    """The free-play decisions' cost: each decision's loss (in units of the unit wager) times the
    unit wager it was made on, and how many were below the optimal option."""

    def __init__(self):
        self.cost, self.worse, self.decisions = Fraction(0), 0, 0

    def add(self, loss: Fraction, n: int, units) -> None:
        self.decisions += n
        self.cost += loss * Fraction(units)
        self.worse += n if loss > 0 else 0

    def result(self, looked_at: str) -> dict:
        cost = self.cost
        return {"looked_at": looked_at, "decisions": self.decisions, "below the optimal option": self.worse,
                "expected cost": str(Decimal(cost.numerator) / Decimal(cost.denominator))[:20],
                "expected cost, exact": str(cost)}


def _why_no_values(spec, exc) -> str:
    """Why the analysis gives no per-decision values for this game's free play, in plain words."""
    from certify.rules.analysis import replaces_hands

    if spec.deals("board") and spec.deals("dealer"):
        return ("the options' values at each street (against the dealer's hidden cards) come only from the game's "
                "whole count (certify.rules.board, board_streets: minutes on 2 cores), which an audit does not run; the "
                "decisions are counted and compared with the derived strategy, their cost is not given")
    if replaces_hands(spec):
        return ("the options' values live inside the replacement programme (certify.analysis.mulligan) with no "
                "per-hand interface: the cost is not given")
    return f"the analysis values no option of this shape per hand ({exc})"


def _induction_shape(spec) -> str | None:
    """None when the spec is a game of several decisions that the backward induction values
    (``certify.rules.induction``: Let It Ride) with one card face up to the board between them
    (what a seat saw is then its first hand and the board), else why not."""
    from certify.rules.analysis import ShapeError
    from certify.rules.induction import _shape
    from certify.rules.model import DealStep, DecideStep

    if len(getattr(spec, "decisions", ())) < 2:
        return "one decision"
    try:
        _shape(spec)
    except ShapeError as exc:
        return str(exc)
    last = max(i for i, step in enumerate(spec.steps) if isinstance(step, DecideStep))
    if any(isinstance(step, DealStep) and (step.deal != "board" or step.cards != 1 or step.face != "up")
           for step in spec.steps[1:last]):
        return "a deal between the decisions that is not one card face up to the board"
    return None


def _named(result, name: str):
    from dataclasses import replace

    return replace(result, name=name)


def _period(files: list[LogFile]) -> list[str | None]:
    firsts = [f.first_time for f in files if f.first_time]
    lasts = [f.last_time for f in files if f.last_time]
    return [min(firsts, key=_time) if firsts else None, max(lasts, key=_time) if lasts else None]


def _records(path, spec, info: LogFile, pool, jobs: int) -> Iterable[tuple[int, dict, Examined | None]]:
    """``(line, record, examined)`` in file order: read here, parsed and re-settled here
    (``pool`` None) or by the workers, a bounded number of batches in flight (memory stays flat)."""
    from collections import deque

    if pool is None:
        for number, record in read_records(path, spec, info):
            yield number, record, None
        return
    pending: deque = deque()
    batch: list[tuple[int, bytes]] = []

    def drain(keep: int):
        while len(pending) > keep:
            yield from pending.popleft().get()

    for number, line in read_lines(path, info):
        batch.append((number, line))
        if len(batch) == BATCH:
            pending.append(pool.apply_async(_examine_batch, (str(path), batch)))
            batch = []
            yield from drain(4 * jobs)
    if batch:
        pending.append(pool.apply_async(_examine_batch, (str(path), batch)))
    yield from drain(0)


def audit(paths: Iterable[str | Path], spec, *, alpha: float = 0.01, sample: int = DEFAULT_SAMPLE,
          use_cache: bool = True, progress=None, jobs: int | None = None, need_sheet: bool = False) -> dict[str, Any]:
    """Audit the logs (in the order given, one pass); returns the result dict (``verdict``...).
    ``jobs`` > 1: a columnar log's row groups are split over that many processes
    (``certify.audit.columns.read_columns``), and worker processes parse and re-settle batches of
    JSON lines while this one reads and tallies them in order (the same result either way).
    ``jobs`` None chooses what pays: 2 processes (1 on one core) for a columnar log, 1 for JSON
    Lines (measured: the workers' start-up and the records sent back cost more than they save;
    docs/round-log.md). Raises ``LogError`` (exit 2) for a log that cannot be read, an empty log
    included."""
    from certify.validate import check_alpha

    from certify.analysis.cache import load_or_compute
    from certify.audit.report import judge_audit

    alpha = check_alpha(alpha)
    paths = list(paths)
    for path in paths:          # a missing or unreadable log is refused before any work
        check_log_path(path)
    import os
    import resource

    auditor = Auditor(spec, None, alpha, sample)
    files = []
    pools: list = []
    column_jobs = jobs if jobs is not None else min(2, os.cpu_count() or 1)
    line_jobs = jobs if jobs is not None else 1
    start, cpu = time.perf_counter(), time.process_time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        _read_all(paths, spec, auditor, files, pools, line_jobs, progress, column_jobs)
    finally:
        for pool in pools:
            pool.terminate()
            pool.join()
    read_wall, read_cpu = time.perf_counter() - start, time.process_time() - cpu
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    children_cpu = after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime
    sheet = provenance = None
    # free play needs the PAR sheet (minutes to compute for Hold'em, once: the cache keeps it) only
    # for its decision-free side wagers
    if auditor.tally.declared or need_sheet or auditor.tally.side_events:
        sheet, provenance = load_or_compute(spec, use_cache=use_cache)
        auditor.sheet = sheet
    result = auditor.results(files)
    result["par_provenance"] = provenance.to_dict() if provenance is not None else None
    result.update(judge_audit(result))
    result["timing"] = {"jobs": jobs, "column_jobs": column_jobs, "line_jobs": line_jobs,
                        "read_and_resettle_wall_s": round(read_wall, 3),
                        "read_and_resettle_cpu_s_main_process": round(read_cpu, 3),
                        "read_and_resettle_cpu_s_other_processes": round(children_cpu, 3),
                        "tests_wall_s": round(time.perf_counter() - start - read_wall, 3),
                        "rounds_per_s_wall": round(auditor.tally.rounds / read_wall, 1) if read_wall else None}
    result["_sheet"] = sheet
    return result


def _read_all(paths, spec, auditor: Auditor, files: list, pools: list, jobs: int, progress,
              column_jobs: int = 1) -> None:
    from certify.audit.columns import is_columnar, read_columns

    for path in paths:
        info = LogFile(str(path))
        if is_columnar(path):         # a Parquet log (docs/round-log.md, "Columnar logs")
            read_columns(path, spec, auditor, info, jobs=column_jobs)
            if info.rounds == 0:
                raise LogError(f"{path}: the log holds no round: an empty log cannot be audited")
            files.append(info)
            if progress:
                progress(f"{path}: {info.rounds:,} rounds (columnar)")
            continue
        if jobs > 1 and not pools:      # started at the first JSON Lines log (a columnar one forks instead)
            import multiprocessing

            pools.append(multiprocessing.get_context("spawn").Pool(jobs, initializer=_worker_start, initargs=(spec,)))
        pool = pools[0] if pools else None
        for number, record, examined in _records(path, spec, info, pool, jobs):
            auditor.round(record, f"{path}:{number}", examined)
            info.rounds += 1
            info.tables.add(record["table"])
            if info.first_time is None or _time(record["time"]) < _time(info.first_time):
                info.first_time = record["time"]
            if info.last_time is None or _time(record["time"]) > _time(info.last_time):
                info.last_time = record["time"]
        if info.rounds == 0:
            raise LogError(f"{path}: the log holds no round: an empty log cannot be audited")
        files.append(info)
        if progress:
            progress(f"{path}: {info.rounds:,} rounds")
    if not files:
        raise LogError("no log given")
