"""Reading and preparing noise-source samples for SP 800-90B assessment.

A data file holds one sample per byte (the low ``bits_per_symbol`` bits; SP 800-90B 3.1.1 asks
for at least 1,000,000 samples) or, with ``packed=True``, a stream of bits packed MSB first, one
sample per ``bits_per_symbol`` bits. As the NIST tool does, the literal samples are translated to
ranks 0..k-1 of the values that occur (the estimators only see which values are equal and their
order), and the bitstring of 90B 3.1.3 is built from the untranslated values, most significant
bit first.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from certify.errors import InputError

MIN_SAMPLES = 1_000_000


class EntropyInputError(InputError):
    """A sample file or restart matrix that SP 800-90B cannot assess (exit 2)."""


@dataclass(frozen=True)
class Samples:
    """Samples of one noise source, ready for the estimators.

    ``raw`` holds the values as read (uint8), ``symbols`` their ranks among the values present,
    ``alphabet_size`` how many distinct values occur and ``bits`` the bitstring (one 0/1 per byte).
    """

    raw: np.ndarray
    symbols: np.ndarray
    alphabet_size: int
    bits_per_symbol: int
    source: str = "<array>"

    @property
    def n(self) -> int:
        return int(self.raw.size)

    @property
    def binary(self) -> bool:
        """True when the estimators treat the data as binary (two distinct values)."""
        return self.alphabet_size == 2

    @property
    def bits(self) -> np.ndarray:
        return to_bitstring(self.raw, self.bits_per_symbol)

    @property
    def max_symbol(self) -> int:
        return int(self.raw.max()) if self.raw.size else 0


def to_bitstring(raw: np.ndarray, bits_per_symbol: int) -> np.ndarray:
    """Each sample as ``bits_per_symbol`` bits, most significant first (90B 3.1.3)."""
    if bits_per_symbol == 1:
        return raw.astype(np.uint8, copy=True)
    shifts = np.arange(bits_per_symbol - 1, -1, -1, dtype=np.uint8)
    return ((raw[:, None] >> shifts[None, :]) & 1).astype(np.uint8).ravel()


def prepare(values, bits_per_symbol: int, source: str = "<array>", min_samples: int = 0) -> Samples:
    """Check ``values`` (integers) against the claimed width and build a ``Samples``."""
    _check_width(bits_per_symbol)
    raw = np.asarray(values)
    if raw.ndim != 1:
        raise EntropyInputError(f"{source}: samples must be a 1-D sequence, got shape {raw.shape}")
    if raw.size and (raw.min() < 0 or raw.max() >= (1 << bits_per_symbol)):
        bad = int(np.flatnonzero((raw < 0) | (raw >= (1 << bits_per_symbol)))[0])
        raise EntropyInputError(
            f"{source}: sample {bad} (byte offset {bad}) has value {int(raw[bad])}, which does not fit in "
            f"{bits_per_symbol} bit(s) per symbol (expected 0..{(1 << bits_per_symbol) - 1})")
    raw = raw.astype(np.uint8)
    if raw.size * bits_per_symbol >= 1 << 31:
        raise EntropyInputError(f"{source}: {raw.size:,} samples of {bits_per_symbol} bits: the bitstring must stay "
                                "under 2^31 bits (the estimators' 32-bit counters); assess a part of the file")
    if raw.size < max(min_samples, 2):
        raise EntropyInputError(
            f"{source}: {raw.size:,} samples; SP 800-90B 3.1.1 needs at least {max(min_samples, 2):,}")
    present = np.zeros(1 << bits_per_symbol, dtype=bool)
    present[raw] = True
    alphabet_size = int(present.sum())
    if alphabet_size < 2:
        raise EntropyInputError(f"{source}: every sample has the value {int(raw[0])}: one symbol, no entropy "
                                "to assess")
    rank = np.cumsum(present) - 1
    symbols = rank[raw].astype(np.uint8)
    return Samples(raw=raw, symbols=symbols, alphabet_size=alphabet_size, bits_per_symbol=bits_per_symbol,
                   source=source)


def read_samples(path, bits_per_symbol: int, packed: bool = False, min_samples: int = MIN_SAMPLES) -> Samples:
    """Read a sample file: one sample per byte, or ``packed`` bits (MSB first)."""
    _check_width(bits_per_symbol)
    name = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise EntropyInputError(f"{name}: cannot read the sample file ({exc.strerror or exc})") from None
    if not data:
        raise EntropyInputError(f"{name}: the file is empty; SP 800-90B 3.1.1 needs at least {min_samples:,} samples")
    raw = np.frombuffer(data, dtype=np.uint8)
    if packed:
        bits = np.unpackbits(raw)
        usable = bits.size - bits.size % bits_per_symbol
        weights = (1 << np.arange(bits_per_symbol - 1, -1, -1)).astype(np.uint16)
        raw = (bits[:usable].reshape(-1, bits_per_symbol) * weights).sum(axis=1).astype(np.uint8)
    return prepare(raw, bits_per_symbol, source=name, min_samples=min_samples)


def _check_width(bits_per_symbol) -> None:
    if not (isinstance(bits_per_symbol, (int, np.integer)) and 1 <= bits_per_symbol <= 8):
        raise EntropyInputError(f"--bits-per-symbol must be an integer 1..8 (SP 800-90B samples of at most "
                                f"a byte), got {bits_per_symbol!r}")
