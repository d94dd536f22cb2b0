"""The package's own housekeeping: compiled kernels are never stale."""

import os
import subprocess
import sys

from certify import source_digest


def test_numba_cache_is_keyed_to_the_source(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-c", "import certify, numba; print(numba.config.CACHE_DIR)"],
                         env=env, capture_output=True, text=True, check=True).stdout.strip()
    assert out == str(tmp_path / "certify" / "numba" / source_digest()[:16])


def test_with_no_writable_cache_folder_the_kernels_go_to_a_private_temporary_one(tmp_path):
    """Not to __pycache__ beside the sources (stale kernels), and the import still works."""
    blocker = tmp_path / "a file"
    blocker.write_text("")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(XDG_CACHE_HOME=str(blocker), TMPDIR=str(tmp_path))
    code = ("import certify, numba, os; from rng.shuffle import deal_words; "
            "print(numba.config.CACHE_DIR); print(os.listdir(numba.config.CACHE_DIR) != [])")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    folder, filled = out.splitlines()  # the folder may hold spaces (a TMPDIR with one)
    assert os.path.dirname(folder) == str(tmp_path) and os.path.basename(folder).startswith("certify-numba-")
    assert filled == "True"
    assert not os.path.exists(folder)  # removed when the run ended


def test_any_source_change_changes_the_key(tmp_path):
    pkg = tmp_path / "certify"
    pkg.mkdir()
    (pkg / "hands.py").write_text("TABLE = [1, 2, 3]\n")
    before = source_digest((pkg,))
    (pkg / "hands.py").write_text("TABLE = [1, 2, 4]\n")
    assert source_digest((pkg,)) != before
