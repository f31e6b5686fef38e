"""Progress of a theory experiment that tells the time: ``part i/P`` lines with the elapsed time
and the time left, a line per finished block, and one closing line.

An experiment's ``run(cfg)`` names the parts it will run (:func:`plan`) and wraps each in
:func:`part`; the runner (:mod:`experiments.theory.runner`) opens a :class:`TheoryRun` around it.
Blocks are the records of :class:`pubpriv_core.learning.RecordStore`, which prints
``block done: <key> (<k> new this run; <elapsed> elapsed)`` when the runner exported the run's
start (``PUBPRIV_THEORY_START``), also from joblib workers, which inherit it. The number of blocks
of a part is not known in advance (the sample-complexity searches double and bisect until their
bound is met), so the time left is estimated per part.
"""
from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence

from experiments.progress import Progress, clock

START_ENV = "PUBPRIV_THEORY_START"
_CURRENT: "TheoryRun | None" = None


def count_blocks(records: Path, since: float | None = None) -> int:
    """Block records under ``records`` (modified at or after ``since`` when given)."""
    if not records.is_dir():
        return 0
    paths = (p for p in records.rglob("*.json") if not p.name.startswith(".tmp"))
    return sum(1 for p in paths if since is None or p.stat().st_mtime >= since)


class TheoryRun:
    """One run of experiment ``name`` writing blocks under ``records``."""

    def __init__(self, name: str, records: Path, stream=None):
        self.name, self.records = name, Path(records)
        self.stream = stream or sys.stderr
        self.start = time.time()
        self.stored = count_blocks(self.records)
        self.parts: Progress | None = None
        os.environ[START_ENV] = repr(self.start)

    def say(self, text: str) -> None:
        print(f"{time.strftime('%H:%M:%S')} {text}", file=self.stream, flush=True)

    def new_blocks(self) -> int:
        return count_blocks(self.records, self.start)

    def plan(self, parts: Sequence[str]) -> None:
        self.parts = Progress(total=len(parts), unit="part", now=time.time, start=self.start)
        self.say(f"theory {self.name}: {len(parts)} part(s) ({', '.join(parts)}); "
                 f"{self.stored} block(s) stored in {self.records}")

    @contextmanager
    def part(self, name: str) -> Iterator[None]:
        parts = self.parts or Progress(total=0, unit="part", now=time.time, start=self.start)
        self.parts = parts
        tick, before = time.time(), self.new_blocks()
        number = f"{parts.done + 1}/{parts.total}" if parts.total else f"{parts.done + 1}"
        self.say(f"part {number} {name}: started; {clock(tick - self.start)} elapsed")
        yield
        blocks = self.new_blocks() - before
        self.say(parts.step(f"{name} in {clock(time.time() - tick)}, {blocks} new block(s)"))

    def closing(self) -> str:
        new = self.new_blocks()
        return (f"theory {self.name} done: {new} new block(s), {self.stored} reused, wall "
                f"{clock(time.time() - self.start)}; records in {self.records}")

    def interrupted(self) -> str:
        return (f"interrupted: {self.new_blocks()} new block(s) this run, "
                f"{count_blocks(self.records)} kept in {self.records}; re-run the same command "
                "to resume")


@contextmanager
def theory_run(name: str, records: Path) -> Iterator[TheoryRun]:
    """Make a :class:`TheoryRun` the current one inside the block."""
    global _CURRENT
    previous, _CURRENT = _CURRENT, TheoryRun(name, records)
    try:
        yield _CURRENT
    finally:
        _CURRENT = previous
        os.environ.pop(START_ENV, None)


def plan(parts: Sequence[str]) -> None:
    """Announce the parts the current run will go through (no-op outside the runner)."""
    if _CURRENT is not None:
        _CURRENT.plan(list(parts))


@contextmanager
def part(name: str) -> Iterator[None]:
    """One part of the current run: its start, then ``part i/P done (...); elapsed, about ...
    left`` (outside the runner the part just runs)."""
    if _CURRENT is None:
        yield
        return
    with _CURRENT.part(name):
        yield
