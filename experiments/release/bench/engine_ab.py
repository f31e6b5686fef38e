"""PMW^Pub per iteration at chosen points, this tree against another checkout.

    python scripts/bench.py engine_ab --before DIR [--points 16000x1024 …] [--pairs 3]

DIR is a checkout of the code to compare with (``git worktree add DIR COMMIT`` or ``git archive
COMMIT | tar -x -C DIR``). Each pair runs the point in a fresh process of the other tree, then of
this one (the order swapped every pair); prints both per-iteration times, their ratio, the max
errors and a digest of the selected queries and measurements (equal when the change keeps the
numbers), and the load average before each run.

The fresh process is ``python -m experiments.release.bench.engine_ab POINT`` run in the tree
being timed (so DIR needs this file), which prints one JSON line (:func:`measure`). POINT is
``ROWSxW`` (a point of the ``scale`` benchmark's grid, :func:`~.scale.one_configuration`:
T = 20, ε = 1, after an untimed 3-round release) or ``nist:OVERRIDE;OVERRIDE…`` (Hydra overrides
of the ``fig1_nist`` preset with ``algo=pmwpub``, e.g. ``nist:dataset.reduced=false;workload.k=3;
public={year:2018};T=100;eps=1``: repetition 0 of that config as the runner builds it, after an
untimed 3-round release) or ``run:OVERRIDE;OVERRIDE…`` (any algorithm: repetition 0 of the
config of those overrides, the whole release timed, e.g.
``run:experiment=sota;algo=gem_pub;T=20``). Besides the time it prints the max error and the
digest. The child runs in either interface (resolved jobs, or a runner that took the config
dict), so this file can be copied into an older checkout for the comparison.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from experiments.console import ArgumentParser, positive_int, run_or_fail
from experiments.release.bench import REPO, json_child


def digest(release) -> str:
    """Hash of the run's selections and measurements (what a replay compares): PMW^Pub's
    queries and measured values, a successor's marginals, a Private-PGM mechanism's cliques."""
    trace = release.trace
    picks = trace.get("queries", trace.get("marginals", trace.get("selected", [])))
    values = [float(a).hex() for a in trace.get("measurements", [])] + \
        [float(a).hex() for values in trace.get("measured", []) for a in np.ravel(values)]
    text = json.dumps([[str(q) for q in picks], values, float(release.answers.sum()).hex()])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def runner_repetition(cfg: dict, run: int = 0):
    """(problem, release function, T-round release function) of repetition ``run`` of a
    composed config, in the interface of the tree this process runs: resolved jobs, or a
    checkout whose runner took the config dict (so one file times both sides of an A/B)."""
    try:
        from experiments.release.configure.checks import resolve_job
        from experiments.release.running.repetitions import repetition_release
        from pubpriv_core.harness import release_job
        from pubpriv_core.problems import build_problem
    except ImportError:       # a checkout from before jobs
        from experiments.release.running.problems import build_problem
        from experiments.release.running.repetitions import release_of, repetition_release
        problem = build_problem(cfg, run)
        return (problem, lambda: repetition_release(cfg, problem, run)[0],
                lambda rng, T: release_of(cfg, problem, rng, T=T)[0])
    job = resolve_job(cfg)
    problem = build_problem(job, run)
    return (problem, lambda: repetition_release(job, problem, run),
            lambda rng, T: release_job(job, problem, rng, T=T))


def composed_point(overrides: list[str], warm_up: bool) -> dict:
    """Repetition 0 of ``overrides`` as the runner builds it, after an untimed 3-round release
    when ``warm_up``: the time per iteration and of the whole release, the error, the digest."""
    from experiments.release.running.sweep import compose_exact

    cfg = compose_exact(overrides)
    root = cfg.get("data_root")
    if root is not None:
        os.environ["PUBPRIV_DATA"] = root
    start = time.perf_counter()
    problem, release, rounds = runner_repetition(cfg)
    _ = problem.true_answers
    build = time.perf_counter() - start
    if warm_up:
        rounds(np.random.default_rng(1), 3)
    start = time.perf_counter()
    out = release()
    wall = time.perf_counter() - start
    return {"support": problem.support_size, "build_s": build, "per_iter_s": out.per_iter_s,
            "release_s": wall, "max_error": out.errors(problem.true_answers)["max_error"],
            "digest": digest(out)}


def measure(point: str) -> dict:
    """One point timed in this process (module docstring)."""
    if point.startswith("nist:"):
        overrides = ["experiment=fig1_nist", "algo=pmwpub", *point[5:].split(";")]
        return composed_point([o for o in overrides if o], warm_up=True)
    if point.startswith("run:"):
        return composed_point([o for o in point[4:].split(";") if o], warm_up=False)
    from experiments.release.bench.scale import one_configuration
    rows, W = (int(v) for v in point.split("x"))
    return one_configuration(rows, W)


def run_point(point: str, tree: str) -> dict:
    """The point timed by the code of ``tree`` in a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(Path(tree).resolve())}
    return json_child([sys.executable, "-m", "experiments.release.bench.engine_ab", point],
                      f"{point} in {tree}", env=env, cwd=tree)


def compare(before: str, points: list[str], pairs: int) -> None:
    """Every point timed ``pairs`` times in each tree (alternating), then both medians."""
    if not (Path(before) / "experiments" / "release" / "bench" / "engine_ab.py").is_file():
        raise ValueError(f"--before {before} is not a checkout of this project with "
                         "experiments/release/bench/engine_ab.py; copy that file into it")
    for point in points:
        times = {"before": [], "after": []}
        key, unit = ("release_s", "per release") if point.startswith("run:") else \
            ("per_iter_s", "per iteration")
        for pair in range(pairs):
            order = ("before", "after") if pair % 2 == 0 else ("after", "before")
            for which in order:
                load = os.getloadavg()[0]
                record = run_point(point, before if which == "before" else str(REPO))
                times[which].append(record[key])
                print(f"{point}  {which:6s}  {1e3 * record[key]:9.2f} ms {unit}"
                      f"  max error {record['max_error']:.6f}  selections "
                      f"{record.get('digest', '-')}  load {load:.1f}", flush=True)
        b, a = np.median(times["before"]), np.median(times["after"])
        print(f"{point}  median before {1e3 * b:.2f} ms, after {1e3 * a:.2f} ms ({b / a:.2f}x)",
              flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="checkout of the code to compare with")
    parser.add_argument("--points", nargs="+", default=["16000x1024", "4000x4096", "1000x4096"])
    parser.add_argument("--pairs", type=positive_int, default=3)
    args = parser.parse_args(argv)
    run_or_fail(compare, args.before, args.points, args.pairs)


if __name__ == "__main__":     # the fresh process of run_point: POINT -> one JSON line
    print(json.dumps(measure(sys.argv[1])))
