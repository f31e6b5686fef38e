"""Repeated searches, slopes with bootstrap CIs, and bound curves drawn honestly.

* :func:`repeated_nstar` — n* of one setting measured by ``repeats`` independent searches (seed
  ``seed + r``); these are the trials that :func:`pubpriv_core.learning.slopes.bootstrap_slope`
  resamples.  Repeat 0 keeps the record key of a single search, so existing records are reused.
* :func:`run_parallel` — independent searches (or blocks of trials) of a sweep on n_jobs processes.
* :func:`slope_row` — a bootstrap slope as one CSV row.
* :func:`bound_curve` — an explicit bound is drawn as it is; an O(·) shape is drawn as c·shape with
  c fitted to the measurements it is compared with (``fit_constant``) and c stated in the legend.
"""
from __future__ import annotations

import functools
from typing import Callable

import numpy as np
from joblib import Parallel, delayed

from pubpriv_core.bounds import get_bound
from pubpriv_core.learning.slopes import bootstrap_slope, fit_constant


def repeated_calls(search, key: str, seed: int, repeats: int) -> list[Callable]:
    """The calls search(key_r, seed + r), r < repeats; key_0 = key, key_r = f"{key}/rep={r}"."""
    return [functools.partial(search, key if r == 0 else f"{key}/rep={r}", seed + r) for r in range(int(repeats))]


def repeated_nstar(search, key: str, seed: int, repeats: int) -> list:
    """[search(key_r, seed + r) for r < repeats] (:func:`repeated_calls`), in this process."""
    return [call() for call in repeated_calls(search, key, seed, repeats)]


def run_parallel(calls: list[Callable], n_jobs: int) -> list:
    """Results of independent zero-argument calls (whole n* searches, blocks of trials), in order,
    on ``n_jobs`` processes. Each call seeds its own trials and writes its own records, so the
    results do not depend on ``n_jobs`` or on the order the calls finish in; a search is a chain
    of sequential steps, so running several at once keeps both cores busy where splitting the
    millisecond trials of one step would not."""
    if int(n_jobs) == 1 or len(calls) < 2:
        return [call() for call in calls]
    return Parallel(n_jobs=int(n_jobs))(delayed(_in_worker)(call) for call in calls)


def _in_worker(call: Callable):
    """Run ``call`` in a joblib worker with the runner's progress lines set up."""
    from experiments.theory.runner import progress_logging

    progress_logging()
    return call()


def searched(settings: list[tuple[dict, list[Callable]]], n_jobs: int) -> list[tuple[dict, list]]:
    """(row, results of its calls) for every (row, calls) setting, all calls run in parallel."""
    results = run_parallel([call for _, calls in settings for call in calls], n_jobs)
    return list(zip([row for row, _ in settings], grouped(results, [len(calls) for _, calls in settings])))


def grouped(values: list, sizes: list[int]) -> list[list]:
    """``values`` cut into consecutive groups of the given sizes."""
    bounds = np.cumsum([0, *sizes])
    return [values[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def slope_row(name: str, x, y_trials, rng: np.random.Generator, **kwargs) -> dict:
    """One row: the slope of (log) mean y on (log) x with its 95% bootstrap CI over the trials."""
    fit = bootstrap_slope(np.asarray(x, float), [np.asarray(t, float) for t in y_trials], rng=rng, **kwargs)
    return {"fit": name, "slope": fit.slope, "ci_lo": fit.lo, "ci_hi": fit.hi, "intercept": fit.intercept,
            "n_points": fit.n_points, "trials_per_point": fit.n_trials,
            "log_x": kwargs.get("log_x", True), "log_y": kwargs.get("log_y", True)}


def bound_curve(ax, x, values, bound_id: str, measured=None, constant: tuple[float, str] | None = None,
                **style) -> dict:
    """Draw a registered bound: explicit as computed; an O(·) shape as c·shape with c fitted to
    ``measured`` (same x; NaN entries dropped) where at least two measured points remain (one
    point fits any shape exactly), else with ``constant`` = (c, what it was fitted on) taken
    from another sweep.  Returns {bound, explicit, c, log_rmse, fitted_on}."""
    x, values = np.asarray(x, float), np.asarray(values, float)
    if get_bound(bound_id).explicit:
        ax.plot(x, values, label=f"{bound_id} (explicit)", **style)
        return {"bound": bound_id, "explicit": True, "c": 1.0, "log_rmse": float("nan"), "fitted_on": ""}
    measured = np.full(len(x), np.nan) if measured is None else np.asarray(measured, float)
    ok = np.isfinite(measured) & (measured > 0) & np.isfinite(values) & (values > 0)
    if ok.sum() >= 2:
        fit = fit_constant(values[ok], measured[ok])
        c, rmse, where = fit.c, fit.log_rmse, "these points"
        label = f"{bound_id}: O(·) shape × fitted c = {c:.3g} (log-RMSE {rmse:.2g})"
    elif constant is not None:
        (c, where), rmse = constant, float("nan")
        label = f"{bound_id}: O(·) shape × c = {c:.3g} (fitted on {where})"
    else:
        raise ValueError(f"{bound_id} is an O(·) shape: fitting its constant needs >= 2 measured "
                         "points here, or pass constant=(c, where it was fitted)")
    ax.plot(x, c * values, label=label, **style)
    return {"bound": bound_id, "explicit": False, "c": c, "log_rmse": rmse, "fitted_on": where}
