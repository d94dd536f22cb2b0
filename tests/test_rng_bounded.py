"""Unbiased bounded integers: an exhaustive proof on 16-bit words, and the bulk path."""

import numpy as np
import pytest

from rng.bounded import accept_words, acceptance_limit, integers
from rng.drbg import CtrDrbg


def test_every_16_bit_word_once_gives_exactly_uniform_output_for_52():
    values = accept_words(np.arange(2**16), 52, word_bits=16)
    counts = np.bincount(values, minlength=52)
    assert len(values) == 2**16 - 2**16 % 52 == 65520
    assert (counts == 65520 // 52).all()


@pytest.mark.parametrize("n", [1, 2, 3, 7, 51, 52, 255, 1000, 2**16])
def test_exhaustive_16_bit_proof_for_other_ranges(n):
    counts = np.bincount(accept_words(np.arange(2**16), n, word_bits=16), minlength=n)
    assert counts.min() == counts.max() == 2**16 // n


def test_plain_modulo_is_biased_negative_control():
    """What the rejection prevents: 16-bit words % 52 give 16 values one extra count."""
    counts = np.bincount(np.arange(2**16) % 52, minlength=52)
    assert counts.max() - counts.min() == 1 and (counts == counts.max()).sum() == 16


def test_acceptance_limit():
    assert acceptance_limit(52, 16) == 65520
    assert acceptance_limit(2**32) == 2**32
    with pytest.raises(ValueError):
        acceptance_limit(0)


def test_integers_range_shape_and_determinism():
    a = integers(CtrDrbg(bytes(32), bytes(16)), 52, (1000, 3))
    b = integers(CtrDrbg(bytes(32), bytes(16)), 52, (1000, 3))
    assert a.shape == (1000, 3) and a.min() >= 0 and a.max() < 52
    assert (a == b).all()
    assert set(np.unique(a)) == set(range(52))


def test_integers_follow_the_rule_on_the_source_words():
    """The bulk path is the proven mapping applied to the source's words in order."""
    words = CtrDrbg(bytes(32), bytes(16)).random_uint32(2000)
    expected = accept_words(words, 3_000_000_000)[:500]
    got = integers(CtrDrbg(bytes(32), bytes(16)), 3_000_000_000, 500)
    assert (got == expected).all()


def test_integers_chi_square_fixed_seed():
    from scipy.stats import chisquare
    values = integers(CtrDrbg(bytes(32), bytes(16), b"chi"), 52, 520_000)
    assert chisquare(np.bincount(values, minlength=52)).pvalue > 1e-4
