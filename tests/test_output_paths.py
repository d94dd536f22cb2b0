"""Issue 13, class 3: every command writes only regular files, never through or over a link, a
device, a FIFO or a folder, and refuses a path it cannot write before any work starts (exit 2).

One test per (kind of bad path) x (command that writes), plus the writer itself
(certify.atomic), so a new command or a new kind of path is one more parameter."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from certify.atomic import OutputPathError, atomic_write, atomic_write_many, check_output_dir, check_output_path
from certify.cli import cli

ROOT = os.geteuid() == 0 if hasattr(os, "geteuid") else False


def _fingerprint(path: Path):
    """What must not change: the kind of the path and, for a link, where it points."""
    st = os.lstat(path)
    return stat.S_IFMT(st.st_mode), (os.readlink(path) if stat.S_ISLNK(st.st_mode) else None), st.st_ino


# Each maker returns (path to write, path whose state must not change, words the refusal must say).
def _device(tmp: Path):
    return Path("/dev/null"), Path("/dev/null"), "character device"


def _fifo(tmp: Path):
    os.mkfifo(tmp / "pipe")
    return tmp / "pipe", tmp / "pipe", "FIFO"


def _link_to_device(tmp: Path):
    (tmp / "out").symlink_to("/dev/null")
    return tmp / "out", tmp / "out", "symbolic link"


def _link_to_stdout(tmp: Path):
    (tmp / "out").symlink_to("/proc/self/fd/1")
    return tmp / "out", tmp / "out", "symbolic link"


def _link_to_regular_file(tmp: Path):
    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "precious.json").write_text("keep me")
    (tmp / "out").symlink_to(elsewhere / "precious.json")
    return tmp / "out", elsewhere / "precious.json", "symbolic link"


def _folder(tmp: Path):
    (tmp / "out").mkdir()
    return tmp / "out", tmp / "out", "(folder|is a directory)"  # click's own check may say it first


def _under_a_file(tmp: Path):
    (tmp / "plain").write_text("a file")
    return tmp / "plain" / "out.json", tmp / "plain", "is a file, not a folder"


def _unwritable_folder(tmp: Path):
    if ROOT:
        pytest.skip("root may write in any folder")
    (tmp / "locked").mkdir()
    os.chmod(tmp / "locked", 0o500)
    return tmp / "locked" / "out.json", tmp / "locked", "no permission"


BAD_FILES = {"device": _device, "fifo": _fifo, "link-to-device": _link_to_device, "link-to-stdout": _link_to_stdout,
             "link-to-regular-file": _link_to_regular_file, "folder": _folder, "under-a-file": _under_a_file,
             "unwritable-folder": _unwritable_folder}


@pytest.fixture
def tmp(tmp_path):
    yield tmp_path
    for folder in tmp_path.rglob("*"):  # let pytest clean up a locked folder
        if folder.is_dir() and not folder.is_symlink():
            os.chmod(folder, 0o700)


@pytest.mark.parametrize("kind", BAD_FILES)
def test_the_writer_writes_only_regular_files(tmp, kind):
    target, guarded, words = BAD_FILES[kind](tmp)
    before = _fingerprint(guarded)
    content = guarded.read_bytes() if guarded.is_file() else None
    for write in (lambda: atomic_write(target, "x"), lambda: atomic_write_many({tmp / "ok.json": b"1", target: b"2"})):
        with pytest.raises(OutputPathError, match=words) as caught:
            write()
        assert str(target) in str(caught.value)
        assert _fingerprint(guarded) == before
        assert content is None or guarded.read_bytes() == content
        assert not (tmp / "ok.json").exists()  # nothing half-written: the other file did not appear
    with pytest.raises(OutputPathError, match=words):
        check_output_path(target)


def test_an_unwritable_folder_is_refused_even_where_the_tests_run_as_root(tmp, monkeypatch):
    (tmp / "locked").mkdir()
    monkeypatch.setattr("certify.atomic.os.access", lambda path, mode: Path(path) != tmp / "locked")
    with pytest.raises(OutputPathError, match="no permission to write in"):
        atomic_write(tmp / "locked" / "r.json", "x")
    result = CliRunner().invoke(cli, ["analyze", "caribbean_stud", "--json", str(tmp / "locked" / "r.json")])
    assert result.exit_code == 2 and "no permission to write in" in result.output
    assert list((tmp / "locked").iterdir()) == []


def test_a_regular_file_is_replaced_whole(tmp):
    (tmp / "r.json").write_text("old")
    assert check_output_path(tmp / "r.json") == tmp / "r.json"
    atomic_write(tmp / "new" / "r.json", "made")  # a missing folder is created
    atomic_write(tmp / "r.json", "new")
    assert (tmp / "r.json").read_text() == "new" and (tmp / "new" / "r.json").read_text() == "made"


def test_a_folder_behind_a_link_is_a_folder(tmp):
    (tmp / "real").mkdir()
    (tmp / "alias").symlink_to(tmp / "real")
    assert check_output_dir(tmp / "alias") == tmp / "alias"
    atomic_write(tmp / "alias" / "r.json", "x")
    assert (tmp / "real" / "r.json").read_text() == "x"


# -- every command that writes, on every kind of bad output path --------------------------------

PROCEDURES = "fixtures/procedures/caribbean_stud.yaml"


def _file_commands():
    """(name, argv builder) of every command option that names an output file."""
    return {
        "analyze --json": lambda p: ["analyze", "caribbean_stud", "--json", str(p)],
        "simulate --json": lambda p: ["simulate", "caribbean_stud", "--rounds", "10", "--json", str(p)],
        "simulate --checkpoint": lambda p: ["simulate", "caribbean_stud", "--rounds", "10", "--checkpoint", str(p)],
        "procedures --json": lambda p: ["procedures", PROCEDURES, "--json", str(p)],
        "rng --json": lambda p: ["rng", "--profile", "quick", "--json", str(p)],
    }


@pytest.mark.parametrize("kind", BAD_FILES)
@pytest.mark.parametrize("command", _file_commands())
def test_every_command_refuses_a_bad_output_file_before_any_work(tmp, kind, command, monkeypatch):
    target, guarded, words = BAD_FILES[kind](tmp)
    before = _fingerprint(guarded)

    def no_work(*_a, **_k):  # the refusal must come first: any work is a failure of the preflight
        raise AssertionError("work started before the output path was checked")

    for module, name in (("certify.analysis", "par_sheet"), ("certify.simulate", "simulate"),
                         ("certify.procedures", "run_files"), ("certify.stats.battery", "run_battery")):
        monkeypatch.setattr(f"{module}.{name}", no_work)
    result = CliRunner().invoke(cli, _file_commands()[command](target))
    assert result.exit_code == 2, result.output
    assert re.search(words, " ".join(result.output.split())) and str(target) in result.output
    assert _fingerprint(guarded) == before


def _bad_folders():
    """Kinds of bad output folder (run --out, keygen --key-dir): not a folder, or not writable."""
    return {"device": _device, "fifo": _fifo, "link-to-device": _link_to_device, "under-a-file": _under_a_file,
            "unwritable-folder": _unwritable_folder}


@pytest.mark.parametrize("kind", _bad_folders())
@pytest.mark.parametrize("command", ["run --out", "keygen --key-dir"])
def test_every_command_refuses_a_bad_output_folder(tmp, kind, command, monkeypatch):
    target, guarded, _words = _bad_folders()[kind](tmp)
    if kind == "unwritable-folder":
        target = target.parent  # the locked folder itself
    before = _fingerprint(guarded)
    monkeypatch.setattr("certify.run.run", lambda *a, **k: pytest.fail("the run started"))
    monkeypatch.setattr("certify.signing.keygen", lambda *a, **k: pytest.fail("keygen started"))
    argv = (["run", "caribbean_stud", "--out", str(target)] if command == "run --out"
            else ["keygen", "--key-dir", str(target)])
    result = CliRunner().invoke(cli, argv, env={"CERTIFY_KEY_PASSPHRASE": "correct horse battery"})
    assert result.exit_code == 2, result.output
    assert str(target).split("/")[-1] in result.output
    assert _fingerprint(guarded) == before


@pytest.mark.parametrize("kind", ["fifo", "link-to-device", "link-to-regular-file", "folder"])
def test_run_refuses_a_bad_report_file_inside_a_good_folder(tmp, kind, monkeypatch):
    from certify.report import report_paths
    from certify.run import report_basename
    from certify.spec import load_spec

    monkeypatch.setattr("certify.run.run", lambda *a, **k: pytest.fail("the run started"))
    made, guarded, words = BAD_FILES[kind](tmp)
    pdf = report_paths(tmp, report_basename(load_spec("caribbean_stud")), signed=True)["pdf"]
    made.rename(pdf)
    before = _fingerprint(pdf)
    result = CliRunner().invoke(cli, ["run", "caribbean_stud", "--out", str(tmp)])
    assert result.exit_code == 2, result.output
    assert "cannot write" in result.output and re.search(words, " ".join(result.output.split()))
    assert _fingerprint(pdf) == before


@pytest.mark.parametrize("kind", ["fifo", "link-to-regular-file", "link-to-device"])
@pytest.mark.parametrize("which", ["file", "signature"])
def test_sign_refuses_a_file_or_signature_that_is_not_a_regular_file(tmp, kind, which, monkeypatch):
    monkeypatch.setattr("certify.signing.load_signing_key", lambda *a, **k: pytest.fail("a key was loaded"))
    made, guarded, words = BAD_FILES[kind](tmp)
    document = tmp / "doc.json"
    if which == "file":
        made.rename(document)
    else:
        document.write_text("{}")
        made.rename(tmp / "doc.json.p7s")
    result = CliRunner().invoke(cli, ["sign", str(document)])
    assert result.exit_code == 2, result.output
    assert "cannot write" in result.output and re.search(words, " ".join(result.output.split()))
