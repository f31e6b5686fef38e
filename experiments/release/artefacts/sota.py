"""The sota artefacts' question — does public data still help against AIM? — as paired
differences: every line minus AIM (no public data) on the same run, for the max and the mean
error over all workload cells, mean [95% CI] over the shared runs
(:func:`experiments.release.stats.paired.interval`). PMW^Pub and MWEM enter at their best-average T;
the best mixture error (one non-private run) stays with the references of the summary. The
verdicts on the max error are made once, Holm-corrected, in the summary's paired section
(family :data:`experiments.release.artefacts.catalogue.SOTA_FAMILY`); the intervals here are descriptive.
"""
from __future__ import annotations

import pandas as pd

from experiments.release.figures.paper import ALGO_NAMES, source_label
from experiments.release.stats.paired import interval
from experiments.release.configure.signal import axis_eps
from experiments.release.stats.summary import markdown

METRICS = ("max_error", "mean_error")
EPS_FREE = ("public only", "best mixture")   # one record set stands for every ε


def lines(table: pd.DataFrame) -> pd.DataFrame:
    """``name`` (algorithm, "+public init" when pre-trained) and ``source`` (empty when the
    algorithm ignores the public data) of every record; an algorithm that ignores the public
    data keeps one record per (ε, T, run) when it ran on several sources' problems."""
    pretrained = table.get("opt_public_init", pd.Series(False, index=table.index))
    names = table["algo"].map(ALGO_NAMES).fillna(table["algo"])
    names = names.where(~pretrained.fillna(False).astype(bool), names + "+public init")
    sources = [source_label(r) if u else "" for (_, r), u in
               zip(table.iterrows(), table["uses_public"].astype(bool))]
    table = table.assign(name=names, source=sources)
    return table[~(table["source"].eq("") & table.duplicated(["name", "eps", "T", "run"]))]


def best_average_T(table: pd.DataFrame) -> pd.DataFrame:
    """Each (name, source, ε)'s records at the T of lowest mean max error (PMW^Pub, MWEM)."""
    means = table.groupby(["name", "source", "eps", "T"])["max_error"].mean().reset_index()
    best = means.loc[means.groupby(["name", "source", "eps"])["max_error"].idxmin()]
    return table.merge(best[["name", "source", "eps", "T"]], on=["name", "source", "eps", "T"])


def versus_aim(table: pd.DataFrame) -> pd.DataFrame:
    """One row per (line, ε): runs, the line's mean errors and line − AIM with 95% intervals."""
    table = best_average_T(lines(table))
    aim = table[table["name"] == "AIM"]
    out = []
    others = table[~table["name"].isin(["AIM", "best mixture"])]   # the mixture: a reference
    for (name, source), part in others.groupby(["name", "source"]):
        free = name in EPS_FREE   # paired with AIM at every ε
        other = part.drop(columns="eps") if free else part
        pairs = aim.merge(other, on=["run", *([] if free else ["eps"])], suffixes=("_aim", ""))
        for eps, runs in pairs.groupby("eps"):   # AIM's ε for the ε-free line
            row = {"line": f"{name} [{source}]" if source else name, "eps": eps,
                   "runs": len(runs)}
            for metric in METRICS:
                mean, low, high = interval((runs[metric] - runs[f"{metric}_aim"]).to_numpy())
                row[metric] = runs[metric].mean()
                row[f"{metric} − AIM"] = f"{mean:+.4f} [{low:+.4f}, {high:+.4f}]"
            out.append(row)
    return pd.DataFrame(out)


def notes(table: pd.DataFrame) -> list[str]:
    """summary.md lines from the artefact's collected runs: AIM's own errors and the table of
    :func:`versus_aim`."""
    table = axis_eps(table.drop(columns=["source", "line"], errors="ignore"))
    if table.empty or not (table["algo"] == "aim").any():
        return ["", "## Versus AIM", "", "No AIM records yet."]
    named = lines(table)
    coverage = coverage_notes(named)
    own = named[named["name"] == "AIM"].groupby("eps")[list(METRICS)].agg(
        ["mean", "std", "count"]).round(5)
    own.columns = [" ".join(c) for c in own.columns]
    return [*coverage, "",
            "## Versus AIM (no public data): line − AIM, mean [uncorrected 95% CI] over shared "
            "runs", "",
            "Descriptive intervals of the max and the mean error over all workload cells; the "
            "verdicts (max error) are the Holm-corrected ones of the paired section above. "
            "PMW^Pub and MWEM at their best-average T; the public data alone is ε-free and "
            "paired with AIM at each ε.",
            "", "AIM's own errors:", "", markdown(own), "",
            markdown(versus_aim(table).round(5).set_index("line"))]


def _runs_text(runs: pd.Series, grid: list[float]) -> str:
    """"5" when a line has that many runs at every ε of ``grid``, else its runs per ε
    ("ε = 0.1: 5, 0.15: 2, 0.2: 0")."""
    per_eps = [int(runs.droplevel([0, 1]).get(e, 0)) for e in grid]
    if len(set(per_eps)) == 1:
        return str(per_eps[0])
    return "ε = " + ", ".join(f"{e:g}: {n}" for e, n in zip(grid, per_eps))


def coverage_notes(named: pd.DataFrame) -> list[str]:
    """summary.md lines: the ε values, public sources and runs per line that the records hold,
    so that a cut grid says what it covers; the full grid is the artefact's own command."""
    grid = sorted(named["eps"].unique())
    runs = named.groupby(["name", "source", "eps"])["run"].nunique()
    eps = ", ".join(f"{e:g}" for e in grid)
    sources = ", ".join(sorted(s for s in named["source"].unique() if s))
    per_line = "; ".join(f"{name}{f' [{source}]' if source else ''}: "
                         f"{_runs_text(n, grid if name not in EPS_FREE else [n.index[0][2]])}"
                         for (name, source), n in runs.groupby(level=[0, 1]))
    return ["", "## Coverage of the records", "",
            f"ε: {eps}. Public sources: {sources}. Runs per line: {per_line}.",
            "The full grid is `python scripts/reproduce.py sota` (every ε of Fig. 1, the three "
            "Fig. 1 sources, 5 runs; the best mixture is one non-private run by design) or "
            "`sota_adult`; fewer runs, ε or sources than that are a cut grid."]
