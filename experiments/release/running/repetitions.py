"""Run the repetitions of one job and store one record per repetition.

``run_config(cfg)`` takes a resolved run config as a plain dict (what ``run.py`` gets from Hydra),
checks it and resolves its :class:`~pubpriv_core.job.Job` — the edge; below it everything takes
the job. ``run_job`` skips the repetitions whose record exists (unless ``force``), runs the
others — in parallel with joblib when ``n_jobs`` > 1 — and writes each record atomically
(:mod:`experiments.release.running.store`). A repetition is computed only under its claim
(:mod:`experiments.release.running.claims`), so concurrent sweeps into one ``results_dir`` share
the work. A record holds the errors of the release (and of its last iterate), the harness's
privacy ledger (ρ, ε, δ), sizes, timings, host and package version: see :func:`make_record`.
"""
from __future__ import annotations

import logging
import math
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from joblib import Parallel, delayed
from tqdm import tqdm

import pubpriv_core
from experiments.release.configure.checks import check_config
from experiments.release.running.claims import claim
from experiments.release.running.machine import blas_kernels, cpu_model, numpy_simd
from experiments.release.running.store import RECORD_VERSION, ResultsStore
from experiments.release.running.worker_cores import visible_cores
from pubpriv_core.algorithms import uses_public
from pubpriv_core.algorithms.shared_cache import shared_under
from pubpriv_core.harness import release_job
from pubpriv_core.job import Job, plain
from pubpriv_core.problems import (build_problem, data_context, repetition_streams,
                                   set_cache_budget)

log = logging.getLogger(__name__)

def run_config(cfg: dict[str, Any]) -> list[dict[str, Any]]:
    """Check ``cfg`` and resolve its job (:func:`~experiments.release.configure.checks.check_config`),
    run every missing repetition; return the records of all its runs."""
    set_cache_budget(cfg["cache_gb"])
    with data_context(cfg["data_root"]):
        return run_job(check_config(cfg))


def run_job(job: Job) -> list[dict[str, Any]]:
    """Run every missing repetition of ``job``; return the records of all its runs."""
    out = job.outputs
    set_cache_budget(out.cache_gb)
    with data_context(out.data_root):
        store = ResultsStore(out.results_dir)
        store.clean_temp()
        chash = job.config_hash
        todo = [r for r in range(job.runs) if out.force or not store.exists(chash, job.seed, r)]
        if len(todo) < job.runs:
            log.info("%s: %d of %d repetitions already stored, skipped", chash,
                     job.runs - len(todo), job.runs)
        _run_missing(job, todo)
        done = [r for r in range(job.runs) if store.exists(chash, job.seed, r)]
        if len(done) < job.runs:
            log.warning("%s: %d repetition(s) claimed by another process and not stored yet; "
                        "re-run the same command later to include them", chash,
                        job.runs - len(done))
        return [store.read(chash, job.seed, r) for r in done]


def _run_missing(job: Job, todo: list[int]) -> None:
    budget = f"eps={job.eps:g}" if job.eps_equiv is None else f"eps_equiv={job.eps_equiv:g}"
    bar = tqdm(total=len(todo), desc=f"{job.algo} {budget}", unit="run",
               disable=not show_progress(job.outputs.progress), leave=False)
    if job.outputs.n_jobs == 1 or len(todo) <= 1:
        for run in todo:
            run_repetition(job, run)
            bar.update()
    else:
        jobs = (delayed(run_repetition)(job, run) for run in todo)
        for _ in Parallel(n_jobs=job.outputs.n_jobs, return_as="generator_unordered")(jobs):
            bar.update()
    bar.close()


def show_progress(setting: bool | None) -> bool:
    """``progress`` null: a bar only when stderr is a terminal and ``CI`` is not set."""
    if setting is not None:
        return setting
    return sys.stderr.isatty() and not os.environ.get("CI")


def run_repetition(job: Job, run: int) -> dict[str, Any] | None:
    """Run repetition ``run`` of ``job`` under its claim
    (:mod:`experiments.release.running.claims`), write its record and return it; None when
    another process holds the claim or has just stored the record (worker-safe)."""
    store, chash = ResultsStore(job.outputs.results_dir), job.config_hash
    with claim(store, chash, job.seed, run) as mine:
        if not mine or (not job.outputs.force and store.exists(chash, job.seed, run)):
            return None
        record = compute_record(job, run)
        path = store.write(record)
    log.info("%s run %d: max_error=%.4f mean_error=%.4f (%.2f s) -> %s", job.algo, run,
             record["max_error"], record["mean_error"], record["runtime_s"], path)
    return record


def compute_record(job: Job, run: int) -> dict[str, Any]:
    """The record of repetition ``run`` of ``job`` (the record is not written here; with
    ``save_release`` the release itself is, :mod:`pubpriv_core.release_files`)."""
    out = job.outputs
    set_cache_budget(out.cache_gb)
    with data_context(out.data_root), shared_under(Path(out.results_dir) / "cache"):
        problem = build_problem(job, run)
        release = repetition_release(job, problem, run)
        record = make_record(job, run, problem, release)
        if out.save_release:
            write_release(job, run, problem, release, record)
        return record


def repetition_release(job: Job, problem, run: int):
    """:func:`~pubpriv_core.harness.release_job` with repetition ``run``'s own generator
    (:func:`~pubpriv_core.problems.repetition_streams`): the record's release."""
    _, rng = repetition_streams(job.seed, run)
    return release_job(job, problem, rng)


def write_release(job: Job, run: int, problem, release, record) -> None:
    """``save_release=true``: the release of this repetition, with its metadata, under
    ``<results_dir>/releases/`` (:mod:`pubpriv_core.release_files`)."""
    from pubpriv_core.release_files import release_folder, sample_stream, save_release

    folder = release_folder(job.outputs.results_dir, record["config_hash"], job.seed, run)
    metadata = {key: record[key] for key in ("config_hash", "seed", "run", "eps", "dataset",
                                             "public", "options", "n_private")}
    metadata.update(eps_target=job.eps, config=job.experiment_config())
    save_release(folder, release, problem, metadata=metadata, rows=job.outputs.release_rows,
                 rng=sample_stream(job.seed, run))
    log.info("%s run %d: release saved in %s", release.algo, run, folder)


def make_record(job: Job, run: int, problem, release) -> dict[str, Any]:
    """One repetition's flat, JSON-ready record (tidy columns plus the job's config), its ρ, ε
    and δ spent the harness's ledger's."""
    errors = release.errors(problem.true_answers)
    public = job.public
    return {
        "record_version": RECORD_VERSION, "config_hash": job.config_hash,
        "seed": job.seed, "run": run, "config": job.experiment_config(),
        "algo": job.algo, "options": job.plain_options,
        "dataset": job.dataset["name"], "dataset_options": _without_name(job.dataset),
        "public": public["kind"], "public_options": _without_name(public, "kind"),
        "uses_public": uses_public(job.algo, job.options),
        "delta_bias": public.get("delta", math.nan), "public_fraction": public["fraction"],
        "eps": job.eps, "eps_equiv": job.eps_equiv, "n_ref": job.n_ref, "delta": job.delta,
        "T": job.T, "rho": float(release.rho), "eps_spent": float(release.eps),
        "delta_spent": float(release.delta), "privacy": release.privacy.privacy,
        "accounting": release.privacy.accounting, "relation": release.privacy.relation,
        "k": job.workload["k"], "workload_size": problem.workload.num_marginals,
        "workload_seed": job.workload["seed"], "num_queries": problem.workload.num_queries,
        "n_private": problem.n, "n_public": problem.public_rows,
        "support_size": problem.support_size,
        **{key: float(value) for key, value in errors.items()},
        "runtime_s": float(release.runtime_s), "per_iter_s": float(release.per_iter_s),
        "iterations": int(release.iterations), "trace": _scalar_trace(release.trace),
        "hostname": platform.node(), "cores": visible_cores(), "cpu": cpu_model(),
        "numpy_simd": numpy_simd(), "blas_kernels": blas_kernels(),
        "version": pubpriv_core.__version__,
        "numpy_version": np.__version__, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def _without_name(node, *drop: str) -> dict[str, Any]:
    return {k: plain(v) for k, v in node.items() if k not in ("name", *drop)}


def _scalar_trace(trace: dict[str, Any]) -> dict[str, Any]:
    """The trace entries that are scalars (arrays such as selected query ids stay out)."""
    out = {}
    for key, value in trace.items():
        if isinstance(value, (bool, int, float, str, np.integer, np.floating, np.bool_)):
            out[key] = value.item() if isinstance(value, np.generic) else value
    return out
