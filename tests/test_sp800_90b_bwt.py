"""The Burrows-Wheeler transform bzip2 computes (SP 800-90B 5.1.11's compression statistic)."""

import numpy as np
import pytest

from certify.stats.sp800_90b._bwt import cyclic_bwt_reference


def _brute_force(block: np.ndarray) -> tuple[bytes, list[int]]:
    n = block.size
    rotations = sorted(range(n), key=lambda i: bytes(np.roll(block, -i)))
    return bytes(block[(np.array(rotations) - 1) % n]), rotations


@pytest.mark.parametrize("seed", range(4))
def test_reference_transform_is_the_sorted_rotations_last_column(seed):
    rng = np.random.default_rng(seed)
    for _ in range(200):
        n, k = int(rng.integers(1, 50)), int(rng.integers(1, 5))
        block = rng.integers(0, k, size=n).astype(np.uint8)
        if rng.random() < 0.3:   # periodic: identical rotations, any order gives the same column
            block = np.tile(block[: max(1, n // 4)], 4)
        last, original = cyclic_bwt_reference(block)
        expected, rotations = _brute_force(block)
        assert bytes(last) == expected
        assert bytes(np.roll(block, -rotations[original])) == bytes(block)


def test_reference_transform_refuses_an_empty_block():
    with pytest.raises(ValueError, match="empty block"):
        cyclic_bwt_reference(np.zeros(0, dtype=np.uint8))
