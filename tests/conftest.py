"""Shared test set-up: an empty PAR-sheet cache for every test, and the golden exact sheets.

The golden sheets (``fixtures/par_sheets/<spec>.json``, read by ``certify.analysis.cache.read_golden``
with every check of a cache entry but the code fingerprint) stand in for an exact sheet wherever a
test only needs one as input (Hold'em takes minutes, Mulligan over a minute). The slow tier
(``test_analysis_cache.py::test_golden_sheet_is_the_codes_own_output``) recomputes each one and
requires the same bytes.
"""

from __future__ import annotations

import pytest

import certify  # noqa: F401  (sets NUMBA_CACHE_DIR first: moving XDG_CACHE_HOME below keeps the kernels)

_GOLDEN: dict[str, object] = {}


@pytest.fixture(autouse=True)
def _own_par_sheet_cache(tmp_path_factory, monkeypatch):
    """No test reads a sheet another test (or the developer) left in the cache: a sheet a test
    replaced by a toy must never reach a test that asks for the real one."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))


@pytest.fixture(scope="session")
def golden_sheet():
    """``golden_sheet(name)``: the checked golden ParSheet of a spec in specs/. A golden file that
    is stale or damaged fails the test; one that is missing is computed (as before the goldens
    existed, minutes for Hold'em) with a warning naming the command that writes it."""
    import warnings

    from certify.analysis import par_sheet
    from certify.analysis.cache import golden_path, read_golden
    from certify.spec import load_spec

    def get(name: str):
        if name not in _GOLDEN:
            spec = load_spec(name)
            if golden_path(name).exists():
                _GOLDEN[name] = read_golden(spec)
            else:
                warnings.warn(f"no golden sheet {golden_path(name)}: computed; write it with "
                              f"python -m certify.analysis.cache --golden {name}")
                _GOLDEN[name] = par_sheet(spec)
        return _GOLDEN[name]

    return get
