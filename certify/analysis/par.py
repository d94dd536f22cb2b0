"""The PAR sheet: a game's return table and the figures derived from it, per wager.

Plain data. Every figure (house edge, element of risk, standard deviation, hit frequency, average
wager, RTP confidence bands) is *derived* from the return table, so a table and its figures can
never disagree. Exact sheets carry integer ``combinations`` and ``fractions.Fraction``
probabilities; simulated sheets carry float probabilities, a ``weight`` (the tally) and the number
of ``samples``, and their house edge carries a standard error.

Units: every amount is in units of the wager's *initial* bet (the Ante for the main game, the side
bet itself for a side bet). ``pays`` is the player's net result for the event (+201 for a royal
flush won on a 2x Bet paying 100:1 plus the Ante at 1:1; -3 for Ante and Bet lost); ``wagered``
is the total amount the player put at risk in that event (1 for a fold, 3 after a 2x Bet).

A progressive row pays ``pays + meter_share * meter``: ``WagerSheet.at_meter(m)`` gives the sheet
at a meter value and ``breakeven_meter()`` the meter at which the wager's return is zero.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from statistics import NormalDist
from typing import Any

from certify.errors import InputError

Number = Fraction | float

CONFIDENCE_LEVELS = (0.90, 0.95, 0.99)
BAND_ROUNDS = tuple(10**k for k in range(3, 10))  # 10^3 .. 10^9 rounds


class ParError(InputError):
    """A return table that cannot be a probability distribution (negative, not summing to one)."""


def _float(x: Number | None) -> float | None:
    return None if x is None else float(x)


def _exact_str(x: Number) -> str:
    """A Fraction as 'n/d' (or 'n'), for JSON readers that want the exact value."""
    return str(Fraction(x))


@dataclass(frozen=True)
class ReturnRow:
    """One event of a return table."""

    event: str
    pays: Number
    probability: Number
    combinations: int | None = None  # exact results: the integer count in the cycle
    weight: float | None = None  # non-exact results: the tally (or weight) behind the probability
    wagered: Number = 1  # total amount at risk in this event, in initial-wager units
    meter_share: Number = 0  # progressive: share of the meter paid on top of ``pays``
    std_error: float | None = None  # non-exact results: standard error of the probability

    @property
    def return_(self) -> Number:
        return self.pays * self.probability

    def to_dict(self, exact: bool) -> dict[str, Any]:
        d: dict[str, Any] = {
            "event": self.event,
            "pays": float(self.pays),
            "probability": float(self.probability),
            "return": float(self.return_),
            "wagered": float(self.wagered),
        }
        if exact:
            d["combinations"] = int(self.combinations)
            d["probability_exact"] = _exact_str(self.probability)
            d["pays_exact"] = _exact_str(self.pays)
        else:
            if self.weight is not None:
                d["weight"] = float(self.weight)
            if self.std_error is not None:
                d["std_error"] = float(self.std_error)
        if self.meter_share:
            d["meter_share"] = float(self.meter_share)
        return d


@dataclass(frozen=True)
class WagerSheet:
    """The return table of one wager (main game, Bonus side bet, progressive) and its figures."""

    name: str
    rows: tuple[ReturnRow, ...]
    exact: bool
    strategy: str = ""
    strategy_table: tuple[dict[str, Any], ...] = ()
    strategy_chart: tuple[str, ...] = ()  # the strategy table as text lines, for display
    samples: int | None = None  # non-exact: rounds behind the probabilities
    house_edge_std_error: float | None = None  # non-exact: overrides std_dev / sqrt(samples)
    meter: Number | None = None  # progressive: the meter value the figures are computed at
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        rows = tuple(self.rows)
        object.__setattr__(self, "rows", rows)
        object.__setattr__(self, "strategy_table", tuple(self.strategy_table))
        object.__setattr__(self, "strategy_chart", tuple(self.strategy_chart))
        if not rows:
            raise ParError(f"wager {self.name!r}: empty return table")
        for row in rows:
            if row.probability < 0:
                raise ParError(f"wager {self.name!r}, event {row.event!r}: negative probability")
            if self.exact and (row.combinations is None or not isinstance(row.probability, Fraction)):
                raise ParError(f"wager {self.name!r}, event {row.event!r}: an exact row needs "
                               "integer combinations and a Fraction probability")
        total = sum(row.probability for row in rows)
        if self.exact:
            if total != 1:
                raise ParError(f"wager {self.name!r}: probabilities add up to {total}, not 1")
            cycle = sum(row.combinations for row in rows)
            for row in rows:
                if Fraction(row.combinations, cycle) != row.probability:
                    raise ParError(f"wager {self.name!r}, event {row.event!r}: probability is not "
                                   "combinations / cycle")
        elif abs(float(total) - 1.0) > 1e-9:
            raise ParError(f"wager {self.name!r}: probabilities add up to {float(total)!r}, not 1")

    # ---- derived figures -------------------------------------------------------------------
    @classmethod
    def from_combinations(cls, name: str, events: Iterable[tuple[str, Number, int, Number]],
                          **kwargs: Any) -> "WagerSheet":
        """An exact sheet from (event, pays, combinations, wagered) tuples."""
        events = list(events)
        cycle = sum(int(n) for _, _, n, _ in events)
        if cycle <= 0:
            raise ParError(f"wager {name!r}: no combinations")
        rows = [ReturnRow(event=e, pays=Fraction(p), combinations=int(n),
                          probability=Fraction(int(n), cycle), wagered=Fraction(w))
                for e, p, n, w in events]
        return cls(name=name, rows=tuple(rows), exact=True, **kwargs)

    @property
    def cycle(self) -> int | None:
        return sum(row.combinations for row in self.rows) if self.exact else None

    @property
    def expected_return(self) -> Number:
        """The player's expected net result per initial wager (negative: the house wins)."""
        return sum((row.return_ for row in self.rows), Fraction(0) if self.exact else 0.0)

    @property
    def house_edge(self) -> Number:
        """Expected loss per initial wager."""
        return -self.expected_return

    @property
    def rtp(self) -> Number:
        """Return to player per initial wager: 1 - house edge."""
        return 1 - self.house_edge

    @property
    def average_wager(self) -> Number:
        """Average total amount wagered per round, in initial-wager units."""
        return sum((row.wagered * row.probability for row in self.rows),
                   Fraction(0) if self.exact else 0.0)

    @property
    def element_of_risk(self) -> Number:
        """Expected loss per unit of total amount wagered."""
        return self.house_edge / self.average_wager

    @property
    def variance(self) -> Number:
        second = sum((row.pays * row.pays * row.probability for row in self.rows),
                     Fraction(0) if self.exact else 0.0)
        return second - self.expected_return ** 2

    @property
    def std_dev(self) -> float:
        """Standard deviation of the net result per round, in initial-wager units."""
        return math.sqrt(float(self.variance))

    @property
    def hit_frequency(self) -> Number:
        """Probability that the round ends with a net win for the player."""
        return sum((row.probability for row in self.rows if row.pays > 0),
                   Fraction(0) if self.exact else 0.0)

    @property
    def maximum_payout(self) -> Number:
        return max(row.pays for row in self.rows if row.probability > 0)

    @property
    def house_edge_standard_error(self) -> float | None:
        """Exact sheets: None. Simulated sheets: the standard error of the house edge."""
        if self.exact:
            return None
        if self.house_edge_std_error is not None:
            return self.house_edge_std_error
        if self.samples:
            return self.std_dev / math.sqrt(self.samples)
        return None

    def house_edge_interval(self, level: float = 0.95) -> tuple[float, float] | None:
        se = self.house_edge_standard_error
        if se is None:
            return None
        z = NormalDist().inv_cdf(0.5 + level / 2)
        edge = float(self.house_edge)
        return edge - z * se, edge + z * se

    def rtp_band(self, rounds: int, level: float) -> tuple[float, float]:
        """The interval the observed RTP (mean net result per initial wager, plus 1) of ``rounds``
        independent rounds falls in with probability ``level`` (normal approximation)."""
        if rounds <= 0 or not 0 < level < 1:
            raise ParError(f"rtp_band needs rounds > 0 and 0 < level < 1, got {rounds}, {level}")
        z = NormalDist().inv_cdf(0.5 + level / 2)
        half = z * self.std_dev / math.sqrt(rounds)
        centre = float(self.rtp)
        return centre - half, centre + half

    def rtp_bands(self) -> list[dict[str, Any]]:
        return [{"rounds": n, "level": level, "low": lo, "high": hi}
                for n in BAND_ROUNDS for level in CONFIDENCE_LEVELS
                for lo, hi in [self.rtp_band(n, level)]]

    # ---- progressive -----------------------------------------------------------------------
    @property
    def is_progressive(self) -> bool:
        return any(row.meter_share for row in self.rows)

    def at_meter(self, meter: Number) -> "WagerSheet":
        """The sheet with every progressive row paying ``pays_fixed + meter_share * meter``."""
        if not self.is_progressive:
            raise ParError(f"wager {self.name!r} has no meter")
        base = self.meter if self.meter is not None else 0
        rows = tuple(replace(r, pays=r.pays + r.meter_share * (meter - base)) for r in self.rows)
        return replace(self, rows=rows, meter=meter)

    def breakeven_meter(self) -> Number | None:
        """The meter at which the expected return is zero (None when the meter pays nothing)."""
        slope = sum((r.meter_share * r.probability for r in self.rows), Fraction(0) if self.exact else 0.0)
        if not slope:
            return None
        return (self.meter or 0) - self.expected_return / slope

    def return_by_meter(self, multiples: tuple[int, ...] = (1, 2, 5, 10, 20, 50)) -> list[tuple[Number, Number]]:
        """(meter, expected return per wager) at multiples of the sheet's meter, and at breakeven."""
        base = self.meter or 1
        meters = sorted({base * k for k in multiples} | {self.breakeven_meter()})
        return [(m, self.at_meter(m).expected_return) for m in meters]

    # ---- output ----------------------------------------------------------------------------
    def outcome_categories(self) -> list[tuple[str, Number]]:
        """(event, probability) pairs, in return-table order: the cells a simulation tallies."""
        return [(row.event, row.probability) for row in self.rows]

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "name": self.name,
            "exact": self.exact,
            "house_edge": float(self.house_edge),
            "element_of_risk": float(self.element_of_risk),
            "std_dev": self.std_dev,
            "average_wager": float(self.average_wager),
            "hit_frequency": float(self.hit_frequency),
            "maximum_payout": float(self.maximum_payout),
            "rtp": float(self.rtp),
            "return_table": [row.to_dict(self.exact) for row in self.rows],
            "strategy": self.strategy,
            "strategy_table": list(self.strategy_table),
            "rtp_bands": self.rtp_bands(),
        }
        if self.exact:
            d["cycle"] = self.cycle
            d["house_edge_exact"] = _exact_str(self.house_edge)
            d["average_wager_exact"] = _exact_str(self.average_wager)
        else:
            d["samples"] = self.samples
            d["house_edge_std_error"] = self.house_edge_standard_error
            interval = self.house_edge_interval(0.95)
            d["house_edge_ci95"] = list(interval) if interval else None
        if self.is_progressive:
            d["meter"] = _float(self.meter)
            d["breakeven_meter"] = _float(self.breakeven_meter())
            d["return_by_meter"] = [{"meter": float(m), "return": float(r)} for m, r in self.return_by_meter()]
        if self.notes:
            d["notes"] = list(self.notes)
        return d


@dataclass(frozen=True)
class ParSheet:
    """The PAR sheet of one game spec: one ``WagerSheet`` per wager, the main game first."""

    game: str
    spec: str
    family: str
    wagers: tuple[WagerSheet, ...]
    frequencies: dict[str, Any] = field(default_factory=dict)  # JSON-able extra frequency sets

    def __post_init__(self) -> None:
        object.__setattr__(self, "wagers", tuple(self.wagers))
        names = [w.name for w in self.wagers]
        if not names or len(set(names)) != len(names):
            raise ParError(f"PAR sheet of {self.spec!r}: wager names must be present and unique: {names}")

    @property
    def main(self) -> WagerSheet:
        return self.wagers[0]

    def wager(self, name: str) -> WagerSheet:
        for w in self.wagers:
            if w.name == name:
                return w
        raise KeyError(f"{self.spec}: no wager {name!r} (have {[w.name for w in self.wagers]})")

    def outcome_categories(self, wager: str | None = None) -> list[tuple[str, Number]]:
        """The (event, exact probability) cells of a wager's return table (main game by default)."""
        return (self.main if wager is None else self.wager(wager)).outcome_categories()

    def at_meter(self, meter: Number) -> "ParSheet":
        """The sheet with every progressive wager's figures at ``meter``."""
        if not any(w.is_progressive for w in self.wagers):
            raise ParError(f"{self.spec}: no progressive wager, so no meter to set")
        wagers = tuple(w.at_meter(meter) if w.is_progressive else w for w in self.wagers)
        return replace(self, wagers=wagers)

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, "spec": self.spec, "family": self.family,
                "wagers": [w.to_dict() for w in self.wagers], "frequencies": self.frequencies}


# ---- text rendering -------------------------------------------------------------------------
def _pct(x: Number) -> str:
    return f"{100 * float(x):.4f}%"


def _simulated_count(r: ReturnRow, weighted: bool) -> str:
    """The weight of a simulated row, or its probability's standard error ("counted" when 0)."""
    if weighted:
        return "" if r.weight is None else f"{r.weight:,.0f}"
    if r.std_error is None:
        return ""
    return f"{r.std_error:.2e}" if r.std_error > 0 else "0 (counted)"


def format_wager(w: WagerSheet) -> str:
    lines = [f"== {w.name} ({'exact' if w.exact else 'simulated'}) =="]
    weighted = any(r.weight is not None for r in w.rows)
    count_head = "combinations" if w.exact else ("weight" if weighted else "std error")
    width = max([34] + [len(r.event) for r in w.rows])  # long event names widen the column
    lines.append(f"{'event':<{width}} {'pays':>16} {count_head:>22} {'probability':>14} {'return':>12}")
    for r in w.rows:
        count = f"{r.combinations:,}" if w.exact else _simulated_count(r, weighted)
        pays = f"{float(r.pays):g}"
        if r.meter_share:  # M is the meter: show the rule, then its value at this sheet's meter
            fixed = r.pays - r.meter_share * (w.meter or 0)
            pays = f"{float(r.meter_share):g}M{float(fixed):+g} = {pays}"
        lines.append(f"{r.event:<{width}} {pays:>16} {count:>22} {float(r.probability):>14.10f} "
                     f"{float(r.return_):>12.8f}")
    total = f"{w.cycle:,}" if w.exact else (f"{w.samples:,} rounds" if w.samples else "")
    lines.append(f"{'total':<{width}} {'':>16} {total:>22} {1.0:>14.10f} {float(w.expected_return):>12.8f}")
    lines.append(f"house edge {_pct(w.house_edge)}   element of risk {_pct(w.element_of_risk)}   "
                 f"average wager {float(w.average_wager):.6f}")
    lines.append(f"std dev {w.std_dev:.6f}   hit frequency {_pct(w.hit_frequency)}   "
                 f"maximum payout {float(w.maximum_payout):g}")
    interval = w.house_edge_interval(0.95)
    if interval:
        lines.append(f"house edge 95% CI [{_pct(interval[0])}, {_pct(interval[1])}]")
    if w.is_progressive:
        lines.append(f"meter {float(w.meter or 0):,.2f}   breakeven meter {float(w.breakeven_meter()):,.2f}")
        lines.append("return by meter: " + "  ".join(f"{float(m):,.0f}: {float(r):+.4f}"
                                                     for m, r in w.return_by_meter()))
    if w.strategy:
        lines.append(f"strategy: {w.strategy}")
    lines.extend(w.strategy_chart)
    lines.append(f"RTP {float(w.rtp):.6f}; the observed RTP of N rounds falls in these bands with "
                 "probability 90% / 95% / 99%:")
    for n in BAND_ROUNDS:
        bands = "  ".join(f"[{lo:.6f}, {hi:.6f}]" for level in CONFIDENCE_LEVELS
                          for lo, hi in [w.rtp_band(n, level)])
        lines.append(f"  N = 10^{round(math.log10(n))}: {bands}")
    for note in w.notes:
        lines.append(f"note: {note}")
    return "\n".join(lines)


def format_sheet(sheet: ParSheet) -> str:
    head = f"PAR sheet: {sheet.game} ({sheet.spec})"
    return "\n\n".join([f"{head}\n{'=' * len(head)}"] + [format_wager(w) for w in sheet.wagers])
