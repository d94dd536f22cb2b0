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
import resource
import shutil
import tempfile
import time

import pytest

import certify  # noqa: F401  (sets NUMBA_CACHE_DIR first: moving XDG_CACHE_HOME below keeps the kernels)
from numba.core import event as numba_event


class _CompileClock(numba_event.Listener):
    """Every numba compile of this process (a cache miss: kernels loaded from the numba cache do not
    fire), timed exclusive of the kernels compiled inside it, with the test that asked first.
    ``pytest --numba-compiles`` prints the table of all processes (xdist workers included): the
    tool to find where a cold run's CPU goes."""

    def __init__(self):
        self.stack: list[list] = []  # [kernel, cpu at start, wall at start, cpu of nested compiles, their wall]
        self.rows: dict[str, list] = {}  # kernel -> [cpu s, wall s, signatures, first asker]
        self.test = "collection"
        self.cpu = 0.0  # all compiles so far

    def on_start(self, event):
        fn = event.data["dispatcher"].py_func
        self.stack.append([f"{fn.__module__}.{fn.__qualname__}", time.thread_time(), time.perf_counter(), 0.0, 0.0])

    def on_end(self, event):
        kernel, cpu0, wall0, nested_cpu, nested_wall = self.stack.pop()
        cpu, wall = time.thread_time() - cpu0, time.perf_counter() - wall0
        if self.stack:
            self.stack[-1][3] += cpu
            self.stack[-1][4] += wall
        row = self.rows.setdefault(kernel, [0.0, 0.0, 0, self.test])
        row[0] += cpu - nested_cpu
        row[1] += wall - nested_wall
        row[2] += 1
        self.cpu += cpu - nested_cpu


_COMPILES = _CompileClock()
numba_event.register("numba:compile", _COMPILES)

import certify.hands  # noqa: E402, F401  (compiled once here: see below)

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


def pytest_addoption(parser):
    parser.addoption("--numba-compiles", action="store_true",
                     help="print where a run's CPU went: every numba compile (all processes, xdist workers "
                          "included; CPU and wall seconds per kernel, exclusive of nested kernels, and the "
                          "test that asked first), then the CPU of each test file and of each process")


# test file -> [process CPU s, of it compiling s, wall s, CPU s of the child processes it waited for]
_FILES: dict[str, list] = {}
_TESTS: dict[str, list] = {}  # test id -> the same four
SLOWEST_TESTS = 40  # how many tests the table of CPU outside compiles names


def _children_cpu() -> float:
    """CPU of the subprocesses (a CLI run, a process pool) this process has waited for: the
    process's own clock leaves them out."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _COMPILES.test = item.nodeid
    start = (time.process_time(), _COMPILES.cpu, time.perf_counter(), _children_cpu())
    yield
    spent = [now - then for now, then in
             zip((time.process_time(), _COMPILES.cpu, time.perf_counter(), _children_cpu()), start)]
    row = _FILES.setdefault(item.nodeid.split("::")[0], [0.0] * 4)
    for i, value in enumerate(spent):
        row[i] += value
    _TESTS[item.nodeid] = spent


def pytest_sessionfinish(session):
    if hasattr(session.config, "workeroutput"):  # an xdist worker: its tables go to the controller
        session.config.workeroutput["cpu_accounts"] = {"compiles": _COMPILES.rows, "files": _FILES,
                                                       "tests": _TESTS, "process": time.process_time()}


_WORKERS: dict[str, dict] = {}


def pytest_testnodedown(node, error):
    if "cpu_accounts" in getattr(node, "workeroutput", {}):
        _WORKERS[node.gateway.id] = node.workeroutput["cpu_accounts"]


def pytest_terminal_summary(terminalreporter, config):
    if not config.getoption("--numba-compiles") or hasattr(config, "workeroutput"):
        return
    processes = {"controller": {"compiles": _COMPILES.rows, "files": _FILES, "tests": _TESTS,
                                "process": time.process_time()},
                 **_WORKERS}
    write = terminalreporter.write_line
    rows = sorted(((name, kernel, *row) for name, acc in processes.items() for kernel, row in acc["compiles"].items()),
                  key=lambda row: -row[2])
    terminalreporter.section("numba compiles (cache misses; seconds exclusive of nested kernels)")
    write(f"{'cpu s':>7} {'wall s':>7} {'sigs':>4}  {'process':<10} kernel  <- first asked by")
    for name, kernel, cpu, wall, signatures, test in rows:
        write(f"{cpu:7.2f} {wall:7.2f} {signatures:4d}  {name:<10} {kernel}  <- {test}")
    write(f"{sum(r[2] for r in rows):7.2f} {sum(r[3] for r in rows):7.2f} {sum(r[4] for r in rows):4d}  "
          f"total of {len(rows)} kernel compiles")
    terminalreporter.section("CPU by test file (setup, call and teardown of its tests; child: its subprocesses)")
    write(f"{'cpu s':>7} {'compile':>7} {'wall s':>7} {'child s':>7}  {'process':<10} file")
    files = sorted(((name, path, *row) for name, acc in processes.items() for path, row in acc["files"].items()),
                   key=lambda row: -row[2] - row[5])
    for name, path, cpu, compiling, wall, children in files:
        write(f"{cpu:7.2f} {compiling:7.2f} {wall:7.2f} {children:7.2f}  {name:<10} {path}")
    terminalreporter.section(f"the {SLOWEST_TESTS} tests spending the most CPU outside numba compiles "
                             "(a module fixture counts in the test that asked first)")
    write(f"{'other s':>7} {'compile':>7} {'child s':>7}  {'process':<10} test  (other: own CPU outside compiles)")
    slowest = sorted(((name, test, *row) for name, acc in processes.items() for test, row in acc["tests"].items()),
                     key=lambda row: row[3] - row[2] - row[5])[:SLOWEST_TESTS]
    for name, test, cpu, compiling, _, children in slowest:
        write(f"{cpu - compiling:7.2f} {compiling:7.2f} {children:7.2f}  {name:<10} {test}")
    for name, acc in processes.items():
        tests = sum(row[0] for row in acc["files"].values())
        children = sum(row[3] for row in acc["files"].values())
        write(f"{name}: {acc['process']:.1f} s process CPU (all threads) in all, {tests:.1f} s of it in tests, "
              f"and {children:.1f} s in the subprocesses of its tests")


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
# ... and the files that run SP 800-90B's IID kernels (the permutation kernel links the exact bzip2
# counter and the Burrows-Wheeler sort: ~25 s of compiling from a cold cache). In two workers at
# once both compiled it, and a CLI test's subprocess a third time, before either had cached it.
SHARED_WORKER.update({f"tests/{name}.py": "tests/sp800-90b IID kernels (compiled once)"
                      for name in ("test_sp800_90b_iid", "test_sp800_90b_bzip2", "test_sp800_90b_bwt",
                                   "test_cli_entropy", "test_sp800_90b_nist_tool")})


# The heaviest work units, roughly their CPU seconds from a cold start (per-file process CPU,
# numba compiles included, from `pytest --numba-compiles` on a fresh XDG_CACHE_HOME, 2026-12-02 04:53,
# load 10-16; a file whose tests start subprocesses keeps the larger earlier figure, as the worker's
# CPU does not count theirs): they are handed out first (longest first), so the last unit a worker
# takes is a short one and the two workers finish together (in collection order the Mulligan group or
# Hold'em came last and one worker waited a minute for the other). A file not listed follows in
# xdist's own order; the numbers only order. A file that is gone is ignored.
HEAVY_FIRST = {"tests/test_rules_board.py": 116, "tests/mulligan (exact counts cached per process)": 100,
               "tests/test_rules_holdem_bonus.py": 86, "tests/test_rules_analysis.py": 40,
               "tests/test_fail_closed.py": 37, "tests/sp800-90b IID kernels (compiled once)": 55,
               "tests/test_board_walk.py": 22, "tests/test_board_one_play.py": 18,
               "tests/test_sp800_90b_non_iid.py": 30, "tests/test_games_kernel_agreement.py": 28,
               "tests/test_signing_fail_closed.py": 27, "tests/test_kernel_differential.py": 25,
               "tests/test_audit_columns.py": 25, "tests/test_audit.py": 21, "tests/test_rules_stud.py": 21,
               "tests/test_simulate.py": 19, "tests/test_signing.py": 18, "tests/test_audit_rules.py": 16,
               "tests/test_pytest_plugin.py": 15, "tests/test_rules_engine.py": 14,
               "tests/test_analysis_cache.py": 12, "tests/test_audit_verdict.py": 11, "tests/test_report_pdf.py": 9,
               "tests/test_hands.py": 7, "tests/test_stats_gof_rtp.py": 7}


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
