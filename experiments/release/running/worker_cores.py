"""Disjoint cores for a sweep's joblib workers (opt-in: ``reproduce.py --pin-workers``,
``run_sweep(pin=True)``).

Each worker process of a local sweep runs compiled kernels on threads of its own: numba's
parallel passes (the support engine, the product kernels) and XLA's thread pool (GEM's and
RAP^softmax's JAX steps), each one thread per core the process may run on. With pinning, the
cores this process may use are split into ``n_jobs`` disjoint sets (:func:`core_sets`), one *slot*
each; every worker claims a free slot at its first task — an OS file lock (``filelock``) in a
folder of the sweep, held for the worker's life and released by the OS when it ends — and
restricts itself to that slot's cores (``os.sched_setaffinity``) and numba to as many threads,
before its first JAX computation sizes XLA's pool. Without ``sched_setaffinity`` (macOS,
Windows) or with more workers than cores, workers are not pinned.

What it buys and costs is measured by ``scripts/bench.py workers`` (docs/benchmarks.md, "Two
workers on two cores"): GEM^Pub sweeps ran faster, PMW^Pub's memory-bound passes as fast, and
the numba kernels give the same sums for any number of threads — but XLA's float rounding
follows its pool size, so GEM, GEM^Pub and RAP^softmax release other numbers on a pinned worker
than on an unpinned one (every record keeps :func:`visible_cores` as ``cores``). Hence off by
default.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

import numpy as np
from filelock import FileLock, Timeout

#: (slot folder, held lock, cores, the cores before pinning) of this process's claimed slot
_HELD: tuple[str, FileLock, tuple[int, ...], set[int]] | None = None


def visible_cores() -> int:
    """How many cores this process may run on: what sizes XLA's thread pool at its first
    computation, which decides the float rounding of GEM's and RAP^softmax's JAX steps (kept in
    every record)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def core_sets(jobs: int, cpus: list[int] | None = None) -> list[tuple[int, ...]]:
    """``jobs`` disjoint, contiguous sets covering ``cpus`` (default: the cores this process may
    run on); none where the OS cannot pin a process, and none unless 1 < jobs ≤ len(cpus)."""
    if not hasattr(os, "sched_setaffinity"):
        return []
    cpus = sorted(os.sched_getaffinity(0) if cpus is None else cpus)
    if not 1 < jobs <= len(cpus):
        return []
    return [tuple(int(c) for c in part) for part in np.array_split(cpus, jobs)]


@dataclass(frozen=True)
class CoreSlots:
    """The slots of one sweep: their lock folder and each slot's cores."""

    folder: str
    sets: tuple[tuple[int, ...], ...]


@contextmanager
def core_slots(jobs: int) -> Iterator[CoreSlots | None]:
    """The slots of a sweep of ``jobs`` workers for the block (None: workers are not pinned);
    the lock folder is removed afterwards."""
    sets = core_sets(jobs)
    if not sets:
        yield None
        return
    folder = tempfile.mkdtemp(prefix="pubpriv-cores-")
    try:
        yield CoreSlots(folder, tuple(sets))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def claim(slots: CoreSlots | None) -> tuple[int, ...] | None:
    """Pin this process to the cores of the first free slot of ``slots`` (kept when it already
    holds one of them; a slot of an earlier sweep is given back first, and with ``slots`` None
    the process returns to its earlier cores); returns the cores, or None when unpinned."""
    global _HELD
    if _HELD is not None:
        if slots is not None and _HELD[0] == slots.folder:
            return _HELD[2]
        _HELD[1].release()
        _pin(tuple(sorted(_HELD[3])))
        _HELD = None
    if slots is None:
        return None
    for index, cores in enumerate(slots.sets):
        lock = FileLock(os.path.join(slots.folder, f"slot-{index}.lock"))
        try:
            lock.acquire(timeout=0)
        except Timeout:
            continue
        before = os.sched_getaffinity(0)
        _pin(cores)
        _HELD = (slots.folder, lock, cores, before)
        return cores
    return None


def _pin(cores: tuple[int, ...]) -> None:
    """This process on ``cores`` only, numba's parallel passes on as many threads (XLA's pool,
    sized when JAX first computes, keeps its size)."""
    import numba

    os.sched_setaffinity(0, cores)
    numba.set_num_threads(min(len(cores), numba.config.NUMBA_NUM_THREADS))
