"""The pytest plugin, exercised the way a studio uses it: a test file run by pytest (pytester).

The runs are subprocesses: an in-process run restores sys.modules afterwards, which numpy and
numba (imported lazily by the battery) do not survive."""

import random

import numpy as np
import pytest

from certify.pytest_plugin import as_source, assert_rng_passes, run_rng_battery

pytest_plugins = ["pytester"]

# small amounts keep these runs short; the profiles' own sizes are covered by test_stats_controls
FAST = "profile='cards', decks=20_000, small_decks=20_000"


def test_plugin_is_registered_as_an_entry_point(pytester):
    result = pytester.runpytest_subprocess("--help")
    result.stdout.fnmatch_lines(["*--rng-profile=RNG_PROFILE*"])


def test_good_and_bad_rng_in_a_studio_suite(pytester):
    pytester.makepyfile(f"""
        import random
        import numpy as np
        from certify.pytest_plugin import assert_rng_passes
        from rng import sources, streams

        class LcgRng:  # the studio's RNG object: a 16-bit LCG with random_bytes only
            def __init__(self, seed):
                self.state = seed

            def random_bytes(self, n):
                out = bytearray(n)
                for i in range(n):
                    self.state = (25173 * self.state + 13849) & 0xFFFF
                    out[i] = self.state >> 8
                return bytes(out)

        def test_our_drbg():
            assert_rng_passes(streams.stream(11, 0), {FAST})

        def test_our_lcg_object():
            assert_rng_passes(LcgRng(1), "quick", bits=200_000, sequences=1, decks=20_000, small_decks=20_000,
                              draws=50_000)

        def test_our_shuffle():
            assert_rng_passes(random.Random(7).shuffle, output="shuffle", {FAST})

        def test_naive_shuffle():
            assert_rng_passes(sources.NaiveShuffle(streams.stream(11, 1)), {FAST})

        def test_fixture_with_a_callable_deal(rng_certifier):
            gen = np.random.Generator(np.random.PCG64(5))
            deal = lambda n, k, size: np.argsort(gen.random((n, size)), axis=1)[:, :k]
            rng_certifier.assert_passes(deal, output="decks", decks=20_000, small_decks=20_000)
    """)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--rng-profile", "cards")
    result.assert_outcomes(passed=3, failed=2)
    result.stdout.fnmatch_lines([
        "*LcgRng.random_bytes fails the RNG battery (Holm-Bonferroni at alpha 0.01)*",
        "*SP800-22/*: adjusted p = *",
        "*bits: SP 800-22 on 1 x 200,000 bits read from LcgRng.random_bytes*",
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
    assert isinstance(as_source(np.random.PCG64(1)), sources.NumpySource)
    assert isinstance(as_source(lambda n: bytes(n)), sources.CallableSource)
    assert isinstance(as_source(lambda n, k, s: None, output="decks"), sources.DealFunctionSource)
    assert isinstance(as_source(random.Random(1).shuffle, output="shuffle"), sources.ShuffleFunctionSource)
    assert as_source(random.Random(1), output="shuffle").name == "shuffle Random.shuffle"  # its own shuffle
    system = as_source(random.SystemRandom())  # no seed, so no battery here: the adapter gives its bits
    assert system.name == "SystemRandom.randbytes" and len(system.random_bytes(16)) == 16
    bad = sources.DealFunctionSource(lambda n, k, s: np.zeros((n, 3)))
    with pytest.raises(sources.RandomSourceError, match="returned shape"):
        bad.deal_batch(4)


@pytest.mark.parametrize("what", [42, "a string", None, object(), [1, 2, 3]])
def test_anything_else_is_a_type_error_at_the_call_naming_it_and_the_accepted_forms(what):
    with pytest.raises(TypeError) as raised:
        assert_rng_passes(what)
    message = str(raised.value)
    assert f"cannot test {type(what).__name__}" in message
    for form in ("random_bytes(n)", "random_uint32(n)", "random.Random", "numpy.random.Generator", "BitGenerator",
                 "output='shuffle'", "output='decks'"):
        assert form in message


def test_a_form_that_does_not_fit_the_object_is_a_type_error_at_the_call():
    with pytest.raises(TypeError, match=r"cannot test Random .* with output='decks'"):
        assert_rng_passes(random.Random(1), output="decks")
    with pytest.raises(TypeError, match=r"output='words': expected one of 'bytes', 'uint32', 'decks', 'shuffle'"):
        assert_rng_passes(random.Random(1), output="words")
    with pytest.raises(TypeError, match=r"cannot test the class StudioBytes: pass an instance of it"):
        assert_rng_passes(StudioBytes)


# -- each form a studio has: a fair one passes (fixed seed), a broken one fails -------------------------

SMALL = dict(bits=200_000, sequences=1, decks=20_000, small_decks=20_000, draws=200_000)
DEALS_ONLY = dict(profile="cards", decks=20_000, small_decks=20_000, draws=0)


class StudioBytes:
    """A studio's RNG object with random_bytes only (fair: numpy's PCG64 underneath)."""

    def __init__(self, seed):
        self._generator = np.random.default_rng(seed)

    def random_bytes(self, n):
        return self._generator.bytes(n)


class StudioWords:
    """A studio's RNG object with random_uint32 only."""

    def __init__(self, seed):
        self._generator = np.random.default_rng(seed)

    def random_uint32(self, n):
        return self._generator.integers(0, 2**32, size=n, dtype=np.uint32)


class LcgRng:
    """A studio's 16-bit LCG, x' = 25173 x + 13849 mod 2^16, one byte (its high byte) a step."""

    def __init__(self, seed):
        self.state = seed & 0xFFFF

    def random_bytes(self, n):
        out = bytearray(n)
        state = self.state
        for i in range(n):
            state = (25173 * state + 13849) & 0xFFFF
            out[i] = state >> 8
        self.state = state
        return bytes(out)


def _bits_and_deals_were_tested(result, name):
    bits, deals, draws = result["tested"]
    assert bits == f"bits: SP 800-22 on 1 x 200,000 bits read from {name}"
    assert deals == f"deals: card battery on 20,000 deals dealt from the words of {name} by the suite's unbiased " \
                    "Fisher-Yates (rng.shuffle)"
    assert draws.startswith("draws: 200,000 integers, the suite's unbiased scaling")


@pytest.mark.parametrize("make, name", [
    (lambda: StudioBytes(5), "StudioBytes.random_bytes"),
    (lambda: StudioWords(5), "StudioWords.random_uint32"),
    (lambda: random.Random(5), "Random.randbytes"),
    (lambda: np.random.default_rng(5), "numpy PCG64"),
    (lambda: np.random.Philox(5), "numpy Philox"),  # a BitGenerator
])
def test_a_fair_rng_object_passes_and_its_bits_and_deals_are_tested(make, name):
    result = assert_rng_passes(make(), "quick", **SMALL)
    assert result["source"] == name and result["sp800_22"] and result["cards"] and result["draws"]
    _bits_and_deals_were_tested(result, name)


def test_a_16_bit_lcg_object_fails_on_its_bits_and_the_message_says_what_was_tested():
    with pytest.raises(AssertionError) as raised:
        assert_rng_passes(LcgRng(1), "quick", **SMALL)
    message = str(raised.value)
    assert message.startswith("LcgRng.random_bytes fails the RNG battery")
    assert "SP800-22/" in message and "what was tested:" in message
    assert "bits: SP 800-22 on 1 x 200,000 bits read from LcgRng.random_bytes" in message


def test_a_fair_studio_shuffle_passes_in_place_or_returning_the_deck():
    in_place = random.Random(21).shuffle
    result = assert_rng_passes(in_place, output="shuffle", **DEALS_ONLY)
    assert result["tested"] == ["bits: not tested (none asked for)",
                                "deals: card battery on 20,000 deals as shuffle Random.shuffle deals them"]
    generator = np.random.default_rng(22)
    returning = lambda deck: generator.permutation(deck)  # noqa: E731  a shuffled copy
    assert_rng_passes(returning, output="shuffle", **DEALS_ONLY)


def test_a_shuffle_has_no_bits_to_test_and_says_so():
    result = run_rng_battery(random.Random(23).shuffle, "quick", output="shuffle", bits=200_000, sequences=1,
                             decks=20_000, small_decks=20_000)
    assert result["passed"] and not result["sp800_22"] and not result["draws"]
    assert result["tested"][0] == "bits: not tested (shuffle Random.shuffle deals decks and gives no bits)"


def test_a_naive_swap_shuffle_function_fails_on_its_deals():
    draws = random.Random(31)

    def naive_swap_shuffle(deck):  # swap each position with any position: n^n paths over n! orders
        for i in range(len(deck)):
            j = draws.randrange(len(deck))
            deck[i], deck[j] = deck[j], deck[i]

    with pytest.raises(AssertionError, match=r"(?s)shuffle .*naive_swap_shuffle fails .*cards/CardPosition: "
                                             r".*deals: card battery on 20,000 deals as shuffle"):
        assert_rng_passes(naive_swap_shuffle, output="shuffle", **DEALS_ONLY)


def test_a_shuffle_reseeded_from_16_bits_before_every_deal_fails_on_repeated_decks():
    seeds = random.Random(41)

    def reseeding_shuffle(deck):  # only 65,536 decks can ever come out
        random.Random(seeds.getrandbits(16)).shuffle(deck)

    with pytest.raises(AssertionError, match=r"cards/RepeatedDeals: adjusted p = "):
        assert_rng_passes(reseeding_shuffle, output="shuffle", **DEALS_ONLY)
