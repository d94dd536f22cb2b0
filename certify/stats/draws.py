"""Tests of scaled draws: integers that should be independent and uniform on [low, high].

This is what a game makes of its RNG before it shuffles (a number in [0, 52), a wheel pocket,
a reel stop): the scaling step is where modulo bias lives. Input: a 1-D integer array in draw order.

* ``draw_frequency``: every value equally likely (chi-square over the high - low + 1 values).
* ``draw_pairs``: consecutive draws independent. Non-overlapping pairs (x[2i], x[2i+1]) are
  independent pairs of independent values under H0, so their table is an exact multinomial. When
  the range is too wide for 5 expected per cell, values are grouped into c classes
  ``floor((x - low) * c / span)``, each with its exact probability (size / span).
* ``draw_gaps``: Knuth's gap test: the event "x is in the lower half" (probability
  h / span, h = span // 2); the numbers of draws between successive events are geometric.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from certify.stats.cards import geometric_cells
from certify.stats.gof import chisquare_gof, uniform_gof
from certify.stats.result import TestResult
from certify.validate import check_number

MAX_DRAW_SPAN = 1 << 24  # values in a draw range: 16,777,216 counts of 8 bytes


def check_draws(values, low: int, high: int) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"draws: expected a 1-D integer array, got {arr.dtype} of shape {arr.shape}")
    if low > high:
        raise ValueError(f"draws: empty range [{low}, {high}]")
    check_number(high - low + 1, f"draws: values in the range [{low}, {high}]", low=1, high=MAX_DRAW_SPAN,
                 integer=True, why="DrawFrequency keeps one 64-bit count per value")
    if arr.size and (arr.min() < low or arr.max() > high):
        i = int(np.flatnonzero((arr < low) | (arr > high))[0])
        raise ValueError(f"draws: value {int(arr[i])} at index {i} is outside [{low}, {high}]")
    return arr.astype(np.int64, copy=False) - low


def draw_frequency(values, low: int, high: int, alpha: float = 0.01) -> TestResult:
    x = check_draws(values, low, high)
    span = high - low + 1
    return uniform_gof(np.bincount(x, minlength=span), alpha=alpha, name="DrawFrequency",
                       looked_at=f"frequency of each value in [{low}, {high}], {len(x)} draws")


def _classes(span: int, pairs: int) -> int:
    """Classes per coordinate so that each of the c * c pair cells expects about 5 or more."""
    return int(max(2, min(span, np.floor(np.sqrt(pairs / 5)))))


def draw_pairs(values, low: int, high: int, alpha: float = 0.01) -> TestResult:
    x = check_draws(values, low, high)
    span = high - low + 1
    pairs = len(x) // 2
    name = "DrawPairs"
    if span < 2 or pairs < 20:
        return TestResult.not_applicable(name, len(x), alpha, "needs a range of 2 or more and 40 draws")
    c = _classes(span, pairs)
    cls = (x[: 2 * pairs] * c) // span
    sizes = np.bincount((np.arange(span) * c) // span, minlength=c) / span  # exact class probabilities
    observed = np.bincount(cls[0::2] * c + cls[1::2], minlength=c * c)
    expected = np.outer(sizes, sizes).ravel()
    what = "values" if c == span else f"{c} classes of values"
    result = chisquare_gof(observed, expected, alpha=alpha, name=name,
                           looked_at=f"non-overlapping pairs of consecutive draws ({what}), {pairs} pairs")
    return replace(result, n=len(x))  # n counts draws, like the other draw tests


def draw_gaps(values, low: int, high: int, alpha: float = 0.01) -> TestResult:
    x = check_draws(values, low, high)
    span = high - low + 1
    name = "DrawGaps"
    if span < 2:
        return TestResult.not_applicable(name, len(x), alpha, "needs a range of 2 or more")
    half = span // 2
    p = half / span
    at = np.flatnonzero(x < half)
    gap = np.diff(at) - 1
    if len(gap) <= 5:
        return TestResult.not_applicable(name, len(x), alpha, f"only {len(gap)} gaps")
    max_gap = max(1, int(np.log(5 / len(gap)) / np.log(1 - p)))
    observed = np.bincount(np.minimum(gap, max_gap), minlength=max_gap + 1)
    result = chisquare_gof(observed, geometric_cells(p, max_gap), alpha=alpha, name=name,
                           cell_labels=[str(g) for g in range(max_gap)] + [f">={max_gap}"],
                           looked_at=f"gaps between draws below {low + half} (p = {half}/{span}), {len(gap)} gaps")
    return replace(result, n=len(x))


DRAW_TESTS = (("DrawFrequency", draw_frequency), ("DrawPairs", draw_pairs), ("DrawGaps", draw_gaps))
