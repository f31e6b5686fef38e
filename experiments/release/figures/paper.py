"""Figures 1–3 and Table 1 of Liu et al. 2021 (PMW^Pub) from collected runs.

Figures (§5.5 layout): max error against ε (the paper-equivalent ε on a matched grid, with the
ε each row spent in the caption) on a log x-axis with a tick at every ε of the grid, the mean
over runs with ± one standard error bars, one panel per (figure row, public source), each with
its own log y range and the sources in the same column order in every row; the panels are drawn
by :mod:`experiments.release.figures.panels` (public-data lines, the public data alone, the baselines,
the best mixture error as exact, certified interval or estimate). A figure with a single row
and many sources (Fig. 2) gets a first overview panel with every source and is wrapped
near-square; a row whose sources are fractions of one public dataset (Fig. 3) is one panel with
a line per fraction p. One legend lists every drawn line once. Table 1: per-iteration seconds as
markdown, with the machine it was measured on.
"""
from __future__ import annotations

import math
import sys
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.container import ErrorbarContainer  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402

from experiments.outputs import folder_problem  # noqa: E402
from experiments.release.figures.panels import (draw_fractions, draw_overview, draw_panel,  # noqa: E402
                                        format_axes, source_order, tex)
from experiments.release.stats.summary import T_TUNED, build  # noqa: E402
from experiments.release.figures.error_plot import NOT_VERIFIED_LABEL  # noqa: E402
from pubpriv_core.privacy.ledger import NOT_VERIFIED  # noqa: E402


ALGO_NAMES = {"pmwpub": "PMW^Pub", "mwem": "MWEM", "dualquery": "DualQuery",
              "public_only": "public only", "best_mixture": "best mixture", "aim": "AIM",
              "mst": "MST", "jam_pgm": "JAM-PGM", "pep": "PEP", "pep_pub": "PEP^Pub",
              "gem": "GEM", "gem_pub": "GEM^Pub", "rap": "RAP^softmax"}
#: panels per figure row when one row has many public sources
COLUMNS = 3
#: inches of one panel (width, height), and the least width of a figure (its caption's)
PANEL = (3.4, 2.8)
MIN_WIDTH = 10.0


def algo_label(name: str) -> str:
    """An algorithm's name in figures: the built-ins' :data:`ALGO_NAMES`, a plugin's label."""
    if name in ALGO_NAMES:
        return ALGO_NAMES[name]
    from pubpriv_core.algorithms.plugins import load_plugins

    plugin = load_plugins().get(name)
    return plugin.title if plugin is not None else str(name)


def _present(value) -> bool:
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def source_label(row: pd.Series) -> str:
    """The public source of a run: Δ for biased samples, STATE/REGION-year for another dataset,
    with the kept fraction p when below 1."""
    kind = row["public"]
    if kind == "biased":
        label = f"Δ={row['delta_bias']:+g}" if row["delta_bias"] else "Δ=0"
    elif kind == "dataset" and _present(row.get("public_shift")):
        label = f"public model, shift {row['public_shift']:g}"
    elif kind == "dataset":
        place = next((row.get(f"{side}_{key}") for key in ("region", "state")
                      for side in ("public", "dataset") if _present(row.get(f"{side}_{key}"))),
                     "?")
        year = row.get("public_year") if _present(row.get("public_year")) else row.get(
            "dataset_year")
        label = f"{str(place).upper()}-{int(year)}"
    else:
        label = str(kind)
    fraction = row.get("public_fraction", 1.0)
    return f"{label} p={fraction:.1%}" if _present(fraction) and fraction < 1 else label


def line_labels(table: pd.DataFrame) -> pd.DataFrame:
    """Add ``source`` (public source; empty for algorithms that ignore it) and ``line`` (the
    plotted curve: row / algorithm [source])."""
    uses = table["uses_public"].astype(bool)
    source = [source_label(r) if u else "" for (_, r), u in zip(table.iterrows(), uses)]
    names = table["algo"].map({name: algo_label(name) for name in table["algo"].unique()})
    if "opt_accounting" in table:
        names = names.where(table["opt_accounting"].fillna("advanced") != "zcdp",
                            names + " (zCDP)")
    if "opt_public_init" in table:
        names = names.where(~table["opt_public_init"].fillna(False).astype(bool),
                            names + "+public init")
    names = names + released_code_suffix(table)
    if "privacy" in table:      # the escape hatch was used: the legend says so
        names = names.where(table["privacy"].fillna("verified") != NOT_VERIFIED,
                            names + f" ({NOT_VERIFIED_LABEL})")
    line = [f"{row} / {n} [{s}]" if s else f"{row} / {n}"
            for row, n, s in zip(table["row"], names, source)]
    return table.assign(source=source, line=line)


def released_code_suffix(table: pd.DataFrame) -> pd.Series:
    """The name suffix of PMW^Pub/MWEM run as the authors' released code: `` (released code)``
    (its output average and replay), `` (A_1..A_T)`` (its output average only), `` (released
    replay)`` (its replay only); empty for the paper's Algorithm 1."""
    def released(column: str) -> pd.Series:
        values = table[column] if column in table else pd.Series(None, index=table.index)
        return values.fillna("paper").eq("released_code")

    output, replay = released("opt_output"), released("opt_replay_variant")
    suffix = pd.Series("", index=table.index)
    suffix[output & replay] = " (released code)"
    suffix[output & ~replay] = " (A_1..A_T)"
    suffix[~output & replay] = " (released replay)"
    return suffix


def panels(chosen: pd.DataFrame) -> list[tuple[str, str]]:
    """(row, source) of every PMW^Pub line, rows in first-seen order, sources sorted; a row
    whose sources are fractions of one source is one panel (key source "")."""
    public = chosen[chosen["source"] != ""]
    keys = list(dict.fromkeys(zip(public["row"], public["source"])))
    rows = list(dict.fromkeys(r for r, _ in keys))
    fractions = {r for r, src in keys if " p=" in src}
    keys = [(r, "" if r in fractions else src) for r, src in keys]
    return sorted(dict.fromkeys(keys), key=lambda k: (rows.index(k[0]), source_order(k[1])))


def runs_label(test: pd.DataFrame) -> str:
    """"5 runs", or "3–5 runs per point" when a cut grid has fewer runs at some points; the
    best mixture error, one non-private run by design, is not counted."""
    counts = test[test["algo"] != "best_mixture"].groupby("config_hash")["run"].nunique()
    low, high = int(counts.min()), int(counts.max())
    if low == high:
        return f"{high} run" if high == 1 else f"{high} runs"
    return f"{low}–{high} runs per point"


def layout(keys: list[tuple[str, str]]) -> list[list[tuple[str, tuple]]]:
    """Slots (kind, arguments) per figure row: one row per figure row of sources; a single row
    with many sources as an overview panel plus one per source, wrapped near-square; a row of
    fractions as one panel per figure row."""
    rows = list(dict.fromkeys(r for r, _ in keys))
    if len(rows) == 1 and len(keys) > COLUMNS:
        slots = [("overview", (rows[0],))] + [("panel", k) for k in keys]
        width = math.ceil(math.sqrt(len(slots)))
        return [slots[i:i + width] for i in range(0, len(slots), width)]
    if all(src == "" for _, src in keys):
        return [[("fractions", (r,)) for r in rows]]
    return [[("panel", k) for k in keys if k[0] == row] for row in rows]


DRAW = {"overview": draw_overview, "panel": draw_panel, "fractions": draw_fractions}


def plot_artefact(fig_data, title: str, row_order: list[str] | None = None):
    """The whole figure (see the module docstring) of a
    :class:`experiments.release.stats.summary.Figure`: rows in ``row_order`` (default: as found), ε
    ticks at every grid value, y ranges per panel, one legend for every drawn line (in an empty
    slot of the grid, else below the panels); at least :data:`MIN_WIDTH` inches wide."""
    sns.set_theme(style="whitegrid", context="paper")
    order = {row: i for i, row in enumerate(row_order or [])}
    keys = sorted(panels(fig_data.chosen), key=lambda k: order.get(k[0], len(order)))
    slots = layout(keys)
    ncols = max(len(r) for r in slots)
    width, panels_height = max(PANEL[0] * ncols, MIN_WIDTH), PANEL[1] * len(slots)
    figure, axes = plt.subplots(len(slots), ncols, figsize=(width, panels_height),
                                squeeze=False)
    eps = sorted(set(fig_data.chosen["eps"].dropna()))
    xlabel = "paper-equivalent ε" if fig_data.real_eps else "ε"
    empty = []
    for i, line in enumerate(slots):
        for j in range(ncols):
            if j >= len(line):
                empty.append(axes[i][j])
                continue
            kind, key = line[j]
            DRAW[kind](axes[i][j], fig_data, *key)
            format_axes(axes[i][j], eps, xlabel)
    chars = int(width * 19)                 # fontsize 7: about 19 characters an inch
    lines = [wrapped for line in [tex(title), *caption_lines(fig_data)]
             for wrapped in textwrap.wrap(line, chars)]
    figure.suptitle("\n".join(lines), fontsize=7, y=0.995)
    handles, labels = figure_legend_entries([ax for row in axes for ax in row
                                             if ax not in empty])
    for ax in empty[:-1]:
        ax.set_visible(False)
    title_h, legend_h = 0.14 * len(lines) + 0.1, 0.0
    if empty:
        empty[-1].axis("off")
        empty[-1].legend(handles, labels, loc="center", fontsize=6, frameon=False)
    else:
        columns = max(1, min(len(labels), int(width // 3.2)))
        legend_h = 0.16 * math.ceil(len(labels) / columns) + 0.1
        figure.legend(handles, labels, loc="lower center", ncol=columns, fontsize=6,
                      frameon=False, bbox_to_anchor=(0.5, 0.0))
    height = panels_height + title_h + legend_h
    figure.set_size_inches(width, height)
    figure.tight_layout(rect=(0, legend_h / height, 1, 1))   # leaves room for the suptitle
    return figure


def figure_legend_entries(axes) -> tuple[list, list[str]]:
    """(handles, labels) of every labelled artist of ``axes``, each label once (first wins)."""
    seen: dict[str, object] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(label, handle)
    kinds = (ErrorbarContainer, Line2D)     # curves, then reference lines, then areas
    order = sorted(seen, key=lambda label: next((i for i, kind in enumerate(kinds)
                                                 if isinstance(seen[label], kind)), len(kinds)))
    return [seen[label] for label in order], order


def caption_lines(fig_data) -> list[str]:
    """The caption under the title: what the points are, what the references are, and on a
    matched grid the ε each row actually spent."""
    lines = [f"max error, mean ± 1 SE over {runs_label(fig_data.test)}; dashed: public data "
             "alone (± 1 SE band); grey: best mixture error of the panel's public support",
             "(exact: shaded below, unachievable on that support; certified interval: hatched, "
             "shaded below its lower end; MW-100 estimate: dotted, nothing shaded)"]
    if fig_data.real_eps:
        spent = "; ".join(f"{row}: {low:.3g}–{high:.3g} (n = {n:,})"
                          for row, (low, high, n) in fig_data.real_eps.items())
        lines.append("x: paper-equivalent ε; each run spent ε = eps_equiv · 10^5 / n — "
                     + spent)
    return lines


def tuning_note(fig_data, tuning: str) -> str:
    """What was tuned, for the title: T fixed at one value, or the selection protocol."""
    runs = pd.concat([fig_data.test, fig_data.validation], ignore_index=True)
    rounds = runs[runs["algo"].isin(T_TUNED)]["T"].dropna().unique()
    if len(rounds) == 1:
        return f"T = {int(rounds[0])} (fixed)" + (
            f"; DualQuery's (η, s): {tuning}" if (runs["algo"] == "dualquery").any() else "")
    return f"hyper-parameters: {tuning}"


def runtime_table(table: pd.DataFrame, machine: str, domain_sizes: dict[str, int]) -> str:
    """Table 1 as markdown: seconds per iteration per domain and algorithm (PMW^Pub works on the
    public support, MWEM on the whole domain X), and the machine. One rule throughout
    (:func:`steady_runs`): the mean ± SE over the runs after the first, which is a warm-up
    (compiled kernels loaded, caches cold); the MWEM / PMW^Pub ratio is the ratio of those
    unrounded means, so a ratio quoted elsewhere is this one."""
    rows = ["| domain | algorithm | s / iteration (mean ± SE, runs ≥ 1) | runs | T | queries | "
            "distribution over |", "|---|---|---|---|---|---|---|"]
    ratios = []
    for domain in dict.fromkeys(table["row"]):
        size = domain_sizes.get(domain, 0)
        means = {}
        for algo in ("pmwpub", "mwem"):
            part = table[(table["row"] == domain) & (table["algo"] == algo)]
            if part.empty:
                rows.append(f"| {domain} | {ALGO_NAMES[algo]} | infeasible: the runner refuses "
                            f"domain size {size:.3g} > max_domain_size | – | – | – | – |")
                continue
            sec = steady_runs(part)["per_iter_s"]
            means[algo] = sec.mean()
            se = sec.std(ddof=1) / np.sqrt(len(sec)) if len(sec) > 1 else 0.0
            over = (f"public support, {int(part['support_size'].iloc[0]):,} rows"
                    if algo == "pmwpub" else f"domain X, {size:,} cells")
            rows.append(f"| {domain} | {ALGO_NAMES[algo]} | {sec.mean():.4f} ± {se:.4f} | "
                        f"{len(sec)} of {len(part)} | {int(part['T'].iloc[0])} | "
                        f"{int(part['num_queries'].iloc[0]):,} | {over} |")
        if len(means) == 2:
            ratios.append(f"- {domain}: MWEM / PMW^Pub = {means['mwem'] / means['pmwpub']:.1f}× "
                          "per iteration")
    return "\n".join(["# Table 1: per-iteration run time, one process", "",
                      f"Machine: {machine}.", "",
                      "Rule: each cell is the mean over the runs after the first (run 0 is a "
                      "warm-up); ratios are ratios of these unrounded means.", "", *rows, "",
                      *ratios, ""])


def steady_runs(part: pd.DataFrame) -> pd.DataFrame:
    """The runs after the warm-up run 0 (all runs when there is only one)."""
    steady = part[part["run"] > 0]
    return steady if not steady.empty else part


#: the columns of a reproduce.py runs.csv that a redraw reads.
RUNS_COLUMNS = ("row", "role", "line", "source", "algo", "eps", "T", "run", "max_error")


def redraw(folder: str | Path, title: str = "", tuning: str = "paper") -> int:
    """Redraw ``folder/figure.png`` from its ``runs.csv``; returns the exit status (2: no
    runs.csv, not one written by reproduce.py, or a folder that cannot be written)."""
    folder = Path(folder)
    try:
        problem = "is not a folder" if not folder.is_dir() else folder_problem(folder)
        if problem:
            raise ValueError(f"{folder} {problem}; pass an artefact folder of "
                             "scripts/reproduce.py")
        runs = pd.read_csv(folder / "runs.csv", keep_default_na=True)
        missing = [c for c in RUNS_COLUMNS if c not in runs.columns]
        if missing:
            raise ValueError(f"{folder / 'runs.csv'} lacks the column(s) {', '.join(missing)}; "
                             "it was not written by scripts/reproduce.py (run it again)")
        runs["source"] = runs["source"].fillna("")
        built = build(runs, tuning)
        figure = plot_artefact(built, f"{title or folder.name} — {tuning_note(built, tuning)}")
    except FileNotFoundError as err:
        print(f"error: {err.filename} is missing; run scripts/reproduce.py first",
              file=sys.stderr)
        return 2
    except (ValueError, OSError) as err:
        print(f"error: {' '.join(str(err).split())}", file=sys.stderr)
        return 2
    figure.savefig(folder / "figure.png", dpi=130)
    plt.close(figure)
    print(f"wrote {folder / 'figure.png'}")
    return 0
