"""Table entries of the PAR-sheet cache (``certify.analysis.cache.cached_tables``): the arrays a
bulk kernel needs beside the sheet (Ultimate Texas Hold'em's counts), read back only when every
check passes; an edited, truncated or other spec's entry is recomputed; ``no_reads`` (--no-cache,
the lab profile) never reads one. Every test has its own empty cache folder (tests/conftest.py)."""

from __future__ import annotations

import numpy as np
import pytest

from certify.analysis import cache
from certify.spec import load_spec
from spec_files import one_pay_line_changed


class Tables:
    """A compute function of toy tables (every stored dtype) that counts its calls."""

    def __init__(self):
        self.calls = 0

    def __call__(self):
        self.calls += 1
        arrays = {"choice": np.arange(-60, 60, dtype=np.int8).reshape(8, 15),
                  "cells": np.arange(24, dtype=np.int64).reshape(2, 3, 4) * (1 << 40),
                  "flags": np.array([True, False, True]), "small": np.array([7, -7], np.int16),
                  "rate": np.array([0.25, -1.5]), "empty": np.zeros((0, 5), np.int32)}
        return arrays, {"seconds": 1.5, "count": 10**30}


def entry() -> "cache.Path":
    files = list(cache.cache_dir().rglob("*.toy.bin"))
    assert len(files) == 1, files
    return files[0]


def test_a_hit_gives_the_same_arrays_and_values_without_computing():
    spec, compute = load_spec("casino_stud"), Tables()
    first = cache.cached_tables("toy", spec, compute)
    second = cache.cached_tables("toy", spec, compute)
    assert compute.calls == 1 and (first[2], second[2]) == (cache.COMPUTED, cache.CACHE)
    want, values = Tables()()
    assert second[1] == values
    for name, array in want.items():
        got = second[0][name]
        assert got.dtype == array.dtype and got.shape == array.shape and (got == array).all()
        assert got.flags.writeable  # as computed arrays are: the kernels compile for one array type
    key = cache.EntryKey.of(spec)
    assert entry().read_bytes() == cache.tables_bytes(*first[:2], key, "toy")


@pytest.mark.parametrize("damage", ["blob", "header", "truncate", "append", "digest"])
def test_an_entry_edited_by_hand_is_detected_and_recomputed(damage):
    spec, compute = load_spec("casino_stud"), Tables()
    cache.cached_tables("toy", spec, compute)
    path = entry()
    data = bytearray(path.read_bytes())
    end = data.index(b"\n")
    if damage == "blob":  # one table entry changed: the strategy a kernel would play
        data[end + 1 + 5] ^= 1
    elif damage == "header":  # a shape edited in the header (its digest left as it was)
        data[:end] = data[:end].replace(b"[8,15]", b"[15,8]", 1)
    elif damage == "truncate":
        data = data[:-3]
    elif damage == "append":
        data += b"\0"
    else:  # the header edited and its digest recomputed: the array digests still refuse it
        import json
        head = json.loads(data[:end])
        head["payload"]["arrays"][0][5] = "0" * 64
        head["sha256"] = cache.sha256_hex(cache.canonical(head["payload"]))
        data = bytearray(cache.canonical(head)) + data[end:]
    path.write_bytes(bytes(data))
    key = cache.EntryKey.of(spec)
    with pytest.raises(cache.CacheEntryError):
        cache.parse_tables(bytes(data), key, "toy")
    _, _, source = cache.cached_tables("toy", spec, compute)
    assert compute.calls == 2 and source == cache.COMPUTED
    assert cache.cached_tables("toy", spec, compute)[2] == cache.CACHE  # rewritten whole


def test_a_spec_changed_by_one_pay_line_misses_and_an_entry_of_another_kind_is_refused(tmp_path):
    original, richer = load_spec("caribbean_stud"), one_pay_line_changed(tmp_path)
    compute = Tables()
    cache.cached_tables("toy", original, compute)
    assert cache.cached_tables("toy", richer, compute)[2] == cache.COMPUTED and compute.calls == 2
    # the other spec's entry planted in the original's place is stale
    k0, k1 = cache.EntryKey.of(original), cache.EntryKey.of(richer)
    planted = cache.tables_path(k1, "toy").read_bytes()
    with pytest.raises(cache.CacheEntryError, match="stale"):
        cache.parse_tables(planted, k0, "toy")
    with pytest.raises(cache.CacheEntryError, match="kind"):
        cache.parse_tables(planted, k1, "other")


def test_no_reads_computes_and_a_recomputed_sheet_reads_no_table():
    spec, compute = load_spec("casino_stud"), Tables()
    cache.cached_tables("toy", spec, compute)
    with cache.no_reads("lab profile"):
        assert cache.reads_refused() == "lab profile"
        assert cache.cached_tables("toy", spec, compute)[2] == cache.COMPUTED
        _, provenance = cache.load_or_compute(spec, compute=lambda s: _toy_sheet(s))
        assert (provenance.source, provenance.reason) == (cache.COMPUTED, "lab profile")
    assert cache.reads_refused() == "" and compute.calls == 2
    seen = []

    def sheet_reading_tables(s):
        seen.append(cache.cached_tables("toy", s, compute)[2])
        return _toy_sheet(s)

    cache.load_or_compute(spec, use_cache=False, compute=sheet_reading_tables)
    assert seen == [cache.COMPUTED] and compute.calls == 3


def _toy_sheet(spec):
    from fractions import Fraction

    from certify.analysis.par import ParSheet, WagerSheet

    main = WagerSheet.from_combinations("main game", [("win", Fraction(1), 1, 1), ("lose", -1, 1, 1)])
    return ParSheet(game=spec.title, spec=spec.name, family="rules", wagers=(main,), frequencies={})


def _run_with_kernel_tables(tmp_path, monkeypatch, profile, compute):
    """``certify.run.run`` on casino_stud with its PAR sheet real and a simulation part whose kernel
    takes toy tables through ``cached_tables`` (as Ultimate Texas Hold'em's takes its counts); the
    other parts reported not run. Returns the report JSON and PDF bytes."""
    from certify import run as run_module
    from test_analysis_cache import _run_par_only

    def kernel_from_tables(spec_path, *args, **kwargs):
        cache.cached_tables("toy", load_spec(spec_path), compute)
        raise run_module.PartMissing("not in this test")

    return _run_par_only(tmp_path, monkeypatch, profile, simulation=kernel_from_tables)


def test_the_report_says_where_the_kernels_tables_came_from_and_lab_recomputes_them(tmp_path, monkeypatch,
                                                                                   golden_sheet):
    import certify.analysis

    monkeypatch.setattr(certify.analysis, "par_sheet", lambda s: golden_sheet(s.name))  # the sheet is not at stake
    compute = Tables()
    first, _ = _run_with_kernel_tables(tmp_path / "a", monkeypatch, "quick", compute)
    warm, pdf = _run_with_kernel_tables(tmp_path / "b", monkeypatch, "quick", compute)
    lab, lab_pdf = _run_with_kernel_tables(tmp_path / "c", monkeypatch, "lab", compute)
    assert compute.calls == 2  # the first quick run and lab, though a valid entry was there
    tables = [r["sections"]["par_sheet"]["tables"] for r in (first, warm, lab)]
    assert [[t["kind"] for t in ts] for ts in tables] == [["toy"]] * 3
    (first_t,), (warm_t,), (lab_t,) = tables
    assert (first_t["source"], first_t["reason"]) == ("computed", "cache miss: no entry")
    assert (warm_t["source"], warm_t["reason"]) == ("cache", "")
    assert (lab_t["source"], lab_t["reason"]) == ("computed", "lab profile: the sheet and its tables are always computed")
    assert lab["sections"]["par_sheet"]["provenance"]["source"] == "computed"
    # the digest is the entry's: the one on disk, the same for the same tables however they came
    on_disk = cache.tables_digest(entry().read_bytes())
    assert first_t["entry_sha256"] == warm_t["entry_sha256"] == lab_t["entry_sha256"] == on_disk
    key = cache.EntryKey.of(load_spec("casino_stud"))
    assert warm_t["spec_sha256"] == key.spec_sha256 and warm_t["code_fingerprint"] == key.code_fingerprint
    # the PDF says it too
    from certify.report.verify import page_literals

    def text(document):
        return " ".join(b.decode("latin-1") for page in page_literals(document) for b in page)

    assert "Tables 'toy'" in text(pdf) and warm_t["entry_sha256"] in text(pdf).replace(" ", "")
    assert "lab profile: the sheet and its tables are always computed" in text(lab_pdf)


def test_a_spec_without_cached_tables_reports_none_and_another_codes_tables_are_refused(monkeypatch):
    from dataclasses import replace

    from certify.report import ReportDataError, build_content
    from certify.report.model import software_fingerprint
    from test_report_model import sample_input

    monkeypatch.setattr(cache, "_TABLES_USED", {})  # as in a fresh process
    assert cache.tables_used(load_spec("caribbean_stud")) == []
    cache.cached_tables("toy", load_spec("casino_stud"), Tables())
    assert cache.tables_used(load_spec("caribbean_stud")) == []  # another spec's tables are not this one's
    assert [t.kind for t in cache.tables_used(load_spec("casino_stud"))] == ["toy"]
    data = sample_input()
    ours = software_fingerprint([{"path": r["path"], "sha256": r["sha256"]} for r in data.software
                                 if r.get("role", "source") == "source"])
    table = {"kind": "board-counts", "source": "cache", "entry_sha256": "a" * 64, "spec_sha256": "b" * 64,
             "code_fingerprint": ours, "reason": ""}
    content = build_content(replace(data, par_sheet=dict(data.par_sheet, tables=[table])))
    assert content["sections"]["par_sheet"]["tables"] == [table]
    assert "tables" not in content["sections"]["par_sheet"]["extra"]
    with pytest.raises(ReportDataError, match=r"par_sheet.tables\[0\].code_fingerprint"):
        build_content(replace(data, par_sheet=dict(data.par_sheet, tables=[dict(table, code_fingerprint="c" * 64)])))
    with pytest.raises(ReportDataError, match=r"par_sheet.tables\[0\].source"):
        build_content(replace(data, par_sheet=dict(data.par_sheet, tables=[dict(table, source="disk")])))
    with pytest.raises(ReportDataError, match=r"par_sheet.tables\[0\].kind"):
        build_content(replace(data, par_sheet=dict(data.par_sheet, tables=[dict(table, kind="../x")])))
