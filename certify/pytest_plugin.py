"""pytest plugin: a studio's own test suite asserts, in one line, that its RNG passes the batteries.

Registered as the ``certify_rng`` entry point (``pytest11``), so it is active wherever this
package is installed::

    from certify.pytest_plugin import assert_rng_passes

    def test_our_rng_is_certifiable():
        assert_rng_passes(our_rng, profile="quick")                   # our_rng.random_bytes(n)

    def test_our_shuffle_is_certifiable():
        assert_rng_passes(our_shuffle, output="shuffle", profile="cards")   # our_shuffle(deck)

    def test_with_the_fixture(rng_certifier):          # profile from --rng-profile
        rng_certifier.assert_passes(our_rng)

What it takes (``rng.sources.as_source``), and what is tested for each:

- an object with ``random_bytes(n)`` or ``random_uint32(n)``, a ``random.Random`` or
  ``random.SystemRandom`` (its ``randbytes``), a ``numpy.random.Generator``, ``BitGenerator`` or
  ``RandomState``, or a function ``fn(n) -> n bytes`` (``output="bytes"``, the default) or
  ``-> n uint32`` (``output="uint32"``): its bits (SP 800-22), and deals and draws made from
  them by the suite's own unbiased scaling and Fisher-Yates;
- a studio's own shuffle (``output="shuffle"``): a function that shuffles the list it is given
  in place or returns it shuffled, or an object with such a ``shuffle`` method (e.g.
  ``random.Random(seed)`` to test ``random.shuffle``): its deals as dealt; it has no bits;
- a function ``fn(n_decks, k, deck_size) -> (n_decks, k)`` card array (``output="decks"``), or an
  ``rng`` source with ``deal_batch``: as it deals (and its bits, if it has them).

Anything else raises ``TypeError`` at the call, naming what was given and the accepted forms.
The result's ``tested`` lines, and the message of a failure, say what was read. A failure
raises ``AssertionError`` naming every failing test with its Holm-adjusted p-value. Profiles are
``certify.stats.battery.PROFILES`` (quick, standard, lab, cards, bits); keyword overrides
(bits, sequences, decks, small_decks, draws) change the amounts.
"""

from __future__ import annotations

from typing import Any

import pytest

DEFAULT_PROFILE = "quick"


def as_source(obj: Any, output: str | None = None):
    """Wrap what the caller has into a source the battery can read (``rng.sources.as_source``,
    imported here on use: numba is not loaded by every pytest run)."""
    from rng.sources import as_source as adapt

    return adapt(obj, output)


def run_rng_battery(source: Any, profile: str = DEFAULT_PROFILE, *, alpha: float = 0.01, output: str | None = None,
                    **overrides: Any) -> dict[str, Any]:
    """Run the batteries and return the plain-data result (see ``certify.stats.battery``)."""
    from certify.stats.battery import run_battery

    return run_battery(as_source(source, output), profile, alpha=alpha, **overrides)


def assert_rng_passes(source: Any, profile: str = DEFAULT_PROFILE, *, alpha: float = 0.01, output: str | None = None,
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
