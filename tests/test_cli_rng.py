"""`certify rng`: exit codes, the JSON, file formats and located input errors."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from certify.cli import cli
from certify.stats.sp800_22 import TEST_NAMES
from rng import sources, streams

SMALL = ["--bits", "524288", "--sequences", "2", "--decks", "20000", "--small-decks", "20000", "--draws", "100000",
         "--jobs", "1"]


def run(*args):
    return CliRunner().invoke(cli, ["rng", *args], catch_exceptions=False)


def test_drbg_passes_and_json_holds_every_p_value(tmp_path):
    out = tmp_path / "rng.json"
    result = run("--source", "drbg:hmac", "--seed", "7", *SMALL, "--json", str(out))
    assert result.exit_code == 0, result.output
    assert "PASS" in result.output
    data = json.loads(out.read_text())
    assert data["passed"] and data["family"]["method"] == "holm-bonferroni"
    assert list(data["sp800_22"]) == list(TEST_NAMES)
    templates = data["sp800_22"]["NonOverlappingTemplate"]
    assert len(templates["pvalues"]) == 2 and len(templates["pvalues"][0]) == 148
    assert len(templates["second_level"]) == 148 and templates["second_level"][0]["m"] == 2
    assert len(data["sp800_22"]["Serial"]["pvalues"][0]) == 2
    assert data["sp800_22"]["Universal"]["applicable_sequences"] == 2
    assert {"CardPosition", "Poker", "Permutations4", "Permutations5", "SerialIndependence"} <= set(data["cards"])
    assert set(data["draws"]) == {"DrawFrequency", "DrawPairs", "DrawGaps"}
    assert data["profile"]["bits"] == 524_288 and data["profile"]["decks"] == 20_000


def test_raw_file_from_a_stuck_bit_generator_fails(tmp_path):
    path = tmp_path / "stuck.bin"
    path.write_bytes(sources.StuckBit(streams.stream(3, 0), bit=0, value=1).random_bytes(2 * 25_000))
    out = tmp_path / "stuck.json"
    result = run("--file", str(path), "--format", "raw", "--bits", "200000", "--jobs", "1", "--json", str(out))
    assert result.exit_code == 1, result.output
    data = json.loads(out.read_text())
    assert not data["passed"] and "SP800-22/Frequency" in data["failing"]
    assert data["profile"]["sequences"] == 2  # as many sequences as the file holds, up to the profile's


def test_decks_file_from_the_naive_shuffle_fails(tmp_path):
    decks = sources.NaiveShuffle(streams.stream(4, 0)).deal_batch(20_000)
    path = tmp_path / "decks.txt"
    path.write_text("\n".join(" ".join(map(str, row)) for row in decks) + "\n")
    result = run("--file", str(path), "--format", "decks", "--json", str(tmp_path / "d.json"))
    assert result.exit_code == 1, result.output
    data = json.loads((tmp_path / "d.json").read_text())
    assert "cards/CardPosition" in data["failing"] and data["sp800_22"] == {}
    assert data["cards"]["Permutations4"]["looked_at"].startswith("relative order of the first 4 cards")


def test_bad_ascii_bits_file_is_located_and_nothing_is_written(tmp_path):
    path = tmp_path / "bits.txt"
    path.write_text("0101\n01x1\n")
    out = tmp_path / "never.json"
    result = run("--file", str(path), "--format", "ascii-bits", "--json", str(out))
    assert result.exit_code == 2
    assert "line 2, column 3 (byte offset 7)" in result.output and "'x'" in result.output
    assert not out.exists()


def test_bad_deck_line_is_named(tmp_path):
    path = tmp_path / "decks.txt"
    path.write_text("AS KS QS\nAS AS QS\n")
    result = run("--file", str(path), "--format", "decks", "--cards-per-deal", "5")
    assert result.exit_code == 2 and "line 1" in result.output


def test_file_shorter_than_one_sequence(tmp_path):
    path = tmp_path / "short.bin"
    path.write_bytes(bytes(1000))
    result = run("--file", str(path), "--format", "raw")
    assert result.exit_code == 2 and "holds 8000 bits" in result.output


def test_ints_file_gets_the_draw_tests(tmp_path):
    from rng import bounded

    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_text("\n".join(map(str, bounded.integers(streams.stream(9, 0), 52, 100_000) + 1)))
    modulo = np.frombuffer(streams.stream(9, 1).random_bytes(100_000), dtype=np.uint8) % 52 + 1
    bad.write_text(" ".join(map(str, modulo)))
    ok = run("--file", str(good), "--format", "ints", "--low", "1", "--high", "52", "--json", str(tmp_path / "g.json"))
    assert ok.exit_code == 0, ok.output
    data = json.loads((tmp_path / "g.json").read_text())
    assert set(data["draws"]) == {"DrawFrequency", "DrawPairs", "DrawGaps"} and data["draws"]["DrawFrequency"]["n"] == 100_000
    failed = run("--file", str(bad), "--format", "ints", "--low", "1", "--high", "52")
    assert failed.exit_code == 1 and "draws/DrawFrequency" in failed.output


def test_ints_need_a_declared_range(tmp_path):
    path = tmp_path / "ints.txt"
    path.write_text("1 2 3\n")
    result = run("--file", str(path), "--format", "ints")
    assert result.exit_code == 2 and "--low and --high" in result.output


@pytest.mark.parametrize("args,message", [
    (["--file", "x.bin"], "--file needs --format"),
    (["--format", "raw"], "--format needs --file"),
    (["--source", "drbg:ctr", "--file", "x", "--format", "raw"], "not both"),
    (["--profile", "huge"], "huge"),
])
def test_usage_errors_exit_2(args, message):
    result = run(*args)
    assert result.exit_code == 2 and message in result.output


def test_existing_json_is_left_alone_on_error(tmp_path):
    out = tmp_path / "keep.json"
    out.write_text('{"old": true}')
    result = run("--file", str(tmp_path / "missing.bin"), "--format", "raw", "--json", str(out))
    assert result.exit_code == 2 and "no such file" in result.output
    assert json.loads(out.read_text()) == {"old": True}


def test_a_pass_over_a_small_sample_lists_the_tests_not_applied(tmp_path):
    decks = sources.NaiveShuffle(streams.stream(4, 0)).deal_batch(50)  # far too few for most card tests
    path = tmp_path / "decks.txt"
    path.write_text("\n".join(" ".join(map(str, row)) for row in decks) + "\n")
    result = run("--file", str(path), "--format", "decks")
    assert "not applicable" in result.output and "cards CardPosition" in result.output.split("not applicable")[1]
    assert "pass: sequences passing in the worst p-value series" in result.output  # the caption explains columns
    # what was read: no bits from a file of decks, and its deals as the file deals them
    assert "tested bits: not tested (none asked for)" in result.output
    assert f"tested deals: card battery on 50 deals as deck file {path} deals them" in result.output
