"""Hyper-parameter selection for the figures (Liu et al. 2021, §5.5, "Hyper-parameters").

The paper tunes T (and DualQuery's η and s) in two ways, both implemented here on a tidy table
of runs (one row per (configuration, repetition), columns as written by ``scripts/collect.py``
plus a ``line`` label that names a plotted curve):

* ``best_average`` — for each line and ε, the hyper-parameter setting with the lowest mean max
  error over the runs (the paper's "best five-run average over the T grid", used for ADULT).
  This looks at the test errors themselves, so it is optimistic.
* ``validation`` — the setting is chosen on a *validation* release treated as private (ACS:
  the 2014 file of the same state; NIST excerpts: the 2018 file for a 2019 private dataset), run
  with the same public source, and that setting's *test* runs are reported. Lines that have no
  validation counterpart (e.g. a public source that IS the validation file) fall back to
  ``best_average``; the fallback is recorded per row in ``tuning``.
* ``paper`` — §5.4's split: PMW^Pub by ``validation`` where validation runs exist, the baselines
  (MWEM, DualQuery) by ``best_average`` (the paper reports their best five-run average).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

#: the columns tuned per (line, ε): rounds, and DualQuery's step size and samples per round.
HYPER = ("T", "opt_eta", "opt_samples")
METHODS = ("paper", "best_average", "validation")
#: the algorithms ``paper`` tunes on validation data; every other line uses best_average.
VALIDATED = ("pmwpub",)


def hyper_columns(table: pd.DataFrame) -> list[str]:
    """The tuned columns present in ``table``."""
    return [c for c in HYPER if c in table.columns]


def run_means(table: pd.DataFrame, metric: str = "max_error") -> pd.DataFrame:
    """Mean, standard error and count of ``metric`` over runs per (line, ε, hyper-parameters)."""
    keys = ["line", "eps", *hyper_columns(table)]
    grouped = table.groupby(keys, dropna=False)[metric]
    out = grouped.agg(mean="mean", std="std", runs="count").reset_index()
    out["se"] = (out["std"] / np.sqrt(out["runs"])).fillna(0.0)
    return out


def best_average(table: pd.DataFrame, metric: str = "max_error") -> pd.DataFrame:
    """Per (line, ε): the hyper-parameter row with the lowest mean ``metric`` over runs."""
    means = run_means(table, metric)
    best = means.loc[means.groupby(["line", "eps"])["mean"].idxmin()]
    return best.assign(tuning="best_average").reset_index(drop=True)


def by_validation(test: pd.DataFrame, validation: pd.DataFrame,
                  metric: str = "max_error") -> pd.DataFrame:
    """Per (line, ε): the setting best on ``validation``, evaluated on ``test``; lines or ε
    without validation runs use :func:`best_average` (marked in ``tuning``)."""
    hyper = hyper_columns(test)
    chosen = best_average(validation, metric)[["line", "eps", *hyper]]
    test_means = run_means(test, metric)
    picked = test_means.merge(chosen, on=["line", "eps", *hyper], how="inner")
    picked = picked.assign(tuning="validation")
    fallback = best_average(test, metric)
    done = set(zip(picked["line"], picked["eps"]))
    rest = fallback[[(l, e) not in done for l, e in zip(fallback["line"], fallback["eps"])]]
    rest = rest.assign(tuning="best_average (no validation run)")
    return pd.concat([picked, rest], ignore_index=True).sort_values(["line", "eps"],
                                                                    ignore_index=True)


def select(test: pd.DataFrame, method: str, validation: pd.DataFrame | None = None,
           metric: str = "max_error") -> pd.DataFrame:
    """The selected (line, ε) summary under ``method`` (one of :data:`METHODS`)."""
    if method not in METHODS:
        raise ValueError(f"unknown tuning method {method!r}; choose one of {', '.join(METHODS)}")
    if method == "best_average":
        return best_average(test, metric)
    if method == "paper":
        return paper(test, validation, metric)
    if validation is None or validation.empty:
        raise ValueError("tuning=validation needs validation runs; run the artefact's "
                         "validation blocks or pass --tuning best_average")
    return by_validation(test, validation, metric)


def paper(test: pd.DataFrame, validation: pd.DataFrame | None,
          metric: str = "max_error") -> pd.DataFrame:
    """§5.4: :data:`VALIDATED` lines by validation (best_average where none ran), the rest by
    best_average, labelled ``best_average (baseline)``."""
    mine = test["algo"].isin(VALIDATED)
    baselines = best_average(test[~mine], metric).assign(tuning="best_average (baseline)")
    if validation is None or validation.empty:
        tuned = best_average(test[mine], metric).assign(
            tuning="best_average (no validation run)")
    else:
        tuned = by_validation(test[mine], validation[validation["algo"].isin(VALIDATED)], metric)
    return pd.concat([tuned, baselines], ignore_index=True).sort_values(["line", "eps"],
                                                                        ignore_index=True)
