"""Checks a reader would make of a figure, computed from the drawn artists (renderer boxes).

Each returns a list of human-readable problems (empty when the figure is fine), so a failing test
says what is wrong: legend entries that draw nothing visible, legends over data, overlapping tick
labels, negative ticks on a count axis, carets outside mathtext.
"""
from __future__ import annotations

import re

import numpy as np
from matplotlib.colors import to_rgba
from matplotlib.container import Container
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Text

from experiments.theory.plotting import KEY_COLOR, legend_overlap


def _renderer(fig):
    fig.canvas.draw()
    return fig.canvas.get_renderer()


def _visible_points(ax, line: Line2D) -> int:
    xy = line.get_transform().transform(np.asarray(line.get_xydata(), float))
    box = ax.bbox
    ok = (np.isfinite(xy).all(axis=1) & (xy[:, 0] >= box.x0 - 1) & (xy[:, 0] <= box.x1 + 1)
          & (xy[:, 1] >= box.y0 - 1) & (xy[:, 1] <= box.y1 + 1))
    return int(ok.sum())


def _shows_something(ax, handle) -> bool:
    if isinstance(handle, Container):
        return any(_shows_something(ax, h) for h in handle.get_children())
    if not isinstance(handle, Line2D):
        return handle.get_visible()
    if not handle.get_visible():
        return False
    n = _visible_points(ax, handle)
    line = handle.get_linestyle() not in ("None", "", " ", "none") and n >= 2
    marker = handle.get_marker() not in ("None", "", " ", "none", None) and n >= 1
    return line or marker


def _drawn_lines(ax) -> list[Line2D]:
    lines = [ln for ln in ax.lines if _shows_something(ax, ln)]
    for container in ax.containers:
        lines += [h for h in container.get_children() if isinstance(h, Line2D) and _shows_something(ax, h)]
    return lines


def _same_style(proxy: Line2D, line: Line2D) -> bool:
    """Same line style, marker and marker fill; same colour unless the proxy is in KEY_COLOR
    (an entry for a style drawn in several colours)."""
    hollow = [str(h.get_markerfacecolor()).lower() == "none" for h in (proxy, line)]
    if (proxy.get_linestyle(), proxy.get_marker(), hollow[0]) != (line.get_linestyle(), line.get_marker(), hollow[1]):
        return False
    return to_rgba(proxy.get_color()) == to_rgba(KEY_COLOR) or to_rgba(proxy.get_color()) == to_rgba(line.get_color())


def _entry_drawn(ax, proxy) -> bool:
    lines = _drawn_lines(ax)
    if isinstance(proxy, Patch):      # a colour key: some drawn line has that colour
        return any(to_rgba(ln.get_color()) == to_rgba(proxy.get_facecolor()) for ln in lines)
    if isinstance(proxy, Line2D):
        return any(_same_style(proxy, ln) for ln in lines)
    return True


def undrawn_legend_entries(fig) -> list[str]:
    """Legend entries that match nothing visible in their axes: a one-point line without marker,
    a curve outside the view, a style or colour key no drawn line has."""
    _renderer(fig)
    problems = []
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is not None:
            problems += [f"'{text.get_text()}' draws nothing visible"
                         for proxy, text in zip(legend.legend_handles, legend.get_texts())
                         if not _entry_drawn(ax, proxy)]
    return problems


def legends_over_data(fig) -> list[str]:
    """Axes whose legend box covers drawn points, segments, markers or texts."""
    _renderer(fig)
    return [f"legend of '{ax.get_title()}' covers {n} drawn points"
            for ax in fig.axes if (n := legend_overlap(ax))]


def _tick_labels(axis, renderer):
    lo, hi = sorted(axis.get_view_interval())
    span = abs(hi - lo) * 1e-9
    ticks = axis.get_major_ticks() + axis.get_minor_ticks()
    return [(t.get_loc(), t.label1.get_window_extent(renderer), t.label1.get_text()) for t in ticks
            if t.label1.get_visible() and t.label1.get_text() and lo - span <= t.get_loc() <= hi + span]


def overlapping_tick_labels(fig) -> list[str]:
    """Pairs of visible tick labels of one axis whose boxes intersect."""
    renderer = _renderer(fig)
    problems = []
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            labels = _tick_labels(axis, renderer)
            for i, (_, a, ta) in enumerate(labels):
                for _, b, tb in labels[i + 1:]:
                    if a.overlaps(b):
                        problems.append(f"'{ax.get_title()}': tick labels {ta!r} and {tb!r} overlap")
    return problems


def negative_ticks(ax, axis: str = "y") -> list[str]:
    """Labelled ticks below 0 on a count axis (``axis`` 'x' or 'y')."""
    renderer = _renderer(ax.figure)
    ticks = _tick_labels(ax.yaxis if axis == "y" else ax.xaxis, renderer)
    return [f"'{ax.get_title()}': {axis} tick {text!r} at {loc:g} < 0" for loc, _, text in ticks if loc < 0]


def literal_carets(fig) -> list[str]:
    """Texts with '^' outside $…$: meant as a superscript, printed as a caret."""
    out = []
    for text in fig.findobj(Text):
        plain = re.sub(r"(?<!\\)\$.*?(?<!\\)\$", "", text.get_text())
        if "^" in plain:
            out.append(text.get_text())
    return out
