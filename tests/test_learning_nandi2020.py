"""Tests for pubpriv_core.learning.nandi2020 (Nandi & Bassily 2020, workload W1)."""
import math

import numpy as np
import pytest
from scipy import integrate, stats

from pubpriv_core.learning import nandi2020 as nb


def test_literal_parameters_reproduce_spec_table():
    row = nb.literal_feasibility(10, 1000, 1.0, 1e-5, 0.1, 0.1)
    assert row["T"] == pytest.approx(25.6, abs=0.05)
    assert row["eps_hat"] == pytest.approx(0.082, abs=5e-4)
    assert row["lam"] == pytest.approx(1416, rel=2e-3)
    assert row["k"] == pytest.approx(1.86e6, rel=5e-3)
    assert row["w"] == pytest.approx(6.6e4, rel=5e-3)
    assert row["n"] == pytest.approx(9.9e11, rel=0.01)
    assert not row["feasible"]
    row = nb.literal_feasibility(10, 100, 1.0, 1e-3, 0.25, 0.1)
    assert (row["T"], row["eps_hat"]) == (pytest.approx(8.8, abs=0.05), pytest.approx(0.132, abs=5e-4))
    assert (row["lam"], row["k"], row["w"]) == (pytest.approx(430, rel=2e-3), pytest.approx(3.9e5, rel=5e-3),
                                                 pytest.approx(1.37e4, rel=5e-3))


def test_prefix_mistakes_matches_brute_force():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 9)
    brute = [int(np.sum(y[:i] == 1) + np.sum(y[i:] == 0)) for i in range(10)]
    assert nb.prefix_mistakes(y).tolist() == brute


def test_erm_and_consistent_chunk_learners():
    rng = np.random.default_rng(1)
    x = rng.random((50, 7))
    y = (rng.random((50, 7)) < 0.5).astype(np.int8)
    t = nb.erm_chunk_thresholds(x, y)
    got = ((x >= t[:, None]) != y).sum(axis=1)
    best = [min(((row_x >= c) != row_y).sum() for c in np.concatenate([[0.0, 1.0], row_x]))
            for row_x, row_y in zip(x, y)]
    assert got.tolist() == best
    xs = np.sort(rng.random(40))
    cut = 17
    idx = rng.integers(0, 40, (30, 6))
    t = nb.consistent_chunk_thresholds(idx, cut, xs)
    assert np.all((xs[idx] >= t[:, None]) == (idx >= cut))


def test_relabel_follows_exponential_mechanism():
    xs = np.array([0.1, 0.3, 0.5, 0.7])
    ys = np.array([0, 1, 0, 1], np.int8)
    p = np.exp(-nb.prefix_mistakes(ys) / 2.0)
    p /= p.sum()
    rng = np.random.default_rng(2)
    draws = [nb.relabel_sorted(xs, ys, rng)[1] for _ in range(20000)]
    counts = np.bincount(draws, minlength=5)
    assert stats.chisquare(counts, 20000 * p).pvalue > 1e-3


def _bottom_probability(gap: float, lam: float) -> float:
    """P[dist + Lap(2λ) ≤ w + Lap(λ)] with dist − w = gap."""
    f = lambda u: stats.laplace.pdf(u, scale=2 * lam) * stats.laplace.sf(gap + u, scale=lam)
    return integrate.quad(f, -60 * lam, 60 * lam, points=[0, -gap], limit=200)[0]


def test_stability_test_noise_scales():
    lam, k = 5.0, 101
    w = k - lam                                   # dist = k for unanimous votes, gap = λ
    rng = np.random.default_rng(3)
    chunk_t = np.zeros(k)
    bottoms = [nb.subsamp_answer(chunk_t, np.array([0.5]), 10, lam, w, rng).bottom[0] for _ in range(6000)]
    exact = _bottom_probability(lam, lam)
    assert abs(np.mean(bottoms) - exact) < 4 * math.sqrt(exact * (1 - exact) / 6000)
    assert abs(_bottom_probability(lam, lam / 2) - exact) > 0.03      # a wrong scale is detectable


def test_sparse_vector_halts_after_T_plus_one_bottoms():
    rng = np.random.default_rng(4)
    out = nb.subsamp_answer(np.full(10, 0.5), rng.random(200), 3, 1.0, 1e6, rng)
    assert out.c == 4 and out.halted and out.answered == 4 and out.bottom[:4].all()


def test_cell_probabilities_match_sampling():
    task = nb.NoisyThreshold(0.37, 0.2)
    edges = np.array([0.0, 0.2, 0.4, 0.9, 1.0])
    p = task.cell_probabilities(edges)
    assert p.sum() == pytest.approx(1.0)
    x, y = task.sample(200000, np.random.default_rng(5))
    freq = nb.bin_counts(edges, x, y) / 200000
    assert np.abs(freq - p).max() < 0.005


def test_sorted_sampler_is_uniform():
    x, _ = nb.NoisyThreshold().sample(50000, np.random.default_rng(6), sort=True)
    assert np.all(np.diff(x) >= 0)
    assert stats.kstest(x, "uniform").pvalue > 1e-3


def test_agprivcl_accuracy_depends_on_n():
    task = nb.NoisyThreshold(0.5, 0.05)
    params = nb.AgPrivClParams(300, 1.0, 1e-3, 0.1, 0.1)
    w = params.subsamp.w
    good = nb.ag_priv_cl(task, int(3 * w) * 32, params, 32, np.random.default_rng(7))
    assert not good.halted and good.expected_error <= task.gamma + 0.1
    bad = nb.ag_priv_cl(task, int(0.5 * w) * 32, params, 32, np.random.default_rng(7))
    assert bad.halted and bad.expected_error > task.gamma + 0.1
    assert good.n == math.ceil(56 * int(3 * w) * 32 / 1.0)


def test_sspp_picks_near_target_and_unv_budget_split():
    task = nb.NoisyThreshold(0.3, 0.1)
    rng = np.random.default_rng(8)
    t = [nb.sspp(task, 100000, rng.random(500), 1.0, rng) for _ in range(20)]
    assert np.max(np.abs(np.array(t) - 0.3)) < 0.02
    run = nb.unv_priv_cl(task, 3 * 10 ** 8, 3000, 1.0, 1e-3, 0.1, 0.1, 32, rng)
    assert run.extra["eps_claimed"] == 1.0 and run.extra["m1"] == nb.m_o(1, 0.1, 0.1) == 1474
    assert abs(run.extra["t_priv"] - 0.3) < 0.01


def test_bad_parameters_raise_one_line():
    with pytest.raises(ValueError, match="eta must be"):
        nb.NoisyThreshold(0.5, 0.6)
    with pytest.raises(ValueError, match="delta must be"):
        nb.AgPrivClParams(10, 1.0, 2.0, 0.1, 0.1)
    with pytest.raises(ValueError, match="eps must be > 0"):
        nb.AgPrivClParams(10, -1.0, 1e-3, 0.1, 0.1)


@pytest.mark.parametrize("sensitivity, passes", [(1.0, True), (0.5, False)])
def test_exact_audit_of_sspp_and_relabel_selection(sensitivity, passes):
    """A_SSPP / A_Relabel select with P ∝ exp(−ε·mistakes/2): over all databases of 3 records on
    3 cells × 2 labels and all their neighbours the output law changes by ≤ e^ε; the same
    mechanism calibrated for sensitivity 1/2 is flagged."""
    from pubpriv_core.learning.audit import exact_audit
    from pubpriv_core.privacy import exponential_mechanism_probabilities

    eps = 0.7
    alphabet = [(c, b) for c in range(3) for b in (0, 1)]

    def law(db):
        counts = np.zeros((3, 2))
        for c, b in db:
            counts[c, 1 - b] += 1
        return exponential_mechanism_probabilities(-nb.cell_mistakes(counts), eps, sensitivity)

    result = exact_audit(law, alphabet, 3)
    assert result.passes(eps) == passes
    assert result.eps_max > 0.5 * eps


def test_compiled_building_blocks_equal_their_numpy_forms():
    """Labels draw the same numbers as rng.random(shape) < η; prefix mistakes and the consistent
    chunk thresholds equal the cumulative-sum and masked max/min forms exactly."""
    task = nb.NoisyThreshold(0.4, 0.1)
    x = np.random.default_rng(3).random((40, 7))
    fast_rng, ref_rng = np.random.default_rng(4), np.random.default_rng(4)
    assert np.array_equal(task.labels(x, fast_rng), ((x >= 0.4) ^ (ref_rng.random(x.shape) < 0.1)).astype(np.int8))
    assert fast_rng.random() == ref_rng.random()
    y = (np.random.default_rng(5).random(1001) < 0.3).astype(np.int8)
    neg = 1 - y.astype(np.int64)
    ref = np.concatenate([[0], np.cumsum(y, dtype=np.int64)]) + np.concatenate([np.cumsum(neg[::-1])[::-1], [0]])
    assert np.array_equal(nb.prefix_mistakes(y), ref)
    xs = np.sort(np.random.default_rng(6).random(500))
    for cut in (0, 3, 250, 500):
        idx = np.random.default_rng(cut).integers(0, 500, (64, 9))
        lo, hi = np.where(idx < cut, idx, -1).max(axis=1), np.where(idx >= cut, idx, 500).min(axis=1)
        pad = np.concatenate([[0.0], xs, [1.0]])
        ref = np.where(lo < 0, 0.0, np.where(hi >= 500, 1.0, 0.5 * (pad[lo + 1] + pad[hi + 1])))
        assert np.array_equal(nb.consistent_chunk_thresholds(idx, cut, xs), ref)


def test_sorted_sample_is_the_normalised_exponential_cumsum():
    fast, ref = np.random.default_rng(8), np.random.default_rng(8)
    x, _ = nb.NoisyThreshold(0.5, 0.05).sample(10001, fast, sort=True)
    gaps = ref.standard_exponential(10002)
    assert np.array_equal(x, np.cumsum(gaps[:-1]) / gaps.sum())


def _erm_numpy(x, y):
    order = np.argsort(x, axis=1)
    xs, ys = np.take_along_axis(x, order, axis=1), np.take_along_axis(y, order, axis=1).astype(np.int64)
    k, s = x.shape
    mistakes = (np.concatenate([np.zeros((k, 1), np.int64), np.cumsum(ys, axis=1)], axis=1)
                + np.concatenate([np.cumsum((1 - ys)[:, ::-1], axis=1)[:, ::-1], np.zeros((k, 1), np.int64)], axis=1))
    cut = np.argmin(mistakes, axis=1)
    padded = np.concatenate([np.zeros((k, 1)), xs, np.ones((k, 1))], axis=1)
    mid = 0.5 * (padded[np.arange(k), cut] + padded[np.arange(k), cut + 1])
    return np.where(cut == 0, 0.0, np.where(cut == s, 1.0, mid))


def _subsamp_numpy(ct1, k, T, lam, w, rng):
    m = len(ct1)
    vote = (2 * ct1 > k).astype(np.int8)
    noisy = np.abs(2 * ct1 - k) + rng.laplace(0.0, 2 * lam, m)
    bottom, i, c = np.zeros(m, bool), 0, 0
    while i < m and c <= T:
        fails = np.flatnonzero(noisy[i:] <= w + rng.laplace(0.0, lam))
        if fails.size == 0:
            i = m
            break
        bottom[i + fails[0]] = True
        i, c = i + fails[0] + 1, c + 1
    coin = rng.integers(0, 2, m, dtype=np.int8)
    return np.where(bottom | (np.arange(m) >= i), coin, vote), bottom, i, c


def test_compiled_erm_and_sparse_vector_equal_the_numpy_loops():
    x = np.random.default_rng(9).random((300, 16))
    y = (np.random.default_rng(10).random((300, 16)) < 0.4).astype(np.int8)
    assert np.array_equal(nb.erm_chunk_thresholds(x, y), _erm_numpy(x, y))
    for T, w in ((3.0, 40.0), (50.0, 5.0), (1e9, 0.0)):              # halting, partial and quiet runs
        ct1 = np.random.default_rng(11).integers(0, 201, 5000)
        fast_rng, ref_rng = np.random.default_rng(12), np.random.default_rng(12)
        out = nb.subsamp_answer_counts(ct1, 200, T, 3.0, w, fast_rng)
        labels, bottom, i, c = _subsamp_numpy(ct1, 200, T, 3.0, w, ref_rng)
        assert np.array_equal(out.labels, labels) and np.array_equal(out.bottom, bottom)
        assert (out.answered, out.c) == (i, c) and fast_rng.random() == ref_rng.random()
