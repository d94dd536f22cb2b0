"""The report's input: plain data in, validated and judged, one content dict out.

Every section takes plain data (what the other parts already produce):

* ``rng`` / ``shuffle``: ``{"description": {label: text}, "tests": [TestResult.to_dict(), ...],
  "family": TestResult.to_dict() | None, "kat": [...], "health": [...]}``. ``family`` is the
  battery's multiple-testing verdict; without it every applicable test must pass.
* ``par_sheet``: ``ParSheet.to_dict()`` (``house_edge``, ``return_table``, ...), optionally with
  ``provenance`` (``certify.analysis.cache.Provenance.to_dict()``: read from the cache or computed,
  the entry digest; its code fingerprint must be that of the report's source rows) and ``tables``
  (``TableProvenance.to_dict()`` of each table entry the run used, e.g. a kernel's counts: the same
  fields with the entry's ``kind``).
* ``simulation``: ``{"rounds", "categories", "observed", "expected", "chi_square": TestResult dict,
  "rtp": {...}, "tests": [...]}``.
* ``procedures``: ``{"fixtures": [paths], "scenarios": [{"id", "rule", "status", "expected",
  "actual"}]}``.

A section that is ``None`` was not run: the report says so and the verdict cannot be PASS.
:func:`build_content` turns the input into the one dict both the PDF and the JSON are made from,
so the two always carry the same content.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import asdict, dataclass, field, is_dataclass
from datetime import datetime, timezone
from typing import Any, Mapping

from certify.errors import InputError
from certify.stats.result import passes

SCHEMA = "certify-report/1"

# Sections a certification needs; each one not run keeps the verdict from PASS.
REQUIRED_SECTIONS = ("rng", "shuffle", "par_sheet", "simulation", "procedures")
SECTION_TITLES = {
    "rng": "RNG results",
    "shuffle": "Shuffle results",
    "par_sheet": "PAR sheet",
    "simulation": "Simulation verification",
    "procedures": "Procedure scenarios",
    "entropy": "Entropy-source assessment (SP 800-90B)",
    "integrity": "Integrity of the logs",
    "rules": "Rules (every round re-settled)",
    "fairness": "Fairness of the cards as dealt",
    "math": "Math against the PAR sheet",
}
# Sections a report may carry besides the required ones; a report may require them instead
# (``ReportInput.required``): an entropy-source assessment report requires only "entropy".
OPTIONAL_SECTIONS = ("entropy",)
ENTROPY_REPORT = ("entropy",)
# An audit of round logs (certify audit --report) requires exactly what an audit produces; these
# sections belong to that kind only, so a certification can never carry or be replaced by them.
AUDIT_REPORT = ("integrity", "rules", "fairness", "math")

PASS, FAIL, NOT_RUN, COMPUTED = "pass", "fail", "not run", "computed"
VERDICT_PASS, VERDICT_FAIL, VERDICT_INCOMPLETE = "PASS", "FAIL", "INCOMPLETE"

_HEX64 = re.compile(r"^[0-9a-f]{64}$")


class ReportDataError(InputError):
    """Report input that does not fit the schema; the message names the field."""


# ----------------------------------------------------------------------------- helpers


def _fail(path: str, expected: str, got: Any) -> None:
    raise ReportDataError(f"report input: {path}: expected {expected}, got {got!r}"[:400])


def _str(d: Mapping, key: str, path: str, optional: bool = False) -> str | None:
    value = d.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value:
        _fail(f"{path}.{key}", "a non-empty string", value)
    return value


def _num(value: Any, path: str, optional: bool = True) -> float | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        _fail(path, "a number", value)
    return value


def _mapping(value: Any, path: str) -> Mapping:
    if not isinstance(value, Mapping):
        _fail(path, "a mapping", type(value).__name__)
    return value


def _list(value: Any, path: str) -> list:
    if not isinstance(value, (list, tuple)):
        _fail(path, "a list", type(value).__name__)
    return list(value)


def jsonable(value: Any) -> Any:
    """Plain JSON data from dataclasses, numpy scalars/arrays, tuples and Decimals.

    Non-finite floats become strings ("inf", "nan") so the JSON stays standard.
    """
    if hasattr(value, "to_dict") and callable(value.to_dict):
        return jsonable(value.to_dict())
    if is_dataclass(value) and not isinstance(value, type):
        return jsonable(asdict(value))
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if hasattr(value, "tolist"):  # numpy arrays and scalars
        return jsonable(value.tolist())
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if type(value).__name__ == "Decimal":
        return str(value)
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def seed_commitment(seed: int | bytes) -> str:
    """The commitment a report prints for a seed: ``rng.streams.seed_commitment`` (one definition,
    in the certified module: SHA-256 over a domain-separated encoding of the seed)."""
    from rng.streams import seed_commitment as commit

    return commit(seed)


def canonical_json(value: Any) -> bytes:
    """Sorted keys, fixed separators, UTF-8: the same data always gives the same bytes."""
    return json.dumps(jsonable(value), sort_keys=True, ensure_ascii=False, indent=2).encode("utf-8") + b"\n"


# ----------------------------------------------------------------------------- tests


def normalise_test(raw: Any, path: str) -> dict[str, Any]:
    """A TestResult (or its ``to_dict()``) as a checked dict with a ``verdict``."""
    d = dict(_mapping(jsonable(raw), path))
    _str(d, "name", path)
    for key in ("statistic", "pvalue", "dof"):
        value = d.get(key)
        if isinstance(value, str) and value in ("inf", "-inf", "nan"):
            continue
        _num(value, f"{path}.{key}")
    pvalue = d.get("pvalue")
    if isinstance(pvalue, (int, float)) and not 0.0 <= pvalue <= 1.0:
        _fail(f"{path}.pvalue", "a probability in [0, 1]", pvalue)
    _num(d.get("alpha"), f"{path}.alpha", optional=False)
    applicable = d.get("applicable", True)
    if not isinstance(applicable, bool):
        _fail(f"{path}.applicable", "true or false", applicable)
    passed = d.get("passed")
    if applicable and not isinstance(passed, bool):
        _fail(f"{path}.passed", "true or false for an applicable test", passed)
    if applicable and pvalue is not None and passed != passes(pvalue, d["alpha"]):
        # the statistics layer decides (certify.stats.result.passes); a contradiction is refused
        _fail(f"{path}.passed", f"{passes(pvalue, d['alpha'])} for p = {pvalue} at alpha {d['alpha']}", passed)
    d["applicable"] = applicable
    d["verdict"] = "not applicable" if not applicable else (PASS if passed else FAIL)
    d.setdefault("n", None)
    d.setdefault("pvalues", [])
    d.setdefault("looked_at", "")
    d.setdefault("details", {})
    return d


def _tests(raw: Any, path: str) -> list[dict[str, Any]]:
    return [normalise_test(t, f"{path}[{i}]") for i, t in enumerate(_list(raw or [], path))]


def _all_pass(tests: list[dict]) -> bool:
    return all(t["verdict"] != FAIL for t in tests)


# ----------------------------------------------------------------------------- sections


def _test_section(raw: Any, path: str) -> dict[str, Any]:
    d = _mapping(jsonable(raw), path)
    unknown = set(d) - {"description", "tests", "family", "kat", "health", "notes"}
    if unknown:
        _fail(path, "only description, tests, family, kat, health, notes", sorted(unknown))
    description = {str(k): str(v) for k, v in _mapping(d.get("description") or {}, f"{path}.description").items()}
    tests = _tests(d.get("tests"), f"{path}.tests")
    kat = _tests(d.get("kat"), f"{path}.kat")
    health = _tests(d.get("health"), f"{path}.health")
    family = normalise_test(d["family"], f"{path}.family") if d.get("family") is not None else None
    if not (tests or kat or health):
        _fail(path, "at least one test result in tests, kat or health", "none")
    individually = _all_pass(tests)
    battery_ok = family["verdict"] == PASS if family else individually  # a family judging nothing is no pass
    status = PASS if battery_ok and _all_pass(kat) and _all_pass(health) else FAIL
    return {"status": status, "description": description, "tests": tests, "family": family,
            "kat": kat, "health": health, "notes": [str(n) for n in _list(d.get("notes") or [], f"{path}.notes")]}


def _par_wager(raw: Any, path: str) -> dict[str, Any]:
    d = dict(_mapping(raw, path))
    _num(d.get("house_edge"), f"{path}.house_edge", optional=False)
    rows = _list(d.get("return_table"), f"{path}.return_table")
    if not rows:
        _fail(f"{path}.return_table", "at least one row", [])
    for i, row in enumerate(rows):
        row = _mapping(row, f"{path}.return_table[{i}]")
        _str(row, "event", f"{path}.return_table[{i}]")
        _num(row.get("probability"), f"{path}.return_table[{i}].probability", optional=False)
    d.setdefault("name", "main game")
    return d


def _par_section(raw: Any, path: str) -> dict[str, Any]:
    """``ParSheet.to_dict()`` (``wagers``: one sheet per wager, main game first) or one flat sheet."""
    d = dict(_mapping(jsonable(raw), path))
    provenance = _par_provenance(d.pop("provenance", None), f"{path}.provenance")
    tables = [_table_provenance(t, f"{path}.tables[{i}]") for i, t in enumerate(_list(d.pop("tables", []), f"{path}.tables"))]
    if "wagers" in d:
        raw_wagers = _list(d["wagers"], f"{path}.wagers")
        if not raw_wagers:
            _fail(f"{path}.wagers", "at least one wager", [])
        wagers = [_par_wager(w, f"{path}.wagers[{i}]") for i, w in enumerate(raw_wagers)]
        rest = {k: v for k, v in d.items() if k != "wagers"}
    else:
        wagers, rest = [_par_wager(d, path)], {}
    return {"status": COMPUTED, "wagers": wagers, "game": rest.pop("game", None), "spec": rest.pop("spec", None),
            "game_family": rest.pop("family", None), "provenance": provenance, "tables": tables, "extra": rest}


PAR_SOURCES = ("cache", "computed")


def _par_provenance(raw: Any, path: str) -> dict[str, Any] | None:
    """Where the sheet came from (``certify.analysis.cache.Provenance.to_dict()``); None: not stated."""
    if raw is None:
        return None
    d = _mapping(raw, path)
    if d.get("source") not in PAR_SOURCES:
        _fail(f"{path}.source", "'cache' or 'computed'", d.get("source"))
    for key in ("entry_sha256", "spec_sha256", "code_fingerprint"):
        if not _HEX64.match(str(d.get(key))):
            _fail(f"{path}.{key}", "64 lowercase hex digits (SHA-256)", d.get(key))
    if not isinstance(d.get("reason", ""), str):
        _fail(f"{path}.reason", "a string", d.get("reason"))
    return {"source": d["source"], "entry_sha256": d["entry_sha256"], "spec_sha256": d["spec_sha256"],
            "code_fingerprint": d["code_fingerprint"], "reason": d.get("reason", "")}


def _table_provenance(raw: Any, path: str) -> dict[str, Any]:
    """Where a kernel's table entry came from (``certify.analysis.cache.TableProvenance.to_dict()``)."""
    d = _mapping(raw, path)
    kind = d.get("kind")
    if not isinstance(kind, str) or not kind or not kind.replace("-", "").isalnum():
        _fail(f"{path}.kind", "a table kind (letters, digits and '-')", kind)
    return {"kind": kind, **_par_provenance(d, path)}


def _check_par_code(par: dict[str, Any] | None, software: list[dict[str, Any]]) -> None:
    """A sheet's (and its tables') code fingerprint must be this report's: the fingerprint of its
    source rows."""
    if not par:
        return
    ours = software_fingerprint([r for r in software if r["role"] == "source"])
    stated = [("par_sheet.provenance", par["provenance"])] + [
        (f"par_sheet.tables[{i}]", t) for i, t in enumerate(par.get("tables") or [])]
    for path, provenance in stated:
        if provenance and provenance["code_fingerprint"] != ours:
            _fail(f"{path}.code_fingerprint", f"the fingerprint of this report's source files ({ours})",
                  provenance["code_fingerprint"])


def _simulation_section(raw: Any, path: str) -> dict[str, Any]:
    d = dict(_mapping(jsonable(raw), path))
    rounds = d.get("rounds")
    if not isinstance(rounds, int) or rounds <= 0:
        _fail(f"{path}.rounds", "a positive integer", rounds)
    categories = [str(c) for c in _list(d.get("categories"), f"{path}.categories")]
    observed = _list(d.get("observed"), f"{path}.observed")
    expected = _list(d.get("expected"), f"{path}.expected")
    if not (len(categories) == len(observed) == len(expected)) or not categories:
        _fail(path, "categories, observed and expected of the same non-zero length",
              (len(categories), len(observed), len(expected)))
    for i, (o, e) in enumerate(zip(observed, expected)):
        _num(o, f"{path}.observed[{i}]", optional=False)
        _num(e, f"{path}.expected[{i}]", optional=False)
    chi = normalise_test(d.get("chi_square"), f"{path}.chi_square")
    rtp = dict(_mapping(d.get("rtp"), f"{path}.rtp"))
    for key in ("observed", "theoretical", "ci_low", "ci_high", "confidence"):
        _num(rtp.get(key), f"{path}.rtp.{key}", optional=False)
    if not isinstance(rtp.get("passed"), bool):
        _fail(f"{path}.rtp.passed", "true or false", rtp.get("passed"))
    tests = _tests(d.get("tests"), f"{path}.tests")
    family = normalise_test(d["family"], f"{path}.family") if d.get("family") is not None else None
    exact_checks = [t for t in tests if t["pvalue"] is None]  # e.g. payouts: no chance involved
    if family:  # the multiple-testing verdict over the statistical tests decides; exact checks must pass
        ok = family["verdict"] == PASS and _all_pass(exact_checks)
    else:
        ok = chi["verdict"] != FAIL and rtp["passed"] and _all_pass(tests)
    extra = {k: v for k, v in d.items()
             if k not in {"rounds", "categories", "observed", "expected", "chi_square", "rtp", "tests", "family"}}
    return {"status": PASS if ok else FAIL, "rounds": rounds, "categories": categories,
            "observed": observed, "expected": expected, "chi_square": chi, "rtp": rtp,
            "tests": tests, "family": family, "extra": extra}


def _procedure_section(raw: Any, path: str) -> dict[str, Any]:
    d = _mapping(jsonable(raw), path)
    fixtures = [str(f) for f in _list(d.get("fixtures") or [], f"{path}.fixtures")]
    scenarios = []
    for i, s in enumerate(_list(d.get("scenarios"), f"{path}.scenarios")):
        p = f"{path}.scenarios[{i}]"
        s = _mapping(s, p)
        status = s.get("status")
        if status not in (PASS, FAIL):
            _fail(f"{p}.status", "'pass' or 'fail'", status)
        scenarios.append({"id": _str(s, "id", p), "rule": str(s.get("rule") or ""),
                          "source": str(s.get("source") or ""), "fixture": str(s.get("fixture") or ""),
                          "status": status, "expected": s.get("expected"), "actual": s.get("actual")})
    if not scenarios:
        _fail(f"{path}.scenarios", "at least one scenario", [])
    status = PASS if all(s["status"] == PASS for s in scenarios) else FAIL
    return {"status": status, "fixtures": fixtures, "scenarios": scenarios}


def _entropy_section(raw: Any, path: str) -> dict[str, Any]:
    """``certify.stats.sp800_90b.assess_file``'s result. Fail closed: a pass needs a finite
    assessed min-entropy in (0, K], its health-test cutoffs, the IID tests passed (IID track)
    and the restart tests passed (when run); anything else is a FAIL."""
    d = dict(_mapping(jsonable(raw), path))
    d.pop("seconds", None)  # a timing: the report's bytes must not depend on it
    for key in ("track", "file", "standard"):
        _str(d, key, path)
    if not _HEX64.match(str(d.get("sha256"))):
        _fail(f"{path}.sha256", "the sample file's SHA-256 (64 hex digits)", d.get("sha256"))
    k = d.get("bits_per_symbol")
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 8:
        _fail(f"{path}.bits_per_symbol", "an integer 1..8", k)
    for key in ("literal", "bitstring", "health_tests", "reasons"):
        _list(d.get(key), f"{path}.{key}")
    if d.get("verdict") not in ("pass", "FAIL"):
        _fail(f"{path}.verdict", "'pass' or 'FAIL'", d.get("verdict"))
    h = d.get("assessed_min_entropy")
    ok = d["verdict"] == "pass"
    if ok:
        _num(h, f"{path}.assessed_min_entropy", optional=False)
        if not (isinstance(h, (int, float)) and math.isfinite(h) and 0 < h <= k):
            _fail(f"{path}.assessed_min_entropy", f"a number in (0, {k}] bits per sample for a pass", h)
        ok = bool(d["health_tests"]) and d.get("iid_tests_passed", True) is True
        restart = d.get("restart")
        if restart is not None:
            ok = ok and _mapping(restart, f"{path}.restart").get("passed") is True
    return {"status": PASS if ok else FAIL, **d}


_SECTION_BUILDERS = {
    "entropy": _entropy_section,
    "integrity": _procedure_section,
    "rules": _procedure_section,
    "fairness": _test_section,
    "math": _test_section,
    "rng": _test_section,
    "shuffle": _test_section,
    "par_sheet": _par_section,
    "simulation": _simulation_section,
    "procedures": _procedure_section,
}


# ----------------------------------------------------------------------------- the input


@dataclass(frozen=True)
class Product:
    game: str
    spec: str
    spec_version: str
    paytable_sha256: str
    rng_module_version: str
    suite_version: str
    spec_sha256: str = ""


@dataclass(frozen=True)
class SignerInfo:
    """Who signs: printed on the certificate page before the signature is applied."""

    subject: str
    issuer: str
    fingerprint_sha256: str
    algorithm: str
    development: bool

    @classmethod
    def of_certificate(cls, cert) -> "SignerInfo":
        """The signer block of a signing certificate (an ``x509.Certificate``): what the report prints,
        and what ``certify verify`` requires to match the certificate that actually signed it."""
        from certify import signing

        return cls(subject=signing.describe(cert), issuer=signing.describe_name(cert.issuer),
                   fingerprint_sha256=signing.fingerprint(cert), algorithm=signing.algorithm_name(cert),
                   development=signing.is_development(cert))


@dataclass
class ReportInput:
    """Everything a report says. Sections left ``None`` were not run."""

    product: Product
    issued_at: datetime
    methodology: dict[str, Any]
    software: list[dict[str, Any]]
    rng: Any = None
    shuffle: Any = None
    par_sheet: Any = None
    simulation: Any = None
    procedures: Any = None
    findings: list[str] = field(default_factory=list)
    signer: SignerInfo | None = None
    report_id: str | None = None
    entropy: Any = None
    integrity: Any = None
    rules: Any = None
    fairness: Any = None
    math: Any = None
    required: tuple[str, ...] = REQUIRED_SECTIONS


def _check_product(p: Product, pay_tables: bool = True) -> None:
    """``pay_tables``: the report judges a game, so its pay-table identity is required."""
    d = asdict(p)
    for key in ("game", "spec", "spec_version", "rng_module_version", "suite_version"):
        _str(d, key, "product")
    if (pay_tables or p.paytable_sha256) and not _HEX64.match(p.paytable_sha256):
        _fail("product.paytable_sha256", "64 lowercase hex digits (SHA-256)", p.paytable_sha256)


def _check_methodology(m: Mapping) -> dict[str, Any]:
    m = dict(_mapping(m, "methodology"))
    alpha = _num(m.get("alpha"), "methodology.alpha", optional=False)
    if not 0 < alpha < 1:
        _fail("methodology.alpha", "a number in (0, 1)", alpha)
    _str(m, "multiple_testing", "methodology")
    seeds = []
    for i, s in enumerate(_list(m.get("seeds") or [], "methodology.seeds")):
        s = dict(_mapping(s, f"methodology.seeds[{i}]"))
        _str(s, "purpose", f"methodology.seeds[{i}]")
        value = s.get("value")
        if value is not None and not isinstance(value, (int, bytes)) or isinstance(value, bool):
            _fail(f"methodology.seeds[{i}].value", "the seed as a non-negative int or bytes (or null: withheld)", value)
        commitment = s.get("commitment")
        if commitment is None and value is not None:
            commitment = seed_commitment(value)
        if not isinstance(commitment, str) or not _HEX64.match(commitment):
            _fail(f"methodology.seeds[{i}].commitment", "a SHA-256 hex digest (or a value to hash)", commitment)
        if value is not None and seed_commitment(value) != commitment:
            _fail(f"methodology.seeds[{i}]", "a commitment equal to rng.streams.seed_commitment(value)", commitment)
        seeds.append({"purpose": s["purpose"], "commitment": commitment,
                      "value": None if value is None else value.hex() if isinstance(value, bytes) else str(value)})
    m = {k: (v if k == "seeds" else jsonable(v)) for k, v in m.items()}
    m["seeds"] = seeds
    m["sample_sizes"] = {str(k): v for k, v in _mapping(m.get("sample_sizes") or {}, "methodology.sample_sizes").items()}
    return m


def _check_software(rows: list) -> list[dict[str, Any]]:
    out = []
    for i, r in enumerate(_list(rows, "software")):
        r = _mapping(r, f"software[{i}]")
        _str(r, "path", f"software[{i}]")
        if not _HEX64.match(str(r.get("sha256"))):
            _fail(f"software[{i}].sha256", "a SHA-256 hex digest", r.get("sha256"))
        out.append({"path": r["path"], "sha256": r["sha256"], "role": str(r.get("role") or "source")})
    if not out:
        _fail("software", "at least one identified file", [])
    return out


def standards_tested(sections: Mapping[str, dict | None]) -> list[dict[str, str]]:
    """The standards this report can claim: only the parts that were actually run."""
    out = []
    rng = sections.get("rng")
    if rng and rng["kat"]:
        out.append({"standard": "NIST SP 800-90A Rev. 1",
                    "tested": "DRBG known-answer tests (CAVP vectors) of the certified DRBG"})
    entropy = sections.get("entropy")
    if entropy:
        restart = " and the restart tests (3.1.4)" if entropy.get("restart") else ""
        track = ("the IID tests (5.1, 5.2) and the most common value estimate"
                 if entropy["track"] == "IID" else "the ten non-IID estimators (6.3)")
        out.append({"standard": "NIST SP 800-90B (2018)",
                    "tested": f"min-entropy of the noise source's samples: {track}{restart}, with the "
                              "continuous health-test cutoffs it implies (4.4)"})
    if rng and rng["health"]:
        out.append({"standard": "NIST SP 800-90B Section 4.4",
                    "tested": "continuous health tests (repetition count, adaptive proportion)"})
    if rng and rng["tests"]:
        out.append({"standard": "NIST SP 800-22 Rev. 1a",
                    "tested": f"statistical test suite on the DRBG output ({len(rng['tests'])} results)"})
    gli = []
    if sections.get("shuffle"):
        gli.append("shuffle and dealt-card uniformity")
    if sections.get("par_sheet"):
        gli.append("theoretical return (PAR sheet)")
    if sections.get("simulation"):
        gli.append("game outcomes and RTP against the PAR sheet")
    if sections.get("procedures"):
        gli.append("table procedures and settlement")
    if sections.get("integrity") or sections.get("rules"):
        gli.append("the rounds played, from the operator's round logs: integrity and every settlement")
    if sections.get("fairness"):
        gli.append("the cards as dealt in those rounds")
    if sections.get("math"):
        gli.append("their outcomes against the PAR sheet")
    if gli:
        out.append({"standard": "GLI-11 / GLI-19 style evaluation (not a GLI certification)",
                    "tested": "; ".join(gli)})
    return out


def _auto_findings(sections: Mapping[str, dict | None]) -> list[dict[str, str]]:
    findings = []
    for key, sec in sections.items():
        title = SECTION_TITLES[key]
        if sec is None:
            findings.append({"severity": "blocking", "section": title,
                             "text": f"{title}: not run. The report cannot certify without it."})
            continue
        if key == "entropy":
            if sec["status"] == FAIL:
                reasons = "; ".join(str(r) for r in sec["reasons"]) or "no min-entropy could be assessed"
                findings.append({"severity": "blocking", "section": title,
                                 "text": f"No min-entropy is assessed: {reasons}."})
            continue
        for group in ("kat", "health", "tests"):
            for t in sec.get(group, []):
                if t["verdict"] == FAIL:
                    family_ok = (group == "tests" and t["pvalue"] is not None and sec.get("family")
                                 and sec["family"]["verdict"] == PASS)
                    severity = "note" if family_ok else "blocking"
                    extra = (" (within the battery's multiple-testing allowance: "
                             f"{sec['family']['name']} passes)") if family_ok else ""
                    findings.append({"severity": severity, "section": title,
                                     "text": f"{t['name']}: p = {_fmt_p(t['pvalue'])} below alpha {t['alpha']}{extra}."})
        if sec.get("family") and sec["family"]["verdict"] == FAIL:
            findings.append({"severity": "blocking", "section": title,
                             "text": f"{sec['family']['name']}: the battery fails after multiple-testing correction."})
        if key == "simulation":
            severity = "note" if sec["family"] and sec["family"]["verdict"] == PASS else "blocking"
            if sec["chi_square"]["verdict"] == FAIL:
                findings.append({"severity": severity, "section": title,
                                 "text": f"Outcome frequencies differ from the PAR sheet: chi-square p = "
                                         f"{_fmt_p(sec['chi_square']['pvalue'])}."})
            if not sec["rtp"]["passed"]:
                findings.append({"severity": severity, "section": title,
                                 "text": "Theoretical RTP outside the simulated confidence interval."})
        if key in ("procedures", "integrity", "rules"):
            for s in sec["scenarios"]:
                if s["status"] == FAIL:
                    findings.append({"severity": "blocking", "section": title,
                                     "text": f"Scenario {s['id']} failed: expected {_short(s['expected'])}, "
                                             f"actual {_short(s['actual'])}."})
    return findings


def _fmt_p(p: Any) -> str:
    return f"{p:.6g}" if isinstance(p, (int, float)) else str(p)


def _short(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(jsonable(value), sort_keys=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def paytable_identity(pay_tables: Any) -> str:
    """SHA-256 of the pay tables in canonical JSON: the pay-table identity a report prints."""
    return sha256_hex(json.dumps(jsonable(pay_tables), sort_keys=True, separators=(",", ":")).encode())


@dataclass(frozen=True)
class Judgement:
    """A report's verdict and why: the one place a verdict word is decided (``build_content`` for
    every report; ``certify audit`` for its text, ``--json`` and exit code, on the same sections)."""

    sections: dict[str, dict | None]
    statuses: dict[str, str]
    verdict: str
    findings: list[dict[str, str]]

    @property
    def exit_code(self) -> int:
        """0 for PASS only: a FAIL and an INCOMPLETE are both exit 1."""
        return 0 if self.verdict == VERDICT_PASS else 1

    @property
    def reasons(self) -> list[str]:
        return [f["text"] for f in self.findings if f["severity"] == "blocking"]


def judge(keys: tuple[str, ...], raw: Mapping[str, Any]) -> Judgement:
    """Validate and judge the sections ``keys`` (a ``None`` section was not run): FAIL when one
    failed, else INCOMPLETE when one was not run, else PASS."""
    sections: dict[str, dict | None] = {}
    for key in keys:
        sections[key] = None if raw.get(key) is None else _SECTION_BUILDERS[key](raw[key], key)
    statuses = {k: (NOT_RUN if s is None else s["status"]) for k, s in sections.items()}
    if FAIL in statuses.values():
        verdict = VERDICT_FAIL
    elif NOT_RUN in statuses.values():
        verdict = VERDICT_INCOMPLETE
    else:
        verdict = VERDICT_PASS
    return Judgement(sections, statuses, verdict, _auto_findings(sections))


def build_content(data: ReportInput) -> dict[str, Any]:
    """Validate the input and judge it: the single content dict behind the PDF and the JSON."""
    required = tuple(data.required)
    if required not in (REQUIRED_SECTIONS, ENTROPY_REPORT, AUDIT_REPORT):
        _fail("required", f"{list(REQUIRED_SECTIONS)} (a certification), {list(ENTROPY_REPORT)} or "
                          f"{list(AUDIT_REPORT)} (an audit)", list(required))
    _check_product(data.product, pay_tables="par_sheet" in required)
    if data.issued_at.tzinfo is None:
        _fail("issued_at", "a timezone-aware datetime", data.issued_at)
    methodology = _check_methodology(data.methodology)
    software = _check_software(data.software)
    keys = required + tuple(k for k in OPTIONAL_SECTIONS if getattr(data, k) is not None and k not in required)
    stray = [k for k in REQUIRED_SECTIONS + AUDIT_REPORT if k not in keys and getattr(data, k) is not None]
    if stray:
        _fail("required", f"every section given ({stray}) among the report's sections", list(required))
    judged = judge(keys, {key: getattr(data, key) for key in keys})
    sections, statuses, verdict = judged.sections, judged.statuses, judged.verdict
    _check_par_code(sections.get("par_sheet"), software)
    findings = judged.findings + [
        {"severity": "note", "section": "Findings", "text": str(f)} for f in data.findings]
    content: dict[str, Any] = {
        "schema": SCHEMA,
        "report_id": data.report_id,
        "issued_at": data.issued_at.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "product": asdict(data.product),
        "verdict": verdict,
        "section_status": statuses,
        "standards": standards_tested(sections),
        "methodology": methodology,
        "software": software,
        "software_fingerprint": software_fingerprint(software),
        "sections": sections,
        "findings": findings,
        "signer": asdict(data.signer) if data.signer else None,
    }
    if required != REQUIRED_SECTIONS:   # a certification report's content is unchanged
        content["required_sections"] = list(required)
    if content["report_id"] is None:
        body = {k: v for k, v in content.items() if k not in ("report_id", "signer")}
        content["report_id"] = "CR-" + sha256_hex(canonical_json(body))[:16].upper()
    return jsonable(content)


def software_fingerprint(rows: list[dict[str, Any]]) -> str:
    """SHA-256 over ``sha256sum``-style lines ("<hash>  <path>\\n", sorted by path)."""
    lines = "".join(f"{r['sha256']}  {r['path']}\n" for r in sorted(rows, key=lambda r: r["path"]))
    return sha256_hex(lines.encode("utf-8"))
