"""Benchmark the round-log audit and the drive harness.

    /work/venv/bin/python bench/audit.py [--rounds N] [--seats K]

1. ``certify drive`` through the example engine (examples/caribbean_stud_engine.py, seeded shuffle):
   rounds per second end to end (harness + engine subprocess), and the harness's own CPU time.
2. ``certify audit`` of that log: the streaming pass (read, schema, re-settle by the suite's round
   class, tally) in rounds per CPU second, then the tests (card battery, PAR outcomes, RTP); against
   the floor any audit pays, a plain ``json.loads`` loop over the same lines. Peak memory (maxrss)
   is printed too. Issue 12's goal is 10^6 rounds/s; the per-round Python path is far from it (the
   ratio printed says how far).
3. The columnar path (Parquet, ``certify-round-columns/1``): a fair one-seat Caribbean Stud log of
   ``--columnar-rounds`` rounds (written at numpy speed by ``certify.audit.sample.write_bulk_columns``,
   or ``--columnar-log`` to reuse one), audited end to end (read, validate, re-settle, tally, test)
   through ``certify.audit.audit``: rounds per CPU second and per wall second of the pass, the tests'
   time, against reading the same columns with pyarrow alone. Machine load (``os.getloadavg``)
   is printed beside every figure: the machine is shared.
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

from certify.analysis.cache import read_golden  # noqa: E402
from certify.audit.audit import Auditor  # noqa: E402
from certify.audit.drive import drive  # noqa: E402
from certify.audit.log import LogFile, read_records  # noqa: E402
from certify.spec import load_spec  # noqa: E402

EXAMPLE = _HERE.parent / "examples" / "caribbean_stud_engine.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5000)
    parser.add_argument("--seats", type=int, default=1)
    parser.add_argument("--columnar-rounds", type=int, default=1_000_000)
    parser.add_argument("--columnar-log", default=None, help="an existing columnar log to audit (else one is written)")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    spec = load_spec("caribbean_stud")
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

        auditor = Auditor(spec, read_golden(spec))
        start, wall = time.process_time(), time.perf_counter()
        for number, record in read_records(log, spec, LogFile(str(log))):
            auditor.round(record, f"{log}:{number}")
        cpu, wall = time.process_time() - start, time.perf_counter() - wall
        start = time.process_time()
        result = auditor.results([LogFile(str(log), rounds=count)])
        tests = time.process_time() - start
        from certify.analysis import cache
        from certify.audit.audit import audit

        cache.load_or_compute = lambda spec, use_cache=True, **_: (read_golden(spec), None)
        parallel = audit([log], spec, jobs=2)["timing"]
    rate = count / cpu
    print(f"audit pass (read, schema, re-settle, tally): {rate:,.0f} rounds per CPU second "
          f"({cpu:.2f} s CPU, {wall:.2f} s wall); tests {tests:.2f} s CPU; findings {sum(c['count'] for c in result['findings'].values())}")
    print(f"plain json.loads loop: {baseline:,.0f} lines per CPU second; the audit pass is {baseline / rate:,.1f}x "
          f"slower than parsing alone; goal 1,000,000 rounds/s: {1_000_000 / rate:,.0f}x away")
    print(f"--jobs 2: {parallel['rounds_per_s_wall']:,.0f} rounds per wall second read and re-settled "
          f"(main process {parallel['read_and_resettle_cpu_s_main_process']:.2f} s CPU) vs {count / wall:,.0f} "
          "with one process")
    print(f"peak memory (maxrss): {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MiB")
    columnar(args, baseline)


def columnar(args, json_baseline: float) -> None:
    import pyarrow.parquet as pq

    from certify.audit.audit import audit
    from certify.audit.sample import write_bulk_columns

    spec = load_spec("caribbean_stud")
    with tempfile.TemporaryDirectory() as folder:
        path = args.columnar_log or str(Path(folder) / "bulk.parquet")
        if args.columnar_log is None:
            start, wall = time.process_time(), time.perf_counter()
            write_bulk_columns(path, spec, args.columnar_rounds, seed=11)
            print(f"columnar: wrote {args.columnar_rounds:,} rounds in {time.process_time() - start:.1f} s CPU, "
                  f"{time.perf_counter() - wall:.1f} s wall ({Path(path).stat().st_size / 2**20:,.0f} MiB)")
        start = time.process_time()
        rows = sum(batch.num_rows for batch in pq.ParquetFile(path).iter_batches(batch_size=1 << 17))
        floor = rows / (time.process_time() - start)
        load = os.getloadavg()[0]
        start, wall = time.process_time(), time.perf_counter()
        result = audit([path], spec)
        cpu, wall = time.process_time() - start, time.perf_counter() - wall
        timing = result["timing"]
    pass_cpu = timing["read_and_resettle_cpu_s_main_process"]
    print(f"columnar audit of {rows:,} rounds (load {load:.2f}): pass (read, validate, re-settle, tally) "
          f"{pass_cpu:.2f} s CPU, {timing['read_and_resettle_wall_s']:.2f} s wall = {rows / pass_cpu:,.0f} rounds "
          f"per CPU second, {timing['rounds_per_s_wall']:,.0f} per wall second; tests {timing['tests_wall_s']:.1f} s wall; "
          f"end to end {cpu:.1f} s CPU, {wall:.1f} s wall = {rows / cpu:,.0f} rounds per CPU second; verdict "
          f"{result['verdict']}")
    print(f"columnar floor, pyarrow reading the batches alone: {floor:,.0f} rows per CPU second; the pass is "
          f"{rows / pass_cpu / json_baseline:,.1f}x the plain json.loads loop; goal 1,000,000 rounds/s: "
          f"{rows / pass_cpu / 1e6:.2f}x of it per CPU second")
    print(f"peak memory (maxrss) after the columnar audit: "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MiB")


if __name__ == "__main__":
    main()
