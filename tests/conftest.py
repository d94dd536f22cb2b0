"""The suite gives the same verdicts whoever runs it, from whatever folder and however.

The code itself must not depend on the checkout's path, HOME, the time zone, the locale or a
terminal (CI proves it: ``.ci/run`` runs the suite from a long path with a space and non-ASCII
characters, another HOME, TZ and locale, and no terminal). What this file keeps out of the tests
is the developer's own state, which a test must neither read nor change:

- the signing keys: every test starts with an empty ``XDG_CONFIG_HOME`` (session fixtures and
  subprocesses get one too), so no test signs with the developer's key or asks for its
  passphrase, and no test leaves a DEVELOPMENT key in their ``~/.config/certify``;
- the developer's settings of the suite (``DEVELOPER_SETTINGS``);
- the variables by which rich picks colours and width (``TERMINAL_SETTINGS``): output to a pipe
  is plain text whatever terminal started pytest.

The numba cache (``XDG_CACHE_HOME``, ``NUMBA_CACHE_DIR``) is left alone: it holds only compiled
code, keyed to the source (``certify._key_numba_cache_to_the_source``); each test gets its own
empty PAR-sheet cache instead (below).

The golden sheets (``fixtures/par_sheets/<spec>.json``, read by ``certify.analysis.cache.read_golden``
with every check of a cache entry but the code fingerprint) stand in for an exact sheet wherever a
test only needs one as input (Hold'em takes minutes, Mulligan over a minute). The slow tier
(``test_analysis_cache.py::test_golden_sheet_is_the_codes_own_output``) recomputes each one and
requires the same bytes.
"""

import os
import shutil
import tempfile

import pytest

import certify  # noqa: F401  (sets NUMBA_CACHE_DIR first: moving XDG_CACHE_HOME below keeps the kernels)
import certify.hands  # noqa: F401  (compiled once here: see below)

# certify.hands builds its tables with numba kernels at import: from a cold numba cache that is
# ~15 s of compilation. Imported here, it is compiled once, by the controller, before the xdist
# workers start; each worker then loads the cached kernels (~1.5 s) instead of both compiling
# them at the same moment during collection.

DEVELOPER_SETTINGS = ("CERTIFY_KEY_PASSPHRASE", "SOURCE_DATE_EPOCH", "CERTIFY_CHECKPOINT_EVERY_S")
TERMINAL_SETTINGS = ("FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "COLUMNS", "LINES",
                     "JUPYTER_COLUMNS", "JUPYTER_LINES")

_session_config = tempfile.mkdtemp(prefix="certify-test-config-")


def pytest_configure(config):
    os.environ["XDG_CONFIG_HOME"] = _session_config
    for name in DEVELOPER_SETTINGS + TERMINAL_SETTINGS:
        os.environ.pop(name, None)


def pytest_unconfigure(config):
    shutil.rmtree(_session_config, ignore_errors=True)


@pytest.fixture(autouse=True)
def _empty_key_folder(tmp_path_factory, monkeypatch):
    """Each test its own empty config folder: no key made by one test is seen by the next."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))


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


@pytest.fixture
def golden_in_par_cache(golden_sheet):
    """``golden_in_par_cache(spec)``: the golden sheet of ``spec`` (a shipped spec or a byte-identical
    copy) stored in this test's own PAR cache as the entry this code writes, for a test whose command
    needs the exact sheet only as input: the command reads it through the cache's real checks
    instead of computing it (the golden sheets are the code's own output, checked in the slow
    tier)."""
    from certify.analysis import cache

    def put(spec):
        _, provenance = cache.load_or_compute(spec, compute=lambda s: golden_sheet(s.name))
        assert provenance.written, provenance
        return provenance

    return put


# Files whose tests share exact counts that take minutes and that the library caches per process
# (the Mulligan's stand counts by dealer threshold and its dynamic programme below the spec's
# threshold): under `--dist loadfile` (pyproject) they run in one worker, so each count is made
# once, not once per worker.
SHARED_WORKER = {f"tests/{name}.py": "tests/mulligan (exact counts cached per process)"
                 for name in ("test_analysis_mulligan", "test_mulligan_dp", "test_mulligan_exact")}


# The heaviest work units, roughly their CPU seconds from a cold start (per-file process CPU time,
# numba compiles included, measured on 2026-12-02): they are handed out first (longest
# first), so the last unit a worker takes is a short one and the two workers finish together (in
# collection order the Mulligan group or Hold'em came last and one worker waited a minute for the
# other). A file not listed follows in xdist's own order; the numbers only order. A file that is
# gone is ignored.
HEAVY_FIRST = {"tests/mulligan (exact counts cached per process)": 95, "tests/test_rules_holdem_bonus.py": 75,
               "tests/test_rules_board.py": 60, "tests/test_rules_analysis.py": 45, "tests/test_fail_closed.py": 38,
               "tests/test_kernel_differential.py": 25, "tests/test_signing_fail_closed.py": 21,
               "tests/test_rules_stud.py": 20, "tests/test_simulate.py": 19, "tests/test_audit.py": 17,
               "tests/test_pytest_plugin.py": 15, "tests/test_hands.py": 8, "tests/test_stats_gof_rtp.py": 7}


def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SharedFileScheduling(LoadFileScheduling):
        _ordered = False

        def _split_scope(self, nodeid):
            scope = super()._split_scope(nodeid)
            return SHARED_WORKER.get(scope, scope)

        def _assign_work_unit(self, node):
            if not self._ordered:  # the queue is complete at the first assignment
                units = sorted(self.workqueue.items(), key=lambda unit: -HEAVY_FIRST.get(unit[0], 0))
                self.workqueue.clear()
                self.workqueue.update(units)
                self._ordered = True
            super()._assign_work_unit(node)

    return SharedFileScheduling(config, log)
