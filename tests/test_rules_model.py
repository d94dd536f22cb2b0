"""The rules model (certify.rules.model): specs as data, validated with file:line:field errors."""

from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from certify.rules.model import DealStep, DecideStep, RulesSpec
from certify.spec import HAND_KEYS, SpecError, load_spec

ROOT = Path(__file__).resolve().parent.parent
CARIBBEAN = ROOT / "specs" / "caribbean_stud.yaml"


def test_the_caribbean_stud_model_says_what_the_family_spec_said():
    # the rules of the retired stud-family spec (up_card_index 4, Bet 2x, pays 100/50/.../1/1, a
    # non-qualifying dealer paying the Ante 1:1, the progressive lines, Ante 1.00-2.50, AKJ83)
    from certify.cards import parse_cards
    from certify.hands import rank_hand

    model = load_spec(CARIBBEAN)
    assert isinstance(model, RulesSpec)
    assert isinstance(model, RulesSpec) and model.unit == "ante"
    assert [type(s) for s in model.steps] == [DealStep, DealStep, DecideStep]
    assert model.deals("dealer")[0].face_up == [4]
    assert model.option("bet").add == {"bet": 2}
    bet = model.wagers["bet"].settle.versus_dealer
    assert [bet.win_pays[k] for k in HAND_KEYS] == [1, 1, 2, 3, 4, 5, 7, 20, 50, 100]
    assert model.wagers["ante"].settle.versus_dealer.dealer_not_qualifying == 1
    assert (bet.tie, bet.dealer_not_qualifying) == ("push", "push")
    pays = model.wagers["progressive"].settle.progressive.pays
    assert [(k, e and (e.meter_percent, e.amount)) for k in HAND_KEYS if (e := getattr(pays, k))] == [
        ("flush", (None, Decimal("50.00"))), ("full_house", (None, Decimal("100.00"))),
        ("quads", (None, Decimal("500.00"))), ("straight_flush", (Decimal(10), None)), ("royal_flush", (Decimal(100), None))]
    assert (model.wagers["ante"].min, model.wagers["ante"].max) == (Decimal("1.00"), Decimal("2.50"))
    assert model.threshold_value(model.strategy.decisions["bet_or_fold"][0].at_least) == rank_hand(parse_cards("AS KD JC 8H 3D"))
    q = model.threshold_value(model.dealer.qualifies)
    assert q == model.dealer.qualifies.value()
    assert rank_hand(parse_cards("AS QD JC 9H 8D")) < q <= rank_hand(parse_cards("AS KD 4C 3H 2D"))  # Ace-King or better


def test_a_dumped_model_validates_back_to_itself():
    spec = load_spec(CARIBBEAN)
    for mode in ("json", "python"):
        assert RulesSpec.model_validate(spec.model_dump(mode=mode)) == spec


def _write(tmp_path, old, new, source=CARIBBEAN):
    text = source.read_text()
    assert old in text, old
    path = tmp_path / source.name
    path.write_text(text.replace(old, new, 1))
    return path


def _line_of(path, needle):
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


@pytest.mark.parametrize("old, new, needle, field, expected", [
    ("add: {bet: 2}", "add: {bett: 2}", "{bett:", "steps.2.options.1.add.bett", "made: decision"),
    ("straight: 4, trips: 3", "straight: 4, trips: 3, three_pair: 1", "three_pair",
     "wagers.bet.settle.versus_dealer.win_pays.three_pair", "'royal_flush', got 'three_pair'"),
    ("pair: 1, high_card: 1}", "pair: 1}", "win_pays", "wagers.bet.settle.versus_dealer.win_pays", "missing high_card"),
    ("{deal: dealer, cards: 5, face_up: [4]}", "{deal: dealer, cards: 4, face_up: [4]}", "deal: dealer",
     "steps.1.face_up", "indices 0..3"),
    ("{win: 1, tie: push, dealer_not_qualifying: 1}", "{win: 1, tie: push}", "versus_dealer: {win",
     "wagers.ante.settle.versus_dealer.dealer_not_qualifying", "required when the dealer has a qualifier"),
    ("min: \"1.00\"", "min: 1.5", "min: 1.5", "wagers.ante.min", "not a float"),
    ("- {option: fold}", "- {option: surrender}", "{option: surrender", "strategy.decisions.bet_or_fold.1.option",
     "expected one of fold, bet"),
    ("qualifies: {category: high_card", "qualifies: {category: high_cards", "qualifies: {",
     "dealer.qualifies.category", "high_cards"),
    ("ranking: five_card", "ranking: four_card", "ranking:", "ranking", "four_card"),
    ("{deal: player, cards: 5}", "{deal: player, cards: 7}", "steps:", "steps", "hand holds 7 cards"),
    ("made: decision", "made: decided", "decided", "wagers.bet.made", "decided"),
    ("{name: fold, fold: true}", "{name: fold, fold: true, add: {bet: 1}}", "name: fold",
     "steps.2.options.0", "cannot also add"),
])
def test_a_bad_rule_names_file_line_field_and_expectation(tmp_path, old, new, needle, field, expected):
    path = _write(tmp_path, old, new)
    with pytest.raises(SpecError) as err:
        load_spec(path)
    message = str(err.value)
    wanted = f"{path}:{_line_of(path, needle)}: {field}: "
    assert wanted in message, message
    assert expected in message.split(wanted, 1)[1].splitlines()[0], message


def test_a_wrong_model_tag_and_a_missing_block_are_refused(tmp_path):
    with pytest.raises(SpecError, match=r":4: model: expected 'rules/1'"):
        load_spec(_write(tmp_path, "\nmodel: rules/1", "\n\n\nmodel: rules/9"))
    data = yaml.safe_load(CARIBBEAN.read_text())
    del data["steps"]
    path = tmp_path / "caribbean_stud.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(SpecError, match=r"steps: required field is missing"):
        load_spec(path)
