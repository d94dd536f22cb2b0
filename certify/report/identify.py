"""Software identification: the SHA-256 of every file a certification depends on.

The list is what a lab compares against the submitted build: every source file of ``rng/`` and
``certify/`` (byte for byte, caches excluded), the spec, and the fixtures that were run.
``sha256sum -c`` can check it: each row is a hash and a path relative to the project root.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Iterable

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SOURCE_PACKAGES = ("rng", "certify")
_SKIP_DIRS = {"__pycache__", ".pytest_cache", ".mypy_cache"}
_SKIP_SUFFIXES = {".pyc", ".pyo", ".nbi", ".nbc", ".so"}


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def source_files(root: Path = PROJECT_ROOT, packages: Iterable[str] = SOURCE_PACKAGES) -> list[Path]:
    """Every file under the source packages, sorted, without caches and compiled artefacts."""
    files = []
    for package in packages:
        base = root / package
        if not base.is_dir():
            raise FileNotFoundError(f"software identification: source package {base} not found")
        for path in base.rglob("*"):
            if path.is_file() and not _SKIP_DIRS.intersection(path.relative_to(root).parts) \
                    and path.suffix not in _SKIP_SUFFIXES:
                files.append(path)
    return sorted(files, key=lambda p: p.relative_to(root).as_posix())


def display_path(path: Path, root: Path = PROJECT_ROOT) -> str:
    """A file's name in a report: its path in the project, or its whole path outside it."""
    path = path.resolve()
    try:
        return path.relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def software_inventory(spec_path: str | Path | None = None,
                       fixture_paths: Iterable[str | Path] = (),
                       root: Path = PROJECT_ROOT) -> list[dict[str, str]]:
    """Rows ``{"path", "sha256", "role"}``: sources, then the spec, then the fixtures."""
    rows = [{"path": display_path(p, root), "sha256": file_sha256(p), "role": "source"}
            for p in source_files(root)]
    if spec_path is not None:
        p = Path(spec_path)
        rows.append({"path": display_path(p, root), "sha256": file_sha256(p), "role": "spec"})
    for fixture in sorted({Path(f).resolve() for f in fixture_paths}):
        rows.append({"path": display_path(fixture, root), "sha256": file_sha256(fixture), "role": "fixture"})
    return rows


def source_fingerprint(root: Path = PROJECT_ROOT) -> str:
    """The software fingerprint of the source rows alone (no spec, no fixtures): what the code is.
    A report's rows with role "source" give the same value (``model.software_fingerprint``)."""
    from certify.report.model import software_fingerprint

    return software_fingerprint([{"path": display_path(p, root), "sha256": file_sha256(p)}
                                 for p in source_files(root)])
