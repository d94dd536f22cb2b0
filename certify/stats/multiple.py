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

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from math import isfinite, sqrt
from typing import Any

import numpy as np
from scipy import special

from certify.stats.gof import binomial_upper_tail
from certify.stats.result import passes

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
    if not all(isfinite(c) for c in components):  # min() over a NaN depends on order: fail closed
        return float("nan")
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
    is rejected exactly when its adjusted p-value is below alpha (``not passes(adjusted, alpha)``).
    Members keep their given order. A p-value that is not a number in [0, 1] (NaN, inf) counts as
    0 when ranking and adjusting: its member is rejected.
    """
    from certify.validate import check_alpha

    alpha = check_alpha(alpha, "family alpha")
    names = list(pvalues)
    total = len(names)
    ranked = {n: _rankable(pvalues[n]) for n in names}
    order = sorted(range(total), key=lambda i: (ranked[names[i]], i))
    adjusted = [1.0] * total
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (total - rank) * ranked[names[i]]))
        adjusted[i] = running
    members = tuple({"name": n, "pvalue": float(pvalues[n]), "adjusted": float(adjusted[i]),
                     "rejected": not passes(adjusted[i], alpha) or not _valid(pvalues[n])}
                    for i, n in enumerate(names))
    return FamilyVerdict(alpha=alpha, method="holm-bonferroni", members=members)


def _valid(p: float) -> bool:
    return isfinite(float(p)) and float(p) >= 0.0


def _rankable(p: float) -> float:
    """A p-value as Holm ranks it: at most 1; NaN, inf or negative count as 0 (fail closed)."""
    return min(float(p), 1.0) if _valid(p) else 0.0


# ------------------------------------------------------------------------------ confirmation
CONFIRMATION_RULE = (
    "Pre-stated confirmatory rule: stage 1 is the family verdict (Holm-Bonferroni at alpha over every "
    "member). When stage 1 rejects members, each rejected member is repeated once on fresh, independent "
    "data of the same size (later output of the source; for the simulation, fresh DRBG sub-streams), and "
    "stage 2 is Holm-Bonferroni at alpha over the repeated members. The verdict is FAIL only when a member "
    "fails stage 1 and a member fails again in stage 2 (confirmed p = max of the two stages' smallest "
    "Holm-adjusted p-values, FAIL when below alpha). When no fresh data can be had (a file source read to "
    "its end), the stage-1 FAIL stands. False-alarm rate: the stages use independent data and each is a "
    "Holm family at level alpha for whichever members it holds, so a fair source fails with probability at "
    "most alpha x alpha (1e-4 at alpha 0.01) per family. Power: a defect that a single stage detects with "
    "probability pi is confirmed with probability at least pi x pi (stage 2 holds fewer members, so its "
    "Holm bound is no stricter than stage 1's); an exact check (known answers, payouts) is never repeated.")


class Unconfirmable(Exception):
    """Raised by a re-test that cannot get fresh data: the stage-1 verdict stands."""


@dataclass(frozen=True)
class ConfirmedVerdict:
    """The family verdict under :data:`CONFIRMATION_RULE`: stage 1, and stage 2 when stage 1 failed."""

    stage1: FamilyVerdict
    stage2: FamilyVerdict | None = None
    unconfirmable: str | None = None  # why stage 2 could not run (stage 1's FAIL stands)
    retested: tuple[dict[str, Any], ...] = ()  # the stage-2 test results, as plain data

    @property
    def alpha(self) -> float:
        return self.stage1.alpha

    @property
    def passed(self) -> bool:
        return passes(self.pvalue, self.alpha)

    @property
    def pvalue(self) -> float:
        """Confirmed p-value: the larger of the two stages' smallest Holm-adjusted p-values
        (stage 1 alone when it passed or could not be repeated)."""
        first = _smallest_adjusted(self.stage1)
        if self.stage1.passed or self.stage2 is None:
            return first
        return max(first, _smallest_adjusted(self.stage2))

    @property
    def failing(self) -> list[str]:
        if self.passed:
            return []
        return self.stage2.failing if self.stage2 is not None else self.stage1.failing

    @property
    def false_alarm_bound(self) -> float:
        return self.alpha * self.alpha

    def summary(self) -> str:
        """One sentence per stage, for a report line."""
        first = self.stage1
        text = (f"stage 1: Holm over {len(first.members)} members, smallest adjusted p "
                f"{_smallest_adjusted(first):.3g}, " + ("pass" if first.passed else f"rejected {', '.join(first.failing)}"))
        if first.passed:
            return text
        if self.stage2 is None:
            return text + f"; stage 2 not possible ({self.unconfirmable}): the stage-1 FAIL stands"
        second = self.stage2
        return text + (f"; stage 2 on fresh data: Holm over the {len(second.members)} repeated member(s), smallest "
                       f"adjusted p {_smallest_adjusted(second):.3g}, "
                       + ("pass: not confirmed" if second.passed else f"confirmed: {', '.join(second.failing)}"))

    def to_dict(self) -> dict[str, Any]:
        return {"alpha": self.alpha, "rule": CONFIRMATION_RULE, "passed": self.passed, "pvalue": self.pvalue,
                "failing": self.failing, "false_alarm_bound": self.false_alarm_bound,
                "stage1": self.stage1.to_dict(),
                "stage2": None if self.stage2 is None else self.stage2.to_dict(),
                "unconfirmable": self.unconfirmable, "retested": [dict(r) for r in self.retested],
                "summary": self.summary()}


def _smallest_adjusted(family: FamilyVerdict) -> float:
    return min((m["adjusted"] for m in family.members), default=1.0)


def confirm(stage1: FamilyVerdict,
            retest: Callable[[list[str]], tuple[Mapping[str, float], Sequence[Mapping[str, Any]]]] | None
            ) -> ConfirmedVerdict:
    """Apply :data:`CONFIRMATION_RULE`: when ``stage1`` fails, ``retest(failing_names)`` repeats those
    members on fresh data and returns ``({name: member p-value}, [test result dicts])``; it raises
    :class:`Unconfirmable` when there is no fresh data (then stage 1's FAIL stands)."""
    if stage1.passed:
        return ConfirmedVerdict(stage1)
    if retest is None:
        return ConfirmedVerdict(stage1, unconfirmable="no re-test available for this source")
    names = stage1.failing
    try:
        pvalues, results = retest(names)
    except Unconfirmable as exc:
        return ConfirmedVerdict(stage1, unconfirmable=str(exc))
    missing = [n for n in names if n not in pvalues]
    # a member the re-test could not judge (not applicable on the fresh data) counts as failing again
    stage2 = holm({n: (pvalues[n] if n not in missing else 0.0) for n in names}, stage1.alpha)
    return ConfirmedVerdict(stage1, stage2, retested=tuple(dict(r) for r in results))
