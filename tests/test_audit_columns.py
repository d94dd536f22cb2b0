"""Columnar (Parquet) round logs: the fast path gives the JSON Lines path's audit, finding for
finding, on fair and faulty rounds; bad columnar input is exit 2 naming file:row: column."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

pytest.importorskip("pyarrow")

from certify.audit.audit import audit  # noqa: E402
from certify.audit.columns import write_columns  # noqa: E402
from certify.audit.log import LogError  # noqa: E402
from certify.spec import load_spec  # noqa: E402


@pytest.fixture(autouse=True)
def _golden_par(golden_sheet, monkeypatch):
    from certify.analysis import cache

    monkeypatch.setattr(cache, "load_or_compute", lambda spec, use_cache=True, **_: (golden_sheet(spec.name), None))


ROOT = Path(__file__).resolve().parents[1]


def stud():
    """Caribbean Stud: the columnar fast path settles any game of the one-decision shape."""
    return load_spec("caribbean_stud")


def fair(rounds: int = 1500, seed: int = 4) -> list[dict]:
    from certify.audit import sample

    return list(sample.records(stud(), rounds, seed, side_rate=0.5))


def both(tmp_path: Path, recs: list[dict]) -> tuple[dict, dict]:
    jsonl, parquet = tmp_path / "log.jsonl", tmp_path / "log.parquet"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in recs))
    write_columns(recs, parquet, row_group=500)      # several batches: state carried across them
    spec = stud()
    return audit([jsonl], spec), audit([parquet], spec)


def same(a: dict, b: dict) -> None:
    def plain(r):
        text = json.dumps({k: v for k, v in r.items() if not k.startswith("_") and k not in ("timing", "files")},
                          default=str)
        return json.loads(text.replace("log.parquet", "LOG").replace("log.jsonl", "LOG"))
    A, B = plain(a), plain(b)
    assert A.keys() == B.keys()
    for key in A:
        assert A[key] == B[key], key
    assert a["files"][0]["rounds"] == b["files"][0]["rounds"] and a["files"][0]["period"] == b["files"][0]["period"]


def _deal(record: dict, to) -> dict:
    return next(a for a in record["actions"] if a["type"] == "deal" and a["to"] == to)


def test_a_fair_log_gives_the_same_audit_in_both_formats(tmp_path):
    recs = fair()
    for r in recs[700:900]:
        r["strategy"] = "free"          # free play mixed in
    a, b = both(tmp_path, recs)
    assert a["verdict"] == "PASS"
    same(a, b)


def test_faulty_rounds_give_the_same_findings_in_both_formats(tmp_path):
    """A mis-pay, a card dealt twice, a missing round, time going back, a decision against the
    declared strategy, four cards to the dealer settled as played, a wrong outcome: the same
    findings, counts, texts, rounds and rows, the same verdict."""
    recs = fair()
    paid = next(r for r in recs[100:] if any(e["wager"] == "bet" and Decimal(e["net"]) > 0 for e in r["settlement"]))
    entry = next(e for e in paid["settlement"] if e["wager"] == "bet")
    entry["net"] = str(Decimal(entry["net"]) + 1)
    _deal(recs[200], "dealer")["cards"][0] = _deal(recs[200], 1)["cards"][0]
    recs[500]["time"] = recs[10]["time"]
    decision = next(a for a in recs[600]["actions"] if a["type"] == "decision")
    decision["action"] = "fold" if decision["action"] == "bet" else "bet"
    _deal(recs[700], "dealer")["cards"].pop()
    recs[800]["outcome"] = "misdeal"
    del recs[400]
    a, b = both(tmp_path, recs)
    assert a["verdict"] == "FAIL" and a["findings"]["integrity"]["count"] == 3
    assert a["findings"]["rules"]["count"] >= 3 and a["findings"]["decisions"]["count"] == 1
    same(a, b)


def test_the_pass_split_over_processes_is_the_one_process_pass(tmp_path):
    """Row groups split over 2 and 3 processes (``jobs``): the same findings (texts, rows, order),
    tallies, tests and verdict as one process, on a faulty log with free play mixed in; a time
    going back at the first row of a later run (the split cannot judge it alone: that run is
    audited again in order), and bad input in a later run is the same exit-2 message."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    spec, recs = stud(), fair(3000, seed=6)
    for r in recs[1000:1300]:
        r["strategy"] = "free"
    paid = next(r for r in recs[2100:] if any(e["wager"] == "bet" and Decimal(e["net"]) > 0 for e in r["settlement"]))
    entry = next(e for e in paid["settlement"] if e["wager"] == "bet")
    entry["net"] = str(Decimal(entry["net"]) + 1)
    _deal(recs[2600], "dealer")["cards"][0] = _deal(recs[2600], 1)["cards"][0]
    del recs[2800]
    path = tmp_path / "log.parquet"
    write_columns(recs, path, row_group=250)        # 12 row groups: runs of 6, or 4
    one = audit([path], spec, jobs=1)
    assert one["verdict"] == "FAIL" and one["findings"]["integrity"]["count"] == 2
    for jobs in (2, 3):
        split = audit([path], spec, jobs=jobs)
        assert split["timing"]["column_jobs"] == jobs
        same(one, split)
        assert one["files"] == split["files"]
    recs[1500]["time"] = recs[1400]["time"]           # the first row of the second of 2 runs
    write_columns(recs, path, row_group=250)
    one, split = audit([path], spec, jobs=1), audit([path], spec, jobs=2)
    assert any("time goes backwards" in f["what"] and f["round"] == 1501 for f in one["findings"]["integrity"]["first"])
    same(one, split)
    table = pq.read_table(path)
    versions = table.column("spec_version").to_pylist()
    versions[2700] = "9.9"
    pq.write_table(table.set_column(table.schema.get_field_index("spec_version"), "spec_version",
                                    pa.array(versions)), path, row_group_size=250)
    for jobs in (1, 2):
        with pytest.raises(LogError, match=r"log.parquet:2701: spec.version: caribbean_stud version '9.9'"):
            audit([path], spec, jobs=jobs)


def test_a_code_that_is_no_card_is_an_integrity_finding(tmp_path):
    recs = fair(300)
    _deal(recs[50], 1)["cards"][2] = "Xx"            # written as code 255
    _, b = both(tmp_path, recs)
    found = b["findings"]["integrity"]["first"]
    assert len(found) == 1 and found[0]["round"] == 51 and "card not in the deck" in found[0]["what"]
    assert "log.parquet:51: actions[" in found[0]["where"] and found[0]["where"].endswith("].cards[2]")


def test_bad_columnar_input_names_file_row_and_column(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    spec = stud()
    path = tmp_path / "log.parquet"
    write_columns(fair(300), path)
    table = pq.read_table(path)
    versions = table.column("spec_version").to_pylist()
    versions[120] = "9.9"
    pq.write_table(table.set_column(table.schema.get_field_index("spec_version"), "spec_version",
                                    pa.array(versions)), path)
    with pytest.raises(LogError, match=r"log.parquet:121: spec.version: caribbean_stud version '9.9'"):
        audit([path], spec)
    pq.write_table(table.drop_columns(["outcome"]), path)
    with pytest.raises(LogError, match=r"log.parquet: outcome: required column is missing"):
        audit([path], spec)
    rounds = table.column("round").to_pylist()
    rounds[7] = None
    pq.write_table(table.set_column(0, "round", pa.array(rounds, pa.int64())), path)
    with pytest.raises(LogError, match=r"log.parquet:8: round: required value is missing"):
        audit([path], spec)
    path.write_bytes(b"PAR1" + b"\0" * 100)
    with pytest.raises(LogError, match="not a readable Parquet log"):
        audit([path], spec)


@pytest.mark.slow
def test_one_card_dealt_twice_in_a_million_rounds_is_caught(tmp_path):
    """Issue 12's control: a log of 1,000,000 Caribbean Stud rounds (columnar, fair, spec strategy)
    in which round 654,321 deals the player's first card to the dealer too: exactly one integrity
    finding, naming that round and its row; nothing else is found."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from certify.audit.sample import write_bulk_columns

    spec = stud()
    fair_log, path = tmp_path / "fair.parquet", tmp_path / "log.parquet"
    write_bulk_columns(fair_log, spec, 1_000_000, seed=12)
    table = pq.read_table(fair_log)
    row = 654_320
    dealer = table.column("dealer_cards").to_pylist()
    dealer[row][0] = table.column("player_cards")[row][0].as_py()
    index = table.schema.get_field_index("dealer_cards")
    table = table.set_column(index, "dealer_cards", pa.array(dealer, pa.list_(pa.uint8())))
    pq.write_table(table.replace_schema_metadata(pq.read_schema(fair_log).metadata), path)
    result = audit([path], spec)
    found = result["findings"]["integrity"]
    assert found["count"] == 1 and found["first"][0]["round"] == 654_321
    assert "dealt twice in one round" in found["first"][0]["what"]
    assert found["first"][0]["where"].startswith(f"{path}:654321: ")
    assert result["findings"]["rules"]["count"] == 0 and result["verdict"] == "FAIL" and result["rounds"] == 10**6


def test_a_later_run_whose_first_batch_has_no_valid_row_samples_as_one_pass(tmp_path):
    """The battery's sample is taken in the order one process takes it even when the first batch of
    a later run (``jobs`` 2) has no row of the fast path (every row a wrong card count, of two
    first-deal sizes) and the run before ended with such rows pending: the same rows, in the same
    order, when the sample fills up right there."""
    import numpy as np

    from certify.audit.audit import Auditor
    from certify.audit.columns import read_columns
    from certify.audit.log import LogFile

    spec, recs = stud(), fair(1000, seed=8)
    for i in list(range(480, 500, 2)) + list(range(500, 750)):     # rows of 9 and 8 cards dealt first
        _deal(recs[i], "dealer")["cards"].pop()
        if i % 3 == 0:
            _deal(recs[i], 1)["cards"].pop()
    path = tmp_path / "log.parquet"
    write_columns(recs, path, row_group=250)        # 4 row groups: runs 0-1 and 2-3
    valid_before = 480 + 10
    samples = {}
    for jobs in (1, 2):
        auditor = Auditor(spec, None, 0.01, sample=valid_before + 10 + 40)     # full inside the second run
        read_columns(path, spec, auditor, LogFile(str(path)), batch_rows=250, jobs=jobs)
        auditor.flush_cards()
        t = auditor.tally
        blocks = {size: iter(rows) for size, rows in t.sample.items()}
        samples[jobs] = [next(blocks[size]).tolist() for size in t.sample_order]
        assert t.sample_rows == valid_before + 10 + 40
    assert samples[1] == samples[2]
    assert {len(b[0]) for b in samples[1]} == {10, 9, 8}
    one, split = audit([path], spec, jobs=1, sample=valid_before + 50), audit([path], spec, jobs=2, sample=valid_before + 50)
    same(one, split)
