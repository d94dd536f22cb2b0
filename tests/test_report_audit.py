"""The report kind 'audit' (certify audit --report): exactly the four parts an audit produces are
required, a missing or failed one keeps the verdict from PASS, and neither kind can borrow or skip
the other's sections."""

from __future__ import annotations

from dataclasses import replace

import pytest

from certify.report import AUDIT_REPORT, REQUIRED_SECTIONS, ReportDataError, build_content
from tests.test_report_model import sample_input


def audit_input(**changes):
    """The sample certification's parts recast as an audit: procedures -> integrity and rules,
    shuffle -> fairness, the simulation's tests -> math."""
    base = sample_input()
    sim = base.simulation
    sections = {"integrity": {"fixtures": ["logs/a.jsonl"], "scenarios": base.procedures["scenarios"][:1]},
                "rules": base.procedures, "fairness": base.shuffle,
                "math": {"description": {"Rounds tested": "2,000,000"}, "tests": [sim["chi_square"]]}}
    sections = {"rng": None, "shuffle": None, "par_sheet": None, "simulation": None, "procedures": None,
                **sections, **changes}
    return replace(base, required=AUDIT_REPORT, **sections)


def test_a_complete_audit_passes_and_says_its_kind():
    content = build_content(audit_input())
    assert content["verdict"] == "PASS"
    assert list(content["section_status"]) == list(AUDIT_REPORT)
    assert content["required_sections"] == list(AUDIT_REPORT)


@pytest.mark.parametrize("missing", AUDIT_REPORT)
def test_an_audit_part_not_run_keeps_the_verdict_from_pass(missing):
    content = build_content(audit_input(**{missing: None}))
    assert content["verdict"] == "INCOMPLETE"
    assert content["section_status"][missing] == "not run"
    assert any("not run" in f["text"] and f["severity"] == "blocking" for f in content["findings"])


def test_a_failed_rule_or_a_rejected_test_fails_the_audit():
    base = sample_input(procedures_fail=True)
    content = build_content(audit_input(rules=base.procedures))
    assert content["verdict"] == "FAIL" and content["section_status"]["rules"] == "fail"
    assert any(f["section"] == "Rules (every round re-settled)" and f["severity"] == "blocking"
               for f in content["findings"])
    rejected = {**sample_input().simulation["chi_square"], "pvalue": 1e-6, "passed": False}
    fair = dict(sample_input().shuffle, family=rejected)
    content = build_content(audit_input(fairness=fair))
    assert content["verdict"] == "FAIL" and content["section_status"]["fairness"] == "fail"


def test_the_kinds_cannot_borrow_or_skip_sections():
    with pytest.raises(ReportDataError, match="required"):      # an audit carrying a certification part
        build_content(audit_input(shuffle=sample_input().shuffle))
    with pytest.raises(ReportDataError, match="required"):      # a certification carrying an audit part
        build_content(replace(sample_input(), integrity=audit_input().integrity))
    with pytest.raises(ReportDataError, match="required"):      # no kind of one's own making
        build_content(replace(sample_input(omit=("rng",)), required=tuple(k for k in REQUIRED_SECTIONS if k != "rng")))
    content = build_content(sample_input())                    # a certification's content is unchanged
    assert "required_sections" not in content
