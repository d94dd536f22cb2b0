"""A PAR sheet against a published return table, row by row.

A lab engineer checking a studio's PAR sheet, or a studio checking a published analysis, needs
more than "the house edges differ": which rows differ, by how much, and whether the difference is
beyond what both sides' uncertainty allows. The published table is a CSV file (``#`` lines are
comments) with the columns

* ``event`` (required): the row as published;
* ``probability`` (required): as printed; its rounding is read from the digits given;
* ``pays`` (optional): the net pays in initial-wager units, checked against ours;
* ``return`` (optional): pays x probability as printed; when it carries more digits of the
  probability than the probability column (pays above 1), those are used;
* ``suite_event`` (optional): this suite's name for the row when the published name differs.

For each row: z = max(0, |published - ours| - rounding) / sqrt(our SE^2 + their SE^2), where our
SE is 0 for a counted row and their SE is the binomial one at ``published_samples`` (when the
publisher simulated). A row is *outside* when z exceeds the two-sided Bonferroni bound over all
rows at ``level``.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path
from statistics import NormalDist

from certify.analysis.par import WagerSheet
from certify.errors import InputError
from certify.validate import check_number
from certify.inputs import CSV_LIMITS, excerpt, read_text


MAX_EXPONENT = 40  # decimal exponents a published figure may have (a Fraction of 1e999999999 never ends)


class CompareError(InputError):
    """A published table that cannot be read or does not match the sheet's rows."""


@dataclass(frozen=True)
class PublishedRow:
    label: str  # as published
    event: str  # this suite's event name
    probability: float
    rounding: float  # half-width of the printed rounding of the probability
    pays: Fraction | None
    line: int


@dataclass(frozen=True)
class RowComparison:
    row: PublishedRow
    ours: float
    ours_se: float  # 0 for a counted row
    published_se: float
    z: float
    outside: bool


def _decimal(text: str, where: str) -> Decimal:
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        raise CompareError(f"{where}: expected a number, got {excerpt(text)}") from None
    if not value.is_finite():
        raise CompareError(f"{where}: expected a finite number, got {excerpt(text)}")
    if value and abs(value.adjusted()) > MAX_EXPONENT:  # 1e999999999 is finite, but no table's figure
        raise CompareError(f"{where}: expected a figure between 1e-{MAX_EXPONENT} and 1e{MAX_EXPONENT}, "
                           f"got {excerpt(text.strip())}")
    return value


def _half_ulp(value: Decimal) -> float:
    """Half a unit in the last printed place: '0.015127' -> 5e-7."""
    return 0.5 * 10.0 ** value.as_tuple().exponent


def read_published(path: str | Path) -> list[PublishedRow]:
    path = Path(path)
    lines = read_text(path, CSV_LIMITS, CompareError).splitlines()  # bounded: size and line length
    numbered = [(i, line) for i, line in enumerate(lines, 1) if line.strip() and not line.startswith("#")]
    if not numbered:
        raise CompareError(f"{path}: no header line (expected columns event, probability)")
    reader = csv.DictReader(line for _, line in numbered)
    columns = set(reader.fieldnames or [])
    missing = {"event", "probability"} - columns
    if missing:
        raise CompareError(f"{path}:{numbered[0][0]}: missing column(s) {', '.join(sorted(missing))} "
                           f"(header has {excerpt(', '.join(reader.fieldnames or []), quoted=False)})")
    rows = []
    for (line_no, _), record in zip(numbered[1:], reader):
        where = f"{path}:{line_no}"
        label = (record.get("event") or "").strip()
        if not label:
            raise CompareError(f"{where}: column 'event' is empty")
        p = _decimal(record["probability"] or "", f"{where}: column 'probability'")
        if not 0 <= p <= 1:
            raise CompareError(f"{where}: column 'probability': expected a number in [0, 1], got {excerpt(str(p))}")
        probability, rounding = float(p), _half_ulp(p)
        pays = None
        if (record.get("pays") or "").strip():
            pays = Fraction(_decimal(record["pays"], f"{where}: column 'pays'"))
        if pays is not None and abs(pays) > 1 and (record.get("return") or "").strip():
            ret = _decimal(record["return"], f"{where}: column 'return'")
            if _half_ulp(ret) / float(abs(pays)) < rounding:  # more digits of the probability
                probability, rounding = float(ret) / float(pays), _half_ulp(ret) / float(abs(pays))
        event = (record.get("suite_event") or "").strip() or label
        rows.append(PublishedRow(label, event, probability, rounding, pays, line_no))
    if not rows:
        raise CompareError(f"{path}: a header but no rows")
    return rows


def critical_z(rows: int, level: float) -> float:
    """Two-sided Bonferroni bound: every row inside with probability ``level`` if both agree."""
    return NormalDist().inv_cdf(1 - (1 - level) / (2 * rows))


def compare(wager: WagerSheet, published: list[PublishedRow], published_samples: float | None = None,
            level: float = 0.99, source: str = "published table") -> list[RowComparison]:
    if published_samples is not None:
        check_number(published_samples, "published samples", low=1, high=10**15, why="rounds behind the table")
    check_number(level, "level", low=0, high=1, low_open=True, high_open=True)
    ours = {r.event: r for r in wager.rows}
    bound = critical_z(len(published), level)
    out = []
    for row in published:
        mine = ours.get(row.event)
        if mine is None:
            raise CompareError(f"{source}:{row.line}: no row {excerpt(row.event)} in wager {wager.name!r} "
                               f"(its rows: {', '.join(ours)}); name it in a suite_event column")
        if row.pays is not None and Fraction(mine.pays) != row.pays:
            raise CompareError(f"{source}:{row.line}: {excerpt(row.label)} pays {row.pays} there, "
                               f"{Fraction(mine.pays)} here: the tables describe different games")
        p = float(mine.probability)
        se = 0.0 if wager.exact else float(mine.std_error or 0.0)
        their_se = (math.sqrt(row.probability * (1 - row.probability) / published_samples)
                    if published_samples else 0.0)
        gap = max(0.0, abs(row.probability - p) - row.rounding)
        total_se = math.hypot(se, their_se)
        z = 0.0 if gap == 0 else (math.inf if total_se == 0 else gap / total_se)
        out.append(RowComparison(row, p, se, their_se, math.copysign(z, row.probability - p),
                                 not abs(z) <= bound))  # fail closed: a NaN z is outside
    return out


def format_comparison(wager: WagerSheet, rows: list[RowComparison], level: float,
                      published_samples: float | None, source: str) -> str:
    bound = critical_z(len(rows), level)
    samples = f"{published_samples:.3g} samples" if published_samples else "no sampling error"
    lines = [f"== {wager.name} against {source} ({samples} on their side) ==",
             f"{'published row':<40} {'published':>11} {'ours':>12} {'our SE':>9} {'z':>8}  verdict"]
    for c in rows:
        ours_se = "counted" if c.ours_se == 0 else f"{c.ours_se:.2e}"
        z = "inf" if math.isinf(c.z) else f"{c.z:+.1f}"
        lines.append(f"{c.row.label[:40]:<40} {c.row.probability:11.7f} {c.ours:12.9f} {ours_se:>9} "
                     f"{z:>8}  {'OUTSIDE' if c.outside else 'inside'}")
    outside = sum(c.outside for c in rows)
    lines.append(f"{outside} of {len(rows)} rows outside the {100 * level:g}% family-wise bound "
                 f"(|z| > {bound:.2f}, Bonferroni over the rows; z after the published rounding)")
    return "\n".join(lines)
