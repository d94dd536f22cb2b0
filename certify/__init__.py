"""Certification suite for casino table games."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__version__ = "0.1.0"

_PACKAGE_ROOTS = (Path(__file__).resolve().parent, Path(__file__).resolve().parent.parent / "rng")


def source_digest(roots=_PACKAGE_ROOTS) -> str:
    """SHA-256 over the path and bytes of every .py file under ``roots``."""
    digest = hashlib.sha256()
    for root in roots:
        for path in sorted(Path(root).rglob("*.py")):
            digest.update(str(path.relative_to(root.parent)).encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def user_cache_dir() -> Path:
    """The suite's folder in the user's cache: ``$XDG_CACHE_HOME/certify`` (``~/.cache/certify``)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "certify"


def _prune(base: Path, keep: Path, versions: int = 3) -> None:
    """Remove the caches of all but the newest few source versions."""
    import shutil

    folders = sorted((f for f in base.iterdir() if f.is_dir() and f != keep),
                     key=lambda f: f.stat().st_mtime, reverse=True)
    for old in folders[versions - 1:]:
        shutil.rmtree(old, ignore_errors=True)


def _key_numba_cache_to_the_source() -> None:
    """Compiled kernels are cached on disk, and numba re-checks only each function's own file: a
    kernel that calls the evaluator of certify/hands.py would keep its old code and tables after
    hands.py changed. A certification tool must never run stale code, so the cache folder is keyed
    to the source of certify/ and rng/: any change to any file compiles afresh. An explicit
    NUMBA_CACHE_DIR is respected. With no writable cache folder (no HOME, a read-only one) the
    kernels go to a private temporary folder for this run: never to __pycache__ beside the
    sources, where they could go stale, and never nowhere (numba refuses to import then)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    try:
        base = user_cache_dir() / "numba"
        folder = base / source_digest()[:16]
        if not folder.exists():
            folder.mkdir(parents=True)
            _prune(base, keep=folder)
        if not os.access(folder, os.W_OK | os.X_OK):
            raise PermissionError(f"{folder} is not writable")
    except (OSError, RuntimeError):  # RuntimeError: Path.home() with no HOME and no user entry
        import atexit
        import shutil
        import tempfile

        folder = Path(tempfile.mkdtemp(prefix="certify-numba-"))
        atexit.register(shutil.rmtree, folder, True)
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    import sys

    if "numba" in sys.modules:  # numba read its settings already: set the live value too
        sys.modules["numba"].config.CACHE_DIR = str(folder)


_key_numba_cache_to_the_source()
