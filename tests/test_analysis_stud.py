"""Caribbean Stud / Casino Stud exact analysis.

Default tests check the counting kernel against brute force and check, on subsets of player
hands, that spec changes move the result by exactly the combinatorial amount. The full cycle
(about a minute on 2 cores) is under ``-m slow``, where the house edge is checked against the
published analysis:

  Wizard of Odds, "Caribbean Stud Poker" (M. Shackleford), strategy statistics over all
  19,933,230,517,200 combinations: perfect strategy total loss 1,041,372,912,372, house edge
  5.224%, element of risk 2.555%; "raise on ace/king/jack/8/3 or better" total loss
  1,059,715,400,580 (5.316%, 2.596%). Text as mirrored at
  https://toho-talent.com/2022/04/14/caribbean-stud-poker-strategy/ ; the same figures (rounded)
  in Shackleford, "The Wizard of Odds Analyzes the New Casino Games", Contingencies Nov/Dec 2000,
  which also gives the progressive breakeven meters ($263,205 for $100/$75/$50 on
  quads/full house/flush, $246,784 for $150/$100/$50; royal 100%, straight flush 10% of the meter).
"""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import combinations
from math import comb

import numpy as np
import pytest
import yaml
from click.testing import CliRunner

from certify import hands
from certify.analysis import stud
from certify.analysis.frequencies import class_values, threshold_value
from certify.cards import parse_cards
from certify.cli import cli
from certify.spec import SPECS_DIR, load_spec

HOLE_INDEX = np.array(list(combinations(range(46), 4)), dtype=np.int64)  # 163,185 x 4


def spec_copy(tmp_path, name, change):
    """Load a modified copy of specs/<name>.yaml (the change applied to its YAML mapping)."""
    data = yaml.safe_load((SPECS_DIR / f"{name}.yaml").read_text())
    change(data)
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return load_spec(path)


def brute_force_counts(player, up, qualify_value):
    """(does not qualify, player wins, tie) by evaluating all 163,185 dealer hands."""
    rest = np.array([c for c in range(52) if c not in player and c != up])
    dealer = np.column_stack([np.full(len(HOLE_INDEX), up), rest[HOLE_INDEX]])
    dv = hands.rank_batch(dealer)
    pv = hands.rank_hand(player)
    qualifies = dv >= qualify_value
    return (int((~qualifies).sum()), int((qualifies & (dv < pv)).sum()),
            int((qualifies & (dv == pv)).sum()))


@pytest.fixture(scope="module")
def caribbean():
    return load_spec("caribbean_stud")


@pytest.fixture(scope="module")
def sample_classes():
    """Every royal flush / straight flush / quads class and 400 other classes, fixed seed."""
    t = stud._tables()
    categories = hands.rank_batch(t.reps) >> hands.CATEGORY_SHIFT
    strong = np.nonzero(categories >= hands.Category.QUADS)[0]
    others = np.random.default_rng(6).choice(np.nonzero(categories < hands.Category.QUADS)[0], 400,
                                             replace=False)
    index = np.concatenate([strong, others])
    return t.reps[index], t.weights[index]


def test_suit_classes_cover_every_hand_once():
    t = stud._tables()
    assert len(t.reps) == 134459
    assert int(t.weights.sum()) == comb(52, 5)
    assert set(np.unique(t.weights)) <= {4, 6, 12, 24}


@pytest.mark.parametrize("player", ["As Kd Qh 9c 3s", "Ah Kh Qh Jh Th", "2c 3d 5h 7s 8c", "Jc Jd 4h 6s 9c"])
def test_dealer_counts_match_brute_force_for_every_up_card(caribbean, player):
    cards = parse_cards(player)
    q = threshold_value(caribbean.dealer.qualifies)
    dc = stud.dealer_counts(q, reps=np.array([cards]))
    for up in range(52):
        if up in cards:
            assert tuple(dc.counts[0, up]) == (-1, -1, -1)
        else:
            assert tuple(int(x) for x in dc.counts[0, up]) == brute_force_counts(cards, up, q)


def test_rank_profile_counts_match_brute_force_at_random_thresholds():
    # every threshold from none to all hands, on random deals: the any-suits count by rank
    # profiles and the flush correction by suit masks, against evaluating every dealer hand
    values = class_values()
    rng = np.random.default_rng(3)
    for q in [0, len(values) - 1] + list(rng.integers(0, len(values), 6)):
        deal = rng.choice(52, 6, replace=False)
        player, up = np.sort(deal[:5]).astype(np.int64), int(deal[5])
        got = stud.dealer_counts(int(values[q]), reps=np.array([player])).counts[0, up]
        assert tuple(int(x) for x in got) == brute_force_counts(player, up, int(values[q]))
    t = stud.rank_tables()
    top = np.array([len(values)], np.int64)  # a threshold above every hand: every hand counts
    out = np.empty(1, np.int64)
    stud._any_suits_below(np.zeros(13, np.int64), -1, top, out, t.any_keys, t.any_start, t.any_values,
                          t.any_cum)
    assert out[0] == comb(52, 5)


def test_rules_are_read_from_the_spec(caribbean):
    rules = stud.stud_rules(caribbean)
    assert rules.bet_multiple == 2 and rules.lose == -3 and rules.fold == -1
    assert rules.win(hands.Category.ROYAL_FLUSH) == 1 + 2 * 100
    assert rules.win(hands.Category.HIGH_CARD) == 1 + 2 * 1
    assert rules.no_qualify == 1
    assert rules.qualify_value == hands.rank_hand(parse_cards("Ac Kd 4h 3s 2c"))


def test_royal_pay_change_moves_the_edge_by_the_combinatorial_amount(tmp_path, caribbean, sample_classes):
    reps, weights = sample_classes
    richer = spec_copy(tmp_path, "caribbean_stud", lambda d: d["bet"]["pays"].update(royal_flush=200))
    base_rules, rich_rules = stud.stud_rules(caribbean), stud.stud_rules(richer)
    dc = stud.dealer_counts(base_rules.qualify_value, reps=reps, weights=weights)
    base, rich = stud.main_game_sheets(base_rules, dc)[0], stud.main_game_sheets(rich_rules, dc)[0]
    p_royal_win = dict(base.outcome_categories())["win with royal flush"]
    assert p_royal_win > 0
    assert base.house_edge - rich.house_edge == 100 * 2 * p_royal_win
    assert base.cycle == rich.cycle == int(weights.sum()) * 47 * stud.DEALER_HOLE


def test_qualifying_hand_change_moves_the_edge_by_the_combinatorial_amount(tmp_path, caribbean):
    # Dealer qualifies with a pair of 2s instead of A-K: with the spec's (fixed) strategy, every
    # dealer hand from A-K-high up to (not including) 2-2 turns from a showdown into "no hand".
    pairs = spec_copy(tmp_path, "caribbean_stud",
                      lambda d: d["dealer"].update(qualifies={"category": "pair", "ranks": ["2"]}))
    players = np.array([parse_cards(h) for h in ["As Kd Qh 9c 3s", "Jc Jd 4h 6s 9c", "Ah Kd Jc 8s 3d"]])
    old_rules, new_rules = stud.stud_rules(caribbean), stud.stud_rules(pairs)
    assert new_rules.qualify_value == hands.rank_hand(parse_cards("2c 2d 3h 4s 5c"))
    sheets = {}
    for key, rules in (("old", old_rules), ("new", new_rules)):
        dc = stud.dealer_counts(rules.qualify_value, reps=players)
        sheets[key] = stud.main_game_sheets(rules, dc)[1]  # the spec's strategy
    cycle = sheets["old"].cycle
    moved = 0  # exact change of the total net result, by brute force
    for player in players:
        pv = hands.rank_hand(player)
        if pv < old_rules.threshold_value:
            continue  # folded in both
        for up in range(52):
            if up in player:
                continue
            rest = np.array([c for c in range(52) if c not in player and c != up])
            dv = hands.rank_batch(np.column_stack([np.full(len(HOLE_INDEX), up), rest[HOLE_INDEX]]))
            band = dv[(dv >= old_rules.qualify_value) & (dv < new_rules.qualify_value)]
            old_net = np.where(band < pv, int(old_rules.win(pv >> hands.CATEGORY_SHIFT)),
                               np.where(band == pv, 0, int(old_rules.lose)))
            moved += int((int(old_rules.no_qualify) - old_net).sum())
    assert moved != 0
    assert (sheets["new"].expected_return - sheets["old"].expected_return) * cycle == moved


def test_derived_strategy_bets_pairs_and_folds_below_ace_king(caribbean, sample_classes):
    reps, weights = sample_classes
    rules = stud.stud_rules(caribbean)
    dc = stud.dealer_counts(rules.qualify_value, reps=reps, weights=weights)
    categories = (class_values()[dc.values] >> hands.CATEGORY_SHIFT).astype(np.int64)
    bet = stud._decisions(rules, dc, categories, optimal=True)
    valid = dc.counts[:, :, 0] >= 0
    values = class_values()[dc.values]
    assert (bet[categories >= hands.Category.PAIR] == valid[categories >= hands.Category.PAIR]).all()
    below_ak = values < rules.qualify_value
    assert not bet[below_ak].any()


def test_progressive_return_and_breakeven_meter(tmp_path):
    def wizard_table(quads, full, flush):
        def change(d):
            d["progressive"]["pays"].update(quads={"amount": quads}, full_house={"amount": full},
                                            flush={"amount": flush})
        return change

    for amounts, published in ((("100.00", "75.00", "50.00"), 263205), (("150.00", "100.00", "50.00"), 246784)):
        spec = spec_copy(tmp_path, "caribbean_stud", wizard_table(*amounts))
        sheet = stud.progressive_sheet(stud.stud_rules(spec))
        meter = sheet.breakeven_meter()
        assert round(meter) == published
        assert sheet.at_meter(meter).expected_return == 0
    sheet = stud.progressive_sheet(stud.stud_rules(load_spec("caribbean_stud")))
    n = comb(52, 5)
    expected = (Fraction(4, n) * 10000 + Fraction(36, n) * 1000 + Fraction(624, n) * 500
                + Fraction(3744, n) * 100 + Fraction(5108, n) * 50 - 1)
    assert sheet.expected_return == expected
    assert sheet.cycle == n
    assert stud.progressive_sheet(stud.stud_rules(load_spec("casino_stud"))) is None


def test_analyze_refuses_a_bad_spec(tmp_path):
    bad = tmp_path / "caribbean_stud.yaml"
    bad.write_text("name: caribbean_stud\nfamily: stud\n")
    result = CliRunner().invoke(cli, ["analyze", str(bad)])
    assert result.exit_code == 2
    assert "caribbean_stud.yaml" in result.output


# ---- the full cycle ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def full_caribbean(tmp_path_factory):
    out = tmp_path_factory.mktemp("par") / "caribbean.json"
    result = CliRunner().invoke(cli, ["analyze", str(SPECS_DIR / "caribbean_stud.yaml"), "--json", str(out)])
    assert result.exit_code == 0, result.output
    return result.output, json.loads(out.read_text())


@pytest.mark.slow
def test_full_cycle_matches_the_published_analysis(full_caribbean):
    text, sheet = full_caribbean
    main = sheet["wagers"][0]
    assert main["name"] == "main game" and main["exact"] is True
    assert main["cycle"] == 19_933_230_517_200
    assert sum(r["combinations"] for r in main["return_table"]) == main["cycle"]
    edge = Fraction(main["house_edge_exact"])
    assert edge * main["cycle"] == 1_041_372_912_372  # Wizard of Odds: perfect strategy total loss
    assert f"{100 * float(edge):.3f}" == "5.224"
    assert f"{100 * main['element_of_risk']:.3f}" == "2.555"
    spec_strategy = sheet["wagers"][1]
    assert spec_strategy["name"] == stud.SPEC_STRATEGY_WAGER
    assert Fraction(spec_strategy["house_edge_exact"]) * spec_strategy["cycle"] == 1_059_715_400_580
    assert f"{100 * spec_strategy['house_edge']:.3f}" == "5.316"
    assert f"{100 * spec_strategy['element_of_risk']:.3f}" == "2.596"
    assert "house edge 5.2243%" in text
    for key in ("house_edge", "element_of_risk", "std_dev", "average_wager", "hit_frequency", "return_table"):
        assert key in main


@pytest.mark.slow
def test_full_cycle_royal_pay_change(tmp_path, full_caribbean):
    _, sheet = full_caribbean
    main = sheet["wagers"][0]
    richer = spec_copy(tmp_path, "caribbean_stud", lambda d: d["bet"]["pays"].update(royal_flush=200))
    rich = stud.stud_par_sheet(richer).main
    royal = next(r for r in main["return_table"] if r["event"] == "win with royal flush")
    p_royal_win = Fraction(royal["probability_exact"])
    assert Fraction(main["house_edge_exact"]) - rich.house_edge == 100 * 2 * p_royal_win


@pytest.mark.slow
def test_casino_stud_main_game_equals_caribbean(full_caribbean):
    _, sheet = full_caribbean
    casino = stud.stud_par_sheet(load_spec("casino_stud"))
    assert str(casino.main.house_edge) == sheet["wagers"][0]["house_edge_exact"]
    assert [w.name for w in casino.wagers] == ["main game", stud.SPEC_STRATEGY_WAGER]
