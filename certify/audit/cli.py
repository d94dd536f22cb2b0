"""What ``certify audit`` and ``certify drive`` print and write (the commands in certify/cli.py are
thin shells over this)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from certify.audit.audit import CLASSES, audit


def summary_lines(result: dict) -> list[str]:
    lines = []
    for f in result["files"]:
        lines.append(f"log {f['name']}: {f['rounds']:,} rounds, {f['size']:,} bytes, sha256 {f['sha256']}, "
                     f"{f['period'][0]} .. {f['period'][1]}")
    for c in CLASSES:
        found = result["findings"][c]
        lines.append(f"{c:<10} {'pass' if found['count'] == 0 else 'FAIL'}  {found['count']:,} finding(s)")
        for f in found["first"][:10]:
            where = f"{f['where']}: " if f.get("where") else ""
            lines.append(f"    {where}{f['what']}" + (f"  [rule: {f['rule']}]" if f.get("rule") else ""))
        if found["count"] > 10:
            lines.append(f"    ... {found['count'] - 10:,} more (--json lists the first {len(found['first'])})")
    adjusted = {m["name"]: m for m in (result["family"] or {}).get("members", [])}
    for part in ("fairness", "math"):
        for t in result[part]["tests"]:
            member = adjusted.get(t["name"])
            p = "" if t["pvalue"] is None else f"p = {t['pvalue']:.4g}"
            if member:
                p += f", Holm-adjusted {member['adjusted']:.4g}"
            lines.append(f"{part:<10} {t['verdict']:<15} {t['name']}  {p}")
    lines.append(f"scope: {result['scope']}")
    lines.append("sections: " + ", ".join(f"{k} {v}" for k, v in result["section_status"].items()))
    for reason in result["reasons"]:
        lines.append(f"    {reason}")
    lines.append(f"verdict: {result['verdict']} ({result['rounds']:,} rounds; {result['false_alarm_rate']})")
    return lines


def run_audit(logs, spec_ref: str, *, alpha: float, sample: int, json_path, report_dir, issued_at, key_dir,
              passphrase_file, allow_insecure_key: bool, no_cache: bool, passphrase_source, warn_about_key,
              jobs: int | None = None) -> int:
    from certify.spec import load_spec, resolve_spec_path

    spec = load_spec(spec_ref)
    key = None
    if report_dir:
        from certify import signing
        from certify.atomic import check_output_path
        from certify.report import report_paths

        for path in report_paths(report_dir, _basename(spec), signed=True).values():
            check_output_path(path)
        key = signing.load_signing_key(Path(key_dir) if key_dir else None, passphrase_source(passphrase_file),
                                       allow_insecure=allow_insecure_key)
        warn_about_key(key)
    result = audit(logs, spec, alpha=alpha, sample=sample, use_cache=not no_cache, jobs=jobs,
                   progress=lambda m: click.echo(m, err=True))   # the report needs no sheet the math does not use
    for line in summary_lines(result):
        click.echo(line)
    written = []
    if json_path:
        from certify.stats.battery import write_json_atomic

        written.append(write_json_atomic(json_path, {k: v for k, v in result.items() if not k.startswith("_")}))
    if report_dir:
        from certify.audit.report import report_input
        from certify.report import write_report
        from certify.run import issued_at_or_now

        data = report_input(result, spec, resolve_spec_path(spec_ref), issued_at_or_now(issued_at))
        _same_verdict(data, result["verdict"])
        paths = write_report(data, report_dir, _basename(spec), key)
        written.extend(paths.values())
    for path in written:
        click.echo(f"wrote {path}")
    return result["exit_code"]


def _same_verdict(data, verdict: str) -> None:
    """The report's verdict is the printed one (both are ``certify.report.judge``'s on the same
    sections; checked before anything is written, so that they can never part silently)."""
    from certify.report import build_content

    reported = build_content(data)["verdict"]
    if reported != verdict:
        raise RuntimeError(f"the report would say {reported}, the audit says {verdict}: no report written")


def run_drive(command: str, spec_ref: str, *, rounds: int, seed: int, play: str, seats: int, timeout: float,
              log_path: str, json_path, no_cache: bool) -> int:
    from certify.audit.drive import drive
    from certify.spec import load_spec

    spec = load_spec(spec_ref)
    run = drive(command, spec, rounds, log_path, seed=seed, play=play, seats=seats, timeout=timeout)
    click.echo(f"drove {run['engine'] or command}: {run['rounds']:,} rounds in {run['wall_s']:.2f} s "
               f"({run['rounds_per_s']:,} rounds/s; harness CPU {run['harness_cpu_s']:.2f} s); wrote {log_path}")
    return run_audit([log_path], spec_ref, alpha=0.01, sample=1_000_000, json_path=json_path, report_dir=None,
                     issued_at=None, key_dir=None, passphrase_file=None, allow_insecure_key=False,
                     no_cache=no_cache, passphrase_source=None, warn_about_key=None)


def _basename(spec) -> str:
    return f"audit-{spec.name}-{spec.version}"


def dump(result: dict) -> str:
    return json.dumps({k: v for k, v in result.items() if not k.startswith("_")}, default=str)
