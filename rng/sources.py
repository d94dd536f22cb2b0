"""Adapters for RNGs under test, and known-bad generators as negative controls.

Every bit or word source is a ``RandomSource`` (``random_bytes``, ``random_uint32``,
``random_bits``, ``deal_batch``). Sources that only produce decks (a file of dealt decks, a
broken shuffle) are ``DeckSource``s: ``deal_batch(n_decks, k=52, deck_size=52)``. The
statistical tests take either through ``deal_batch`` (decks) or ``random_bits`` (bits).
``as_source(obj)`` adapts what a studio actually has (an object with ``random_bytes`` or
``random_uint32``, ``random.Random``, a numpy Generator or BitGenerator, its own shuffle
function) to one of the two.

Files are validated completely when opened: a malformed file raises ``SourceFormatError``
naming the path and the line, column and token (text) or byte offset; asking for more data
than a file holds raises ``SourceExhaustedError`` naming the offset where it ran out.

Cards are ``4 * rank + suit`` (rank 0..12 for 2..A, suit 0..3 for c, d, h, s), the encoding
of ``certify.cards``, parsed here because ``rng`` does not import ``certify``.
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
from numba import njit

from rng.base import RandomSource, RandomSourceError, _check_count, excerpt
from rng.bounded import integers as bounded_integers

WHITESPACE = b" \t\r\n"
RANKS = "23456789TJQKA"
SUITS = "CDHS"
_TOKEN = re.compile(r"[^\s,]+")


class SourceFormatError(ValueError):
    """A file of random data is malformed; the message names the path and the place."""


class SourceExhaustedError(RandomSourceError):
    """More data was requested than the source holds."""


class DeckSource:
    """A source of dealt decks: ``deal_batch(n_decks, k, deck_size)`` -> (n_decks, k) uint8."""

    name = "decks"

    def deal_batch(self, n_decks: int, k: int = 52, deck_size: int = 52) -> np.ndarray:
        raise NotImplementedError

    def random_bytes(self, n: int) -> bytes:
        raise TypeError(f"{self.name} deals decks; it is not a source of bits")

    random_uint32 = random_bits = random_bytes


def deal(source, n_decks: int, k: int = 52, deck_size: int = 52) -> np.ndarray:
    """Decks from any source: its own ``deal_batch`` or Fisher-Yates on its words."""
    return source.deal_batch(n_decks, k, deck_size)


# -- files ----------------------------------------------------------------------------------


def _where(data: bytes, offset: int) -> str:
    line = data.count(b"\n", 0, offset) + 1
    column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return f"line {line}, column {column} (byte offset {offset})"


class BinaryFileSource(RandomSource):
    """Raw bytes of a file, in order."""

    def __init__(self, path):
        self.path = Path(path)
        self.size = os.path.getsize(self.path)
        self.offset = 0
        self.name = f"binary file {self.path}"

    def random_bytes(self, n: int) -> bytes:
        n = _check_count(n)
        with open(self.path, "rb") as handle:
            handle.seek(self.offset)
            data = handle.read(n)
        if len(data) < n:
            raise SourceExhaustedError(f"{self.path}: truncated: {n} bytes requested at byte offset {self.offset}, "
                                       f"but the file has {self.size} bytes ({self.size - self.offset} left)")
        self.offset += n
        return data


class BitsFileSource(RandomSource):
    """ASCII '0'/'1' characters (the NIST STS data format); whitespace is ignored.

    ``data``: the file's bytes when the caller has read them already (``certify.inputs`` reads
    every input within bounds); the path then only names the file in messages."""

    def __init__(self, path, data: bytes | None = None):
        self.path = Path(path)
        self.name = f"ASCII bits file {self.path}"
        data = self.path.read_bytes() if data is None else data
        raw = np.frombuffer(data, dtype=np.uint8)
        is_bit = (raw == ord("0")) | (raw == ord("1"))
        bad = np.flatnonzero(~is_bit & ~np.isin(raw, np.frombuffer(WHITESPACE, dtype=np.uint8)))
        if len(bad):
            offset = int(bad[0])
            raise SourceFormatError(f"{self.path}: {_where(data, offset)}: unexpected {data[offset:offset + 1]!r}; "
                                    "expected '0', '1' or whitespace")
        self.bits = (raw[is_bit] - ord("0")).astype(np.uint8)
        if len(self.bits) == 0:
            raise SourceFormatError(f"{self.path}: holds no bits")
        self.position = 0

    def random_bits(self, n: int) -> np.ndarray:
        n = _check_count(n)
        if self.position + n > len(self.bits):
            raise SourceExhaustedError(f"{self.path}: truncated: {n} bits requested at bit {self.position}, "
                                       f"but the file holds {len(self.bits)} bits")
        self.position += n
        return self.bits[self.position - n:self.position].copy()

    def random_bytes(self, n: int) -> bytes:
        return np.packbits(self.random_bits(8 * _check_count(n))).tobytes()


def _read_text(path: Path, data: bytes | None = None) -> str:
    data = path.read_bytes() if data is None else data
    try:
        return data.decode("ascii")
    except UnicodeDecodeError as exc:
        raise SourceFormatError(f"{path}: {_where(data, exc.start)}: non-ASCII byte {data[exc.start]:#04x}") from None


def _tokens(text: str):
    """(line number, column, token) for each token separated by whitespace or commas."""
    for line_number, line in enumerate(text.splitlines(), start=1):
        for match in _TOKEN.finditer(line):
            yield line_number, match.start() + 1, match.group()


class IntegerFileSource(RandomSource):
    """Text file of integers in a declared range [low, high], separated by whitespace or commas.

    ``integers(n)`` gives the values. When the range holds 2^b values, each value is also b bits
    (value - low, most significant first), so the bit and byte interface works too.
    """

    def __init__(self, path, low: int, high: int, data: bytes | None = None):
        self.path = Path(path)
        self.name = f"integer file {self.path} in [{low}, {high}]"
        if low > high:
            raise ValueError(f"declared range [{low}, {high}] is empty")
        self.low, self.high = low, high
        values = []
        for line, column, token in _tokens(_read_text(self.path, data)):
            try:
                value = int(token)
            except ValueError:
                raise SourceFormatError(f"{self.path}: line {line}, column {column}: token {excerpt(token)} "
                                        "is not an integer") from None
            if not low <= value <= high:
                raise SourceFormatError(f"{self.path}: line {line}, column {column}: value {value} is outside "
                                        f"the declared range [{low}, {high}]")
            values.append(value)
        if not values:
            raise SourceFormatError(f"{self.path}: holds no integers")
        self.values = np.array(values, dtype=np.int64)
        self.position = 0
        span = high - low + 1
        self.bits_per_value = span.bit_length() - 1 if span & (span - 1) == 0 else None

    def integers(self, n: int) -> np.ndarray:
        n = _check_count(n)
        if self.position + n > len(self.values):
            raise SourceExhaustedError(f"{self.path}: truncated: {n} values requested after value {self.position}, "
                                       f"but the file holds {len(self.values)}")
        self.position += n
        return self.values[self.position - n:self.position]

    def random_bits(self, n: int) -> np.ndarray:
        b = self.bits_per_value
        if not b:
            raise SourceFormatError(f"{self.path}: the range [{self.low}, {self.high}] holds {self.high - self.low + 1} "
                                    "values, not a power of two (>= 2): its values are not whole bits; use integers()")
        values = (self.integers(-(-_check_count(n) // b)) - self.low).astype(np.uint64)
        shifts = np.arange(b - 1, -1, -1, dtype=np.uint64)
        return ((values[:, None] >> shifts) & np.uint64(1)).astype(np.uint8).ravel()[:n]

    def random_bytes(self, n: int) -> bytes:
        return np.packbits(self.random_bits(8 * _check_count(n))).tobytes()


def parse_card_token(token: str, deck_size: int = 52) -> int:
    """A card name (``AS``, ``10c``, ``Td``) or an integer 0..deck_size-1; ValueError otherwise."""
    if token.isdigit():
        value = int(token)
        if value >= deck_size:
            raise ValueError(f"card number {value} is outside 0..{deck_size - 1}")
        return value
    if deck_size != 52:
        raise ValueError(f"card names need a 52-card deck; use numbers 0..{deck_size - 1}")
    rank, suit = token[:-1].upper(), token[-1:].upper()
    rank = "T" if rank == "10" else rank
    if len(rank) != 1 or rank not in RANKS or suit not in SUITS:
        raise ValueError("not a card: expected a rank 2-10, J, Q, K, A and a suit c, d, h, s, or a number 0-51")
    return 4 * RANKS.index(rank) + SUITS.index(suit)


class DeckFileSource(DeckSource):
    """One dealt deck a line: card names (``AS KD 10C``) or integers, separated by spaces or
    commas. Blank lines and lines starting with '#' are skipped."""

    def __init__(self, path, cards_per_deck: int = 52, deck_size: int = 52, data: bytes | None = None):
        self.path = Path(path)
        self.name = f"deck file {self.path}"
        self.deck_size, self.cards_per_deck = deck_size, cards_per_deck
        decks = []
        for line_number, line in enumerate(_read_text(self.path, data).splitlines(), start=1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            decks.append(self._parse_line(line_number, line))
        if not decks:
            raise SourceFormatError(f"{self.path}: holds no decks")
        self.decks = np.array(decks, dtype=np.uint8)
        self.position = 0

    def _parse_line(self, line_number: int, line: str) -> list[int]:
        cards, first_seen = [], {}
        for match in _TOKEN.finditer(line):
            token, column = match.group(), match.start() + 1
            where = f"{self.path}: line {line_number}, column {column}, token {excerpt(token)}"
            try:
                card = parse_card_token(token, self.deck_size)
            except ValueError as exc:
                raise SourceFormatError(f"{where}: {exc}") from None
            if card in first_seen:
                raise SourceFormatError(f"{where}: duplicate card (already at column {first_seen[card]})")
            first_seen[card] = column
            cards.append(card)
        if len(cards) != self.cards_per_deck:
            raise SourceFormatError(f"{self.path}: line {line_number}: expected {self.cards_per_deck} cards, "
                                    f"got {len(cards)}")
        return cards

    def deal_batch(self, n_decks: int, k: int = 52, deck_size: int = 52) -> np.ndarray:
        n_decks = _check_count(n_decks)
        if deck_size != self.deck_size or k > self.cards_per_deck:
            raise ValueError(f"{self.path} holds {self.cards_per_deck} cards of {self.deck_size}-card decks; "
                             f"asked for {k} of {deck_size}")
        if self.position + n_decks > len(self.decks):
            raise SourceExhaustedError(f"{self.path}: {n_decks} decks requested after deck {self.position}, "
                                       f"but the file holds {len(self.decks)}")
        self.position += n_decks
        return self.decks[self.position - n_decks:self.position, :k]


# -- in-process generators ------------------------------------------------------------------


class CallableSource(RandomSource):
    """Any Python callable ``fn(n)`` returning n bytes (``output="bytes"``) or n uint32 words."""

    def __init__(self, fn: Callable, output: str = "bytes", name: str | None = None):
        if output not in ("bytes", "uint32"):
            raise ValueError(f"output must be 'bytes' or 'uint32', got {output!r}")
        self.fn, self.output = fn, output
        self.name = name or f"callable {_callable_name(fn)}"

    def random_bytes(self, n: int) -> bytes:
        n = _check_count(n)
        if self.output == "uint32":
            return RandomSource.random_bytes(self, n)
        data = self.fn(n)
        if not isinstance(data, (bytes, bytearray, memoryview)) or len(data) != n:
            raise RandomSourceError(f"{self.name} returned {type(data).__name__} of length "
                                    f"{len(data) if hasattr(data, '__len__') else '?'} for a request of {n} bytes")
        return bytes(data)

    def random_uint32(self, n: int) -> np.ndarray:
        n = _check_count(n)
        if self.output == "bytes":
            return RandomSource.random_uint32(self, n)
        words = np.asarray(self.fn(n))
        if words.shape != (n,) or not np.issubdtype(words.dtype, np.integer) or \
                (n and (words.min() < 0 or words.max() >= 2**32)):
            raise RandomSourceError(f"{self.name} returned {words.dtype} array of shape {words.shape} "
                                    f"for a request of {n} uint32 words")
        return words.astype(np.uint32)


class NumpySource(RandomSource):
    """A ``numpy.random.Generator`` (e.g. PCG64) through the common interface."""

    def __init__(self, generator: np.random.Generator):
        self.generator = generator
        self.name = f"numpy {type(generator.bit_generator).__name__}"

    def random_bytes(self, n: int) -> bytes:
        return self.generator.bytes(_check_count(n))

    def random_uint32(self, n: int) -> np.ndarray:
        return self.generator.integers(0, 2**32, size=_check_count(n), dtype=np.uint32)


class DealFunctionSource(DeckSource):
    """A function ``fn(n_decks, k, deck_size) -> (n_decks, k)`` card array, as a source of deals only."""

    def __init__(self, fn: Callable, name: str | None = None):
        self.fn = fn
        self.name = name or f"deals from {_callable_name(fn)}"

    def deal_batch(self, n_decks: int, k: int = 52, deck_size: int = 52) -> np.ndarray:
        decks = np.asarray(self.fn(_check_count(n_decks), k, deck_size))
        if decks.shape != (n_decks, k):
            raise RandomSourceError(f"{self.name} returned shape {decks.shape} for {n_decks} deals of {k} cards")
        return decks


class ShuffleFunctionSource(DeckSource):
    """A studio's own shuffle ``fn(deck)``, which shuffles the list ``deck`` in place (returning
    None) or returns the shuffled deck: each deal is ``fn(list(range(deck_size)))``, tested as
    dealt. Cards are the ints 0..deck_size-1 (``4 * rank + suit`` for 52 cards). A result that is
    not a new order of exactly those cards raises ``RandomSourceError`` naming the deal."""

    def __init__(self, shuffle: Callable, name: str | None = None):
        self.shuffle = shuffle
        self.name = name or f"shuffle {_callable_name(shuffle)}"

    def deal_batch(self, n_decks: int, k: int = 52, deck_size: int = 52) -> np.ndarray:
        decks = np.empty((_check_count(n_decks), deck_size), dtype=np.int32)
        for d in range(n_decks):
            deck = list(range(deck_size))
            returned = self.shuffle(deck)
            try:
                decks[d] = deck if returned is None else list(returned)
            except (TypeError, ValueError, OverflowError):
                raise RandomSourceError(f"{self.name}: deal {d}: returned {_kind(returned)}; expected None (the "
                                        f"list shuffled in place) or the {deck_size} cards in a new order") from None
        ordered = np.sort(decks, axis=1) == np.arange(deck_size)
        if not ordered.all():
            d = int(np.flatnonzero(~ordered.all(axis=1))[0])
            raise RandomSourceError(f"{self.name}: deal {d} is not a new order of the cards 0..{deck_size - 1}: "
                                    f"{decks[d].tolist()}")
        return decks[:, :k].astype(np.uint8)


def _callable_name(fn) -> str:
    owner = getattr(fn, "__self__", None)
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    if owner is not None and not isinstance(owner, type) and "." not in name:
        name = f"{type(owner).__name__}.{name}"  # a builtin bound method: numpy's, random's
    return name


def _kind(value) -> str:
    size = f" of length {len(value)}" if hasattr(value, "__len__") else ""
    return f"{type(value).__name__}{size}"


OUTPUTS = ("bytes", "uint32", "decks", "shuffle")
ACCEPTED_FORMS = (
    "an object with random_bytes(n) -> n bytes or random_uint32(n) -> n words (its bits are tested, and "
    "deals are made from them by the suite's unbiased Fisher-Yates); random.Random or random.SystemRandom; "
    "numpy.random.Generator, BitGenerator or RandomState; an rng source (with deal_batch); or a function "
    "with output='bytes' (fn(n) -> n bytes, the default), output='uint32' (fn(n) -> n words), "
    "output='shuffle' (fn(deck) shuffles the list in place or returns it shuffled: its deals are tested, it "
    "has no bits; or an object's own shuffle method) or output='decks' (fn(n_decks, k, deck_size) -> card array)")


def as_source(obj, output: str | None = None):
    """What a studio has, as a source the batteries read (module docstring); ``output`` says what
    a function gives (default ``"bytes"``), or ``"shuffle"`` picks an object's own ``shuffle`` method.

    Raises ``TypeError`` naming ``obj`` and the accepted forms (``ACCEPTED_FORMS``) for anything else.
    """
    if output is not None and output not in OUTPUTS:
        raise TypeError(f"output={output!r}: expected one of {', '.join(map(repr, OUTPUTS))}")
    if isinstance(obj, type):  # callable, and may have the methods, but they need an instance
        raise TypeError(f"cannot test the class {obj.__qualname__}: pass an instance of it; expected {ACCEPTED_FORMS}")
    if output == "shuffle":
        shuffle = obj if callable(obj) else getattr(obj, "shuffle", None)
        if callable(shuffle):
            return ShuffleFunctionSource(shuffle)
    elif output is None or callable(obj):
        source = _object_source(obj) if output is None else None
        if source is not None:
            return source
        if callable(obj):
            return _function_source(obj, output)
    raise TypeError(f"cannot test {_kind(obj)} {_short_repr(obj)}" + (f" with output={output!r}" if output else "")
                    + f": expected {ACCEPTED_FORMS}")


def _object_source(obj):
    """The adapter of an RNG object, or None when ``obj`` is none of the objects we know."""
    if isinstance(obj, (RandomSource, DeckSource)) or hasattr(obj, "deal_batch"):
        return obj
    if isinstance(obj, np.random.Generator):
        return NumpySource(obj)
    if isinstance(obj, np.random.BitGenerator):
        return NumpySource(np.random.Generator(obj))
    if isinstance(obj, np.random.RandomState):
        return CallableSource(obj.bytes, "bytes", name="numpy RandomState.bytes (MT19937)")
    if isinstance(obj, random.Random):  # SystemRandom too: its randbytes reads os.urandom
        return CallableSource(obj.randbytes, "bytes", name=f"{type(obj).__name__}.randbytes")
    for method, output in (("random_bytes", "bytes"), ("random_uint32", "uint32")):
        if callable(getattr(obj, method, None)):
            return CallableSource(getattr(obj, method), output, name=f"{type(obj).__name__}.{method}")
    return None


def _function_source(fn, output: str | None):
    if output == "decks":
        return DealFunctionSource(fn)
    if output is None:  # the suite's own method names say what a bound method gives
        output = "uint32" if getattr(fn, "__name__", "") == "random_uint32" else "bytes"
    return CallableSource(fn, output)


def _short_repr(obj, limit: int = 80) -> str:
    text = repr(obj)
    return text if len(text) <= limit else text[:limit - 3] + "..."


# -- negative controls: generators and shuffles a certification must reject ---------------


@njit(cache=True)
def _lcg(state, a, c, modulus_mask, n):
    out = np.empty(n, dtype=np.uint64)
    for i in range(n):
        state = (a * state + c) & modulus_mask
        out[i] = state
    return out, state


class _LcgBits(RandomSource):
    """An LCG whose outputs are ``bits`` bits each, concatenated most significant first."""

    a = c = bits = 0

    def __init__(self, seed: int):
        self.state = np.uint64(seed % 2**self.bits)

    def values(self, n: int) -> np.ndarray:
        out, self.state = _lcg(np.uint64(self.state), np.uint64(self.a), np.uint64(self.c),
                               np.uint64(2**self.bits - 1), _check_count(n))
        return out

    def random_bits(self, n: int) -> np.ndarray:
        values = self.values(-(-_check_count(n) // self.bits))
        shifts = np.arange(self.bits - 1, -1, -1, dtype=np.uint64)
        return ((values[:, None] >> shifts) & np.uint64(1)).astype(np.uint8).ravel()[:n]

    def random_bytes(self, n: int) -> bytes:
        return np.packbits(self.random_bits(8 * _check_count(n))).tobytes()


class Randu(_LcgBits):
    """RANDU: x' = 65539 x mod 2^31 (IBM, 1960s). Consecutive triples lie on 15 planes and the
    lowest bit is always 1; each output gives 31 bits."""

    name = "RANDU"
    a, c, bits = 65539, 0, 31

    def __init__(self, seed: int = 1):
        super().__init__(seed | 1)  # RANDU needs an odd seed


class WeakLcg(_LcgBits):
    """A 16-bit LCG, x' = 25173 x + 13849 mod 2^16: period 65,536 and bit k has period 2^(k+1)."""

    name = "weak 16-bit LCG"
    a, c, bits = 25173, 13849, 16

    def __init__(self, seed: int = 1):
        super().__init__(seed)


class StuckBit(RandomSource):
    """Wraps a source and forces one bit of every 32-bit word (bit 0 = least significant)."""

    def __init__(self, source: RandomSource, bit: int = 0, value: int = 1):
        if not 0 <= bit < 32 or value not in (0, 1):
            raise ValueError("bit must be in 0..31 and value 0 or 1")
        self.source, self.bit, self.value = source, bit, value
        self.name = f"stuck bit {bit}={value} over {getattr(source, 'name', type(source).__name__)}"

    def random_uint32(self, n: int) -> np.ndarray:
        words = self.source.random_uint32(n).copy()
        mask = np.uint32(1 << self.bit)
        return words | mask if self.value else words & ~mask


def _apply_swaps(n_decks: int, deck_size: int, swap_targets: np.ndarray, k: int) -> np.ndarray:
    """Swap position i with swap_targets[:, i] for i = 0, 1, ..., on ordered decks; first k cards."""
    decks = np.tile(np.arange(deck_size, dtype=np.uint8), (n_decks, 1))
    rows = np.arange(n_decks)
    for i in range(swap_targets.shape[1]):
        j = swap_targets[:, i]
        held = decks[rows, i].copy()
        decks[rows, i] = decks[rows, j]
        decks[rows, j] = held
    return decks[:, :k]


class ModuloBiasedDeal(DeckSource):
    """Fisher-Yates whose draws are ``word % range`` on 8- or 16-bit words: the modulo bias
    (256 % 52 = 48, so 48 of the 52 first cards are 25% likelier than the other 4)."""

    def __init__(self, source: RandomSource, word_bits: int = 8):
        if word_bits not in (8, 16):
            raise ValueError("word_bits must be 8 or 16")
        self.source, self.word_bits = source, word_bits
        self.name = f"modulo-biased deal ({word_bits}-bit words)"

    def integers(self, n: int, size: int) -> np.ndarray:
        """Biased integers in [0, n): word % n."""
        return self._words(size) % n

    def _words(self, count: int) -> np.ndarray:
        dtype = np.uint8 if self.word_bits == 8 else "<u2"
        raw = self.source.random_bytes(count * self.word_bits // 8)
        return np.frombuffer(raw, dtype=dtype).astype(np.int64)

    def deal_batch(self, n_decks: int, k: int = 52, deck_size: int = 52) -> np.ndarray:
        steps = min(k, deck_size - 1)
        ranges = deck_size - np.arange(steps)
        words = self._words(_check_count(n_decks) * steps).reshape(n_decks, steps)
        return _apply_swaps(n_decks, deck_size, np.arange(steps) + words % ranges, k)


class NaiveShuffle(DeckSource):
    """The broken 'swap each position with any position' shuffle: n^n equally likely paths
    cannot cover n! orders evenly, whatever the quality of the (here unbiased) draws."""

    name = "naive swap-with-any-position shuffle"

    def __init__(self, source: RandomSource):
        self.source = source

    def deal_batch(self, n_decks: int, k: int = 52, deck_size: int = 52) -> np.ndarray:
        targets = bounded_integers(self.source, deck_size, (_check_count(n_decks), deck_size))
        return _apply_swaps(n_decks, deck_size, targets, k)


class ClockSeededShuffle(ShuffleFunctionSource):
    """Each deck shuffled by ``random.Random(seed).shuffle`` with ``seed`` a 32-bit clock reading.

    Only 2^32 of the 52! orders can ever appear. The clock is read at unpredictable moments,
    modelled as a uniform 32-bit value (from ``clock_seed``), so decks repeat after about 2^16
    deals (birthday bound) where a fair shuffle would never repeat. Pass ``clock_values`` to
    give the readings yourself (e.g. a coarse clock that repeats within a second).
    """

    name = "shuffle seeded from a 32-bit clock"

    def __init__(self, clock_seed: int = 0, clock_values=None):
        super().__init__(self._shuffle, self.name)
        self._clock = np.random.default_rng(clock_seed)
        self._values = None if clock_values is None else iter(clock_values)

    def _reading(self) -> int:
        if self._values is not None:
            try:
                return int(next(self._values)) & 0xFFFFFFFF
            except StopIteration:
                raise SourceExhaustedError(f"{self.name}: the given clock values are used up") from None
        return int(self._clock.integers(0, 2**32))

    def _shuffle(self, deck: list) -> None:
        random.Random(self._reading()).shuffle(deck)


def modulo_biased_deal(source, n_decks: int, k: int = 52, deck_size: int = 52, word_bits: int = 8) -> np.ndarray:
    """Negative control: decks dealt with ``word % range`` draws (see ``ModuloBiasedDeal``)."""
    return ModuloBiasedDeal(source, word_bits).deal_batch(n_decks, k, deck_size)


def naive_shuffle_deal(source, n_decks: int, k: int = 52, deck_size: int = 52) -> np.ndarray:
    """Negative control: decks dealt by the naive swap-with-any-position shuffle."""
    return NaiveShuffle(source).deal_batch(n_decks, k, deck_size)


def open_file(path, fmt: str, *, low: int | None = None, high: int | None = None,
              cards_per_deck: int = 52, deck_size: int = 52, data: bytes | None = None):
    """A file adapter by format name: 'binary', 'bits', 'integers' (needs low, high), 'decks'.
    ``data``: the text formats' bytes, already read by the caller (a binary file is read as used)."""
    if fmt == "binary":
        return BinaryFileSource(path)
    if fmt == "bits":
        return BitsFileSource(path, data)
    if fmt == "integers":
        if low is None or high is None:
            raise ValueError("format 'integers' needs the declared range: low and high")
        return IntegerFileSource(path, low, high, data)
    if fmt == "decks":
        return DeckFileSource(path, cards_per_deck, deck_size, data)
    raise ValueError(f"unknown format {fmt!r}: expected binary, bits, integers or decks")
