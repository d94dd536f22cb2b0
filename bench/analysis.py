"""PAR-sheet benchmark: the time to compute each spec's exact PAR sheet, and its house edges.

    python bench/analysis.py                    # every spec in SPECS
    python bench/analysis.py caribbean_stud     # some of them
    python bench/analysis.py path/to/game.yaml  # a spec file

Each spec runs in a fresh process (``--one``), so every time includes building the counting tables
and loading the compiled kernels (compiled on the first run ever; run twice for warm numbers).

The baseline is how such a table is usually counted: for every player hand and up card, evaluate
every one of the 163,185 dealer hands. It is timed on a sample of (player hand, up card) pairs with
eval7 (one Python call per hand) and with this project's compiled evaluator over suit classes, its
dealer counts are checked against ours, and the full-cycle time is extrapolated: the ratio printed
is baseline time / our time.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from itertools import combinations
from math import comb
from pathlib import Path

import numpy as np
from numba import njit

# Run as a script, this file's folder comes first on sys.path and would shadow packages (bench/rng.py
# is not the rng package); analysis_holdem is imported from it by its path below.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

from certify import hands  # noqa: E402

# spec name -> family; other analyses add their specs here.
SPECS = ["caribbean_stud", "casino_stud", "five_card_mulligan", "five_card_mulligan_online",
         "texas_holdem_bonus", "texas_holdem_bonus_2x", "ultimate_texas_holdem"]

HOLE_INDEX = np.array(list(combinations(range(46), 4)), dtype=np.int64)


def run_one(name: str) -> dict:
    """Compute one spec's PAR sheet in this process; return the time and the figures."""
    from certify.analysis import par_sheet
    from certify.analysis.cache import no_reads
    from certify.spec import load_spec

    t0, c0 = time.perf_counter(), time.process_time()
    with no_reads("bench: every sheet counted"):  # no count tables from the PAR cache (UTH's)
        sheet = par_sheet(load_spec(name))
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"spec": name, "seconds": seconds, "cpu_seconds": cpu,
            "wagers": [{"name": w.name, "house_edge": float(w.house_edge),
                        "element_of_risk": float(w.element_of_risk), "exact": w.exact,
                        "std_dev": w.std_dev, "house_edge_se": w.house_edge_standard_error}
                       for w in sheet.wagers]}


@njit(cache=True)
def _brute_force_counts(player, up, rest, hole_index, qualify, pv):
    nq = 0
    win = 0
    tie = 0
    for i in range(hole_index.shape[0]):
        h = hole_index[i]
        dv = hands.eval5_nb(up, rest[h[0]], rest[h[1]], rest[h[2]], rest[h[3]])
        if dv < qualify:
            nq += 1
        elif dv < pv:
            win += 1
        elif dv == pv:
            tie += 1
    return nq, win, tie


def baseline(pairs: int, eval7_pairs: int) -> dict:
    """Brute-force dealer counts on sampled (player hand, up card) pairs, checked against ours."""
    from certify.analysis.frequencies import class_values, threshold_value
    from certify.rules import counting
    from certify.spec import load_spec

    q = threshold_value(load_spec("caribbean_stud").dealer.qualifies)
    rng = np.random.default_rng(2024)
    deals = [rng.choice(52, 6, replace=False) for _ in range(pairs)]
    players = np.sort(np.array([d[:5] for d in deals]), axis=1).astype(np.int64)
    dense = np.searchsorted(class_values(), hands.rank_batch(players)).astype(np.int64)
    q_dense = int(np.searchsorted(class_values(), q))
    ours = counting.dealer_cells(players, dense, q_dense, up=True)  # the counting every analysis uses
    rests = [np.array([c for c in range(52) if c not in d]) for d in deals]
    _brute_force_counts(players[0], int(deals[0][5]), rests[0], HOLE_INDEX, q, 0)  # compile
    t0 = time.perf_counter()
    for d, p, rest in zip(deals, players, rests):
        _brute_force_counts(p, int(d[5]), rest, HOLE_INDEX, q, hands.rank_hand(p))
    numba_per_pair = (time.perf_counter() - t0) / pairs
    for i, (d, p, rest) in enumerate(zip(deals, players, rests)):  # agreement, pair by pair
        got = _brute_force_counts(p, int(d[5]), rest, HOLE_INDEX, q, hands.rank_hand(p))
        if tuple(got) != tuple(int(x) for x in ours[i, int(d[5])]):
            raise AssertionError(f"brute force {got} != inclusion-exclusion {ours[i, int(d[5])]}")
    result = {"numba_brute_force_seconds_per_pair": numba_per_pair}
    try:
        import eval7
    except ImportError:
        return result
    if eval7_pairs <= 0:
        return result
    deck = [eval7.Card(s) for s in
            [r + s for r in "23456789TJQKA" for s in "cdhs"]]  # our card order: 4 * rank + suit
    t0 = time.perf_counter()
    for i in range(eval7_pairs):
        d, rest = deals[i], rests[i]
        up = deck[int(d[5])]
        pv = eval7.evaluate([deck[c] for c in players[i]])
        q7 = eval7.evaluate([deck[c] for c in (51, 46, 8, 5, 0)])  # A K 4 3 2, the weakest A-K
        nq = win = tie = 0
        for h in HOLE_INDEX:
            dv = eval7.evaluate([up] + [deck[rest[j]] for j in h])
            if dv < q7:
                nq += 1
            elif dv < pv:
                win += 1
            elif dv == pv:
                tie += 1
        if (nq, win, tie) != tuple(int(x) for x in ours[i, int(d[5])]):
            raise AssertionError(f"eval7 brute force {(nq, win, tie)} != ours {ours[i, int(d[5])]}")
    result["eval7_brute_force_seconds_per_pair"] = (time.perf_counter() - t0) / eval7_pairs
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("specs", nargs="*", default=SPECS)
    parser.add_argument("--one", help=argparse.SUPPRESS)  # child process: one spec, JSON out
    parser.add_argument("--pairs", type=int, default=200, help="sampled pairs for the numba baseline")
    parser.add_argument("--eval7-pairs", type=int, default=2, help="sampled pairs for the eval7 baseline")
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one)))
        return
    results = []
    for name in args.specs:
        out = subprocess.run([sys.executable, __file__, "--one", name], capture_output=True, text=True)
        if out.returncode != 0:
            print(f"{name}: FAILED\n{out.stderr}", file=sys.stderr)
            continue
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
    print("seconds: wall clock; cpu: CPU seconds of all threads (on a busy machine, cpu / cores is "
          "closer to the quiet-machine time)")
    print(f"{'spec':<22} {'seconds':>8} {'cpu':>7}  wager: house edge / element of risk")
    for r in results:
        edges = "\n".join(f"{'':<40}{w['name']}: {100 * w['house_edge']:.4f}% / "
                          f"{100 * w['element_of_risk']:.4f}%" + ("" if w["exact"] else " (simulated)")
                          for w in r["wagers"])
        print(f"{r['spec']:<22} {r['seconds']:>8.1f} {r['cpu_seconds']:>7.1f}\n{edges}")
    stud_times = [r["seconds"] for r in results if Path(r["spec"]).stem in ("caribbean_stud", "casino_stud")]
    if stud_times:
        b = baseline(args.pairs, args.eval7_pairs)
        ours = min(stud_times)
        pairs_full = comb(52, 5) * 47  # every player hand x up card
        pairs_classes = 134459 * 47  # with suit classes
        print("\nbaseline for a stud cycle: evaluate all 163,185 dealer hands per (player hand, up card);"
              " dealer counts checked equal to ours on every sampled pair")
        numba_full = b["numba_brute_force_seconds_per_pair"] * pairs_classes
        print(f"  this project's evaluator, suit classes, 1 core: {numba_full:,.0f} s extrapolated "
              f"(ratio {numba_full / ours:,.0f}x)")
        if "eval7_brute_force_seconds_per_pair" in b:
            eval7_full = b["eval7_brute_force_seconds_per_pair"] * pairs_full
            print(f"  eval7, every player hand: {eval7_full:,.0f} s = {eval7_full / 86400:,.0f} days "
                  f"extrapolated (ratio {eval7_full / ours:,.0f}x)")
    mulligan_baseline([r for r in results if r["spec"].startswith("five_card_mulligan")])
    holdem_times = [r["seconds"] for r in results if r["spec"].startswith("texas_holdem_bonus")]
    if holdem_times:  # Hold'em Bonus: brute force over dealer holes, see bench/analysis_holdem.py
        holdem_baseline, holdem_report = _holdem_bench()

        print("\n" + "\n".join(holdem_report(min(holdem_times), holdem_baseline())))
    uth_baseline([r for r in results if r["spec"] == "ultimate_texas_holdem"])


# Eliot Jacobson's published exact run of Ultimate Texas Hold'em's basic strategy ("Ultimate Texas
# Hold'em Basic Strategy and House Edge"): three days for the pre-flop cycle, two for the flop cycle.
UTH_PUBLISHED_DAYS = 3 + 2


def uth_baseline(results: list[dict]) -> None:
    for r in results:
        published = UTH_PUBLISHED_DAYS * 86400
        print(f"\nbaseline for Ultimate Texas Hold'em: the published exact analysis took {UTH_PUBLISHED_DAYS} days "
              f"of computer time; ours {r['seconds']:,.0f} s wall, {r['cpu_seconds']:,.0f} s CPU "
              f"(ratio {published / r['seconds']:,.0f}x)")


def _holdem_bench():
    """bench/analysis_holdem.py's baseline and report (loaded by path: bench/ is not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("analysis_holdem", _HERE / "analysis_holdem.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # importable by name: numba's cached kernels of it load in the next run
    spec.loader.exec_module(module)
    return module.baseline, module.report


def mulligan_baseline(results: list[dict], rounds: int = 2_000_000) -> None:
    """Five Card Mulligan is counted exactly here; people simulate it (the inventor: 22 billion
    hands). Baseline: the plain simulation, played by this project's bulk engine kernel on numpy-
    shuffled decks. Printed: its time for the inventor's 22e9 hands and for a 95% interval of
    +-1e-6 on the edge (the 6th decimal), against our time for the exact figure."""
    if not results:
        return
    from certify.games.kernels import kernel_for
    from certify.spec import load_spec

    kernel = kernel_for(load_spec("five_card_mulligan"))
    rng = np.random.default_rng(7)
    decks = rng.permuted(np.tile(np.arange(52, dtype=np.uint8), (rounds, 1)), axis=1)[:, :20]
    kernel.events(decks[:1000])  # compile
    t0 = time.perf_counter()
    decks = rng.permuted(np.tile(np.arange(52, dtype=np.uint8), (rounds, 1)), axis=1)[:, :20]
    kernel.events(np.ascontiguousarray(decks))
    rate = rounds / (time.perf_counter() - t0)
    print(f"\nbaseline for Five Card Mulligan: plain simulation (numpy shuffles + this project's engine "
          f"kernel, 1 core): {rate:,.0f} rounds/s")
    for r in results:
        main = r["wagers"][1] if len(r["wagers"]) > 1 else r["wagers"][0]  # the spec's strategy
        inventor = 22e9 / rate
        needed = (1.96 * main["std_dev"] / 1e-6) ** 2
        kind = "exact" if main["exact"] else "simulated"
        print(f"  {r['spec']} ({kind}, {r['seconds']:,.0f} s): the inventor's 22e9 hands {inventor:,.0f} s "
              f"(ratio {inventor / r['seconds']:,.0f}x); +-1e-6 on the edge needs {needed:.2g} rounds = "
              f"{needed / rate / 86400:,.0f} days (ratio {needed / rate / r['seconds']:,.0f}x)")

if __name__ == "__main__":
    main()
