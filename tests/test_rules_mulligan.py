"""Five Card Mulligan Poker, written in the rules model (specs/five_card_mulligan.yaml,
specs/five_card_mulligan_online.yaml), gives every figure the retired mulligan family gave: the
exact sheets (the replacement programme, reached by the shape of the rules), the bulk kernel deck
for deck on the simulation's own fixed-seed decks, the round engine seat for seat, the procedure
scenarios and the negative controls.

The recorded figures below were computed by the mulligan family's own code (the family spec
class, certify.games.mulligan, the family kernel) before it was deleted; they are what the model
must reproduce.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest
import yaml

from certify.analysis import mulligan
from certify.analysis.cache import canonical, encode, read_golden
from certify.games.kernels import kernel_for
from certify.procedures import run_fixture
from certify.rules.analysis import ShapeError, replaces_hands
from certify.rules.engine import RulesRound, play_round
from certify.rules.model import RulesSpec
from certify.simulate import deal_chunk
from certify.spec import SPECS_DIR, load_spec
from spec_files import array_digest

ROOT = Path(__file__).resolve().parent.parent
NAMES = ["five_card_mulligan", "five_card_mulligan_online"]

# ---------------------------------------------------------------- the mulligan family's figures
# SHA-256 of the whole exact sheet (every row's event, pays, combinations and wager, the strategy
# tables and charts, the notes, the frequencies; cache.encode, canonical JSON) with family "rules"
SHEET_SHA256 = {"five_card_mulligan": "eedca42f40a213f5775b9f52a366122e12a6b0ceba4669eae5ed1527d4d739df",
                "five_card_mulligan_online": "ba4b985a0101c20af690f351313d415277c50701ae6999d87aec19b124a59e76"}
CYCLE = 1_478_262_843_475_644_020_034_240  # C(52,5) x C(47,5) x C(42,5) x C(37,5)
# the computed strategy's main game, every row (win with high card .. royal flush, tie, lose; bet 1 then bet 2)
MAIN_GAME = [26516497077100108837836, 389159196696484593160320, 65269989728911338264432,
             30457206249803622805824, 5758585759992914030952, 2894419970847135345384, 2126279563384774333536,
             354849295012097830560, 20476107731204100360, 2275154600779124064, 33578718979320057312,
             300081964377490895629260, 37472738293265447766984, 172685094970491167040456,
             28542148680810772678824, 13136227365026905398312, 2544792844268371881120, 1290728308535551066020,
             906442592238746154528, 146992368447446478264, 8995101517722403740, 1046686914750706032,
             41267613172448449680, 398811049950615906490440]
BONUS = {"five_card_mulligan": [4, 36, 624, 3744, 5108, 10200, 54912, 123552, 2400780],
         "five_card_mulligan_online": [5219491285008, 46974764126424, 814066843800480, 4877940346881888,
                                       6640163490609624, 13213579491748296, 69872484210268992,
                                       149737582522725744, 3146104256359651464]}
# the bulk kernel on chunk 0 of seed 1 (50,000 decks of 20 cards, as `certify simulate --seed 1`
# deals them): SHA-256 of (event per round and wager, dealt category) as int64, and the tallies
KERNEL_EVENTS_SHA256 = {"five_card_mulligan": "5bcc48d13eb38a84b5a0c54b6847553058741c5aa13f8c6c4845573b49e5293e",
                        "five_card_mulligan_online": "b2890afb4b6883f7f07e6d094cc20abff33fb588cbed3d4ced462f3fcfd5b456"}
KERNEL_MAIN_COUNTS = [789, 13036, 2253, 936, 190, 105, 66, 15, 0, 0, 0, 9871,
                      1294, 5919, 1047, 465, 90, 39, 34, 5, 1, 0, 2, 13843]
KERNEL_BONUS_COUNTS = {"five_card_mulligan": [0, 0, 15, 66, 105, 193, 954, 2423, 46244],
                       "five_card_mulligan_online": [0, 0, 15, 66, 105, 190, 936, 2253, 46435]}
# the round engine over 400 fixed-seed rounds (below): SHA-256 of every seat's status, hand and net
ENGINE_ROUNDS_SHA256 = {"five_card_mulligan": "237995baac82acd12eb3738df545be8e98888f7ac595b5f2cda63b840ddeac06",
                        "five_card_mulligan_online": "65466822f8e2659fe79eb443e43cf6fba6f1596daa0d2e5a45391bc4ef2bd0f7"}


def model_spec(name: str):
    spec = load_spec(name)
    assert isinstance(spec, RulesSpec)
    return spec


def model_copy(tmp_path, name, change):
    path = SPECS_DIR / f"{name}.yaml"
    data = json.loads(json.dumps(yaml.safe_load(path.read_text())))  # no shared (anchored) mappings
    change(data)
    out = tmp_path / f"{name}.yaml"
    out.write_text(yaml.safe_dump(data, sort_keys=False))
    return load_spec(out)


def sheet_digest(sheet) -> str:
    return hashlib.sha256(canonical(encode(dataclasses.replace(sheet, family="rules")))).hexdigest()


# ---------------------------------------------------------------- the exact sheet
@pytest.mark.parametrize("name", NAMES)
def test_the_programme_reads_the_rules_from_the_model(name):
    rules = mulligan.mulligan_rules(model_spec(name))
    assert (rules.raise_multiple, rules.bet2, rules.bonus_name, rules.bonus_lost_on_mulligan) == (1, 2, "bonus", True)
    assert rules.odds == (1, 1, 1, 1, 1, 1, 3, 10, 50, 100)
    assert rules.bonus_odds == (None, None, 5, 10, 30, 50, 100, 200, 1000, 10000)
    assert rules.bonus_when == {"five_card_mulligan": "always",
                                "five_card_mulligan_online": "player_beats_or_ties_dealer"}[name]
    assert rules.stands_value == 12 << 16  # Ace-high: category 0, top rank A
    assert mulligan.hand_text(rules.spec_stand_value) == "A K 9 5 4 (high card)"


def test_the_shape_chooses_the_programme_and_says_what_differs(tmp_path):
    spec = model_spec("five_card_mulligan")
    assert replaces_hands(spec) and not replaces_hands(load_spec("caribbean_stud"))
    cases = [
        (lambda d: [d.update(dealer={"qualifies": {"category": "pair"}})]
         + [d["wagers"][w]["settle"]["versus_dealer"].update(dealer_not_qualifying="push") for w in ("ante", "raise")],
         "no dealer qualifier"),
        (lambda d: d["steps"][3]["dealer_redraw"].update(cards=4), "a dealer redraw of five cards"),
        (lambda d: d["steps"][2]["options"].append({"name": "fold", "fold": True}), "between standing and replacing"),
        (lambda d: d["wagers"]["raise"]["settle"]["versus_dealer"]["win_pays"].update(flush=2), "by one table"),
        (lambda d: d["wagers"]["bonus"]["settle"]["pay_table"].update(hand="player"), "the player's first hand"),
        (lambda d: d["strategy"]["decisions"]["stand_or_mulligan"].insert(
            0, {"option": "mulligan", "at_least": {"category": "royal_flush"}}), "a threshold"),
    ]
    for change, why in cases:
        with pytest.raises(ShapeError, match=why):
            mulligan.mulligan_rules(model_copy(tmp_path, "five_card_mulligan", change))


@pytest.mark.parametrize("name", NAMES)
def test_the_golden_sheet_holds_the_mulligan_familys_figures(name):
    # the golden sheet is the code's own output (the slow test below and test_analysis_cache.py)
    sheet = read_golden(load_spec(name))
    assert sheet_digest(sheet) == SHEET_SHA256[name]
    assert [w.name for w in sheet.wagers] == ["main game", "main game (spec strategy)", "bonus"]
    main = sheet.wagers[0]
    assert main.exact and main.cycle == CYCLE and [r.combinations for r in main.rows] == MAIN_GAME
    assert [r.combinations for r in sheet.wager("bonus").rows] == BONUS[name]
    assert sheet.frequencies["mulligan_strategy"]["computed_stand_at_least"] == "A K 7 6 3 (high card)"
    assert sheet.frequencies["dealer_stands"]["probability_exact"] == "9/13"


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_the_sheet_computed_from_the_model_is_the_familys(name):
    from certify.analysis.mulligan import par_sheet as programme
    from certify.rules.analysis import par_sheet

    sheet = par_sheet(model_spec(name))  # the rules model's dispatch, by shape
    assert sheet.family == "rules" and sheet_digest(sheet) == SHEET_SHA256[name]
    assert programme is mulligan.mulligan_par_sheet


# ---------------------------------------------------------------- the bulk kernel
@pytest.mark.parametrize("name", NAMES)
def test_the_kernel_plays_the_simulation_decks_as_the_family_kernel_did(name):
    kernel = kernel_for(model_spec(name))
    assert (kernel.cards_per_round, kernel.dealt_positions) == (20, 10)
    main, bonus = kernel.wagers
    assert main.events[0] == "win with high card, bet 1" and main.events[-1] == "lose, bet 2"
    assert main.nets[-1] == -2 and bonus.events[0] == "royal flush" and bonus.nets[0] == 10000
    decks = deal_chunk(1, 0, 50_000, 20)
    ev, dealt = kernel.events(decks)
    assert array_digest(ev, dealt) == KERNEL_EVENTS_SHA256[name]
    tally = kernel.play(decks)
    assert tally["main.counts"].tolist() == KERNEL_MAIN_COUNTS
    assert tally["bonus.counts"].tolist() == KERNEL_BONUS_COUNTS[name]


# ---------------------------------------------------------------- the round engine
@pytest.mark.parametrize("name", NAMES)
def test_the_engine_settles_rounds_as_the_family_engine_did(name):
    spec = model_spec(name)
    rng = np.random.default_rng(1414)
    lines = []
    for r in range(400):
        deck = [int(c) for c in rng.permutation(52)]
        bonus = "1.00" if rng.integers(2) else None
        balance = "9.00" if r % 7 == 0 else None  # cannot cover the Raise at the deal: refused
        result = play_round(spec, deck, ["5.00"], [balance], sides=[{"bonus": bonus} if bonus else {}]).result()
        lines.append([result.table] + [[s.status, s.hand, {k: str(v) for k, v in sorted(s.net.items())}]
                                       for s in result.seats])
    text = json.dumps(lines, sort_keys=True, separators=(",", ":"))
    assert hashlib.sha256(text.encode()).hexdigest() == ENGINE_ROUNDS_SHA256[name]


def test_the_engine_replaces_the_hand_and_redraws_the_dealers():
    from certify.cards import parse_cards as cards

    spec = model_spec("five_card_mulligan")
    rnd = RulesRound(spec, balances=[None])
    rnd.place_wager(seat=0, wager="ante", amount="5.00")
    rnd.place_wager(seat=0, wager="bonus", amount="1.00")
    rnd.deal(hands=[cards("2C 3D 6H 8S TC")], dealer=cards("KD QC 8H 5S 2D"))
    assert rnd.next_step() == ("act", 0) and rnd.legal_actions(0) == ("stand", "mulligan")
    rnd.act(seat=0, action="mulligan")
    assert rnd.next_step() == ("redraw", 0) and rnd.cards_awaited == 5
    with pytest.raises(Exception, match="rest of the deck"):
        rnd.redraw(seat=0, cards=cards("2C 4D JH 9S 7C"))  # 2C was dealt
    rnd.redraw(seat=0, cards=cards("4C 4D JH 9S 7C"))
    assert rnd.next_step() == ("dealer_redraw", None)  # King-high: the dealer redraws
    assert [e.args() for e in rnd.events if e.kind == "reveal"][-1]["stands"] is False
    rnd.dealer_redraw(cards=cards("AH AS 6D 3C 9H"))
    net = rnd.result().seats[0].net
    assert net == {"ante": Decimal("-5.00"), "bonus": Decimal("-1.00"), "raise": Decimal("-5.00")}


# ---------------------------------------------------------------- procedures
@pytest.mark.parametrize("name", NAMES)
def test_every_mulligan_procedure_scenario_passes(name):
    results = run_fixture(ROOT / "fixtures" / "procedures" / f"{name}.yaml")
    assert len(results) >= 6
    assert [(r.id, r.differences) for r in results if not r.passed] == []
    assert all(r.spec == name for r in results)


def test_each_mulligan_scenario_catches_its_negative_controls(tmp_path):
    """A payout one dollar off fails its scenario; so does a mulligan played as a stand (the Raise
    and the new hand never come) and a stand played as a mulligan (its new cards missing: the
    fixture is refused)."""
    from certify.procedures import FixtureError

    data = yaml.safe_load((ROOT / "fixtures" / "procedures" / "five_card_mulligan.yaml").read_text())
    data["spec"] = str(SPECS_DIR / "five_card_mulligan.yaml")
    controls = []
    for sc in data["scenarios"]:
        paid = json.loads(json.dumps(sc))
        net = paid["expect"]["seats"][0]["net"]
        wager = next(iter(net))
        net[wager] = str(Decimal(net[wager]) + 1)
        paid["id"] += "--wrong-payout"
        controls.append(paid)
        if sc["seats"][0].get("actions") == ["mulligan"] and sc["expect"]["table"] == "played":
            stood = json.loads(json.dumps(sc))
            stood["seats"][0]["actions"] = ["stand"]
            stood["id"] += "--stood"
            controls.append(stood)
    path = tmp_path / "controls.yaml"
    path.write_text(yaml.safe_dump(dict(data, scenarios=controls), sort_keys=False))
    caught = run_fixture(path)
    assert len(caught) >= len(data["scenarios"]) + 3
    assert [r.id for r in caught if r.passed] == []  # every control is caught
    assert all("net.raise" in " ".join(r.differences) for r in caught if r.id.endswith("--stood"))
    stand = next(sc for sc in data["scenarios"] if sc["seats"][0].get("actions") == ["stand"])
    path.write_text(yaml.safe_dump(dict(data, scenarios=[dict(stand, seats=[dict(stand["seats"][0],
                                                                               actions=["mulligan"])])]),
                                   sort_keys=False))
    with pytest.raises(FixtureError, match="redraw: the seat took a mulligan"):
        run_fixture(path)


def test_the_bonus_fault_alters_the_replacement_table_and_refuses_a_game_without_it():
    # the negative control itself (caught by the bonus's outcome frequencies) is in test_simulate.py
    from certify import simulate as sim

    kernel = sim.engine_kernel(str(SPECS_DIR / "five_card_mulligan.yaml"), "bonus-kept-after-mulligan")
    assert (kernel.params["bonus_lost_on_mulligan"], kernel.params["bonus_on_final_hand"]) == (False, True)
    with pytest.raises(sim.SimulationError, match="bonus-kept-after-mulligan.*has none"):
        sim.engine_kernel(str(SPECS_DIR / "caribbean_stud.yaml"), "bonus-kept-after-mulligan")
