"""Benchmark the round-log audit and the drive harness.

    /work/venv/bin/python bench/audit.py [--rounds N] [--seats K]

1. ``certify drive`` through the example engine (examples/caribbean_stud_engine.py, seeded shuffle):
   rounds per second end to end (harness + engine subprocess), and the harness's own CPU time.
2. ``certify audit`` of that log: the streaming pass (read, schema, re-settle by the suite's round
   class, tally) in rounds per CPU second, then the tests (card battery, PAR outcomes, RTP); against
   the floor any audit pays, a plain ``json.loads`` loop over the same lines. Peak memory (maxrss)
   is printed too. Issue 12's goal is 10^6 rounds/s; the per-round Python path is far from it (the
   ratio printed says how far).
3. The columnar path (Parquet, ``certify-round-columns/1``): fair one-seat Caribbean Stud logs
   (the rules model) of ``--columnar-rounds`` sizes (written at numpy speed by
   ``certify.audit.sample.write_bulk_columns``), or ``--columnar-log`` to reuse some, each audited
   end to end (read, validate, re-settle, tally, test) through ``certify.audit.audit`` in a fresh
   process: a table of the pass's wall and CPU seconds (every thread), rounds per wall second and
   per CPU second, the ratio against the plain ``json.loads`` loop, end to end times, the tests'
   time, peak memory (maxrss) after the pass and at the end, and the machine load (the machine is
   shared: CPU seconds are the figure to compare).

    /work/venv/bin/python bench/audit.py --columnar-rounds 1000000 10000000
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import sys
import tempfile
import time
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

from certify.analysis.cache import load_or_compute  # noqa: E402
from certify.audit.audit import Auditor  # noqa: E402
from certify.audit.drive import drive  # noqa: E402
from certify.audit.log import LogFile, read_records  # noqa: E402
from certify.spec import load_spec  # noqa: E402

EXAMPLE = _HERE.parent / "examples" / "caribbean_stud_engine.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5000)
    parser.add_argument("--seats", type=int, default=1)
    parser.add_argument("--columnar-rounds", type=int, nargs="+", default=[1_000_000],
                        help="columnar logs of these sizes are written and audited (e.g. 1000000 10000000)")
    parser.add_argument("--columnar-log", nargs="+", default=None,
                        help="existing columnar logs to audit (else they are written)")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2],
                        help="audit each columnar log with these process counts (certify audit --jobs)")
    parser.add_argument("--audit-one", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--audit-jobs", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.audit_one:
        audit_one(args.audit_one, args.audit_jobs)
        return
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    spec = caribbean_stud()
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "drive.jsonl"
        command = " ".join(shlex.quote(a) for a in (sys.executable, str(EXAMPLE), "--seed", "1"))
        run = drive(command, spec, args.rounds, log, seed=1, seats=args.seats)
        print(f"drive: {run['rounds']:,} rounds, {args.seats} seat(s), in {run['wall_s']:.2f} s wall: "
              f"{run['rounds_per_s']:,.0f} rounds/s (harness CPU {run['harness_cpu_s']:.2f} s)")

        start = time.process_time()
        with open(log, "rb") as f:
            count = sum(1 for line in f if json.loads(line))
        baseline = count / (time.process_time() - start)

        auditor = Auditor(spec, load_or_compute(spec)[0])
        start, wall = time.process_time(), time.perf_counter()
        for number, record in read_records(log, spec, LogFile(str(log))):
            auditor.round(record, f"{log}:{number}")
        cpu, wall = time.process_time() - start, time.perf_counter() - wall
        start = time.process_time()
        result = auditor.results([LogFile(str(log), rounds=count)])
        tests = time.process_time() - start
        from certify.audit.audit import audit

        parallel = audit([log], spec, jobs=2)["timing"]
        default = audit([log], spec)["timing"]
    rate = count / cpu
    print(f"audit pass (read, schema, re-settle, tally): {rate:,.0f} rounds per CPU second "
          f"({cpu:.2f} s CPU, {wall:.2f} s wall); tests {tests:.2f} s CPU; findings {sum(c['count'] for c in result['findings'].values())}")
    print(f"plain json.loads loop: {baseline:,.0f} lines per CPU second; the audit pass is {baseline / rate:,.1f}x "
          f"slower than parsing alone; goal 1,000,000 rounds/s: {1_000_000 / rate:,.0f}x away")
    print(f"--jobs 2: {parallel['rounds_per_s_wall']:,.0f} rounds per wall second read and re-settled "
          f"(main process {parallel['read_and_resettle_cpu_s_main_process']:.2f} s CPU) vs {count / wall:,.0f} "
          "with one process")
    print(f"default (--jobs not given): {default['line_jobs']} process(es) for JSON Lines, "
          f"{default['rounds_per_s_wall']:,.0f} rounds per wall second")
    print(f"peak memory (maxrss): {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MiB")
    columnar(args, baseline)


def caribbean_stud():
    """Caribbean Stud (a rules-model spec of the one-decision shape: the columnar fast path's)."""
    return load_spec("caribbean_stud")


def columnar(args, json_baseline: float) -> None:
    """Each columnar log audited end to end in a fresh process (its peak memory is its own)."""
    import subprocess

    from certify.audit.sample import write_bulk_columns

    spec = caribbean_stud()
    with tempfile.TemporaryDirectory() as folder:
        logs = list(args.columnar_log or [])
        for rounds in ([] if args.columnar_log else args.columnar_rounds):
            path = str(Path(folder) / f"bulk-{rounds}.parquet")
            start, wall = time.process_time(), time.perf_counter()
            write_bulk_columns(path, spec, rounds, seed=11)
            print(f"columnar: wrote {rounds:,} rounds in {time.process_time() - start:.1f} s CPU, "
                  f"{time.perf_counter() - wall:.1f} s wall ({Path(path).stat().st_size / 2**20:,.0f} MiB)")
            logs.append(path)
        print("| rounds | processes | load | pass wall s | pass CPU s (main + others) | rounds/s wall | rounds/CPU-s | "
              "x json.loads | end to end wall s | end to end CPU s | tests wall s | peak RSS after pass MiB "
              "(main / other) | peak RSS MiB | verdict |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for path in logs:
            for jobs in args.jobs:
                out = subprocess.run([sys.executable, __file__, "--audit-one", path, "--audit-jobs", str(jobs)],
                                     capture_output=True, text=True, check=True).stdout
                r = json.loads(out.splitlines()[-1])
                cpu = r["pass_cpu"] + r["pass_cpu_others"]
                print(f"| {r['rounds']:,} | {r['jobs']} | {r['load']:.1f} | {r['pass_wall']:.2f} | {cpu:.2f} "
                      f"({r['pass_cpu']:.2f} + {r['pass_cpu_others']:.2f}) | "
                      f"{r['rounds'] / r['pass_wall']:,.0f} | {r['rounds'] / cpu:,.0f} | "
                      f"{r['rounds'] / cpu / json_baseline:,.0f} | {r['wall']:.1f} | {r['cpu']:.1f} | "
                      f"{r['tests_wall']:.1f} | {r['rss_pass']:,.0f} / {r['rss_others']:,.0f} | {r['rss']:,.0f} | "
                      f"{r['verdict']} |")
    print(f"(CPU s: this process's CPU time, every thread; load: 1-minute load average at the start, "
          f"{os.cpu_count()} CPUs; x json.loads: rounds per CPU second against the plain json.loads loop's "
          f"{json_baseline:,.0f} lines per CPU second; goal: 1,000,000 rounds/s)")


def audit_one(path: str, jobs: int) -> None:
    """One columnar log through ``certify.audit.audit.audit`` (the PAR sheet from the analysis
    cache: computed once); prints the figures as one JSON line."""
    from certify.audit import audit as audit_module

    spec = caribbean_stud()
    load = os.getloadavg()[0]
    passes = {}
    read_all = audit_module._read_all

    def timed(*a, **k):
        read_all(*a, **k)
        passes["rss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        passes["rss_others"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024

    audit_module._read_all = timed
    start, wall = time.process_time(), time.perf_counter()
    result = audit_module.audit([path], spec, jobs=jobs)
    cpu, wall = time.process_time() - start, time.perf_counter() - wall
    t = result["timing"]
    cpu += t["read_and_resettle_cpu_s_other_processes"]
    print(json.dumps({"rounds": result["rounds"], "load": load, "pass_wall": t["read_and_resettle_wall_s"],
                      "pass_cpu": t["read_and_resettle_cpu_s_main_process"], "jobs": jobs,
                      "pass_cpu_others": t["read_and_resettle_cpu_s_other_processes"], "rss_others": passes["rss_others"],
                      "wall": wall, "cpu": cpu,
                      "tests_wall": t["tests_wall_s"], "rss_pass": passes["rss"],
                      "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "verdict": result["verdict"]}))


if __name__ == "__main__":
    main()
