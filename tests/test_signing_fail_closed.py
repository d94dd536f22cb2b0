"""Issue 13, class 6 (and the signing parts of 3 and 7): no key, certificate or report pairing can
turn a failure into a VALID. One test per class member, each trying several members of its class."""

from __future__ import annotations

import ast
import datetime as dt
import os
import re
import shutil
import stat
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.x509.oid import NameOID

from certify import signing
from certify.cli import cli
from certify.errors import InputError, VerificationFailed
from certify.report import SignerInfo, build_content, render, write_report
from certify.report import verify as report_verify
from test_report_model import sample_input

PASSPHRASE = b"tall lamp orbits quietly"


@pytest.fixture(scope="module")
def key_dir(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("keys") / "lab"
    signing.keygen(directory, PASSPHRASE, organization="Test Lab", common_name="Test Lab report signing")
    return directory


@pytest.fixture(scope="module")
def key(key_dir) -> signing.SigningKey:
    return signing.load_signing_key(key_dir, PASSPHRASE)


@pytest.fixture(scope="module")
def other_key(tmp_path_factory) -> signing.SigningKey:
    directory = tmp_path_factory.mktemp("keys") / "other"
    signing.keygen(directory, PASSPHRASE, organization="Other Lab", common_name="Other Lab report signing")
    return signing.load_signing_key(directory, PASSPHRASE)


@pytest.fixture(scope="module")
def small_pdf(sample) -> bytes:
    return render(build_content(replace(sample, simulation=None, procedures=None, par_sheet=None)))[0]


@pytest.fixture(scope="module")
def sample():
    return sample_input()  # built once: the software inventory hashes the whole tree


def _copy_key(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def _write_key(directory: Path, key, pem: bytes, mode: int = 0o600) -> None:
    path = directory / signing.SIGNER_KEY
    path.write_bytes(pem)
    os.chmod(path, mode)


# ----------------------------------------------------------------------------- key encryption


def test_new_keys_use_scrypt_at_todays_cost_and_openssl_reads_them(key_dir):
    from asn1crypto import pem as asn1_pem

    for name in (signing.SIGNER_KEY, signing.ROOT_KEY):
        data = (key_dir / name).read_bytes()
        assert signing.is_encrypted(data) and signing.key_encryption_weakness(data) is None
        _, _, der = asn1_pem.unarmor(data)
        assert bytes.fromhex("06092b06010401da47040b") in der  # OID 1.3.6.1.4.1.11591.4.11 (scrypt)
    if shutil.which("openssl"):
        out = subprocess.run(["openssl", "pkcs8", "-in", str(key_dir / signing.SIGNER_KEY), "-passin",
                              "pass:" + PASSPHRASE.decode()], capture_output=True)
        assert out.returncode == 0 and out.stdout.startswith(b"-----BEGIN PRIVATE KEY-----"), out.stderr


def _old_pkcs8(key) -> bytes:  # what keygen wrote before: cryptography's PBKDF2 with 2,048 iterations
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.BestAvailableEncryption(PASSPHRASE))


def _old_traditional(key) -> bytes:  # OpenSSL's legacy "Proc-Type: 4,ENCRYPTED" PEM
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                             serialization.BestAvailableEncryption(PASSPHRASE))


def _weak_scrypt(key) -> bytes:
    saved = signing.SCRYPT_COST
    signing.SCRYPT_COST = (1 << 10, 8, 1)
    try:
        return signing._encrypt_pkcs8(key, PASSPHRASE)
    finally:
        signing.SCRYPT_COST = saved


@pytest.mark.parametrize("old_format, says", [(_old_pkcs8, "PBKDF2 with only 2,048 iterations"),
                                              (_old_traditional, "legacy PEM encryption"),
                                              (_weak_scrypt, "scrypt with N=1024")])
def test_old_keys_still_load_with_a_warning_and_rekey_upgrades_them(key_dir, key, tmp_path, old_format, says):
    folder = _copy_key(key_dir, tmp_path / "keys")
    _write_key(folder, key.key, old_format(key.key))
    old = signing.load_signing_key(folder, PASSPHRASE)
    assert old.cert == key.cert and len(old.warnings) == 1
    assert says in old.warnings[0] and f"certify rekey --key-dir {folder}" in old.warnings[0]
    if old_format is not _old_pkcs8:
        return  # re-encryption tried once (scrypt is slow by design)
    with pytest.raises(signing.WeakPassphrase):
        signing.rekey(folder, PASSPHRASE, b"password1234")
    new_passphrase = b"seven violet kettles hum"
    assert signing.rekey(folder, PASSPHRASE, new_passphrase) == [folder / signing.SIGNER_KEY, folder / signing.ROOT_KEY]
    again = signing.load_signing_key(folder, new_passphrase)
    assert again.warnings == [] and again.cert == key.cert
    assert stat.S_IMODE((folder / signing.SIGNER_KEY).stat().st_mode) == 0o600


def test_cli_rekey_upgrades_an_old_key(key_dir, key, tmp_path):
    folder = _copy_key(key_dir, tmp_path / "keys")
    _write_key(folder, key.key, _old_pkcs8(key.key))
    (tmp_path / "old").write_text(PASSPHRASE.decode() + "\n")
    (tmp_path / "new").write_text("seven violet kettles hum\n")
    (tmp_path / "f.txt").write_text("data")
    runner = CliRunner()
    res = runner.invoke(cli, ["sign", str(tmp_path / "f.txt"), "--key-dir", str(folder), "--passphrase-file",
                              str(tmp_path / "old")])
    assert res.exit_code == 0 and "WARNING" in res.output and "certify rekey" in res.output, res.output
    res = runner.invoke(cli, ["rekey", "--key-dir", str(folder), "--passphrase-file", str(tmp_path / "old"),
                              "--new-passphrase-file", str(tmp_path / "new")])
    assert res.exit_code == 0 and "re-encrypted" in res.output, res.output
    res = runner.invoke(cli, ["sign", str(tmp_path / "f.txt"), "--key-dir", str(folder), "--passphrase-file",
                              str(tmp_path / "new")])
    assert res.exit_code == 0 and "WARNING" not in res.output, res.output


# ----------------------------------------------------------------------------- passphrases

TRIVIAL = [b"", b"short", b"aaaaaaaaaaaaaaaa", b"abababababababab", b"abcdefghijklmnop", b"1234567890123",
           b"9876543210987", b"qwertyuiopasdf", b"Password123456!", b"P@ssw0rd2024!!", b"letmein!letmein!",
           b"certify-certify-2026", b"Correct Horse Battery Staple"]


@pytest.mark.parametrize("passphrase", TRIVIAL, ids=lambda p: p.decode() or "empty")
def test_keygen_refuses_trivial_passphrases(tmp_path, passphrase):
    assert signing.passphrase_problem(passphrase) is not None or passphrase == b""
    with pytest.raises(signing.SigningError, match="passphrase"):
        signing.keygen(tmp_path / "k", passphrase)
    assert not (tmp_path / "k").exists()  # refused before anything was made


@pytest.mark.parametrize("passphrase", [b"tall lamp orbits quietly", b"Gx7#vR2!qLm9", "grüne Äpfel fallen leise".encode()])
def test_reasonable_passphrases_pass(passphrase):
    assert signing.passphrase_problem(passphrase) is None


def test_cli_keygen_refuses_a_trivial_passphrase(tmp_path):
    (tmp_path / "pass").write_text("password2024\n")
    res = CliRunner().invoke(cli, ["keygen", "--key-dir", str(tmp_path / "k"), "--passphrase-file",
                                   str(tmp_path / "pass")])
    assert res.exit_code == 2 and "too easy to guess" in res.output and not (tmp_path / "k").exists()


def _unencrypted(key) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())


def _trivially_encrypted(key) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.BestAvailableEncryption(b"password"))


def _as_keygen_wrote_it(key) -> None:
    """No new bytes: the key file keygen wrote (PKCS#8, scrypt at today's cost, PASSPHRASE), as
    _encrypt_pkcs8 would write it again (another ~0.3 s of scrypt)."""
    return None


@pytest.mark.parametrize("make, mode, passphrase, says", [
    (_unencrypted, 0o600, None, "is not encrypted"),
    (_trivially_encrypted, 0o600, b"password", "too easy to guess"),
    (_as_keygen_wrote_it, 0o640, PASSPHRASE, "read by group or others (mode 640"),
    (_as_keygen_wrote_it, 0o604, PASSPHRASE, "read by group or others (mode 604"),
])
def test_an_insecure_production_key_is_refused_unless_allowed(key_dir, key, tmp_path, make, mode, passphrase, says):
    folder = _copy_key(key_dir, tmp_path / "keys")
    pem = make(key.key)
    _write_key(folder, key.key, (key_dir / signing.SIGNER_KEY).read_bytes() if pem is None else pem, mode)
    with pytest.raises(signing.InsecureKey, match=re.escape(says)) as err:
        signing.load_signing_key(folder, passphrase)
    assert "--allow-insecure-key" in str(err.value)
    allowed = signing.load_signing_key(folder, passphrase, allow_insecure=True)
    assert allowed.cert == key.cert and any("--allow-insecure-key" in w for w in allowed.warnings)
    res = CliRunner().invoke(cli, ["sign", str(tmp_path / "x"), "--key-dir", str(folder)],
                             env={"CERTIFY_KEY_PASSPHRASE": (passphrase or b"").decode()})
    assert res.exit_code == 2  # the file does not exist; the key is never reached
    (tmp_path / "x.txt").write_text("data")
    res = CliRunner().invoke(cli, ["sign", str(tmp_path / "x.txt"), "--key-dir", str(folder)],
                             env={"CERTIFY_KEY_PASSPHRASE": (passphrase or b"").decode()})
    assert res.exit_code == 2 and says.split(" (")[0] in res.output and not (tmp_path / "x.txt.p7s").exists()
    if mode != 0o600:  # run refuses it too, before any work
        res = CliRunner().invoke(cli, ["run", "casino_stud", "--key-dir", str(folder), "--out", str(tmp_path / "out")],
                                 env={"CERTIFY_KEY_PASSPHRASE": (passphrase or b"").decode()})
        assert res.exit_code == 2 and "--allow-insecure-key" in res.output and not (tmp_path / "out").exists()


# ----------------------------------------------------------------------------- --key-dir never falls back


@pytest.mark.parametrize("layout", ["missing", "empty", "certificate only", "key only"])
def test_a_mistyped_key_dir_never_falls_back_to_a_development_key(tmp_path, monkeypatch, key_dir, layout):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    folder = tmp_path / "typo"
    if layout != "missing":
        folder.mkdir()
    if layout == "certificate only":
        shutil.copy(key_dir / signing.SIGNER_CERT, folder)
    if layout == "key only":
        shutil.copy(key_dir / signing.SIGNER_KEY, folder)
    with pytest.raises(signing.SigningError, match="no signing key there.*development key is used only when no"):
        signing.load_signing_key(folder, PASSPHRASE)
    (tmp_path / "f.txt").write_text("data")
    for args in (["sign", str(tmp_path / "f.txt")], ["run", "casino_stud", "--out", str(tmp_path / "out")]):
        res = CliRunner().invoke(cli, args + ["--key-dir", str(folder)])
        assert res.exit_code == 2 and "no signing key there" in res.output, res.output
    assert not (tmp_path / "cfg").exists() and not (tmp_path / "f.txt.p7s").exists()
    assert not (tmp_path / "out").exists()
    res = CliRunner().invoke(cli, ["verify", str(tmp_path / "f.txt"), "--key-dir", str(folder)])
    assert res.exit_code == 2 and f"--key-dir {folder}: no {signing.ROOT_CERT} there" in res.output


def test_the_default_folder_falls_back_only_when_it_holds_no_key_file(tmp_path, monkeypatch, key_dir):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    default = tmp_path / "cfg" / "certify"
    default.mkdir(parents=True)
    shutil.copy(key_dir / signing.SIGNER_CERT, default)  # half a key: a mistake, not "no key"
    with pytest.raises(signing.SigningError, match="not a complete signing key"):
        signing.load_signing_key()
    (default / signing.SIGNER_CERT).unlink()
    dev = signing.load_signing_key()
    assert dev.development and dev.directory == default / "dev"
    assert stat.S_IMODE(dev.directory.stat().st_mode) == 0o700


# ----------------------------------------------------------------------------- keygen --key-dir on a folder


@pytest.mark.parametrize("mode", [0o1777, 0o777, 0o775, 0o770, 0o722])
def test_keygen_refuses_a_shared_folder_and_leaves_its_mode(tmp_path, mode):
    folder = tmp_path / "shared"
    folder.mkdir()
    os.chmod(folder, mode)
    with pytest.raises(signing.SigningError, match="written by group or others.*left as it is"):
        signing.keygen(folder, PASSPHRASE)
    assert stat.S_IMODE(folder.stat().st_mode) == mode and list(folder.iterdir()) == []
    res = CliRunner().invoke(cli, ["keygen", "--key-dir", str(folder)], env={"CERTIFY_KEY_PASSPHRASE": PASSPHRASE.decode()})
    assert res.exit_code == 2 and stat.S_IMODE(folder.stat().st_mode) == mode


@pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0, reason="needs root to give a folder to another user")
def test_keygen_refuses_a_folder_of_another_user(tmp_path):
    folder = tmp_path / "theirs"
    folder.mkdir(mode=0o700)
    os.chown(folder, 65534, 65534)
    with pytest.raises(signing.SigningError, match="belongs to another user"):
        signing.keygen(folder, PASSPHRASE)
    assert folder.stat().st_uid == 65534 and stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_keygen_keeps_a_private_folder_and_creates_a_new_one_private(tmp_path):
    existing = tmp_path / "mine"
    existing.mkdir()
    os.chmod(existing, 0o755)  # readable, not writable, by others: keys are written 600 inside it
    new = tmp_path / "a" / "b" / "keys"
    for folder in (existing, new):
        signing.keygen(folder, PASSPHRASE, algorithm="ecdsa-p256")
        assert all(stat.S_IMODE((folder / n).stat().st_mode) == 0o600 for n in (signing.SIGNER_KEY, signing.ROOT_KEY))
    assert stat.S_IMODE(existing.stat().st_mode) == 0o755
    assert stat.S_IMODE(new.stat().st_mode) == 0o700


# ----------------------------------------------------------------------------- certificate defects

NOW = dt.datetime.now(dt.timezone.utc)
_USAGE = dict(digital_signature=True, content_commitment=True, key_encipherment=False, data_encipherment=False,
              key_agreement=False, key_cert_sign=False, crl_sign=False, encipher_only=False, decipher_only=False)
DEFECTS = {
    "expired": dict(not_before=NOW - dt.timedelta(days=400), not_after=NOW - dt.timedelta(days=1)),
    "not yet valid": dict(not_before=NOW + dt.timedelta(days=2), not_after=NOW + dt.timedelta(days=400)),
    "a CA": dict(ca=True),
    "without key usage": dict(usage=None),
    "nonRepudiation only": dict(usage=dict(_USAGE, digital_signature=False)),
    "keyCertSign only": dict(usage=dict(_USAGE, digital_signature=False, content_commitment=False, key_cert_sign=True)),
}
REASONS = {"expired": "expired on", "not yet valid": "not valid before", "a CA": "is a CA certificate",
           "without key usage": "lacks the digitalSignature key usage",
           "nonRepudiation only": "lacks the digitalSignature key usage",
           "keyCertSign only": "lacks the digitalSignature key usage"}


def _issue(root_key, root: x509.Certificate, subject_key, *, not_before=None, not_after=None, ca=False,
           usage: dict | None = _USAGE) -> x509.Certificate:
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Defective signer"),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Test Lab")])
    builder = (x509.CertificateBuilder().subject_name(name).issuer_name(root.subject)
               .public_key(subject_key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(not_before or NOW - dt.timedelta(hours=1))
               .not_valid_after(not_after or NOW + dt.timedelta(days=30))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
               .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(root_key.public_key()), critical=False))
    if usage is not None:
        builder = builder.add_extension(x509.KeyUsage(**usage), critical=True)
    return builder.sign(root_key, hashes.SHA256())


@pytest.fixture(scope="module")
def root_key(key_dir):
    return serialization.load_pem_private_key((key_dir / signing.ROOT_KEY).read_bytes(), PASSPHRASE)


@pytest.fixture(scope="module")
def defective(key, root_key) -> dict[str, signing.SigningKey]:
    return {name: replace(key, cert=_issue(root_key, key.root, key.key, **kw)) for name, kw in DEFECTS.items()}


@pytest.mark.parametrize("defect", list(DEFECTS))
def test_sign_refuses_a_defective_certificate(key_dir, key, defective, tmp_path, defect):
    sk = defective[defect]
    assert any(REASONS[defect] in p for p in signing.certificate_problems(sk.cert))
    with pytest.raises(signing.CertificateRefused, match=REASONS[defect]):
        signing.sign_detached(b"data", sk)
    folder = _copy_key(key_dir, tmp_path / "keys")
    (folder / signing.SIGNER_CERT).write_bytes(sk.cert.public_bytes(serialization.Encoding.PEM))
    with pytest.raises(signing.CertificateRefused, match=REASONS[defect]):
        signing.load_signing_key(folder, PASSPHRASE)


def test_sign_refuses_a_certificate_the_root_beside_it_did_not_issue(key, other_key):
    with pytest.raises(signing.CertificateRefused, match="not issued by the root certificate beside it"):
        signing.sign_detached(b"data", replace(key, root=other_key.root))


@pytest.mark.parametrize("defect", list(DEFECTS))
def test_verify_names_the_certificate_defect_not_does_not_chain(defective, key, small_pdf, monkeypatch, defect):
    """Signatures made anyway (the sign-time check bypassed, as another tool would) fail verify with
    the certificate's own defect as the reason, for the detached and the PDF signature."""
    pdf = small_pdf
    with monkeypatch.context() as m:
        m.setattr(signing, "check_signing_certificate", lambda *a, **k: None)
        p7s = signing.sign_detached(b"data", defective[defect])
        signed_pdf = signing.sign_pdf(pdf, defective[defect])
    for verify, args in ((signing.verify_detached, (b"data", p7s)), (signing.verify_pdf, (signed_pdf,))):
        with pytest.raises(signing.SignatureInvalid) as err:
            verify(*args, [key.root])
        assert REASONS[defect] in str(err.value) and "does not chain" not in str(err.value), str(err.value)


# ----------------------------------------------------------------------------- development keys


@pytest.fixture(scope="module")
def dev_report(tmp_path_factory, sample):
    base = tmp_path_factory.mktemp("dev")
    saved = os.environ.get("XDG_CONFIG_HOME")
    os.environ["XDG_CONFIG_HOME"] = str(base / "cfg")
    try:
        dev = signing.load_signing_key()
    finally:
        if saved is None:
            del os.environ["XDG_CONFIG_HOME"]
        else:
            os.environ["XDG_CONFIG_HOME"] = saved
    paths = write_report(sample, base / "out", "dev-report", dev)
    return dev, paths


def test_verify_refuses_a_development_key_unless_asked(dev_report):
    dev, paths = dev_report
    root = dev.directory / signing.ROOT_CERT
    for kind in ("pdf", "json"):
        with pytest.raises(signing.DevelopmentKeyRefused, match="--allow-development"):
            signing.verify_file(paths[kind], [dev.root])
        assert signing.verify_file(paths[kind], [dev.root], allow_development=True).development
        res = CliRunner().invoke(cli, ["verify", str(paths[kind]), "--root", str(root)])
        assert res.exit_code == 1 and "DEVELOPMENT" in res.output and res.output.startswith("INVALID:")
        res = CliRunner().invoke(cli, ["verify", str(paths[kind]), "--root", str(root), "--allow-development"])
        assert res.exit_code == 0 and "WARNING" in res.output and "DEVELOPMENT" in res.output, res.output
    res = CliRunner().invoke(cli, ["verify", str(paths["pdf"]), str(paths["json"]), "--root", str(root)])
    assert res.exit_code == 1


# ----------------------------------------------------------------------------- the signer block


def _report(sample, out: Path, name: str, signer_of, signed_by, keywords_signer=None, monkeypatch=None):
    """A report whose signer block names ``signer_of`` (None: unsigned) signed by ``signed_by``."""
    data = replace(sample, signer=SignerInfo.of_certificate(signer_of.cert) if signer_of else None)
    content = build_content(data)
    if keywords_signer is not None:  # a PDF whose Keywords and printed block disagree
        from certify.report import pdf as pdf_module

        real = pdf_module.identity_keywords
        claimed = dict(content, signer=dict(content["signer"] or {}, fingerprint_sha256=signing.fingerprint(
            keywords_signer.cert)))
        monkeypatch.setattr(pdf_module, "identity_keywords", lambda c: real(claimed))
    pdf, js = render(content)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.pdf").write_bytes(signing.sign_pdf(pdf, signed_by))
    (out / f"{name}.json").write_bytes(js)
    (out / f"{name}.json.p7s").write_bytes(signing.sign_detached(js, signed_by))
    return out / f"{name}.pdf", out / f"{name}.json"


@pytest.mark.parametrize("case", ["names another certificate", "says unsigned", "printed block differs",
                                  "keywords differ", "first-page notice differs"])
def test_verify_refuses_a_signer_block_that_is_not_the_signer(sample, key, other_key, tmp_path, monkeypatch, case):
    roots = [key.root, other_key.root]  # both trusted: only the signer block can tell them apart
    if case == "names another certificate":
        pdf, js = _report(sample, tmp_path, "r", other_key, key)
    elif case == "says unsigned":
        pdf, js = _report(sample, tmp_path, "r", None, key)
    elif case == "printed block differs":  # printed: other; Keywords: the real signer
        pdf, js = _report(sample, tmp_path, "r", other_key, key, keywords_signer=key, monkeypatch=monkeypatch)
    elif case == "keywords differ":  # printed: the real signer; Keywords: other
        pdf, js = _report(sample, tmp_path, "r", key, key, keywords_signer=other_key, monkeypatch=monkeypatch)
    else:  # the signatures page and Keywords right; the notice on page 1 names the other certificate
        from certify.report import pdf as pdf_module

        real_notice = pdf_module._signer_notice
        other_block = SignerInfo.of_certificate(other_key.cert).__dict__
        monkeypatch.setattr(pdf_module, "_signer_notice", lambda c: real_notice(dict(c, signer=other_block)))
        pdf, js = _report(sample, tmp_path, "r", key, key)
    with pytest.raises(report_verify.SignerMismatch):
        report_verify.verify_report_file(pdf, roots)
    res = CliRunner().invoke(cli, ["verify", str(pdf), "--key-dir", str(key.directory)])
    assert res.exit_code == 1 and "INVALID" in res.output and "signer" in res.output, res.output
    if case in ("keywords differ", "first-page notice differs"):
        report_verify.verify_report_file(js, roots)  # the JSON's own block is right here
    else:
        with pytest.raises(report_verify.SignerMismatch):
            report_verify.verify_report_file(js, roots)


@pytest.mark.parametrize("field, value", [("fingerprint_sha256", "0" * 64), ("subject", "Other Lab report signing"),
                                          ("issuer", "Other root"), ("algorithm", "RSA-3072 with SHA-256"),
                                          ("development", True), ("extra", "x")])
def test_every_field_of_the_json_signer_block_must_match(sample, key, tmp_path, field, value):
    content = build_content(replace(sample, signer=SignerInfo.of_certificate(key.cert)))
    content["signer"][field] = value
    from certify.report.json_out import render_json

    js = render_json(content)
    report = tmp_path / "r.json"
    report.write_bytes(js)
    (tmp_path / "r.json.p7s").write_bytes(signing.sign_detached(js, key))
    with pytest.raises(report_verify.SignerMismatch, match=field):
        report_verify.verify_report_file(report, [key.root])


def test_sign_refuses_a_report_whose_signer_block_names_another_key(sample, key, other_key, tmp_path):
    pdf, js = render(build_content(replace(sample, signer=SignerInfo.of_certificate(other_key.cert))))
    (tmp_path / "r.pdf").write_bytes(pdf)
    res = CliRunner().invoke(cli, ["sign", str(tmp_path / "r.pdf"), "--key-dir", str(key.directory)],
                             env={"CERTIFY_KEY_PASSPHRASE": PASSPHRASE.decode()})
    assert res.exit_code == 2 and "signer" in res.output and (tmp_path / "r.pdf").read_bytes() == pdf


# ----------------------------------------------------------------------------- PDF/JSON pairs


@pytest.fixture(scope="module")
def two_runs(sample, key, tmp_path_factory):
    """Two reports signed by one key: different runs (time stamps), and two with one pinned report id."""
    out = tmp_path_factory.mktemp("runs")
    later = replace(sample, issued_at=sample.issued_at + dt.timedelta(days=1))
    same_id_a = replace(sample, report_id="CR-PINNED")
    same_id_b = replace(later, report_id="CR-PINNED")
    return {name: write_report(data, out / name, "report", key)
            for name, data in (("a", sample), ("b", later), ("pinned-a", same_id_a), ("pinned-b", same_id_b))}


def test_a_pdf_and_its_own_json_are_one_report(two_runs, key):
    for run in two_runs.values():
        checked = [report_verify.verify_report_file(run[k], [key.root]) for k in ("pdf", "json")]
        assert report_verify.verify_pair(*checked) == checked[1].report_id
        assert report_verify.verify_pair(*checked[::-1]) == checked[1].report_id


@pytest.mark.parametrize("pdf_run, json_run, says", [("a", "b", "not the same report"),
                                                    ("b", "a", "not the same report"),
                                                    ("pinned-a", "pinned-b", "made with a JSON of SHA-256"),
                                                    ("pinned-b", "pinned-a", "made with a JSON of SHA-256")])
def test_a_pdf_and_another_runs_json_are_refused(two_runs, key, pdf_run, json_run, says):
    pdf = report_verify.verify_report_file(two_runs[pdf_run]["pdf"], [key.root])
    js = report_verify.verify_report_file(two_runs[json_run]["json"], [key.root])
    with pytest.raises(report_verify.ReportPairMismatch, match=says):
        report_verify.verify_pair(pdf, js)
    res = CliRunner().invoke(cli, ["verify", str(two_runs[pdf_run]["pdf"]), str(two_runs[json_run]["json"]),
                                   "--key-dir", str(key.directory)])
    assert res.exit_code == 1 and "not the same report" in res.output and "SAME REPORT" not in res.output


def test_a_pair_must_be_a_pdf_and_a_json(two_runs, key, tmp_path):
    pdfs = [report_verify.verify_report_file(two_runs[r]["pdf"], [key.root]) for r in ("a", "b")]
    with pytest.raises(InputError, match="a report's PDF and its JSON"):
        report_verify.verify_pair(*pdfs)
    res = CliRunner().invoke(cli, ["verify", str(two_runs["a"]["pdf"]), str(two_runs["a"]["pdf"]),
                                   "--key-dir", str(key.directory)])
    assert res.exit_code == 2


# ----------------------------------------------------------------------------- verification raises


def _flipped(data: bytes, i: int) -> bytes:
    return data[:i] + bytes([data[i] ^ 1]) + data[i + 1:]


def test_every_verification_failure_raises_and_success_carries_no_flag(two_runs, key, other_key, dev_report, tmp_path):
    run = two_runs["a"]
    pdf, js, p7s = (run[k].read_bytes() for k in ("pdf", "json", "json_signature"))
    failures = {
        "flipped PDF byte": lambda: signing.verify_pdf(_flipped(pdf, len(pdf) // 2), [key.root]),
        "flipped JSON byte": lambda: signing.verify_detached(_flipped(js, 10), p7s, [key.root]),
        "other root": lambda: signing.verify_pdf(pdf, [other_key.root]),
        "development key": lambda: signing.verify_file(dev_report[1]["pdf"], [dev_report[0].root]),
        "no .p7s": lambda: signing.verify_file(tmp_path / "lonely.json", [key.root]),
    }
    (tmp_path / "lonely.json").write_text("{}")
    for name, attempt in failures.items():
        with pytest.raises(VerificationFailed) as err:
            attempt()
        assert err.value.exit_code == 1 and str(err.value), name
    ok = signing.verify_file(run["pdf"], [key.root])
    assert not hasattr(ok, "ok") and ok.certificate == key.cert


# ----------------------------------------------------------------------------- the import circle


def test_signing_never_imports_the_report_package():
    """One direction only: certify.report (and its verify module) build on certify.signing."""
    tree = ast.parse(Path(signing.__file__).read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module} | \
               {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not [m for m in imported if m.startswith("certify.report")], imported
    code = "import sys, certify.signing; print(sorted(m for m in sys.modules if m.startswith('certify.report')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
