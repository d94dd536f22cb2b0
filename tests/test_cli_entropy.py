"""`certify entropy`: output, JSON, exit codes and refusals (small inputs, --min-samples)."""

from __future__ import annotations

import json

import numpy as np
from click.testing import CliRunner

from certify.cli import cli


def _write(path, values):
    path.write_bytes(np.asarray(values, dtype=np.uint8).tobytes())
    return str(path)


def test_non_iid_assessment_prints_and_writes_json(tmp_path):
    rng = np.random.default_rng(40)
    src = _write(tmp_path / "noise.bin", rng.integers(0, 16, size=20_000))
    out = tmp_path / "out.json"
    res = CliRunner().invoke(cli, ["entropy", src, "-k", "4", "--min-samples", "1000", "--json", str(out)])
    assert res.exit_code == 0, res.output
    assert "H_original" in res.output and "H_bitstring" in res.output and "repetition count cutoff" in res.output
    data = json.loads(out.read_text())
    assert data["track"] == "non-IID" and len(data["literal"]) == 7 and len(data["bitstring"]) == 10
    assert data["assessed_min_entropy"] == data["min_entropy"] == min(data["H_original"], 4 * data["H_bitstring"])
    h = data["assessed_min_entropy"]
    assert data["health_tests"][0]["rct_cutoff"] == 1 + int(np.ceil(20 / h))


def test_iid_track_failure_exits_1(tmp_path):
    rng = np.random.default_rng(41)
    bits = (np.cumsum(rng.random(1500) >= 0.75) % 2).astype(np.uint8)
    src = _write(tmp_path / "chain.bin", bits)
    out = tmp_path / "out.json"
    res = CliRunner().invoke(cli, ["entropy", src, "-k", "1", "--iid", "--min-samples", "1000", "--permutations",
                                   "500", "--json", str(out)])
    assert res.exit_code == 1, res.output
    data = json.loads(out.read_text())
    assert data["verdict"] == "FAIL" and data["assessed_min_entropy"] is None and data["health_tests"] == []


def test_bad_input_exits_2_and_writes_nothing(tmp_path):
    out = tmp_path / "out.json"
    cases = [
        (_write(tmp_path / "wide.bin", [1, 2, 3, 99, 4] * 400), ["-k", "4", "--min-samples", "100"],
         "sample 3 (byte offset 3) has value 99"),
        (_write(tmp_path / "short.bin", [1, 2, 3] * 10), ["-k", "4"], "at least 1,000,000"),
        (_write(tmp_path / "empty.bin", []), ["-k", "4"], "empty"),
    ]
    restart_empty = _write(tmp_path / "restart.bin", [])
    good = _write(tmp_path / "good.bin", np.arange(5000) % 16)
    cases.append((good, ["-k", "4", "--min-samples", "100", "--restart", restart_empty], "restart.bin: the file is empty"))
    restart_small = _write(tmp_path / "restart2.bin", np.arange(999) % 16)
    cases.append((good, ["-k", "4", "--min-samples", "100", "--restart", restart_small], "1000 restarts x 1000"))
    for src, args, message in cases:
        res = CliRunner().invoke(cli, ["entropy", src, *args, "--json", str(out)])
        assert res.exit_code == 2, res.output
        assert message in res.output
        assert not out.exists()


def _pdf_text(path) -> str:
    from certify.report.verify import page_literals

    return " ".join(b.decode("latin-1") for page in page_literals(path.read_bytes()) for b in page)


def test_signed_report_carries_the_assessment(tmp_path):
    rng = np.random.default_rng(42)
    src = _write(tmp_path / "noise.bin", rng.integers(0, 16, size=20_000))
    out, folder = tmp_path / "out.json", tmp_path / "reports"
    res = CliRunner().invoke(cli, ["entropy", src, "-k", "4", "--min-samples", "1000", "--json", str(out),
                                   "--report", str(folder), "--issued-at", "2026-12-01T12:00:00Z"])
    assert res.exit_code == 0, res.output
    assessed = json.loads(out.read_text())
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["noise-sp800-90b.json", "noise-sp800-90b.json.p7s", "noise-sp800-90b.pdf"]
    report = json.loads((folder / "noise-sp800-90b.json").read_text())
    section = report["sections"]["entropy"]
    assert report["verdict"] == "PASS" and report["required_sections"] == ["entropy"]
    assert list(report["sections"]) == ["entropy"] and report["section_status"] == {"entropy": "pass"}
    assert section["assessed_min_entropy"] == assessed["assessed_min_entropy"]
    assert section["health_tests"] == assessed["health_tests"] and section["literal"] == assessed["literal"]
    assert report["standards"][0]["standard"] == "NIST SP 800-90B (2018)"
    text = _pdf_text(folder / "noise-sp800-90b.pdf")
    assert "Entropy Source Assessment Report" in text
    assert f"Assessed min-entropy: {assessed['assessed_min_entropy']:.6f} bits per 4-bit sample" in text
    cut = assessed["health_tests"][0]
    assert f"2^-20 | {cut['rct_cutoff']} | {cut['apt_window']} | {cut['apt_cutoff']}".replace(" | ", " ") in text
    for e in assessed["literal"] + assessed["bitstring"]:
        assert e["name"].split()[0] in text
    check = CliRunner().invoke(cli, ["verify", str(folder / "noise-sp800-90b.pdf"),
                                     str(folder / "noise-sp800-90b.json"), "--allow-development"])
    assert check.exit_code == 0, check.output


def test_failed_assessment_report_says_fail_and_exits_1(tmp_path):
    rng = np.random.default_rng(41)
    bits = (np.cumsum(rng.random(1500) >= 0.75) % 2).astype(np.uint8)
    src = _write(tmp_path / "chain.bin", bits)
    folder = tmp_path / "reports"
    res = CliRunner().invoke(cli, ["entropy", src, "-k", "1", "--iid", "--min-samples", "1000", "--permutations",
                                   "300", "--report", str(folder), "--issued-at", "2026-12-01"])
    assert res.exit_code == 1, res.output
    report = json.loads((folder / "chain-sp800-90b.json").read_text())
    assert report["verdict"] == "FAIL" and report["sections"]["entropy"]["assessed_min_entropy"] is None
    assert any(f["severity"] == "blocking" and "IID" in f["text"] for f in report["findings"])
    seed = report["methodology"]["seeds"][0]
    assert seed["value"] == "1" and len(seed["commitment"]) == 64
    assert "VERDICT: FAIL" in _pdf_text(folder / "chain-sp800-90b.pdf")


def test_bad_input_with_report_writes_no_report(tmp_path):
    src = _write(tmp_path / "wide.bin", [1, 2, 3, 99, 4] * 400)
    folder = tmp_path / "reports"
    res = CliRunner().invoke(cli, ["entropy", src, "-k", "4", "--min-samples", "100", "--report", str(folder)])
    assert res.exit_code == 2 and "has value 99" in res.output
    assert not folder.exists() or not any(folder.iterdir())


def test_report_model_fails_closed_on_a_doubtful_pass():
    """A 'pass' without a finite min-entropy is refused; one whose IID tests or restart tests did
    not pass is judged FAIL, whatever its verdict field says."""
    import dataclasses
    import pytest
    from datetime import datetime, timezone

    from certify.report import Product, ReportDataError, ReportInput, build_content

    base = {"standard": "NIST SP 800-90B (2018)", "file": "x.bin", "sha256": "0" * 64, "track": "IID",
            "bits_per_symbol": 4, "samples": 10, "alphabet_size": 3, "format": "one sample per byte",
            "min_samples": 1, "literal": [], "bitstring": [], "tests": [], "health_tests": [{"alpha": "2^-20"}],
            "reasons": [], "verdict": "pass", "assessed_min_entropy": 1.5, "iid_tests_passed": True,
            "H_original": 1.5, "H_bitstring": None, "min_entropy": 1.5}
    data = ReportInput(product=Product(game="g", spec="s", spec_version="1", paytable_sha256="",
                                       rng_module_version="r", suite_version="c"),
                       issued_at=datetime(2026, 1, 1, tzinfo=timezone.utc),
                       methodology={"alpha": 0.001, "multiple_testing": "none"},
                       software=[{"path": "a.py", "sha256": "1" * 64}], entropy=base, required=("entropy",))
    assert build_content(data)["verdict"] == "PASS"
    for change in ({"assessed_min_entropy": float("nan")}, {"assessed_min_entropy": 5.0},
                   {"assessed_min_entropy": None}):
        with pytest.raises(ReportDataError):
            build_content(dataclasses.replace(data, entropy={**base, **change}))
    for change in ({"iid_tests_passed": False}, {"restart": {"passed": False}}, {"health_tests": []}):
        assert build_content(dataclasses.replace(data, entropy={**base, **change}))["verdict"] == "FAIL"
    with pytest.raises(ReportDataError):   # a game report still needs its pay-table identity
        build_content(dataclasses.replace(data, required=("rng", "shuffle", "par_sheet", "simulation", "procedures"),
                                          entropy=None))


def test_reference_mode_switches_the_chi_square_null_and_is_reported(tmp_path):
    """Fair 8-bit samples (n = 10,000, seed 1000) that the NIST tool's chi-square df rule rejects
    (a false alarm, docs/sp800-90b.md): the default (exact permutation null) passes them; with
    --reference nist-ea the verdict is the tool's. The output and the JSON name the mode."""
    src = _write(tmp_path / "fair.bin", np.random.default_rng(1000).integers(0, 256, size=10_000))
    runs = {}
    for mode in ("exact", "nist-ea"):
        out = tmp_path / f"{mode}.json"
        res = CliRunner().invoke(cli, ["entropy", src, "-k", "8", "--iid", "--min-samples", "1000", "--permutations",
                                       "200", "--reference", mode, "--json", str(out)])
        assert f"reference mode: {mode}" in res.output
        runs[mode] = (res.exit_code, json.loads(out.read_text()))
    exact, tool = runs["exact"][1], runs["nist-ea"][1]
    assert exact["reference"] == "exact" and tool["reference"] == "nist-ea"
    chi = {mode: next(t for t in data["tests"] if t["name"] == "Chi-square independence")
           for mode, data in (("exact", exact), ("nist-ea", tool))}
    assert chi["exact"]["passed"] and not chi["nist-ea"]["passed"]
    assert chi["exact"]["details"]["score"] == chi["nist-ea"]["details"]["score"]
    assert runs["nist-ea"][0] == 1 and tool["verdict"] == "FAIL"
    res = CliRunner().invoke(cli, ["entropy", src, "-k", "8", "--reference", "nist-sts"])
    assert res.exit_code == 2


def test_nist_ea_refuses_an_h_initial_its_restart_rule_cannot_take(tmp_path, monkeypatch):
    """--reference nist-ea with --restart: the tool's sanity rule needs floor(2^H_I) values of
    probability 2^-H_I; a restart matrix with fewer distinct values is refused (exit 2, the file
    and the option named, nothing written). The IID track's H_I is its MCV estimate, so it is
    refused before the IID tests run (they are made to fail here if they do); the non-IID track's
    H_I is known only once its estimators have run. The default mode takes the same files."""
    import certify.stats.sp800_90b.assessment as assessment

    rng = np.random.default_rng(42)
    src = _write(tmp_path / "noise.bin", rng.integers(0, 256, size=5000))
    restart = _write(tmp_path / "restart.bin", rng.integers(0, 2, size=1_000_000) * 255)
    out = tmp_path / "out.json"
    args = ["entropy", src, "-k", "8", "--min-samples", "1000", "--restart", restart, "--json", str(out)]

    def no_tests(*_, **__):
        raise AssertionError("the IID tests ran before the refusal")

    with monkeypatch.context() as patch:
        patch.setattr(assessment, "assess_iid", no_tests)
        res = CliRunner().invoke(cli, [*args, "--iid", "--reference", "nist-ea"])
    assert res.exit_code == 2, res.output
    assert "restart.bin: --reference nist-ea" in res.output and "only 2 values occur" in res.output
    assert not out.exists()
    res = CliRunner().invoke(cli, [*args, "--reference", "nist-ea"])   # non-IID
    assert res.exit_code == 2 and "only 2 values occur" in res.output and not out.exists(), res.output
    res = CliRunner().invoke(cli, [*args, "--iid", "--permutations", "20"])
    assert res.exit_code == 1 and json.loads(out.read_text())["restart"]["sanity_check"]["passed"] is False
