"""One PMW^Pub timing for :mod:`scripts.bench_engine_ab`, run in a fresh process of the tree
being timed: ``python -m experiments.release.bench.engine_ab POINT`` prints one JSON line.

POINT is ``ROWSxW`` (a point of bench_scale's grid, :func:`~.scale.one_configuration`: T = 20,
ε = 1, after an untimed 3-round release) or ``nist:OVERRIDE;OVERRIDE…`` (Hydra overrides of the
``fig1_nist`` preset with ``algo=pmwpub``, e.g. ``nist:dataset.reduced=false;workload.k=3;
public={year:2018};T=100;eps=1``: repetition 0 of that config as the runner builds it, after an
untimed 3-round release). Besides the time per iteration it prints the max error and a digest of
the selected queries and measurements, which are equal before and after a change that keeps the
numbers.
"""
from __future__ import annotations

import hashlib
import json
import sys
import time

import numpy as np


def digest(release) -> str:
    """Hash of the run's selected queries and measurements (what a replay compares)."""
    text = json.dumps([[int(q) for q in release.trace["queries"]],
                       [float(a).hex() for a in release.trace["measurements"]]])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def nist_point(overrides: list[str]) -> dict:
    from experiments.release.running.problems import build_problem, data_context
    from experiments.release.running.repetitions import release_of, repetition_release
    from experiments.release.running.sweep import compose_exact

    cfg = compose_exact(["experiment=fig1_nist", "algo=pmwpub", *overrides])
    with data_context(cfg.get("data_root")):
        start = time.perf_counter()
        problem = build_problem(cfg, 0)
        problem.true_answers, problem.public_candidates
        build = time.perf_counter() - start
        release_of(cfg, problem, np.random.default_rng(1), T=3)     # warm-up
        release, _, _ = repetition_release(cfg, problem, 0)
    return {"support": problem.support_size, "build_s": build, "per_iter_s": release.per_iter_s,
            "max_error": release.errors(problem.true_answers)["max_error"],
            "digest": digest(release)}


def main(point: str) -> dict:
    if point.startswith("nist:"):
        return nist_point([o for o in point[5:].split(";") if o])
    from experiments.release.bench.scale import one_configuration
    rows, W = (int(v) for v in point.split("x"))
    return one_configuration(rows, W)


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1])))
