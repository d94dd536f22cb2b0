"""Section 2.6: Discrete Fourier Transform (spectral) test."""

from __future__ import annotations

import math
import os
import threading
from contextlib import contextmanager

import numpy as np
import scipy.fft

from ._common import as_bits, computed_once, erfc, not_applicable, result
from ._kernels import pairs_as_complex, real_dft_moduli_below

# Half-width of the band around T where the fast transform's verdict is not trusted, as a multiple
# of sqrt(n). Both transforms' rounding of a modulus is about eps log2(n) sqrt(n) ~ 4e-15 sqrt(n)
# (tests/test_sp800_22_kernels.py checks it stays 10^4 times inside the band); a modulus within the
# band is decided by the reference transform (np.fft.rfft of the +/-1 sequence), so N1 is its count.
FAST_DFT_BAND = 1e-8


def fft_threshold(n: int) -> float:
    """Rev. 1a's 95% peak threshold T = sqrt(ln(1/0.05) n). (The 2001 original used sqrt(3n)
    and a variance n(.95)(.05)/2; Rev. 1a corrected both, and so do we.)"""
    return math.sqrt(math.log(1 / 0.05) * n)


def fft_pvalue(n: int, n1: int) -> tuple[float, float]:
    """(d, P) of section 2.6.4 steps (6)-(7) from the count N1 of peaks below T."""
    n0 = 0.95 * n / 2
    d = (n1 - n0) / math.sqrt(n * 0.95 * 0.05 / 4)
    return d, erfc(abs(d) / math.sqrt(2))


def fft(bits, alpha: float = 0.01, *, enforce_minimums: bool = True):
    """2.6 DFT: counts the moduli of the first n/2 DFT coefficients below T. Recommended n >= 1000.

    The document's small examples print N1 = 4 (2.6.4) and N1 = 46 (2.6.8); the DFT of those inputs
    has 5 and 48 moduli below T (checked in the tests against a direct O(n^2) DFT), so we report
    P = 0.468160 and 0.646355 where the document prints 0.029523 and 0.168669. Our d and P from
    the document's own N1 reproduce its printed figures (see ``fft_pvalue``).
    """
    x = as_bits(bits)
    n = x.size
    if n < (1000 if enforce_minimums else 2):
        return not_applicable("FFT", n, alpha, f"n = {n} < 1000 bits")
    T = fft_threshold(n)
    n1 = peaks_below(x, T)
    d, p = fft_pvalue(n, n1)
    return result("FFT", n, alpha, [p], d, None, "peaks of the DFT of the +/-1 sequence",
                  T=T, N0=0.95 * n / 2, N1=n1)


@computed_once(maxsize=4)
def _split_twiddles(n: int, n1: int, n2: int) -> tuple[np.ndarray, np.ndarray]:
    """w^k = exp(-2 pi i k / n) for k = k1 + n1 k2 < n/2 as w1[k1] w2[k2]: two short tables
    (n1 + n2 entries, 24 kB for n = 10^6) instead of n/2 (8 MB read per sequence)."""
    return (np.exp(-2j * np.pi * np.arange(n1) / n),
            np.exp(-2j * np.pi * ((n1 * np.arange(n2, dtype=np.int64)) % n) / n))


_spare_buffers: list[np.ndarray] = []  # given back by finished transforms, any thread's
_spare_lock = threading.Lock()
SPARE_BUFFERS = 4  # at most this many kept (the battery runs at most one transform per CPU)


@contextmanager
def _buffer(h: int):
    """A complex buffer of length h for one transform, reused between sequences: fresh 8 MB arrays
    cost more in page faults than the transform saves (glibc trims the threads' arenas). The
    buffers are shared by all threads, not one per thread, so a thread's first sequence takes one
    an earlier sequence on another thread gave back (already paged in) instead of faulting its own."""
    with _spare_lock:
        i = next((i for i, b in enumerate(_spare_buffers) if b.size == h), None)
        z = _spare_buffers.pop(i) if i is not None else None
    if z is None:
        z = np.empty(h, dtype=np.complex128)
    try:
        yield z
    finally:
        with _spare_lock:
            _spare_buffers.append(z)
            del _spare_buffers[:-SPARE_BUFFERS]


def _new_lock_after_fork() -> None:
    global _spare_lock  # a parent thread may have held it at the fork
    _spare_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock_after_fork)


# Below this many points the plain FFT is as fast as the four-step one.
FOUR_STEP_MIN = 1 << 14


def four_step_shape(h: int) -> tuple[int, int] | None:
    """(n1, n2) with n1 n2 = h for the four-step FFT: n1 the largest divisor of h at most
    sqrt(h/2) (else at most sqrt(2h)), if the split is not too lopsided (n1 >= 16, n2 <= 4 n1);
    else None (a plain FFT). For h = 500,000 that is 500 x 1,000: the first batch (n2 transforms
    of n1 points, across the contiguous axis) is the cheaper one; ~15% faster than 1,000 x 500
    (loaded machine, interleaved runs)."""
    if h < FOUR_STEP_MIN:
        return None
    for most in (math.isqrt(h // 2), math.isqrt(2 * h)):
        n1 = most
        while h % n1:
            n1 -= 1
        n2 = h // n1
        if n1 >= 16 and n2 <= 4 * n1:
            return n1, n2
    return None


@computed_once(maxsize=2)
def _four_step_twiddles(n1: int, n2: int) -> np.ndarray:
    """w_h^(k1 j2), h = n1 n2, with the exponent reduced modulo h so every entry is exact to an ulp."""
    h = n1 * n2
    exponent = (np.arange(n1, dtype=np.int64)[:, None] * np.arange(n2, dtype=np.int64)[None, :]) % h
    return np.exp(-2j * np.pi * exponent / h)


def half_length_fft(z: np.ndarray) -> np.ndarray:
    """FFT of z (length h), computed in place in z, as an (n2, n1) view Zt with Zt[k2, k1] =
    Z[k1 + n1 k2] (so ``Zt.ravel()`` is Z in natural order; n1 = h, n2 = 1 for a plain FFT).

    For large h, the four-step transform: n2 FFTs of length n1, a twiddle multiply, then n1 of
    length n2, the last batch taken over the transposed array. scipy.fft vectorises a batch of
    short transforms across SIMD lanes, which one long transform cannot: ~1.3x faster for
    h = 500,000 on a quiet machine, and as accurate (within 1e-9 sqrt(n) of the plain FFT,
    tests/test_sp800_22_kernels.py)."""
    shape = four_step_shape(z.size)
    if shape is None:
        return scipy.fft.fft(z, overwrite_x=True).reshape(1, z.size)
    n1, n2 = shape
    B = scipy.fft.fft(z.reshape(n1, n2), axis=0, overwrite_x=True)  # over j1, for each j2: B[k1, j2]
    B *= _four_step_twiddles(n1, n2)
    return scipy.fft.fft(B.T, axis=0, overwrite_x=True)  # over j2: [k2, k1] = Z[k1 + n1 k2]


def peaks_below(x: np.ndarray, T: float, band: float = FAST_DFT_BAND) -> int:
    """N1 = #{k < n/2 : |DFT(2x - 1)_k| < T}.

    For even n the real DFT is taken from a complex FFT of half the length (``half_length_fft``,
    ~2.5x faster than the real transform of the full length, and four-step above FOUR_STEP_MIN
    points), in a reused buffer (``_buffer``); if any modulus falls within ``band * sqrt(n)`` of T, where
    the two transforms' rounding could disagree, the count is redone with the reference
    ``np.abs(np.fft.rfft(2x - 1)) < T``: the result is the reference count unless a rounding error
    exceeded the band, about 10^6 times the largest seen."""
    n = x.size
    if n % 2 == 0 and n >= 4:
        tol = band * math.sqrt(n)
        with _buffer(n // 2) as z:
            Zt = half_length_fft(pairs_as_complex(x, z))
            w1, w2 = _split_twiddles(n, Zt.shape[1], Zt.shape[0])
            Z = np.ascontiguousarray(Zt.T)  # a view: C-contiguous (the plain FFT's too), one signature
            below, unsure = real_dft_moduli_below(Z, w1, w2, max(T - tol, 0.0) ** 2, (T + tol) ** 2)
        if unsure == 0:
            return below
    moduli = np.abs(np.fft.rfft(2.0 * x - 1.0))[: n // 2]
    return int(np.count_nonzero(moduli < T))
