"""Exact errors and public covers of the concrete classes against brute force."""
import itertools

import numpy as np
import pytest

from pubpriv_core.learning import (ConceptClass, DecisionStumps, FiniteDistribution, Halfspaces, Intervals,
                                   Mixture01, PointFunctions, ProductSigns, Rectangles, Thresholds)


def brute_dis(cls, h1, h2, dist):
    """Generic support evaluation (the base-class path) as the reference."""
    return ConceptClass.disagreement(cls, h1, h2, dist)


@pytest.fixture
def grid_dist():
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(12))
    return FiniteDistribution(np.arange(12), p)


def all_thresholds(N):
    return np.arange(N + 1)[:, None]


def all_intervals(N):
    return np.array([(a, b) for a in range(N + 1) for b in range(a, N + 1)])


def test_threshold_and_interval_closed_forms_match_support_sums(grid_dist):
    thr, itv = Thresholds(12), Intervals(12)
    H = all_thresholds(12)
    for t in range(13):
        np.testing.assert_allclose(thr.disagreement(H, [t], grid_dist), brute_dis(thr, H, [t], grid_dist))
    I = all_intervals(12)
    np.testing.assert_allclose(itv.disagreement(I, [3, 8], grid_dist), brute_dis(itv, I, [3, 8], grid_dist))


def test_point_function_disagreement_is_sum_of_two_masses(grid_dist):
    pts = PointFunctions(12)
    H = np.arange(12)[:, None]
    np.testing.assert_allclose(pts.disagreement(H, [5], grid_dist), brute_dis(pts, H, [5], grid_dist))
    assert pts.disagreement([2], [5], grid_dist)[0] == pytest.approx(grid_dist.probs[2] + grid_dist.probs[5])


def test_threshold_mistakes_fast_path_matches_generic():
    rng = np.random.default_rng(1)
    thr = Thresholds(50)
    X, y = thr.sample([20], FiniteDistribution.uniform(np.arange(50)), 300, rng, noise=0.2)
    H = all_thresholds(50)
    np.testing.assert_array_equal(thr.mistakes(H, X, y), ConceptClass.mistakes(thr, H, X, y))


def test_error_with_label_noise():
    thr, D = Thresholds(None), Mixture01.uniform()
    assert thr.error([0.3], [0.5], D, noise=0.1)[0] == pytest.approx(0.1 + 0.8 * 0.2)


def test_mixture_strict_cdf_and_sampling():
    D = Mixture01(betas=[(0.5, 2.0, 5.0)], atoms=[(0.5, 0.25)])
    cdf = 1 - 0.75**6 - 6 * 0.25 * 0.75**5  # Beta(2,5) CDF at 0.25 in closed form
    assert D.prob_below(0.25) == pytest.approx(0.5 * cdf)  # the atom at 0.25 is excluded
    assert D.prob_below(0.2500001) == pytest.approx(0.5 * cdf + 0.5, abs=1e-6)
    x = D.sample(20000, np.random.default_rng(2))
    assert np.mean(x < 0.4) == pytest.approx(D.prob_below(0.4), abs=0.015)


@pytest.mark.parametrize("rule", ["left", "mid", "random"])
def test_threshold_and_interval_covers_realise_every_pattern_once(rule):
    rng = np.random.default_rng(3)
    T = rng.integers(0, 30, size=9)
    m_hat = len(np.unique(T))
    for cls, everything in [(Thresholds(30), all_thresholds(30)), (Intervals(30), all_intervals(30))]:
        cov = cls.cover(T, rule, rng)
        got = cls.patterns(cov, T)
        assert len(set(got)) == len(got) == len(set(cls.patterns(everything, T)))
    assert len(Thresholds(30).cover(T, rule, rng)) == m_hat + 1
    assert len(Intervals(30).cover(T, rule, rng)) == 1 + m_hat * (m_hat + 1) // 2


def test_continuous_threshold_cover_patterns():
    rng = np.random.default_rng(4)
    T = rng.random(15)
    for rule in ["left", "mid", "random"]:
        cov = Thresholds(None).cover(T, rule, rng)
        assert len(set(Thresholds(None).patterns(cov, T))) == 16


def test_point_cover_includes_all_zero_pattern():
    cov = PointFunctions(8).cover(np.array([0, 1, 1, 2]))
    assert sorted(cov[:, 0].tolist()) == [0, 1, 2, 3]


def test_stumps_product_distribution_exact():
    means = np.array([0.5, -0.2, 0.0, 0.9])
    cube = np.array(list(itertools.product([-1, 1], repeat=4)), dtype=np.int8)
    probs = np.prod((1 + cube * means) / 2, axis=1)
    finite, prod = FiniteDistribution(cube, probs), ProductSigns(means)
    st = DecisionStumps(4)
    H = np.arange(4)[:, None]
    for j in range(4):
        np.testing.assert_allclose(st.disagreement(H, [j], prod), st.disagreement(H, [j], finite))
    T = np.array([[1, 1, -1, 1], [1, 1, 1, -1]], dtype=np.int8)
    assert st.cover(T)[:, 0].tolist() == [0, 2, 3]  # columns 0 and 1 coincide on T


def test_rectangles_summed_area_table_matches_support():
    rng = np.random.default_rng(5)
    pts = np.array(list(itertools.product(range(6), range(5))))
    D = FiniteDistribution(pts, rng.dirichlet(np.ones(len(pts))))
    R = Rectangles(6, 5)
    H = np.array([[0, 3, 1, 4], [2, 6, 0, 5], [1, 1, 0, 5], [4, 2, 3, 1]])
    np.testing.assert_allclose(R.disagreement(H, [[1, 4, 2, 5]], D), brute_dis(R, H, [[1, 4, 2, 5]], D))


def test_rectangle_cover_is_all_patterns():
    rng = np.random.default_rng(6)
    T = rng.integers(0, 5, size=(5, 2))
    R = Rectangles(5, 5)
    every = np.array([(a1, b1, a2, b2) for a1 in range(6) for b1 in range(a1, 6)
                      for a2 in range(6) for b2 in range(a2, 6)])
    assert len(R.cover(T)) == len(set(R.patterns(every, T)))


def test_halfspace_cover_is_all_patterns_for_fixed_directions():
    rng = np.random.default_rng(7)
    U = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    T = rng.integers(0, 6, size=(7, 2)).astype(float)
    H = Halfspaces(U)
    offsets = np.arange(-1, 14) + 0.5
    every = np.array([(u, b) for u in range(3) for b in offsets])
    assert len(H.cover(T)) == len(set(H.patterns(every, T)))


def test_bad_input_messages_are_one_line():
    with pytest.raises(ValueError, match="sum to 1"):
        FiniteDistribution([0, 1], [0.5, 0.6])
    with pytest.raises(ValueError, match="parameter"):
        Intervals(5).predict(np.array([1, 2, 3]), np.arange(3))
