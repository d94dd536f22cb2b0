"""The rendered report: deterministic bytes, page numbering, "not run" sections, fail-closed writing."""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import replace
from datetime import datetime, timezone

import pytest

from certify import signing
from certify.report import SignerInfo, build_content, render, write_report
from certify.report import charts as report_charts
from certify.report.identify import PROJECT_ROOT, software_inventory, source_files
from test_report_model import sample_input


def page_texts(pdf: bytes) -> list[str]:
    """The text drawn on each page (decoded content streams; our fonts write plain literals)."""
    from certify.report.verify import page_literals

    return [" ".join(m.decode("latin-1") for m in literals) for literals in page_literals(pdf)]


@pytest.fixture(scope="module")
def sample_content() -> dict:
    return build_content(sample_input())


@pytest.fixture(scope="module")
def sample_pdf(sample_content) -> bytes:
    return render(sample_content)[0]


def test_same_input_gives_identical_bytes():
    data = sample_input()  # built once: the software inventory hashes a tree others may be editing
    a = render(build_content(data))
    b = render(build_content(data))
    assert a[0] == b[0] and a[1] == b[1]
    later = render(build_content(replace(data, issued_at=datetime(2027, 1, 1, tzinfo=timezone.utc))))
    assert later[0] != a[0] and later[1] != a[1]
    assert b"D:20261129120000+00'00'" in a[0]  # the pinned time stamp is the creation date


def test_every_page_says_page_x_of_n(sample_pdf):
    texts = page_texts(sample_pdf)
    n = len(texts)
    assert n >= 8
    for i, text in enumerate(texts, 1):
        assert f"Page {i} of {n}" in text
        assert len(text) > 300, f"page {i} is (nearly) blank"


def test_certificate_page_carries_identity_standards_and_verdict(sample_pdf, sample_content):
    first = page_texts(sample_pdf)[0]
    content = sample_content
    for needle in (content["report_id"], "Five Card Mulligan Poker", content["product"]["paytable_sha256"],
                   "rng 0.1.0", "NIST SP 800-22 Rev. 1a", "VERDICT: PASS", "UNSIGNED"):
        assert needle in first, needle


def test_development_key_is_stated_on_the_certificate_page(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    key = signing.load_signing_key()
    pdf = render(build_content(sample_input(signer=SignerInfo.of_certificate(key.cert))))[0]
    texts = page_texts(pdf)
    assert "DEVELOPMENT key, NOT FOR SUBMISSION" in texts[0]
    assert all("DEVELOPMENT KEY" in t for t in texts)


@pytest.mark.parametrize("missing", ["rng", "simulation", "procedures"])
def test_sections_not_run_are_stated_not_omitted(missing):
    pdf = render(build_content(sample_input(omit=(missing,))))[0]
    text = " ".join(page_texts(pdf))
    assert "NOT RUN" in text and "VERDICT: INCOMPLETE" in text


def test_json_carries_the_same_content():
    content = build_content(sample_input(fail_rng="Runs"))
    _, js = render(content)
    data = json.loads(js)
    assert data == json.loads(json.dumps(content))
    assert data["verdict"] == "FAIL" and data["schema"] == "certify-report/1"
    names = [t["name"] for t in data["sections"]["rng"]["tests"]]
    assert "NonOverlappingTemplate" in names
    assert len(data["sections"]["rng"]["tests"][names.index("NonOverlappingTemplate")]["pvalues"]) == 148


def test_software_inventory_hashes_every_source_file(tmp_path):
    rows = software_inventory()
    paths = {r["path"] for r in rows}
    for f in source_files():
        rel = f.relative_to(PROJECT_ROOT).as_posix()
        assert rel in paths
    assert "certify/signing.py" in paths and "rng/__init__.py" in paths
    assert not any("__pycache__" in p for p in paths)
    row = next(r for r in rows if r["path"] == "certify/report/model.py")
    assert row["sha256"] == hashlib.sha256((PROJECT_ROOT / row["path"]).read_bytes()).hexdigest()
    spec = tmp_path / "game.yaml"
    spec.write_text("name: x\n")
    extra = software_inventory(spec_path=spec, fixture_paths=[spec])
    assert [r["role"] for r in extra[-2:]] == ["spec", "fixture"]


def test_write_report_signs_both_files(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    key = signing.load_signing_key()
    paths = write_report(sample_input(), tmp_path / "out", "five_card_mulligan-1.0", key)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "five_card_mulligan-1.0.json", "five_card_mulligan-1.0.json.p7s", "five_card_mulligan-1.0.pdf"]
    roots = signing.default_roots()
    signing.verify_file(paths["pdf"], roots, allow_development=True)  # raises if it does not verify
    signing.verify_file(paths["json"], roots, allow_development=True)
    assert json.loads(paths["json"].read_bytes())["signer"]["development"] is True


def test_an_exception_mid_render_leaves_no_file(tmp_path, monkeypatch):
    def broken(*_args, **_kwargs):
        raise RuntimeError("disk full while drawing the chart")

    monkeypatch.setattr(report_charts, "outcome_chart", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        write_report(sample_input(), tmp_path / "out", "r")
    assert not (tmp_path / "out").exists() or list((tmp_path / "out").iterdir()) == []


@pytest.mark.parametrize("interruption", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_a_failure_or_interrupt_while_writing_leaves_no_file(tmp_path, monkeypatch, interruption):
    real_replace = os.replace
    calls = []

    def replace_then_fail(src, dst):
        calls.append(dst)
        if len(calls) == 2:  # the first file is already in place: it must be taken back
            raise interruption
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace_then_fail)
    with pytest.raises(type(interruption)):
        write_report(sample_input(), tmp_path, "r")
    assert len(calls) == 2 and list(tmp_path.iterdir()) == []


def test_bad_input_writes_nothing(tmp_path):
    data = sample_input()
    with pytest.raises(ValueError):
        write_report(replace(data, simulation=dict(data.simulation, rounds=0)), tmp_path, "r")
    assert list(tmp_path.iterdir()) == []


def test_summary_gives_the_simulated_rtp_with_its_interval_and_every_wager_edge(sample_pdf, sample_content):
    text = " ".join(page_texts(sample_pdf))
    summary = text[text.index("1. Results summary"):text.index("2. Scope")]
    rtp = sample_content["sections"]["simulation"]["rtp"]
    assert f"{rtp['confidence'] * 100:g}% CI" in summary
    for wager in sample_content["sections"]["par_sheet"]["wagers"]:
        assert f"{wager['name']}: house edge" in summary


def test_multi_p_value_tests_do_not_claim_the_minimum(sample_pdf):
    text = " ".join(page_texts(sample_pdf))
    assert "min of" not in text and re.search(r"from \d+ p-values", text)


def test_par_tables_state_their_units(sample_pdf):
    text = " ".join(page_texts(sample_pdf))
    assert "in units of the initial bet" in text


def test_procedure_settlements_read_as_sentences_not_json():
    from certify.report.pdf import _settlement_text

    settled = {"meter_after": None, "table": "played",
               "seats": [{"error": None, "hand": "flush", "net": {"ante": "1.00", "bet": "-2.00"}, "status": "played"},
                         {"error": "outside the table limits", "net": {"ante": "0"}, "status": "rejected"}]}
    assert _settlement_text(settled) == ("table played; seat 1: played (flush), net ante +1.00, bet -2.00; "
                                         "seat 2: rejected, net ante +0, error: outside the table limits")
    assert _settlement_text({"other": 1}) == '{"other": 1}'


def test_simulation_chi_square_sentence_labels_what_it_looked_at(sample_pdf, sample_content):
    if not sample_content["sections"]["simulation"]["chi_square"].get("looked_at"):
        pytest.skip("the sample has no looked_at for the chi-square")
    text = " ".join(page_texts(sample_pdf))
    assert "Looked at:" in text


def test_every_chart_titles_its_value_axis():
    def texts(node):
        if hasattr(node, "text"):
            yield node.text
        for child in getattr(node, "contents", []):
            yield from texts(child)

    hist = list(texts(report_charts.pvalue_histogram([i / 100 for i in range(100)])))
    assert any("p-value bin" in t for t in hist) and "p-values in the bin" in hist
    outcome = list(texts(report_charts.outcome_chart(["a", "b"], [5, 5], [4.0, 6.0])))
    assert "share of rounds (%)" in outcome
    residual = list(texts(report_charts.residual_chart(["a", "b"], [5, 5], [4.0, 6.0])))
    assert any(t.startswith("standardised residual") for t in residual)


def test_nested_lists_of_plain_values_read_as_lists_not_json():
    from certify.report.pdf import _nested

    (para,) = _nested(["52o", "42o", 3])
    assert para.text == "52o, 42o, 3"


def test_par_sections_after_the_wagers_are_numbered_subsections():
    from certify.report.pdf import _par_sheet

    content = {"sections": {"par_sheet": {"wagers": [], "extra": {"frequencies": {"optimal_play_rate": 0.95}}}}}
    headings = [f.text for f in _par_sheet(content) if getattr(f, "style", None) is not None
                and f.style.name in ("h1", "h2")]
    assert "8.1 Frequencies" in headings


def test_a_simulation_with_a_hundred_outcome_events_fits_its_charts_on_a_page():
    # a hold'em sheet (Ultimate Texas Hold'em) has about fifty main events: the charts shrink their
    # rows to fit a page instead of failing the render
    from test_report_model import sample_input

    data = sample_input()
    sim = dict(data.simulation)
    sim["categories"] = [f"play_4x: win, dealer qualifies, outcome {i}" for i in range(100)]
    sim["observed"] = [1000 + i for i in range(100)]
    sim["expected"] = [1000.0 + i for i in range(100)]
    pdf, _ = render(build_content(replace(data, simulation=sim)))
    assert pdf.startswith(b"%PDF")
