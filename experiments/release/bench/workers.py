"""Wall time of one sweep with its joblib workers pinned to cores and unpinned.

    PUBPRIV_DATA=../shared/data python scripts/bench.py workers PRESET [OVERRIDE …] [--jobs 2]
        [--pairs 1] [--one-worker]

e.g. ``… workers sota algo=gem_pub eps=0.1,1.0 T=25 runs=4``. Each pair runs the sweep pinned
and unpinned on ``--jobs`` workers, and with ``--one-worker`` also on one worker (the order
rotated every pair), each in a fresh process and an empty temporary results folder (so the
GEM^Pub pre-training is paid in each arm), and prints per arm the wall time, the summed run time
of the records per algorithm, a digest of their max errors and the load average before it; then
each arm's median wall and its ratio to the unpinned one.

The fresh process is ``python -m experiments.release.bench.workers pinned|unpinned JOBS FOLDER
PRESET [OVERRIDE …]``: it runs the preset's grid (with the overrides) into the empty results
folder FOLDER on JOBS joblib workers, each on its own cores or not
(:mod:`experiments.release.running.worker_cores`), and prints one JSON line (:func:`sweep`): the
sweep's wall time, its tasks, the records' summed run time per algorithm and a digest of their
max errors (equal in both arms where the releases do not depend on the cores a worker sees: not
for GEM, GEM^Pub and RAP^softmax, whose XLA rounding follows them).
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from collections import defaultdict

import numpy as np

from experiments.console import ArgumentParser, positive_int, run_or_fail
from experiments.release.bench import REPO, json_child


def sweep(pin: bool, jobs: int, folder: str, preset: str, overrides: list[str]) -> dict:
    """Run the sweep and summarise its records (see the module docstring)."""
    from experiments.release.running.collect import collect
    from experiments.release.running.sweep import preset_configs, run_sweep

    configs = preset_configs(preset, [*overrides, f"results_dir={folder}"])
    report = run_sweep(configs, n_jobs=jobs, pin=pin, log=lambda text: None)
    table = collect(folder).sort_values(["config_hash", "run"])
    run_s: dict[str, float] = defaultdict(float)
    for algo, seconds in zip(table["algo"], table["runtime_s"]):
        run_s[algo] += float(seconds)
    errors = json.dumps([float(e).hex() for e in table["max_error"]])
    return {"wall_s": report.wall_s, "tasks": report.tasks, "run_s": dict(run_s),
            "errors_digest": hashlib.sha256(errors.encode()).hexdigest()[:16]}


#: arm -> (pinned, workers: None = --jobs)
ARMS = {"pinned": ("pinned", None), "unpinned": ("unpinned", None), "one worker": ("unpinned", 1)}


def run_arm(arm: str, jobs: int, preset: str, overrides: list[str]) -> dict:
    """The sweep timed in a fresh process, into an empty temporary results folder."""
    pinning, workers = ARMS[arm]
    with tempfile.TemporaryDirectory(prefix="pubpriv-bench-workers-") as folder:
        return json_child([sys.executable, "-m", "experiments.release.bench.workers", pinning,
                           str(workers or jobs), folder, preset, *overrides],
                          f"the {arm} sweep", cwd=REPO)


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


if __name__ == "__main__":     # the fresh process of run_arm: ARM JOBS FOLDER PRESET [OVERRIDE …]
    arm, jobs, folder, preset, *rest = sys.argv[1:]
    print(json.dumps(sweep(arm == "pinned", int(jobs), folder, preset, rest)))
