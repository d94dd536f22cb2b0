"""Keys, certificates, signing and verification of reports.

* ``keygen``: a root CA and a signing certificate under it (ECDSA P-256 or RSA-3072; key usage
  digitalSignature + nonRepudiation), private keys as passphrase-encrypted PKCS#8.
* PDF: a PAdES signature (ETSI.CAdES.detached, pyHanko) in the visible field ``Signature1``.
* Anything else (the JSON report): a detached CMS SignedData in DER, written next to the file as
  ``FILE.p7s`` (``openssl cms -verify -binary -inform DER -in FILE.p7s -content FILE -CAfile ROOT``
  checks it too).
* ``verify``: valid only when the signature is intact (the document digest matches), valid (the
  signature math), trusted (chains to the root) and covers the whole file; for a PDF also when
  nothing follows the signed revision and the signature container in /Contents is exactly the
  canonical hex of the DER plus zero padding, so not one byte of the file can change unnoticed.

Key folder (``--key-dir``; default ``$XDG_CONFIG_HOME/certify`` or ``~/.config/certify``):
``root-ca.crt.pem``, ``root-ca.key.pem``, ``signer.crt.pem``, ``signer.key.pem``. With no key
there, the first signing creates a DEVELOPMENT key in its ``dev/`` subfolder: its private key is
stored UNENCRYPTED (it protects nothing and says so: its certificate's organisational unit is
:data:`DEV_MARKER`, and every report it signs says it is not for submission).
"""

from __future__ import annotations

import asyncio
import binascii
import datetime as dt
import io
import logging
import os
import re
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID

from certify.atomic import atomic_write, atomic_write_many

ALGORITHMS = ("ecdsa-p256", "rsa-3072")
DEV_MARKER = "DEVELOPMENT KEY - NOT FOR SUBMISSION"
PASSPHRASE_ENV = "CERTIFY_KEY_PASSPHRASE"
ROOT_CERT, ROOT_KEY = "root-ca.crt.pem", "root-ca.key.pem"
SIGNER_CERT, SIGNER_KEY = "signer.crt.pem", "signer.key.pem"
SIGNATURE_SUFFIX = ".p7s"

# pyHanko logs a traceback for every certificate path it cannot build; the reason is reported by
# verify itself, so keep the library quiet unless the application configures logging.
logging.getLogger("pyhanko").addHandler(logging.NullHandler())
logging.getLogger("pyhanko_certvalidator").addHandler(logging.NullHandler())


class SigningError(Exception):
    """A key, certificate or file problem before any signature exists (a usage error)."""


@dataclass(frozen=True)
class Verification:
    ok: bool
    reason: str
    signer: str = ""
    development: bool = False


@dataclass
class SigningKey:
    key: ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey
    cert: x509.Certificate
    root: x509.Certificate
    directory: Path

    @property
    def development(self) -> bool:
        return is_development(self.cert)

    @property
    def algorithm(self) -> str:
        if isinstance(self.key, ec.EllipticCurvePrivateKey):
            return f"ECDSA {self.key.curve.name} with SHA-256"
        return f"RSA-{self.key.key_size} with SHA-256"

    def info(self):
        """The signer as the report prints it (a :class:`certify.report.model.SignerInfo`)."""
        from certify.report.model import SignerInfo

        return SignerInfo(subject=describe_name(self.cert.subject), issuer=describe_name(self.cert.issuer),
                          fingerprint_sha256=self.cert.fingerprint(hashes.SHA256()).hex(),
                          algorithm=self.algorithm, development=self.development)


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


def _key_pem(key, passphrase: bytes | None) -> bytes:
    encryption = (serialization.BestAvailableEncryption(passphrase) if passphrase
                  else serialization.NoEncryption())
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption)


def _cert_pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def keygen(directory: Path, passphrase: bytes | None, algorithm: str = "ecdsa-p256",
           organization: str = "certify", common_name: str = "certify report signing",
           days: int = 825, force: bool = False, development: bool = False) -> dict[str, Path]:
    """Create the root CA and signing certificate in ``directory``; returns the written paths.

    ``passphrase`` encrypts both private keys (PKCS#8, best available encryption); only a
    development key may be written without one.
    """
    if not passphrase and not development:
        raise SigningError("keygen: a passphrase is required to encrypt the private keys")
    if days < 1:
        raise SigningError(f"keygen: --days must be at least 1, got {days}")
    paths = {name: directory / name for name in (ROOT_CERT, ROOT_KEY, SIGNER_CERT, SIGNER_KEY)}
    existing = [str(p) for p in paths.values() if p.exists()]
    if existing and not force:
        raise SigningError(f"keygen: {existing[0]} already exists (use --force to replace the key)")
    unit = DEV_MARKER if development else None
    root_key, root, signer_key, signer = _certificates(algorithm, organization, common_name, days, unit)
    directory.mkdir(parents=True, exist_ok=True)
    os.chmod(directory, 0o700)
    atomic_write_many({paths[ROOT_CERT]: _cert_pem(root), paths[SIGNER_CERT]: _cert_pem(signer)})
    atomic_write_many({paths[ROOT_KEY]: _key_pem(root_key, passphrase),
                       paths[SIGNER_KEY]: _key_pem(signer_key, passphrase)}, private=True)
    return paths


def development_dir(directory: Path | None = None) -> Path:
    return (directory or config_dir()) / "dev"


def has_configured_key(directory: Path | None = None) -> bool:
    directory = directory or config_dir()
    return (directory / SIGNER_CERT).exists() and (directory / SIGNER_KEY).exists()


def load_signing_key(directory: Path | None = None,
                     passphrase: bytes | Callable[[], bytes] | None = None) -> SigningKey:
    """The configured key in ``directory``; without one, the development key (created on first use).

    ``passphrase`` may be a callable so that a prompt only appears when a key needs it.
    """
    directory = directory or config_dir()
    if not has_configured_key(directory):
        directory = development_dir(directory)
        if not has_configured_key(directory):
            keygen(directory, None, organization="certify development", development=True,
                   common_name="certify DEVELOPMENT signing key (not for submission)")
        passphrase = None
    try:
        key_pem = (directory / SIGNER_KEY).read_bytes()
        cert = x509.load_pem_x509_certificate((directory / SIGNER_CERT).read_bytes())
        root = x509.load_pem_x509_certificate((directory / ROOT_CERT).read_bytes())
    except (OSError, ValueError) as exc:
        raise SigningError(f"cannot read the signing key in {directory}: {exc}") from exc
    encrypted = b"ENCRYPTED" in key_pem.split(b"\n", 1)[0]
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
    return SigningKey(key=key, cert=cert, root=root, directory=directory)


# ----------------------------------------------------------------------------- signing


def _pyhanko_signer(sk: SigningKey):
    from asn1crypto import keys as asn1_keys
    from asn1crypto import x509 as asn1_x509
    from pyhanko.sign import signers
    from pyhanko_certvalidator.registry import SimpleCertificateStore

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

    from certify.report.pdf import SIGNATURE_BOX, SIGNATURE_FIELD

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


def _status_problems(status) -> list[str]:
    if not status.intact:  # nothing else about the signature means anything then
        return ["the document digest does not match the signed digest (content changed)"]
    problems = []
    if not status.valid:
        problems.append("the signature value is not valid for the signed attributes")
    if not status.trusted:
        problems.append("the signing certificate does not chain to a trusted root")
    return problems


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


def verify_pdf(data: bytes, roots: list[x509.Certificate]) -> Verification:
    from pyhanko.pdf_utils.reader import PdfFileReader
    from pyhanko.sign.diff_analysis import ModificationLevel
    from pyhanko.sign.validation import validate_pdf_signature
    from pyhanko.sign.validation.status import SignatureCoverageLevel

    try:
        reader = PdfFileReader(io.BytesIO(data), strict=True)
        signatures = reader.embedded_signatures
    except Exception as exc:  # pyHanko raises many types on a damaged file; all mean "not valid"
        return Verification(False, f"not a readable PDF ({type(exc).__name__}: {exc})")
    if len(signatures) != 1:
        return Verification(False, f"expected exactly one signature, found {len(signatures)}")
    sig = signatures[0]
    try:
        gap_raw, gap_der = _check_contents_gap(data, [int(x) for x in sig.byte_range])
        if gap_raw != sig.pkcs7_content:
            raise _Invalid("the signature container read by the PDF parser differs from the bytes in the file")
        _strict_cms(gap_der, "PDF signature")
        status = validate_pdf_signature(sig, _validation_context(roots), key_usage_settings=_key_usage())
    except _Invalid as exc:
        return Verification(False, str(exc))
    except Exception as exc:  # malformed signature objects surface as assorted exceptions
        return Verification(False, f"the signature cannot be validated ({type(exc).__name__}: {exc})")
    problems = _status_problems(status)
    if status.coverage != SignatureCoverageLevel.ENTIRE_FILE:
        problems.append(f"the signature does not cover the entire file (coverage {status.coverage.name}; "
                        "bytes or an incremental update were added after signing)")
    if status.modification_level not in (None, ModificationLevel.NONE):
        problems.append(f"the document was modified after signing ({status.modification_level.name})")
    signer = _signer_name(status)
    if problems:
        return Verification(False, "; ".join(problems), signer)
    return Verification(True, f"PAdES signature in field {sig.field_name} is intact, valid, trusted and "
                              "covers the entire file", signer, _dev(status))


def _dev(status) -> bool:
    return any(DEV_MARKER == v for v in status.signing_cert.subject.native.values()
               if isinstance(v, str))


def verify_detached(data: bytes, signature: bytes, roots: list[x509.Certificate]) -> Verification:
    from pyhanko.sign.validation.generic_cms import async_validate_detached_cms

    try:
        info = _strict_cms(signature, "detached signature")
        signed_data = info["content"]
        if signed_data["encap_content_info"]["content"].native is not None:
            raise _Invalid("detached signature: the CMS object embeds content (expected detached)")
        status = asyncio.run(async_validate_detached_cms(data, signed_data, _validation_context(roots),
                                                         key_usage_settings=_key_usage()))
    except _Invalid as exc:
        return Verification(False, str(exc))
    except Exception as exc:
        return Verification(False, f"the signature cannot be validated ({type(exc).__name__}: {exc})")
    problems = _status_problems(status)
    signer = _signer_name(status)
    if problems:
        return Verification(False, "; ".join(problems), signer)
    return Verification(True, "detached CMS signature is intact, valid, trusted and covers the entire file",
                        signer, _dev(status))


def verify_file(path: Path, roots: list[x509.Certificate], signature: Path | None = None) -> Verification:
    """Verify a signed PDF, or any file against its detached ``.p7s`` (``signature`` or ``path.p7s``)."""
    if not roots:
        raise SigningError("no trusted root: give --root CERT (or create a key with certify keygen)")
    data = path.read_bytes()
    if signature is None and is_pdf(data):
        return verify_pdf(data, roots)
    sig_path = signature or Path(str(path) + SIGNATURE_SUFFIX)
    if not sig_path.exists():
        if path.suffix.lower() == ".pdf":  # named like a report but not one: say so, not only 'no .p7s'
            return Verification(False, f"not a PDF (it does not start with %PDF-) and no detached signature "
                                       f"{sig_path} beside it")
        return Verification(False, f"no signature: {sig_path} not found")
    return verify_detached(data, sig_path.read_bytes(), roots)
