"""Tests for pubpriv_core.learning.bassily2020 (APAP, PMW, decision stumps)."""
import itertools
import math

import numpy as np
import pytest

from pubpriv_core.learning import bassily2020 as bc
from pubpriv_core.privacy import gaussian_sigma, rho_from_eps


def test_prefix_mw_matches_dense_weights():
    rng = np.random.default_rng(0)
    K = 37
    cuts = np.arange(K + 1)
    mw, logw = bc.PrefixMW(K, cuts), np.zeros(K)
    for _ in range(25):
        j, below = int(rng.integers(0, K + 1)), bool(rng.integers(0, 2))
        mw.update(j, below, 0.3)
        if below:
            logw[:j] -= 0.3
        else:
            logw[j:] -= 0.3
    w = np.exp(logw) / np.exp(logw).sum()
    assert np.allclose(mw.answers(), np.concatenate([[0], np.cumsum(w)]), atol=1e-12)


def test_product_mw_matches_dense_cube():
    k, eta = 4, 0.25
    cube = np.array(list(itertools.product([0, 1], repeat=k)))
    logw = np.zeros(len(cube))
    mw = bc.ProductMW(k)
    for j, below in [(0, True), (2, False), (0, False), (3, True), (3, True)]:
        mw.update(j, below, eta)
        r = cube[:, j] if below else 1 - cube[:, j]
        logw -= eta * r
    w = np.exp(logw) / np.exp(logw).sum()
    assert np.allclose(mw.answers(), w @ cube, atol=1e-12)


def test_pmw_calibration_constants():
    p = bc.PMWParams(alpha=0.2, eps=1.0, delta=1e-6, domain_size=1000, n=10000)
    assert p.a == 0.1 and p.c == math.ceil(4 * math.log(1000) / 0.01)
    assert p.sigma_test == pytest.approx(math.sqrt(32 * p.c * math.log(2e6)) / (8 / 9 * 10000))
    assert p.sigma_value == pytest.approx(4 * p.sigma_test)
    assert bc.PMWParams(0.2, 1.0, 0.0, 1000, 10000).sigma_test == pytest.approx(2 * p.c / (8 / 9 * 1e4))


@pytest.mark.parametrize("delta", [0.0, 1e-9, 1e-6, 1e-3])
def test_pmw_calibration_spends_at_most_its_budget(delta):
    """Composed by our own accounting, the calibration never exceeds ε (exactly ε when δ = 0)."""
    for alpha, eps, K, n in itertools.product([0.05, 0.1, 0.3], [0.1, 1.0, 3.0], [10, 10 ** 3,
                                              10 ** 6], [10 ** 3, 10 ** 6]):
        spent = bc.PMWParams(alpha, eps, delta, K, n).eps_spent()
        if delta == 0:
            assert spent == pytest.approx(eps, rel=1e-12)
        else:
            assert 0 < spent <= eps


def test_offline_pmw_reaches_threshold_accuracy_without_noise():
    rng = np.random.default_rng(1)
    K = 200
    hist = rng.dirichlet(np.full(K, 0.3))
    true = np.concatenate([[0], np.cumsum(hist)])
    params = bc.PMWParams(0.2, 1.0, 1e-6, K, 10 ** 12)        # σ ≈ 1e-8: noiseless limit
    res = bc.offline_pmw(true, bc.PrefixMW(K, np.arange(K + 1)), params, rng)
    assert not res.halted and res.updates > 0
    assert np.max(np.abs(res.answers - true)) <= 0.75 * params.a + 1e-6


def test_sup_error_matches_brute_force():
    dist = bc.DiscretizedBeta(64, 2.0, 3.0)
    rng = np.random.default_rng(2)
    cover = bc.threshold_cover(dist.sample(12, rng), 64)
    g = rng.random(len(cover))
    t = np.arange(65)
    project = np.searchsorted(cover, t, side="right") - 1
    brute = np.max(np.abs(g[project] - dist.cdf_below(t)))
    assert bc.sup_error_thresholds(cover, g, dist) == pytest.approx(brute)


def test_apap_independent_of_N_private_only_is_not():
    rng = np.random.default_rng(3)
    n, alpha = 10000, 0.4
    apap = [bc.apap_thresholds(bc.DiscretizedBeta(2 ** 40), n, 200, alpha, 1.0, 1e-6, rng).err for _ in range(2)]
    assert max(apap) <= alpha
    small = [bc.private_pmw_thresholds(bc.DiscretizedBeta(2 ** 6), n, alpha, 1.0, 1e-6, rng).err for _ in range(3)]
    big = [bc.private_pmw_thresholds(bc.DiscretizedBeta(2 ** 14), n, alpha, 1.0, 1e-6, rng).err for _ in range(2)]
    assert max(small) <= alpha < min(big)


def test_stumps_gaussian_calibration_and_public_only():
    mu = np.linspace(-0.5, 0.5, 16)
    rng = np.random.default_rng(4)
    errs = [bc.stumps_gaussian(mu, 10 ** 9, 1.0, 1e-6, rng) for _ in range(5)]
    sigma = gaussian_sigma(rho_from_eps(1.0, 1e-6), 4 / 10 ** 9)
    assert max(errs) < 2 * 6 * sigma + 1e-3
    assert bc.stumps_public_only(mu, 10 ** 7, rng) < 0.01 < bc.stumps_public_only(mu, 30, rng)
    run = bc.stumps_pmw(mu, 10 ** 7, 0, 0.2, 1.0, 1e-6, rng)
    assert run.err <= 0.2 and run.domain_size == 2 ** 16


def test_bad_grid_raises():
    with pytest.raises(ValueError, match="N must be"):
        bc.DiscretizedBeta(1)


def test_false_top_probability_matches_simulation():
    params = bc.PMWParams(0.2, 1.0, 1e-6, 4096, 16384)
    rng = np.random.default_rng(0)
    b = params.sigma_test
    diff = rng.laplace(0, 2 * b, 400000) - rng.laplace(0, b, 400000)
    for e in (0.0, 0.05):
        assert bc.false_top_probability(params, e) == pytest.approx(
            np.mean(diff >= 3 * params.a / 4 - e), abs=4e-3)
    with pytest.raises(ValueError, match="above the threshold"):
        bc.false_top_probability(params, 0.5)


def test_offline_pmw_reach_shows_a_budget_spent_in_the_first_pass():
    """With more queries than updates and noise above the threshold, the c updates are spent
    before the first pass ends: the last queries are never tested."""
    N, n = 2 ** 14, 16384
    dist = bc.DiscretizedBeta(N)
    rng = np.random.default_rng(1)
    hist = dist.cell_histogram(np.arange(N + 1), n, rng)
    true = np.concatenate([[0.0], np.cumsum(hist)]) / n
    params = bc.PMWParams(0.2, 1.0, 1e-6, N, n)
    res = bc.offline_pmw(true, bc.PrefixMW(N, np.arange(N + 1)), params, rng)
    assert res.halted and res.passes == 1 and res.reach < N + 1
    quiet = bc.offline_pmw(true, bc.PrefixMW(N, np.arange(N + 1)),
                           bc.PMWParams(0.2, 1.0, 1e-6, N, 10 ** 12), rng)
    assert quiet.reach == N + 1


def test_stumps_mixed_interpolates_public_and_private():
    mu = np.random.default_rng(0).uniform(-0.8, 0.8, 64)
    errs = {nm: np.mean([bc.stumps_mixed(mu, nm[0], nm[1], 1.0, 1e-6, np.random.default_rng(s))
                         for s in range(40)]) for nm in [(2000, 0), (0, 200), (2000, 200)]}
    assert errs[(2000, 200)] < min(errs[(2000, 0)], errs[(0, 200)])
    rng = np.random.default_rng(1)
    assert bc.stumps_mixed(mu, 0, 10 ** 7, 1.0, 1e-6, rng) < 0.01       # public only
    assert bc.stumps_mixed(mu, 10 ** 8, 0, 1.0, 1e-6, rng) < 0.01       # private only
    with pytest.raises(ValueError, match="n \\+ m"):
        bc.stumps_mixed(mu, 0, 0, 1.0, 1e-6, rng)


def _reference_pmw(true, mw, params, rng, max_passes=1000, block=65536):
    """The offline PMW loop written with numpy calls (the compiled loop must match it exactly)."""
    def first_above(start, t_hat):
        q, size = len(true), 16
        while start < q:
            idx = np.arange(start, min(q, start + size))
            diff = true[idx] - mw.answers_at(idx)
            above = np.flatnonzero(np.abs(diff) + rng.laplace(0, 2 * params.sigma_test, len(idx)) >= t_hat)
            if above.size:
                return int(idx[above[0]]), float(diff[above[0]])
            start, size = start + size, min(2 * size, block)
        return None, 0.0

    eta, theta = params.a / 2, 3 * params.a / 4
    updates = passes = reach = 0
    t_hat = theta + rng.laplace(0, params.sigma_test)
    while updates < params.c and passes < max_passes:
        passes += 1
        start, hit = 0, False
        while updates < params.c:
            j, diff = first_above(start, t_hat)
            if j is None:
                reach = len(true)
                break
            mw.update(j, diff + rng.laplace(0, params.sigma_value) < 0, eta)
            updates, hit, start = updates + 1, True, j + 1
            reach = max(reach, start)
            t_hat = theta + rng.laplace(0, params.sigma_test)
        if not hit:
            break
    return mw.answers(), updates, passes, reach


@pytest.mark.parametrize("kind,size,n,block", [("prefix", 300, 2000, 65536), ("prefix", 4096, 20000, 64),
                                                ("prefix", 50, 10 ** 9, 65536), ("product", 64, 5000, 65536),
                                                ("product", 16, 200, 8)])
def test_compiled_pmw_equals_the_numpy_loop(kind, size, n, block):
    """Same answers (bitwise), counts and generator state after, halting and quiet runs alike."""
    data = np.random.default_rng(size)
    if kind == "prefix":
        true = np.concatenate([[0.0], np.cumsum(data.dirichlet(np.full(size, 0.5)))])
        make = lambda: bc.PrefixMW(size, np.arange(size + 1))  # noqa: E731
    else:
        true = data.uniform(0.1, 0.9, size)
        make = lambda: bc.ProductMW(size)  # noqa: E731
    params = bc.PMWParams(0.2, 1.0, 1e-6, size if kind == "prefix" else 2 ** size, n)
    fast_rng, ref_rng = np.random.default_rng(3), np.random.default_rng(3)
    fast = bc.offline_pmw(true, make(), params, fast_rng, block=block)
    answers, updates, passes, reach = _reference_pmw(true, make(), params, ref_rng, block=block)
    assert np.array_equal(fast.answers, answers) and fast.updates == updates > 0
    assert (fast.passes, fast.reach) == (passes, reach)
    assert fast_rng.random() == ref_rng.random()
