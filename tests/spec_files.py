"""Test helpers: spec files made by tests (a shipped spec with one change, written where the test
says) and the digest the recorded-figure tests compare arrays by."""

from __future__ import annotations

import copy
import hashlib
from functools import cache
from pathlib import Path
from typing import Any, Callable

import numpy as np
import yaml

from certify.spec import SPECS_DIR, load_spec


@cache
def _parsed(path: Path) -> Any:
    return yaml.safe_load(path.read_text())


def yaml_tree(path: Path) -> Any:
    """The data of a shipped YAML file (a spec, a fixture), a fresh copy to change: each file is
    parsed once per process (pure-Python YAML, ~20 ms a spec, and some tests change hundreds)."""
    return copy.deepcopy(_parsed(Path(path).resolve()))


def dump_yaml(data: Any, sort_keys: bool = False) -> str:
    """``yaml.safe_dump(data, sort_keys=...)``, by libyaml's emitter where PyYAML has it (the same
    text for every shipped spec and fixture, a fifth of the CPU)."""
    return yaml.dump(data, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), sort_keys=sort_keys)


def spec_copy(tmp_path: Path, name: str, change: Callable[[dict[str, Any]], None]):
    """A modified copy of specs/<name>.yaml (the change applied to its YAML mapping), loaded."""
    data = yaml_tree(SPECS_DIR / f"{name}.yaml")
    change(data)
    path = tmp_path / f"{name}.yaml"
    path.write_text(dump_yaml(data))
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
