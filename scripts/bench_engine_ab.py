#!/usr/bin/env python
"""PMW^Pub per iteration at chosen points of bench_scale's grid, this tree against another
checkout (e.g. an earlier commit), alternating A and B in fresh processes.

Usage: ``python scripts/bench_engine_ab.py --before DIR [--points 16000x1024 …] [--pairs 3]``,
where DIR is a checkout of the code to compare with (``git worktree add DIR COMMIT`` or
``git archive COMMIT | tar -x -C DIR``) and each point is ``ROWSxW`` (bench_scale's setting) or
``nist:OVERRIDE;…`` (a ``fig1_nist`` PMW^Pub config,
:mod:`experiments.release.bench.engine_ab`). Each pair runs the point in a fresh process of the
other tree, then of this one (the order swapped every pair); prints both per-iteration times,
their ratio, the max errors and a digest of the selected queries and measurements (equal when
the change keeps the numbers), and the load average before each run.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import experiments  # noqa: F401  (first: it holds OpenBLAS's kernels before NumPy loads)
import numpy as np

from experiments.console import positive_int, run_or_fail
from experiments.release.bench import json_child

HERE = str(Path(__file__).resolve().parents[1])


def run_point(point: str, tree: str) -> dict:
    """The point timed by the code of ``tree`` in a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(Path(tree).resolve())}
    return json_child([sys.executable, "-m", "experiments.release.bench.engine_ab", point],
                      f"{point} in {tree}", env=env, cwd=tree)


def compare(before: str, points: list[str], pairs: int) -> None:
    if not (Path(before) / "experiments" / "release" / "bench" / "engine_ab.py").is_file():
        raise ValueError(f"--before {before} is not a checkout of this project with "
                         "experiments/release/bench/engine_ab.py; copy that file into it")
    for point in points:
        times = {"before": [], "after": []}
        for pair in range(pairs):
            order = ("before", "after") if pair % 2 == 0 else ("after", "before")
            for which in order:
                load = os.getloadavg()[0]
                record = run_point(point, before if which == "before" else HERE)
                times[which].append(record["per_iter_s"])
                print(f"{point}  {which:6s}  {1e3 * record['per_iter_s']:8.2f} ms per iteration"
                      f"  max error {record['max_error']:.6f}  selections "
                      f"{record.get('digest', '-')}  load {load:.1f}", flush=True)
        b, a = np.median(times["before"]), np.median(times["after"])
        print(f"{point}  median before {1e3 * b:.2f} ms, after {1e3 * a:.2f} ms ({b / a:.2f}x)",
              flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="checkout of the code to compare with")
    parser.add_argument("--points", nargs="+", default=["16000x1024", "4000x4096", "1000x4096"])
    parser.add_argument("--pairs", type=positive_int, default=3)
    args = parser.parse_args(argv)
    run_or_fail(compare, args.before, args.points, args.pairs)


if __name__ == "__main__":
    main()
