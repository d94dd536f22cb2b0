"""Sections 2.14 and 2.15: RandomExcursions and RandomExcursionsVariant (cycles of the walk)."""

from __future__ import annotations

import math

import numpy as np

from ._common import as_bits, erfc, igamc, not_applicable, result, shared
from ._kernels import walk_visits

EXCURSION_STATES = (-4, -3, -2, -1, 1, 2, 3, 4)
VARIANT_STATES = tuple(x for x in range(-9, 10) if x != 0)


def _too_few_cycles(name: str, n: int, alpha: float, J: int, min_cycles) -> object | None:
    limit = max(500, 0.005 * math.sqrt(n)) if min_cycles is None else min_cycles
    if J < max(limit, 1):
        return not_applicable(name, n, alpha, f"J = {J} cycles < {limit:g} required", J=J)
    return None


def excursion_probabilities(x: int) -> np.ndarray:
    """pi_k(x), k = 0..4 and >= 5 (section 3.14)."""
    a = 1 / (2 * abs(x))
    pi = [1 - a] + [a * a * (1 - a) ** (k - 1) for k in range(1, 5)] + [a * (1 - a) ** 4]
    return np.array(pi)


def random_excursions(bits, alpha: float = 0.01, *, min_cycles: int | None = None):
    """2.14 Random excursions: 8 p-values, states -4..-1, 1..4. Not applicable when the walk has
    fewer than max(500, 0.005 sqrt(n)) cycles (``min_cycles`` overrides, for the 2.14.4 example).

    Section 2.14.8 prints, for x = +1..+4, P = 0.778616, 0.365752, 0.790853, 0.792378 whose
    chi-squares its own table does not reproduce; Appendix B prints 0.786868 for x = +1 on the
    same input, which is what we compute (with 0.440912, 0.797854, 0.778186 for +2..+4).
    The negative states match 2.14.8 to every printed digit.
    """
    x = as_bits(bits)
    n = x.size
    J, visits = shared(x, "walk_visits", lambda: walk_visits(x))[:2]
    na = _too_few_cycles("RandomExcursions", n, alpha, J, min_cycles)
    if na is not None:
        return na
    ps, chi2s, table = [], [], []
    for i, state in enumerate(EXCURSION_STATES):
        v = visits[i]
        pi = excursion_probabilities(state)
        chi2 = float(np.sum((v - J * pi) ** 2 / (J * pi)))
        chi2s.append(chi2)
        ps.append(igamc(2.5, chi2 / 2))
        table.append(v.tolist())
    return result("RandomExcursions", n, alpha, ps, None, 5, f"visits to states -4..4 in {J} cycles of the walk",
                  labels=[f"x={x:+d}" for x in EXCURSION_STATES], statistics=chi2s, J=J, v=table)


def random_excursions_variant(bits, alpha: float = 0.01, *, min_cycles: int | None = None):
    """2.15 Random excursions variant: 18 p-values, states -9..-1, 1..9 (same J precondition)."""
    x = as_bits(bits)
    n = x.size
    J, _, xi_all = shared(x, "walk_visits", lambda: walk_visits(x))[:3]
    na = _too_few_cycles("RandomExcursionsVariant", n, alpha, J, min_cycles)
    if na is not None:
        return na
    ps, xis = [], []
    for state in VARIANT_STATES:
        xi = int(xi_all[state + 9])
        xis.append(xi)
        ps.append(erfc(abs(xi - J) / math.sqrt(2 * J * (4 * abs(state) - 2))))
    return result("RandomExcursionsVariant", n, alpha, ps, None, None,
                  f"total visits to states -9..9 over {J} cycles", labels=[f"x={x:+d}" for x in VARIANT_STATES],
                  statistics=xis, J=J)
