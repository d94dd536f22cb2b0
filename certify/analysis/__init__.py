"""Exact game math: the PAR sheet of every game spec.

``par_sheet(spec)`` dispatches on ``spec.family`` to the module that owns that family's math;
each such module exports ``par_sheet(spec) -> ParSheet`` (see ``certify.analysis.par``).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from certify.analysis.par import ParError, ParSheet, ReturnRow, WagerSheet

# family -> module exporting par_sheet(spec). Imported on demand (numba kernels compile on use).
FAMILY_MODULES = {
    "mulligan": "certify.analysis.mulligan",
    "rules": "certify.rules.analysis",  # rules-model specs (certify.rules.model): no family code
}


class UnknownFamilyError(ParError):
    """The spec names a game family no analysis module owns."""


def par_sheet(spec: Any) -> ParSheet:
    """The PAR sheet of a game spec (a ``GameSpec`` or anything ``load_spec`` accepts)."""
    if isinstance(spec, str) or hasattr(spec, "__fspath__"):
        from certify.spec import load_spec

        spec = load_spec(spec)
    family = str(getattr(spec, "family", ""))
    family = getattr(getattr(spec, "family", None), "value", family)
    module_name = FAMILY_MODULES.get(family)
    if module_name is None:
        raise UnknownFamilyError(f"no exact analysis for game family {family!r} "
                                 f"(known: {', '.join(sorted(FAMILY_MODULES))})")
    # A sheet is a pure function of the spec's rules and takes minutes for some games: compute
    # it once per process (``certify run`` and the test suite ask for the same sheet repeatedly).
    key = spec.model_dump_json() if hasattr(spec, "model_dump_json") else None
    if key is not None and key in _SHEETS:
        return _SHEETS[key]
    sheet = import_module(module_name).par_sheet(spec)
    if key is not None:
        _SHEETS[key] = sheet
    return sheet


_SHEETS: dict[str, ParSheet] = {}


__all__ = ["par_sheet", "ParSheet", "WagerSheet", "ReturnRow", "ParError", "FAMILY_MODULES"]
