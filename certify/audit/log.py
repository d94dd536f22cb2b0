"""Reading round logs: one streaming pass, bounded lines, ``.gz`` transparently, hashed as read.

A log that cannot be read as the format says is unusable input (``LogError``, exit 2, naming
``file:line`` and the field): a line that is not JSON, a line over :data:`MAX_LINE` bytes, a last
line without its newline (a truncated write), a blank line, a line the schema refuses, a line of
another game or another version of the spec, a truncated ``.gz``. It is never skipped: a log the
suite cannot read completely is never a PASS.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import stat
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from certify.audit.schema import round_log_validator
from certify.errors import InputError
from certify.inputs import excerpt

MAX_LINE = 1 << 20       # the largest round (7 seats, 512 actions) is a few KB
READ_BLOCK = 1 << 20
GZIP_MAGIC = b"\x1f\x8b"


class LogError(InputError):
    """A round log that cannot be read as the format says: the message names file:line and field."""


@dataclass
class LogFile:
    """What was audited: the file, its size and SHA-256 (of the bytes on disk), rounds, period."""

    path: str
    size: int = 0
    sha256: str = ""
    rounds: int = 0
    first_time: str | None = None
    last_time: str | None = None
    compressed: bool = False
    tables: set = field(default_factory=set)

    def to_dict(self) -> dict:
        return {"name": self.path, "size": self.size, "sha256": self.sha256, "rounds": self.rounds,
                "period": [self.first_time, self.last_time], "compressed": self.compressed,
                "tables": sorted(self.tables)}


class _Hashing:
    """A binary file that hashes and counts what is read from it."""

    def __init__(self, raw):
        self.raw, self.digest, self.size = raw, hashlib.sha256(), 0

    def read(self, n: int = -1) -> bytes:
        data = self.raw.read(n)
        self.digest.update(data)
        self.size += len(data)
        return data

    def drain(self) -> None:
        while self.read(READ_BLOCK):
            pass


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _unique(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"field {key!r} given twice")
        out[key] = value
    return out


def _lines(stream, where: str) -> Iterator[tuple[int, bytes]]:
    buffer = b""
    number = 0
    while True:
        block = stream.read(READ_BLOCK)
        if not block:
            break
        buffer += block
        parts = buffer.split(b"\n")
        buffer = parts.pop()
        for part in parts:
            number += 1
            if len(part) > MAX_LINE:
                raise LogError(f"{where}:{number}: line of {len(part):,} bytes, longer than the "
                               f"{MAX_LINE:,} a round may take")
            yield number, part
        if len(buffer) > MAX_LINE:
            raise LogError(f"{where}:{number + 1}: line longer than the {MAX_LINE:,} bytes a round may take")
    if buffer:
        raise LogError(f"{where}:{number + 1}: the last line has no newline: a truncated write "
                       f"({len(buffer)} bytes: {excerpt(buffer[:60].decode('utf-8', 'replace'))})")


def check_log_path(path: str | Path) -> None:
    """A log must be a regular file we can read (a FIFO or a device is refused: it may never end)."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise LogError(f"{path}: cannot read the log: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise LogError(f"{path}: not a regular file (a log is a file of JSON lines)")
    if not os.access(path, os.R_OK):
        raise LogError(f"{path}: cannot read the log: permission denied")


def read_records(path: str | Path, spec, info: LogFile | None = None) -> Iterator[tuple[int, dict]]:
    """``(line number, record)`` for every round of one log, validated against the schema and the spec."""
    validator = round_log_validator(1)
    for number, line in read_lines(path, info):
        yield number, parse_line(line, f"{path}:{number}", validator, spec)


def read_lines(path: str | Path, info: LogFile | None = None) -> Iterator[tuple[int, bytes]]:
    """``(line number, bytes)`` of one log (gzip by its magic bytes), bounded; ``info`` gets the
    size and SHA-256 of the file once it is read to its end."""
    path = Path(path)
    where = str(path)
    info = info if info is not None else LogFile(where)
    check_log_path(path)
    try:
        raw = open(path, "rb")
    except OSError as exc:
        raise LogError(f"{where}: cannot read the log: {exc.strerror or exc}") from None
    with raw:
        hashing = _Hashing(raw)
        head = raw.peek(2)[:2] if hasattr(raw, "peek") else b""
        info.compressed = head == GZIP_MAGIC
        stream = gzip.GzipFile(fileobj=hashing, mode="rb") if info.compressed else hashing
        try:
            yield from _lines(stream, where)
        except (OSError, EOFError, zlib.error) as exc:
            raise LogError(f"{where}: the compressed log is damaged or truncated ({exc})") from None
        hashing.drain()
        info.size, info.sha256 = hashing.size, hashing.digest.hexdigest()


def parse_line(line: bytes, where: str, validator, spec) -> dict:
    """One line as a record: JSON, the schema, the spec's name and version (else ``LogError``)."""
    if not line.strip():
        raise LogError(f"{where}: blank line (expected one round as a JSON object)")
    try:
        record = json.loads(line, object_pairs_hook=_unique, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise LogError(f"{where}: not a JSON round ({excerpt(str(exc), 120, quoted=False)})") from None
    error = validator.first_error(record)
    if error:
        raise LogError(f"{where}: {error[0]}: {error[1]}")
    name, version = record["spec"]["name"], record["spec"]["version"]
    if name != spec.name:
        raise LogError(f"{where}: spec.name: a round of {excerpt(name)}, but the audit is of {spec.name!r}")
    if version != str(spec.version):
        raise LogError(f"{where}: spec.version: {spec.name} version {excerpt(version)}, but the spec given is "
                       f"version {spec.version}")
    return record
