"""The JSON report: the same content dict as the PDF, as canonical JSON (sorted keys, UTF-8)."""

from __future__ import annotations

from certify.report.model import canonical_json


def render_json(content: dict) -> bytes:
    return canonical_json(content)
