"""Section 2.9: Maurer's universal statistical test."""

from __future__ import annotations

import math

from ._common import as_bits, computed_once, erfc, not_applicable, packed_bits, result
from ._kernels import LOG2_TABLE_SIZE, block_codes, log2_table, universal_sum

# Section 2.9.7: L by n (smallest n for each L from 6 to 16), and the table of
# expectedValue(L) and variance(L) of section 2.9.4 step (5).
UNIVERSAL_L_BY_N = ((387_840, 6), (904_960, 7), (2_068_480, 8), (4_654_080, 9), (10_342_400, 10),
                    (22_753_280, 11), (49_643_520, 12), (107_560_960, 13), (231_669_760, 14),
                    (496_435_200, 15), (1_059_061_760, 16))
EXPECTED_VALUE = {1: 0.7326495, 2: 1.5374383, 3: 2.4016068, 4: 3.3112247, 5: 4.2534266, 6: 5.2177052,
                  7: 6.1962507, 8: 7.1836656, 9: 8.1764248, 10: 9.1723243, 11: 10.170032,
                  12: 11.168765, 13: 12.168070, 14: 13.167693, 15: 14.167488, 16: 15.167379}
VARIANCE = {1: 0.690, 2: 1.338, 3: 1.901, 4: 2.358, 5: 2.705, 6: 2.954, 7: 3.125, 8: 3.238,
            9: 3.311, 10: 3.356, 11: 3.384, 12: 3.401, 13: 3.410, 14: 3.416, 15: 3.419, 16: 3.421}


@computed_once
def _log2_table():
    return log2_table(LOG2_TABLE_SIZE)


def universal(bits, alpha: float = 0.01, *, L: int | None = None, Q: int | None = None):
    """2.9 Maurer's universal test. L and Q default from n (L = 6..16, Q = 10 * 2^L); n below
    387,840 is too short and reports not applicable.

    sigma = c(L, K) sqrt(variance(L) / K) as the document defines it. The 2.9.4 worked example
    (L = 2, Q = 4, n = 20) prints P = 0.767189, which is erfc(|f_n - E| / sqrt(2 variance)), i.e.
    it leaves out the c sqrt(1/K) factor; our f_n matches its 1.1949875 and the tests show both.
    """
    x = as_bits(bits)
    n = x.size
    if L is None:
        eligible = [l for lim, l in UNIVERSAL_L_BY_N if n >= lim]
        if not eligible:
            return not_applicable("Universal", n, alpha, f"n = {n} < 387,840 bits (L = 6)")
        L = eligible[-1]
    if not 1 <= L <= 16:
        raise ValueError(f"universal: L must be 1..16, got {L}")
    if Q is None:
        Q = 10 * 2 ** L
    K = n // L - Q
    if K < 1:
        return not_applicable("Universal", n, alpha, f"n = {n} leaves no test blocks for L = {L}, Q = {Q}")
    codes = block_codes(packed_bits(x), Q + K, L)  # non-overlapping L-bit blocks
    total = universal_sum(codes, L, Q, K, _log2_table())
    fn = total / K
    c = 0.7 - 0.8 / L + (4 + 32 / L) * K ** (-3 / L) / 15
    sigma = c * math.sqrt(VARIANCE[L] / K)
    p = erfc(abs(fn - EXPECTED_VALUE[L]) / (math.sqrt(2) * sigma))
    return result("Universal", n, alpha, [p], fn, None,
                  f"log2 distances between repeats of {L}-bit blocks ({Q} init, {K} test)",
                  L=L, Q=Q, K=K, sum=total, expected=EXPECTED_VALUE[L], sigma=sigma)
