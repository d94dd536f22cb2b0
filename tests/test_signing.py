"""Keys, PAdES and detached CMS signatures, and verification that no changed byte gets through."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from certify import signing
from certify.cli import cli
from certify.report import SignerInfo, build_content, render
from test_report_model import sample_input


PASSPHRASE = b"tall lamp orbits quietly"


def _verifies(verify, *args, **kwargs) -> bool:
    """True when ``verify`` returns; False when it raises SignatureInvalid (its only way to fail)."""
    try:
        verify(*args, **kwargs)
    except signing.SignatureInvalid:
        return False
    return True


def _reason(verify, *args, **kwargs) -> str:
    with pytest.raises(signing.SignatureInvalid) as err:
        verify(*args, **kwargs)
    return str(err.value)


@pytest.fixture(scope="module")
def report_bytes() -> tuple[bytes, bytes]:
    return render(build_content(sample_input()))


@pytest.fixture(scope="module")
def key_dir(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("keys") / "certify"
    signing.keygen(directory, PASSPHRASE, organization="Test Lab", common_name="Test Lab report signing")
    return directory


@pytest.fixture(scope="module")
def key(key_dir) -> signing.SigningKey:
    return signing.load_signing_key(key_dir, PASSPHRASE)


@pytest.fixture(scope="module")
def signed_pdf(report_bytes, key) -> bytes:
    return signing.sign_pdf(report_bytes[0], key)


@pytest.fixture(scope="module")
def signed_json(report_bytes, key) -> tuple[bytes, bytes]:
    return report_bytes[1], signing.sign_detached(report_bytes[1], key)


def _flip(data: bytes, i: int) -> bytes:
    out = bytearray(data)
    out[i] ^= 0x01  # the smallest change: one bit (also turns 'A' into '@', '0' into '1')
    return bytes(out)


def _positions(data: bytes, gap: tuple[int, int] | None = None, step: int = 307, gap_step: int = 29) -> list[int]:
    """The first and last 40 bytes, the middle, every ``step``-th byte, and densely inside the signature
    (every byte of the signature container: ``-m slow``)."""
    n = len(data)
    picks = set(range(0, 40)) | set(range(n - 40, n)) | set(range(0, n, step)) | {n // 2}
    if gap:
        start, end = gap
        picks |= set(range(start, start + 120)) | set(range(end - 8, end)) | set(range(start, end, gap_step))
    return sorted(picks)


# ----------------------------------------------------------------------------- keys


def test_keygen_writes_encrypted_keys_and_a_proper_chain(key_dir, key):
    for name in (signing.ROOT_KEY, signing.SIGNER_KEY):
        assert (key_dir / name).read_bytes().startswith(b"-----BEGIN ENCRYPTED PRIVATE KEY-----")
        assert (key_dir / name).stat().st_mode & 0o077 == 0
    assert isinstance(key.key, ec.EllipticCurvePrivateKey) and key.key.curve.name == "secp256r1"
    usage = key.cert.extensions.get_extension_for_class(x509.KeyUsage).value
    assert usage.digital_signature and usage.content_commitment and not usage.key_cert_sign
    assert not key.cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    assert key.root.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    assert key.cert.issuer == key.root.subject and not key.development
    key.cert.verify_directly_issued_by(key.root)


def test_wrong_or_missing_passphrase_is_refused(key_dir):
    with pytest.raises(signing.SigningError, match="wrong passphrase"):
        signing.load_signing_key(key_dir, b"battery staple horse")
    with pytest.raises(signing.SigningError, match="encrypted"):
        signing.load_signing_key(key_dir, None)
    with pytest.raises(signing.SigningError, match="already exists"):
        signing.keygen(key_dir, PASSPHRASE)


def test_rsa_3072(tmp_path, report_bytes):
    signing.keygen(tmp_path / "k", PASSPHRASE, algorithm="rsa-3072")
    key = signing.load_signing_key(tmp_path / "k", lambda: PASSPHRASE)
    assert isinstance(key.key, rsa.RSAPrivateKey) and key.key.key_size == 3072
    signed = signing.sign_pdf(report_bytes[0], key)  # the module's report (a render costs ~0.5 s)
    signing.verify_pdf(signed, [key.root])


def test_first_use_makes_a_development_key(tmp_path, monkeypatch, report_bytes):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    key = signing.load_signing_key()
    assert key.directory == tmp_path / "certify" / "dev" and key.development
    assert (key.directory / signing.SIGNER_KEY).read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    again = signing.load_signing_key()
    assert again.cert == key.cert  # created once, then reused
    signed = signing.sign_pdf(report_bytes[0], key)
    with pytest.raises(signing.DevelopmentKeyRefused, match="--allow-development"):
        signing.verify_pdf(signed, signing.default_roots())
    result = signing.verify_pdf(signed, signing.default_roots(), allow_development=True)
    assert result.development and "DEVELOPMENT" in result.signer


# ----------------------------------------------------------------------------- PDF


def _gap(pdf: bytes) -> tuple[int, int]:
    from pyhanko.pdf_utils.reader import PdfFileReader

    br = PdfFileReader(io.BytesIO(pdf)).embedded_signatures[0].byte_range
    return int(br[1]), int(br[2])


def test_signed_pdf_verifies_and_names_the_signer(signed_pdf, key):
    result = signing.verify_pdf(signed_pdf, [key.root])
    assert "Test Lab report signing" in result.signer and not result.development
    assert "entire file" in result.reason


def test_signed_pdf_has_a_visible_pades_field(signed_pdf):
    from pyhanko.pdf_utils.reader import PdfFileReader

    sig = PdfFileReader(io.BytesIO(signed_pdf)).embedded_signatures[0]
    assert sig.field_name == "Signature1"
    assert sig.sig_object["/SubFilter"] == "/ETSI.CAdES.detached"
    rect = [float(x) for x in sig.sig_field["/Rect"]]
    assert rect[2] - rect[0] > 100 and rect[3] - rect[1] > 40  # visible, not a zero-size widget


def test_every_flipped_byte_of_the_pdf_fails(signed_pdf, key):
    gap = _gap(signed_pdf)
    positions = _positions(signed_pdf, gap)
    assert len(positions) > 300
    passed = [i for i in positions if _verifies(signing.verify_pdf, _flip(signed_pdf, i), [key.root])]
    assert passed == []


def test_changed_letter_case_inside_the_signature_fails(signed_pdf, key):
    start, end = _gap(signed_pdf)
    i = next(j for j in range(start + 1, end) if signed_pdf[j:j + 1] in b"ABCDEF")
    changed = signed_pdf[:i] + signed_pdf[i:i + 1].lower() + signed_pdf[i + 1:]
    assert "/Contents" in _reason(signing.verify_pdf, changed, [key.root])


def test_appended_bytes_and_incremental_updates_fail(signed_pdf, key):
    from pyhanko.pdf_utils import generic
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter

    for tail in (b"\n", b" ", b"%%EOF\n"):
        assert not _verifies(signing.verify_pdf, signed_pdf + tail, [key.root]), tail
    writer = IncrementalPdfFileWriter(io.BytesIO(signed_pdf))
    writer.set_info(generic.DictionaryObject({generic.NameObject("/Title"): generic.TextStringObject("edited")}))
    out = io.BytesIO()
    with signing.pyhanko_clock_in_utc():  # pyHanko dates the edit; the TZ may be no zoneinfo name
        writer.write(out)
    assert not _verifies(signing.verify_pdf, out.getvalue(), [key.root])


def test_pdf_against_another_root_or_unsigned_fails(signed_pdf, report_bytes, tmp_path):
    signing.keygen(tmp_path / "k", PASSPHRASE)
    other = signing.load_signing_key(tmp_path / "k", PASSPHRASE).root
    assert "trusted root" in _reason(signing.verify_pdf, signed_pdf, [other])
    assert "found 0" in _reason(signing.verify_pdf, report_bytes[0], [other])


def test_a_file_named_pdf_that_is_not_one_is_called_so(key, tmp_path):
    fake = tmp_path / "report.pdf"
    fake.write_text("hello")
    reason = _reason(signing.verify_file, fake, [key.root])
    assert "not a PDF" in reason and "report.pdf.p7s" in reason


def test_a_root_that_is_not_a_certificate_is_named_plainly(tmp_path):
    bogus = tmp_path / "root.pem"
    bogus.write_text("hello")
    with pytest.raises(signing.SigningError, match=r"root.pem: not an X.509 certificate: expected a PEM file") as err:
        signing.load_root(bogus)
    assert "ParseError" not in str(err.value)


def test_a_signed_pdf_cannot_be_signed_twice(signed_pdf, key):
    with pytest.raises(signing.SigningError, match="already signed .*certify run again with that key"):
        signing.sign_pdf(signed_pdf, key)


# ----------------------------------------------------------------------------- JSON / detached


def test_detached_signature_verifies(signed_json, key):
    data, sig = signed_json
    result = signing.verify_detached(data, sig, [key.root])
    assert "Test Lab" in result.signer


def test_every_changed_byte_of_the_json_fails(signed_json, key):
    data, sig = signed_json
    bad = [i for i in _positions(data, step=401) if _verifies(signing.verify_detached, _flip(data, i), sig, [key.root])]
    assert bad == []
    assert not _verifies(signing.verify_detached, data + b"\n", sig, [key.root])
    assert not _verifies(signing.verify_detached, data[:-1], sig, [key.root])


def test_changed_bytes_of_the_signature_file_fail(signed_json, key):
    data, sig = signed_json
    positions = sorted(set(range(0, 120)) | set(range(0, len(sig), 7)) | set(range(len(sig) - 16, len(sig))))
    bad = [i for i in positions if _verifies(signing.verify_detached, data, _flip(sig, i), [key.root])]
    assert bad == []
    assert not _verifies(signing.verify_detached, data, sig + b"\x00", [key.root])


@pytest.mark.slow
def test_every_single_byte_of_the_signature_file_and_the_pdf_signature(signed_json, signed_pdf, key):
    data, sig = signed_json
    assert [i for i in range(len(sig)) if _verifies(signing.verify_detached, data, _flip(sig, i), [key.root])] == []
    start, end = _gap(signed_pdf)
    assert [i for i in range(start, end) if _verifies(signing.verify_pdf, _flip(signed_pdf, i), [key.root])] == []


def test_openssl_agrees(signed_json, key, tmp_path):
    if shutil.which("openssl") is None:
        pytest.skip("openssl not installed")
    data, sig = signed_json
    from cryptography.hazmat.primitives.serialization import Encoding

    (tmp_path / "r.json").write_bytes(data)
    (tmp_path / "r.json.p7s").write_bytes(sig)
    (tmp_path / "root.pem").write_bytes(key.root.public_bytes(Encoding.PEM))
    cmd = ["openssl", "cms", "-verify", "-binary", "-inform", "DER", "-in", "r.json.p7s", "-content", "r.json",
           "-CAfile", "root.pem", "-purpose", "any", "-out", "/dev/null"]
    assert subprocess.run(cmd, cwd=tmp_path, capture_output=True).returncode == 0
    (tmp_path / "r.json").write_bytes(_flip(data, 10))
    assert subprocess.run(cmd, cwd=tmp_path, capture_output=True).returncode != 0


# ----------------------------------------------------------------------------- the commands


def test_cli_keygen_sign_verify(tmp_path, report_bytes, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.delenv("CERTIFY_KEY_PASSPHRASE", raising=False)
    runner = CliRunner()
    (tmp_path / "pass").write_text(PASSPHRASE.decode() + "\n")
    res = runner.invoke(cli, ["keygen", "--passphrase-file", str(tmp_path / "pass"), "--organization", "Lab"])
    assert res.exit_code == 0, res.output
    cert = x509.load_pem_x509_certificate((tmp_path / "cfg" / "certify" / signing.SIGNER_CERT).read_bytes())
    unsigned_pdf, unsigned_json = render(build_content(sample_input(signer=SignerInfo.of_certificate(cert))))
    pdf, js = tmp_path / "r.pdf", tmp_path / "r.json"
    pdf.write_bytes(unsigned_pdf)
    js.write_bytes(unsigned_json)
    res = runner.invoke(cli, ["sign", str(pdf)])
    assert res.exit_code == 2 and "passphrase" in res.output  # encrypted key, no passphrase given
    monkeypatch.setenv("CERTIFY_KEY_PASSPHRASE", PASSPHRASE.decode())
    for f in (pdf, js):
        res = runner.invoke(cli, ["sign", str(f)])
        assert res.exit_code == 0, res.output
        res = runner.invoke(cli, ["verify", str(f)])
        assert res.exit_code == 0 and "Lab" in res.output, res.output
    root = tmp_path / "cfg" / "certify" / signing.ROOT_CERT
    assert runner.invoke(cli, ["verify", str(pdf), "--root", str(root)]).exit_code == 0
    res = runner.invoke(cli, ["verify", str(pdf), str(js), "--root", str(root)])
    assert res.exit_code == 0 and "SAME REPORT" in res.output, res.output
    pdf.write_bytes(_flip(pdf.read_bytes(), 200))
    res = runner.invoke(cli, ["verify", str(pdf)])
    assert res.exit_code == 1 and "INVALID" in res.output
    js.write_bytes(js.read_bytes() + b" ")
    assert runner.invoke(cli, ["verify", str(js)]).exit_code == 1
    (tmp_path / "r.json.p7s").unlink()
    res = runner.invoke(cli, ["verify", str(js)])
    assert res.exit_code == 1 and "no signature" in res.output


def test_cli_usage_errors_exit_2(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    runner = CliRunner()
    assert runner.invoke(cli, ["verify", str(tmp_path / "missing.pdf")]).exit_code == 2
    (tmp_path / "f.pdf").write_bytes(b"%PDF-1.4\n")
    res = runner.invoke(cli, ["verify", str(tmp_path / "f.pdf")])
    assert res.exit_code == 2 and "no trusted root" in res.output  # nothing configured to trust
    (tmp_path / "bad.pem").write_text("not a certificate")
    res = runner.invoke(cli, ["verify", str(tmp_path / "f.pdf"), "--root", str(tmp_path / "bad.pem")])
    assert res.exit_code == 2 and "X.509" in res.output
    assert runner.invoke(cli, ["keygen", "--algorithm", "dsa"]).exit_code == 2
    res = runner.invoke(cli, ["sign", str(tmp_path / "f.pdf")])
    assert res.exit_code == 2 and "not a readable PDF" in res.output
    assert not any((tmp_path / "cfg").rglob("*.tmp"))


def test_sign_failure_leaves_the_file_untouched(tmp_path, key):
    target = tmp_path / "broken.pdf"
    target.write_bytes(b"%PDF-1.4\nnot really a pdf\n")
    before = target.read_bytes()
    with pytest.raises(signing.SigningError):
        signing.sign_file(target, key)
    assert target.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["broken.pdf"]


def test_a_pdf_reader_shows_the_signature(signed_pdf, tmp_path):
    """poppler's pdfsig, an independent PDF implementation: valid, whole document, and a flip is caught."""
    if shutil.which("pdfsig") is None:
        pytest.skip("pdfsig (poppler-utils) not installed")
    (tmp_path / "r.pdf").write_bytes(signed_pdf)
    out = subprocess.run(["pdfsig", "r.pdf"], cwd=tmp_path, capture_output=True, text=True).stdout
    assert "Signature Field Name: Signature1" in out and "Test Lab report signing" in out
    assert "ETSI.CAdES.detached" in out and "Total document signed" in out
    assert "Signature is Valid" in out
    (tmp_path / "r.pdf").write_bytes(_flip(signed_pdf, len(signed_pdf) // 3))
    out = subprocess.run(["pdfsig", "r.pdf"], cwd=tmp_path, capture_output=True, text=True).stdout
    assert "Signature is Valid" not in out


def test_signing_works_in_any_time_zone_and_dates_the_signature_in_utc(tmp_path):
    """pyHanko asks tzlocal for the local zone, which refuses a TZ that is no zoneinfo name and
    would put the signer's zone in the signed bytes. A fresh process: tzlocal caches its zone."""
    code = (
        "import io, sys\n"
        "from reportlab.pdfgen import canvas\n"
        "from pyhanko.pdf_utils.reader import PdfFileReader\n"
        "from certify import signing\n"
        "buf = io.BytesIO(); page = canvas.Canvas(buf, invariant=1); page.showPage(); page.save()\n"
        "key = signing.load_signing_key()\n"
        "pdf = signing.sign_pdf(buf.getvalue(), key)\n"
        "assert signing.sign_detached(b'data', key)\n"
        "print(PdfFileReader(io.BytesIO(pdf)).embedded_signatures[0].sig_object['/M'])\n")
    env = dict(os.environ, TZ="<+1345>-13:45", XDG_CONFIG_HOME=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert re.fullmatch(r"D:\d{14}Z", out.stdout.strip())
