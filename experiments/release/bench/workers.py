"""One local sweep, timed, for :mod:`scripts.bench_workers`: ``python -m
experiments.release.bench.workers pinned|unpinned JOBS FOLDER PRESET [OVERRIDE …]`` runs the
preset's grid (with the overrides) into the empty results folder FOLDER on JOBS joblib workers,
each on its own cores or not (:mod:`experiments.release.running.worker_cores`), and prints one JSON line:
the sweep's wall time, its tasks, the records' summed run time per algorithm and a digest of their
max errors (equal in both arms where the releases do not depend on the cores a worker sees: not
for GEM, GEM^Pub and RAP^softmax, whose XLA rounding follows them).
"""
from __future__ import annotations

import hashlib
import json
import sys
from collections import defaultdict


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


if __name__ == "__main__":
    arm, jobs, folder, preset, *rest = sys.argv[1:]
    print(json.dumps(sweep(arm == "pinned", int(jobs), folder, preset, rest)))
