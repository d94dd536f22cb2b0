"""Adapters for RNGs under test: file formats, their error messages, and the negative controls."""

import random

import numpy as np
import pytest
from scipy.stats import chisquare

from rng.base import RandomSourceError
from rng.drbg import CtrDrbg
from rng.sources import (BinaryFileSource, BitsFileSource, CallableSource, ClockSeededShuffle,
                         DeckFileSource, IntegerFileSource, ModuloBiasedDeal, NaiveShuffle, NumpySource,
                         Randu, SourceExhaustedError, SourceFormatError, StuckBit, WeakLcg, deal,
                         open_file, parse_card_token)


def drbg(tag=b""):
    return CtrDrbg(bytes(32), bytes(16), tag)


# -- binary and bit files --------------------------------------------------------------------

def test_binary_file_reads_in_order_and_reports_truncation(tmp_path):
    path = tmp_path / "raw.bin"
    path.write_bytes(bytes(range(10)))
    source = BinaryFileSource(path)
    assert source.random_bytes(4) == bytes(range(4))
    assert source.random_uint32(1)[0] == int.from_bytes(bytes([4, 5, 6, 7]), "little")
    with pytest.raises(SourceExhaustedError, match=r"raw\.bin.*byte offset 8.*10 bytes"):
        source.random_bytes(3)


def test_bits_file_ignores_whitespace_and_packs_msb_first(tmp_path):
    path = tmp_path / "bits.txt"
    path.write_text("1000 0001\n11111111\r\n0101")
    source = BitsFileSource(path)
    assert source.random_bytes(2) == bytes([0x81, 0xFF])
    assert list(source.random_bits(4)) == [0, 1, 0, 1]
    with pytest.raises(SourceExhaustedError, match="bit 20"):
        source.random_bits(1)


def test_bits_file_wrong_symbol_names_line_column_and_offset(tmp_path):
    path = tmp_path / "bits.txt"
    path.write_text("0101\n01x1\n")
    with pytest.raises(SourceFormatError) as err:
        BitsFileSource(path)
    message = str(err.value)
    assert "bits.txt" in message and "line 2, column 3" in message and "byte offset 7" in message
    assert "b'x'" in message


# -- integer files -----------------------------------------------------------------------------

def test_integer_file_values_and_bits(tmp_path):
    path = tmp_path / "ints.txt"
    path.write_text("0, 1, 2, 3\n3 2\n1 0\n")
    source = IntegerFileSource(path, 0, 3)
    assert list(source.integers(3)) == [0, 1, 2]
    assert list(source.random_bits(4)) == [1, 1, 1, 1]  # 3 -> 11, 3 -> 11


@pytest.mark.parametrize("text,match", [
    ("1 2 x3 4", r"line 1, column 5: token 'x3' is not an integer"),
    ("1 2\n3 99", r"line 2, column 3: value 99 is outside the declared range \[0, 9\]"),
    ("", "no integers"),
])
def test_integer_file_errors(tmp_path, text, match):
    path = tmp_path / "ints.txt"
    path.write_text(text)
    with pytest.raises(SourceFormatError, match=match):
        IntegerFileSource(path, 0, 9)


def test_integer_file_not_whole_bits_and_truncation(tmp_path):
    path = tmp_path / "dice.txt"
    path.write_text("1 6 3")
    source = IntegerFileSource(path, 1, 6)
    with pytest.raises(SourceFormatError, match="not a power of two"):
        source.random_bits(8)
    with pytest.raises(SourceExhaustedError, match="dice.txt.*holds 3"):
        source.integers(4)


def test_non_ascii_file_names_the_byte(tmp_path):
    path = tmp_path / "ints.txt"
    path.write_bytes(b"1 2\n3 \xff")
    with pytest.raises(SourceFormatError, match=r"line 2, column 3 \(byte offset 6\).*0xff"):
        IntegerFileSource(path, 0, 9)


# -- deck files ------------------------------------------------------------------------------

FULL_DECK = " ".join(r + s for r in ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
                     for s in "cdhs")


def test_deck_file_names_and_numbers(tmp_path):
    path = tmp_path / "decks.txt"
    numbers = ",".join(str(c) for c in reversed(range(52)))
    path.write_text(f"# two decks\n{FULL_DECK}\n\n{numbers}\n")
    source = DeckFileSource(path)
    decks = source.deal_batch(2, k=52)
    assert list(decks[0]) == list(range(52)) and list(decks[1]) == list(reversed(range(52)))
    with pytest.raises(SourceExhaustedError, match="holds 2"):
        source.deal_batch(1)


def test_card_tokens_match_the_certify_encoding():
    from certify.cards import card_str, parse_card
    for c in range(52):
        assert parse_card_token(card_str(c)) == parse_card(card_str(c)) == c
    assert parse_card_token("10h") == parse_card_token("Th") == parse_card_token("th")


@pytest.mark.parametrize("line,match", [
    (FULL_DECK.replace("Kd", "KX"), r"line 2, column 140, token 'KX': not a card"),
    (FULL_DECK.replace("2d", "2c"), r"line 2, column 4, token '2c': duplicate card \(already at column 1\)"),
    (FULL_DECK.rsplit(" ", 1)[0], "line 2: expected 52 cards, got 51"),
    (FULL_DECK.replace("2c", "52"), r"token '52': card number 52 is outside 0..51"),
])
def test_deck_file_errors_name_line_column_and_token(tmp_path, line, match):
    path = tmp_path / "decks.txt"
    path.write_text(f"{FULL_DECK}\n{line}\n")
    with pytest.raises(SourceFormatError, match=match) as err:
        DeckFileSource(path)
    assert "decks.txt" in str(err.value)


def test_deck_file_of_dealt_hands(tmp_path):
    path = tmp_path / "hands.txt"
    path.write_text("AS KD 10C 2h 3h\n0 1 2 3 4\n")
    source = open_file(path, "decks", cards_per_deck=5)
    assert source.deal_batch(2, k=5).tolist() == [[51, 45, 32, 2, 6], [0, 1, 2, 3, 4]]


def test_open_file_rejects_unknown_format(tmp_path):
    with pytest.raises(ValueError, match="unknown format"):
        open_file(tmp_path / "x", "csv")


# -- in-process sources ----------------------------------------------------------------------

def test_callable_and_numpy_sources():
    counter = iter(range(10**6))
    words = CallableSource(lambda n: np.array([next(counter) for _ in range(n)]), output="uint32")
    assert list(words.random_uint32(3)) == [0, 1, 2]
    raw = CallableSource(lambda n: bytes(n))
    assert raw.random_uint32(2).tolist() == [0, 0]
    pcg = NumpySource(np.random.default_rng(5))
    assert pcg.random_uint32(4).dtype == np.uint32 and len(pcg.random_bytes(7)) == 7
    assert deal(pcg, 3, 5).shape == (3, 5)


def test_callable_returning_the_wrong_length_is_refused():
    with pytest.raises(RandomSourceError, match="length 3 for a request of 4"):
        CallableSource(lambda n: b"abc").random_bytes(4)


# -- negative controls: each must be caught ---------------------------------------------------

def test_randu_is_randu_and_its_triples_are_linear():
    values = Randu(seed=1).values(1000).astype(np.int64)
    assert values[0] == 65539 and (values & 1).all()
    # x[k+2] = 6 x[k+1] - 9 x[k] (mod 2^31): the famous 15 planes
    assert ((values[2:] - 6 * values[1:-1] + 9 * values[:-2]) % 2**31 == 0).all()


def test_weak_lcg_has_period_65536_and_alternating_low_bit():
    lcg = WeakLcg(seed=7)
    values = lcg.values(65536 * 2)
    assert (values[:65536] == values[65536:]).all()
    assert len(np.unique(values[:65536])) == 65536
    assert (np.diff(values[:100] & 1) != 0).all()


def test_stuck_bit_is_caught_by_a_bit_frequency_count():
    words = StuckBit(drbg(), bit=5, value=0).random_uint32(10_000)
    assert not (words & (1 << 5)).any()
    fair = drbg().random_uint32(10_000)
    assert 4500 < ((fair >> 5) & 1).sum() < 5500


def test_modulo_biased_deal_is_caught_by_card_in_first_position():
    decks = ModuloBiasedDeal(drbg(), word_bits=8).deal_batch(100_000, k=1)
    counts = np.bincount(decks[:, 0], minlength=52)
    assert chisquare(counts).pvalue < 1e-10
    assert counts[:48].min() > counts[48:].max()  # 0..47 get 5/256, 48..51 get 4/256
    fair = drbg().deal_batch(100_000, k=1)
    assert chisquare(np.bincount(fair[:, 0], minlength=52)).pvalue > 1e-4


def test_function_forms_deal_the_same_decks():
    from rng.sources import modulo_biased_deal, naive_shuffle_deal
    assert (modulo_biased_deal(drbg(), 50, 7) == ModuloBiasedDeal(drbg()).deal_batch(50, 7)).all()
    assert (naive_shuffle_deal(drbg(), 50, 7) == NaiveShuffle(drbg()).deal_batch(50, 7)).all()


def test_modulo_bias_with_16_bit_words_is_smaller_but_real():
    draws = ModuloBiasedDeal(drbg(), word_bits=16).integers(52, 200_000)
    assert draws.min() == 0 and draws.max() == 51


def test_naive_shuffle_is_caught_on_a_three_card_deck():
    decks = NaiveShuffle(drbg()).deal_batch(54_000, k=3, deck_size=3)
    orders = decks[:, 0].astype(int) * 9 + decks[:, 1] * 3 + decks[:, 2]
    counts = np.unique(orders, return_counts=True)[1]
    assert len(counts) == 6 and chisquare(counts).pvalue < 1e-10
    fair = drbg().deal_batch(54_000, k=3, deck_size=3)
    fair_counts = np.unique(fair[:, 0].astype(int) * 9 + fair[:, 1] * 3 + fair[:, 2], return_counts=True)[1]
    assert chisquare(fair_counts).pvalue > 1e-4


def test_clock_seeded_shuffle_is_python_random_with_32_bit_seeds():
    decks = ClockSeededShuffle(clock_values=[5, 5, 2**32 + 5, 6]).deal_batch(4)
    expected = list(range(52))
    random.Random(5).shuffle(expected)
    assert list(decks[0]) == expected
    assert (decks[0] == decks[1]).all() and (decks[0] == decks[2]).all()  # same clock, same deck
    assert not (decks[0] == decks[3]).all()
    with pytest.raises(SourceExhaustedError, match="clock values are used up"):
        ClockSeededShuffle(clock_values=[1]).deal_batch(2)


@pytest.mark.slow
def test_clock_seeded_shuffle_repeats_decks_at_the_birthday_bound():
    decks = ClockSeededShuffle(clock_seed=1).deal_batch(300_000, k=52)
    repeats = len(decks) - len(np.unique(decks, axis=0))
    assert repeats >= 1  # expected ~10; a fair shuffle repeats with probability ~1e-57


def test_a_studio_shuffle_deals_in_place_or_returned_and_a_wrong_deck_names_the_deal():
    from rng.sources import ShuffleFunctionSource

    reverse_in_place = ShuffleFunctionSource(lambda deck: deck.reverse())
    assert reverse_in_place.deal_batch(2, k=3).tolist() == [[51, 50, 49], [51, 50, 49]]
    rotated = ShuffleFunctionSource(lambda deck: deck[1:] + deck[:1])
    assert rotated.deal_batch(1, k=5, deck_size=5).tolist() == [[1, 2, 3, 4, 0]]
    calls = iter([list(range(52)), [0] * 52])
    with pytest.raises(RandomSourceError, match=r"deal 1 is not a new order of the cards 0\.\.51: \[0, 0, "):
        ShuffleFunctionSource(lambda deck: next(calls)).deal_batch(2)
    with pytest.raises(RandomSourceError, match=r"deal 0: returned int; expected None"):
        ShuffleFunctionSource(lambda deck: 7).deal_batch(1)
    with pytest.raises(RandomSourceError, match=r"deal 0: returned list of length 51"):
        ShuffleFunctionSource(lambda deck: deck[1:]).deal_batch(1)
    with pytest.raises(TypeError, match="deals decks; it is not a source of bits"):
        reverse_in_place.random_bytes(1)
