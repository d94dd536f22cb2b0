"""Card and shuffle tests on dealt decks.

Input: an ``(N, k)`` integer array, row i the first k cards of deal i (cards ``4 * rank + suit``,
0..51, distinct within a row), deals in the order the source produced them. Every test returns a
:class:`~certify.stats.result.TestResult`. What each test looks at, and where its reference
distribution comes from (cell probabilities are exact, counted or derived; chi-square statistics
are referred to their large-sample chi-square law with every cell expecting at least 5):

* ``card_position``: how often each card lands at each position (k x 52 table). Rows of the table
  are dependent (a card cannot be at two positions), so the plain Pearson sum is not chi-square;
  the statistic is corrected by the exact covariance of a random permutation (``_position_table``)
  and is then chi-square with ``k * 51`` (``51 * 51`` for full decks) degrees of freedom (checked
  by simulation in the slow tests).
* ``suit_by_position``, ``rank_by_position``: the same on the k x 4 and k x 13 tables.
* ``adjacent_pairs``: for each pair of adjacent positions (j, j+1), the 52 x 51 ordered pairs of
  cards over the N deals (uniform, deals independent); one p-value per position pair, Bonferroni.
* ``permutations``: the order of every card of a small deck (4 or 5 cards: all 24 or 120 orders
  equally likely), or the relative order of the first m cards of bigger deals.
* ``runs``: per deal, the number of ascending runs (Eulerian numbers) and of runs up and down
  (alternating runs, André's recurrence) of the card codes, against their exact distributions.
* ``gaps``: the top card of successive deals is an independent uniform card. For each rank r, the
  gap is the number of deals strictly between two deals whose top card has rank r: geometric with
  p = 1/13. One chi-square per rank, Bonferroni over the 13 ranks.
* ``coupon_collector``: per deal, the number of cards dealt until all 13 ranks (all 4 suits)
  have been seen, against the exact distribution (inclusion-exclusion). Bonferroni over the two.
* ``poker``: the category of the 5-card hands dealt from each deal (cards 0-4, 5-9, ...) against
  the exact category counts (computed combinatorially here, not typed in); one p-value per hand
  slot, Bonferroni.
* ``serial_independence``: for full decks, the permutation taking deal i to deal i+1. If deals are
  independent and uniform these N-1 permutations are themselves independent and uniform (the steps
  of a random walk on the symmetric group), so their position table is tested like
  ``card_position``; a repeated or barely-changed deck shows at once. Partial deals: the top cards
  of deals 2i and 2i+1 (52 x 52 table).
* ``repeated_deals``: the number of pairs of identical deals (birthday problem); with 52!/(52-k)!
  possible deals the expected count is tiny, so a generator with a small seed space (a 32-bit
  clock) or a short period is caught by its repeats. Poisson tail with mean C(N, 2) / possible
  deals (the birthday approximation; at these tiny means P(at least one pair) is the union bound
  C(N, 2) / possible to first order).

A multi-p-value test reports all of them in ``pvalues`` and takes its verdict on their Bonferroni
combination ``min(1, count * min p)``, stored in ``pvalue``.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb, factorial

import numpy as np
from numba import njit
from scipy import stats

from certify.stats.gof import bonferroni_min, chisquare_gof, uniform_gof
from certify.stats.result import TestResult

DECK = 52
RANKS = 13
SUITS = 4


# ---------------------------------------------------------------------------------------------
# Input checks
# ---------------------------------------------------------------------------------------------

@njit(cache=True)
def _first_repeat(arr):
    """Index of the first row that repeats a card (-1: none); cards already checked < 64."""
    for i in range(arr.shape[0]):
        seen = np.uint64(0)
        for j in range(arr.shape[1]):
            bit = np.uint64(1) << np.uint64(arr[i, j])
            if seen & bit:
                return i
            seen |= bit
    return -1


def check_deals(deals, deck_size: int = DECK, what: str = "deals") -> np.ndarray:
    """Validate an (N, k) array of deals: integers in [0, deck_size), distinct within each row.

    Returns the array unchanged (no copy): the tests widen it where they need to.
    """
    arr = np.asarray(deals)
    if arr.ndim != 2 or arr.shape[1] < 1:
        raise ValueError(f"{what}: expected an (N, k) array of cards, got shape {arr.shape}")
    if arr.shape[1] > deck_size:
        raise ValueError(f"{what}: {arr.shape[1]} cards per deal but the deck has {deck_size}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{what}: expected integer card codes, got {arr.dtype}")
    if arr.size and (arr.min() < 0 or arr.max() >= deck_size):
        row = int(np.flatnonzero(((arr < 0) | (arr >= deck_size)).any(axis=1))[0])
        raise ValueError(f"{what}: deal {row} has a card outside 0..{deck_size - 1}: {arr[row].tolist()}")
    if deck_size <= 64:
        row = int(_first_repeat(np.ascontiguousarray(arr, dtype=np.uint8)))  # codes < 64: one compiled dtype
    else:
        ordered = np.sort(arr, axis=1)
        repeated = np.flatnonzero((ordered[:, 1:] == ordered[:, :-1]).any(axis=1))
        row = int(repeated[0]) if len(repeated) else -1
    if row >= 0:
        raise ValueError(f"{what}: deal {row} repeats a card: {arr[row].tolist()}")
    return arr


def _combined(name: str, results: list[TestResult], alpha: float, n: int, looked_at: str,
              labels: list[str], **details) -> TestResult:
    """One result from several sub-tests of one hypothesis (Bonferroni over the applicable ones)."""
    usable = [(lab, r) for lab, r in zip(labels, results) if r.applicable]
    if not usable:
        reasons = {lab: r.looked_at for lab, r in zip(labels, results)}
        return TestResult.not_applicable(name, n, alpha, f"{looked_at}: no sub-test applicable", reasons=reasons)
    pvalues = tuple(r.pvalue for _, r in usable)
    pvalue = bonferroni_min(pvalues)
    worst_label, worst = min(usable, key=lambda item: item[1].pvalue)
    details.update({
        "combination": f"bonferroni over {len(usable)}",
        "labels": [lab for lab, _ in usable],
        "statistics": [r.statistic for _, r in usable],
        "dofs": [r.dof for _, r in usable],
        "worst": worst_label,
    })
    return TestResult(name=name, statistic=worst.statistic, pvalue=pvalue, alpha=alpha,
                      n=n, dof=worst.dof, pvalues=pvalues,
                      looked_at=looked_at, details=details)


# ---------------------------------------------------------------------------------------------
# Position tables (card x position, suit x position, rank x position, serial)
# ---------------------------------------------------------------------------------------------

def _position_table(table: np.ndarray, n_deals: int, deck_size: int, group: int) -> tuple[float, int]:
    """Chi-square statistic and dof for a k x m table of deals (position x card group).

    ``table[j, s]`` counts deals with a card of group s at position j; each group holds ``group``
    cards, m * group = deck_size. For one uniform permutation the indicator matrix has covariance
    ``g/(n-1) * (I_k - J_k/n) (x) (I_m - J_m/m)`` (n = deck_size), so the centred table splits into
    a part orthogonal to the all-ones position vector, with variance ``N g/(n-1)`` in each of its
    (k-1)(m-1) dimensions, and the column sums (how often each group is dealt at all), with variance
    ``N g/(n-1) (1 - k/n)`` in m-1 dimensions (zero when k = n: a full deck deals every card).
    Each part scaled by its variance is chi-square; their sum has (k-1)(m-1) + (m-1 if k < n) dof.
    """
    k, m = table.shape
    n, g, big_n = deck_size, group, n_deals
    centred = table - big_n * g / n
    column_sums = centred.sum(axis=0)
    interior = centred - column_sums / k
    statistic = float((interior ** 2).sum() * (n - 1) / (big_n * g))
    dof = (k - 1) * (m - 1)
    if k < n:
        statistic += float((column_sums ** 2).sum() / k * (n - 1) / (big_n * g * (1 - k / n)))
        dof += m - 1
    return statistic, dof


def _table_result(name: str, table: np.ndarray, n_deals: int, group: int, alpha: float,
                  looked_at: str, deck_size: int = DECK, **details) -> TestResult:
    expected = n_deals * group / deck_size
    if expected < 5:
        return TestResult.not_applicable(name, n_deals, alpha,
                                         f"{looked_at}: {n_deals} deals give {expected:.2f} expected per cell, need 5")
    statistic, dof = _position_table(table.astype(float), n_deals, deck_size, group)
    pvalue = float(stats.chi2.sf(statistic, dof))
    worst = np.unravel_index(np.argmax(np.abs(table - expected)), table.shape)
    details.update({"expected_per_cell": expected, "largest_deviation": {
        "position": int(worst[0]), "group": int(worst[1]), "observed": int(table[worst]),
        "expected": expected}})
    return TestResult(name=name, statistic=statistic, pvalue=pvalue, alpha=alpha,
                      n=n_deals, dof=float(dof), pvalues=(pvalue,), looked_at=looked_at, details=details)


def _count_table(values: np.ndarray, categories: int) -> np.ndarray:
    """k x categories counts of ``values[:, j]`` (N, k) by position j, one bincount."""
    n, k = values.shape
    flat = values + categories * np.arange(k)[None, :]
    return np.bincount(flat.ravel(), minlength=k * categories).reshape(k, categories)


def card_position(deals, alpha: float = 0.01, deck_size: int = DECK) -> TestResult:
    d = check_deals(deals, deck_size)
    return card_position_table(_count_table(d, deck_size), len(d), alpha, deck_size)


def card_position_table(table: np.ndarray, n_deals: int, alpha: float = 0.01, deck_size: int = DECK) -> TestResult:
    """``card_position`` on a k x deck_size table already tallied (bulk simulation tallies as it deals)."""
    table = np.asarray(table)
    return _table_result("CardPosition", table, n_deals, 1, alpha,
                         f"card x position over {n_deals:,} deals of {table.shape[0]} cards", deck_size)


def suit_by_position(deals, alpha: float = 0.01) -> TestResult:
    d = check_deals(deals)
    table = _count_table(d & 3, SUITS)
    return _table_result("SuitByPosition", table, len(d), RANKS, alpha,
                         f"suit x position over {len(d):,} deals of {d.shape[1]} cards")


def rank_by_position(deals, alpha: float = 0.01) -> TestResult:
    d = check_deals(deals)
    table = _count_table(d >> 2, RANKS)
    return _table_result("RankByPosition", table, len(d), SUITS, alpha,
                         f"rank x position over {len(d):,} deals of {d.shape[1]} cards")


@njit(cache=True)
def _step_table(d):
    """table[j, m]: how often the card at position j of deal i is at position m of deal i+1."""
    n, k = d.shape
    table = np.zeros((k, k), dtype=np.int64)
    position_next = np.empty(k, dtype=np.int64)
    for i in range(n - 1):
        for j in range(k):
            position_next[d[i + 1, j]] = j
        for j in range(k):
            table[j, position_next[d[i, j]]] += 1
    return table


def serial_independence(deals, alpha: float = 0.01) -> TestResult:
    """Position table of the permutations carrying each full deal to the next (module docstring).

    Partial deals (k < 52) have no such permutation: the test is then on the top cards of
    non-overlapping pairs of consecutive deals (2i, 2i+1), independent and uniform on 52 x 52.
    """
    d = check_deals(deals)
    name = "SerialIndependence"
    if d.shape[1] != DECK:
        pairs = len(d) // 2
        top = d[: 2 * pairs, 0].astype(np.int64)
        counts = np.bincount(top[0::2] * DECK + top[1::2], minlength=DECK * DECK)
        if pairs < 5 * DECK * DECK:
            return TestResult.not_applicable(name, len(d), alpha,
                                             f"partial deals: top-card pairs need {10 * DECK * DECK} deals")
        return uniform_gof(counts, alpha=alpha, name=name,
                           looked_at=f"top cards of deals 2i and 2i+1 (partial deals), {pairs} pairs")
    if len(d) < 2:
        return TestResult.not_applicable(name, len(d), alpha, "needs at least two deals")
    table = _step_table(np.ascontiguousarray(d, dtype=np.uint8))  # codes < 52: one compiled dtype
    fixed = int(np.trace(table))
    pairs = len(d) - 1
    return _table_result(name, table, pairs, 1, alpha,
                         f"position in deal i+1 of the card at each position of deal i, {pairs} pairs",
                         cards_in_same_position=fixed, expected_same_position=float(pairs))


# ---------------------------------------------------------------------------------------------
# Adjacent ordered pairs
# ---------------------------------------------------------------------------------------------

def adjacent_pairs(deals, alpha: float = 0.01, deck_size: int = DECK) -> TestResult:
    d = check_deals(deals, deck_size)
    n, k = d.shape
    name, cells = "AdjacentPairs", deck_size * (deck_size - 1)
    looked_at = f"ordered pairs of cards at positions (j, j+1), {n} deals"
    if k < 2:
        return TestResult.not_applicable(name, n, alpha, "needs deals of at least two cards")
    if n < 5 * cells:
        return TestResult.not_applicable(name, n, alpha,
                                         f"{looked_at}: needs {5 * cells} deals for 5 expected per pair")
    wide = d.astype(np.int64)
    index = wide[:, :-1] * deck_size + wide[:, 1:] + (deck_size * deck_size) * np.arange(k - 1)[None, :]
    counts = np.bincount(index.ravel(), minlength=(k - 1) * deck_size * deck_size).reshape(k - 1, -1)
    possible = (np.arange(deck_size)[:, None] != np.arange(deck_size)[None, :]).ravel().astype(float)
    results = [chisquare_gof(row, possible, alpha=alpha, name=name) for row in counts]
    return _combined(name, results, alpha, n, looked_at, [f"({j},{j + 1})" for j in range(k - 1)])


# ---------------------------------------------------------------------------------------------
# Permutations of small decks
# ---------------------------------------------------------------------------------------------

def permutation_index(rows: np.ndarray) -> np.ndarray:
    """Lehmer code 0..m!-1 of the relative order of each row's m distinct values."""
    rows = np.asarray(rows)
    m = rows.shape[1]
    code = np.zeros(len(rows), dtype=np.int64)
    for i in range(m):
        smaller_after = (rows[:, i + 1:] < rows[:, i:i + 1]).sum(axis=1)
        code += smaller_after * factorial(m - 1 - i)
    return code


def permutations(deals, alpha: float = 0.01, size: int | None = None, deck_size: int = DECK) -> TestResult:
    """Every order of m cards equally likely: the m! cells of the relative order of the first m cards.

    For a small deck (``deck_size`` = m = 4 or 5) this is the full permutation test; for bigger
    deals it tests the relative order of the first ``size`` cards (default 5).
    """
    d = check_deals(deals, deck_size)
    m = size if size is not None else min(d.shape[1], 5)
    if not 2 <= m <= d.shape[1] or m > 8:
        raise ValueError(f"permutation test needs 2 <= size <= min(8, cards per deal), got {m}")
    counts = np.bincount(permutation_index(d[:, :m]), minlength=factorial(m))
    what = f"all {factorial(m)} orders of a {m}-card deck" if deck_size == m else \
        f"relative order of the first {m} cards ({factorial(m)} orders)"
    return uniform_gof(counts, alpha=alpha, name=f"Permutations{m}", looked_at=f"{what}, {len(d)} deals")


# ---------------------------------------------------------------------------------------------
# Runs
# ---------------------------------------------------------------------------------------------

def eulerian_counts(n: int) -> list[int]:
    """A(n, d): permutations of n items with d descents (d = 0..n-1)."""
    row = [1]
    for size in range(2, n + 1):
        row = [(d + 1) * (row[d] if d < len(row) else 0) + (size - d) * (row[d - 1] if d >= 1 else 0)
               for d in range(size)]
    return row


def alternating_run_counts(n: int) -> list[int]:
    """R(n, r): permutations of n >= 2 items with r runs up and down (index r = 0..n-1; R(n, 0) = 0).

    André's recurrence R(n, r) = r R(n-1, r) + 2 R(n-1, r-1) + (n - r) R(n-1, r-2), R(2, 1) = 2.
    """
    if n < 2:
        raise ValueError("runs up and down need at least 2 items")
    row = [0, 2]
    for size in range(3, n + 1):
        get = lambda r: row[r] if 0 <= r < len(row) else 0  # noqa: E731
        row = [r * get(r) + 2 * get(r - 1) + (size - r) * get(r - 2) for r in range(size)]
    return row


def runs(deals, alpha: float = 0.01) -> TestResult:
    d = check_deals(deals)
    n, k = d.shape
    name = "Runs"
    if k < 3:
        return TestResult.not_applicable(name, n, alpha, "needs deals of at least 3 cards")
    rising = d[:, 1:] > d[:, :-1]
    descents = (~rising).sum(axis=1)
    turns = (rising[:, 1:] != rising[:, :-1]).sum(axis=1)   # alternating runs = turns + 1
    total = factorial(k)
    asc = chisquare_gof(np.bincount(descents, minlength=k), [Fraction(c, total) for c in eulerian_counts(k)],
                        alpha=alpha, name=name, cell_labels=[f"{r + 1} runs" for r in range(k)])
    alt_counts = alternating_run_counts(k)
    alt = chisquare_gof(np.bincount(turns + 1, minlength=k), [Fraction(c, total) for c in alt_counts],
                        alpha=alpha, name=name, cell_labels=[f"{r} runs" for r in range(k)])
    return _combined(name, [asc, alt], alpha, n, f"ascending runs and runs up and down in {n} deals of {k} cards",
                     ["ascending runs", "runs up and down"],
                     mean_ascending_runs=float(descents.mean() + 1), mean_alternating_runs=float(turns.mean() + 1))


# ---------------------------------------------------------------------------------------------
# Gaps
# ---------------------------------------------------------------------------------------------

def geometric_cells(p: float, max_gap: int) -> np.ndarray:
    """Probabilities of gaps 0..max_gap-1 and of the tail >= max_gap, geometric(p) on {0, 1, ...}."""
    g = np.arange(max_gap)
    head = p * (1 - p) ** g
    return np.append(head, (1 - p) ** max_gap)


def gaps(deals, alpha: float = 0.01) -> TestResult:
    d = check_deals(deals)
    n = len(d)
    name, p = "Gaps", 1 / RANKS
    top_rank = d[:, 0] >> 2
    results, labels = [], []
    for r in range(RANKS):
        at = np.flatnonzero(top_rank == r)
        gap = np.diff(at) - 1
        # cells 0..max_gap-1 and a tail cell >= max_gap expecting about 5 (sparser cells get merged)
        max_gap = max(1, int(np.log(5 / len(gap)) / np.log(1 - p))) if len(gap) > 5 else 1
        observed = np.bincount(np.minimum(gap, max_gap), minlength=max_gap + 1)
        results.append(chisquare_gof(observed, geometric_cells(p, max_gap), alpha=alpha, name=name,
                                     cell_labels=[str(g) for g in range(max_gap)] + [f">={max_gap}"]))
        labels.append(f"rank {'23456789TJQKA'[r]}")
    return _combined(name, results, alpha, n, f"gaps between deals whose top card has the same rank, {n} deals",
                     labels)


# ---------------------------------------------------------------------------------------------
# Coupon collector
# ---------------------------------------------------------------------------------------------

def collector_distribution(groups: int, per_group: int, dealt: int) -> list[Fraction]:
    """P(T = t) for t = 0..dealt and P(T > dealt): T = cards dealt until every group is seen.

    P(all groups among the first t cards) by inclusion-exclusion over the groups missed:
    sum_j (-1)^j C(G, j) C(n - j g, t) / C(n, t).
    """
    n = groups * per_group

    def all_seen(t: int) -> Fraction:
        return sum((Fraction((-1) ** j * comb(groups, j) * comb(n - j * per_group, t), comb(n, t))
                    for j in range(groups + 1)), Fraction(0))

    cdf = [all_seen(t) for t in range(dealt + 1)]
    return [cdf[0]] + [cdf[t] - cdf[t - 1] for t in range(1, dealt + 1)] + [1 - cdf[dealt]]


@njit(cache=True)
def _collector_times(groups_of_cards, groups):
    """Cards dealt until all groups seen (k + 1 when some group never appears in the deal)."""
    n, k = groups_of_cards.shape
    out = np.full(n, k + 1, dtype=np.int64)
    full = (1 << groups) - 1
    for i in range(n):
        seen = 0
        for j in range(k):
            seen |= 1 << groups_of_cards[i, j]
            if seen == full:
                out[i] = j + 1
                break
    return out


def coupon_collector(deals, alpha: float = 0.01) -> TestResult:
    d = check_deals(deals)
    n, k = d.shape
    name = "CouponCollector"
    results = []
    for label, groups, per_group, of in (("ranks", RANKS, SUITS, d >> 2), ("suits", SUITS, RANKS, d & 3)):
        times = _collector_times(np.ascontiguousarray(of, dtype=np.int64), groups)
        probs = collector_distribution(groups, per_group, k)
        observed = np.bincount(times, minlength=k + 2)
        results.append(chisquare_gof(observed, [float(x) for x in probs], alpha=alpha, name=name,
                                     cell_labels=[str(t) for t in range(k + 1)] + [f">{k}"]))
    return _combined(name, results, alpha, n, f"cards dealt until all 13 ranks / all 4 suits are seen, {n} deals",
                     ["all ranks", "all suits"])


# ---------------------------------------------------------------------------------------------
# Poker test
# ---------------------------------------------------------------------------------------------

def poker_category_counts() -> list[int]:
    """Number of 5-card hands in each category, HIGH_CARD..ROYAL_FLUSH, by counting.

    A straight is one of 10 rank sequences (A-5 to T-A); 4 of the 40 straight flushes are royal.
    """
    straights, suited = 10, SUITS
    straight_flush_all = straights * suited
    royal = suited
    quads = RANKS * (RANKS - 1) * SUITS
    full_house = RANKS * comb(4, 3) * (RANKS - 1) * comb(4, 2)
    flush = suited * comb(RANKS, 5) - straight_flush_all
    straight = straights * SUITS ** 5 - straight_flush_all
    trips = RANKS * comb(4, 3) * comb(RANKS - 1, 2) * SUITS ** 2
    two_pair = comb(RANKS, 2) * comb(4, 2) ** 2 * (RANKS - 2) * SUITS
    pair = RANKS * comb(4, 2) * comb(RANKS - 1, 3) * SUITS ** 3
    high_card = (comb(RANKS, 5) - straights) * (SUITS ** 5 - suited)
    counts = [high_card, pair, two_pair, trips, straight, flush, full_house, quads,
              straight_flush_all - royal, royal]
    assert sum(counts) == comb(DECK, 5)
    return counts


def poker(deals, alpha: float = 0.01) -> TestResult:
    from certify.hands import CATEGORY_NAMES, rank_batch

    d = check_deals(deals)
    n, k = d.shape
    name = "Poker"
    slots = k // 5
    if slots == 0:
        return TestResult.not_applicable(name, n, alpha, "needs deals of at least 5 cards")
    expected = [Fraction(c, comb(DECK, 5)) for c in poker_category_counts()]
    labels_cells = [CATEGORY_NAMES[c] for c in range(len(expected))]
    categories = rank_batch(np.ascontiguousarray(d[:, :5 * slots].reshape(n * slots, 5)).astype(np.int32)) >> 20
    categories = categories.reshape(n, slots)
    results = [chisquare_gof(np.bincount(categories[:, s], minlength=len(expected)), [float(x) for x in expected],
                             alpha=alpha, name=name, cell_labels=labels_cells) for s in range(slots)]
    return _combined(name, results, alpha, n, f"5-card hand categories, {slots} hands per deal, {n} deals",
                     [f"cards {5 * s}-{5 * s + 4}" for s in range(slots)])


# ---------------------------------------------------------------------------------------------
# Repeated deals
# ---------------------------------------------------------------------------------------------

def repeated_deals(deals, alpha: float = 0.01) -> TestResult:
    d = check_deals(deals)
    n, k = d.shape
    name = "RepeatedDeals"
    possible = factorial(DECK) // factorial(DECK - k)
    keys = np.ascontiguousarray(d.astype(np.uint8)).view(np.dtype((np.void, k))).ravel()
    _, multiplicity = np.unique(keys, return_counts=True)
    pairs = int((multiplicity * (multiplicity - 1) // 2).sum())
    expected = Fraction(n * (n - 1), 2 * possible)
    pvalue = 1.0 if pairs == 0 else float(stats.poisson.sf(pairs - 1, float(expected)))
    return TestResult(name=name, statistic=float(pairs), pvalue=pvalue, alpha=alpha,
                      n=n, pvalues=(pvalue,),
                      looked_at=f"pairs of identical deals among {n} deals of {k} cards",
                      details={"expected_pairs": float(expected), "possible_deals": str(possible),
                               "distinct_deals": int(len(multiplicity))})
