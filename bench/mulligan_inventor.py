"""Why does the Five Card Mulligan inventor's return table disagree with ours?

A research reproduction, not part of the suite. The inventor's table (seed 002, a C++ simulation of
22 billion hands, house edge 3.152%) is read from fixtures/reference/mulligan_inventor_table.csv.
Each hypothesis below is a way his simulator may have differed from the spec (card flow, the
dealer's rule, the player's threshold, ties, hand evaluation, the shuffle). For each, one compiled
kernel plays the same number of rounds with the hypothesis' flags and tallies his 24 rows; the
distance to his table is sum over rows of ((his - ours) / sigma)^2, where sigma^2 is his binomial
variance at n = 22e9, plus ours at our n, plus the variance of his 6-decimal rounding.

    python bench/mulligan_inventor.py                       # every hypothesis, 20M rounds each
    python bench/mulligan_inventor.py --rounds 200000000 baseline naive_shuffle_rank_major
    python bench/mulligan_inventor.py --exact-standing      # his bet-1 rows against exact counts

Fair decks come from ``rng.shuffle.deal_batch`` on ``rng.streams.stream(seed, (hypothesis, batch))``.
All fair-deck hypotheses use the same decks (common random numbers), so their differences from the
baseline are sharper than their distances to the inventor.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit

# bench/rng.py (the RNG benchmark) would shadow the rng package when run as a script
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from certify.hands import eval5_nb
from rng.shuffle import deal_batch
from rng.streams import stream

REFERENCE = Path(__file__).resolve().parent.parent / "fixtures" / "reference" / "mulligan_inventor_table.csv"
HIS_HANDS = 22e9
BATCH = 1 << 20

# his rows: 0..9 bet-1 wins by category, 10..19 bet-2 wins, 20/21 losses bet 1/2, 22/23 pushes
LOSE1, LOSE2, PUSH1, PUSH2 = 20, 21, 22, 23
ROW_PAYS = np.array([1, 1, 1, 1, 1, 1, 3, 10, 50, 100] + [2, 2, 2, 2, 2, 2, 6, 20, 100, 200]
                    + [-1, -2, 0, 0], dtype=np.float64)


@njit(cache=True)
def pack(category, r0=0, r1=0, r2=0, r3=0, r4=0):
    """A hand value in certify.hands' layout: category above five 4-bit tie-break ranks."""
    return (category << 20) | (r0 << 16) | (r1 << 12) | (r2 << 8) | (r3 << 4) | r4


ACE, KING, QUEEN = 12, 11, 10
AK954 = pack(0, ACE, KING, 7, 3, 2)      # ranks 0..12 are 2..A
ACE_HIGH = pack(0, ACE)                  # every ace-high hand is at least this
ACE_KING = pack(0, ACE, KING)
KING_HIGH = pack(0, KING)
QUEEN_HIGH = pack(0, QUEEN)
PAIR = pack(1)

# card flows
STANDARD = 0              # player's new five and the dealer's new five from the stub
DEALER_FRESH_DECK = 1     # the dealer's new five from a new full deck
DEALER_PLAYER_DISCARDS = 2  # player's discards shuffled back before the dealer redraws
DEALER_ALL_DISCARDS = 3   # both players' discards back: dealer draws from 52 - player's hand
PLAYER_DISCARDS_BACK = 4  # the player's discards go back before he draws his new five
DEALER_FIRST = 5          # the dealer redraws before the player's new cards are dealt
DEALER_FIRST_DISCARDS_BACK = 6  # ... and the dealer's discards go back before the player draws
INDEPENDENT_HANDS = 7     # every five-card hand from its own fresh deck (cards may repeat across hands)

# evaluation bugs (bit flags)
WHEEL_NOT_STRAIGHT = 1    # A-2-3-4-5 is ace-high nothing (flush if suited)
WHEEL_ACE_HIGH = 2        # A-2-3-4-5 is a straight ranked like A-K-Q-J-T
STRAIGHT_OVER_FLUSH = 4   # straight and flush swapped in the ranking
BROADWAY_NOT_STRAIGHT = 8  # ace only low: A-K-Q-J-T is ace-high nothing (flush if suited)
TOP_RANK_ONLY = 16        # hands compared by category and first rank only; the dealer takes the rest
TOP_TWO_RANKS = 32        # ... by category and first two ranks


@dataclass(frozen=True)
class Hypothesis:
    name: str
    text: str
    flow: int = STANDARD
    dealer_stands: int = ACE_HIGH
    player_stands: int = AK954
    bugs: int = 0
    ties_lose: bool = False
    deck: str = "fair"  # fair, independent, naive_rank, naive_suit, msvc_rank, msvc_suit, mod15_rank, mod15_suit
    extra: dict = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------
# The compiled round.
# ---------------------------------------------------------------------------------------------
@njit(cache=True)
def buggy_value(c0, c1, c2, c3, c4, bugs):
    v = eval5_nb(c0, c1, c2, c3, c4)
    if bugs == 0:
        return v
    cat = v >> 20
    top = (v >> 16) & 15
    if (bugs & WHEEL_NOT_STRAIGHT) and (cat == 4 or cat == 8) and top == 3:
        v = pack(0 if cat == 4 else 5, ACE, 3, 2, 1, 0)
    elif (bugs & WHEEL_ACE_HIGH) and (cat == 4 or cat == 8) and top == 3:
        v = pack(cat, ACE)
    elif (bugs & BROADWAY_NOT_STRAIGHT) and (cat == 4 and top == ACE or cat == 9):
        v = pack(0 if cat == 4 else 5, ACE, KING, QUEEN, 9, 8)
    cat = v >> 20
    if (bugs & STRAIGHT_OVER_FLUSH) and (cat == 4 or cat == 5):
        v = (v & 0xFFFFF) | ((9 - cat) << 20)
    return v


@njit(cache=True)
def _pick5(deck, start, excluded, out):
    """The first five cards of deck[start:] not in the bit mask ``excluded``; returns the next start.
    A uniform five of the complement, since deck is a uniform random order."""
    k = 0
    i = start
    while k < 5:
        c = deck[i]
        if not (excluded >> np.uint64(c)) & np.uint64(1):
            out[k] = c
            k += 1
        i += 1
    return i


@njit(cache=True)
def _mask(cards):
    m = np.uint64(0)
    for c in cards:
        m |= np.uint64(1) << np.uint64(c)
    return m


@njit(cache=True)
def play(a, b, flow, dealer_stands, player_stands, bugs, ties_lose, tally):
    """Play len(a) rounds; a: 20 cards of a deck (player, dealer, 10 more), b: 20 cards of a second,
    independent deck for the flows that shuffle cards back. Adds to tally[24] (his rows)."""
    p = np.empty(5, np.int64)
    d = np.empty(5, np.int64)
    for r in range(a.shape[0]):
        for i in range(5):
            p[i] = a[r, i]
            d[i] = a[r, 5 + i]
        v = buggy_value(p[0], p[1], p[2], p[3], p[4], bugs)
        mulligan = v < player_stands
        dv = buggy_value(d[0], d[1], d[2], d[3], d[4], bugs)
        redraw = dv < dealer_stands
        old = _mask(p)
        nxt = 0  # next unused card of b
        if mulligan and not (flow == DEALER_FIRST or flow == DEALER_FIRST_DISCARDS_BACK):
            if flow == PLAYER_DISCARDS_BACK:
                nxt = _pick5(b[r], 0, _mask(d), p)
            else:
                for i in range(5):
                    p[i] = a[r, 10 + i]
        if redraw:
            if flow == STANDARD or flow == INDEPENDENT_HANDS:
                for i in range(5):
                    d[i] = a[r, 15 + i]
            elif flow == DEALER_FRESH_DECK:
                for i in range(5):
                    d[i] = b[r, i]
            elif flow == DEALER_PLAYER_DISCARDS:
                _pick5(b[r], 0, _mask(p) | _mask(d), d)
            elif flow == DEALER_ALL_DISCARDS:
                _pick5(b[r], 0, _mask(p), d)
            elif flow == PLAYER_DISCARDS_BACK:
                # the deck is 52 - dealer's five - player's new five (his old five are back in it)
                _pick5(b[r], nxt, _mask(p) | _mask(d), d)
            else:  # DEALER_FIRST*: the dealer takes the next five before the player
                for i in range(5):
                    d[i] = a[r, 10 + i]
            dv = buggy_value(d[0], d[1], d[2], d[3], d[4], bugs)
        if mulligan and (flow == DEALER_FIRST or flow == DEALER_FIRST_DISCARDS_BACK):
            if flow == DEALER_FIRST:
                for i in range(5):
                    p[i] = a[r, 15 + i]
            else:  # the dealer's discards are back: 52 - player's old five - dealer's hand
                _pick5(b[r], 0, old | _mask(d), p)
        if mulligan:
            v = buggy_value(p[0], p[1], p[2], p[3], p[4], bugs)
        base = 10 if mulligan else 0
        if v != dv and bugs & (TOP_RANK_ONLY | TOP_TWO_RANKS):
            shift = 16 if bugs & TOP_RANK_ONLY else 12
            if (v >> shift) == (dv >> shift):  # a "tie" the buggy comparison gives the dealer
                dv = v + 1
        if v > dv:
            tally[base + (v >> 20)] += 1
        elif v == dv and not ties_lose:
            tally[PUSH2 if mulligan else PUSH1] += 1
        else:
            tally[LOSE2 if mulligan else LOSE1] += 1


# ---------------------------------------------------------------------------------------------
# Decks: fair (this project's shuffle) and the biased shuffles a C++ simulator may have used.
# ---------------------------------------------------------------------------------------------
@njit(cache=True)
def _ordered_deck(suit_major):
    deck = np.empty(52, np.int64)
    for i in range(52):
        deck[i] = 4 * (i % 13) + i // 13 if suit_major else i  # a card is 4 * rank + suit
    return deck


@njit(cache=True)
def naive_shuffle_decks(words, suit_major, out):
    """Swap every position with a uniform position of the whole deck (52^52 paths: biased)."""
    for r in range(out.shape[0]):
        deck = _ordered_deck(suit_major)
        for i in range(52):
            j = (np.uint64(words[r, i]) * np.uint64(52)) >> np.uint64(32)
            t = deck[i]
            deck[i] = deck[j]
            deck[j] = t
        out[r, :] = deck[:20]


@njit(cache=True)
def msvc_rand_decks(state, suit_major, out):
    """Microsoft C rand() (15-bit LCG, period 2^32) and the textbook backward Fisher-Yates with
    rand() % (i + 1), a fresh ordered deck each round; returns the LCG state."""
    for r in range(out.shape[0]):
        deck = _ordered_deck(suit_major)
        for i in range(51, 0, -1):
            state = (state * np.uint64(214013) + np.uint64(2531011)) & np.uint64(0xFFFFFFFF)
            j = ((state >> np.uint64(16)) & np.uint64(0x7FFF)) % np.uint64(i + 1)
            t = deck[i]
            deck[i] = deck[j]
            deck[j] = t
        out[r, :] = deck[:20]
    return state


@njit(cache=True)
def mod15_decks(words, suit_major, out):
    """Backward Fisher-Yates with a 15-bit random number % (i + 1): good generator, modulo bias."""
    for r in range(out.shape[0]):
        deck = _ordered_deck(suit_major)
        for i in range(51, 0, -1):
            j = (np.uint64(words[r, 51 - i]) >> np.uint64(17)) % np.uint64(i + 1)
            t = deck[i]
            deck[i] = deck[j]
            deck[j] = t
        out[r, :] = deck[:20]


@njit(cache=True)
def sattolo_decks(words, suit_major, out):
    """The classic off-by-one: j = rand() % i instead of % (i + 1) (Sattolo: only 51-cycles)."""
    for r in range(out.shape[0]):
        deck = _ordered_deck(suit_major)
        for i in range(51, 0, -1):
            j = (np.uint64(words[r, 51 - i]) * np.uint64(i)) >> np.uint64(32)
            t = deck[i]
            deck[i] = deck[j]
            deck[j] = t
        out[r, :] = deck[:20]


@njit(cache=True)
def no_offset_decks(words, suit_major, out):
    """Forward Fisher-Yates missing the offset: j = rand() % (52 - i) instead of i + that."""
    for r in range(out.shape[0]):
        deck = _ordered_deck(suit_major)
        for i in range(51):
            j = (np.uint64(words[r, i]) * np.uint64(52 - i)) >> np.uint64(32)
            t = deck[i]
            deck[i] = deck[j]
            deck[j] = t
        out[r, :] = deck[:20]


@njit(cache=True)
def swaps_decks(words, suit_major, swaps, out):
    """A fresh ordered deck, then ``swaps`` transpositions of two uniform positions (under-mixed)."""
    for r in range(out.shape[0]):
        deck = _ordered_deck(suit_major)
        for s in range(swaps):
            i = (np.uint64(words[r, 2 * s]) * np.uint64(52)) >> np.uint64(32)
            j = (np.uint64(words[r, 2 * s + 1]) * np.uint64(52)) >> np.uint64(32)
            t = deck[i]
            deck[i] = deck[j]
            deck[j] = t
        out[r, :] = deck[:20]


def decks(h: Hypothesis, seed: int, batch: int, n: int, msvc: list):
    """(a, b): this batch's 20-card decks and the second, independent 20-card decks."""
    src = stream(seed, (0, batch))  # the same stream for every hypothesis: common random numbers
    if h.deck in ("fair", "independent"):
        if h.deck == "fair":
            a = deal_batch(src, n, 20)
        else:
            a = deal_batch(src, 4 * n, 5).reshape(n, 20)
        b = deal_batch(src, n, 20) if h.flow not in (STANDARD, DEALER_FIRST, INDEPENDENT_HANDS) else a
        return a, b
    a = np.empty((n, 20), np.int64)
    suit_major = h.deck.endswith("suit")
    if h.deck.startswith("naive"):
        naive_shuffle_decks(src.random_uint32(52 * n).reshape(n, 52), suit_major, a)
    elif h.deck.startswith("sattolo"):
        sattolo_decks(src.random_uint32(51 * n).reshape(n, 51), suit_major, a)
    elif h.deck.startswith("nooffset"):
        no_offset_decks(src.random_uint32(51 * n).reshape(n, 51), suit_major, a)
    elif h.deck.startswith("swaps"):
        swaps = h.extra["swaps"]
        swaps_decks(src.random_uint32(2 * swaps * n).reshape(n, 2 * swaps), suit_major, swaps, a)
    elif h.deck.startswith("mod15"):
        mod15_decks(src.random_uint32(51 * n).reshape(n, 51), suit_major, a)
    else:
        msvc[0] = msvc_rand_decks(np.uint64(msvc[0]), suit_major, a)
    return a, a


# ---------------------------------------------------------------------------------------------
# Hypotheses.
# ---------------------------------------------------------------------------------------------
def hypotheses() -> list[Hypothesis]:
    H = Hypothesis
    return [
        H("baseline", "the spec: stand AK954+, dealer stands A-high+, stub redraws, ties push"),
        H("dealer_fresh_deck", "dealer's new five from a new full deck", flow=DEALER_FRESH_DECK),
        H("dealer_with_player_discards", "player's discards reshuffled in before the dealer redraws",
          flow=DEALER_PLAYER_DISCARDS),
        H("dealer_with_all_discards", "all discards reshuffled in before the dealer redraws",
          flow=DEALER_ALL_DISCARDS),
        H("player_discards_back", "player's own discards back in the deck before he draws",
          flow=PLAYER_DISCARDS_BACK),
        H("dealer_redraws_first", "dealer redraws before the player's new five are dealt",
          flow=DEALER_FIRST),
        H("dealer_first_discards_back", "dealer redraws first, his discards back before the player draws",
          flow=DEALER_FIRST_DISCARDS_BACK),
        H("independent_hands", "every five from its own fresh deck (dealing with replacement across hands)",
          flow=INDEPENDENT_HANDS, deck="independent"),
        H("dealer_stands_pair", "dealer stands on a pair or better", dealer_stands=PAIR),
        H("dealer_stands_ak", "dealer stands on Ace-King or better", dealer_stands=ACE_KING),
        H("dealer_stands_k", "dealer stands on King-high or better (redraws Q-high or less)",
          dealer_stands=KING_HIGH),
        H("dealer_never_redraws", "dealer never redraws", dealer_stands=0),
        H("player_stands_ak953", "player stands with AK953 or better",
          player_stands=pack(0, ACE, KING, 7, 3, 1)),
        H("player_stands_ak", "player stands with any Ace-King", player_stands=ACE_KING),
        H("ties_lose", "ties go to the dealer", ties_lose=True),
        H("wheel_not_straight", "evaluator: A-2-3-4-5 is not a straight", bugs=WHEEL_NOT_STRAIGHT),
        H("wheel_ace_high", "evaluator: A-2-3-4-5 ranked as the top straight", bugs=WHEEL_ACE_HIGH),
        H("broadway_not_straight", "evaluator: ace only low, A-K-Q-J-T not a straight",
          bugs=BROADWAY_NOT_STRAIGHT),
        H("straight_over_flush", "evaluator: a straight beats a flush", bugs=STRAIGHT_OVER_FLUSH),
        H("top_rank_only", "comparison: category and top rank only, the dealer takes kicker ties",
          bugs=TOP_RANK_ONLY),
        H("top_two_ranks", "comparison: category and top two ranks only, the dealer takes the rest",
          bugs=TOP_TWO_RANKS),
        H("naive_shuffle_rank_major", "swap i with rand(52), deck ordered by rank", deck="naive_rank"),
        H("naive_shuffle_suit_major", "swap i with rand(52), deck ordered by suit", deck="naive_suit"),
        H("mod15_rank_major", "Fisher-Yates with rand15() % (i+1), deck by rank", deck="mod15_rank"),
        H("mod15_suit_major", "Fisher-Yates with rand15() % (i+1), deck by suit", deck="mod15_suit"),
        H("sattolo_rank_major", "Fisher-Yates with rand() % i (off by one), deck by rank",
          deck="sattolo_rank"),
        H("sattolo_suit_major", "Fisher-Yates with rand() % i (off by one), deck by suit",
          deck="sattolo_suit"),
        H("no_offset_rank_major", "forward Fisher-Yates, j = rand() % (52 - i) without + i, deck by rank",
          deck="nooffset_rank"),
        H("no_offset_suit_major", "forward Fisher-Yates, j = rand() % (52 - i) without + i, deck by suit",
          deck="nooffset_suit"),
        *[H(f"swaps{k}_{order}_major", f"{k} random transpositions of an ordered deck, by {order}",
            deck=f"swaps_{order}", extra={"swaps": k})
          for k in (100, 200) for order in ("rank", "suit")],
        H("msvc_rand_rank_major", "MSVC rand() LCG, Fisher-Yates rand()%(i+1), deck by rank",
          deck="msvc_rank"),
        H("msvc_rand_suit_major", "MSVC rand() LCG, Fisher-Yates rand()%(i+1), deck by suit",
          deck="msvc_suit"),
    ]


# ---------------------------------------------------------------------------------------------
# Comparison with the published table.
# ---------------------------------------------------------------------------------------------
def load_reference(path: Path = REFERENCE):
    """(probabilities, rounding half-widths) of his 24 rows; for pays > 1 the return column / pays
    carries more digits than the probability column."""
    lines = [line for line in path.read_text().splitlines() if line and not line.startswith("#")]
    rows = list(csv.DictReader(lines))
    if len(rows) != 24:
        raise SystemExit(f"{path}: expected 24 rows, found {len(rows)}")
    probs, half = [], []
    for row in rows:
        pays, p, ret = int(row["pays"]), float(row["probability"]), float(row["return"])
        if abs(pays) > 1:
            probs.append(ret / pays)
            half.append(0.5e-6 / abs(pays))
        else:
            probs.append(p)
            half.append(0.5e-6)
    return [r["event"] for r in rows], np.array(probs), np.array(half)


def distance(counts: np.ndarray, n: int, his: np.ndarray, half: np.ndarray) -> tuple[float, np.ndarray]:
    ours = counts / n
    p = np.maximum(ours, 1.0 / n)
    var = p * (1 - p) / HIS_HANDS + p * (1 - p) / n + half ** 2 / 3
    z = (his - ours) / np.sqrt(var)
    return float(np.sum(z ** 2)), z


def effective_n(counts: np.ndarray, n: int, his: np.ndarray, half: np.ndarray) -> float:
    """The sample size his table would need for its distance to this hypothesis to be only 23
    (the mean of chi-square with 23 degrees of freedom): inf if it is below 23 even at n = 22e9."""
    ours = counts / n
    p = np.maximum(ours, 1.0 / n)
    target = len(his) - 1

    def dist(his_n):
        var = p * (1 - p) / his_n + p * (1 - p) / n + half ** 2 / 3
        return float(np.sum((his - ours) ** 2 / var))

    if dist(HIS_HANDS) <= target:
        return math.inf
    lo, hi = 1.0, HIS_HANDS  # dist grows with his_n: bisect on a log scale
    for _ in range(60):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if dist(mid) < target else (lo, mid)
    return lo


def edge_and_se(counts: np.ndarray, n: int) -> tuple[float, float]:
    p = counts / n
    mean = float(p @ ROW_PAYS)
    var = float(p @ ROW_PAYS ** 2) - mean ** 2
    return -mean, math.sqrt(var / n)


def run(h: Hypothesis, rounds: int, seed: int) -> np.ndarray:
    tally = np.zeros(24, np.int64)
    msvc = [1]  # srand(1), the C default
    done, batch = 0, 0
    while done < rounds:
        n = min(BATCH, rounds - done)
        a, b = decks(h, seed, batch, n, msvc)
        play(a, b, h.flow, h.dealer_stands, h.player_stands, h.bugs, h.ties_lose, tally)
        done += n
        batch += 1
    return tally


def exact_standing(events: list[str], his: np.ndarray, half: np.ndarray) -> None:
    """His 12 bet-1 rows (standing with AK954 or better) against the exact counts over the cycle
    C(52,5) x C(47,5) x C(42,5): z = (his - exact) / his binomial SE at 22e9, after his rounding."""
    from fractions import Fraction

    from certify.analysis import mulligan
    from certify.analysis.frequencies import class_values
    from certify.analysis.mulligan_exact import CYCLE_STAND
    from certify.spec import load_spec

    rules = mulligan.mulligan_rules(load_spec("five_card_mulligan"))
    counts = mulligan.exact_stand(rules.stands_value).counts
    values = class_values()
    stands = values >= rules.spec_stand_value
    categories = values >> 20
    exact = [sum(int(x) for x in counts[stands & (categories == c), 0]) for c in range(10)]
    exact += [sum(int(x) for x in counts[stands, 2]), sum(int(x) for x in counts[stands, 1])]
    rows = list(range(10)) + [LOSE1, PUSH1]
    print(f"bet-1 rows, exact over the cycle {CYCLE_STAND:,} against the inventor (n = 22e9)")
    print(f"{'row':40s} {'exact':>13s} {'his':>11s} {'his - exact':>12s} {'z':>7s}")
    for row, n in zip(rows, exact):
        p = Fraction(n, CYCLE_STAND)
        gap = his[row] - float(p)
        se = math.sqrt(float(p) * (1 - float(p)) / HIS_HANDS)
        z = math.copysign(max(0.0, abs(gap) - half[row]) / se, gap)
        print(f"{events[row]:40s} {float(p):13.10f} {his[row]:11.7f} {gap:+12.2e} {z:+7.1f}")
    print("exact standing share:", f"{sum(exact) / CYCLE_STAND:.10f}",
          f"(the hands at or above AK954: {int(stands.sum())} values)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="hypotheses to run (default: all)")
    ap.add_argument("--rounds", type=int, default=20_000_000)
    ap.add_argument("--seed", type=int, default=20260601)
    ap.add_argument("--rows", action="store_true", help="print every row's z for each hypothesis")
    ap.add_argument("--exact-standing", action="store_true",
                    help="only compare his bet-1 rows with the exact standing counts")
    args = ap.parse_args()
    events, his, half = load_reference()
    if args.exact_standing:
        exact_standing(events, his, half)
        return
    chosen = [h for h in hypotheses() if not args.names or h.name in args.names]
    his_raise = his[[10, 11, 12, 13, 14, 15, 16, 17, 18, 19, LOSE2, PUSH2]].sum()
    his_edge = -float(his @ ROW_PAYS)
    print(f"inventor: edge {100 * his_edge:.4f}%  raise share {100 * his_raise:.4f}%  (n = 22e9)")
    print(f"{len(chosen)} hypotheses x {args.rounds:,} rounds, seed {args.seed}; distance = sum of z^2 "
          f"over 24 rows (about 23 if his table came from the hypothesis); "
          f"his n_eff: the sample size at which his table would be that close")
    print(f"{'hypothesis':30s} {'edge %':>8s} {'+-':>6s} {'raise %':>8s} {'z raise':>8s} {'distance':>10s}"
          f" {'max|z|':>7s} {'his n_eff':>9s}  worst row")
    for h in chosen:
        t0 = time.perf_counter()
        counts = run(h, args.rounds, args.seed)
        d, z = distance(counts, args.rounds, his, half)
        edge, se = edge_and_se(counts, args.rounds)
        raise_share = counts[[*range(10, 20), LOSE2, PUSH2]].sum() / args.rounds
        z_raise = (his_raise - raise_share) / math.sqrt(raise_share * (1 - raise_share)
                                                        * (1 / args.rounds + 1 / HIS_HANDS))
        worst = int(np.argmax(np.abs(z)))
        n_eff = effective_n(counts, args.rounds, his, half)
        print(f"{h.name:30s} {100 * edge:8.4f} {100 * 1.96 * se:6.4f} {100 * raise_share:8.4f} {z_raise:8.1f}"
              f" {d:10.1f} {abs(z[worst]):7.1f} {n_eff:9.2g}  {events[worst]}  [{time.perf_counter() - t0:.0f}s]",
              flush=True)
        if args.rows:
            for e, hz, o, zz in zip(events, his, counts / args.rounds, z):
                print(f"    {e:40s} his {hz:.7f} ours {o:.7f} z {zz:+6.1f}")


if __name__ == "__main__":
    main()
