"""PEP's projection kernels (pubpriv_core.algorithms.pep): the blocked first-maximum scan and
one entropy-projection step."""
from __future__ import annotations

import numpy as np
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
