"""Bulk play: the certified DRBG, the batched Fisher-Yates deal and the compiled game kernel,
for millions of rounds, tallied into the PAR sheet's outcome events.

Reproducible at any scale: the rounds are cut into fixed-size chunks and chunk ``i`` is dealt
from the sub-stream ``rng.streams.stream(seed, i)``, so the tallies are the same on one process,
on many, or on a Dask cluster. Tallies are integer counts, summed, so order does not matter.

An interrupted run keeps its finished chunks in a checkpoint (written whole to a temporary file,
fsynced, then renamed over the old one, so a kill at any moment leaves either the old or the new
checkpoint, never a torn one); ``resume=True`` plays only the chunks that are missing.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import nullcontext
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from multiprocessing import get_all_start_methods, get_context
from pathlib import Path

import numpy as np

from certify.atomic import atomic_write
from certify.errors import InputError
from certify import checkpoint as checkpoints
from certify.games.kernels import Kernel, kernel_for
from certify.spec import load_spec, parse_spec, read_yaml, resolve_spec_path
from certify.validate import MAX_CHUNK_ROUNDS, check_number, check_rounds, env_number

CHUNK_ROUNDS = 1 << 17  # part of the reproducibility contract: chunk i always holds these rounds
CHECKPOINT_VERSION = checkpoints.VERSION
CHECKPOINT_EVERY_S = 2.0

# Deliberate faults, the negative controls of the verification. Each is a change a real engine
# could ship with: a misread rule (applied to the spec the engine plays, while the PAR sheet keeps
# the true spec) or a broken deal.
# A spec fault edits the rule it names wherever the spec states it and says whether the spec has
# that rule at all.
SPEC_FAULTS: dict[str, tuple[str, Callable[[dict], bool]]] = {}
DEAL_FAULTS = ("naive-shuffle", "modulo-deal")


def _spec_fault(name: str, needs: str):
    def register(fn):
        SPEC_FAULTS[name] = (needs, fn)
        return fn
    return register


@_spec_fault("dealer-qualifies-ace-queen", "a dealer qualifier")
def _qualify_aq(d: dict) -> bool:
    dealer = d.get("dealer")
    if not isinstance(dealer, dict) or dealer.get("qualifies") is None:
        return False
    dealer["qualifies"] = {"category": "high_card", "ranks": ["A", "Q"]}
    return True


@_spec_fault("flush-pays-4", "a Bet paid by a table against the dealer, with a flush line")
def _flush_pays_4(d: dict) -> bool:
    tables = []
    for wager in (d.get("wagers") or {}).values():  # the rules model: a Bet's win_pays
        versus = ((wager or {}).get("settle") or {}).get("versus_dealer") if isinstance(wager, dict) else None
        if isinstance(versus, dict):
            tables.append(versus.get("win_pays"))
    paid = [t for t in tables if isinstance(t, dict) and "flush" in t]
    for table in paid:
        table["flush"] = 4
    return bool(paid)


# Engine faults that misread a rule inside the engine: the kernel's own parameters are altered.
KERNEL_FAULTS: dict[str, Callable[[Kernel], None]] = {}


def _kernel_fault(name: str):
    def register(fn):
        KERNEL_FAULTS[name] = fn
        return fn
    return register


@_kernel_fault("ante-pays-on-pair")
def _ante_on_pair(kernel: Kernel) -> None:
    # the engine compares the winning hand with a pair, not a straight, before paying the Ante
    # (the bulk kernel of a game with a wager on each street: certify.rules.board_streets)
    if "strong" not in kernel.params:
        raise SimulationError("fault 'ante-pays-on-pair' applies to games whose Ante pays only from a category up "
                              "with a wager on each street (Texas Hold'em Bonus)")
    kernel.params["strong"] = 1


@_kernel_fault("bonus-kept-after-mulligan")
def _bonus_kept(kernel: Kernel) -> None:
    # the engine forgets to take the Bonus down on a mulligan and settles it on the new hand
    if not kernel.params.get("bonus_lost_on_mulligan"):
        raise SimulationError("fault 'bonus-kept-after-mulligan' applies to games whose side wager is paid on "
                              "the first hand and lost when the hand is replaced; this game has none")
    kernel.params["bonus_lost_on_mulligan"] = False
    kernel.params["bonus_on_final_hand"] = True


class SimulationError(InputError, RuntimeError):
    """A simulation cannot run as asked (bad resume, unknown fault, mismatched checkpoint)."""


# ------------------------------------------------------------------------------ one chunk
@dataclass(frozen=True)
class RunConfig:
    """Everything that fixes a run's tallies (the checkpoint refuses to mix runs)."""

    spec_path: str
    spec_sha256: str
    rounds: int
    seed: int
    chunk_rounds: int = CHUNK_ROUNDS
    fault: str | None = None
    first_chunk: int = 0  # > 0: a confirmation run on the fresh sub-streams after another run's chunks

    @property
    def chunks(self) -> list[tuple[int, int]]:
        full, rest = divmod(self.rounds, self.chunk_rounds)
        sizes = [self.chunk_rounds] * full + ([rest] if rest else [])
        return list(enumerate(sizes, start=self.first_chunk))

    def identity(self) -> dict:
        identity = {"spec_sha256": self.spec_sha256, "rounds": self.rounds, "seed": self.seed,
                    "chunk_rounds": self.chunk_rounds, "fault": self.fault,
                    "checkpoint_version": CHECKPOINT_VERSION}
        if self.first_chunk:
            identity["first_chunk"] = self.first_chunk
        return identity


def file_sha256(path: str | Path) -> str:
    """SHA-256 of a spec file, read within the spec bounds (certify.inputs.YAML_LIMITS)."""
    from certify.inputs import YAML_LIMITS, read_input
    from certify.spec import SpecError

    return hashlib.sha256(read_input(path, YAML_LIMITS, SpecError)).hexdigest()


@lru_cache(maxsize=16)
def engine_kernel(spec_path: str, fault: str | None) -> Kernel:
    """The kernel a run plays: the spec's, or the spec with a seeded fault applied."""
    spec = load_spec(spec_path)
    if fault in SPEC_FAULTS:
        needs, mutate = SPEC_FAULTS[fault]
        path = Path(spec_path)
        data = read_yaml(path)  # the spec as written, so the fault is a one-field edit of it
        if not mutate(data):
            raise SimulationError(f"fault {fault!r} applies to games with {needs}; {spec.name} has none")
        spec = parse_spec(data, path)
    elif fault is not None and fault not in DEAL_FAULTS and fault not in KERNEL_FAULTS:
        raise SimulationError(f"unknown fault {fault!r}; known: {', '.join(all_faults())}")
    kernel = kernel_for(spec)
    if fault in KERNEL_FAULTS:
        KERNEL_FAULTS[fault](kernel)  # each fault refuses a game without the rule it alters
    return kernel


def all_faults() -> list[str]:
    return sorted(SPEC_FAULTS) + sorted(KERNEL_FAULTS) + list(DEAL_FAULTS)


def deal_chunk(seed: int, index: int, n: int, k: int, fault: str | None = None) -> np.ndarray:
    """The decks of chunk ``index``: the first ``k`` cards of ``n`` shuffled decks, from the
    chunk's own DRBG sub-stream (or, for a deal fault, a known-bad dealer fed by the same stream)."""
    from rng import shuffle, streams

    source = streams.stream(seed, index)
    if fault in DEAL_FAULTS:
        from rng import sources

        bad = {"naive-shuffle": sources.naive_shuffle_deal, "modulo-deal": sources.modulo_biased_deal}[fault]
        return bad(source, n, k)
    return shuffle.deal_batch(source, n, k)


def run_chunk(config: RunConfig, index: int, n: int) -> dict[str, np.ndarray]:
    """Play one chunk: deal, play, tally. A pure function of (config, index)."""
    kernel = engine_kernel(config.spec_path, config.fault)
    decks = deal_chunk(config.seed, index, n, kernel.cards_per_round, config.fault)
    tally = kernel.play(decks)
    positions = np.zeros((kernel.dealt_positions, 52), dtype=np.int64)
    for pos in range(kernel.dealt_positions):
        positions[pos] = np.bincount(decks[:, pos], minlength=52)
    tally["positions"] = positions
    return tally


def compile_ahead(spec_path: str | Path, rounds: int = 64) -> None:
    """Load or compile, into numba's on-disk cache, the kernels a simulation of this spec and its
    verification call: a few rounds dealt and played through ``run_chunk`` (the simulation's own
    code path, so the same signatures), and the dealt-category counts' kernel. For a process beside
    the PAR sheet (``certify run``): the simulation then loads them instead of compiling them.
    Nothing is returned and nothing but numba's cache is written."""
    path = resolve_spec_path(spec_path)
    kernel = engine_kernel(str(path), None)
    run_chunk(RunConfig(str(path), file_sha256(path), rounds, 0), 0, rounds)
    if not kernel.dealt_exact:  # verify's exact dealt categories (its ``dealt hand categories`` test)
        from certify import hands

        if kernel.dealt_kind == "7":  # compiled, not run: the 133,784,560 hands are the verification's
            hands._seven_card_category_counts(np.zeros(0, np.int64))
        else:
            from certify.analysis.frequencies import five_card_category_counts

            five_card_category_counts()


# ------------------------------------------------------------------------------ executors
def _local_results(config: RunConfig, todo: list[tuple[int, int]], workers: int) -> Iterator[tuple[int, dict]]:
    if workers <= 1:
        for index, n in todo:
            yield index, run_chunk(config, index, n)
        return
    # fork where there is one: workers start at once and a caller's script needs no __main__
    # guard. Safe here: a worker derives its own DRBG from (seed, chunk) and never touches a
    # DRBG of the parent (a forked DRBG refuses to generate anyway: rng.drbg's fork check).
    method = "fork" if "fork" in get_all_start_methods() else "spawn"
    if method == "fork" and todo:  # compile (or load) the kernels once, here: the workers inherit them
        run_chunk(config, todo[0][0], min(todo[0][1], 64))
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context(method)) as pool:
        pending = {}
        queue = list(todo)
        try:
            while queue or pending:
                while queue and len(pending) < 2 * workers:
                    index, n = queue.pop(0)
                    pending[pool.submit(run_chunk, config, index, n)] = index
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    yield pending.pop(fut), fut.result()
        finally:
            for fut in pending:
                fut.cancel()


def _dask_results(config: RunConfig, todo: list[tuple[int, int]], scheduler) -> Iterator[tuple[int, dict]]:
    try:
        from distributed import Client, as_completed
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise SimulationError("--scheduler needs dask.distributed: pip install 'table-game-certify[dist]'") from exc
    client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
    try:
        futures = [client.submit(run_chunk, config, index, n, key=f"chunk-{config.seed}-{index}-{os.urandom(4).hex()}",
                                 pure=False) for index, n in todo]
        index_of = {f.key: i for f, (i, _) in zip(futures, todo)}
        for fut in as_completed(futures):
            yield index_of[fut.key], fut.result()
    finally:
        if not isinstance(scheduler, Client):
            client.close()


# ------------------------------------------------------------------------------ checkpoint
# The file format, its digests, the re-play sample and the lock: certify.checkpoint.
def save_checkpoint(path: Path, config: RunConfig, chunks: dict[int, dict]) -> None:
    checkpoints.save(path, config.identity(), chunks)


def load_checkpoint(path: Path, config: RunConfig, kernel: Kernel | None = None) -> dict[int, dict]:
    """The verified chunks of ``path`` (shape, digests, chain; ``certify.checkpoints.load``)."""
    kernel = kernel or engine_kernel(config.spec_path, config.fault)
    return checkpoints.load(path, config.identity(), dict(config.chunks), kernel)


# ------------------------------------------------------------------------------ the run
@dataclass
class SimulationResult:
    """The summed tallies of a run, and each chunk's own (for batch-level uniformity)."""

    config: RunConfig
    kernel: Kernel
    totals: dict[str, np.ndarray]
    per_chunk: dict[int, dict[str, np.ndarray]] = field(repr=False)
    seconds: float = 0.0  # time of this call: the chunks played now, not those resumed
    resumed_chunks: int = 0  # chunks taken from the checkpoint (digests and chain verified)
    rounds_played_now: int = 0
    replayed_chunks: int = 0  # of the resumed chunks, played again and found identical

    @property
    def detection_probability(self) -> float | None:
        """P(one forged checkpointed chunk is among those re-played); None: nothing resumed."""
        return checkpoints.detection_probability(self.resumed_chunks, self.replayed_chunks)

    def checkpoint_summary(self) -> str:
        """One sentence for the console, the JSON and the report: what came from a checkpoint."""
        chunks = len(self.per_chunk)
        if not self.resumed_chunks:
            return f"all {chunks} chunks played in this run (none from a checkpoint)"
        return (f"{self.resumed_chunks} of {chunks} chunks from a checkpoint (digests verified), "
                f"{self.replayed_chunks} of them played again and identical: a forged chunk is caught with "
                f"probability {self.detection_probability:.2f} or more")

    @property
    def rounds(self) -> int:
        return int(self.totals["dealt"].sum())

    def counts(self, wager: str = "main") -> np.ndarray:
        return self.totals[f"{wager}.counts"]

    def money(self, wager: str = "main") -> np.ndarray:
        return self.totals[f"{wager}.money"]


def _sum(tallies: Iterable[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    total: dict[str, np.ndarray] = {}
    for t in tallies:
        for k, v in t.items():
            total[k] = total[k] + v if k in total else v.copy()
    return total


def simulate(spec: str | Path, rounds: int, seed: int, *, workers: int = 1, scheduler=None,
             checkpoint: str | Path | None = None, resume: bool = False, fault: str | None = None,
             chunk_rounds: int = CHUNK_ROUNDS, progress: Callable[[int, int], None] | None = None,
             first_chunk: int = 0, replay_fraction: float = checkpoints.REPLAY_FRACTION) -> SimulationResult:
    """Play ``rounds`` rounds of ``spec`` from master seed ``seed`` and tally them.

    ``workers`` local processes, or ``scheduler`` (a Dask scheduler address or Client). With a
    ``checkpoint`` path, finished chunks are saved as they come in (the file is locked for the
    run); ``resume`` loads them first, verified (``certify.checkpoint``): shape, digests, chain,
    and ``replay_fraction`` of them played again (refused on any difference).
    ``progress(rounds_done, rounds_total)`` is called as chunks finish. ``first_chunk`` shifts the
    chunk indices (and so the DRBG sub-streams): the confirmation of a failed verification plays
    fresh chunks after the original run's.
    """
    check_rounds(rounds)
    check_number(chunk_rounds, "chunk_rounds", low=1, high=MAX_CHUNK_ROUNDS, integer=True)
    path = resolve_spec_path(spec)
    kernel = engine_kernel(str(path), fault)  # reads the spec within bounds before it is hashed
    config = RunConfig(str(path), file_sha256(path), int(rounds), int(seed), int(chunk_rounds), fault,
                       int(first_chunk))
    ckpt = Path(checkpoint) if checkpoint else None
    if resume and not ckpt:
        raise SimulationError("resume needs a checkpoint path")
    with checkpoints.locked(ckpt) if ckpt else nullcontext():  # one runner per checkpoint
        return _play(config, kernel, ckpt, resume, workers, scheduler, progress, replay_fraction)


def _play(config: RunConfig, kernel: Kernel, ckpt: Path | None, resume: bool, workers: int, scheduler,
          progress, replay_fraction: float) -> SimulationResult:
    done: dict[int, dict] = load_checkpoint(ckpt, config, kernel) if resume else {}
    resumed = len(done)
    replay = checkpoints.replay_sample(done, replay_fraction) if done else []
    sizes = dict(config.chunks)
    todo = [(i, sizes[i]) for i in replay] + [(i, n) for i, n in config.chunks if i not in done]
    finished = resumed_rounds = sum(sizes[i] for i in done)
    save_every = env_number("CERTIFY_CHECKPOINT_EVERY_S", integer=False, default=CHECKPOINT_EVERY_S, low=0, high=86400)
    start = time.perf_counter()
    last_save = start
    if progress:
        progress(finished, config.rounds)
    results = _dask_results(config, todo, scheduler) if scheduler is not None else _local_results(config, todo, workers)
    forged = False
    try:
        for index, tally in results:
            if index in done:  # a re-played checkpointed chunk: it must be the same to the last count
                checkpoints.check_replayed(index, done[index], tally, ckpt)
                continue
            done[index] = tally
            finished += sizes[index]
            if progress:
                progress(finished, config.rounds)
            if ckpt and time.perf_counter() - last_save >= save_every:
                save_checkpoint(ckpt, config, done)
                last_save = time.perf_counter()
    except checkpoints.CheckpointForged:
        forged = True
        raise
    finally:
        if ckpt and len(done) > resumed and not forged:  # never build on a refused checkpoint
            save_checkpoint(ckpt, config, done)
    return SimulationResult(config, kernel, _sum(done[i] for i in sorted(done)), done,
                            time.perf_counter() - start, resumed, finished - resumed_rounds, len(replay))


# ------------------------------------------------------------------------------ verification
@dataclass
class Verification:
    """The verdicts of a simulation against the PAR sheet, as the statistics layer decided them:
    each test's own (``TestResult``), the family's under the confirmatory rule
    (``certify.stats.multiple.confirm``), and the exact checks, which must pass outright."""

    tests: list  # TestResult
    family: object  # certify.stats.multiple.FamilyVerdict over the statistical tests (stage 1)
    rtp: dict  # per wager: observed and theoretical RTP, the CI of the RTP test
    confirmation: object = None  # certify.stats.multiple.ConfirmedVerdict (None: stage 1 alone)

    @property
    def exact_checks_pass(self) -> bool:
        return all(t.passed for t in self.tests if t.applicable and t.pvalue is None)

    @property
    def passed(self) -> bool:
        family = self.confirmation if self.confirmation is not None else self.family
        return family.passed and self.exact_checks_pass

    def to_dict(self) -> dict:
        return {"passed": self.passed, "tests": [t.to_dict() for t in self.tests],
                "family": self.family.to_dict(), "rtp": self.rtp,
                "confirmation": None if self.confirmation is None else self.confirmation.to_dict()}


def par_wager(par, wager: str):
    """The PAR sheet wager a kernel wager is tallied against: the main game as the spec's
    strategy plays it when the sheet has that table, else the sheet's main game."""
    names = [w.name for w in par.wagers]
    if wager == "main":
        for name in ("main game (spec strategy)", "main game"):
            if name in names:
                return par.wager(name)
        return par.main
    for name in names:
        if name.lower() == wager:
            return par.wager(name)
    raise SimulationError(f"the PAR sheet of {par.spec} has no wager {wager!r} (it has {names})")


def _aligned(result: SimulationResult, wager, sheet, counts: np.ndarray) -> tuple[np.ndarray, list]:
    """Kernel event counts in the PAR return table's row order; a missing event is a defect."""
    kernel_events = wager.events
    par_events = [row.event for row in sheet.rows]
    if sorted(kernel_events) != sorted(par_events):
        raise SimulationError(f"{result.config.spec_path}: wager {wager.name!r}: the kernel's events "
                              f"{sorted(set(kernel_events) ^ set(par_events))} do not match the PAR sheet's")
    return np.array([counts[kernel_events.index(e)] for e in par_events], dtype=np.int64), list(sheet.rows)


def _payout_conformance(name: str, wager, rows, counts, money, alpha: float):
    from certify.stats.result import TestResult

    mismatches = []
    by_event = {row.event: row for row in rows}
    for i, event in enumerate(wager.events):
        if counts[i] == 0:
            continue
        paid = Fraction(int(money[i]), wager.scale * int(counts[i]))
        if paid != Fraction(by_event[event].pays):
            mismatches.append({"event": event, "paid": str(paid), "pays": str(Fraction(by_event[event].pays))})
    return TestResult(name=f"{name}: payouts", statistic=float(len(mismatches)), pvalue=None, alpha=alpha,
                      passed=not mismatches, n=int(counts.sum()),
                      looked_at="the net paid per round in each event against the return table's pays (exact)",
                      details={"mismatches": mismatches})


def _rtp_test(name: str, wager, sheet, counts, money, alpha: float):
    from certify.stats.gof import mean_return_test

    nets = wager.scaled_nets.astype(np.float64) / wager.scale
    by_event = {row.event: row for row in sheet.rows}
    probabilities = [float(by_event[event].probability) for event in wager.events]  # kernel order
    test = mean_return_test(counts, nets, float(sheet.expected_return), sheet.std_dev, alpha=alpha,
                            name=f"{name}: RTP", probabilities=probabilities)
    d = test.details
    rtp = {"rounds": d["rounds"], "observed_rtp": 1 + d["observed_mean"], "theoretical_rtp": 1 + d["expected_mean"],
           "ci_level": d["ci_level"], "ci_low": 1 + d["ci_low"], "ci_high": 1 + d["ci_high"],
           "observed_std_dev": d["observed_std_dev"], "theoretical_std_dev": d["theoretical_std_dev"],
           "passed": test.passed}
    return test, rtp


def _batch_uniformity(result: SimulationResult, wager, sheet, alpha: float):
    from certify.stats.gof import chisquare_gof
    from certify.stats.multiple import UNIFORMITY_MIN_SEQUENCES, second_level
    from certify.stats.result import TestResult

    probs = [float(row.probability) for row in sheet.rows]
    pvalues = []
    for i in sorted(result.per_chunk):
        observed, _ = _aligned(result, wager, sheet, result.per_chunk[i][f"{wager.name}.counts"])
        r = chisquare_gof(observed, probs, alpha=alpha)
        if r.applicable and r.pvalue is not None:
            pvalues.append(r.pvalue)
    name = f"{wager.name}: batch p-value uniformity"
    if len(pvalues) < UNIFORMITY_MIN_SEQUENCES:
        return TestResult.not_applicable(name, len(pvalues), alpha,
                                         f"{len(pvalues)} batches; uniformity needs at least {UNIFORMITY_MIN_SEQUENCES}")
    level = second_level(pvalues, alpha=alpha, name=name)
    return TestResult(name=name, statistic=None, pvalue=level.uniformity_pvalue, alpha=alpha,
                      n=len(pvalues), dof=9,
                      looked_at=f"the outcome chi-square p-values of the {len(pvalues)} chunks, 10 bins",
                      details={"histogram": list(level.histogram)})


def verify(result: SimulationResult, par, alpha: float = 0.01, *, confirm_failures: bool = True,
           workers: int = 1, scheduler=None) -> Verification:
    """Every check of the simulated tallies against the exact PAR sheet.

    When the family of statistical tests fails, the confirmatory rule
    (``certify.stats.multiple.CONFIRMATION_RULE``) plays the same number of rounds again on fresh
    chunks (DRBG sub-streams after this run's) and repeats the failing tests on them
    (``confirm_failures=False``: stage 1 alone)."""
    from certify.stats.multiple import confirm
    from certify.validate import check_alpha

    alpha = check_alpha(alpha)
    from certify.analysis.frequencies import five_card_category_counts, seven_card_category_counts
    from certify.hands import CATEGORY_NAMES
    from certify.stats.cards import card_position_table
    from certify.stats.gof import chisquare_gof
    from certify.stats.multiple import holm

    tests, rtp = [], {}
    for wager in result.kernel.wagers:
        sheet = par_wager(par, wager.name)
        counts, money = result.counts(wager.name), result.money(wager.name)
        observed, rows = _aligned(result, wager, sheet, counts)
        tests.append(chisquare_gof(observed, [float(r.probability) for r in rows], alpha=alpha,
                                   name=f"{wager.name}: outcome frequencies", cell_labels=[r.event for r in rows],
                                   looked_at=f"{wager.name} outcome events against the PAR sheet ({sheet.name})"))
        tests.append(_payout_conformance(wager.name, wager, rows, counts, money, alpha))
        rtp_test, rtp[wager.name] = _rtp_test(wager.name, wager, sheet, counts, money, alpha)
        tests.append(rtp_test)
    kernel = result.kernel
    if kernel.dealt_exact:  # the kernel's own ranking (a rules-model game): its categories
        observed, expected, labels = (result.totals["dealt"][:len(kernel.dealt_exact)], list(kernel.dealt_exact),
                                      list(kernel.dealt_labels))
    else:
        exact = five_card_category_counts() if kernel.dealt_kind == "5" else seven_card_category_counts()
        observed, expected, labels = (result.totals["dealt"], [exact[c] for c in range(len(CATEGORY_NAMES))],
                                      list(CATEGORY_NAMES))
    tests.append(chisquare_gof(observed, expected,
                               alpha=alpha, name="dealt hand categories", cell_labels=labels,
                               looked_at=f"the player's dealt {result.kernel.dealt_kind}-card categories "
                                         "against the exact counts"))
    tests.append(card_position_table(result.totals["positions"], result.rounds, alpha))
    main = result.kernel.wagers[0]
    tests.append(_batch_uniformity(result, main, par_wager(par, main.name), alpha))
    statistical = {t.name: t.pvalue for t in tests if t.applicable and t.pvalue is not None}
    family = holm(statistical, alpha)
    retest = _fresh_retest(result, par, alpha, workers, scheduler) if confirm_failures else None
    return Verification(tests, family, rtp, confirm(family, retest) if confirm_failures else None)


def _fresh_retest(result: SimulationResult, par, alpha: float, workers: int, scheduler):
    """Stage 2: the same rounds on the chunks after this run's (fresh, independent sub-streams)."""
    config = result.config

    def retest(names: list[str]):
        fresh = simulate(config.spec_path, config.rounds, config.seed, workers=workers, scheduler=scheduler,
                         fault=config.fault, chunk_rounds=config.chunk_rounds,
                         first_chunk=config.first_chunk + len(config.chunks))
        again = verify(fresh, par, alpha, confirm_failures=False)
        chosen = [t for t in again.tests if t.name in names and t.applicable and t.pvalue is not None]
        return {t.name: t.pvalue for t in chosen}, [dict(t.to_dict(), chunks=f"{fresh.config.first_chunk}.."
                                                         f"{fresh.config.first_chunk + len(fresh.config.chunks) - 1}")
                                                    for t in chosen]

    return retest


def result_to_dict(result: SimulationResult, verification: Verification | None = None) -> dict:
    """The run as plain JSON-able data: configuration, tallies by event, verdicts."""
    from rng.streams import seed_commitment

    wagers = {}
    for w in result.kernel.wagers:
        counts, money = result.counts(w.name), result.money(w.name)
        wagers[w.name] = {"events": [{"event": e, "count": int(c), "net": str(Fraction(int(m), w.scale))}
                                     for e, c, m in zip(w.events, counts, money)]}
    out = {"spec": result.config.spec_path, "spec_sha256": result.config.spec_sha256,
           "rounds": result.rounds, "seed": result.config.seed,
           "seed_commitment": seed_commitment(result.config.seed),
           "chunk_rounds": result.config.chunk_rounds, "chunks": len(result.per_chunk),
           "fault": result.config.fault, "seconds": result.seconds,
           "resumed_chunks": result.resumed_chunks,
           "checkpoint": {"resumed_chunks": result.resumed_chunks, "replayed_chunks": result.replayed_chunks,
                          "detection_probability_one_forged_chunk": result.detection_probability,
                          "summary": result.checkpoint_summary()},
           "rounds_per_second": result.rounds_played_now / result.seconds if result.seconds else None,
           "wagers": wagers,
           "dealt_categories": result.totals["dealt"].tolist()}
    if verification is not None:
        out["verification"] = verification.to_dict()
    return out
