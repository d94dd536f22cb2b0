"""The certification report: a PDF and a JSON with the same content, signed, written fail-closed.

>>> content = build_content(report_input)            # validate and judge (model.py)
>>> pdf, js = render(content)                         # deterministic bytes
>>> write_report(report_input, "reports", "caribbean_stud-1.0", signing_key)

``write_report`` renders everything in memory, signs it, and only then writes the files
(temporary file, fsync, rename): on any error no report file appears.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from certify.report.model import (REQUIRED_SECTIONS, Product, ReportDataError, ReportInput, SignerInfo,
                                  build_content, canonical_json, paytable_identity, seed_commitment)
from certify.report.model import AUDIT_REPORT  # the report kind of `certify audit --report`
from certify.report.model import Judgement, judge  # the one verdict owner (audit: text, --json, exit code)

__all__ = ["Product", "ReportDataError", "ReportInput", "SignerInfo", "build_content", "canonical_json",
           "paytable_identity", "seed_commitment", "render", "write_report", "REQUIRED_SECTIONS",
           "AUDIT_REPORT", "Judgement", "judge"]


def render(content: dict) -> tuple[bytes, bytes]:
    """Unsigned PDF and JSON bytes of one content dict."""
    from certify.report.json_out import render_json
    from certify.report.pdf import render_pdf

    return render_pdf(content), render_json(content)


def report_paths(out_dir: str | Path, basename: str, signed: bool) -> dict[str, Path]:
    """The files ``write_report`` writes, by kind: ``pdf``, ``json`` and, when signed, ``json_signature``."""
    from certify.signing import SIGNATURE_SUFFIX

    out_dir = Path(out_dir)
    paths = {"pdf": out_dir / f"{basename}.pdf", "json": out_dir / f"{basename}.json"}
    if signed:
        paths["json_signature"] = out_dir / f"{basename}.json{SIGNATURE_SUFFIX}"
    return paths


def write_report(data: ReportInput, out_dir: str | Path, basename: str, signing_key=None) -> dict[str, Path]:
    """Render, sign (when ``signing_key`` is given) and write ``basename.pdf``/``.json`` (+ ``.json.p7s``).

    Returns the written paths by kind: ``pdf``, ``json`` and, when signed, ``json_signature``.
    """
    from certify.atomic import atomic_write_many

    out_dir = Path(out_dir)
    if signing_key is not None:
        data = replace(data, signer=SignerInfo.of_certificate(signing_key.cert))
    content = build_content(data)
    pdf, js = render(content)
    paths = report_paths(out_dir, basename, signed=signing_key is not None)
    files = {paths["pdf"]: pdf, paths["json"]: js}
    if signing_key is not None:
        from certify import signing

        files[paths["pdf"]] = signing.sign_pdf(pdf, signing_key)
        files[paths["json_signature"]] = signing.sign_detached(js, signing_key)
    atomic_write_many(files)
    return paths
