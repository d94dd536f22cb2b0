"""pytest plugin: a studio's own test suite asserts, in one line, that its RNG passes the batteries.

Registered as the ``certify_rng`` entry point (``pytest11``), so it is active wherever this
package is installed::

    from certify.pytest_plugin import assert_rng_passes

    def test_our_shuffle_is_certifiable():
        assert_rng_passes(our_rng, profile="quick")

    def test_with_the_fixture(rng_certifier):          # profile from --rng-profile
        rng_certifier.assert_passes(our_shuffle, output="decks")

The source is anything ``certify.stats.battery.run_battery`` takes (an ``rng`` source: bits and
deals; a ``DeckSource``: deals only), a ``numpy.random.Generator``, or a callable: ``fn(n) ->
n bytes`` (``output="bytes"``), ``fn(n) -> n uint32`` (``output="uint32"``), or
``fn(n_decks, k, deck_size) -> (n_decks, k)`` card array (``output="decks"``). A failure raises
``AssertionError`` naming every failing test with its Holm-adjusted p-value. Profiles are
``certify.stats.battery.PROFILES`` (quick, standard, lab, cards, bits); keyword overrides
(bits, sequences, decks, small_decks) change the amounts.
"""

from __future__ import annotations

from typing import Any

import pytest

DEFAULT_PROFILE = "quick"


def as_source(obj: Any, output: str = "bytes"):
    """Wrap what the caller has into a source the battery can read."""
    import numpy as np

    from rng import sources

    if hasattr(obj, "deal_batch") or hasattr(obj, "random_bytes"):
        return obj
    if isinstance(obj, np.random.Generator):
        return sources.NumpySource(obj)
    if callable(obj):
        if output == "decks":
            return CallableDeals(obj)
        return sources.CallableSource(obj, output=output)
    raise TypeError(f"cannot test {obj!r}: expected an rng source, a numpy Generator or a callable")


class CallableDeals:
    """A callable ``fn(n_decks, k, deck_size) -> (n_decks, k)`` array, as a source of deals only."""

    def __init__(self, fn):
        self.fn = fn
        self.name = f"deals from {getattr(fn, '__qualname__', repr(fn))}"

    def deal_batch(self, n_decks: int, k: int = 52, deck_size: int = 52):
        import numpy as np

        decks = np.asarray(self.fn(n_decks, k, deck_size))
        if decks.shape != (n_decks, k):
            raise ValueError(f"{self.name} returned shape {decks.shape} for {n_decks} deals of {k} cards")
        return decks

    def random_bytes(self, n: int) -> bytes:
        raise TypeError(f"{self.name} deals decks; it is not a source of bits")


def run_rng_battery(source: Any, profile: str = DEFAULT_PROFILE, *, alpha: float = 0.01, output: str = "bytes",
                    **overrides: Any) -> dict[str, Any]:
    """Run the batteries and return the plain-data result (see ``certify.stats.battery``)."""
    from certify.stats.battery import run_battery

    return run_battery(as_source(source, output), profile, alpha=alpha, **overrides)


def assert_rng_passes(source: Any, profile: str = DEFAULT_PROFILE, *, alpha: float = 0.01, output: str = "bytes",
                      **overrides: Any) -> dict[str, Any]:
    """Fail (AssertionError naming the failing tests) unless ``source`` passes ``profile``.

    Returns the battery result so a test can look further (p-values, second level).
    """
    __tracebackhide__ = True
    from certify.stats.battery import failure_message

    result = run_rng_battery(source, profile, alpha=alpha, output=output, **overrides)
    if not result["passed"]:
        raise AssertionError(failure_message(result))
    return result


class RngCertifier:
    """What the ``rng_certifier`` fixture gives: the battery with the session's default profile."""

    def __init__(self, profile: str = DEFAULT_PROFILE, alpha: float = 0.01):
        self.profile, self.alpha = profile, alpha

    def run(self, source: Any, profile: str | None = None, **kwargs: Any) -> dict[str, Any]:
        kwargs.setdefault("alpha", self.alpha)
        return run_rng_battery(source, profile or self.profile, **kwargs)

    def assert_passes(self, source: Any, profile: str | None = None, **kwargs: Any) -> dict[str, Any]:
        __tracebackhide__ = True
        kwargs.setdefault("alpha", self.alpha)
        return assert_rng_passes(source, profile or self.profile, **kwargs)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("certify-rng", "RNG certification (certify)")
    group.addoption("--rng-profile", default=None,
                    help="battery profile for the rng_certifier fixture: quick, standard, lab, cards, bits "
                         f"[default: {DEFAULT_PROFILE}]")
    group.addoption("--rng-alpha", type=float, default=None, help="significance level of the family verdict [0.01]")


@pytest.fixture
def rng_certifier(request: pytest.FixtureRequest) -> RngCertifier:
    """Assert an RNG passes the batteries: ``rng_certifier.assert_passes(source)``."""
    from certify.stats.battery import PROFILES

    profile = request.config.getoption("--rng-profile") or DEFAULT_PROFILE
    if profile not in PROFILES:
        raise pytest.UsageError(f"--rng-profile {profile!r}: expected one of {', '.join(PROFILES)}")
    alpha = request.config.getoption("--rng-alpha") or 0.01
    return RngCertifier(profile, alpha)
