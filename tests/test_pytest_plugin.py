"""The pytest plugin, exercised the way a studio uses it: a test file run by pytest (pytester).

The runs are subprocesses: an in-process run restores sys.modules afterwards, which numpy and
numba (imported lazily by the battery) do not survive."""

import numpy as np
import pytest

from certify.pytest_plugin import CallableDeals, as_source, assert_rng_passes

pytest_plugins = ["pytester"]

# small amounts keep these runs short; the profiles' own sizes are covered by test_stats_controls
FAST = "profile='cards', decks=20_000, small_decks=20_000"


def test_plugin_is_registered_as_an_entry_point(pytester):
    result = pytester.runpytest_subprocess("--help")
    result.stdout.fnmatch_lines(["*--rng-profile=RNG_PROFILE*"])


def test_good_and_bad_rng_in_a_studio_suite(pytester):
    pytester.makepyfile(f"""
        import numpy as np
        from certify.pytest_plugin import assert_rng_passes
        from rng import sources, streams

        def test_our_drbg():
            assert_rng_passes(streams.stream(11, 0), {FAST})

        def test_naive_shuffle():
            assert_rng_passes(sources.NaiveShuffle(streams.stream(11, 1)), {FAST})

        def test_fixture_with_a_callable_deal(rng_certifier):
            gen = np.random.Generator(np.random.PCG64(5))
            deal = lambda n, k, size: np.argsort(gen.random((n, size)), axis=1)[:, :k]
            rng_certifier.assert_passes(deal, output="decks", decks=20_000, small_decks=20_000)
    """)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--rng-profile", "cards")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines([
        "*naive swap-with-any-position shuffle fails the RNG battery (Holm-Bonferroni at alpha 0.01)*",
        "*cards/CardPosition: adjusted p = *",
        "*cards/Permutations4: adjusted p = *",
    ])


def test_bad_profile_on_the_command_line_is_a_usage_error(pytester):
    pytester.makepyfile("""
        def test_x(rng_certifier):
            pass
    """)
    result = pytester.runpytest_subprocess("--rng-profile", "huge")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*--rng-profile 'huge'*"])


def test_bit_generator_fails_on_sp800_22_with_the_names():
    from rng import sources

    from rng import streams

    stuck = sources.StuckBit(streams.stream(3, 0), bit=0, value=1)
    with pytest.raises(AssertionError, match=r"SP800-22/Frequency: adjusted p = "):
        assert_rng_passes(stuck, "bits", bits=200_000, sequences=1)
    with pytest.raises(AssertionError, match=r"(?s)RANDU fails .*SP800-22/FFT: adjusted p = "):
        assert_rng_passes(sources.Randu(3), "bits", bits=200_000, sequences=1)


def test_as_source_wraps_what_a_studio_has():
    from rng import sources

    assert isinstance(as_source(np.random.default_rng(1)), sources.NumpySource)
    assert isinstance(as_source(lambda n: bytes(n)), sources.CallableSource)
    assert isinstance(as_source(lambda n, k, s: None, output="decks"), CallableDeals)
    with pytest.raises(TypeError, match="cannot test"):
        as_source(42)
    bad = CallableDeals(lambda n, k, s: np.zeros((n, 3)))
    with pytest.raises(ValueError, match="returned shape"):
        bad.deal_batch(4)
