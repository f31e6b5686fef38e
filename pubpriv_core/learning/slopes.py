"""Statistics for the growth rates the theory experiments report.

``bootstrap_slope``: the least-squares slope of log mean y against log x (a power law y ∝ x^b has
slope b), with a percentile bootstrap confidence interval that resamples the trials independently
within each x — the points are measured independently, so their noise is resampled independently
(the percentile interval, Efron & Tibshirani, An Introduction to the Bootstrap, 1993, ch. 13).

``fit_constant``: the constant c of an O(·) bound drawn as c·shape, fitted by least squares on the
log scale, c = exp(mean(log measured − log shape)), with the log-RMSE of the fit, so a figure can
state the constant and how well the shape follows the measurements instead of drawing c = 1.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

MIN_POINTS = 5
MIN_TRIALS = 2


@dataclass(frozen=True)
class SlopeFit:
    """Slope of (log) mean y on (log) x with its bootstrap CI [lo, hi] at ``level``; ``n_trials``
    is the smallest number of trials at any point."""

    slope: float
    lo: float
    hi: float
    intercept: float
    n_points: int
    n_trials: int
    level: float = 0.95

    def text(self) -> str:
        """e.g. ``slope 0.98 (95% CI 0.91 to 1.05; 6 points, ≥ 20 trials each)``."""
        return (f"slope {self.slope:.3g} ({100 * self.level:g}% CI {self.lo:.3g} to {self.hi:.3g}; "
                f"{self.n_points} points, ≥ {self.n_trials} trials each)")


@dataclass(frozen=True)
class ConstantFit:
    """c of c·shape fitted on the log scale and the root-mean-square log error of the fit."""

    c: float
    log_rmse: float

    def text(self) -> str:
        """e.g. ``c = 0.31 (fitted, log-RMSE 0.08)``."""
        return f"c = {self.c:.3g} (fitted, log-RMSE {self.log_rmse:.3g})"


def _slopes(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Least-squares slope of each row of ``v`` (shape (..., k)) on ``u`` (shape (k,))."""
    centred = u - u.mean()
    return (v @ centred) / (centred @ centred)


def _check_points(x: np.ndarray, y_trials: Sequence, log_x: bool) -> list[np.ndarray]:
    if x.ndim != 1 or len(x) != len(y_trials):
        raise ValueError(f"x has {x.size} values but y_trials has {len(y_trials)} points; give "
                         "one 1-D array of trials per x")
    if np.unique(x).size < MIN_POINTS:
        raise ValueError(f"a slope needs at least {MIN_POINTS} distinct x, got "
                         f"{np.unique(x).size}; measure more points")
    if not np.isfinite(x).all() or (log_x and (x <= 0).any()):
        raise ValueError("x must be finite (and positive with log_x); drop the bad points")
    trials = [np.asarray(t, dtype=float) for t in y_trials]
    if any(t.ndim != 1 or t.size < MIN_TRIALS for t in trials):
        raise ValueError(f"every point needs a 1-D array of at least {MIN_TRIALS} trials; run "
                         "more trials")
    return trials


def bootstrap_slope(x: Sequence[float], y_trials: Sequence[Sequence[float]], *,
                    rng: np.random.Generator, n_boot: int = 2000, log_x: bool = True,
                    log_y: bool = True, level: float = 0.95) -> SlopeFit:
    """Slope of (log) mean y on (log) x with a percentile bootstrap CI over trials.

    ``y_trials[i]`` holds the per-trial measurements at ``x[i]``. Each of the ``n_boot``
    replicates resamples the trials of every point with replacement (independently across
    points), recomputes the means and refits the line; [lo, hi] are the (1 ∓ level)/2 quantiles
    of the replicate slopes. Needs ≥ 5 distinct x and ≥ 2 trials per point; with ``log_y`` every
    measurement must be positive (a resampled mean of 0 has no logarithm)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError("rng must be a numpy.random.Generator, e.g. np.random.default_rng(0)")
    if not 0 < level < 1 or n_boot < 1:
        raise ValueError(f"need 0 < level < 1 and n_boot ≥ 1, got level={level}, n_boot={n_boot}")
    x = np.asarray(x, dtype=float)
    trials = _check_points(x, y_trials, log_x)
    if log_y and any((t <= 0).any() or not np.isfinite(t).all() for t in trials):
        raise ValueError("log_y needs positive, finite measurements; pass log_y=False or drop "
                         "the zero trials")
    u = np.log(x) if log_x else x
    scale = np.log if log_y else (lambda a: a)
    means = np.array([t.mean() for t in trials])
    v = scale(means)
    slope = float(_slopes(u, v))
    boot_means = np.column_stack([t[rng.integers(0, t.size, size=(n_boot, t.size))].mean(axis=1)
                                  for t in trials])
    lo, hi = np.quantile(_slopes(u, scale(boot_means)), [(1 - level) / 2, (1 + level) / 2])
    return SlopeFit(slope=slope, lo=float(lo), hi=float(hi),
                    intercept=float(v.mean() - slope * u.mean()), n_points=int(x.size),
                    n_trials=int(min(t.size for t in trials)), level=level)


def fit_constant(shape: Sequence[float], measured: Sequence[float]) -> ConstantFit:
    """The c minimising Σ (log measured − log(c·shape))², i.e. c = exp(mean(log measured −
    log shape)), and the root-mean-square of the remaining log errors."""
    shape, measured = np.asarray(shape, dtype=float), np.asarray(measured, dtype=float)
    if shape.shape != measured.shape or shape.ndim != 1 or shape.size == 0:
        raise ValueError(f"shape and measured must be 1-D of equal, non-zero length; got "
                         f"{shape.shape} and {measured.shape}")
    if not (np.isfinite(shape).all() and np.isfinite(measured).all()
            and (shape > 0).all() and (measured > 0).all()):
        raise ValueError("shape and measured must be positive and finite; drop zero or missing "
                         "measurements before fitting")
    residual = np.log(measured) - np.log(shape)
    log_c = residual.mean()
    return ConstantFit(c=float(np.exp(log_c)),
                       log_rmse=float(np.sqrt(np.mean((residual - log_c) ** 2))))
