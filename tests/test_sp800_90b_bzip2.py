"""bzip2's output length counted without libbz2 (SP 800-90B 5.1.11's compression statistic).

The oracle throughout is the system libbz2 itself: ``len(bz2.compress(text, level))``."""

import bz2

import numba as nb
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certify.stats.sp800_90b import _bzip2 as Z
from certify.stats.sp800_90b._bwt import cyclic_bwt_reference
from certify.stats.sp800_90b._iid_kernels import decimal_text


def _samples_text(rng, n, bits):
    return bytes(decimal_text(rng.integers(0, 1 << bits, size=n).astype(np.uint8)))


def _assert_exact(text, level):
    assert Z.bzip2_size(text, level) == len(bz2.compress(text, level))


def _blocks(text, level):
    blocks, starts = Z.rle1_blocks(np.frombuffer(text, dtype=np.uint8).copy(), Z.block_limit(level))
    return [blocks[starts[b]:starts[b + 1]] for b in range(starts.size - 1)]


def _codings(text, level):
    """(bits, nMTF, tables, rescale rounds) of each block, to show which paths a case takes."""
    return [Z.block_coding(cyclic_bwt_reference(block)[0]) for block in _blocks(text, level)]


def _rle1_inverse(blocks):
    """Undo RLE1 block by block (runs never continue across a block: a run cut by a block end
    starts a fresh count in the next block)."""
    out = bytearray()
    for block in blocks:
        run, prev = 0, -1
        i = 0
        data = bytes(block)
        while i < len(data):
            b = data[i]
            run = run + 1 if b == prev else 1
            prev = b
            out.append(b)
            i += 1
            if run == 4:
                out.extend(bytes([b]) * data[i])
                i += 1
                run, prev = 0, -1
    return bytes(out)


# ---------------------------------------------------------------- decimal texts (what 5.1.11 compresses)

@pytest.mark.parametrize("bits", [1, 2, 3, 4, 8])
@pytest.mark.parametrize("n", [1, 2, 7, 333, 5_000, 60_000])
def test_decimal_texts_of_random_samples_match_libbz2(bits, n):
    rng = np.random.default_rng(1000 * bits + n)
    text = _samples_text(rng, n, bits)
    _assert_exact(text, 1 + (n + bits) % 9)


@pytest.mark.parametrize("bits,level", [(1, 1), (8, 1), (8, 2), (3, 1)])
def test_many_blocks_of_200000_samples_match_libbz2(bits, level):
    text = _samples_text(np.random.default_rng(bits * 10 + level), 200_000, bits)
    assert len(_blocks(text, level)) >= 2
    _assert_exact(text, level)


@pytest.mark.parametrize("kind", ["constant", "periodic", "biased", "two values", "ramp"])
def test_decimal_texts_of_structured_samples_match_libbz2(kind):
    rng = np.random.default_rng(7)
    n = 70_000
    raw = {"constant": np.full(n, 200),
           "periodic": np.arange(n) % 10,
           "biased": np.where(rng.random(n) < 0.95, 0, rng.integers(0, 256, n)),
           "two values": rng.choice([17, 255], n),
           "ramp": np.arange(n) % 256}[kind].astype(np.uint8)
    text = bytes(decimal_text(raw))
    _assert_exact(text, 1)
    _assert_exact(text, 9)


# ---------------------------------------------------------------- any bytes

def test_random_bytes_match_libbz2():
    text = np.random.default_rng(3).integers(0, 256, 250_000).astype(np.uint8).tobytes()
    _assert_exact(text, 1)
    _assert_exact(text, 3)


def test_bytes_with_long_runs_match_libbz2():
    rng = np.random.default_rng(4)
    lengths = [1, 2, 3, 4, 5, 6, 254, 255, 256, 257, 259, 260, 510, 511, 1000, 5000, 20_000]
    pieces = [bytes([int(rng.integers(0, 256))]) * int(rng.choice(lengths)) for _ in range(2000)]
    text = b"".join(pieces)
    for level in (1, 4, 9):
        _assert_exact(text, level)


def test_all_256_byte_values_and_single_bytes_match_libbz2():
    every = bytes(range(256))
    shuffled = bytes(np.random.default_rng(5).permutation(256).astype(np.uint8))
    for text in (every, every * 3, shuffled * 50, b"x", b"\x00", b"\xff", b"  ", b"0000"):
        for level in (1, 9):
            _assert_exact(text, level)


def test_huffman_lengths_capped_at_17_match_libbz2():
    """Skewed data whose optimal codes exceed 17 bits: libbz2 halves the weights and retries."""
    rng = np.random.default_rng(0)
    text = np.minimum(rng.geometric(0.65, 200_000) - 1, 255).astype(np.uint8).tobytes()
    assert any(coding[3] > 0 for coding in _codings(text, 9))
    _assert_exact(text, 9)


@pytest.mark.parametrize("tables", [2, 3, 4, 5, 6])
def test_every_table_count_and_its_threshold_match_libbz2(tables):
    """nMTF just below and at the thresholds 200 / 600 / 1200 / 2400 (below for 2 tables)."""
    thresholds = {2: 200, 3: 200, 4: 600, 5: 1200, 6: 2400}
    target = thresholds[tables] - (1 if tables == 2 else 0)
    base = np.random.default_rng(6).integers(0, 256, 4000).astype(np.uint8).tobytes()
    found = False
    for size in range(max(1, target - 40), target + 40):
        coding = _codings(base[:size], 9)[0]
        if coding[1] == target:
            assert coding[2] == tables
            _assert_exact(base[:size], 9)
            found = True
    assert found


# ---------------------------------------------------------------- RLE1 block splitting

def test_blocks_undo_to_the_input_and_close_at_the_limit():
    rng = np.random.default_rng(8)
    values = rng.integers(0, 4, 80_000)
    lengths = np.where(rng.random(80_000) < 0.02, rng.integers(1, 1000, 80_000), rng.integers(1, 8, 80_000))
    text = np.repeat(values, lengths).astype(np.uint8).tobytes()
    for level in (1, 2):
        blocks = _blocks(text, level)
        assert len(blocks) >= 2
        assert _rle1_inverse(blocks) == text
        for block in blocks[:-1]:
            assert Z.block_limit(level) <= block.size <= Z.block_limit(level) + 4
        _assert_exact(text, level)


def test_a_run_cut_by_a_block_end_continues_in_the_next_block():
    """A 1000-byte run starting when the block holds limit - 4 bytes: its first 255 bytes (five
    bytes after RLE1) fill the block, the rest opens the next one."""
    rng = np.random.default_rng(9)
    limit = Z.block_limit(1)
    filler = rng.integers(0, 200, limit - 4).astype(np.uint8)
    filler[1:][filler[1:] == filler[:-1]] = 255           # no run of 4: RLE1 keeps it as it is
    text = filler.tobytes() + b"\xfe" * 1000 + rng.integers(0, 256, 3000).astype(np.uint8).tobytes()
    blocks = _blocks(text, 1)
    assert blocks[0].size == limit + 1
    assert bytes(blocks[0][-5:]) == b"\xfe" * 4 + bytes([251])
    assert bytes(blocks[1][:5]) == b"\xfe" * 4 + bytes([255 - 4])
    assert _rle1_inverse(blocks) == text
    _assert_exact(text, 1)


@pytest.mark.parametrize("tail", [b"", b"\xfe", b"\xfe" * 2, b"\xfe" * 3, b"\xfe" * 4, b"\xfe" * 300])
def test_texts_ending_as_the_block_fills_match_libbz2(tail):
    """Python's compress() closes a block that is full after the last byte (BZ_RUN checks before
    reading), so the pending run makes a last block of its own; a byte earlier it does not."""
    rng = np.random.default_rng(12)
    limit = Z.block_limit(1)
    filler = rng.integers(0, 200, limit + 8).astype(np.uint8)
    filler[1:][filler[1:] == filler[:-1]] = 255
    for size in range(limit - 1, limit + 3):
        text = filler[:size].tobytes() + tail
        _assert_exact(text, 1)
        assert Z.compressed_size(np.frombuffer(text, dtype=np.uint8).copy(), 1) == len(bz2.compress(text, 1))


def test_run_of_4_scan_equals_the_plain_loop():
    rng = np.random.default_rng(13)
    for _ in range(5000):
        a = rng.integers(0, 2, int(rng.integers(0, 90))).astype(np.uint8)
        plain = any(a[i] == a[i - 1] == a[i - 2] == a[i - 3] for i in range(3, a.size))
        assert Z._has_run_of_4(a) == plain


# ---------------------------------------------------------------- generated inputs

@settings(max_examples=150, deadline=None)
@given(st.binary(min_size=1, max_size=3000), st.integers(1, 9))
def test_generated_bytes_match_libbz2(text, level):
    _assert_exact(text, level)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(1, 600)), min_size=1, max_size=40), st.integers(1, 9))
def test_generated_runs_match_libbz2(runs, level):
    _assert_exact(b"".join(bytes([48 + value]) * length for value, length in runs), level)


# ---------------------------------------------------------------- from numba code

@nb.njit(nogil=True)
def _stream_bytes_of_columns(columns, starts):
    total = 0
    for b in range(starts.size - 1):
        total += Z.block_bits(columns[starts[b]:starts[b + 1]])
    return Z.stream_bytes(total)


def test_block_bits_is_callable_from_numba_code():
    text = _samples_text(np.random.default_rng(10), 60_000, 8)
    blocks = _blocks(text, 1)
    columns = np.concatenate([cyclic_bwt_reference(block)[0] for block in blocks])
    starts = np.concatenate(([0], np.cumsum([block.size for block in blocks])))
    assert _stream_bytes_of_columns(columns, starts) == len(bz2.compress(text, 1))


@pytest.mark.parametrize("bits", [1, 3, 8])
def test_compressed_size_with_the_fast_transform_matches_libbz2(bits):
    """The numba entry (blocks' columns from _bwt.bwt_last_column) on decimal text and on bytes."""
    rng = np.random.default_rng(14 + bits)
    text = decimal_text(rng.integers(0, 1 << bits, 150_000).astype(np.uint8))
    for level in (1, 2, 5):
        assert Z.compressed_size(text, level) == len(bz2.compress(text.tobytes(), level))
    noise = rng.integers(0, 1 << bits, 120_000).astype(np.uint8)
    assert Z.compressed_size(noise, 1) == len(bz2.compress(noise.tobytes(), 1))
    assert Z.compressed_size(np.zeros(0, dtype=np.uint8), 5) == len(bz2.compress(b"", 5))


@settings(max_examples=100, deadline=None)
@given(st.binary(min_size=0, max_size=3000), st.integers(1, 9))
def test_compressed_size_of_generated_bytes_matches_libbz2(text, level):
    assert Z.compressed_size(np.frombuffer(text, dtype=np.uint8).copy(), level) == len(bz2.compress(text, level))


# ---------------------------------------------------------------- bad input

def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="empty"):
        Z.bzip2_size(b"", 5)
    for level in (0, 10, -1, 5.0, True, "5"):
        with pytest.raises(ValueError, match="level"):
            Z.bzip2_size(b"1 2 3", level)
    with pytest.raises(ValueError, match="uint8"):
        Z.bzip2_size(np.zeros((2, 3), dtype=np.uint8), 5)
    with pytest.raises(ValueError, match="uint8"):
        Z.bzip2_size(np.arange(5), 5)
    with pytest.raises(ValueError, match="block 0 has 4 bytes, the block has 5"):
        Z.bzip2_size(b"1 2 3", 5, bwt=lambda block: (block[:-1], 0))
    with pytest.raises(ValueError, match="not a permutation"):
        Z.bzip2_size(b"1 2 3", 5, bwt=lambda block: (np.zeros_like(block), 0))


# ---------------------------------------------------------------- full size

@pytest.mark.slow
def test_a_million_8_bit_samples_at_level_5_match_libbz2():
    """The 5.1.11 statistic at full size: 3.57 MB of text, eight blocks."""
    text = _samples_text(np.random.default_rng(11), 1_000_000, 8)
    assert len(_blocks(text, 5)) == 8
    _assert_exact(text, 5)
    assert Z.compressed_size(np.frombuffer(text, dtype=np.uint8).copy(), 5) == len(bz2.compress(text, 5))


@pytest.mark.slow
@pytest.mark.parametrize("level", range(1, 10))
def test_every_level_on_long_texts_matches_libbz2(level):
    rng = np.random.default_rng(100 + level)
    for bits in (1, 2, 4, 8):
        _assert_exact(_samples_text(rng, 250_000, bits), level)
    _assert_exact(rng.integers(0, 256, 1_000_000).astype(np.uint8).tobytes(), level)
