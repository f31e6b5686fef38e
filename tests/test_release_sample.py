"""Records drawn from a weighted release follow its weights: on an explicit support (PMW^Pub,
DualQuery) and on the whole domain in C order (MWEM), a row of weight 0 is never drawn, and the
same generator state gives the same records."""
from __future__ import annotations

import numpy as np

from pubpriv_core.algorithms.base import Release
from pubpriv_core.algorithms.release_sample import draw_records
from pubpriv_core.data.domain import Domain

DOMAIN = Domain(["a", "b", "c"], [2, 3, 2])
DRAWS = 200_000


def _release(weights, support=None) -> Release:
    weights = np.asarray(weights, dtype=float)
    return Release("test", weights=weights, answers=np.zeros(1), support=support)


def _within_five_standard_errors(observed: np.ndarray, expected: np.ndarray) -> bool:
    bound = 5 * np.sqrt(expected * (1 - expected) / DRAWS) + 1e-12
    return bool(np.all(np.abs(observed - expected) <= bound))


def test_records_follow_the_weights_over_a_support():
    support = np.array([[0, 0, 0], [1, 2, 1], [0, 1, 1], [1, 0, 0]])
    weights = np.array([0.6, 0.25, 0.15, 0.0]) * 3        # unnormalised, as releases may be
    records = draw_records(_release(weights, support), DOMAIN, DRAWS, np.random.default_rng(1))
    rows = {tuple(r): i for i, r in enumerate(support)}
    index = np.array([rows[tuple(r)] for r in records])
    observed = np.bincount(index, minlength=4) / DRAWS
    assert observed[3] == 0
    assert _within_five_standard_errors(observed, weights / weights.sum())


def test_records_over_the_whole_domain_are_its_cells_in_c_order():
    size = DOMAIN.size()
    weights = np.arange(size, dtype=float)
    records = draw_records(_release(weights), DOMAIN, DRAWS, np.random.default_rng(2))
    cells = np.ravel_multi_index(records.T, DOMAIN.shape)
    observed = np.bincount(cells, minlength=size) / DRAWS
    assert observed[0] == 0
    assert _within_five_standard_errors(observed, weights / weights.sum())
    one = draw_records(_release(np.eye(size)[7]), DOMAIN, 10, np.random.default_rng(3))
    assert (one == np.unravel_index(7, DOMAIN.shape)).all()


def test_the_same_generator_state_gives_the_same_records():
    release = _release(np.ones(DOMAIN.size()))
    first, second = (draw_records(release, DOMAIN, 50, np.random.default_rng(9))
                     for _ in range(2))
    np.testing.assert_array_equal(first, second)
    assert first.dtype == np.int64 and first.shape == (50, 3)
