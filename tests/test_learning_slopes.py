"""Slopes with bootstrap CIs over trials and fitted constants of O(·) shapes
(pubpriv_core.learning.slopes)."""
import numpy as np
import pytest

from pubpriv_core.learning.slopes import ConstantFit, SlopeFit, bootstrap_slope, fit_constant

X = 2.0 ** np.arange(6)


def test_exact_power_laws_are_recovered():
    for b, c in ((1.5, 2.0), (-0.5, 0.1), (0.0, 3.0)):
        fit = bootstrap_slope(X, [np.full(3, c * x ** b) for x in X],
                              rng=np.random.default_rng(0), n_boot=200)
        assert fit.slope == pytest.approx(b, abs=1e-12)
        assert fit.lo == pytest.approx(b, abs=1e-12) and fit.hi == pytest.approx(b, abs=1e-12)
        assert fit.intercept == pytest.approx(np.log(c), abs=1e-12)
        assert (fit.n_points, fit.n_trials) == (6, 3)


def test_linear_scale_fits_a_line():
    x = np.arange(1.0, 8.0)
    fit = bootstrap_slope(x, [np.array([3 * v, 3 * v + 2.0]) for v in x], log_x=False,
                          log_y=False, rng=np.random.default_rng(1), n_boot=500)
    assert fit.slope == pytest.approx(3.0) and fit.intercept == pytest.approx(1.0)
    assert fit.lo < 3.0 < fit.hi


def test_ci_covers_the_true_slope_in_at_least_90_of_100_noisy_replications():
    rng = np.random.default_rng(2024)
    b, trials, covered, widths = -0.5, 20, 0, []
    for _ in range(100):
        y = [0.3 * x ** b * rng.lognormal(0.0, 0.4, trials) for x in X]
        fit = bootstrap_slope(X, y, rng=rng, n_boot=1000)
        covered += fit.lo <= b <= fit.hi
        widths.append(fit.hi - fit.lo)
    assert covered >= 90
    assert 0.01 < np.median(widths) < 0.5     # an informative interval, not a trivial one


def test_ci_narrows_with_more_trials():
    rng = np.random.default_rng(7)
    few = bootstrap_slope(X, [x * rng.lognormal(0, 0.5, 5) for x in X], rng=rng)
    many = bootstrap_slope(X, [x * rng.lognormal(0, 0.5, 500) for x in X], rng=rng)
    assert many.hi - many.lo < (few.hi - few.lo) / 3


def test_too_few_points_or_trials_are_refused():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="at least 5 distinct x"):
        bootstrap_slope(X[:4], [np.ones(3)] * 4, rng=rng)
    with pytest.raises(ValueError, match="at least 5 distinct x"):   # repeated x do not count
        bootstrap_slope([1, 2, 3, 4, 4, 4], [np.ones(3)] * 6, rng=rng)
    with pytest.raises(ValueError, match="at least 2 trials"):
        bootstrap_slope(X, [np.ones(3)] * 5 + [np.ones(1)], rng=rng)
    with pytest.raises(ValueError, match="one 1-D array of trials per x"):
        bootstrap_slope(X, [np.ones(3)] * 5, rng=rng)
    with pytest.raises(ValueError, match="log_y=False"):
        bootstrap_slope(X, [np.array([0.0, 1.0])] * 6, rng=rng)
    with pytest.raises(TypeError, match="Generator"):
        bootstrap_slope(X, [np.ones(3)] * 6, rng=0)


def test_fit_constant_recovers_c_on_noiseless_data():
    shape = np.sqrt(np.log(X + 1) / (X + 1))
    fit = fit_constant(shape, 0.037 * shape)
    assert fit.c == pytest.approx(0.037, rel=1e-12)
    assert fit.log_rmse == pytest.approx(0, abs=1e-12)


def test_fit_constant_is_the_geometric_mean_ratio_and_reports_the_misfit():
    shape = np.array([1.0, 2.0, 4.0, 8.0])
    measured = np.array([2.0, 2.0, 8.0, 16.0])      # ratios 2, 1, 2, 2
    fit = fit_constant(shape, measured)
    assert fit.c == pytest.approx(2 ** 0.75)
    logs = np.log([2, 1, 2, 2]) - 0.75 * np.log(2)
    assert fit.log_rmse == pytest.approx(np.sqrt(np.mean(logs ** 2)))
    with pytest.raises(ValueError, match="positive and finite"):
        fit_constant(shape, np.array([1.0, 0.0, 1.0, 1.0]))


def test_texts_state_the_fit():
    fit = SlopeFit(slope=0.98, lo=0.91, hi=1.05, intercept=0.0, n_points=6, n_trials=20)
    assert fit.text() == "slope 0.98 (95% CI 0.91 to 1.05; 6 points, ≥ 20 trials each)"
    assert ConstantFit(c=0.31, log_rmse=0.08).text() == "c = 0.31 (fitted, log-RMSE 0.08)"
