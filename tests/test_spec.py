"""Spec loading and validation: every shipped spec loads, every kind of bad spec names its fault."""

from decimal import Decimal
from pathlib import Path

import pytest

from certify.hands import CATEGORY_NAMES, Category, rank_hand
from certify.rules.model import RulesSpec
from certify.cards import parse_cards
from certify.spec import (
    HAND_KEYS, SPECS_DIR, SpecError, category_key,
    key_category, load_spec, spec_names,
)

SHIPPED = ["caribbean_stud", "casino_stud", "texas_holdem_bonus", "texas_holdem_bonus_2x",
           "five_card_mulligan", "five_card_mulligan_online", "three_card_poker", "let_it_ride",
           "ultimate_texas_holdem"]


def test_every_shipped_spec_loads():
    assert sorted(SHIPPED) == spec_names()
    for name in SHIPPED:
        spec = load_spec(name)
        assert spec.name == name
        assert load_spec(SPECS_DIR / f"{name}.yaml") == spec


def test_hand_keys_match_category_names():
    assert HAND_KEYS == tuple(n.replace(" ", "_") for n in CATEGORY_NAMES)
    for category in Category:
        assert key_category(category_key(category)) is category


def test_rules_read_from_the_seeds():
    carib = load_spec("caribbean_stud")
    assert isinstance(carib, RulesSpec)
    assert carib.wagers["ante"].max == Decimal("2.50")
    assert carib.option("bet").add == {"bet": 2}
    pays = carib.wagers["bet"].settle.versus_dealer.win_pays
    assert [pays[category_key(c)] for c in reversed(Category)] == [100, 50, 20, 7, 5, 4, 3, 2, 1, 1]
    progressive = carib.wagers["progressive"].settle.progressive.pays
    assert progressive.entry(Category.ROYAL_FLUSH).meter_percent == 100
    assert progressive.entry(Category.STRAIGHT_FLUSH).meter_percent == 10
    assert progressive.entry(Category.STRAIGHT) is None
    assert set(load_spec("casino_stud").wagers) == {"ante", "bet"}  # no progressive
    online, inventor = load_spec("five_card_mulligan_online"), load_spec("five_card_mulligan")
    assert isinstance(inventor, RulesSpec)
    assert inventor.wagers["bonus"].settle.pay_table.when == "always"
    assert online.wagers["bonus"].settle.pay_table.when == "player_beats_or_ties_dealer"
    assert inventor.wagers["bonus"].settle.pay_table.lost_on == ["mulligan"]
    assert inventor.wagers["ante"].min == 1 and inventor.wagers["ante"].max == 100
    assert inventor.wagers["bonus"].max == 25
    assert inventor.wagers["bonus"].settle.pay_table.pays["pair"] is None
    assert inventor.wagers["ante"].settle.versus_dealer.win_pays["high_card"] == 1
    assert inventor.option("mulligan").replace and inventor.option("mulligan").add == {"raise": 1}
    one, two = load_spec("texas_holdem_bonus"), load_spec("texas_holdem_bonus_2x")
    assert isinstance(one, RulesSpec)
    assert (one.option("bet_flop").add["flop"], two.option("bet_flop").add["flop"]) == (1, 2)
    assert one.wagers["ante"].settle.versus_dealer.win_at_least.category == "straight"


def _hand(text):
    return rank_hand(parse_cards(text))


def test_thresholds_are_hand_values():
    qualifies = load_spec("caribbean_stud").dealer.qualifies
    assert qualifies.met_by(_hand("AS KD 4C 3H 2D"))
    assert not qualifies.met_by(_hand("AS QD JC 9H 8D"))
    assert qualifies.met_by(_hand("2S 2D 4C 3H 7D"))
    stand = load_spec("five_card_mulligan").strategy.decisions["stand_or_mulligan"][0].at_least
    assert stand.met_by(_hand("AS KD 9C 5H 4D"))
    assert not stand.met_by(_hand("AS KD 9C 5H 3D"))
    dealer = load_spec("five_card_mulligan").dealer_redraw.stands_on
    assert dealer.met_by(_hand("AS 2D 3C 4H 6D")) and not dealer.met_by(_hand("KS QD JC 9H 8D"))


def _broken(tmp_path: Path, name: str, old: str, new: str) -> Path:
    text = (SPECS_DIR / f"{name}.yaml").read_text()
    assert old in text, old
    path = tmp_path / f"{name}.yaml"
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.mark.parametrize("name,old,new,expected", [
    ("caribbean_stud", "add: {bet: 2}", "add: {bet: 0}",
     ":{line}: steps.2.options.1.add.bet: expected a multiple > 0, got 0"),
    ("casino_stud", "two_pair: 2, ", "",
     ": wagers.bet.settle.versus_dealer.win_pays: missing two_pair"),
    ("casino_stud", "seats: 1\n", "seats: 1\nhouse_rules: 1\n",
     ":{line}: house_rules: unknown field"),
    ("casino_stud", "seats: 1", "seats: one", ": seats: Input should be a valid integer"),
    ("five_card_mulligan", "ranking: five_card", "ranking: [five_card",
     "invalid YAML at line 22, column 6"),
    ("five_card_mulligan_online", "        when: player_beats", "        on: player_beats",
     "the key 'on' is read as bool"),
    ("texas_holdem_bonus", '    max: "25.00"', '    max: 25.5',
     ": wagers.bonus.max: expected an exact amount as a quoted string such as \"25.5\", not a float"),
    ("texas_holdem_bonus_2x", '    min: "1.00"\n    max: "100.00"', '    min: "5.00"\n    max: "1.00"',
     ": wagers.ante: expected 0 < min <= max, got min 5.00 and max 1.00"),
    ("texas_holdem_bonus_2x", "pays: 30,", "pays: -30,",
     ": wagers.bonus.settle.card_lines.lines.1.pays: expected odds >= 0"),
    ("five_card_mulligan", "model: rules/1\n", "family: mulligan\n",
     ": model: required field is missing (expected 'rules/1': every game is a rules-model spec)"),
    ("caribbean_stud", "model: rules/1", "model: rules/9", ":2: model: expected 'rules/1'"),
    ("caribbean_stud", "name: caribbean_stud", "name: caribbean_stud_v2", ": name: expected 'caribbean_stud'"),
    ("caribbean_stud", "{option: bet, at_least", "{option: raise, at_least",
     ": strategy.decisions.bet_or_fold.0.option: expected one of fold, bet, got 'raise'"),
    ("five_card_mulligan", "        when: always", "        when: sometimes",
     ": wagers.bonus.settle.pay_table.when: expected 'always', 'player_beats_dealer' or "
     "'player_beats_or_ties_dealer'"),
    ("caribbean_stud", "    quads: {amount: \"500.00\"}", "    quads: {amount: \"500.005\"}",
     ": wagers.progressive.settle.progressive.pays.quads.amount: expected whole cents"),
    ("texas_holdem_bonus", "hands: [32o,", "hands: [33o,",
     ": strategy.decisions.preflop.0.hands.0: expected a pair as \"TT\""),
])
def test_bad_spec_names_file_field_and_expectation(tmp_path, name, old, new, expected):
    path = _broken(tmp_path, name, old, new)
    text = path.read_text()
    if "{line}" in expected:
        line = text[: text.index(new.strip().splitlines()[-1])].count("\n") + 1
        expected = expected.replace("{line}", str(line))
    with pytest.raises(SpecError) as err:
        load_spec(path)
    message = str(err.value)
    assert message.startswith(str(path))
    assert expected in message, message


def test_duplicate_key_is_refused(tmp_path):
    path = _broken(tmp_path, "casino_stud", "seats: 1\n", "seats: 1\nseats: 2\n")
    with pytest.raises(SpecError, match=r"found the key 'seats' twice \(first on line \d+\)"):
        load_spec(path)


def test_missing_spec_names_the_file(tmp_path):
    with pytest.raises(SpecError, match="no such spec file"):
        load_spec(tmp_path / "no_such_game.yaml")


def test_misspelled_spec_name_lists_the_specs_and_the_closest():
    with pytest.raises(SpecError, match=r"no spec named 'casino_studd' .*known: caribbean_stud, casino_stud.*"
                                        r"did you mean 'casino_stud'\?"):
        load_spec("casino_studd")
    with pytest.raises(SpecError, match=r"no spec named 'no_such_game' .*\(known: [^)]*\)$"):
        load_spec("no_such_game")


def test_empty_spec_file_says_it_is_empty(tmp_path):
    path = tmp_path / "casino_stud.yaml"
    path.write_text("# nothing yet\n")
    with pytest.raises(SpecError, match="the file is empty"):
        load_spec(path)


def test_spec_command(tmp_path):
    from click.testing import CliRunner

    from certify.cli import cli

    run = CliRunner().invoke(cli, ["spec"])
    assert run.exit_code == 0, run.output
    assert len(run.output.splitlines()) == len(SHIPPED)
    bad = _broken(tmp_path, "casino_stud", "seats: 1", "seats: 0")
    run = CliRunner().invoke(cli, ["spec", str(bad)])
    assert run.exit_code == 2
    assert f"{bad}:" in run.output and "seats: Input should be greater than or equal to 1" in run.output


@pytest.mark.parametrize("mode", ["json", "python"])
def test_dumped_spec_validates_to_the_same_spec(mode):
    """Other stages mutate a dumped spec (seeded faults) and validate it again."""
    for name in SHIPPED:
        spec = load_spec(name)
        data = spec.model_dump(mode=mode, by_alias=True)
        assert type(spec).model_validate(data) == spec
    dumped = load_spec("caribbean_stud").model_dump(mode="json")
    assert dumped["dealer"]["qualifies"]["ranks"] == ["A", "K"]
    assert dumped["wagers"]["progressive"]["settle"]["progressive"]["pays"]["pair"] == "lose"
