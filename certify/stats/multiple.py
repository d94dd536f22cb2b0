"""Many p-values: the SP 800-22 section 4.2 second-level analysis and the family verdict.

Second level (SP 800-22 Rev. 1a, section 4.2), for one p-value series over m sequences:

* 4.2.1 proportion passing: the fraction of sequences with p >= alpha must lie in
  p_hat +/- 3 sqrt(p_hat (1 - p_hat) / m), p_hat = 1 - alpha (the document's normal interval;
  both ends are checked, as the document states; NIST's sts code checks only the lower end).
* 4.2.2 uniformity of the p-values: 10 bins [0, 0.1), ..., [0.9, 1.0] (p = 1 goes in the last),
  chi-square with 9 degrees of freedom, P-value_T = igamc(9/2, chi2/2); uniform if
  P-value_T >= 0.0001. The document asks for at least 55 sequences; with fewer it is reported
  as not applicable.

Family verdict (multiple testing). A battery runs dozens of tests and hundreds of p-value series
(the 148 templates alone); judging each at alpha would fail a perfect generator most of the time.
The rule, applied the same way to every test of both batteries:

1. Each test of the battery is one *member* of the family and gets one p-value. A member with
   several component p-values (several series, several sequences, the second-level figures) is
   reduced by Bonferroni: ``min(1, C * min component p)``, C the number of components.
   For an SP 800-22 test over m sequences the components of each p-value series are
   (a) the smallest first-level p-value, Bonferroni over the m sequences (``m * min p``);
   (b) the exact binomial probability of at least that many failures at level alpha
       (the 4.2.1 proportion, as an exact tail rather than a normal interval);
   (c) P-value_T of the 4.2.2 uniformity test, when m >= 55.
   A card test contributes its own (already combined) p-value.
2. Holm-Bonferroni over the members at the family level alpha: the family passes when no member
   is rejected (a member is rejected when its Holm-adjusted p-value is below alpha, the same
   boundary as a single test, which passes at p >= alpha). This controls the family-wise error rate at alpha for any dependence between tests.

The NIST section 4.2 verdicts (proportion inside the interval, P-value_T >= 0.0001) are reported
beside each series for the reader who knows them; the pass/fail decision is the family verdict.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from math import sqrt
from typing import Any

import numpy as np
from scipy import special

from certify.stats.gof import binomial_upper_tail

UNIFORMITY_BINS = 10
UNIFORMITY_THRESHOLD = 0.0001
UNIFORMITY_MIN_SEQUENCES = 55


@dataclass(frozen=True)
class SecondLevel:
    """The section 4.2 analysis of one p-value series over the sequences it applied to."""

    name: str
    alpha: float
    m: int                      # sequences the test applied to
    passed_count: int           # of those, how many had p >= alpha
    proportion: float | None
    interval: tuple[float, ...]  # (low, high); empty when m == 0
    proportion_ok: bool | None
    histogram: tuple[int, ...]  # the 10 bins of 4.2.2
    uniformity_pvalue: float | None
    uniformity_ok: bool | None  # None when m < 55 (the document's minimum)
    min_pvalue: float | None
    binomial_tail: float        # P(at least this many failures | m, alpha), exact
    not_applicable: int = 0     # sequences where the test was not applicable

    def components(self) -> list[float]:
        """The p-values this series contributes to its family member (module docstring, 1.)."""
        if self.m == 0:
            return []
        parts = [min(1.0, self.m * self.min_pvalue), self.binomial_tail]
        if self.uniformity_pvalue is not None:
            parts.append(self.uniformity_pvalue)
        return parts

    @property
    def nist_ok(self) -> bool | None:
        if self.m == 0:
            return None
        return bool(self.proportion_ok) and self.uniformity_ok is not False

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["interval"] = list(self.interval)
        d["histogram"] = list(self.histogram)
        d["nist_ok"] = self.nist_ok
        return d


def proportion_interval(alpha: float, m: int) -> tuple[float, float]:
    """SP 800-22 4.2.1: p_hat +/- 3 sqrt(p_hat (1 - p_hat) / m), p_hat = 1 - alpha."""
    p_hat = 1.0 - alpha
    half = 3.0 * sqrt(p_hat * (1.0 - p_hat) / m)
    return p_hat - half, p_hat + half


def uniformity_pvalue(pvalues: Sequence[float]) -> tuple[float, tuple[int, ...]]:
    """SP 800-22 4.2.2: P-value_T of the 10-bin chi-square on the p-values, and the bins."""
    ps = np.asarray(pvalues, dtype=float)
    bins = np.minimum((ps * UNIFORMITY_BINS).astype(np.int64), UNIFORMITY_BINS - 1)
    histogram = np.bincount(bins, minlength=UNIFORMITY_BINS)
    expected = len(ps) / UNIFORMITY_BINS
    chi2 = float(((histogram - expected) ** 2 / expected).sum())
    return float(special.gammaincc((UNIFORMITY_BINS - 1) / 2, chi2 / 2)), tuple(int(x) for x in histogram)


def second_level(pvalues: Iterable[float | None], alpha: float = 0.01, name: str = "") -> SecondLevel:
    """Section 4.2 over one series: ``pvalues[i]`` from sequence i, ``None`` where not applicable."""
    values = list(pvalues)
    ps = [float(p) for p in values if p is not None]
    skipped = len(values) - len(ps)
    m = len(ps)
    if m == 0:
        return SecondLevel(name, alpha, 0, 0, None, (), None, (), None, None,
                           None, 1.0, skipped)
    bad = [p for p in ps if not 0.0 <= p <= 1.0 or p != p]
    if bad:
        raise ValueError(f"{name}: p-value {bad[0]!r} is outside [0, 1]")
    passed = sum(p >= alpha for p in ps)
    lo, hi = proportion_interval(alpha, m)
    proportion = passed / m
    if m >= UNIFORMITY_MIN_SEQUENCES:
        p_t, histogram = uniformity_pvalue(ps)
        uniform_ok: bool | None = p_t >= UNIFORMITY_THRESHOLD
    else:
        p_t, uniform_ok = None, None
        histogram = uniformity_pvalue(ps)[1]
    return SecondLevel(
        name=name, alpha=alpha, m=m, passed_count=passed, proportion=proportion, interval=(lo, hi),
        proportion_ok=lo <= proportion <= hi, histogram=histogram, uniformity_pvalue=p_t,
        uniformity_ok=uniform_ok, min_pvalue=min(ps),
        binomial_tail=binomial_upper_tail(m - passed, m, alpha), not_applicable=skipped)


def member_pvalue(components: Sequence[float]) -> float:
    """Bonferroni reduction of a member's component p-values (module docstring, 1.)."""
    if not components:
        raise ValueError("a family member needs at least one p-value")
    return min(1.0, len(components) * min(components))


@dataclass(frozen=True)
class FamilyVerdict:
    """Holm-Bonferroni over the members of a battery."""

    alpha: float
    method: str
    members: tuple[dict[str, Any], ...] = field(default_factory=tuple)

    @property
    def passed(self) -> bool:
        return not any(m["rejected"] for m in self.members)

    @property
    def failing(self) -> list[str]:
        return [m["name"] for m in self.members if m["rejected"]]

    def to_dict(self) -> dict[str, Any]:
        return {"alpha": self.alpha, "method": self.method, "passed": self.passed,
                "failing": self.failing, "members": [dict(m) for m in self.members]}


def holm(pvalues: Mapping[str, float], alpha: float = 0.01) -> FamilyVerdict:
    """Holm's step-down procedure: sort p ascending; reject p_(i) <= alpha / (M - i) until one is kept.

    Each member gets its Holm-adjusted p-value (``max_{j<=i} min(1, (M - j) p_(j))``), so a member
    is rejected exactly when its adjusted p-value is below alpha. Members keep their given order.
    """
    names = list(pvalues)
    total = len(names)
    order = sorted(range(total), key=lambda i: (pvalues[names[i]], i))
    adjusted = [1.0] * total
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (total - rank) * pvalues[names[i]]))
        adjusted[i] = running
    members = tuple({"name": n, "pvalue": float(pvalues[n]), "adjusted": float(adjusted[i]),
                     "rejected": bool(adjusted[i] < alpha)} for i, n in enumerate(names))
    return FamilyVerdict(alpha=alpha, method="holm-bonferroni", members=members)
