"""Claims: a process computes a record only while it holds that record's claim.

Concurrent sweeps into one ``results_dir`` (two terminals, a Slurm array, joblib workers) thus
never compute the same record twice: a repetition whose claim another process holds is skipped,
and it is computed by whoever holds it. The claim is an OS file lock (``filelock``: ``flock`` on
``<results_dir>/claims/<hash>/seed<s>-run<r>.lock``) held through an open file, so it ends with
its process however that ends — finished, crashed, SIGKILL, out of memory — and a claim left by a
dead process is never in the way: its empty lock file stays and is reused (the lock file of a
stored record is removed). On a network file system the lock is the server's (NFS lock leases
expire when a client node dies). On a file system without ``flock`` at all, filelock ≥ 4 falls
back to a marker file that it breaks once the process that wrote it is gone.
After taking a claim the record is looked up again: another process may have just written it.
"""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from filelock import FileLock, Timeout

from experiments.release.running.store import ResultsStore


@contextmanager
def claim(store: ResultsStore, chash: str, seed: int, run: int) -> Iterator[bool]:
    """Yield True while this process holds the claim of the record, False if another holds it."""
    path = claim_path(store, chash, seed, run)
    lock = FileLock(str(path), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        yield False
        return
    try:
        yield True
    finally:
        if store.path(chash, seed, run).is_file():
            path.unlink(missing_ok=True)   # safe while held: a claimer re-checks the record
        lock.release()


def claim_path(store: ResultsStore, chash: str, seed: int, run: int) -> Path:
    """The lock file of a record's claim (its folder is created)."""
    path = store.root / "claims" / chash / f"seed{seed}-run{run}.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path
