"""Fail-closed file writing, for every file the suite writes (reports, JSON results, checkpoints,
keys): a file either appears whole or not at all.

Each file is written to a temporary file in the target directory, flushed and fsynced, then
renamed over the target (rename is atomic within one file system), and the directory is fsynced.
On any error the temporary files are removed and no target is created or changed. Files are
readable by others (0644) unless ``private`` (0600: keys); the temporary file is 0600 until then.

Only regular files are written. A target that exists as anything else -- a device node (as root,
``--json /dev/null`` would otherwise replace /dev/null), a FIFO, a socket, a folder -- or as a
symbolic link (the suite never follows or replaces a link: ``--json link-to-/proc/self/fd/1``) is
refused with ``OutputPathError`` (exit 2) before anything is written. ``check_output_path`` and
``check_output_dir`` are the same checks for the commands' preflight, run on every output path
before any work starts; the writer repeats them just before each rename.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import Mapping

from certify.errors import InputError


class OutputPathError(InputError):
    """An output path the suite will not write: not a regular file, a link, or not writable."""


_KINDS = ((stat.S_ISLNK, "a symbolic link (the suite never writes through or replaces a link; give the "
                         "real path)"),
          (stat.S_ISDIR, "a folder, not a file"),
          (stat.S_ISCHR, "a character device, not a regular file"),
          (stat.S_ISBLK, "a block device, not a regular file"),
          (stat.S_ISFIFO, "a FIFO (named pipe), not a regular file"),
          (stat.S_ISSOCK, "a socket, not a regular file"))


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None  # a parent is a file: reported by _check_folder
    except OSError as exc:
        raise OutputPathError(f"cannot write {path}: {exc.strerror or exc}") from None


def _check_folder(path: Path, target: Path) -> None:
    """The nearest existing ancestor of ``path`` must be a folder we may create files in."""
    folder = path.absolute()
    while _lstat(folder) is None and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise OutputPathError(f"cannot write {target}: {folder} is a file, not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputPathError(f"cannot write {target}: no permission to write in {folder}")


def check_output_path(target: str | Path) -> Path:
    """Refuse (OutputPathError) an output file path the writer would refuse; returns it as a Path.

    It must not exist, or be a regular file (not a link); its folder must exist or be creatable
    under a writable folder."""
    target = Path(target)
    st = _lstat(target)
    if st is not None and not stat.S_ISREG(st.st_mode):
        kind = next((text for test, text in _KINDS if test(st.st_mode)), "not a regular file")
        raise OutputPathError(f"cannot write {target}: it is {kind}")
    _check_folder(target.parent, target)
    return target


def check_output_dir(directory: str | Path) -> Path:
    """Refuse (OutputPathError) an output folder that is not a folder (a link to a folder is a
    folder: the files written in it are checked one by one) or cannot be written."""
    directory = Path(directory)
    if _lstat(directory) is not None and not directory.is_dir():
        raise OutputPathError(f"cannot write in {directory}: it is not a folder")
    _check_folder(directory, directory)
    return directory


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
    check_output_path(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise OutputPathError(f"cannot write {target}: a parent of it is a file, not a folder") from None
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
            check_output_path(target)  # again, just before the rename: nothing replaced it meanwhile
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
