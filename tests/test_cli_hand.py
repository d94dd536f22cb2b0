"""`certify hand`: category and rank, best five of seven, clear errors with exit code 2."""

import pytest
from click.testing import CliRunner

from certify.cli import cli


def run(*args):
    return CliRunner().invoke(cli, ["hand", *args])


def test_royal_flush():
    result = run("AS", "KS", "QS", "JS", "10S")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("royal flush")
    assert "rank 1 of 7462" in result.output
    assert "best five" not in result.output


def test_worst_hand_rank():
    result = run("7c", "5d", "4h", "3s", "2c")
    assert result.exit_code == 0
    assert result.output.startswith("high card") and "rank 7462 of 7462" in result.output


def test_seven_cards_print_the_best_five():
    result = run("2d", "9c", "Ac", "Kd", "5h", "4s", "3c")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("straight ")
    assert lines[1] == "best five: 5h 4s 3c 2d Ac"


def test_seven_cards_category_and_value_consistent():
    from certify import hands

    result = run("Ah", "Kh", "9h", "7h", "2h", "As", "Ad")
    value = hands.rank_hand([50, 46, 30, 22, 2, 51, 49])
    assert result.output.startswith("flush ")
    assert f"value {value})" in result.output
    assert "best five: Ah Kh 9h 7h 2h" in result.output


@pytest.mark.parametrize(
    "args,token",
    [
        (("1X", "KS", "QS", "JS", "10S"), "'1X'"),
        (("AS", "ZZ", "QS", "JS", "10S"), "'ZZ'"),
        (("AS", "KS", "QS", "JS", "as"), "'as'"),
    ],
)
def test_bad_or_duplicate_card_exits_2_naming_the_token(args, token):
    result = run(*args)
    assert result.exit_code == 2
    assert token in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("args", [("AS", "KS", "QS", "JS"), ("AS", "KS", "QS", "JS", "TS", "9S")])
def test_wrong_count_exits_2(args):
    result = run(*args)
    assert result.exit_code == 2
    assert f"expected 5 or 7 cards, got {len(args)}" in result.output
    assert " ".join(args) in result.output


def test_no_cards_is_a_usage_error():
    assert run().exit_code == 2
