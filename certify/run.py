"""``certify run``: one spec in, a signed certification report out.

The composition of the parts, each turned into the report's plain-data sections:

1. RNG (``rng``): the SP 800-90A known-answer vectors (``fixtures/drbg_cavp.json``) on both DRBGs,
   the SP 800-90B continuous health tests on the OS entropy, and the SP 800-22 battery on the
   CTR_DRBG stream 0 of the master seed (``certify.stats.battery``).
2. Shuffle (``shuffle``): the card and shuffle battery on decks dealt by ``rng.shuffle`` from the
   same stream (``certify.stats.battery``).
3. PAR sheet (``par_sheet``): ``certify.analysis.par_sheet(spec).to_dict()`` and its ``provenance``
   (read from the PAR-sheet cache or computed: ``certify.analysis.cache``; lab always computes), and
   ``tables``: the same for every table entry of that cache the run used (a kernel's tables).
4. Simulation (``simulation``): ``certify.simulate.simulate`` + ``verify`` against that PAR sheet.
5. Procedures (``procedures``): ``certify.procedures.run_files`` on the fixtures whose ``spec:`` is
   this spec.

A part whose module is not installed is reported "not run" (the verdict is then not PASS); any
other error stops the run and no report file appears (``certify.report.write_report`` writes
only after everything was rendered and signed).
"""

from __future__ import annotations

import os
import platform
import time
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from certify.inputs import JSON_LIMITS, load_json
from certify.report.identify import PROJECT_ROOT, display_path
from certify.stats.multiple import CONFIRMATION_RULE
from certify.spec import SpecError, read_yaml
from certify.stats.result import TestResult

ALPHA = 0.01
CAVP_FIXTURE = PROJECT_ROOT / "fixtures" / "drbg_cavp.json"
PROCEDURE_FIXTURES = PROJECT_ROOT / "fixtures" / "procedures"


@dataclass(frozen=True)
class RunProfile:
    name: str
    battery: Any          # a certify.stats.battery profile (its name, or a Profile)
    rounds: int           # simulated rounds
    entropy_bytes: int    # OS entropy bytes through the health tests


PROFILES = {
    # quick: the battery's standard sizes (10 x 10^6 bits, 200,000 deals) and 10^7 rounds, a minute
    # or two on a laptop for most games; lab: 100 sequences, 10^6 deals, 10^8 rounds.
    "quick": RunProfile("quick", "standard", 10_000_000, 1 << 20),
    "lab": RunProfile("lab", "lab", 100_000_000, 1 << 24),
}
# Profiles that never read the PAR-sheet cache: a lab certification computes its sheet afresh.
RECOMPUTE_PROFILES = {"lab": "lab profile: the sheet and its tables are always computed"}


class PartMissing(Exception):
    """A part of the suite this run needs is not installed: its section is reported as not run."""


Progress = Callable[[str], None]


def _quiet(_: str) -> None:
    pass


# ----------------------------------------------------------------------------- identity


def pay_tables(spec_data: Any, path: str = "") -> dict[str, Any]:
    """Every pay-table field of a spec (keys naming ``pays`` or ``odds``, and a rules-model wager's
    ``versus_dealer`` settlement: its win / tie / non-qualifying-dealer odds), by dotted path."""
    found: dict[str, Any] = {}
    if isinstance(spec_data, dict):
        for key, value in spec_data.items():
            sub = f"{path}.{key}" if path else str(key)
            if "pays" in str(key) or "odds" in str(key) or key == "versus_dealer":
                found[sub] = value
            else:
                found.update(pay_tables(value, sub))
    elif isinstance(spec_data, list):
        for i, value in enumerate(spec_data):
            found.update(pay_tables(value, f"{path}[{i}]"))
    return found


def procedures_folder(directory: str | Path | None = None) -> Path:
    """The folder of procedure fixtures a run reads: the project's ``fixtures/procedures`` by default,
    or a studio's own for a game it brings (``certify run --procedures DIR``). A folder that is not
    there is an input error, not a run without procedures."""
    from certify.errors import InputError

    folder = PROCEDURE_FIXTURES if directory is None else Path(directory)
    if not folder.is_dir():
        raise InputError(f"--procedures {folder}: not a folder of procedure fixture files (*.yaml)")
    return folder


def procedure_fixtures(spec_name: str, directory: Path = PROCEDURE_FIXTURES) -> list[Path]:
    """The fixture files whose ``spec:`` names this spec. Every file is read within the YAML bounds
    (too large, too long a line or not UTF-8 stops the run); only those whose text holds the spec's
    name are parsed (parsing all of them was ~0.5 s CPU of a warm run, for one file)."""
    from dataclasses import replace as with_what

    from certify.inputs import YAML_LIMITS, read_text

    out = []
    for path in sorted(directory.glob("*.yaml")):
        if spec_name not in read_text(path, with_what(YAML_LIMITS, what="fixture file"), SpecError):
            continue  # cannot name this spec
        data = read_yaml(path, "fixture file")  # bounded (certify.inputs); a bad one stops the run
        if isinstance(data, dict) and str(data.get("spec", "")).removesuffix(".yaml").split("/")[-1] == spec_name:
            out.append(path)
    return out


# ----------------------------------------------------------------------------- RNG


def drbg_known_answer_tests(fixture: Path = CAVP_FIXTURE) -> list[TestResult]:
    """The CAVP DRBGVS procedure on every vector of the fixture; one result per mechanism."""
    from rng.drbg import CtrDrbg, HmacDrbg
    from rng.entropy import ReplayEntropy

    vectors = load_json(fixture)["vectors"]
    groups: dict[str, list[str]] = {}
    for vec in vectors:
        source = (ReplayEntropy(bytes.fromhex(x) for x in vec["entropy_input_pr"])
                  if vec["prediction_resistance"] else None)
        args = (bytes.fromhex(vec["entropy_input"]), bytes.fromhex(vec["nonce"]),
                bytes.fromhex(vec["personalization_string"]), vec["prediction_resistance"], source)
        if vec["mechanism"] == "HMAC_DRBG":
            drbg, label = HmacDrbg(*args), "HMAC_DRBG (SHA-256)"
        else:
            drbg = CtrDrbg(*args, derivation_function=vec["derivation_function"])
            label = f"CTR_DRBG (AES-256, {'with' if vec['derivation_function'] else 'no'} df)"
        if vec["reseed"]:
            drbg.reseed(bytes.fromhex(vec["entropy_input_reseed"]), bytes.fromhex(vec["additional_input_reseed"]))
        nbytes = vec["returned_bits_len"] // 8
        first, second = (bytes.fromhex(x) for x in vec["additional_input"])
        drbg.generate(nbytes, first)
        ok = drbg.generate(nbytes, second).hex() == vec["returned_bits"]
        groups.setdefault(label, []).append("" if ok else vec["id"])
    results = []
    for label, outcomes in groups.items():
        failed = [v for v in outcomes if v]
        results.append(TestResult(name=f"{label}: CAVP vectors", statistic=float(len(failed)), pvalue=None,
                                  alpha=0.0, passed=not failed, n=len(outcomes),
                                  looked_at=f"{len(outcomes)} NIST CAVP known-answer vectors (no reseed, reseed, "
                                            "prediction resistance): output must match bit for bit",
                                  details={"failed": failed}))
    return results


def entropy_health_tests(nbytes: int, raw_source: Callable[[int], bytes] = os.urandom) -> list[TestResult]:
    """SP 800-90B 4.4 continuous health tests on ``nbytes`` of the entropy source (the OS's)."""
    from rng.entropy import EntropyHealthError, HealthTestedEntropy

    source = HealthTestedEntropy(raw_source)
    error = ""
    try:
        for _ in range(0, nbytes, 1 << 16):
            source.get_entropy(min(1 << 16, nbytes))
    except EntropyHealthError as exc:
        error = str(exc)
    origin = "os.urandom" if raw_source is os.urandom else getattr(raw_source, "__name__", "the raw source")
    startup = source.samples_tested - nbytes  # SP 800-90B 4.3 start-up samples, tested and discarded
    count = f"{source.samples_tested:,} bytes" + (f" ({nbytes:,} + {startup:,} start-up)" if startup > 0 else "")
    looked = (f"{count} of {origin}, claimed H = {source.min_entropy} bits/byte; "
              f"repetition count cutoff {source.rct_cutoff}, adaptive proportion cutoff {source.apt_cutoff} "
              f"in {source.apt_window}")
    return [TestResult(name="SP 800-90B 4.4 continuous health tests", statistic=None, pvalue=None,
                       alpha=0.0, passed=not error, n=source.samples_tested, looked_at=looked,
                       details={"failure": error} if error else {})]


def _family(name: str, confirmation: dict[str, Any], what: str) -> dict[str, Any]:
    """The family verdict the statistics layer decided (``certify.stats.multiple.confirm``), as the
    report's family result: its p-value is the confirmed one, so the verdict reads the same."""
    return TestResult(name=name, statistic=None, pvalue=confirmation["pvalue"], alpha=confirmation["alpha"],
                      n=len(confirmation["stage1"]["members"]),
                      looked_at=f"{what}; {confirmation['summary']}",
                      details={"failing": confirmation["failing"], "stage1": confirmation["stage1"],
                               "stage2": confirmation["stage2"], "retested": confirmation["retested"],
                               "unconfirmable": confirmation["unconfirmable"],
                               "false_alarm_bound": confirmation["false_alarm_bound"]}).to_dict()


def _sp800_22_results(battery: dict[str, Any], alpha: float) -> list[dict[str, Any]]:
    """One result per SP 800-22 test. The verdict is the battery's (its member p-value); the
    p-value shown is the test's own for a single sequence, else that member p-value."""
    bits, seqs = battery["profile"]["bits"], battery["profile"]["sequences"]
    out = []
    for name, entry in battery["sp800_22"].items():
        member = entry["member_pvalue"]
        if member is None:
            out.append(TestResult.not_applicable(name, bits * seqs, alpha,
                                                 "not applicable to any sequence (the test's own precondition)"
                                                 ).to_dict())
            continue
        pvalues = [p for ps in entry["pvalues"] if ps is not None for p in ps]
        applicable = [r for r in entry["results"] if r["applicable"]]
        series = f"{len(entry['labels'])} p-value series" if len(entry["labels"]) > 1 else "one p-value"
        if seqs == 1:  # SP 800-22's own per-sequence decision: every p-value >= alpha
            first = applicable[0]
            statistic, shown = first["statistic"], first["pvalue"]
            looked = (f"{bits:,} bits of one sequence, {series}: {first.get('looked_at') or name}; "
                      f"battery p-value (SP 800-22 4.2 rules) {member:.4g}")
        else:
            statistic, shown = None, float(member)
            looked = (f"{entry['applicable_sequences']} of {seqs} sequences x {bits:,} bits, {series}; p: "
                      "Bonferroni minimum over the series of the SP 800-22 4.2 second-level p-values")
        out.append(TestResult(name=name, statistic=statistic, pvalue=shown, alpha=alpha,  # verdict: passes(p, alpha)
                              n=bits * entry["applicable_sequences"],
                              pvalues=tuple(pvalues), looked_at=looked,
                              details={"battery_pvalue": member}).to_dict())
    return out


def rng_and_shuffle_sections(seed: int, profile: RunProfile, alpha: float, jobs: int,
                             progress: Progress) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The rng and shuffle sections, and the battery's sample sizes for the methodology."""
    try:
        from certify.stats import battery as bat
    except ImportError as exc:
        raise PartMissing(f"certify.stats.battery is not available ({exc})") from exc
    progress("RNG: CAVP known-answer vectors")
    kat = [t.to_dict() for t in drbg_known_answer_tests()]
    progress("RNG: SP 800-90B health tests on the OS entropy")
    health = [t.to_dict() for t in entropy_health_tests(profile.entropy_bytes)]
    progress(f"RNG: SP 800-22 and card batteries ({getattr(profile.battery, 'name', profile.battery)} profile)")
    source = bat.drbg_source("drbg:ctr", seed)
    result = bat.run_battery(source, profile.battery, alpha=alpha, jobs=jobs,
                             progress=lambda msg: progress(f"  {msg}"))
    bit_tests = _sp800_22_results(result, alpha)
    draw_tests = [dict(entry, name=f"Scaled draws: {name}") for name, entry in (result.get("draws") or {}).items()]
    card_tests = [dict(entry, name=name) for name, entry in result["cards"].items()]
    members = len(result["family"]["members"])
    family = _family("RNG, shuffle and draw batteries (Holm-Bonferroni, confirmed on fresh data)",
                     result["confirmation"], f"one family over the {members} tests of the three batteries")
    p = result["profile"]
    rng = {
        "description": {
            "Generator": "CTR_DRBG (AES-256) of NIST SP 800-90A Rev. 1 (rng.drbg), on cryptography's AES",
            "Streams": "rng.streams: each stream's entropy input, nonce and personalisation derived from the "
                       "master seed by HKDF-SHA-256; the battery reads stream 0",
            "Production seeding": "from_os_entropy: os.urandom through the SP 800-90B continuous health tests "
                                  "(rng.entropy); a failed health test stops generation",
            "Scaling": "rng.bounded: unbiased integers in [0, n) by rejection, never modulo",
        },
        "tests": bit_tests + draw_tests, "kat": kat, "health": health,
        "family": family,
        "notes": [result["method"]],
    }
    shuffle = {
        "description": {
            "Algorithm": "Fisher-Yates (Durstenfeld) in rng.shuffle.deal_batch, positions from rng.bounded",
            "Decks": f"{p['decks']:,} deals of 52 cards; {p['small_decks']:,} deals of 4- and of 5-card decks",
        },
        "tests": card_tests,
        "family": family,  # one family over the three batteries: the shuffle's tests are members
    }
    sizes = {"SP 800-22 bits per sequence": p["bits"], "SP 800-22 sequences": p["sequences"],
             "scaled draws": p.get("draws", 0),
             "52-card deals": p["decks"], "4- and 5-card deals": p["small_decks"],
             "OS entropy bytes health-tested": profile.entropy_bytes}
    return rng, shuffle, sizes


# ----------------------------------------------------------------------------- PAR, simulation, procedures


def par_sheet_section(spec, progress: Progress, use_cache: bool = True, reason: str = "--no-cache"):
    """The sheet and its report section; the section's ``provenance`` says whether it was read
    from the PAR-sheet cache (``certify.analysis.cache``) or computed, with the entry digest."""
    try:
        from certify.analysis.cache import load_or_compute
    except ImportError as exc:
        raise PartMissing(f"certify.analysis.par_sheet is not available ({exc})") from exc
    progress("PAR sheet: exact analysis" + ("" if use_cache else f" (the cache is not read: {reason})"))
    sheet, provenance = load_or_compute(spec, use_cache=use_cache, reason=reason)
    progress(f"  {provenance.describe()}")
    return sheet, dict(sheet.to_dict(), provenance=provenance.to_dict())


def kernel_tables_section(spec, progress: Progress) -> list[dict[str, Any]]:
    """Where the table entries of the PAR-sheet cache this run used came from (a kernel's tables,
    ``certify.analysis.cache.cached_tables``: Ultimate Texas Hold'em's counts), each with its entry
    digest and whether it was read from the cache or computed; [] when the spec's code uses none."""
    from certify.analysis.cache import tables_used

    used = tables_used(spec)
    for tables in used:
        progress(f"  {tables.describe()}")
    return [tables.to_dict() for tables in used]


def simulation_section(spec_path: Path, par, rounds: int, seed: int, alpha: float, workers: int,
                       progress: Progress) -> dict[str, Any]:
    try:
        from certify import simulate as sim
    except ImportError as exc:
        raise PartMissing(f"certify.simulate is not available ({exc})") from exc
    progress(f"Simulation: {rounds:,} rounds on {workers} worker(s)")
    result = sim.simulate(spec_path, rounds, seed, workers=workers)
    verification = sim.verify(result, par, alpha, workers=workers)
    main = result.kernel.wagers[0]
    sheet = sim.par_wager(par, main.name)
    counts = dict(zip(main.events, (int(c) for c in result.counts(main.name))))
    categories = [row.event for row in sheet.rows]
    n = sum(counts.values())
    chi = next(t for t in verification.tests if t.name == f"{main.name}: outcome frequencies")
    r = verification.rtp[main.name]
    return {
        "rounds": result.rounds,
        "categories": categories,
        "observed": [counts[c] for c in categories],
        "expected": [float(row.probability) * n for row in sheet.rows],
        "chi_square": chi.to_dict(),
        "rtp": {"observed": r["observed_rtp"], "theoretical": r["theoretical_rtp"], "ci_low": r["ci_low"],
                "ci_high": r["ci_high"], "confidence": r["ci_level"],
                "passed": r["passed"]},  # the simulation's RTP test decides (certify.stats.gof.mean_return_test)
        "tests": [t.to_dict() for t in verification.tests],
        "family": _family("Simulation tests (Holm-Bonferroni, confirmed on fresh chunks)",
                          verification.confirmation.to_dict(),
                          f"the {len(verification.family.members)} statistical tests of the simulation"),
        "wager_tallied": f"{main.name} (PAR sheet wager: {sheet.name})",
        "chunks": f"{len(result.per_chunk)} chunks of {result.config.chunk_rounds:,} rounds, chunk i from "
                  "stream (master seed, i)",
        "checkpoint": result.checkpoint_summary(),
    }


def procedures_section(fixtures: list[Path], progress: Progress) -> dict[str, Any]:
    try:
        from certify.procedures import run_files
    except ImportError as exc:
        raise PartMissing(f"certify.procedures is not available ({exc})") from exc
    progress(f"Procedures: {len(fixtures)} fixture file(s)")
    results = run_files(fixtures)
    return {"fixtures": [display_path(f) for f in fixtures],
            "scenarios": [{"id": r.id, "rule": r.rule, "source": r.source, "fixture": r.file,
                           "status": "pass" if r.passed else "fail", "expected": r.expected,
                           "actual": r.actual if r.passed else {"actual": r.actual, "differences": r.differences}}
                          for r in results]}


# ----------------------------------------------------------------------------- the run


def issued_at_or_now(issued_at: datetime | None = None) -> datetime:
    """The report's time stamp: given, else ``$SOURCE_DATE_EPOCH`` (reproducible builds), else now."""
    if issued_at is not None:
        return issued_at if issued_at.tzinfo else issued_at.replace(tzinfo=timezone.utc)
    from certify.validate import source_date_epoch

    epoch = source_date_epoch()  # checked: whole seconds up to the year 9999 (InputError otherwise)
    if epoch is not None:
        return datetime.fromtimestamp(epoch, timezone.utc)
    return datetime.now(timezone.utc).replace(microsecond=0)


def preflight(spec_path: Path, profile: RunProfile, issued_at: datetime | None = None) -> None:
    """Every check that fails in seconds, before the minutes of work: the report date, the
    simulation size and the kernel's integer tables (pays the 64-bit tallies can hold) where the
    kernel is built from the spec's rules alone. A kernel built from the exact count
    (``certify.rules.kernel.built_from_count``: minutes when cold) is built, and so checked, by the
    simulation from the count the PAR sheet made, with the batteries running beside them since the
    start; its failure stops the batteries and no report is written."""
    from certify.rules.kernel import built_from_count
    from certify.simulate import engine_kernel
    from certify.spec import load_spec
    from certify.validate import check_rounds, source_date_epoch

    if issued_at is None:
        source_date_epoch()
    check_rounds(profile.rounds, f"profile {profile.name}: rounds")
    if not built_from_count(load_spec(spec_path)):
        engine_kernel(str(spec_path), None)  # memoised: the simulation plays this one


def _par_simulation_and_procedures(game, spec_path: Path, chosen: RunProfile, seed: int, workers: int,
                                   progress: Progress, use_cache: bool, part, sections: dict[str, Any],
                                   sizes: dict[str, Any], findings: list[str],
                                   procedures: Path = PROCEDURE_FIXTURES) -> None:
    """The parts after the batteries (they do not depend on them), into ``sections``."""
    no_cache_reason = RECOMPUTE_PROFILES.get(chosen.name, "" if use_cache else "--no-cache")
    par = part("PAR sheet", lambda: par_sheet_section(game, progress, not no_cache_reason, no_cache_reason))
    if par:
        sections["par_sheet"] = par[1]
        sim = part("Simulation", lambda: simulation_section(spec_path, par[0], chosen.rounds, seed, ALPHA,
                                                             workers, progress))
        if sim:
            sections["simulation"] = sim
            sizes["simulated rounds"] = sim["rounds"]
        sections["par_sheet"]["tables"] = kernel_tables_section(game, progress)
    else:
        findings.append("Simulation not run: it needs the PAR sheet.")
    fixtures = procedure_fixtures(game.name, procedures)
    if fixtures:
        sections["procedures"] = part("Procedures", lambda: procedures_section(fixtures, progress))
    else:
        findings.append(f"Procedures not run: no fixture in {display_path(procedures)} names spec {game.name!r}.")
    return fixtures


def _compile_ahead(spec_path: Path, from_count: bool = False) -> None:
    """The simulation's kernels into numba's on-disk cache (``certify.simulate.compile_ahead``), in the
    battery process before its batteries: cold, the caller's PAR sheet compiles on one core for
    minutes, and its simulation then loads these instead of compiling them. A kernel built from the
    count cannot be built there (the battery process has no count): only the river table's kernels,
    which need the rules alone (``board_sim.compile_river_table``)."""
    if from_count:
        from certify.rules.board_sim import compile_river_table
        from certify.spec import load_spec

        compile_river_table(load_spec(spec_path))
        return
    from certify import simulate as sim

    sim.compile_ahead(spec_path)


class _Concurrent:
    """One part run in a forked process beside the rest of the run: the batteries (minutes of
    numba compilation when cold, single-threaded) overlap the PAR sheet and the simulation, which
    do not depend on them. The part's value, or the exception it raised, comes back through a
    pipe; a process that dies without an answer is an error, never a silent pass."""

    def __init__(self, process, receiver):
        self.process, self.receiver = process, receiver

    @classmethod
    def start(cls, fn: Callable[[], Any], workers: int,
              ahead: Callable[[], None] | None = None) -> "_Concurrent | None":
        """Start ``fn`` in a forked process, after ``ahead`` there (see ``_child``); None where that is
        not wanted (one worker) or possible."""
        from multiprocessing import get_all_start_methods, get_context

        if workers < 2 or "fork" not in get_all_start_methods():
            return None
        context = get_context("fork")
        receiver, sender = context.Pipe(duplex=False)
        process = context.Process(target=cls._child, args=(fn, sender, ahead), daemon=True)
        process.start()
        sender.close()
        return cls(process, receiver)

    @staticmethod
    def _child(fn: Callable[[], Any], sender, ahead: Callable[[], None] | None = None) -> None:
        if ahead is not None:
            # Work done ahead for the caller, whose result is only numba's on-disk cache (the
            # simulation's kernels, compiled while the caller's PAR sheet runs): a failure here
            # costs the caller its own compile, never a result, so it is not the part's failure.
            try:
                ahead()
            except Exception:  # noqa: BLE001
                pass
        start = time.perf_counter()
        try:
            outcome = ("value", fn())
        except BaseException as exc:  # noqa: BLE001 - every failure goes back to the run
            outcome = ("error", exc)
        elapsed = round(time.perf_counter() - start, 2)
        try:
            sender.send(outcome + (elapsed,))
        except Exception as exc:  # an exception that does not pickle: its text still goes back
            sender.send(("error", RuntimeError(f"{type(outcome[1]).__name__}: {outcome[1]} ({exc})"), elapsed))
        sender.close()

    def result(self) -> tuple[Any, float]:
        """The part's value and its own time; re-raises the exception it raised."""
        try:
            kind, value, elapsed = self.receiver.recv()
        except EOFError:
            self.process.join()
            raise RuntimeError(f"the RNG battery process ended without a result (exit code "
                               f"{self.process.exitcode})") from None
        self.process.join()
        if kind == "error":
            raise value
        return value, elapsed

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.terminate()
        self.process.join()
        self.receiver.close()


def report_basename(game) -> str:
    """The report's file name without suffix: ``<game>-<spec version>``."""
    return f"{game.name}-{game.version}"


def run(spec: str | Path, profile: str = "quick", seed: int | None = None, out_dir: str | Path = "reports", *,
        signing_key=None, workers: int | None = None, issued_at: datetime | None = None,
        progress: Progress = _quiet, use_cache: bool = True, procedures: str | Path | None = None) -> dict[str, Any]:
    """Run every part for ``spec`` and write the signed report; returns paths, verdict and timings.
    ``procedures``: the folder of procedure fixtures (default: the project's ``fixtures/procedures``).

    ``use_cache=False`` (``--no-cache``) computes the PAR sheet instead of reading the cache; the lab
    profile always does, and then no cache entry is read at all (the kernel's tables neither)."""
    from contextlib import nullcontext

    from certify.analysis.cache import no_reads

    reason = RECOMPUTE_PROFILES.get(profile, "" if use_cache else "--no-cache")
    with no_reads(reason) if reason else nullcontext():
        return _run(spec, profile, seed, out_dir, signing_key=signing_key, workers=workers, issued_at=issued_at,
                    progress=progress, use_cache=use_cache, procedures=procedures)


def _run(spec: str | Path, profile: str, seed: int | None, out_dir: str | Path, *, signing_key, workers: int | None,
         issued_at: datetime | None, progress: Progress, use_cache: bool,
         procedures: str | Path | None = None) -> dict[str, Any]:
    from certify import __version__ as suite_version
    from certify.report import Product, ReportInput, paytable_identity, write_report
    from certify.report.identify import file_sha256, software_inventory
    from certify.rules.kernel import built_from_count
    from certify.spec import load_spec, resolve_spec_path
    from rng import __version__ as rng_version
    from rng.streams import seed_commitment

    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}: expected one of {', '.join(PROFILES)}")
    chosen = PROFILES[profile]
    game = load_spec(spec)
    spec_path = resolve_spec_path(spec)
    procedures_dir = procedures_folder(procedures)  # before any work, as the checks below
    preflight(spec_path, chosen, issued_at)
    if seed is None:
        seed = int.from_bytes(os.urandom(8), "big")
    workers = workers or os.cpu_count() or 1
    timings: dict[str, float] = {}
    findings: list[str] = []
    sections: dict[str, Any] = {}

    def part(name: str, fn: Callable[[], Any]) -> Any:
        start = time.perf_counter()
        try:
            return fn()
        except PartMissing as exc:
            findings.append(f"{name} not run: {exc}")
            return None
        finally:
            timings[name] = round(time.perf_counter() - start, 2)

    sizes: dict[str, Any] = {}
    batteries = "RNG and shuffle batteries"
    # started before the PAR sheet, the kernel (a count for some specs) and the simulation: they
    # run beside all of it; any error after this point stops them (finally) before a report exists
    pending = _Concurrent.start(lambda: rng_and_shuffle_sections(seed, chosen, ALPHA, workers, progress),
                                workers, lambda: _compile_ahead(spec_path, built_from_count(game)))
    try:
        if pending is None:
            got = part(batteries, lambda: rng_and_shuffle_sections(seed, chosen, ALPHA, workers, progress))
        else:
            timings[batteries] = 0.0  # the report lists the parts in their usual order
        fixtures = _par_simulation_and_procedures(game, spec_path, chosen, seed, workers, progress, use_cache,
                                                  part, sections, sizes, findings, procedures_dir)
        if pending is not None:
            before = len(findings)
            got = part(batteries, pending.result)
            if got:
                got, timings[batteries] = got
            elif len(findings) > before:
                findings.insert(0, findings.pop())  # where the sequential run states it: first
    finally:
        if pending is not None:
            pending.stop()
    if got:
        sections = {"rng": got[0], "shuffle": got[1], **sections}
        sizes = {**got[2], **sizes}
    spec_data = game.model_dump(mode="json")
    data = ReportInput(
        product=Product(game=game.title, spec=game.name, spec_version=str(game.version),
                        paytable_sha256=paytable_identity(pay_tables(spec_data)),
                        rng_module_version=f"rng {rng_version}", suite_version=f"certify {suite_version}",
                        spec_sha256=file_sha256(spec_path)),
        issued_at=issued_at_or_now(issued_at),
        methodology={
            "alpha": ALPHA, "profile": chosen.name,
            "multiple_testing": "Holm-Bonferroni over each family (the RNG, shuffle and draw batteries; the "
                                "simulation); exact checks (known answers, payouts) must pass without allowance",
            "confirmation": CONFIRMATION_RULE + " This run has two families, so a fair source and engine fail "
                            f"it with probability at most 2 x alpha^2 = {2 * ALPHA * ALPHA:g}.",
            "sample_sizes": sizes,
            "seeds": [{"purpose": "master seed: RNG battery stream 0, simulation chunk streams", "value": seed,
                       "commitment": seed_commitment(seed)}],
            "pay_table_identity": "SHA-256 of the canonical JSON of every pay-table field of the spec "
                                  "(keys naming 'pays' or 'odds')",
            "platform": f"Python {platform.python_version()} on {platform.system()} {platform.machine()}",
            "workers": workers,
        },
        software=software_inventory(spec_path=spec_path, fixture_paths=fixtures + [CAVP_FIXTURE]),
        findings=findings,
        **sections,
    )
    progress("Report: rendering and signing")
    start = time.perf_counter()
    paths = write_report(data, out_dir, report_basename(game), signing_key)
    timings["Report"] = round(time.perf_counter() - start, 2)
    verdict = load_json(paths["json"], replace(JSON_LIMITS, what="report JSON", max_bytes=256 << 20))["verdict"]
    return {"paths": paths, "verdict": verdict, "timings": timings, "seed": seed}
