"""`certify run SPEC` (quick profile) end to end, cold and warm: wall and CPU per spec.

    python bench/run_times.py                       # every spec in specs/
    python bench/run_times.py three_card_poker      # some of them
    python bench/run_times.py --warm-only           # reuse the cache folder of an earlier cold run

Each spec runs as the user runs it, in a fresh process (``certify run SPEC --seed 1``), first cold
(a new empty ``XDG_CACHE_HOME``: no compiled kernel on disk, no PAR-sheet cache entry), then warm
(the same folder again: kernels load from the numba cache, the sheet from its checked cache
entry). CPU is the user + system time of the run and all its child processes. The machine may be
shared: the load average is printed beside each row. Goals (issue 16): cold < 60 s, warm < 20 s.
The usual tool has no such run to compare against; the reference here is the goal itself.

``--stages`` runs each ``certify run`` through this file's ``--child`` mode, which wraps the run's
stages (``certify.run``'s section functions, the report writer) and listens to numba's
``numba:compile`` events (``numba.core.event``: real compiles only, a numba-cache load fires none):
each stage's wall, CPU (its process, its threads and the worker processes it reaped) and the
time numba spent compiling in it are printed under the row, with the kernels that compiled more
than one signature. The batteries run in their own forked process; their line is that process's
(with ``compile_ahead`` before them), and its CPU is taken out of the stage of the caller that
reaped it (multiprocessing reaps a finished child when it starts another: the simulation's workers).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COLD_GOAL_S, WARM_GOAL_S = 60.0, 20.0


def specs() -> list[str]:
    return sorted(p.stem for p in (ROOT / "specs").glob("*.yaml"))


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_run(spec: str, cache: Path, out: Path, config: Path, stages: Path | None = None) -> dict:
    """One ``certify run``: wall, CPU (children), exit code, verdict and the phase times it prints;
    with ``stages`` (a file), the run goes through ``--child`` and writes its stage lines there."""
    env = dict(os.environ, XDG_CACHE_HOME=str(cache), XDG_CONFIG_HOME=str(config))
    env.pop("NUMBA_CACHE_DIR", None)  # the run picks its own folder under XDG_CACHE_HOME
    certify = shutil.which("certify", path=str(Path(sys.executable).parent)) or "certify"
    command = [certify]
    if stages is not None:
        env[STAGES_ENV] = str(stages)
        command = [sys.executable, str(Path(__file__).resolve()), "--child"]
    load = os.getloadavg()[0]
    cpu0, wall0 = children_cpu(), time.perf_counter()
    proc = subprocess.run(command + ["run", spec, "--seed", "1", "--out", str(out)], env=env,
                          capture_output=True, text=True)
    wall, cpu = time.perf_counter() - wall0, children_cpu() - cpu0
    verdict = re.search(r"verdict: (\w+)", proc.stdout)
    phases = re.search(r"seed \d+; (.*)", proc.stdout)
    return {"wall": wall, "cpu": cpu, "rc": proc.returncode, "verdict": verdict.group(1) if verdict else "-",
            "phases": phases.group(1) if phases else proc.stderr.strip().splitlines()[-1:],
            "load": (load + os.getloadavg()[0]) / 2}


STAGES_ENV = "CERTIFY_BENCH_STAGES"
STAGED = {"certify.run": ("rng_and_shuffle_sections", "par_sheet_section", "kernel_tables_section",
                          "simulation_section", "procedures_section"),
          "certify.simulate": ("compile_ahead",),  # in the battery process, before its batteries
          "certify.report": ("write_report",)}
LAST_FORKED_STAGE = "rng_and_shuffle_sections"  # the forked battery process ends after it


class _Stages:
    """The child's bookkeeping: which stage runs now, and numba's compiles attributed to it."""

    def __init__(self, path: str):
        from numba.core import event

        self.path, self.current, self.depth, self.pid, self.forked = path, "start-up", 0, os.getpid(), False
        self.compiles: dict[str, list[float]] = {}
        self.kernels: dict[str, set[str]] = {}
        self.by_kernel: dict[tuple[str, str], float] = {}  # (stage, top-level kernel): compile CPU
        self.shape_errors: list[str] = []  # top-level kernels that compiled an array-to-slice copy's error path
        self.t0 = self.c0 = 0.0
        outer = self

        class Listener(event.Listener):
            def on_start(self, ev):
                dispatcher = (ev.data or {}).get("dispatcher")
                name = "?"
                if dispatcher is not None:
                    name = f"{dispatcher.py_func.__module__}.{dispatcher.py_func.__qualname__}"
                    outer.kernels.setdefault(name, set()).add(str((ev.data or {}).get("args")))
                if outer.depth == 0:
                    outer.t0, outer.c0, outer.top = time.perf_counter(), time.process_time(), name
                elif "raise_with_shape_context" in name:  # numba's formatted shape error: seconds each
                    outer.shape_errors.append(outer.top)
                outer.depth += 1

            def on_end(self, ev):
                outer.depth -= 1
                if outer.depth == 0:
                    got = outer.compiles.setdefault(outer.current, [0.0, 0.0])
                    got[0] += time.perf_counter() - outer.t0
                    got[1] += time.process_time() - outer.c0
                    key = (outer.current, outer.top)
                    outer.by_kernel[key] = outer.by_kernel.get(key, 0.0) + time.process_time() - outer.c0

        event.register("numba:compile", Listener())

    @staticmethod
    def cpu() -> float:
        me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime

    def forked_pids(self) -> set[int]:
        """The forked battery processes that wrote stage lines (their rows name their pid)."""
        try:
            rows = [json.loads(line) for line in open(self.path, encoding="utf-8") if line.strip()]
        except OSError:
            return set()
        return {row["pid"] for row in rows if row["pid"] != self.pid}

    def write(self, stage: str, wall: float, cpu: float, reaped: list[int] | None = None) -> None:
        compiled = self.compiles.pop(stage, [0.0, 0.0])
        with open(self.path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"pid": os.getpid(), "stage": stage, "wall": wall, "cpu": cpu,
                                  "compile_wall": compiled[0], "compile_cpu": compiled[1],
                                  "reaped": reaped or []}) + "\n")

    def wrap(self, name: str, fn):
        def staged(*args, **kwargs):
            if os.getpid() != self.pid and not self.forked:  # the forked batteries: their own compiles
                self.forked, self.kernels, self.by_kernel, self.shape_errors = True, {}, {}, []
            before, self.current = self.current, name
            wall, cpu = time.perf_counter(), self.cpu()
            alive = {pid for pid in self.forked_pids() if os.path.exists(f"/proc/{pid}")}
            try:
                return fn(*args, **kwargs)
            finally:
                # a battery process reaped in this stage (multiprocessing reaps finished children
                # when it starts a process, e.g. the simulation's workers) adds its whole CPU to
                # RUSAGE_CHILDREN here: print_stages takes it out again
                reaped = sorted(pid for pid in alive if not os.path.exists(f"/proc/{pid}"))
                self.write(name, time.perf_counter() - wall, self.cpu() - cpu, reaped)
                self.current = before
                if os.getpid() != self.pid and name == LAST_FORKED_STAGE:  # no atexit there (os._exit)
                    self.close(0.0)
        return staged

    def close(self, wall: float) -> None:
        """The whole process (start-up and what no stage covers is ``start-up``); kernels with
        more than one compiled signature."""
        self.write("start-up", wall, self.cpu(), sorted(self.forked_pids()) if os.getpid() == self.pid else [])
        ours = {k: v for k, v in self.kernels.items() if k.startswith(("certify.", "rng."))}
        twice = {k: sorted(v) for k, v in ours.items() if len(v) > 1}
        slowest = sorted(self.by_kernel.items(), key=lambda kv: -kv[1])[:12]
        with open(self.path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"pid": os.getpid(), "stage": "kernels", "compiled": len(ours),
                                  "signatures": twice, "shape_errors": self.shape_errors,
                                  "slowest": [[stage, k, round(c, 2)] for (stage, k), c in slowest]}) + "\n")


def child(argv: list[str]) -> int:
    """``certify`` with its stages timed (``--stages``): the same command, the same output."""
    import atexit
    import importlib

    wall0 = time.perf_counter()
    here = Path(__file__).resolve().parent  # bench/rng.py must not shadow the rng package
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
    stages = _Stages(os.environ[STAGES_ENV])
    for module, names in STAGED.items():
        mod = importlib.import_module(module)
        for name in names:
            setattr(mod, name, stages.wrap(name, getattr(mod, name)))
    stages.pid = os.getpid()
    atexit.register(lambda: stages.close(time.perf_counter() - wall0))
    from certify.cli import cli

    return cli.main(argv, prog_name="certify")


def print_stages(path: Path) -> None:
    """The stage lines of one run: per stage wall / CPU / numba compile (wall, CPU)."""
    if not path.exists():
        return
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    forked_cpu = {row["pid"]: row["cpu"] for row in rows if row["stage"] == "start-up" and row["wall"] == 0}
    for row in rows:
        if "cpu" in row:  # a battery process reaped in this stage: its CPU is its own line's
            row["cpu"] -= sum(forked_cpu.get(pid, 0.0) for pid in row.get("reaped", []))
        if row["stage"] == "kernels":
            twice = "; ".join(f"{k} x{len(v)}" for k, v in row["signatures"].items()) or "none"
            print(f"{'':36s} pid {row['pid']}: {row['compiled']} kernels compiled, more than one signature: {twice}")
            print(f"{'':36s}   array-to-slice error path compiled under: {', '.join(row.get('shape_errors', [])) or 'none'}")
            print(f"{'':36s}   slowest top-level compiles (stage: kernel CPU s): "
                  + "; ".join(f"{stage}: {k} {c:.1f}" for stage, k, c in row.get("slowest", [])))
        elif row["stage"] != "start-up" or row["wall"] > 0:
            print(f"{'':36s} {row['stage']:26s} wall {row['wall']:6.1f}  CPU {row['cpu']:6.1f}  "
                  f"numba compile {row['compile_wall']:5.1f} wall / {row['compile_cpu']:5.1f} CPU")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        return child(argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="*", help="spec names (default: every spec in specs/)")
    parser.add_argument("--cache-root", type=Path, default=None,
                        help="folder for the per-spec cache folders (default: a temporary one, removed)")
    parser.add_argument("--warm-only", action="store_true", help="skip the cold run (needs --cache-root)")
    parser.add_argument("--cold-only", action="store_true", help="skip the warm run")
    parser.add_argument("--stages", action="store_true",
                        help="per stage wall, CPU and numba compile time under each row (see above)")
    args = parser.parse_args(argv)
    root = args.cache_root or Path(tempfile.mkdtemp(prefix="certify-run-times-"))
    print(f"{'spec':28s} {'kind':5s} {'wall s':>7s} {'CPU s':>7s} {'load':>5s}  verdict  phases")
    worst = {"cold": 0.0, "warm": 0.0}
    try:
        for spec in args.specs or specs():
            cache, work = root / spec / "cache", root / spec / "work"
            kinds = ["cold", "warm"]
            if args.warm_only:
                kinds = ["warm"]
            elif args.cold_only:
                kinds = ["cold"]
            if "cold" in kinds:
                shutil.rmtree(cache, ignore_errors=True)
            for kind in kinds:
                for folder in (cache, work / kind, work / "config"):
                    folder.mkdir(parents=True, exist_ok=True)
                staged = work / f"stages-{kind}.jsonl" if args.stages else None
                if staged is not None:
                    staged.unlink(missing_ok=True)
                r = one_run(spec, cache, work / kind, work / "config", staged)
                worst[kind] = max(worst[kind], r["wall"])
                print(f"{spec:28s} {kind:5s} {r['wall']:7.1f} {r['cpu']:7.1f} {r['load']:5.1f}  "
                      f"{r['verdict']:7s}  {r['phases']}" + (f"  (exit {r['rc']})" if r["rc"] not in (0, 1) else ""),
                      flush=True)
                if staged is not None:
                    print_stages(staged)
                    sys.stdout.flush()
    finally:
        if args.cache_root is None:
            shutil.rmtree(root, ignore_errors=True)
    print(f"slowest: cold {worst['cold']:.1f} s (goal < {COLD_GOAL_S:.0f}), "
          f"warm {worst['warm']:.1f} s (goal < {WARM_GOAL_S:.0f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
