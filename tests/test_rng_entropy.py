"""SP 800-90B health tests: cutoffs from the standard, trips on bad sources, fail closed."""

import numpy as np
import pytest

from rng.drbg import CtrDrbg, DrbgError, DrbgFailure, HmacDrbg
from rng.entropy import (STARTUP_SAMPLES, EntropyHealthError, HealthTestedEntropy, apt_cutoff,
                         apt_window, rct_cutoff)

# SP 800-90B (January 2018) section 4.4.2 Table 2: APT cutoffs at alpha = 2^-20.
TABLE2_NON_BINARY = {0.5: 410, 1: 311, 2: 177, 4: 62, 8: 13}  # W = 512
TABLE2_BINARY = {0.2: 941, 0.4: 840, 0.6: 748, 0.8: 664, 1: 589}  # W = 1024


@pytest.mark.parametrize("h,cutoff", TABLE2_NON_BINARY.items())
def test_apt_cutoff_matches_table_2_non_binary(h, cutoff):
    assert apt_cutoff(h, apt_window(binary=False)) == cutoff


@pytest.mark.parametrize("h,cutoff", TABLE2_BINARY.items())
def test_apt_cutoff_matches_table_2_binary(h, cutoff):
    assert apt_cutoff(h, apt_window(binary=True)) == cutoff


def test_rct_cutoff_formula_and_the_90b_example():
    assert rct_cutoff(2) == 11  # the example of 90B section 4.4.1
    assert [rct_cutoff(h) for h in range(1, 9)] == [21, 11, 8, 6, 5, 5, 4, 4]
    assert rct_cutoff(8, alpha_log2=40) == 6


def test_apt_cutoff_is_the_binomial_critical_value():
    from scipy.stats import binom
    for h in (1, 3, 5, 7):
        c = apt_cutoff(h)
        assert binom.sf(c - 1, 512, 2.0**-h) <= 2.0**-20 < binom.sf(c - 2, 512, 2.0**-h)


def numpy_bytes(seed):
    rng = np.random.default_rng(seed)
    return lambda n: rng.bytes(n)


def test_default_cutoffs():
    source = HealthTestedEntropy()
    assert (source.rct_cutoff, source.apt_window, source.apt_cutoff) == (rct_cutoff(8, 40), 512, apt_cutoff(8, 512, 40))
    assert HealthTestedEntropy(alpha_log2=20).apt_cutoff == TABLE2_NON_BINARY[8]


def test_a_fair_source_passes_fixed_seed():
    source = HealthTestedEntropy(raw_source=numpy_bytes(2024))
    assert len(source.get_entropy(1_000_000)) == 1_000_000
    assert not source.failed and source.samples_tested == 1_000_000 + STARTUP_SAMPLES


def test_stuck_source_trips_the_repetition_count_test():
    source = HealthTestedEntropy(raw_source=lambda n: b"\x42" * n)
    with pytest.raises(EntropyHealthError, match="repetition count test: value 0x42 repeated 6 times"):
        source.get_entropy(32)
    assert source.failed


def biased_without_runs(seed, period=3):
    """Every third byte is 0x00, the others random non-zero: too frequent, never repeated in a row."""
    rng = np.random.default_rng(seed)
    position = [0]

    def read(n):
        out = rng.integers(1, 256, n, dtype=np.uint8)
        out[(np.arange(n) + position[0]) % period == 0] = 0
        position[0] += n
        return out.tobytes()
    return read


def test_biased_source_trips_the_adaptive_proportion_test():
    source = HealthTestedEntropy(raw_source=biased_without_runs(1))
    with pytest.raises(EntropyHealthError, match="adaptive proportion test: value 0x00 seen 19 times in a window of 512"):
        source.get_entropy(4096)


def test_a_failure_is_permanent():
    good = numpy_bytes(1)
    state = {"stuck": True}
    source = HealthTestedEntropy(raw_source=lambda n: bytes(n) if state["stuck"] else good(n))
    with pytest.raises(EntropyHealthError):
        source.get_entropy(16)
    state["stuck"] = False
    with pytest.raises(EntropyHealthError, match="failed its health test earlier"):
        source.get_entropy(16)


def test_short_read_from_the_raw_source_fails():
    with pytest.raises(EntropyHealthError, match="returned 3 bytes"):
        HealthTestedEntropy(raw_source=lambda n: b"abc").get_entropy(8)


@pytest.mark.parametrize("cls", [HmacDrbg, CtrDrbg])
def test_drbg_cannot_be_instantiated_from_a_stuck_source(cls):
    with pytest.raises(DrbgFailure, match="repetition count"):
        cls.from_os_entropy(entropy_source=HealthTestedEntropy(raw_source=lambda n: bytes(n)))


class Breakable:
    """A raw source that turns stuck (or biased) on demand."""

    def __init__(self, seed, failure):
        self.good, self.bad, self.broken = numpy_bytes(seed), failure, False

    def __call__(self, n):
        return self.bad(n) if self.broken else self.good(n)


@pytest.mark.parametrize("failure", [lambda n: b"\xff" * n, biased_without_runs(3)], ids=["stuck", "biased"])
def test_drbg_with_prediction_resistance_refuses_once_the_source_breaks(failure):
    raw = Breakable(7, failure)
    drbg = CtrDrbg.from_os_entropy(entropy_source=HealthTestedEntropy(raw_source=raw), prediction_resistance=True)
    drbg.generate(64)
    raw.broken = True
    with pytest.raises(DrbgFailure):
        for _ in range(200):  # the biased source needs a few reseeds to fill an APT window
            drbg.generate(64)
    raw.broken = False
    with pytest.raises(DrbgError, match="error state"):
        drbg.generate(64)


def test_drbg_sharing_a_failed_source_refuses_even_without_a_reseed():
    raw = Breakable(8, lambda n: bytes(n))
    source = HealthTestedEntropy(raw_source=raw)
    drbg = HmacDrbg.from_os_entropy(entropy_source=source)
    drbg.generate(32)
    raw.broken = True
    with pytest.raises(EntropyHealthError):
        source.get_entropy(32)  # another user of the source trips it
    with pytest.raises(DrbgFailure, match="error state"):
        drbg.generate(32)


def test_forced_reseed_from_a_broken_source_stops_the_drbg():
    raw = Breakable(9, lambda n: bytes(n))
    drbg = CtrDrbg.from_os_entropy(entropy_source=HealthTestedEntropy(raw_source=raw), reseed_interval=2)
    drbg.generate(16)
    drbg.generate(16)
    raw.broken = True
    with pytest.raises(DrbgFailure):
        drbg.generate(16)
