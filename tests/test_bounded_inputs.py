"""Issue 13, class 4: no input may explode. Every reader of the suite (spec, procedure fixture,
published table, RNG file under test, checkpoint, any JSON) reads through certify.inputs: size,
line length, nesting depth and YAML alias expansion are bounded, and a message never echoes more
than a short excerpt of bad input. One test per (attack) x (reader) that the attack applies to.

The timeouts are hang guards (an alias bomb used to hang `certify spec`), not time assertions."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from certify.cli import cli
from certify.inputs import (CHECKPOINT_LIMITS, JSON_LIMITS, YAML_LIMITS, InputTooLarge, Limits, excerpt,
                            load_json, load_yaml, read_input)

ROOT = Path(__file__).resolve().parent.parent
SPEC = (ROOT / "specs" / "casino_stud.yaml").read_text()
FIXTURE = (ROOT / "fixtures" / "procedures" / "casino_stud.yaml").read_text()
LONGEST_MESSAGE_LINE = 600  # characters of one message line, whatever the input held (unbounded: 100,000s)

BOMB = "\n".join(["    a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
                 + [f"    {c}: &{c} [{', '.join([f'*{p}'] * 9)}]" for p, c in zip("abcdefgh", "bcdefghi")])
DEEP_YAML = "\n".join(["    " + "[" * 50] * 100 + ["    " + "]" * 50] * 100)  # 5,000 deep, short lines


def _in_spec(nested: str) -> str:
    """The spec with ``nested`` as a field inside ``source`` (a nested field, as in the issue)."""
    return SPEC.replace("source:\n", f"source:\n  extra:\n{nested}\n", 1)


def _as_spec_notes(nested: str) -> str:
    """The spec with ``nested`` as the value of ``source.notes``, a text field: the type error quotes
    the value, which is how the bomb used to hang ``certify spec`` (9^9 items rendered)."""
    start, end = SPEC.index("  notes: >-"), SPEC.index("deck:")
    return SPEC[:start] + "  notes:\n" + nested + "\n" + SPEC[end:]


def _in_fixture(nested: str) -> str:
    return FIXTURE.replace("scenarios:\n", f"description:\n{nested}\nscenarios:\n", 1)


def _assert_refused(result, *words):
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    text = " ".join(result.output.split())
    for word in words:
        assert re.search(word, text), (word, result.output[:2000])
    assert max(map(len, result.output.splitlines())) <= LONGEST_MESSAGE_LINE, result.output[:2000]


def _spec_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "casino_stud.yaml"  # the spec's name must be its file name
    path.write_text(text)
    return path


def _fixture_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "fixture.yaml"
    path.write_text(text.replace("spec: casino_stud", f"spec: {ROOT / 'specs' / 'casino_stud.yaml'}"))
    return path


# -- the YAML readers: certify spec, certify procedures ------------------------------------------

YAML_READERS = {
    "spec": (lambda tmp, nested: ["spec", str(_spec_file(tmp, _in_spec(nested)))]),
    "spec text field": (lambda tmp, nested: ["spec", str(_spec_file(tmp, _as_spec_notes(nested)))]),
    "fixture": (lambda tmp, nested: ["procedures", str(_fixture_file(tmp, _in_fixture(nested)))]),
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("reader", YAML_READERS)
def test_billion_laughs_in_a_nested_field_is_refused(tmp_path, reader):
    result = CliRunner().invoke(cli, YAML_READERS[reader](tmp_path, BOMB))
    _assert_refused(result, r"line \d+: expands to more than [\d,]+ values \(YAML aliases\)")


@pytest.mark.timeout(60)
@pytest.mark.parametrize("reader", YAML_READERS)
def test_a_deeply_nested_document_is_refused(tmp_path, reader):
    result = CliRunner().invoke(cli, YAML_READERS[reader](tmp_path, DEEP_YAML))
    _assert_refused(result, r"nested more than \d+ levels deep")


@pytest.mark.parametrize("reader", YAML_READERS)
def test_an_enormous_line_is_refused(tmp_path, reader):
    result = CliRunner().invoke(cli, YAML_READERS[reader](tmp_path, "    # " + "x" * 100_000))
    _assert_refused(result, r"line \d+ is 100,00\d bytes long", "at most 4,096")


@pytest.mark.parametrize("reader", YAML_READERS)
def test_a_huge_file_is_refused_without_reading_it(tmp_path, reader):
    argv = YAML_READERS[reader](tmp_path, "    ok: 1")
    with open(argv[-1], "ab") as fh:  # sparse: the size alone must refuse it
        fh.truncate(YAML_LIMITS.max_bytes * 64)
    _assert_refused(CliRunner().invoke(cli, argv), r"67,108,864 bytes; a (spec|fixture) file may hold at most 1,048,576")


def test_a_huge_bad_value_is_shown_as_an_excerpt_in_a_spec_message(tmp_path):
    assert SPEC.count(" flush: 5,") == 1
    text = SPEC.replace(" flush: 5,", f" flush: \"{'9' * 3000}x\",", 1)
    result = CliRunner().invoke(cli, ["spec", str(_spec_file(tmp_path, text))])
    _assert_refused(result, r"bet\.settle\.versus_dealer\.win_pays\.flush", r"\(3,001 characters\)")
    text = SPEC.replace("source:\n", f"source:\n  {'k' * 1000}: 1\n", 1)  # an unknown field's name
    _assert_refused(CliRunner().invoke(cli, ["spec", str(_spec_file(tmp_path, text))]), "unknown field",
                    r"\(1,000 characters\)")


def test_a_huge_bad_value_is_shown_as_an_excerpt_in_a_fixture_message(tmp_path):
    text = FIXTURE.replace("id: bet-pays-royal-flush-100", f"id: {'r' * 3000}", 1)
    text = text.replace('net: {ante: "1.00", bet: "200.00"}', f'net: {{ante: "{"1" * 3000}.x", bet: "200.00"}}', 1)
    result = CliRunner().invoke(cli, ["procedures", str(_fixture_file(tmp_path, text))])
    _assert_refused(result, r"\(3,000 characters\)")


# -- the published table of analyze --compare ----------------------------------------------------

def _compare(tmp_path, text: str):
    table = tmp_path / "published.csv"
    table.write_text(text)
    return CliRunner().invoke(cli, ["analyze", "caribbean_stud", "--compare", str(table)])


def test_a_table_with_an_enormous_line_is_refused(tmp_path):
    _assert_refused(_compare(tmp_path, "event,probability\n" + "x" * 200_000 + ",0.5\n"),
                    r"line 2 is 200,004 bytes long")


def test_a_huge_table_is_refused(tmp_path):
    table = tmp_path / "published.csv"
    table.write_text("event,probability\n")
    with open(table, "ab") as fh:
        fh.truncate(1 << 30)
    result = CliRunner().invoke(cli, ["analyze", "caribbean_stud", "--compare", str(table)])
    _assert_refused(result, r"1,073,741,824 bytes")


@pytest.mark.timeout(60)
@pytest.mark.parametrize("value", ["9" * 3000 + "x", "1e999999999", "1" * 3000])
def test_a_huge_bad_figure_in_a_table_is_an_excerpt(tmp_path, value):
    result = _compare(tmp_path, f"event,probability,pays\nlose,0.5,{value}\n")
    _assert_refused(result, r"column 'pays'", r"\.\.\. \(3,00\d characters\)|1e999999999")


# -- RNG files under test (certify rng --file) ---------------------------------------------------

def _rng(path: Path, fmt: str):
    extra = ["--low", "0", "--high", "255"] if fmt == "ints" else []
    return CliRunner().invoke(cli, ["rng", "--file", str(path), "--format", fmt, "--profile", "quick", *extra])


@pytest.mark.parametrize("fmt", ["ints", "decks", "ascii-bits"])
def test_a_huge_rng_text_file_is_refused_without_reading_it(tmp_path, fmt):
    data = tmp_path / "data.txt"
    data.write_text("1\n")
    with open(data, "ab") as fh:
        fh.truncate(600 << 20)
    _assert_refused(_rng(data, fmt), r"629,145,600 bytes; a (RNG text|ASCII bits) file may hold at most 536,870,912")


@pytest.mark.parametrize("fmt", ["ints", "decks"])
def test_an_enormous_rng_line_is_refused(tmp_path, fmt):
    data = tmp_path / "data.txt"
    data.write_text("1 " * 600_000 + "\n")
    _assert_refused(_rng(data, fmt), r"line 1 is 1,200,000 bytes long")


@pytest.mark.parametrize("fmt", ["ints", "decks"])
def test_a_huge_bad_rng_token_is_an_excerpt(tmp_path, fmt):
    data = tmp_path / "data.txt"
    data.write_text("7" * 500_000 + "\n")
    _assert_refused(_rng(data, fmt), r"line 1, column 1", r"\(500,000 characters\)")


# -- checkpoints and any JSON --------------------------------------------------------------------

def _resume(tmp_path, text: str):
    ckpt = tmp_path / "c.json"
    ckpt.write_text(text)
    return CliRunner().invoke(cli, ["simulate", "casino_stud", "--rounds", "1000", "--resume", "--workers", "1",
                                    "--checkpoint", str(ckpt)])


def test_a_deeply_nested_checkpoint_is_refused(tmp_path):
    _assert_refused(_resume(tmp_path, '{"config": ' + "[" * 100_000 + "]" * 100_000 + "}"), "nested")


def test_an_enormous_checkpoint_line_is_refused(tmp_path):
    _assert_refused(_resume(tmp_path, '{"config": "' + "x" * (CHECKPOINT_LIMITS.max_line + 10) + '"}'),
                    r"line 1 is 1,048,\d+ bytes long")


def test_a_huge_checkpoint_is_refused(tmp_path):
    ckpt = tmp_path / "c.json"
    ckpt.write_text("{}")
    with open(ckpt, "ab") as fh:
        fh.truncate(CHECKPOINT_LIMITS.max_bytes + 1)
    result = CliRunner().invoke(cli, ["simulate", "casino_stud", "--rounds", "1000", "--resume",
                                      "--checkpoint", str(ckpt)])
    _assert_refused(result, "checkpoint may hold at most")


def test_a_huge_bad_value_in_a_checkpoint_is_an_excerpt(tmp_path):
    from certify.checkpoint import VERSION

    body = {"config": {"checkpoint_version": VERSION, "seed": "s" * 100_000}, "chain": "", "chunks": {}}
    _assert_refused(_resume(tmp_path, json.dumps(body)), r"seed 's+'\.\.\. \(100,000 characters\) there")


@pytest.mark.parametrize("text, words", [
    ("[" * 100_000 + "]" * 100_000, "nested"),
    ('{"a": ' * 40 + "1" + "}" * 40, r"nested more than 32 levels"),
    ('{"x": NaN}', "NaN is not a number"),
    ('{"x": 1e400}', "out of range"),
    ('{"x": ' + "1" * 5000 + "}", "digits"),
])
def test_load_json_bounds_depth_and_refuses_what_is_not_a_finite_number(tmp_path, text, words):
    path = tmp_path / "x.json"
    path.write_text(text)
    with pytest.raises(Exception, match=words) as caught:
        load_json(path)
    assert len(str(caught.value)) <= LONGEST_MESSAGE_LINE


# -- the reader itself ---------------------------------------------------------------------------

def test_an_endless_device_is_cut_off_at_the_bound():
    with pytest.raises(InputTooLarge, match="more than 1,024 bytes"):
        read_input("/dev/zero", Limits("test input", max_bytes=1024))


def test_a_self_referencing_anchor_is_refused(tmp_path):
    path = tmp_path / "loop.yaml"
    path.write_text("a: &a [1, *a]\n")
    with pytest.raises(InputTooLarge, match="refers to itself"):
        load_yaml(path)


def test_aliases_within_the_bound_still_load(tmp_path):
    path = tmp_path / "ok.yaml"
    path.write_text("a: &a {x: 1}\nb: *a\n")
    data, root = load_yaml(path)
    assert data == {"a": {"x": 1}, "b": {"x": 1}} and root is not None


def test_excerpt_is_short_whatever_it_is_given():
    assert excerpt("short") == "'short'"
    for value in ("x" * 10**6, b"y" * 10**6, list(range(10**5)), {"k": [[[["deep"]]]] * 1000}, 10**10000):
        assert len(excerpt(value)) <= 2 * 60 + 30


def test_every_real_input_is_within_its_bounds():
    """The suite's own specs, fixtures and vectors are far inside every bound."""
    for path in sorted((ROOT / "specs").glob("*.yaml")) + sorted((ROOT / "fixtures" / "procedures").glob("*.yaml")):
        load_yaml(path)
    load_json(ROOT / "fixtures" / "drbg_cavp.json", JSON_LIMITS)
