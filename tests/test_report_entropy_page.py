"""The report's SP 800-90B page: a certification that carries an entropy assessment shows it in
full (its own numbered section), as the entropy-source report does: every estimator with its
intermediate values, H_original / H_bitstring / the assessed min-entropy, the IID tests, the
restart tests with their sanity check, and the RCT / APT cutoffs."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime, timezone

import numpy as np
import pytest

from certify.report import build_content, render
from certify.report.pdf import _fmt_h, _fmt_num
from certify.stats.sp800_90b.assessment import assess_file
from test_report_model import sample_input
from test_report_pdf import page_texts as escaped_page_texts


def page_texts(pdf: bytes) -> list[str]:
    """Each page's text with the PDF string escapes undone (parentheses, backslashes, octal)."""
    unescape = re.compile(r"\\([()\\]|[0-7]{1,3})")
    return [unescape.sub(lambda m: m.group(1) if not m.group(1).isdigit() else chr(int(m.group(1), 8)), t)
            for t in escaped_page_texts(pdf)]


def _write(path, values):
    np.asarray(values, dtype=np.uint8).tofile(path)
    return path


@pytest.fixture(scope="module")
def assessment(tmp_path_factory):
    """An IID-track assessment of a fair 4-bit source with a restart matrix (3.1.4)."""
    folder = tmp_path_factory.mktemp("entropy")
    rng = np.random.default_rng(2026)
    samples = _write(folder / "noise.bin", rng.integers(0, 16, size=20_000))
    restart = _write(folder / "restart.bin", rng.integers(0, 16, size=1_000_000))
    result = assess_file(samples, 4, iid=True, restart_path=restart, seed=5, permutations=2_000, min_samples=1_000)
    assert result["verdict"] == "pass", result["reasons"]
    return result


def _entropy_page(texts: list[str], heading: str) -> str:
    pages = [t for t in texts if heading in t]
    assert pages, f"no page carries {heading!r}"
    start = texts.index(pages[0])
    return " ".join(texts[start:start + 3])   # the section may run onto the next pages


def _assert_shows_the_assessment(text: str, a: dict) -> None:
    for e in a["literal"] + a["bitstring"]:
        assert e["name"] in text and _fmt_h(e["min_entropy"]) in text
        for key, value in e["details"].items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                assert f"{key} = {_fmt_num(value)}" in text, key
    for needle in ("H_original", "H_bitstring", _fmt_h(a["H_original"]), _fmt_h(a["H_bitstring"]),
                   f"Assessed min-entropy: {a['assessed_min_entropy']:.6f} bits per sample"):
        assert needle in text, needle
    for t in a["tests"]:
        assert t["name"] in text
    permutation = a["tests"][0]["details"]
    assert f"{permutation['permutations_run']:,} permutations (seed 5)" in text
    sanity = a["restart"]["sanity_check"]
    assert f"X_max = {sanity['X_max']}, cutoff {sanity['cutoff']}" in text
    assert f"H_r = {_fmt_h(a['restart']['validation']['H_r'])}" in text
    for cut in a["health_tests"]:
        assert f"{cut['alpha']} {cut['rct_cutoff']} {cut['apt_window']} {cut['apt_cutoff']}" in text


def test_a_certification_with_an_entropy_assessment_shows_its_page(assessment):
    content = build_content(replace(sample_input(), entropy=assessment))
    assert list(content["sections"])[-1] == "entropy" and content["verdict"] == "PASS"
    texts = page_texts(render(content)[0])
    _assert_shows_the_assessment(_entropy_page(texts, "11. Entropy-source assessment (SP 800-90B)"), assessment)
    text = " ".join(texts)
    assert "12. Findings" in text and "13. Signatures" in text and "(section 12)" in text
    assert "assessed as SP 800-90B prescribes (section 11)" in text
    # without the assessment the numbering and the scope are those of every certification
    plain = " ".join(page_texts(render(build_content(sample_input()))[0]))
    assert "11. Findings" in plain and "12. Signatures" in plain and "SP 800-90B)" not in plain
    assert "The physical entropy source itself was not assessed" in plain


def test_the_entropy_source_report_shows_the_same_page(assessment):
    from certify.stats.sp800_90b.assessment import report_input

    content = build_content(report_input(assessment, issued_at=datetime(2026, 12, 1, 12, tzinfo=timezone.utc)))
    texts = page_texts(render(content)[0])
    _assert_shows_the_assessment(_entropy_page(texts, "5. Entropy-source assessment (SP 800-90B)"), assessment)


def test_each_permutation_statistic_has_its_row(assessment):
    from certify.report.pdf import _permutation_rows

    details = assessment["tests"][0]["details"]
    rows = _permutation_rows(details)
    assert len(rows) == 1 + 19
    for row, r in zip(rows[1:], details["statistics"]):
        cells = [c.text for c in row]
        assert cells[0] == r["statistic"]
        assert cells[2:5] == [f"{r['C0_greater']:,}", f"{r['C1_equal']:,}", f"{r['C2_less']:,}"]
