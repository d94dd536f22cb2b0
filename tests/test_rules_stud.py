"""The stud family reproduced by the rules model, part by part: Caribbean and Casino Stud written in
the model (fixtures/rules/) against the family specs (specs/) -- the bulk kernel deck for deck on
the simulation's own fixed-seed decks, the round engine seat for seat (progressive and meter
included), and every procedure scenario of the family. (The exact sheets: tests/test_rules_analysis.py,
slow tier.)"""

from pathlib import Path

import numpy as np
import pytest
import yaml

from certify.games import stud
from certify.games.kernels import kernel_for
from certify.procedures import run_fixture
from certify.rules.engine import RulesRound, hand_value, strategy_option
from certify.simulate import deal_chunk
from certify.spec import load_spec

ROOT = Path(__file__).resolve().parent.parent
NAMES = ["caribbean_stud", "casino_stud"]


def _model(name):
    return load_spec(ROOT / "fixtures" / "rules" / f"{name}.yaml")


@pytest.mark.parametrize("name", NAMES)
def test_the_rules_kernel_plays_the_simulation_decks_as_the_stud_kernel(name):
    family, model = kernel_for(load_spec(name)), kernel_for(_model(name))
    assert family.cards_per_round == model.cards_per_round == 10  # the same deck positions dealt
    assert [(w.name, w.events, w.nets) for w in model.wagers] == [(w.name, w.events, w.nets) for w in family.wagers]
    decks = deal_chunk(1, 0, 50_000, 10)  # chunk 0 of seed 1, as `certify simulate --seed 1` deals it
    ev_family, dealt_family = family.events(decks)
    ev_model, dealt_model = model.events(decks)
    assert (ev_model == ev_family).all() and (dealt_model == dealt_family).all()
    tally_family, tally_model = family.play(decks), model.play(decks)
    for key in (k for k in tally_family if k != "dealt"):
        assert (tally_model[key] == tally_family[key]).all(), key
    assert len(set(ev_family[:, 0].tolist())) > 5  # folds, wins of several categories, losses


def _rules_round(spec, deck, antes, progressive, meter):
    """A round of the model spec played as stud.play_round plays the family's: seats in turn, the
    progressive where asked, the spec's strategy."""
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


def test_the_rules_engine_settles_rounds_as_the_stud_engine():
    family, model = load_spec("caribbean_stud"), _model("caribbean_stud")
    strategy = stud.strategy_from_spec(family)
    rng = np.random.default_rng(1414)
    meter = "10000.00"
    for r in range(400):
        deck = [int(c) for c in rng.permutation(52)]
        if r % 40 == 0:  # a royal flush to seat 0 now and then: the meter pays and resets
            royal = [48, 44, 40, 36, 32]
            deck = royal + [c for c in deck if c not in royal]
        progressive = [bool(rng.integers(2)), True]
        a = stud.play_round(family, deck, strategy, antes=["1.00", "2.50"], progressive=progressive, meter=meter)
        b = _rules_round(model, deck, ["1.00", "2.50"], progressive, meter)
        ra, rb = a.result(), b.result()
        assert rb.table == ra.table and rb.meter_after == ra.meter_after, r
        for sa, sb in zip(ra.seats, rb.seats):
            assert (sb.status, sb.hand) == (sa.status, sa.hand), r
            assert {k: v for k, v in sb.net.items() if v} == {k: v for k, v in sa.net.items() if v}, r
        meter = ra.meter_after


@pytest.mark.parametrize("name", NAMES)
def test_every_stud_procedure_scenario_gives_the_same_outcome_under_the_model(tmp_path, name):
    data = yaml.safe_load((ROOT / "fixtures" / "procedures" / f"{name}.yaml").read_text())
    data["spec"] = str(ROOT / "fixtures" / "rules" / f"{name}.yaml")
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    results = run_fixture(path)
    assert len(results) == len(data["scenarios"]) >= 10
    assert [(r.id, r.differences) for r in results if not r.passed] == []


# ---------------------------------------------------------------- the exact analysis of the model
# Wizard of Odds, "Caribbean Stud Poker" (M. Shackleford), over all 19,933,230,517,200 deals:
# perfect strategy total loss 1,041,372,912,372 (5.224%, element of risk 2.555%); "raise on
# A-K-J-8-3 or better" 1,059,715,400,580 (5.316%, 2.596%); progressive breakeven meters $263,205
# ($100/$75/$50 on quads/full house/flush) and $246,784 ($150/$100/$50). References, not inputs.
def _model_copy(tmp_path, name, change):
    data = yaml.safe_load((ROOT / "fixtures" / "rules" / f"{name}.yaml").read_text())
    change(data)
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return load_spec(path)


@pytest.fixture(scope="module")
def model_sheet():
    from certify.analysis import par_sheet

    return par_sheet(_model("caribbean_stud"))


def test_the_model_sheet_matches_the_published_analysis(model_sheet):
    main, spec_strategy = model_sheet.wagers[0], model_sheet.wagers[1]
    assert main.cycle == spec_strategy.cycle == 19_933_230_517_200
    assert main.house_edge * main.cycle == 1_041_372_912_372
    assert (f"{100 * float(main.house_edge):.3f}", f"{100 * float(main.element_of_risk):.3f}") == ("5.224", "2.555")
    assert spec_strategy.house_edge * spec_strategy.cycle == 1_059_715_400_580
    assert f"{100 * float(spec_strategy.element_of_risk):.3f}" == "2.596"
    assert any(line.strip().startswith("A K J 8 3") for line in main.strategy_chart)  # by up-card rank


def test_suit_classes_cover_every_five_card_hand_once():
    from math import comb

    from certify.rules import counting

    classes = counting.suit_classes()
    assert len(classes.reps) == 134459 and int(classes.weights.sum()) == comb(52, 5)
    assert set(np.unique(classes.weights)) <= {4, 6, 12, 24}


@pytest.fixture(scope="module")
def sample_classes():
    """Every royal flush / straight flush / quads class and 400 other classes, fixed seed."""
    from certify import hands
    from certify.rules import counting

    classes = counting.suit_classes()
    categories = hands.rank_batch(classes.reps) >> hands.CATEGORY_SHIFT
    strong = np.nonzero(categories >= hands.Category.QUADS)[0]
    others = np.random.default_rng(6).choice(np.nonzero(categories < hands.Category.QUADS)[0], 400, replace=False)
    index = np.concatenate([strong, others])
    return classes.reps[index], classes.weights[index]


def test_a_royal_pay_change_moves_the_edge_by_the_combinatorial_amount(tmp_path, sample_classes):
    from certify.rules import analysis

    reps, weights = sample_classes
    base = analysis.count(_model("caribbean_stud"), classes=reps, weights=weights)
    richer = _model_copy(tmp_path, "caribbean_stud",
                         lambda d: d["wagers"]["bet"]["settle"]["versus_dealer"]["win_pays"].update(royal_flush=200))
    rich = analysis.count(richer, classes=reps, weights=weights)
    base_sheet = analysis.main_sheet(base, base.acc_best, "main game", "")
    rich_sheet = analysis.main_sheet(rich, rich.acc_best, "main game", "")
    p_royal_win = dict(base_sheet.outcome_categories())["win with royal flush"]
    assert p_royal_win > 0
    assert base_sheet.house_edge - rich_sheet.house_edge == 100 * 2 * p_royal_win
    assert base_sheet.cycle == rich_sheet.cycle == int(weights.sum()) * 47 * 163185


def test_the_derived_strategy_bets_pairs_and_folds_below_ace_king(sample_classes):
    from certify import hands
    from certify.rules import analysis

    spec = _model("caribbean_stud")
    reps, weights = sample_classes
    counts = analysis.count(spec, classes=reps, weights=weights)
    values = hands.rank_batch(counts.reps)
    dealt = counts.choice >= 0
    bet = counts.choice == [o.name for o in counts.rules.options].index("bet")
    pairs = (values >> hands.CATEGORY_SHIFT) >= hands.Category.PAIR
    assert (bet[pairs] == dealt[pairs]).all()
    assert not bet[values < spec.threshold_value(spec.dealer.qualifies)].any()


def test_progressive_breakeven_meters_are_the_published_ones(tmp_path):
    from certify.analysis import par_sheet

    def table(quads, full, flush):
        def change(d):
            d["wagers"]["progressive"]["settle"]["progressive"]["pays"].update(
                quads={"amount": quads}, full_house={"amount": full}, flush={"amount": flush})
        return change

    for amounts, published in ((("100.00", "75.00", "50.00"), 263205), (("150.00", "100.00", "50.00"), 246784)):
        sheet = par_sheet(_model_copy(tmp_path, "caribbean_stud", table(*amounts))).wager("progressive")
        meter = sheet.breakeven_meter()
        assert round(meter) == published and sheet.at_meter(meter).expected_return == 0


def test_a_qualifier_change_moves_the_spec_strategy_by_the_brute_force_amount(tmp_path):
    # the dealer qualifies with a pair of 2s instead of A-K: with the spec's (fixed) strategy, every
    # dealer hand from A-K-high up to (not including) 2-2 turns from a showdown into "no hand"
    from itertools import combinations

    from certify import hands
    from certify.cards import parse_cards
    from certify.rules import analysis
    from certify.rules.model import ranking_categories

    old, new = _model("caribbean_stud"), _model_copy(
        tmp_path, "caribbean_stud", lambda d: d["dealer"].update(qualifies={"category": "pair", "ranks": ["2"]}))
    players = np.array([sorted(parse_cards(h)) for h in ["As Kd Qh 9c 3s", "Jc Jd 4h 6s 9c", "Ah Kd Jc 8s 3d"]])
    sheets = {key: analysis.main_sheet(c, c.acc_spec, "spec", "")
              for key, c in (("old", analysis.count(old, classes=players)), ("new", analysis.count(new, classes=players)))}
    pays = yaml.safe_load((ROOT / "fixtures" / "rules" / "caribbean_stud.yaml").read_text())
    win_pays = pays["wagers"]["bet"]["settle"]["versus_dealer"]["win_pays"]
    q_old, q_new = old.threshold_value(old.dealer.qualifies), new.threshold_value(new.dealer.qualifies)
    bet_from = old.threshold_value(old.strategy.decisions["bet_or_fold"][0].at_least)
    hole = np.array(list(combinations(range(46), 4)), np.int64)
    moved = 0  # the exact change of the total net, by evaluating every dealer hand
    for player in players:
        pv = int(hands.rank_hand(player))
        if pv < bet_from:
            continue  # folded under both rules
        win = 1 + 2 * win_pays[ranking_categories("five_card")[pv >> hands.CATEGORY_SHIFT]]
        for up in (c for c in range(52) if c not in player):
            rest = np.array([c for c in range(52) if c not in player and c != up])
            dv = hands.rank_batch(np.column_stack([np.full(len(hole), up), rest[hole]]))
            band = dv[(dv >= q_old) & (dv < q_new)]
            moved += int((1 - np.where(band < pv, win, np.where(band == pv, 0, -3))).sum())
    assert moved != 0
    assert (sheets["new"].expected_return - sheets["old"].expected_return) * sheets["old"].cycle == moved


SMALL_CHUNK = 1 << 12


@pytest.mark.parametrize("fault,catcher", [("dealer-qualifies-ace-queen", "main: outcome frequencies"),
                                           ("flush-pays-4", "main: payouts")])
def test_the_stud_negative_controls_are_caught_on_the_model_spec(fault, catcher, model_sheet):
    # the same seeded misread rules as tests/test_simulate.py's, applied to the model's fields
    from certify import simulate as sim

    path = str(ROOT / "fixtures" / "rules" / "caribbean_stud.yaml")
    fair = sim.simulate(path, 60 * SMALL_CHUNK, seed=2024, workers=2, chunk_rounds=SMALL_CHUNK)
    assert sim.verify(fair, model_sheet).passed
    result = sim.simulate(path, 60 * SMALL_CHUNK, seed=2024, workers=2, fault=fault, chunk_rounds=SMALL_CHUNK)
    verification = sim.verify(result, model_sheet)
    assert not verification.passed
    assert catcher in {t.name for t in verification.tests if t.applicable and t.passed is False}


def test_a_spec_fault_refuses_a_game_without_the_rule():
    from certify import simulate as sim

    with pytest.raises(sim.SimulationError, match="flush-pays-4.*let_it_ride has none"):
        sim.engine_kernel(str(ROOT / "specs" / "let_it_ride.yaml"), "flush-pays-4")
