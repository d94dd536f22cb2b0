"""The suite gives the same verdicts whoever runs it, from whatever folder and however.

The code itself must not depend on the checkout's path, HOME, the time zone, the locale or a
terminal (CI proves it: ``.ci/run`` runs the suite from a long path with a space and non-ASCII
characters, another HOME, TZ and locale, and no terminal). What this file keeps out of the tests
is the developer's own state, which a test must neither read nor change:

- the signing keys: every test starts with an empty ``XDG_CONFIG_HOME`` (session fixtures and
  subprocesses get one too), so no test signs with the developer's key or asks for its
  passphrase, and no test leaves a DEVELOPMENT key in their ``~/.config/certify``;
- the developer's settings of the suite (``DEVELOPER_SETTINGS``);
- the variables by which rich picks colours and width (``TERMINAL_SETTINGS``): output to a pipe
  is plain text whatever terminal started pytest.

The numba cache (``XDG_CACHE_HOME``, ``NUMBA_CACHE_DIR``) is left alone: it holds only compiled
code, keyed to the source (``certify._key_numba_cache_to_the_source``).
"""

import os
import shutil
import tempfile

import pytest

DEVELOPER_SETTINGS = ("CERTIFY_KEY_PASSPHRASE", "SOURCE_DATE_EPOCH", "CERTIFY_CHECKPOINT_EVERY_S")
TERMINAL_SETTINGS = ("FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "COLUMNS", "LINES",
                     "JUPYTER_COLUMNS", "JUPYTER_LINES")

_session_config = tempfile.mkdtemp(prefix="certify-test-config-")


def pytest_configure(config):
    os.environ["XDG_CONFIG_HOME"] = _session_config
    for name in DEVELOPER_SETTINGS + TERMINAL_SETTINGS:
        os.environ.pop(name, None)


def pytest_unconfigure(config):
    shutil.rmtree(_session_config, ignore_errors=True)


@pytest.fixture(autouse=True)
def _empty_key_folder(tmp_path_factory, monkeypatch):
    """Each test its own empty config folder: no key made by one test is seen by the next."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
