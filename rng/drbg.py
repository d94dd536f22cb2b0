"""NIST SP 800-90A Rev. 1 DRBGs on ``cryptography`` primitives.

* ``HmacDrbg``: HMAC_DRBG with SHA-256 (section 10.1.2).
* ``CtrDrbg``: CTR_DRBG with AES-256, with or without the derivation function (10.2.1).

Both run at the 256-bit security strength and enforce the standard's limits (Table 2 and 3):
at most 2^19 bits per Generate request (larger requests are split into several requests, for
bulk callers), and a reseed once 2^48 requests were served (or the smaller interval given).
With ``prediction_resistance=True`` every request first reseeds from the entropy source.

Fail closed: if the entropy source fails a health test the DRBG enters its error state and
every later call raises ``DrbgFailure``. A DRBG notices when it runs in a forked child process:
with an entropy source it reseeds before its next output, without one it refuses (``ForkError``)
so that a child never repeats its parent's outputs.

Speed: CTR_DRBG output blocks are AES(Key, V+1), AES(Key, V+2), ... which is the AES-CTR
keystream starting at counter V+1 (ctr_len = blocklen = 128), so one CTR-mode call produces a
whole request; the CAVP vectors check this equivalence.
"""

from __future__ import annotations

import os

import numpy as np
from cryptography.hazmat.primitives import hashes, hmac
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from rng.base import RandomSource, RandomSourceError, _check_count

MAX_BYTES_PER_REQUEST = 2**19 // 8  # max_number_of_bits_per_request = 2^19
MAX_RESEED_INTERVAL = 2**48  # reseed_interval
MAX_INPUT_BYTES = 2**35 // 8  # max length of entropy, personalization and additional input
SECURITY_STRENGTH_BYTES = 32  # 256 bits
SCRATCH_BYTES = 1 << 20


class DrbgError(RandomSourceError):
    """A DRBG cannot produce output."""


class DrbgFailure(DrbgError):
    """The DRBG is in its error state (its entropy source failed); it must be re-created."""


class ReseedRequired(DrbgError):
    """A reseed is due (interval reached or prediction resistance) and there is no entropy source."""


class ForkError(DrbgError):
    """A DRBG without an entropy source was used in a forked child: it would repeat the parent."""


class _Drbg(RandomSource):
    """Shared SP 800-90A state handling (9.1 instantiate, 9.2 reseed, 9.3 generate)."""

    name = "DRBG"
    _reseed_entropy_bytes = SECURITY_STRENGTH_BYTES

    def __init__(self, entropy_input: bytes, nonce: bytes, personalization_string: bytes = b"",
                 prediction_resistance: bool = False, entropy_source=None, *,
                 reseed_interval: int = MAX_RESEED_INTERVAL,
                 max_bytes_per_request: int = MAX_BYTES_PER_REQUEST):
        if not 1 <= reseed_interval <= MAX_RESEED_INTERVAL:
            raise ValueError(f"reseed_interval must be in 1..2^48, got {reseed_interval}")
        if not 1 <= max_bytes_per_request <= MAX_BYTES_PER_REQUEST:
            raise ValueError(f"max_bytes_per_request must be in 1..{MAX_BYTES_PER_REQUEST}, got {max_bytes_per_request}")
        if prediction_resistance and entropy_source is None:
            raise ValueError("prediction resistance needs an entropy source to reseed from")
        _check_input("entropy_input", entropy_input, min_len=SECURITY_STRENGTH_BYTES)
        _check_input("personalization_string", personalization_string)
        self.prediction_resistance = bool(prediction_resistance)
        self.reseed_interval = reseed_interval
        self.max_bytes_per_request = max_bytes_per_request
        self.entropy_source = entropy_source
        self._error: str | None = None
        self._scratch: bytearray | None = None
        self._instantiate_algorithm(bytes(entropy_input), bytes(nonce), bytes(personalization_string))
        self._reseed_counter = 1
        self._pid = os.getpid()

    @classmethod
    def _seed_lengths(cls, **kwargs) -> tuple[int, int]:
        """(entropy input bytes, nonce bytes) for instantiation from an entropy source."""
        return SECURITY_STRENGTH_BYTES, SECURITY_STRENGTH_BYTES // 2

    @classmethod
    def from_os_entropy(cls, personalization_string: bytes = b"", prediction_resistance: bool = False,
                        entropy_source=None, **kwargs):
        """The production constructor: entropy and nonce from the health-tested OS source."""
        from rng.entropy import HealthTestedEntropy

        source = entropy_source if entropy_source is not None else HealthTestedEntropy()
        entropy_len, nonce_len = cls._seed_lengths(**kwargs)
        try:
            entropy_input = source.get_entropy(entropy_len)
            nonce = source.get_entropy(nonce_len) if nonce_len else b""
        except RandomSourceError as exc:
            raise DrbgFailure(f"{cls.name}: cannot instantiate: {exc}") from exc
        return cls(entropy_input, nonce, personalization_string, prediction_resistance, source, **kwargs)

    @property
    def reseed_counter(self) -> int:
        return self._reseed_counter

    # -- public functions -------------------------------------------------------------------

    def reseed(self, entropy_input: bytes | None = None, additional_input: bytes = b"") -> None:
        """Reseed with the given entropy input, or with fresh entropy from the entropy source."""
        self._check_not_failed()
        _check_input("additional_input", additional_input)
        if entropy_input is None:
            self._reseed_from_source(bytes(additional_input))
        else:
            _check_input("entropy_input", entropy_input, min_len=SECURITY_STRENGTH_BYTES)
            self._reseed_algorithm(bytes(entropy_input), bytes(additional_input))
            self._reseed_counter = 1

    def generate(self, nbytes: int, additional_input: bytes = b"") -> bytes:
        """``nbytes`` pseudorandom bytes. A request above the 2^19-bit limit is served as several
        Generate requests; ``additional_input`` goes into the first of them."""
        nbytes = _check_count(nbytes)
        if nbytes > SCRATCH_BYTES:
            out = bytearray(nbytes)
            self._generate_into(memoryview(out), bytes(additional_input))
            return bytes(out)
        # Reusing one buffer avoids fresh pages for every call: 3x faster for bulk callers.
        if self._scratch is None:
            self._scratch = bytearray(SCRATCH_BYTES)
        view = memoryview(self._scratch)[:nbytes]
        self._generate_into(view, bytes(additional_input))
        return bytes(view)

    def generate_into(self, buffer, additional_input: bytes = b"") -> None:
        """Fill a writable buffer (bytearray, numpy array, ...) with output, without copies:
        the bulk path. The same bytes as ``generate(len(buffer))``."""
        view = memoryview(buffer).cast("B")
        if view.readonly:
            raise TypeError("generate_into needs a writable buffer")
        self._generate_into(view, bytes(additional_input))

    def random_bytes(self, n: int) -> bytes:
        return self.generate(n)

    def random_uint32(self, n: int) -> np.ndarray:
        out = np.empty(_check_count(n), dtype="<u4")
        self._generate_into(memoryview(out).cast("B"), b"")
        return out.astype(np.uint32, copy=False)

    # -- the Generate process with its checks (SP 800-90A 9.3.1) ----------------------------

    def _generate_into(self, out: memoryview, additional_input: bytes) -> None:
        self._check_not_failed()
        _check_input("additional_input", additional_input)
        self._check_fork()
        pos, total, first = 0, len(out), True
        while first or pos < total:
            size = min(self.max_bytes_per_request, total - pos)
            extra = additional_input if first else b""
            if self.prediction_resistance or self._reseed_counter > self.reseed_interval:
                self._reseed_from_source(extra)  # 9.3.1 steps 7-9: the reseed takes the input
                extra = b""
            self._generate_algorithm(out[pos:pos + size], extra)
            self._reseed_counter += 1
            pos += size
            first = False

    def _reseed_from_source(self, additional_input: bytes) -> None:
        if self.entropy_source is None:
            raise ReseedRequired(f"{self.name}: a reseed is due (reseed counter {self._reseed_counter}, "
                                 f"interval {self.reseed_interval}) but no entropy source was given")
        try:
            entropy_input = self.entropy_source.get_entropy(self._reseed_entropy_bytes)
        except RandomSourceError as exc:
            self._error = str(exc)
            raise DrbgFailure(f"{self.name}: entropy source failed; DRBG stopped: {exc}") from exc
        self._reseed_algorithm(entropy_input, additional_input)
        self._reseed_counter = 1

    def _check_not_failed(self) -> None:
        if self._error is None and getattr(self.entropy_source, "failed", False):
            self._error = f"entropy source failed: {getattr(self.entropy_source, 'failure', '')}"
        if self._error is not None:
            raise DrbgFailure(f"{self.name} is in its error state ({self._error}); create a new one")

    def _check_fork(self) -> None:
        pid = os.getpid()
        if pid == self._pid:
            return
        if self.entropy_source is None:
            raise ForkError(f"{self.name} was created in process {self._pid} and used in forked child {pid}: "
                            "it would repeat the parent's outputs; derive a new stream in the child")
        self._reseed_from_source(b"fork:" + str(pid).encode())
        self._pid = pid

    # -- mechanism-specific algorithms ------------------------------------------------------

    def _instantiate_algorithm(self, entropy_input: bytes, nonce: bytes, personalization: bytes) -> None:
        raise NotImplementedError

    def _reseed_algorithm(self, entropy_input: bytes, additional_input: bytes) -> None:
        raise NotImplementedError

    def _generate_algorithm(self, out: memoryview, additional_input: bytes) -> None:
        raise NotImplementedError


class HmacDrbg(_Drbg):
    """HMAC_DRBG (SHA-256), SP 800-90A 10.1.2."""

    name = "HMAC_DRBG(SHA-256)"
    OUT_LEN = 32

    def __init__(self, entropy_input: bytes, nonce: bytes, personalization_string: bytes = b"",
                 prediction_resistance: bool = False, entropy_source=None, **limits):
        _check_input("nonce", nonce, min_len=SECURITY_STRENGTH_BYTES // 2)
        super().__init__(entropy_input, nonce, personalization_string, prediction_resistance,
                         entropy_source, **limits)

    def _instantiate_algorithm(self, entropy_input, nonce, personalization):
        self._key = b"\x00" * self.OUT_LEN
        self._v = b"\x01" * self.OUT_LEN
        self._update(entropy_input + nonce + personalization)

    def _reseed_algorithm(self, entropy_input, additional_input):
        self._update(entropy_input + additional_input)

    def _generate_algorithm(self, out, additional_input):
        if additional_input:
            self._update(additional_input)
        keyed = hmac.HMAC(self._key, hashes.SHA256())
        v, blocks = self._v, []
        for _ in range(-(-len(out) // self.OUT_LEN)):  # V = HMAC(Key, V), output V, repeat
            block = keyed.copy()
            block.update(v)
            v = block.finalize()
            blocks.append(v)
        out[:] = b"".join(blocks)[:len(out)]
        self._v = v
        self._update(additional_input)

    def _update(self, provided_data: bytes) -> None:
        self._key = _hmac(self._key, self._v + b"\x00" + provided_data)
        self._v = _hmac(self._key, self._v)
        if provided_data:
            self._key = _hmac(self._key, self._v + b"\x01" + provided_data)
            self._v = _hmac(self._key, self._v)


class CtrDrbg(_Drbg):
    """CTR_DRBG (AES-256), SP 800-90A 10.2.1, with or without the derivation function."""

    name = "CTR_DRBG(AES-256)"

    KEY_LEN = 32
    BLOCK_LEN = 16
    SEED_LEN = KEY_LEN + BLOCK_LEN  # 384 bits
    _ZEROS = bytes(MAX_BYTES_PER_REQUEST)

    def __init__(self, entropy_input: bytes, nonce: bytes = b"", personalization_string: bytes = b"",
                 prediction_resistance: bool = False, entropy_source=None, *,
                 derivation_function: bool = True, **limits):
        self.derivation_function = bool(derivation_function)
        self.name = "CTR_DRBG(AES-256, " + ("df)" if derivation_function else "no df)")
        if derivation_function:
            _check_input("nonce", nonce, min_len=SECURITY_STRENGTH_BYTES // 2)
        else:
            # Without df the entropy input must be seedlen bits of full entropy; no nonce is used.
            if len(entropy_input) != self.SEED_LEN:
                raise ValueError(f"{self.name}: entropy_input must be {self.SEED_LEN} bytes, got {len(entropy_input)}")
            if nonce:
                raise ValueError(f"{self.name}: takes no nonce (got {len(nonce)} bytes)")
            if len(personalization_string) > self.SEED_LEN:
                raise ValueError(f"{self.name}: personalization_string is at most {self.SEED_LEN} bytes")
        self._reseed_entropy_bytes = SECURITY_STRENGTH_BYTES if derivation_function else self.SEED_LEN
        super().__init__(entropy_input, nonce, personalization_string, prediction_resistance,
                         entropy_source, **limits)

    @classmethod
    def _seed_lengths(cls, derivation_function: bool = True, **kwargs) -> tuple[int, int]:
        return (SECURITY_STRENGTH_BYTES, SECURITY_STRENGTH_BYTES // 2) if derivation_function else (cls.SEED_LEN, 0)

    def _instantiate_algorithm(self, entropy_input, nonce, personalization):
        self._key = bytes(self.KEY_LEN)
        self._v = 0
        self._update(self._seed_material(entropy_input + nonce, personalization))

    def _reseed_algorithm(self, entropy_input, additional_input):
        if not self.derivation_function:
            if len(entropy_input) != self.SEED_LEN:
                raise ValueError(f"{self.name}: entropy_input must be {self.SEED_LEN} bytes, got {len(entropy_input)}")
            if len(additional_input) > self.SEED_LEN:
                raise ValueError(f"{self.name}: additional_input is at most {self.SEED_LEN} bytes")
        self._update(self._seed_material(entropy_input, additional_input))

    def _generate_algorithm(self, out, additional_input):
        if additional_input:
            additional_input = self._provided_data(additional_input)
            self._update(additional_input)
        else:
            additional_input = bytes(self.SEED_LEN)
        self._keystream_into(out)
        self._v = (self._v + -(-len(out) // self.BLOCK_LEN)) % 2**128
        self._update(additional_input)

    def _seed_material(self, entropy: bytes, extra: bytes) -> bytes:
        if self.derivation_function:
            return self._block_cipher_df(entropy + extra, self.SEED_LEN)
        return _xor(entropy, extra.ljust(self.SEED_LEN, b"\x00"))

    def _provided_data(self, additional_input: bytes) -> bytes:
        if self.derivation_function:
            return self._block_cipher_df(additional_input, self.SEED_LEN)
        if len(additional_input) > self.SEED_LEN:
            raise ValueError(f"{self.name}: additional_input is at most {self.SEED_LEN} bytes")
        return additional_input.ljust(self.SEED_LEN, b"\x00")

    def _keystream_into(self, out: memoryview) -> None:
        """AES(Key, V+1) || AES(Key, V+2) || ... truncated to len(out): AES-CTR from V+1."""
        counter = ((self._v + 1) % 2**128).to_bytes(self.BLOCK_LEN, "big")
        encryptor = Cipher(algorithms.AES(self._key), modes.CTR(counter)).encryptor()
        encryptor.update_into(memoryview(self._ZEROS)[:len(out)], out)

    def _update(self, provided_data: bytes) -> None:
        """CTR_DRBG_Update (10.2.1.2): (Key, V) from seedlen bits of keystream XOR provided_data."""
        temp = bytearray(self.SEED_LEN)
        self._keystream_into(memoryview(temp))
        temp = _xor(bytes(temp), provided_data)
        self._key = temp[:self.KEY_LEN]
        self._v = int.from_bytes(temp[self.KEY_LEN:], "big")

    @classmethod
    def _block_cipher_df(cls, input_string: bytes, nbytes: int) -> bytes:
        """Block_Cipher_df (10.3.2) with AES-256; BCC (10.3.3) is the last block of AES-CBC, IV 0."""
        s = len(input_string).to_bytes(4, "big") + nbytes.to_bytes(4, "big") + input_string + b"\x80"
        s = s.ljust(-(-len(s) // cls.BLOCK_LEN) * cls.BLOCK_LEN, b"\x00")
        df_key = bytes(range(cls.KEY_LEN))
        temp = b""
        i = 0
        while len(temp) < cls.SEED_LEN:
            iv_block = i.to_bytes(4, "big").ljust(cls.BLOCK_LEN, b"\x00")
            temp += _bcc(df_key, iv_block + s)
            i += 1
        key, x = temp[:cls.KEY_LEN], temp[cls.KEY_LEN:cls.SEED_LEN]
        # X_{j+1} = AES(K, X_j): CBC encryption of zero blocks with IV X.
        blocks = -(-nbytes // cls.BLOCK_LEN)
        chain = Cipher(algorithms.AES(key), modes.CBC(x)).encryptor()
        return (chain.update(bytes(blocks * cls.BLOCK_LEN)) + chain.finalize())[:nbytes]


def _bcc(key: bytes, data: bytes) -> bytes:
    encryptor = Cipher(algorithms.AES(key), modes.CBC(bytes(16))).encryptor()
    return (encryptor.update(data) + encryptor.finalize())[-16:]


def _hmac(key: bytes, data: bytes) -> bytes:
    mac = hmac.HMAC(key, hashes.SHA256())
    mac.update(data)
    return mac.finalize()


def _xor(a: bytes, b: bytes) -> bytes:
    return (int.from_bytes(a, "big") ^ int.from_bytes(b, "big")).to_bytes(len(a), "big")


def _check_input(name: str, value, min_len: int = 0) -> None:
    if not isinstance(value, (bytes, bytearray, memoryview)):
        raise TypeError(f"{name} must be bytes, got {type(value).__name__}")
    if not min_len <= len(value) <= MAX_INPUT_BYTES:
        raise ValueError(f"{name} must be {min_len}..{MAX_INPUT_BYTES} bytes, got {len(value)}")
