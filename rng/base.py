"""The one interface every random source offers, ours or one under test.

A source implements either ``random_bytes`` or ``random_uint32``; the base class derives the
other (little-endian words), and ``random_bits`` (most significant bit of each byte first, the
order of the NIST STS data files) from ``random_bytes``.
"""

from __future__ import annotations

import numpy as np


def excerpt(value, limit: int = 60, quoted: bool = True) -> str:
    """A short rendering of untrusted input for an error message: the repr of at most ``limit``
    characters (bytes, items) and the full length, so a bad value of a megabyte is never echoed
    (``quoted=False``: a text cut to ``limit`` as it is, for a message that may quote the input).

    The one such helper of the suite (``certify.inputs`` re-exports it): it lives here because
    ``rng`` is the bottom layer and may not import ``certify``."""
    import reprlib

    if isinstance(value, str) and not quoted:  # a message of our own that may quote the input
        return value if len(value) <= limit else f"{value[:limit]}... ({len(value):,} characters)"
    if isinstance(value, (str, bytes, bytearray)):
        unit = "characters" if isinstance(value, str) else "bytes"
        return repr(value) if len(value) <= limit else f"{value[:limit]!r}... ({len(value):,} {unit})"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 4 * limit:
        return f"an integer of {value.bit_length():,} bits"
    short = reprlib.Repr()
    short.maxstring = short.maxother = short.maxlong = limit
    short.maxlist = short.maxtuple = short.maxdict = short.maxset = short.maxfrozenset = 6
    short.maxlevel = 3
    text = short.repr(value)
    return text if len(text) <= 2 * limit else f"{text[:2 * limit]}..."


class RandomSourceError(RuntimeError):
    """A source cannot give output: a failed health test, a DRBG in its error state, an
    exhausted or malformed input. Fail closed: callers must not catch this and continue."""


class RandomSource:
    """Base class: override ``random_bytes`` or ``random_uint32`` (or both)."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.random_bytes is RandomSource.random_bytes and cls.random_uint32 is RandomSource.random_uint32:
            raise TypeError(f"{cls.__name__} must define random_bytes or random_uint32")

    def random_bytes(self, n: int) -> bytes:
        """``n`` random bytes."""
        words = self.random_uint32((_check_count(n) + 3) // 4)
        return words.astype("<u4", copy=False).tobytes()[:n]

    def random_uint32(self, n: int) -> np.ndarray:
        """``n`` random 32-bit words (uint32), read little-endian from ``random_bytes``."""
        raw = bytearray(self.random_bytes(4 * _check_count(n)))
        return np.frombuffer(raw, dtype="<u4").astype(np.uint32, copy=False)

    def random_bits(self, n: int) -> np.ndarray:
        """``n`` random bits as a uint8 array of 0/1, most significant bit of each byte first."""
        raw = self.random_bytes((_check_count(n) + 7) // 8)
        return np.unpackbits(np.frombuffer(raw, dtype=np.uint8))[:n]

    def deal_batch(self, n_decks: int, k: int = 52, deck_size: int = 52) -> np.ndarray:
        """(n_decks, k) uint8: the first k cards of shuffled decks, by ``rng.shuffle.deal_batch``.
        Sources that deal decks their own way (files of decks, broken shuffles) override this."""
        from rng.shuffle import deal_batch

        return deal_batch(self, n_decks, k, deck_size)


def _check_count(n) -> int:
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"a count of random values must be a non-negative integer, got {n!r}")
    return int(n)
