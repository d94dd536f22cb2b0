"""NIST SP 800-22 Rev. 1a: the 15 statistical tests for random bit sequences.

Each test is a function ``test(bits, alpha=0.01, **parameters) -> TestResult`` with the document's
default parameters; ``run_all`` runs the battery in the document's order. ``bits`` is a 1-D array
of 0/1 (any integer or bool dtype), packed ``bytes`` (MSB first, see ``bits_from_bytes``) or a
'0'/'1' string. A test the input is too short for, or whose precondition excludes it, returns a
"not applicable" result, never a failure.

Where the document's printed numbers and a correct computation differ, the default is the
correct computation and a ``probabilities="nist"`` (or similar) option reproduces the printed
figure; each function's docstring says which and why, and tests/test_sp800_22_examples.py shows both:

- LongestRun: the 4-decimal class table (M = 10^4 entries off by up to 1.6e-3) -> exact DP
  (Appendix B e: 0.718945 printed, 0.718366 exact); 2.4.8 prints a chi^2 and a P from different tables.
- LinearComplexity: the reference code's pi_0 = 0.01047 typo (for 1/96) -> exact
  (2.10.8: 0.845406 printed, 0.844738; Appendix B: 0.826335 printed, 0.826202).
- OverlappingTemplate: the document's compound-Poisson probabilities -> exact (= the reference
  code's table to 6 digits) (2.8.8 / Appendix B: 0.110434 printed, 0.159037); 2.8.4 miscounts v
  and takes igamc(K/2, chi^2) for igamc(K/2, chi^2/2).
- FFT: 2.6.4 / 2.6.8 print N1 = 4 / 46 where the DFT has 5 / 48 moduli below T.
- Universal: 2.9.4's P leaves out the c sqrt(1/K) factor of sigma.
- RandomExcursions: 2.14.8's x = +1..+4 p-values contradict Appendix B; 2.14.4 uses a rounded pi.
- Rank: 2.5.4 applies the 32x32 probabilities to 3x3 matrices.
- ApproximateEntropy 2.12.4 prints ln 2 - ApEn (= chi^2 / 2n) as chi^2; CumulativeSums on e agrees to 6 digits
  with the printed values only up to one unit in the last place.

``run_all(bits, reference="nist-sts")`` (and ``certify rng --reference nist-sts``) computes what
the NIST STS reference code computes in the three tests where it differs from the exact
computation (``REFERENCE_MODES``), so p-values line up with that code; docs/sp800-22-reference.md
says why the default stays exact.
"""

from __future__ import annotations

from certify.stats.result import TestResult

from ._common import as_bits, bits_from_bytes, one_sequence
from .basic import block_frequency, cumulative_sums, frequency, longest_run, runs
from .excursions import random_excursions, random_excursions_variant
from .matrix import linear_complexity, rank
from .serial import approximate_entropy, serial
from .spectral import fft
from .templates import aperiodic_templates, non_overlapping_template, overlapping_template
from .universal import universal

# NIST name -> function, in the order of the issue / the reference code's report.
TESTS = {
    "Frequency": frequency,
    "BlockFrequency": block_frequency,
    "CumulativeSums": cumulative_sums,
    "Runs": runs,
    "LongestRun": longest_run,
    "Rank": rank,
    "FFT": fft,
    "NonOverlappingTemplate": non_overlapping_template,
    "OverlappingTemplate": overlapping_template,
    "Universal": universal,
    "ApproximateEntropy": approximate_entropy,
    "RandomExcursions": random_excursions,
    "RandomExcursionsVariant": random_excursions_variant,
    "Serial": serial,
    "LinearComplexity": linear_complexity,
}
TEST_NAMES = tuple(TESTS)

# The computation modes of the battery. "exact" (the default) computes every probability
# exactly. "nist-sts" computes what the NIST STS reference code (sts-2.1.2, which produced the
# document's printed examples and Appendix B) computes: its 4-decimal LongestRun class table,
# its LinearComplexity pi_0 = 0.01047 (a typo for 1/96) and its OverlappingTemplate
# compound-Poisson probabilities (the code declares the corrected table but overwrites it with
# Pr(i, eta)). Every other test already computes what the reference code computes.
REFERENCE_MODES: dict[str, dict[str, dict[str, str]]] = {
    "exact": {},
    "nist-sts": {
        "LongestRun": {"probabilities": "nist"},
        "LinearComplexity": {"probabilities": "nist"},
        "OverlappingTemplate": {"probabilities": "poisson"},
    },
}


def check_reference(reference: str) -> str:
    if reference not in REFERENCE_MODES:
        raise ValueError(f"unknown SP 800-22 reference mode {reference!r}; expected one of {list(REFERENCE_MODES)}")
    return reference


def run_all(bits, alpha: float = 0.01, tests=None, reference: str = "exact") -> list[TestResult]:
    """Run the battery (all 15 tests, or the NIST names in ``tests``) with default parameters,
    computed as ``reference`` says (``REFERENCE_MODES``: "exact" or "nist-sts")."""
    options = REFERENCE_MODES[check_reference(reference)]
    x = as_bits(bits)
    names = TEST_NAMES if tests is None else tuple(tests)
    unknown = [t for t in names if t not in TESTS]
    if unknown:
        raise ValueError(f"unknown SP 800-22 test name(s) {unknown}; expected some of {list(TEST_NAMES)}")
    with one_sequence(x):  # what several tests compute from x is computed once
        return [TESTS[name](x, alpha, **options.get(name, {})) for name in names]


__all__ = ["TESTS", "TEST_NAMES", "REFERENCE_MODES", "check_reference", "run_all", "as_bits", "bits_from_bytes", "aperiodic_templates",
           *[f.__name__ for f in TESTS.values()]]
