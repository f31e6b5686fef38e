"""Print, list and draw the registered bounds of :mod:`pubpriv_core.bounds` (the command line is
``scripts/bounds.py``). Parameters are name=value pairs from the vocabulary (d, p, alpha, beta,
eps, delta, rho, m, n, n_pub, n_priv, X_size, H_size, Q_size, T, D2, Dinf) plus c, the constant of
O(·) shapes (default 1). Values may be ints, floats, or a**b for exact powers. In the figures,
solid lines have the paper's explicit constants, dashed lines are O(·) shapes drawn with c = 1,
and dotted grey lines mark regimes.
"""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from pubpriv_core.bounds import evaluate, get_bound, list_bounds  # noqa: E402
from pubpriv_core.bounds.curves import PAPERS  # noqa: E402


class BoundInputError(ValueError):
    """A bound id, parameter or value the command line cannot use (exit status 2)."""


def parse_value(text: str):
    """'8' → 8, '1e-5' → 1e-05, '2**40' → 2**40 (exact int)."""
    if "**" in text:
        base, power = text.split("**", 1)
        return int(base) ** int(power)
    try:
        return int(text)
    except ValueError:
        return float(text)


def parse_params(pairs: list[str]) -> dict:
    params = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise BoundInputError(f"bad parameter {pair!r}; write name=value, e.g. alpha=0.1")
        try:
            params[name] = parse_value(value)
        except ValueError:
            raise BoundInputError(f"bad value in {pair!r}; use a number, e.g. {name}=0.1") \
                from None
    return params


def print_value(bound_id: str, pairs: list[str]) -> None:
    """Evaluate one bound at the ``name=value`` pairs and print its value and details."""
    try:
        r = evaluate(bound_id, **parse_params(pairs))
    except BoundInputError:
        raise
    except (KeyError, TypeError, ValueError, ArithmeticError) as err:
        raise BoundInputError(str(err.args[0])) from None
    kind = "explicit constants" if r.explicit else "O(·) shape, constant c"
    print(f"{r.id} = {r.value:.6g}   [{kind}; variant: {r.variant}]")
    print("  statement: " + " ".join(get_bound(bound_id).statement.split()))
    print("  params: " + ", ".join(f"{k}={v}" for k, v in r.params.items()))
    for key, value in r.details.items():
        print(f"  {key}: {value:.6g}" if isinstance(value, float) else f"  {key}: {value}")


def print_list(paper: str | None = None) -> None:
    """One line per registered bound (of ``paper``, or all): id, kind, variant, parameters."""
    for b in list_bounds(paper):
        flag = "explicit" if b.explicit else "shape   "
        print(f"{b.id:40s} {flag} {b.variant:9s} ({b.signature()})")


def print_statement(bound_id: str) -> None:
    """The full statement (docstring) of one bound."""
    try:
        b = get_bound(bound_id)
    except KeyError as err:
        raise BoundInputError(str(err.args[0])) from None
    print(f"{b.id}({b.signature()})  explicit={b.explicit} variant={b.variant}\n")
    print(b.statement)


def draw_panel(ax, panel) -> None:
    for i, (curve, rows) in enumerate(panel.curves.groupby("curve", sort=False)):
        style = "-" if rows.explicit.iloc[0] else "--"
        ax.plot(rows.x, rows.y, style, color=f"C{i % 10}", lw=1.8, label=curve)
    for x, label in panel.vlines:
        ax.axvline(x, color="0.45", ls=":", lw=1.3, label=label)
    for y, label in panel.hlines:
        ax.axhline(y, color="0.45", ls=":", lw=1.3, label=label)
    ax.set_xscale("log" if panel.xlog else "linear")
    ax.set_yscale("log" if panel.ylog else "linear")
    if panel.ylim:
        ax.set_ylim(*panel.ylim)
    ax.set_title(panel.title, fontsize=9.5)
    ax.set_xlabel(panel.xlabel)
    ax.set_ylabel(panel.ylabel)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7, loc="best", framealpha=0.85)


def plot_paper(paper: str, out: Path) -> list[Path]:
    panels = PAPERS[paper]()
    cols = 2 if len(panels) == 4 else len(panels)
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6.2 * cols, 4.8 * rows), squeeze=False)
    for ax, panel in zip(axes.flat, panels):
        draw_panel(ax, panel)
    fig.suptitle(f"{paper}: bounds from pubpriv_core.bounds (solid = explicit constants, "
                 "dashed = O(·) shape with c = 1)", fontsize=11)
    fig.tight_layout()
    png, csv = out / f"{paper}.png", out / f"{paper}.csv"
    fig.savefig(png, dpi=110)
    plt.close(fig)
    pd.concat([p.table() for p in panels], ignore_index=True).to_csv(csv, index=False)
    return [png, csv]


def plot_papers(out: str | Path, papers: list[str] | None = None) -> None:
    """One PNG and CSV per paper (default: all) under ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for paper in papers or list(PAPERS):
        if paper not in PAPERS:
            raise SystemExit(f"unknown paper {paper!r}; choose from {', '.join(PAPERS)}")
        for path in plot_paper(paper, out):
            print(f"wrote {path}")
