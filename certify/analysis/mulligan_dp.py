"""Exact Five Card Mulligan: the mulligan rounds, counted by a dynamic programme over the ranks.

A mulligan round is four disjoint hands: the player's discarded five P (a hand the strategy
mulligans: a non-flush high card below the threshold), the dealer's first five D, the player's new
five Y and, when D is below ``stands_on``, the dealer's new five X. Who wins needs a comparison of
two hands, which no per-rank programme can make, but it is not needed:

* the dealer redraws: given P and D, (Y, X) is a uniformly random ordered pair of disjoint fives of
  the 42 cards left, so Y and X are exchangeable. The player wins with a category-c hand in half of
  the pairs whose strictly better hand has category c:
  W_c = ((A_c - A_{c-1}) - T_c) / 2, with A_c the pairs in which both hands have category <= c and
  T_c the pairs of equal value in category c;
* the dealer stands (D at or above ``stands_on``, the set H of hands below it excluded):
  #(Y > D, D not in H) = #(Y > D) - #(Y > D, D in H). (Y, D) is exchangeable too, and a hand in H
  loses to every hand not in H and to half of the unequal hands in H.

So every count is of disjoint hands each in a set given by its own rank pattern (category, and
for a high card whether it is below a lexicographic threshold): a product of per-rank factors.
Each hand is a small automaton over the ranks (ace first); the programme carries the joint state
of the hands and, at each rank, shares the four suits among them (a multinomial). Suits matter only
for flushes: a hand that must be one suit ("mono") takes one card at each of its ranks, and the
ways to give the mono hands suits are counted by set partitions: mono hands in the same block share
a suit and so no rank, blocks get distinct suits (4 x 3 x ... ways). A non-flush hand is "any suits"
minus "one suit". Counts reach 1.5e24, so the programme runs modulo two primes below 2^43 and the
counts are rebuilt by the Chinese remainder theorem.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import product
from math import comb, factorial

import numpy as np
from numba import njit

from certify import hands
from certify.analysis.mulligan_exact import high_card_tuple
from certify.pool import cpus, map_in_order

N_RANKS = hands.N_RANKS
# hand classes: 0..9 the categories (0 = a high card NOT below the lex threshold), 10 = a high card
# below it (in the set H of the dealer's redraw hands, or of the player's mulligan hands)
BELOW = 10
N_CLASSES = 11
# primes below 2^43: a rank's sums into a state (a residue x a suit weight <= 24, a few thousand
# terms) fit in int64 before they are reduced; their product (2^86) exceeds twice every count
PRIMES = (8796093022151, 8796093022141)
NONE = -1


# ----------------------------------------------------------------------------------------------
# Hand automata. A state is the part of a partial hand (its cards at the ranks already passed,
# ace first) that decides its class; built by search from the canonical description below.
# ----------------------------------------------------------------------------------------------
def _key(ranks: tuple[int, ...], next_rank: int, lex: tuple[int, ...] | None) -> tuple:
    """The class-deciding summary of a partial hand (its ranks, descending; ranks >= next_rank + 1
    have been passed)."""
    k = len(ranks)
    counts = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    mult = tuple(sorted(counts.values(), reverse=True))
    if mult and mult[0] > 1:
        return ("multi", mult)
    distinct = sorted(set(ranks), reverse=True)
    # straight: a run ace-first that reaches down to the rank just passed, or the wheel's ace
    if k == 0:
        run = "start"
    elif k == 5:
        top = distinct[0]
        if distinct == list(range(top, top - 5, -1)):
            run = "broadway" if top == 12 else "straight"
        elif distinct == [12, 3, 2, 1, 0]:
            run = "straight"
        else:
            run = "none"
    elif distinct == list(range(distinct[0], distinct[0] - k, -1)) and distinct[-1] == next_rank + 1:
        run = ("run", distinct[0] == 12)
    elif distinct[0] == 12 and (k == 1 and next_rank >= 3):
        run = "ace_waits_for_five"
    elif distinct[0] == 12 and distinct[1:] == list(range(3, 3 - (k - 1), -1)) \
            and distinct[-1] == next_rank + 1:
        run = "wheel"
    else:
        run = "none"
    if lex is None:
        order = None
    else:
        order = "eq"
        for place, r in enumerate(distinct):
            if r != lex[place]:
                order = "lt" if r < lex[place] else "gt"
                break
    return ("single", k, run, order)


def _final_class(ranks: tuple[int, ...], mono: bool, lex: tuple[int, ...] | None) -> int:
    """The class of a whole hand (five ranks), one suit or not, by the evaluator's own rules."""
    counts = np.zeros(N_RANKS, np.int64)
    for r in ranks:
        counts[r] += 1
    if mono:
        value = hands._flush_value(sum(1 << r for r in ranks))
    else:
        value = hands._counts_value(counts)
    category = value >> hands.CATEGORY_SHIFT
    if category == hands.Category.HIGH_CARD and lex is not None:
        threshold = sum(r << (16 - 4 * k) for k, r in enumerate(lex))
        return BELOW if value < threshold else 0
    return int(category)


@dataclass(frozen=True)
class Machine:
    """A hand automaton: ``next[r, s, m]`` the state after taking m cards of rank r (-1: not
    allowed); ``free_class[s]`` / ``mono_class[s]`` the class of a finished hand (-1: not a hand,
    or not possible in one suit); ``weight[s]`` the acceptance weight of a finished junk hand."""

    next: np.ndarray  # (13, n_states, 5) int64
    free_class: np.ndarray
    mono_class: np.ndarray
    weight: np.ndarray  # int64, for junk machines (0 / +1 / -1), 1 for every finished state otherwise
    n_states: int


def any_machine(lex: tuple[int, ...] | None) -> Machine:
    """Any five cards; classes by category (and a high card below ``lex`` apart)."""
    return _search(lex, max_per_rank=4, junk=False)


def junk_machine(lex: tuple[int, ...]) -> Machine:
    """Five distinct ranks, not a straight, lexicographically below ``lex``: weight 1 (its
    non-flush and one-suit versions are told apart by the mono flag of the run)."""
    return _search(lex, max_per_rank=1, junk=True)


def fixed_machine(ranks: tuple[int, ...]) -> Machine:
    """Exactly these ranks (a multiset): the player's hand of one value."""
    counts = [0] * N_RANKS
    for r in ranks:
        counts[r] += 1
    nxt = np.full((N_RANKS, 6, 5), NONE, np.int64)
    k = 0
    for r in range(N_RANKS - 1, -1, -1):
        nxt[r, k, counts[r]] = k + counts[r]
        k += counts[r]
    free = np.full(6, NONE, np.int64)
    mono = np.full(6, NONE, np.int64)
    free[5] = _final_class(tuple(ranks), False, None)
    mono[5] = _final_class(tuple(ranks), True, None) if max(counts) == 1 else NONE
    weight = np.zeros(6, np.int64)
    weight[5] = 1
    return Machine(nxt, free, mono, weight, 6)


def _machine_arrays(transitions: list, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A machine's arrays over ``n`` states: the transition table from (rank, state, copies,
    next state) rows, and the final classes (free, one suit) and weights, none set yet."""
    nxt = np.full((N_RANKS, n, 5), NONE, np.int64)
    for r, s, m, t in transitions:
        nxt[r, s, m] = t
    return nxt, np.full(n, NONE, np.int64), np.full(n, NONE, np.int64), np.zeros(n, np.int64)


def values_machine(rank_lists: list[tuple[int, ...]]) -> tuple[Machine, list[np.ndarray]]:
    """Exactly one of these rank multisets (the player's hand of one of several values): a trie
    over the ranks, ace first, so hands that agree on the higher ranks share their states; and
    per rank multiset the weight vector accepting its own finished state (``fixed_machine`` of
    each, run as one)."""
    index: dict[tuple, int] = {(): 0}
    transitions = []
    counts = []
    for ranks in rank_lists:
        c = [0] * N_RANKS
        for r in ranks:
            c[r] += 1
        counts.append(c)
    for c in counts:
        prefix: tuple = ()
        for r in range(N_RANKS - 1, -1, -1):
            longer = prefix + (c[r],)
            if longer not in index:
                index[longer] = len(index)
            transitions.append((r, index[prefix], c[r], index[longer]))
            prefix = longer
    n = len(index)
    nxt, free, mono, weight = _machine_arrays(transitions, n)
    accept = []
    for ranks, c in zip(rank_lists, counts):
        s = index[tuple(c[r] for r in range(N_RANKS - 1, -1, -1))]
        free[s] = _final_class(tuple(ranks), False, None)
        mono[s] = _final_class(tuple(ranks), True, None) if max(c) == 1 else NONE
        weight[s] = 1
        one = np.zeros(n, np.int64)
        one[s] = 1
        accept.append(one)
    return Machine(nxt, free, mono, weight, n), accept


def _search(lex, max_per_rank: int, junk: bool) -> Machine:
    index: dict[tuple, int] = {}

    def state(ranks, next_rank):
        key = _key(ranks, next_rank, lex)
        if key not in index:
            index[key] = len(index)
        return index[key]

    # a representative partial hand per state *at the current rank* (a key's meaning is relative
    # to the rank about to be dealt, so representatives are not reused across ranks)
    frontier = {state((), N_RANKS - 1): ()}
    transitions = []
    for r in range(N_RANKS - 1, -1, -1):
        new_frontier: dict[int, tuple] = {}
        for s, ranks in sorted(frontier.items()):
            for m in range(0, min(max_per_rank, 5 - len(ranks)) + 1):
                new = ranks + (r,) * m
                if junk and _key(new, r - 1, lex)[-1] == "gt":
                    continue  # can no longer be below the threshold
                t = state(new, r - 1)
                transitions.append((r, s, m, t))
                new_frontier.setdefault(t, new)
        frontier = new_frontier
    reps = frontier
    n = len(index)
    nxt, free, mono, weight = _machine_arrays(transitions, n)
    for s, ranks in reps.items():  # finished after the deuce
        if len(ranks) != 5:
            continue
        free[s] = _final_class(ranks, False, lex)
        distinct = len(set(ranks)) == 5
        mono[s] = _final_class(ranks, True, lex) if distinct else NONE
        if junk:
            weight[s] = 1 if free[s] == BELOW else 0
        else:
            weight[s] = 1
    return Machine(nxt, free, mono, weight, n)


# ----------------------------------------------------------------------------------------------
# The programme.
# ----------------------------------------------------------------------------------------------
def _multinomial(n: int, q0: int, q1: int, q2: int, q3: int) -> int:
    rest = n - q0 - q1 - q2 - q3
    if rest < 0:
        return 0
    return factorial(n) // (factorial(q0) * factorial(q1) * factorial(q2) * factorial(q3) * factorial(rest))


def _suit_weights(mono: np.ndarray, block: np.ndarray) -> np.ndarray:
    """w[m0, m1, m2, m3]: ways to give one rank's suits to four hands taking m0..m3 cards there
    (0: not allowed). Mono hands take one card each, in distinct suits (mono hands of one block
    may not meet); free hands share the other suits. Read-only, one per configuration."""
    return _suit_weights_of(tuple(bool(m) for m in mono), tuple(int(b) for b in block))


@lru_cache(maxsize=None)
def _suit_weights_of(mono: tuple[bool, ...], block: tuple[int, ...]) -> np.ndarray:
    # plain Python (625 entries, cached per configuration): compiled, it cost ~1.3 s of numba
    # compile in every cold process and saved under a millisecond
    w = np.zeros((5, 5, 5, 5), np.int64)
    for ms in product(range(5), repeat=4):
        if sum(ms) > 4:
            continue
        taken, clash = 0, False
        q = [0, 0, 0, 0]
        for h in range(4):
            if not mono[h]:
                q[h] = ms[h]
            elif ms[h] > 1:
                clash = True
            elif ms[h] == 1:
                for g in range(h):
                    if mono[g] and ms[g] == 1 and block[g] == block[h]:
                        clash = True
                taken += 1
        if not clash:
            w[ms] = _multinomial(4 - taken, *q)
    w.flags.writeable = False
    return w


def _levels(m: Machine) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The states a hand can be in before each rank (level L: after L ranks, ace first), as a
    padded (14, n_states) table and the count at each level; and, per rank, the most (state,
    cards) pairs that lead to one state (its in-degree)."""
    reach = np.zeros((N_RANKS + 1, m.n_states), np.int64)
    sizes = np.zeros(N_RANKS + 1, np.int64)
    indegree = np.zeros(N_RANKS, np.int64)
    level = [0]
    for lv in range(N_RANKS + 1):
        reach[lv, :len(level)] = level
        sizes[lv] = len(level)
        if lv == N_RANKS:
            break
        r = N_RANKS - 1 - lv
        targets = [int(t) for s in level for t in m.next[r, s] if t >= 0]
        indegree[lv] = max(targets.count(t) for t in set(targets)) if targets else 0
        level = sorted(set(targets))
    return reach, sizes, indegree


def _lazy_reduction(levels: list, weights: np.ndarray) -> bool:
    """Whether one rank's sums into a state fit in int64 before they are reduced: at most the
    product of the hands' in-degrees (``_levels``) of terms, each below max(PRIMES) x twice the
    largest suit weight (twice: a term of ``_run``'s ``half`` may count two)."""
    terms = max(int(np.prod([int(lv[2][i]) for lv in levels], dtype=object)) for i in range(N_RANKS))
    return terms * max(PRIMES) * 2 * int(weights.max()) < 2 ** 63


@njit(cache=True, nogil=True)
def _run(next0, next1, next2, next3, reach0, size0, reach1, size1, reach2, size2, reach3, size3,
         weights, mirror, lazy, half, diagonal):
    """Ways, modulo each of the two PRIMES, to deal four hands rank by rank (ace first) ending in
    each joint state: (n0, n1, n2, n3, 2), the two residues side by side. ``weights`` from
    ``_suit_weights``; ``mirror``: hand 1 takes as many cards as hand 0 at every rank (two hands
    of equal value). Only the states reachable at each rank (``reach*`` / ``size*``, from
    ``_levels``) are visited; with ``lazy``, a rank's sums are reduced once, after the rank
    (``_lazy_reduction`` says they cannot overflow), else at every term.

    ``half``: hands 0 and 1 are one machine with suit weights symmetric in them, so the ways to
    reach (a, b) and (b, a) are equal and only a <= b is kept: a kept state a < b stands for both
    orders (its move lands on (a2, b2) and, swapped, on (b2, a2): once on the kept one, twice if
    a2 = b2), a state (a, a) for itself (its moves landing on a2 > b2 are the swapped images of
    others). ``diagonal``: hands 0 and 1 are one machine and ``mirror``: they are always in the same
    state, so only a = b is visited."""
    p0, p1 = PRIMES  # constants: the compiler turns the remainders into multiplications
    n0, n1, n2, n3 = next0.shape[1], next1.shape[1], next2.shape[1], next3.shape[1]
    cur = np.zeros((n0, n1, n2, n3, 2), np.int64)
    new = np.zeros((n0, n1, n2, n3, 2), np.int64)
    cur[0, 0, 0, 0, 0] = 1
    cur[0, 0, 0, 0, 1] = 1
    for lv in range(N_RANKS):
        r = N_RANKS - 1 - lv
        for i in range(size0[lv + 1]):  # clear what this rank may reach
            a2 = reach0[lv + 1, i]
            for j in range(size1[lv + 1]):
                b2 = reach1[lv + 1, j]
                if (half and b2 < a2) or (diagonal and b2 != a2):
                    continue
                for k in range(size2[lv + 1]):
                    c2 = reach2[lv + 1, k]
                    for q in range(size3[lv + 1]):
                        new[a2, b2, c2, reach3[lv + 1, q], 0] = 0
                        new[a2, b2, c2, reach3[lv + 1, q], 1] = 0
        for i in range(size0[lv]):
            a = reach0[lv, i]
            for j in range(size1[lv]):
                b = reach1[lv, j]
                if (half and b < a) or (diagonal and b != a):
                    continue
                for k in range(size2[lv]):
                    c = reach2[lv, k]
                    for q in range(size3[lv]):
                        d = reach3[lv, q]
                        x0, x1 = cur[a, b, c, d, 0], cur[a, b, c, d, 1]
                        if x0 == 0 and x1 == 0:
                            continue
                        for m0 in range(5):
                            a2 = next0[r, a, m0]
                            if a2 < 0:
                                continue
                            for m1 in range(5 - m0):
                                b2 = next1[r, b, m1]
                                if b2 < 0 or (mirror and m1 != m0):
                                    continue
                                for m2 in range(5 - m0 - m1):
                                    c2 = next2[r, c, m2]
                                    if c2 < 0:
                                        continue
                                    for m3 in range(5 - m0 - m1 - m2):
                                        d2 = next3[r, d, m3]
                                        w = weights[m0, m1, m2, m3]
                                        if d2 < 0 or w == 0:
                                            continue
                                        t0, t1 = a2, b2
                                        if half:
                                            if a2 > b2:
                                                if a == b:
                                                    continue
                                                t0, t1 = b2, a2
                                            elif a2 == b2 and a != b:
                                                w *= 2
                                        y0 = new[t0, t1, c2, d2, 0] + x0 * w
                                        y1 = new[t0, t1, c2, d2, 1] + x1 * w
                                        if not lazy:
                                            y0 %= p0
                                            y1 %= p1
                                        new[t0, t1, c2, d2, 0] = y0
                                        new[t0, t1, c2, d2, 1] = y1
        if lazy:
            for i in range(size0[lv + 1]):
                a2 = reach0[lv + 1, i]
                for j in range(size1[lv + 1]):
                    b2 = reach1[lv + 1, j]
                    if (half and b2 < a2) or (diagonal and b2 != a2):
                        continue
                    for k in range(size2[lv + 1]):
                        c2 = reach2[lv + 1, k]
                        for q in range(size3[lv + 1]):
                            d2 = reach3[lv + 1, q]
                            new[a2, b2, c2, d2, 0] %= p0
                            new[a2, b2, c2, d2, 1] %= p1
        cur, new = new, cur
    final = np.zeros((n0, n1, n2, n3, 2), np.int64)  # the other buffer entries are stale
    for i in range(size0[N_RANKS]):
        a = reach0[N_RANKS, i]
        for j in range(size1[N_RANKS]):
            b = reach1[N_RANKS, j]
            if diagonal and b != a:
                continue  # never reached: zero
            for k in range(size2[N_RANKS]):
                c = reach2[N_RANKS, k]
                for q in range(size3[N_RANKS]):
                    d = reach3[N_RANKS, q]
                    if half and b < a:
                        final[a, b, c, d, 0] = cur[b, a, c, d, 0]
                        final[a, b, c, d, 1] = cur[b, a, c, d, 1]
                    else:
                        final[a, b, c, d, 0] = cur[a, b, c, d, 0]
                        final[a, b, c, d, 1] = cur[a, b, c, d, 1]
    return final


@njit(cache=True)
def _signed(x, k, prime):
    """k * x modulo prime for a coefficient k in {-1, 0, 1}."""
    return x if k > 0 else (prime - x) % prime if k < 0 else 0


@njit(cache=True, nogil=True)
def _contract(final, w2, w3, coef0, coef1):
    """(2, 11, 11) residues: the final states' ways, hands 2 and 3 weighted by their acceptance
    weights (+-1, 0), hands 0 and 1 spread over their classes by the coefficients (+-1, 0)."""
    n0, n1, n2, n3, _ = final.shape
    out = np.zeros((2, N_CLASSES, N_CLASSES), np.int64)
    for k in range(2):
        prime = PRIMES[k]
        g = np.zeros((n0, n1), np.int64)
        for c in range(n2):
            for d in range(n3):
                w = w2[c] * w3[d]
                if w == 0:
                    continue
                for a in range(n0):
                    for b in range(n1):
                        g[a, b] = (g[a, b] + _signed(final[a, b, c, d, k], w, prime)) % prime
        for a in range(n0):
            for b in range(n1):
                if g[a, b] == 0:
                    continue
                for ca in range(N_CLASSES):
                    x = _signed(g[a, b], coef0[a, ca], prime)
                    if x == 0:
                        continue
                    for cb in range(N_CLASSES):
                        out[k, ca, cb] = (out[k, ca, cb] + _signed(x, coef1[b, cb], prime)) % prime
    return out


def dummy_machine() -> Machine:
    """No hand (a three-hand count)."""
    nxt = np.full((N_RANKS, 1, 5), NONE, np.int64)
    nxt[:, 0, 0] = 0
    return Machine(nxt, np.full(1, NONE, np.int64), np.full(1, NONE, np.int64), np.ones(1, np.int64), 1)


def _set_partitions(items: list[int]):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _set_partitions(rest):
        for i in range(len(part)):
            yield part[:i] + [[first] + part[i]] + part[i + 1:]
        yield [[first]] + part


def _class_coefficients(m: Machine, mono: bool) -> np.ndarray:
    """(n_states, 11) in {-1, 0, 1}: a finished state's classes; a one-suit run adds the flush
    version and removes it from the non-flush one (non-flush = any suits - one suit)."""
    coef = np.zeros((m.n_states, N_CLASSES), np.int64)
    for s in range(m.n_states):
        if mono:
            if m.mono_class[s] >= 0:
                coef[s, m.mono_class[s]] += 1
                coef[s, m.free_class[s]] -= 1
        elif m.free_class[s] >= 0:
            coef[s, m.free_class[s]] = 1
    return coef


def _configurations(monoable: list[int]):
    """(mono flags, blocks, ways) of every way to make some hands one suit: each subset of the
    monoable hands, each set partition of it into blocks sharing a suit, the blocks' distinct
    suits counted in ``ways``."""
    for size in range(len(monoable) + 1):
        for subset in _subsets(monoable, size):
            mono = np.array([h in subset for h in range(4)], np.bool_)
            for partition in _set_partitions(list(subset)):
                block = np.zeros(4, np.int64)
                for i, part in enumerate(partition):
                    for h in part:
                        block[h] = i
                yield mono, block, _falling(4, len(partition))


def _swapped_key(mono: np.ndarray, block: np.ndarray, swap: bool) -> tuple:
    """A configuration's identity, with hands 0 and 1 exchanged if ``swap``."""
    order = [1, 0, 2, 3] if swap else [0, 1, 2, 3]
    blocks: dict[int, list[int]] = {}
    for h in range(4):
        if mono[order[h]]:
            blocks.setdefault(int(block[order[h]]), []).append(h)
    return tuple(sorted(tuple(b) for b in blocks.values()))


def class_counts(m0: Machine, m1: Machine, m2: Machine, m3: Machine, mirror: bool = False,
                 monoable: tuple[bool, bool, bool, bool] = (True, True, True, True)) -> np.ndarray:
    """(11, 11) object array of exact counts: deals of four disjoint hands (hands 2 and 3 accepted
    by their machines' weights, non-flush), by the classes of hands 0 and 1.

    When hands 0 and 1 are one machine, a configuration and its mirror image (hands 0 and 1
    exchanged) give transposed counts, so only one of them is run. The runs share the cores."""
    return class_counts_many(m0, m1, m2, m3, [m2.weight], mirror, monoable)[0]


def class_counts_many(m0: Machine, m1: Machine, m2: Machine, m3: Machine, weights2: list[np.ndarray],
                      mirror: bool = False, monoable: tuple[bool, bool, bool, bool] = (True, True, True, True)
                      ) -> list[np.ndarray]:
    """``class_counts`` for each acceptance weight vector of hand 2 in ``weights2``, from one run
    of the programme per configuration (a machine of several player hands, ``values_machine``:
    one weight vector per hand, the shared ranks counted once)."""
    coefs = [{mono: _class_coefficients(m, mono) for mono in (False, True)} for m in (m0, m1)]
    symmetric = m0 is m1 and monoable[0] == monoable[1]
    tasks, seen = [], set()
    for mono, block, ways in _configurations([i for i in range(4) if monoable[i]]):
        key, image = _swapped_key(mono, block, False), _swapped_key(mono, block, True)
        if symmetric and image in seen:
            continue  # counted as the transpose of its image
        seen.add(key)
        tasks.append((mono, block, ways, symmetric and image != key))

    levels = [_levels(m) for m in (m0, m1, m2, m3)]
    reach = [x for lv in levels for x in lv[:2]]
    primes = np.array(PRIMES)[:, None, None]

    def count(task):
        mono, block, ways, with_transpose = task
        weights = _suit_weights(mono, block)
        half = m0 is m1 and not mirror and bool((weights == weights.transpose(1, 0, 2, 3)).all())
        final = _run(m0.next, m1.next, m2.next, m3.next, *reach, weights, mirror,
                     _lazy_reduction(levels, weights), half, m0 is m1 and mirror)
        out = []
        for w2 in weights2:
            g = _contract(final, w2 * (-1 if mono[2] else 1), m3.weight * (-1 if mono[3] else 1),
                          coefs[0][bool(mono[0])], coefs[1][bool(mono[1])])
            out.append((g + g.transpose(0, 2, 1)) % primes if with_transpose else g)
        return ways, out

    results = map_in_order(count, [(task,) for task in tasks], cpus())
    return [_rebuild([(ways, gs[v]) for ways, gs in results]) for v in range(len(weights2))]


def _rebuild(results: list[tuple[int, np.ndarray]]) -> np.ndarray:
    """The exact (11, 11) counts from each configuration's residues and its colourings (the
    Chinese remainder theorem over the two PRIMES; counts are below half their product)."""
    acc = [[[0] * N_CLASSES for _ in range(N_CLASSES)] for _ in PRIMES]
    for ways, g in results:
        for k, prime in enumerate(PRIMES):
            for a, b in zip(*np.nonzero(g[k])):
                acc[k][a][b] = (acc[k][a][b] + int(g[k, a, b]) * ways) % prime
    modulus = PRIMES[0] * PRIMES[1]
    inverse = pow(PRIMES[0], -1, PRIMES[1])
    out = np.empty((N_CLASSES, N_CLASSES), object)
    for i in range(N_CLASSES):
        for j in range(N_CLASSES):
            r0, r1 = acc[0][i][j], acc[1][i][j]
            x = (r0 + PRIMES[0] * (((r1 - r0) * inverse) % PRIMES[1])) % modulus
            out[i, j] = x - modulus if x > modulus // 2 else x
    return out


def _subsets(items: list[int], size: int):
    from itertools import combinations

    return combinations(items, size)


def _falling(n: int, k: int) -> int:
    out = 1
    for i in range(k):
        out *= n - i
    return out


# ----------------------------------------------------------------------------------------------
# The mulligan's outcomes.
# ----------------------------------------------------------------------------------------------
CATEGORY_OF_CLASS = tuple(range(10)) + (0,)
CYCLE_MULLIGAN = comb(52, 5) * comb(47, 5) * comb(42, 5) * comb(37, 5)  # P, D, Y, X (X always counted)


@dataclass(frozen=True)
class MulliganOutcomes:
    """Deals (P, D, Y, X) of the cycle C(52,5) C(47,5) C(42,5) C(37,5) in which the player takes a
    mulligan, by outcome: the new five win with category 0..9, tie, lose."""

    wins: tuple[int, ...]  # by category
    ties: int
    losses: int

    @property
    def total(self) -> int:
        return sum(self.wins) + self.ties + self.losses

    def plus(self, others: list[MulliganOutcomes], sign: int = 1) -> MulliganOutcomes:
        """These outcomes with ``others`` added (sign 1) or taken away (sign -1): the counts of
        disjoint sets of player hands add."""
        wins, ties, losses = list(self.wins), self.ties, self.losses
        for o in others:
            wins = [a + sign * b for a, b in zip(wins, o.wins)]
            ties += sign * o.ties
            losses += sign * o.losses
        return MulliganOutcomes(tuple(wins), ties, losses)


def _by_category(matrix: np.ndarray) -> list[list[int]]:
    out = [[0] * 10 for _ in range(10)]
    for i in range(N_CLASSES):
        for j in range(N_CLASSES):
            out[CATEGORY_OF_CLASS[i]][CATEGORY_OF_CLASS[j]] += int(matrix[i, j])
    return out


def _exchangeable_wins(joint: list[list[int]], ties: list[int]) -> list[int]:
    """Wins of hand 0 by its category when hands 0 and 1 are exchangeable: half the pairs whose
    strictly better hand has that category."""
    wins = []
    below = 0
    for c in range(10):
        both = sum(joint[i][j] for i in range(c + 1) for j in range(c + 1))
        strictly = both - below - ties[c]
        if strictly % 2:
            raise ArithmeticError(f"category {c}: an odd count of unequal pairs ({strictly})")
        wins.append(strictly // 2)
        below = both
    return wins


def _pairs(hand: Machine, player: Machine, fourth: Machine, player_monoable: bool,
           fourth_monoable: bool, player_weights: list[np.ndarray]) -> list[tuple]:
    """Two exchangeable hands dealt with the player's discarded five (and ``fourth``), for each
    player weight vector: their joint classes, their equal-value pairs, and both by category."""
    monoable = (True, True, player_monoable, fourth_monoable)
    joints = class_counts_many(hand, hand, player, fourth, player_weights, monoable=monoable)
    ties_all = class_counts_many(hand, hand, player, fourth, player_weights, mirror=True, monoable=monoable)
    out = []
    for joint, ties in zip(joints, ties_all):
        tie_categories = [0] * 10
        for i in range(N_CLASSES):
            tie_categories[CATEGORY_OF_CLASS[i]] += int(ties[i, i])
        out.append((joint, ties, _by_category(joint), tie_categories))
    return out


def _dealer_stood(player: Machine, dealer_lex: tuple[int, ...], player_monoable: bool,
                  player_weights: list[np.ndarray]) -> list[tuple]:
    """(wins by category, ties, losses) of the player's new five Y against a dealer who stands on
    his first five D: Y > D over all D, less Y > D with D in H (his redraw hands, class BELOW):
    every pair or better and every high card not in H beats those, and half of the unequal
    pairs inside H are Y's. One triple per player weight vector."""
    out = []
    for joint, ties, categories, tie_categories in _pairs(any_machine(dealer_lex), player, dummy_machine(),
                                                          player_monoable, False, player_weights):
        beats = _exchangeable_wins(categories, tie_categories)
        beats_h = [sum(int(joint[i, BELOW]) for i in range(N_CLASSES) if CATEGORY_OF_CLASS[i] == c and i != BELOW)
                   for c in range(10)]
        unequal_h = int(joint[BELOW, BELOW]) - int(ties[BELOW, BELOW])
        if unequal_h % 2:
            raise ArithmeticError("an odd count of unequal pairs of redraw hands")
        beats_h[0] += unequal_h // 2
        stood = sum(int(joint[i, j]) for i in range(N_CLASSES) for j in range(N_CLASSES) if j != BELOW)
        wins = [b - h for b, h in zip(beats, beats_h)]
        tie = sum(tie_categories) - int(ties[BELOW, BELOW])
        out.append((wins, tie, stood - sum(wins) - tie))
    return out


def _dealer_redrew(player: Machine, dealer_lex: tuple[int, ...], player_monoable: bool,
                   player_weights: list[np.ndarray]) -> list[tuple]:
    """(wins by category, ties, losses) of Y against the dealer's new five X, his first five in H:
    Y and X are exchangeable. One triple per player weight vector."""
    out = []
    for joint, _, categories, tie_categories in _pairs(any_machine(None), player, junk_machine(dealer_lex),
                                                       player_monoable, True, player_weights):
        wins = _exchangeable_wins(categories, tie_categories)
        total = sum(int(x) for x in joint.flatten())
        out.append((wins, sum(tie_categories), total - sum(wins) - sum(tie_categories)))
    return out


def mulligan_outcomes(player: Machine, stands_value: int) -> MulliganOutcomes:
    """The mulligan's outcomes over every player hand accepted by ``player`` (a junk machine: the
    hands below the strategy's threshold; or a fixed machine: one hand value)."""
    return _outcomes_many(player, [player.weight], stands_value)[0]


def _outcomes_many(player: Machine, player_weights: list[np.ndarray], stands_value: int) -> list[MulliganOutcomes]:
    """``mulligan_outcomes`` of the player hands each weight vector accepts, from one programme."""
    dealer_lex = high_card_tuple(stands_value)
    player_monoable = bool((player.mono_class >= 0).any()) or player.free_class.max() == BELOW
    stood = _dealer_stood(player, dealer_lex, player_monoable, player_weights)
    redrew = _dealer_redrew(player, dealer_lex, player_monoable, player_weights)
    after = comb(37, 5)  # the dealer's new five, not dealt when he stands: on the common cycle
    return [MulliganOutcomes(tuple(a * after + b for a, b in zip(wins1, wins2)), tie1 * after + tie2,
                             loss1 * after + loss2)
            for (wins1, tie1, loss1), (wins2, tie2, loss2) in zip(stood, redrew)]


@lru_cache(maxsize=8)
def mulligan_below(stand_at_least: int, stands_value: int) -> MulliganOutcomes:
    """Every player hand below ``stand_at_least`` (a high-card value) takes the mulligan."""
    return mulligan_outcomes(junk_machine(high_card_tuple(stand_at_least)), stands_value)


_OF_VALUE: dict[tuple[int, int], MulliganOutcomes] = {}  # (value, stands_value) -> outcomes


def mulligan_of_value(value: int, stands_value: int) -> MulliganOutcomes:
    """The mulligan's outcomes for the player hands of one value (every suit pattern of it); kept
    per process, with those ``mulligan_of_values`` counted together."""
    if (value, stands_value) not in _OF_VALUE:
        _OF_VALUE[value, stands_value] = mulligan_outcomes(fixed_machine(_ranks_of_value(value)), stands_value)
    return _OF_VALUE[value, stands_value]


def mulligan_of_values(values: list[int], stands_value: int) -> list[MulliganOutcomes]:
    """``mulligan_of_value`` of several values, those not yet counted in one programme
    (``values_machine``): neighbouring high cards share their higher ranks, so a batch costs a
    fraction of one run per value."""
    todo = sorted({int(v) for v in values if (int(v), stands_value) not in _OF_VALUE})
    if len(todo) > 1:
        machine, accept = values_machine([_ranks_of_value(v) for v in todo])
        for v, outcomes in zip(todo, _outcomes_many(machine, accept, stands_value)):
            _OF_VALUE[v, stands_value] = outcomes
    return [mulligan_of_value(int(v), stands_value) for v in values]


def _ranks_of_value(value: int) -> tuple[int, ...]:
    from certify.analysis.mulligan_exact import profiles

    prof = profiles()
    hit = np.nonzero(prof.free_values == value)[0]
    if len(hit) != 1:
        raise ValueError(f"not the value of a non-flush hand: {value:#x}")
    counts = prof.counts[hit[0]]
    return tuple(r for r in range(N_RANKS) for _ in range(int(counts[r])))
