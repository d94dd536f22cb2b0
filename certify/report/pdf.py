"""The PDF report (reportlab platypus), rendered from the content dict of :mod:`.model`.

Deterministic: reportlab's invariant mode, the standard (unembedded) Helvetica/Courier fonts,
and the creation date set to the report's pinned ``issued_at``: the same content gives the same
bytes. "Page x of N" comes from a canvas that holds every page until the total is known.
The last page carries an empty box where :mod:`certify.signing` places the visible signature
field ``Signature1`` (see :data:`SIGNATURE_BOX`).
"""

from __future__ import annotations

import io
import json
from datetime import datetime
from typing import Any
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.pdfgen import canvas as rl_canvas
from reportlab.platypus import (BaseDocTemplate, CondPageBreak, Frame, KeepTogether, NextPageTemplate,
                                PageBreak, PageTemplate, Paragraph, Spacer, Table, TableStyle)
from reportlab.platypus.flowables import PageBreakIfNotEmpty

from certify.report import charts
from certify.signing import SIGNATURE_BOX, SIGNATURE_FIELD
from certify.report.model import (AUDIT_REPORT, FAIL, NOT_RUN, PASS, SECTION_TITLES,
                                  VERDICT_PASS, jsonable)

PAGE_W, PAGE_H = A4
MARGIN = 50.0
BODY_W = PAGE_W - 2 * MARGIN
# The signature field's name and box (x1, y1, x2, y2 on the last page; x1 = MARGIN) belong to the
# signing code, which places the field; the report leaves the box empty.
# The report's identity in the PDF's Keywords, machine-readable and covered by the signature: its id,
# the SHA-256 of its JSON twin and of the signer's certificate (what certify.report.verify checks).
IDENTITY_KEYS = ("certify-report", "json-sha256", "signer-sha256")

GREEN = colors.HexColor("#1e7b34")
RED = colors.HexColor("#c00000")
AMBER = colors.HexColor("#9c5700")
GRID = colors.HexColor("#bfbfbf")
HEAD_BG = colors.HexColor("#dde5ee")

# Characters outside the standard fonts' WinAnsi encoding, spelled so they print.
_ASCII_FOR = str.maketrans({"\u2212": "-", "\u2264": "<=", "\u2265": ">=", "\u221a": "sqrt",
                            "\u2248": "~", "\u2260": "!=", "\u03b1": "alpha", "\u03c7": "chi"})


def _styles() -> dict[str, ParagraphStyle]:
    base = getSampleStyleSheet()
    s = {
        "title": ParagraphStyle("title", parent=base["Title"], fontSize=20, leading=24, spaceAfter=6),
        "subtitle": ParagraphStyle("subtitle", parent=base["Normal"], fontSize=11, alignment=TA_CENTER,
                                   textColor=colors.HexColor("#404040"), spaceAfter=14),
        # keepWithNext: a heading never ends a page without the first lines of what it heads.
        "h1": ParagraphStyle("h1", parent=base["Heading1"], fontSize=14, leading=17, spaceBefore=10,
                             spaceAfter=6, textColor=colors.HexColor("#1f3a5f"), keepWithNext=1),
        "h2": ParagraphStyle("h2", parent=base["Heading2"], fontSize=11, leading=14, spaceBefore=8, spaceAfter=4,
                             keepWithNext=1),
        "body": ParagraphStyle("body", parent=base["Normal"], fontSize=9, leading=12, spaceAfter=4),
        "small": ParagraphStyle("small", parent=base["Normal"], fontSize=7.5, leading=9.5),
        "cell": ParagraphStyle("cell", parent=base["Normal"], fontSize=8, leading=10),
        "cellb": ParagraphStyle("cellb", parent=base["Normal"], fontName="Helvetica-Bold", fontSize=8, leading=10),
        "mono": ParagraphStyle("mono", parent=base["Normal"], fontName="Courier", fontSize=7, leading=8.5,
                               wordWrap="CJK"),
        "wrap": ParagraphStyle("wrap", parent=base["Normal"], fontSize=7.5, leading=9.5, wordWrap="CJK"),
    }
    return s


S = _styles()


def _t(text: Any) -> str:
    """Text for a Paragraph: escaped markup, and only characters the standard fonts print."""
    return escape(str(text).translate(_ASCII_FOR))


def P(text: Any, style: str = "cell") -> Paragraph:
    return Paragraph(_t(text), S[style])


def _fmt_p(p: Any) -> str:
    if not isinstance(p, (int, float)):
        return "-" if p is None else str(p)
    return f"{p:.4f}" if p >= 1e-4 else f"{p:.2e}"


def _fmt_num(x: Any, digits: int = 6) -> str:
    if isinstance(x, bool) or x is None:
        return "-" if x is None else str(x)
    if isinstance(x, int):
        return f"{x:,}"
    if isinstance(x, float):
        return f"{x:.{digits}g}"
    return str(x)


def _pct(x: Any, digits: int = 4) -> str:
    return f"{100 * x:.{digits}f}%" if isinstance(x, (int, float)) else "-"


def _status_markup(status: str) -> str:
    colour = {PASS: GREEN, FAIL: RED, NOT_RUN: AMBER}.get(status, colors.black)
    label = {PASS: "PASS", FAIL: "FAIL", NOT_RUN: "NOT RUN"}.get(status, status.upper())
    return f'<font color="{colour.hexval()}"><b>{_t(label)}</b></font>'


def _status_para(status: str) -> Paragraph:
    return Paragraph(_status_markup(status), S["cell"])


class _Table(Table):
    """A table that never leaves fewer than WIDOW_ROWS of its rows alone at the top of a page: a
    split that would is made that many rows earlier (or not at all, when too few would stay)."""

    WIDOW_ROWS = 3

    def split(self, availWidth, availHeight):
        parts = super().split(availWidth, availHeight)
        if len(parts) != 2 or parts[1]._nrows - self.repeatRows >= self.WIDOW_ROWS:
            return parts
        keep = self._nrows - self.WIDOW_ROWS          # rows the first part may hold, header included
        if keep <= self.repeatRows + self.WIDOW_ROWS:
            return []                                 # too short to split well: the whole table moves on
        return super().split(availWidth, sum(self._rowHeights[:keep]))


def _table(rows: list[list[Any]], widths: list[float], header: bool = True,
           extra: list[tuple] | None = None, repeat: bool = True) -> Table:
    cells = [[c if not isinstance(c, (str, int, float)) or isinstance(c, bool) else P(c) for c in row]
             for row in rows]
    table = _Table(cells, colWidths=widths, repeatRows=1 if header and repeat else 0, hAlign="LEFT")
    style = [("GRID", (0, 0), (-1, -1), 0.4, GRID), ("VALIGN", (0, 0), (-1, -1), "TOP"),
             ("TOPPADDING", (0, 0), (-1, -1), 2), ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
             ("LEFTPADDING", (0, 0), (-1, -1), 3), ("RIGHTPADDING", (0, 0), (-1, -1), 3)]
    if header:
        style.append(("BACKGROUND", (0, 0), (-1, 0), HEAD_BG))
    table.setStyle(TableStyle(style + (extra or [])))
    return table


def _header_row(*names: str) -> list[Paragraph]:
    return [P(n, "cellb") for n in names]


def _kv_table(pairs: list[tuple[str, Any]], key_w: float = 150) -> Table:
    rows = [[P(k, "cellb"), v if isinstance(v, Paragraph) else P(v)] for k, v in pairs]
    return _table(rows, [key_w, BODY_W - key_w], header=False)


def _not_run(title: str) -> list:
    box = Table([[Paragraph(f'<font color="{AMBER.hexval()}"><b>NOT RUN.</b></font> '
                            f"{_t(title)} was not run for this report. The verdict cannot be PASS "
                            "while a required part of the evaluation is missing.", S["body"])]],
                colWidths=[BODY_W])
    box.setStyle(TableStyle([("BOX", (0, 0), (-1, -1), 0.8, AMBER),
                             ("BACKGROUND", (0, 0), (-1, -1), colors.HexColor("#fff4e0"))]))
    return [box]


# ----------------------------------------------------------------------------- sections


def _certificate(c: dict) -> list:
    prod = c["product"]
    out: list = [Spacer(1, 30), Paragraph("Certification Test Report", S["title"]),
                 Paragraph(_t(f"{prod['game']} \u2014 spec {prod['spec']} version {prod['spec_version']}"),
                           S["subtitle"])]
    verdict = c["verdict"]
    colour = GREEN if verdict == VERDICT_PASS else RED if verdict == "FAIL" else AMBER
    meaning = {"PASS": "every required part of the evaluation was run and passed",
               "FAIL": "at least one part of the evaluation failed (see Findings)",
               "INCOMPLETE": "at least one required part of the evaluation was not run"}[verdict]
    banner = Table([[Paragraph(f'<font size="18" color="{colour.hexval()}"><b>VERDICT: {verdict}</b></font>',
                               S["body"])], [P(f"Meaning: {meaning}.", "body")]], colWidths=[BODY_W])
    banner.setStyle(TableStyle([("BOX", (0, 0), (-1, -1), 1.5, colour), ("TOPPADDING", (0, 0), (-1, -1), 6),
                                ("BOTTOMPADDING", (0, 0), (-1, -1), 6), ("LEFTPADDING", (0, 0), (-1, -1), 8)]))
    out += [_kv_table([
        ("Report ID", c["report_id"]),
        ("Date of issue", c["issued_at"]),
        ("Game", prod["game"]),
        ("Spec / version", f"{prod['spec']} / {prod['spec_version']}"),
        ("Spec file SHA-256", Paragraph(_t(prod.get("spec_sha256") or "-"), S["mono"])),
        ("Pay-table identity (SHA-256)", Paragraph(_t(prod["paytable_sha256"]), S["mono"])),
        ("RNG module version", prod["rng_module_version"]),
        ("Test suite version", prod["suite_version"]),
        ("Software fingerprint (SHA-256)", Paragraph(_t(c["software_fingerprint"]), S["mono"])),
    ], key_w=170), Spacer(1, 12), Paragraph("Standards tested against", S["h2"])]
    if c["standards"]:
        rows = [_header_row("Standard", "What was tested")]
        rows += [[P(s["standard"], "cellb"), P(s["tested"])] for s in c["standards"]]
        out.append(_table(rows, [170, BODY_W - 170]))
    else:
        out.append(P("None: no test of any standard was run for this report.", "body"))
    out += [Spacer(1, 14), banner, Spacer(1, 12)]
    out += _signer_notice(c)
    return out


def _signer_notice(c: dict) -> list:
    signer = c.get("signer")
    if signer is None:
        text, colour = ("UNSIGNED: this report carries no signature and must not be relied on.", RED)
    elif signer["development"]:
        text, colour = ("Signed with a DEVELOPMENT key, NOT FOR SUBMISSION. The signing certificate was "
                        "generated automatically on the machine that produced this report and identifies "
                        "no organisation; a regulator or lab must not accept this report as submitted.", RED)
    else:
        text, colour = (f"Signed by {signer['subject']} (certificate SHA-256 {signer['fingerprint_sha256']}). "
                        "Check with: certify verify <file> --root <issuer certificate>.", colors.black)
    box = Table([[Paragraph(f'<font color="{colour.hexval()}"><b>{_t(text)}</b></font>', S["body"])]],
                colWidths=[BODY_W])
    box.setStyle(TableStyle([("BOX", (0, 0), (-1, -1), 1.0, colour), ("LEFTPADDING", (0, 0), (-1, -1), 8)]))
    return [box]


def _summary(c: dict, findings_number: int = 11) -> list:
    rows = [_header_row("Section", "Status", "Key figures")]
    for key in c["section_status"]:
        sec = c["sections"][key]
        status = c["section_status"][key]
        rows.append([P(SECTION_TITLES[key], "cellb"),
                     _status_para(status) if status != "computed" else P("computed"),
                     P(_key_figures(key, sec))])
    blocking = sum(1 for f in c["findings"] if f["severity"] == "blocking")
    return [Paragraph("1. Results summary", S["h1"]), _table(rows, [120, 60, BODY_W - 180]), Spacer(1, 6),
            P(f"Overall verdict: {c['verdict']}. Blocking findings: {blocking}; notes: "
              f"{len(c['findings']) - blocking} (section {findings_number}).", "body")]


def _key_figures(key: str, sec: dict | None) -> str:
    if sec is None:
        return "Not run."
    if key in ("rng", "shuffle", "fairness", "math"):
        tests = sec["tests"] + sec["kat"] + sec["health"]
        applicable = [t for t in tests if t["verdict"] != "not applicable"]
        failed = [t for t in applicable if t["verdict"] == FAIL]
        text = f"{len(applicable)} applicable results, {len(failed)} below alpha"
        if sec["family"]:
            text += f"; family verdict ({sec['family']['name']}): {sec['family']['verdict']}"
        return text + "."
    if key == "par_sheet":  # every wager, so the spec strategy's edge (the one simulated) is not hidden
        parts = []
        for d in sec["wagers"]:
            part = f"{d['name']}: house edge {_pct(d.get('house_edge'))}"
            if str(d.get("strategy", "")).startswith("optimal"):
                part += " (optimal strategy)"
            if isinstance(d.get("element_of_risk"), (int, float)):
                part += f", element of risk {_pct(d['element_of_risk'])}"
            parts.append(part + ("" if d.get("exact") else " (not exact: with confidence interval)"))
        exact = "all exact" if all(d.get("exact") for d in sec["wagers"]) else "see section 8"
        source = {"cache": " Read from the PAR-sheet cache (checked entry; section 8).",
                  "computed": " Computed for this report."}.get((sec.get("provenance") or {}).get("source"), "")
        return "; ".join(parts) + f" ({exact})." + source
    if key == "simulation":
        rtp = sec["rtp"]
        ci = (f" ({rtp['confidence'] * 100:g}% CI {_pct(rtp['ci_low'])} to {_pct(rtp['ci_high'])})"
              if isinstance(rtp.get("ci_low"), (int, float)) and isinstance(rtp.get("ci_high"), (int, float))
              else "")
        return (f"{sec['rounds']:,} rounds; chi-square p = {_fmt_p(sec['chi_square']['pvalue'])}; "
                f"RTP {_pct(rtp['observed'])} observed{ci} vs {_pct(rtp['theoretical'])} theoretical.")
    if key in ("procedures", "integrity", "rules"):
        if key != "procedures":
            return "; ".join(f"{s['id']}: {s['actual']['findings']:,} findings" for s in sec["scenarios"]) + "."
        failed = sum(1 for s in sec["scenarios"] if s["status"] == FAIL)
        return f"{len(sec['scenarios'])} scenarios, {failed} failed."
    if key == "entropy":
        if sec["status"] != PASS:
            return (f"{sec['track']} track: no min-entropy assessed "
                    f"({'; '.join(sec['reasons']) or 'see the SP 800-90B section'}).")
        return (f"{sec['track']} track, {sec['samples']:,} samples of {sec['bits_per_symbol']} bit(s): assessed "
                f"min-entropy {sec['assessed_min_entropy']:.6f} bits per sample.")
    return ""


def _scope(c: dict) -> list:
    not_run = [SECTION_TITLES[k] for k, s in c["section_status"].items() if s == NOT_RUN]
    items = [
        "This report covers the software identified in section 3, byte for byte. Any change to any of "
        "those files, to the spec or to the fixtures is a different build that this report does not cover.",
        "The RNG was evaluated as software (a deterministic random bit generator seeded from the operating "
        "system's entropy source). " + ("The noise source's samples were assessed as "
                                        "SP 800-90B prescribes (section 11)." if c["sections"].get("entropy") else
                                        "The physical entropy source itself was not assessed (no SP 800-90B "
                                        "entropy estimation of the noise source)."),
        "Statistical tests bound, but cannot exclude, a defect: each has the stated significance level and "
        "sample size. Simulated figures are given with their confidence intervals.",
        "The game was evaluated from its spec and the engine in this suite; the behaviour of a deployed "
        "system (user interface, wallet, network, jackpot controller) is outside this report.",
        "No source-code review or penetration test was performed as part of this report.",
    ]
    if not_run:
        items.append("Not run for this report (the verdict cannot be PASS): " + ", ".join(not_run) + ".")
    else:
        items.append("Every required part of the evaluation was run.")
    return [Paragraph("2. Scope and limitations", S["h1"])] + [P("\u2022 " + i, "body") for i in items]


def _software(c: dict) -> list:
    files = ("every source file of rng/ and certify/, of the spec and of the fixtures"
             if any(r["role"] != "source" for r in c["software"]) else "every source file of rng/ and certify/")
    out = [Paragraph("3. Software identification", S["h1"]),
           P(f"SHA-256 of {files}, as "
             "'sha256sum' prints them (paths relative to the project root). The software fingerprint is the "
             "SHA-256 of these lines sorted by path, each ending in a newline.", "body"),
           _kv_table([("Files", str(len(c["software"]))),
                      ("Software fingerprint", Paragraph(_t(c["software_fingerprint"]), S["mono"]))], 120),
           Spacer(1, 6)]
    rows = [_header_row("File", "Role", "SHA-256")]
    rows += [[Paragraph(_t(r["path"]), S["wrap"]), P(r["role"]), Paragraph(_t(r["sha256"]), S["mono"])]
             for r in c["software"]]
    out.append(_table(rows, [175, 40, BODY_W - 215]))
    return out


def _descriptions(c: dict) -> list:
    out = [Paragraph("4. RNG and shuffle description", S["h1"])]
    for key, title in (("rng", "Random number generator"), ("shuffle", "Shuffle and dealing")):
        out.append(Paragraph(title, S["h2"]))
        sec = c["sections"][key]
        if sec is None or not sec["description"]:
            out += _not_run(f"The {title.lower()} description") if sec is None else [P("No description given.", "body")]
            continue
        out.append(_kv_table(list(sec["description"].items()), 140))
    return out


def _methodology(c: dict, number: int = 5) -> list:
    m = c["methodology"]
    pairs = [("Significance level (alpha)", _fmt_num(m["alpha"])),
             ("Multiple testing", m["multiple_testing"])]
    if m.get("profile"):
        pairs.append(("Profile", m["profile"]))
    for k, v in m["sample_sizes"].items():
        pairs.append((f"Sample size: {k}", _fmt_num(v)))
    for k, v in m.items():
        if k not in ("alpha", "multiple_testing", "profile", "sample_sizes", "seeds"):
            pairs.append((k.replace("_", " ").capitalize(), v if isinstance(v, str) else json.dumps(v, sort_keys=True)))
    out = [Paragraph(f"{number}. Methodology", S["h1"]), _kv_table(pairs, 170), Paragraph("Seeds", S["h2"])]
    if m["seeds"]:
        out.append(P("Each random stream is derived from a master seed (rng.streams: HKDF-SHA-256 per stream "
                     "key). The commitment is rng.streams.seed_commitment(seed), a SHA-256 over a domain-separated "
                     "encoding of the seed: a seed disclosed later can be checked against it, and the run "
                     "reproduced from it.", "body"))
        rows = [_header_row("Purpose", "Seed", "Commitment SHA-256(seed)")]
        rows += [[P(s["purpose"]), P(s["value"] if s["value"] is not None else "(withheld)"),
                  Paragraph(_t(s["commitment"]), S["mono"])] for s in m["seeds"]]
        out.append(_table(rows, [140, 90, BODY_W - 230]))
    else:
        out.append(P("No seeds recorded.", "body"))
    return out


def _test_rows(tests: list[dict]) -> list[list]:
    rows = [_header_row("Test", "n", "Statistic", "p-value", "Verdict", "What it looked at")]
    for t in tests:
        pv = _fmt_p(t["pvalue"])
        if len(t.get("pvalues") or []) > 1:  # p combines them as the last column says; it is not their minimum
            pv += f" (from {len(t['pvalues'])} p-values)"
        rows.append([P(t["name"], "cellb"), P(_fmt_num(t["n"])), P(_fmt_num(t["statistic"])), P(pv),
                     _status_para(t["verdict"]) if t["verdict"] != "not applicable" else P("n/a"),
                     Paragraph(_t(t["looked_at"] or "-"), S["wrap"])])
    return rows


_TEST_WIDTHS = [120, 52, 58, 70, 40, BODY_W - 340]


def _test_section(c: dict, key: str, number: int, title: str) -> list:
    out: list = [Paragraph(f"{number}. {title}", S["h1"])]
    sec = c["sections"][key]
    if sec is None:
        return out + _not_run(title)
    out.append(Paragraph(f"Section verdict: {_status_markup(sec['status'])}", S["body"]))
    for group, label in (("kat", "Known-answer tests"), ("health", "Health tests"), ("tests", "Statistical tests")):
        if sec[group]:
            out += [Paragraph(label, S["h2"]), _table(_test_rows(sec[group]), _TEST_WIDTHS)]
    if sec["family"]:
        f = sec["family"]
        out.append(KeepTogether([Paragraph("Battery verdict after multiple testing", S["h2"]),
                                 _table(_test_rows([f]), _TEST_WIDTHS)]))
    for note in sec["notes"]:
        out.append(P(note, "body"))
    pvalues = [p for t in sec["tests"] if t["verdict"] != "not applicable"
               for p in (t.get("pvalues") or ([t["pvalue"]] if isinstance(t["pvalue"], (int, float)) else []))
               if isinstance(p, (int, float))]
    if len(pvalues) >= 10:
        out.append(KeepTogether([
            Paragraph("Distribution of p-values", S["h2"]),
            P("A fair source gives p-values uniform on [0, 1]: about the same count in every bin.", "small"),
            charts.pvalue_histogram(pvalues, width=BODY_W)]))
    return out


def _par_sheet(c: dict) -> list:
    out: list = [Paragraph("8. PAR sheet (theoretical return)", S["h1"])]
    sec = c["sections"]["par_sheet"]
    if sec is None:
        return out + _not_run("The PAR sheet")
    out += _par_provenance(sec.get("provenance"))
    out += _table_provenance(sec.get("tables") or [])
    for i, wager in enumerate(sec["wagers"]):
        if i:
            out.append(CondPageBreak(250))
        out += _par_wager(wager, i + 1)
    for number, (key, value) in enumerate(sec["extra"].items(), len(sec["wagers"]) + 1):
        out.append(CondPageBreak(120))  # numbered, so it does not read as part of the last wager
        out.append(Paragraph(_t(f"8.{number} {key.replace('_', ' ').capitalize()}"), S["h2"]))
        out += _nested(value)
    return out


def _par_provenance(p: dict | None) -> list:
    """Whether the sheet was read from the PAR-sheet cache or computed for this report."""
    if p is None:
        return [P("Source of the sheet: not stated (computed by the caller; no cache entry named).", "body")]
    if p["source"] == "cache":
        how = ("Read from the PAR-sheet cache. The entry was accepted after checking its SHA-256, that it "
               "was computed for this spec and by this code (the fingerprint of the source files of section 3), "
               "and that its exact tables add up.")
    else:
        how = f"Computed for this report ({p['reason'] or 'no cache entry'}); the entry digest identifies this sheet."
    mono = S["mono"]
    return [P(how, "body"), _kv_table([("Source", "PAR-sheet cache" if p["source"] == "cache" else "computed"),
                                       ("Cache entry SHA-256", Paragraph(_t(p["entry_sha256"]), mono)),
                                       ("Spec content SHA-256", Paragraph(_t(p["spec_sha256"]), mono)),
                                       ("Code fingerprint", Paragraph(_t(p["code_fingerprint"]), mono))], 150),
            Spacer(1, 6)]


def _table_provenance(tables: list) -> list:
    """Whether each table entry of the PAR-sheet cache the run used (a kernel's tables) was read from
    the cache or computed, with its entry digest."""
    if not tables:
        return []
    rows = []
    for t in tables:
        how = ("read from the PAR-sheet cache (checked entry)" if t["source"] == "cache"
               else f"computed ({t['reason'] or 'no cache entry'})")
        rows.append((f"Tables '{t['kind']}'", Paragraph(_t(f"{how}; entry SHA-256 {t['entry_sha256']}"), S["mono"])))
    return [P("The simulation kernel's tables come from the PAR-sheet cache's table entries, checked as the "
              "sheet's are (SHA-256 of every array, computed for this spec and by this code):", "body"),
            _kv_table(rows, 150), Spacer(1, 6)]


def _is_scalar(v: Any) -> bool:
    return v is None or isinstance(v, (str, int, float, bool))


def _nested(value: Any) -> list:
    """Scalars of a mapping as a two-column table, then each nested part under its own label."""
    if isinstance(value, dict) and value:
        scalars = [(str(k).replace("_", " "), _cell_text(v)) for k, v in value.items() if _is_scalar(v)]
        out: list = [_kv_table(scalars, 170)] if scalars else []
        for k, v in value.items():
            if not _is_scalar(v):
                out += ([Spacer(1, 4)] if out else []) + [P(str(k).replace("_", " "), "cellb")] + _nested(v)
        return out
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [_records_table(value)]
    if isinstance(value, list) and value and all(_is_scalar(v) for v in value):  # 52o, 42o, ... not JSON
        return [Paragraph(_t(", ".join(_cell_text(v) for v in value)), S["wrap"])]
    return [Paragraph(_t(_compact(value) if value not in ([], {}) else "none"), S["wrap"])]


_PAR_FIGURES = (("house_edge", "House edge", "pct"), ("rtp", "Return to player", "pct"),
                ("element_of_risk", "Element of risk", "pct"), ("average_wager", "Average total wager", "num"),
                ("std_dev", "Standard deviation", "num"), ("hit_frequency", "Hit frequency", "pct"),
                ("maximum_payout", "Maximum payout", "num"), ("max_payout", "Maximum payout", "num"),
                ("house_edge_exact", "House edge (exact fraction)", "text"),
                ("cycle", "Game cycle (combinations)", "num"), ("samples", "Rounds behind the figures", "num"),
                ("house_edge_std_error", "House edge standard error", "pct"),
                ("house_edge_ci95", "House edge 95% interval", "interval"),
                ("meter", "Meter", "num"), ("breakeven_meter", "Break-even meter", "num"),
                ("strategy", "Strategy", "text"))


def _par_figure(value: Any, kind: str) -> str:
    if kind == "pct":
        return _pct(value, 5) if isinstance(value, (int, float)) else str(value)
    if kind == "interval" and isinstance(value, list) and len(value) == 2:
        return f"[{_pct(value[0], 5)}, {_pct(value[1], 5)}]"
    if kind == "num":
        return _fmt_num(value, 8)
    return _compact(value)


def _par_wager(d: dict, number: int) -> list:
    out: list = [Paragraph(f"8.{number} {d['name']}", S["h2"])]
    pairs = [("Method", "exact enumeration" if d.get("exact") else
              "computation with confidence interval (not exact)")]
    if "rtp" not in d and isinstance(d.get("house_edge"), (int, float)):
        pairs.append(("Return to player", _pct(1 - d["house_edge"], 5)))
    shown = set()
    for key, label, kind in _PAR_FIGURES:
        if d.get(key) not in (None, "", []) and label not in shown:
            shown.add(label)
            pairs.append((label, _par_figure(d[key], kind)))
    out.append(_kv_table(pairs, 150))
    table = d["return_table"]
    exact = any("combinations" in r for r in table)
    errors = not exact and any(isinstance(r.get("std_error"), (int, float)) for r in table)
    head = (["Event", "Pays"] + (["Combinations"] if exact else []) + ["Probability"]
            + (["Std. error"] if errors else []) + ["Return"])
    rows = [_header_row(*head)]
    for r in table:
        row = [P(r["event"]), P(_fmt_num(r.get("pays")))]
        if exact:
            row.append(P(_fmt_num(r.get("combinations"))))
        row.append(P(f"{r['probability']:.10f}"))
        if errors:
            se = r.get("std_error")
            row.append(P(f"{se:.2e}" if isinstance(se, (int, float)) else "-"))
        ret = r.get("return")
        row.append(P(f"{ret:+.10f}" if isinstance(ret, (int, float)) else "-"))
        rows.append(row)
    total_p = sum(r["probability"] for r in table)
    total_r = sum(r["return"] for r in table if isinstance(r.get("return"), (int, float)))
    total = [P("Total", "cellb"), P("")]
    if exact:
        total.append(P(_fmt_num(sum(int(r.get("combinations") or 0) for r in table))))
    total.append(P(f"{total_p:.10f}"))
    if errors:
        total.append(P(""))
    rows.append(total + [P(f"{total_r:+.10f}")])
    longest = max((len(_fmt_num(r.get("combinations"))) for r in table), default=0) if exact else 0
    if exact and longest > 20:  # a cycle of 10^24 (Mulligan): the counts need a wider column
        widths = [BODY_W - 365, 40, 160, 80, 85]
    elif exact:
        widths = [BODY_W - 335, 45, 100, 95, 95]
    elif errors:
        widths = [BODY_W - 295, 45, 90, 65, 95]
    else:
        widths = [BODY_W - 235, 45, 95, 95]
    out += [Spacer(1, 4), _table(rows, widths),
            P("Pays: the player's net result in the event, in units of the initial bet (the Ante; for a side "
              "bet, the side bet itself); Return = Pays x Probability. House edge, average total wager and "
              "standard deviation are in the same units; element of risk is per unit of total amount wagered.",
              "small")]
    table_rows = d.get("strategy_table") or []
    if 0 < len(table_rows) <= 40:
        out.append(KeepTogether([Paragraph("Strategy table", S["h2"]), _records_table(table_rows)]))
    elif table_rows:
        out.append(P(f"The strategy table ({len(table_rows):,} rows, every decision the computation derived) "
                     "is in the JSON report under sections.par_sheet.wagers[].strategy_table.", "small"))
    if d.get("rtp_bands"):
        out.append(KeepTogether([Paragraph("RTP confidence bands", S["h2"]),
                                 P("The range the observed RTP falls in with the given probability after the "
                                   "given number of rounds.", "small"), _rtp_bands(d["rtp_bands"])]))
    for note in d.get("notes") or []:
        out.append(P(note, "small"))
    return out


def _rtp_bands(bands: Any) -> Any:
    """Rows ``{rounds, level, low, high}`` pivoted: one line per round count, one column per level."""
    if not all(isinstance(b, dict) and {"rounds", "level", "low", "high"} <= set(b) for b in bands):
        return _records_table(bands)
    levels = sorted({b["level"] for b in bands})
    by_rounds: dict[Any, dict] = {}
    for b in bands:
        by_rounds.setdefault(b["rounds"], {})[b["level"]] = b
    rows = [_header_row("Rounds", *[f"{100 * lv:g}% band" for lv in levels])]
    for rounds in sorted(by_rounds):
        cells = [P(_fmt_num(rounds))]
        for lv in levels:
            b = by_rounds[rounds].get(lv)
            cells.append(P(f"{_pct(b['low'], 3)} to {_pct(b['high'], 3)}" if b else "-"))
        rows.append(cells)
    first = 90.0
    return _table(rows, [first] + [(BODY_W - first) / len(levels)] * len(levels))


# columns of records tables in reading order (the JSON report sorts its keys); others follow
_COLUMN_ORDER = ("hand", "category", "class", "hands", "stand", "ev_stand", "ev_mulligan",
                 "difference", "decision")


def _records_table(records: Any) -> Any:
    """A list of flat dicts as tables, one per set of keys, columns in reading order (long lists
    are cut with a note; exact fractions, keys ending in ``_exact``, stay in the JSON); anything
    else as text."""
    if not (isinstance(records, list) and records and all(isinstance(r, dict) for r in records)):
        return Paragraph(_t(_compact(records)), S["wrap"])
    groups: dict[tuple, list] = {}
    for r in records:
        groups.setdefault(tuple(sorted(r)), []).append(r)
    parts: list = []
    for keyset, group in groups.items():
        keys = sorted((k for k in keyset if not k.endswith("_exact")),
                      key=lambda k: (_COLUMN_ORDER.index(k) if k in _COLUMN_ORDER else len(_COLUMN_ORDER), k))
        keys = keys[:10]
        rows = [_header_row(*[k.replace("_", " ") for k in keys])]
        limit = 60
        for r in group[:limit]:
            rows.append([Paragraph(_t(_cell_text(r.get(k))), S["wrap"]) for k in keys])
        parts.append(_table(rows, [BODY_W / len(keys)] * len(keys)))
        if len(group) > limit:
            parts.append(P(f"... {len(group) - limit} more rows in the JSON report.", "small"))
        parts.append(Spacer(1, 4))
    return parts[0] if len(parts) == 2 else KeepTogether(parts[:-1])


def _cell_text(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    if isinstance(value, float):
        return _fmt_num(value, 6)
    if isinstance(value, (dict, list)):
        return _compact(value, 200)
    return "-" if value is None else str(value)


def _compact(value: Any, limit: int = 1500) -> str:
    text = value if isinstance(value, str) else json.dumps(jsonable(value), sort_keys=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _simulation(c: dict) -> list:
    out: list = [Paragraph("9. Simulation verification", S["h1"])]
    sec = c["sections"]["simulation"]
    if sec is None:
        return out + _not_run("The simulation verification")
    rtp, chi = sec["rtp"], sec["chi_square"]
    statement = (f"Over {sec['rounds']:,} simulated rounds the observed return to player is {_pct(rtp['observed'])}; "
                 f"its {rtp['confidence'] * 100:g}% confidence interval is [{_pct(rtp['ci_low'])}, "
                 f"{_pct(rtp['ci_high'])}], which {'contains' if rtp['passed'] else 'does NOT contain'} the "
                 f"theoretical return {_pct(rtp['theoretical'])} of the PAR sheet"
                 + (f" (wager tallied: {sec['extra']['wager_tallied']})." if sec["extra"].get("wager_tallied")
                    else "."))
    out += [Paragraph(f"Section verdict: {_status_markup(sec['status'])}", S["body"]),
            P(statement, "body"),
            P(f"Outcome frequencies against the PAR sheet: chi-square = {_fmt_num(chi['statistic'])} with "
              f"{_fmt_num(chi.get('dof'))} degrees of freedom, p = {_fmt_p(chi['pvalue'])} at alpha "
              f"{chi['alpha']}: {chi['verdict'].upper()}."
              + (f" Looked at: {chi['looked_at']}." if chi.get("looked_at") else ""), "body")]
    z = charts.standardised_residuals(sec["observed"], sec["expected"])
    rows = [_header_row("Outcome", "Observed", "Expected", "Obs. share", "Exp. share", "(O-E)/sqrt(E)")]
    total_o, total_e = sum(sec["observed"]) or 1, sum(sec["expected"]) or 1
    for name, o, e, zi in zip(sec["categories"], sec["observed"], sec["expected"], z):
        rows.append([P(name), P(_fmt_num(o)), P(f"{e:,.1f}"), P(f"{100 * o / total_o:.5f}%"),
                     P(f"{100 * e / total_e:.5f}%"), P(f"{zi:+.2f}")])
    out.append(_table(rows, [BODY_W - 320, 70, 70, 60, 60, 60]))
    if sec["tests"]:
        out += [Paragraph("Verification tests", S["h2"]), _table(_test_rows(sec["tests"]), _TEST_WIDTHS)]
    if sec["family"]:
        out.append(KeepTogether([Paragraph("Verdict after multiple testing", S["h2"]),
                                 _table(_test_rows([sec["family"]]), _TEST_WIDTHS)]))
    if sec["extra"]:
        out.append(KeepTogether([
            Paragraph("Run details", S["h2"]),
            _kv_table([(k.replace("_", " ").capitalize(), Paragraph(_t(_compact(v)), S["wrap"]))
                       for k, v in sec["extra"].items()], 150)]))
    out += [KeepTogether([Paragraph("Observed against expected outcome frequencies", S["h2"]),
                          charts.outcome_chart(sec["categories"], sec["observed"], sec["expected"], width=BODY_W)]),
            KeepTogether([Paragraph("Deviation per outcome", S["h2"]),
                          P("Rare outcomes are invisible as shares; their standardised deviation is not. A fair "
                            "engine keeps nearly all bars inside the dashed +/-2 guides.", "small"),
                          charts.residual_chart(sec["categories"], sec["observed"], sec["expected"],
                                                width=BODY_W)])]
    return out


def _procedures(c: dict, key: str = "procedures", number: int = 10) -> list:
    out: list = [Paragraph(f"{number}. {SECTION_TITLES[key]}", S["h1"])]
    sec = c["sections"][key]
    if sec is None:
        return out + _not_run(SECTION_TITLES[key])
    failed = sum(1 for s in sec["scenarios"] if s["status"] == FAIL)
    out.append(Paragraph(f"Section verdict: {_status_markup(sec['status'])} "
                         f"({len(sec['scenarios'])} scenarios, {failed} failed)", S["body"]))
    if sec["fixtures"]:
        out.append(P("Fixture files: " + ", ".join(sec["fixtures"]), "small"))
    rows = [_header_row("Scenario", "Rule", "Result", "Expected", "Actual")]
    for s in sec["scenarios"]:
        rule = s["rule"] + (f" [{s['source']}]" if s["source"] else "")
        same = s["status"] == PASS
        rows.append([Paragraph(_t(s["id"]), S["wrap"]), Paragraph(_t(rule), S["wrap"]), _status_para(s["status"]),
                     Paragraph(_t(_settlement_text(s["expected"])), S["wrap"]),
                     Paragraph(_t("as expected" if same else _settlement_text(s["actual"])), S["wrap"])])
    out.append(_table(rows, [105, 140, 35, (BODY_W - 280) * 0.55, (BODY_W - 280) * 0.45]))
    return out


def _settlement_text(value: Any) -> str:
    """A scenario's settlement as a reader says it ("table played; seat 1: played, ante +1.00, ...");
    anything not shaped like one is shown as compact JSON."""
    if not (isinstance(value, dict) and isinstance(value.get("seats"), list)
            and all(isinstance(seat, dict) for seat in value["seats"])):
        return _compact(value, 400)
    parts = [f"table {value.get('table', '-')}"]
    for i, seat in enumerate(value["seats"], 1):
        text = f"seat {i}: {seat.get('status', '-')}"
        if seat.get("hand"):
            text += f" ({seat['hand']})"
        net = seat.get("net") or {}
        if isinstance(net, dict) and net:
            text += ", net " + ", ".join(f"{k} {'' if str(v).startswith('-') else '+'}{v}" for k, v in net.items())
        if seat.get("error"):
            text += f", error: {seat['error']}"
        parts.append(text)
    if value.get("meter_after") is not None:
        parts.append(f"meter after: {value['meter_after']}")
    return "; ".join(parts)


def _findings(c: dict, number: int = 11) -> list:
    out: list = [Paragraph(f"{number}. Findings", S["h1"])]
    if not c["findings"]:
        return out + [P("No findings: every test that was run passed.", "body")]
    rows = [_header_row("#", "Severity", "Section", "Finding")]
    for i, f in enumerate(c["findings"], 1):
        sev = Paragraph(f'<font color="{(RED if f["severity"] == "blocking" else colors.black).hexval()}">'
                        f'{_t(f["severity"])}</font>', S["cell"])
        rows.append([P(str(i)), sev, P(f["section"]), P(f["text"])])
    out.append(_table(rows, [22, 50, 95, BODY_W - 167]))
    return out


def _signatures(c: dict, number: int = 12) -> list:
    signer = c.get("signer")
    out: list = [Paragraph(f"{number}. Signatures", S["h1"])]
    if signer is None:
        out.append(P("This report has not been signed.", "body"))
    else:
        out.append(_kv_table([("Signer", signer["subject"]), ("Issuer", signer["issuer"]),
                              ("Signing certificate SHA-256", Paragraph(_t(signer["fingerprint_sha256"]), S["mono"])),
                              ("Key", signer["algorithm"]),
                              ("Key kind", "DEVELOPMENT key, NOT FOR SUBMISSION" if signer["development"]
                               else "configured signing key")], 150))
    out += [Spacer(1, 6),
            P("The PDF carries a PAdES signature (ETSI.CAdES.detached) in the field 'Signature1' below, covering "
              "every byte of the file. The JSON report carries a detached CMS signature in the file next to it "
              "(.p7s). Check both with: certify verify REPORT.pdf REPORT.json --root ROOT-CERTIFICATE, which "
              "also proves that the two are the same report and that the signer above is the certificate that "
              "signed them. Any change to any byte after signing makes the check fail.", "body")]
    return out


# ----------------------------------------------------------------------------- entropy-source report


def is_entropy_report(content: dict) -> bool:
    return content.get("required_sections") == ["entropy"]


def report_title(content: dict) -> str:
    if is_audit_report(content):
        return "Round Log Audit Report"
    return "Entropy Source Assessment Report" if is_entropy_report(content) else "Certification Test Report"


def _entropy_certificate(c: dict) -> list:
    prod, sec = c["product"], c["sections"]["entropy"]
    out: list = [Spacer(1, 30), Paragraph(report_title(c), S["title"]),
                 Paragraph(_t(f"{prod['game']} \u2014 {prod['spec']} ({prod['spec_version']})"), S["subtitle"])]
    verdict = c["verdict"]
    colour = GREEN if verdict == VERDICT_PASS else RED
    meaning = ("the min-entropy below was assessed as the standard prescribes" if verdict == VERDICT_PASS else
               "no min-entropy can be claimed for this source from these samples (see Findings)")
    lines = [Paragraph(f'<font size="18" color="{colour.hexval()}"><b>VERDICT: {verdict}</b></font>', S["body"])]
    if verdict == VERDICT_PASS:
        lines.append(Paragraph(f'<font size="13"><b>Assessed min-entropy: {sec["assessed_min_entropy"]:.6f} '
                               f'bits per {sec["bits_per_symbol"]}-bit sample</b></font>', S["body"]))
    lines.append(P(f"Meaning: {meaning}.", "body"))
    banner = Table([[x] for x in lines], colWidths=[BODY_W])
    banner.setStyle(TableStyle([("BOX", (0, 0), (-1, -1), 1.5, colour), ("TOPPADDING", (0, 0), (-1, -1), 6),
                                ("BOTTOMPADDING", (0, 0), (-1, -1), 6), ("LEFTPADDING", (0, 0), (-1, -1), 8)]))
    out += [_kv_table([
        ("Report ID", c["report_id"]),
        ("Date of issue", c["issued_at"]),
        ("Sample file", Paragraph(_t(sec["file"]), S["wrap"])),
        ("Sample file SHA-256", Paragraph(_t(sec["sha256"]), S["mono"])),
        ("Samples", f"{sec['samples']:,} ({sec['format']}, {sec['bits_per_symbol']} bit(s) each, "
                    f"{sec['alphabet_size']} distinct values)"),
        ("Track", f"{sec['track']} (SP 800-90B {'5 and 6.3.1' if sec['track'] == 'IID' else '6.3'})"),
        ("Test suite version", prod["suite_version"]),
        ("Software fingerprint (SHA-256)", Paragraph(_t(c["software_fingerprint"]), S["mono"])),
    ], key_w=170), Spacer(1, 12), Paragraph("Standards tested against", S["h2"])]
    rows = [_header_row("Standard", "What was tested")]
    rows += [[P(x["standard"], "cellb"), P(x["tested"])] for x in c["standards"]]
    out += [_table(rows, [170, BODY_W - 170]), Spacer(1, 14), banner, Spacer(1, 12)]
    return out + _signer_notice(c)


def _entropy_scope(c: dict) -> list:
    items = [
        "This report covers the sample file identified on the first page, byte for byte, and the software "
        "identified in section 3. It assesses the samples given; whether they are raw, unconditioned noise "
        "source output collected as SP 800-90B 3.1.1 requires is the submitter's statement, not this report's.",
        "Min-entropy estimates are statistical: each estimator gives a 99% upper confidence bound on the "
        "probability of the most likely outcome (90B 6.3), and the assessment is the smallest of them. The IID "
        "track holds only if every IID test passes (each at about 0.1% false alarms).",
        "The health-test cutoffs in section 5 follow from the assessed min-entropy (90B 4.4.1, 4.4.2); an "
        "implementation of the source's continuous health tests must use cutoffs no larger than these.",
        "No design review of the noise source (90B 3.2.2) and no source-code review was performed.",
    ]
    return [Paragraph("2. Scope and limitations", S["h1"])] + [P("\u2022 " + i, "body") for i in items]


def _fmt_h(x: Any) -> str:
    """A min-entropy in bits, to the six decimals the NIST tool and ``certify entropy`` print."""
    return f"{x:.6f}" if isinstance(x, (int, float)) and not isinstance(x, bool) else "-"


def _estimate_rows(sec: dict) -> list[list]:
    rows = [_header_row("Estimator", "Section", "Data", "Min-entropy", "Intermediate values")]
    for data, estimates in (("samples", sec["literal"]), ("bitstring", sec["bitstring"])):
        for e in estimates:
            shown = ", ".join(f"{k} = {_fmt_num(v)}" for k, v in e["details"].items() if _is_scalar(v))
            rows.append([P(e["name"], "cellb"), P(e["section"]), P(data), P(_fmt_h(e["min_entropy"])),
                         Paragraph(_t(shown or e["note"] or "-"), S["wrap"])])
    return rows


def _iid_rows(sec: dict) -> list[list]:
    rows = [_header_row("Test", "Section", "Verdict", "Figures")]
    for t in sec.get("tests", []):
        d = t["details"]
        if t["name"] == "Permutation tests":
            failing = d.get("failing") or []
            figures = (f"{d['permutations_run']:,} permutations (seed {d['seed']}), each statistic counted until "
                       "the data's value was exceeded and undercut (a tie counts both ways) more than five times; "
                       + (f"undecided, so failing: {', '.join(failing)}" if failing else
                          "all 19 statistics decided") + " (the table below)")
        else:
            figures = ", ".join(f"{k} = {_fmt_num(v)}" for k, v in d.items() if _is_scalar(v))
        rows.append([P(t["name"], "cellb"), P(t["section"]), _status_para(PASS if t["passed"] else FAIL),
                     Paragraph(_t(figures), S["wrap"])])
    return rows


def _restart_rows(valid: dict) -> list[list]:
    """Each estimator's min-entropy on the row and the column dataset of the restart matrix."""
    rows = [_header_row("Estimator (restart validation, 3.1.4.2)", "Row dataset", "Column dataset")]
    for r, col in zip(valid["rows"], valid["columns"]):
        rows.append([P(f"{r['name']} ({r['section']})", "cellb"), P(_fmt_h(r["min_entropy"])),
                     P(_fmt_h(col["min_entropy"]))])
    return rows


def _permutation_rows(details: dict) -> list[list]:
    """5.1: each statistic's value on the data and the permutations above / equal / below it."""
    rows = [_header_row("Statistic (5.1)", "Value of the data", "Above", "Equal", "Below", "Verdict")]
    for r in details["statistics"]:
        rows.append([P(r["statistic"], "cellb"), P(_fmt_num(r["value"], 10)), P(f"{r['C0_greater']:,}"),
                     P(f"{r['C1_equal']:,}"), P(f"{r['C2_less']:,}"), _status_para(PASS if r["passed"] else FAIL)])
    return rows


def _entropy_results(c: dict, number: int) -> list:
    sec = c["sections"]["entropy"]
    k = sec["bits_per_symbol"]
    out: list = [Paragraph(f"{number}. Entropy-source assessment (SP 800-90B)", S["h1"]),
                 Paragraph(f"Section verdict: {_status_markup(sec['status'])}", S["body"]),
                 _kv_table([("Sample file", Paragraph(_t(sec["file"]), S["wrap"])),
                            ("SHA-256", Paragraph(_t(sec["sha256"]), S["mono"])),
                            ("Samples", f"{sec['samples']:,} ({sec['format']}, {k} bit(s) each, "
                                        f"{sec['alphabet_size']} distinct values); {sec['track']} track")], 150)]
    if sec.get("tests"):
        out += [Paragraph("IID tests (5.1, 5.2)", S["h2"]), _table(_iid_rows(sec), [105, 40, 40, BODY_W - 185])]
        permutation = next((t["details"] for t in sec["tests"] if t["name"] == "Permutation tests"), None)
        if permutation and permutation.get("statistics"):
            out += [Spacer(1, 4), _table(_permutation_rows(permutation), [140, BODY_W - 380, 55, 55, 55, 75])]
    out += [Paragraph("Estimators (the samples as ranks of the values present; the bitstring MSB first, 3.1.3)",
                      S["h2"]), _table(_estimate_rows(sec), [105, 38, 50, 55, BODY_W - 248])]
    pairs = [("H_original (smallest estimate on the samples, at most K)", _fmt_h(sec["H_original"]))]
    if sec.get("H_bitstring") is not None:
        pairs += [("H_bitstring (smallest estimate per bit, at most 1)", _fmt_h(sec["H_bitstring"])),
                  (f"min(H_original, {k} x H_bitstring)", _fmt_h(sec["min_entropy"]))]
    out += [Paragraph("Initial entropy estimate (3.1.3)", S["h2"]), _kv_table(pairs, 260)]
    restart = sec.get("restart")
    if restart:
        sanity, valid = restart["sanity_check"], restart["validation"]
        rpairs = [("Restart matrix", f"{restart['file']} (1000 restarts x 1000 samples)"),
                  ("H_I", _fmt_h(restart["H_I"])),
                  ("Sanity check (3.1.4.3)", f"{'pass' if sanity['passed'] else 'FAIL'}: largest count of one value "
                                             f"in a row or column X_max = {sanity['X_max']}, cutoff "
                                             f"{sanity['cutoff']} (alpha {sanity['alpha']:.4g})"
                                             + (f"; cutoff rule: {sanity['rule']}; the document's binomial "
                                                f"cutoff: {sanity['document_cutoff']}" if sanity.get("rule") else ""))]
        if valid["passed"] is not None:
            rpairs.append(("Validation (3.1.4.2)", f"{'pass' if valid['passed'] else 'FAIL'}: H_r = "
                                                   f"{_fmt_h(valid['H_r'])}, H_c = {_fmt_h(valid['H_c'])}, "
                                                   "pass when min(H_r, H_c) >= H_I / 2"))
        out += [Paragraph("Restart tests (3.1.4)", S["h2"]), _kv_table(rpairs, 150)]
        if valid.get("rows"):
            out += [Spacer(1, 4), _table(_restart_rows(valid), [BODY_W - 200, 100, 100])]
    out.append(Paragraph("Assessed min-entropy and health-test cutoffs", S["h2"]))
    if sec["status"] == PASS:
        out.append(P(f"Assessed min-entropy: {sec['assessed_min_entropy']:.6f} bits per sample"
                     + (", the smaller of the initial estimate and the restart estimates"
                        if restart else "") + ".", "body"))
        rows = [_header_row("False-alarm rate alpha", "Repetition count cutoff C (4.4.1)",
                            "Adaptive proportion window W (4.4.2)", "Adaptive proportion cutoff C (4.4.2)")]
        rows += [[P(h["alpha"]), P(str(h["rct_cutoff"])), P(str(h["apt_window"])), P(str(h["apt_cutoff"]))]
                 for h in sec["health_tests"]]
        out.append(_table(rows, [BODY_W / 4] * 4))
    else:
        out.append(P("None: " + ("; ".join(sec["reasons"]) or "no min-entropy could be assessed") + ".", "body"))
    return out


def _entropy_story(content: dict) -> list:
    story: list = _entropy_certificate(content)
    story += [PageBreakIfNotEmpty()] + _summary(content, findings_number=6) + _entropy_scope(content)
    story += [PageBreakIfNotEmpty()] + _software(content)
    story += [PageBreakIfNotEmpty()] + _methodology(content, 4)
    story += [PageBreakIfNotEmpty()] + _entropy_results(content, 5)
    story += [CondPageBreak(150)] + _findings(content, 6)
    story += [NextPageTemplate("signature"), PageBreak(), KeepTogether(_signatures(content, 7))]
    return story


# ----------------------------------------------------------------------------- round-log audit report


def is_audit_report(content: dict) -> bool:
    return content.get("required_sections") == list(AUDIT_REPORT)


def _audit_certificate(c: dict) -> list:
    prod, m = c["product"], c["methodology"]
    verdict = c["verdict"]
    colour = GREEN if verdict == VERDICT_PASS else RED if verdict == "FAIL" else AMBER
    meaning = {"PASS": "every round was checked and settled as the spec says, and the cards and outcomes "
                       "fit the exact math (at the stated false-alarm rate)",
               "FAIL": "at least one finding (see Findings)",
               "INCOMPLETE": "at least one part of the audit could not be run on these logs"}[verdict]
    banner = Table([[Paragraph(f'<font size="18" color="{colour.hexval()}"><b>VERDICT: {verdict}</b></font>',
                               S["body"])], [P(f"Meaning: {meaning}.", "body")]], colWidths=[BODY_W])
    banner.setStyle(TableStyle([("BOX", (0, 0), (-1, -1), 1.5, colour), ("TOPPADDING", (0, 0), (-1, -1), 6),
                                ("BOTTOMPADDING", (0, 0), (-1, -1), 6), ("LEFTPADDING", (0, 0), (-1, -1), 8)]))
    period = m.get("period") or [None, None]
    out: list = [Spacer(1, 30), Paragraph(report_title(c), S["title"]),
                 Paragraph(_t(f"{prod['game']} — spec {prod['spec']} version {prod['spec_version']}"),
                           S["subtitle"]),
                 _kv_table([("Report ID", c["report_id"]), ("Date of issue", c["issued_at"]),
                            ("Rounds audited", f"{m.get('rounds', 0):,}"),
                            ("Period covered", f"{period[0] or '-'} to {period[1] or '-'}"),
                            ("Spec file SHA-256", Paragraph(_t(prod.get("spec_sha256") or "-"), S["mono"])),
                            ("Pay-table identity (SHA-256)", Paragraph(_t(prod["paytable_sha256"]), S["mono"])),
                            ("Test suite version", prod["suite_version"]),
                            ("Software fingerprint (SHA-256)", Paragraph(_t(c["software_fingerprint"]), S["mono"]))],
                           key_w=170),
                 Paragraph("Logs audited", S["h2"])]
    rows = [_header_row("File", "Bytes", "Rounds", "SHA-256 (of the bytes on disk)")]
    rows += [[Paragraph(_t(f["name"]), S["wrap"]), P(f"{f['size']:,}"), P(f"{f['rounds']:,}"),
              Paragraph(_t(f["sha256"]), S["mono"])] for f in m.get("audited_files", [])]
    out += [_table(rows, [150, 55, 45, BODY_W - 250]), Paragraph("Standards tested against", S["h2"])]
    srows = [_header_row("Standard", "What was tested")]
    srows += [[P(x["standard"], "cellb"), P(x["tested"])] for x in c["standards"]]
    out += [_table(srows, [170, BODY_W - 170]), Spacer(1, 14), banner, Spacer(1, 12)]
    return out + _signer_notice(c)


def _audit_scope(c: dict) -> list:
    items = [
        "This report covers the round logs identified on the first page, byte for byte, played under the spec "
        "identified there. It certifies the rounds in them, not the game's RNG or server: a log shows the cards "
        "dealt, not the generator that dealt them.",
        "Integrity and rules are exact checks of every round: any finding fails the audit. The fairness and math "
        "tests are statistical: together they form one Holm-Bonferroni family, so a fair, correctly settled log "
        f"fails with probability at most alpha = {_fmt_num(c['methodology']['alpha'])}.",
        "The math section compares outcomes with the PAR sheet only on rounds that declare the spec strategy; "
        "free play (people deciding) leaves it not run.",
    ]
    return [Paragraph("2. Scope and limitations", S["h1"])] + [P("\u2022 " + i, "body") for i in items]


def _audit_story(content: dict) -> list:
    story: list = _audit_certificate(content)
    story += [PageBreakIfNotEmpty()] + _summary(content, findings_number=9) + _audit_scope(content)
    story += [PageBreakIfNotEmpty()] + _software(content)
    shown = ("audited_files", "rounds", "period")    # the first page's table of logs shows these
    brief = {**content, "methodology": {k: v for k, v in content["methodology"].items() if k not in shown}}
    story += [PageBreakIfNotEmpty()] + _methodology(brief, 4)
    story += [PageBreakIfNotEmpty()] + _procedures(content, "integrity", 5)
    story += [CondPageBreak(150)] + _procedures(content, "rules", 6)
    story += [PageBreakIfNotEmpty()] + _test_section(content, "fairness", 7, SECTION_TITLES["fairness"])
    story += _descriptions_of(content, "fairness")
    story += [PageBreakIfNotEmpty()] + _test_section(content, "math", 8, SECTION_TITLES["math"])
    story += _descriptions_of(content, "math")
    story += [CondPageBreak(150)] + _findings(content, 9)
    story += [NextPageTemplate("signature"), PageBreak(), KeepTogether(_signatures(content, 10))]
    return story


def _descriptions_of(c: dict, key: str) -> list:
    sec = c["sections"][key]
    if not sec or not sec["description"]:
        return []
    return [Paragraph("What was tested", S["h2"]), _kv_table(list(sec["description"].items()), 150)]


# ----------------------------------------------------------------------------- document


def _canvas_class(content: dict) -> type:
    report_id = content["report_id"]
    issued = datetime.strptime(content["issued_at"], "%Y-%m-%dT%H:%M:%SZ")
    pdf_date = issued.strftime("D:%Y%m%d%H%M%S+00'00'")
    dev = bool(content.get("signer") and content["signer"]["development"])
    title = f"{content['product']['game']} \u2014 {content['product']['spec']} {content['product']['spec_version']}"
    heading = report_title(content)

    class NumberedCanvas(rl_canvas.Canvas):
        """Holds every page until the end so each footer can say "Page x of N"."""

        def __init__(self, *args, **kwargs):
            kwargs["invariant"] = 1
            super().__init__(*args, **kwargs)
            self.setDateFormatter(lambda *_: pdf_date)
            self._pages: list[dict] = []

        def showPage(self):
            self._pages.append(dict(self.__dict__))
            self._startPage()

        def save(self):
            total = len(self._pages)
            for state in self._pages:
                self.__dict__.update(state)
                self._decorate(total)
                super().showPage()
            super().save()

        def _decorate(self, total: int) -> None:
            page = self.getPageNumber()
            self.saveState()
            self.setFont("Helvetica", 7.5)
            self.setFillColor(colors.HexColor("#404040"))
            if page > 1:
                self.drawString(MARGIN, PAGE_H - 32, f"{heading} {report_id}")
                self.drawRightString(PAGE_W - MARGIN, PAGE_H - 32, title)
                self.setStrokeColor(GRID)
                self.line(MARGIN, PAGE_H - 36, PAGE_W - MARGIN, PAGE_H - 36)
            self.drawString(MARGIN, 30, report_id)
            self.drawRightString(PAGE_W - MARGIN, 30, f"Page {page} of {total}")
            if dev:
                self.setFillColor(RED)
                self.setFont("Helvetica-Bold", 7.5)
                self.drawCentredString(PAGE_W / 2, 30, "DEVELOPMENT KEY \u2014 NOT FOR SUBMISSION")
            self.restoreState()

    return NumberedCanvas


def _draw_signature_box(canv, doc) -> None:
    x1, y1, x2, y2 = SIGNATURE_BOX
    canv.saveState()
    canv.setStrokeColor(GRID)
    canv.setDash(2, 2)
    canv.rect(x1 - 2, y1 - 2, x2 - x1 + 4, y2 - y1 + 4)
    canv.setFont("Helvetica", 7)
    canv.setFillColor(colors.HexColor("#404040"))
    canv.drawString(x1, y2 + 6, f"Digital signature (field {SIGNATURE_FIELD}):")
    canv.restoreState()


def build_story(content: dict) -> list:
    if is_entropy_report(content):
        return _entropy_story(content)
    if is_audit_report(content):
        return _audit_story(content)
    # an optional entropy-source assessment gets its own numbered section before the findings
    entropy = 1 if content["sections"].get("entropy") else 0
    story: list = []
    story += _certificate(content)
    story += [PageBreakIfNotEmpty()] + _summary(content, findings_number=11 + entropy) + _scope(content)
    story += [PageBreakIfNotEmpty()] + _software(content)
    story += [PageBreakIfNotEmpty()] + _descriptions(content) + _methodology(content)
    story += [PageBreakIfNotEmpty()] + _test_section(content, "rng", 6, "RNG results")
    story += [PageBreakIfNotEmpty()] + _test_section(content, "shuffle", 7, "Shuffle results")
    story += [PageBreakIfNotEmpty()] + _par_sheet(content)
    story += [PageBreakIfNotEmpty()] + _simulation(content)
    story += [PageBreakIfNotEmpty()] + _procedures(content)
    if entropy:
        story += [PageBreakIfNotEmpty()] + _entropy_results(content, 11)
    story += [CondPageBreak(150)] + _findings(content, 11 + entropy)
    story += [NextPageTemplate("signature"), PageBreak(), KeepTogether(_signatures(content, 12 + entropy))]
    return story


def identity_keywords(content: dict) -> str:
    """"certify-report CR-...; json-sha256 <hex>; signer-sha256 <hex>|unsigned" for the PDF's Keywords."""
    from certify.report.json_out import render_json
    from certify.report.model import sha256_hex

    signer = content.get("signer")
    values = (content["report_id"], sha256_hex(render_json(content)),
              signer["fingerprint_sha256"] if signer else "unsigned")
    return "; ".join(f"{k} {v}" for k, v in zip(IDENTITY_KEYS, values))


def read_identity(keywords: str) -> dict[str, str] | None:
    """The identity written by :func:`identity_keywords`, or None when the Keywords hold none."""
    found = {}
    for part in str(keywords).split(";"):
        key, _, value = part.strip().partition(" ")
        if key in IDENTITY_KEYS and value and " " not in value:
            found[key] = value
    return found if set(found) == set(IDENTITY_KEYS) else None


def render_pdf(content: dict) -> bytes:
    """The PDF bytes for a content dict from :func:`certify.report.model.build_content`."""
    buf = io.BytesIO()
    prod = content["product"]
    doc = BaseDocTemplate(buf, pagesize=A4, leftMargin=MARGIN, rightMargin=MARGIN, topMargin=50,
                          bottomMargin=50, invariant=1,
                          title=f"{report_title(content)} {content['report_id']}",
                          author="certify " + prod["suite_version"],
                          subject=f"{prod['game']} {prod['spec']} {prod['spec_version']}: {content['verdict']}",
                          creator="certify " + prod["suite_version"], keywords=identity_keywords(content))
    body = Frame(MARGIN, 50, BODY_W, PAGE_H - 100, id="body", leftPadding=0, rightPadding=0)
    top_of_box = SIGNATURE_BOX[3] + 20
    sig_frame = Frame(MARGIN, top_of_box, BODY_W, PAGE_H - 50 - top_of_box, id="sig", leftPadding=0,
                      rightPadding=0)
    doc.addPageTemplates([PageTemplate("body", [body]),
                          PageTemplate("signature", [sig_frame], onPage=_draw_signature_box)])
    doc.build(build_story(content), canvasmaker=_canvas_class(content))
    return buf.getvalue()
