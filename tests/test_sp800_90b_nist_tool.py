"""SP 800-90B estimators against the NIST SP800-90B_EntropyAssessment tool's own output.

fixtures/sp800_90b/<source>_s<seed>_<n>.non_iid.txt is what the NIST tool (ea_non_iid, at its
most verbose level, which prints every intermediate value with 17 significant digits, and 22
for its long double values) printed for the samples that fixtures/sp800_90b/sources.py
generates from that source name, seed and count (README.md there says how they were recorded).
Every printed value must agree: counts exactly, doubles bit for bit, and long doubles after
rounding to double (the suite keeps doubles in its results; the min-entropy computed from
them is compared bit for bit).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest

from certify.stats.sp800_90b.non_iid import assess_non_iid
from certify.stats.sp800_90b.samples import prepare

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "sp800_90b"
_spec = importlib.util.spec_from_file_location("sp800_90b_sources", FIXTURES / "sources.py")
sources = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sources)

# the tool's estimator names -> the suite's
ESTIMATORS = {"Most Common Value": "Most Common Value", "Collision": "Collision", "Markov": "Markov",
              "Compression": "Compression", "t-Tuple": "t-Tuple", "LRS": "Longest Repeated Substring",
              "MultiMCW Prediction": "MultiMCW Prediction", "Lag Prediction": "Lag Prediction",
              "MultiMMC Prediction": "MultiMMC Prediction", "LZ78Y Prediction": "LZ78Y Prediction"}
# the tool's printed names -> the suite's detail keys
KEYS = {"Mode count": "mode_count", "p-hat": "p_hat", "p_u": "p_u", "v": "v", "Sum t_i": "sum_t",
        "X-bar": "x_bar", "sigma-hat": "sigma_hat", "X-bar'": "x_bar_prime", "p": "p",
        "P_0": "P_0", "P_1": "P_1", "P_{0,0}": "P_00", "P_{0,1}": "P_01", "P_{1,0}": "P_10",
        "P_{1,1}": "P_11", "t": "t", "u": "u", "C": "C", "r": "r", "N": "N", "P_global": "P_global",
        "P_global'": "P_global_prime", "P_local": "P_local", "min entropy": "min_entropy"}


def _record(values: dict, data: str, name: str, key: str, value: str) -> None:
    """One printed value under the suite's estimator name and detail key."""
    if name == "Markov" and key == "p-hat_max":
        key = "p_max"
    elif name == "t-Tuple" and key == "p-hat_max":
        key = "p_hat_max"
    values.setdefault((data, ESTIMATORS[name]), {})[KEYS.get(key, key)] = value


def estimator_values(text: str, datasets: str) -> dict[tuple[str, str], dict[str, str | None]]:
    """{(data, estimator): {key: printed text}} from the tool's estimator lines, whose data is one
    of ``datasets`` (a regex alternation: "Literal|Bitstring", "Rows|Columns")."""
    line = re.compile(rf"^({datasets}) (.+?) Estimate: (.+?) = (\S+)$", re.M)
    no_p_local = re.compile(rf"^({datasets}) (.+?) Estimate: P_local can't change the result\.$", re.M)
    values: dict[tuple[str, str], dict[str, str | None]] = {}
    for m in line.finditer(text):
        _record(values, *m.groups())
    for m in no_p_local.finditer(text):
        values.setdefault((m.group(1), ESTIMATORS[m.group(2)]), {})["P_local"] = None
    return values


def parse_tool_output(text: str):
    """{(data, estimator): {key: printed text}} and the summary lines (H_original etc.)."""
    values = estimator_values(text, "Literal|Bitstring")
    summary: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith(("H_bitstring = ", "H_original = ")):
            key, value = line.split(" = ")
            summary[key] = value
        elif line.startswith("Assessed min entropy: "):
            summary["assessed"] = line.split(": ")[1]
    return values, summary


def _agrees(printed: str | None, ours) -> bool:
    if printed is None or ours is None:
        return printed is None and ours is None
    if re.fullmatch(r"-?\d+", printed) and isinstance(ours, (int, np.integer)):
        return int(printed) == int(ours)
    # long doubles are printed with 22 digits: np.longdouble reads them back exactly
    return float(np.longdouble(printed)) == float(ours)


def compare(tool_text: str, result) -> list[str]:
    """Every disagreement between the tool's printed values and ``result`` (empty: all agree)."""
    values, summary = parse_tool_output(tool_text)
    ours = {("Literal", e.name): e for e in result.literal}
    ours.update({("Bitstring", e.name): e for e in result.bitstring})
    return estimate_problems(values, ours) + summary_problems(
        summary, (("H_original", result.h_original), ("H_bitstring", result.h_bitstring),
                  ("assessed", result.min_entropy)))


def estimate_problems(values: dict, ours: dict) -> list[str]:
    """The tool's printed estimator values ({(data, name): {key: text}}) against the suite's
    estimates ({(data, name): Estimate}): a value that differs, an estimator only one side ran."""
    problems = []
    for (data, name), printed in values.items():
        est = ours.get((data, name))
        if est is None:
            problems.append(f"{data} {name}: the tool ran it, the suite did not")
            continue
        mine = {**est.details, "min_entropy": est.min_entropy}
        for key, text in printed.items():
            if key not in mine or not _agrees(text, mine[key]):
                problems.append(f"{data} {name} {key}: tool {text}, suite {mine.get(key, '<missing>')!r}")
    ran = {key for key, e in ours.items() if e.min_entropy is not None}
    return problems + [f"{d} {n}: the suite ran it, the tool did not" for d, n in sorted(ran - set(values))]


def summary_problems(summary: dict, ours) -> list[str]:
    """The tool's printed summary values against the suite's ((key, value) pairs; a key the tool
    did not print is not compared)."""
    return [f"{key}: tool {summary[key]}, suite {mine!r}" for key, mine in ours
            if key in summary and not _agrees(summary[key], mine)]


# compared in the default run (binary, translated 8-bit, 4-bit); the rest under -m slow
DEFAULT_CASES = {"biased1_s11_1e5", "sparse8_s16_1e5", "uniform4_s17_1e5", "biased8_s14_1e5"}


def fixture_cases(kind: str, default_stems: set[str]):
    """One pytest case per fixture <source>_s<seed>_<n>.<kind>*.txt: (path, source, seed, n), plus
    whether it is the IID variant for the restart kinds; slow unless its stem is in ``default_stems``."""
    for path in sorted(FIXTURES.glob(f"*.{kind}*.txt")):
        stem, variant = path.name[:-4].split(".")
        name, seed, n = re.fullmatch(r"(\w+?)_s(\d+)_(\d+e\d+)", stem).groups()
        marks = [] if stem in default_stems else [pytest.mark.slow]
        restart = (variant == "restart_iid",) if kind == "restart" else ()
        yield pytest.param(path, name, int(seed), int(float(n)), *restart, id=stem + ("." + variant) * bool(restart),
                           marks=marks)


def _cases():
    return fixture_cases("non_iid", DEFAULT_CASES)


@pytest.mark.parametrize("path, name, seed, n", list(_cases()))
def test_non_iid_agrees_with_nist_tool(path, name, seed, n):
    bits_per_symbol = sources.SOURCES[name][0]
    samples = prepare(sources.generate(name, seed, n), bits_per_symbol)
    result = assess_non_iid(samples, jobs=1)
    assert compare(path.read_text(), result) == []


def test_every_fixture_is_checked_by_default_or_slow():
    cases = list(_cases())
    assert len(cases) >= 8
    assert any(not c.marks for c in cases)  # the default run compares some


def test_compare_catches_a_disagreement():
    """Negative control: a result one count away from the tool's is reported."""
    path = next(p for p in sorted(FIXTURES.glob("biased1_*.non_iid.txt")))
    name, seed, n = "biased1", int(re.search(r"_s(\d+)_", path.name).group(1)), 100_000
    samples = prepare(sources.generate(name, seed, n)[: n - 1], 1)  # one sample short: C, N... differ
    problems = compare(path.read_text(), assess_non_iid(samples, jobs=1))
    assert any(" N: tool " in p for p in problems)


def test_fused_multiply_add_is_correctly_rounded():
    """K.fma (the tool build's fused a*b + c) against exact rational arithmetic, on random
    operands and on near-ties, where one rounding and two roundings differ."""
    from fractions import Fraction

    from certify.stats.sp800_90b import _kernels as K

    rng = np.random.default_rng(90)
    fused_differs = 0
    for i in range(4000):
        if i % 2:
            a, b, c = (float(rng.standard_normal() * 2.0 ** rng.integers(-40, 40)) for _ in range(3))
        else:  # a*b near half an ulp of c
            c = float((1 + rng.integers(0, 2**52) * 2.0**-52) * 2.0 ** rng.integers(-8, 8)) * rng.choice([-1, 1])
            a = 1.0 + float(rng.integers(-2**20, 2**20)) * 2.0**-52
            b = float(np.spacing(abs(c)) / 2 * (1 + float(rng.integers(-2**10, 2**10)) * 2.0**-52) / a)
        exact = float(Fraction(a) * Fraction(b) + Fraction(c))
        assert K.fma(a, b, c) == exact, (a.hex(), b.hex(), c.hex())
        fused_differs += exact != a * b + c
    assert fused_differs > 0  # the near-ties do reach the cases where fusing matters


# ---------------------------------------------------------------- IID track (ea_iid)

def _printed(text: str, label: str) -> str:
    match = re.search(re.escape(label) + r" = (\S+)", text)
    assert match, label
    return match.group(1)


def compare_iid(tool_text: str, samples) -> list[str]:
    """The deterministic part of ea_iid's output against the suite: the MCV estimates and the
    assessment, the chi-square statistics (T and df exactly; the p-value, from scipy's
    regularized gamma rather than the tool's Cephes igamc, to 1e-9 relative), the LRS test,
    the 19 statistics of the unpermuted data, and the chi-square and LRS verdicts. (The
    permutation counters depend on the random permutations: the tool seeds from /dev/urandom.)"""
    from certify.stats.sp800_90b import iid

    problems = []

    def check(label, printed, ours, rel=0.0):
        same = (float(np.longdouble(printed)) == float(ours) if rel == 0.0
                else abs(float(printed) - float(ours)) <= rel * abs(float(printed)))
        if not same:
            problems.append(f"{label}: tool {printed}, suite {ours!r}")

    literal = iid.E.most_common_value(samples.symbols, samples.alphabet_size)
    check("Literal MCV p_u", _printed(tool_text, "Literal Most Common Value Estimate: p_u"), literal.details["p_u"])
    check("Literal MCV H", _printed(tool_text, "Literal Most Common Value Estimate: min entropy"), literal.min_entropy)
    if samples.alphabet_size > 2:
        bits = iid.E.most_common_value(samples.bits, 2)
        check("Bitstring MCV H", _printed(tool_text, "Bitstring Most Common Value Estimate: min entropy"),
              bits.min_entropy)
    indep, fit = iid.chi_square_tests(samples, reference="nist-ea")   # the tool's rule
    for name, test in (("independence", indep), ("goodness of fit", fit)):
        check(f"chi-square {name} T", _printed(tool_text, f"Chi square {name}: T"), test.details["score"])
        check(f"chi-square {name} df", _printed(tool_text, f"Chi square {name}: df"), test.details["df"])
        check(f"chi-square {name} p", _printed(tool_text, f"Chi square {name}: P-value"), test.details["p_value"],
              rel=1e-9)
    lrs = iid.lrs_test(samples)
    check("LRS P_col", _printed(tool_text, "Longest Repeated Substring results: P_col"), lrs.details["P_col"])
    if lrs.details["W"] is not None:
        check("LRS W", _printed(tool_text, "Longest Repeated Substring results: W"), lrs.details["W"])
    perm = iid.permutation_tests(samples, seed=1, permutations=1)
    for row in perm.details["statistics"]:
        check(f"unpermuted {row['statistic']}",
              _printed(tool_text, f"Permutation testing: Unpermuted result {row['statistic']}"), row["value"])
    verdicts = {"chi-square": "Chi square tests: Passed" in tool_text,
                "LRS": "Length of longest repeated substring test: Passed" in tool_text}
    ours = {"chi-square": indep.passed and fit.passed, "LRS": lrs.passed}
    if verdicts != ours:
        problems.append(f"verdicts: tool {verdicts}, suite {ours}")
    return problems


@pytest.mark.parametrize("path, name, seed, n", list(fixture_cases("iid", DEFAULT_CASES)))
def test_iid_agrees_with_nist_tool(path, name, seed, n):
    samples = prepare(sources.generate(name, seed, n), sources.SOURCES[name][0])
    assert compare_iid(path.read_text(), samples) == []


# ---------------------------------------------------------------- restart tests (ea_restart, 3.1.4)

def parse_restart_output(text: str):
    """{(dataset, estimator): {key: printed}} and the summary (H_I, X_cutoff, X_max, H_r, H_c, verdicts)."""
    values = estimator_values(text, "Rows|Columns")
    summary: dict = dict(re.findall(r"^(H_I|ALPHA|X_cutoff|X_max|H_r|H_c|min\(H_r, H_c, H_I\)) = (\S+)$", text, re.M))
    summary["sanity"] = "Restart Sanity Check Passed" in text
    summary["validation"] = ("Validation Test Passed" in text) if summary["sanity"] else None
    return values, summary


def compare_restart(tool_text: str, samples, iid: bool) -> list[str]:
    """ea_restart's output against ``restart_tests(..., reference="nist-ea")`` for the same H_I:
    X_max; the sanity cutoff (the tool's is an order statistic of 5,000,000 random restarts, the
    suite's in nist-ea mode the quantile it estimates, computed exactly: they may differ by one,
    and the verdicts agree unless X_max falls between them) and verdict; the document's binomial
    cutoff (the default) is never above the tool's; every estimator on the row and the column
    dataset, H_r, H_c, the validation verdict and min(H_r, H_c, H_I)."""
    from certify.stats.sp800_90b.restart import SANITY_ALPHA, restart_tests, sanity_cutoff

    values, summary = parse_restart_output(tool_text)
    h_initial = float(summary["H_I"])
    result = restart_tests(samples, h_initial, iid=iid, reference="nist-ea")
    tool_cutoff = int(summary["X_cutoff"])
    problems = []
    if int(summary["X_max"]) != result.max_count:
        problems.append(f"X_max: tool {summary['X_max']}, suite {result.max_count}")
    if abs(result.cutoff - tool_cutoff) > 1 or float(summary["ALPHA"]) != result.alpha:
        problems.append(f"sanity cutoff: tool {tool_cutoff} at {summary['ALPHA']}, suite {result.cutoff} at {result.alpha!r}")
    if sanity_cutoff(h_initial, SANITY_ALPHA) > tool_cutoff:
        problems.append(f"sanity cutoff: the document's {sanity_cutoff(h_initial, SANITY_ALPHA)} above the tool's")
    between = min(result.cutoff, tool_cutoff) < result.max_count <= max(result.cutoff, tool_cutoff)
    if summary["sanity"] != result.sanity_passed and not between:
        problems.append(f"sanity verdict: tool {summary['sanity']}, suite {result.sanity_passed}")
    if not (result.sanity_passed and summary["sanity"]):
        return problems
    ours = {("Rows", e.name): e for e in result.rows}
    ours.update({("Columns", e.name): e for e in result.columns})
    problems += estimate_problems(values, ours)
    problems += summary_problems(summary, (("H_r", result.h_rows), ("H_c", result.h_columns),
                                           ("min(H_r, H_c, H_I)", result.min_entropy)))
    if summary["validation"] != result.validation_passed:
        problems.append(f"validation verdict: tool {summary['validation']}, suite {result.validation_passed}")
    return problems


RESTART_DEFAULT_CASES = {"stuck8_s44_1e6", "biased4_s43_1e6"}


@pytest.mark.parametrize("path, name, seed, n, iid", list(fixture_cases("restart", RESTART_DEFAULT_CASES)))
def test_restart_agrees_with_nist_tool(path, name, seed, n, iid):
    samples = prepare(sources.generate(name, seed, n), sources.SOURCES[name][0])
    assert compare_restart(path.read_text(), samples, iid) == []


def test_restart_compare_catches_a_disagreement():
    path = FIXTURES / "biased4_s43_1e6.restart_iid.txt"
    samples = prepare(sources.generate("biased4", 43, 10**6), 4)
    text = re.sub(r"^H_r = \S+$", "H_r = 0.5", path.read_text(), flags=re.M).replace("X_max = ", "X_max = 9", 1)
    problems = compare_restart(text, samples, iid=True)
    assert any(p.startswith("X_max") for p in problems) and any(p.startswith("H_r") for p in problems)
