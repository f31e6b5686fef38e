"""The statistics behind each figure's claims (Liu et al. 2021, §5.5): reference lines and
paired differences.

Runs share their private/public split across algorithms, ε and T (common random numbers: run r of
every configuration draws its data from SeedSequence([seed, r])), so PMW^Pub's max error on run r
is compared with the public-only error and each baseline's error on the same run r. The paired
difference d_r = e_PMW,r − e_other,r has the 95% interval mean(d) ± t_{0.975, R−1}·sd(d)/√R over
the R shared runs, and the two-sided paired t-test of mean(d) = 0 its p-value.

Multiplicity. An artefact's summary makes one verdict per comparison (line, ε, other), hundreds
per figure, so the verdicts are Holm-corrected over that family (Holm 1979: the i-th smallest of
m p-values is compared with α/(m − i + 1), step-down; family-wise error ≤ α = 0.05): "lower" /
"higher" only when the corrected test rejects mean(d) = 0, "undecided" otherwise. The uncorrected
95% interval is kept beside each verdict. The comparisons of an artefact are named by its
:data:`Family` (which line against which other), e.g. :data:`DEFAULT_FAMILY`.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from experiments.release.stats.tuning import hyper_columns, run_means

#: DualQuery rounds below which a release is a handful of records (the figures flag it).
FEW_ROUNDS = 20
#: family-wise error rate of the Holm-corrected verdicts.
ALPHA = 0.05
#: in a family: every line of the row that ignores the public data (MWEM, DualQuery, AIM, …)
BASELINES = "baselines"
#: in a family: every line other than the ``versus`` one (public only included)
EVERY_LINE = "*"
#: a family: (subject line name, other) pairs; names as drawn (PMW^Pub, JAM-PGM, public only,
#: best mixture, AIM, DualQuery (zCDP), …) or :data:`BASELINES` / :data:`EVERY_LINE`.
Family = tuple[tuple[str, str], ...]
#: the verdicts of Liu et al.'s figures: PMW^Pub against the public data alone and each baseline.
DEFAULT_FAMILY: Family = (("PMW^Pub", "public only"), ("PMW^Pub", BASELINES))


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
    run solved it (``exact`` True), else of the paper's MW estimate; ``mw_estimate`` always;
    ``lower`` / ``upper``, the certified bracket of the value (the LP's value when certified,
    else the largest recorded lower bound — ``mixture_lower``, the LP's level at its time limit
    (at least the absent-cell floor; ``floor`` in older records) — and the smallest upper one —
    the MW estimate or ``mixture_upper``; NaN where the records hold no lower bound);
    ``same_support`` when every
    run has the same public support (another dataset used whole), so that run 0's value is
    every run's."""
    trace = lambda name: mixture.get(name, pd.Series(np.nan, index=mixture.index))  # noqa: E731
    lp, mw = trace("trace_lp_value"), trace("trace_mw_value")
    lower = pd.concat([trace("trace_floor"), trace("trace_mixture_lower")], axis=1).max(axis=1)
    upper = pd.concat([mw, trace("trace_mixture_upper")], axis=1).min(axis=1)
    values = mixture.assign(mw_estimate=mw, lower=lower.where(lp.isna(), lp),
                            upper=upper.where(lp.isna(), lp))
    solved = values.groupby(["row", "source"])["trace_lp_value"].transform(
        lambda v: v.notna().all()) if "trace_lp_value" in values else False
    values = values.assign(value=lp.where(solved, mw), exact=solved)
    out = reference(values, "value")
    kind = values.get("public", pd.Series("dataset", index=values.index))
    fraction = values.get("public_fraction", pd.Series(1.0, index=values.index))
    values = values.assign(same_support=kind.eq("dataset") & fraction.fillna(1.0).ge(1.0))
    extra = values.groupby(["row", "source"]).agg(
        mw_estimate=("mw_estimate", "mean"), exact=("exact", "all"), lower=("lower", "mean"),
        upper=("upper", "mean"), same_support=("same_support", "all"))
    return out.merge(extra.reset_index(), on=["row", "source"])


def interval(diffs: np.ndarray) -> tuple[float, float, float]:
    """(mean, low, high): the 95% t-interval of the mean of paired differences."""
    mean = float(np.mean(diffs))
    if len(diffs) < 2:
        return mean, float("nan"), float("nan")
    half = stats.t.ppf(0.975, len(diffs) - 1) * np.std(diffs, ddof=1) / np.sqrt(len(diffs))
    return mean, mean - half, mean + half


def verdict(low: float, high: float) -> str:
    """"lower" / "higher" when the interval excludes 0, else "undecided" (uncorrected)."""
    if high < 0:
        return "lower"
    if low > 0:
        return "higher"
    return "undecided"


#: differences this small are ties (the exact best mixture error is certified to 1e-9)
TIE = 1e-9


def p_value(diffs: np.ndarray) -> float:
    """Two-sided paired t-test of mean(d) = 0 with R − 1 degrees of freedom; identical
    differences give 0, or 1 when they are ties (|d| ≤ :data:`TIE`); fewer than 2 runs give
    NaN."""
    diffs = np.asarray(diffs, float)
    if len(diffs) < 2:
        return float("nan")
    sd = np.std(diffs, ddof=1)
    mean = float(np.mean(diffs))
    if np.all(np.abs(diffs) <= TIE):
        return 1.0
    if sd == 0 or not np.isfinite(sd):
        return 0.0
    return float(2 * stats.t.sf(abs(mean) / (sd / np.sqrt(len(diffs))), len(diffs) - 1))


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (NaN stays NaN and is not counted in the family)."""
    p = np.asarray(p, float)
    out = np.full(p.shape, np.nan)
    valid = np.flatnonzero(np.isfinite(p))
    order = valid[np.argsort(p[valid], kind="stable")]
    m = len(order)
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    out[order] = np.maximum.accumulate(scaled)
    return out


def holm_verdicts(comparisons: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """``comparisons`` (columns diff, low, high, p) with ``p_holm``, ``verdict`` (Holm-corrected
    over all its rows: the family), ``verdict_uncorrected`` (the 95% interval) and ``family``
    (the number of tests in the family)."""
    if comparisons.empty:
        return comparisons.assign(p_holm=[], verdict=[], verdict_uncorrected=[], family=[])
    adjusted = holm(comparisons["p"].to_numpy())
    decided = adjusted < alpha
    word = np.where(comparisons["diff"] < 0, "lower", "higher")
    return comparisons.assign(
        p_holm=adjusted, verdict=np.where(decided, word, "undecided"),
        verdict_uncorrected=[verdict(lo, hi) for lo, hi in zip(comparisons["low"],
                                                               comparisons["high"])],
        family=int(np.isfinite(adjusted).sum()))


def line_name(line: str) -> str:
    """The drawn name of a line label ``row / Name [source]``: ``Name``."""
    return line.split(" / ")[-1].split(" [")[0]


def paired_differences(runs: pd.DataFrame, public_only: pd.DataFrame,
                       mixture: pd.DataFrame | None = None,
                       family: Family = DEFAULT_FAMILY) -> pd.DataFrame:
    """One row per (line, ε, other) of ``family``: the paired difference line − other over the
    shared runs (public only: same row, source and run; a private line: same row, ε and run; a
    line that uses the public data only with the same source; best mixture: the ε-free floor of
    the source, a constant), its mean, 95% interval, p-value and uncorrected verdict.
    ``runs`` holds the selected runs of the private lines, ``public_only`` the public-only runs,
    ``mixture`` the best mixture reference (:func:`mixture_reference`)."""
    keys = ["row", "run", "seed"]
    runs = runs.assign(name=runs["line"].map(line_name))
    public = public_only.assign(line=public_only["row"] + " / public only [" +
                                public_only["source"] + "]", name="public only", eps=np.nan)
    everything = pd.concat([runs, public], ignore_index=True)
    out = []
    for subject, versus in family:
        for line, part in everything.groupby("line", sort=True):
            name, source = part["name"].iloc[0], part["source"].iloc[0]
            if subject != EVERY_LINE and name != subject:
                continue
            for other, pairs in _partners(part, runs, public, mixture, versus, name, source, keys):
                out += _differences(line, other, pairs)
    columns = ["line", "eps", "versus", "diff", "low", "high", "p", "runs", "verdict"]
    return pd.DataFrame(out, columns=columns).drop_duplicates(["line", "eps", "versus"])


def _partners(part, runs, public, mixture, versus, name, source, keys):
    """(other's name, pairs with ``max_error`` and ``max_error_other``) for one line."""
    row = part["row"].iloc[0]
    if versus == "best mixture":
        ref = (mixture[(mixture["row"] == row) & (mixture["source"] == source)]
               if mixture is not None and not mixture.empty else pd.DataFrame())
        if not ref.empty and ref["exact"].iloc[0]:   # an upper estimate is no floor to test
            yield "best mixture", part.assign(max_error_other=float(ref["mean"].iloc[0]))
        return
    if versus == "public only":
        other = public[(public["row"] == row) & (public["source"] == source)]
        if name != "public only" and not other.empty:
            yield "public only", part.merge(other[[*keys, "max_error"]], on=keys,
                                            suffixes=("", "_other"))
        return
    same_row = runs[(runs["row"] == row) & (runs["name"] != name)]
    if versus == BASELINES:
        candidates = same_row[same_row["source"] == ""]
    else:
        candidates = same_row[(same_row["name"] == versus)
                              & same_row["source"].isin(["", source])]
    for other_name, other in candidates.groupby("name"):
        on = keys if name == "public only" else [*keys, "eps"]
        pairs = part.drop(columns="eps") if name == "public only" else part
        yield other_name, pairs.merge(other[[*on, "max_error"] + (["eps"] if name ==
                                                                   "public only" else [])],
                                      on=on, suffixes=("", "_other"))


def _differences(line: str, other: str, pairs: pd.DataFrame) -> list[dict]:
    out = []
    for eps, part in pairs.groupby("eps"):
        diffs = (part["max_error"] - part["max_error_other"]).to_numpy()
        mean, low, high = interval(diffs)
        out.append({"line": line, "eps": eps, "versus": other, "diff": mean, "low": low,
                    "high": high, "p": p_value(diffs), "runs": len(part),
                    "verdict": verdict(low, high)})
    return out


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
    """Selected DualQuery settings whose release has fewer than :data:`FEW_ROUNDS` records (none
    when no DualQuery run is in ``runs``: its records alone carry ``trace_rounds``)."""
    if "trace_rounds" not in runs.columns:
        return pd.DataFrame(columns=["line", "row", "eps", "trace_rounds"])
    dq = runs[(runs["algo"] == "dualquery") & runs["trace_rounds"].notna()]
    rounds = dq.groupby(["line", "row", "eps"])["trace_rounds"].max().reset_index()
    return rounds[rounds["trace_rounds"] < FEW_ROUNDS]
