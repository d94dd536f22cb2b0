"""Benchmark bulk play: rounds per second per core, from the certified DRBG to the tallies.

    /work/venv/bin/python bench/simulate.py [--rounds N] [--baseline-rounds M]
    /work/venv/bin/python bench/simulate.py --family [--rounds N]

For each spec, the simulator's own chunk function (``certify.simulate.run_chunk``: a CTR_DRBG
sub-stream, the batched Fisher-Yates deal, the compiled kernel, the tallies) on one process, as
CPU time of this process (the machine may be shared). Against it, the way such a simulation is
written today: a Python loop with ``random.shuffle`` and eval7 (a Cython evaluator) settling
each round, for Caribbean Stud and Texas Hold'em Bonus. Prints rates and ratios.
Goals: >= 1,000,000 Caribbean Stud and >= 300,000 Texas Hold'em Bonus rounds per second per core.

``--family``: the bulk loop of the rules model against the per-family kernel it replaced (issue 14:
at least as fast), on the same decks (chunk 0 of seed 1): the family kernels are read from git
history (``FAMILY_REV:certify/games/kernels.py``, the last commit with all three) and compiled in a
temporary folder; their parameters are the rules-model kernel's own, mapped one to one. Each loop
alone, best CPU time of ``REPEATS`` passes over 2^17 decks, scaled to ``--rounds``; the Hold'em
Bonus and Mulligan events are compared round for round (stud's event numbering differs: timed only).
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


FAMILY_REV = "29bc631^"  # before the stud family was retired: stud, mulligan and holdem_bonus kernels
REPEATS = 40


def family_module():
    """The retired family kernels, compiled from git history in a temporary folder."""
    import importlib.util
    import subprocess
    import tempfile

    root = Path(__file__).resolve().parents[1]
    text = subprocess.run(["git", "show", f"{FAMILY_REV}:certify/games/kernels.py"], cwd=root, check=True,
                          capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp(prefix="family-kernels-")) / "family_kernels.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("family_kernels", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["family_kernels"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def family_pairs(family):
    """(label, spec, cards, ours(decks, ev, dealt), theirs(decks, ev, dealt), compare events)."""
    import numpy as np

    from certify.rules import board_sim
    from certify.rules import kernel as rk
    from certify.spec import load_spec

    p = rk.rules_kernel(load_spec("texas_holdem_bonus")).params
    yield ("Texas Hold'em Bonus", "texas_holdem_bonus", 9,
           lambda d, ev, dl: board_sim.play_street_rounds(
               d, p["fold"], p["levels"], p["at_least"], p["straight"], p["strong"], p["candidates"],
               p["dealer_masks"], p["first_lines"], p["side_lines"], p["side_fold"], p["side_paid_on_fold"], ev, dl),
           lambda d, ev, dl: family._holdem_rounds(d, p["fold"], *p["at_least"], p["strong"],
                                                   bool(p["side_paid_on_fold"][0]), ev, dl), True)
    m = rk.rules_kernel(load_spec("five_card_mulligan")).params
    yield ("Five Card Mulligan", "five_card_mulligan", 20,
           lambda d, ev, dl: rk._play_replacement_rounds(d, m, ev, dl),
           lambda d, ev, dl: family._mulligan_rounds(d, m["stand"], m["dealer_stands"], m["bonus_paid"],
                                                     m["bonus_when"], m["bonus_lost_on_mulligan"],
                                                     m["bonus_on_final_hand"], ev, dl), True)
    s = rk.rules_kernel(load_spec("caribbean_stud")).params
    has_prog = s["side_index"].shape[0] > 0
    prog_paid = (s["side_index"][0] + 1) if has_prog else np.zeros(10, np.int64)
    yield ("Caribbean Stud", "caribbean_stud", 10,
           lambda d, ev, dl: rk._play(d, s["k"], s["three_card"], s["qualify"], s["rule_value"], s["rule_option"],
                                      s["index"], s["fold"], s["side_index"], s["side_fold"],
                                      s["side_paid_on_fold"], ev, dl),
           lambda d, ev, dl: family._stud_rounds(d, int(s["rule_value"][0]), s["qualify"], prog_paid, has_prog,
                                                 bool(has_prog and s["side_paid_on_fold"][0]), ev, dl), False)


def versus_family(rounds: int) -> None:
    import numpy as np

    family = family_module()
    print(f"{'spec':<22} {'rules model':>12} {'family':>12} {'ratio':>7}  (CPU s per {rounds:,} rounds; "
          f"best of {REPEATS} x 2^17 decks)")
    for label, spec, cards, ours_loop, theirs_loop, compare in family_pairs(family):
        decks = sim.deal_chunk(1, 0, 1 << 17, cards)
        best = {}
        outputs = {}
        for name, loop in (("ours", ours_loop), ("theirs", theirs_loop)):
            ev, dealt = np.zeros((len(decks), 2), np.int8), np.zeros(len(decks), np.int8)
            loop(decks, ev, dealt)  # compile / load
            outputs[name] = ev.copy(), dealt.copy()
        for _ in range(REPEATS):
            for name, loop in (("ours", ours_loop), ("theirs", theirs_loop)):
                start = time.process_time()
                loop(decks, ev, dealt)
                best[name] = min(best.get(name, float("inf")), time.process_time() - start)
        scale = rounds / len(decks)
        same = ""
        if compare:
            same = "  events identical" if all((a == b).all() for a, b in zip(outputs["ours"], outputs["theirs"])) \
                else "  EVENTS DIFFER"
        print(f"{label:<22} {best['ours'] * scale:12.4f} {best['theirs'] * scale:12.4f} "
              f"{best['theirs'] / best['ours']:6.2f}x{same}")


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
    parser.add_argument("--family", action="store_true",
                        help="the rules model's bulk loops against the retired family kernels (git history)")
    args = parser.parse_args()
    if args.family:
        versus_family(args.rounds)
        return
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
