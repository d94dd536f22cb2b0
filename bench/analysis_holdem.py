"""Texas Hold'em Bonus PAR-sheet benchmark: our exact computation against the usual brute force.

    python bench/analysis_holdem.py            # baseline only (seconds)
    python bench/analysis_holdem.py --full     # also time both specs' full exact computation

``bench/analysis.py`` times every spec's PAR sheet (including the two Hold'em Bonus specs) and
calls ``baseline`` below for the comparison.

The baseline is how such a game is usually counted: for every player hole and every 5-card board,
evaluate every one of the 990 dealer holes (and the player's hand) and compare. It is timed on a
sample of (player hole, board) pairs with eval7 (one Python call per hand) and with this project's
compiled evaluator (over the 169 suit classes, the same reduction ours uses); its win/tie counts
are checked equal to ours on every sampled pair, and the full time is extrapolated. The ratio is
baseline time / our time. The brute force would still need the Turn/River decision passes on top.
"""

from __future__ import annotations

import argparse
import sys
import time
from itertools import combinations
from math import comb
from pathlib import Path

import numpy as np
from numba import njit

# Run as a script, this file's folder comes first on sys.path and bench/rng.py would shadow the rng package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from certify import hands  # noqa: E402
from certify.rules import board_streets as hb  # noqa: E402
from certify.rules import board_streets_kernel as kernel  # noqa: E402

SPECS = ["texas_holdem_bonus", "texas_holdem_bonus_2x"]
PAIRS_WITH_CLASSES = 169 * comb(50, 5)  # (player class, board) pairs in the exact computation
PAIRS_ALL_HOLES = comb(52, 2) * comb(50, 5)


@njit(cache=True)
def _brute_force_pair(hole0, hole1, board, rest):
    """Wins and ties of the player's hole against every dealer hole from ``rest``."""
    mine = hands.eval7_nb(board[0], board[1], board[2], board[3], board[4], hole0, hole1)
    wins = ties = 0
    for i in range(rest.size):
        for j in range(i + 1, rest.size):
            theirs = hands.eval7_nb(board[0], board[1], board[2], board[3], board[4], rest[i], rest[j])
            if mine > theirs:
                wins += 1
            elif mine == theirs:
                ties += 1
    return wins, ties


def _sample(pairs: int, seed: int = 2024):
    rng = np.random.default_rng(seed)
    classes = hb.hole_classes()
    out = []
    for _ in range(pairs):
        cls = classes[int(rng.integers(len(classes)))]
        rest = np.array([c for c in range(52) if c not in cls.cards], dtype=np.int64)
        board = np.sort(rng.choice(rest, 5, replace=False))
        dealer_cards = np.array([c for c in rest if c not in board], dtype=np.int64)
        out.append((cls, board, dealer_cards))
    return out


def baseline(pairs: int = 2000, eval7_pairs: int = 3) -> dict:
    """Per-pair brute-force times (numba and eval7), checked against our showdown counts."""
    sample = _sample(pairs)
    reps = np.array([cls.cards for cls, _, _ in sample], dtype=np.int64)
    boards = np.array([board for _, board, _ in sample], dtype=np.int64)
    ours = kernel.showdown_codes(np.arange(52, dtype=np.int64), reps, boards, 0, 2)  # no qualifier
    cls0, board0, rest0 = sample[0]
    _brute_force_pair(cls0.cards[0], cls0.cards[1], board0, rest0)  # compile
    t0 = time.perf_counter()
    got = [_brute_force_pair(cls.cards[0], cls.cards[1], board, rest) for cls, board, rest in sample]
    numba_per_pair = (time.perf_counter() - t0) / pairs
    for k, (wins, ties) in enumerate(got):
        code = int(ours[k, k])
        if (wins, ties) != (code & kernel.COUNT_MASK, (code >> kernel.TIE_SHIFT) & kernel.COUNT_MASK):
            raise AssertionError(f"brute force {(wins, ties)} != inclusion-exclusion on pair {k}")
    result = {"numba_brute_force_seconds_per_pair": numba_per_pair}
    try:
        import eval7
    except ImportError:
        return result
    if eval7_pairs <= 0:  # --eval7-pairs 0: no eval7 baseline (as bench/analysis.py)
        return result
    deck = [eval7.Card(r + s) for r in "23456789TJQKA" for s in "cdhs"]  # our order: 4 * rank + suit
    t0 = time.perf_counter()
    for k in range(eval7_pairs):
        cls, board, rest = sample[k]
        b = [deck[int(c)] for c in board]
        mine = eval7.evaluate(b + [deck[cls.cards[0]], deck[cls.cards[1]]])
        wins = ties = 0
        for x, y in combinations(rest, 2):
            theirs = eval7.evaluate(b + [deck[int(x)], deck[int(y)]])
            wins += mine > theirs
            ties += mine == theirs
        if (wins, ties) != got[k]:
            raise AssertionError(f"eval7 brute force {(wins, ties)} != ours {got[k]} on pair {k}")
    result["eval7_brute_force_seconds_per_pair"] = (time.perf_counter() - t0) / eval7_pairs
    return result


def report(ours_seconds: float, b: dict) -> list[str]:
    lines = ["baseline for a Hold'em Bonus cycle: evaluate all 990 dealer holes per (player hole, board);"
             " win/tie counts checked equal to ours on every sampled pair"]
    numba_full = b["numba_brute_force_seconds_per_pair"] * PAIRS_WITH_CLASSES
    lines.append(f"  this project's evaluator, suit classes, 1 core: {numba_full:,.0f} s extrapolated "
                 f"(ratio {numba_full / ours_seconds:,.1f}x)")
    if "eval7_brute_force_seconds_per_pair" in b:
        eval7_full = b["eval7_brute_force_seconds_per_pair"] * PAIRS_ALL_HOLES
        lines.append(f"  eval7, every player hole: {eval7_full:,.0f} s = {eval7_full / 86400:,.0f} days "
                     f"extrapolated (ratio {eval7_full / ours_seconds:,.0f}x)")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", action="store_true", help="also run both specs' exact computation")
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--eval7-pairs", type=int, default=3)
    args = parser.parse_args()
    ours = None
    if args.full:
        from certify.spec import load_spec

        for name in SPECS:
            t0 = time.perf_counter()
            sheet = hb.par_sheet(load_spec(name))
            seconds = time.perf_counter() - t0
            ours = seconds if ours is None else min(ours, seconds)
            edges = "; ".join(f"{w.name}: {100 * float(w.house_edge):.4f}%" for w in sheet.wagers)
            print(f"{name:<24} {seconds:8.1f} s  {edges}")
    b = baseline(args.pairs, args.eval7_pairs)
    print(f"numba brute force: {b['numba_brute_force_seconds_per_pair'] * 1e6:.1f} us per pair"
          + (f"; eval7: {b['eval7_brute_force_seconds_per_pair'] * 1e3:.1f} ms per pair"
             if "eval7_brute_force_seconds_per_pair" in b else ""))
    if ours is not None:
        print("\n".join(report(ours, b)))


if __name__ == "__main__":
    main()
