"""Deterministic, independent sub-streams: a master seed and a stream key give a child DRBG.

Like numpy's SeedSequence spawning, but through a KDF: the child's entropy input and nonce are
HKDF-SHA256(master seed, info = domain || kind || encoded key). The key encoding is injective
(type tag and length before every integer, count before every tuple), so two different keys
give different HKDF inputs, and two keys share a child seed only through a SHA-256 collision.
The same (master seed, key) always gives the same stream, so a simulation gives the same
result on 1 worker or 500: ``stream(master, chunk_index)``.

The children have no entropy source: they never reseed (2^48 requests of 64 KiB each), and
a child DRBG used after ``os.fork()`` refuses to generate instead of repeating its parent.
"""

from __future__ import annotations

import hashlib

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from rng.drbg import CtrDrbg, HmacDrbg

DOMAIN = b"table-game-certify/rng.streams/v1"
KINDS = ("ctr", "hmac")
MIN_SEED_BYTES = 16


def encode_key(key) -> bytes:
    """Injective byte encoding of a stream key: a non-negative int or a (nested) tuple of them."""
    if isinstance(key, bool) or not isinstance(key, (int, tuple)) and not hasattr(key, "__index__"):
        raise TypeError(f"a stream key is a non-negative int or a tuple of ints, got {key!r}")
    if isinstance(key, tuple):
        return b"T" + len(key).to_bytes(8, "big") + b"".join(encode_key(part) for part in key)
    value = int(key.__index__()) if not isinstance(key, int) else key
    if value < 0:
        raise ValueError(f"stream key integers must be non-negative, got {value}")
    raw = value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")
    return b"I" + len(raw).to_bytes(8, "big") + raw


def encode_seed(master_seed) -> bytes:
    """The master seed as HKDF input: bytes (at least 16) or a non-negative int, tagged."""
    if isinstance(master_seed, (bytes, bytearray)):
        if len(master_seed) < MIN_SEED_BYTES:
            raise ValueError(f"a master seed given as bytes needs at least {MIN_SEED_BYTES} bytes, got {len(master_seed)}")
        return b"B" + bytes(master_seed)
    if isinstance(master_seed, int) and not isinstance(master_seed, bool) and master_seed >= 0:
        return b"N" + encode_key(master_seed)
    raise TypeError(f"a master seed is bytes or a non-negative int, got {master_seed!r}")


def stream(master_seed, key, kind: str = "ctr"):
    """The child DRBG for ``key``: ``CtrDrbg`` (AES-256, df) for kind "ctr", ``HmacDrbg`` for "hmac"."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    encoded_key = encode_key(key)
    material = HKDF(algorithm=hashes.SHA256(), length=48, salt=DOMAIN,
                    info=DOMAIN + b"/" + kind.encode() + b"/" + encoded_key).derive(encode_seed(master_seed))
    entropy_input, nonce = material[:32], material[32:]
    personalization = b"stream " + encoded_key
    if kind == "ctr":
        return CtrDrbg(entropy_input, nonce, personalization)
    return HmacDrbg(entropy_input, nonce, personalization)


def new_master_seed() -> bytes:
    """32 bytes for a new master seed, from the health-tested OS entropy source."""
    from rng.entropy import HealthTestedEntropy

    return HealthTestedEntropy().get_entropy(32)


def seed_commitment(master_seed) -> str:
    """SHA-256 (hex) of the encoded master seed: a report can state it before revealing the seed."""
    return hashlib.sha256(DOMAIN + b"/commitment/" + encode_seed(master_seed)).hexdigest()
