"""The second stage of an artefact's sweep: runs whose T is decided by the first stage's records.

* **Tuned blocks** (:attr:`~experiments.release.artefacts.catalogue.Block.tuned`): the test runs of a line
  are made only at the T its validation runs chose (Liu et al. 2021 §5.4: T selected on a
  validation release treated as private; the best average of the validation runs), so a costly
  grid is swept on few validation runs and the test repetitions run once.
* **Edge extension**: where the selected T of a T-tuned line (PMW^Pub, MWEM) is the largest T
  tried — on validation runs for a validated line, on the test runs' best average otherwise — the
  line's runs (validation and test alike) are repeated at the next value of :data:`T_EXTENSION`,
  until the optimum is inside the grid or the extension is used up; the summary lists the lines
  still at an edge.

:func:`next_stage` returns the configurations (and their figure-row tags) to run next from the
records collected so far; :mod:`experiments.release.artefacts.reproduce` alternates sweeps and this until
nothing is left.
"""
from __future__ import annotations

import math
from typing import Any

import pandas as pd

from experiments.release.running.collect import flatten
from pubpriv_core.algorithms import uses_public
from experiments.release.configure.signal import axis_eps
from pubpriv_core.job import config_hash
from experiments.release.stats.summary import T_TUNED

#: T values tried beyond a grid whose optimum sits at its top edge (in this order)
T_EXTENSION = (500, 800)


def config_row(cfg: dict[str, Any]) -> dict[str, Any]:
    """The collected-table row (``collect.flatten`` of its record, errors aside) of ``cfg``."""
    algo, public = cfg["algo"], cfg["public"]
    record = {"algo": algo["name"], "options": {k: v for k, v in algo.items() if k != "name"},
              "dataset": cfg["dataset"]["name"],
              "dataset_options": {k: v for k, v in cfg["dataset"].items() if k != "name"},
              "public": public["kind"],
              "public_options": {k: v for k, v in public.items() if k != "kind"},
              "uses_public": uses_public(algo["name"], algo),
              "delta_bias": public.get("delta", math.nan), "public_fraction": public["fraction"],
              "eps": cfg["eps"], "eps_equiv": cfg.get("eps_equiv"), "T": cfg["T"]}
    return flatten(record)


def config_lines(configs: list[dict], rows: list[str]) -> pd.DataFrame:
    """``line`` and axis ``eps`` (eps_equiv where set) of each (config, figure row)."""
    from experiments.release.figures.paper import line_labels

    table = pd.DataFrame([{**config_row(c), "row": r} for c, r in zip(configs, rows)])
    return axis_eps(line_labels(table))


def selected_T(table: pd.DataFrame, role: str) -> pd.DataFrame:
    """Per (line, ε) of the T-tuned lines with runs of ``role``: the T of lowest mean max error
    (``best``) and the largest T tried (``top``)."""
    runs = table[(table["role"] == role) & table["algo"].isin(T_TUNED)]
    if runs.empty:
        return pd.DataFrame(columns=["line", "eps", "best", "top"])
    means = runs.groupby(["line", "eps", "T"])["max_error"].mean().reset_index()
    best = means.loc[means.groupby(["line", "eps"])["max_error"].idxmin()]
    top = means.groupby(["line", "eps"])["T"].max().rename("top")
    return best.rename(columns={"T": "best"}).merge(top, on=["line", "eps"])[
        ["line", "eps", "best", "top"]]


def choices(table: pd.DataFrame) -> pd.DataFrame:
    """The selected T per (line, ε): on validation runs where the line has them, else on the
    test runs' best average."""
    validated = selected_T(table, "validation")
    tested = selected_T(table, "test")
    keys = set(zip(validated["line"], validated["eps"]))
    rest = tested[[(l, e) not in keys for l, e in zip(tested["line"], tested["eps"])]]
    return pd.concat([validated.assign(on="validation"), rest.assign(on="test")],
                     ignore_index=True)


def next_stage(work, tuned: list[tuple[dict, str]],
               table: pd.DataFrame | None) -> tuple[list[dict], list[tuple[str, str, str]]]:
    """(configs, (config_hash, row, role) tags) to run after the records of ``table``:
    ``tuned`` (config, row) pairs at their chosen T, and every planned T-tuned config of a
    (line, ε) whose chosen T is its grid's top at the next :data:`T_EXTENSION` value."""
    if table is None or table.empty:
        return [], []
    chosen = choices(axis_eps(table)).set_index(["line", "eps"])
    out: dict[str, tuple[dict, str, str]] = {}
    tagged = work.tags.drop_duplicates("config_hash").set_index("config_hash")
    planned = [c for c in work.configs if c["algo"]["name"] in T_TUNED]
    tags = [tagged.loc[config_hash(c)] for c in planned]
    if planned:
        lines = config_lines(planned, [t["row"] for t in tags])
        for cfg, tag, (_, meta) in zip(planned, tags, lines.iterrows()):
            key = (meta["line"], meta["eps"])
            if key not in chosen.index or cfg["T"] != chosen.loc[key, "top"]:
                continue
            if chosen.loc[key, "best"] != cfg["T"] or cfg["T"] >= T_EXTENSION[-1]:
                continue
            bigger = dict(cfg, T=next(t for t in T_EXTENSION if t > cfg["T"]))
            out[config_hash(bigger) + tag["role"]] = (bigger, tag["row"], tag["role"])
    if tuned:
        lines = config_lines([c for c, _ in tuned], [r for _, r in tuned])
        for (cfg, row), (_, meta) in zip(tuned, lines.iterrows()):
            key = (meta["line"], meta["eps"])
            if key not in chosen.index or chosen.loc[key, "on"] != "validation":
                continue
            best, top = chosen.loc[key, "best"], chosen.loc[key, "top"]
            if best < top or top >= T_EXTENSION[-1]:   # not waiting for a larger T
                picked = dict(cfg, T=int(best))
                out[config_hash(picked) + "test"] = (picked, row, "test")
    configs = [c for c, _, _ in out.values()]
    return configs, [(config_hash(c), row, role) for c, row, role in out.values()]
