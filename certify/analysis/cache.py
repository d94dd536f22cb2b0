"""A PAR-sheet cache that a certification can rely on: a sheet is read back only when it is
provably the one this code computes for this spec, else it is computed again.

An entry is one JSON file, ``<user cache>/certify/par-sheets/<code>/<key>.json``, holding

* ``payload``: the key (the spec's canonical content and its SHA-256, the code fingerprint -- the
  software fingerprint of the report's source rows, :func:`certify.report.identify.source_fingerprint`
  -- and the library versions the numbers come from), the sheet in a lossless encoding (Fractions,
  ints of any size, tuples, dict order) and the SHA-256 of the sheet's JSON (``to_dict``);
* ``sha256``: the entry digest, SHA-256 over the canonical bytes of ``payload``.

A read checks, in order: the file is a regular file (not a symlink) of this user that no one
else can write, at most :data:`MAX_ENTRY_BYTES` and exactly the canonical
serialisation of ``{payload, sha256}``; the digest matches; the payload's key equals the key asked
for (so an entry copied or planted under another spec's name is refused); the sheet decodes into
a valid ``ParSheet`` (exact tables re-check combinations / cycle) whose JSON has the recorded
digest. Any failure is a miss: the sheet is recomputed and the entry rewritten (atomically, by
:func:`certify.atomic.atomic_write`). The digest detects corruption and edits, not a forger who
can write the cache folder and recompute SHA-256: a lab run (``certify run --profile lab``) and
``--no-cache`` never read the cache.

``load_or_compute(spec)`` is the entry point for ``analyze``, ``simulate``, ``run`` (and ``audit``):
it returns the sheet and its :class:`Provenance` (cache or computed, the entry digest), which the
report prints. The same file format, without the code check, holds the golden sheets of
``fixtures/par_sheets/`` (:func:`read_golden`, :func:`write_golden`).
"""

from __future__ import annotations

import json
import os
import platform
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, fields
from fractions import Fraction
from importlib import metadata
from pathlib import Path
from typing import Any, Callable

from certify.analysis.par import ParSheet, ReturnRow, WagerSheet
from certify.errors import InputError
from certify.report.model import sha256_hex

FORMAT = "certify-par-cache/1"
MAX_ENTRY_BYTES = 256 << 20  # the largest sheet today is ~2 MB; a larger file is not ours
CACHE_SUBDIR = "par-sheets"
KEEP_CODE_VERSIONS = 3  # cache folders of older code are pruned, as the numba cache's are
GOLDEN_DIR = Path(__file__).resolve().parents[2] / "fixtures" / "par_sheets"

CACHE, COMPUTED = "cache", "computed"


class CacheEntryError(InputError):
    """An entry that must not be used; the message says why (it is then recomputed, never raised to a
    user)."""


# ----------------------------------------------------------------------------- the sheet, losslessly

_CLASSES: dict[str, type] = {"ParSheet": ParSheet, "WagerSheet": WagerSheet, "ReturnRow": ReturnRow}


def encode(value: Any) -> Any:
    """Plain JSON that :func:`decode` turns back into an equal value of the same types.

    Tagged objects (``{"$fraction": "n/d"}``, ``{"$tuple": [...]}``, ``{"$dict": [[k, v], ...]}``,
    ``{"$float": "inf"}``, ``{"$class": name, "fields": [[name, value], ...]}``) keep what JSON
    loses: Fractions, tuples, key order and non-string keys, non-finite floats, the sheet classes.
    """
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, str):
        return str(value)  # numpy.str_ too
    if isinstance(value, float):
        return float(value) if value == value and abs(value) != float("inf") else {"$float": repr(float(value))}
    if isinstance(value, Fraction):
        return {"$fraction": str(value)}
    if isinstance(value, tuple):
        return {"$tuple": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {"$dict": [[encode(k), encode(v)] for k, v in value.items()]}
    if type(value).__name__ in _CLASSES and isinstance(value, _CLASSES[type(value).__name__]):
        return {"$class": type(value).__name__,
                "fields": [[f.name, encode(getattr(value, f.name))] for f in fields(value)]}
    if hasattr(value, "item") and callable(value.item):  # a numpy scalar: its Python value
        return encode(value.item())
    raise TypeError(f"PAR-sheet cache: cannot encode a {type(value).__name__} ({value!r:.80})")


def decode(data: Any) -> Any:
    """The inverse of :func:`encode`; anything not produced by it raises ``CacheEntryError``."""
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, list):
        return [decode(v) for v in data]
    if not isinstance(data, dict) or len(data) not in (1, 2):
        raise CacheEntryError(f"unexpected value in the sheet encoding: {str(data)[:80]}")
    if len(data) == 1:
        (tag, inner), = data.items()
        if tag == "$fraction" and isinstance(inner, str):
            return Fraction(inner)
        if tag == "$float" and inner in ("inf", "-inf", "nan"):
            return float(inner)
        if tag == "$tuple" and isinstance(inner, list):
            return tuple(decode(v) for v in inner)
        if tag == "$dict" and isinstance(inner, list) and all(isinstance(p, list) and len(p) == 2 for p in inner):
            return {_hashable(decode(k)): decode(v) for k, v in inner}
    elif set(data) == {"$class", "fields"} and data["$class"] in _CLASSES and isinstance(data["fields"], list):
        cls = _CLASSES[data["$class"]]
        pairs = data["fields"]
        if [p[0] if isinstance(p, list) and len(p) == 2 else None for p in pairs] != [f.name for f in fields(cls)]:
            raise CacheEntryError(f"{data['$class']}: fields differ from this code's")
        return cls(**{name: decode(v) for name, v in pairs})
    raise CacheEntryError(f"unexpected tagged value in the sheet encoding: {str(data)[:80]}")


def _hashable(key: Any) -> Any:
    if isinstance(key, list):
        raise CacheEntryError("a dict key that is a list")
    return key


def sheet_json(sheet: ParSheet) -> bytes:
    """The sheet's JSON as ``analyze --json`` writes it (``to_dict``, key order kept)."""
    return (json.dumps(sheet.to_dict(), indent=2) + "\n").encode("utf-8")


# ----------------------------------------------------------------------------- keys and digests


def canonical(value: Any) -> bytes:
    """One byte string per JSON value: sorted keys, no spaces, UTF-8, no NaN."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


def spec_content(spec: Any) -> dict[str, Any]:
    """The spec as plain JSON data (every field, as loaded): what the sheet is a function of."""
    return json.loads(spec.model_dump_json())


def environment() -> dict[str, str]:
    """What else the numbers could depend on: the interpreter and the numeric libraries."""
    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "absent"

    return {"python": platform.python_version(), "machine": platform.machine(),
            "numpy": version("numpy"), "numba": version("numba"), "scipy": version("scipy")}


def code_fingerprint() -> str:
    """The software fingerprint of every source file of rng/ and certify/ (the report's rows)."""
    from certify.report.identify import source_fingerprint

    return source_fingerprint()


@dataclass(frozen=True)
class EntryKey:
    spec: dict[str, Any]
    spec_sha256: str
    code_fingerprint: str
    environment: dict[str, str]

    @classmethod
    def of(cls, spec: Any, fingerprint: str | None = None) -> "EntryKey":
        content = spec_content(spec)
        return cls(content, sha256_hex(canonical(content)), fingerprint or code_fingerprint(), environment())

    def to_dict(self) -> dict[str, Any]:
        return {"spec": self.spec, "spec_sha256": self.spec_sha256, "code_fingerprint": self.code_fingerprint,
                "environment": self.environment}

    @property
    def name(self) -> str:
        """The entry's file name: a digest of everything it is keyed by."""
        return sha256_hex(canonical({k: v for k, v in self.to_dict().items() if k != "spec"})) + ".json"


def entry_bytes(sheet: ParSheet, key: EntryKey) -> tuple[bytes, str]:
    """The entry file for ``sheet`` under ``key``, and its digest."""
    payload = {"format": FORMAT, "key": key.to_dict(), "sheet": encode(sheet),
               "sheet_json_sha256": sha256_hex(sheet_json(sheet))}
    digest = sha256_hex(canonical(payload))
    return _file_form({"payload": payload, "sha256": digest}), digest


def _file_form(entry: dict[str, Any]) -> bytes:
    """The one serialisation of an entry file: sorted keys, one value per line (readable diffs of
    the golden fixtures), UTF-8. A file in any other form was not written by this code."""
    return json.dumps(entry, sort_keys=True, indent=0, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8") + b"\n"


def parse_entry(data: bytes, key: EntryKey, check_code: bool = True) -> tuple[ParSheet, str]:
    """The sheet in an entry's bytes and the entry digest, if every check passes; else
    ``CacheEntryError`` naming the first that failed."""
    if len(data) > MAX_ENTRY_BYTES:
        raise CacheEntryError(f"larger than {MAX_ENTRY_BYTES:,} bytes")
    try:
        entry = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise CacheEntryError(f"not JSON ({type(exc).__name__}): truncated or corrupt") from None
    if not isinstance(entry, dict) or set(entry) != {"payload", "sha256"} or not isinstance(entry["payload"], dict):
        raise CacheEntryError("not a cache entry (expected payload and sha256)")
    try:
        if _file_form(entry) != data:
            raise CacheEntryError("not in canonical form: edited")
    except ValueError:  # NaN or inf in the file
        raise CacheEntryError("not in canonical form: edited") from None
    payload = entry["payload"]
    digest = sha256_hex(canonical(payload))
    if entry["sha256"] != digest:
        raise CacheEntryError("digest mismatch: edited or corrupt")
    if payload.get("format") != FORMAT:
        raise CacheEntryError(f"format {payload.get('format')!r}, expected {FORMAT!r}")
    stored = payload.get("key")
    want = key.to_dict()
    if not isinstance(stored, dict):
        raise CacheEntryError("no key")
    for field in ("spec", "spec_sha256") + (("code_fingerprint", "environment") if check_code else ()):
        if stored.get(field) != want[field]:
            raise CacheEntryError(f"stale: computed for another {field.replace('_', ' ')}")
    if sha256_hex(canonical(stored.get("spec"))) != stored.get("spec_sha256"):
        raise CacheEntryError("the spec digest does not match the spec")
    try:
        sheet = decode(payload.get("sheet"))
        if not isinstance(sheet, ParSheet):
            raise CacheEntryError("the payload holds no PAR sheet")
        recorded = sha256_hex(sheet_json(sheet))
    except CacheEntryError:
        raise
    except Exception as exc:  # any failure to rebuild a valid sheet is a miss, never a crash
        raise CacheEntryError(f"the sheet does not decode: {type(exc).__name__}: {str(exc)[:200]}") from None
    if recorded != payload.get("sheet_json_sha256"):
        raise CacheEntryError("the sheet's JSON differs from the recorded digest")
    if sheet.spec != key.spec.get("name"):
        raise CacheEntryError(f"a sheet of spec {sheet.spec!r}, expected {key.spec.get('name')!r}")
    return sheet, digest


# ----------------------------------------------------------------------------- the folder


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/certify/par-sheets`` (``~/.cache`` when unset)."""
    from certify import user_cache_dir

    return user_cache_dir() / CACHE_SUBDIR


def entry_path(key: EntryKey, directory: Path | None = None) -> Path:
    return (directory or cache_dir()) / key.code_fingerprint[:16] / key.name


@dataclass(frozen=True)
class Provenance:
    """Where a sheet came from, as the report and the JSON state it."""

    source: str  # CACHE or COMPUTED
    entry_sha256: str  # digest of the entry this sheet is (or was written as)
    spec_sha256: str
    code_fingerprint: str
    reason: str  # why it was computed (a miss's reason, --no-cache, lab profile), or "" from cache
    written: bool = False  # a computed sheet was stored as an entry
    path: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The report's fields (the local path stays out of a report)."""
        return {"source": self.source, "entry_sha256": self.entry_sha256, "spec_sha256": self.spec_sha256,
                "code_fingerprint": self.code_fingerprint, "reason": self.reason}

    def describe(self) -> str:
        if self.source == CACHE:
            return f"PAR sheet from the cache: entry {self.entry_sha256} ({self.path})"
        stored = f"; stored as entry {self.entry_sha256}" if self.written else \
            f"; entry digest {self.entry_sha256} (not stored)"
        return f"PAR sheet computed ({self.reason}){stored}"


def read_entry(path: Path, key: EntryKey, check_code: bool = True, check_owner: bool = True) -> tuple[ParSheet, str]:
    """An entry file's sheet and digest; ``CacheEntryError`` for a missing or unusable one.
    ``check_owner`` is for the user's cache folder only: a golden fixture is a file of the checkout,
    whose owner and mode are the checkout's (umask 002 makes it group-writable); its digest and
    key are checked all the same."""
    try:
        if not path.is_file() or path.is_symlink():
            raise CacheEntryError("no entry")
        with open(path, "rb") as fh:
            if check_owner:
                _check_owner(os.fstat(fh.fileno()))
            data = fh.read(MAX_ENTRY_BYTES + 1)
    except OSError as exc:
        raise CacheEntryError(f"unreadable ({exc.strerror or exc})") from None
    return parse_entry(data, key, check_code)


def _check_owner(st: os.stat_result) -> None:
    """An entry another user could have written is not ours (POSIX; the atomic writer makes 0644)."""
    if hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & 0o022):
        raise CacheEntryError("owned by another user or writable by others")


def load_or_compute(spec: Any, use_cache: bool = True, reason: str = "--no-cache",
                    directory: Path | None = None,
                    compute: Callable[[Any], ParSheet] | None = None) -> tuple[ParSheet, Provenance]:
    """The spec's PAR sheet and where it came from.

    With ``use_cache`` a valid entry is returned as it is; otherwise (or on any miss) the sheet is
    computed by ``compute`` (default ``certify.analysis.par_sheet``) and written as the entry.
    ``reason`` says why the cache was not read when ``use_cache`` is false."""
    if compute is None:
        import certify.analysis

        compute = certify.analysis.par_sheet
    if isinstance(spec, (str, os.PathLike)):
        from certify.spec import load_spec

        spec = load_spec(spec)
    key = EntryKey.of(spec)
    path = entry_path(key, directory)
    if use_cache and reads_refused():
        use_cache, reason = False, reads_refused()
    if use_cache:
        try:
            sheet, digest = read_entry(path, key)
            return sheet, Provenance(CACHE, digest, key.spec_sha256, key.code_fingerprint, "", path=str(path))
        except CacheEntryError as exc:
            reason = f"cache miss: {exc}"
    if use_cache:
        sheet = compute(spec)
    else:
        with no_reads(reason):  # a recomputed sheet reads no cached table either
            sheet = compute(spec)
    data, digest = entry_bytes(sheet, key)
    written = _store(path, data)
    return sheet, Provenance(COMPUTED, digest, key.spec_sha256, key.code_fingerprint, reason, written,
                             str(path) if written else "")


def _store(path: Path, data: bytes) -> bool:
    """Write an entry (whole or not at all); a cache that cannot be written is not an error."""
    from certify import _prune
    from certify.atomic import OutputPathError, atomic_write

    try:
        fresh = not path.parent.exists()
        atomic_write(path, data)
        if fresh:
            _prune(path.parent.parent, keep=path.parent, versions=KEEP_CODE_VERSIONS)
        return True
    except (OSError, OutputPathError):  # e.g. a link planted where the entry goes: never written through
        return False


# ----------------------------------------------------------------------------- companion tables
# Tables an analysis derives on the way to its sheet and a bulk kernel needs again (Ultimate Texas
# Hold'em's decision tables: minutes of counting). An entry ``<key>.<kind>.bin`` beside the sheet's,
# keyed the same way (spec content, code fingerprint, environment): one canonical JSON line (the
# payload -- format, kind, key, each array's dtype, shape, byte range and SHA-256, plain values --
# and the SHA-256 of the payload), then the arrays' raw bytes. Read only when every check passes;
# never read inside ``no_reads`` (``--no-cache``, the lab profile, a sheet computed on request).

TABLES_FORMAT = "certify-table-cache/1"
_TABLE_DTYPES = ("|b1", "|i1", "|u1", "<i2", "<i4", "<i8", "<f8")
_READS: ContextVar[str] = ContextVar("certify_cache_reads", default="")


@contextmanager
def no_reads(reason: str = "--no-cache"):
    """Within this block no cache entry is read (sheets and tables are computed, then stored)."""
    token = _READS.set(reason or "--no-cache")
    try:
        yield
    finally:
        _READS.reset(token)


def refuse_reads(reason: str = "--no-cache") -> None:
    """No cache entry is read for the rest of this context (a command's ``--no-cache``)."""
    _READS.set(reason or "--no-cache")


def reads_refused() -> str:
    """Why cache entries may not be read here ("" when they may)."""
    return _READS.get()


def tables_path(key: EntryKey, kind: str, directory: Path | None = None) -> Path:
    if not kind.replace("-", "").isalnum():
        raise ValueError(f"table kind {kind!r}: letters, digits and '-' only")
    return entry_path(key, directory).with_suffix(f".{kind}.bin")


def tables_bytes(arrays: dict[str, Any], values: dict[str, Any], key: EntryKey, kind: str) -> bytes:
    """The entry file of ``arrays`` (numpy arrays of plain dtypes) and ``values`` (plain data)."""
    import numpy as np

    listed, blobs, offset = [], [], 0
    for name, array in arrays.items():
        a = np.ascontiguousarray(array)
        a = a.astype(a.dtype.newbyteorder("<")) if a.dtype.byteorder == ">" else a
        if a.dtype.str not in _TABLE_DTYPES:
            raise TypeError(f"table cache: array {name!r} of dtype {a.dtype} is not stored")
        data = a.tobytes()
        listed.append([name, a.dtype.str, list(a.shape), offset, len(data), sha256_hex(data)])
        blobs.append(data)
        offset += len(data)
    payload = {"format": TABLES_FORMAT, "kind": kind, "key": key.to_dict(), "arrays": listed,
               "values": encode(values)}
    header = canonical({"payload": payload, "sha256": sha256_hex(canonical(payload))})
    return header + b"\n" + b"".join(blobs)


def tables_digest(data: bytes) -> str:
    """The entry digest of a tables entry's bytes (its header's ``sha256``: the digest of the payload,
    which lists every array's SHA-256), as ``parse_tables`` checked it or ``tables_bytes`` wrote it."""
    return json.loads(data[:data.index(b"\n")].decode("utf-8"))["sha256"]


def parse_tables(data: bytes, key: EntryKey, kind: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(arrays, values) of a tables entry if every check passes; else ``CacheEntryError``."""
    import numpy as np

    if len(data) > MAX_ENTRY_BYTES:
        raise CacheEntryError(f"larger than {MAX_ENTRY_BYTES:,} bytes")
    end = data.find(b"\n")
    try:
        entry = json.loads(data[:end].decode("utf-8")) if end > 0 else None
    except (UnicodeDecodeError, ValueError, RecursionError):
        entry = None
    if not isinstance(entry, dict) or set(entry) != {"payload", "sha256"} or not isinstance(entry["payload"], dict):
        raise CacheEntryError("not a table entry (expected a JSON line with payload and sha256)")
    try:
        if canonical(entry) != data[:end]:
            raise CacheEntryError("not in canonical form: edited")
    except ValueError:
        raise CacheEntryError("not in canonical form: edited") from None
    payload = entry["payload"]
    if entry["sha256"] != sha256_hex(canonical(payload)):
        raise CacheEntryError("digest mismatch: edited or corrupt")
    if payload.get("format") != TABLES_FORMAT or payload.get("kind") != kind:
        raise CacheEntryError(f"format {payload.get('format')!r} of kind {payload.get('kind')!r}, "
                              f"expected {TABLES_FORMAT!r} of kind {kind!r}")
    if payload.get("key") != key.to_dict():
        raise CacheEntryError("stale: computed for another spec, code or environment")
    blob = memoryview(data)[end + 1:]
    arrays, expected = {}, 0
    try:
        for name, dtype, shape, offset, nbytes, digest in payload["arrays"]:
            if dtype not in _TABLE_DTYPES or offset != expected or not all(isinstance(n, int) and n >= 0 for n in shape):
                raise CacheEntryError(f"array {name!r}: unexpected layout")
            part = bytes(blob[offset:offset + nbytes])
            if len(part) != nbytes or sha256_hex(part) != digest:
                raise CacheEntryError(f"array {name!r}: its bytes differ from the recorded digest")
            # writable, as the computed arrays are: the compiled kernels see one array type
            arrays[name] = np.frombuffer(bytearray(part), np.dtype(dtype)).reshape(shape)
            expected += nbytes
        values = decode(payload["values"])
    except CacheEntryError:
        raise
    except Exception as exc:  # any other malformation is a miss, never a crash
        raise CacheEntryError(f"the tables do not decode: {type(exc).__name__}: {str(exc)[:200]}") from None
    if expected != len(blob) or not isinstance(values, dict):
        raise CacheEntryError("trailing or missing bytes after the arrays")
    return arrays, values


@dataclass(frozen=True)
class TableProvenance:
    """Where a table entry's arrays came from, as the report and the JSON state it (beside the
    sheet's ``Provenance``)."""

    kind: str
    source: str  # CACHE or COMPUTED
    entry_sha256: str  # digest of the entry read (or written, or that would have been written)
    spec_sha256: str
    code_fingerprint: str
    reason: str  # why it was computed (a miss's reason, --no-cache, lab profile), or "" from cache

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "source": self.source, "entry_sha256": self.entry_sha256,
                "spec_sha256": self.spec_sha256, "code_fingerprint": self.code_fingerprint, "reason": self.reason}

    def describe(self) -> str:
        if self.source == CACHE:
            return f"kernel tables {self.kind!r} from the cache: entry {self.entry_sha256}"
        return f"kernel tables {self.kind!r} computed ({self.reason}); entry digest {self.entry_sha256}"


# The table entries this process used, by (entry file name, kind, reads refused): a caller that keeps
# the arrays (a kernel built once per process) uses them again without asking, so what a run used is
# the provenance of the first call, looked up by ``tables_used``.
_TABLES_USED: dict[tuple[str, str, bool], TableProvenance] = {}


def tables_used(spec: Any) -> list[TableProvenance]:
    """Where the table entries of ``spec`` this process used came from (read from the cache or
    computed), under the current reads rule (inside ``no_reads`` only those computed there)."""
    key = EntryKey.of(spec)
    refused = bool(reads_refused())
    return [p for (name, _, no_reads_), p in _TABLES_USED.items() if name == key.name and no_reads_ == refused]


def cached_tables(kind: str, spec: Any, compute: Callable[[], tuple[dict[str, Any], dict[str, Any]]],
                  directory: Path | None = None) -> tuple[dict[str, Any], dict[str, Any], str]:
    """``compute()``'s (arrays, values) for ``spec``, read from the tables entry ``kind`` when one
    passes every check and reads are allowed (``no_reads``), else computed and stored; with
    CACHE or COMPUTED. Where they came from is kept for the report (``tables_used``)."""
    key = EntryKey.of(spec)
    path = tables_path(key, kind, directory)
    reason = reads_refused()
    if not reason:
        try:
            if not path.is_file() or path.is_symlink():
                raise CacheEntryError("no entry")
            with open(path, "rb") as fh:
                _check_owner(os.fstat(fh.fileno()))
                data = fh.read(MAX_ENTRY_BYTES + 1)
            arrays, values = parse_tables(data, key, kind)
            _used(key, kind, CACHE, tables_digest(data), "", refused=False)
            return arrays, values, CACHE
        except (OSError, CacheEntryError) as exc:
            reason = f"cache miss: {exc.strerror or exc}" if isinstance(exc, OSError) else f"cache miss: {exc}"
    arrays, values = compute()
    data = tables_bytes(arrays, values, key, kind)
    _store(path, data)
    _used(key, kind, COMPUTED, tables_digest(data), reason, refused=bool(reads_refused()))
    return arrays, values, COMPUTED


def _used(key: EntryKey, kind: str, source: str, digest: str, reason: str, refused: bool) -> None:
    _TABLES_USED[(key.name, kind, refused)] = TableProvenance(kind, source, digest, key.spec_sha256,
                                                              key.code_fingerprint, reason)


# ----------------------------------------------------------------------------- golden sheets


def golden_path(spec_name: str, directory: Path = GOLDEN_DIR) -> Path:
    return directory / f"{spec_name}.json"


def read_golden(spec: Any, directory: Path = GOLDEN_DIR) -> ParSheet:
    """The golden sheet of ``spec`` kept in ``fixtures/par_sheets``: every check of a cache
    entry except the code fingerprint (the slow tests compare it with the code's own output) and
    the cache folder's owner and mode (the checkout's, whatever the umask it was made with)."""
    key = EntryKey.of(spec)
    path = golden_path(key.spec["name"], directory)
    try:
        return read_entry(path, key, check_code=False, check_owner=False)[0]
    except CacheEntryError as exc:
        raise CacheEntryError(f"{path}: {exc}; regenerate with "
                              f"python -m certify.analysis.cache --golden {key.spec['name']}") from None


def write_golden(spec: Any, directory: Path = GOLDEN_DIR) -> Path:
    """Compute the sheet (never from the cache) and write it as the golden fixture."""
    from certify.analysis import par_sheet
    from certify.atomic import atomic_write

    key = EntryKey.of(spec)
    data, _ = entry_bytes(par_sheet(spec), key)
    return atomic_write(golden_path(key.spec["name"], directory), data)


def main(argv: list[str] | None = None) -> int:
    """``python -m certify.analysis.cache --golden SPEC...``: (re)write golden sheets."""
    import argparse

    from certify.spec import load_spec

    parser = argparse.ArgumentParser(prog="python -m certify.analysis.cache")
    parser.add_argument("--golden", nargs="+", metavar="SPEC", required=True,
                        help="specs whose golden sheet to compute and write into fixtures/par_sheets")
    args = parser.parse_args(argv)
    for name in args.golden:
        print(f"wrote {write_golden(load_spec(name))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
