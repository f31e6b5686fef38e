#!/usr/bin/env python
"""Wall time of one local sweep with its joblib workers pinned to disjoint cores and unpinned
(and, with ``--one-worker``, on a single worker), alternating, each in a fresh process and an
empty results folder.

Usage: ``PUBPRIV_DATA=../shared/data python scripts/bench_workers.py PRESET [OVERRIDE …]
[--jobs 2] [--pairs 1] [--one-worker]``, e.g. ``… bench_workers.py sota algo=gem_pub
eps=0.1,1.0 T=25 runs=4``.

Each pair runs the sweep pinned and unpinned on ``--jobs`` workers, and with ``--one-worker``
also on one worker (the order rotated every pair; a sweep's records go to a fresh temporary
folder, so the GEM^Pub pre-training is paid in each arm), and prints per arm the wall time, the
summed run time of the records per algorithm, a digest of their max errors (equal wherever the
releases do not depend on the cores a worker sees: :mod:`experiments.release.running.worker_cores`) and
the load average before it; then each arm's median wall and its ratio to the unpinned one.
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import experiments  # noqa: F401  (first: it holds OpenBLAS's kernels before NumPy loads)
import numpy as np

from experiments.console import ArgumentParser, positive_int, run_or_fail
from experiments.release.bench import json_child

HERE = str(Path(__file__).resolve().parents[1])


#: arm -> (pinned, workers: None = --jobs)
ARMS = {"pinned": ("pinned", None), "unpinned": ("unpinned", None), "one worker": ("unpinned", 1)}


def run_arm(arm: str, jobs: int, preset: str, overrides: list[str]) -> dict:
    """The sweep timed in a fresh process, into an empty temporary results folder."""
    pinning, workers = ARMS[arm]
    with tempfile.TemporaryDirectory(prefix="pubpriv-bench-workers-") as folder:
        return json_child([sys.executable, "-m", "experiments.release.bench.workers", pinning,
                           str(workers or jobs), folder, preset, *overrides],
                          f"the {arm} sweep", cwd=HERE)


def compare(preset: str, overrides: list[str], jobs: int, pairs: int, one_worker: bool) -> None:
    arms = ["pinned", "unpinned", *(["one worker"] if one_worker else [])]
    walls: dict[str, list[float]] = {arm: [] for arm in arms}
    for pair in range(pairs):
        for arm in arms[pair % len(arms):] + arms[:pair % len(arms)]:
            load = os.getloadavg()[0]
            out = run_arm(arm, jobs, preset, overrides)
            walls[arm].append(out["wall_s"])
            run_s = ", ".join(f"{a} {s:.1f}" for a, s in sorted(out["run_s"].items()))
            print(f"{arm:10s}  wall {out['wall_s']:7.1f} s  {out['tasks']} tasks  run time "
                  f"{run_s} s  errors {out['errors_digest']}  load {load:.1f}", flush=True)
    unpinned = np.median(walls["unpinned"])
    print("median wall: " + ", ".join(
        f"{arm} {np.median(w):.1f} s ({np.median(w) / unpinned:.2f}x unpinned)"
        for arm, w in walls.items()), flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("preset", help="an experiment preset (conf/experiment)")
    parser.add_argument("overrides", nargs="*", help="Hydra overrides of the preset's grid")
    parser.add_argument("--jobs", type=positive_int, default=2)
    parser.add_argument("--pairs", type=positive_int, default=1)
    parser.add_argument("--one-worker", action="store_true", help="also time the sweep on one "
                        "worker (what the second worker gains)")
    args = parser.parse_args(argv)
    run_or_fail(compare, args.preset, args.overrides, args.jobs, args.pairs, args.one_worker)


if __name__ == "__main__":
    main()
