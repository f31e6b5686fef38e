"""Figures 1–3 and Table 1 of Liu et al. 2021 (PMW^Pub) from collected runs.

Figures (§5.5 layout): max error against ε on a log x-axis with a tick at every ε of the grid,
the mean over runs with ± one standard error bars, one panel per (figure row, public source),
each with its own log y range and the sources in the same column order in every row; in each panel
PMW^Pub with that public source, the public data alone (ε-free, dashed, ± 1 SE band), the row's
baselines (MWEM, DualQuery with the paper's calibration; a note where DualQuery releases fewer
than 20 records) and, shaded, the area below the source's exact best mixture error (Def. 4.1),
which PMW^Pub cannot reach. A figure with a single row and many sources (Fig. 2) gets a first
overview panel with every source (log y, legend outside); a row whose sources are fractions of
one public dataset (Fig. 3) is one panel with a line per fraction p. Table 1: per-iteration
seconds (mean ± SE over runs) as markdown, with the machine it was measured on.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402

from experiments.outputs import folder_problem  # noqa: E402
from experiments.release.paired import FEW_ROUNDS, few_rounds  # noqa: E402
from experiments.release.summary import build  # noqa: E402

ALGO_NAMES = {"pmwpub": "PMW^Pub", "mwem": "MWEM", "dualquery": "DualQuery",
              "public_only": "public only", "best_mixture": "best mixture", "aim": "AIM",
              "mst": "MST", "jam_pgm": "JAM-PGM", "pep": "PEP", "pep_pub": "PEP^Pub",
              "gem": "GEM", "gem_pub": "GEM^Pub", "rap": "RAP^softmax"}
BASELINE_COLORS = {"MWEM": "tab:green", "DualQuery": "tab:orange", "AIM": "tab:red",
                   "MST": "tab:purple", "PEP": "tab:pink", "GEM": "tab:cyan",
                   "RAP^softmax": "goldenrod"}
#: lines that use the panel's public source; PMW^Pub keeps the public-only line's colour
PUBLIC_COLORS = {"PMW^Pub": "tab:blue", "JAM-PGM": "tab:brown", "AIM+public init": "tab:olive",
                 "GEM^Pub": "darkcyan", "PEP^Pub": "mediumvioletred"}
COLUMNS = 5


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
    line = [f"{row} / {n} [{s}]" if s else f"{row} / {n}"
            for row, n, s in zip(table["row"], names, source)]
    return table.assign(source=source, line=line)


def source_order(source: str) -> tuple:
    """Sort key of source labels, the same column order in every row: Δ ascending; then the
    same place another year, NATIONAL, other places by name; fraction p descending."""
    if source.startswith("Δ="):
        return (0, float(source[2:]), 0, "")
    name, _, p = source.partition(" p=")
    fraction = -float(p.rstrip("%")) if p else -100.0
    place, _, year = name.rpartition("-")
    kind = 0 if year.isdigit() and int(year) < 2019 else 1 if place == "NATIONAL" else 2
    return (1, kind, fraction, name)


def base_source(source: str) -> str:
    """The source without its fraction: ``MA-2018 p=10.0%`` → ``MA-2018``."""
    return source.partition(" p=")[0]


def panels(chosen: pd.DataFrame) -> list[tuple[str, str]]:
    """(row, source) of every PMW^Pub line, rows in first-seen order, sources sorted; a row
    whose sources are fractions of one source is one panel (key source "")."""
    public = chosen[chosen["source"] != ""]
    keys = list(dict.fromkeys(zip(public["row"], public["source"])))
    rows = list(dict.fromkeys(r for r, _ in keys))
    fractions = {r for r, src in keys if " p=" in src}
    keys = [(r, "" if r in fractions else src) for r, src in keys]
    return sorted(dict.fromkeys(keys), key=lambda k: (rows.index(k[0]), source_order(k[1])))


def tex(text: str) -> str:
    """PMW^Pub, GEM^Pub, PEP^Pub and RAP^softmax with proper superscripts in matplotlib text."""
    for name in ("PMW", "GEM", "PEP"):
        text = text.replace(f"{name}^Pub", f"{name}$^{{Pub}}$")
    return text.replace("RAP^softmax", "RAP$^{softmax}$")


def _errorbar(ax, part: pd.DataFrame, label: str, **style) -> None:
    part = part.sort_values("eps")
    ax.errorbar(part["eps"], part["mean"], yerr=part["se"], marker="o", ms=3, capsize=2,
                lw=1.2, label=tex(label), **style)


def _reference(ax, ref: pd.DataFrame, row: str, source: str, label: str, **style) -> None:
    """An ε-free line (public only) with its ± 1 SE band across the panel."""
    part = ref[(ref["row"] == row) & (ref["source"] == source)]
    if part.empty:
        return
    mean, se = float(part["mean"].iloc[0]), float(part["se"].iloc[0])
    ax.axhline(mean, ls="--", lw=1.0, label=tex(f"{label} ({mean:.3f})"), **style)
    ax.axhspan(mean - se, mean + se, alpha=0.15, **style)


def _baselines(ax, fig, row: str) -> None:
    """The row's baselines (paper calibration of DualQuery); a DualQuery line that releases fewer
    than :data:`FEW_ROUNDS` records says so in its legend entry (off the curves)."""
    base = fig.chosen[(fig.chosen["row"] == row) & (fig.chosen["source"] == "")]
    for line, part in base.groupby("line"):
        name = line.split(" / ")[-1]
        if "(zCDP)" not in name:
            _errorbar(ax, part, color=BASELINE_COLORS.get(name, "tab:gray"),
                      label=name + few_rounds_note(fig.runs, line))


def runs_label(test: pd.DataFrame) -> str:
    """"5 runs", or "3–5 runs per point" when a cut grid has fewer runs at some points; the
    best mixture error, one non-private run by design, is not counted."""
    counts = test[test["algo"] != "best_mixture"].groupby("config_hash")["run"].nunique()
    low, high = int(counts.min()), int(counts.max())
    if low == high:
        return f"{high} run" if high == 1 else f"{high} runs"
    return f"{low}–{high} runs per point"


def few_rounds_note(runs: pd.DataFrame, line: str) -> str:
    """`` (< 20 rounds at ε ≤ 0.25)``: the ε at which the selected DualQuery setting of ``line``
    releases fewer than :data:`FEW_ROUNDS` records (listed when they are not the lowest ε);
    empty when none does."""
    few = few_rounds(runs[runs["line"] == line])
    if few.empty:
        return ""
    low = sorted(few["eps"])
    grid = sorted(set(runs.loc[runs["line"] == line, "eps"]))
    where = (f"ε ≤ {low[-1]:g}" if grid[:len(low)] == low
             else "ε = " + ", ".join(f"{e:g}" for e in low))
    return f" (< {FEW_ROUNDS} rounds at {where})"


def draw_panel(ax, fig, row: str, source: str) -> None:
    """Every line that uses ``source`` (PMW^Pub; JAM-PGM and AIM+public init where run), its
    public-only line, the row's baselines, and shaded the area below the source's exact best
    mixture error."""
    mine = fig.chosen[(fig.chosen["row"] == row) & (fig.chosen["source"] == source)]
    for line, part in mine.groupby("line", sort=False):
        name = line.split(" / ")[-1].split(" [")[0]
        _errorbar(ax, part, color=PUBLIC_COLORS.get(name, "tab:gray"), label=f"{name} ({source})")
    _reference(ax, fig.public_ref, row, source, "public only", color="tab:blue")
    _baselines(ax, fig, row)
    _shade(ax, fig, row, source)
    ax.set_title(tex(f"{row}: {source}"), fontsize=8)


def _shade(ax, fig, row: str, source: str) -> None:
    """Shade below the best mixture error of ``source`` (exact, or the labelled MW estimate)."""
    best = fig.mixture_ref[(fig.mixture_ref["row"] == row) & (fig.mixture_ref["source"] == source)]
    if best.empty:
        return
    value, exact = float(best["mean"].iloc[0]), bool(best["exact"].iloc[0])
    ax.axhline(value, color="tab:gray", lw=0.8)
    ax.axhspan(0, value, color="tab:gray", alpha=0.3,
               label=f"below best mixture error of {source} ({value:.4f}"
                     f"{'' if exact else ', MW estimate'})")


def draw_fractions(ax, fig, row: str) -> None:
    """Fig. 3: PMW^Pub for every fraction p of the row's source, each with its public-only line."""
    mine = fig.chosen[(fig.chosen["row"] == row) & (fig.chosen["source"] != "")]
    sources = sorted(set(mine["source"]), key=source_order)
    for color, source in zip(sns.color_palette("viridis", len(sources)), sources):
        p = source.partition(" p=")[2] or "100%"
        _errorbar(ax, mine[mine["source"] == source], color=color, label=f"PMW^Pub p={p}")
        _reference(ax, fig.public_ref, row, source, f"public only p={p}", color=color)
    _baselines(ax, fig, row)
    _shade(ax, fig, row, sources[0])
    ax.set_title(tex(f"{row}: PMW^Pub by public fraction p"), fontsize=8)


def draw_overview(ax, fig, row: str) -> None:
    """Every source of ``row`` in one panel (Fig. 2's layout), baselines in black, log y."""
    mine = fig.chosen[(fig.chosen["row"] == row) & (fig.chosen["source"] != "")]
    sources = sorted(set(mine["source"]), key=source_order)
    for color, source in zip(sns.color_palette("coolwarm", len(sources)), sources):
        _errorbar(ax, mine[mine["source"] == source], color=color, label=source)
    base = fig.chosen[(fig.chosen["row"] == row) & (fig.chosen["source"] == "")]
    for line, part in base.groupby("line"):
        if "(zCDP)" not in line:
            _errorbar(ax, part, color="black", ls="--",
                      label=line.split(" / ")[-1] + few_rounds_note(fig.runs, line))
    ax.set_title(tex(f"{row}: all public sources"), fontsize=8)


def _layout(keys: list[tuple[str, str]]) -> list[list[tuple[str, tuple]]]:
    rows = list(dict.fromkeys(r for r, _ in keys))
    if len(rows) == 1 and len(keys) > 3:
        slots = [("overview", (rows[0],))] + [("panel", k) for k in keys]
        return [slots[i:i + COLUMNS] for i in range(0, len(slots), COLUMNS)]
    if all(src == "" for _, src in keys):
        return [[("fractions", (r,)) for r in rows]]
    return [[("panel", k) for k in keys if k[0] == row] for row in rows]


DRAW = {"overview": draw_overview, "panel": draw_panel, "fractions": draw_fractions}


def plot_artefact(fig_data, title: str, row_order: list[str] | None = None):
    """The whole figure (see the module docstring) of a
    :class:`experiments.release.summary.Figure`: rows in ``row_order`` (default: as found), ε
    ticks at every grid value, y ranges per panel."""
    sns.set_theme(style="whitegrid", context="paper")
    order = {row: i for i, row in enumerate(row_order or [])}
    keys = sorted(panels(fig_data.chosen), key=lambda k: order.get(k[0], len(order)))
    layout = _layout(keys)
    ncols = max(len(r) for r in layout)
    figure, axes = plt.subplots(len(layout), ncols, figsize=(5.4 * ncols, 3.2 * len(layout)),
                                squeeze=False)
    eps = sorted(set(fig_data.chosen["eps"].dropna()))
    for i, line in enumerate(layout):
        for j in range(ncols):
            ax = axes[i][j]
            if j >= len(line):
                ax.set_visible(False)
                continue
            kind, key = line[j]
            DRAW[kind](ax, fig_data, *key)
            _axes(ax, eps)
    figure.suptitle(tex(title) + f"\nmax error, mean ± 1 SE over {runs_label(fig_data.test)}; "
                    "dashed: public "
                    "data alone (± 1 SE band);\nshaded: below the best mixture error of run 0's "
                    "public support (unachievable by PMW$^{Pub}$ on that run)", fontsize=9)
    figure.tight_layout()
    return figure


def _axes(ax, eps: list[float]) -> None:
    """Log axes (errors span 1e-3–1, so a linear y flattens PMW^Pub under the baselines): the y
    range of the panel's own lines, labelled at 1, 2 and 5 of each decade so that a panel spanning
    less than a decade still has values; every ε of the grid labelled, upright."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    drawn = [y for line in ax.get_lines() for y in np.asarray(line.get_ydata(), float) if y > 0]
    if drawn:
        ax.set_ylim(min(drawn) / 1.5, max(drawn) * 1.5)
    ax.yaxis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda y, _: f"{y:g}"))
    ax.yaxis.set_minor_formatter(ticker.NullFormatter())
    ax.tick_params(axis="y", labelsize=6)
    ax.set_xticks(eps)
    ax.set_xticklabels([f"{e:g}" for e in eps], fontsize=6, rotation=90)
    ax.minorticks_off()
    ax.set_xlabel("ε")
    ax.set_ylabel("max error")
    ax.legend(fontsize=5.5, loc="upper left", bbox_to_anchor=(1.01, 1.0), framealpha=0.7)


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
        figure = plot_artefact(build(runs, tuning), title or folder.name)
    except FileNotFoundError as err:
        print(f"error: {err.filename} is missing; run scripts/reproduce.py first",
              file=sys.stderr)
        return 2
    except (ValueError, OSError) as err:
        print(f"error: {' '.join(str(err).split())}", file=sys.stderr)
        return 2
    figure.savefig(folder / "figure.png", dpi=130)
    print(f"wrote {folder / 'figure.png'}")
    return 0
