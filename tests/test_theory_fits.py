"""Theory runners' statistics helpers: repeated searches, bootstrap slope rows, honest bound curves."""
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from experiments.theory import alon2019 as TA  # noqa: E402
from experiments.theory.fits import bound_curve, repeated_nstar, slope_row  # noqa: E402


def test_repeated_nstar_keeps_first_key_and_shifts_seeds():
    calls = []
    out = repeated_nstar(lambda k, s: calls.append((k, s)) or s * 10, "a/b", 7, 3)
    assert out == [70, 80, 90] and calls == [("a/b", 7), ("a/b/rep=1", 8), ("a/b/rep=2", 9)]


def test_slope_row_recovers_linear_growth_and_refuses_four_points():
    rng = np.random.default_rng(0)
    x = np.arange(1, 7)
    trials = [3 * xi + rng.normal(0, 0.3, 5) for xi in x]
    row = slope_row("lin", x, trials, rng, log_x=False, log_y=False)
    assert row["ci_lo"] < 3 < row["ci_hi"] and row["n_points"] == 6 and row["trials_per_point"] == 5
    with pytest.raises(ValueError, match="at least 5"):
        slope_row("few", x[:4], trials[:4], rng)


def test_bound_curve_draws_explicit_as_is_and_fits_o_shapes():
    fig, ax = plt.subplots()
    x = np.array([1.0, 2.0, 3.0])
    explicit = bound_curve(ax, x, [5.0, 6.0, 7.0], "alon2019.lemma3.3")
    assert explicit["explicit"] and np.allclose(ax.lines[-1].get_ydata(), [5, 6, 7])
    fit = bound_curve(ax, x, [1.0, 2.0, 4.0], "alon2019.thm3.1.n_priv", [3.0, 6.0, 12.0])
    assert not fit["explicit"] and fit["c"] == pytest.approx(3.0) and fit["log_rmse"] == pytest.approx(0.0, abs=1e-12)
    assert np.allclose(ax.lines[-1].get_ydata(), [3, 6, 12]) and "fitted c = 3" in ax.lines[-1].get_label()
    plt.close(fig)


def test_clopper_pearson_interval_covers_and_hits_ends():
    lo, hi = TA._cp_interval(0, 400)
    assert lo == 0.0 and 0.005 < hi < 0.01
    lo, hi = TA._cp_interval(200, 400)
    assert lo < 0.5 < hi and hi - lo < 0.11
    assert TA._cp_interval(400, 400)[1] == 1.0


def test_derived_n_priv_is_vacuous_past_alpha_and_grows_with_cover():
    assert math.isnan(TA.derived_n_priv(0.1, 0.1, 100, 0.05, 1.0))
    small, large = TA.derived_n_priv(0.1, 0.01, 10, 0.05, 1.0), TA.derived_n_priv(0.1, 0.01, 10**6, 0.05, 1.0)
    assert 0 < small < large
