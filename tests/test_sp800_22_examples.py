"""SP 800-22 Rev. 1a worked examples, reproduced to the printed digits.

Every published figure here is a reference to check against, never an input. Where the
document's printed value cannot come from a correct computation, the test says so, checks the
correct value, and shows exactly which slip reproduces the printed one.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy import special

from certify.stats import sp800_22 as nist
from certify.stats.sp800_22.excursions import excursion_probabilities
from certify.stats.sp800_22.spectral import fft_pvalue, fft_threshold
from certify.stats.sp800_22.templates import overlapping_poisson_probabilities
from certify.stats.sp800_22.universal import EXPECTED_VALUE, VARIANCE
from certify.stats.sp800_22._kernels import linear_complexities

E_FILE = Path(__file__).resolve().parents[1] / "fixtures" / "sp800_22" / "e_1e6.bin"

# The 100-bit input of 2.1.8, 2.2.8, 2.3.8, 2.6.8, 2.12.8, 2.13.8 (bits of pi).
EPS100 = ("11001001000011111101101010100010001000010110100011"
          "00001000110100110001001100011001100010100010111000")
# The 128-bit input of 2.4.8.
EPS128 = ("11001100000101010110110001001100111000000000001001"
          "00110101010001000100111101011010000000110101111100"
          "1100111001101101100010110010")
SMALL = dict(enforce_minimums=False)  # the worked examples are below the recommended sizes


def r6(x: float) -> float:
    return round(x, 6)


@pytest.fixture(scope="module")
def e_bits() -> np.ndarray:
    bits = nist.bits_from_bytes(E_FILE.read_bytes())
    assert bits.size == 1_000_000
    return bits


def test_e_fixture_is_the_binary_expansion_of_e():
    mpmath = pytest.importorskip("mpmath")
    with mpmath.workprec(1_000_100):
        value = int(mpmath.floor(mpmath.e * mpmath.mpf(2) ** (1_000_000 - 2)))
    assert value.bit_length() == 1_000_000  # 2 integer bits + 999,998 fraction bits
    assert value.to_bytes(125_000, "big") == E_FILE.read_bytes()


# ---------------------------------------------------------------- small worked examples

def test_2_1_frequency():
    r = nist.frequency("1011010101", **SMALL)
    assert r.details["S_n"] == 2 and round(r.statistic, 9) == 0.632455532
    assert r6(r.pvalue) == 0.527089
    r = nist.frequency(EPS100, **SMALL)
    assert r.details["S_n"] == -16 and r.statistic == pytest.approx(1.6)
    assert r6(r.pvalue) == 0.109599


def test_2_2_block_frequency():
    r = nist.block_frequency("0110011010", M=3, **SMALL)
    assert r.statistic == pytest.approx(1.0) and r6(r.pvalue) == 0.801252
    r = nist.block_frequency(EPS100, M=10, **SMALL)
    assert r.statistic == pytest.approx(7.2) and r6(r.pvalue) == 0.706438


def test_2_3_runs():
    r = nist.runs("1001101011", **SMALL)
    assert r.statistic == 7 and r6(r.pvalue) == 0.147232
    r = nist.runs(EPS100, **SMALL)
    assert r.statistic == 52 and r.details["pi"] == pytest.approx(0.42) and r6(r.pvalue) == 0.500798


def test_2_4_longest_run():
    # 2.4.8 prints v = (4, 9, 3, 0), chi^2 = 4.882605 and P = 0.180609; these do not belong
    # together: chi^2 = 4.882605 comes from the rounded class probabilities (0.2148, ...) and
    # gives P = 0.180598, while P = 0.180609 comes from the exact probabilities (chi^2 = 4.882457).
    table = nist.longest_run(EPS128, M=8, probabilities="nist", **SMALL)
    exact = nist.longest_run(EPS128, M=8, **SMALL)
    assert table.details["v"] == exact.details["v"] == [4, 9, 3, 0]
    assert r6(table.statistic) == 4.882605 and r6(table.pvalue) == 0.180598
    assert r6(exact.statistic) == 4.882457 and r6(exact.pvalue) == 0.180609


def _p_longest_at_most(M: int, k: int) -> float:
    """P(no run of k+1 ones in M fair bits) by the renewal recursion q_t = sum_j 2^-j q_(t-j)
    (a sequence ends with a 0 after at most k ones), independent of the module's DP."""
    q = [1.0] * (k + 1)  # any sequence shorter than k+1 qualifies
    for t in range(k + 1, M + 1):
        q.append(sum(q[t - j] * 2.0 ** -j for j in range(1, k + 2)))
    return q[M]


def test_2_4_exact_class_probabilities_and_the_document_table():
    from certify.stats.sp800_22.basic import _LONGEST_RUN_NIST_PI, longest_run_probabilities
    for M, lo, hi in ((8, 1, 4), (128, 4, 9), (10_000, 10, 16)):
        exact = np.array(longest_run_probabilities(M, lo, hi))
        cdf = [_p_longest_at_most(M, k) for k in range(lo, hi)]
        independent = np.diff([0.0] + cdf + [1.0])
        assert np.allclose(exact, independent, rtol=0, atol=1e-12)
        err = np.abs(exact - _LONGEST_RUN_NIST_PI[M]).max()
        if M < 10_000:
            assert err < 1e-4  # the 4-decimal table (its 0.2493 for M = 128 should read 0.2494)
        else:
            # The M = 10^4 table is off by up to 1.6e-3 (0.0882 for 0.0866): hence Appendix B's
            # LongestRun 0.718945 (table) against 0.718366 (exact) on e.
            assert 1.5e-3 < err < 1.7e-3


def test_2_5_rank_small():
    # 2.5.4 applies the 32x32 probabilities (0.2888, 0.5776, 0.1336) to two 3x3 matrices:
    # chi^2 = 0.596953, P = 0.741948. The exact 3x3 rank distribution gives P = 0.820962.
    printed = nist.rank("01011001001010101101", M=3, Q=3, probabilities="nist", **SMALL)
    assert (printed.details["F_full"], printed.details["F_minus1"], printed.details["F_rest"]) == (1, 1, 0)
    assert r6(printed.statistic) == 0.596953 and r6(printed.pvalue) == 0.741948
    exact = nist.rank("01011001001010101101", M=3, Q=3, **SMALL)
    assert r6(exact.pvalue) == 0.820962


def test_2_6_fft_small():
    # The document prints N1 = 4 (10 bits) and N1 = 46 (100 bits). The DFT has 5 and 48 moduli
    # below T: checked here with a direct O(n^2) DFT, independent of numpy.fft. Our P from the
    # document's N1 reproduces its printed d and P; on the true counts P = 0.468160 / 0.646355.
    for bits, n1_printed, d_printed, p_printed, n1_true, p_true in (
            ("1001010011", 4, -2.176429, 0.029523, 5, 0.468160),
            (EPS100, 46, -1.376494, 0.168669, 48, 0.646355)):
        x = 2.0 * nist.as_bits(bits) - 1
        n = x.size
        k = np.arange(n // 2)[:, None]
        direct = np.abs((x[None, :] * np.exp(-2j * np.pi * k * np.arange(n) / n)).sum(axis=1))
        assert int(np.count_nonzero(direct < fft_threshold(n))) == n1_true
        d, p = fft_pvalue(n, n1_printed)
        assert r6(d) == d_printed and r6(p) == p_printed
        r = nist.fft(bits, **SMALL)
        assert r.details["N1"] == n1_true and r.details["N0"] == pytest.approx(0.95 * n / 2)
        assert r6(r.pvalue) == p_true


def test_2_7_non_overlapping_small():
    r = nist.non_overlapping_template("10100100101110010110", m=3, N=2, templates=["001"], **SMALL)
    assert r.details["W"] == [[2, 1]] and r.details["mu"] == 1 and r.details["var"] == 0.46875
    assert r6(r.statistic) == 2.133333 and r6(r.pvalue) == 0.344154


def test_2_8_overlapping_small():
    # 2.8.4 (m = 2, B = 11, M = 10, N = 5, K = 5) prints v = (0, 1, 1, 1, 1, 1), chi^2 = 3.167729
    # and P = 0.274932. Counting "11" (overlapping) by hand in the five blocks gives 5, 1, 3, 4, 1:
    # v = (0, 2, 0, 1, 1, 1). With the printed v and its 6-digit probabilities, chi^2 = 3.167729;
    # its P is igamc(K/2, chi^2), not igamc(K/2, chi^2/2) = 0.674145.
    r = nist.overlapping_template("10111011110010110100011100101110111110000101101001", m=2, M=10, K=5,
                                  template="11", probabilities="poisson", **SMALL)
    assert r.details["v"] == [0, 2, 0, 1, 1, 1]
    pi = np.array(overlapping_poisson_probabilities(10, 2, 5))
    assert [r6(p) for p in pi] == [0.324652, 0.182617, 0.142670, 0.106645, 0.077147, 0.166268]
    pi_printed = np.array([0.324652, 0.182617, 0.142670, 0.106645, 0.077147, 0.166269])
    v_printed = np.array([0, 1, 1, 1, 1, 1])
    chi2 = float(np.sum((v_printed - 5 * pi_printed) ** 2 / (5 * pi_printed)))
    assert r6(chi2) == 3.167729
    assert r6(special.gammaincc(2.5, chi2)) == 0.274932
    assert r6(special.gammaincc(2.5, chi2 / 2)) == 0.674145
    assert r.pvalue == pytest.approx(special.gammaincc(2.5, r.statistic / 2))


def test_2_9_universal_small():
    # 2.9.4 (L = 2, Q = 4): f_n = 1.1949875 as printed. Its P = 0.767189 is
    # erfc(|f_n - E| / sqrt(2 variance)): sigma without the c * sqrt(1/K) factor the document
    # itself defines in the same step; with it (as we compute) P = 0.063454.
    r = nist.universal("01011010011101010111", L=2, Q=4)
    assert r.details["K"] == 6 and round(r.details["sum"], 9) == 7.169925001
    assert round(r.statistic, 7) == 1.1949875
    printed = special.erfc(abs(r.statistic - EXPECTED_VALUE[2]) / math.sqrt(2 * VARIANCE[2]))
    assert r6(printed) == 0.767189
    assert r6(r.pvalue) == 0.063454


def test_2_10_berlekamp_massey_small():
    bits = nist.as_bits("1101011110001")
    assert linear_complexities(bits, 1, bits.size).tolist() == [4]


def test_2_11_serial_small():
    r = nist.serial("0011011101", m=3, **SMALL)
    assert [round(p, 9) for p in r.details["psi2"]] == [2.8, 1.2, 0.4]
    assert [round(s, 9) for s in r.details["statistics"]] == [1.6, 0.8]
    assert [r6(p) for p in r.pvalues] == [0.808792, 0.670320]


def test_2_12_approximate_entropy_small():
    # 2.12.4 prints chi^2 = 0.502193 next to P = 0.261961; P belongs to chi^2 = 10.043859
    # (= 2n(ln 2 - ApEn) with ApEn = 0.190954), which is what we compute; the printed 0.502193 is
    # ln 2 - ApEn = chi^2 / 2n.
    r = nist.approximate_entropy("0100110101", m=3, **SMALL)
    assert r6(r.details["ApEn"]) == 0.190954 and r6(r.statistic) == 10.043859
    assert r6(math.log(2) - r.details["ApEn"]) == 0.502193
    assert r6(r.pvalue) == 0.261961
    r = nist.approximate_entropy(EPS100, m=2, **SMALL)
    assert r6(r.details["ApEn"]) == 0.665393 and r6(r.statistic) == 5.550792
    assert r6(r.pvalue) == 0.235301


def test_2_13_cumulative_sums_small():
    # 2.13.4 prints 0.4116588; the sum evaluates to 0.41165862 (agrees to 6 digits).
    r = nist.cumulative_sums("1011010111", **SMALL)
    assert r.details["statistics"][0] == 4 and r6(r.pvalues[0]) == 0.411659
    r = nist.cumulative_sums(EPS100, **SMALL)
    assert r.details["statistics"] == [16, 19]
    assert [r6(p) for p in r.pvalues] == [0.219194, 0.114866]


def test_2_14_random_excursions_small():
    # 2.14.4 (J = 3, x = +1) prints chi^2 = 4.333033, P = 0.502529: the 4-decimal table of
    # section 3.14 (pi_5 = 0.0312). Exact probabilities give chi^2 = 13/3 = 4.333333, P = 0.502488.
    r = nist.random_excursions("0110110101", min_cycles=1)
    assert r.details["J"] == 3
    i = r.details["labels"].index("x=+1")
    assert r.details["v"][i] == [1, 1, 0, 1, 0, 0]
    assert r6(r.details["statistics"][i]) == 4.333333 and r6(r.pvalues[i]) == 0.502488
    v = np.array(r.details["v"][i])
    table = np.array([0.5, 0.25, 0.125, 0.0625, 0.0312, 0.0312])
    chi2 = float(np.sum((v - 3 * table) ** 2 / (3 * table)))
    assert r6(chi2) == 4.333033 and r6(special.gammaincc(2.5, chi2 / 2)) == 0.502529
    assert np.allclose(excursion_probabilities(1), table, atol=1e-4)


def test_2_15_random_excursions_variant_small():
    r = nist.random_excursions_variant("0110110101", min_cycles=1)
    i = r.details["labels"].index("x=+1")
    assert r.details["statistics"][i] == 4 and r6(r.pvalues[i]) == 0.683091


def test_excursions_default_precondition_makes_small_input_not_applicable():
    for fn in (nist.random_excursions, nist.random_excursions_variant):
        r = fn("0110110101")
        assert not r.applicable and r.verdict == "not applicable" and r.passed is None


# ---------------------------------------------------------------- examples on 1,000,000 bits of e

def test_2_5_8_rank_on_100000_bits_of_e(e_bits):
    r = nist.rank(e_bits[:100_000])
    assert (r.details["N"], r.details["F_full"], r.details["F_minus1"], r.details["F_rest"]) == (97, 23, 60, 14)
    assert round(r.statistic, 7) == 1.2619656 and r6(r.pvalue) == 0.532069


def test_2_8_8_overlapping_on_e(e_bits):
    # Printed v = (329, 164, 150, 111, 78, 136), chi^2 = 8.965859, P = 0.110434 (and Appendix B):
    # computed with the document's compound-Poisson probabilities. The reference code's corrected
    # table gives 0.159027 and the exact distribution 0.159037 (our default).
    r = nist.overlapping_template(e_bits, probabilities="poisson")
    assert r.details["N"] == 968 and r.details["v"] == [329, 164, 150, 111, 78, 136]
    assert r6(r.statistic) == 8.965859 and r6(r.pvalue) == 0.110434
    assert r6(nist.overlapping_template(e_bits, probabilities="nist").pvalue) == 0.159027
    exact = nist.overlapping_template(e_bits)
    assert exact.details["v"] == r.details["v"] and r6(exact.pvalue) == 0.159037


def test_2_10_8_linear_complexity_on_e(e_bits):
    # Printed v = (11, 31, 116, 501, 258, 57, 26), chi^2 = 2.700348, P = 0.845406: reproduced with
    # the reference code's pi_0 = 0.01047 (a typo for 1/96 = 0.010417). Exact: chi^2 = 2.706, P = 0.844738.
    r = nist.linear_complexity(e_bits, M=1000, probabilities="nist")
    assert r.details["v"] == [11, 31, 116, 501, 258, 57, 26]
    assert r6(r.statistic) == 2.700348 and r6(r.pvalue) == 0.845406
    exact = nist.linear_complexity(e_bits, M=1000)
    assert r6(exact.statistic) == 2.706 and r6(exact.pvalue) == 0.844738


def test_2_11_8_serial_on_e(e_bits):
    r = nist.serial(e_bits, m=2)
    assert [r6(x) for x in r.details["psi2"]] == [0.343128, 0.003364, 0.0]
    assert [r6(s) for s in r.details["statistics"]] == [0.339764, 0.3364]
    assert [r6(p) for p in r.pvalues] == [0.843764, 0.561915]


def test_2_14_8_random_excursions_on_e(e_bits):
    # Negative states match 2.14.8 to every digit. For x = +1..+4 the document prints
    # 0.778616, 0.365752, 0.790853, 0.792378, which its own Appendix B contradicts (it prints
    # 0.786868 for x = +1 on this same input); the correct values are those below.
    r = nist.random_excursions(e_bits)
    assert r.details["J"] == 1490
    stats = dict(zip(r.details["labels"], r.details["statistics"]))
    for x, chi2 in (("x=-4", 3.835698), ("x=-3", 7.318707), ("x=-2", 7.861927), ("x=-1", 15.692617)):
        assert r6(stats[x]) == chi2
    assert [r6(p) for p in r.pvalues] == [0.573306, 0.197996, 0.164011, 0.007779,
                                          0.786868, 0.440912, 0.797854, 0.778186]
    assert not r.passed and r6(r.pvalue) == 0.007779  # x = -1 fails, as the document concludes


def test_2_15_8_random_excursions_variant_on_e(e_bits):
    r = nist.random_excursions_variant(e_bits)
    assert r.details["J"] == 1490
    assert [r6(p) for p in r.pvalues] == [
        0.858946, 0.794755, 0.576249, 0.493417, 0.633873, 0.917283, 0.934708, 0.816012, 0.826009,
        0.137861, 0.200642, 0.441254, 0.939291, 0.505683, 0.445935, 0.512207, 0.538635, 0.593930]
    assert r.passed


def test_appendix_b_e(e_bits):
    """Appendix B, row 'e' (n = 10^6, document's parameters)."""
    res = {r.name: r for r in nist.run_all(e_bits)}
    assert [r.name for r in res.values()] == list(nist.TEST_NAMES)
    assert r6(res["Frequency"].pvalue) == 0.953749
    assert r6(res["BlockFrequency"].pvalue) == 0.211072
    # Printed 0.669887 / 0.724266; the sums evaluate to 0.66988646 / 0.72426531 (the reference
    # code's own normal CDF differs in the 7th digit).
    fwd, bwd = res["CumulativeSums"].pvalues
    assert abs(fwd - 0.669887) < 1e-6 and abs(bwd - 0.724266) < 1e-6
    assert r6(res["Runs"].pvalue) == 0.561917
    assert r6(nist.longest_run(e_bits, probabilities="nist").pvalue) == 0.718945
    assert r6(res["LongestRun"].pvalue) == 0.718366  # exact class probabilities
    assert r6(res["Rank"].pvalue) == 0.306156
    assert r6(res["FFT"].pvalue) == 0.847187
    nonov = res["NonOverlappingTemplate"]
    assert len(nonov.pvalues) == 148
    assert r6(nonov.pvalues[nonov.details["labels"].index("000000001")]) == 0.078790
    assert r6(nist.overlapping_template(e_bits, probabilities="poisson").pvalue) == 0.110434
    assert r6(res["Universal"].pvalue) == 0.282568
    assert r6(res["ApproximateEntropy"].pvalue) == 0.700073
    rex = res["RandomExcursions"]
    assert r6(rex.pvalues[rex.details["labels"].index("x=+1")]) == 0.786868
    rev = res["RandomExcursionsVariant"]
    assert r6(rev.pvalues[rev.details["labels"].index("x=-1")]) == 0.826009
    assert [r6(p) for p in res["Serial"].pvalues] == [0.766182, 0.462921]
    assert r6(nist.linear_complexity(e_bits, probabilities="nist").pvalue) == 0.826335
    assert r6(res["LinearComplexity"].pvalue) == 0.826202  # exact class probabilities


def test_fft_constants_are_rev_1a(e_bits):
    # Rev. 1a changed the 2001 original's threshold T = sqrt(3n) to sqrt(ln(1/0.05) n) and the
    # variance n(.95)(.05)/2 to n(.95)(.05)/4. Appendix B's 0.847187 for e needs both Rev. 1a
    # constants (the only ones we implement): the original's give 0.443864.
    n = e_bits.size
    moduli = np.abs(np.fft.rfft(2.0 * e_bits - 1))[: n // 2]
    assert fft_threshold(n) == pytest.approx(math.sqrt(math.log(20) * n))
    n1 = int(np.count_nonzero(moduli < fft_threshold(n)))
    assert n1 == nist.fft(e_bits).details["N1"] == 475_021
    assert r6(fft_pvalue(n, n1)[1]) == 0.847187
    n1_original = int(np.count_nonzero(moduli < math.sqrt(3 * n)))
    d_original = (n1_original - 0.95 * n / 2) / math.sqrt(n * 0.95 * 0.05 / 2)
    assert r6(special.erfc(abs(d_original) / math.sqrt(2))) == 0.443864
