"""Hand-evaluation benchmark: this project against phevaluator, eval7 and treys.

    python bench/hands.py                 # random 7-card rate, all 5-card hands, ratios
    python bench/hands.py --full          # also every one of the 133,784,560 7-card hands

The same random hands go through every evaluator. Ours runs in batch on one core
(``rank_batch``, serial kernel); the other libraries evaluate one hand per Python call, so they
are timed on a smaller sample of the same hands and their rate is extrapolated. Each library's
answers are also checked against ours, order for order, on its sample.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from certify import hands
from certify.cards import card_str

SEVEN_CARD_COUNTS = (4324, 37260, 224848, 3473184, 4047644, 6180020, 6461620, 31433400, 58627800, 23294460)


@njit(cache=True)
def _deal(n_hands, k, seed):
    """n_hands hands of k distinct cards: the first k positions of a Fisher-Yates shuffle."""
    np.random.seed(seed)
    out = np.empty((n_hands, k), np.uint8)
    deck = np.arange(52).astype(np.uint8)
    for i in range(n_hands):
        for j in range(k):
            r = j + np.random.randint(0, 52 - j)
            deck[j], deck[r] = deck[r], deck[j]
            out[i, j] = deck[j]
    return out


def best_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def same_order(ours: np.ndarray, theirs: np.ndarray, larger_is_better: bool) -> bool:
    order = np.argsort(ours, kind="stable")
    d_ours = np.diff(ours[order].astype(np.int64))
    d_theirs = np.diff(theirs[order].astype(np.int64)) * (1 if larger_is_better else -1)
    return bool(np.array_equal(d_ours > 0, d_theirs > 0) and np.array_equal(d_ours == 0, d_theirs == 0))


def other_libraries():
    """(name, converter from our card ints to its card objects, evaluator, larger_is_better)."""
    libs = []
    try:
        import phevaluator
        from phevaluator import _pheval

        libs.append(("phevaluator evaluate_cards", list, lambda c: phevaluator.evaluate_cards(*c), False))
        libs.append(("phevaluator C core (_pheval)", list,
                     lambda c: (_pheval.evaluate_5cards if len(c) == 5 else _pheval.evaluate_7cards)(*c), False))
    except ImportError:
        print("phevaluator not installed: skipped")
    try:
        import eval7

        libs.append(("eval7", lambda c: [eval7.Card(card_str(x)) for x in c], eval7.evaluate, True))
    except ImportError:
        print("eval7 not installed: skipped")
    try:
        from treys import Card, Evaluator

        evaluator = Evaluator()
        libs.append(("treys", lambda c: [Card.new(card_str(x)) for x in c],
                     lambda c: evaluator.evaluate(c[:2], c[2:]), False))
    except ImportError:
        print("treys not installed: skipped")
    return libs


def time_library(convert, evaluate, sample: np.ndarray) -> tuple[float, np.ndarray]:
    """Seconds per hand (cards converted beforehand, not timed) and the library's answers."""
    converted = [convert(row) for row in sample.tolist()]
    t0 = time.perf_counter()
    answers = [evaluate(c) for c in converted]
    seconds = time.perf_counter() - t0
    return seconds / len(sample), np.array(answers, np.int64)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=10_000_000, help="random 7-card hands for this project")
    parser.add_argument("--sample", type=int, default=200_000, help="hands for each other library")
    parser.add_argument("--repeats", type=int, default=5, help="timing repeats (the best is reported)")
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--full", action="store_true", help="also enumerate all 133,784,560 7-card hands")
    args = parser.parse_args()

    seven = _deal(args.hands, 7, args.seed)
    five_all = hands.all_five_card_hands()
    five_sample = _deal(args.sample, 5, args.seed + 1)
    hands.rank_batch(seven[:10]), hands.rank_batch(five_all[:10])  # compile / load from cache

    ours7 = best_time(lambda: hands.rank_batch(seven), args.repeats) / len(seven)
    ours5_all = best_time(lambda: hands.rank_batch(five_all), args.repeats)
    ours7_values = hands.rank_batch(seven[: args.sample])
    ours5_values = hands.rank_batch(five_sample)
    print(f"this project (certify.hands.rank_batch, one core, best of {args.repeats}):")
    print(f"  random 7-card hands: {1 / ours7 / 1e6:8.1f} M/s  ({len(seven):,} hands)")
    print(f"  all 2,598,960 five-card hands: {ours5_all:.4f} s  ({len(five_all) / ours5_all / 1e6:.1f} M/s)")
    print(f"  goals: >= 50 M/s 7-card -> {'met' if 1 / ours7 >= 50e6 else 'NOT met'};"
          f" < 0.1 s all 5-card -> {'met' if ours5_all < 0.1 else 'NOT met'}")
    print()
    header = f"{'library':30} {'7-card M/s':>11} {'ours x':>8} {'5-card all (s)':>15} {'ours x':>8}  same order"
    print(header)
    print("-" * len(header))
    print(f"{'certify.hands':30} {1 / ours7 / 1e6:11.2f} {1:8.0f} {ours5_all:15.4f} {1:8.0f}  -")
    for name, convert, evaluate, larger_is_better in other_libraries():
        per7, theirs7 = time_library(convert, evaluate, seven[: args.sample])
        per5, theirs5 = time_library(convert, evaluate, five_sample)
        all5 = per5 * len(five_all)
        agree = same_order(ours7_values, theirs7, larger_is_better) and same_order(ours5_values, theirs5, larger_is_better)
        print(f"{name:30} {1 / per7 / 1e6:11.2f} {per7 / ours7:8.0f} {all5:15.2f} {all5 / ours5_all:8.0f}  "
              f"{'yes' if agree else 'NO'}")
    print(f"(other libraries: {args.sample:,} hands each, one Python call per hand, cards converted to the "
          "library's own objects beforehand; 5-card totals extrapolated from the sample rate)")

    if args.full:
        print()
        t0 = time.perf_counter()
        counts = hands.seven_card_category_counts()
        seconds = time.perf_counter() - t0
        total = int(counts.sum())
        print(f"all {total:,} seven-card hands in {seconds:.2f} s ({total / seconds / 1e6:.1f} M/s, one core)")
        for category in reversed(hands.Category):
            print(f"  {hands.CATEGORY_NAMES[category]:15} {int(counts[category]):>12,}")
        match = tuple(int(c) for c in counts[::-1]) == SEVEN_CARD_COUNTS
        print(f"  matches the published counts: {'yes' if match else 'NO'}")


if __name__ == "__main__":
    main()
