"""Data root precedence, the raw-file registry and fetch (pubpriv_core.data.paths)."""
import hashlib
import os
from pathlib import Path

import pytest

from pubpriv_core.data import paths
from pubpriv_core.data.paths import DataUnavailableError, RawFile

SHARED = Path(os.environ.get("PUBPRIV_DATA") or
              Path(__file__).resolve().parents[2] / "shared" / "data")


@pytest.fixture
def root(tmp_path):
    paths.set_data_root(tmp_path)
    yield tmp_path
    paths.set_data_root(None)


def test_root_precedence(monkeypatch, tmp_path):
    monkeypatch.setenv("PUBPRIV_DATA", str(tmp_path / "env"))
    assert paths.data_root() == (tmp_path / "env").resolve()
    paths.set_data_root(tmp_path / "explicit")
    try:
        assert paths.data_root() == (tmp_path / "explicit").resolve()
    finally:
        paths.set_data_root(None)
    monkeypatch.delenv("PUBPRIV_DATA")
    assert paths.data_root().name == "pubpriv"


def _register(monkeypatch, content: bytes, url="http://127.0.0.1:9/toy.csv"):
    md5 = hashlib.md5(content).hexdigest()
    monkeypatch.setitem(paths.REGISTRY, "toy", RawFile("toy/toy.csv", url, md5))


def test_fetch_uses_verified_local_copy(root, monkeypatch):
    _register(monkeypatch, b"a,b\n1,2\n")
    (root / "toy").mkdir()
    (root / "toy" / "toy.csv").write_bytes(b"a,b\n1,2\n")
    assert paths.fetch("toy") == root / "toy" / "toy.csv"


def test_fetch_missing_offline_raises_one_line(root, monkeypatch):
    _register(monkeypatch, b"a,b\n1,2\n")
    with pytest.raises(DataUnavailableError) as err:
        paths.fetch("toy")
    message = str(err.value)
    assert "\n" not in message
    assert "toy/toy.csv is missing" in message
    assert "http://127.0.0.1:9/toy.csv" in message
    assert str(root / "toy" / "toy.csv") in message


def test_fetch_corrupt_local_copy_raises(root, monkeypatch):
    _register(monkeypatch, b"a,b\n1,2\n")
    (root / "toy").mkdir()
    (root / "toy" / "toy.csv").write_bytes(b"a,b\n1,3\n")
    with pytest.raises(DataUnavailableError, match=r"does not match its md5 \(truncated"):
        paths.fetch("toy")
    (root / "toy" / "toy.csv").write_bytes(b"")
    with pytest.raises(DataUnavailableError, match="toy/toy.csv is empty"):
        paths.fetch("toy")


def test_unknown_file_lists_registry():
    with pytest.raises(KeyError, match="adult.data"):
        paths.fetch("nope")


def test_registry_checksums_match_shared_data():
    if not SHARED.is_dir():
        pytest.skip(f"shared data not found at {SHARED}")
    entry = paths.REGISTRY["adult.data"]
    assert entry.md5 == "5d7c39d7b8804f071cdd1f2a7c460872"
    for name, entry in paths.REGISTRY.items():
        digest = hashlib.md5((SHARED / entry.relpath).read_bytes()).hexdigest()
        assert digest == entry.md5, name
        assert entry.url.startswith("https://")


def test_failed_download_leaves_no_folder_behind(tmp_path, monkeypatch):
    """A wrong data root (``data_root=/nonexistent dataset=adult``) is reported, and the folders
    the download attempt created are removed again; an existing root keeps its own folders."""
    _register(monkeypatch, b"a,b\n1,2\n")
    paths.set_data_root(tmp_path / "nonexistent")
    try:
        with pytest.raises(DataUnavailableError, match="toy/toy.csv is missing"):
            paths.fetch("toy")
    finally:
        paths.set_data_root(None)
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "kept" / "toy").mkdir(parents=True)
    paths.set_data_root(tmp_path / "kept")
    try:
        with pytest.raises(DataUnavailableError):
            paths.fetch("toy")
    finally:
        paths.set_data_root(None)
    assert (tmp_path / "kept" / "toy").is_dir()
