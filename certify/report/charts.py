"""Charts drawn with reportlab's own graphics (vector, deterministic, no plotting library).

* :func:`outcome_chart`: observed against expected share of each outcome category.
* :func:`residual_chart`: standardised residual (O - E) / sqrt(E) per category, with +/-2 and
  +/-3 guides: the rare categories (a royal flush) are invisible in shares but not here.
* :func:`pvalue_histogram`: p-values in 10 bins against the flat line a fair source gives.
"""

from __future__ import annotations

import math
from typing import Sequence

from reportlab.graphics.charts.barcharts import HorizontalBarChart, VerticalBarChart
from reportlab.graphics.charts.legends import Legend
from reportlab.graphics.shapes import Drawing, Group, Line, String
from reportlab.lib import colors

OBSERVED = colors.HexColor("#1f4e79")
EXPECTED = colors.HexColor("#a6a6a6")
WARN = colors.HexColor("#c00000")
FONT = "Helvetica"


def _label(text: str, limit: int = 48) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


MAX_PLOT_H = 600.0  # a chart and its heading fit one page's frame (about 730 pt) whatever its rows


def _row_height(n: int) -> float:
    return 22.0 if n <= 12 else min(15.0, MAX_PLOT_H / n)


def _label_size(spacing: float) -> float:
    """Category labels shrink with the rows (a game with many outcome events, as a hold'em sheet)."""
    return min(7.0, 0.75 * spacing)


def outcome_chart(categories: Sequence[str], observed: Sequence[float], expected: Sequence[float],
                  width: float = 460) -> Drawing:
    """Grouped horizontal bars: observed and expected share (%) of each category."""
    total_o = float(sum(observed)) or 1.0
    total_e = float(sum(expected)) or 1.0
    obs = [100.0 * o / total_o for o in observed]
    exp = [100.0 * e / total_e for e in expected]
    n = len(categories)
    plot_h = _row_height(n) * n
    height = plot_h + 60
    d = Drawing(width, height)
    bc = HorizontalBarChart()
    bc.x, bc.y, bc.width, bc.height = 200, 35, width - 215, plot_h
    # HorizontalBarChart draws the first category at the bottom: reverse to read top-down.
    bc.data = [list(reversed(obs)), list(reversed(exp))]
    bc.categoryAxis.categoryNames = [_label(c) for c in reversed(categories)]
    bc.categoryAxis.labels.fontName = FONT
    bc.categoryAxis.labels.fontSize = _label_size(_row_height(n))
    bc.categoryAxis.labels.boxAnchor = "e"
    bc.categoryAxis.labels.dx = -4
    bc.valueAxis.valueMin = 0
    bc.valueAxis.labels.fontName = FONT
    bc.valueAxis.labels.fontSize = 7
    bc.valueAxis.labelTextFormat = "%g%%"
    bc.valueAxis.visibleGrid = True
    bc.valueAxis.gridStrokeColor = colors.HexColor("#e0e0e0")
    bc.bars[0].fillColor = OBSERVED
    bc.bars[1].fillColor = EXPECTED
    bc.bars.strokeWidth = 0
    bc.groupSpacing = 3
    bc.barSpacing = 0.5
    d.add(bc)
    d.add(_legend([("observed", OBSERVED), ("expected (PAR sheet)", EXPECTED)], 200, height - 8))
    d.add(String(bc.x + bc.width / 2, 8, "share of rounds (%)", fontName=FONT, fontSize=7, textAnchor="middle"))
    return d


def standardised_residuals(observed: Sequence[float], expected: Sequence[float]) -> list[float]:
    return [(o - e) / math.sqrt(e) if e > 0 else 0.0 for o, e in zip(observed, expected)]


def residual_chart(categories: Sequence[str], observed: Sequence[float], expected: Sequence[float],
                   width: float = 460) -> Drawing:
    """Horizontal bars of (O - E) / sqrt(E); bars beyond +/-3 are drawn in red."""
    z = standardised_residuals(observed, expected)
    n = len(categories)
    plot_h = _row_height(n) * n * 0.8
    height = plot_h + 50
    limit = max(4.0, math.ceil(max((abs(v) for v in z), default=0.0)))
    d = Drawing(width, height)
    bc = HorizontalBarChart()
    bc.x, bc.y, bc.width, bc.height = 200, 30, width - 215, plot_h
    bc.data = [list(reversed(z))]
    bc.categoryAxis.categoryNames = [_label(c) for c in reversed(categories)]
    bc.categoryAxis.labels.fontName = FONT
    bc.categoryAxis.labels.fontSize = _label_size(_row_height(n) * 0.8)
    bc.categoryAxis.labels.boxAnchor = "e"
    bc.categoryAxis.labels.dx = -4
    bc.categoryAxis.visibleAxis = False
    bc.categoryAxis.joinAxisMode = "left"
    bc.valueAxis.valueMin, bc.valueAxis.valueMax = -limit, limit
    bc.valueAxis.valueStep = max(1, int(limit // 4))
    bc.valueAxis.labels.fontName = FONT
    bc.valueAxis.labels.fontSize = 7
    bc.bars[0].fillColor = OBSERVED
    bc.bars.strokeWidth = 0
    for i, v in enumerate(reversed(z)):
        if abs(v) > 3:
            bc.bars[(0, i)].fillColor = WARN
    d.add(bc)
    for guide, dash in ((2, (2, 2)), (3, None)):
        for sign in (-1, 1):
            x = bc.x + bc.width * (sign * guide + limit) / (2 * limit)
            line = Line(x, bc.y, x, bc.y + bc.height, strokeColor=WARN, strokeWidth=0.5)
            if dash:
                line.strokeDashArray = dash
            d.add(line)
    zero = bc.x + bc.width / 2
    d.add(Line(zero, bc.y, zero, bc.y + bc.height, strokeColor=colors.black, strokeWidth=0.6))
    d.add(String(bc.x + bc.width / 2, 6, "standardised residual (O - E) / sqrt(E); guides at \u00b12 and \u00b13",
                 fontName=FONT, fontSize=7, textAnchor="middle"))
    return d


def pvalue_bins(pvalues: Sequence[float], bins: int = 10) -> list[int]:
    counts = [0] * bins
    for p in pvalues:
        counts[min(int(p * bins), bins - 1)] += 1
    return counts


def pvalue_histogram(pvalues: Sequence[float], width: float = 460, height: float = 170) -> Drawing:
    """10-bin histogram of p-values; the dashed line is the count per bin a fair source expects."""
    counts = pvalue_bins(pvalues)
    expected = len(pvalues) / len(counts)
    d = Drawing(width, height)
    bc = VerticalBarChart()
    bc.x, bc.y, bc.width, bc.height = 45, 35, width - 70, height - 55
    bc.data = [counts]
    bc.categoryAxis.categoryNames = [f"{i / 10:.1f}\u2013{(i + 1) / 10:.1f}" for i in range(10)]
    bc.categoryAxis.labels.fontName = FONT
    bc.categoryAxis.labels.fontSize = 7
    bc.valueAxis.valueMin = 0
    bc.valueAxis.valueMax = max(max(counts), math.ceil(expected)) * 1.15 or 1
    bc.valueAxis.labels.fontName = FONT
    bc.valueAxis.labels.fontSize = 7
    bc.valueAxis.visibleGrid = True
    bc.valueAxis.gridStrokeColor = colors.HexColor("#e0e0e0")
    bc.bars[0].fillColor = OBSERVED
    bc.bars.strokeWidth = 0
    d.add(bc)
    y = bc.y + bc.height * expected / bc.valueAxis.valueMax
    line = Line(bc.x, y, bc.x + bc.width, y, strokeColor=WARN, strokeWidth=0.8)
    line.strokeDashArray = (3, 2)
    d.add(line)
    d.add(String(bc.x + bc.width / 2, 8, f"p-value bin ({len(pvalues)} p-values)", fontName=FONT,
                 fontSize=7, textAnchor="middle"))
    y_title = Group(String(0, 0, "p-values in the bin", fontName=FONT, fontSize=7, textAnchor="middle"))
    y_title.translate(12, bc.y + bc.height / 2)
    y_title.rotate(90)
    d.add(y_title)
    d.add(_legend([("observed count", OBSERVED), (f"uniform expectation ({expected:.1f} per bin)", WARN)],
                  bc.x, height - 6))
    return d


def _legend(items: list[tuple[str, colors.Color]], x: float, y: float) -> Legend:
    legend = Legend()
    legend.x, legend.y = x, y
    legend.alignment = "right"
    legend.columnMaximum = 1
    legend.fontName = FONT
    legend.fontSize = 7
    legend.boxAnchor = "nw"
    legend.dx = legend.dy = 7
    legend.deltax = 150
    legend.colorNamePairs = [(c, name) for name, c in items]
    return legend
