"""Benchmarks of the query-release engine and algorithms: one module each, whose ``main(argv)``
is run by ``python scripts/bench.py NAME`` (:mod:`experiments.bench_entry` lists the names), and
the helpers they share (fresh child processes, median timings)."""
from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Callable

import numpy as np

#: the checkout these modules belong to (its ``run.py`` and ``conf/``)
REPO = Path(__file__).resolve().parents[3]


def median_seconds(call: Callable[[], object], repeats: int) -> float:
    """The median wall time of ``repeats`` calls of ``call``, after one untimed call."""
    call()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def json_child(command: list[str], what: str, **kwargs) -> dict:
    """Run ``command`` in a fresh process (``kwargs`` go to :func:`subprocess.run`, e.g. ``env``
    and ``cwd``) and return its last line of output read as JSON; a failure is a
    :class:`RuntimeError` of one line naming ``what`` and the child's last line of errors."""
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"{what} failed: {last}")
    return json.loads(done.stdout.strip().splitlines()[-1])
