"""The results store: one JSON record per finished (configuration, repetition).

A record lives at ``<results_dir>/records/<config_hash>/seed<seed>-run<run>.json``. The config hash
is the SHA-256 (first 16 hex digits) of the canonical JSON of the *experiment* part of the resolved
config (dataset, public, algo, workload, eps, delta, T) — not of the keys that only say where or
how fast to run (results_dir, data_root, n_jobs, runs, force, progress, cache_gb) — so raising
``runs`` reuses the repetitions already done. The repetition is named by (base seed, run index), from which
its random streams derive (:mod:`experiments.problems`).

Writes are atomic: the JSON goes to a hidden temp file in the same folder, is flushed and fsynced,
then ``os.replace``-d onto its final name (atomic on POSIX). A process killed at any point leaves
either the complete record or none (plus possibly a ``.tmp-*`` file that readers ignore and
:meth:`ResultsStore.clean_temp` removes), so a re-run completes exactly the missing records.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

#: keys of the top-level config that do not change a record's numbers.
RUNTIME_KEYS = ("runs", "seed", "n_jobs", "results_dir", "data_root", "force", "progress",
                "cache_gb")
RECORD_VERSION = 1
_TEMP_PREFIX = ".tmp-"


def experiment_config(config: dict[str, Any]) -> dict[str, Any]:
    """The part of a resolved config (plain dict, no ``hydra`` node) that defines the numbers."""
    return {k: v for k, v in config.items() if k not in RUNTIME_KEYS and k != "hydra"}


def config_hash(config: dict[str, Any]) -> str:
    """16 hex digits of SHA-256 over the canonical JSON of :func:`experiment_config`."""
    canonical = json.dumps(experiment_config(config), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


class ResultsStore:
    """Records under ``<root>/records``; see the module docstring for layout and atomicity."""

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        self.records_dir = self.root / "records"

    def path(self, chash: str, seed: int, run: int) -> Path:
        return self.records_dir / chash / f"seed{seed}-run{run}.json"

    def exists(self, chash: str, seed: int, run: int) -> bool:
        return self.path(chash, seed, run).is_file()

    def write(self, record: dict[str, Any]) -> Path:
        """Atomically write ``record`` (needs ``config_hash``, ``seed``, ``run``)."""
        target = self.path(record["config_hash"], record["seed"], record["run"])
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=_TEMP_PREFIX, suffix=".json", dir=target.parent)
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

    def read(self, chash: str, seed: int, run: int) -> dict[str, Any]:
        return json.loads(self.path(chash, seed, run).read_text())

    def paths(self) -> Iterator[Path]:
        """Every finished record file (temp files excluded), in sorted order."""
        if not self.records_dir.is_dir():
            return iter(())
        return iter(sorted(p for p in self.records_dir.glob("*/*.json")
                           if not p.name.startswith(_TEMP_PREFIX)))

    def records(self) -> Iterator[dict[str, Any]]:
        for path in self.paths():
            yield json.loads(path.read_text())

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
