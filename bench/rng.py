"""Benchmark the certified RNG against the tools people use today.

    /work/venv/bin/python bench/rng.py [--quick]

Bytes per second of each DRBG in bulk against os.urandom and numpy's PCG64, and 52-card
shuffles per second (deal_batch fed by CTR_DRBG) against numpy's Generator.permutation,
numpy's batched Generator.permuted and random.shuffle. Everything runs on one core; each
figure is amount / CPU time, best of a few repeats (the machine is shared: wall time would
count other processes, and single runs are noisy).
Goals: CTR_DRBG >= 1 GB/s in bulk; >= 5 million full 52-card shuffles per second.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

# Run as a script, this file's folder comes first on sys.path and "rng" would be this file.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

from rng.drbg import CtrDrbg, HmacDrbg  # noqa: E402
from rng.shuffle import deal_batch  # noqa: E402
from rng.streams import stream  # noqa: E402

MIB = 1 << 20


def best_rate(work, amount, repeats):
    """amount / best CPU time of ``work()`` over ``repeats`` runs.

    CPU time of this (single-threaded) process, not wall time: on a shared machine the wall
    clock also counts the time other processes hold the core.
    """
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return amount / best


def bulk_bytes(fill, total_bytes):
    def work():
        for _ in range(total_bytes // MIB):
            fill()
    return work


def byte_rates(total, repeats):
    ctr = CtrDrbg(os.urandom(32), os.urandom(16))
    ctr_nodf = CtrDrbg(os.urandom(48), b"", derivation_function=False)
    hmac = HmacDrbg(os.urandom(32), os.urandom(16))
    pcg = np.random.Generator(np.random.PCG64(1))
    buffer = bytearray(MIB)
    small = max(total // 32, MIB)  # HMAC_DRBG is ~100x slower: measure less of it
    return {
        "CTR_DRBG AES-256 df, generate_into (1 MiB requests)": best_rate(bulk_bytes(lambda: ctr.generate_into(buffer), total), total, repeats),
        "CTR_DRBG AES-256 df, generate -> bytes (1 MiB)": best_rate(bulk_bytes(lambda: ctr.generate(MIB), total), total, repeats),
        "CTR_DRBG AES-256 no df, generate_into (1 MiB)": best_rate(bulk_bytes(lambda: ctr_nodf.generate_into(buffer), total), total, repeats),
        "HMAC_DRBG SHA-256, generate_into (1 MiB)": best_rate(bulk_bytes(lambda: hmac.generate_into(buffer), small), small, repeats),
        "os.urandom (1 MiB calls)": best_rate(bulk_bytes(lambda: os.urandom(MIB), total), total, repeats),
        "numpy PCG64 Generator.bytes (1 MiB calls)": best_rate(bulk_bytes(lambda: pcg.bytes(MIB), total), total, repeats),
        "numpy PCG64 bit_generator.random_raw (1 MiB calls)": best_rate(
            bulk_bytes(lambda: pcg.bit_generator.random_raw(MIB // 8), total), total, repeats),
    }


def shuffle_rates(n_decks, repeats):
    deal_batch(stream(1, 0), 10)  # compile (or load the numba cache) outside the timing
    pcg = np.random.Generator(np.random.PCG64(1))
    n_small = max(n_decks // 20, 1000)
    decks = np.tile(np.arange(52, dtype=np.uint8), (n_decks, 1))
    deck = list(range(52))

    def permutation_loop():
        for _ in range(n_small):
            pcg.permutation(52)

    def random_shuffle_loop():
        for _ in range(n_small):
            random.shuffle(deck)

    chunk = 200_000

    def chunked():  # how the simulator calls it: one CTR_DRBG sub-stream per chunk
        for index in range(n_decks // chunk):
            deal_batch(stream(1, index), chunk)

    return {
        "deal_batch full 52-card shuffles, CTR_DRBG": best_rate(chunked, n_decks // chunk * chunk, repeats),
        f"  the same, one call of {n_decks:,} decks": best_rate(lambda: deal_batch(stream(1, 1), n_decks), n_decks, repeats),
        "deal_batch 7 cards of 52 (hold'em), CTR_DRBG": best_rate(lambda: deal_batch(stream(1, 2), n_decks, 7), n_decks, repeats),
        "numpy Generator.permutation(52), one deck a call": best_rate(permutation_loop, n_small, repeats),
        "numpy Generator.permuted(decks, axis=1), batched": best_rate(lambda: pcg.permuted(decks, axis=1), n_decks, repeats),
        "random.shuffle (Mersenne Twister)": best_rate(random_shuffle_loop, n_small, repeats),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller volumes (a few seconds)")
    args = parser.parse_args()
    total = (64 if args.quick else 512) * MIB
    n_decks = 200_000 if args.quick else 2_000_000
    repeats = 3

    print(f"one core; rates per CPU-second, best of {repeats}; load average now {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n")
    rates = byte_rates(total, repeats)
    reference = rates["numpy PCG64 bit_generator.random_raw (1 MiB calls)"]
    urandom = rates["os.urandom (1 MiB calls)"]
    print(f"{'random bytes':55s} {'MB/s':>9s} {'x urandom':>10s} {'x PCG64':>8s}")
    for name, rate in rates.items():
        print(f"{name:55s} {rate / 1e6:9.0f} {rate / urandom:10.2f} {rate / reference:8.2f}")

    rates = shuffle_rates(n_decks, repeats)
    ours = rates["deal_batch full 52-card shuffles, CTR_DRBG"]
    print("\n(deal_batch in chunks of 200,000 decks, a CTR_DRBG sub-stream each, as certify.simulate does)")
    print(f"\n{'52-card decks':55s} {'decks/s':>12s} {'ours / it':>10s}")
    for name, rate in rates.items():
        print(f"{name:55s} {rate:12,.0f} {ours / rate:10.2f}")
    print("\ngoals: CTR_DRBG >= 1000 MB/s in bulk; >= 5,000,000 full 52-card shuffles/s on one core")


if __name__ == "__main__":
    main()
