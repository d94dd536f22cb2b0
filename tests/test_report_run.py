"""``certify run``: the composition of the parts into a signed report (the cheap parts run for real;
the full pipeline on a spec is ``-m slow``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from certify import run as run_module
from certify import signing
from certify.cli import cli
from certify.errors import InputError
from certify.report.identify import PROJECT_ROOT


def test_known_answer_vectors_all_pass_and_a_changed_vector_fails(tmp_path):
    results = run_module.drbg_known_answer_tests()
    assert sum(r.n for r in results) == 180 and all(r.passed for r in results)
    assert {r.name.split(":")[0] for r in results} == {
        "HMAC_DRBG (SHA-256)", "CTR_DRBG (AES-256, with df)", "CTR_DRBG (AES-256, no df)"}
    data = json.loads(run_module.CAVP_FIXTURE.read_text())
    vec = data["vectors"][7]
    vec["returned_bits"] = ("0" if vec["returned_bits"][0] != "0" else "1") + vec["returned_bits"][1:]
    (tmp_path / "cavp.json").write_text(json.dumps(data))
    bad = run_module.drbg_known_answer_tests(tmp_path / "cavp.json")
    assert [r.passed for r in bad].count(False) == 1
    assert vec["id"] in next(r for r in bad if not r.passed).details["failed"]


def test_health_tests_pass_on_the_os_and_catch_a_stuck_source():
    ok = run_module.entropy_health_tests(1 << 16)[0]
    assert ok.passed and ok.n >= 1 << 16
    # n counts the start-up samples too; the text reconciles it with the methodology's sample size
    assert f"{ok.n:,} bytes (65,536 + {ok.n - (1 << 16):,} start-up)" in ok.looked_at

    def stuck(n: int) -> bytes:
        return b"\x2a" * n

    bad = run_module.entropy_health_tests(1 << 12, stuck)[0]
    assert not bad.passed and "repetition count" in bad.details["failure"]


def test_pay_tables_are_every_pays_and_odds_field():
    from certify.spec import load_spec

    data = load_spec("casino_stud").model_dump(mode="json")
    tables = run_module.pay_tables(data)
    assert set(tables) == {"wagers.ante.settle.versus_dealer", "wagers.bet.settle.versus_dealer"}
    assert tables["wagers.bet.settle.versus_dealer"]["win_pays"]["royal_flush"] in (100, "100")
    from certify.report import paytable_identity

    before = paytable_identity(tables)
    changed = json.loads(json.dumps(data))
    changed["wagers"]["bet"]["settle"]["versus_dealer"]["win_pays"]["flush"] = 4
    assert paytable_identity(run_module.pay_tables(changed)) != before
    changed = json.loads(json.dumps(data))  # the Ante's odds against a non-qualifying dealer are a pay line too
    changed["wagers"]["ante"]["settle"]["versus_dealer"]["dealer_not_qualifying"] = 2
    assert paytable_identity(run_module.pay_tables(changed)) != before
    carib = run_module.pay_tables(load_spec("caribbean_stud").model_dump(mode="json"))
    assert "wagers.progressive.settle.progressive.pays" in carib


def test_procedure_fixtures_are_found_by_spec_name():
    found = run_module.procedure_fixtures("casino_stud")
    assert [p.name for p in found] == ["casino_stud.yaml"]
    assert run_module.procedure_fixtures("no_such_game") == []


def test_a_studios_own_procedures_folder_is_read_and_named_whole_in_the_report(tmp_path):
    # a game the project does not ship: its fixtures live with the studio, not in fixtures/procedures
    assert run_module.procedures_folder() == run_module.PROCEDURE_FIXTURES
    own = tmp_path / "studio procedures"
    own.mkdir()
    (own / "casino_stud.yaml").write_bytes((run_module.PROCEDURE_FIXTURES / "casino_stud.yaml").read_bytes())
    found = run_module.procedure_fixtures("casino_stud", run_module.procedures_folder(own))
    assert found == [own / "casino_stud.yaml"]
    section = run_module.procedures_section(found, lambda _: None)
    assert section["fixtures"] == [(own / "casino_stud.yaml").resolve().as_posix()]
    assert section["scenarios"] and all(s["status"] == "pass" for s in section["scenarios"])
    shipped = run_module.procedures_section(run_module.procedure_fixtures("casino_stud"), lambda _: None)
    assert shipped["fixtures"] == ["fixtures/procedures/casino_stud.yaml"]


def test_a_procedures_folder_that_is_not_there_stops_the_run_before_any_work(tmp_path, monkeypatch):
    def no_work(*_args, **_kwargs):
        raise AssertionError("the run started its work")

    monkeypatch.setattr(run_module, "preflight", no_work)
    with pytest.raises(InputError, match="--procedures .*not a folder"):
        run_module.run("casino_stud", out_dir=tmp_path / "out", procedures=tmp_path / "nowhere")
    result = CliRunner().invoke(cli, ["run", "casino_stud", "--out", str(tmp_path / "out"),
                                      "--procedures", str(tmp_path / "nowhere")])
    assert result.exit_code == 2 and "--procedures" in result.output and "not a folder" in result.output
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def _missing(name):
    def fail(*_args, **_kwargs):
        raise run_module.PartMissing(f"{name} is not installed")
    return fail


def test_missing_parts_are_reported_not_run(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setattr(run_module, "rng_and_shuffle_sections", _missing("certify.stats.battery"))
    monkeypatch.setattr(run_module, "par_sheet_section", _missing("certify.analysis"))
    out = run_module.run("casino_stud", "quick", 5, tmp_path / "reports", signing_key=signing.load_signing_key())
    assert out["verdict"] == "INCOMPLETE"
    assert sorted(p.name for p in (tmp_path / "reports").iterdir()) == [
        "casino_stud-1.0.json", "casino_stud-1.0.json.p7s", "casino_stud-1.0.pdf"]
    report = json.loads(out["paths"]["json"].read_text())
    assert report["section_status"] == {"rng": "not run", "shuffle": "not run", "par_sheet": "not run",
                                        "simulation": "not run", "procedures": "pass"}
    texts = " ".join(f["text"] for f in report["findings"])
    assert "certify.stats.battery is not installed" in texts and "needs the PAR sheet" in texts
    roots = signing.default_roots()
    signing.verify_file(out["paths"]["pdf"], roots, allow_development=True)  # raises if it does not verify
    signing.verify_file(out["paths"]["json"], roots, allow_development=True)
    paths = {r["path"] for r in report["software"]}
    assert {"specs/casino_stud.yaml", "fixtures/procedures/casino_stud.yaml", "fixtures/drbg_cavp.json",
            "certify/run.py"} <= paths
    assert report["methodology"]["seeds"][0]["value"] == "5"


def test_an_error_in_any_part_leaves_no_report(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setattr(run_module, "rng_and_shuffle_sections", _missing("battery"))

    def crash(*_args, **_kwargs):
        raise RuntimeError("worker died")

    monkeypatch.setattr(run_module, "par_sheet_section", crash)
    runner = CliRunner()
    res = runner.invoke(cli, ["run", "casino_stud", "--seed", "1", "--out", str(tmp_path / "reports")])
    assert res.exit_code == 2 and "worker died" in res.output and "Traceback" not in res.output  # mapped in cli
    assert not (tmp_path / "reports").exists() or list((tmp_path / "reports").iterdir()) == []


def test_cli_run_exit_codes(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setattr(run_module, "rng_and_shuffle_sections", _missing("battery"))
    monkeypatch.setattr(run_module, "par_sheet_section", _missing("analysis"))
    runner = CliRunner()
    res = runner.invoke(cli, ["run", "casino_stud", "--seed", "3", "--out", str(tmp_path / "r")])
    assert res.exit_code == 1 and "verdict: INCOMPLETE" in res.output
    res = runner.invoke(cli, ["run", str(tmp_path / "nope.yaml"), "--out", str(tmp_path / "r2")])
    assert res.exit_code == 2 and not (tmp_path / "r2").exists()
    assert runner.invoke(cli, ["run", "casino_stud", "--profile", "huge"]).exit_code == 2


def test_cli_run_with_a_bad_spec_creates_no_key(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    res = CliRunner().invoke(cli, ["run", "casino_studd", "--out", str(tmp_path / "r")])
    assert res.exit_code == 2 and "casino_studd" in res.output
    assert not (tmp_path / "cfg").exists() and not (tmp_path / "r").exists()


def test_cli_run_with_a_bad_source_date_epoch_fails_before_running(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    res = CliRunner().invoke(cli, ["run", "casino_stud", "--out", str(tmp_path / "r")])
    assert res.exit_code == 2 and "$SOURCE_DATE_EPOCH: expected an integer" in res.output
    assert not (tmp_path / "cfg").exists() and not (tmp_path / "r").exists()


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["casino_stud", "let_it_ride", "ultimate_texas_holdem"])
def test_full_quick_run(tmp_path, monkeypatch, spec):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    out = run_module.run(spec, "quick", 20261129, tmp_path, signing_key=signing.load_signing_key())
    report = json.loads(out["paths"]["json"].read_text())
    assert all(status in ("pass", "computed") for status in report["section_status"].values()), report["findings"]
    assert out["verdict"] == "PASS"
    signing.verify_file(out["paths"]["pdf"], signing.default_roots(), allow_development=True)
    assert Path(PROJECT_ROOT / "specs" / f"{spec}.yaml").exists()


def test_a_run_with_a_pinned_time_stamp_is_byte_identical(tmp_path, monkeypatch):
    from datetime import datetime, timezone

    monkeypatch.setattr(run_module, "rng_and_shuffle_sections", _missing("battery"))
    monkeypatch.setattr(run_module, "par_sheet_section", _missing("analysis"))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1796083200")
    # Hash the tree once: other work may change a source file between the two runs.
    from certify.report import identify

    inventory = identify.software_inventory
    cache: dict = {}
    monkeypatch.setattr(identify, "software_inventory", lambda *a, **k: cache.setdefault(
        repr((a, sorted(k.items()))), inventory(*a, **k)))
    a = run_module.run("casino_stud", "quick", 11, tmp_path / "a")  # unsigned
    b = run_module.run("casino_stud", "quick", 11, tmp_path / "b", issued_at=datetime(2026, 12, 1, tzinfo=timezone.utc))
    for kind in ("pdf", "json"):
        assert a["paths"][kind].read_bytes() == b["paths"][kind].read_bytes()
    assert json.loads(a["paths"]["json"].read_text())["issued_at"] == "2026-12-01T00:00:00Z"


def test_rng_and_shuffle_sections_from_a_small_real_battery():
    from certify.report import build_content
    from dataclasses import replace

    from certify.stats.battery import resolve_profile
    from test_report_model import sample_input

    small = resolve_profile("quick", bits=200_000, sequences=2, decks=2_000, small_decks=2_000)
    tiny = run_module.RunProfile("tiny", small, 1_000, 4_096)
    rng, shuffle, sizes = run_module.rng_and_shuffle_sections(1, tiny, 0.01, 1, lambda _: None)
    names = [t["name"] for t in rng["tests"]]
    assert names[:3] == ["Frequency", "BlockFrequency", "CumulativeSums"] and len(names) >= 15
    universal = rng["tests"][names.index("Universal")]
    assert universal["applicable"] is False  # 200,000 bits are too few for Universal: not a failure
    assert all("battery_pvalue" in t["details"] for t in rng["tests"][:15] if t["applicable"])
    assert sizes["SP 800-22 sequences"] == 2 and sizes["52-card deals"] == 2_000
    content = build_content(replace(sample_input(), rng=rng, shuffle=shuffle))
    assert content["section_status"]["rng"] in ("pass", "fail")
    assert content["sections"]["rng"]["family"]["name"].startswith("RNG, shuffle and draw batteries")
    assert len(content["sections"]["rng"]["kat"]) == 3 and content["sections"]["shuffle"]["tests"]


def test_batteries_beside_the_other_parts_give_the_same_report(tmp_path, monkeypatch):
    """With two workers the batteries run in a forked process while the PAR sheet, simulation and
    procedures run here; the report is the one of the sequential run (one worker) but for the workers."""
    from datetime import datetime, timezone

    from certify.report import identify
    from certify.stats.battery import resolve_profile

    small = resolve_profile("quick", bits=20_000, sequences=1, decks=500, small_decks=500)
    monkeypatch.setitem(run_module.PROFILES, "tiny", run_module.RunProfile("tiny", small, 1_000, 4_096))
    monkeypatch.setattr(run_module, "par_sheet_section", _missing("analysis"))
    inventory = identify.software_inventory
    cache: dict = {}
    monkeypatch.setattr(identify, "software_inventory", lambda *a, **k: cache.setdefault(
        repr((a, sorted(k.items()))), inventory(*a, **k)))
    when = datetime(2026, 12, 1, tzinfo=timezone.utc)
    one = run_module.run("casino_stud", "tiny", 7, tmp_path / "one", workers=1, issued_at=when)
    two = run_module.run("casino_stud", "tiny", 7, tmp_path / "two", workers=2, issued_at=when)
    assert list(one["timings"]) == list(two["timings"])
    report = json.loads(two["paths"]["json"].read_text())
    assert report["section_status"]["rng"] in ("pass", "fail") and report["sections"]["rng"]["tests"]
    assert any(f["text"].startswith("PAR sheet not run") for f in report["findings"])
    sequential = json.loads(one["paths"]["json"].read_text())
    assert (sequential["methodology"]["workers"], report["methodology"]["workers"]) == (1, 2)
    sequential["methodology"]["workers"] = 2  # the one difference the report states, and so
    assert sequential.pop("report_id") != report.pop("report_id")  # the report id, a digest of it all
    assert sequential == report


@pytest.mark.parametrize("how", ["raises", "dies"])
def test_a_battery_process_that_fails_or_dies_stops_the_run_with_no_report(tmp_path, monkeypatch, how):
    import os

    def fail(*_args, **_kwargs):
        if how == "dies":
            os._exit(3)
        raise RuntimeError("battery broke")

    monkeypatch.setattr(run_module, "rng_and_shuffle_sections", fail)
    monkeypatch.setattr(run_module, "par_sheet_section", _missing("analysis"))
    message = "battery broke" if how == "raises" else "ended without a result \\(exit code 3\\)"
    with pytest.raises(RuntimeError, match=message):
        run_module.run("casino_stud", "quick", 5, tmp_path / "reports", workers=2)
    assert not (tmp_path / "reports").exists() or list((tmp_path / "reports").iterdir()) == []


def test_only_the_board_shape_with_one_play_builds_its_kernel_from_the_count():
    """``preflight`` builds every kernel but these (seconds); theirs waits for the batteries to start."""
    from certify.rules.kernel import built_from_count
    from certify.spec import load_spec, spec_names

    assert [name for name in spec_names() if built_from_count(load_spec(name))] == ["ultimate_texas_holdem"]


def _overpaying_casino_stud(tmp_path) -> Path:
    """casino_stud with a royal paying more than the 64-bit money tallies hold: its kernel refuses it."""
    import yaml

    data = yaml.safe_load((PROJECT_ROOT / "specs" / "casino_stud.yaml").read_text())
    data["wagers"]["bet"]["settle"]["versus_dealer"]["win_pays"]["royal_flush"] = 100_000_000
    path = tmp_path / "casino_stud.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_a_kernel_check_failing_after_the_batteries_started_stops_them_and_writes_nothing(tmp_path, monkeypatch):
    """A count-built kernel (Ultimate Texas Hold'em's; minutes) is checked with the batteries already
    running beside it: when it fails, the battery process is stopped, no report (nor part of one)
    is written and the run exits 2. casino_stud with an overpaying royal stands in for it here
    (``built_from_count`` says True), so ``preflight`` passes and the kernel fails in the simulation."""
    import os
    import time

    import certify.rules.kernel
    from certify.games.kernels import KernelError

    spec = _overpaying_casino_stud(tmp_path)
    started = tmp_path / "battery-pid"

    def batteries(*_args, **_kwargs):  # in the forked battery process: say so, then work "for minutes"
        started.write_text(str(os.getpid()))
        time.sleep(300)

    simulation = run_module.simulation_section

    def simulation_after_the_batteries_started(*args, **kwargs):
        deadline = time.monotonic() + 60
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        return simulation(*args, **kwargs)

    monkeypatch.setattr(certify.rules.kernel, "built_from_count", lambda game: True)
    monkeypatch.setattr(run_module, "rng_and_shuffle_sections", batteries)
    monkeypatch.setattr(run_module, "par_sheet_section", lambda *a, **k: (None, {}))
    monkeypatch.setattr(run_module, "simulation_section", simulation_after_the_batteries_started)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    run_module.preflight(spec, run_module.PROFILES["quick"])  # the kernel is not built (nor refused) here
    out = tmp_path / "reports"
    begin = time.monotonic()
    res = CliRunner().invoke(cli, ["run", str(spec), "--seed", "1", "--workers", "2", "--out", str(out)])
    assert res.exit_code == 2 and "64-bit" in res.output and "Traceback" not in res.output, res.output
    assert time.monotonic() - begin < 200  # the batteries were stopped, not waited for
    pid = int(started.read_text())  # they had started before the kernel check failed
    with pytest.raises(ProcessLookupError):  # stopped and reaped
        os.kill(pid, 0)
    assert not out.exists() or list(out.iterdir()) == []
    monkeypatch.undo()  # and with the kernel built in preflight, the same spec fails before any battery
    with pytest.raises(KernelError, match="64-bit"):
        run_module.preflight(spec, run_module.PROFILES["quick"])


def test_work_ahead_in_the_battery_process_never_decides_its_result():
    """The battery process first compiles the simulation's kernels for the caller (only numba's
    cache comes of it): a failure there leaves the batteries' result as it is."""

    def broken_ahead():
        raise RuntimeError("compile ahead broke")

    pending = run_module._Concurrent.start(lambda: 42, 2, broken_ahead)
    if pending is None:
        pytest.skip("no fork on this platform")
    try:
        value, _ = pending.result()
    finally:
        pending.stop()
    assert value == 42


@pytest.mark.slow
def test_compile_ahead_leaves_the_simulation_nothing_to_compile(tmp_path):
    """In a fresh numba cache, ``certify.simulate.compile_ahead`` in one process, then a simulation
    and its verification in another: that one loads every kernel and compiles none of its own."""
    import subprocess
    import sys

    script = """
import sys
from numba.core import event
compiled = []
class Listener(event.Listener):
    def on_start(self, ev):
        d = (ev.data or {}).get("dispatcher")
        compiled.append(d.py_func.__module__ + "." + d.py_func.__qualname__ if d is not None else "?")
    def on_end(self, ev):
        pass
from certify import simulate as sim
from certify.analysis.cache import load_or_compute
from certify.spec import load_spec
if sys.argv[1] == "ahead":
    sim.compile_ahead(sys.argv[2])
else:
    sheet = load_or_compute(load_spec(sys.argv[2]))[0]
    event.register("numba:compile", Listener())
    sim.verify(sim.simulate(sys.argv[2], 20_000, 1, workers=1), sheet, confirm_failures=False)
    print("compiled:", sorted(set(compiled)))
"""
    env = dict(__import__("os").environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    env.pop("NUMBA_CACHE_DIR", None)
    for spec in ("five_card_mulligan", "texas_holdem_bonus"):
        for step in ("ahead", "simulate"):
            done = subprocess.run([sys.executable, "-c", script, step, spec], env=env, capture_output=True,
                                  text=True, timeout=1800)
            assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "compiled: []", done.stdout
