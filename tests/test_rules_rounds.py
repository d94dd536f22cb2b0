"""Let It Ride and Ultimate Texas Hold'em at the table: their procedure scenarios (fixtures/procedures/)
with a negative control for each -- a wrong expected payout, and a wrong action where the seat
acts, must fail the scenario -- and `certify run` on both giving a signed PASS report (a small
profile here; the real quick run of both is in the slow tier, tests/test_report_run.py)."""

import copy
import json
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from certify.procedures import run_fixture
from certify.spec import SPECS_DIR, load_spec

ROOT = Path(__file__).resolve().parent.parent
GAMES = ["let_it_ride", "ultimate_texas_holdem"]
CONTROLLED = GAMES + ["texas_holdem_bonus", "texas_holdem_bonus_2x"]  # every scenario with its negative controls


def _fixture(name):
    data = yaml.safe_load((ROOT / "fixtures" / "procedures" / f"{name}.yaml").read_text())
    data["spec"] = str(SPECS_DIR / f"{name}.yaml")
    return data


def _run(tmp_path, data):
    path = tmp_path / "scenarios.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return run_fixture(path)


def _wrong_payout(sc):
    """The first seat's first expected net one dollar off (a net where none is expected)."""
    net = sc["expect"]["seats"][0].setdefault("net", {})
    wager = next(iter(net), None)
    if wager is None:
        net["ante" if "ante" in str(sc) else "bet_1"] = "1.00"
    else:
        net[wager] = str(Decimal(net[wager]) + 1)


def _wrong_action(spec, sc) -> bool:
    """The first seat's first action replaced by an option of another decision (out of turn);
    False when the seat takes no action or already expects its action refused."""
    seat, want = sc["seats"][0], sc["expect"]["seats"][0]
    if not seat.get("actions") or want["status"] == "rejected":
        return False
    decisions = spec.decisions
    mine = next(i for i, d in enumerate(decisions) if seat["actions"][0] in [o.name for o in d.options])
    other = decisions[(mine + 1) % len(decisions)]
    seat["actions"][0] = next(o.name for o in other.options if not o.fold)
    return True


@pytest.mark.parametrize("name", CONTROLLED)
def test_every_scenario_passes_and_each_negative_control_fails_it(tmp_path, name):
    data = _fixture(name)
    results = _run(tmp_path, data)
    assert [(r.id, r.differences) for r in results if not r.passed] == []
    assert len(results) >= (6 if name == "texas_holdem_bonus_2x" else 12)
    spec = load_spec(name)
    wrong = copy.deepcopy(data)
    controls = []
    for sc in data["scenarios"]:
        paid = copy.deepcopy(sc)
        _wrong_payout(paid)
        paid["id"] = f"{sc['id']}--wrong-payout"
        controls.append(paid)
        acted = copy.deepcopy(sc)
        if _wrong_action(spec, acted):
            acted["id"] = f"{sc['id']}--wrong-action"
            controls.append(acted)
    wrong["scenarios"] = controls
    caught = _run(tmp_path, wrong)
    assert [r.id for r in caught if r.passed] == []  # every control is caught
    actions = [r for r in caught if r.id.endswith("--wrong-action")]
    assert len(actions) >= (3 if name == "texas_holdem_bonus_2x" else 8)
    assert all("status: expected" in " ".join(r.differences) for r in actions)


def test_the_scenarios_cover_the_rule_points():
    """LIR: both pull-backs, paid and losing hands; UTH: each raise point, check to the river and
    fold, a dealer who does not qualify, the Blind's pays and push, Trips, a tie."""
    taken, paid = {}, {}
    for name in GAMES:
        for sc in _fixture(name)["scenarios"]:
            for seat, want in zip(sc["seats"], sc["expect"]["seats"]):
                taken.setdefault(name, set()).update(seat.get("actions", []))
                for wager, net in want.get("net", {}).items():
                    paid.setdefault((name, wager), set()).add(Decimal(net))
    assert {"let_it_ride", "pull_back_first", "let_it_ride_again", "pull_back_second"} <= taken["let_it_ride"]
    assert {Decimal("-5.00"), Decimal(0), Decimal("15.00")} <= paid[("let_it_ride", "bet_3")]
    assert {"play_4x", "play_3x", "check_preflop", "play_2x", "check_flop", "play_1x", "fold"} \
        <= taken["ultimate_texas_holdem"]
    blind = paid[("ultimate_texas_holdem", "blind")]
    assert {Decimal("2500.00"), Decimal("15.00"), Decimal("7.50"), Decimal("5.00"), Decimal(0)} <= blind
    assert {Decimal("250.00"), Decimal("80.00"), Decimal("30.00"), Decimal("25.00"), Decimal("15.00")} \
        <= paid[("ultimate_texas_holdem", "trips")]


def _small_profile(monkeypatch):
    from certify import run as run_module
    from certify.stats.battery import resolve_profile

    small = resolve_profile("quick", bits=200_000, sequences=2, decks=2_000, small_decks=2_000)
    monkeypatch.setitem(run_module.PROFILES, "quick", run_module.RunProfile("quick", small, 100_000, 4_096))
    return run_module


def test_certify_run_let_it_ride_gives_a_signed_pass(tmp_path, monkeypatch):
    from certify import signing

    run_module = _small_profile(monkeypatch)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    out = run_module.run("let_it_ride", "quick", 1, tmp_path, signing_key=signing.load_signing_key(), workers=1)
    report = json.loads(out["paths"]["json"].read_text())
    assert out["verdict"] == "PASS", report["findings"]
    assert report["section_status"]["procedures"] == "pass"
    assert len(report["sections"]["procedures"]["scenarios"]) >= 12
    signing.verify_file(out["paths"]["pdf"], signing.default_roots(), allow_development=True)


def test_certify_run_ultimate_texas_holdem_passes_its_sheet_and_procedures(tmp_path, monkeypatch, golden_sheet):
    """The run's PAR sheet (the golden sheet standing in for the minutes of counting) and
    procedure sections; the simulation needs the full count for its kernel (slow tier)."""
    import certify.analysis
    from certify import signing

    run_module = _small_profile(monkeypatch)
    monkeypatch.setattr(certify.analysis, "par_sheet", lambda spec: golden_sheet(spec.name))

    def no_simulation(*args, **kwargs):
        raise run_module.PartMissing("the simulation of this spec is in the slow tier")

    monkeypatch.setattr(run_module, "simulation_section", no_simulation)
    monkeypatch.setattr(run_module, "preflight", lambda *a, **k: None)  # builds the kernel: the full count
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    out = run_module.run("ultimate_texas_holdem", "quick", 1, tmp_path, signing_key=signing.load_signing_key(),
                         workers=1)
    report = json.loads(out["paths"]["json"].read_text())
    assert report["section_status"]["procedures"] == "pass"
    assert report["section_status"]["par_sheet"] in ("pass", "computed")
    assert out["verdict"] == "INCOMPLETE"  # the simulation was left out here, and the report says so
    signing.verify_file(out["paths"]["pdf"], signing.default_roots(), allow_development=True)

