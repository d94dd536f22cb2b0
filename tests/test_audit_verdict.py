"""One verdict owner: the audit's printed verdict, its exit code, ``--json`` and the signed report
never disagree (certify.audit.report.judge_audit -> certify.report.judge, the function every
report is judged by).

End to end on real logs (a pass, a finding, free play that passes with its scope stated, free
play that is INCOMPLETE), and exhaustively over every combination of section outcomes."""

from __future__ import annotations

import itertools
import json
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner

from certify.cli import cli
from certify.spec import load_spec, resolve_spec_path
from tests.test_audit import CS, HB, LOGS, records, write

ISSUED = "2026-12-01"


@pytest.fixture(autouse=True)
def _golden_par(golden_sheet, monkeypatch):
    from certify.analysis import cache

    monkeypatch.setattr(cache, "load_or_compute", lambda spec, use_cache=True, **_: (golden_sheet(spec.name), None))


def _everywhere(tmp_path: Path, log: Path, spec: str) -> tuple[int, str, dict, dict]:
    """Exit code, the printed verdict word, the --json result and the signed report JSON."""
    out, rep = tmp_path / "a.json", tmp_path / "rep"
    result = CliRunner().invoke(cli, ["audit", str(log), "--spec", spec, "--json", str(out), "--report", str(rep),
                                      "--issued-at", ISSUED], catch_exceptions=False)
    printed = [line for line in result.output.splitlines() if line.startswith("verdict: ")]
    assert len(printed) == 1, result.output
    report = json.loads(next(rep.glob("*.json")).read_text())
    return result.exit_code, printed[0].split()[1], json.loads(out.read_text()), report


def _free_play_stud_log(tmp_path: Path) -> Path:
    from certify.audit import sample

    spec = load_spec("caribbean_stud")
    return write(tmp_path, list(sample.records(spec, 300, 5, seats=2, play="random")), "free.jsonl")


def _free_play_without_side_bets(tmp_path: Path) -> Path:
    """The free-play Hold'em Bonus log with no Bonus placed: no dealer threshold, no decision-free
    side wager tallied: nothing of its math is decision-independent."""
    recs = records(HB)
    for r in recs:
        r["actions"] = [a for a in r["actions"] if not (a["type"] == "wager" and a["wager"] == "bonus")]
        r["settlement"] = [e for e in r["settlement"] if e["wager"] != "bonus"]
    return write(tmp_path, recs, "no_bonus.jsonl")


def _mispaid(tmp_path: Path) -> Path:
    recs = records(CS)
    entry = next(e for r in recs for e in r["settlement"] if e["wager"] == "ante" and Decimal(e["net"]) > 0)
    entry["net"] = "0.50"
    return write(tmp_path, recs, "mispaid.jsonl")


@pytest.mark.parametrize("case, want", [("pass", "PASS"), ("finding", "FAIL"), ("free play, dealer rate", "PASS"),
                                        ("free play, no decision-independent math", "INCOMPLETE")])
def test_text_json_exit_code_and_report_agree(tmp_path, case, want):
    log, spec = {"pass": (LOGS / CS, "caribbean_stud"), "finding": (_mispaid(tmp_path), "caribbean_stud"),
                 "free play, dealer rate": (_free_play_stud_log(tmp_path), "caribbean_stud"),
                 "free play, no decision-independent math": (_free_play_without_side_bets(tmp_path),
                                                             "texas_holdem_bonus")}[case]
    code, printed, data, report = _everywhere(tmp_path, log, spec)
    assert printed == data["verdict"] == report["verdict"] == want
    assert code == data["exit_code"] == (0 if want == "PASS" else 1)
    assert data["section_status"] == report["section_status"]
    blocking = [f["text"] for f in report["findings"] if f["severity"] == "blocking"]
    assert data["reasons"] == blocking and (want == "PASS") == (not blocking)
    assert report["methodology"]["scope"] == data["scope"]
    if case.startswith("free play"):
        assert data["math"]["declared_rounds"] == 0 and "free play in" in data["scope"]


# ------------------------------------------------------------------ every combination of outcomes

def _test(name: str, outcome: str):
    from certify.stats.result import TestResult

    pvalue = {"pass": 0.5, "fail": 1e-12, "not run": None}[outcome]
    return TestResult(name=name, statistic=1.0, pvalue=pvalue, alpha=0.01, n=100 if pvalue else 0,
                      applicable=outcome != "not run")


def _result(outcomes: dict[str, str], free_play: bool) -> dict:
    """A real ``audit()`` result (the Auditor's own results and judge_audit) whose four sections
    come out as ``outcomes`` say: findings for integrity / rules, tests for fairness / math."""
    from certify.audit.audit import Auditor
    from certify.audit.log import LogFile
    from certify.audit.report import judge_audit
    from certify.audit.rounds import Finding

    auditor = Auditor(load_spec("caribbean_stud"))
    for kind in ("integrity", "rules"):
        if outcomes[kind] == "fail":
            auditor.tally.add(Finding(kind, "crafted", 1, "log.jsonl:1"))
    auditor.tally.rounds = 100
    auditor.tally.free_rounds = 100 if free_play else 0
    auditor.tally.declared = 0 if free_play else 100
    tests = {part: [_test(f"{part}: crafted", outcomes[part])] for part in ("fairness", "math")}
    auditor.tests = lambda: tests
    files = [LogFile("log.jsonl", size=10, sha256="ab" * 32, rounds=100, first_time="2026-01-01T00:00:00Z",
                     last_time="2026-01-02T00:00:00Z")]
    result = auditor.results(files)
    result["par_provenance"] = None
    result.update(judge_audit(result))
    return result


OUTCOMES = [dict(zip(("integrity", "rules", "fairness", "math"), combo))
            for combo in itertools.product(("pass", "fail"), ("pass", "fail"), ("pass", "fail", "not run"),
                                           ("pass", "fail", "not run"))]


@pytest.mark.parametrize("free_play", [False, True])
def test_every_combination_of_section_outcomes_gives_one_verdict(free_play):
    from certify.audit.cli import dump, summary_lines
    from certify.audit.report import report_input
    from certify.report import build_content

    spec = load_spec("caribbean_stud")
    issued = datetime(2026, 12, 1, tzinfo=timezone.utc)
    for outcomes in OUTCOMES:
        result = _result(outcomes, free_play)
        want = ("FAIL" if "fail" in outcomes.values() else "INCOMPLETE" if "not run" in outcomes.values()
                else "PASS")
        content = build_content(report_input(result, spec, resolve_spec_path("caribbean_stud"), issued))
        assert result["section_status"] == content["section_status"] == outcomes, outcomes
        assert result["verdict"] == content["verdict"] == json.loads(dump(result))["verdict"] == want, outcomes
        assert summary_lines(result)[-1].startswith(f"verdict: {want} "), outcomes
        assert result["exit_code"] == (0 if want == "PASS" else 1) and result["passed"] == (want == "PASS")
        blocking = [f["text"] for f in content["findings"] if f["severity"] == "blocking"]
        assert result["reasons"] == blocking and bool(blocking) == (want != "PASS"), outcomes
