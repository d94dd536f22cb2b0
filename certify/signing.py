"""Keys, certificates, signing and verification of reports.

* ``keygen``: a root CA and a signing certificate under it (ECDSA P-256 or RSA-3072; key usage
  digitalSignature + nonRepudiation), private keys as PKCS#8 encrypted under a passphrase with
  scrypt (PBES2: scrypt N=2^14, r=8, p=5 and AES-256-CBC; see :data:`SCRYPT_COST`).
* PDF: a PAdES signature (ETSI.CAdES.detached, pyHanko) in the visible field ``Signature1``.
* Anything else (the JSON report): a detached CMS SignedData in DER, written next to the file as
  ``FILE.p7s`` (``openssl cms -verify -binary -inform DER -in FILE.p7s -content FILE -CAfile ROOT``
  checks it too).
* ``verify``: returns only when the signature is intact (the document digest matches), valid (the
  signature math), trusted (chains to the root), made by an end-entity certificate valid now with
  the digitalSignature key usage, covers the whole file and (unless allowed) is not a development
  key; for a PDF also when nothing follows the signed revision and the signature container in
  /Contents is exactly the canonical hex of the DER plus zero padding, so not one byte of the file
  can change unnoticed. Any failure raises :class:`SignatureInvalid` (a ``VerificationFailed``):
  there is no flag to forget to read. Whether a *report's* contents agree with its signature (the
  signer block, a PDF/JSON pair) is :mod:`certify.report.verify`, which builds on this module (this
  module never imports the report package).

Key folder (``--key-dir``; default ``$XDG_CONFIG_HOME/certify`` or ``~/.config/certify``):
``root-ca.crt.pem``, ``root-ca.key.pem``, ``signer.crt.pem``, ``signer.key.pem``. Only when no
``--key-dir`` is given and the default folder holds no key file at all does the first signing
create a DEVELOPMENT key in its ``dev/`` subfolder: its private key is stored UNENCRYPTED (it
protects nothing and says so: its certificate's organisational unit is :data:`DEV_MARKER`, every
report it signs says it is not for submission, and ``verify`` refuses it unless asked to accept it).
"""

from __future__ import annotations

import asyncio
import binascii
import datetime as dt
import io
import logging
import os
import re
import stat
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, padding, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt
from cryptography.x509.oid import NameOID

from certify.atomic import atomic_write, atomic_write_many
from certify.errors import InputError, VerificationFailed

ALGORITHMS = ("ecdsa-p256", "rsa-3072")
DEV_MARKER = "DEVELOPMENT KEY - NOT FOR SUBMISSION"
PASSPHRASE_ENV = "CERTIFY_KEY_PASSPHRASE"
ROOT_CERT, ROOT_KEY = "root-ca.crt.pem", "root-ca.key.pem"
SIGNER_CERT, SIGNER_KEY = "signer.crt.pem", "signer.key.pem"
KEY_FILES = (ROOT_CERT, ROOT_KEY, SIGNER_CERT, SIGNER_KEY)
SIGNATURE_SUFFIX = ".p7s"
# The visible signature field: its name, and its box on the last page in points from the bottom-left
# corner (x1, y1, x2, y2). The report leaves this box empty for it (certify.report.pdf).
SIGNATURE_FIELD = "Signature1"
SIGNATURE_BOX = (50.0, 80.0, 380.0, 170.0)

# scrypt cost (N, r, p) of a key written now. OWASP's password storage guidance lists N=2^17, r=8, p=1
# and the equal-work N=2^14, r=8, p=5; the latter needs 16 MiB (128*r*N bytes) instead of 128 MiB,
# inside OpenSSL's 32 MiB scrypt limit, so `openssl pkcs8 -in signer.key.pem` still reads the key.
SCRYPT_COST = (1 << 14, 8, 5)
# A key encrypted with less work than this is reported as weak (with how to re-encrypt it): scrypt
# below SCRYPT_COST, or PBKDF2 below OWASP's 600,000 iterations of HMAC-SHA-256 (the PBKDF2 with
# 2,048 iterations that keys made before this version carry).
PBKDF2_MIN_ITERATIONS = 600_000
MIN_PASSPHRASE_CHARS = 12

# pyHanko logs a traceback for every certificate path it cannot build; the reason is reported by
# verify itself, so keep the library quiet unless the application configures logging.
logging.getLogger("pyhanko").addHandler(logging.NullHandler())
logging.getLogger("pyhanko_certvalidator").addHandler(logging.NullHandler())


class SigningError(InputError):
    """A key, certificate or file problem before any signature exists (a usage error, exit 2)."""


class WeakPassphrase(SigningError):
    """A passphrase too easy to guess to protect a signing key."""


class InsecureKey(SigningError):
    """A production key stored unprotected: not encrypted, under a trivial passphrase, or readable by
    group or others. Refused unless the caller explicitly allows it (``--allow-insecure-key``)."""


class CertificateRefused(SigningError):
    """A signing certificate that must not sign: expired, not yet valid, a CA, without the
    digitalSignature key usage, or not issued by the root beside it."""


class SignatureInvalid(VerificationFailed):
    """A signature that does not verify; the message says why (exit 1)."""


class DevelopmentKeyRefused(SignatureInvalid):
    """A valid signature by a development key, which verify does not accept unless asked to."""


@dataclass(frozen=True)
class Verification:
    """A signature that verified (failures raise :class:`SignatureInvalid` instead)."""

    reason: str
    signer: str
    development: bool
    certificate: x509.Certificate


@dataclass
class SigningKey:
    key: ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey
    cert: x509.Certificate
    root: x509.Certificate
    directory: Path
    warnings: list[str] = field(default_factory=list)

    @property
    def development(self) -> bool:
        return is_development(self.cert)

    @property
    def algorithm(self) -> str:
        return algorithm_name(self.cert)


def algorithm_name(cert: x509.Certificate) -> str:
    """How a certificate's key signs: "ECDSA secp256r1 with SHA-256", "RSA-3072 with SHA-256"."""
    public = cert.public_key()
    if isinstance(public, ec.EllipticCurvePublicKey):
        return f"ECDSA {public.curve.name} with SHA-256"
    if isinstance(public, rsa.RSAPublicKey):
        return f"RSA-{public.key_size} with SHA-256"
    return f"{type(public).__name__} with SHA-256"


def fingerprint(cert: x509.Certificate) -> str:
    return cert.fingerprint(hashes.SHA256()).hex()


# ----------------------------------------------------------------------------- keys


def config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "certify"


def is_development(cert: x509.Certificate) -> bool:
    units = cert.subject.get_attributes_for_oid(NameOID.ORGANIZATIONAL_UNIT_NAME)
    return any(u.value == DEV_MARKER for u in units)


def _new_key(algorithm: str):
    if algorithm == "ecdsa-p256":
        return ec.generate_private_key(ec.SECP256R1())
    if algorithm == "rsa-3072":
        return rsa.generate_private_key(public_exponent=65537, key_size=3072)
    raise SigningError(f"unknown key algorithm {algorithm!r}: expected one of {', '.join(ALGORITHMS)}")


def _name(common_name: str, organization: str, unit: str | None) -> x509.Name:
    attrs = [x509.NameAttribute(NameOID.COMMON_NAME, common_name),
             x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization)]
    if unit:
        attrs.append(x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, unit))
    return x509.Name(attrs)


def _certificates(algorithm: str, organization: str, common_name: str, days: int, unit: str | None):
    now = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    start = now - dt.timedelta(hours=1)  # tolerate a verifier's clock running slightly behind
    root_key, signer_key = _new_key(algorithm), _new_key(algorithm)
    root_name = _name(f"{organization} report root CA", organization, unit)
    root_ski = x509.SubjectKeyIdentifier.from_public_key(root_key.public_key())
    root = (x509.CertificateBuilder().subject_name(root_name).issuer_name(root_name)
            .public_key(root_key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(start).not_valid_after(now + dt.timedelta(days=days + 365))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False,
                                         key_encipherment=False, data_encipherment=False, key_agreement=False,
                                         key_cert_sign=True, crl_sign=True, encipher_only=False,
                                         decipher_only=False), critical=True)
            .add_extension(root_ski, critical=False)
            .sign(root_key, hashes.SHA256()))
    signer = (x509.CertificateBuilder().subject_name(_name(common_name, organization, unit))
              .issuer_name(root_name).public_key(signer_key.public_key())
              .serial_number(x509.random_serial_number())
              .not_valid_before(start).not_valid_after(now + dt.timedelta(days=days))
              .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
              .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=True,
                                           key_encipherment=False, data_encipherment=False, key_agreement=False,
                                           key_cert_sign=False, crl_sign=False, encipher_only=False,
                                           decipher_only=False), critical=True)
              .add_extension(x509.SubjectKeyIdentifier.from_public_key(signer_key.public_key()), critical=False)
              .add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(root_ski), critical=False)
              .sign(root_key, hashes.SHA256()))
    return root_key, root, signer_key, signer


# ----------------------------------------------------------------------------- key encryption

_OID_PBES2 = "1.2.840.113549.1.5.13"
_OID_PBKDF2 = "1.2.840.113549.1.5.12"
_OID_SCRYPT = "1.3.6.1.4.1.11591.4.11"  # RFC 7914
_OID_AES256_CBC = "2.16.840.1.101.3.4.1.42"


def _asn1():
    """The PKCS#8 EncryptedPrivateKeyInfo with PBES2 (RFC 8018) and scrypt (RFC 7914) parameters.
    asn1crypto knows PBES2 with PBKDF2 only, so the structures are spelt out here."""
    from asn1crypto import core

    class ScryptParams(core.Sequence):
        _fields = [("salt", core.OctetString), ("cost", core.Integer), ("block_size", core.Integer),
                   ("parallelization", core.Integer), ("key_length", core.Integer, {"optional": True})]

    class Pbkdf2Params(core.Sequence):
        _fields = [("salt", core.Any), ("iterations", core.Integer), ("key_length", core.Integer, {"optional": True}),
                   ("prf", core.Any, {"optional": True})]

    class AlgorithmId(core.Sequence):
        _fields = [("algorithm", core.ObjectIdentifier), ("parameters", core.Any, {"optional": True})]

    class Pbes2Params(core.Sequence):
        _fields = [("kdf", AlgorithmId), ("cipher", AlgorithmId)]

    class EncryptedKey(core.Sequence):
        _fields = [("algorithm", AlgorithmId), ("data", core.OctetString)]

    return core, ScryptParams, Pbkdf2Params, AlgorithmId, Pbes2Params, EncryptedKey


def _encrypt_pkcs8(key, passphrase: bytes) -> bytes:
    """PEM ``ENCRYPTED PRIVATE KEY``: PKCS#8 under PBES2 with scrypt at :data:`SCRYPT_COST` and
    AES-256-CBC. (cryptography's BestAvailableEncryption writes PBKDF2 with 2,048 iterations and
    offers no other KDF for PKCS#8; it reads scrypt keys, and so does OpenSSL.)"""
    core, ScryptParams, _, AlgorithmId, Pbes2Params, EncryptedKey = _asn1()
    n, r, p = SCRYPT_COST
    salt, iv = os.urandom(16), os.urandom(16)
    secret = Scrypt(salt=salt, length=32, n=n, r=r, p=p).derive(passphrase)
    plain = key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8,
                              serialization.NoEncryption())
    padder = padding.PKCS7(128).padder()
    encryptor = Cipher(algorithms.AES(secret), modes.CBC(iv)).encryptor()
    data = encryptor.update(padder.update(plain) + padder.finalize()) + encryptor.finalize()
    kdf = AlgorithmId({"algorithm": _OID_SCRYPT, "parameters": ScryptParams(
        {"salt": salt, "cost": n, "block_size": r, "parallelization": p, "key_length": 32})})
    cipher = AlgorithmId({"algorithm": _OID_AES256_CBC, "parameters": core.OctetString(iv)})
    info = EncryptedKey({"algorithm": AlgorithmId({"algorithm": _OID_PBES2,
                                                   "parameters": Pbes2Params({"kdf": kdf, "cipher": cipher})}),
                         "data": data})
    body = binascii.b2a_base64(info.dump(), newline=False).decode()
    lines = [body[i:i + 64] for i in range(0, len(body), 64)]
    return ("-----BEGIN ENCRYPTED PRIVATE KEY-----\n" + "\n".join(lines) +
            "\n-----END ENCRYPTED PRIVATE KEY-----\n").encode()


def is_encrypted(key_pem: bytes) -> bool:
    """A PKCS#8 ``ENCRYPTED PRIVATE KEY``, or a legacy OpenSSL PEM with ``Proc-Type: 4,ENCRYPTED``."""
    head = key_pem[:300]
    return b"-----BEGIN ENCRYPTED PRIVATE KEY-----" in head or b"Proc-Type: 4,ENCRYPTED" in head


def key_encryption_weakness(key_pem: bytes) -> str | None:
    """Why an encrypted key is protected by less work than a key written now, or None."""
    from asn1crypto import pem

    core, ScryptParams, Pbkdf2Params, _, Pbes2Params, EncryptedKey = _asn1()
    if b"Proc-Type: 4,ENCRYPTED" in key_pem[:300]:
        return "it uses OpenSSL's legacy PEM encryption (one MD5 round of key derivation)"
    try:
        _, _, der = pem.unarmor(key_pem)
        info = EncryptedKey.load(der)
        scheme = info["algorithm"]["algorithm"].dotted
        if scheme != _OID_PBES2:
            return f"it is encrypted with the legacy scheme {scheme} (not PBES2)"
        kdf = Pbes2Params.load(info["algorithm"]["parameters"].dump())["kdf"]
        kdf_oid = kdf["algorithm"].dotted
        if kdf_oid == _OID_PBKDF2:
            rounds = Pbkdf2Params.load(kdf["parameters"].dump())["iterations"].native
            if rounds < PBKDF2_MIN_ITERATIONS:
                return f"its passphrase is stretched by PBKDF2 with only {rounds:,} iterations"
            return None
        if kdf_oid == _OID_SCRYPT:
            params = ScryptParams.load(kdf["parameters"].dump())
            n, r, p = (params[k].native for k in ("cost", "block_size", "parallelization"))
            if n * r * p < SCRYPT_COST[0] * SCRYPT_COST[1] * SCRYPT_COST[2]:
                return f"its passphrase is stretched by scrypt with N={n}, r={r}, p={p}, below N=2^14, r=8, p=5"
            return None
        return f"its key derivation {kdf_oid} is not one this suite writes"
    except (ValueError, TypeError, KeyError) as exc:
        return f"its encryption parameters cannot be read ({exc})"


# ----------------------------------------------------------------------------- passphrases

# The most common passwords of the public breach lists, and this tool's own words: a passphrase that
# is one of these (ignoring case, spaces, digits and punctuation around it) is refused.
_COMMON_WORDS = frozenset("""
password passphrase passwd passw0rd pass qwerty qwertz azerty letmein welcome admin administrator root
changeme secret default iloveyou monkey dragon football baseball master trustno1 sunshine princess
shadow superman michael login abc test testing guest certify certificate signing signer casino poker
blackjack baccarat roulette report key privatekey correcthorsebatterystaple
""".split())
_RUNS = ("abcdefghijklmnopqrstuvwxyz", "0123456789", "qwertyuiopasdfghjklzxcvbnm", "qwertzuiopasdfghjklyxcvbnm",
         "azertyuiopqsdfghjklmwxcvbn", "1qaz2wsx3edc4rfv5tgb6yhn7ujm8ik9ol0p")

_LEET = str.maketrans({"@": "a", "4": "a", "0": "o", "1": "i", "!": "i", "3": "e", "$": "s", "5": "s", "7": "t"})


def passphrase_problem(passphrase: bytes) -> str | None:
    """Why a passphrase is too easy to guess to protect a signing key, or None."""
    text = passphrase.decode("utf-8", errors="replace")
    if len(text) < MIN_PASSPHRASE_CHARS:
        return f"it has {len(text)} characters; at least {MIN_PASSPHRASE_CHARS} are needed"
    if len(set(text)) == 1:
        return "it is one character repeated"
    if len(set(text)) < 5:
        return f"it uses only {len(set(text))} different characters"
    folded = text.lower()
    for run in _RUNS:
        if folded in run * 4 or folded in run[::-1] * 4:
            return "it is a run of consecutive keys or characters"
    middle = re.sub(r"^[\W\d_]+|[\W\d_]+$", "", folded)  # "P@ssw0rd2024!" -> "p@ssw0rd"
    for core in (re.sub(r"[\W\d_]+", "", folded), re.sub(r"[\W\d_]+", "", middle.translate(_LEET))):
        if core in _COMMON_WORDS or any(core == word * k for word in _COMMON_WORDS for k in (2, 3)):
            return "it is a common password with digits or symbols around it"
    return None


def check_passphrase(passphrase: bytes, what: str = "the passphrase") -> None:
    problem = passphrase_problem(passphrase)
    if problem:
        raise WeakPassphrase(f"{what} is too easy to guess to protect a signing key: {problem}. Choose a "
                             f"passphrase of several unrelated words (at least {MIN_PASSPHRASE_CHARS} characters)")


# ----------------------------------------------------------------------------- key files


def _key_pem(key, passphrase: bytes | None) -> bytes:
    if not passphrase:
        return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                 serialization.NoEncryption())
    return _encrypt_pkcs8(key, passphrase)


def _cert_pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def _private_folder(directory: Path) -> None:
    """Make ``directory`` (mode 700), or accept an existing folder that is safe for keys as it is.

    An existing folder's mode is never changed (``--key-dir /tmp`` must not lock everyone out of
    /tmp): one that another user owns, or that group or others can write to (where a key or
    certificate could be swapped), is refused and a new folder asked for instead.
    """
    if not directory.exists():
        directory.parent.mkdir(parents=True, exist_ok=True)
        try:
            directory.mkdir(mode=0o700)
        except FileExistsError:  # created meanwhile by someone else: judge it as an existing folder
            return _private_folder(directory)
        os.chmod(directory, 0o700)  # ours, just made: make sure the umask left nothing open
        return
    info = directory.stat()
    if not stat.S_ISDIR(info.st_mode):
        raise SigningError(f"keygen: {directory} exists and is not a folder")
    if os.name == "posix":
        if info.st_uid != os.geteuid():
            raise SigningError(f"keygen: {directory} belongs to another user (uid {info.st_uid}); give a new "
                               "folder with --key-dir (keygen creates it, readable by you only)")
        if info.st_mode & 0o022:
            raise SigningError(f"keygen: {directory} can be written by group or others (mode "
                               f"{stat.S_IMODE(info.st_mode):o}), so a key there could be replaced; its mode is "
                               f"left as it is. Give a new folder, e.g. --key-dir {directory / 'certify-keys'} "
                               "(keygen creates it, readable by you only)")


def keygen(directory: Path, passphrase: bytes | None, algorithm: str = "ecdsa-p256",
           organization: str = "certify", common_name: str = "certify report signing",
           days: int = 825, force: bool = False, development: bool = False) -> dict[str, Path]:
    """Create the root CA and signing certificate in ``directory``; returns the written paths.

    ``passphrase`` encrypts both private keys (PKCS#8, scrypt) and must not be trivial
    (:func:`passphrase_problem`); only a development key is written without one.
    """
    if not development:
        if not passphrase:
            raise SigningError("keygen: a passphrase is required to encrypt the private keys")
        check_passphrase(passphrase, "keygen: the passphrase")
    if days < 1:
        raise SigningError(f"keygen: --days must be at least 1, got {days}")
    paths = {name: directory / name for name in KEY_FILES}
    existing = [str(p) for p in paths.values() if p.exists()]
    if existing and not force:
        raise SigningError(f"keygen: {existing[0]} already exists (use --force to replace the key)")
    unit = DEV_MARKER if development else None
    if directory.exists():  # refuse an unsafe folder before the work; a new one is made after it
        _private_folder(directory)
    root_key, root, signer_key, signer = _certificates(algorithm, organization, common_name, days, unit)
    _private_folder(directory)
    secret = None if development else passphrase
    atomic_write_many({paths[ROOT_CERT]: _cert_pem(root), paths[SIGNER_CERT]: _cert_pem(signer)})
    atomic_write_many({paths[ROOT_KEY]: _key_pem(root_key, secret),
                       paths[SIGNER_KEY]: _key_pem(signer_key, secret)}, private=True)
    return paths


def rekey(directory: Path, passphrase: bytes, new_passphrase: bytes) -> list[Path]:
    """Re-encrypt the private keys in ``directory`` under ``new_passphrase`` with today's scrypt cost
    (certificates unchanged); returns the key files rewritten. The way out for a key written with
    the old PBKDF2 (2,048 iterations) or under a trivial passphrase."""
    check_passphrase(new_passphrase, "rekey: the new passphrase")
    written = {}
    for name in (SIGNER_KEY, ROOT_KEY):
        path = directory / name
        if not path.exists():
            if name == SIGNER_KEY:
                raise SigningError(f"rekey: no signing key in {directory} ({SIGNER_KEY} not found)")
            continue
        pem = path.read_bytes()
        try:
            key = serialization.load_pem_private_key(pem, password=passphrase if is_encrypted(pem) else None)
        except (ValueError, TypeError) as exc:
            raise SigningError(f"rekey: cannot decrypt {path}: wrong passphrase or damaged key") from exc
        written[path] = _key_pem(key, new_passphrase)
    atomic_write_many(written, private=True)
    return list(written)


def development_dir(directory: Path | None = None) -> Path:
    return (directory or config_dir()) / "dev"


def has_configured_key(directory: Path | None = None) -> bool:
    directory = directory or config_dir()
    return (directory / SIGNER_CERT).exists() and (directory / SIGNER_KEY).exists()


def certificate_problems(cert: x509.Certificate, at: dt.datetime | None = None) -> list[str]:
    """Why ``cert`` may not sign a report at ``at`` (default now): outside its validity, a CA, or
    without the digitalSignature key usage. Empty when it may."""
    at = at or dt.datetime.now(dt.timezone.utc)
    problems = []
    if cert.not_valid_before_utc > at:
        problems.append(f"the signing certificate is not valid before {cert.not_valid_before_utc:%Y-%m-%d %H:%M} UTC")
    if cert.not_valid_after_utc < at:
        problems.append(f"the signing certificate expired on {cert.not_valid_after_utc:%Y-%m-%d %H:%M} UTC")
    try:
        if cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca:
            problems.append("the signing certificate is a CA certificate (basicConstraints CA=true); reports are "
                            "signed by an end-entity certificate")
    except x509.ExtensionNotFound:
        pass
    try:
        usage = cert.extensions.get_extension_for_class(x509.KeyUsage).value
        allowed = usage.digital_signature
    except x509.ExtensionNotFound:
        allowed = False
    if not allowed:
        problems.append("the signing certificate lacks the digitalSignature key usage")
    return problems


def check_signing_certificate(cert: x509.Certificate, root: x509.Certificate | None = None) -> None:
    """Refuse to sign with a certificate a verifier would refuse (and that the root beside it did not issue)."""
    problems = certificate_problems(cert)
    if root is not None:
        try:
            cert.verify_directly_issued_by(root)
        except (ValueError, TypeError, InvalidSignature) as exc:
            problems.append(f"the signing certificate was not issued by the root certificate beside it ({exc or 'bad signature'})")
    if problems:
        raise CertificateRefused(f"{describe(cert)}: refusing to sign: " + "; ".join(problems))


def _key_file_exposed(path: Path) -> str | None:
    if os.name != "posix":
        return None
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        return f"{path} can be read by group or others (mode {mode:o}; chmod 600 {path})"
    return None


def _read_key_folder(directory: Path):
    try:
        key_pem = (directory / SIGNER_KEY).read_bytes()
        cert = x509.load_pem_x509_certificate((directory / SIGNER_CERT).read_bytes())
        root = x509.load_pem_x509_certificate((directory / ROOT_CERT).read_bytes())
    except (OSError, ValueError) as exc:
        raise SigningError(f"cannot read the signing key in {directory}: {exc}") from exc
    return key_pem, cert, root


def load_signing_key(directory: Path | None = None,
                     passphrase: bytes | Callable[[], bytes] | None = None,
                     allow_insecure: bool = False) -> SigningKey:
    """The configured key in ``directory``; with no ``directory``, the key in the default folder or,
    only when that folder holds no key file at all, the development key (created on first use).

    An explicit ``directory`` without a key is an error, never a development key (a mistyped
    ``--key-dir`` must not sign with one). A production key that is not encrypted, is readable by
    group or others, or opens with a trivial passphrase is refused unless ``allow_insecure``. A key
    encrypted with an old, weak KDF loads, with a warning in ``warnings`` saying how to re-encrypt
    it. ``passphrase`` may be a callable so that a prompt only appears when a key needs it.
    """
    if directory is not None:
        directory = Path(directory)
        if not has_configured_key(directory):
            raise SigningError(f"--key-dir {directory}: no signing key there ({SIGNER_CERT} and {SIGNER_KEY} "
                               f"expected; create one with: certify keygen --key-dir {directory}). A development key "
                               "is used only when no --key-dir is given")
    else:
        directory = config_dir()
        if not has_configured_key(directory):
            partial = [name for name in KEY_FILES if (directory / name).exists()]
            if partial:
                raise SigningError(f"{directory} holds {', '.join(partial)} but not a complete signing key "
                                   f"({SIGNER_CERT} and {SIGNER_KEY}); refusing to fall back to a development key")
            directory = development_dir(directory)
            if not has_configured_key(directory):
                keygen(directory, None, organization="certify development", development=True,
                       common_name="certify DEVELOPMENT signing key (not for submission)")
            passphrase = None
    key_pem, cert, root = _read_key_folder(directory)
    development = is_development(cert)
    insecure: list[str] = []
    warnings: list[str] = []
    encrypted = is_encrypted(key_pem)
    secret = None
    if encrypted:
        secret = passphrase() if callable(passphrase) else passphrase
        if not secret:
            raise SigningError(f"{directory / SIGNER_KEY} is encrypted: give the passphrase "
                               f"(--passphrase-file or {PASSPHRASE_ENV})")
    try:
        key = serialization.load_pem_private_key(key_pem, password=secret)
    except (ValueError, TypeError) as exc:
        raise SigningError(f"cannot decrypt {directory / SIGNER_KEY}: wrong passphrase or damaged key") from exc
    if key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo) != \
            cert.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo):
        raise SigningError(f"{directory / SIGNER_KEY} does not belong to {directory / SIGNER_CERT}")
    if not development:
        if not encrypted:
            insecure.append(f"{directory / SIGNER_KEY} is not encrypted")
        elif passphrase_problem(secret):
            insecure.append(f"its passphrase is too easy to guess ({passphrase_problem(secret)})")
        exposed = _key_file_exposed(directory / SIGNER_KEY)
        if exposed:
            insecure.append(exposed)
        weakness = key_encryption_weakness(key_pem) if encrypted else None
        if weakness:
            warnings.append(f"{directory / SIGNER_KEY}: {weakness}; re-encrypt it with scrypt: "
                            f"certify rekey --key-dir {directory}")
    if insecure and not allow_insecure:
        raise InsecureKey(f"refusing the production signing key in {directory}: " + "; ".join(insecure) +
                          f". Re-encrypt it (certify rekey --key-dir {directory}) or fix its mode; "
                          "--allow-insecure-key uses it anyway")
    if insecure:
        warnings.append("insecure key used as asked (--allow-insecure-key): " + "; ".join(insecure))
    check_signing_certificate(cert, root)
    return SigningKey(key=key, cert=cert, root=root, directory=directory, warnings=warnings)


# ----------------------------------------------------------------------------- signing


def _pyhanko_signer(sk: SigningKey):
    from asn1crypto import keys as asn1_keys
    from asn1crypto import x509 as asn1_x509
    from pyhanko.sign import signers
    from pyhanko_certvalidator.registry import SimpleCertificateStore

    check_signing_certificate(sk.cert, sk.root)
    der_key = sk.key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8,
                                   serialization.NoEncryption())
    cert = asn1_x509.Certificate.load(sk.cert.public_bytes(serialization.Encoding.DER))
    root = asn1_x509.Certificate.load(sk.root.public_bytes(serialization.Encoding.DER))
    # The root is not embedded: the verifier must bring its own trust anchor.
    return signers.SimpleSigner(signing_cert=cert, signing_key=asn1_keys.PrivateKeyInfo.load(der_key),
                                cert_registry=SimpleCertificateStore.from_certs([root]), embed_roots=False)


def sign_pdf(pdf: bytes, sk: SigningKey) -> bytes:
    """A PAdES-signed copy of ``pdf`` with the visible field ``Signature1`` on the last page."""
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.pdf_utils.misc import PdfReadError
    from pyhanko.sign import fields, signers
    from pyhanko.stamp import TextStampStyle

    try:
        writer = IncrementalPdfFileWriter(io.BytesIO(pdf), strict=True)
    except (PdfReadError, ValueError) as exc:
        raise SigningError(f"not a readable PDF: {exc}") from exc
    if writer.prev.embedded_signatures:
        raise SigningError("the PDF is already signed (certify run signs its report; to sign with another key, "
                           "run certify run again with that key in the key folder)")
    meta = signers.PdfSignatureMetadata(
        field_name=SIGNATURE_FIELD, md_algorithm="sha256", subfilter=fields.SigSeedSubFilter.PADES,
        reason="Certification test report", name=_common_name(sk.cert))
    style = TextStampStyle(stamp_text="Digitally signed by:\n%(signer)s\nTime: %(ts)s\n"
                                      + ("DEVELOPMENT KEY - NOT FOR SUBMISSION" if sk.development
                                         else "PAdES signature over the whole file"),
                           border_width=1)
    pdf_signer = signers.PdfSigner(meta, signer=_pyhanko_signer(sk), stamp_style=style,
                                   new_field_spec=fields.SigFieldSpec(SIGNATURE_FIELD, on_page=-1, box=SIGNATURE_BOX))
    with pyhanko_clock_in_utc():
        out = pdf_signer.sign_pdf(writer, output=io.BytesIO())
    return out.getvalue()


@contextmanager
def pyhanko_clock_in_utc():
    """pyHanko dates what it writes (a signature's /M, the stamp's time, the document's /ModDate)
    in the zone tzlocal finds, and gives no way to pass the time: under a TZ that is no zoneinfo
    name (``TZ='<+1345>-13:45'``) it fails, and otherwise the signed bytes carry the signer's
    zone. Every pyHanko write goes through this: UTC."""
    import tzlocal

    local = tzlocal.get_localzone
    tzlocal.get_localzone = lambda: dt.timezone.utc
    try:
        yield
    finally:
        tzlocal.get_localzone = local


def describe(cert: x509.Certificate) -> str:
    """"Common name (O=..., OU=...)": how a signer is named to people."""
    return describe_name(cert.subject)


def describe_name(name: x509.Name) -> str:
    common = [str(a.value) for a in name.get_attributes_for_oid(NameOID.COMMON_NAME)]
    parts = [f"{label}={a.value}" for oid, label in ((NameOID.ORGANIZATION_NAME, "O"),
                                                      (NameOID.ORGANIZATIONAL_UNIT_NAME, "OU"))
             for a in name.get_attributes_for_oid(oid)]
    head = common[0] if common else name.rfc4514_string()
    return f"{head} ({', '.join(parts)})" if parts else head


def _common_name(cert: x509.Certificate) -> str:
    names = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    return str(names[0].value) if names else cert.subject.rfc4514_string()


def sign_detached(data: bytes, sk: SigningKey) -> bytes:
    """A detached CMS SignedData (DER) over ``data``: signer certificate, SHA-256, signed attributes."""
    signer = _pyhanko_signer(sk)
    from pyhanko.sign.signers.pdf_cms import PdfCMSSignedAttributes

    signed_at = PdfCMSSignedAttributes(signing_time=dt.datetime.now(dt.timezone.utc))  # not the local zone
    content_info = asyncio.run(signer.async_sign_general_data(data, "sha256", detached=True,
                                                              signed_attr_settings=signed_at))
    return content_info.dump()


def sign_file(path: Path, sk: SigningKey) -> Path:
    """Sign ``path`` in place (PDF) or next to it (``path.p7s``); returns the file written."""
    data = path.read_bytes()
    if is_pdf(data):
        return atomic_write(path, sign_pdf(data, sk))
    return atomic_write(Path(str(path) + SIGNATURE_SUFFIX), sign_detached(data, sk))


def is_pdf(data: bytes) -> bool:
    return data[:5] == b"%PDF-"


# ----------------------------------------------------------------------------- verification


def _validation_context(roots: list[x509.Certificate]):
    from asn1crypto import x509 as asn1_x509
    from pyhanko_certvalidator import ValidationContext

    trust = [asn1_x509.Certificate.load(r.public_bytes(serialization.Encoding.DER)) for r in roots]
    return ValidationContext(trust_roots=trust, allow_fetching=False, revocation_mode="soft-fail")


def _key_usage():
    from pyhanko.sign.validation.settings import KeyUsageConstraints

    return KeyUsageConstraints(key_usage={"digital_signature", "non_repudiation"}, match_all_key_usages=False)


def default_roots(directory: Path | None = None) -> list[x509.Certificate]:
    """The trust anchors when none is given: the configured root and this machine's development root."""
    directory = directory or config_dir()
    roots = []
    for d in (directory, development_dir(directory)):
        if (d / ROOT_CERT).exists():
            roots.append(x509.load_pem_x509_certificate((d / ROOT_CERT).read_bytes()))
    return roots


def load_root(path: Path) -> x509.Certificate:
    try:
        data = path.read_bytes()
        if b"-----BEGIN" in data:
            return x509.load_pem_x509_certificate(data)
        return x509.load_der_x509_certificate(data)
    except OSError as exc:
        raise SigningError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except ValueError:  # the parser's own text is a Rust debug dump; say what was expected instead
        raise SigningError(f"{path}: not an X.509 certificate: expected a PEM file (-----BEGIN CERTIFICATE-----) "
                           "or DER bytes, such as root-ca.crt.pem from certify keygen") from None


class _Invalid(Exception):
    pass


def _check_der(der: bytes, start: int = 0, end: int | None = None, depth: int = 0) -> None:
    """Walk the TLVs of ``der``: definite minimal lengths, canonical BOOLEAN and INTEGER (X.690 DER)."""
    end = len(der) if end is None else end
    if depth > 32:
        raise _Invalid("nesting too deep")
    pos = start
    while pos < end:
        tag = der[pos]
        if tag & 0x1F == 0x1F:
            raise _Invalid(f"high tag number form at byte {pos}")
        if pos + 1 >= end:
            raise _Invalid(f"truncated element at byte {pos}")
        first = der[pos + 1]
        pos += 2
        if first < 0x80:
            length = first
        else:
            count = first & 0x7F
            if count == 0 or count > 4 or pos + count > end:
                raise _Invalid(f"indefinite or malformed length at byte {pos - 1}")
            length = int.from_bytes(der[pos:pos + count], "big")
            if length < 0x80 or der[pos] == 0:
                raise _Invalid(f"non-minimal length at byte {pos - 1}")
            pos += count
        if pos + length > end:
            raise _Invalid(f"element at byte {pos} overruns its container")
        value = der[pos:pos + length]
        if tag == 0x01 and value not in (b"\x00", b"\xff"):
            raise _Invalid(f"non-canonical BOOLEAN at byte {pos}")
        if tag == 0x02 and (not value or (len(value) > 1 and (value[0] == 0 and value[1] < 0x80
                                                             or value[0] == 0xFF and value[1] >= 0x80))):
            raise _Invalid(f"non-minimal INTEGER at byte {pos}")
        if tag & 0x20:  # constructed: its contents are TLVs too
            _check_der(der, pos, pos + length, depth + 1)
        pos += length


def _strict_cms(der: bytes, where: str):
    """The CMS SignedData of ``der`` in exactly the shape this module signs.

    The signature covers the signed attributes and the certificate chain covers the certificate;
    everything else in the container (versions, the digest-algorithm set, the content type, the
    certificate and CRL sets, unsigned attributes) is not covered by any signature, so it must be
    exactly what a canonical signer writes: otherwise a changed byte there would go unnoticed.
    """
    from asn1crypto import cms

    try:
        _check_der(der)
        info = cms.ContentInfo.load(der, strict=True)
        if info["content_type"].native != "signed_data":
            raise _Invalid("the CMS object is not SignedData")
        sd = info["content"]
        signer_infos = list(sd["signer_infos"])
        certs = list(sd["certificates"]) if sd["certificates"].native is not None else []
        if sd["version"].native != "v1" or len(signer_infos) != 1:
            raise _Invalid("expected a version 1 SignedData with exactly one signer")
        si = signer_infos[0]
        if si["version"].native != "v1" or si["sid"].name != "issuer_and_serial_number":
            raise _Invalid("expected a version 1 SignerInfo identified by issuer and serial number")
        if [a.dump() for a in sd["digest_algorithms"]] != [si["digest_algorithm"].dump()]:
            raise _Invalid("the digest-algorithm set does not match the signer's digest algorithm")
        if sd["encap_content_info"]["content_type"].native != "data":
            raise _Invalid("the encapsulated content type is not id-data")
        if sd["crls"].native is not None or si["unsigned_attrs"].native is not None:
            raise _Invalid("unexpected CRLs or unsigned attributes")
        if si["signed_attrs"].native is None:
            raise _Invalid("the signature has no signed attributes")
        sid = si["sid"].chosen
        if len(certs) != 1 or certs[0].name != "certificate" or \
                certs[0].chosen.issuer.dump() != sid["issuer"].dump() or \
                certs[0].chosen.serial_number != sid["serial_number"].native:
            raise _Invalid("the certificate set must hold exactly the signing certificate")
        return info
    except _Invalid as exc:
        raise _Invalid(f"{where}: {exc}") from exc
    except (ValueError, TypeError, KeyError) as exc:
        raise _Invalid(f"{where}: not a well-formed CMS signature ({exc})") from exc


def _signer_name(status) -> str:
    subject = status.signing_cert.subject.native
    parts = [f"{label}={subject[key]}" for key, label in
             (("organization_name", "O"), ("organizational_unit_name", "OU")) if key in subject]
    return f"{subject.get('common_name', '?')} ({', '.join(parts)})" if parts else str(subject.get("common_name"))


def _status_problems(status, cert: x509.Certificate, roots: list[x509.Certificate]) -> list[str]:
    """Every reason the signature fails, naming the certificate's own defect (expired, not yet valid,
    a CA, no digitalSignature usage) rather than the generic "does not chain" it causes."""
    if not status.intact:  # nothing else about the signature means anything then
        return ["the document digest does not match the signed digest (content changed)"]
    problems = []
    if not status.valid:
        problems.append("the signature value is not valid for the signed attributes")
    defects = certificate_problems(cert)
    problems += defects
    if not status.trusted and not defects:
        problems.append(f"the signing certificate (issued by {describe_name(cert.issuer)}) does not chain to a "
                        f"trusted root (trusted: {'; '.join(describe(r) for r in roots)})")
    return problems


def _verified(status, problems: list[str], cert: x509.Certificate, reason: str,
              allow_development: bool) -> Verification:
    signer = _signer_name(status)
    if problems:
        raise SignatureInvalid(f"{'; '.join(problems)} (signer: {signer})")
    development = is_development(cert)
    if development and not allow_development:
        raise DevelopmentKeyRefused(f"signed with a DEVELOPMENT key ({signer}): valid, but not for submission "
                                    "(--allow-development accepts it)")
    return Verification(reason, signer, development, cert)


def _signing_certificate(status) -> x509.Certificate:
    return x509.load_der_x509_certificate(status.signing_cert.dump())


# pyHanko writes /Contents as upper-case hex: requiring exactly that makes the encoding canonical
# (a flipped letter case or inserted whitespace would decode to the same bytes otherwise).
_HEX_CONTENTS = re.compile(rb"^<([0-9A-F]*)>$")


def _check_contents_gap(data: bytes, byte_range: list[int]) -> tuple[bytes, bytes]:
    """The signature container from the ByteRange gap, proving every byte of the gap is accounted for."""
    if len(byte_range) != 4 or byte_range[0] != 0:
        raise _Invalid("the signature's byte range does not start at the first byte")
    start, gap_end = byte_range[1], byte_range[2]
    if byte_range[2] + byte_range[3] != len(data):
        raise _Invalid("the signature's byte range does not reach the last byte of the file")
    match = _HEX_CONTENTS.match(data[start:gap_end])
    if not match:
        raise _Invalid("the signature container (/Contents) is not the canonical hex string it was written as")
    raw = binascii.unhexlify(match.group(1))
    header_len, body_len = _der_length(raw)
    der, padding = raw[: header_len + body_len], raw[header_len + body_len:]
    if padding.strip(b"\x00"):
        raise _Invalid("the padding after the signature in /Contents was changed")
    return raw, der


def _der_length(raw: bytes) -> tuple[int, int]:
    if len(raw) < 2 or raw[0] != 0x30:
        raise _Invalid("the signature container does not start with a DER SEQUENCE")
    first = raw[1]
    if first < 0x80:
        return 2, first
    count = first & 0x7F
    if not 1 <= count <= 4 or len(raw) < 2 + count:
        raise _Invalid("the signature container has a malformed DER length")
    return 2 + count, int.from_bytes(raw[2: 2 + count], "big")


def verify_pdf(data: bytes, roots: list[x509.Certificate], allow_development: bool = False) -> Verification:
    """Verify a signed PDF; raises :class:`SignatureInvalid` naming every reason it fails."""
    from pyhanko.pdf_utils.reader import PdfFileReader
    from pyhanko.sign.diff_analysis import ModificationLevel
    from pyhanko.sign.validation import validate_pdf_signature
    from pyhanko.sign.validation.status import SignatureCoverageLevel

    try:
        reader = PdfFileReader(io.BytesIO(data), strict=True)
        signatures = reader.embedded_signatures
    except Exception as exc:  # pyHanko raises many types on a damaged file; all mean "not valid"
        raise SignatureInvalid(f"not a readable PDF ({type(exc).__name__}: {exc})") from None
    if len(signatures) != 1:
        raise SignatureInvalid(f"expected exactly one signature, found {len(signatures)}")
    sig = signatures[0]
    try:
        gap_raw, gap_der = _check_contents_gap(data, [int(x) for x in sig.byte_range])
        if gap_raw != sig.pkcs7_content:
            raise _Invalid("the signature container read by the PDF parser differs from the bytes in the file")
        _strict_cms(gap_der, "PDF signature")
        status = validate_pdf_signature(sig, _validation_context(roots), key_usage_settings=_key_usage())
    except _Invalid as exc:
        raise SignatureInvalid(str(exc)) from None
    except Exception as exc:  # malformed signature objects surface as assorted exceptions
        raise SignatureInvalid(f"the signature cannot be validated ({type(exc).__name__}: {exc})") from None
    cert = _signing_certificate(status)
    problems = _status_problems(status, cert, roots)
    if status.coverage != SignatureCoverageLevel.ENTIRE_FILE:
        problems.append(f"the signature does not cover the entire file (coverage {status.coverage.name}; "
                        "bytes or an incremental update were added after signing)")
    if status.modification_level not in (None, ModificationLevel.NONE):
        problems.append(f"the document was modified after signing ({status.modification_level.name})")
    return _verified(status, problems, cert, f"PAdES signature in field {sig.field_name} is intact, valid, "
                                             "trusted and covers the entire file", allow_development)


def verify_detached(data: bytes, signature: bytes, roots: list[x509.Certificate],
                    allow_development: bool = False) -> Verification:
    """Verify ``data`` against a detached CMS signature; raises :class:`SignatureInvalid` if it fails."""
    from pyhanko.sign.validation.generic_cms import async_validate_detached_cms

    try:
        info = _strict_cms(signature, "detached signature")
        signed_data = info["content"]
        if signed_data["encap_content_info"]["content"].native is not None:
            raise _Invalid("detached signature: the CMS object embeds content (expected detached)")
        status = asyncio.run(async_validate_detached_cms(data, signed_data, _validation_context(roots),
                                                         key_usage_settings=_key_usage()))
    except _Invalid as exc:
        raise SignatureInvalid(str(exc)) from None
    except Exception as exc:
        raise SignatureInvalid(f"the signature cannot be validated ({type(exc).__name__}: {exc})") from None
    cert = _signing_certificate(status)
    return _verified(status, _status_problems(status, cert, roots), cert,
                     "detached CMS signature is intact, valid, trusted and covers the entire file", allow_development)


def verify_file(path: Path, roots: list[x509.Certificate], signature: Path | None = None,
                allow_development: bool = False) -> Verification:
    """Verify a signed PDF, or any file against its detached ``.p7s`` (``signature`` or ``path.p7s``).
    Returns only on success; any failure raises :class:`SignatureInvalid`."""
    if not roots:
        raise SigningError("no trusted root: give --root CERT (or create a key with certify keygen)")
    data = path.read_bytes()
    if signature is None and is_pdf(data):
        return verify_pdf(data, roots, allow_development)
    sig_path = signature or Path(str(path) + SIGNATURE_SUFFIX)
    if not sig_path.exists():
        if path.suffix.lower() == ".pdf":  # named like a report but not one: say so, not only 'no .p7s'
            raise SignatureInvalid(f"not a PDF (it does not start with %PDF-) and no detached signature "
                                   f"{sig_path} beside it")
        raise SignatureInvalid(f"no signature: {sig_path} not found")
    return verify_detached(data, sig_path.read_bytes(), roots, allow_development)
