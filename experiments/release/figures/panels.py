"""The panels of the release figures (Liu et al. 2021, §5.5 layout) and their axes.

A panel is one (figure row, public source): every line that uses that source (PMW^Pub, JAM-PGM,
…), the public data alone (ε-free, dashed, ± 1 SE band), the row's baselines (MWEM, DualQuery
under both accountings, AIM, …) and the best mixture error of the source drawn as what it is:

* exact (the LP certified it on every run, or on run 0 when every run has that support): the
  area below it is shaded — no reweighting of the support goes there;
* exact on run 0 only while the support changes with the run (a resampled public set): shaded
  and labelled as run 0's (the mean of the runs may lie below it);
* a certified interval [lower, upper] (the absent-cell floor or the LP's dual bound, and the MW
  estimate or the LP's best reweighting): shaded below ``lower`` only, the interval hatched;
* the MW estimate alone (an upper estimate): a dotted line, nothing shaded.

Every label is generic (the panel's title names the source and the values), so one legend for
the whole figure lists each drawn line once. Axes: log x with every ε of the grid labelled
upright-rotated, log y over the panel's own lines with at least three labelled values.
"""
from __future__ import annotations

import zlib

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib import ticker

from experiments.release.stats.paired import FEW_ROUNDS, few_rounds, line_name

BASELINE_COLORS = {"MWEM": "tab:green", "DualQuery": "tab:orange", "DualQuery (zCDP)":
                   "tab:orange", "AIM": "tab:red", "MST": "tab:purple", "PEP": "tab:pink",
                   "GEM": "tab:cyan", "RAP^softmax": "goldenrod"}
#: lines that use the panel's public source; PMW^Pub keeps the public-only line's colour
PUBLIC_COLORS = {"PMW^Pub": "tab:blue", "JAM-PGM": "tab:brown", "AIM+public init": "tab:olive",
                 "GEM^Pub": "darkcyan", "PEP^Pub": "mediumvioletred"}
_OTHER_COLORS = sns.color_palette("dark", 10).as_hex()
#: labels of the best-mixture drawings (tests read them)
EXACT_LABEL = "below the exact best mixture error (unachievable on the public support)"
RUN0_LABEL = "below run 0's exact best mixture error (unachievable on run 0's support)"
FLOOR_LABEL = "below a certified lower bound of the best mixture error (unachievable)"
INTERVAL_LABEL = "best mixture error: certified interval [lower, upper]"
ESTIMATE_LABEL = "MW-100 upper estimate of the best mixture error (not certified)"


def tex(text: str) -> str:
    """PMW^Pub, GEM^Pub, PEP^Pub and RAP^softmax with proper superscripts in matplotlib text."""
    for name in ("PMW", "GEM", "PEP"):
        text = text.replace(f"{name}^Pub", f"{name}$^{{Pub}}$")
    return text.replace("RAP^softmax", "RAP$^{softmax}$")


def line_color(name: str) -> str:
    """A line's colour: fixed for the known algorithms, else one of a dark palette by name."""
    known = {**BASELINE_COLORS, **PUBLIC_COLORS}
    if name in known:
        return known[name]
    return _OTHER_COLORS[zlib.crc32(name.encode()) % len(_OTHER_COLORS)]


def errorbar(ax, part: pd.DataFrame, label: str, **style) -> None:
    part = part.sort_values("eps")
    style = {"marker": "o", "ms": 3, "capsize": 2, "lw": 1.2, **style}
    ax.errorbar(part["eps"], part["mean"], yerr=part["se"], label=tex(label), **style)


def reference_line(ax, ref: pd.DataFrame, row: str, source: str, label: str,
                   **style) -> float | None:
    """An ε-free line (public only) with its ± 1 SE band; returns its value."""
    part = ref[(ref["row"] == row) & (ref["source"] == source)]
    if part.empty:
        return None
    mean, se = float(part["mean"].iloc[0]), float(part["se"].iloc[0])
    ax.axhline(mean, ls="--", lw=1.0, label=label, **style)
    ax.axhspan(mean - se, mean + se, alpha=0.15, **style)
    return mean


def baselines(ax, fig, row: str) -> None:
    """The row's lines that ignore the public data; DualQuery's entry names the ε at which its
    release has fewer than :data:`FEW_ROUNDS` records."""
    base = fig.chosen[(fig.chosen["row"] == row) & (fig.chosen["source"] == "")]
    for line, part in base.groupby("line"):
        name = line_name(line)
        style = {"ls": "--", "marker": "s"} if "(zCDP)" in name else {}
        errorbar(ax, part, color=line_color(name), label=name + few_rounds_note(fig.runs, line),
                 **style)


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


def best_mixture(ax, fig, row: str, source: str, color: str = "tab:gray",
                 shade: bool = True) -> str:
    """Draw the best mixture error of ``source`` as what it is (module docstring); returns the
    panel-title text of its value ("" when there is none)."""
    ref = fig.mixture_ref
    best = ref[(ref["row"] == row) & (ref["source"] == source)] if not ref.empty else ref
    if best.empty:
        return ""
    r = best.iloc[0]
    value, lower, upper = float(r["mean"]), float(r["lower"]), float(r["upper"])
    if bool(r["exact"]):
        label = EXACT_LABEL if bool(r["same_support"]) or int(r["runs"]) > 1 else RUN0_LABEL
        ax.axhline(value, color=color, lw=0.8)
        if shade:
            ax.axhspan(0, value, color=color, alpha=0.3, label=label)
        return f"best mixture {value:.3g} (exact{'' if label == EXACT_LABEL else ', run 0'})"
    if np.isfinite(lower) and lower > 0:
        if shade:
            ax.axhspan(0, lower, color=color, alpha=0.3, label=FLOOR_LABEL)
        ax.axhspan(lower, upper, facecolor="none", edgecolor=color, hatch="///", lw=0.0,
                   label=INTERVAL_LABEL)
        return f"best mixture in [{lower:.2g}, {upper:.3g}] (certified)"
    ax.axhline(value, color=color, lw=1.0, ls=":", label=ESTIMATE_LABEL)
    return f"best mixture ≤ {value:.3g} (MW estimate)"


#: characters of a panel title's line of reference values before they go on two lines
TITLE_LINE = 56


def draw_panel(ax, fig, row: str, source: str) -> None:
    """Every line that uses ``source``, its public-only line, the row's baselines and the
    source's best mixture error; the title names the source and both reference values."""
    mine = fig.chosen[(fig.chosen["row"] == row) & (fig.chosen["source"] == source)]
    for line, part in mine.groupby("line", sort=False):
        name = line_name(line)
        errorbar(ax, part, color=line_color(name), label=name)
    public = reference_line(ax, fig.public_ref, row, source, "public data alone (± 1 SE)",
                            color="tab:blue")
    baselines(ax, fig, row)
    mixture = best_mixture(ax, fig, row, source)
    parts = [t for t in (f"public alone {public:.3g}" if public is not None else "", mixture) if t]
    values = ("; " if len("; ".join(parts)) <= TITLE_LINE else "\n").join(parts)
    ax.set_title(tex(f"{row}: {source}") + (f"\n{values}" if values else ""), fontsize=7)


#: colours of the public fractions p of Fig. 3 (distinct hues, none pale)
FRACTION_COLORS = ("tab:blue", "tab:red", "tab:green", "tab:purple", "tab:brown", "tab:cyan")


def draw_fractions(ax, fig, row: str) -> None:
    """Fig. 3: PMW^Pub for every fraction p of the row's source, each with its public-only line
    and its best mixture error (dotted, its colour); shaded below the smallest exact one — the
    fractions are subsets of the whole source, so no fraction's reweighting goes below it."""
    mine = fig.chosen[(fig.chosen["row"] == row) & (fig.chosen["source"] != "")]
    sources = sorted(set(mine["source"]), key=source_order)
    for color, source in zip(FRACTION_COLORS, sources):
        p = source.partition(" p=")[2] or "100%"
        errorbar(ax, mine[mine["source"] == source], color=color, label=f"PMW^Pub p={p}")
        reference_line(ax, fig.public_ref, row, source, f"public data alone p={p}",
                       color=color)
        ref = fig.mixture_ref
        best = ref[(ref["row"] == row) & (ref["source"] == source)] if not ref.empty else ref
        if not best.empty:
            ax.axhline(float(best["mean"].iloc[0]), color=color, lw=1.0, ls=":",
                       label=f"best mixture error p={p}"
                             + ("" if bool(best["exact"].iloc[0]) else " (MW estimate)"))
    baselines(ax, fig, row)
    whole = sources[0]
    text = best_mixture(ax, fig, row, whole, color="tab:gray")
    ax.set_title(tex(f"{row}: PMW^Pub by public fraction p") + (
        f"\nshaded: below the whole source's {text}" if text else ""), fontsize=7)


def draw_overview(ax, fig, row: str) -> None:
    """Every source of ``row`` in one panel (Fig. 2's layout) in ordered colours, with the
    baselines as in the other panels."""
    mine = fig.chosen[(fig.chosen["row"] == row) & (fig.chosen["source"] != "")]
    mine = mine[mine["line"].map(line_name) == "PMW^Pub"]
    sources = sorted(set(mine["source"]), key=source_order)
    palette = sns.color_palette("viridis", len(sources) + 1)[:len(sources)]  # no pale end
    for color, source in zip(palette, sources):
        errorbar(ax, mine[mine["source"] == source], color=color,
                 label=f"PMW^Pub ({source})")
    baselines(ax, fig, row)
    ax.set_title(tex(f"{row}: PMW^Pub with every public source"), fontsize=7)


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


def format_axes(ax, eps: list[float], xlabel: str = "ε") -> None:
    """Log axes (errors span 1e-3–1, so a linear y flattens PMW^Pub under the baselines): the y
    range of the panel's own lines with at least three labelled values; every ε of the grid
    labelled, rotated upright so that neighbours never overlap."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    drawn = [y for line in ax.get_lines() for y in np.asarray(line.get_ydata(), float) if y > 0]
    if drawn:
        ax.set_ylim(min(drawn) / 1.5, max(drawn) * 1.5)
    low, high = ax.get_ylim()
    ax.yaxis.set_major_locator(ticker.FixedLocator(y_ticks(low, high)))
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda y, _: f"{y:.3g}"))
    ax.yaxis.set_minor_formatter(ticker.NullFormatter())
    ax.tick_params(axis="y", labelsize=6)
    ax.set_xticks(eps)
    ax.set_xticklabels([f"{e:g}" for e in eps], fontsize=6, rotation=90)
    ax.minorticks_off()
    ax.set_xlabel(xlabel, fontsize=7)
    ax.set_ylabel("max error", fontsize=7)


def y_ticks(low: float, high: float, least: int = 3) -> list[float]:
    """At least ``least`` values in [low, high] on a log axis: 1, 2, 5 of each decade, else every
    digit, else evenly spaced logs rounded to two significant digits."""
    decades = range(int(np.floor(np.log10(low))), int(np.ceil(np.log10(high))) + 1)
    for digits in ((1, 2, 5), tuple(range(1, 10))):
        ticks = [d * 10.0 ** k for k in decades for d in digits if low <= d * 10.0 ** k <= high]
        if len(ticks) >= least:
            return ticks
    return sorted({float(f"{v:.2g}") for v in np.geomspace(low, high, least + 2)[1:-1]})
