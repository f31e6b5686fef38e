"""α-representations of POINT_d (Beimel et al. 2014, Def 3.1, Lemma 3.10, §4 projective planes)."""
import itertools

import numpy as np
import pytest

from pubpriv_core.learning.representation import (lemma_3_10_witness, point_game_value,
                                                   projective_plane, representation_alpha)


@pytest.mark.parametrize("q", [2, 3, 5])
def test_projective_plane_structure_and_exact_representation(q):
    """q²+q+1 lines of q+1 points, two lines meet once; the lines (1/(q+1))-represent POINT."""
    lines = projective_plane(q)
    size = q * q + q + 1
    assert lines.shape == (size, size)
    assert (lines.sum(axis=0) == q + 1).all() and (lines.sum(axis=1) == q + 1).all()
    meets = lines.astype(int) @ lines.T.astype(int)
    assert (meets[~np.eye(size, dtype=bool)] == 1).all()
    assert representation_alpha(lines) == pytest.approx(1 / (q + 1), abs=1e-9)


def test_game_value_matches_a_brute_force_grid():
    """max over a fine grid of distributions of min_h error never exceeds the LP value, and
    comes within the grid's resolution of it."""
    rng = np.random.default_rng(3)
    table = rng.random((4, 3)) < 0.5
    steps = 60
    for j in range(3):
        target = np.arange(3) == j
        mistakes = (table != target).astype(float)
        grid = [np.array([a, b, steps - a - b]) / steps
                for a, b in itertools.product(range(steps + 1), repeat=2) if a + b <= steps]
        best = max(float((mistakes @ D).min()) for D in grid)
        value = point_game_value(table, j)
        assert best <= value + 1e-9 and value - best <= 2 / steps


def test_lemma_3_10_few_hypotheses_cannot_represent_points():
    """|H| < log2 T: two points are labelled alike, and both point concepts have value ≥ 1/2."""
    rng = np.random.default_rng(0)
    for trial in range(20):
        table = rng.random((3, 16)) < rng.random()
        j, j2 = lemma_3_10_witness(table)
        assert (table[:, j] == table[:, j2]).all()
        assert point_game_value(table, j) >= 0.5 - 1e-9
        assert point_game_value(table, j2) >= 0.5 - 1e-9
    bits = ((np.arange(16)[None, :] >> np.arange(4)[:, None]) & 1).astype(bool)
    assert lemma_3_10_witness(bits) is None


def test_projective_plane_needs_a_prime():
    with pytest.raises(ValueError, match="prime"):
        projective_plane(4)
