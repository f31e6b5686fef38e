"""The statistics behind each figure's claims (Liu et al. 2021, §5.5): reference lines and
paired differences.

Runs share their private/public split across algorithms, ε and T (common random numbers: run r of
every configuration draws its data from SeedSequence([seed, r])), so PMW^Pub's max error on run r
is compared with the public-only error and each baseline's error on the same run r. The paired
difference d_r = e_PMW,r − e_other,r has the 95% interval mean(d) ± t_{0.975, R−1}·sd(d)/√R over
the R shared runs; a claim "PMW^Pub beats X" is reproduced only when the whole interval is below 0.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from experiments.release.tuning import hyper_columns, run_means

#: DualQuery rounds below which a release is a handful of records (the figures flag it).
FEW_ROUNDS = 20


def chosen_runs(test: pd.DataFrame, chosen: pd.DataFrame) -> pd.DataFrame:
    """The per-run rows of ``test`` at each line's selected hyper-parameters."""
    keys = ["line", "eps", *hyper_columns(test)]
    return test.merge(chosen[keys], on=keys, how="inner")


def reference(table: pd.DataFrame, value: str = "max_error") -> pd.DataFrame:
    """Mean, SE and run count of ``value`` per (row, source) — an ε-free line."""
    grouped = table.groupby(["row", "source"])[value]
    out = grouped.agg(mean="mean", std="std", runs="count").reset_index()
    out["se"] = (out["std"] / np.sqrt(out["runs"])).fillna(0.0)
    return out.drop(columns="std")


def mixture_reference(mixture: pd.DataFrame) -> pd.DataFrame:
    """Best mixture error per (row, source): ``mean``/``se`` of the exact LP value where every
    run solved it (``exact`` True), else of the paper's MW estimate; ``mw_estimate`` always."""
    values = mixture.assign(mw_estimate=mixture["trace_mw_value"])
    solved = values.groupby(["row", "source"])["trace_lp_value"].transform(
        lambda v: v.notna().all())
    values = values.assign(value=values["trace_lp_value"].where(solved, values["mw_estimate"]),
                           exact=solved)
    out = reference(values, "value")
    extra = values.groupby(["row", "source"]).agg(mw_estimate=("mw_estimate", "mean"),
                                                  exact=("exact", "all"))
    return out.merge(extra.reset_index(), on=["row", "source"])


def interval(diffs: np.ndarray) -> tuple[float, float, float]:
    """(mean, low, high): the 95% t-interval of the mean of paired differences."""
    mean = float(np.mean(diffs))
    if len(diffs) < 2:
        return mean, float("nan"), float("nan")
    half = stats.t.ppf(0.975, len(diffs) - 1) * np.std(diffs, ddof=1) / np.sqrt(len(diffs))
    return mean, mean - half, mean + half


def verdict(low: float, high: float) -> str:
    """"lower" / "higher" when the interval excludes 0, else "undecided"."""
    if high < 0:
        return "lower"
    if low > 0:
        return "higher"
    return "undecided"


def paired_differences(runs: pd.DataFrame, public_only: pd.DataFrame) -> pd.DataFrame:
    """PMW^Pub − public only (same row, source, run) and PMW^Pub − each baseline (same row, ε,
    run), one row per (line, ε, comparison) with mean, 95% interval and verdict."""
    mine = runs[runs["algo"] == "pmwpub"]
    keys = ["row", "run", "seed"]
    others = [("public only", public_only[[*keys, "source", "max_error"]], ["source"])]
    base = runs[runs["source"] == ""]
    base = base.assign(baseline=base["line"].str.split(" / ").str[-1])
    others += [(name, part[[*keys, "eps", "max_error"]], ["eps"])
               for name, part in base.groupby("baseline")]
    out = []
    for name, other, extra in others:
        pairs = mine.merge(other, on=[*keys, *extra], suffixes=("", "_other"))
        for (line, eps), part in pairs.groupby(["line", "eps"]):
            mean, low, high = interval((part["max_error"] - part["max_error_other"]).to_numpy())
            out.append({"line": line, "eps": eps, "versus": name, "diff": mean, "low": low,
                        "high": high, "runs": len(part), "verdict": verdict(low, high)})
    return pd.DataFrame(out)


def grid_edges(test: pd.DataFrame, chosen: pd.DataFrame) -> pd.DataFrame:
    """The selected (line, ε) whose tuned value is the smallest or largest tried for that line,
    with the best test mean over the interior values of that parameter (``interior``, NaN for a
    two-value grid) and its gap to the selected mean: how much a setting inside the grid differs."""
    means = run_means(test)
    out = []
    for column in hyper_columns(test):
        tried = test.groupby("line")[column].agg(["min", "max", "nunique"])
        picked = chosen.merge(tried, left_on="line", right_index=True)
        edge = picked[(picked["nunique"] > 1)
                      & ((picked[column] == picked["min"]) | (picked[column] == picked["max"]))]
        for _, r in edge.iterrows():
            inner = means[(means["line"] == r["line"]) & (means["eps"] == r["eps"])
                          & (means[column] > r["min"]) & (means[column] < r["max"])]
            best = inner.loc[inner["mean"].idxmin()] if not inner.empty else None
            out.append({"line": r["line"], "eps": r["eps"], "parameter": column,
                        "value": r[column], "grid": f"{r['min']:g}–{r['max']:g}",
                        "interior": np.nan if best is None else best[column],
                        "interior_mean": np.nan if best is None else best["mean"],
                        "gap": np.nan if best is None else best["mean"] - r["mean"]})
    return pd.DataFrame(out, columns=["line", "eps", "parameter", "value", "grid", "interior",
                                      "interior_mean", "gap"])


def few_rounds(runs: pd.DataFrame) -> pd.DataFrame:
    """Selected DualQuery settings whose release has fewer than :data:`FEW_ROUNDS` records."""
    dq = runs[(runs["algo"] == "dualquery") & runs["trace_rounds"].notna()]
    rounds = dq.groupby(["line", "row", "eps"])["trace_rounds"].max().reset_index()
    return rounds[rounds["trace_rounds"] < FEW_ROUNDS]
