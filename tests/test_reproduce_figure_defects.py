"""Release-figure defects a test can see: overlapping tick labels, a legend that does not match
the drawn lines, an upper estimate shaded as unachievable, strip-shaped figures, missing or
look-alike lines, values rounded twice, matched grids without their real ε."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import LineCollection
from matplotlib.colors import to_rgb
from matplotlib.container import ErrorbarContainer
from matplotlib.lines import Line2D

from experiments.release.figures import panels
from experiments.release.figures.paper import ALGO_NAMES, plot_artefact
from experiments.release.stats.summary import build, summary_text

EPS = [0.1, 0.15, 0.2, 0.25, 0.5, 1.0]


def table(sources: list[str], mixture: dict | None = None, zcdp: bool = False,
          matched: bool = False, kind: str = "dataset") -> pd.DataFrame:
    """A collected table of one row: PMW^Pub (T ∈ {10, 50}), public only and best mixture per
    source, DualQuery (and its zCDP variant), 3 runs; ``mixture`` sets the best-mixture trace."""
    rng = np.random.default_rng(1)
    rows = []

    def add(algo, source, eps, T=1, error=0.1, name=None, **extra):
        name = name or ALGO_NAMES[algo]
        for run in range(3):
            rows.append({"algo": algo, "role": "test", "row": "r", "source": source,
                         "line": f"r / {name} [{source}]" if source else f"r / {name}",
                         "eps": eps, "T": T, "run": run, "seed": 0, "public": kind,
                         "public_fraction": 1.0, "config_hash": f"{name}{source}{eps}{T}",
                         "max_error": error * (1 + 0.02 * rng.standard_normal()),
                         "uses_public": bool(source), "n_private": 7634,
                         "eps_equiv": eps if matched else np.nan, **extra})
            if matched:
                rows[-1]["eps"] = eps * 1e5 / 7634
    for i, source in enumerate(sources):
        base = 0.02 * (i + 1)
        for eps, T in itertools.product(EPS, (10, 50)):
            add("pmwpub", source, eps, T, base * (1 + 0.1 * (T == 10)) / (1 + eps))
        add("public_only", source, 1.0, error=base * 1.2, eps_equiv=np.nan)
        trace = mixture or {"trace_lp_value": base / 5, "trace_mw_value": base / 2}
        add("best_mixture", source, 1.0, error=0.0, eps_equiv=np.nan, **trace)
    for eps in EPS:
        add("dualquery", "", eps, error=0.5 / (1 + eps), opt_eta=4.0, opt_samples=10,
            trace_rounds=40)
        if zcdp:
            add("dualquery", "", eps, error=0.3 / (1 + eps), opt_eta=4.0, opt_samples=10,
                trace_rounds=40, name="DualQuery (zCDP)")
    return pd.DataFrame(rows)


def draw(frame: pd.DataFrame):
    figure = plot_artefact(build(frame, "paper"), "test")
    figure.canvas.draw()
    return figure


def legend(figure):
    legends = list(figure.legends) + [ax.get_legend() for ax in figure.axes
                                      if ax.get_legend() is not None]
    assert len(legends) == 1, "one legend for the whole figure"
    return legends[0]


def colour(artist) -> tuple:
    """The RGB of a drawn curve, reference line or area, or of its legend proxy (a legend
    draws an error-bar curve as a line collection)."""
    artist = artist.lines[0] if isinstance(artist, ErrorbarContainer) else artist
    if isinstance(artist, Line2D):
        value = artist.get_color()
    elif isinstance(artist, LineCollection):
        value = artist.get_color()[0]
    else:
        value = artist.get_facecolor()
    return tuple(np.round(to_rgb(value), 3))


def test_tick_labels_never_overlap_in_a_single_row_figure():
    figure = draw(table([f"public model, shift {s}" for s in (0, 0.1, 0.3, 0.6)]))
    renderer = figure.canvas.get_renderer()
    for ax in (a for a in figure.axes if a.get_visible() and a.axison):
        for labels in (ax.get_xticklabels(), ax.get_yticklabels()):
            boxes = [t.get_window_extent(renderer) for t in labels if t.get_text()]
            assert not any(a.overlaps(b) for a, b in itertools.combinations(boxes, 2))
        shown = [t for t in ax.get_yticklabels() if t.get_text()]
        assert len(shown) >= 3


def test_single_row_figure_is_not_a_strip_and_its_spare_slot_holds_the_legend():
    figure = draw(table([f"public model, shift {s}" for s in (0, 0.1, 0.3, 0.6)]))
    width, height = figure.get_size_inches()
    assert width / height <= 2.5
    hidden = [ax for ax in figure.axes if not ax.get_visible()]
    holder = [ax for ax in figure.axes if ax.get_visible() and not ax.axison]
    assert not hidden and len(holder) == 1 and holder[0].get_legend() is not None


def test_legend_lists_every_drawn_line_once_in_its_drawn_colour():
    figure = draw(table(["MA-2018", "TX-2019"], zcdp=True))
    drawn: dict[str, set] = {}
    for ax in (a for a in figure.axes if a.axison):
        for handle, label in zip(*ax.get_legend_handles_labels()):
            drawn.setdefault(label, set()).add(colour(handle))
    box = legend(figure)
    texts = [t.get_text() for t in box.get_texts()]
    assert sorted(texts) == sorted(drawn) and len(set(texts)) == len(texts)
    for text, handle in zip(texts, box.legend_handles):
        assert drawn[text] == {colour(handle)}, text


@pytest.mark.parametrize("trace, label, absent", [
    ({"trace_lp_value": 0.004, "trace_mw_value": 0.01}, panels.EXACT_LABEL,
     panels.ESTIMATE_LABEL),
    ({"trace_lp_value": np.nan, "trace_mw_value": 0.01, "trace_floor": 0.002},
     panels.FLOOR_LABEL, panels.EXACT_LABEL),
    ({"trace_lp_value": np.nan, "trace_mw_value": 0.01}, panels.ESTIMATE_LABEL, "unachievable")])
def test_shading_says_unachievable_only_for_a_certified_value(trace, label, absent):
    figure = draw(table(["MA-2018"], mixture=trace))
    texts = [t.get_text() for t in legend(figure).get_texts()]
    assert label in texts
    assert not any(absent in t for t in texts)
    if label == panels.FLOOR_LABEL:
        assert panels.INTERVAL_LABEL in texts


def test_run0_value_of_a_resampled_source_is_labelled_as_run_0s():
    frame = table(["Δ=0"], kind="biased")
    once = frame[~((frame["algo"] == "best_mixture") & (frame["run"] > 0))]
    texts = [t.get_text() for t in legend(draw(once)).get_texts()]
    assert panels.RUN0_LABEL in texts and panels.EXACT_LABEL not in texts
    texts = [t.get_text() for t in legend(draw(frame)).get_texts()]   # solved on every run
    assert panels.EXACT_LABEL in texts


def test_fraction_panel_draws_both_dualquery_lines_and_tells_fractions_apart():
    frame = table(["MA-2018", "MA-2018 p=10.0%", "MA-2018 p=1.0%", "MA-2018 p=0.1%"],
                  zcdp=True)
    figure = draw(frame)
    texts = [t.get_text() for t in legend(figure).get_texts()]
    assert "DualQuery (zCDP)" in texts
    assert sum(t.startswith("best mixture error p=") for t in texts) == 4
    box = legend(figure)
    colours = [colour(h) for t, h in zip(texts, box.legend_handles) if t.startswith("PMW")]
    assert len(colours) == 4
    for a, b in itertools.combinations(colours, 2):
        assert np.abs(np.subtract(a, b)).sum() > 0.3, (a, b)


def test_overview_lines_are_never_pale():
    figure = draw(table([f"Δ={d:+g}" if d else "Δ=0" for d in (-0.2, -0.05, 0, 0.05, 0.65)],
                        kind="biased"))
    overview = next(ax for ax in figure.axes if "every public source" in ax.get_title())
    for handle, label in zip(*overview.get_legend_handles_labels()):
        if label.startswith("PMW"):
            r, g, b = colour(handle)
            assert 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.85, label


def test_title_and_summary_round_a_value_once():
    frame = table(["MA-2018"], mixture={"trace_lp_value": 0.001048, "trace_mw_value": 0.01})
    fig = build(frame, "paper")
    figure = plot_artefact(fig, "test")
    title = next(ax.get_title() for ax in figure.axes if "MA-2018" in ax.get_title())
    assert "0.00105" in title
    assert "| 0.00105 |" in summary_text(fig)


def test_matched_grid_axis_is_the_paper_equivalent_eps_and_the_caption_says_the_real_one():
    figure = draw(table(["MA-2018"], matched=True))
    axes = [ax for ax in figure.axes if ax.axison]
    assert all(ax.get_xlabel() == "paper-equivalent ε" for ax in axes)
    assert [float(t.get_text()) for t in axes[0].get_xticklabels()] == EPS
    assert "1.31–13.1 (n = 7,634)" in figure._suptitle.get_text()


def test_best_mixture_trace_brackets_the_value_between_its_floor_and_the_estimate():
    from pubpriv_core.harness import ReleaseProblem, run_algorithm
    from pubpriv_core.data.domain import Dataset, Domain
    from pubpriv_core.queries import MarginalWorkload

    domain = Domain(list("abcde"), [3, 4, 2, 5, 3])
    rng = np.random.default_rng(0)
    private = Dataset(np.column_stack([rng.integers(0, s, 800) for s in domain.shape]), domain)
    public = np.column_stack([rng.integers(0, s, 60) for s in domain.shape])
    support, counts = np.unique(public, axis=0, return_counts=True)
    problem = ReleaseProblem(private, MarginalWorkload.random(domain, 3, 6, 0), support,
                             counts / counts.sum(), 60)
    trace = run_algorithm("best_mixture", problem, eps=1.0, delta=1e-6, T=1,
                          rng=np.random.default_rng(0)).trace
    assert 0 < trace["mixture_lower"] <= trace["lp_value"] + 1e-9 <= trace["mw_value"] + 2e-9
    assert trace["mixture_certified"]
