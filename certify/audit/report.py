"""The audit's verdict and its signed PDF + JSON report, through the suite's report machinery.

The report is of the kind ``audit`` (``certify.report.AUDIT_REPORT``): its required sections are
exactly what an audit produces, ``integrity`` and ``rules`` (exact checks of every round: one
scenario per finding class with the first findings), ``fairness`` (the card tests of the cards as
dealt) and ``math`` (what no decision changes, tested on every round: the dealer's qualification
rate and the side wagers whose settlement no option changes, ``certify.audit.sides``; and the
outcome and RTP tests against the PAR sheet on the rounds that declare the spec strategy). A section with
nothing to judge is not run, and a section not run or failed keeps the verdict from PASS. The
statistical tests of both ``fairness`` and ``math`` form one Holm family; each section carries its
share of it (rejected members, smallest adjusted p-value), so a section fails exactly when one of
its own tests is rejected. The logs are identified in the methodology (name, size, SHA-256,
rounds, period) and as rows of the software table.

One verdict owner: :func:`judge_audit` hands these sections to ``certify.report.judge`` (the
function ``build_content`` judges every report with), and the audit's text, ``--json``, exit code
and report all carry what it returns. A free-play log (no round declares the spec strategy) is a
PASS with its scope stated (:func:`scope`) when all four sections pass; when the game has no
decision-independent math test (no dealer threshold, no decision-free side wager placed) its
math is not run and it is INCOMPLETE.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from certify.audit.audit import CLASSES


def _section_family(result: dict, tests: list[dict], what: str) -> dict | None:
    """This section's share of the audit's Holm family: failed when a member of it is rejected or an
    exact check of it (no p-value) failed."""
    from certify.stats.result import TestResult

    names = {t["name"] for t in tests}
    confirmation = result["confirmation"]
    members = [m for m in (confirmation["stage1"]["members"] if confirmation else []) if m["name"] in names]
    exact_failed = [t["name"] for t in tests if t["pvalue"] is None and t["applicable"] and not t["passed"]]
    if not members and not exact_failed:
        return None
    rejected = [m["name"] for m in members if m["rejected"]]
    total = len(confirmation["stage1"]["members"]) if confirmation else 0
    return TestResult(
        name=f"{what}: Holm-Bonferroni share", statistic=None, alpha=result["alpha"], n=len(members),
        # an exact check failed: the share fails whatever the p-values (an exact verdict, no p-value)
        pvalue=None if exact_failed else min((m["adjusted"] for m in members), default=None),
        passed=not rejected and not exact_failed,
        looked_at=f"this section's {len(members)} of the audit's {total} statistical tests, Holm-adjusted over all "
                  f"{total}; the smallest adjusted p-value" + (f"; exact checks failed: {exact_failed}"
                                                              if exact_failed else ""),
        details={"rejected": rejected, "exact_failed": exact_failed,
                 "smallest_adjusted": min((m["adjusted"] for m in members), default=None)}).to_dict()


def _tests_section(result: dict, part: str, what: str, description: dict[str, str]) -> dict | None:
    tests = result[part]["tests"]
    if not any(t["applicable"] for t in tests):
        return None      # nothing judged (no test, or too few rounds for any): not run, never a pass
    return {"description": description, "tests": tests, "family": _section_family(result, tests, what)}


def _scenarios(result: dict, classes: tuple[str, ...]) -> dict:
    return {"fixtures": [f["name"] for f in result["files"]], "scenarios": [
        {"id": f"audit: {c}", "rule": _RULES[c], "source": f"round log, {result['rounds']:,} rounds",
         "status": "pass" if result["findings"][c]["count"] == 0 else "fail",
         "expected": {"findings": 0}, "actual": {"findings": result["findings"][c]["count"],
                                                 "first": result["findings"][c]["first"][:20]}}
        for c in classes]}


def _math_description(result: dict) -> dict[str, str]:
    declared = result["math"]["declared_rounds"]
    free = [name for name, v in (result["math"].get("decision_free_wagers") or {}).items()
            if v.get("tested_in_every_round")]
    out = {"Rounds tested": f"dealer's rate: every round; "
                            + (f"side wagers no decision changes ({', '.join(free)}): every round; " if free else "")
                            + f"outcomes and RTP: {declared:,} rounds declaring the spec strategy (first seat)",
           "PAR sheet": str(result["math"]["par_sheet"] or "-")}
    if result["par_provenance"]:
        out["PAR sheet source"] = ", ".join(f"{k}: {v}" for k, v in result["par_provenance"].items()
                                            if isinstance(v, (str, int, bool)))
    deviations = result["math"].get("free_play_deviations_from_spec_strategy")
    if result["math"].get("free_play_decisions"):
        out["Free play"] = (f"{result['math']['free_play_decisions']:,} decisions, {deviations:,} different from "
                            "the spec strategy (what they cost is not judged)")
    return out


def sections(result: dict) -> dict[str, Any]:
    """The four parts of the audit as report sections (``None``: not run). The one input of the
    verdict, whether it is printed, written with ``--json`` or signed in the report."""
    fair = result["fairness"]
    cards = {"Cards": f"the first {fair['positions']} cards of each round's first deal, in dealing order; deck "
                      "orders where the log gives them",
             "First-deal sizes (rounds)": ", ".join(f"{k}: {v:,}" for k, v in fair["first_deal_sizes"].items())}
    return {"integrity": _scenarios(result, ("integrity",)), "rules": _scenarios(result, ("rules", "decisions")),
            "fairness": _tests_section(result, "fairness", "Fairness of the cards", cards),
            "math": _tests_section(result, "math", "Math", _math_description(result))}


def scope(result: dict) -> str:
    """What the verdict covers, in words: a free-play log is judged on what free play allows."""
    math = result["math"]
    free, declared = math.get("free_play_rounds", 0), math["declared_rounds"]
    if not free:
        return (f"every round declares the spec strategy: integrity, rules and decisions of every round, the cards "
                f"dealt, the dealer's rate and the outcomes and RTP of {declared:,} rounds against the PAR sheet")
    dealer = [t["name"] for t in math["tests"] if t["applicable"] and (
        t["name"].startswith("dealer ") or "(every round, no decision changes it)" in t["name"])]
    text = (f"free play in {free:,} of {result['rounds']:,} rounds: integrity and rules of every round and the "
            f"cards dealt; the math judged on what no decision changes ("
            + (", ".join(dealer) if dealer else "nothing for this game: the math is not run") + ")")
    text += (f"; outcomes and RTP against the PAR sheet on the {declared:,} rounds declaring the spec strategy"
             if declared else "; outcomes and RTP against the PAR sheet need a declared strategy: not tested")
    untested = {name: v["why_not"] for name, v in (math.get("decision_free_wagers") or {}).items()
                if not v.get("tested_in_every_round")}
    if untested:
        text += "; side wagers not tested in every round: " + "; ".join(f"{k} ({v})" for k, v in untested.items())
    decisions = math.get("free_play_decisions")
    if decisions:
        text += (f"; {math['free_play_deviations_from_spec_strategy']:,} of {decisions:,} decisions differ from the "
                 "spec strategy (reported, not judged)")
        cost = math.get("free_play_decision_cost")
        if cost and cost.get("expected cost") is not None:
            text += (f"; {cost['below the optimal option']:,} below the optimal option, expected cost "
                     f"{cost['expected cost']} in the log's money (reported, not judged)")
        elif cost:
            text += f"; what they cost is not given: {cost['not given']}"
    return text


def judge_audit(result: dict) -> dict[str, Any]:
    """The audit's verdict: the report machinery's ``judge`` on the audit's sections, so that the
    text, ``--json``, the exit code and the signed report can never say different things."""
    from certify.report import AUDIT_REPORT, judge

    judged = judge(AUDIT_REPORT, sections(result))
    return {"verdict": judged.verdict, "passed": judged.exit_code == 0, "exit_code": judged.exit_code,
            "section_status": judged.statuses, "reasons": judged.reasons, "scope": scope(result)}


def report_input(result: dict, spec, spec_path: Path, issued_at) -> Any:
    from certify import __version__ as suite_version
    from certify.report import AUDIT_REPORT, Product, ReportInput, paytable_identity
    from certify.report.identify import file_sha256, software_inventory
    from certify.run import pay_tables
    from rng import __version__ as rng_version

    software = software_inventory(spec_path=spec_path)
    for f in result["files"]:
        software.append({"path": f["name"], "sha256": f["sha256"], "role": "audited log"})
    fair = result["fairness"]
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
            "scope": result["scope"],
            "audited_files": result["files"],
            "rounds": result["rounds"], "period": result["period"],
            "sample_sizes": {"rounds audited": result["rounds"],
                             "rounds in the card battery sample": fair["battery_sample"],
                             "deck orders": fair["deck_orders"],
                             "rounds declaring the spec strategy": result["math"]["declared_rounds"]},
        },
        software=software, required=AUDIT_REPORT, **sections(result),
        findings=[f"Scope: {result['scope']}."],
    )


_RULES = {
    "integrity": "round ids consecutive per table, time never backwards, no card twice in a round, every card "
                 "of the deck, the deck order matching the cards dealt",
    "rules": "every round re-settled by the spec's rules: legal actions, each wager's net, outcome, meter",
    "decisions": "where the log declares the spec strategy, every decision is the strategy's",
}
