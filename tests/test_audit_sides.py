"""Free play's math: the side wagers no decision changes, tested on every round against the PAR rows.

Which side wagers are decision-free is read from the rules model (``certify.audit.sides``), never
from a game's name; the events are the rules' reading of the cards dealt, the rows the PAR
sheet's (the golden sheet: conftest). The negative controls are faults the rules section cannot
see (every payout right): only the math catches them."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest

from certify.spec import load_spec
from tests.test_audit import audit_json

ALPHA = 0.01


@pytest.fixture(autouse=True)
def _golden_par(golden_sheet, monkeypatch):
    from certify.analysis import cache

    monkeypatch.setattr(cache, "load_or_compute", lambda spec, use_cache=True, **_: (golden_sheet(spec.name), None))


def free_tests(data: dict) -> dict[str, dict]:
    return {t["name"].split(": ", 1)[1]: t for t in data["math"]["tests"] if "(every round" in t["name"]}


# ------------------------------------------------------------------ the model decides, not the name

@pytest.mark.parametrize("name, free, refused", [
    ("texas_holdem_bonus", {"bonus"}, {}),
    ("ultimate_texas_holdem", {"trips"}, {}),
    ("caribbean_stud", set(), {"progressive": "lost on a fold (fold; paid_on_fold: false)"}),
    ("three_card_poker", set(), {"pair_plus": "lost on a fold (fold; paid_on_fold: false)"}),
    ("five_card_mulligan", set(), {"bonus": "lost on the option mulligan (lost_on)"}),
    ("let_it_ride", set(), {}),
])
def test_which_side_wagers_no_decision_changes(name, free, refused):
    from certify.audit.sides import decision_free

    found = decision_free(load_spec(name))
    assert set(found.wagers) == free and found.refused == refused


def test_the_model_not_the_name_decides(tmp_path):
    """The same game with its Bonus forfeited on a fold, or its Trips lost on an option: refused."""
    from certify.audit.sides import decision_free
    from spec_files import spec_copy

    hb = spec_copy(tmp_path, "texas_holdem_bonus", lambda d: d["wagers"]["bonus"]["settle"]["card_lines"].update(
        paid_on_fold=False))
    assert decision_free(hb).refused == {"bonus": "lost on a fold (fold; paid_on_fold: false)"}
    uth = spec_copy(tmp_path, "ultimate_texas_holdem", lambda d: d["wagers"]["trips"]["settle"]["pay_table"].update(
        lost_on=["check_preflop"]))
    assert decision_free(uth).refused == {"trips": "lost on the option check_preflop (lost_on)"}


def test_sheet_rows_must_be_the_models_events(golden_sheet):
    """A sheet whose rows are not the model's events (a 'folded' row: it depends on the strategy) or
    pays otherwise is refused, never tested against."""
    from dataclasses import replace

    from certify.analysis.par import ReturnRow
    from certify.audit.sides import decision_free, sheet_rows

    spec = load_spec("texas_holdem_bonus")
    fw = decision_free(spec).wagers["bonus"]
    sheet = golden_sheet("texas_holdem_bonus")
    wager, why = sheet_rows(fw, sheet)
    assert why is None and [r.event for r in wager.rows] == list(fw.events)
    bonus = next(w for w in sheet.wagers if w.name == "Bonus")
    folded = replace(bonus, rows=bonus.rows + (ReturnRow("folded (Bonus forfeited)", Fraction(-1), Fraction(0), combinations=0),))
    assert "rows the model has no event for, such as a fold" in sheet_rows(fw, replace(sheet, wagers=(folded,)))[1]
    cheaper = replace(bonus, rows=(replace(bonus.rows[0], pays=500),) + bonus.rows[1:])
    assert sheet_rows(fw, replace(sheet, wagers=(cheaper,)))[1] == "'Bonus', 'A-A with dealer A-A': the sheet pays 500, the model 1000"


def test_a_refused_sheet_leaves_the_math_not_run(tmp_path, golden_sheet, monkeypatch):
    """Fail closed: with the Bonus rows refused, free-play Hold'em Bonus has no math: INCOMPLETE."""
    from dataclasses import replace

    from certify.analysis import cache
    from certify.analysis.par import ReturnRow
    from certify.audit import sample

    sheet = golden_sheet("texas_holdem_bonus")
    bonus = next(w for w in sheet.wagers if w.name == "Bonus")
    folded = replace(bonus, rows=bonus.rows + (ReturnRow("folded", Fraction(-1), Fraction(0), combinations=0),))
    bad = replace(sheet, wagers=tuple(folded if w is bonus else w for w in sheet.wagers))
    monkeypatch.setattr(cache, "load_or_compute", lambda spec, use_cache=True, **_: (bad, None))
    recs = list(sample.records(load_spec("texas_holdem_bonus"), 60, 3, play="random"))
    code, data = audit_json(tmp_path, recs, "texas_holdem_bonus")
    assert code == 1 and data["verdict"] == "INCOMPLETE" and data["section_status"]["math"] == "not run"
    assert not free_tests(data)
    assert "depends on the strategy" in data["math"]["decision_free_wagers"]["bonus"]["why_not"]
    assert "side wagers not tested in every round: bonus (" in data["scope"]


# ------------------------------------------------------------------ fair logs pass, faults are caught

def _holdem_bonus(rounds: int, seed: int, redeal_paying: float = 0.0) -> list[dict]:
    """Free play of Hold'em Bonus, one seat, the Bonus in every round; ``redeal_paying``: the share
    of the decks whose hole cards pay the Bonus that a cheating engine deals again (every payout of
    the log right, each deck a fair shuffle: only the Bonus' frequencies show it)."""
    from certify.audit import sample
    from certify.rules.engine import card_line

    spec = load_spec("texas_holdem_bonus")
    lines = spec.wagers["bonus"].settle.card_lines.lines
    pick, fresh = random.Random(seed), np.random.default_rng(seed)

    def redeal(decks: np.ndarray) -> np.ndarray:
        out = decks.copy()
        for i in range(len(out)):
            while card_line(lines, out[i, :2], out[i, 2:4]) is not None and pick.random() < redeal_paying:
                out[i] = fresh.permutation(52)          # dealt again: a fresh fair shuffle
        return out

    return list(sample.records(spec, rounds, seed, play="random", side_rate=1.0,
                               shuffle=redeal if redeal_paying else None))


@pytest.mark.parametrize("seed", [21, 22])
def test_fair_free_play_holdem_bonus_passes_its_bonus_rows(tmp_path, seed):
    code, data = audit_json(tmp_path, _holdem_bonus(1000, seed), "texas_holdem_bonus")
    assert code == 0 and data["verdict"] == "PASS", data["reasons"]
    tests = free_tests(data)
    assert set(tests) == {"dealt events", "RTP"} and all(t["applicable"] and t["passed"] for t in tests.values())
    assert tests["dealt events"]["n"] == 1000 and data["math"]["declared_rounds"] == 0


def test_bonus_paying_hands_dealt_again_are_caught_by_the_math_alone(tmp_path):
    """An engine dealing again half of the decks whose hole cards pay the Bonus (9.5% of hands
    become ~5%), every payout right, every deck a fair shuffle: the rules and the card tests find
    nothing; the Bonus' dealt events fail (1,000 rounds: Holm-adjusted p = 7.9e-4)."""
    code, data = audit_json(tmp_path, _holdem_bonus(1000, 21, redeal_paying=0.5), "texas_holdem_bonus")
    assert code == 1 and data["verdict"] == "FAIL"
    assert data["section_status"] == {"integrity": "pass", "rules": "pass", "fairness": "pass", "math": "fail"}
    assert data["findings"]["rules"]["count"] == 0
    rejected = [m["name"] for m in data["confirmation"]["stage1"]["members"] if m["rejected"]]
    assert rejected == ["Bonus (every round, no decision changes it): dealt events"]


def test_trips_of_free_play_ultimate_texas_holdem_is_tested(tmp_path, monkeypatch):
    """Ultimate Texas Hold'em's Trips (paid on the final hand, folded or not): tested on every
    round of a free-play log (the derived strategy and the seven-card dealer share stubbed: the
    default tier does not count the game)."""
    from certify.audit import audit as module
    from certify.audit import sample

    monkeypatch.setattr(module, "spec_strategy", lambda spec: None)
    monkeypatch.setattr(module, "_dealer_share_with_board", lambda spec, threshold: None)
    recs = list(sample.records(load_spec("ultimate_texas_holdem"), 300, 5, play="random", side_rate=1.0))
    code, data = audit_json(tmp_path, recs, "ultimate_texas_holdem")
    assert code == 0 and data["verdict"] == "PASS"
    tests = free_tests(data)
    assert tests["dealt events"]["n"] == 300 and tests["RTP"]["passed"]
    folded = sum(any(a.get("action") == "fold" for a in r["actions"]) for r in recs)
    assert folded > 10          # folded hands are in the tally: the Trips is paid on them too


@pytest.mark.slow
def test_the_false_alarm_rate_of_the_bonus_tests_is_alpha():
    """Tallies drawn from the PAR rows themselves (a fair engine): each of the two tests rejects at
    most alpha of the time (400 logs of 1,500 rounds; bound alpha + 3 standard errors; about a
    minute of CPU, the RTP's Monte Carlo p-value: slow tier)."""
    from certify.audit.audit import Auditor
    from certify.audit.sides import decision_free
    from certify.analysis.cache import read_golden

    spec = load_spec("texas_holdem_bonus")
    sheet = read_golden(spec)
    bonus = next(w for w in sheet.wagers if w.name == "Bonus")
    p = np.array([float(r.probability) for r in bonus.rows])
    p /= p.sum()
    rng = np.random.default_rng(2026)
    auditor = Auditor(spec, sheet, ALPHA)
    assert set(decision_free(spec).wagers) == {"bonus"}
    rejected = {"dealt events": 0, "RTP": 0}
    logs = 400
    for _ in range(logs):
        counts = rng.multinomial(1500, p)
        auditor.tally.side_events.clear()
        auditor.tally.side_nets.clear()
        for row, n in zip(bonus.rows, counts):
            auditor.tally.side_events[("bonus", row.event)] += int(n)
            auditor.tally.side_nets[("bonus", row.pays)] += int(n)
        for t in auditor._decision_free():
            rejected[t.name.split(": ", 1)[1]] += t.pvalue < ALPHA
    bound = ALPHA + 3 * (ALPHA * (1 - ALPHA) / logs) ** 0.5
    assert all(r / logs <= bound for r in rejected.values()), rejected
