"""The restart tests of SP 800-90B section 3.1.4.

The restart data is a 1000 x 1000 matrix: 1000 restarts of the noise source, 1000 samples
after each, stored restart after restart (the "row dataset" of 3.1.4.1). The sanity check
(3.1.4.3) counts the most common value in every row and every column: a count above the
binomial critical value for n = 1000, p = 2^-H_I at the document's alpha = 0.000005 (about
1 - 0.99^(1/2000): one false alarm in 100 over the 2000 counts) fails. The validation (3.1.4.2)
assesses the row and the column datasets (IID: the most common value estimate; non-IID: the
estimators of 6.3 that apply) and fails when min(H_r, H_c) < H_I / 2; otherwise the entropy is
min(H_r, H_c, H_I).

The NIST tool departs from the document here: its cutoff is the (1 - alpha) quantile, alpha =
1 - 0.99^(1/2000), of the largest count of any value in 1000 draws from the worst-case
("inverted near-uniform") distribution with min-entropy H_I, estimated from 5,000,000 random
rounds (a fresh random seed each run). That maximum is at least one value's binomial count, so
its cutoff is at least the document's (up to the noise of its simulation): a matrix that passes
here passes there too (docs/sp800-90b.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.stats import binom

from . import estimators as E
from .non_iid import run_estimators
from .samples import EntropyInputError, Samples, prepare

ROWS = COLUMNS = 1000
SANITY_ALPHA = 0.000005   # 90B 3.1.4.3


@dataclass(frozen=True)
class RestartResult:
    h_initial: float
    sanity_passed: bool
    max_count: int
    cutoff: int
    alpha: float
    rows: tuple[E.Estimate, ...]
    columns: tuple[E.Estimate, ...]
    h_rows: float | None
    h_columns: float | None
    validation_passed: bool | None
    min_entropy: float | None
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.sanity_passed and bool(self.validation_passed)

    def to_dict(self) -> dict[str, Any]:
        return {"H_I": self.h_initial, "sanity_check": {"passed": self.sanity_passed, "X_max": self.max_count,
                                                         "cutoff": self.cutoff, "alpha": self.alpha},
                "validation": {"passed": self.validation_passed, "H_r": self.h_rows, "H_c": self.h_columns,
                               "rows": [e.to_dict() for e in self.rows],
                               "columns": [e.to_dict() for e in self.columns]},
                "passed": self.passed, "min_entropy": self.min_entropy, **self.details}


def check_matrix(samples: Samples) -> None:
    if samples.n != ROWS * COLUMNS:
        raise EntropyInputError(
            f"{samples.source}: a restart matrix holds {ROWS} restarts x {COLUMNS} samples = {ROWS * COLUMNS:,} "
            f"samples (SP 800-90B 3.1.4.1), found {samples.n:,}")


def sanity_cutoff(h_initial: float, alpha: float) -> int:
    """Smallest u with P(Binomial(1000, 2^-H_I) > u) <= alpha."""
    p = 2.0 ** -h_initial
    counts = np.arange(COLUMNS + 1)
    tail = binom.sf(counts, COLUMNS, p)
    return int(counts[np.argmax(tail <= alpha)])


def _max_counts(matrix: np.ndarray, k: int) -> int:
    best = 0
    for axis_view in (matrix, matrix.T):
        for row in axis_view:
            best = max(best, int(np.bincount(row, minlength=k).max()))
    return best


def restart_tests(samples: Samples, h_initial: float, iid: bool) -> RestartResult:
    """3.1.4 on a restart matrix (``samples`` in row order) for the initial estimate ``h_initial``."""
    check_matrix(samples)
    if not (0 < h_initial <= samples.bits_per_symbol):
        raise EntropyInputError(f"H_I = {h_initial!r} must be in (0, {samples.bits_per_symbol}] bits per sample")
    matrix = samples.symbols.reshape(ROWS, COLUMNS)
    alpha = SANITY_ALPHA
    cutoff = sanity_cutoff(h_initial, alpha)
    x_max = _max_counts(matrix, samples.alphabet_size)
    if x_max > cutoff:
        return RestartResult(h_initial, False, x_max, cutoff, alpha, (), (), None, None, None, None)
    columns = prepare(samples.raw.reshape(ROWS, COLUMNS).T.ravel(), samples.bits_per_symbol,
                      source=f"{samples.source} (columns)")
    if iid:
        rows_est = (E.most_common_value(samples.symbols, samples.alphabet_size),)
        cols_est = (E.most_common_value(columns.symbols, columns.alphabet_size),)
    else:
        width = max(1, (samples.alphabet_size - 1).bit_length())
        rows_est = tuple(run_estimators(samples.symbols, samples.alphabet_size, width))
        cols_est = tuple(run_estimators(columns.symbols, columns.alphabet_size,
                                        max(1, (columns.alphabet_size - 1).bit_length())))
    ceiling = float(samples.bits_per_symbol)
    h_r = min([ceiling, *[e.min_entropy for e in rows_est if e.min_entropy is not None]])
    h_c = min([ceiling, *[e.min_entropy for e in cols_est if e.min_entropy is not None]])
    valid = min(h_r, h_c) >= h_initial / 2.0
    return RestartResult(h_initial, True, x_max, cutoff, alpha, rows_est, cols_est, h_r, h_c, valid,
                         min(h_r, h_c, h_initial) if valid else None)
