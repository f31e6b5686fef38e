"""Run the repetitions of one query-release configuration and store one record per repetition.

``run_config(cfg)`` takes a resolved run config as a plain dict (what ``run.py`` gets from Hydra),
checks it, skips the repetitions whose record exists (unless ``force``), runs the others — in
parallel with joblib when ``n_jobs`` > 1 — and writes each record atomically
(:mod:`experiments.release.running.store`). A repetition is computed only under its claim
(:mod:`experiments.release.running.claims`), so concurrent sweeps into one ``results_dir`` share the work. A record holds the errors of the release (and of its last iterate),
its privacy ledger (ρ, ε, δ), sizes, timings, host and package version: see :func:`make_record`.
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
from experiments.release.running.problems import (build_problem, data_context, repetition_streams,
                                  set_cache_budget)
from experiments.release.configure.signal import release_eps
from experiments.release.running.store import RECORD_VERSION, ResultsStore, config_hash, experiment_config
from experiments.release.running.worker_cores import visible_cores
from pubpriv_core.algorithms import uses_public
from pubpriv_core.harness import run_algorithm
from pubpriv_core.algorithms.shared_cache import shared_under
from pubpriv_core.privacy import default_delta

log = logging.getLogger(__name__)

def run_config(cfg: dict[str, Any]) -> list[dict[str, Any]]:
    """Check ``cfg``, run every missing repetition; return the records of all ``cfg.runs``."""
    set_cache_budget(cfg["cache_gb"])
    with data_context(cfg["data_root"]):
        check_config(cfg)
        store = ResultsStore(cfg["results_dir"])
        store.clean_temp()
        chash = config_hash(cfg)
        todo = [r for r in range(cfg["runs"])
                if cfg["force"] or not store.exists(chash, cfg["seed"], r)]
        if len(todo) < cfg["runs"]:
            log.info("%s: %d of %d repetitions already stored, skipped", chash,
                     cfg["runs"] - len(todo), cfg["runs"])
        _run_missing(cfg, todo)
        done = [r for r in range(cfg["runs"]) if store.exists(chash, cfg["seed"], r)]
        if len(done) < cfg["runs"]:
            log.warning("%s: %d repetition(s) claimed by another process and not stored yet; "
                        "re-run the same command later to include them", chash,
                        cfg["runs"] - len(done))
        return [store.read(chash, cfg["seed"], r) for r in done]


def _run_missing(cfg: dict[str, Any], todo: list[int]) -> None:
    budget = (f"eps={cfg['eps']:g}" if cfg.get("eps_equiv") is None
              else f"eps_equiv={cfg['eps_equiv']:g}")
    bar = tqdm(total=len(todo), desc=f"{cfg['algo']['name']} {budget}", unit="run",
               disable=not show_progress(cfg["progress"]), leave=False)
    if cfg["n_jobs"] == 1 or len(todo) <= 1:
        for run in todo:
            run_repetition(cfg, run)
            bar.update()
    else:
        jobs = (delayed(run_repetition)(cfg, run) for run in todo)
        for _ in Parallel(n_jobs=cfg["n_jobs"], return_as="generator_unordered")(jobs):
            bar.update()
    bar.close()


def show_progress(setting: bool | None) -> bool:
    """``progress`` null: a bar only when stderr is a terminal and ``CI`` is not set."""
    if setting is not None:
        return setting
    return sys.stderr.isatty() and not os.environ.get("CI")


def run_repetition(cfg: dict[str, Any], run: int) -> dict[str, Any] | None:
    """Run repetition ``run`` of ``cfg`` under its claim (:mod:`experiments.release.running.claims`),
    write its record and return it; None when another process holds the claim or has just stored the
    record (worker-safe)."""
    store, chash = ResultsStore(cfg["results_dir"]), config_hash(cfg)
    with claim(store, chash, cfg["seed"], run) as mine:
        if not mine or (not cfg["force"] and store.exists(chash, cfg["seed"], run)):
            return None
        record = compute_record(cfg, run)
        path = store.write(record)
    log.info("%s run %d: max_error=%.4f mean_error=%.4f (%.2f s) -> %s", cfg["algo"]["name"],
             run, record["max_error"], record["mean_error"], record["runtime_s"], path)
    return record


def compute_record(cfg: dict[str, Any], run: int) -> dict[str, Any]:
    """The record of repetition ``run`` of ``cfg`` (the record is not written here; with
    ``save_release`` the release itself is, :mod:`experiments.release.running.releases`)."""
    set_cache_budget(cfg["cache_gb"])
    with data_context(cfg["data_root"]), shared_under(Path(cfg["results_dir"]) / "cache"):
        problem = build_problem(cfg, run)
        release, eps, delta = repetition_release(cfg, problem, run)
        record = make_record(cfg, run, problem, release, delta)
        if cfg.get("save_release"):
            write_release(cfg, run, problem, release, record)
        return record


def release_of(cfg: dict[str, Any], problem, rng: np.random.Generator,
               T: int | None = None) -> tuple[Any, float, float]:
    """(release, ε, δ) of ``cfg``'s algorithm on ``problem`` with the run's generator ``rng``:
    ε from ``eps`` or ``eps_equiv`` (:func:`~experiments.release.configure.signal.release_eps`), δ from
    ``delta`` or 1/n², ``T`` rounds (default ``cfg["T"]``). The runner and every benchmark that
    re-runs a configuration call this, so they spend the same budget."""
    delta = cfg["delta"] if cfg["delta"] is not None else default_delta(problem.n)
    options = {k: v for k, v in cfg["algo"].items() if k != "name"}
    eps = release_eps(cfg, problem.n)
    release = run_algorithm(cfg["algo"]["name"], problem, eps=eps, delta=delta,
                            T=cfg["T"] if T is None else T, rng=rng, **options)
    return release, eps, delta


def repetition_release(cfg: dict[str, Any], problem, run: int) -> tuple[Any, float, float]:
    """:func:`release_of` with repetition ``run``'s own generator
    (:func:`~experiments.release.running.problems.repetition_streams`): the record's release."""
    _, rng = repetition_streams(cfg["seed"], run)
    return release_of(cfg, problem, rng)


def write_release(cfg: dict[str, Any], run: int, problem, release, record) -> None:
    """``save_release=true``: the release of this repetition, with its metadata, under
    ``<results_dir>/releases/`` (:mod:`experiments.release.running.releases`)."""
    from experiments.release.running.releases import release_folder, sample_stream, save_release

    folder = release_folder(cfg["results_dir"], record["config_hash"], cfg["seed"], run)
    metadata = {key: record[key] for key in ("config_hash", "seed", "run", "eps", "dataset",
                                             "public", "options", "n_private")}
    metadata.update(eps_target=release_eps(cfg, problem.n), config=experiment_config(cfg))
    save_release(folder, release, problem, metadata=metadata, rows=cfg.get("release_rows"),
                 rng=sample_stream(cfg["seed"], run))
    log.info("%s run %d: release saved in %s", release.algo, run, folder)


def make_record(cfg: dict[str, Any], run: int, problem, release, delta: float) -> dict[str, Any]:
    """One repetition's flat, JSON-ready record (tidy columns plus the full config)."""
    errors = release.errors(problem.true_answers)
    public, algo = cfg["public"], cfg["algo"]
    return {
        "record_version": RECORD_VERSION, "config_hash": config_hash(cfg),
        "seed": cfg["seed"], "run": run, "config": experiment_config(cfg),
        "algo": algo["name"], "options": {k: v for k, v in algo.items() if k != "name"},
        "dataset": cfg["dataset"]["name"], "dataset_options": _without_name(cfg["dataset"]),
        "public": public["kind"], "public_options": _without_name(public, "kind"),
        "uses_public": uses_public(algo["name"], algo),
        "delta_bias": public.get("delta", math.nan), "public_fraction": public["fraction"],
        "eps": release_eps(cfg, problem.n), "eps_equiv": cfg.get("eps_equiv"),
        "n_ref": cfg.get("n_ref", 100_000), "delta": delta, "T": cfg["T"],
        "rho": float(release.rho), "eps_spent": float(release.eps),
        "delta_spent": float(release.delta), "privacy": release.privacy.privacy,
        "accounting": release.privacy.accounting, "relation": release.privacy.relation,
        "k": cfg["workload"]["k"], "workload_size": problem.workload.num_marginals,
        "workload_seed": cfg["workload"]["seed"], "num_queries": problem.workload.num_queries,
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


def _without_name(node: dict[str, Any], *drop: str) -> dict[str, Any]:
    return {k: v for k, v in node.items() if k not in ("name", *drop)}


def _scalar_trace(trace: dict[str, Any]) -> dict[str, Any]:
    """The trace entries that are scalars (arrays such as selected query ids stay out)."""
    out = {}
    for key, value in trace.items():
        if isinstance(value, (bool, int, float, str, np.integer, np.floating, np.bool_)):
            out[key] = value.item() if isinstance(value, np.generic) else value
    return out
