"""Sparse vector (Dwork & Roth 2014, Alg. 1–2): halting and the law of the positive indices."""
import math

import numpy as np
import pytest
from scipy import integrate, stats

from pubpriv_core.privacy import SparseVector, SparseVectorHaltedError

VALUES = np.array([0.2, 0.9, 0.5, 1.4, 1.0, 2.0])
THRESHOLD, EPS, SENSITIVITY = 1.0, 2.0, 0.5
RUNS = 10_000
ALPHA = 1e-3


def laplace_cdf(z, b):
    return 0.5 * math.exp(z / b) if z < 0 else 1 - 0.5 * math.exp(-z / b)


def first_above_probabilities(values, threshold_scale, query_scale):
    """P(first positive = i) for i < len(values), and P(none) last, integrating over the noisy
    threshold τ = T + Lap(σ): ∫ f(τ) Π_{j<i} F(τ − v_j)·(1 − F(τ − v_i)) dτ, F the query noise
    Lap(2σ) CDF."""
    def below(tau, j):
        return laplace_cdf(tau - values[j], query_scale)

    def integrand(tau, i):
        density = math.exp(-abs(tau - THRESHOLD) / threshold_scale) / (2 * threshold_scale)
        prefix = math.prod(below(tau, j) for j in range(min(i, len(values))))
        last = 1 - below(tau, i) if i < len(values) else 1.0
        return density * prefix * last

    low, high = THRESHOLD - 60 * threshold_scale, THRESHOLD + 60 * threshold_scale
    kinks = sorted({THRESHOLD, *values})
    return np.array([integrate.quad(integrand, low, high, args=(i,), points=kinks,
                                    limit=400)[0] for i in range(len(values) + 1)])


def run_stream(values, max_above, rng):
    """Indices of the positives of one SparseVector over ``values`` (stops when it halts)."""
    sv = SparseVector(THRESHOLD, EPS, SENSITIVITY, max_above, rng)
    positives = []
    for i, value in enumerate(values):
        if sv.test(value):
            positives.append(i)
            if sv.halted:
                break
    return positives


def chi_square_pvalue(counts, probabilities):
    """Pearson goodness of fit; cells with expectation < 5 are pooled into one."""
    expected = probabilities / probabilities.sum() * counts.sum()
    small = expected < 5
    observed = np.append(counts[~small], counts[small].sum())
    expected = np.append(expected[~small], expected[small].sum())
    if expected[-1] == 0:
        if observed[-1] > 0:
            return 0.0
        observed, expected = observed[:-1], expected[:-1]
    return stats.chisquare(observed, expected).pvalue


def first_index_counts(max_above, seed):
    rng = np.random.default_rng(seed)
    firsts = [(run_stream(VALUES, max_above, rng) or [len(VALUES)])[0] for _ in range(RUNS)]
    return np.bincount(firsts, minlength=len(VALUES) + 1)


def test_calibration_follows_dwork_roth_algorithm_2():
    sv = SparseVector(THRESHOLD, EPS, SENSITIVITY, 3, np.random.default_rng(0))
    assert sv.threshold_scale == pytest.approx(2 * 3 * SENSITIVITY / EPS)
    assert sv.query_scale == pytest.approx(2 * sv.threshold_scale)


def test_first_above_index_matches_exact_probability():
    sigma = 2 * SENSITIVITY / EPS
    exact = first_above_probabilities(VALUES, sigma, 2 * sigma)
    assert exact.sum() == pytest.approx(1.0, abs=1e-9)
    counts = first_index_counts(1, seed=1)
    assert chi_square_pvalue(counts, exact) > ALPHA
    no_split = first_above_probabilities(VALUES, sigma / 2, sigma)  # all of ε on each noise
    assert chi_square_pvalue(counts, no_split) < 1e-6


def test_two_positives_redraw_the_threshold():
    """With c = 2 each segment is AboveThreshold with σ = 2·2Δ/ε and a fresh threshold, so
    P(first = i, second = k) = P(first = i)·P_{values after i}(first = k − i − 1)."""
    sigma = 2 * 2 * SENSITIVITY / EPS
    first = first_above_probabilities(VALUES, sigma, 2 * sigma)
    pairs, exact = {}, {}
    for i in range(len(VALUES)):
        rest = first_above_probabilities(VALUES[i + 1:], sigma, 2 * sigma)
        for k, p in enumerate(rest):
            exact[(i, i + 1 + k)] = first[i] * p
    exact[(len(VALUES),)] = first[-1]
    rng = np.random.default_rng(2)
    for _ in range(RUNS):
        positives = run_stream(VALUES, 2, rng)
        key = tuple(positives) if len(positives) == 2 else \
            (positives[0], len(VALUES)) if positives else (len(VALUES),)
        pairs[key] = pairs.get(key, 0) + 1
    keys = sorted(exact)
    assert set(pairs) <= set(keys)
    counts = np.array([pairs.get(key, 0) for key in keys])
    assert chi_square_pvalue(counts, np.array([exact[key] for key in keys])) > ALPHA


def test_halts_after_max_above_positives():
    sv = SparseVector(0.0, 1.0, 1e-3, 2, np.random.default_rng(3))
    assert [sv.test(v) for v in (-5.0, 5.0, -5.0, 5.0)] == [False, True, False, True]
    assert sv.halted and sv.n_above == 2 and sv.n_tested == 4
    with pytest.raises(SparseVectorHaltedError) as err:
        sv.test(5.0)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("kwargs, error", [
    ({"eps": 0.0}, ValueError), ({"sensitivity": -1.0}, ValueError),
    ({"max_above": 0}, ValueError), ({"max_above": 1.5}, ValueError),
    ({"threshold": float("nan")}, ValueError), ({"rng": None}, TypeError),
])
def test_bad_input_raises_one_line_error(kwargs, error):
    arguments = {"threshold": 1.0, "eps": 1.0, "sensitivity": 1.0, "max_above": 1,
                 "rng": np.random.default_rng(0), **kwargs}
    with pytest.raises(error) as err:
        SparseVector(**arguments)
    assert "\n" not in str(err.value) and ";" in str(err.value)
