"""The PAR-sheet cache: a sheet is read back only when it is provably this code's sheet for this
spec; a missing, stale, corrupt, truncated, edited or planted entry is recomputed and rewritten.
Every test has its own empty cache folder (tests/conftest.py sets XDG_CACHE_HOME)."""

from __future__ import annotations

import json
import os
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import yaml
from click.testing import CliRunner

import certify.analysis
from certify.analysis import cache
from certify.analysis.par import ParSheet, ReturnRow, WagerSheet
from certify.spec import SPECS_DIR, load_spec, spec_names
from spec_files import one_pay_line_changed

MULLIGAN_CYCLE = 1_478_262_843_475_644_020_034_240  # > 2**64: big ints must survive


def toy_sheet(spec) -> ParSheet:
    """A sheet with every kind of value a real one holds (Fractions, ints beyond 64 bits, numpy
    strings, tuples, a progressive meter, dict order that is not sorted)."""
    main = WagerSheet.from_combinations(
        "main game", [("win", Fraction(3, 2), MULLIGAN_CYCLE - 7, Fraction(3)), ("lose", -1, 7, 1)],
        strategy="toy", strategy_table=({"hand": np.str_("AKQ"), "ev": -0.25, "count": 10**30},
                                        {"hand": "32o", "ev": float("-inf"), "count": 0}),
        strategy_chart=("line 1", "line 2"), notes=("exact",))
    rows = (ReturnRow("royal", Fraction(500), Fraction(1, 4), combinations=1, meter_share=Fraction(1, 10)),
            ReturnRow("no win", -1, Fraction(3, 4), combinations=3))
    progressive = WagerSheet("progressive", rows, exact=True, meter=Fraction(1000001, 100))
    frequencies = {"z": {"b": 2, "a": [1, (2, 3)]}, "a": 0.1 + 0.2, 7: "int key"}
    return ParSheet(game=spec.title, spec=spec.name, family="rules", wagers=(main, progressive),
                    frequencies=frequencies)


class Counting:
    """A compute function that counts its calls (a recomputation is a call)."""

    def __init__(self, make=toy_sheet):
        self.calls, self.make = 0, make

    def __call__(self, spec):
        self.calls += 1
        return self.make(spec)


def entry_file() -> Path:
    files = [p for p in cache.cache_dir().rglob("*.json")]
    assert len(files) == 1, files
    return files[0]


def test_the_encoding_round_trips_every_type_exactly():
    sheet = toy_sheet(load_spec("caribbean_stud"))
    back = cache.decode(json.loads(json.dumps(cache.encode(sheet))))
    assert back == sheet
    assert cache.sheet_json(back) == cache.sheet_json(sheet)
    main = back.main
    assert type(main.rows[0].pays) is Fraction and type(main.rows[1].pays) is Fraction
    assert main.cycle == MULLIGAN_CYCLE and type(main.strategy_table) is tuple
    assert main.strategy_table[0]["count"] == 10**30 and main.strategy_table[1]["ev"] == float("-inf")
    assert list(back.frequencies) == ["z", "a", 7] and back.frequencies["z"]["a"] == [1, (2, 3)]
    assert back.wagers[1].meter == Fraction(1000001, 100) and back.wagers[1].rows[0].meter_share == Fraction(1, 10)
    with pytest.raises(TypeError, match="cannot encode"):
        cache.encode(object())


def test_a_hit_returns_the_same_sheet_byte_for_byte_without_computing():
    spec, compute = load_spec("caribbean_stud"), Counting()
    first, p1 = cache.load_or_compute(spec, compute=compute)
    second, p2 = cache.load_or_compute(spec, compute=compute)
    assert compute.calls == 1
    assert (p1.source, p1.written, p1.reason) == (cache.COMPUTED, True, "cache miss: no entry")
    assert (p2.source, p2.reason) == (cache.CACHE, "")
    assert p1.entry_sha256 == p2.entry_sha256 and p1.code_fingerprint == p2.code_fingerprint == cache.code_fingerprint()
    assert second == first and cache.sheet_json(second) == cache.sheet_json(first)
    assert entry_file().is_relative_to(Path(os.environ["XDG_CACHE_HOME"]) / "certify" / "par-sheets")


@pytest.mark.parametrize("name", spec_names())
def test_cached_and_recomputed_real_sheets_are_byte_identical_in_json(name, golden_sheet):
    # the golden sheets are the code's own output (checked in the slow tier): every family's real
    # sheet -- strategy tables, 10^24 cycles, Fractions -- goes through the cache unchanged
    spec = load_spec(name)
    computed, _ = cache.load_or_compute(spec, compute=lambda s: golden_sheet(name))
    cached, provenance = cache.load_or_compute(spec, compute=Counting())
    assert provenance.source == cache.CACHE
    assert cache.sheet_json(cached) == cache.sheet_json(computed) == cache.sheet_json(golden_sheet(name))
    assert cached == computed


def test_an_entry_edited_by_hand_is_detected_and_recomputed():
    spec, compute = load_spec("caribbean_stud"), Counting()
    cache.load_or_compute(spec, compute=compute)
    path = entry_file()
    original = path.read_bytes()
    edited = original.replace(b'"1/4"', b'"1/5"', 1)  # the royal's probability, still valid JSON
    assert edited != original
    path.write_bytes(edited)
    sheet, provenance = cache.load_or_compute(spec, compute=compute)
    assert compute.calls == 2 and provenance.source == cache.COMPUTED
    assert provenance.reason == "cache miss: digest mismatch: edited or corrupt"
    assert path.read_bytes() == original  # rewritten
    assert cache.load_or_compute(spec, compute=compute)[1].source == cache.CACHE


def test_an_edit_with_a_recomputed_digest_is_still_refused_when_the_sheet_disagrees():
    spec, compute = load_spec("caribbean_stud"), Counting()
    cache.load_or_compute(spec, compute=compute)
    path = entry_file()
    entry = json.loads(path.read_bytes())
    entry["payload"]["sheet"] = cache.encode(toy_sheet(load_spec("casino_stud")))  # another game's sheet
    entry["sha256"] = cache.sha256_hex(cache.canonical(entry["payload"]))
    path.write_bytes(cache._file_form(entry))
    _, provenance = cache.load_or_compute(spec, compute=compute)
    assert compute.calls == 2 and "JSON differs from the recorded digest" in provenance.reason


def test_a_planted_entry_of_another_spec_with_a_valid_digest_is_not_used(tmp_path):
    # an attacker (or a copy) puts a genuine, well-formed entry for spec B at spec A's file name
    a, b, compute = load_spec("caribbean_stud"), load_spec("casino_stud"), Counting()
    cache.load_or_compute(b, compute=compute)
    planted = entry_file().read_bytes()
    path_a = cache.entry_path(cache.EntryKey.of(a))
    path_a.write_bytes(planted)
    sheet, provenance = cache.load_or_compute(a, compute=compute)
    assert compute.calls == 2 and provenance.source == cache.COMPUTED
    assert provenance.reason == "cache miss: stale: computed for another spec"
    assert sheet.spec == "caribbean_stud" and path_a.read_bytes() != planted


def test_a_spec_changed_by_one_pay_line_misses_the_cache(tmp_path):
    original, richer = load_spec("caribbean_stud"), one_pay_line_changed(tmp_path)
    assert original.name == richer.name
    compute = Counting()
    cache.load_or_compute(original, compute=compute)
    _, provenance = cache.load_or_compute(richer, compute=compute)
    assert compute.calls == 2 and provenance.reason == "cache miss: no entry"
    assert cache.EntryKey.of(original).spec_sha256 != provenance.spec_sha256
    # and its entry, put in the place of the original's, is refused as another spec's
    cache.entry_path(cache.EntryKey.of(original)).write_bytes(cache.entry_path(cache.EntryKey.of(richer)).read_bytes())
    assert cache.load_or_compute(original, compute=compute)[1].reason == "cache miss: stale: computed for another spec"


def test_other_code_misses_and_an_entry_of_other_code_is_stale(monkeypatch):
    spec, compute = load_spec("caribbean_stud"), Counting()
    cache.load_or_compute(spec, compute=compute)
    old = entry_file()
    monkeypatch.setattr(cache, "code_fingerprint", lambda: "f" * 64)
    _, provenance = cache.load_or_compute(spec, compute=compute)
    assert compute.calls == 2 and provenance.reason == "cache miss: no entry"
    cache.entry_path(cache.EntryKey.of(spec)).write_bytes(old.read_bytes())  # the old code's entry, moved
    _, provenance = cache.load_or_compute(spec, compute=compute)
    assert compute.calls == 3 and provenance.reason == "cache miss: stale: computed for another code fingerprint"


def _other_digest(entry: bytes) -> bytes:
    """The entry with one hex digit of its own digest changed."""
    i = entry.rindex(b'"sha256":"') + len(b'"sha256":"')
    return entry[:i] + (b"0" if entry[i:i + 1] != b"0" else b"1") + entry[i + 1:]


@pytest.mark.parametrize("damage,reason", [
    (lambda b: b[: len(b) // 2], "not JSON"),
    (lambda b: b[:-2], "not JSON"),
    (lambda b: b"", "not JSON"),
    (lambda b: bytes(range(256)) * 4, "not JSON"),
    (lambda b: b"[1, 2, 3]\n", "not a cache entry"),
    (lambda b: b.replace(b"\n", b"\n ", 3), "not in canonical form"),
    (lambda b: _other_digest(b), "digest mismatch"),
])
def test_a_truncated_garbage_or_reformatted_entry_is_recomputed(damage, reason):
    spec, compute = load_spec("caribbean_stud"), Counting()
    cache.load_or_compute(spec, compute=compute)
    path = entry_file()
    original = path.read_bytes()
    path.write_bytes(damage(original))
    _, provenance = cache.load_or_compute(spec, compute=compute)
    assert compute.calls == 2 and reason in provenance.reason
    assert path.read_bytes() == original


def test_an_oversized_entry_is_not_read_whole(monkeypatch):
    spec, compute = load_spec("caribbean_stud"), Counting()
    cache.load_or_compute(spec, compute=compute)
    monkeypatch.setattr(cache, "MAX_ENTRY_BYTES", 1000)
    _, provenance = cache.load_or_compute(spec, compute=compute)
    assert compute.calls == 2 and "larger than 1,000 bytes" in provenance.reason


def test_an_entry_that_is_a_symlink_is_refused(tmp_path):
    spec, compute = load_spec("caribbean_stud"), Counting()
    cache.load_or_compute(spec, compute=compute)
    path = entry_file()
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(elsewhere)
    _, provenance = cache.load_or_compute(spec, compute=compute)
    assert compute.calls == 2 and provenance.reason == "cache miss: no entry"


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_an_entry_others_can_write_is_refused():
    spec, compute = load_spec("caribbean_stud"), Counting()
    cache.load_or_compute(spec, compute=compute)
    entry_file().chmod(0o666)
    _, provenance = cache.load_or_compute(spec, compute=compute)
    assert compute.calls == 2 and provenance.reason == "cache miss: owned by another user or writable by others"
    assert entry_file().stat().st_mode & 0o777 == 0o644  # rewritten by the atomic writer


def test_a_cache_that_cannot_be_written_is_no_error(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    sheet, provenance = cache.load_or_compute(load_spec("caribbean_stud"), compute=Counting())
    assert provenance.source == cache.COMPUTED and not provenance.written
    assert "not stored" in provenance.describe()


def test_no_cache_recomputes_and_stores_the_fresh_sheet():
    spec, compute = load_spec("caribbean_stud"), Counting()
    cache.load_or_compute(spec, compute=compute)
    _, provenance = cache.load_or_compute(spec, use_cache=False, compute=compute)
    assert compute.calls == 2 and (provenance.source, provenance.reason) == (cache.COMPUTED, "--no-cache")


def test_analyze_reads_the_cache_and_no_cache_recomputes_with_the_same_json(tmp_path, monkeypatch):
    from certify.cli import cli

    compute = Counting()
    monkeypatch.setattr(certify.analysis, "par_sheet", compute)
    runner = CliRunner(mix_stderr=False) if "mix_stderr" in CliRunner.__init__.__code__.co_varnames else CliRunner()
    outputs = []
    for i, extra in enumerate(([], [], ["--no-cache"])):
        out = tmp_path / f"{i}.json"
        result = runner.invoke(cli, ["analyze", "caribbean_stud", "--json", str(out)] + extra)
        assert result.exit_code == 0, result.output
        outputs.append((out.read_bytes(), result.stdout.replace(str(out), "OUT"), result.stderr))
    assert compute.calls == 2  # first run and --no-cache; the second read the cache
    assert outputs[0][0] == outputs[1][0] == outputs[2][0] == cache.sheet_json(toy_sheet(load_spec("caribbean_stud")))
    assert outputs[0][1] == outputs[1][1] == outputs[2][1]
    assert "computed (cache miss: no entry)" in outputs[0][2]
    assert "from the cache" in outputs[1][2] and "computed (--no-cache)" in outputs[2][2]


def _run_par_only(tmp_path, monkeypatch, profile, use_cache=True, simulation=None):
    """``certify.run.run`` with only the PAR sheet part real (others reported not run; ``simulation``
    replaces the simulation part if given)."""
    from certify import run as run_module
    from certify.signing import load_signing_key

    def missing(*args, **kwargs):
        raise run_module.PartMissing("not in this test")

    monkeypatch.setattr(run_module, "rng_and_shuffle_sections", missing)
    monkeypatch.setattr(run_module, "simulation_section", simulation or missing)
    monkeypatch.setattr(run_module, "procedures_section", missing)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    outcome = run_module.run("casino_stud", profile, seed=1, out_dir=tmp_path / profile,
                             signing_key=load_signing_key(None), use_cache=use_cache)
    return json.loads(outcome["paths"]["json"].read_bytes()), outcome["paths"]["pdf"].read_bytes()


def test_run_states_the_source_quick_reads_the_cache_and_lab_always_recomputes(tmp_path, monkeypatch):
    compute = Counting()
    monkeypatch.setattr(certify.analysis, "par_sheet", compute)
    first, _ = _run_par_only(tmp_path / "a", monkeypatch, "quick")
    cached, pdf = _run_par_only(tmp_path / "b", monkeypatch, "quick")
    lab, _ = _run_par_only(tmp_path / "c", monkeypatch, "lab")
    no_cache, _ = _run_par_only(tmp_path / "d", monkeypatch, "quick", use_cache=False)
    assert compute.calls == 3  # the first quick run, lab (with a valid entry present), --no-cache
    provenance = [r["sections"]["par_sheet"]["provenance"] for r in (first, cached, lab, no_cache)]
    assert [p["source"] for p in provenance] == ["computed", "cache", "computed", "computed"]
    assert provenance[2]["reason"] == "lab profile: the sheet and its tables are always computed"
    assert provenance[3]["reason"] == "--no-cache"
    assert len({p["entry_sha256"] for p in provenance}) == 1  # the same sheet, the same entry
    fingerprint = provenance[1]["code_fingerprint"]
    from certify.report.model import software_fingerprint
    assert fingerprint == software_fingerprint([r for r in cached["software"] if r["role"] == "source"])
    assert cached["sections"]["par_sheet"]["wagers"] == first["sections"]["par_sheet"]["wagers"]


def test_the_report_states_the_source_and_refuses_another_codes_sheet():
    from dataclasses import replace

    from certify.report import ReportDataError, build_content
    from certify.report.pdf import _par_provenance
    from test_report_model import sample_input

    data = sample_input()
    source_rows = [r for r in data.software if r.get("role", "source") == "source"]
    from certify.report.model import software_fingerprint
    ours = software_fingerprint([{"path": r["path"], "sha256": r["sha256"]} for r in source_rows])
    provenance = {"source": "cache", "entry_sha256": "a" * 64, "spec_sha256": "b" * 64,
                  "code_fingerprint": ours, "reason": ""}
    content = build_content(replace(data, par_sheet=dict(data.par_sheet, provenance=provenance)))
    assert content["sections"]["par_sheet"]["provenance"] == provenance
    assert "provenance" not in content["sections"]["par_sheet"]["extra"]
    text = " ".join(getattr(f, "text", "") for f in _par_provenance(provenance))
    assert "Read from the PAR-sheet cache" in text
    with pytest.raises(ReportDataError, match="par_sheet.provenance.code_fingerprint"):
        build_content(replace(data, par_sheet=dict(data.par_sheet, provenance=dict(provenance,
                                                                                    code_fingerprint="c" * 64))))
    with pytest.raises(ReportDataError, match="par_sheet.provenance.source"):
        build_content(replace(data, par_sheet=dict(data.par_sheet, provenance=dict(provenance, source="disk"))))
    with pytest.raises(ReportDataError, match="par_sheet.provenance.entry_sha256"):
        build_content(replace(data, par_sheet=dict(data.par_sheet, provenance=dict(provenance, entry_sha256="x"))))


def test_a_stale_golden_sheet_is_refused_with_how_to_regenerate(tmp_path):
    data = yaml.safe_load((SPECS_DIR / "casino_stud.yaml").read_text())
    data["title"] = data["title"] + " (changed)"
    changed = tmp_path / "casino_stud.yaml"
    changed.write_text(yaml.safe_dump(data))
    with pytest.raises(cache.CacheEntryError, match="stale.*--golden casino_stud"):
        cache.read_golden(load_spec(changed))


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_a_golden_sheet_of_a_group_writable_checkout_is_read_and_an_edited_one_refused(tmp_path):
    # a checkout made with umask 002 has group-writable files: the owner and mode checks are the
    # user cache's; a golden fixture is still checked by its digest and key
    spec = load_spec("casino_stud")
    data = cache.golden_path("casino_stud").read_bytes()
    golden = tmp_path / "casino_stud.json"
    golden.write_bytes(data)
    golden.chmod(0o664)
    assert cache.read_golden(spec, tmp_path) == cache.read_golden(spec)
    golden.write_bytes(data.replace(b"\"main game\"", b"\"main gamE\"", 1))  # an edited row name
    with pytest.raises(cache.CacheEntryError, match="digest mismatch.*--golden casino_stud"):
        cache.read_golden(spec, tmp_path)
    golden.write_bytes(data[:-1] + b" \n")  # the same JSON, not as written
    with pytest.raises(cache.CacheEntryError, match="canonical form.*--golden casino_stud"):
        cache.read_golden(spec, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("name", spec_names())
def test_golden_sheet_is_the_codes_own_output(name):
    # the default tier uses these sheets in place of minutes of computation; here each is
    # recomputed (never from a cache) and must be the same sheet, byte for byte in JSON
    from certify.rules.analysis import par_sheet

    spec = load_spec(name)
    golden = cache.read_golden(spec)  # present and intact, or this fails
    computed = par_sheet(spec)
    assert cache.sheet_json(computed) == cache.sheet_json(golden)
    assert computed == golden
    assert cache.encode(computed) == cache.encode(golden)
