"""Alon–Bassily–Moran 2019: exact cover radius, ASSPP's privacy, Reduction B's samplers."""
import math

import numpy as np
import pytest
from scipy import stats

from pubpriv_core.learning import FiniteDistribution, Intervals, Mixture01, Thresholds
from pubpriv_core.learning import alon2019 as A
from pubpriv_core.learning.audit import exact_audit

D_MIX = Mixture01(betas=[(0.6, 0.5, 3.0)], atoms=[(0.25, 0.3), (0.15, 0.8)])


def project(cls, cover, T, H):
    """Brute-force Project: the cover element with the same pattern on T."""
    index = {p: k for k, p in enumerate(cls.patterns(cover, T))}
    return cover[[index[p] for p in cls.patterns(H, T)]]


@pytest.mark.parametrize("rule", ["left", "mid", "random"])
def test_threshold_cover_radius_matches_brute_force(rule):
    rng = np.random.default_rng(0)
    T = np.append(D_MIX.sample(12, rng), 0.3)
    cls = Thresholds(None)
    cover = cls.cover(T, rule, rng)
    ts = np.unique(np.concatenate([np.linspace(0, 1, 4001), T, np.nextafter(T, 2)]))[:, None]
    brute = cls.disagreement(ts, project(cls, cover, T, ts), D_MIX).max()
    radius = A.cover_radius(cls, T, cover, D_MIX)
    assert brute <= radius + 1e-12 and radius - brute < 2e-3


def test_interval_cover_radius_matches_brute_force():
    rng = np.random.default_rng(1)
    T = D_MIX.sample(6, rng)
    cls = Intervals(None)
    cover = cls.cover(T, "mid", rng)
    g = np.unique(np.concatenate([np.linspace(0, 1, 301), T, np.nextafter(T, 2)]))
    a, b = np.meshgrid(g, g, indexing="ij")
    H = np.stack([a.ravel(), b.ravel()], axis=1)
    H = H[H[:, 0] <= H[:, 1]]
    brute = cls.disagreement(H, project(cls, cover, T, H), D_MIX).max()
    radius = A.cover_radius(cls, T, cover, D_MIX)
    assert brute <= radius + 1e-12 and radius - brute < 0.02


def test_grid_threshold_radius_is_largest_gap_mass_for_left_rule():
    D = FiniteDistribution(np.arange(10), np.full(10, 0.1))
    T = np.array([2, 3, 7])
    cover = Thresholds(10).cover(T, "left")
    # gaps of t: [0,2], [3,3], [4,7], [8,10]; left reps 0, 3, 4, 8 -> radius 0.3 (t=7 vs rep 4)
    assert A.cover_radius(Thresholds(10), T, cover, D) == pytest.approx(0.3)


def test_asspp_is_eps_dp_for_fixed_public_sample():
    cls, eps = Thresholds(5), 0.6
    T_pub = np.array([1, 3])
    cover = cls.cover(T_pub)
    alphabet = [(x, y) for x in range(5) for y in (0, 1)]
    law = lambda db: A.asspp_probabilities(cls, np.array([e[0] for e in db]),  # noqa: E731
                                           np.array([e[1] for e in db], dtype=bool), cover, eps)
    res = exact_audit(law, alphabet, 3)
    assert res.passes(eps) and not res.passes(eps / 2)


def test_asspp_sampler_matches_law_and_learns():
    rng = np.random.default_rng(2)
    cls = Thresholds(None)
    D = Mixture01.uniform()
    T_pub = D.sample(20, rng)
    X, y = cls.sample([0.5], D, 60, rng, noise=0.1)
    cover = cls.cover(T_pub)
    p = A.asspp_probabilities(cls, X, y, cover, 1.0)
    picks = [A.asspp(cls, X, y, T_pub, 1.0, rng)[0] for _ in range(4000)]
    counts = np.array([np.sum(np.isclose(picks, c)) for c in cover[:, 0]])
    ok = p > 1e-3
    assert counts.sum() == 4000
    chi2 = ((counts[ok] - 4000 * p[ok]) ** 2 / (4000 * p[ok])).sum()
    assert chi2 < stats.chi2.ppf(0.999, ok.sum() - 1)


def d0(k, rng):
    return rng.random(k), rng.random(k) < 0.5


def test_priv_samp_mixes_at_rate_p_and_keeps_order():
    rng = np.random.default_rng(3)
    Xt = np.arange(1000, 1020, dtype=float)
    used, early = [], []
    for _ in range(2000):
        X, y, ex, u = A.priv_samp(Xt, np.ones(20, dtype=bool), d0, 0.01, 1000, rng)
        used.append(u)
        early.append(ex)
        real = X[X >= 1000]
        assert np.array_equal(real, Xt[:u]) and len(X) <= 1000
    # S̃ (20 items) is exhausted before 1000 entries iff Bin(1000, 0.01) ≥ 20 (roughly; the stop is at the 20th hit)
    assert np.mean(early) == pytest.approx(stats.binom.sf(19, 1000, 0.01), abs=0.015)
    assert np.mean(used) == pytest.approx(np.mean(np.minimum(rng.binomial(1000, 0.01, 200000), 20)), abs=0.3)


def test_reduction_b_checks_sample_size_and_runs():
    rng = np.random.default_rng(4)
    cls = Thresholds(None)
    learner = lambda X, y, Xp, r: A.asspp(cls, X, y, Xp, 1.0, r)  # noqa: E731
    with pytest.raises(ValueError, match="S̃ must have"):
        A.reduction_b(np.zeros(3), np.zeros(3, dtype=bool), learner, d0, 1000, 5, rng)
    n_tilde = math.ceil(1000 / 50)
    X = rng.random(n_tilde)
    out = A.reduction_b(X, X < 0.5, learner, d0, 1000, 5, rng)
    assert 0.0 <= out.hypothesis[0] <= 1.0 and not out.exited_early


def test_hard_mixture_excess_is_p_times_error_on_d():
    inst = A.HardMixture(0.01, 0.25)
    rng = np.random.default_rng(3)
    X, y = inst.sample(400_000, rng)
    for t in (0.0, 0.2, 0.25, 0.4, 0.9):
        emp = np.mean((X < t) != y) - np.mean((X < 0.25) != y)
        assert abs(emp - inst.excess(t)) < 4e-3
    assert inst.excess(0.9) == pytest.approx(16 * 0.01 * 2 * 0.25)
    with pytest.raises(ValueError, match="alpha"):
        A.HardMixture(0.05, 0.25)


def test_hard_mixture_cover_failure_matches_monte_carlo():
    inst = A.HardMixture(0.01, 0.3)
    rng = np.random.default_rng(4)
    for n_pub in (20, 80):
        fails = np.mean([inst.best_cover_excess(inst.sample(n_pub, rng)[0]) > 0.01 for _ in range(3000)])
        exact = inst.cover_failure(n_pub)
        assert abs(fails - exact) < 4 * math.sqrt(exact * (1 - exact) / 3000) + 1e-3
    assert A.HardMixture(0.01, 0.02).cover_failure(5) == 0.0  # the threshold 0 is within 1/32


def test_hard_instance_asspp_fails_below_and_succeeds_above_one_over_alpha():
    fail = lambda n_pub: np.mean([A.hard_instance_trial(0.02, 4000, n_pub, 1.0, 0, np.random.default_rng(i))[0] > 0.02  # noqa: E731
                                  for i in range(150)])
    assert fail(5) > 0.7 and fail(400) < 0.05
    assert A.hard_instance_failure(0.02, 5) > 0.75 and A.hard_instance_failure(0.02, 400) < 1e-3


def test_zipf_grid_cover_grows_with_public_sample():
    D = A.zipf_grid(2**16, 1.5, 2**20)
    rng = np.random.default_rng(5)
    sizes = [len(Thresholds(2**40).cover(D.sample(n, rng))) for n in (100, 1000, 10000)]
    assert sizes[0] < sizes[1] < sizes[2] < 10001 and sizes[2] > 3 * sizes[0]
    cls = Thresholds(2**40)
    t = A.median_threshold(cls, D)
    assert D.prob_below(t) < 0.5 <= D.prob_below(t + 1)


def test_asspp_growing_trial_reports_excess_and_cover_size():
    cls, D = Thresholds(None), Mixture01.uniform()
    out = np.array([A.asspp_growing_trial(cls, D, 0.1, 50, 1.0, 2000, np.random.default_rng(i)) for i in range(40)])
    assert np.all(out[:, 1] == 51) and np.quantile(out[:, 0], 0.9) < 0.1
    tiny = np.array([A.asspp_growing_trial(cls, D, 0.1, 50, 1.0, 2, np.random.default_rng(i)) for i in range(40)])
    assert tiny[:, 0].mean() > out[:, 0].mean() + 0.05


def test_finite_distribution_sample_is_rng_choice():
    D = FiniteDistribution(np.arange(7) * 3, [0.1, 0.2, 0.05, 0.05, 0.3, 0.2, 0.1])
    a = D.sample(1000, np.random.default_rng(5))
    b = D.points[np.random.default_rng(5).choice(7, size=1000, p=D.probs)]
    assert np.array_equal(a, b)


def test_gap_masses_reuse_the_left_rule_cdf_exactly():
    """With the "left" rule's representatives F(r_i) is F just above x_(i): reusing those values
    gives the same numbers as evaluating F at the representatives (continuous and grid cases)."""
    cases = [(Thresholds(None), Mixture01(betas=[(0.6, 1.0, 1.0)], atoms=[(0.2, 0.3), (0.2, 0.7)])),
             (Thresholds(64), FiniteDistribution(np.arange(1, 60, 3), np.full(20, 0.05)))]
    for cls, dist in cases:
        T = dist.sample(40, np.random.default_rng(1))
        reps = cls.cover(T, "left")[:, 0]
        e, g = A.gap_masses(T, reps, dist)
        xs = np.unique(T)
        top = 1.0 if cls.N is None else np.iinfo(np.int64).max
        f_lo = np.concatenate([[0.0], dist.prob_below(A._just_above(xs))])
        f_hi, f_r = dist.prob_below(np.append(xs, top)), dist.prob_below(reps)
        assert np.array_equal(e, np.maximum(f_r - f_lo, f_hi - f_r)) and np.array_equal(g, f_hi - f_lo)


def test_mixture_sample_draws_what_rng_choice_draws():
    """Mixture01.sample picks components by the inverse CDF of rng.random: the same draws (and
    generator state) as rng.choice(p=weights) followed by the components' values."""
    fast, ref = np.random.default_rng(2), np.random.default_rng(2)
    got = D_MIX.sample(3000, fast)
    which = ref.choice(3, size=3000, p=[0.6, 0.25, 0.15])
    want = np.where(which == 1, 0.3, 0.8)
    want[which == 0] = ref.beta(0.5, 3.0, size=int(np.sum(which == 0)))
    assert np.array_equal(got, want) and fast.random() == ref.random()
