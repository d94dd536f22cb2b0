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
"""

from __future__ import annotations

import argparse
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


def one_run(spec: str, cache: Path, out: Path, config: Path) -> dict:
    """One ``certify run``: wall, CPU (children), exit code, verdict and the phase times it prints."""
    env = dict(os.environ, XDG_CACHE_HOME=str(cache), XDG_CONFIG_HOME=str(config))
    env.pop("NUMBA_CACHE_DIR", None)  # the run picks its own folder under XDG_CACHE_HOME
    certify = shutil.which("certify", path=str(Path(sys.executable).parent)) or "certify"
    load = os.getloadavg()[0]
    cpu0, wall0 = children_cpu(), time.perf_counter()
    proc = subprocess.run([certify, "run", spec, "--seed", "1", "--out", str(out)], env=env,
                          capture_output=True, text=True)
    wall, cpu = time.perf_counter() - wall0, children_cpu() - cpu0
    verdict = re.search(r"verdict: (\w+)", proc.stdout)
    phases = re.search(r"seed \d+; (.*)", proc.stdout)
    return {"wall": wall, "cpu": cpu, "rc": proc.returncode, "verdict": verdict.group(1) if verdict else "-",
            "phases": phases.group(1) if phases else proc.stderr.strip().splitlines()[-1:],
            "load": (load + os.getloadavg()[0]) / 2}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="*", help="spec names (default: every spec in specs/)")
    parser.add_argument("--cache-root", type=Path, default=None,
                        help="folder for the per-spec cache folders (default: a temporary one, removed)")
    parser.add_argument("--warm-only", action="store_true", help="skip the cold run (needs --cache-root)")
    parser.add_argument("--cold-only", action="store_true", help="skip the warm run")
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
                r = one_run(spec, cache, work / kind, work / "config")
                worst[kind] = max(worst[kind], r["wall"])
                print(f"{spec:28s} {kind:5s} {r['wall']:7.1f} {r['cpu']:7.1f} {r['load']:5.1f}  "
                      f"{r['verdict']:7s}  {r['phases']}" + (f"  (exit {r['rc']})" if r["rc"] not in (0, 1) else ""),
                      flush=True)
    finally:
        if args.cache_root is None:
            shutil.rmtree(root, ignore_errors=True)
    print(f"slowest: cold {worst['cold']:.1f} s (goal < {COLD_GOAL_S:.0f}), "
          f"warm {worst['warm']:.1f} s (goal < {WARM_GOAL_S:.0f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
