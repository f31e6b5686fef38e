"""Plot an error metric against ε from a collected CSV (:mod:`experiments.release.running.collect`).

One line per configuration other than ε — algorithm, public source and every other setting that
varies in the (filtered) table — with the mean over runs and a band of ± one standard error
(sample std / sqrt(runs)), on a log x-axis with every ε of the table labelled (the layout of Liu
et al. 2021, Figs. 1–3). The legend sits right of the axes, off the curves, and names only the
settings that differ between lines (the dataset on every line once several are mixed; otherwise
it is in the title); settings that are irrelevant to an algorithm (the public source of MWEM and
DualQuery) are dropped, and such an algorithm is drawn once.
"""
from __future__ import annotations

import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402,F401
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from pubpriv_core.privacy.ledger import NOT_VERIFIED  # noqa: E402

#: columns that define a configuration (besides ε); prefixed option columns are added.
#: ``privacy`` sets apart (and labels) runs that read the private data outside the mechanisms
CONFIG_COLUMNS = ["algo", "dataset", "public", "delta_bias", "public_fraction", "T", "k",
                  "workload_size", "workload_seed", "privacy"]
NOT_VERIFIED_LABEL = "privacy not verified"
_OPTION_PREFIXES = ("opt_", "dataset_", "public_")
_PUBLIC_COLUMNS = ("public", "delta_bias", "public_fraction")


def line_columns(table: pd.DataFrame) -> list[str]:
    """Configuration columns (other than ε) that take more than one value in ``table``."""
    candidates = dict.fromkeys(CONFIG_COLUMNS + sorted(c for c in table.columns
                                                       if c.startswith(_OPTION_PREFIXES)))
    return [c for c in candidates if c in table.columns
            and table[c].astype(str).nunique(dropna=False) > 1]


def line_keys(table: pd.DataFrame) -> list[str]:
    """The columns that name a line: the algorithm always (a legend entry starts with it) and
    whether its privacy was verified (a line of unverified runs says so), then every other
    configuration column that varies."""
    head = [c for c in ("algo", "privacy") if c in table.columns]
    return head + [c for c in line_columns(table) if c not in head]


def natural_key(values: tuple) -> tuple:
    """Sort key of a line's settings: numbers by value (Δ = −0.2 before −0.05 before 0), the
    rest as text, so legend entries follow the settings' order."""
    out = []
    for value in values:
        try:
            out.append((0, float(value), ""))
        except (TypeError, ValueError):
            out.append((1, 0.0, str(value)))
    return tuple(out)


def ignore_unused_public(table: pd.DataFrame) -> pd.DataFrame:
    """Rows of algorithms that ignore the public source (``uses_public`` false: MWEM,
    DualQuery) lose their public settings and are drawn once per (config, seed, run): the first
    such row is kept, so a sweep over public sources does not multiply their lines or runs."""
    if "uses_public" not in table.columns:
        return table
    unused = ~table["uses_public"].astype(bool)
    public_cols = [c for c in table.columns if c.startswith(_PUBLIC_COLUMNS)]
    table = table.astype({c: str for c in public_cols})
    table.loc[unused, public_cols] = "-"
    keys = [c for c in line_columns(table) if c != "eps"] + ["eps", "seed", "run"]
    keys = [c for c in dict.fromkeys(keys) if c in table.columns]
    blank = table.loc[unused].astype({c: str for c in keys}).duplicated(subset=keys)
    return table.drop(index=blank[blank].index)


def summarise(table: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Mean, standard error and run count of ``metric`` per (line, ε)."""
    table = ignore_unused_public(table)
    keys = line_keys(table)
    frame = table.assign(**{c: table[c].astype(str) for c in keys})
    grouped = frame.groupby(keys + ["eps"], dropna=False)[metric]
    out = grouped.agg(mean="mean", std="std", runs="count").reset_index()
    out["se"] = (out["std"] / np.sqrt(out["runs"])).fillna(0.0)
    return out


def varying_within_algo(summary: pd.DataFrame, keys: list[str]) -> dict[str, set]:
    """For each key, the algorithms among whose lines it takes more than one value; the dataset
    is named on every line once several are mixed."""
    if "algo" not in keys:
        return {k: {None} for k in keys}
    algos = set(summary["algo"])
    return {k: algos if k == "dataset" else
            {a for a, part in summary.groupby("algo") if part[k].nunique() > 1}
            for k in keys if k != "algo"}


def label(row: pd.Series, varying: dict[str, set], uses_public: dict[str, bool]) -> str:
    """The algorithm, then the settings that tell its lines apart (public ones only if used)."""
    algo = row.get("algo")
    parts = [f"{key}={row[key]}" for key, algos in varying.items()
             if (algo if "algo" in row else None) in algos and row[key] != "nan"
             and key != "privacy"
             and not (key.startswith(_PUBLIC_COLUMNS) and not uses_public.get(algo, True))]
    head = str(algo) if algo is not None else "all runs"
    if row.get("privacy") == NOT_VERIFIED:
        parts.append(NOT_VERIFIED_LABEL)
    return f"{head} ({', '.join(parts)})" if parts else head


def plot(table: pd.DataFrame, metric: str, title: str | None = None):
    """The figure: one line (mean ± SE over runs) per configuration, log x-axis."""
    if metric not in table.columns or not pd.api.types.is_numeric_dtype(table[metric]):
        raise ValueError(f"no numeric column {metric!r} in the table; choose one of "
                         f"max_error, mean_error, rmse, last_max_error")
    summary = summarise(table, metric)
    keys = [c for c in summary.columns if c not in ("eps", "mean", "std", "runs", "se")]
    uses_public = (table.groupby("algo")["uses_public"].first().astype(bool).to_dict()
                   if "uses_public" in table.columns else {})
    varying = varying_within_algo(summary, keys)
    fig, ax = plt.subplots(figsize=(7.6, 4.2))
    lines = summary.groupby(keys, dropna=False, sort=False) if keys else [((), summary)]
    lines = sorted(lines, key=lambda item: natural_key(
        item[0] if isinstance(item[0], tuple) else (item[0],)))
    for _, part in lines:
        part = part.sort_values("eps")
        text = label(part.iloc[0], varying, uses_public) if keys else str(table["algo"].iloc[0])
        ax.plot(part["eps"], part["mean"], marker="o", ms=3, label=text)
        ax.fill_between(part["eps"], part["mean"] - part["se"], part["mean"] + part["se"],
                        alpha=0.2)
    label_every_eps(ax, summary["eps"])
    ax.set_xlabel("ε")
    ax.set_ylabel(metric.replace("_", " "))
    datasets = table["dataset"].unique() if "dataset" in table.columns else []
    where = f" on {datasets[0]}" if len(datasets) == 1 else ""
    ax.set_title(title or f"{metric.replace('_', ' ')} vs ε{where} (mean ± 1 SE over runs)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    fig.tight_layout()
    return fig


def label_every_eps(ax, eps: pd.Series) -> None:
    """Log x-axis with one labelled tick per ε of the table (and no other tick labels)."""
    values = sorted(set(eps.astype(float)))
    ax.set_xscale("log")
    ax.set_xticks(values)
    ax.set_xticklabels([f"{v:g}" for v in values], fontsize=8)
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def apply_filters(table: pd.DataFrame, where: list[str]) -> pd.DataFrame:
    """Keep rows where every ``column=value`` holds (compared as strings)."""
    for condition in where:
        column, sep, value = condition.partition("=")
        if not sep or column not in table.columns:
            raise ValueError(f"bad filter {condition!r}; use column=value with a column of "
                             "the CSV, e.g. T=100")
        table = table[table[column].astype(str) == value]
    if table.empty:
        raise ValueError(f"no rows left after filters {where}; check the values in the CSV")
    return table


def plot_csv(csv: str, output: str, metric: str = "max_error", where: list[str] | None = None,
             title: str | None = None) -> int:
    """Draw ``metric`` of the collected CSV ``csv`` (rows filtered by ``where``) into the image
    ``output``; returns the exit status (2: bad input, one ``error:`` line)."""
    try:
        table = apply_filters(pd.read_csv(csv), where or [])
        fig = plot(table, metric, title)
    except ValueError as err:
        print(f"error: {' '.join(str(err).split())}", file=sys.stderr)
        return 2
    except OSError as err:                 # missing, a folder, unreadable
        print(f"error: cannot read {csv}: {err.strerror or err}; pass a CSV written by "
              "scripts/collect.py", file=sys.stderr)
        return 2
    try:
        fig.savefig(output, dpi=150, bbox_inches="tight")   # keeps the outside legend
    except OSError as err:
        print(f"error: cannot write {output}: {err.strerror or err}; free space or pick "
              "another -o", file=sys.stderr)
        return 1
    finally:
        plt.close(fig)
    print(f"wrote {output}")
    return 0
