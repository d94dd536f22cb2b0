"""The rng package stands alone: it never imports certify."""

import subprocess
import sys


def test_rng_does_not_import_certify():
    code = ("import sys, rng.base, rng.drbg, rng.entropy, rng.bounded, rng.shuffle, rng.streams, rng.sources; "
            "bad = [m for m in sys.modules if m == 'certify' or m.startswith('certify.')]; "
            "assert not bad, bad")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
