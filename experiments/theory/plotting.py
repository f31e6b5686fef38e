"""Legend placement for the theory and bound figures: a legend goes where it covers no drawn data.

:func:`place_legends` is called on a laid-out figure (``save_figure`` and the bound figures). For
each axes with a legend it tries the corners and edges of the axes in turn and keeps the first
position whose box contains no drawn point, segment, marker or text of that axes; when every
position covers data the legend moves outside, under the x axis. :func:`legend_overlap`
counts the covered points, so tests can check a saved figure the same way.
"""
from __future__ import annotations

import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.lines import Line2D

KEY_COLOR = "0.3"      # a legend entry in this colour stands for a line style in any colour
INSIDE = ("upper right", "upper left", "lower left", "lower right", "center left", "center right",
          "lower center", "upper center", "center")
STEPS = 24            # points per drawn segment (display space: straight there on any scale)


def _segments(xy: np.ndarray) -> np.ndarray:
    """Points along the polyline ``xy`` (display coordinates), ``STEPS`` per segment."""
    xy = xy[np.isfinite(xy).all(axis=1)]
    if len(xy) < 2:
        return xy
    t = np.linspace(0.0, 1.0, STEPS, endpoint=False)[None, :, None]
    inner = xy[:-1, None, :] + t * (xy[1:, None, :] - xy[:-1, None, :])
    return np.concatenate([inner.reshape(-1, 2), xy[-1:]])


def _line_points(line: Line2D) -> tuple[np.ndarray, float]:
    """(display points of a drawn line, half its marker size in pixels)."""
    xy = line.get_transform().transform(np.asarray(line.get_xydata(), float))
    drawn = line.get_linestyle() not in ("None", "", " ", "none")
    pts = _segments(xy) if drawn else xy[np.isfinite(xy).all(axis=1)]
    has_marker = line.get_marker() not in ("None", "", " ", "none", None)
    dpi = line.figure.dpi if line.figure else 100.0
    return pts, (line.get_markersize() * dpi / 72.0 / 2.0 if has_marker else 0.0)


def data_points(ax) -> list[tuple[np.ndarray, float]]:
    """Every drawn line, line collection (error bars, caps) and text of ``ax`` as (display points,
    padding in pixels), restricted to the axes box."""
    box = ax.bbox
    out = []
    for line in ax.lines:
        if line.get_visible():
            out.append(_line_points(line))
    for coll in ax.collections:
        if isinstance(coll, LineCollection) and coll.get_visible():
            trans = coll.get_transform()
            for seg in coll.get_segments():
                out.append((_segments(trans.transform(np.asarray(seg, float))), 1.0))
    renderer = ax.figure.canvas.get_renderer()
    for text in ax.texts:
        if text.get_visible() and text.get_text():
            ext = text.get_window_extent(renderer)
            out.append((np.array([[ext.x0, ext.y0], [ext.x1, ext.y0], [ext.x0, ext.y1],
                                  [ext.x1, ext.y1], [(ext.x0 + ext.x1) / 2, (ext.y0 + ext.y1) / 2]]), 0.0))
    inside = []
    for pts, pad in out:
        keep = ((pts[:, 0] >= box.x0 - 1) & (pts[:, 0] <= box.x1 + 1)
                & (pts[:, 1] >= box.y0 - 1) & (pts[:, 1] <= box.y1 + 1)) if len(pts) else []
        inside.append((pts[keep] if len(pts) else pts, pad))
    return inside


def legend_overlap(ax, legend=None) -> int:
    """How many drawn points of ``ax`` (markers padded by their size) lie in its legend's box."""
    legend = legend or ax.get_legend()
    if legend is None:
        return 0
    ext = legend.get_window_extent(ax.figure.canvas.get_renderer())
    count = 0
    for pts, pad in data_points(ax):
        if len(pts):
            count += int(np.count_nonzero((pts[:, 0] >= ext.x0 - pad) & (pts[:, 0] <= ext.x1 + pad)
                                          & (pts[:, 1] >= ext.y0 - pad) & (pts[:, 1] <= ext.y1 + pad)))
    return count


def place_legend(ax) -> bool:
    """Move ``ax``'s legend to the first position inside the axes that covers no data; else
    under the x axis. Returns True when it went outside."""
    legend = ax.get_legend()
    if legend is None:
        return False
    legend.set_bbox_to_anchor(None)
    for loc in INSIDE:
        legend.set_loc(loc)
        if legend_overlap(ax, legend) == 0:
            return False
    below_axis(ax, legend)
    return True


def below_axis(ax, legend):
    """Put ``legend`` under the x axis of ``ax`` (below its tick labels and label), in two
    columns when it has more than four entries; returns the legend (rebuilt for two columns)."""
    renderer = ax.figure.canvas.get_renderer()
    y = (ax.xaxis.get_tightbbox(renderer).y0 - ax.bbox.y0) / ax.bbox.height - 0.01
    texts = legend.get_texts()
    if len(texts) > 4:
        legend = ax.legend(legend.legend_handles, [t.get_text() for t in texts], ncols=2,
                           fontsize=texts[0].get_fontsize())
    legend.set_loc("upper center")
    legend.set_bbox_to_anchor((0.5, y), transform=ax.transAxes)
    return legend


def place_legends(fig) -> None:
    """:func:`place_legend` on every axes of a laid-out figure, laying it out again while a legend
    moves outside (the axes shrink, so every placement is made again on the new layout)."""
    for _ in range(4):
        if not any([place_legend(ax) for ax in fig.axes]):
            return
        fig.tight_layout()
    for ax in fig.axes:
        place_legend(ax)
