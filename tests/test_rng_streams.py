"""Sub-streams: determinism, independence, and fork safety."""

import copy
import os
import pickle

import numpy as np
import pytest

from rng.drbg import CtrDrbg, ForkError, HmacDrbg
from rng.shuffle import deal_batch
from rng.streams import encode_key, seed_commitment, stream

MASTER = bytes(range(32))


@pytest.mark.parametrize("kind", ["ctr", "hmac"])
def test_same_key_same_stream(kind):
    assert stream(MASTER, 7, kind).generate(64) == stream(MASTER, 7, kind).generate(64)
    assert stream(12345, (3, 4), kind).generate(64) == stream(12345, (3, 4), kind).generate(64)


def test_different_keys_seeds_and_kinds_differ():
    keys = [0, 1, 2, 255, 256, 2**64, (0,), (1,), (0, 0), (0, 1), (1, 0), ((0,), 1), (), ((),)]
    outputs = {stream(MASTER, key).generate(32) for key in keys}
    assert len(outputs) == len(keys)
    assert stream(MASTER, 0).generate(32) != stream(bytes(32), 0).generate(32)
    assert stream(MASTER, 0, "ctr").generate(32) != stream(MASTER, 0, "hmac").generate(32)
    assert stream(1, 0).generate(32) != stream(1, 1).generate(32)


def test_key_encoding_is_injective_on_tricky_pairs():
    pairs = [(1, (1,)), ((1, 2), ((1, 2),)), ((0, 1), (1,)), (256, (1, 0)), ((), 0)]
    for a, b in pairs:
        assert encode_key(a) != encode_key(b)
    assert encode_key(np.int64(5)) == encode_key(5)


@pytest.mark.parametrize("bad", [-1, 1.5, "3", (1, -2), True])
def test_bad_keys_are_refused(bad):
    with pytest.raises((TypeError, ValueError)):
        stream(MASTER, bad)


def test_short_master_seed_refused():
    with pytest.raises(ValueError, match="16 bytes"):
        stream(b"short", 0)


def test_streams_are_uncorrelated_fixed_seed():
    a = stream(MASTER, 0).random_uint32(100_000)
    b = stream(MASTER, 1).random_uint32(100_000)
    assert abs(np.corrcoef(a.astype(float), b.astype(float))[0, 1]) < 0.02
    assert not (a == b).any() or (a == b).sum() < 3


def test_chunks_reproduce_independently_of_order():
    """What the simulator relies on: chunk i's decks depend only on (master, i)."""
    forward = [deal_batch(stream(MASTER, i), 100, 7) for i in range(4)]
    backward = [deal_batch(stream(MASTER, i), 100, 7) for i in reversed(range(4))][::-1]
    assert all((f == b).all() for f, b in zip(forward, backward))


def test_seed_commitment_is_stable_and_binding():
    assert seed_commitment(MASTER) == seed_commitment(bytes(range(32)))
    assert seed_commitment(MASTER) != seed_commitment(bytes(32))
    assert len(seed_commitment(42)) == 64


def _in_child(action):
    """Run ``action`` in a forked child; return what it returned or the exception type name."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        try:
            result = action()
        except Exception as exc:  # report any failure to the parent
            result = type(exc).__name__
        os.write(write_end, pickle.dumps(result))
        os._exit(0)
    os.close(write_end)
    data = b""
    while chunk := os.read(read_end, 65536):
        data += chunk
    os.close(read_end)
    os.waitpid(pid, 0)
    return pickle.loads(data)


def test_cloned_state_would_repeat_negative_control():
    """Why fork safety matters: a copied DRBG state repeats the original's next outputs."""
    parent = stream(MASTER, 9)
    clone = copy.deepcopy(parent)
    assert clone.generate(32) == parent.generate(32)


def test_forked_child_refuses_a_deterministic_stream():
    drbg = stream(MASTER, 3)
    drbg.generate(16)
    assert _in_child(lambda: drbg.generate(32)) == ForkError.__name__
    drbg.generate(16)  # the parent carries on


@pytest.mark.parametrize("cls", [CtrDrbg, HmacDrbg])
def test_forked_child_reseeds_and_never_repeats_the_parent(cls):
    drbg = cls.from_os_entropy()
    drbg.generate(16)
    child_output = _in_child(lambda: drbg.generate(64))
    parent_output = drbg.generate(64)
    assert isinstance(child_output, bytes) and len(child_output) == 64
    assert child_output != parent_output
