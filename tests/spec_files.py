"""Test helpers: spec files made by tests (a shipped spec with one change, written where the test
says) and the digest the recorded-figure tests compare arrays by."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Callable

import numpy as np
import yaml

from certify.spec import SPECS_DIR, load_spec


def spec_copy(tmp_path: Path, name: str, change: Callable[[dict[str, Any]], None]):
    """A modified copy of specs/<name>.yaml (the change applied to its YAML mapping), loaded."""
    data = yaml.safe_load((SPECS_DIR / f"{name}.yaml").read_text())
    change(data)
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return load_spec(path)


def one_pay_line_changed(tmp_path: Path):
    """caribbean_stud with one pay line changed (the Bet's flush 5 -> 6), loaded: a spec that must
    miss every cache entry of the shipped one."""
    return spec_copy(tmp_path, "caribbean_stud",
                     lambda d: d["wagers"]["bet"]["settle"]["versus_dealer"]["win_pays"].__setitem__("flush", 6))


def array_digest(*arrays) -> str:
    """SHA-256 of the arrays as contiguous int64, in order: how a recorded kernel output is kept."""
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a, dtype=np.int64).tobytes())
    return h.hexdigest()
