"""The results store: one JSON record per finished (configuration, repetition).

A record lives at ``<results_dir>/records/<config_hash>/seed<seed>-run<run>.json``. The config hash
is the SHA-256 (first 16 hex digits) of the canonical JSON of the *experiment* part of the resolved
config (dataset, public, algo, workload, eps, delta, T) — not of the keys that only say where or
how fast to run (results_dir, data_root, n_jobs, runs, force, progress, cache_gb) — so raising
``runs`` reuses the repetitions already done. The repetition is named by (base seed, run index), from which
its random streams derive (:mod:`pubpriv_core.problems`).

Writes are atomic: the JSON goes to a hidden temp file in the same folder, is flushed and fsynced,
then ``os.replace``-d onto its final name (atomic on POSIX). A process killed at any point leaves
either the complete record or none (plus possibly a ``.tmp-*`` file that readers ignore and
:meth:`ResultsStore.clean_temp` removes), so a re-run completes exactly the missing records. Files are created with mode 0666 minus the
umask, like any other file the user writes (a shared folder stays shared).

Damaged records. A record that is empty, truncated, not JSON, not a record of this store (another
file, another version, or filed under another hash, seed or run) or missing a field is *damaged*:
:meth:`ResultsStore.exists` moves it to ``records/.corrupt/`` with a warning naming both paths and
reports it missing, so the run that finds it computes it again. :func:`scan` lists the records
and the damaged files of a folder without moving anything (for ``scripts/collect.py``), entries
that are not regular files (a folder, a dangling link, a pipe) among the damaged.
"""
from __future__ import annotations

import json
import logging
import os
import time
import uuid
from pathlib import Path
from typing import Any, Iterator

from pubpriv_core.job import config_hash

RECORD_VERSION = 1
_TEMP_PREFIX = ".tmp-"
CORRUPT_DIR = ".corrupt"
#: fields every record has, with their JSON types (numbers may be NaN).
REQUIRED = {"record_version": int, "config_hash": str, "seed": int, "run": int, "config": dict,
            "algo": str, "eps": (int, float), "rho": (int, float), "max_error": (int, float),
            "mean_error": (int, float), "runtime_s": (int, float)}

log = logging.getLogger(__name__)


class DamagedRecordError(ValueError):
    """A record file that cannot be used; the message names the file and the problem."""


class ResultsStore:
    """Records under ``<root>/records``; see the module docstring for layout and atomicity."""

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        self.records_dir = self.root / "records"

    def path(self, chash: str, seed: int, run: int) -> Path:
        return self.records_dir / chash / f"seed{seed}-run{run}.json"

    def write(self, record: dict[str, Any]) -> Path:
        """Atomically write ``record`` (needs ``config_hash``, ``seed``, ``run``)."""
        target = self.path(record["config_hash"], record["seed"], record["run"])
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.parent / f"{_TEMP_PREFIX}{uuid.uuid4().hex}.json"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)   # the umask applies
        try:
            with os.fdopen(fd, "w") as handle:
                json.dump(record, handle, indent=1, sort_keys=True, allow_nan=True)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return target

    def exists(self, chash: str, seed: int, run: int) -> bool:
        """True when a usable record exists; a damaged one is moved aside and reported missing."""
        path = self.path(chash, seed, run)
        if not path.is_file():
            return False
        try:
            load_record(path)
        except DamagedRecordError as err:
            self.quarantine(path, str(err))
            return False
        return True

    def read(self, chash: str, seed: int, run: int) -> dict[str, Any]:
        """The record (raises :class:`DamagedRecordError` for a damaged file)."""
        return load_record(self.path(chash, seed, run))

    def quarantine(self, path: Path, problem: str) -> Path:
        """Move damaged ``path`` to ``records/.corrupt/`` (never overwriting); warn with both."""
        folder = self.records_dir / CORRUPT_DIR
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / f"{path.parent.name}-{path.name}"
        while target.exists():
            target = folder / f"{path.parent.name}-{uuid.uuid4().hex[:8]}-{path.name}"
        os.replace(path, target)
        log.warning("%s; moved to %s, the record will be computed again", problem, target)
        return target

    def paths(self) -> Iterator[Path]:
        """Every finished record file (temp and quarantined files excluded), in sorted order;
        entries named like records that are not regular files are left out (see
        :meth:`odd_entries`)."""
        return iter([p for p in self._entries() if _is_regular(p)])

    def odd_entries(self) -> list[Path]:
        """Entries named like records that are no regular file: a folder, a dangling link, a
        pipe or a device (reading a pipe would block)."""
        return [p for p in self._entries() if not _is_regular(p)]

    def _entries(self) -> list[Path]:
        if not self.records_dir.is_dir():
            return []
        return sorted(p for p in self.records_dir.glob("*/*.json")
                      if not p.name.startswith(_TEMP_PREFIX) and p.parent.name != CORRUPT_DIR)

    def records(self) -> Iterator[dict[str, Any]]:
        """Every usable record; damaged files are skipped (see :func:`scan` to name them)."""
        return iter(scan(self)[0])

    def clean_temp(self, min_age_s: float = 60.0) -> int:
        """Remove temp files older than ``min_age_s`` (a write takes milliseconds, so those were
        left by killed writers; younger ones may belong to a concurrent job). Returns the count."""
        if not self.records_dir.is_dir():
            return 0
        now = time.time()
        stale = [p for p in self.records_dir.glob(f"*/{_TEMP_PREFIX}*")
                 if now - p.stat().st_mtime >= min_age_s]
        for path in stale:
            path.unlink(missing_ok=True)
        return len(stale)


def _is_regular(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


def load_record(path: Path) -> dict[str, Any]:
    """Read and validate one record file; :class:`DamagedRecordError` names what is wrong."""
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise DamagedRecordError(f"damaged record {path}: not UTF-8 text") from None
    except OSError as err:
        raise DamagedRecordError(f"damaged record {path}: cannot be read "
                                 f"({err.strerror or err})") from None
    if not text.strip():
        raise DamagedRecordError(f"damaged record {path}: empty file")
    try:
        record = json.loads(text)
    except json.JSONDecodeError as err:
        raise DamagedRecordError(f"damaged record {path}: not valid JSON ({err.msg} at "
                                 f"character {err.pos}; truncated?)") from None
    problem = record_problem(record, path)
    if problem:
        raise DamagedRecordError(f"damaged record {path}: {problem}")
    return record


def record_problem(record: Any, path: Path) -> str | None:
    """Why ``record`` (read from ``path``) is not a record of this store, or None."""
    if not isinstance(record, dict):
        return f"a JSON {type(record).__name__}, not a record object"
    for key, kind in REQUIRED.items():
        if key not in record:
            return f"missing field {key!r}"
        if not isinstance(record[key], kind) or isinstance(record[key], bool):
            return f"field {key!r} has type {type(record[key]).__name__}"
    if record["record_version"] != RECORD_VERSION:
        return f"record_version {record['record_version']}, this store reads {RECORD_VERSION}"
    own = (record["config_hash"], f"seed{record['seed']}-run{record['run']}.json")
    if own != (path.parent.name, path.name):
        return f"it belongs to {own[0]}/{own[1]} (a foreign record)"
    if config_hash(record["config"]) != record["config_hash"]:
        return "its config does not hash to its config_hash (edited or foreign)"
    return None


def scan(store: ResultsStore) -> tuple[list[dict[str, Any]], list[str]]:
    """(usable records, one line per damaged file) of ``store``; nothing is moved."""
    records = []
    damaged = [f"damaged record {path}: not a regular file (a folder, a dangling link or a pipe)"
               for path in store.odd_entries()]
    for path in store.paths():
        try:
            records.append(load_record(path))
        except DamagedRecordError as err:
            damaged.append(str(err))
    return records, damaged
