"""PEP's projection kernels (pubpriv_core.algorithms.pep): the blocked first-maximum scan and
one entropy-projection step."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pubpriv_core.algorithms.pep import CLIP, _largest_gap, project


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.7]), min_size=1, max_size=40),
       st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5]), min_size=40, max_size=40),
       st.sampled_from([0.5, 1.0, 2.0]))
def test_largest_gap_is_the_first_maximum(y, measured, scale):
    """Few distinct values make ties across and inside the 8-cell blocks."""
    y = np.array(y)
    measured = np.array(measured[:len(y)])
    gaps = np.abs(scale * y - measured)
    assert _largest_gap(y, scale, measured) == int(np.argmax(gaps))


def test_largest_gap_on_long_random_vectors():
    rng = np.random.default_rng(3)
    for n in (7, 8, 9, 1000, 60_001):
        y, measured = rng.random(n), rng.random(n)
        assert _largest_gap(y, 1.3, measured) == int(np.argmax(np.abs(1.3 * y - measured)))


def test_one_projection_step_matches_the_measured_cell():
    """One step on the worst cell sets its answer to the measurement exactly (KL projection)."""
    cells = np.array([[0, 0, 1, 1, 1]], dtype=np.int32)      # one marginal of two cells
    order = np.argsort(cells[0], kind="stable").astype(np.int32)
    starts = np.array([0, 2, 5], dtype=np.int64)
    u = np.full(5, 0.2)
    y = np.array([0.4, 0.6])
    measured = np.array([0.1, 0.9])
    project(u, y, measured, cells, order, starts, np.array([0, 2], dtype=np.int64), 1, CLIP)
    assert np.isclose(u.sum(), 1.0)
    assert np.allclose(y, [0.1, 0.9])
    assert np.allclose([u[:2].sum(), u[2:].sum()], [0.1, 0.9])



def plain_projection(u, y, measured, cells, order, starts, steps, clip):
    """The projection with a full first-maximum scan every step (no per-block state)."""
    offsets = first_cells(cells)
    total = 1.0
    for _ in range(steps):
        scale = 1.0 / total
        worst = int(np.argmax(np.abs(scale * y - measured)))
        a = min(max(measured[worst], clip), 1.0 - clip)
        b = min(max(scale * y[worst], clip), 1.0 - clip)
        factor = a * (1.0 - b) / ((1.0 - a) * b)
        for x in order[starts[worst]:starts[worst + 1]]:
            change = u[x] * (factor - 1.0)
            total += change
            u[x] += change
            y[cells[:, x] + offsets] += change
    return u / total, y / total


def first_cells(cells):
    """Each marginal's first flat cell (its cells are 0..max)."""
    return np.concatenate([[0], np.cumsum(cells.max(axis=1) + 1)])[:-1]


def projection_problem(seed, sizes=(2, 3, 100, 200), rows=300):
    """Rows with a cell in each marginal (by default 305 cells: five 64-cell blocks; a cell of
    the 2- and 3-cell marginals holds 100–150 rows, so its steps change most blocks, a cell of
    the 200-cell marginal one or two rows), and measurements of another distribution's answers
    (noisy), laid out as ``Histogram`` keeps them. Over 200 steps both kinds of cell are
    projected (35–53 large-cell steps and ≈ 100 distinct cells for seeds 0–2)."""
    rng = np.random.default_rng(seed)
    cells = np.stack([rng.integers(0, s, rows) for s in sizes]).astype(np.int32)
    cells[:, 0] = np.array(sizes) - 1                 # every marginal's last cell is reached
    offsets = first_cells(cells)

    def answers(weights):
        y = np.zeros(sum(sizes))
        np.add.at(y, (cells + offsets[:, None]).ravel(), np.tile(weights, len(sizes)))
        return y

    u = rng.dirichlet(np.ones(rows))
    measured = np.clip(answers(rng.dirichlet(np.ones(rows))) + rng.normal(0, 0.002, sum(sizes)),
                       0, 1)
    order = np.concatenate([np.argsort(c, kind="stable") for c in cells]).astype(np.int32)
    counts = np.concatenate([np.bincount(c, minlength=s) for c, s in zip(cells, sizes)])
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return (u, answers(u), measured, cells, order, starts,
            np.append(offsets, sum(sizes)).astype(np.int64))


@pytest.mark.parametrize("sizes", [(2, 3, 100, 200), (2, 2, 2, 500)])
def test_bounded_scan_projection_equals_the_full_scan_bit_for_bit(sizes):
    """Many steps (large and small cells, scale drift): the per-block bounds skip blocks but
    pick the same cells as a full scan, so weights and answers are equal bit for bit. On the
    second layout a large-cell step that left its blocks unmarked would pick other cells."""
    for seed in range(3):
        u, y, measured, cells, order, starts, offsets = projection_problem(seed, sizes)
        want_u, want_y = plain_projection(u.copy(), y.copy(), measured, cells, order, starts,
                                          200, CLIP)
        project(u, y, measured, cells, order, starts, offsets, 200, CLIP)
        assert np.array_equal(u, want_u) and np.array_equal(y, want_y)
