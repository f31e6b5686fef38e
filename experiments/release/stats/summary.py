"""selected.csv and summary.md of an error figure (Liu et al. 2021, §5.5): the selected lines, the
ε-free references (public data alone; best mixture error, exact and the paper's MW estimate),
paired differences with 95% intervals, grid edges and degenerate DualQuery releases.

Used by :mod:`experiments.release.artefacts.reproduce`; see :mod:`experiments.release.stats.paired` for the
statistics.
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from experiments.release.stats.paired import (ALPHA, DEFAULT_FAMILY, FEW_ROUNDS, Family, chosen_runs,
                                        few_rounds, grid_edges, holm_verdicts,
                                        mixture_reference, paired_differences, reference)
from experiments.release.configure.signal import axis_eps, real_eps_ranges
from experiments.release.stats.tuning import select

REFERENCE_ALGOS = ("public_only", "best_mixture")


@dataclass
class Figure:
    """What a figure and its summary show: the selected lines and the references."""

    chosen: pd.DataFrame        # per (line, ε): selected hyper-parameters, mean, se, tuning
    runs: pd.DataFrame          # per-run rows of the selected settings
    public_only: pd.DataFrame   # per-run public-only rows (test role)
    public_ref: pd.DataFrame    # per (row, source): public-only mean, se, runs
    mixture_ref: pd.DataFrame   # per (row, source): exact best mixture mean, se, MW estimate
    test: pd.DataFrame          # every test run of the private algorithms
    real_eps: dict              # matched grids: row -> (smallest ε, largest ε, n); else empty
    validation: pd.DataFrame    # every validation run of the private algorithms


def build(table: pd.DataFrame, tuning: str) -> Figure:
    """Select hyper-parameters (``tuning``) and compute the references of a collected table;
    runs of a matched grid are indexed by their paper-equivalent ε (``eps`` = ``eps_equiv``,
    :func:`experiments.release.configure.signal.axis_eps`)."""
    table = axis_eps(table)
    test_rows = table[table["role"] == "test"]
    private = table[~table["algo"].isin(REFERENCE_ALGOS)]
    test, validation = (private[private["role"] == r] for r in ("test", "validation"))
    lines = test[["line", "row", "source", "algo"]].drop_duplicates("line")
    chosen = select(test, tuning, validation).merge(lines, on="line")
    public_only = test_rows[test_rows["algo"] == "public_only"]
    mixture = test_rows[test_rows["algo"] == "best_mixture"]
    return Figure(chosen, chosen_runs(test, chosen), public_only, reference(public_only),
                  mixture_reference(mixture) if not mixture.empty else mixture, test,
                  real_eps_ranges(test), validation)


def selected_table(fig: Figure) -> pd.DataFrame:
    """selected.csv: the selected lines, then one ε-free row per public source for the public
    data alone and for the best mixture error (``mean`` exact, ``mw_estimate`` the paper's)."""
    mixture = fig.mixture_ref
    if not mixture.empty:
        mixture = mixture.assign(tuning=[
            "ε-free (exact LP)" if exact else
            f"ε-free (MW-100 estimate; certified interval [{low:.3g}, {high:.3g}])"
            if pd.notna(low) and low > 0 else "ε-free (MW-100 estimate; LP not certified)"
            for exact, low, high in zip(mixture["exact"], mixture["lower"], mixture["upper"])])
    refs = [fig.public_ref.assign(algo="public_only", tuning="ε-free"),
            mixture.assign(algo="best_mixture")]
    refs = [r.assign(line=r["row"] + " / " + r["algo"] + " [" + r["source"] + "]")
            for r in refs if not r.empty]
    return pd.concat([fig.chosen, *refs], ignore_index=True)


def summary_text(fig: Figure, family: Family = DEFAULT_FAMILY) -> str:
    """The markdown body of summary.md; ``family`` names the paired comparisons whose verdicts
    are Holm-corrected together (:mod:`experiments.release.stats.paired`)."""
    parts = [_signal(fig), _errors(fig.chosen), _references(fig),
             _paired(comparisons(fig, family)), _edges(fig), _validation_curve(fig),
             _degenerate(fig.runs)]
    return "\n\n".join(p for p in parts if p)


def comparisons(fig: Figure, family: Family = DEFAULT_FAMILY) -> pd.DataFrame:
    """The artefact's family of paired comparisons with Holm-corrected verdicts."""
    return holm_verdicts(paired_differences(fig.runs, fig.public_only, fig.mixture_ref, family))


def _signal(fig: Figure) -> str:
    """Matched grids: the ε each row spent for the paper-equivalent ε of the tables."""
    if not fig.real_eps:
        return ""
    rows = [f"| {row} | {n:,} | {low:.3g} – {high:.3g} |"
            for row, (low, high, n) in fig.real_eps.items()]
    return "\n".join(["## Signal-matched budgets", "",
                      "ε in the tables below is the paper-equivalent ε (`eps_equiv`): each run "
                      "spent ε = eps_equiv · n_ref / n with n_ref = 10^5 (Liu et al. §5), so n·ε "
                      "matches the paper's at that value; δ = 1/n². The ε actually spent:", "",
                      "| row | private rows n | ε spent |", "|---|---|---|", *rows])


def _errors(chosen: pd.DataFrame) -> str:
    cell = chosen.assign(v=[f"{r['mean']:.4f} ± {r['se']:.4f}"
                            + (f" ({hyper})" if (hyper := hyper_text(r)) else "")
                            for _, r in chosen.iterrows()])
    wide = cell.pivot(index="line", columns="eps", values="v").fillna("— (not run)")
    wide["tuning"] = chosen.groupby("line")["tuning"].agg(lambda v: ", ".join(sorted(set(v))))
    return "\n".join(["## Max error, mean ± 1 SE over runs (selected hyper-parameters)", "",
                      markdown(wide)])


def _references(fig: Figure) -> str:
    if fig.public_ref.empty and fig.mixture_ref.empty:
        return ""
    ref = fig.public_ref.rename(columns={"mean": "public only", "se": "public only SE"})
    if not fig.mixture_ref.empty:
        mix = fig.mixture_ref.rename(columns={"mean": "best mixture",
                                              "se": "best mixture SE",
                                              "mw_estimate": "MW-100 estimate"})
        ref = ref.merge(mix.drop(columns="runs"), on=["row", "source"], how="outer")
    return "\n".join(["## ε-free references per public source (mean over runs)", "",
                      "public only: the public distribution A_0 released as is (no privacy "
                      "spent). Best mixture error (Def. 4.1): the exact LP value, certified to "
                      "1e-9 (`exact` True), which the shading uses; where the LP did not finish "
                      "within its time limit the MW-100 estimate (the paper's upper estimate) "
                      "stands in and `exact` is False, and `lower`–`upper` is the certified "
                      "interval (the absent-cell floor or the LP's bound below, the best "
                      "reweighting found above). A source used whole has the same support in "
                      "every run and is solved on run 0 (SE 0); a resampled one on every run. "
                      "Values with 3 significant digits, as in the figure.", "",
                      markdown(significant(ref.set_index(["row", "source"])))])


def _paired(diffs: pd.DataFrame) -> str:
    if diffs.empty:
        return ""
    diffs = diffs.assign(cell=[verdict_cell(r) for _, r in diffs.iterrows()])
    family = int(diffs["family"].iloc[0])
    out = ["## Paired differences: line − other, mean [uncorrected 95% CI], Holm-corrected "
           "verdict", "",
           "Each run uses the same private/public split for every algorithm. The verdicts of "
           f"this summary form one family of {family} paired t-tests (every cell below with at "
           f"least 2 runs), Holm-corrected to a family-wise error of {ALPHA:g}: \"lower\" "
           "(the line's max error is lower than the other's) or \"higher\" only when the "
           "corrected test rejects a zero mean difference, else \"undecided\". The bracket is "
           "the uncorrected 95% t-interval; where it alone would decide, the cell adds "
           "\"(uncorrected: lower/higher)\". Against the best mixture error (the exact floor of "
           "the public support, a constant) the test is one-sample."]
    for versus, part in diffs.groupby("versus", sort=False):
        wide = part.pivot(index="line", columns="eps", values="cell").fillna("—")
        out += ["", f"### versus {versus}", "", markdown(wide)]
    return "\n".join(out)


def verdict_cell(row: pd.Series) -> str:
    """``+0.0123 [+0.0050, +0.0196] higher``; the uncorrected verdict added where it differs."""
    cell = f"{row['diff']:+.4f} [{row['low']:+.4f}, {row['high']:+.4f}] {row['verdict']}"
    if row["verdict_uncorrected"] != row["verdict"]:
        cell += f" (uncorrected: {row['verdict_uncorrected']})"
    return cell


def _edges(fig: Figure) -> str:
    """Selected values at a grid edge, for the lines selected on their test runs (a validated
    line's test runs sit at the chosen T only: its edges are the validation curve's)."""
    edges = grid_edges(fig.test, fig.chosen[fig.chosen["tuning"] != "validation"])
    if edges.empty:
        return "## Grid edges\n\nNo selected hyper-parameter sits at the edge of its grid."
    edges["cell"] = [f"ε={r['eps']:g}: {r['value']:g}" + (
        "" if pd.isna(r["interior"]) else
        f" (best inside: {r['interior']:g}, {r['interior_mean']:.4f}, {r['gap']:+.4f})")
        for _, r in edges.iterrows()]
    listing = edges.groupby(["line", "parameter", "grid"])["cell"].agg("; ".join)
    return "\n".join(["## Grid edges", "", "Selected values at the smallest or largest value "
                      "tried (the `grid` column: the values the artefact ran, which stop there "
                      "to bound the sweep's run time on this machine; a T-tuned line at the top "
                      "of its grid is run again at T = 500, then 800). Beside each edge value: "
                      "the interior value with the lowest mean test error, that error, and its "
                      "gap to the selected one "
                      "(a small gap means the edge is a flat optimum, not a cut-off trend; "
                      "two-value grids have no interior).", "",
                      markdown(listing.rename("selected at the edge").to_frame())])


def _validation_curve(fig: Figure) -> str:
    """Error against T on the validation runs (the curve PMW^Pub's T is selected on), the
    selected T marked, and the lines whose validation optimum is the largest T tried."""
    val = fig.validation[fig.validation["algo"].isin(T_TUNED)] if not fig.validation.empty \
        else fig.validation
    if val.empty:
        return ""
    means = val.groupby(["line", "eps", "T"])["max_error"].agg(["mean", "count"]).reset_index()
    best = means.loc[means.groupby(["line", "eps"])["mean"].idxmin()].set_index(["line", "eps"])
    means["cell"] = [f"**{m:.4f}**" if best.loc[(l, e), "T"] == t else f"{m:.4f}"
                     for l, e, t, m in zip(means["line"], means["eps"], means["T"],
                                           means["mean"])]
    wide = means.pivot(index=["line", "eps"], columns="T", values="cell").fillna("—")
    wide.columns = [f"T={int(t)}" for t in wide.columns]
    tops = means.groupby(["line", "eps"])["T"].max()
    edge = [f"{l} at ε = {e:g}: T = {int(best.loc[(l, e), 'T'])}"
            for (l, e), top in tops.items() if best.loc[(l, e), "T"] == top]
    runs = int(means["count"].max())
    return "\n".join(["## Validation: max error against T", "",
                      f"Mean max error over the validation runs ({runs} per point; the release "
                      "treated as private, see the figure's rows), bold: the T selected for the "
                      "test runs. Optima at the largest T tried (after any extension of the "
                      f"grid): {'; '.join(edge) if edge else 'none'}.", "", markdown(wide)])


def _degenerate(runs: pd.DataFrame) -> str:
    few = few_rounds(runs)
    if few.empty:
        return ""
    listing = few.groupby("line").apply(lambda g: ", ".join(
        f"ε={e:g}: {int(t)}" for e, t in zip(g["eps"], g["trace_rounds"])))
    return "\n".join([f"## Degenerate DualQuery releases (< {FEW_ROUNDS} rounds = records)", "",
                      markdown(listing.rename("rounds of the selected setting").to_frame())])


#: the algorithms whose rounds T are tuned (the others calibrate or fix their own rounds).
T_TUNED = ("pmwpub", "mwem")


def hyper_text(row: pd.Series) -> str:
    """The selected hyper-parameters of one summary cell: T, DualQuery's η and s, or nothing for
    an algorithm with no tuned parameter (AIM, MST, JAM-PGM ignore T)."""
    if row["algo"] == "dualquery":
        return f"η={row['opt_eta']:g}, s={int(row['opt_samples'])}"
    return f"T={int(row['T'])}" if row["algo"] in T_TUNED else ""


def significant(frame: pd.DataFrame, digits: int = 3) -> pd.DataFrame:
    """Float columns as text with ``digits`` significant digits, the rounding the figures'
    titles use (one rounding of each value everywhere)."""
    return frame.apply(lambda col: col.map(lambda v: f"{v:.{digits}g}" if pd.notna(v) else "—")
                       if col.dtype.kind == "f" else col)


def markdown(frame: pd.DataFrame) -> str:
    """A DataFrame (index included) as a markdown table."""
    frame = frame.reset_index()
    head = "| " + " | ".join(str(c) for c in frame.columns) + " |"
    rule = "|" + "---|" * len(frame.columns)
    body = ["| " + " | ".join(str(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([head, rule, *body])
