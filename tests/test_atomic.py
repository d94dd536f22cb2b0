import os

import pytest

from certify.atomic import atomic_write, atomic_write_many


def test_published_files_are_readable_keys_are_private(tmp_path):
    report = atomic_write(tmp_path / "r.json", '{"a": 1}')
    key = atomic_write(tmp_path / "k.pem", b"secret", private=True)
    assert report.read_text() == '{"a": 1}' and key.read_bytes() == b"secret"
    assert report.stat().st_mode & 0o777 == 0o644
    assert key.stat().st_mode & 0o077 == 0


def test_a_failure_leaves_neither_the_files_nor_temporaries(tmp_path):
    (tmp_path / "old.json").write_text("old")
    with pytest.raises(TypeError):
        atomic_write_many({tmp_path / "new.pdf": b"whole", tmp_path / "old.json": object()})
    assert sorted(os.listdir(tmp_path)) == ["old.json"]
    assert (tmp_path / "old.json").read_text() == "old"
