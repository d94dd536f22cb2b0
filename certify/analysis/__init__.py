"""Exact game math: the PAR sheet of every game spec.

``par_sheet(spec) -> ParSheet`` (see ``certify.analysis.par``): every spec is a rules-model spec,
whose sheet ``certify.rules.analysis.par_sheet`` computes (it picks the counting programme by the
shape of the rules).
"""

from __future__ import annotations

from typing import Any

from certify.analysis.par import ParError, ParSheet, ReturnRow, WagerSheet


def par_sheet(spec: Any) -> ParSheet:
    """The PAR sheet of a game spec (a ``RulesSpec`` or anything ``load_spec`` accepts)."""
    if isinstance(spec, str) or hasattr(spec, "__fspath__"):
        from certify.spec import load_spec

        spec = load_spec(spec)
    # A sheet is a pure function of the spec's rules and takes minutes for some games: compute
    # it once per process (``certify run`` and the test suite ask for the same sheet repeatedly).
    key = spec.model_dump_json() if hasattr(spec, "model_dump_json") else None
    if key is not None and key in _SHEETS:
        return _SHEETS[key]
    from certify.rules.analysis import par_sheet as rules_par_sheet  # numba kernels compile on use

    sheet = rules_par_sheet(spec)
    if key is not None:
        _SHEETS[key] = sheet
    return sheet


_SHEETS: dict[str, ParSheet] = {}


__all__ = ["par_sheet", "ParSheet", "WagerSheet", "ReturnRow", "ParError"]
