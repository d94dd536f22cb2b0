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


def test_any_source_change_changes_the_key(tmp_path):
    pkg = tmp_path / "certify"
    pkg.mkdir()
    (pkg / "hands.py").write_text("TABLE = [1, 2, 3]\n")
    before = source_digest((pkg,))
    (pkg / "hands.py").write_text("TABLE = [1, 2, 4]\n")
    assert source_digest((pkg,)) != before
