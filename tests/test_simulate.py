"""Bulk simulation: reproducible at any scale, resumable, verified against the exact PAR sheet,
and its verification catches seeded faults."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from certify import simulate as sim

SMALL_CHUNK = 4096


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def test_chunks_cover_the_rounds_exactly():
    cfg = sim.RunConfig("x", "0" * 64, rounds=10_000, seed=1, chunk_rounds=4096)
    assert cfg.chunks == [(0, 4096), (1, 4096), (2, 1808)]


def test_same_seed_same_tallies_other_seed_differs():
    a = sim.simulate("caribbean_stud", 3 * SMALL_CHUNK, seed=7, chunk_rounds=SMALL_CHUNK)
    b = sim.simulate("caribbean_stud", 3 * SMALL_CHUNK, seed=7, chunk_rounds=SMALL_CHUNK)
    c = sim.simulate("caribbean_stud", 3 * SMALL_CHUNK, seed=8, chunk_rounds=SMALL_CHUNK)
    assert _same(a.totals, b.totals)
    assert not _same(a.totals, c.totals)
    assert a.rounds == 3 * SMALL_CHUNK


def test_one_worker_two_workers_and_dask_agree(tmp_path):
    distributed = pytest.importorskip("distributed")
    rounds = 5 * SMALL_CHUNK + 123
    one = sim.simulate("five_card_mulligan", rounds, seed=3, workers=1, chunk_rounds=SMALL_CHUNK)
    two = sim.simulate("five_card_mulligan", rounds, seed=3, workers=2, chunk_rounds=SMALL_CHUNK)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=40) as cluster, \
            distributed.Client(cluster) as client:
        dask = sim.simulate("five_card_mulligan", rounds, seed=3, scheduler=client, chunk_rounds=SMALL_CHUNK)
    assert _same(one.totals, two.totals)
    assert _same(one.totals, dask.totals)
    assert one.rounds == rounds


def test_interrupted_run_resumes_to_the_same_tallies(tmp_path):
    ckpt = tmp_path / "run.json"
    whole = sim.simulate("casino_stud", 6 * SMALL_CHUNK, seed=11, chunk_rounds=SMALL_CHUNK)

    def interrupt_after_three(done, total):
        if done >= 3 * SMALL_CHUNK:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        sim.simulate("casino_stud", 6 * SMALL_CHUNK, seed=11, chunk_rounds=SMALL_CHUNK,
                     checkpoint=ckpt, progress=interrupt_after_three)
    saved = json.loads(ckpt.read_text())
    assert len(saved["chunks"]) == 3
    resumed = sim.simulate("casino_stud", 6 * SMALL_CHUNK, seed=11, chunk_rounds=SMALL_CHUNK,
                           checkpoint=ckpt, resume=True)
    assert resumed.resumed_chunks == 3 and resumed.rounds_played_now == 3 * SMALL_CHUNK
    assert _same(whole.totals, resumed.totals)


def test_checkpoint_of_another_run_is_refused(tmp_path):
    from certify.checkpoint import CheckpointError

    ckpt = tmp_path / "run.json"
    sim.simulate("casino_stud", SMALL_CHUNK, seed=1, chunk_rounds=SMALL_CHUNK, checkpoint=ckpt)
    with pytest.raises(CheckpointError, match="different run .seed 1 there, 2 here"):
        sim.simulate("casino_stud", SMALL_CHUNK, seed=2, chunk_rounds=SMALL_CHUNK, checkpoint=ckpt, resume=True)
    with pytest.raises(CheckpointError, match="no checkpoint"):
        sim.simulate("casino_stud", SMALL_CHUNK, seed=1, checkpoint=tmp_path / "missing.json", resume=True)


def test_kill_at_any_moment_leaves_a_valid_checkpoint(tmp_path):
    """SIGKILL the command mid-run; the checkpoint parses, and --resume gives the whole run's tallies."""
    ckpt, out_a, out_b = tmp_path / "k.json", tmp_path / "a.json", tmp_path / "b.json"
    args = [sys.executable, "-m", "certify.cli", "simulate", "casino_stud", "--rounds", str(40 * SMALL_CHUNK),
            "--seed", "5", "--workers", "1", "--chunk-rounds", str(SMALL_CHUNK), "--no-verify",
            "--checkpoint", str(ckpt)]
    env = dict(os.environ, CERTIFY_CHECKPOINT_EVERY_S="0")
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and not ckpt.exists():
        time.sleep(0.05)
    time.sleep(0.3)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert ckpt.exists()
    partial = json.loads(ckpt.read_text())  # never torn
    assert 0 < len(partial["chunks"]) <= 40
    subprocess.run(args + ["--resume", "--json", str(out_a)], env=env, check=False)
    subprocess.run(args[:-2] + ["--checkpoint", str(tmp_path / "fresh.json"), "--json", str(out_b)], check=False)
    a, b = json.loads(out_a.read_text()), json.loads(out_b.read_text())
    assert a["wagers"] == b["wagers"] and a["rounds"] == b["rounds"] == 40 * SMALL_CHUNK


@pytest.mark.parametrize("spec", ["caribbean_stud", "five_card_mulligan", "five_card_mulligan_online",
                                  "texas_holdem_bonus"])
def test_fair_engine_passes_verification(spec, golden_sheet):
    # the sheet is input here: the golden one (the code's own output, checked in the slow tier)
    result = sim.simulate(spec, 60 * SMALL_CHUNK, seed=2024, workers=2, chunk_rounds=SMALL_CHUNK)
    verification = sim.verify(result, golden_sheet(spec))
    assert verification.passed, [t.to_dict() for t in verification.tests if t.passed is False]
    names = {t.name for t in verification.tests}
    assert {"main: outcome frequencies", "main: payouts", "main: RTP", "dealt hand categories",
            "CardPosition", "main: batch p-value uniformity"} <= names


NEGATIVE_CONTROLS = [
    # (spec, fault, rounds, the checks that must catch it)
    ("caribbean_stud", "dealer-qualifies-ace-queen", 60 * SMALL_CHUNK, {"main: outcome frequencies"}),
    ("caribbean_stud", "flush-pays-4", 60 * SMALL_CHUNK, {"main: payouts"}),
    ("five_card_mulligan", "bonus-kept-after-mulligan", 60 * SMALL_CHUNK, {"bonus: outcome frequencies"}),
    ("casino_stud", "naive-shuffle", 60 * SMALL_CHUNK, {"CardPosition"}),
    ("casino_stud", "modulo-deal", 60 * SMALL_CHUNK, {"CardPosition"}),
    ("texas_holdem_bonus", "ante-pays-on-pair", 60 * SMALL_CHUNK, {"main: outcome frequencies", "main: RTP"}),
]


@pytest.mark.parametrize("spec,fault,rounds,catchers", NEGATIVE_CONTROLS, ids=[f for _, f, _, _ in NEGATIVE_CONTROLS])
def test_seeded_faults_are_caught(spec, fault, rounds, catchers, golden_sheet):
    result = sim.simulate(spec, rounds, seed=2024, workers=2, fault=fault, chunk_rounds=SMALL_CHUNK)
    verification = sim.verify(result, golden_sheet(spec))
    failed = {t.name for t in verification.tests if t.applicable and t.passed is False}
    assert not verification.passed
    assert catchers <= failed, failed


def test_cli_unreachable_scheduler_is_one_clear_error(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from certify.cli import cli

    def refuse(*_args, **_kwargs):
        raise OSError("Timed out trying to connect to tcp://127.0.0.1:1 after 30 s")

    monkeypatch.setattr(sim, "simulate", refuse)
    res = CliRunner().invoke(cli, ["simulate", "casino_stud", "--rounds", "10", "--scheduler", "tcp://127.0.0.1:1",
                                   "--checkpoint", str(tmp_path / "c.json")])
    assert res.exit_code == 2 and "scheduler tcp://127.0.0.1:1" in res.output and "Traceback" not in res.output


def test_cli_unwritable_json_is_one_clear_error(tmp_path):
    from click.testing import CliRunner

    from certify.cli import cli

    blocker = tmp_path / "file"
    blocker.write_text("")
    res = CliRunner().invoke(cli, ["simulate", "casino_stud", "--rounds", "10", "--no-verify", "--workers", "1",
                                   "--checkpoint", str(tmp_path / "c.json"), "--json", str(blocker / "out.json")])
    assert res.exit_code == 2 and f"cannot write {blocker / 'out.json'}" in res.output


def _summary_line(output: str, label: str) -> str:
    """The summary line of ``certify simulate``'s output: the line that names the spec."""
    lines = [line for line in output.splitlines() if line.startswith(f"{label}: ")]
    assert len(lines) == 1, output
    return lines[0]


def test_cli_output_to_a_pipe_keeps_each_line_whole(tmp_path, monkeypatch, golden_in_par_cache):
    """A spec file at a long path, run from far above it: the summary line names it by its path
    relative to the working folder and is never broken, whatever its length."""
    from click.testing import CliRunner

    from certify.cli import cli
    from certify.spec import SPECS_DIR, load_spec

    deep = tmp_path.joinpath(*["a folder with a long name, ü"] * 6)
    deep.mkdir(parents=True)
    (deep / "casino_stud.yaml").write_bytes((SPECS_DIR / "casino_stud.yaml").read_bytes())
    golden_in_par_cache(load_spec(deep / "casino_stud.yaml"))  # the sheet is input here, not under test
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(cli, ["simulate", str(deep / "casino_stud.yaml"), "--rounds", "10", "--workers", "1",
                                   "--checkpoint", str(tmp_path / "c.json")])
    assert res.exit_code == 0, res.output
    label = str((deep / "casino_stud.yaml").relative_to(tmp_path))
    line = _summary_line(res.output, label)
    assert len(line) > 200 and "rounds, seed 1" in line and "rounds/s" in line
    assert any("observed RTP" in line and "theoretical" in line for line in res.output.splitlines())


def test_a_resumed_run_prints_no_rate_over_rounds_it_did_not_play(tmp_path, capsys):
    from certify.console import print_simulation

    ckpt = tmp_path / "c.json"
    sim.simulate("casino_stud", 2 * SMALL_CHUNK, seed=3, chunk_rounds=SMALL_CHUNK, checkpoint=ckpt)
    resumed = sim.simulate("casino_stud", 2 * SMALL_CHUNK, seed=3, chunk_rounds=SMALL_CHUNK, checkpoint=ckpt,
                           resume=True)
    print_simulation(resumed, None)
    line = _summary_line(capsys.readouterr().out, "casino_stud")  # a shipped spec: named by its name
    assert "2 of 2 chunks resumed from the checkpoint" in line and "rounds/s" not in line
