"""Benchmark bulk play: rounds per second per core, from the certified DRBG to the tallies.

    /work/venv/bin/python bench/simulate.py [--rounds N] [--baseline-rounds M]

For each spec, the simulator's own chunk function (``certify.simulate.run_chunk``: a CTR_DRBG
sub-stream, the batched Fisher-Yates deal, the compiled kernel, the tallies) on one process, as
CPU time of this process (the machine may be shared). Against it, the way such a simulation is
written today: a Python loop with ``random.shuffle`` and eval7 (a Cython evaluator) settling
each round, for Caribbean Stud and Texas Hold'em Bonus. Prints rates and ratios.
Goals: >= 1,000,000 Caribbean Stud and >= 300,000 Texas Hold'em Bonus rounds per second per core.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

from certify import simulate as sim  # noqa: E402
from certify.spec import resolve_spec_path  # noqa: E402

SPECS = ("caribbean_stud", "casino_stud", "five_card_mulligan", "five_card_mulligan_online",
         "texas_holdem_bonus", "texas_holdem_bonus_2x")


def ours(spec: str, rounds: int) -> float:
    """Rounds per CPU second of the simulator's chunk pipeline on one process."""
    path = resolve_spec_path(spec)
    config = sim.RunConfig(str(path), sim.file_sha256(path), rounds, seed=1)
    sim.run_chunk(config, 0, 4096)  # compile / load the kernels first
    best = float("inf")
    for repeat in range(3):
        start = time.process_time()
        for index, n in config.chunks:
            sim.run_chunk(config, index, n)
        best = min(best, time.process_time() - start)
    return rounds / best


def _eval7_cards():
    import eval7

    return [eval7.Card(r + s) for r in "23456789TJQKA" for s in "cdhs"], eval7.evaluate


def baseline_stud(rounds: int) -> float:
    """A Python loop as a consultant writes it: shuffle, evaluate both hands, settle AKJ83 play."""
    deck, evaluate = _eval7_cards()
    threshold = evaluate([deck[i] for i in (48, 44, 36, 24, 5)])  # A K J 8 3 (eval7: larger is better)
    ak = evaluate([deck[i] for i in (48, 44, 0, 5, 9)])  # A K 4 3 2: the weakest qualifying hand
    rng = random.Random(1)
    net = 0
    start = time.process_time()
    for _ in range(rounds):
        rng.shuffle(deck)
        p, d = evaluate(deck[0:5]), evaluate(deck[5:10])
        if p < threshold:
            net -= 1
        elif d < ak:
            net += 1
        elif p > d:
            net += 3
        elif p < d:
            net -= 3
    return rounds / (time.process_time() - start)


def baseline_holdem(rounds: int) -> float:
    """The same for hold'em: shuffle, evaluate both seven-card hands, settle Flop bet only."""
    deck, evaluate = _eval7_cards()
    rng = random.Random(1)
    net = 0
    start = time.process_time()
    for _ in range(rounds):
        rng.shuffle(deck)
        board = deck[4:9]
        p, d = evaluate(deck[0:2] + board), evaluate(deck[2:4] + board)
        net += (p > d) - (p < d)
    return rounds / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1 << 21, help="rounds per spec for this project")
    parser.add_argument("--baseline-rounds", type=int, default=50_000, help="rounds for the Python baselines")
    args = parser.parse_args()
    rates = {}
    print(f"{'spec':<28} {'rounds/s per core':>20}")
    for spec in SPECS:
        rates[spec] = ours(spec, args.rounds)
        print(f"{spec:<28} {rates[spec]:>20,.0f}")
    print()
    for label, spec, base in (("Caribbean Stud", "caribbean_stud", baseline_stud),
                              ("Texas Hold'em Bonus", "texas_holdem_bonus", baseline_holdem)):
        b = base(args.baseline_rounds)
        print(f"{label}: this project {rates[spec]:,.0f}/s vs Python loop + random.shuffle + eval7 "
              f"{b:,.0f}/s: {rates[spec] / b:,.0f}x")
    print(f"\ngoals: Caribbean Stud >= 1,000,000/s: {'met' if rates['caribbean_stud'] >= 1e6 else 'NOT met'}; "
          f"Texas Hold'em Bonus >= 300,000/s: {'met' if rates['texas_holdem_bonus'] >= 3e5 else 'NOT met'}")


if __name__ == "__main__":
    main()
