"""Spec files made by tests: a shipped spec with one change, written where the test says."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import yaml

from certify.spec import SPECS_DIR, load_spec


def spec_copy(tmp_path: Path, name: str, change: Callable[[dict[str, Any]], None]):
    """A modified copy of specs/<name>.yaml (the change applied to its YAML mapping), loaded."""
    data = yaml.safe_load((SPECS_DIR / f"{name}.yaml").read_text())
    change(data)
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return load_spec(path)
