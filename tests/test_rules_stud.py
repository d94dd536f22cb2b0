"""Caribbean Stud and Casino Stud, written in the rules model (specs/caribbean_stud.yaml,
specs/casino_stud.yaml), give every figure the retired stud family gave: the exact sheets row for
row, the bulk kernel deck for deck on the simulation's own fixed-seed decks, the round engine seat
for seat (progressive and meter), the procedure scenarios, the counting against brute force, rule
changes moving the figures by the combinatorial amount, and both negative controls.

The recorded figures below were computed by the stud family's own code (certify.analysis.stud,
certify.games.stud, the stud kernel) before it was deleted; they are what the model must reproduce.

Published references (not inputs): Wizard of Odds, "Caribbean Stud Poker" (M. Shackleford), over
all 19,933,230,517,200 deals: perfect strategy total loss 1,041,372,912,372 (5.224%, element of
risk 2.555%); "raise on A-K-J-8-3 or better" 1,059,715,400,580 (5.316%, 2.596%). Shackleford, "The
Wizard of Odds Analyzes the New Casino Games", Contingencies Nov/Dec 2000: progressive breakeven
meters $263,205 ($100/$75/$50 on quads/full house/flush) and $246,784 ($150/$100/$50).
"""

import hashlib
import json
from decimal import Decimal
from fractions import Fraction
from itertools import combinations
from math import comb
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from certify import hands
from certify.analysis.cache import read_golden
from certify.cards import parse_cards
from certify.cli import cli
from certify.games.kernels import kernel_for
from certify.procedures import run_fixture
from certify.rules import analysis, counting
from certify.rules.engine import RulesRound, hand_value, strategy_option
from certify.simulate import deal_chunk
from certify.spec import SPECS_DIR, load_spec
from spec_files import array_digest, spec_copy

ROOT = Path(__file__).resolve().parent.parent
NAMES = ["caribbean_stud", "casino_stud"]
HOLE_INDEX = np.array(list(combinations(range(46), 4)), dtype=np.int64)  # 163,185 x 4

# ---------------------------------------------------------------- the stud family's figures
EVENTS = ["fold", "dealer does not qualify", "win with high card", "win with pair", "win with two pair",
          "win with trips", "win with straight", "win with flush", "win with full house", "win with quads",
          "win with straight flush", "win with royal flush", "tie", "lose"]
PAYS = [-1, 1, 3, 3, 5, 7, 9, 11, 15, 41, 101, 201, 0, -3]  # net in Antes (Ante + a 2x Bet)
WAGERED = [1] + [3] * 13
COMBINATIONS = {  # of the 19,933,230,517,200 deals, per event: the derived (optimal) strategy, the spec's
    "main game": [9523005974460, 4532514033720, 18505682208, 2324742321600, 488012139360, 234242908320,
                  43805516100, 21856990280, 16624475280, 2832435800, 156929720, 16759740, 321623100,
                  2726592727512],
    "main game (spec strategy)": [9489406835700, 4542211773540, 20223192480, 2324742321600, 488012139360,
                                  234242908320, 43805516100, 21856990280, 16624475280, 2832435800, 156929720,
                                  16759740, 241545900, 2748856693380],
}
PROGRESSIVE = [("royal flush", 9999, 4, Fraction(1)), ("straight flush", 999, 36, Fraction(1, 10)),
               ("quads", 499, 624, 0), ("full house", 99, 3744, 0), ("flush", 49, 5108, 0),
               ("no win", -1, 2589444, 0)]
# SHA-256 of the derived strategy's table, sorted (category, hand, up card, bet, combinations) rows
# (2,142 rows: per category, and per hand ranks and up-card rank where the choice depends on it)
STRATEGY_TABLE_SHA256 = "a3586f42c0eed3df461651eed53ae6cf06e4ff75df38d2eedaab6082bc95eb5a"
# the bulk kernel on chunk 0 of seed 1 (50,000 decks, as `certify simulate --seed 1` deals them):
# SHA-256 of (event index per round and wager, dealt category per round) as int64, and the tallies
KERNEL_EVENTS_SHA256 = {"caribbean_stud": "73b27982ed27f9a0cf1c7513727b6431694770917eeb860145b2c3fc10595ca8",
                        "casino_stud": "bf68ac74aeadf292a58a451b2bdc4ca95dc9e2ca3777b3acc730d71d6a2ace20"}
KERNEL_MAIN_COUNTS = [23882, 11368, 52, 5857, 1200, 622, 117, 52, 46, 13, 0, 0, 0, 6791]
KERNEL_PROGRESSIVE_COUNTS = [0, 0, 20, 80, 95, 49805]
# the round engine over 400 fixed-seed rounds (below): SHA-256 of every seat's status, hand and net
ENGINE_ROUNDS_SHA256 = "33ab5fb240a98e3edd8ae0e10ad2a3c35accd292416499768fd9b4720c4abbae"


@pytest.mark.parametrize("name", NAMES)
def test_the_golden_sheet_holds_the_stud_familys_figures(name):
    # the golden sheet is the code's own output (slow: test_analysis_cache.py), so the model's
    # analysis gives every event, pay, combination count, wager and meter share the family gave
    sheet = read_golden(load_spec(name))
    wagers = ["main game", "main game (spec strategy)"] + (["progressive"] if name == "caribbean_stud" else [])
    assert [w.name for w in sheet.wagers] == wagers
    for w in sheet.wagers[:2]:
        assert [(r.event, r.pays, r.combinations, r.wagered, r.meter_share) for r in w.rows] == \
            list(zip(EVENTS, PAYS, COMBINATIONS[w.name], WAGERED, [0] * 14))
        assert w.exact and w.cycle == 19_933_230_517_200
    if name == "caribbean_stud":
        prog = sheet.wager("progressive")
        assert [(r.event, r.pays, r.combinations, r.meter_share) for r in prog.rows] == PROGRESSIVE
        assert prog.meter == 10000 and prog.cycle == comb(52, 5)
    table = sorted((row["category"], row.get("hand") or "", row.get("up_card") or "", row["bet"],
                    row["bet"] + row["fold"]) for row in sheet.main.strategy_table)
    assert len(table) == 2142
    assert hashlib.sha256(json.dumps(table).encode()).hexdigest() == STRATEGY_TABLE_SHA256


# ---------------------------------------------------------------- the bulk kernel
@pytest.mark.parametrize("name", NAMES)
def test_the_kernel_plays_the_simulation_decks_as_the_stud_kernel_did(name):
    kernel = kernel_for(load_spec(name))
    assert kernel.cards_per_round == 10  # player 0-4, dealer 5-9
    main = kernel.wagers[0]
    assert (main.name, main.events, main.nets) == ("main", EVENTS, PAYS)
    decks = deal_chunk(1, 0, 50_000, 10)  # chunk 0 of seed 1, as `certify simulate --seed 1` deals it
    ev, dealt = kernel.events(decks)
    assert array_digest(ev, dealt) == KERNEL_EVENTS_SHA256[name]
    tally = kernel.play(decks)
    assert tally["main.counts"].tolist() == KERNEL_MAIN_COUNTS
    if name == "caribbean_stud":
        prog = kernel.wagers[1]
        assert (prog.name, prog.events, prog.nets) == ("progressive", [e for e, *_ in PROGRESSIVE],
                                                       [p for _, p, *_ in PROGRESSIVE])
        assert tally["progressive.counts"].tolist() == KERNEL_PROGRESSIVE_COUNTS
    else:
        assert len(kernel.wagers) == 1


# ---------------------------------------------------------------- the round engine
def _round(spec, deck, antes, progressive, meter):
    """Seats in turn, the progressive where asked, the spec's strategy (as the family's play_round)."""
    rnd = RulesRound(spec, balances=[None] * len(antes), meter=meter)
    for i, ante in enumerate(antes):
        rnd.place_wager(seat=i, wager="ante", amount=ante)
        if progressive[i]:
            rnd.place_wager(seat=i, wager="progressive", amount="1.00")
    if rnd.locks_out:
        rnd.lock_out()
    rnd.deal(hands=[tuple(deck[i * 5:(i + 1) * 5]) for i in range(len(antes))],
             dealer=tuple(deck[5 * len(antes):5 * len(antes) + 5]))
    for i in range(len(antes)):
        if rnd.legal_actions(i):
            rnd.act(seat=i, action=strategy_option(spec, "bet_or_fold", hand_value(spec, rnd.seats[i].cards)))
    return rnd


def test_the_engine_settles_rounds_as_the_stud_engine_did():
    spec = load_spec("caribbean_stud")
    rng = np.random.default_rng(1414)
    meter, lines, paid = "10000.00", [], {"ante": Decimal(0), "bet": Decimal(0), "progressive": Decimal(0)}
    for r in range(400):
        deck = [int(c) for c in rng.permutation(52)]
        if r % 40 == 0:  # a royal flush to seat 0 now and then: the meter pays and resets
            royal = [48, 44, 40, 36, 32]
            deck = royal + [c for c in deck if c not in royal]
        progressive = [bool(rng.integers(2)), True]
        result = _round(spec, deck, ["1.00", "2.50"], progressive, meter).result()
        seats = []
        for s in result.seats:
            net = {k: str(Decimal(v).quantize(Decimal("0.01"))) for k, v in sorted(s.net.items()) if v}
            seats.append([s.status, s.hand, net])
            for k, v in s.net.items():
                paid[k] += Decimal(v)
        lines.append([result.table, str(result.meter_after)] + seats)
        meter = result.meter_after
    assert lines[0] == ["played", "10000.00", ["played", "royal flush", {"ante": "1.00", "bet": "200.00",
                                                                          "progressive": "9999.00"}],
                        ["folded", "high card", {"ante": "-2.50", "progressive": "-1.00"}]]
    assert paid == {"ante": Decimal("-398.00"), "bet": Decimal("733.00"), "progressive": Decimal("79544.00")}
    text = json.dumps(lines, sort_keys=True, separators=(",", ":"))
    assert hashlib.sha256(text.encode()).hexdigest() == ENGINE_ROUNDS_SHA256


@pytest.mark.parametrize("name", NAMES)
def test_every_stud_procedure_scenario_passes(name):
    results = run_fixture(ROOT / "fixtures" / "procedures" / f"{name}.yaml")
    assert len(results) >= 18
    assert [(r.id, r.differences) for r in results if not r.passed] == []


# ---------------------------------------------------------------- counting against brute force
def brute_force_counts(player, up, qualify_value):
    """(does not qualify, player wins, tie) by evaluating all 163,185 dealer hands."""
    rest = np.array([c for c in range(52) if c not in player and c != up])
    dealer = np.column_stack([np.full(len(HOLE_INDEX), up), rest[HOLE_INDEX]])
    dv = hands.rank_batch(dealer)
    pv = hands.rank_hand(player)
    qualifies = dv >= qualify_value
    return (int((~qualifies).sum()), int((qualifies & (dv < pv)).sum()), int((qualifies & (dv == pv)).sum()))


def _cells(spec, players, qualify_value):
    rules = analysis.one_decision(spec)
    t = analysis.hand_tables(rules.ranking, rules.k)
    reps = np.array([sorted(p) for p in players], np.int64)
    dense = np.searchsorted(t.values, hands.rank_batch(reps)).astype(np.int64)
    return reps, analysis.dealer_cells(rules, reps, dense, t.dense_at_least(qualify_value))


@pytest.mark.parametrize("player", ["As Kd Qh 9c 3s", "Ah Kh Qh Jh Th", "2c 3d 5h 7s 8c", "Jc Jd 4h 6s 9c"])
def test_dealer_counts_match_brute_force_for_every_up_card(player):
    spec = load_spec("caribbean_stud")
    q = spec.threshold_value(spec.dealer.qualifies)
    reps, cells = _cells(spec, [parse_cards(player)], q)
    for up in range(52):
        if up in reps[0]:
            assert tuple(cells[0, up]) == (-1, -1, -1)
        else:
            assert tuple(int(x) for x in cells[0, up]) == brute_force_counts(reps[0], up, q)


def test_rank_profile_counts_match_brute_force_at_random_thresholds():
    # every threshold from none to all hands, on random deals: the any-suits count by rank
    # profiles and the flush correction by suit masks, against evaluating every dealer hand
    from certify.analysis.frequencies import class_values

    spec = load_spec("caribbean_stud")
    values = class_values()
    rng = np.random.default_rng(3)
    for q in [0, len(values) - 1] + list(rng.integers(0, len(values), 6)):
        deal = rng.choice(52, 6, replace=False)
        player, up = np.sort(deal[:5]).astype(np.int64), int(deal[5])
        _, cells = _cells(spec, [player], int(values[q]))
        assert tuple(int(x) for x in cells[0, up]) == brute_force_counts(player, up, int(values[q]))
    t = counting.rank_tables()
    out = np.empty(1, np.int64)  # a threshold above every hand: every hand counts
    counting._any_suits_below(np.zeros(13, np.int64), -1, np.array([len(values)], np.int64), out,
                              t.any_keys, t.any_start, t.any_values, t.any_cum)
    assert out[0] == comb(52, 5)


def test_suit_classes_cover_every_five_card_hand_once():
    classes = counting.suit_classes()
    assert len(classes.reps) == 134459 and int(classes.weights.sum()) == comb(52, 5)
    assert set(np.unique(classes.weights)) <= {4, 6, 12, 24}


# ---------------------------------------------------------------- the exact sheet, and rule changes
@pytest.fixture(scope="module")
def model_sheet():
    from certify.analysis import par_sheet

    return par_sheet(load_spec("caribbean_stud"))


def test_the_sheet_matches_the_published_analysis(model_sheet):
    main, spec_strategy = model_sheet.wagers[0], model_sheet.wagers[1]
    assert main.cycle == spec_strategy.cycle == 19_933_230_517_200
    assert main.house_edge * main.cycle == 1_041_372_912_372
    assert (f"{100 * float(main.house_edge):.3f}", f"{100 * float(main.element_of_risk):.3f}") == ("5.224", "2.555")
    assert spec_strategy.house_edge * spec_strategy.cycle == 1_059_715_400_580
    assert f"{100 * float(spec_strategy.element_of_risk):.3f}" == "2.596"
    assert [r.combinations for r in main.rows] == COMBINATIONS["main game"]  # the code, not the golden file
    assert any(line.strip().startswith("A K J 8 3") for line in main.strategy_chart)  # by up-card rank


def test_the_settlement_is_read_from_the_spec(model_sheet):
    # win: Ante 1 + the Bet (2 Antes) x its odds; loss -3; fold -1; a non-qualifying dealer: +1
    main = model_sheet.main
    pays = {r.event: r.pays for r in main.rows}
    assert pays["win with royal flush"] == 1 + 2 * 100 and pays["win with high card"] == 1 + 2 * 1
    assert (pays["dealer does not qualify"], pays["lose"], pays["fold"], pays["tie"]) == (1, -3, -1, 0)
    spec = load_spec("caribbean_stud")
    assert spec.threshold_value(spec.dealer.qualifies) <= hands.rank_hand(parse_cards("Ac Kd 4h 3s 2c"))
    assert spec.threshold_value(spec.dealer.qualifies) > hands.rank_hand(parse_cards("Ac Qd Jh 9s 8c"))


@pytest.fixture(scope="module")
def sample_classes():
    """Every royal flush / straight flush / quads class and 400 other classes, fixed seed."""
    classes = counting.suit_classes()
    categories = hands.rank_batch(classes.reps) >> hands.CATEGORY_SHIFT
    strong = np.nonzero(categories >= hands.Category.QUADS)[0]
    others = np.random.default_rng(6).choice(np.nonzero(categories < hands.Category.QUADS)[0], 400, replace=False)
    index = np.concatenate([strong, others])
    return classes.reps[index], classes.weights[index]


def test_a_royal_pay_change_moves_the_edge_by_the_combinatorial_amount(tmp_path, sample_classes):
    reps, weights = sample_classes
    base = analysis.count(load_spec("caribbean_stud"), classes=reps, weights=weights)
    richer = spec_copy(tmp_path, "caribbean_stud",
                       lambda d: d["wagers"]["bet"]["settle"]["versus_dealer"]["win_pays"].update(royal_flush=200))
    rich = analysis.count(richer, classes=reps, weights=weights)
    base_sheet = analysis.main_sheet(base, base.acc_best, "main game", "")
    rich_sheet = analysis.main_sheet(rich, rich.acc_best, "main game", "")
    p_royal_win = dict(base_sheet.outcome_categories())["win with royal flush"]
    assert p_royal_win > 0
    assert base_sheet.house_edge - rich_sheet.house_edge == 100 * 2 * p_royal_win
    assert base_sheet.cycle == rich_sheet.cycle == int(weights.sum()) * 47 * 163185


def test_the_derived_strategy_bets_pairs_and_folds_below_ace_king(sample_classes):
    spec = load_spec("caribbean_stud")
    reps, weights = sample_classes
    counts = analysis.count(spec, classes=reps, weights=weights)
    values = hands.rank_batch(counts.reps)
    dealt = counts.choice >= 0
    bet = counts.choice == [o.name for o in counts.rules.options].index("bet")
    pairs = (values >> hands.CATEGORY_SHIFT) >= hands.Category.PAIR
    assert (bet[pairs] == dealt[pairs]).all()
    assert not bet[values < spec.threshold_value(spec.dealer.qualifies)].any()


def test_the_progressive_return_and_breakeven_meters(tmp_path):
    from certify.analysis import par_sheet

    def table(quads, full, flush):
        def change(d):
            d["wagers"]["progressive"]["settle"]["progressive"]["pays"].update(
                quads={"amount": quads}, full_house={"amount": full}, flush={"amount": flush})
        return change

    for amounts, published in ((("100.00", "75.00", "50.00"), 263205), (("150.00", "100.00", "50.00"), 246784)):
        sheet = par_sheet(spec_copy(tmp_path, "caribbean_stud", table(*amounts))).wager("progressive")
        meter = sheet.breakeven_meter()
        assert round(meter) == published and sheet.at_meter(meter).expected_return == 0
    sheet = read_golden(load_spec("caribbean_stud")).wager("progressive")
    n = comb(52, 5)
    assert sheet.expected_return == (Fraction(4, n) * 10000 + Fraction(36, n) * 1000 + Fraction(624, n) * 500
                                     + Fraction(3744, n) * 100 + Fraction(5108, n) * 50 - 1)
    assert sheet.cycle == n
    assert "progressive" not in {w.name for w in read_golden(load_spec("casino_stud")).wagers}


def test_a_qualifier_change_moves_the_spec_strategy_by_the_brute_force_amount(tmp_path):
    # the dealer qualifies with a pair of 2s instead of A-K: with the spec's (fixed) strategy, every
    # dealer hand from A-K-high up to (not including) 2-2 turns from a showdown into "no hand"
    from certify.rules.model import ranking_categories

    old = load_spec("caribbean_stud")
    new = spec_copy(tmp_path, "caribbean_stud", lambda d: d["dealer"].update(qualifies={"category": "pair", "ranks": ["2"]}))
    players = np.array([sorted(parse_cards(h)) for h in ["As Kd Qh 9c 3s", "Jc Jd 4h 6s 9c", "Ah Kd Jc 8s 3d"]])
    sheets = {key: analysis.main_sheet(c, c.acc_spec, "spec", "")
              for key, c in (("old", analysis.count(old, classes=players)), ("new", analysis.count(new, classes=players)))}
    win_pays = old.wagers["bet"].settle.versus_dealer.win_pays
    q_old, q_new = old.threshold_value(old.dealer.qualifies), new.threshold_value(new.dealer.qualifies)
    assert hands.rank_hand(parse_cards("Ac Kd Qh Js 9c")) < q_new <= hands.rank_hand(parse_cards("2c 2d 3h 4s 5c"))
    bet_from = old.threshold_value(old.strategy.decisions["bet_or_fold"][0].at_least)
    moved = 0  # the exact change of the total net, by evaluating every dealer hand
    for player in players:
        pv = int(hands.rank_hand(player))
        if pv < bet_from:
            continue  # folded under both rules
        win = 1 + 2 * win_pays[ranking_categories("five_card")[pv >> hands.CATEGORY_SHIFT]]
        for up in (c for c in range(52) if c not in player):
            rest = np.array([c for c in range(52) if c not in player and c != up])
            dv = hands.rank_batch(np.column_stack([np.full(len(HOLE_INDEX), up), rest[HOLE_INDEX]]))
            band = dv[(dv >= q_old) & (dv < q_new)]
            moved += int((1 - np.where(band < pv, win, np.where(band == pv, 0, -3))).sum())
    assert moved != 0
    assert (sheets["new"].expected_return - sheets["old"].expected_return) * sheets["old"].cycle == moved


def test_analyze_refuses_a_bad_spec(tmp_path):
    bad = tmp_path / "caribbean_stud.yaml"
    bad.write_text("model: rules/1\nname: caribbean_stud\n")
    result = CliRunner().invoke(cli, ["analyze", str(bad)])
    assert result.exit_code == 2
    assert "caribbean_stud.yaml" in result.output and "steps: required field is missing" in result.output


# ---------------------------------------------------------------- negative controls
SMALL_CHUNK = 1 << 12


@pytest.mark.parametrize("fault,catcher", [("dealer-qualifies-ace-queen", "main: outcome frequencies"),
                                           ("flush-pays-4", "main: payouts")])
def test_the_stud_negative_controls_are_caught(fault, catcher, model_sheet):
    # the seeded misread rules of tests/test_simulate.py, on the model's fields
    from certify import simulate as sim

    path = str(SPECS_DIR / "caribbean_stud.yaml")
    fair = sim.simulate(path, 60 * SMALL_CHUNK, seed=2024, workers=2, chunk_rounds=SMALL_CHUNK)
    assert sim.verify(fair, model_sheet).passed
    result = sim.simulate(path, 60 * SMALL_CHUNK, seed=2024, workers=2, fault=fault, chunk_rounds=SMALL_CHUNK)
    verification = sim.verify(result, model_sheet)
    assert not verification.passed
    assert catcher in {t.name for t in verification.tests if t.applicable and t.passed is False}


def test_a_spec_fault_refuses_a_game_without_the_rule():
    from certify import simulate as sim

    with pytest.raises(sim.SimulationError, match="flush-pays-4.*let_it_ride has none"):
        sim.engine_kernel(str(SPECS_DIR / "let_it_ride.yaml"), "flush-pays-4")


# ---------------------------------------------------------------- the full cycle through the CLI
@pytest.fixture(scope="module")
def full_caribbean(tmp_path_factory):
    out = tmp_path_factory.mktemp("par") / "caribbean.json"
    result = CliRunner().invoke(cli, ["analyze", str(SPECS_DIR / "caribbean_stud.yaml"), "--json", str(out)])
    assert result.exit_code == 0, result.output
    return result.output, json.loads(out.read_text())


@pytest.mark.slow
def test_full_cycle_through_the_cli_matches_the_published_analysis(full_caribbean):
    text, sheet = full_caribbean
    main = sheet["wagers"][0]
    assert main["name"] == "main game" and main["exact"] is True
    assert main["cycle"] == 19_933_230_517_200
    assert sum(r["combinations"] for r in main["return_table"]) == main["cycle"]
    assert Fraction(main["house_edge_exact"]) * main["cycle"] == 1_041_372_912_372
    assert f"{100 * main['element_of_risk']:.3f}" == "2.555"
    spec_strategy = sheet["wagers"][1]
    assert spec_strategy["name"] == "main game (spec strategy)"
    assert Fraction(spec_strategy["house_edge_exact"]) * spec_strategy["cycle"] == 1_059_715_400_580
    assert f"{100 * spec_strategy['house_edge']:.3f}" == "5.316"
    assert f"{100 * spec_strategy['element_of_risk']:.3f}" == "2.596"
    assert "house edge 5.2243%" in text
    for key in ("house_edge", "element_of_risk", "std_dev", "average_wager", "hit_frequency", "return_table"):
        assert key in main


@pytest.mark.slow
def test_full_cycle_royal_pay_change(tmp_path, full_caribbean):
    from certify.analysis import par_sheet

    _, sheet = full_caribbean
    main = sheet["wagers"][0]
    richer = spec_copy(tmp_path, "caribbean_stud",
                       lambda d: d["wagers"]["bet"]["settle"]["versus_dealer"]["win_pays"].update(royal_flush=200))
    rich = par_sheet(richer).main
    royal = next(r for r in main["return_table"] if r["event"] == "win with royal flush")
    assert Fraction(main["house_edge_exact"]) - rich.house_edge == 100 * 2 * Fraction(royal["probability_exact"])


@pytest.mark.slow
def test_casino_stud_main_game_equals_caribbean(full_caribbean):
    from certify.analysis import par_sheet

    _, sheet = full_caribbean
    casino = par_sheet(load_spec("casino_stud"))
    assert str(casino.main.house_edge) == sheet["wagers"][0]["house_edge_exact"]
    assert [w.name for w in casino.wagers] == ["main game", "main game (spec strategy)"]
