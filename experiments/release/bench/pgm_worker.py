"""A worker process for :mod:`experiments.release.bench.pgm_grid`: reads one job per stdin line
(JSON: ``key``, resolved run ``config``, repetition ``run``, ``perturb``), runs it exactly as the
runner computes a record (same problem, same repetition stream, same δ), and prints one JSON
line per job: the wall and CPU seconds of the release alone, the load average, the selections,
the ρ spent and the max and mean errors.

It runs in any checkout since the PGM estimators were added — one with resolved jobs
(:class:`pubpriv_core.job.Job`) or one whose runner took the config dict: ``PYTHONPATH=<checkout>
python <this file>`` (an A/B comparison runs one worker per checkout). ``perturb`` scales every fit's Lipschitz constant by 1 + 2⁻⁵², so its
first step size moves by one rounding: the run's own sensitivity to floating-point order.
"""
from __future__ import annotations

import json
import os
import sys
import time


def perturb_step_sizes() -> None:
    """Every later Private-PGM fit starts its Armijo search one rounding away."""
    from pubpriv_core.algorithms import pgm_descent

    descend = pgm_descent.descend

    def perturbed(objective, iterate, total, iters):
        objective.lipschitz *= 1.0 + 2.0 ** -52
        return descend(objective, iterate, total, iters)

    pgm_descent.descend = perturbed


def repetition(cfg: dict, run: int):
    """(problem, release function) of repetition ``run``, in this checkout's interface."""
    try:
        from experiments.release.configure.checks import resolve_job
        from experiments.release.running.repetitions import repetition_release
        from pubpriv_core.problems import build_problem
    except ImportError:           # a checkout whose runner took the config dict
        from experiments.release.problems import build_problem
        from experiments.release.query_release import repetition_release
        problem = build_problem(cfg, run)
        return problem, lambda: repetition_release(cfg, problem, run)[0]
    job = resolve_job(cfg)
    problem = build_problem(job, run)
    return problem, lambda: repetition_release(job, problem, run)


def run_job(job: dict) -> dict:
    cfg, run = job["config"], int(job["run"])
    if cfg["data_root"] is not None:         # the data root of every checkout's loaders
        os.environ["PUBPRIV_DATA"] = cfg["data_root"]
    problem, release_of = repetition(cfg, run)
    load = os.getloadavg()[0]
    wall, cpu = time.perf_counter(), time.process_time()
    release = release_of()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    errors = release.errors(problem.true_answers)
    return {"key": job["key"], "run": run, "wall": wall, "cpu": cpu,
            "load": [load, os.getloadavg()[0]], "rounds": int(release.iterations),
            "selected": [str(s) for s in release.trace.get("selected", [])],
            "rho": float(release.rho), "max_error": float(errors["max_error"]),
            "mean_error": float(errors["mean_error"]),
            "model_size_mb": float(release.trace.get("model_size_mb", float("nan")))}


def main() -> None:
    if "--perturb" in sys.argv:
        perturb_step_sizes()
    for line in sys.stdin:
        if line.strip():
            print(json.dumps(run_job(json.loads(line))), flush=True)


if __name__ == "__main__":
    main()
