"""The batteries as one call: plain data, the family verdict, profiles and the second level."""

import json
import time

import numpy as np
import pytest

from certify.stats import battery
from certify.stats.sp800_22 import TEST_NAMES
from rng import sources, streams


@pytest.fixture(scope="module")
def drbg_quick():
    # the `quick` profile at its default sizes, fixed seed: the certified DRBG must pass
    return battery.run_battery(streams.stream(2026, 10), "quick")


def test_certified_drbg_passes_the_quick_profile(drbg_quick):
    assert drbg_quick["passed"] and drbg_quick["failing"] == []
    assert list(drbg_quick["sp800_22"]) == list(TEST_NAMES)
    assert set(drbg_quick["cards"]) == {name for name, _ in battery.CARD_TESTS} | {"Permutations4", "Permutations5"}
    json.dumps(drbg_quick, allow_nan=False)  # plain data


def test_every_applicable_test_is_a_family_member(drbg_quick):
    members = {m["name"] for m in drbg_quick["family"]["members"]}
    for name, entry in drbg_quick["sp800_22"].items():
        assert (f"SP800-22/{name}" in members) == (entry["member_pvalue"] is not None)
    assert {f"cards/{n}" for n in drbg_quick["cards"]} <= members
    assert {f"draws/{n}" for n in drbg_quick["draws"]} == {"draws/DrawFrequency", "draws/DrawPairs", "draws/DrawGaps"}


def test_summary_rows_cover_every_test(drbg_quick):
    rows = battery.summary_rows(drbg_quick)
    assert len(rows) == len(drbg_quick["sp800_22"]) + len(drbg_quick["cards"]) + len(drbg_quick["draws"])
    assert {r["battery"] for r in rows} == {"SP 800-22", "cards", "draws"}
    assert {r["verdict"] for r in rows} <= {"pass", "n/a"}


@pytest.mark.parametrize("make,expected", [
    (lambda: sources.StuckBit(streams.stream(5, 0), bit=7, value=0), "SP800-22/Frequency"),
    (lambda: sources.WeakLcg(9), "cards/RepeatedDeals"),
    (lambda: sources.Randu(77), "SP800-22/FFT"),
])
def test_bad_generators_fail_the_family_and_are_named(make, expected):
    result = battery.run_battery(make(), "quick", bits=200_000, decks=20_000, small_decks=20_000, draws=100_000)
    assert not result["passed"] and expected in result["failing"]
    message = battery.failure_message(result)
    assert expected in message and "adjusted p" in message


def test_deck_source_skips_the_bit_battery():
    result = battery.run_battery(sources.NaiveShuffle(streams.stream(6, 0)), "quick", decks=20_000, small_decks=20_000)
    assert result["sp800_22"] == {} and "gives no bits" in result["sp800_22_skipped"] and result["draws"] == {}
    assert not result["passed"] and "cards/CardPosition" in result["failing"]


def test_modulo_biased_scaling_fails_the_draw_tests():
    source = sources.ModuloBiasedDeal(streams.stream(6, 1), word_bits=8)
    result = battery.run_battery(source, "cards", decks=20_000, small_decks=20_000, draws=200_000)
    assert "draws/DrawFrequency" in result["failing"] and "cards/CardPosition" in result["failing"]


def test_second_level_over_many_sequences_reports_nist_uniformity():
    # 60 short sequences: enough for the 4.2.2 uniformity test (>= 55); the long tests are not applicable
    out = battery.sp800_22_battery(streams.stream(8, 0), 20_000, 60)
    frequency = out["Frequency"]
    assert len(frequency["pvalues"]) == 60 and frequency["applicable_sequences"] == 60
    level = frequency["second_level"][0]
    assert level["m"] == 60 and level["uniformity_pvalue"] is not None and level["nist_ok"]
    assert sum(level["histogram"]) == 60
    assert frequency["components"] == 3  # m x min p, binomial tail, uniformity
    assert out["Universal"]["member_pvalue"] is None  # not applicable to 20,000 bits


def test_profiles_and_overrides():
    assert battery.resolve_profile("lab").sequences == 100
    assert battery.resolve_profile("quick", decks=5).decks == 5
    with pytest.raises(ValueError, match="unknown profile 'x'"):
        battery.resolve_profile("x")
    with pytest.raises(ValueError, match="multiple of 8"):
        battery.resolve_profile("quick", bits=1001)
    with pytest.raises(ValueError, match="non-negative integer"):
        battery.resolve_profile("quick", decks=-1)


def test_json_is_written_atomically(tmp_path):
    target = tmp_path / "out.json"
    battery.write_json_atomic(target, {"x": float("inf"), "y": np.int64(3)})
    assert json.loads(target.read_text()) == {"x": "inf", "y": 3}
    with pytest.raises(TypeError):
        battery.write_json_atomic(target, {"bad": object()})
    assert json.loads(target.read_text()) == {"x": "inf", "y": 3}  # the old file survives
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]  # no temporary left behind


def test_two_threads_give_the_same_results_as_one(monkeypatch):
    # 2 x 1,000,000 bits: enough for two threads to be used (PARALLEL_MIN_BITS), even on one CPU
    monkeypatch.setattr(battery.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert battery.sequence_workers(2, 2, 1_000_000) == 2
    assert battery.sequence_workers(2, 1, 1_000_000) == battery.sequence_workers(2, 2, 999_992) == 1
    assert battery.sequence_workers(8, 100, 1_000_000) == 2  # never more threads than CPUs
    one = battery.sp800_22_battery(streams.stream(12, 0), 1_000_000, 2, jobs=1)
    two = battery.sp800_22_battery(streams.stream(12, 0), 1_000_000, 2, jobs=2)
    assert one == two


@pytest.mark.slow
def test_certified_drbg_passes_the_lab_profile():
    # 100 x 1,000,000 bits (4.2.2 uniformity applies), 1,000,000 deals, 10,000,000 draws; about a minute on 2 cores
    result = battery.run_battery(battery.drbg_source("drbg:ctr", 1), "lab", jobs=2)
    assert result["passed"], battery.failure_message(result)
    frequency = result["sp800_22"]["Frequency"]["second_level"][0]
    assert frequency["m"] == 100 and frequency["uniformity_pvalue"] is not None


def test_an_error_in_one_thread_stops_the_battery(monkeypatch):
    calls = []

    def failing(packed, n_bits, alpha, reference="exact"):
        calls.append(1)
        time.sleep(0.05)  # 50 sequences on 2 threads would take 1.25 s if none were cancelled
        raise ArithmeticError("p-value is NaN")

    monkeypatch.setattr(battery, "_run_sequence", failing)
    monkeypatch.setattr(battery.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    with pytest.raises(ArithmeticError, match="NaN"):
        battery.sp800_22_battery(streams.stream(12, 0), 1_000_000, 50, jobs=2)
    assert len(calls) < 50  # the sequences not started were cancelled, not run
