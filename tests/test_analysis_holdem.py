"""Texas Hold'em Bonus exact analysis: the kernels against brute force, invariants, pay-table and
rule changes, and (slow) the full computation against the published analysis."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from functools import cache
from itertools import combinations, permutations
from math import comb

import numpy as np
import pytest

from certify.analysis import holdem_bonus as hb
from certify.analysis import holdem_kernel as kernel
from certify.cards import parse_cards
from certify.games.holdem_bonus import HoldemView, SimpleStrategy
from certify.hands import Category, rank_hand
from certify.spec import load_spec

# 11 cards with straights, flushes and many ties: 9h-Ah and Ts-As.
SMALL_DECK = tuple(parse_cards("9h Th Jh Qh Kh Ah Ts Js Qs Ks As".split()))
STRAIGHT = int(Category.STRAIGHT)


PAIR_RULE = hb.SpecStreetRule(int(Category.PAIR), int(Category.PAIR))


def small_counts(deck=SMALL_DECK, win_pays=Fraction(1), ante_category=STRAIGHT, rule=PAIR_RULE):
    holes = list(combinations(deck, 2))
    return hb.compute_decision_counts(deck, holes, [1] * len(holes), [str(h) for h in holes],
                                      ante_category, win_pays, rule)


def engine_rule(turn_at_least="pair", river_at_least="pair"):
    """The engine's own strategy object (the readable reference for the spec strategy)."""
    strategy = SimpleStrategy([], turn_at_least, river_at_least)

    def bets(street, hole, board):
        view = HoldemView(0, street, tuple(hole), tuple(board), Decimal(1), ("check", "bet"))
        return strategy.decide(view) == "bet"
    return bets


def brute_force_counts(deck, hole, ante_category, win_pays=Fraction(1), rule=None, indifferent=False):
    """Every deal played out with the plain evaluator; the optimal decisions by summing over what is
    unseen, or ``rule(street, hole, board) -> bet?`` when given."""

    @cache
    def value(cards: frozenset) -> int:
        return rank_hand(sorted(cards))

    rest = [c for c in deck if c not in hole]

    @cache
    def showdown(board: frozenset):
        mine = value(board | set(hole))
        wins = ties = losses = 0
        for dealer in combinations([c for c in rest if c not in board], 2):
            theirs = value(board | set(dealer))
            wins += mine > theirs
            ties += mine == theirs
            losses += mine < theirs
        return wins, ties, losses, (mine >> 20) >= ante_category

    def net(board):
        w, _, l, _ = showdown(frozenset(board))
        return win_pays * w - l

    counts = np.zeros((4, 4), dtype=np.int64)
    for flop in combinations(rest, 3):
        unseen = [c for c in rest if c not in flop]
        if rule:
            turn_bet = rule("flop", hole, flop)
        else:
            turn_net = sum(net(flop + (t, r)) for t, r in permutations(unseen, 2))
            turn_bet = turn_net > 0 or (indifferent and turn_net == 0)
        for t in unseen:
            rivers = [c for c in unseen if c != t]
            if rule:
                river_bet = rule("turn", hole, flop + (t,))
            else:
                river_net = sum(net(flop + (t, r)) for r in rivers)
                river_bet = river_net > 0 or (indifferent and river_net == 0)
            for r in rivers:
                w, ties, losses, strong = showdown(frozenset(flop + (t, r)))
                pattern = 2 * turn_bet + river_bet
                counts[pattern, kernel.WIN_STRONG if strong else kernel.WIN_WEAK] += w
                counts[pattern, kernel.TIE] += ties
                counts[pattern, kernel.LOSE] += losses
    return counts


@pytest.fixture(scope="module")
def small():
    return small_counts()


def test_colex_board_order():
    boards = kernel.all_boards(9)
    binom = kernel.binomial_table(9)
    assert len(boards) == comb(9, 5)
    for i, b in enumerate(boards):
        assert sum(binom[int(c), k + 1] for k, c in enumerate(b)) == i
        assert list(b) == sorted(b)


def test_kernel_matches_brute_force_on_a_small_deck(small):
    for h, hole in enumerate(small.holes):
        assert np.array_equal(small.counts[h], brute_force_counts(SMALL_DECK, hole, STRAIGHT)), hole


def test_betting_when_indifferent_keeps_the_edge_and_matches_brute_force(small):
    holes = list(combinations(SMALL_DECK, 2))
    eager = hb.compute_decision_counts(SMALL_DECK, holes, [1] * len(holes), [str(h) for h in holes],
                                       STRAIGHT, Fraction(1), bet_when_indifferent=True)
    for h in (0, 9, 33, 54):
        assert np.array_equal(eager.counts[h], brute_force_counts(SMALL_DECK, holes[h], STRAIGHT,
                                                                  indifferent=True))
    r = rules()
    strict, lenient = hb.main_game_sheet(r, small), hb.main_game_sheet(r, eager)
    assert strict.expected_return == lenient.expected_return
    assert lenient.average_wager > strict.average_wager  # zero-EV spots exist on this deck


def test_spec_strategy_counts_match_the_engine_strategy_played_out(small):
    rule = engine_rule()
    for h, hole in enumerate(small.holes):
        assert np.array_equal(small.rule_counts[h], brute_force_counts(SMALL_DECK, hole, STRAIGHT, rule=rule)), hole
    # a stricter rule (two pair on the turn, trips on the river) bets less
    strict = small_counts(rule=hb.SpecStreetRule(int(Category.TWO_PAIR), int(Category.TRIPS)))
    rule = engine_rule("two_pair", "trips")
    for h in (3, 30, 52):
        assert np.array_equal(strict.rule_counts[h], brute_force_counts(SMALL_DECK, strict.holes[h], STRAIGHT,
                                                                        rule=rule))
    assert strict.rule_counts[:, 1:].sum() < small.rule_counts[:, 1:].sum()


def test_street_profile_counts_every_board_and_bet(small):
    decisions = hb.hole_decisions(rules(flop=1), small)  # every hole played
    rows = hb.street_profile(small, decisions)
    n = len(SMALL_DECK)
    turns = [r for r in rows if r["street"] == "Turn"]
    rivers = [r for r in rows if r["street"] == "River"]
    assert sum(r["boards"] for r in turns) == len(small.holes) * comb(n - 2, 3)
    assert sum(r["boards"] for r in rivers) == len(small.holes) * comb(n - 2, 4)
    # every flop leads to the same number of deals, so the bets made add up to the Turn-bet deals
    per_flop = small.deals_per_hole // comb(n - 2, 3)
    per_four = small.deals_per_hole // comb(n - 2, 4)
    assert sum(r["bets"] for r in turns) * per_flop == small.counts[:, 2:].sum()
    assert sum(r["bets"] for r in rivers) * per_four == small.counts[:, 1].sum() + small.counts[:, 3].sum()
    assert all(0 <= r["bet_rate"] <= 1 for r in rows)


def test_optimal_play_beats_the_spec_strategy(small):
    r = rules()
    spec = load_spec("texas_holdem_bonus_2x").strategy
    optimal = hb.main_game_sheet(r, small)
    simple = hb.main_game_sheet(r, small, "simple", spec_strategy=spec)
    assert optimal.expected_return > simple.expected_return
    assert [row.event for row in optimal.rows] == [row.event for row in simple.rows] == hb.event_names(r)


def test_kernel_decisions_follow_the_win_odds():
    # Raises paying 3:2 make more turns and rivers worth betting; the kernel must agree with brute force.
    dc = small_counts(win_pays=Fraction(3, 2))
    for h in (0, 17, 40):
        assert np.array_equal(dc.counts[h], brute_force_counts(SMALL_DECK, dc.holes[h], STRAIGHT,
                                                               Fraction(3, 2)))
    assert dc.counts[:, 2:].sum() > small_counts().counts[:, 2:].sum()


def test_counts_add_up_to_every_deal(small):
    n = len(SMALL_DECK)
    per_hole = comb(n - 2, 3) * (n - 5) * (n - 6) * comb(n - 7, 2)
    assert small.deals_per_hole == per_hole
    assert (small.counts.sum(axis=(1, 2)) == per_hole).all()
    assert (small.rule_counts.sum(axis=(1, 2)) == per_hole).all()
    assert hb.deals_per_hole(52) * comb(52, 2) == comb(52, 2) * comb(50, 2) * comb(48, 3) * 45 * 44


def test_suit_isomorphic_holes_have_identical_counts():
    # Queens to aces in all four suits: every hole of a class must give the same cell counts.
    deck = tuple(range(40, 52))
    dc = small_counts(deck)
    by_class: dict[str, np.ndarray] = {}
    for h, hole in enumerate(dc.holes):
        name = hb.class_of_hole(*hole)
        if name in by_class:
            assert np.array_equal(by_class[name], dc.counts[h]), (name, hole)
        by_class[name] = dc.counts[h]
    assert set(by_class) == {"AA", "KK", "QQ", "AKs", "AKo", "AQs", "AQo", "KQs", "KQo"}


def test_full_deck_showdown_counts_match_brute_force():
    rng = np.random.default_rng(6)
    classes = hb.hole_classes()
    picked = [classes[i] for i in rng.choice(len(classes), 6, replace=False)] + [classes[0]]
    reps = np.array([c.cards for c in picked], dtype=np.int64)
    boards = kernel.all_boards(52)[rng.choice(comb(52, 5), 4, replace=False)]
    codes = kernel.showdown_codes(np.arange(52, dtype=np.int64), reps, boards, STRAIGHT, 2)
    for r, cls in enumerate(picked):
        for b, board in enumerate(boards):
            board = [int(c) for c in board]
            if set(board) & set(cls.cards):
                assert codes[r, b] == kernel.NOT_DEALT
                continue
            mine = rank_hand(board + list(cls.cards))
            rest = [c for c in range(52) if c not in board and c not in cls.cards]
            theirs = [rank_hand(board + list(d)) for d in combinations(rest, 2)]
            wins = sum(mine > v for v in theirs)
            ties = sum(mine == v for v in theirs)
            strong = int((mine >> 20) >= STRAIGHT)
            assert codes[r, b] == wins | (ties << kernel.TIE_SHIFT) | (strong << kernel.STRONG_SHIFT)


def test_showdown_codes_by_suit_class_equal_every_board_evaluated():
    # a deck closed under suit permutations (8 to ace, four suits): one board per suit class
    # evaluated and mapped onto its class must give every board's codes
    deck = np.array([c for c in range(52) if c >> 2 >= 6], dtype=np.int64)
    reps = np.array([[0, 1], [0, 4], [1, 9], [27, 26], [3, 7], [20, 24]], dtype=np.int64)
    boards = kernel.all_boards(len(deck))
    every = kernel.showdown_codes(deck, reps, boards, STRAIGHT, 16)
    symmetry = kernel.suit_permutations(deck)
    assert symmetry is not None and kernel.suit_permutations(np.array(SMALL_DECK)) is None
    by_class = kernel.showdown_codes_by_suit_class(deck, reps, boards, STRAIGHT, *symmetry, 16)
    assert (every == kernel.NOT_DEALT).any() and np.array_equal(every, by_class)


def test_hole_classes_partition_the_holes():
    classes = hb.hole_classes()
    assert len(classes) == 169 and sum(c.weight for c in classes) == comb(52, 2)
    weights = {c.name: c.weight for c in classes}
    seen: dict[str, int] = {}
    for hole in combinations(range(52), 2):
        name = hb.class_of_hole(*hole)
        seen[name] = seen.get(name, 0) + 1
    assert seen == weights
    assert all(hb.class_of_hole(*c.cards) == c.name for c in classes)


# ---- the return table built from the counts -----------------------------------------------------
def rules(flop=2, ante_odds=1, win_pays=1):
    return hb.HoldemRules(Fraction(flop), Fraction(1), Fraction(1), Fraction(win_pays), STRAIGHT,
                          Fraction(ante_odds))


def brute_force_ev(dc, h, r):
    """Expected result of playing hole h, straight from its cells and the rules' payouts."""
    c = dc.counts[h]
    return Fraction(sum(int(c[p, k]) * r.pays(p, k)[0] for p in range(4) for k in range(4)),
                    dc.deals_per_hole)


def test_sheet_adds_up_and_plays_iff_better_than_folding(small):
    r = rules()
    sheet = hb.main_game_sheet(r, small)
    assert sheet.cycle == len(small.holes) * small.deals_per_hole
    evs = [brute_force_ev(small, h, r) for h in range(len(small.holes))]
    assert sheet.expected_return == sum(max(ev, Fraction(-1)) for ev in evs) / len(evs)
    decisions = hb.hole_decisions(r, small)
    assert [d.play for d in decisions] == [ev > -1 for ev in evs]
    fold = sheet.rows[0]
    assert fold.event == "fold" and fold.combinations == sum(ev <= -1 for ev in evs) * small.deals_per_hole
    # average wager = Ante + Flop bet when played + Turn and River bets when made
    played = sum(d.weight for d in decisions if d.play) / Fraction(len(decisions))
    turn = sum(d.turn_bet_rate for d in decisions if d.play) / len(decisions)
    river = sum(d.river_bet_rate for d in decisions if d.play) / len(decisions)
    assert sheet.average_wager == 1 + 2 * played + turn + river


def test_flop_multiple_moves_the_edge_by_the_played_hands_net(small):
    # EV(m) is, per hole, the larger of folding (-1) and a function linear in the Flop multiple m
    # (slope: the hole's wins - losses), so EV(3) - EV(1) lies between 2 x the net of the holes
    # played at m=1 and 2 x the net of those played at m=3. With every hole played the game is
    # symmetric (net 0); a bigger Flop bet makes folding the weakest holes worth it, which helps.
    one, three = rules(flop=1), rules(flop=3)
    ev1 = hb.main_game_sheet(one, small).expected_return
    ev3 = hb.main_game_sheet(three, small).expected_return

    def net_of_played(r):
        total = 0
        for h, d in enumerate(hb.hole_decisions(r, small)):
            if d.play:
                c = small.counts[h]
                total += int(c[:, kernel.WIN_STRONG].sum() + c[:, kernel.WIN_WEAK].sum() - c[:, kernel.LOSE].sum())
        return Fraction(total, len(small.holes) * small.deals_per_hole)

    assert all(d.play for d in hb.hole_decisions(one, small)) and net_of_played(one) == 0
    assert not all(d.play for d in hb.hole_decisions(three, small))
    assert 2 * net_of_played(one) <= ev3 - ev1 <= 2 * net_of_played(three)
    assert ev3 > ev1


def test_ante_odds_move_the_edge_by_the_strong_wins(small):
    # Flop bet 1x: every hole is played, and richer Ante odds only make playing better, so the
    # expected result moves by exactly (odds delta) x P(win with a straight or better).
    base = hb.main_game_sheet(rules(flop=1), small)
    richer = hb.main_game_sheet(rules(flop=1, ante_odds=3), small)
    assert all(d.play for d in hb.hole_decisions(rules(flop=1, ante_odds=3), small))
    strong = int(small.counts[:, :, kernel.WIN_STRONG].sum())
    assert richer.expected_return - base.expected_return == 2 * Fraction(strong, base.cycle)
    assert strong > 0


# ---- the Bonus side bet -------------------------------------------------------------------------
def test_bonus_counts_by_hand():
    counts = hb.bonus_counts()
    dealer = comb(50, 2)
    assert sum(counts.values()) == comb(52, 2) * dealer
    assert counts["aces_vs_dealer_aces"] == comb(4, 2) * comb(2, 2)
    assert counts["aces"] == comb(4, 2) * (dealer - 1)
    assert counts["ak_suited"] == 4 * dealer and counts["ak_offsuit"] == 12 * dealer
    assert counts["aq_aj_suited"] == 8 * dealer and counts["aq_aj_offsuit"] == 24 * dealer
    assert counts["jacks_to_kings"] == 18 * dealer and counts["twos_to_tens"] == 9 * 6 * dealer


def test_bonus_pay_change_moves_the_edge_by_pay_delta_times_probability():
    spec = load_spec("texas_holdem_bonus_2x")
    base = hb.bonus_sheet(spec)
    pays = spec.bonus.pays.model_copy(update={"aces": spec.bonus.pays.aces + 10})
    changed = spec.model_copy(update={"bonus": spec.bonus.model_copy(update={"pays": pays})})
    moved = hb.bonus_sheet(changed)
    p_aces = Fraction(comb(4, 2) * (comb(50, 2) - 1), comb(52, 2) * comb(50, 2))
    assert base.house_edge - moved.house_edge == 10 * p_aces


def test_bonus_forfeited_on_fold_only_when_the_spec_says_so():
    spec = load_spec("texas_holdem_bonus_2x")
    forfeit = spec.model_copy(update={"bonus": spec.bonus.model_copy(update={"paid_on_fold": False})})
    folded = frozenset({"32o", "TT"})
    paid = hb.bonus_sheet(spec, folded)
    lost = hb.bonus_sheet(forfeit, folded)
    tens = Fraction(6 * comb(50, 2), comb(52, 2) * comb(50, 2))
    assert paid.house_edge == hb.bonus_sheet(spec).house_edge
    assert lost.house_edge - paid.house_edge == (Fraction(spec.bonus.pays.twos_to_tens) + 1) * tens


# ---- the full computation (minutes) -------------------------------------------------------------
@pytest.mark.slow
def test_full_game_agrees_with_the_published_analysis():
    # Wizard of Odds, "Texas Hold'em Bonus" (http://www.wizardofodds.com/texasholdembonus), Las Vegas
    # rules (Flop bet 2x, Ante pays on a straight or better): house edge 2.037%, average wager
    # 3.8181 Antes, element of risk 0.5335%, standard deviation 3.500839, and the expected values
    # of playing two-card hands, e.g. 2-3 unsuited -1.155927 ... 2-K unsuited -0.102668. The same
    # page quotes Scott McIntosh's 2.3496% for the "Colorado rules"; our Flop-1x game gives it.
    spec = load_spec("texas_holdem_bonus_2x")
    sheet = hb.par_sheet(spec)
    main = sheet.main
    assert main.cycle == comb(52, 2) * comb(50, 2) * comb(48, 3) * 45 * 44
    assert round(100 * float(main.house_edge), 3) == 2.037
    assert round(float(main.average_wager), 4) == 3.8181
    assert round(100 * float(main.element_of_risk), 4) == 0.5335
    ev = {row["hand"]: row["ev_play"] for row in main.strategy_table}
    published = {"32o": -1.155927, "42o": -1.091604, "52o": -1.019987, "62o": -1.046723,
                 "72o": -1.031301, "82o": -0.896002, "92o": -0.763132, "T2o": -0.613979,
                 "J2o": -0.459414, "Q2o": -0.28969, "K2o": -0.102668}
    for hand, value in published.items():
        assert round(ev[hand], 6) == pytest.approx(value, abs=1e-12), hand
    assert sorted(sheet.frequencies["optimal_preflop_folds"]) == ["32o", "42o", "52o", "62o", "72o"]

    # The published standard deviation is reproduced to all 7 digits by betting the Turn / River
    # also when indifferent (EV exactly 0: same edge) and leaving the fold row out of the second
    # moment. The exact figure with folds counted is larger; both conventions are shown here.
    rules = hb.HoldemRules.from_spec(spec)
    eager = hb.main_game_sheet(rules, hb.full_deck_counts(rules.ante_category, rules.win_pays,
                                                          bet_when_indifferent=True))
    assert eager.expected_return == main.expected_return
    second_moment_without_folds = sum(r.pays ** 2 * r.probability for r in eager.rows if r.event != "fold")
    published_sd = float(second_moment_without_folds - eager.expected_return ** 2) ** 0.5
    assert round(published_sd, 6) == 3.500839
    assert eager.std_dev > main.std_dev > published_sd

    one = hb.par_sheet(load_spec("texas_holdem_bonus"))
    assert one.main.cycle == main.cycle
    assert round(100 * float(one.main.house_edge), 4) == 2.3496
    assert one.main.house_edge > main.house_edge  # the 2x Flop bet is worth more to the player
    for s in (sheet, one):
        simple = s.wager(hb.SPEC_STRATEGY_WAGER)
        assert simple.cycle == main.cycle and simple.house_edge > s.main.house_edge


def test_par_sheet_wiring_with_small_deck_counts(small, monkeypatch):
    # The full-deck counts take minutes (covered by the slow test); the wiring from the spec to the
    # three wagers and their JSON is checked here on the small deck's counts.
    seen = []

    def fake_counts(ante_category, win_pays, rule=None, bet_when_indifferent=False):
        seen.append((ante_category, win_pays, rule))
        return small

    monkeypatch.setattr(hb, "full_deck_counts", fake_counts)
    spec = load_spec("texas_holdem_bonus_2x")
    sheet = hb.par_sheet(spec)
    assert seen == [(STRAIGHT, Fraction(1), PAIR_RULE)]
    assert [w.name for w in sheet.wagers] == ["main game", hb.SPEC_STRATEGY_WAGER, "Bonus"]
    assert sheet.main.expected_return == hb.main_game_sheet(hb.HoldemRules.from_spec(spec), small).expected_return
    assert sheet.wager("Bonus").house_edge == hb.bonus_sheet(spec).house_edge
    d = sheet.to_dict()
    main = d["wagers"][0]
    assert main["exact"] and main["cycle"] == sum(r["combinations"] for r in main["return_table"])
    assert [r["event"] for r in main["return_table"]] == hb.event_names(hb.HoldemRules.from_spec(spec))


def test_unknown_preflop_fold_class_is_refused(small):
    full = hb.DecisionCounts(hb.FULL_DECK, tuple(c.cards for c in hb.hole_classes()), (1,) * 169,
                             tuple(c.name for c in hb.hole_classes()), np.zeros((169, 4, 4), np.int64),
                             1, 0.0, rule_counts=np.zeros((169, 4, 4), np.int64))
    strategy = load_spec("texas_holdem_bonus_2x").strategy.model_copy(update={"preflop_fold": ["23o"]})
    with pytest.raises(hb.ParError, match="23o"):
        hb.main_game_sheet(rules(), full, "x", spec_strategy=strategy)
