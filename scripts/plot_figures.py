#!/usr/bin/env python
"""Figures 1–3 and Table 1 of Liu et al. 2021 (PMW^Pub) from collected runs.

    python scripts/plot_figures.py results/fig2_adult_bias   # redraw from runs.csv/selected.csv

Figures (§5.5 layout): max error against ε on a log x-axis, the mean over runs with ± one
standard error bars, one panel per (figure row, public source); in each panel PMW^Pub with that
public source, the row's baselines (MWEM, DualQuery) and, shaded, the area below the source's
best mixture error (Def. 4.1), which PMW^Pub cannot reach. A figure with a single row and many
sources (Fig. 2) gets a first overview panel with every source. Table 1: per-iteration seconds
(mean ± SE over runs) as markdown, with the machine it was measured on.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402

ALGO_NAMES = {"pmwpub": "PMW^Pub", "mwem": "MWEM", "dualquery": "DualQuery",
              "public_only": "public only", "best_mixture": "best mixture"}
BASELINE_COLORS = {"MWEM": "tab:green", "DualQuery": "tab:orange"}
COLUMNS = 5


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
    names = table["algo"].map(ALGO_NAMES).fillna(table["algo"])
    line = [f"{row} / {n} [{s}]" if s else f"{row} / {n}"
            for row, n, s in zip(table["row"], names, source)]
    return table.assign(source=source, line=line)


def source_order(source: str) -> tuple:
    """Sort key of source labels: Δ ascending, then name, fraction p descending."""
    if source.startswith("Δ="):
        return (0, float(source[2:]), "")
    name, _, p = source.partition(" p=")
    return (1, -float(p.rstrip("%")) if p else -100.0, name) if p else (1, -100.0, name)


def panels(chosen: pd.DataFrame) -> list[tuple[str, str]]:
    """(row, source) of every public-using line, rows in first-seen order, sources sorted."""
    public = chosen[chosen["source"] != ""]
    keys = list(dict.fromkeys(zip(public["row"], public["source"])))
    rows = list(dict.fromkeys(r for r, _ in keys))
    return sorted(keys, key=lambda k: (rows.index(k[0]), source_order(k[1])))


def tex(text: str) -> str:
    """PMW^Pub with a proper superscript in matplotlib text."""
    return text.replace("PMW^Pub", "PMW$^{Pub}$")


def _errorbar(ax, part: pd.DataFrame, label: str, **style) -> None:
    part = part.sort_values("eps")
    ax.errorbar(part["eps"], part["mean"], yerr=part["se"], marker="o", ms=3, capsize=2,
                lw=1.2, label=tex(label), **style)


def draw_panel(ax, chosen: pd.DataFrame, mixture: pd.DataFrame, row: str, source: str) -> None:
    """One panel: PMW^Pub with ``source``, the row's baselines, the shaded best mixture error."""
    mine = chosen[(chosen["row"] == row) & (chosen["source"] == source)]
    for algo, part in mine.groupby("algo"):
        _errorbar(ax, part, color="tab:blue", label=f"{ALGO_NAMES.get(algo, algo)} ({source})")
    base = chosen[(chosen["row"] == row) & (chosen["source"] == "")]
    for algo, part in base.groupby("algo"):
        name = ALGO_NAMES.get(algo, algo)
        _errorbar(ax, part, color=BASELINE_COLORS.get(name, "tab:gray"), label=name)
    best = mixture[(mixture["row"] == row) & (mixture["source"] == source)]["max_error"]
    if not best.empty:
        ax.axhspan(0, best.mean(), color="tab:gray", alpha=0.25,
                   label=f"below best mixture error ({best.mean():.3f})")
    ax.set_title(f"{row}: {source}", fontsize=8)


def draw_overview(ax, chosen: pd.DataFrame, row: str) -> None:
    """Every source of ``row`` in one panel (Fig. 2's layout), baselines in black."""
    mine = chosen[(chosen["row"] == row) & (chosen["source"] != "")]
    sources = sorted(set(mine["source"]), key=source_order)
    colors = sns.color_palette("coolwarm", len(sources))
    for color, source in zip(colors, sources):
        _errorbar(ax, mine[mine["source"] == source], color=color, label=source)
    for algo, part in chosen[(chosen["row"] == row) & (chosen["source"] == "")].groupby("algo"):
        _errorbar(ax, part, color="black", ls="--", label=ALGO_NAMES.get(algo, algo))
    ax.set_title(f"{row}: all public sources", fontsize=8)


def plot_artefact(chosen: pd.DataFrame, mixture: pd.DataFrame, test: pd.DataFrame,
                  title: str, row_order: list[str] | None = None):
    """The whole figure (see the module docstring): rows in ``row_order`` (default: as found);
    ``test`` (the runs) gives the run count of the title."""
    sns.set_theme(style="whitegrid", context="paper")
    keys = panels(chosen)
    order = {row: i for i, row in enumerate(row_order or [])}
    keys.sort(key=lambda k: order.get(k[0], len(order)))
    rows = list(dict.fromkeys(r for r, _ in keys))
    overview = len(rows) == 1 and len(keys) > 3
    slots = [("overview", rows[0])] * overview + [("panel", k) for k in keys]
    if len(rows) == 1:
        layout = [slots[i:i + COLUMNS] for i in range(0, len(slots), COLUMNS)]
    else:
        layout = [[("panel", k) for k in keys if k[0] == row] for row in rows]
    ncols = max(len(r) for r in layout)
    fig, axes = plt.subplots(len(layout), ncols, figsize=(3.3 * ncols, 2.9 * len(layout)),
                             squeeze=False, sharey="row")
    for i, line in enumerate(layout):
        for j in range(ncols):
            ax = axes[i][j]
            if j >= len(line):
                ax.set_visible(False)
                continue
            kind, key = line[j]
            if kind == "overview":
                draw_overview(ax, chosen, key)
            else:
                draw_panel(ax, chosen, mixture, *key)
            ax.set_xscale("log")
            ax.set_xlabel("ε")
            ax.set_ylabel("max error")
            ax.legend(fontsize=5.5, loc="best", framealpha=0.7)
    runs = int(test.groupby("config_hash")["run"].nunique().max()) if not test.empty else 0
    fig.suptitle(tex(title) + f"\nmax error, mean ± 1 SE over {runs} runs; shaded: below the best "
                 "mixture error of the public support (unachievable by PMW$^{Pub}$)", fontsize=9)
    fig.tight_layout()
    return fig


def runtime_table(table: pd.DataFrame, machine: str, domain_sizes: dict[str, int]) -> str:
    """Table 1 as markdown: seconds per iteration (mean ± SE over runs) per domain and algorithm
    (PMW^Pub works on the public support, MWEM on the whole domain X), and the machine."""
    rows = ["| domain | algorithm | s / iteration (mean ± SE) | runs | T | queries | "
            "distribution over |", "|---|---|---|---|---|---|---|"]
    for domain in dict.fromkeys(table["row"]):
        size = domain_sizes.get(domain, 0)
        for algo in ("pmwpub", "mwem"):
            part = table[(table["row"] == domain) & (table["algo"] == algo)]
            if part.empty:
                rows.append(f"| {domain} | {ALGO_NAMES[algo]} | infeasible: the runner refuses "
                            f"domain size {size:.3g} > max_domain_size | – | – | – | – |")
                continue
            sec = part["per_iter_s"]
            se = sec.std(ddof=1) / np.sqrt(len(sec)) if len(sec) > 1 else 0.0
            over = (f"public support, {int(part['support_size'].iloc[0]):,} rows"
                    if algo == "pmwpub" else f"domain X, {size:,} cells")
            rows.append(f"| {domain} | {ALGO_NAMES[algo]} | {sec.mean():.4f} ± {se:.4f} | "
                        f"{len(sec)} | {int(part['T'].iloc[0])} | "
                        f"{int(part['num_queries'].iloc[0]):,} | {over} |")
    return "\n".join(["# Table 1: per-iteration run time, one process", "",
                      f"Machine: {machine}.", "", *rows, ""])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", help="an artefact folder with runs.csv and selected.csv")
    parser.add_argument("--title", default="")
    args = parser.parse_args(argv)
    folder = Path(args.folder)
    try:
        runs = pd.read_csv(folder / "runs.csv", keep_default_na=True)
        chosen = pd.read_csv(folder / "selected.csv")
    except FileNotFoundError as err:
        print(f"error: {err.filename} is missing; run scripts/reproduce.py first",
              file=sys.stderr)
        return 2
    runs["source"], chosen["source"] = runs["source"].fillna(""), chosen["source"].fillna("")
    mixture = runs[(runs["algo"] == "best_mixture") & (runs["role"] == "test")]
    test = runs[(runs["algo"] != "best_mixture") & (runs["role"] == "test")]
    plot_artefact(chosen, mixture, test, args.title or folder.name).savefig(
        folder / "figure.png", dpi=130)
    print(f"wrote {folder / 'figure.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
