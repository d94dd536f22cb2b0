"""SP 800-22 Rev. 1a Appendix B on the binary expansions of pi, sqrt(2) and sqrt(3) (first 10^6
bits, integer part included), with the document's parameters (BlockFrequency M = 128,
NonOverlapping B = 000000001, Overlapping m = 9, ApEn m = 10, Serial m = 16, LinearComplexity
M = 500; RandomExcursions x = +1, Variant x = -1). The row for e is in test_sp800_22_examples.py.

Three tests use the document's tables to match its figures, as for e: LongestRun and
LinearComplexity with ``probabilities="nist"``, OverlappingTemplate with ``"poisson"``.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from certify.stats import sp800_22 as nist

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "sp800_22"

APPENDIX_B = {
    "pi": dict(Frequency=0.578211, BlockFrequency=0.380615, CumulativeSums=(0.628308, 0.663369),
               Runs=0.419268, LongestRun=0.024390, Rank=0.083553, FFT=0.010186,
               NonOverlappingTemplate=0.165757, OverlappingTemplate=0.296897, Universal=0.669012,
               ApproximateEntropy=0.361595, RandomExcursions=0.844143, RandomExcursionsVariant=0.760966,
               Serial=0.143005, LinearComplexity=0.255475),
    "sqrt2": dict(Frequency=0.811881, BlockFrequency=0.833222, CumulativeSums=(0.879009, 0.957206),
                  Runs=0.313427, LongestRun=0.012117, Rank=0.823810, FFT=0.581909,
                  NonOverlappingTemplate=0.569461, OverlappingTemplate=0.791982, Universal=0.130805,
                  ApproximateEntropy=0.884740, RandomExcursions=0.216235, RandomExcursionsVariant=0.566118,
                  Serial=0.861925, LinearComplexity=0.317127),
    "sqrt3": dict(Frequency=0.610051, BlockFrequency=0.473961, CumulativeSums=(0.917121, 0.689519),
                  Runs=0.261123, LongestRun=0.446726, Rank=0.314498, FFT=0.776046,
                  NonOverlappingTemplate=0.532235, OverlappingTemplate=0.082716, Universal=0.165981,
                  ApproximateEntropy=0.180481, RandomExcursions=0.783283, RandomExcursionsVariant=0.155066,
                  Serial=0.157500, LinearComplexity=0.346469),
}


def _pvalues_as_in_appendix_b(bits) -> dict:
    res = {r.name: r for r in nist.run_all(bits)}
    rex, rev = res["RandomExcursions"], res["RandomExcursionsVariant"]
    return dict(
        Frequency=res["Frequency"].pvalue, BlockFrequency=res["BlockFrequency"].pvalue,
        CumulativeSums=res["CumulativeSums"].pvalues, Runs=res["Runs"].pvalue,
        LongestRun=nist.longest_run(bits, probabilities="nist").pvalue, Rank=res["Rank"].pvalue,
        FFT=res["FFT"].pvalue,
        NonOverlappingTemplate=res["NonOverlappingTemplate"].pvalues[0],  # labels[0] == "000000001"
        OverlappingTemplate=nist.overlapping_template(bits, probabilities="poisson").pvalue,
        Universal=res["Universal"].pvalue, ApproximateEntropy=res["ApproximateEntropy"].pvalue,
        RandomExcursions=rex.pvalues[rex.details["labels"].index("x=+1")],
        RandomExcursionsVariant=rev.pvalues[rev.details["labels"].index("x=-1")],
        Serial=res["Serial"].pvalues[0],
        LinearComplexity=nist.linear_complexity(bits, probabilities="nist").pvalue,
    )


@pytest.mark.parametrize("constant", list(APPENDIX_B))
def test_appendix_b_row(constant):
    bits = nist.bits_from_bytes((FIXTURES / f"{constant}_1e6.bin").read_bytes())
    assert bits.size == 1_000_000
    got = _pvalues_as_in_appendix_b(bits)
    for name, printed in APPENDIX_B[constant].items():
        if isinstance(printed, tuple):
            assert tuple(round(p, 6) for p in got[name]) == printed, (constant, name)
        else:
            assert round(got[name], 6) == printed, (constant, name, got[name])


@pytest.mark.slow
@pytest.mark.parametrize("constant", list(APPENDIX_B))
def test_fixture_is_the_binary_expansion(constant):
    """Each fixture holds the first 10^6 bits of the constant, integer part included."""
    n = 1_000_000
    if constant == "pi":
        mpmath = pytest.importorskip("mpmath")
        with mpmath.workprec(n + 100):
            value = int(mpmath.floor(mpmath.pi * mpmath.mpf(2) ** (n - 2)))  # pi = 11.0010..._2
    else:
        k = 2 if constant == "sqrt2" else 3
        value = math.isqrt(k << (2 * (n - 1)))  # floor(sqrt(k) 2^(n-1)), sqrt(k) = 1.xxx_2
    assert value.bit_length() == n
    assert value.to_bytes(n // 8, "big") == (FIXTURES / f"{constant}_1e6.bin").read_bytes()
