"""Certify the submitter's game from the outside: round logs, ``certify audit``, ``certify drive``.

* ``schema`` / ``schema/round-log-v1.json``: the round log format v1 (docs/round-log.md) and its validator;
* ``log``: reading logs (one streaming pass, ``.gz`` transparently, bounded lines, hashed as read);
* ``rounds``: a logged round fed to the spec's round class (no game-specific code) and compared;
* ``audit``: the audit (integrity, rules, fairness, math, verdict); ``report``: its signed report;
* ``drive``: the line protocol that drives an engine the suite did not write (docs/round-log.md);
* ``sample``: fair logs from the suite's own engines (fixtures, tests, benchmarks).
"""
