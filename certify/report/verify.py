"""What ``certify verify`` promises about a report beyond its signature.

:func:`certify.signing.verify_file` proves that a file is unchanged since a trusted certificate
signed it. For a certification report this module also proves that

* the signer block inside the report (the JSON's ``signer``; every "certificate SHA-256" the PDF
  prints and the signer fingerprint in its Keywords) names the certificate that actually signed
  it, so a report cannot claim one lab's key while signed by another trusted key, and
* given a PDF and a JSON, the two are the same report: the PDF's Keywords carry the report id and
  the SHA-256 of its JSON twin (both covered by the PDF's signature), so one run's PDF cannot be
  paired with another run's JSON.

Every failure raises a :class:`certify.errors.VerificationFailed` (exit 1). This module builds on
:mod:`certify.signing`; the signing code never imports the report package.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from certify import signing
from certify.errors import InputError, VerificationFailed
from certify.report.model import SCHEMA, SignerInfo
from certify.report.pdf import read_identity

# Where the report prints its signer's fingerprint: "Signing certificate SHA-256" on the signatures
# page, "(certificate SHA-256 ...)" in the first page's notice; the token after it, punctuation trimmed.
_PRINTED_FINGERPRINT = re.compile(rb"[Cc]ertificate SHA-256\s+(\S+)")


class SignerMismatch(signing.SignatureInvalid):
    """The signer block inside a report names another certificate than the one that signed it."""


class ReportPairMismatch(VerificationFailed):
    """A PDF and a JSON given together are not the same report."""


@dataclass(frozen=True)
class VerifiedReport:
    path: Path
    verification: signing.Verification
    kind: str                 # "pdf report", "json report" or "file" (signed, but not a certify report)
    report_id: str | None = None
    json_sha256: str | None = None  # a JSON report: its own digest; a PDF report: its twin's, from the Keywords


def page_literals(pdf: bytes) -> list[list[bytes]]:
    """The text strings drawn on each page, in order (decoded content streams; the report's standard
    fonts write plain ``(...) Tj`` literals, escapes kept)."""
    from pyhanko.pdf_utils.reader import PdfFileReader

    reader = PdfFileReader(io.BytesIO(pdf), strict=True)
    pages = []
    for i in range(int(reader.root["/Pages"]["/Count"])):
        page = reader.find_page_for_modification(i)[0].get_object()
        contents = page["/Contents"]
        streams = contents if isinstance(contents, list) else [contents]
        raw = b"".join(s.get_object().data for s in streams)
        pages.append(re.findall(rb"\(((?:[^()\\]|\\.)*)\)\s*Tj", raw))
    return pages


def _pdf_identity(data: bytes) -> tuple[dict[str, str] | None, list[str]]:
    """The identity in the PDF's Keywords, and every signer fingerprint printed in the report."""
    from pyhanko.pdf_utils.reader import PdfFileReader

    reader = PdfFileReader(io.BytesIO(data), strict=True)
    info = reader.trailer["/Info"] if "/Info" in reader.trailer else {}
    identity = read_identity(str(info["/Keywords"])) if "/Keywords" in info else None
    printed = []
    for literals in page_literals(data):
        text = b" ".join(literals)  # a wrapped line moves the fingerprint to the next literal
        printed += [m.rstrip(b").,;\\").decode("latin-1") for m in _PRINTED_FINGERPRINT.findall(text)]
    return identity, printed


def _check_pdf(data: bytes, cert, signer: str) -> tuple[str, str | None, str | None]:
    """("pdf report", id, twin JSON digest) when the PDF's signer block names ``cert``; ("file", None,
    None) for a PDF that is not a certify report; raises SignerMismatch otherwise."""
    try:
        identity, printed = _pdf_identity(data)
    except Exception as exc:  # it verified, so pyHanko read it once already; fail closed all the same
        raise signing.SignatureInvalid(f"cannot read the report inside the PDF ({exc})") from None
    if identity is None and not printed:
        return "file", None, None
    actual = signing.fingerprint(cert)
    claims = ([("the signer fingerprint in the PDF's Keywords", identity["signer-sha256"])] if identity else []) + \
             [("the signing certificate printed in the report", fp) for fp in printed]
    if not printed:
        claims.append(("the report's signer block", "missing (the report does not print who signed it)"))
    for what, claimed in claims:
        if claimed != actual:
            raise SignerMismatch(f"{what} is {claimed}, but the certificate that signed it is {actual} ({signer})")
    return "pdf report", identity and identity["certify-report"], identity and identity["json-sha256"]


def _check_json(data: bytes, cert, signer: str) -> tuple[str, str | None, str | None]:
    """("json report", id, digest) when the JSON report's signer block is ``cert``'s; ("file", None,
    None) for anything that is not a certify report; raises SignerMismatch otherwise."""
    try:
        content = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return "file", None, None
    if not isinstance(content, dict) or not str(content.get("schema", "")).startswith(SCHEMA.split("/")[0] + "/"):
        return "file", None, None
    claimed = content.get("signer")
    expected = asdict(SignerInfo.of_certificate(cert))
    if not isinstance(claimed, dict):
        raise SignerMismatch(f"the report's signer block is {claimed!r}, but it is signed by {signer} "
                             f"(certificate SHA-256 {expected['fingerprint_sha256']})")
    wrong = [key for key in expected if claimed.get(key) != expected[key]]
    if wrong or set(claimed) != set(expected):
        key = wrong[0] if wrong else sorted(set(claimed) ^ set(expected))[0]
        raise SignerMismatch(f"the report's signer block says {key} = {claimed.get(key)!r}, but the certificate "
                             f"that signed it ({signer}) has {expected.get(key)!r}")
    return "json report", str(content.get("report_id")), hashlib.sha256(data).hexdigest()


def check_signer_block(data: bytes, cert, signer: str = "") -> tuple[str, str | None, str | None]:
    """Whether the report in ``data`` (PDF or JSON) names ``cert`` as its signer: its kind ("pdf
    report", "json report", or "file" when it is not a certify report), id and JSON digest."""
    signer = signer or signing.describe(cert)
    return _check_pdf(data, cert, signer) if signing.is_pdf(data) else _check_json(data, cert, signer)


def verify_report_file(path: Path, roots, signature: Path | None = None,
                       allow_development: bool = False) -> VerifiedReport:
    """Verify one file's signature and, for a certify report, that its signer block is its signer."""
    v = signing.verify_file(path, roots, signature, allow_development)
    data = path.read_bytes()
    if signature is not None and signing.is_pdf(data):  # a PDF checked against a detached signature
        return VerifiedReport(path, v, "file")
    kind, report_id, digest = check_signer_block(data, v.certificate, v.signer)
    return VerifiedReport(path, v, kind, report_id, digest)


def verify_pair(first: VerifiedReport, second: VerifiedReport) -> str:
    """Prove that a verified PDF report and a verified JSON report are the same report; returns its id."""
    kinds = {first.kind: first, second.kind: second}
    if set(kinds) != {"pdf report", "json report"}:
        raise InputError(f"verify with two files takes a report's PDF and its JSON; got {first.path} "
                         f"({first.kind}) and {second.path} ({second.kind})")
    pdf, js = kinds["pdf report"], kinds["json report"]
    if pdf.report_id is None:
        raise ReportPairMismatch(f"{pdf.path} carries no report identity in its Keywords (a report made before "
                                 "this check existed): it cannot be paired with a JSON")
    if pdf.report_id != js.report_id:
        raise ReportPairMismatch(f"{pdf.path} is report {pdf.report_id} but {js.path} is report {js.report_id}: "
                                 "not the same report")
    if pdf.json_sha256 != js.json_sha256:
        raise ReportPairMismatch(f"{pdf.path} (report {pdf.report_id}) was made with a JSON of SHA-256 "
                                 f"{pdf.json_sha256}, but {js.path} has SHA-256 {js.json_sha256}: not the same report")
    a, b = (signing.fingerprint(r.verification.certificate) for r in (pdf, js))
    if a != b:
        raise ReportPairMismatch(f"{pdf.path} and {js.path} were signed by different certificates ({a} and {b})")
    return pdf.report_id
