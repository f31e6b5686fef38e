"""Release figures a reader can use: every ε labelled without overlap, y values readable in every
panel, degenerate DualQuery said in the legend, summary cells without meaningless T."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import matplotlib.pyplot as plt

from experiments.release.figures import paper as figures
from experiments.release.figures import panels
from experiments.release.figures.paper import ALGO_NAMES, plot_artefact
from experiments.release.figures.panels import few_rounds_note
from experiments.release.stats.paired import grid_edges
from experiments.release.stats.summary import build, hyper_text, selected_table, summary_text
from experiments.release.stats.tuning import select

EPS = [0.1, 0.15, 0.2, 0.25, 0.5, 1.0]


def collected(dq_rounds: int = 3, jam: bool = False) -> pd.DataFrame:
    """A collected table of one figure row: PMW^Pub with two sources whose errors span less than
    a decade, public only and best mixture per source, DualQuery (``dq_rounds`` rounds at the
    lowest ε, 40 elsewhere) and AIM, 3 runs each; with ``jam``, JAM-PGM on each source too."""
    rng = np.random.default_rng(0)
    rows = []

    def add(algo, source, eps, T=1, error=0.1, **extra):
        for run in range(3):
            name = ALGO_NAMES[algo]
            line = f"r / {name} [{source}]" if source else f"r / {name}"
            rows.append({"algo": algo, "role": "test", "row": "r", "source": source,
                         "line": line, "eps": eps, "T": T, "run": run, "seed": 0,
                         "config_hash": f"{algo}{source}{eps}{T}{extra}",
                         "max_error": error * (1 + 0.01 * rng.standard_normal()),
                         "uses_public": bool(source), **extra})

    for source, base in (("MA-2018", 0.04), ("TX-2019", 0.3)):
        for eps, T in itertools.product(EPS, (10, 25, 50)):
            add("pmwpub", source, eps, T, base * (1 + 0.1 * (T == 25)) / (1 + eps))
        add("public_only", source, 1.0, error=base)
        for eps in EPS if jam else ():
            add("jam_pgm", source, eps, error=base / 2 / (1 + eps))
        add("best_mixture", source, 1.0, error=0.0, trace_lp_value=base / 4,
            trace_mw_value=base / 2)
    for eps in EPS:
        add("dualquery", "", eps, error=0.9 / (1 + eps), opt_eta=2.0, opt_samples=10,
            trace_rounds=dq_rounds if eps == EPS[0] else 40)
        add("aim", "", eps, error=0.05 / (1 + eps))
    return pd.DataFrame(rows)


def drawn(table: pd.DataFrame):
    figure = plot_artefact(build(table, "paper"), "test")
    figure.canvas.draw()
    return figure, [ax for ax in figure.axes if ax.get_visible()]


def narrow_panel(low: float, high: float):
    """A 1.5-inch wide panel (as in a three-column figure with legends outside) with one line
    from ``low`` to ``high``, formatted by the figures' axes rule."""
    figure, ax = plt.subplots(figsize=(3.0, 2.4))
    ax.plot(EPS, np.geomspace(high, low, len(EPS)), label="a line")
    figure.subplots_adjust(left=0.25, right=0.75)
    panels.format_axes(ax, EPS)
    figure.canvas.draw()
    return figure, ax


def test_every_eps_is_labelled_and_no_two_labels_overlap():
    figure, ax = narrow_panel(0.01, 0.5)
    renderer = figure.canvas.get_renderer()
    labels = [t for t in ax.get_xticklabels() if t.get_text()]
    assert [float(t.get_text()) for t in labels] == EPS
    boxes = [t.get_window_extent(renderer) for t in labels]
    assert not any(a.overlaps(b) for a, b in itertools.combinations(boxes, 2))


@pytest.mark.parametrize("low, high", [(0.3, 0.5), (0.002, 0.9), (0.0125, 0.0135)])
def test_every_panel_has_readable_y_values(low, high):
    _, ax = narrow_panel(low, high)
    bottom, top = ax.get_ylim()
    shown = [t for t in ax.get_yticklabels() if t.get_text()
             and bottom <= t.get_position()[1] <= top]
    assert len(shown) >= 3
    assert bottom <= low and high <= top


def test_release_figure_panels_label_every_eps():
    _, axes = drawn(collected())
    for ax in axes:
        assert [float(t.get_text()) for t in ax.get_xticklabels() if t.get_text()] == EPS


def test_each_public_line_of_a_panel_is_its_own_labelled_curve():
    _, axes = drawn(collected(jam=True))
    for ax in axes:
        curves = dict(zip(ax.get_legend_handles_labels()[1], ax.get_legend_handles_labels()[0]))
        for name in ("PMW$^{Pub}$", "JAM-PGM"):
            x = curves[name].lines[0].get_xdata()
            assert list(x) == EPS                          # one point per ε, not two lines in one


def legend_texts(figure) -> list[str]:
    """The texts of the figure's one legend (below the panels or in an empty slot)."""
    legends = list(figure.legends) + [ax.get_legend() for ax in figure.axes
                                      if ax.get_legend() is not None]
    assert len(legends) == 1
    return [t.get_text() for t in legends[0].get_texts()]


def test_degenerate_dualquery_is_said_in_the_legend():
    figure, _ = drawn(collected(dq_rounds=3))
    assert legend_texts(figure).count("DualQuery (< 20 rounds at ε ≤ 0.1)") == 1
    figure, _ = drawn(collected(dq_rounds=25))
    assert not any("rounds" in t for t in legend_texts(figure))


def test_few_rounds_note_lists_eps_that_are_not_the_lowest():
    runs = collected()
    dq = runs["algo"] == "dualquery"
    runs.loc[dq, "trace_rounds"] = np.where(runs.loc[dq, "eps"] == 0.5, 5, 40)
    assert few_rounds_note(runs, "r / DualQuery") == " (< 20 rounds at ε = 0.5)"


def test_summary_cells_name_only_tuned_parameters():
    assert hyper_text(pd.Series({"algo": "aim", "T": 1})) == ""
    assert hyper_text(pd.Series({"algo": "pmwpub", "T": 25})) == "T=25"
    text = summary_text(build(collected(), "paper"))
    aim = next(line for line in text.splitlines() if line.startswith("| r / AIM |"))
    cells = aim.split(" | ")[1:-1]           # the ε columns, without the tuning label
    assert len(cells) == len(EPS) and not any("(" in c for c in cells)


def test_grid_edges_give_the_best_interior_setting_and_its_gap():
    table = collected()
    test = table[table["algo"] == "pmwpub"]
    edges = grid_edges(test, select(test, "best_average"))
    # T = 25 is 10% worse than T = 10 and 50 (equal up to noise): a flat edge, gap ≈ +10%
    row = edges[(edges["line"] == "r / PMW^Pub [MA-2018]") & (edges["eps"] == 1.0)].iloc[0]
    assert row["interior"] == 25
    assert row["gap"] == pytest.approx(0.1 * row["interior_mean"] / 1.1, rel=0.2)


def test_selected_csv_labels_the_mw_estimate_where_the_lp_did_not_certify():
    table = collected()
    table.loc[(table["algo"] == "best_mixture") & (table["source"] == "TX-2019"),
              "trace_lp_value"] = np.nan
    refs = selected_table(build(table, "paper")).query("algo == 'best_mixture'").set_index(
        "source")
    assert refs.loc["MA-2018", "tuning"] == "ε-free (exact LP)"
    assert refs.loc["MA-2018", "mean"] == pytest.approx(0.01)
    assert refs.loc["TX-2019", "tuning"].startswith("ε-free (MW-100 estimate")
    assert refs.loc["TX-2019", "mean"] == pytest.approx(0.15)
    assert set(refs["mw_estimate"].round(6)) == {0.02, 0.15}


def test_runs_label_says_when_a_cut_grid_has_fewer_runs_at_some_points():
    rows = [("aim", "a", r) for r in range(5)] + [("jam_pgm", "b", r) for r in range(3)]
    test = pd.DataFrame(rows + [("best_mixture", "c", 0)], columns=["algo", "config_hash", "run"])
    assert figures.runs_label(test) == "3–5 runs per point"
    assert figures.runs_label(test[test["algo"] != "jam_pgm"]) == "5 runs"


def test_runs_label_counts_runs_in_words():
    """The caption reads "over 1 run" for a --quick figure, "over 5 runs" for a full one."""
    def table(runs_per_config):
        rows = [{"algo": "pmwpub", "config_hash": f"h{i}", "run": r}
                for i, runs in enumerate(runs_per_config) for r in range(runs)]
        return pd.DataFrame(rows + [{"algo": "best_mixture", "config_hash": "m", "run": 0}])
    assert figures.runs_label(table([1, 1])) == "1 run"
    assert figures.runs_label(table([5, 5])) == "5 runs"
    assert figures.runs_label(table([3, 5])) == "3–5 runs per point"


def test_a_summary_without_dualquery_runs_has_no_degenerate_section():
    runs = collected()
    runs = runs[runs["algo"] != "dualquery"].drop(columns="trace_rounds", errors="ignore")
    text = summary_text(build(runs, "paper"))
    assert "Degenerate DualQuery releases" not in text
