"""Entropy input for the DRBGs: the OS source behind the SP 800-90B continuous health tests.

SP 800-90B section 4.4 defines two continuous tests on the samples of a noise source (here,
bytes: 8-bit, non-binary samples):

* Repetition Count Test (4.4.1): fails when one value repeats C times in a row,
  C = 1 + ceil(-log2(alpha) / H).
* Adaptive Proportion Test (4.4.2): in each window of W samples (W = 512 for non-binary
  samples, 1024 for binary), fails when the first sample of the window occurs C times,
  C = 1 + CRITBINOM(W, 2^-H, 1 - alpha).

H is the claimed min-entropy per sample and alpha the false-alarm probability (90B recommends
2^-20 to 2^-40). Section 4.3 also requires start-up testing over 1024 samples before first use.
A failure is permanent: the source raises on every later request (fail closed), and a DRBG
seeded from it refuses to generate.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable

from rng.base import RandomSource, RandomSourceError

STARTUP_SAMPLES = 1024


class EntropyHealthError(RandomSourceError):
    """A continuous health test of the entropy source failed."""


def rct_cutoff(min_entropy: float, alpha_log2: float = 20) -> int:
    """Repetition Count Test cutoff C = 1 + ceil(-log2(alpha) / H) (SP 800-90B 4.4.1)."""
    _check_entropy_claim(min_entropy)
    return 1 + math.ceil(alpha_log2 / min_entropy)


def apt_window(binary: bool) -> int:
    """Adaptive Proportion Test window (SP 800-90B 4.4.2): 1024 binary, 512 otherwise."""
    return 1024 if binary else 512


def apt_cutoff(min_entropy: float, window: int = 512, alpha_log2: float = 20) -> int:
    """Adaptive Proportion Test cutoff C = 1 + CRITBINOM(W, 2^-H, 1 - alpha).

    That is the smallest count c with P(Binomial(W, 2^-H) >= c) <= alpha. The upper tail is
    summed from c = W downwards in log space, so no probability near 1 is ever subtracted.
    """
    _check_entropy_claim(min_entropy)
    log_p = -min_entropy * math.log(2)
    log_q = math.log(-math.expm1(log_p))
    log_alpha = -alpha_log2 * math.log(2)
    tail = 0.0
    for count in range(window, -1, -1):
        log_pmf = (math.lgamma(window + 1) - math.lgamma(count + 1) - math.lgamma(window - count + 1)
                   + count * log_p + (window - count) * log_q)
        tail += math.exp(log_pmf)
        if tail > 0 and math.log(tail) > log_alpha:
            return count + 1
    return 0


def _check_entropy_claim(min_entropy: float) -> None:
    if not (isinstance(min_entropy, (int, float)) and 0 < min_entropy <= 64):
        raise ValueError(f"claimed min-entropy per sample must be in (0, 64] bits, got {min_entropy!r}")


class HealthTestedEntropy(RandomSource):
    """Bytes from ``raw_source`` (default ``os.urandom``) that pass the 90B continuous tests.

    ``min_entropy`` is the claimed min-entropy H per byte: 8 for the OS source, which the
    kernel already conditions to full entropy. ``alpha_log2`` sets the false-alarm rate
    alpha = 2^-alpha_log2 per sample (RCT) and per window (APT). The default 40 is the low end
    of 90B's recommended range (2^-20 to 2^-40): a false alarm stops the DRBG for good, and at
    2^-20 a new DRBG (1,072 bytes with start-up) would false-alarm once in ~16,000. With H = 8
    the cutoffs are then 6 repeats (RCT) and 19 in a window of 512 (APT).
    """

    def __init__(self, raw_source: Callable[[int], bytes] = os.urandom, min_entropy: float = 8.0,
                 alpha_log2: float = 40):
        self._raw_source = raw_source
        self.min_entropy = min_entropy
        self.rct_cutoff = rct_cutoff(min_entropy, alpha_log2)
        self.apt_window = apt_window(binary=False)
        self.apt_cutoff = apt_cutoff(min_entropy, self.apt_window, alpha_log2)
        self.failure: str | None = None
        self.samples_tested = 0
        self._rct_value = -1
        self._rct_count = 0
        self._apt_value = -1
        self._apt_count = 0
        self._apt_seen = 0
        self._started = False

    @property
    def failed(self) -> bool:
        return self.failure is not None

    def get_entropy(self, nbytes: int) -> bytes:
        """``nbytes`` bytes that passed both health tests; raises EntropyHealthError otherwise."""
        if not self._started:
            self._test(self._read(STARTUP_SAMPLES))  # 90B 4.3: start-up test, samples discarded
            self._started = True
        data = self._read(nbytes)
        self._test(data)
        return data

    random_bytes = get_entropy

    def _read(self, nbytes: int) -> bytes:
        if self.failure is not None:
            raise EntropyHealthError(f"entropy source failed its health test earlier: {self.failure}")
        data = bytes(self._raw_source(nbytes))
        if len(data) != nbytes:
            self._fail(f"raw source returned {len(data)} bytes, {nbytes} requested")
        return data

    def _test(self, samples: bytes) -> None:
        for sample in samples:
            self.samples_tested += 1
            # Repetition Count Test
            if sample == self._rct_value:
                self._rct_count += 1
                if self._rct_count >= self.rct_cutoff:
                    self._fail(f"repetition count test: value {sample:#04x} repeated "
                               f"{self._rct_count} times in a row (cutoff {self.rct_cutoff}, "
                               f"H = {self.min_entropy} bits/byte) at sample {self.samples_tested}")
            else:
                self._rct_value, self._rct_count = sample, 1
            # Adaptive Proportion Test
            if self._apt_seen == 0:
                self._apt_value, self._apt_count = sample, 1
            elif sample == self._apt_value:
                self._apt_count += 1
                if self._apt_count >= self.apt_cutoff:
                    self._fail(f"adaptive proportion test: value {sample:#04x} seen {self._apt_count} "
                               f"times in a window of {self.apt_window} (cutoff {self.apt_cutoff}, "
                               f"H = {self.min_entropy} bits/byte) at sample {self.samples_tested}")
            self._apt_seen = (self._apt_seen + 1) % self.apt_window

    def _fail(self, reason: str) -> None:
        self.failure = reason
        raise EntropyHealthError(f"entropy source failed: {reason}")


class ReplayEntropy(RandomSource):
    """Known-answer testing only: hands out the given entropy strings in order.

    CAVP vectors fix the entropy a DRBG receives on each reseed; this source feeds them and
    raises once they are used up, so a test cannot silently read more than it supplied.
    """

    def __init__(self, inputs):
        self._inputs = [bytes(x) for x in inputs]
        self.failed = False

    def get_entropy(self, nbytes: int) -> bytes:
        if not self._inputs:
            raise EntropyHealthError("replay entropy exhausted: the test supplied no more entropy inputs")
        return self._inputs.pop(0)

    random_bytes = get_entropy
