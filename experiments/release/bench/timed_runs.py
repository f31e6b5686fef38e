"""One repetition of an artefact's configuration, timed as the runner computes it, nothing written.

Used by the ``successors`` benchmark's ``time`` command (:func:`time_line`: seconds per round,
pre-training, problem build, peak memory, max error) and by ``replay_gem`` (the release itself,
saved for a before/after comparison).
"""
from __future__ import annotations

import os
import resource
import time
from typing import Any, NamedTuple

from pubpriv_core.harness import ReleaseProblem


class Repetition(NamedTuple):
    """One timed repetition of a configuration (:func:`timed_repetition`)."""

    cfg: dict
    problem: ReleaseProblem
    release: Any
    eps: float
    build_s: float
    wall_s: float


def timed_repetition(overrides: list[str], run: int = 0) -> Repetition:
    """Repetition ``run`` of ``python run.py *overrides`` (an artefact block's job), nothing
    written, with the seconds to build the problem and its true answers and the wall seconds of
    the release."""
    from experiments.release.configure.checks import resolve_job
    from experiments.release.configure.cli import compose_config
    from experiments.release.running.repetitions import repetition_release
    from pubpriv_core.problems import build_problem, data_context

    cfg = compose_config(overrides)
    with data_context(cfg["data_root"]):
        start = time.perf_counter()
        job = resolve_job(cfg)
        prob = build_problem(job, run)
        _ = prob.true_answers
        built = time.perf_counter() - start
        start = time.perf_counter()
        release = repetition_release(job, prob, run)
    return Repetition(cfg, prob, release, job.eps, built, time.perf_counter() - start)


def time_line(overrides: list[str], run: int = 0) -> dict:
    """:func:`timed_repetition` as one JSON-ready line: the rounds' seconds (per round), the
    public pre-training's, the problem build's, the peak resident memory of the process and the
    release's max error."""
    cfg, prob, release, eps, built, wall = timed_repetition(overrides, run)
    return {"overrides": " ".join(overrides), "eps": eps, "T": cfg["T"],
            "build_s": built, "wall_s": wall, "rounds_s": release.runtime_s,
            "per_round_s": release.per_iter_s,
            "cpu_per_round_s": release.trace["rounds_cpu_s"] / cfg["T"],
            "pretrain_s": release.trace.get("pretrain_s"),
            "mean_steps": release.trace.get("mean_steps"),
            "max_error": release.errors(prob.true_answers)["max_error"],
            "peak_rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20,
            "load": os.getloadavg()[0]}
