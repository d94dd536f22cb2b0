"""Fail-closed file writing, for every file the suite writes (reports, JSON results, checkpoints,
keys): a file either appears whole or not at all.

Each file is written to a temporary file in the target directory, flushed and fsynced, then
renamed over the target (rename is atomic within one file system), and the directory is fsynced.
On any error the temporary files are removed and no target is created or changed. Files are
readable by others (0644) unless ``private`` (0600: keys); the temporary file is 0600 until then.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Mapping


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # e.g. platforms that cannot open directories
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_temp(target: Path, data: bytes, private: bool) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if not private:
            os.chmod(tmp, 0o644)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)


def atomic_write_many(files: Mapping[str | Path, bytes], private: bool = False) -> list[Path]:
    """Write several files so that none appears unless all were written.

    Every temporary file is complete before the first rename; if a rename fails, the targets
    already renamed in this call are removed again (they did not exist or were replaced by us).
    """
    temps: list[tuple[Path, Path]] = []
    done: list[Path] = []
    try:
        for target, data in files.items():
            target = Path(target)
            temps.append((_write_temp(target, data, private), target))
        for tmp, target in temps:
            os.replace(tmp, target)
            done.append(target)
        for directory in {t.parent for _, t in temps}:
            _fsync_dir(directory)
    except BaseException:
        for tmp, _ in temps:
            tmp.unlink(missing_ok=True)
        for target in done:
            target.unlink(missing_ok=True)
        raise
    return done


def atomic_write(target: str | Path, data: bytes | str, private: bool = False) -> Path:
    if isinstance(data, str):
        data = data.encode("utf-8")
    return atomic_write_many({target: data}, private)[0]
