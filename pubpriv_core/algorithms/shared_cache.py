"""The folder where algorithms keep what the processes of one sweep can share: work that reads
no private data (GEM^Pub's public pre-training). The runner sets it to ``<results_dir>/cache``
while it computes a record; unset (the Python API's default), nothing is written."""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

_ROOT: list[Path | None] = [None]


@contextmanager
def shared_under(root: Path | None) -> Iterator[None]:
    """Keep shared work under ``root`` (None: in memory only) within the block."""
    before, _ROOT[0] = _ROOT[0], None if root is None else Path(root)
    try:
        yield
    finally:
        _ROOT[0] = before


def shared_folder(name: str) -> Path | None:
    """``<root>/<name>``, or None when no root is set."""
    return None if _ROOT[0] is None else _ROOT[0] / name
