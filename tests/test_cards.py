import pytest

from certify.cards import CardError, card_str, cards_str, parse_card, parse_cards


@pytest.mark.parametrize("token,expected", [("AS", 51), ("as", 51), ("10s", 35), ("Ts", 35), ("Td", 33), ("2c", 0)])
def test_parse_tokens(token, expected):
    assert parse_card(token) == expected


def test_round_trip_every_card():
    for c in range(52):
        assert parse_card(card_str(c)) == c


@pytest.mark.parametrize("bad", ["1X", "ZZ", "A", "11s", "Ax", ""])
def test_bad_card_names_the_token(bad):
    with pytest.raises(CardError) as err:
        parse_card(bad)
    assert repr(bad) in str(err.value)


def test_duplicate_card_named():
    with pytest.raises(CardError, match="duplicate card 'as'"):
        parse_cards(["AS", "KS", "as"])


def test_wrong_count():
    with pytest.raises(CardError, match="expected 5 or 7 cards, got 4"):
        parse_cards("AS KS QS JS", count=(5, 7))


def test_comma_separated_and_print_back():
    assert cards_str(parse_cards("AS,KD, 10c")) == "As Kd Tc"
