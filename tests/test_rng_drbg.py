"""SP 800-90A DRBGs: the CAVP known-answer vectors and the standard's limits."""

import json
from pathlib import Path

import numpy as np
import pytest

from rng.drbg import (MAX_BYTES_PER_REQUEST, CtrDrbg, DrbgError, DrbgFailure, HmacDrbg,
                      ReseedRequired)
from rng.entropy import HealthTestedEntropy, ReplayEntropy

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "drbg_cavp.json"
VECTORS = json.loads(FIXTURE.read_text())["vectors"]


def _instantiate(vec, entropy_source=None):
    args = (bytes.fromhex(vec["entropy_input"]), bytes.fromhex(vec["nonce"]),
            bytes.fromhex(vec["personalization_string"]), vec["prediction_resistance"], entropy_source)
    if vec["mechanism"] == "HMAC_DRBG":
        return HmacDrbg(*args)
    return CtrDrbg(*args, derivation_function=vec["derivation_function"])


def run_vector(vec) -> bytes:
    """The CAVP DRBGVS procedure: instantiate, [reseed], generate twice, return the second."""
    source = ReplayEntropy(bytes.fromhex(x) for x in vec["entropy_input_pr"]) if vec["prediction_resistance"] else None
    drbg = _instantiate(vec, source)
    if vec["reseed"]:
        drbg.reseed(bytes.fromhex(vec["entropy_input_reseed"]), bytes.fromhex(vec["additional_input_reseed"]))
    nbytes = vec["returned_bits_len"] // 8
    first, second = (bytes.fromhex(x) for x in vec["additional_input"])
    drbg.generate(nbytes, first)
    return drbg.generate(nbytes, second)


def test_fixture_holds_all_180_vectors():
    assert len(VECTORS) == 180
    assert len({v["id"] for v in VECTORS}) == 180
    kinds = {(v["mechanism"], v["derivation_function"]) for v in VECTORS}
    assert kinds == {("HMAC_DRBG", None), ("CTR_DRBG", True), ("CTR_DRBG", False)}


@pytest.mark.parametrize("vec", VECTORS, ids=[v["id"] for v in VECTORS])
def test_cavp_vector(vec):
    assert run_vector(vec).hex() == vec["returned_bits"]


@pytest.mark.parametrize("mechanism", ["HMAC_DRBG", "CTR_DRBG-df", "CTR_DRBG-nodf"])
def test_a_changed_input_fails_the_vector(mechanism):
    """Negative control: the comparison can fail."""
    kind = {"HMAC_DRBG": None, "CTR_DRBG-df": True, "CTR_DRBG-nodf": False}[mechanism]
    vec = dict(next(v for v in VECTORS if v["derivation_function"] is kind and v["reseed"]))
    entropy = bytearray.fromhex(vec["entropy_input"])
    entropy[0] ^= 1
    vec["entropy_input"] = entropy.hex()
    assert run_vector(vec).hex() != vec["returned_bits"]


def _ctr(**kw):
    return CtrDrbg(bytes(range(32)), bytes(range(16)), b"test", **kw)


@pytest.mark.parametrize("make", [lambda **kw: HmacDrbg(bytes(32), bytes(16), **kw), _ctr,
                                  lambda **kw: CtrDrbg(bytes(48), b"", derivation_function=False, **kw)])
def test_large_request_is_split_into_standard_requests(make):
    """A bulk request equals the concatenation of maximal requests: the split is real."""
    nbytes = 2 * MAX_BYTES_PER_REQUEST + 1000
    bulk = make()
    out = bulk.generate(nbytes)
    assert bulk.reseed_counter == 1 + 3
    pieces = make()
    parts = [pieces.generate(MAX_BYTES_PER_REQUEST), pieces.generate(MAX_BYTES_PER_REQUEST), pieces.generate(1000)]
    assert out == b"".join(parts)


def test_small_request_limit_splits_too():
    drbg = _ctr(max_bytes_per_request=16)
    drbg.generate(100)
    assert drbg.reseed_counter == 1 + 7


def test_random_uint32_is_the_byte_stream_little_endian():
    a, b = _ctr(), _ctr()
    words = a.random_uint32(1000)
    assert words.dtype == np.uint32 and words.shape == (1000,)
    assert words.tobytes() == b.random_bytes(4000)


class CountingEntropy(HealthTestedEntropy):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def get_entropy(self, nbytes):
        self.calls += 1
        return super().get_entropy(nbytes)


@pytest.mark.parametrize("cls", [HmacDrbg, CtrDrbg])
def test_reseed_is_forced_at_the_interval(cls):
    source = CountingEntropy()
    drbg = cls.from_os_entropy(entropy_source=source, reseed_interval=3)
    seeding_calls = source.calls
    for _ in range(3):
        drbg.generate(10)
    assert source.calls == seeding_calls and drbg.reseed_counter == 4
    drbg.generate(10)  # the 4th request since seeding must reseed first
    assert source.calls == seeding_calls + 1 and drbg.reseed_counter == 2


def test_interval_without_entropy_source_refuses():
    drbg = _ctr(reseed_interval=2)
    drbg.generate(16)
    drbg.generate(16)
    with pytest.raises(ReseedRequired):
        drbg.generate(16)


def test_split_request_counts_against_the_interval():
    source = CountingEntropy()
    drbg = CtrDrbg.from_os_entropy(entropy_source=source, reseed_interval=2, max_bytes_per_request=64)
    before = source.calls
    drbg.generate(64 * 5)  # five requests: reseeds before the 3rd and the 5th
    assert source.calls == before + 2


def test_prediction_resistance_reseeds_on_every_generate():
    source = CountingEntropy()
    drbg = HmacDrbg.from_os_entropy(entropy_source=source, prediction_resistance=True)
    before = source.calls
    for _ in range(5):
        drbg.generate(32)
    assert source.calls == before + 5


def test_prediction_resistance_requires_a_source():
    with pytest.raises(ValueError, match="entropy source"):
        HmacDrbg(bytes(32), bytes(16), prediction_resistance=True)


@pytest.mark.parametrize("kwargs,match", [
    (dict(entropy_input=bytes(16), nonce=bytes(16)), "entropy_input"),
    (dict(entropy_input=bytes(32), nonce=bytes(4)), "nonce"),
    (dict(entropy_input="not bytes", nonce=bytes(16)), "entropy_input"),
])
def test_bad_instantiate_inputs(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        HmacDrbg(**kwargs)


def test_no_df_rejects_short_entropy_and_nonce():
    with pytest.raises(ValueError, match="48 bytes"):
        CtrDrbg(bytes(32), b"", derivation_function=False)
    with pytest.raises(ValueError, match="no nonce"):
        CtrDrbg(bytes(48), bytes(16), derivation_function=False)


def test_no_df_reseed_needs_seedlen_entropy():
    drbg = CtrDrbg(bytes(48), b"", derivation_function=False)
    with pytest.raises(ValueError, match="48 bytes"):
        drbg.reseed(bytes(32))
    with pytest.raises(ValueError, match="at most 48"):
        drbg.reseed(bytes(48), bytes(49))


def test_production_constructor_gives_distinct_streams():
    a, b = CtrDrbg.from_os_entropy(), CtrDrbg.from_os_entropy(derivation_function=False)
    assert a.generate(64) != b.generate(64)
    assert a.entropy_source is not None


def test_error_state_is_permanent():
    source = HealthTestedEntropy(raw_source=lambda n: bytes(n))  # stuck at zero
    drbg = HmacDrbg(bytes(32), bytes(16), entropy_source=source)
    with pytest.raises(DrbgFailure):
        drbg.reseed()
    with pytest.raises(DrbgError):
        drbg.generate(16)
