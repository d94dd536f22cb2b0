"""Fail closed (issue 13, classes 1, 2, 7 and 8): one test per class, each trying every member of
the class it can enumerate (every numeric option of every command, every numeric field of every
spec family, every amount of a fixture, every error class of the package), not one example."""

from __future__ import annotations

import importlib
import inspect
import math
import pkgutil
from decimal import Decimal
from pathlib import Path

import click
import numpy as np
import pytest
import yaml
from click.testing import CliRunner

import certify
from certify import errors, validate
from certify.cli import cli
from certify.stats.multiple import confirm, holm
from certify.stats.result import TestResult, passes
from spec_files import dump_yaml, yaml_tree

ROOT = Path(__file__).resolve().parent.parent
BAD_NUMBERS = ["nan", "inf", "-inf", "1e400", "-1e400", str(10**80)]  # 10^80 > 2^256, the largest seed


# ------------------------------------------------------------------ class 1: numbers that are not numbers


def _numeric_options():
    """(command path, option) for every option of every command whose type reads a number."""
    def walk(command, path):
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                yield from walk(sub, path + [name])
            return
        for param in command.params:
            if isinstance(param, click.Option) and not param.is_flag and isinstance(
                    param.type, (click.types.IntParamType, click.types.FloatParamType, click.ParamType)) \
                    and param.type.name in ("integer", "float", "number", "integer range", "float range"):
                yield path, param
    return list(walk(cli, []))


NUMERIC_OPTIONS = _numeric_options()


def test_every_numeric_option_uses_the_one_validator():
    """click's own FLOAT/FloatRange let NaN through (every comparison with NaN is false)."""
    assert len(NUMERIC_OPTIONS) >= 15
    for path, option in NUMERIC_OPTIONS:
        assert not isinstance(option.type, click.types.FloatParamType), (path, option.name)
        if isinstance(option.type, click.types.IntParamType):  # ints cannot be NaN; they must be bounded
            assert isinstance(option.type, click.IntRange) and option.type.max is not None, (path, option.name)


@pytest.mark.parametrize("value", BAD_NUMBERS)
@pytest.mark.parametrize("path,option", NUMERIC_OPTIONS,
                         ids=[f"{' '.join(p)} {o.opts[0]}" for p, o in NUMERIC_OPTIONS])
def test_every_numeric_option_refuses_non_numbers(path, option, value):
    args = [*path, "caribbean_stud"] if path[0] in ("analyze", "simulate", "run") else list(path)
    result = CliRunner().invoke(cli, [*args, f"{option.opts[0]}={value}"])
    assert result.exit_code == 2, (result.output, result.exception)
    assert option.opts[0] in result.output and "Traceback" not in result.output


def test_validator_names_the_field_and_the_range():
    for bad in (float("nan"), float("inf"), -float("inf"), Decimal("NaN"), Decimal("1e400"), True, "1", None):
        with pytest.raises(errors.InputError, match=r"--x: expected .*\(0, 1\)"):
            validate.check_number(bad, "--x", low=0, high=1, low_open=True, high_open=True)
    assert validate.check_alpha(0.05) == 0.05


def _numeric_leaves(node, path=()):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _numeric_leaves(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _numeric_leaves(v, path + (i,))
    elif isinstance(node, (int, float)) and not isinstance(node, bool) or \
            isinstance(node, str) and _is_number(node):
        yield path


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def _set(tree, path, value):
    for key in path[:-1]:
        tree = tree[key]
    tree[path[-1]] = value


def _spec_field_cases():
    cases = []
    for name in ("caribbean_stud", "five_card_mulligan", "texas_holdem_bonus"):
        data = yaml_tree(ROOT / "specs" / f"{name}.yaml")
        cases += [(name, path) for path in _numeric_leaves(data) if path != ("version",)]
    return cases


SPEC_FIELDS = _spec_field_cases()
BAD_SPEC_VALUES = ["nan", "inf", "-inf", "1e400", 10**17, "-1e400"]


@pytest.mark.parametrize("name,path", SPEC_FIELDS, ids=[f"{n}:{'.'.join(map(str, p))}" for n, p in SPEC_FIELDS])
def test_every_numeric_spec_field_refuses_non_numbers_and_out_of_range(tmp_path, name, path):
    from certify.spec import SpecError, load_spec

    index = SPEC_FIELDS.index((name, path))  # each field gets two of the bad values, in turn
    for bad in [BAD_SPEC_VALUES[index % 6], BAD_SPEC_VALUES[(index + 3) % 6]]:
        data = yaml_tree(ROOT / "specs" / f"{name}.yaml")
        _set(data, path, bad)
        target = tmp_path / f"{name}.yaml"
        target.write_text(dump_yaml(data, sort_keys=True))
        with pytest.raises(SpecError) as caught:
            load_spec(target)
        assert str(path[-1]) in str(caught.value) or ".".join(map(str, path[:-1])) in str(caught.value)


def test_every_fixture_amount_refuses_non_numbers(tmp_path):
    from certify.procedures import FixtureError, load_fixture

    data = yaml_tree(ROOT / "fixtures" / "procedures" / "caribbean_stud.yaml")
    paths, kinds = [], set()
    for path in _numeric_leaves(data):  # one of each kind of amount (list indices aside): wagers, nets, meter
        kind = tuple("*" if isinstance(k, int) else k for k in path)
        if kind not in kinds:
            kinds.add(kind)
            paths.append(path)
    assert len(paths) >= 5
    bad_values = ["nan", "inf", "1e400", "-1e400", "1.0000001"]
    for i, path in enumerate(paths):  # every amount, each with one of the bad values in turn
        for bad in [bad_values[i % len(bad_values)]]:
            changed = yaml_tree(ROOT / "fixtures" / "procedures" / "caribbean_stud.yaml")
            _set(changed, path, bad)
            target = tmp_path / "caribbean_stud.yaml"
            target.write_text(dump_yaml(changed, sort_keys=True))
            with pytest.raises(FixtureError):
                load_fixture(target)


@pytest.mark.parametrize("variable,value", [("SOURCE_DATE_EPOCH", v) for v in ("nan", "1e3", "-1", "99999999999999")]
                         + [("CERTIFY_CHECKPOINT_EVERY_S", v) for v in ("nan", "inf", "-1")])
def test_environment_numbers_are_checked(monkeypatch, variable, value):
    monkeypatch.setenv(variable, value)
    if variable == "SOURCE_DATE_EPOCH":
        with pytest.raises(errors.InputError, match=variable):
            validate.source_date_epoch()
    else:
        from certify import simulate as sim

        with pytest.raises(errors.InputError, match=variable):
            sim.simulate("caribbean_stud", 10, seed=1, chunk_rounds=10)


NAN = float("nan")


def test_a_nan_statistic_or_level_is_a_failure_everywhere():
    # the one verdict rule
    for p, alpha in [(NAN, 0.01), (0.5, NAN), (float("inf"), 0.01), (-0.1, 0.01), (0.5, 0.0), (None, 0.01), ("x", .1)]:
        assert passes(p, alpha) is False
    assert TestResult(name="t", statistic=NAN, pvalue=NAN, alpha=0.01, n=1).passed is False
    with pytest.raises(ValueError, match="contradicts"):
        TestResult(name="t", statistic=1.0, pvalue=NAN, alpha=0.01, n=1, passed=True)
    # the family verdict and its confirmation
    for members in ({"a": NAN, "b": 0.5}, {"a": 0.5, "b": float("inf")}, {"a": -1.0}):
        assert not holm(members, 0.01).passed
        assert not confirm(holm(members, 0.01), lambda names: ({n: NAN for n in names}, [])).passed
    with pytest.raises(errors.InputError):
        holm({"a": 0.5}, NAN)
    # the report's check refuses a pass on a NaN
    from certify.report.model import ReportDataError, normalise_test

    with pytest.raises(ReportDataError):
        normalise_test({"name": "t", "statistic": None, "pvalue": "nan", "alpha": 0.01, "passed": True}, "x")
    # the RTP rule
    from certify.stats.gof import mean_return_test

    assert not mean_return_test([5, 5], [1.0, -1.0], NAN, 1.0).passed


def test_compare_marks_a_nan_row_outside_and_refuses_nan_samples(tmp_path):
    from certify.analysis.compare import compare, read_published
    from certify.analysis.par import WagerSheet

    wager = WagerSheet.from_combinations("Bonus", [("win", 3, 1, 1), ("lose", -1, 3, 1)])
    table = tmp_path / "t.csv"
    table.write_text("event,probability\nwin,0.25\nlose,0.75\n")
    rows = read_published(table)
    for bad in (NAN, float("inf"), 0.5, 1e400):
        with pytest.raises(errors.InputError, match="published samples"):
            compare(wager, rows, bad)
    assert not any(r.outside for r in compare(wager, rows, 1000))
    result = CliRunner().invoke(cli, ["analyze", "caribbean_stud", "--compare", str(table), "--published-samples", "nan"])
    assert result.exit_code == 2 and "--published-samples" in result.output


def test_simulate_alpha_nan_no_longer_passes():
    result = CliRunner().invoke(cli, ["simulate", "caribbean_stud", "--fault", "naive-shuffle", "--alpha", "nan"])
    assert result.exit_code == 2 and "--alpha" in result.output


# ------------------------------------------------------------------ class 2: sizes that overflow


def _largest_pay_path(data):
    """The path of the largest numeric pay of a spec (the one that can wrap the tallies)."""
    best = None
    for path in _numeric_leaves(data):
        if any("pays" in str(k) or "odds" in str(k) for k in path):
            node = data
            for k in path:
                node = node[k]
            if best is None or float(node) > best[0]:
                best = (float(node), path)
    return best[1]


@pytest.mark.parametrize("name", ["caribbean_stud", "five_card_mulligan", "texas_holdem_bonus"])
def test_pays_the_64_bit_tallies_cannot_hold_are_refused_before_any_work(tmp_path, name):
    from certify.games.kernels import KernelError, kernel_for
    from certify.spec import SpecError, load_spec

    data = yaml_tree(ROOT / "specs" / f"{name}.yaml")
    path = _largest_pay_path(data)
    target = tmp_path / f"{name}.yaml"
    # inside the spec's range but beyond what MAX_ROUNDS rounds of int64 money can hold
    _set(data, path, validate.MAX_NET_UNITS + 2)
    target.write_text(dump_yaml(data, sort_keys=True))
    with pytest.raises(KernelError, match=r"64-bit integers over up to 1,000,000,000,000 rounds"):
        kernel_for(load_spec(target))
    _set(data, path, 100000000000000000)  # the issue's pay: refused by the spec's own bound
    target.write_text(dump_yaml(data, sort_keys=True))
    with pytest.raises(SpecError, match="1,000,000,000"):
        load_spec(target)
    # every net the kernels accept fits: |net| x MAX_ROUNDS <= 2^63 - 1
    for wager in kernel_for(load_spec(name)).wagers:
        assert int(np.abs(wager.scaled_nets).max()) * validate.MAX_ROUNDS <= validate.INT64_MAX


@pytest.mark.parametrize("args", [
    ["simulate", "caribbean_stud", f"--rounds={validate.MAX_ROUNDS + 1}"],
    ["simulate", "caribbean_stud", f"--chunk-rounds={validate.MAX_CHUNK_ROUNDS + 1}"],
    ["simulate", "caribbean_stud", f"--seed={2**256}"],
    ["rng", "--file", "x", "--format", "ints", "--low", "0", "--high", str(10**29)],
    ["rng", "--file", "x", "--format", "ints", "--low", "1e29", "--high", "2"],
    ["analyze", "caribbean_stud", "--meter", "1e400"],
])
def test_sizes_beyond_what_the_kernels_hold_are_refused(args):
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output


def test_run_refuses_a_bad_epoch_and_an_overflowing_spec_before_any_work(tmp_path, monkeypatch):
    import time

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "99999999999999")
    start = time.process_time()
    result = CliRunner().invoke(cli, ["run", "caribbean_stud", "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and "SOURCE_DATE_EPOCH" in result.output
    assert not (tmp_path / "out").exists()
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    data = yaml_tree(ROOT / "specs" / "caribbean_stud.yaml")
    _set(data, _largest_pay_path(data), 100_000_000)
    (tmp_path / "caribbean_stud.yaml").write_text(dump_yaml(data, sort_keys=True))
    result = CliRunner().invoke(cli, ["run", str(tmp_path / "caribbean_stud.yaml"), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and "64-bit" in result.output
    assert time.process_time() - start < 60  # refused up front, not after the batteries (minutes)


def test_draw_range_is_bounded(tmp_path):
    from certify.stats.draws import check_draws

    with pytest.raises(errors.InputError, match=r"values in the range \[0, 1099511627776\]: expected an integer in \[1, 16,777,216\]"):
        check_draws(np.zeros(3, dtype=np.int64), 0, 2**40)


# ------------------------------------------------------------------ class 7: one owner per verdict, one root error


def _error_classes():
    found = {}
    for info in pkgutil.walk_packages(certify.__path__, "certify."):
        if info.name.endswith(("pytest_plugin", "__main__")):
            continue
        module = importlib.import_module(info.name)
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if issubclass(obj, Exception) and obj.__module__ == info.name:
                found[f"{info.name}.{obj.__name__}"] = obj
    return found


ERRORS = _error_classes()
# caught where raised (an internal signal), or the CLI's own rendering of a mapped error
INTERNAL = {"certify.run.PartMissing", "certify.stats.multiple.Unconfirmable", "certify.signing._Invalid",
            "certify.cli._Refusal"}


def test_every_error_the_suite_raises_derives_from_the_root():
    assert len(ERRORS) >= 12
    strays = [name for name, cls in ERRORS.items() if name not in INTERNAL and not issubclass(cls, errors.CertifyError)]
    assert not strays


@pytest.mark.parametrize("exc,code", [
    (errors.InputError("bad field x"), 2), (errors.VerificationFailed("signature does not verify"), 1),
    (RuntimeError("boom\nsecond line"), 2), (OSError(28, "No space left on device", "reports/x.pdf"), 2),
    (ZeroDivisionError("division by zero"), 2), (MemoryError(), 2),
])
def test_every_error_maps_to_its_exit_code_in_one_place_without_a_traceback(monkeypatch, exc, code):
    import certify.cards

    def explode(*_a, **_k):
        raise exc

    monkeypatch.setattr(certify.cards, "parse_cards", explode)
    result = CliRunner().invoke(cli, ["hand", "AS", "KS", "QS", "JS", "TS"])
    assert result.exit_code == code
    assert "Traceback" not in result.output and result.output.startswith("Error: ")
    if not isinstance(exc, errors.CertifyError):
        assert len(result.output.strip().splitlines()) == 1
    debug = CliRunner().invoke(cli, ["--debug", "hand", "AS", "KS", "QS", "JS", "TS"])
    assert debug.exit_code == code and "Traceback" in debug.output


def test_every_statistical_verdict_is_decided_by_the_one_rule():
    # a test's stated verdict cannot contradict its p-value
    for p, stated in [(0.5, False), (0.001, True)]:
        with pytest.raises(ValueError, match="contradicts"):
            TestResult(name="t", statistic=None, pvalue=p, alpha=0.01, n=1, passed=stated)
    # an exact check states its own
    assert TestResult(name="kat", statistic=None, pvalue=None, alpha=0.0, n=1, passed=False).passed is False
    # the report refuses a contradiction instead of re-deciding it
    from certify.report.model import ReportDataError, normalise_test

    with pytest.raises(ReportDataError, match="passed"):
        normalise_test({"name": "t", "statistic": None, "pvalue": 0.5, "alpha": 0.01, "passed": False}, "x")


def test_the_rtp_rule_is_one_rule():
    """The test's p-value and the interval reading agree: the CI holds the expectation iff p >= alpha."""
    from certify.stats.gof import mean_return_test

    rng = np.random.default_rng(5)
    nets = np.array([-1.0, 1.0, 3.0])
    probs = np.array([0.55, 0.4, 0.05])
    mean, sd = float(probs @ nets), float(np.sqrt(probs @ nets**2 - (probs @ nets) ** 2))
    for shift in np.linspace(-0.02, 0.02, 41):
        counts = rng.multinomial(100_000, probs)
        t = mean_return_test(counts, nets, mean + shift, sd, alpha=0.01)
        inside = t.details["ci_low"] <= mean + shift <= t.details["ci_high"]
        assert inside == t.passed


def test_simulate_run_and_report_carry_the_statistics_layers_verdicts(golden_sheet):
    from certify import simulate as sim

    result = sim.simulate("casino_stud", 20 * 4096, seed=3, chunk_rounds=4096, fault="naive-shuffle")
    verification = sim.verify(result, golden_sheet("casino_stud"))
    for wager, rtp in verification.rtp.items():
        test = next(t for t in verification.tests if t.name == f"{wager}: RTP")
        assert rtp["passed"] is test.passed
    assert verification.passed is (verification.confirmation.passed and verification.exact_checks_pass)


# ------------------------------------------------------------------ class 8: a FAIL the user can act on


def test_confirmation_rule_stages_and_bound():
    stage1 = holm({"a": 1e-5, "b": 0.5, "c": 0.9}, 0.01)
    assert not stage1.passed and stage1.failing == ["a"]
    chance = confirm(stage1, lambda names: ({n: 0.4 for n in names}, []))
    assert chance.passed and chance.stage2.passed and chance.failing == []
    real = confirm(stage1, lambda names: ({n: 1e-6 for n in names}, []))
    assert not real.passed and real.failing == ["a"]
    assert passes(real.pvalue, 0.01) is real.passed and passes(chance.pvalue, 0.01) is chance.passed
    assert real.false_alarm_bound == pytest.approx(1e-4)

    from certify.stats.multiple import Unconfirmable

    def exhausted(_names):
        raise Unconfirmable("file read to its end")

    stands = confirm(stage1, exhausted)
    assert not stands.passed and "file read to its end" in stands.to_dict()["summary"]
    assert not confirm(stage1, None).passed


def test_confirmation_false_alarm_rate_is_at_most_alpha_squared():
    """Under the null (independent uniform p-values in both stages) the rule fails at most
    alpha^2 of the time; stage 1 alone fails about alpha of the time."""
    rng = np.random.default_rng(13)
    alpha, members, trials = 0.05, 10, 20_000
    fails1 = fails = 0
    for _ in range(trials):
        stage1 = holm({f"m{i}": p for i, p in enumerate(rng.random(members))}, alpha)
        fails1 += not stage1.passed
        verdict = confirm(stage1, lambda names: ({n: float(rng.random()) for n in names}, []))
        fails += not verdict.passed
    assert fails1 / trials <= alpha * 1.1
    assert fails / trials <= alpha**2 + 3 * math.sqrt(alpha**2 / trials)


def test_a_chance_failure_of_the_certified_drbg_is_not_confirmed():
    """A fair source that fails stage 1 by chance: the fresh data passes, and the result says so.
    (`certify rng --seed 4` is the issue's case: DrawGaps p = 4.9e-5 in stage 1, fresh data passes.
    Here a small draw battery keeps the test fast: seed 153 is the first of seeds 0.. whose stage 1
    fails, found by running this loop over the seeds.)"""
    from certify.stats import battery

    result = battery.run_battery(battery.drbg_source("drbg:ctr", 153), "cards", decks=0, draws=20_000, alpha=0.01)
    assert not result["family"]["passed"] and result["family"]["failing"] == ["draws/DrawGaps"]
    assert result["passed"] and result["failing"] == []
    confirmation = result["confirmation"]
    assert confirmation["stage2"]["passed"] and confirmation["retested"][0]["member"] == "draws/DrawGaps"
    assert "not confirmed" in confirmation["summary"]
    assert [row["verdict"] for row in battery.summary_rows(result) if row["test"] == "DrawGaps"] == ["unconfirmed"]


@pytest.mark.parametrize("profile_sizes", [
    dict(bits=200_000, decks=20_000, small_decks=20_000, draws=100_000),  # a fifth of quick's bits and draws
    pytest.param({}, marks=pytest.mark.slow, id="quick")])
def test_every_negative_control_still_fails_with_the_rule(profile_sizes):
    """Bad sources fail stage 1 and again on fresh data, at smaller sizes and (slow) at the quick
    profile's sizes."""
    from certify.stats import battery
    from rng import sources
    from rng.streams import stream

    for bad, sizes in ((sources.Randu(seed=1), dict(sequences=1, decks=0, draws=0)),
                       (sources.NaiveShuffle(stream(1, 0)), dict(sequences=0, draws=0)),
                       (sources.ModuloBiasedDeal(stream(1, 0)), dict(sequences=0, decks=0))):
        result = battery.run_battery(bad, "quick", alpha=0.01, **{**profile_sizes, **sizes})
        assert not result["passed"] and result["confirmation"]["stage2"] is not None
        assert not result["confirmation"]["stage2"]["passed"]
