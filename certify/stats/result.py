"""The result object every statistical test returns (scipy.stats style: named fields), and the one
rule that turns a p-value into a verdict."""

from __future__ import annotations

import copy
import math
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from typing import Any

_SCALARS = frozenset({str, int, float, bool, type(None)})


def _copied(obj: Any) -> Any:
    """A field value as ``dataclasses.asdict`` gives it (fresh dicts, lists and tuples, deep copies
    of anything else), without asdict's generic dispatch on every plain number: the SP 800-22
    battery converts a few thousand p-values and counts per sequence."""
    if type(obj) in _SCALARS:
        return obj
    if isinstance(obj, dict):
        return type(obj)((_copied(k), _copied(v)) for k, v in obj.items())
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a namedtuple
        return type(obj)(*[_copied(v) for v in obj])
    if isinstance(obj, (list, tuple)):
        return type(obj)(_copied(v) for v in obj)
    if is_dataclass(obj) and not isinstance(obj, type):
        return asdict(obj)
    return copy.deepcopy(obj)


def passes(pvalue: Any, alpha: Any) -> bool:
    """The verdict of one statistical test: pass when ``pvalue >= alpha``.

    Fail-closed: a p-value or level that is not a finite number (NaN, +-inf, None, a string), a
    negative p-value, or a level outside (0, 1) is a failure, never a pass. Every verdict on a
    p-value in the suite is taken here (``TestResult``, the family verdict, the report's check).
    """
    try:
        p, a = float(pvalue), float(alpha)
    except (TypeError, ValueError):
        return False
    if not (math.isfinite(p) and math.isfinite(a)) or not 0.0 < a < 1.0 or p < 0.0:
        return False
    return p >= a


@dataclass(frozen=True)
class TestResult:
    """One statistical test on one sample.

    ``pvalues`` holds every p-value the test produces (several for Serial, CumulativeSums,
    the excursion tests, the 148 templates); ``pvalue`` is the one the verdict is taken on
    (the smallest, for multi-p-value tests). ``applicable`` is False when the input is too
    short or the test's own precondition excludes it: such a test neither passes nor fails.

    The verdict is owned here: a test with a p-value gets ``passed = passes(pvalue, alpha)``
    (a caller that states a different ``passed`` is refused), so NaN is a failure wherever the
    p-value came from. Only an exact check (no p-value: known answers, payouts) states ``passed``.
    """

    __test__ = False  # not a pytest test class

    name: str
    statistic: float | None
    pvalue: float | None
    alpha: float
    n: int
    passed: bool | None = None
    dof: float | None = None
    pvalues: tuple[float, ...] = ()
    applicable: bool = True
    looked_at: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.applicable:
            decided = None
        elif self.pvalue is not None:
            decided = passes(self.pvalue, self.alpha)
        elif isinstance(self.passed, bool):
            decided = self.passed
        else:
            raise ValueError(f"{self.name}: an exact check (no p-value) must state passed as true or false")
        if self.applicable and self.passed is not None and bool(self.passed) != decided:
            raise ValueError(f"{self.name}: passed={self.passed!r} contradicts p = {self.pvalue!r} at alpha "
                             f"{self.alpha!r} (the verdict is passes(p, alpha))")
        object.__setattr__(self, "passed", decided)

    @property
    def verdict(self) -> str:
        if not self.applicable:
            return "not applicable"
        return "pass" if self.passed else "FAIL"

    def to_dict(self) -> dict[str, Any]:
        d = {f.name: _copied(getattr(self, f.name)) for f in fields(self)}
        d["pvalues"] = list(self.pvalues)
        d["verdict"] = self.verdict
        return d

    @classmethod
    def not_applicable(cls, name: str, n: int, alpha: float, reason: str, **details: Any) -> "TestResult":
        return cls(name=name, statistic=None, pvalue=None, alpha=alpha, passed=None, n=n,
                   applicable=False, looked_at=reason, details=details)
