"""The SP 800-22 reference mode: ``reference="nist-sts"`` computes what the NIST STS reference
code computes (its printed Appendix B figures for e), the default stays exact, and the battery,
its JSON and ``certify rng`` say which mode was used."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from certify.cli import cli
from certify.stats import battery
from certify.stats import sp800_22 as nist
from rng import streams

E_BITS = Path(__file__).resolve().parents[1] / "fixtures" / "sp800_22" / "e_1e6.bin"
DIFFERING = ("LongestRun", "OverlappingTemplate", "LinearComplexity")


def r6(p):
    return round(p, 6)


def test_nist_sts_mode_reproduces_the_reference_codes_figures_for_e():
    bits = nist.bits_from_bytes(E_BITS.read_bytes())
    reference = {r.name: r.pvalue for r in nist.run_all(bits, tests=DIFFERING, reference="nist-sts")}
    # SP 800-22 Rev. 1a Appendix B, e (produced by the reference code)
    assert {k: r6(v) for k, v in reference.items()} == {"LongestRun": 0.718945, "OverlappingTemplate": 0.110434,
                                                        "LinearComplexity": 0.826335}
    exact = {r.name: r.pvalue for r in nist.run_all(bits, tests=DIFFERING)}
    assert {k: r6(v) for k, v in exact.items()} == {"LongestRun": r6(nist.longest_run(bits).pvalue),
                                                    "OverlappingTemplate": 0.159037, "LinearComplexity": 0.826202}


def test_modes_agree_on_the_other_tests():
    bits = nist.bits_from_bytes(E_BITS.read_bytes())[:100_000]
    others = [t for t in nist.TEST_NAMES if t not in DIFFERING]
    exact = nist.run_all(bits, tests=others)
    reference = nist.run_all(bits, tests=others, reference="nist-sts")
    assert [r.pvalues for r in exact] == [r.pvalues for r in reference]


def test_unknown_mode_is_refused_before_any_work():
    with pytest.raises(ValueError, match="reference mode 'sts'"):
        nist.run_all([0, 1] * 100, reference="sts")
    with pytest.raises(ValueError, match="reference mode"):
        battery.run_battery(streams.stream(1, 0), "quick", reference="sts")


def test_battery_and_rng_command_record_the_mode(tmp_path):
    out = battery.sp800_22_battery(streams.stream(3, 0), 20_000, 2, reference="nist-sts")
    direct = nist.longest_run(nist.bits_from_bytes(streams.stream(3, 0).random_bytes(2500)), probabilities="nist")
    assert out["LongestRun"]["pvalues"][0][0] == direct.pvalue
    path = tmp_path / "rng.json"
    res = CliRunner().invoke(cli, ["rng", "--profile", "quick", "--bits", "20000", "--sequences", "2", "--decks", "0",
                                   "--small-decks", "0", "--draws", "0", "--reference", "nist-sts", "--jobs", "1",
                                   "--json", str(path)])
    assert res.exit_code in (0, 1), res.output
    assert "SP 800-22 computed: nist-sts" in res.output
    assert json.loads(path.read_text())["sp800_22_reference"] == "nist-sts"
