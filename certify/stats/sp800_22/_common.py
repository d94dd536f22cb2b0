"""Shared plumbing for the SP 800-22 tests: input coercion, p-value hygiene, result building."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from functools import lru_cache, wraps
from typing import Any, Callable, Iterable, Sequence

import numpy as np
from scipy import special

from certify.stats.result import TestResult

BitsLike = "np.ndarray | bytes | bytearray | str | Sequence[int]"


def bits_from_bytes(data: bytes | bytearray | memoryview) -> np.ndarray:
    """Unpack bytes into bits, most significant bit of each byte first (NIST's convention)."""
    return np.unpackbits(np.frombuffer(bytes(data), dtype=np.uint8))


_scope = threading.local()


@contextmanager
def one_sequence(x: np.ndarray):
    """While ``run_all`` runs the battery on ``x`` (already checked by ``as_bits``): the tests
    of this thread take ``x`` as checked, and what several of them compute from it (``shared``)
    is computed once."""
    outer = getattr(_scope, "current", None)
    _scope.current = (x, {})
    try:
        yield
    finally:
        _scope.current = outer


def shared(x: np.ndarray, key: Any, compute: Callable[[], Any],
           outside: Callable[[], Any] | None = None) -> Any:
    """``compute()``, once per ``key`` for the sequence of the current ``one_sequence`` scope
    (the same array object); outside it, every time (or ``outside()`` if given)."""
    current = getattr(_scope, "current", None)
    if current is None or current[0] is not x:
        return compute() if outside is None else outside()
    results = current[1]
    if key not in results:
        results[key] = compute()
    return results[key]


def packed_bits(x: np.ndarray) -> np.ndarray:
    """``x`` packed MSB first (np.packbits) with 8 zero bytes after, so a kernel may read a whole
    word at any bit; once per sequence in run_all."""
    def pack() -> np.ndarray:
        out = np.zeros((x.size + 7) // 8 + 8, dtype=np.uint8)
        out[: (x.size + 7) // 8] = np.packbits(x)
        return out
    return shared(x, "packed", pack)


def as_bits(bits: Any) -> np.ndarray:
    """Coerce the input into a contiguous 1-D uint8 array of 0/1.

    Accepts a numpy array or sequence of 0/1 integers or booleans, packed ``bytes`` (unpacked MSB
    first) and ``str`` of '0'/'1' characters (whitespace ignored, as in the document's examples).
    """
    current = getattr(_scope, "current", None)
    if current is not None and current[0] is bits:
        return bits  # checked once by run_all
    if isinstance(bits, (bytes, bytearray, memoryview)):
        return bits_from_bytes(bits)
    if isinstance(bits, str):
        text = "".join(bits.split())
        arr = np.frombuffer(text.encode("ascii"), dtype=np.uint8) - ord("0")
        bad = np.flatnonzero(arr > 1)
        if bad.size:
            raise ValueError(f"bit string: character {bad[0]} is {text[bad[0]]!r}, expected '0' or '1'")
        return arr.astype(np.uint8)
    arr = np.asarray(bits)
    if arr.ndim != 1:
        raise ValueError(f"bits: expected a 1-D array, got shape {arr.shape}")
    if arr.dtype == np.uint8 and (arr.size == 0 or int(arr.max()) <= 1):
        return np.ascontiguousarray(arr)  # the battery's own arrays: one fast scan
    if arr.dtype == np.bool_:
        return arr.astype(np.uint8)
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"bits: expected integers 0/1, got dtype {arr.dtype}")
    bad = np.flatnonzero((arr != 0) & (arr != 1))
    if bad.size:
        raise ValueError(f"bits: element {bad[0]} is {arr[bad[0]]}, expected 0 or 1")
    return np.ascontiguousarray(arr, dtype=np.uint8)


def computed_once(fn: Callable | None = None, *, maxsize: int | None = None) -> Callable:
    """``lru_cache`` for the probability tables and twiddles, behind a lock: when the battery runs
    sequences on threads, the first sequences would otherwise all compute the same table at once
    (the exact longest-run table takes ~0.2 s)."""
    if fn is None:
        return lambda f: computed_once(f, maxsize=maxsize)
    cached = lru_cache(maxsize=maxsize)(fn)
    lock = threading.Lock()

    @wraps(fn)
    def once(*args):
        with lock:
            return cached(*args)

    once.cache_clear = cached.cache_clear
    return once


def clean_p(p: float) -> float:
    """Clip a p-value into [0, 1].

    Cancellation in sums of normal CDFs (CumulativeSums) can leave a result a few ulps outside
    the interval; some packages then report p > 1. A NaN means a defect upstream, so it raises.
    """
    p = float(p)
    if np.isnan(p):
        raise ArithmeticError("p-value is NaN")
    return min(1.0, max(0.0, p))


def igamc(a: float, x: float) -> float:
    """Upper regularised incomplete gamma Q(a, x), the document's igamc."""
    return clean_p(special.gammaincc(a, x))


def erfc(x: float) -> float:
    return clean_p(special.erfc(x))


def result(name: str, n: int, alpha: float, pvalues: Iterable[float], statistic: float | None,
           dof: float | None, looked_at: str, labels: Sequence[str] | None = None,
           statistics: Sequence[float] | None = None, **details: Any) -> TestResult:
    """Build a TestResult: passes when every p-value is >= alpha; ``pvalue`` is the smallest."""
    ps = tuple(clean_p(p) for p in pvalues)
    worst = int(np.argmin(ps))
    if labels is not None:
        details["labels"] = list(labels)
    if statistics is not None:
        details["statistics"] = [float(s) for s in statistics]
        statistic = float(statistics[worst])
    return TestResult(name=name, statistic=None if statistic is None else float(statistic),
                      pvalue=ps[worst], alpha=alpha, passed=all(p >= alpha for p in ps), n=int(n),
                      dof=None if dof is None else float(dof), pvalues=ps, looked_at=looked_at,
                      details=_plain(details))


def not_applicable(name: str, n: int, alpha: float, reason: str, **details: Any) -> TestResult:
    return TestResult.not_applicable(name, int(n), alpha, reason, **_plain(details))


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _plain(obj: Any) -> Any:
    """numpy scalars/arrays -> plain Python, so details are JSON-able."""
    if type(obj) in _SCALARS:
        return obj
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        if all(type(v) in _SCALARS for v in obj):  # already plain (the templates' labels, W rows)
            return list(obj)
        return [_plain(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    return obj
