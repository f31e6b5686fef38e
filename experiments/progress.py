"""Progress lines that tell the time, shared by ``run.py -m``, ``reproduce.py`` and the theory
runner: ``job i/N`` with the elapsed time and an estimate of the time left, and one closing line
per sweep (new and reused records, failures, wall time, where the records are).

The estimate is the mean time per finished unit times the units left: units are jobs, tasks
(one repetition of one configuration) or blocks, whichever the caller counts.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Callable


def clock(seconds: float) -> str:
    """``42 s``, ``3m05s``, ``1h02m``: a duration as a person reads it."""
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.1f} s"
    minutes, secs = divmod(int(round(seconds)), 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


@dataclass
class Progress:
    """Counts finished units of a known total and formats ``<unit> i/N`` lines.

    ``weights`` lets a step count for several units (a problem group of 12 tasks); the estimate
    of the time left is ``elapsed / done * (total - done)``."""

    total: int
    unit: str = "job"
    done: int = 0
    start: float = field(default_factory=time.monotonic)
    now: Callable[[], float] = time.monotonic

    @property
    def elapsed(self) -> float:
        return self.now() - self.start

    def eta(self, elapsed: float) -> float | None:
        """Seconds left at the mean pace of ``elapsed`` so far (None before the first unit)."""
        if self.done <= 0:
            return None
        return elapsed / self.done * max(0, self.total - self.done)

    def step(self, what: str = "", units: int = 1) -> str:
        """Count ``units`` more finished and return the line: ``job 3/12 done (what); 12 s
        elapsed, about 28 s left``."""
        elapsed = self.elapsed
        first = self.done + 1
        self.done += units
        span = f"{first}-{self.done}" if units > 1 else f"{self.done}"
        eta = self.eta(elapsed)
        left = "" if eta is None or self.done >= self.total else f", about {clock(eta)} left"
        detail = f" ({what})" if what else ""
        return f"{self.unit} {span}/{self.total} done{detail}; {clock(elapsed)} elapsed{left}"


def sweep_summary(*, new: int, reused: int, missing: int, wall: float, where: list[str],
                  label: str = "sweep") -> str:
    """The one closing line of a sweep: ``sweep done: 40 new records, 20 reused, 0 missing
    (failed or held by another process), wall 1m03s; records in runs/``."""
    places = ", ".join(where) or "-"
    return (f"{label} done: {new} new record(s), {reused} reused, {missing} missing (failed or "
            f"held by another process), wall {clock(wall)}; records in {places}")


def sweep_job_line(num: int | None) -> str | None:
    """``job 3/12 done; 1m02s elapsed, about 3m30s left`` for job number ``num`` (Hydra's
    0-based ``hydra.job.num``) of the sweep :class:`experiments.release.configure.cli.SweepTally` exported;
    None outside a sweep. With a parallel launcher jobs finish out of order, so the count is the
    job's number and the time left an estimate."""
    total, start = os.environ.get("PUBPRIV_SWEEP_JOBS"), os.environ.get("PUBPRIV_SWEEP_START")
    if num is None or not total or not start:
        return None
    progress = Progress(total=int(total), unit="job", done=int(num),
                        start=float(start), now=time.time)
    return progress.step()
