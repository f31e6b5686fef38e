"""Additive noise mechanisms: noise law and scale (Kolmogorov–Smirnov against scipy)."""
import numpy as np
import pytest
from scipy import stats

from pubpriv_core.privacy import gaussian_mechanism, laplace_mechanism

N = 50_000
ALPHA = 1e-3


def test_gaussian_noise_has_the_requested_sigma():
    values = np.full(N, 0.3)
    noisy = gaussian_mechanism(values, 0.7, np.random.default_rng(0))
    assert stats.kstest(noisy, stats.norm(loc=0.3, scale=0.7).cdf).pvalue > ALPHA
    assert stats.kstest(noisy, stats.norm(loc=0.3, scale=0.77).cdf).pvalue < 1e-6
    assert stats.kstest(noisy, stats.laplace(loc=0.3, scale=0.7 / np.sqrt(2)).cdf).pvalue < 1e-6


def test_laplace_noise_has_the_requested_scale():
    values = np.full(N, -2.0)
    noisy = laplace_mechanism(values, 0.25, np.random.default_rng(1))
    assert stats.kstest(noisy, stats.laplace(loc=-2.0, scale=0.25).cdf).pvalue > ALPHA
    assert stats.kstest(noisy, stats.laplace(loc=-2.0, scale=0.275).cdf).pvalue < 1e-6


def test_noise_is_centred_on_each_value_and_keeps_the_shape():
    values = np.arange(12.0).reshape(3, 4) * 100
    noisy = gaussian_mechanism(values, 1.0, np.random.default_rng(2))
    assert noisy.shape == (3, 4)
    assert np.all(np.abs(noisy - values) < 6)
    assert not np.array_equal(noisy, values)


@pytest.mark.parametrize("mechanism", [gaussian_mechanism, laplace_mechanism])
def test_scalar_in_float_out_and_reproducible(mechanism):
    first = mechanism(0.5, 0.1, np.random.default_rng(3))
    assert isinstance(first, float)
    assert first == mechanism(0.5, 0.1, np.random.default_rng(3))
    assert first != mechanism(0.5, 0.1, np.random.default_rng(4))


@pytest.mark.parametrize("call, error", [
    (lambda: gaussian_mechanism(1.0, 0.0, np.random.default_rng(0)), ValueError),
    (lambda: laplace_mechanism(1.0, -1.0, np.random.default_rng(0)), ValueError),
    (lambda: laplace_mechanism(1.0, float("inf"), np.random.default_rng(0)), ValueError),
    (lambda: gaussian_mechanism(1.0, 1.0, 0), TypeError),
])
def test_bad_input_raises_one_line_error(call, error):
    with pytest.raises(error) as err:
        call()
    assert "\n" not in str(err.value) and ";" in str(err.value)
