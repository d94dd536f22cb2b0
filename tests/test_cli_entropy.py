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
