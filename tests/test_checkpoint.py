"""Issue 13, class 5: a checkpoint cannot lie. A resumed run proves what it did not play: the
checkpoint's shape is checked strictly (exit 2), its digests and chain verify (exit 1), a random
sample of its chunks is played again (exit 1 on any difference), one runner holds it at a time
(exit 2), and the result, JSON and report say how many chunks came from it and were re-played."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from certify import checkpoint as checkpoints
from certify import simulate as sim
from certify.cli import cli

SPEC, ROUNDS, CHUNK = "casino_stud", 4000, 500  # 8 chunks


def _run(path: Path | None = None, resume: bool = False, fraction: float = checkpoints.REPLAY_FRACTION):
    return sim.simulate(SPEC, ROUNDS, 7, workers=1, checkpoint=path, resume=resume, chunk_rounds=CHUNK,
                        replay_fraction=fraction)


def _config() -> sim.RunConfig:
    path = sim.resolve_spec_path(SPEC)
    return sim.RunConfig(str(path), sim.file_sha256(path), ROUNDS, 7, CHUNK)


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """An uninterrupted run, and its complete checkpoint's chunks."""
    path = tmp_path_factory.mktemp("whole") / "c.json"
    result = _run(path)
    return result, sim.load_checkpoint(path, _config())


@pytest.fixture
def partial(tmp_path, whole):
    """A checkpoint of the first 5 of 8 chunks, as an interrupted run leaves it."""
    path = tmp_path / "c.json"
    sim.save_checkpoint(path, _config(), {i: whole[1][i] for i in range(5)})
    return path


def _cli_resume(path: Path, *extra: str):
    return CliRunner().invoke(cli, ["simulate", SPEC, "--rounds", str(ROUNDS), "--seed", "7", "--chunk-rounds",
                                    str(CHUNK), "--workers", "1", "--no-verify", "--resume", "--checkpoint", str(path),
                                    *extra])


def test_a_good_resume_gives_the_tallies_of_an_uninterrupted_run_and_says_what_it_took(partial, whole, tmp_path):
    resumed = _run(partial, resume=True)
    assert resumed.resumed_chunks == 5 and resumed.replayed_chunks == 4  # max(MIN_REPLAY, ceil(0.5 x 5))
    for key, total in whole[0].totals.items():
        assert np.array_equal(resumed.totals[key], total), key
    assert resumed.detection_probability == pytest.approx(4 / 5)
    out = sim.result_to_dict(resumed)["checkpoint"]
    assert out["resumed_chunks"] == 5 and out["replayed_chunks"] == 4
    assert out["detection_probability_one_forged_chunk"] == pytest.approx(0.8)
    assert "5 of 8 chunks from a checkpoint" in out["summary"] and "4 of them played again" in out["summary"]
    assert not partial.with_name("c.json.lock").exists()  # the lock is released with the run
    result = _cli_resume(partial)  # the whole checkpoint now: still re-played, still identical
    assert result.exit_code == 0, result.output
    assert "8 of 8 chunks from a checkpoint" in " ".join(result.output.split())


def test_a_fresh_run_says_it_took_nothing_from_a_checkpoint(whole):
    assert whole[0].resumed_chunks == 0 and whole[0].detection_probability is None
    assert whole[0].checkpoint_summary() == "all 8 chunks played in this run (none from a checkpoint)"


def _forge(chunks: dict, index: int) -> dict:
    """Move one round of chunk ``index`` from a loss to a win with a pair, money and all: a
    consistent hand edit that every shape check accepts (and the digests, recomputed)."""
    kernel = sim.engine_kernel(str(sim.resolve_spec_path(SPEC)), None)
    main = kernel.wagers[0]
    forged = {k: v.copy() for k, v in chunks[index].items()}
    lose, win = main.index("lose"), main.index("win with pair")
    forged["main.counts"][lose] -= 1
    forged["main.counts"][win] += 1
    forged["main.money"] = forged["main.counts"] * main.scaled_nets
    return {**chunks, index: forged}


def test_consistently_forged_tallies_are_caught_by_the_replay(partial, whole):
    chunks = sim.load_checkpoint(partial, _config())
    sim.save_checkpoint(partial, _config(), _forge(chunks, 2))  # digests and chain recomputed: they verify
    before = partial.read_bytes()
    with pytest.raises(checkpoints.CheckpointForged, match="chunk 2 played again .* differs .* main.counts"):
        _run(partial, resume=True, fraction=1.0)
    assert partial.read_bytes() == before  # nothing built on a refused checkpoint
    result = _cli_resume(partial, "--replay-fraction", "1")
    assert result.exit_code == 1 and "forged" in result.output and "Traceback" not in result.output


def test_the_replay_sample_and_its_stated_detection_probability():
    sample = checkpoints.replay_sample(range(100))
    assert len(sample) == 50 == len(set(sample)) and set(sample) <= set(range(100))
    assert checkpoints.replay_sample(range(3)) == [0, 1, 2]  # up to MIN_REPLAY chunks: all of them
    assert checkpoints.detection_probability(100, 50) == pytest.approx(0.5)
    assert checkpoints.detection_probability(100, 50, forged=5) == pytest.approx(1 - math.comb(95, 50) / math.comb(100, 50))
    assert checkpoints.detection_probability(10, 10) == 1.0


@pytest.mark.parametrize("edit, words", [
    ("tally", "chunks.1: the chunk's SHA-256 does not match its tallies"),
    ("digest", "the digest chain does not match"),
    ("drop", "the digest chain does not match"),
    ("extra", "the digest chain does not match"),
])
def test_a_broken_digest_or_chain_is_refused(partial, whole, edit, words):
    body = json.loads(partial.read_text())
    if edit == "tally":  # edited without recomputing its digest
        body["chunks"]["1"]["tally"] = checkpoints.encode(_forge(whole[1], 1)[1])
    elif edit == "digest":  # tally and its digest consistent, the chain not
        forged = checkpoints.encode(_forge(whole[1], 1)[1])
        body["chunks"]["1"] = {"sha256": checkpoints.chunk_digest(1, forged), "tally": forged}
    elif edit == "drop":
        del body["chunks"]["4"]
    else:  # a genuine chunk of the run, added by hand
        body["chunks"]["6"] = {"sha256": checkpoints.chunk_digest(6, checkpoints.encode(whole[1][6])),
                               "tally": checkpoints.encode(whole[1][6])}
    partial.write_text(json.dumps(body))
    result = _cli_resume(partial)
    assert result.exit_code == 1, result.output
    assert words in " ".join(result.output.split()) and "Traceback" not in result.output


def _malformed(body: dict, whole) -> dict:
    """Every malformed shape, each a function of a good checkpoint body."""
    tally = body["chunks"]["0"]["tally"]

    def chunk0(**change):
        return {**body, "chunks": {**body["chunks"], "0": {**body["chunks"]["0"], **change}}}

    def tally0(**change):
        return chunk0(tally={**tally, **change})

    return {
        "empty list": [], "null": None, "a number": 3, "a string": "checkpoint", "empty object": {},
        "no chain": {k: v for k, v in body.items() if k != "chain"},
        "no chunks": {k: v for k, v in body.items() if k != "chunks"},
        "no config": {k: v for k, v in body.items() if k != "config"},
        "an extra key": {**body, "note": "hi"},
        "config a list": {**body, "config": []},
        "config missing a key": {**body, "config": {k: v for k, v in body["config"].items() if k != "seed"}},
        "config with an extra key": {**body, "config": {**body["config"], "x": 1}},
        "another seed": {**body, "config": {**body["config"], "seed": 8}},
        "format 1": {**body, "config": {**body["config"], "checkpoint_version": 1}},
        "chunks a list": {**body, "chunks": []},
        "a chunk beyond the run": {**body, "chunks": {**body["chunks"], "99": body["chunks"]["0"]}},
        "a chunk index with a leading zero": {**body, "chunks": {**body["chunks"], "01": body["chunks"]["0"]}},
        "a negative chunk index": {**body, "chunks": {**body["chunks"], "-1": body["chunks"]["0"]}},
        "a chunk that is a list": {**body, "chunks": {**body["chunks"], "0": []}},
        "a chunk without its digest": chunk0(sha256=None) | {"chunks": {**body["chunks"], "0": {"tally": tally}}},
        "tallies missing a key": chunk0(tally={k: v for k, v in tally.items() if k != "dealt"}),
        "tallies with an extra key": tally0(extra=[1]),
        "counts of the wrong length": tally0(dealt=tally["dealt"][:-1]),
        "a count that is true": tally0(dealt=[True] + tally["dealt"][1:]),
        "a count that is a float": tally0(dealt=[float(tally["dealt"][0])] + tally["dealt"][1:]),
        "a count that is text": tally0(dealt=["1"] + tally["dealt"][1:]),
        "a negative count": tally0(dealt=[-1, tally["dealt"][1] + tally["dealt"][0] + 1] + tally["dealt"][2:]),
        "counts that do not add up": tally0(dealt=[tally["dealt"][0] + 1] + tally["dealt"][1:]),
        "positions of the wrong shape": tally0(positions=tally["positions"][0]),
        "money that is not count x pay": tally0(**{"main.money": [m + 1 for m in tally["main.money"]]}),
        "a number beyond 64 bits": tally0(dealt=[2 ** 70] + tally["dealt"][1:]),
    }


def test_every_malformed_shape_is_one_clear_error(partial, whole, tmp_path):
    body = json.loads(partial.read_text())
    cases = _malformed(body, whole)
    for name, case in cases.items():
        path = tmp_path / "bad.json"
        path.write_text(json.dumps(case))
        result = _cli_resume(path)
        assert result.exit_code == 2, (name, result.output)
        assert result.output.startswith("Error: ") and "Traceback" not in result.output, (name, result.output)
        assert len(result.output.strip().splitlines()) == 1, (name, result.output)
        assert str(path) in result.output, (name, result.output)


def test_a_second_runner_on_one_checkpoint_is_refused(partial):
    with checkpoints.locked(partial):
        result = _cli_resume(partial)
        assert result.exit_code == 2, result.output
        assert "another run (process" in result.output and "is using this checkpoint" in result.output
        with pytest.raises(checkpoints.CheckpointLocked):
            _run(partial, resume=True)
    assert _cli_resume(partial).exit_code == 0  # released: the next run may have it


def test_the_report_says_where_the_chunks_came_from(whole, monkeypatch, golden_sheet):
    from certify.run import simulation_section

    monkeypatch.setattr(sim, "simulate", lambda *a, **k: whole[0])
    section = simulation_section(sim.resolve_spec_path(SPEC), golden_sheet(SPEC), ROUNDS, 7, 0.01, 1,
                                 lambda _: None)
    assert section["checkpoint"] == "all 8 chunks played in this run (none from a checkpoint)"
