"""One SP 800-90B assessment of a sample file: the chosen track, the restart tests if given,
and the continuous health-test cutoffs (90B 4.4) the assessed min-entropy implies."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from typing import Any

from rng.entropy import apt_cutoff, apt_window, rct_cutoff

from .iid import PERMUTATIONS, assess_iid, check_reference, mcv_assessment
from .non_iid import assess_non_iid
from .restart import restart_tests
from .samples import MIN_SAMPLES, EntropyInputError, read_samples

HEALTH_ALPHAS_LOG2 = (20, 40)   # 90B 4.4 recommends alpha between 2^-20 and 2^-40

# What each reference mode computes where the suite and the NIST SP800-90B_EntropyAssessment tool
# differ (every estimator and every other statistic is the tool's in both modes).
REFERENCE_RULES = {
    "exact": "chi-square tests (5.2.1-5.2.4): p-value from the permutation null of T (seeded, exact: an IID "
             "source fails with probability at most 0.001); restart sanity check (3.1.4.3): the exact worst-case "
             "largest-count quantile (at most 1% false alarms; the document's binomial cutoff is reported beside it)",
    "nist-ea": "chi-square tests (5.2.1-5.2.4): p-value from the chi-square distribution with the document's "
               "degrees of freedom, as the NIST SP800-90B_EntropyAssessment tool (its false-alarm rate for "
               "8-bit data far exceeds the stated 0.001); restart sanity check: the tool's worst-case "
               "largest-count quantile over the values present (computed exactly; the tool simulates it)",
}


def health_cutoffs(min_entropy: float, binary: bool) -> list[dict[str, Any]]:
    """The RCT and APT cutoffs (90B 4.4.1, 4.4.2) for a source of ``min_entropy`` bits/sample."""
    if not min_entropy > 0:
        return []
    window = apt_window(binary)
    return [{"alpha": f"2^-{a}", "rct_cutoff": rct_cutoff(min_entropy, a), "apt_window": window,
             "apt_cutoff": apt_cutoff(min_entropy, window, a)} for a in HEALTH_ALPHAS_LOG2]


def assess_file(path, bits_per_symbol: int, iid: bool = False, packed: bool = False, restart_path=None,
                seed: int = 1, permutations: int = PERMUTATIONS, min_samples: int = MIN_SAMPLES,
                truncate_bitstring: bool = False, reference: str = "exact") -> dict[str, Any]:
    """Assess ``path``; returns plain data (JSON-ready). Raises EntropyInputError on bad input,
    before any estimator runs (the restart matrix is read and checked first too). ``reference``:
    "exact" (default) or "nist-ea", the NIST tool's rules where they differ (``REFERENCE_RULES``)."""
    from .restart import check_matrix, tool_rule_refusal

    check_reference(reference)
    start = time.perf_counter()
    samples = read_samples(path, bits_per_symbol, packed=packed, min_samples=min_samples)
    restart_samples = None
    if restart_path is not None:
        restart_samples = read_samples(restart_path, bits_per_symbol, packed=packed, min_samples=1)
        check_matrix(restart_samples)
        if reference == "nist-ea" and iid:   # H_I is the MCV assessment: refuse it before the IID tests run
            why = tool_rule_refusal(mcv_assessment(samples)[-1], restart_samples.alphabet_size, str(restart_path))
            if why is not None:
                raise EntropyInputError(why)
    if iid:
        track = assess_iid(samples, seed=seed, permutations=permutations, reference=reference)
    else:
        track = assess_non_iid(samples, truncate_bitstring=1_000_000 if truncate_bitstring else None)
    out: dict[str, Any] = {
        "standard": "NIST SP 800-90B (2018)",
        "file": str(path), "sha256": hashlib.sha256(Path(path).read_bytes()).hexdigest(),
        "format": "packed bits" if packed else "one sample per byte", "min_samples": min_samples,
        **track.to_dict(), "reference": reference, "reference_rules": REFERENCE_RULES[reference]}
    h = track.min_entropy
    verdict = "pass"
    reasons = []
    if iid and not track.passed:
        verdict = "FAIL"
        reasons.append("the IID tests reject the IID assumption: assess with --non-iid")
    if restart_samples is not None:
        restart = restart_tests(restart_samples, h, iid=iid, reference=reference)
        out["restart"] = {"file": str(restart_path), **restart.to_dict()}
        if not restart.passed:
            verdict = "FAIL"
            reasons.append("restart sanity check failed" if not restart.sanity_passed
                           else "restart validation failed: min(H_r, H_c) < H_I / 2")
        else:
            h = restart.min_entropy
    out["assessed_min_entropy"] = h if verdict == "pass" else None
    out["health_tests"] = health_cutoffs(h, samples.binary) if verdict == "pass" else []
    out["verdict"] = verdict
    out["reasons"] = reasons
    out["seconds"] = time.perf_counter() - start
    return out


def report_basename(path) -> str:
    """``<sample file stem>-sp800-90b``: the report's file name without suffix."""
    return f"{Path(path).stem or 'samples'}-sp800-90b"


def report_input(result: dict[str, Any], issued_at=None):
    """The signed report's input (``certify.report.ReportInput``) for an ``assess_file`` result: an
    entropy-source assessment report, whose one required section is the assessment."""
    from certify import __version__ as suite_version
    from certify.report import Product, ReportInput
    from certify.report.identify import software_inventory
    from certify.run import issued_at_or_now
    from rng import __version__ as rng_version

    iid = result["track"] == "IID"
    seeds = []
    methodology: dict[str, Any] = {
        "alpha": 0.001 if iid else 0.01,
        "multiple_testing": ("none: the data are treated as IID only if every IID test passes, each at alpha "
                             "0.001 (the permutation tests about 0.1% per statistic, 90B 5.1)" if iid else
                             "none: the assessment is the smallest of the estimators' 99% upper-bound "
                             "min-entropy estimates (90B 6.3)"),
        "sample_sizes": {"samples": result["samples"], "minimum accepted (--min-samples)": result["min_samples"]},
        "track": f"{result['track']} (SP 800-90B {'5 and 6.3.1' if iid else '6.3'})",
        "confidence_bounds": "Z = 2.5758293035489008 (99%, two-sided), as the NIST SP800-90B_EntropyAssessment tool",
        "health_test_alphas": "2^-20 and 2^-40, the ends of the range 90B 4.4 recommends",
        "reference_mode": f"{result.get('reference', 'exact')}: {REFERENCE_RULES[result.get('reference', 'exact')]}",
    }
    if iid:
        permutation = next(t for t in result["tests"] if t["name"] == "Permutation tests")["details"]
        seeds.append({"purpose": "permutation shuffles (xoshiro256**, one stream per permutation; the "
                                 "chi-square null's from stream 2^40)", "value": int(permutation["seed"])})
    methodology["seeds"] = seeds
    name = Path(result["file"]).name
    return ReportInput(
        product=Product(game=f"Noise source samples {name}", spec="NIST SP 800-90B", spec_version="January 2018",
                        paytable_sha256="", rng_module_version=f"rng {rng_version}",
                        suite_version=f"certify {suite_version}"),
        issued_at=issued_at_or_now(issued_at), methodology=methodology, software=software_inventory(),
        entropy=result, required=("entropy",))


__all__ = ["assess_file", "health_cutoffs", "report_basename", "report_input", "EntropyInputError"]
