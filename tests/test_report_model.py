"""The report's input schema and verdict logic, and the realistic sample the other report tests use."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timezone

import numpy as np
import pytest
from scipy import stats as sps

from certify.report import (Product, ReportDataError, ReportInput, SignerInfo, build_content, paytable_identity,
                            seed_commitment)
from certify.report.identify import software_inventory
from certify.stats.result import TestResult

ISSUED = datetime(2026, 11, 29, 12, 0, 0, tzinfo=timezone.utc)

# The inventor's Five Card Mulligan return table (seeds/README.md): realistic PAR-sheet rows.
MULLIGAN_ROWS = [
    ("player wins with nothing, bet 1", 1, 0.015127), ("player wins with a pair, bet 1", 1, 0.263124),
    ("player wins with two pair, bet 1", 1, 0.044279), ("player wins with three of a kind, bet 1", 1, 0.020721),
    ("player wins with a straight, bet 1", 1, 0.003902), ("player wins with a flush, bet 1", 1, 0.001956),
    ("player wins with a full house, bet 1", 3, 0.00145), ("player wins with four of a kind, bet 1", 10, 0.000243),
    ("player wins with a straight flush, bet 1", 50, 0.000014), ("player wins with a royal flush, bet 1", 100, 0.000002),
    ("player wins with nothing, bet 2", 2, 0.0257), ("player wins with a pair, bet 2", 2, 0.119065),
    ("player wins with two pair, bet 2", 2, 0.01975), ("player wins with three of a kind, bet 2", 2, 0.009114),
    ("player wins with a straight, bet 2", 2, 0.001762), ("player wins with a flush, bet 2", 2, 0.000889),
    ("player wins with a full house, bet 2", 6, 0.00063), ("player wins with four of a kind, bet 2", 20, 0.000103),
    ("player wins with a straight flush, bet 2", 100, 0.000006), ("player wins with a royal flush, bet 2", 200, 0.000001),
    ("player loses, bet 1", -1, 0.196808), ("player loses, bet 2", -2, 0.275306),
    ("push, bet 1", 0, 0.000021), ("push, bet 2", 0, 0.000028),
]

NIST_TESTS = ["Frequency", "BlockFrequency", "CumulativeSums", "Runs", "LongestRun", "Rank", "FFT",
              "NonOverlappingTemplate", "OverlappingTemplate", "Universal", "ApproximateEntropy",
              "RandomExcursions", "RandomExcursionsVariant", "Serial", "LinearComplexity"]
P_COUNTS = {"CumulativeSums": 2, "NonOverlappingTemplate": 148, "RandomExcursions": 8,
            "RandomExcursionsVariant": 18, "Serial": 2}


def _rng_tests(rng: np.random.Generator, alpha: float, fail: str | None = None) -> list[TestResult]:
    out = []
    for name in NIST_TESTS:
        pvalues = tuple(float(p) for p in rng.uniform(0.02, 1.0, P_COUNTS.get(name, 1)))
        if name == fail:
            pvalues = (1.2e-7,) + pvalues[1:]
        p = min(pvalues)
        out.append(TestResult(name=name, statistic=float(sps.chi2.isf(p, 9)), pvalue=p, alpha=alpha,
                              passed=p >= alpha, n=1_000_000, dof=9.0, pvalues=pvalues,
                              looked_at="100 sequences of 1,000,000 bits from CTR_DRBG (AES-256), "
                                        "second-level uniformity of p-values"))
    return out


def _simulation(rng: np.random.Generator, alpha: float, rounds: int = 2_000_000) -> dict:
    names = [r[0] for r in MULLIGAN_ROWS]
    probs = np.array([r[2] for r in MULLIGAN_ROWS])
    probs = probs / probs.sum()
    pays = np.array([r[1] for r in MULLIGAN_ROWS], dtype=float)
    observed = rng.multinomial(rounds, probs)
    expected = probs * rounds
    chi = float(((observed - expected) ** 2 / expected).sum())
    dof = len(names) - 1
    p = float(sps.chi2.sf(chi, dof))
    per_round = np.repeat(pays, observed)
    mean, sd = per_round.mean(), per_round.std(ddof=1)
    half = 2.5758 * sd / np.sqrt(rounds)
    theoretical = float((pays * probs).sum())
    return {
        "rounds": rounds, "categories": names, "observed": observed.tolist(), "expected": expected.tolist(),
        "chi_square": TestResult(name="Outcome chi-square", statistic=chi, pvalue=p, alpha=alpha,
                                 passed=p >= alpha, n=rounds, dof=dof,
                                 looked_at="24 outcome categories against the PAR sheet").to_dict(),
        "rtp": {"observed": 1 + mean, "theoretical": 1 + theoretical, "ci_low": 1 + mean - half,
                "ci_high": 1 + mean + half, "confidence": 0.99,
                "passed": bool(mean - half <= theoretical <= mean + half)},
        "tests": [],
        "workers": 2,
    }


def sample_input(*, fail_rng: str | None = None, omit: tuple[str, ...] = (), signer: SignerInfo | None = None,
                 procedures_fail: bool = False) -> ReportInput:
    """A realistic report input built from real TestResults and plausible section dicts."""
    rng = np.random.default_rng(20261129)
    alpha = 0.01
    pay_tables = {"ante_raise": {"royal_flush": 100, "straight_flush": 50, "four_of_a_kind": 10,
                                 "full_house": 3, "other": 1},
                  "bonus": {"royal_flush": 10000, "straight_flush": 1000, "four_of_a_kind": 200, "full_house": 100,
                            "flush": 50, "straight": 30, "three_of_a_kind": 10, "two_pair": 5}}
    tests = _rng_tests(rng, alpha, fail_rng)
    family_p = 0.43 if fail_rng is None else 1e-5
    sections = {
        "rng": {
            "description": {"Generator": "CTR_DRBG (AES-256, no derivation function), NIST SP 800-90A Rev. 1",
                            "Entropy input": "os.urandom, 384 bits per (re)seed, SP 800-90B continuous health tests",
                            "Reseed interval": "2^20 requests; prediction resistance off",
                            "Scaling": "rejection sampling to [0, n), never modulo"},
            "tests": [t.to_dict() for t in tests],
            "family": TestResult(name="SP 800-22 battery (Holm)", statistic=None, pvalue=family_p, alpha=alpha,
                                 passed=family_p >= alpha, n=15,
                                 looked_at="Holm-Bonferroni over the 15 tests' second-level p-values").to_dict(),
            "kat": [TestResult(name="CTR_DRBG AES-256 CAVP vectors", statistic=None, pvalue=None, alpha=0.0,
                               passed=True, n=240, looked_at="240 known-answer vectors, no df, no PR").to_dict()],
            "health": [TestResult(name="Repetition count test", statistic=None, pvalue=None, alpha=2 ** -20,
                                  passed=True, n=4_000_000, looked_at="cutoff C = 21 at H = 1").to_dict()],
        },
        "shuffle": {
            "description": {"Algorithm": "Fisher-Yates (Durstenfeld), deals the first k cards",
                            "Deck": "52 cards, one deck per round"},
            "tests": [TestResult(name=n, statistic=float(s), pvalue=float(p), alpha=alpha, passed=p >= alpha,
                                 n=1_000_000, dof=float(d), looked_at=w).to_dict()
                      for n, s, p, d, w in [
                          ("Card x position", 2650.3, 0.41, 2601, "52 x 52 table of card by deal position"),
                          ("Adjacent ordered pairs", 2690.8, 0.22, 2651, "ordered pairs of consecutive cards"),
                          ("Permutations of 4 cards", 27.4, 0.24, 23, "all 24 orders of a 4-card deck"),
                          ("Poker test (5-card categories)", 8.7, 0.47, 9,
                           "dealt 5-card categories against the exact counts")]],
        },
        "par_sheet": {"house_edge": 0.031523, "element_of_risk": 0.0217, "std_dev": 1.610,
                      "average_wager": 1.4524, "hit_frequency": 0.3818, "exact": False,
                      "strategy": "switch with AK953 or less; stand with AK954 or more",
                      "return_table": [{"event": e, "pays": pays, "probability": p, "return": pays * p}
                                       for e, pays, p in MULLIGAN_ROWS]},
        "simulation": _simulation(rng, alpha),
        "procedures": {"fixtures": ["fixtures/procedures/five_card_mulligan.yaml"], "scenarios": [
            {"id": "mulligan-bonus-lost", "rule": "A mulligan loses the Bonus bet.", "source": "seed 002",
             "status": "pass", "expected": {"ante": "1.00", "raise": "1.00", "bonus": "-5.00"},
             "actual": {"ante": "1.00", "raise": "1.00", "bonus": "-5.00"}},
            {"id": "dealer-redraw-king-high", "rule": "The dealer with King-high or less takes a mulligan.",
             "source": "seed 000", "status": "fail" if procedures_fail else "pass",
             "expected": {"ante": "-1.00"}, "actual": {"ante": "1.00"} if procedures_fail else {"ante": "-1.00"}},
        ]},
    }
    for key in omit:
        sections[key] = None
    return ReportInput(
        product=Product(game="Five Card Mulligan Poker", spec="five_card_mulligan", spec_version="1.0",
                        paytable_sha256=paytable_identity(pay_tables), rng_module_version="rng 0.1.0",
                        suite_version="certify 0.1.0", spec_sha256="ab" * 32),
        issued_at=ISSUED,
        methodology={"alpha": alpha, "multiple_testing": "Holm-Bonferroni across the tests of each battery",
                     "profile": "quick", "sample_sizes": {"SP 800-22 bits per sequence": 1_000_000,
                                                          "SP 800-22 sequences": 100, "shuffled decks": 1_000_000,
                                                          "simulated rounds": 2_000_000},
                     "seeds": [{"purpose": "master seed (all streams)", "value": 20261129}]},
        software=software_inventory(),
        signer=signer,
        **sections,
    )


# ----------------------------------------------------------------------------- tests


def test_complete_passing_input_is_pass():
    content = build_content(sample_input())
    assert content["verdict"] == "PASS"
    assert set(content["section_status"].values()) <= {"pass", "computed"}
    assert content["report_id"].startswith("CR-")
    assert [s["standard"] for s in content["standards"]][:3] == [
        "NIST SP 800-90A Rev. 1", "NIST SP 800-90B Section 4.4", "NIST SP 800-22 Rev. 1a"]


@pytest.mark.parametrize("missing", ["rng", "shuffle", "par_sheet", "simulation", "procedures"])
def test_a_section_not_run_prevents_pass_and_is_stated(missing):
    content = build_content(sample_input(omit=(missing,)))
    assert content["verdict"] == "INCOMPLETE"
    assert content["section_status"][missing] == "not run"
    assert any("not run" in f["text"] and f["severity"] == "blocking" for f in content["findings"])


def test_standards_list_only_what_was_run():
    content = build_content(sample_input(omit=("rng",)))
    names = " ".join(s["standard"] for s in content["standards"])
    assert "SP 800-22" not in names and "800-90A" not in names
    content = build_content(sample_input(omit=("rng", "shuffle", "par_sheet", "simulation", "procedures")))
    assert content["standards"] == [] and content["verdict"] == "INCOMPLETE"


def test_failed_battery_and_failed_scenario_fail_the_report():
    content = build_content(sample_input(fail_rng="Runs"))
    assert content["verdict"] == "FAIL" and content["section_status"]["rng"] == "fail"
    assert any("Runs" in f["text"] for f in content["findings"])
    content = build_content(sample_input(procedures_fail=True))
    assert content["verdict"] == "FAIL"
    assert any("dealer-redraw-king-high" in f["text"] for f in content["findings"])


def test_failure_beats_not_run():
    content = build_content(sample_input(fail_rng="FFT", omit=("simulation",)))
    assert content["verdict"] == "FAIL"


def test_rtp_outside_interval_fails_the_simulation():
    data = sample_input()
    sim = dict(data.simulation)
    sim["rtp"] = dict(sim["rtp"], passed=False)
    content = build_content(replace(data, simulation=sim))
    assert content["section_status"]["simulation"] == "fail" and content["verdict"] == "FAIL"


def test_individual_failures_without_a_family_verdict_fail_the_section():
    data = sample_input(fail_rng="Rank")
    rng = dict(data.rng, family=None)
    assert build_content(replace(data, rng=rng))["section_status"]["rng"] == "fail"


def test_individual_failure_inside_a_passing_family_is_a_note():
    data = sample_input(fail_rng="Rank")
    family = dict(data.rng["family"], pvalue=0.3, passed=True)
    content = build_content(replace(data, rng=dict(data.rng, family=family)))
    assert content["section_status"]["rng"] == "pass"
    assert any(f["severity"] == "note" and "Rank" in f["text"] for f in content["findings"])


def test_seed_commitment_is_checked_and_computed():
    content = build_content(sample_input())
    seed = content["methodology"]["seeds"][0]
    from rng.streams import seed_commitment as rng_commitment

    assert seed["commitment"] == seed_commitment(20261129) == rng_commitment(20261129)
    assert seed["value"] == "20261129"
    data = sample_input()
    bad = dict(data.methodology, seeds=[{"purpose": "x", "value": 1, "commitment": "0" * 64}])
    with pytest.raises(ReportDataError, match=r"methodology.seeds\[0\]"):
        build_content(replace(data, methodology=bad))


@pytest.mark.parametrize("mutate, field", [
    (lambda d: replace(d, simulation=dict(d.simulation, observed=d.simulation["observed"][:-1])), "simulation"),
    (lambda d: replace(d, rng=dict(d.rng, tests=[dict(d.rng["tests"][0], pvalue=1.5)])), r"rng.tests\[0\].pvalue"),
    (lambda d: replace(d, procedures={"scenarios": [{"id": "x", "status": "ok"}]}), r"procedures.scenarios\[0\].status"),
    (lambda d: replace(d, par_sheet={"return_table": []}), "par_sheet.house_edge"),
    (lambda d: replace(d, methodology=dict(d.methodology, alpha=2)), "methodology.alpha"),
    (lambda d: replace(d, product=replace(d.product, paytable_sha256="xyz")), "product.paytable_sha256"),
    (lambda d: replace(d, rng=dict(d.rng, unknown=1)), "rng"),
    (lambda d: replace(d, issued_at=datetime(2026, 1, 1)), "issued_at"),
])
def test_bad_input_names_the_field(mutate, field):
    with pytest.raises(ReportDataError, match=field):
        build_content(mutate(sample_input()))


def test_content_is_plain_json_and_stable():
    data = sample_input()
    a, b = build_content(data), build_content(data)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert a["report_id"] == b["report_id"]
    other = build_content(replace(data, issued_at=datetime(2026, 11, 30, tzinfo=timezone.utc)))
    assert other["report_id"] != a["report_id"]


def test_paytable_identity_changes_with_any_payout():
    base = {"bet": {"royal_flush": 100, "flush": 5}}
    assert paytable_identity(base) == paytable_identity({"bet": {"flush": 5, "royal_flush": 100}})
    assert paytable_identity(base) != paytable_identity({"bet": {"royal_flush": 100, "flush": 4}})
