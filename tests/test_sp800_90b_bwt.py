"""The Burrows-Wheeler transform bzip2 computes (SP 800-90B 5.1.11's compression statistic)."""

import numpy as np
import pytest

from certify.stats.sp800_90b._bwt import cyclic_bwt_reference


def _brute_force(block: np.ndarray) -> tuple[bytes, list[int]]:
    n = block.size
    rotations = sorted(range(n), key=lambda i: bytes(np.roll(block, -i)))
    return bytes(block[(np.array(rotations) - 1) % n]), rotations


@pytest.mark.parametrize("seed", range(4))
def test_reference_transform_is_the_sorted_rotations_last_column(seed):
    rng = np.random.default_rng(seed)
    for _ in range(200):
        n, k = int(rng.integers(1, 50)), int(rng.integers(1, 5))
        block = rng.integers(0, k, size=n).astype(np.uint8)
        if rng.random() < 0.3:   # periodic: identical rotations, any order gives the same column
            block = np.tile(block[: max(1, n // 4)], 4)
        last, original = cyclic_bwt_reference(block)
        expected, rotations = _brute_force(block)
        assert bytes(last) == expected
        assert bytes(np.roll(block, -rotations[original])) == bytes(block)


def test_reference_transform_refuses_an_empty_block():
    with pytest.raises(ValueError, match="empty block"):
        cyclic_bwt_reference(np.zeros(0, dtype=np.uint8))


# ---------------------------------------------------------------------------------------------
# The fast transform: the same column as the reference for every block, by either route.

import itertools  # noqa: E402

import numba as nb  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from certify.stats.sp800_90b._bwt import (  # noqa: E402
    _byte_bwt, _decimal_bwt, bwt_last_column, cyclic_order)
from certify.stats.sp800_90b._iid_kernels import decimal_text  # noqa: E402


def _as_block(data) -> np.ndarray:
    return np.frombuffer(bytes(data), dtype=np.uint8).copy()


def _assert_exact(block: np.ndarray, decimal: bool | None = None) -> None:
    """bwt_last_column, and each route on its own, give the reference column; ``decimal`` says
    whether the block must take the token route (None: whichever applies)."""
    expected = bytes(cyclic_bwt_reference(block)[0])
    assert bytes(bwt_last_column(block)) == expected
    assert bytes(_byte_bwt(block)) == expected
    out = np.empty_like(block)
    took = _decimal_bwt(block, out)
    if decimal is not None:
        assert took == decimal
    if took:
        assert bytes(out) == expected


def _text_of(samples) -> np.ndarray:
    return decimal_text(np.asarray(samples, dtype=np.uint8))


def _random_cut(text: np.ndarray, rng, length: int) -> np.ndarray:
    length = min(length, text.size)
    start = int(rng.integers(0, text.size - length + 1))
    return np.ascontiguousarray(text[start:start + length])


@pytest.mark.parametrize("bits", range(1, 9))
def test_decimal_text_cut_anywhere_gives_the_reference_column(bits):
    rng = np.random.default_rng(100 + bits)
    text = _text_of(rng.integers(0, 2 ** bits, size=12_000))
    for length in (1, 2, 3, 5, 9, 17, 40, 123, 1_000, 4_321, 20_000):
        for _ in range(6):
            block = _random_cut(text, rng, length)
            _assert_exact(block, decimal=True if b" " in block.tobytes() else False)


@pytest.mark.parametrize("bits", (10, 12, 16, 20))
def test_wider_samples_many_distinct_numbers(bits):
    """Numbers of 4 to 7 digits: most take the sort of distinct numbers, not the short table."""
    rng = np.random.default_rng(300 + bits)
    text = _as_block(" ".join(str(v) for v in rng.integers(0, 2 ** bits, size=8_000)).encode())
    for length in (7, 100, 5_000, text.size):
        for _ in range(3):
            _assert_exact(_random_cut(text, rng, length), decimal=True)


def test_biased_constant_and_periodic_samples():
    rng = np.random.default_rng(7)
    biased = (rng.random(20_000) < 0.03).astype(np.uint8) * 255
    skewed = np.minimum(rng.geometric(0.6, size=20_000) - 1, 255)
    cases = [biased, skewed, np.zeros(5_000), np.full(5_000, 255), np.full(3_000, 7),
             np.tile([1, 2, 3], 2_000), np.tile([0, 10, 100], 1_500), np.tile([1, 0], 4_000),
             np.tile(rng.integers(0, 256, 37), 300), np.tile(rng.integers(0, 2, 64), 150)]
    for samples in cases:
        text = _text_of(samples)
        for length in (text.size, 4_000, 999, 10):
            for _ in range(3):
                block = _random_cut(text, rng, length)
                _assert_exact(block)


def test_every_tiny_block_of_digits_and_spaces():
    for n in range(1, 8):
        for letters in itertools.product(b"01 ", repeat=n):
            _assert_exact(_as_block(letters))
    for n in range(1, 5):
        for letters in itertools.product(b"09 a", repeat=n):
            _assert_exact(_as_block(letters))


def test_blocks_with_one_number_no_space_or_no_number():
    for data in (b"7", b"42", b"255 ", b" 255", b" 0", b"0 ", b" ", b"  ", b"     ", b"1234567890",
                 b"000 000 ", b"00 0 00 0", b"5 55 555 5555 ", b" 1 1 1 1 1"):
        _assert_exact(_as_block(data))


def test_long_numbers_take_the_token_route_up_to_eighteen_digits():
    rng = np.random.default_rng(3)
    for digits, decimal in ((17, True), (18, True), (19, False), (40, False)):
        numbers = [str(int(x)).zfill(digits)[-digits:] for x in rng.integers(0, 10 ** 17, 300)]
        numbers[::7] = [numbers[0]] * len(numbers[::7])   # repeats: tied number ranks
        _assert_exact(_as_block(" ".join(numbers).encode() + b" "), decimal=decimal)


def test_random_bytes_take_the_byte_route():
    rng = np.random.default_rng(5)
    for alphabet in (1, 2, 3, 11, 256):
        for n in (1, 2, 7, 100, 5_000):
            block = rng.integers(0, alphabet, size=n).astype(np.uint8)
            _assert_exact(block, decimal=False if alphabet == 256 and n > 50 else None)
    for period in (1, 2, 5, 64, 1000):   # periodic: identical rotations
        _assert_exact(np.tile(rng.integers(0, 256, period).astype(np.uint8), 5_000 // period))


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=1, max_size=400))
def test_any_bytes(data):
    _assert_exact(_as_block(data))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789 ", min_size=1, max_size=400))
def test_any_digits_and_spaces(text):
    space = text.find(" ")
    numbers = (text[space + 1:] + text[:space + 1]).split(" ")   # cyclically, from a space
    _assert_exact(_as_block(text.encode()),
                  decimal=space >= 0 and max(len(x) for x in numbers) <= 18)


def test_cyclic_order_sorts_rotations_of_large_alphabets():
    rng = np.random.default_rng(9)
    for alphabet in (2, 3, 257, 70_000, 2 ** 31 - 1):
        for n in (1, 2, 50, 400):
            sym = rng.integers(0, alphabet, size=n).astype(np.int32)
            if n == 400:
                sym[200:] = sym[:200]   # a repeat half the length: doubling rounds
            order = cyclic_order(sym, alphabet)
            rotations = [tuple(np.roll(sym, -int(i))) for i in order]
            assert sorted(order.tolist()) == list(range(n))
            assert rotations == sorted(rotations)


@nb.njit
def _column_inside_compiled_code(block):
    return bwt_last_column(block)


def test_callable_from_compiled_code_and_refuses_an_empty_block():
    block = _text_of(np.arange(200) % 13)
    assert bytes(_column_inside_compiled_code(block)) == bytes(cyclic_bwt_reference(block)[0])
    with pytest.raises(ValueError, match="empty block"):
        bwt_last_column(np.zeros(0, dtype=np.uint8))


def test_a_full_bzip2_block_of_eight_bit_text():
    """Level 5's first block: 499,981 bytes of the text (no runs of four for RLE1 to change)."""
    text = _text_of(np.random.default_rng(11).integers(0, 256, size=150_000))
    block = np.ascontiguousarray(text[1_234:1_234 + 499_981])
    assert bytes(bwt_last_column(block)) == bytes(cyclic_bwt_reference(block)[0])


@pytest.mark.slow
@pytest.mark.parametrize("bits", range(1, 9))
def test_full_size_blocks_of_every_width(bits):
    rng = np.random.default_rng(200 + bits)
    text = _text_of(rng.integers(0, 2 ** bits, size=300_000))
    for length in (499_981, 250_000, 65_537):
        for _ in range(3):
            _assert_exact(_random_cut(text, rng, length), decimal=True)


def test_cyclic_period():
    from certify.stats.sp800_90b._bwt import _cyclic_period
    for text, period in (("a", 1), ("aaaa", 1), ("abab", 2), ("ababa", 5), ("abcabcabc", 3), ("aab", 3),
                         ("abaaba", 3), ("abcd" * 50, 4), ("abcd" * 50 + "a", 201)):
        assert _cyclic_period(np.frombuffer(text.encode(), dtype=np.uint8).astype(np.int32)) == period
