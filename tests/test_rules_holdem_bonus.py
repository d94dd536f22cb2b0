"""Texas Hold'em Bonus in the rules model (specs/texas_holdem_bonus.yaml, texas_holdem_bonus_2x.yaml):
the street-bets analysis (certify.rules.board_streets) against brute force, invariants, pay-table and
rule changes, (slow) the full computation against the published analysis; and every figure the
retired hold'em bonus family gave (certify.analysis.holdem_bonus, certify.games.holdem_bonus, its
kernel): the exact sheets row for row, the bulk kernel deck for deck on the simulation's fixed-seed
decks, the round engine seat for seat, the procedure scenarios and their negative controls."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from fractions import Fraction
from functools import cache
from itertools import combinations, permutations
from math import comb

import numpy as np
import pytest

from certify.cards import parse_cards
from certify.hands import Category, rank_hand
from certify.rules import board_streets as hb
from certify.rules import board_streets_kernel as kernel
from certify.rules.engine import rule_met
from certify.rules.model import StrategyRule
from certify.spec import SPECS_DIR, HandThreshold, SpecError, load_spec
from spec_files import array_digest, spec_copy

# 11 cards with straights, flushes and many ties: 9h-Ah and Ts-As.
SMALL_DECK = tuple(parse_cards("9h Th Jh Qh Kh Ah Ts Js Qs Ks As".split()))
STRAIGHT = int(Category.STRAIGHT)


PAIR_RULE = hb.SpecStreetRule((int(Category.PAIR),) * 2, (STRAIGHT,) * 2)


def small_counts(deck=SMALL_DECK, win_pays=Fraction(1), ante_category=STRAIGHT, rule=PAIR_RULE):
    holes = list(combinations(deck, 2))
    return hb.compute_decision_counts(deck, holes, [1] * len(holes), [str(h) for h in holes],
                                      ante_category, win_pays, rule)


def engine_rule(turn_at_least="pair", river_at_least="pair"):
    """The round engine's own reading of a strategy rule (``rule_met``: the readable reference)."""
    spec = load_spec("texas_holdem_bonus")
    rules = {street: StrategyRule(option="bet", at_least=HandThreshold(category=category), hole_card_plays=True)
             for street, category in (("flop", turn_at_least), ("turn", river_at_least))}

    def bets(street, hole, board):
        return rule_met(spec, rules[street], hole, board)
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
    strict = small_counts(rule=hb.SpecStreetRule((int(Category.TWO_PAIR), int(Category.TRIPS)), (STRAIGHT,) * 2))
    rule = engine_rule("two_pair", "trips")
    for h in (3, 30, 52):
        assert np.array_equal(strict.rule_counts[h], brute_force_counts(SMALL_DECK, strict.holes[h], STRAIGHT,
                                                                        rule=rule))
    assert strict.rule_counts[:, 1:].sum() < small.rule_counts[:, 1:].sum()


def test_street_profile_counts_every_board_and_bet(small):
    decisions = hb.hole_decisions(rules(flop=1), small)  # every hole played
    rows = hb.street_profile(rules(flop=1), small, decisions)
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
    spec = load_spec("texas_holdem_bonus_2x")
    optimal = hb.main_game_sheet(r, small)
    simple = hb.main_game_sheet(r, small, "simple", strategy=hb.spec_strategy(spec, hb.street_rules(spec)))
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
    pair = 1 << 20  # a dealer qualifying from a pair up: the codes split by it
    codes = kernel.showdown_codes(np.arange(52, dtype=np.int64), reps, boards, pair, 2)
    for r, cls in enumerate(picked):
        for b, board in enumerate(boards):
            board = [int(c) for c in board]
            if set(board) & set(cls.cards):
                assert codes[r, b] == kernel.NOT_DEALT
                continue
            mine = rank_hand(board + list(cls.cards))
            rest = [c for c in range(52) if c not in board and c not in cls.cards]
            theirs = [rank_hand(board + list(d)) for d in combinations(rest, 2)]
            cells = [sum((v >= pair) == q and (mine > v, mine == v, mine < v)[k] for v in theirs)
                     for q in (True, False) for k in range(3)]
            got = np.zeros(kernel.N_CELLS, np.int64)
            assert kernel.decode_cells(codes[r, b], len(theirs), got) == mine >> 20
            assert got.tolist() == cells


def test_full_deck_codes_by_board_shape_match_brute_force_on_flush_boards():
    # one board per shape stands for its boards: boards with 3, 4 and 5 cards of a suit (the card
    # types then tell the flush suit apart), paired, and without a flush suit, against holes of the
    # flush suit, of another and a pair, read from the full deck's shape tables
    deck = np.arange(52, dtype=np.int64)
    holes = [parse_cards(h.split()) for h in ("As Ks", "2s 3s", "Ah Kd", "Ac Ad", "Qs Jh", "7c 7s")]
    reps = np.array(holes, dtype=np.int64)
    boards = kernel.all_boards(52)
    binom = kernel.binomial_table(52)
    pair = 1 << 20
    codes = kernel.showdown_codes_by_suit_class(deck, reps, boards, pair, *kernel.suit_permutations(deck), 64)
    for text in ("Ts 8s 4s Kh 2d", "Ts 9s 8s 7s Qd", "Js 9s 6s 4s 2s", "Ts Th 5s 4s Qc", "Th 8d 4c Kh 2s"):
        board = sorted(parse_cards(text.split()))
        b = sum(int(binom[c, k + 1]) for k, c in enumerate(board))
        assert list(boards[b]) == board
        for r, hole in enumerate(holes):
            if set(board) & set(hole):
                assert codes[r, b] == kernel.NOT_DEALT
                continue
            mine = rank_hand(board + list(hole))
            rest = [c for c in range(52) if c not in board and c not in hole]
            theirs = [rank_hand(board + list(d)) for d in combinations(rest, 2)]
            cells = [sum((v >= pair) == q and (mine > v, mine == v, mine < v)[k] for v in theirs)
                     for q in (True, False) for k in range(3)]
            got = np.zeros(kernel.N_CELLS, np.int64)
            assert kernel.decode_cells(codes[r, b], len(theirs), got) == mine >> 20
            assert got.tolist() == cells, (text, hole)


def test_showdown_codes_by_suit_class_equal_every_board_evaluated():
    # a deck closed under suit permutations (8 to ace, four suits): one board per suit class
    # evaluated and mapped onto its class must give every board's codes
    deck = np.array([c for c in range(52) if c >> 2 >= 6], dtype=np.int64)
    reps = np.array([[0, 1], [0, 4], [1, 9], [27, 26], [3, 7], [20, 24]], dtype=np.int64)
    boards = kernel.all_boards(len(deck))
    every = kernel.showdown_codes(deck, reps, boards, 1 << 20, 16)  # a dealer qualifying from a pair
    symmetry = kernel.suit_permutations(deck)
    assert symmetry is not None and kernel.suit_permutations(np.array(SMALL_DECK)) is None
    by_class = kernel.showdown_codes_by_suit_class(deck, reps, boards, 1 << 20, *symmetry, 16)
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
    return hb.StreetRules(("preflop", "turn", "river"), ("flop", "turn", "river"), ("bet_flop", "bet_turn", "bet_river"),
                          ("fold", "check_turn", "check_river"), (Fraction(flop), Fraction(1), Fraction(1)),
                          Fraction(win_pays), STRAIGHT, Fraction(ante_odds))


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
    turn = sum(d.bet_rates[0] for d in decisions if d.play) / len(decisions)
    river = sum(d.bet_rates[1] for d in decisions if d.play) / len(decisions)
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
def bonus_lines(data):
    return data["wagers"]["bonus"]["settle"]["card_lines"]


def test_bonus_counts_by_line():
    spec = load_spec("texas_holdem_bonus")
    counts = hb.card_line_counts(spec.wagers["bonus"].settle.card_lines.lines)
    dealer = comb(50, 2)
    assert sum(counts) == comb(52, 2) * dealer
    aa_vs_aa, aa, aks, aqs_ajs, ako, jj_kk, aqo_ajo, tens, other = counts
    assert aa_vs_aa == comb(4, 2) * comb(2, 2) and aa == comb(4, 2) * (dealer - 1)
    assert aks == 4 * dealer and ako == 12 * dealer
    assert aqs_ajs == 8 * dealer and aqo_ajo == 24 * dealer
    assert jj_kk == 18 * dealer and tens == 9 * 6 * dealer
    # every hole and dealer hole through the round engine's own line matching (a sample of holes)
    from certify.rules.engine import card_line
    lines = spec.wagers["bonus"].settle.card_lines.lines
    holes = [tuple(parse_cards(h.split())) for h in ("AC AD", "AS KS", "QH AH", "KC AD", "JD JS", "TC 2C", "7H 2D")]
    brute = [0] * (len(lines) + 1)
    for hole in holes:
        for dealer_hole in combinations([c for c in range(52) if c not in hole], 2):
            i = card_line(lines, hole, dealer_hole)
            brute[len(lines) if i is None else i] += 1
    assert hb.card_line_counts(lines, player_holes=holes) == brute


def test_bonus_pay_change_moves_the_edge_by_pay_delta_times_probability(tmp_path):
    spec = load_spec("texas_holdem_bonus_2x")
    base = hb.card_lines_sheet(spec, "bonus")
    changed = spec_copy(tmp_path, "texas_holdem_bonus_2x", lambda d: bonus_lines(d)["lines"][1].update(pays=40))
    moved = hb.card_lines_sheet(changed, "bonus")
    p_aces = Fraction(comb(4, 2) * (comb(50, 2) - 1), comb(52, 2) * comb(50, 2))
    assert base.house_edge - moved.house_edge == 10 * p_aces


def test_bonus_forfeited_on_fold_only_when_the_spec_says_so(tmp_path):
    spec = load_spec("texas_holdem_bonus_2x")
    forfeit = spec_copy(tmp_path, "texas_holdem_bonus_2x", lambda d: bonus_lines(d).update(paid_on_fold=False))
    folded = frozenset({"32o", "TT"})
    paid = hb.card_lines_sheet(spec, "bonus", folded)
    lost = hb.card_lines_sheet(forfeit, "bonus", folded)
    tens = Fraction(6 * comb(50, 2), comb(52, 2) * comb(50, 2))
    assert paid.house_edge == hb.card_lines_sheet(spec, "bonus").house_edge
    assert lost.house_edge - paid.house_edge == (3 + 1) * tens
    assert lost.rows[-1].event == "folded (Bonus forfeited)"


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
    rules = hb.street_rules(spec)
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

    def fake_counts(ante_category, win_pays, rule=None, bet_when_indifferent=False, levels=(), board_steps=()):
        seen.append((ante_category, win_pays, rule, levels, board_steps))
        return small

    monkeypatch.setattr(hb, "full_deck_counts", fake_counts)
    spec = load_spec("texas_holdem_bonus_2x")
    sheet = hb.par_sheet(spec)
    assert seen == [(STRAIGHT, Fraction(1), PAIR_RULE, (3, 4), (3, 1, 1))]
    assert [w.name for w in sheet.wagers] == ["main game", hb.SPEC_STRATEGY_WAGER, "Bonus"]
    assert sheet.main.expected_return == hb.main_game_sheet(hb.street_rules(spec), small).expected_return
    assert sheet.wager("Bonus").house_edge == hb.card_lines_sheet(spec, "bonus").house_edge
    d = sheet.to_dict()
    main = d["wagers"][0]
    assert main["exact"] and main["cycle"] == sum(r["combinations"] for r in main["return_table"])
    assert [r["event"] for r in main["return_table"]] == hb.event_names(hb.street_rules(spec))


def test_a_starting_hand_written_low_rank_first_is_refused(tmp_path):
    def low_first(d):
        d["strategy"]["decisions"]["preflop"][0]["hands"][0] = "23o"
    with pytest.raises(SpecError, match=r"strategy\.decisions\.preflop\.0\.hands\.0: expected the high rank first"):
        spec_copy(tmp_path, "texas_holdem_bonus", low_first)


# ---- the retired family's figures ---------------------------------------------------------------
# Computed by the hold'em bonus family's own code (certify.analysis.holdem_bonus, its golden sheets,
# certify.games.holdem_bonus, its bulk kernel) before it was deleted: what the model must reproduce.
NAMES = ["texas_holdem_bonus", "texas_holdem_bonus_2x"]
PATTERNS = ["flop", "flop+river", "flop+turn", "flop+turn+river"]
RESULTS = ["win with straight or better", "win below straight", "tie", "lose"]
MAIN_EVENTS = ["fold"] + [f"{p}: {r}" for p in PATTERNS for r in RESULTS]
BONUS_EVENTS = ["A-A with dealer A-A", "A-A", "A-K suited", "A-Q or A-J suited", "A-K offsuit", "J-J, Q-Q or K-K",
                "A-Q or A-J offsuit", "2-2 to 10-10", "other"]
SPEC_STRATEGY_COMBINATIONS = [5537591136000, 1481876958192, 6751934917200, 1309592201952, 16858236049056,
                              1006171488456, 2447460895296, 168149243688, 1309840788720, 0, 0, 0, 0, 1978651135672,
                              11233331485344, 456100224280, 5088683524144]
COMBINATIONS = {  # of the 55,627,620,048,000 deals per event: the derived (optimal) strategy, the spec's
    "texas_holdem_bonus": [0, 1144928276236, 5451363801560, 1376151264268, 17422699028336, 644748179460,
                           2361301465536, 175671736532, 1456802862232, 254173034036, 1351477353576, 143629474740,
                           2015957865328, 2817740289628, 12656774985808, 567152800780, 5787047629944],
    "texas_holdem_bonus_2x": [2517086880000, 1084497076456, 5303577440300, 1259295241816, 16192116739508,
                              605704317744, 2296714158900, 167684526896, 1395994231180, 252214271096, 1247762920836,
                              135617545176, 1897093891372, 2747822899504, 12372276114124, 547907347792,
                              5604254445300],
}
BONUS_COMBINATIONS = [6, 7344, 4900, 9800, 14700, 22050, 29400, 66150, 1470000]
# SHA-256 of the derived strategy's table, sorted (hand, decision, exact EV of playing, Turn and River bet
# rates) rows of the 169 starting hands; and of the spec strategy's (hand, decision, exact EV)
STRATEGY_TABLE_SHA256 = {"texas_holdem_bonus": "e4855b53c72cf5bf361dd3f516050c89b64970700c380e84f181cd96d45ad299",
                         "texas_holdem_bonus_2x": "fe95b00b98ff625e87388a683d18d8314d510548567eca61b2745c9fcba45c82"}
SPEC_TABLE_SHA256 = {"texas_holdem_bonus": "acdd57e77060d3608629949e8fb4b821cf61500806c0e1af0e660afe99cb5a76",
                     "texas_holdem_bonus_2x": "5f09846ab8c21a95f29442b333c80e166acc66b4ce93cd0340def9c5418a5a1c"}
# the bulk kernel on chunk 0 of seed 1 (50,000 decks, as `certify simulate --seed 1` deals them): SHA-256
# of (event index per round and wager, dealt category per round) as int64, and the tallies (both specs:
# the spec strategy does not depend on the Flop multiple)
KERNEL_EVENTS_SHA256 = "cfead07c4c01f585ffc29c997c46470b515ceffb2065ca1b40754fdce93467a8"
KERNEL_MAIN_COUNTS = [5052, 1332, 6022, 1160, 15030, 892, 2293, 163, 1166, 0, 0, 0, 0, 1804, 10123, 416, 4547]
KERNEL_BONUS_COUNTS = [1, 215, 153, 311, 475, 731, 883, 2078, 45153]
# the round engine over 400 fixed-seed rounds (below): SHA-256 of every seat's status and nets, the
# family engine's rows (checked seat for seat against it before it was deleted)
ENGINE_ROUNDS_SHA256 = {"texas_holdem_bonus": "76d7a02d50cd4628544ab363025f66acd2fa7b19906e82a4aebf918b1109599c",
                        "texas_holdem_bonus_2x": "a0688919633438c47974393a3fbf4668432cadd990ca683e8d0ab1f13aa7cc57"}


def _sha(rows) -> str:
    import hashlib
    import json

    return hashlib.sha256(json.dumps(rows).encode()).hexdigest()


@pytest.mark.parametrize("name", NAMES)
def test_the_golden_sheet_holds_the_familys_figures(name):
    # the golden sheet is the code's own output (slow: test_analysis_cache.py), so the model's analysis
    # gives every event, pay, combination count and strategy table the family gave
    from certify.analysis.cache import read_golden

    sheet = read_golden(load_spec(name))
    flop = 1 if name == "texas_holdem_bonus" else 2
    assert [w.name for w in sheet.wagers] == ["main game", hb.SPEC_STRATEGY_WAGER, "Bonus"]
    for w, combinations_ in zip(sheet.wagers[:2], (COMBINATIONS[name], SPEC_STRATEGY_COMBINATIONS)):
        assert [r.event for r in w.rows] == MAIN_EVENTS and [r.combinations for r in w.rows] == combinations_
        raises = [flop, flop + 1, flop + 1, flop + 2]  # patterns: flop, +river, +turn, +turn+river
        pays = [-1] + [x for m in raises for x in (1 + m, m, 0, -(1 + m))]
        assert [r.pays for r in w.rows] == pays
        assert [r.wagered for r in w.rows] == [1] + [1 + m for m in raises for _ in range(4)]
        assert w.exact and w.cycle == 55_627_620_048_000
    bonus = sheet.wager("Bonus")
    assert [(r.event, r.combinations) for r in bonus.rows] == list(zip(BONUS_EVENTS, BONUS_COMBINATIONS))
    assert [r.pays for r in bonus.rows] == [1000, 30, 25, 20, 15, 10, 5, 3, -1]
    table = sorted((row["hand"], row["decision"], row["ev_play_exact"], row["turn_bet_rate"], row["river_bet_rate"])
                   for row in sheet.main.strategy_table)
    assert _sha(table) == STRATEGY_TABLE_SHA256[name]
    spec_table = sorted((row["hand"], row["decision"], row["ev_play_exact"])
                        for row in sheet.wager(hb.SPEC_STRATEGY_WAGER).strategy_table)
    assert _sha(spec_table) == SPEC_TABLE_SHA256[name]


@pytest.mark.parametrize("name", NAMES)
def test_the_kernel_plays_the_simulation_decks_as_the_family_kernel_did(name):
    from certify.games.kernels import kernel_for
    from certify.simulate import deal_chunk

    kernel = kernel_for(load_spec(name))
    assert kernel.cards_per_round == 9  # player 0-1, dealer 2-3, flop 4-6, turn 7, river 8
    main, bonus = kernel.wagers
    assert (main.name, main.events, bonus.name, bonus.events) == ("main", MAIN_EVENTS, "bonus", BONUS_EVENTS)
    decks = deal_chunk(1, 0, 50_000, 9)  # chunk 0 of seed 1, as `certify simulate --seed 1` deals it
    ev, dealt = kernel.events(decks)
    assert array_digest(ev, dealt) == KERNEL_EVENTS_SHA256
    tally = kernel.play(decks)
    assert tally["main.counts"].tolist() == KERNEL_MAIN_COUNTS
    assert tally["bonus.counts"].tolist() == KERNEL_BONUS_COUNTS


@pytest.mark.parametrize("name", NAMES)
def test_the_engine_settles_rounds_as_the_family_engine_did(name):
    from certify.rules import engine
    from certify.simulate import deal_chunk

    spec = load_spec(name)
    strategy = engine.strategy_from_spec(spec)
    assert isinstance(strategy, engine.RuleStrategy)
    rows = []
    for i, deck in enumerate(deal_chunk(7, 0, 400, 52)):
        balance = [None, "12.00", "30.00", "14.99"][i % 4]  # refusals: the Ante, a Turn or River bet
        bonus = "1.00" if i % 3 else None
        rnd = engine.play_round(spec, [int(c) for c in deck], ["5.00"], balances=[Decimal(balance) if balance else None],
                                strategy=strategy, sides=[{"bonus": bonus} if bonus else {}])
        rows.append([(s.status, sorted((k, str(Decimal(v).normalize() + 0)) for k, v in s.net.items()))
                     for s in rnd.result().seats])
    assert _sha(rows) == ENGINE_ROUNDS_SHA256[name]
    again = engine.replay_rules(spec, rnd.events)
    assert again.result() == rnd.result()


def test_the_spec_strategy_plays_as_written():
    from certify.rules.engine import RuleStrategy, RulesView

    spec = load_spec("texas_holdem_bonus")
    strategy = RuleStrategy(spec)
    c = lambda text: tuple(parse_cards(text.split()))  # noqa: E731
    assert strategy.option("preflop", c("7C 2D")) == "fold" and strategy.option("preflop", c("7C 2C")) == "bet_flop"
    assert strategy.option("preflop", c("2D 8C")) == "fold" and strategy.option("preflop", c("9C 2D")) == "bet_flop"
    assert strategy.option("turn", c("AC 7D"), c("AH 4S 9C")) == "bet_turn"  # a pair with a hole card
    assert strategy.option("turn", c("KC 7D"), c("AH AS 9C")) == "check_turn"  # the board's pair
    assert strategy.option("river", c("KC 7D"), c("8H 9S TC JD")) == "bet_river"  # a straight
    assert strategy.option("river", c("KC KD"), c("8H 9S 2C 3D")) == "bet_river"  # a pocket pair
    # a Turn bet the balance cannot cover gives way to the check
    view = RulesView(0, c("AC 7D"), Decimal(1), ("check_turn",), decision="turn", board=c("AH 4S 9C"))
    assert strategy.decide(view) == "check_turn"


def test_the_ante_pays_on_pair_fault_is_refused_without_the_rule():
    from certify import simulate as sim

    kernel = sim.engine_kernel(str(SPECS_DIR / "texas_holdem_bonus.yaml"), "ante-pays-on-pair")
    assert kernel.params["strong"] == 1  # the Ante paid from a pair
    with pytest.raises(sim.SimulationError, match="ante-pays-on-pair.*Texas Hold'em Bonus"):
        sim.engine_kernel(str(SPECS_DIR / "three_card_poker.yaml"), "ante-pays-on-pair")


# ---------------------------------------------------------------- the bulk loop's shortcuts
# certify.rules.board_sim.play_street_rounds decides a Turn / River rule without the evaluator when the
# cards already decide it, and reads a card line from one table: the same events as the loop that
# evaluated every hand (HEAD 2934b31's play_street_rounds gave this digest on these decks).
MILLION_EVENTS_SHA256 = "bfece6be06e4a91c89bbc901b25f8de29eda103250cfa5e14cf4093fb2d2c243"


def test_the_bulk_loop_plays_a_million_simulation_decks_as_the_evaluating_loop_did():
    from certify.games.kernels import kernel_for
    from certify.simulate import deal_chunk

    decks = deal_chunk(1, 0, 1 << 20, 9)  # chunk 0 of seed 1 at 2^20 rounds a chunk
    for name in NAMES:  # the same events: the two specs differ in pays only
        assert array_digest(*kernel_for(load_spec(name)).events(decks)) == MILLION_EVENTS_SHA256


@pytest.mark.parametrize("turn, river, straight", [(0, 0, 0), (1, 1, 4), (3, 2, 4), (4, 4, 4), (2, 5, 0), (1, 7, 4),
                                                   (10, 10, 4)])
def test_the_street_rules_decide_as_the_evaluator_does(turn, river, straight):
    """Every rule shape (from a category, with or without a hole card playing, never) against the
    rule read with the hand evaluated (``hole_plays_rule``, the counting's own) on 20,000 decks."""
    from certify.hands import best6_nb, eval5_nb
    from certify.rules import board_sim
    from certify.simulate import deal_chunk

    decks = deal_chunk(3, 0, 20_000, 9)
    fold = np.zeros((13, 13, 2), np.bool_)
    none = np.zeros(0, np.int64)
    ev, dealt = np.zeros((len(decks), 1), np.int8), np.zeros(len(decks), np.int8)
    levels, at_least = np.array([3, 4], np.int64), np.array([turn, river], np.int64)
    board_sim.play_street_rounds(decks, fold, levels, at_least, np.array([straight] * 2, np.int64), 9,
                                 np.zeros((0, 52, 52, 1), np.int8),
                                 np.zeros((0, 1, 2), np.int64), np.zeros((0, 52, 52), np.int8), none, none,
                                 np.zeros(0, np.bool_), ev, dealt)
    for d, e in zip(decks.astype(np.int64), ev[:, 0]):
        c_flop = eval5_nb(*d[[0, 1, 4, 5, 6]]) >> 20
        c_turn = best6_nb(*d[[0, 1, 4, 5, 6, 7]]) >> 20
        turn_bet = c_flop >= turn and kernel.hole_plays_rule(d[0], d[1], d[4:7], c_flop, straight)
        river_bet = c_turn >= river and kernel.hole_plays_rule(d[0], d[1], d[4:8], c_turn, straight)
        assert (e - 1) // 4 == 2 * turn_bet + river_bet, d


def test_six_cards_said_below_a_straight_are_below_it():
    from certify.hands import best6_nb
    from certify.rules import board_sim

    rng = np.random.default_rng(6)
    hands = [rng.permutation(52)[:6] for _ in range(30_000)]
    hands += [np.array(parse_cards(h.split())) for h in ("2C 2D 2H 2S 5C 9D", "2C 2D 2H 5S 5C 9D", "2C 3D 4H 5S AC KD",
                                                         "2C 7C 9C JC QC AD", "2C 2D 3H 3S 4C 4D", "2C 2D 2H 3S 3C 3D")]
    said_below = 0
    for h in hands:
        if not board_sim._six_may_reach_straight(*[int(c) for c in h]):
            said_below += 1
            assert best6_nb(*[int(c) for c in h]) >> 20 < board_sim.STRAIGHT, h
    assert said_below > len(hands) // 2  # the shortcut does take most hands


def test_the_first_card_line_table_is_the_walk_over_the_lines():
    from certify.rules import board_sim

    p = load_kernel_params("texas_holdem_bonus")
    first, cand, masks = p["first_lines"], p["candidates"], p["dealer_masks"]
    walked = 0
    for x, y in combinations(range(52), 2):
        for dealer in [(4 * a, 4 * b + 1) for a in range(13) for b in range(a, 13)]:
            want = board_sim._card_line_event(cand, masks, 0, p["side_lines"][0], x, y, *dealer)
            if first[0, x, y] == board_sim.WALK_LINES:
                walked += 1
            else:
                assert first[0, x, y] == first[0, y, x] == want, (x, y, dealer)
    assert walked == 6 * 91  # the pairs of aces: the line asking for the dealer's aces


def load_kernel_params(name):
    from certify.games.kernels import kernel_for

    return kernel_for(load_spec(name)).params
