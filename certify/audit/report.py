"""The audit as a signed PDF + JSON report, through the suite's report machinery.

The report's sections carry the audit's parts: ``shuffle`` the fairness tests of the cards as
dealt (with the audit's family verdict), ``par_sheet`` the sheet the math was tested against,
``simulation`` the outcome and RTP tests of the main game (when the log declares the spec
strategy), ``procedures`` one row per exact check (integrity, rules, decisions) with the first
findings. The logs are identified as rows of the software table (role ``audited log``: name and
SHA-256) and in the methodology (size, round count, period). The ``rng`` section is not run (a log
shows cards, not the generator's output), so the report's verdict is at best INCOMPLETE: it
certifies the rounds played, not the RNG.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from certify.audit.audit import CLASSES


def _family(result: dict) -> dict | None:
    from certify.stats.result import TestResult

    confirmation = result["confirmation"]
    if confirmation is None:
        return None
    return TestResult(name="Audit tests (Holm-Bonferroni)", statistic=None, pvalue=confirmation["pvalue"],
                      alpha=confirmation["alpha"], n=len(confirmation["stage1"]["members"]),
                      looked_at=confirmation["summary"],
                      details={"failing": confirmation["failing"]}).to_dict()


def _simulation(result: dict, sheet) -> dict | None:
    tests = result["math"]["tests"]
    main = next((w for w in sheet.wagers if any(t["name"] == f"{w.name}: outcome frequencies" for t in tests)), None)
    if main is None:
        return None
    chi = next(t for t in tests if t["name"] == f"{main.name}: outcome frequencies")
    rtp = next((t for t in tests if t["name"] == f"{main.name}: RTP"), None)
    if rtp is None or not chi["applicable"]:
        return None
    d = rtp["details"]
    rounds = d["rounds"]
    return {
        "rounds": rounds,
        "categories": [c for c in chi["details"].get("labels", [])] or ["(see tests)"],
        "observed": chi["details"].get("observed", [0]), "expected": chi["details"].get("expected", [0]),
        "chi_square": chi,
        "rtp": {"observed": 1 + d["observed_mean"], "theoretical": 1 + d["expected_mean"],
                "ci_low": 1 + d["ci_low"], "ci_high": 1 + d["ci_high"], "confidence": d["ci_level"],
                "passed": rtp["passed"]},
        "tests": tests,
        "family": _family(result),
        "wager_tallied": f"{main.name}: the first seat of each round that declares the spec strategy",
    }


def report_input(result: dict, spec, spec_path: Path, issued_at) -> Any:
    from certify import __version__ as suite_version
    from certify.report import Product, ReportInput, paytable_identity
    from certify.report.identify import file_sha256, software_inventory
    from certify.run import pay_tables
    from rng import __version__ as rng_version

    sheet = result["_sheet"]
    software = software_inventory(spec_path=spec_path)
    for f in result["files"]:
        software.append({"path": f["name"], "sha256": f["sha256"], "role": "audited log"})
    family = _family(result)
    shuffle = None
    if result["fairness"]["tests"]:
        shuffle = {"description": {"Cards": f"first deal of each round, {result['fairness']['positions']} positions "
                                            "in dealing order; deck orders where the log gives them"},
                   "tests": result["fairness"]["tests"], "family": family}
    par = dict(sheet.to_dict(), provenance=result["par_provenance"]) if result["par_provenance"] else sheet.to_dict()
    procedures = {"fixtures": [f["name"] for f in result["files"]], "scenarios": [
        {"id": f"audit: {c}", "rule": _RULES[c], "source": "round log",
         "status": "pass" if result["findings"][c]["count"] == 0 else "fail",
         "expected": {"findings": 0}, "actual": {"findings": result["findings"][c]["count"],
                                                 "first": result["findings"][c]["first"][:20]}}
        for c in CLASSES]}
    spec_data = spec.model_dump(mode="json")
    return ReportInput(
        product=Product(game=spec.title, spec=spec.name, spec_version=str(spec.version),
                        paytable_sha256=paytable_identity(pay_tables(spec_data)),
                        rng_module_version=f"rng {rng_version} (not used: the rounds come from the log)",
                        suite_version=f"certify {suite_version}", spec_sha256=file_sha256(spec_path)),
        issued_at=issued_at,
        methodology={
            "alpha": result["alpha"],
            "multiple_testing": "Holm-Bonferroni over every statistical test of the audit (no fresh data: the "
                                "stage-1 verdict stands); integrity, rules and decision findings fail outright",
            "false_alarm_rate": result["false_alarm_rate"],
            "audited_files": result["files"],
            "rounds": result["rounds"], "period": result["period"],
            "sample_sizes": {"rounds audited": result["rounds"],
                             "rounds in the card battery sample": result["fairness"]["battery_sample"],
                             "deck orders": result["fairness"]["deck_orders"],
                             "rounds declaring the spec strategy": result["math"]["declared_rounds"]},
        },
        software=software,
        shuffle=shuffle, par_sheet=par, simulation=_simulation(result, sheet), procedures=procedures,
        findings=["RNG results: not run: a round log shows the cards dealt, not the generator's output."],
    )


_RULES = {
    "integrity": "round ids consecutive per table, time never backwards, no card twice in a round, every card "
                 "of the deck, the deck order matching the cards dealt",
    "rules": "every round re-settled by the spec's rules: legal actions, each wager's net, outcome, meter",
    "decisions": "where the log declares the spec strategy, every decision is the strategy's",
}
