"""The non-IID track of SP 800-90B (section 6.3) and the initial entropy estimate (3.1.3).

For samples of more than two values, every estimator runs on the bitstring (each sample as
``bits_per_symbol`` bits) to give H_bitstring, and the estimators that take any alphabet (most
common value, t-tuple, LRS and the four predictors) run on the samples themselves to give
H_original. The assessment is min(H_original, bits_per_symbol x H_bitstring). Binary data (two
distinct values) runs all ten estimators on the samples, and the assessment is H_original
(the NIST tool's handling of both cases).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from . import estimators as E
from .samples import Samples


@dataclass(frozen=True)
class TrackResult:
    """One track's estimates and the assessed min-entropy per sample."""

    track: str
    bits_per_symbol: int
    n: int
    alphabet_size: int
    literal: tuple[E.Estimate, ...]
    bitstring: tuple[E.Estimate, ...]
    h_original: float | None
    h_bitstring: float | None
    min_entropy: float
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"track": self.track, "bits_per_symbol": self.bits_per_symbol, "samples": self.n,
                "alphabet_size": self.alphabet_size,
                "literal": [e.to_dict() for e in self.literal],
                "bitstring": [e.to_dict() for e in self.bitstring],
                "H_original": self.h_original, "H_bitstring": self.h_bitstring,
                "min_entropy": self.min_entropy, **self.extra}


def _tasks(symbols: np.ndarray, k: int, width: int) -> list[Callable[[], list[E.Estimate]]]:
    """The estimators that apply to symbols of alphabet size k (the binary-only four when
    k == 2), in report order, each as a task returning its estimate(s)."""
    s = np.ascontiguousarray(symbols, dtype=np.uint8)
    tasks = [lambda: [E.most_common_value(s, k)]]
    if k == 2:
        tasks += [lambda: [E.collision(s)], lambda: [E.markov(s)], lambda: [E.compression(s)]]
    tasks += [lambda: list(E.tuple_and_lrs(s, width)), lambda: [E.multi_mcw(s, k)],
              lambda: [E.lag_prediction(s, k)], lambda: [E.multi_mmc(s, k)], lambda: [E.lz78y(s, k)]]
    return tasks


def _longest_first(task_lists) -> list[tuple[int, int]]:
    """(list, task) indices in the order the threads take them: the tasks of each list from its
    end (the predictors, the costliest), the lists interleaved, so the long tasks start first and
    the threads finish together."""
    order, longest = [], max(len(tasks) for tasks in task_lists)
    for back in range(1, longest + 1):
        order += [(j, len(tasks) - back) for j, tasks in enumerate(task_lists) if back <= len(tasks)]
    return order


def _run(task_lists, jobs: int) -> list[list[E.Estimate]]:
    """Run every task (the numba kernels release the GIL, so threads run them side by side);
    the results come back in each list's order."""
    order = _longest_first(task_lists)
    if jobs > 1 and len(order) > 1:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(lambda at: task_lists[at[0]][at[1]](), order))
    else:
        results = [task_lists[j][t]() for j, t in order]
    done = dict(zip(order, results))
    return [[e for t in range(len(tasks)) for e in done[(j, t)]] for j, tasks in enumerate(task_lists)]


def default_jobs() -> int:
    return max(1, min(2, os.cpu_count() or 1))


def run_estimators(symbols: np.ndarray, k: int, width: int, jobs: int = 1) -> list[E.Estimate]:
    """All estimators that apply to symbols of alphabet size k (the binary-only four when k == 2)."""
    return _run([_tasks(symbols, k, width)], jobs)[0]


def _minimum(estimates, ceiling: float) -> float:
    values = [e.min_entropy for e in estimates if e.min_entropy is not None]
    return min([ceiling, *values])


def assess_non_iid(samples: Samples, truncate_bitstring: int | None = None, jobs: int | None = None) -> TrackResult:
    """SP 800-90B 6.3 on ``samples``: H_original, H_bitstring and the assessed min-entropy.

    ``truncate_bitstring`` limits the bitstring to its first bits (the NIST tool's -t: 10^6);
    ``jobs`` threads run the estimators side by side (default: 2, or 1 on one core)."""
    k = samples.alphabet_size
    width = max(1, (k - 1).bit_length())
    task_lists = [_tasks(samples.symbols, k, width)]
    if k > 2:
        bits = samples.bits
        if truncate_bitstring is not None:
            bits = bits[:truncate_bitstring]
        task_lists.append(_tasks(bits, 2, 1))
    results = _run(task_lists[::-1], default_jobs() if jobs is None else jobs)[::-1]   # the bitstring's first
    literal = results[0]
    h_original = _minimum(literal, float(samples.bits_per_symbol))
    bitstring: list[E.Estimate] = []
    h_bitstring = None
    assessed = h_original
    if k > 2:
        bitstring = results[1]
        h_bitstring = _minimum(bitstring, 1.0)
        assessed = min(h_original, samples.bits_per_symbol * h_bitstring)
    return TrackResult("non-IID", samples.bits_per_symbol, samples.n, k, tuple(literal), tuple(bitstring),
                       h_original, h_bitstring, min(assessed, float(samples.bits_per_symbol)))
