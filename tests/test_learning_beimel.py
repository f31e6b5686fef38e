"""Beimel et al. 2014 learners: exact laws, exact DP audits, the paper's sanity numbers."""
import math

import numpy as np
import pytest
from scipy import stats

from pubpriv_core.learning import FiniteDistribution
from pubpriv_core.learning import beimel2014 as B
from pubpriv_core.learning.audit import exact_audit

LABELLED = [(x, y) for x in range(4) for y in (0, 1)]


def split(db):
    return np.array([e[0] for e in db]), np.array([e[1] for e in db], dtype=bool)


def test_point_sampler_matches_exact_law():
    rng = np.random.default_rng(0)
    X, y = np.array([1, 1, 3, 0]), np.array([1, 1, 0, 0], dtype=bool)
    p = B.point_em_probabilities(X, y, 6, 1.0)
    draws = np.bincount([B.learn_point_proper(X, y, 6, 1.0, rng) for _ in range(4000)], minlength=6)
    chi2 = ((draws - 4000 * p) ** 2 / (4000 * p)).sum()
    assert chi2 < stats.chi2.ppf(0.999, 5)


def test_interval_sampler_matches_exact_law():
    rng = np.random.default_rng(1)
    X, y = np.array([2, 5, 5, 7]), np.array([1, 0, 0, 0], dtype=bool)
    p = B.interval_em_probabilities(X, y, 8, 1.0)
    draws = np.bincount([B.learn_interval_proper(X, y, 8, 1.0, rng) for _ in range(4000)], minlength=9)
    chi2 = ((draws - 4000 * p) ** 2 / (4000 * p)).sum()
    assert chi2 < stats.chi2.ppf(0.999, 8)


def hard_success(m, d, alpha, eps):
    """Spec's exact success probability of Lemma 3.4's learner on the hard distribution D_i."""
    K = np.arange(m + 1)
    T = 2**d
    return float(np.sum(stats.binom.pmf(K, m, alpha) / (1 + np.exp(-eps * m / 2) + (T - 2) * np.exp(-eps * K / 2))))


def test_point_learner_success_on_hard_distribution_matches_formula():
    rng = np.random.default_rng(2)
    d, m, alpha = 4, 134, 0.1
    T, i = 2**d, 7
    D = FiniteDistribution([0, i], [1 - alpha, alpha])
    wins = 0
    for _ in range(1500):
        X = D.sample(m, rng)
        wins += B.learn_point_proper(X, X == i, T, 1.0, rng) == i
    p = hard_success(m, d, alpha, 1.0)
    assert p == pytest.approx(0.95, abs=0.01)  # spec: n* = 134 at d = 4
    assert abs(wins / 1500 - p) < 4 * math.sqrt(p * (1 - p) / 1500)


def test_point_em_is_eps_dp_exactly_and_audit_detects_overclaim():
    law = lambda db: B.point_em_probabilities(*split(db), 4, 0.7)  # noqa: E731
    res = exact_audit(law, LABELLED, 3)
    assert res.passes(0.7) and res.eps_max > 0.5  # both score and normaliser move; not attained jointly
    assert not res.passes(0.35)


def test_interval_em_is_eps_dp_exactly():
    alphabet = [(x, y) for x in range(3) for y in (0, 1)]
    res = exact_audit(lambda db: B.interval_em_probabilities(*split(db), 3, 0.5), alphabet, 3)
    assert res.passes(0.5)


def test_a2_is_ln4_dp_exactly():
    alpha = 0.3
    alphabet = [(x, y) for x in range(3) for y in (0, 1)]
    law = lambda db: B.a2_output_distribution(*split(db), 3, alpha, alpha / 4)  # noqa: E731
    res = exact_audit(law, alphabet, 3)
    assert res.passes(B.LN4)
    assert exact_audit(law, alphabet, 5, limit=40, rng=np.random.default_rng(9)).passes(B.LN4)
    assert res.eps_max > math.log(1 + 8 * (alpha / 4) / (alpha * (1 - alpha / 4))) - 0.3


def test_a3_is_eps_dp_exactly():
    alpha, eps = 0.3, 0.5
    select = B.lemma4_4_rate(eps) * alpha / 4
    alphabet = [(x, y) for x in range(3) for y in (0, 1)]
    res = exact_audit(lambda db: B.a2_output_distribution(*split(db), 3, alpha, select), alphabet, 3)
    assert res.passes(eps) and res.eps_max > eps / 2


def test_a2_law_sums_to_one_and_matches_sampler():
    rng = np.random.default_rng(3)
    X, y, alpha, T = np.array([1, 1, 2]), np.array([1, 1, 0], dtype=bool), 0.4, 3
    p = B.a2_output_distribution(X, y, T, alpha, alpha / 4)
    assert p.sum() == pytest.approx(1.0)
    counts = np.zeros(2**T + 1)
    pts = np.arange(T)
    for _ in range(6000):
        rows = [i for i in range(3) if rng.random() < alpha / 4]
        h = B.NoisyPoint(None) if rng.random() < alpha / 8 else B.a1(X[rows], y[rows], alpha, rng)
        counts[-1 if h.is_bottom else int((h(pts).astype(int) << pts).sum())] += 1
    ok = p > 0.005
    chi2 = ((counts[ok] - 6000 * p[ok]) ** 2 / (6000 * p[ok])).sum()
    assert chi2 < stats.chi2.ppf(0.999, ok.sum() - 1)


def test_lemma4_4_rate_exceeds_eps_over_6():
    for eps in [0.1, 0.5, 0.99]:
        assert B.lemma4_4_rate(eps) > eps / 6


def test_boosting_plan_matches_spec_numbers():
    plan = B.BoostingPlan(0.1, 0.01, 1.0)
    assert plan.runs == 28 and plan.m_run_paper == 3406958 and plan.m_sel == 2475


def test_one_sided_hypothesis_contains_center():
    rng = np.random.default_rng(4)
    for _ in range(20):
        h = B.a1(np.array([5, 9]), np.array([1, 0], dtype=bool), 0.2, rng, one_sided=True)
        assert h(np.array([5]))[0] and h.one_sided


def test_boosted_learner_learns_point_with_binomial_shortcut():
    rng = np.random.default_rng(5)
    alpha, target = 0.1, 123456789  # a code in a 2^40-point domain; only the support matters
    D = FiniteDistribution([0, target, 99], [0.6, 0.2, 0.2])
    draw = lambda k, r: (lambda X: (X, X == target))(D.sample(k, r))  # noqa: E731
    errs = [B.learn_point_boosted(400_000, draw, alpha, 0.05, 1.0, rng).error(target, D) for _ in range(10)]
    assert np.mean(np.array(errs) <= alpha) >= 0.9


def test_laplace_histogram_usefulness_matches_closed_form():
    rng = np.random.default_rng(6)
    d, alpha, eps, m = 10, 0.1, 1.0, 200
    X = np.zeros(m, dtype=int)
    useful = np.mean([B.laplace_histogram_error(X, 2**d, eps, rng) < alpha for _ in range(4000)])
    exact = (1 - math.exp(-alpha * eps * m / 2)) ** (2**d)
    assert abs(useful - exact) < 4 * math.sqrt(exact * (1 - exact) / 4000)
    assert B.laplace_histogram_m_star(d, alpha, 0.05, eps) == pytest.approx(
        -2 * math.log(1 - 0.95 ** (1 / 2**d)) / (eps * alpha))


def test_blr_is_eps_dp_exactly():
    res = exact_audit(lambda db: B.blr_probabilities(np.array(db), 3, 3, 0.8)[1], [0, 1, 2], 3)
    assert res.passes(0.8)


def test_representation_finds_separating_set_on_hard_distribution():
    rng = np.random.default_rng(7)
    rep = B.HashRepresentation(d=20, alpha=0.1, seed=11)
    D = FiniteDistribution([0, 77], [0.9, 0.1])
    X = D.sample(600, rng)
    i = B.learn_representation(X, X == 77, rep, 1.0, rng)
    assert B.representation_error(rep, i, 77, D) == 0.0
    M = rep.members(np.array([0, 77]))
    assert abs(np.mean(M[:, 1] & ~M[:, 0]) - rep.density * (1 - rep.density)) < 0.002


def test_fresh_representation_shortcut_matches_hashed_learner():
    rng = np.random.default_rng(8)
    D = FiniteDistribution([0, 77], [0.9, 0.1])
    hashed, fresh = [], []
    for t in range(200):
        X = D.sample(90, rng)
        rep = B.HashRepresentation(d=8, alpha=0.3, seed=t)
        hashed.append(B.representation_error(rep, B.learn_representation(X, X == 77, rep, 1.0, rng), 77, D) < 0.1)
        member = B.learn_representation_fresh(X, X == 77, D.points, 8, 0.3, 1.0, rng)
        fresh.append(float(D.mass(member != (D.points == 77))) < 0.1)
    p, q = np.mean(hashed), np.mean(fresh)
    assert 0.2 < q < 0.95  # informative regime
    assert abs(p - q) < 4 * math.sqrt(q * (1 - q) / 100)


def test_reconstruction_recovers_clean_threshold_and_fails_on_ties():
    T = 16
    for t in [0, 5, 16]:
        assert B.reconstruct_threshold(np.arange(T) < t) == t
    h = np.arange(T) < 5
    h[6] = True  # one dirty point just after the switch: mismatch(5) = mismatch(7) = 1
    assert B.reconstruct_threshold(h) is None


def test_reconstruction_failure_rate_matches_random_walk():
    # one side fails iff a walk with up-probability μ ever reaches 0: P = 2μ; two sides: 1 − (1 − 2μ)²
    rng = np.random.default_rng(10)
    mu, T, j, R = 0.05, 400, 200, 3000
    fails = sum(B.reconstruct_threshold((np.arange(T) < j) ^ (rng.random(T) < mu)) != j for _ in range(R))
    exact = 1 - (1 - 2 * mu) ** 2
    assert abs(fails / R - exact) < 4 * math.sqrt(exact * (1 - exact) / R)


def test_seed_learner_matches_brute_force_law_with_prg_collisions():
    rng = np.random.default_rng(11)
    ell, d = 4, 3  # 16 seeds onto 8 points: collisions and unseen points both occur
    G = B.prg_table(ell, d)
    X = np.array([G[0], G[0], G[5], 7 - G[0] % 2])
    y = X == G[0]
    p = B.seed_em_probabilities(X, y, ell, d, 1.0)
    draws = np.bincount([B.learn_seed_proper(X, y, ell, d, 1.0, rng) for _ in range(4000)], minlength=16)
    ok = p > 0.005
    chi2 = ((draws[ok] - 4000 * p[ok]) ** 2 / (4000 * p[ok])).sum()
    assert chi2 < stats.chi2.ppf(0.999, ok.sum() - 1)


def test_sparse_representation_matches_pattern_shortcut_law():
    """Both shortcuts draw from the same law: success rates on a 3-point support agree."""
    D = FiniteDistribution([0, 9, 17], [0.8, 0.1, 0.1])

    def rate(learner, R=1500):
        ok = 0
        for i in range(R):
            rng = np.random.default_rng(i)
            X = D.sample(150, rng)
            m = learner(X, X == 9, D.points, 8, 0.1, 1.0, rng)
            ok += D.mass(m != (D.points == 9)) < 0.1
        return ok / R

    a, b = rate(B.learn_representation_fresh), rate(B.learn_representation_sparse)
    assert 0.5 < a < 0.95 and abs(a - b) < 4 * np.sqrt(2 * a * (1 - a) / 1500)


def test_sparse_representation_on_wide_support_learns_with_enough_samples():
    pts = np.arange(66)
    D = FiniteDistribution(pts, np.append(np.full(65, 0.9 / 65), 0.1))
    errs = []
    for i in range(30):
        rng = np.random.default_rng(i)
        X = D.sample(3000, rng)
        m = B.learn_representation_sparse(X, X == 65, D.points, 32, 0.1, 1.0, rng)
        errs.append(D.mass(m != (D.points == 65)))
    assert np.mean(np.array(errs) < 0.1) > 0.9
    small = [D.mass(B.learn_representation_sparse(X := D.sample(5, np.random.default_rng(i)), X == 65, D.points,
                                                  32, 0.1, 1.0, np.random.default_rng(i)) != (D.points == 65))
             for i in range(30)]
    assert np.mean(np.array(small) < 0.1) < 0.5
