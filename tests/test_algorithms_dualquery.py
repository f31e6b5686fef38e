"""DualQuery (Gaboardi et al. 2014; spec liu2021_pmwpub.md §3): calibration, oracle, release."""
from __future__ import annotations

import itertools
import math

import types

import numpy as np
import pytest

from pubpriv_core.harness import ReleaseProblem, run_algorithm
from pubpriv_core.privacy.ledger import Ledger
from pubpriv_core.privacy.private_data import PrivateData
from pubpriv_core.algorithms.best_response import BestResponse, net_cell_weights, sampled_payoff
from pubpriv_core.algorithms.dualquery import (QueryPlayer, calibrate_rounds, dualquery_epsilon,
                                               dualquery_rho)
from pubpriv_core.data.domain import Dataset, Domain
from pubpriv_core.queries import MarginalWorkload, answer_records, error_summary


def all_records(domain: Domain) -> np.ndarray:
    return np.array(list(itertools.product(*[range(s) for s in domain.shape])))


def skewed_dataset(n: int, domain: Domain, rng: np.random.Generator) -> Dataset:
    """Two latent classes, each with geometric value preferences in opposite directions."""
    latent = rng.integers(0, 2, n)
    columns = []
    for size in domain.shape:
        p = np.exp(-np.arange(size, dtype=float))
        cdf0, cdf1 = np.cumsum(p / p.sum()), np.cumsum(p[::-1] / p.sum())
        u = rng.random(n)
        codes = np.where(latent == 0, np.searchsorted(cdf0, u), np.searchsorted(cdf1, u))
        columns.append(np.minimum(codes, size - 1))
    return Dataset(np.stack(columns, axis=1), domain)


@pytest.fixture(scope="module")
def small_problem() -> ReleaseProblem:
    domain = Domain(list("abcde"), [3, 4, 2, 5, 3])
    data = skewed_dataset(2000, domain, np.random.default_rng(1))
    return ReleaseProblem(data, MarginalWorkload.random(domain, 2))


# --- privacy calibration -------------------------------------------------------------------

def spec_epsilon(eta, s, T, n, delta):
    """The spec's formula written out (liu2021_pmwpub.md §3)."""
    e = 2 * eta * (T - 1) / n
    return e * math.sqrt(2 * s * (T - 1) * math.log(1 / delta)) + s * (T - 1) * e * math.expm1(e)


def test_epsilon_matches_the_spec_formula():
    for eta, s, T, n, delta in [(2.0, 200, 26, 48790, 48790 ** -2), (0.5, 25, 300, 10 ** 5, 1e-10),
                                (5.0, 500, 2, 1000, 1e-6)]:
        assert dualquery_epsilon(eta, s, T, n, delta) == pytest.approx(
            spec_epsilon(eta, s, T, n, delta), rel=1e-12)
    assert dualquery_epsilon(2.0, 200, 1, 1000, 1e-6) == 0.0


@pytest.mark.parametrize("n", [1000, 48790, 1_000_000])
@pytest.mark.parametrize("eta,samples", [(0.5, 25), (2.0, 200), (5.0, 500)])
def test_calibration_is_the_largest_round_count_within_eps(n, eta, samples):
    for eps in [0.05, 0.1, 0.5, 1.0, 5.0]:
        for delta in [1e-6, 1e-9, 1.0 / n ** 2]:
            T = calibrate_rounds(eps, delta, n, eta, samples)
            assert T >= 1
            assert dualquery_epsilon(eta, samples, T, n, delta) <= eps
            assert spec_epsilon(eta, samples, T + 1, n, delta) > eps


def test_calibration_known_value_adult():
    """n = 48790 (ADULT), δ = 1/n², η = 2, s = 200, ε = 1: 26 rounds, ε(26) = 0.97339."""
    n = 48790
    assert calibrate_rounds(1.0, n ** -2.0, n, 2.0, 200) == 26
    assert dualquery_epsilon(2.0, 200, 26, n, n ** -2.0) == pytest.approx(0.97339, abs=1e-5)


def test_rho_is_the_sum_of_per_round_pure_dp_costs():
    eta, s, T, n = 2.0, 200, 30, 5000
    explicit = sum(s * (2 * eta * (t - 1) / n) ** 2 / 2 for t in range(2, T + 1))
    assert dualquery_rho(eta, s, T, n) == pytest.approx(explicit, rel=1e-12)
    assert dualquery_rho(eta, s, 1, n) == 0.0


@pytest.mark.parametrize("kwargs,match", [
    ({"eps": -1.0}, "eps must"), ({"eta": 0.0}, "eta must"), ({"samples": 0}, "samples must"),
    ({"delta": 1.5}, "delta must"), ({"n": 0}, "n must")])
def test_calibration_rejects_bad_input_in_one_line(kwargs, match):
    args = {"eps": 1.0, "delta": 1e-6, "n": 1000, "eta": 2.0, "samples": 50} | kwargs
    with pytest.raises(ValueError, match=match) as err:
        calibrate_rounds(**args)
    assert "\n" not in str(err.value)


# --- data player: exact best response ------------------------------------------------------

def test_net_weights_cancel_a_cell_and_its_negation():
    cells, weights = net_cell_weights(np.array([3, 3, 10 + 3, 10 + 5, 7]), num_queries=10)
    assert cells.tolist() == [3, 5, 7] and weights.tolist() == [1.0, -1.0, 1.0]
    cells, weights = net_cell_weights(np.array([4, 14]), num_queries=10)
    assert cells.size == 0 and weights.size == 0


def test_sampled_payoff_by_hand():
    domain = Domain(["a", "b", "c"], [2, 3, 2])
    workload = MarginalWorkload(domain, ((0, 1), (0, 2)))     # cells: a*3+b, then 6 + a*2+c
    q_ab = 1 * 3 + 2                                          # a=1, b=2
    not_ac = workload.num_queries + 6 + 1 * 2 + 0             # ¬(a=1, c=0)
    records = np.array([[1, 2, 1], [1, 2, 0], [0, 0, 0]])
    assert sampled_payoff(workload, np.array([q_ab, not_ac]), records).tolist() == [2, 1, 1]
    oracle = BestResponse(workload)
    cells, weights = net_cell_weights(np.array([q_ab, not_ac]), workload.num_queries)
    best = oracle.solve(cells, weights, np.random.default_rng(0))
    assert best.tolist() == [1, 2, 1]


@pytest.mark.parametrize("shape,marginals", [
    ([3, 4, 2, 3], None),                                     # all 2-way marginals
    ([4, 3, 5, 2, 3, 4], None),                               # all 3-way marginals (20)
    ([2, 5, 3, 4], ((0,), (1, 2), (0, 2, 3), (1, 3))),        # mixed k, 1..3
])
def test_best_response_equals_brute_force(shape, marginals):
    domain = Domain([f"x{j}" for j in range(len(shape))], shape)
    k = 2 if len(shape) == 4 else 3
    workload = (MarginalWorkload.random(domain, k) if marginals is None
                else MarginalWorkload(domain, marginals))
    oracle, everything = BestResponse(workload), all_records(domain)
    rng = np.random.default_rng(7)
    for _ in range(40):
        s = int(rng.integers(1, 40))
        # half the draws from a few cells so that repeats and cancellations occur
        pool = rng.integers(0, 2 * workload.num_queries, size=8)
        sampled = np.where(rng.random(s) < 0.5, rng.choice(pool, size=s),
                           rng.integers(0, 2 * workload.num_queries, size=s))
        record = oracle.solve(*net_cell_weights(sampled, workload.num_queries), rng)
        assert record.shape == (len(shape),)
        assert np.all((record >= 0) & (record < np.asarray(shape)))
        best = sampled_payoff(workload, sampled, everything).max()
        assert sampled_payoff(workload, sampled, record[None])[0] == best


def test_best_response_only_negations_avoids_every_cell():
    domain = Domain(["a", "b"], [2, 2])
    workload = MarginalWorkload(domain, ((0, 1),))
    sampled = workload.num_queries + np.array([0, 1, 2])     # ¬ of cells 00, 01, 10
    cells, weights = net_cell_weights(sampled, workload.num_queries)
    assert oracle_record(workload, cells, weights).tolist() == [1, 1]


def oracle_record(workload, cells, weights):
    return BestResponse(workload).solve(cells, weights, np.random.default_rng(0))


def test_best_response_on_adult_sized_domain_is_a_local_optimum():
    """|X| ≈ 7.3e11 (never enumerated): no single-attribute change improves the payoff."""
    domain = Domain([f"x{j}" for j in range(13)], [10, 9, 16, 7, 15, 6, 5, 2, 16, 6, 10, 42, 2])
    workload = MarginalWorkload.random(domain, 3, 64, seed=0)
    rng = np.random.default_rng(3)
    sampled = rng.integers(0, 2 * workload.num_queries, size=40)
    record = BestResponse(workload).solve(*net_cell_weights(sampled, workload.num_queries), rng)
    value = sampled_payoff(workload, sampled, record[None])[0]
    neighbours = []
    for j, size in enumerate(domain.shape):
        block = np.repeat(record[None], size, axis=0)
        block[:, j] = np.arange(size)
        neighbours.append(block)
    assert sampled_payoff(workload, sampled, np.concatenate(neighbours)).max() <= value


# --- query player --------------------------------------------------------------------------

def player_on(answers: np.ndarray, eta: float, seed: int) -> QueryPlayer:
    """A query player whose handle holds ``answers`` as the private answers (a large ledger)."""
    source = types.SimpleNamespace(n=1000, true_answers=answers)
    private = PrivateData(source, Ledger(1e6, 1e-6), np.random.default_rng(seed))
    return QueryPlayer(private, answers.size, eta)


def test_query_player_log_weights_and_sampling_distribution():
    answers = np.array([0.1, 0.5, 0.3, 0.1])
    player = player_on(answers, 1.5, 0)
    player.update(np.array([1, 2]))
    player.update(np.array([1]))
    expected_log = 1.5 * (2 * answers - np.array([0, 2, 1, 0]))
    p = np.exp(np.concatenate([expected_log, -expected_log]))
    p /= p.sum()
    draws = player.sample(200_000)
    freq = np.bincount(draws, minlength=8) / draws.size
    assert np.all(np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / draws.size) + 1e-12)


def test_query_player_starts_uniform():
    player = player_on(np.array([0.9, 0.1, 0.0]), 2.0, 1)
    draws = player.sample(60_000)
    freq = np.bincount(draws, minlength=6) / draws.size
    assert np.allclose(freq, 1 / 6, atol=0.01)


# --- the release ---------------------------------------------------------------------------

def test_release_reports_privacy_and_its_multiset(small_problem):
    n, delta = small_problem.n, small_problem.n ** -2.0
    release = run_algorithm("dualquery", small_problem, eps=1.0, delta=delta, T=0,
                            rng=np.random.default_rng(0), eta=1.0, samples=20)
    rounds = calibrate_rounds(1.0, delta, n, 1.0, 20)
    assert release.algo == "dualquery" and release.iterations == rounds == 12
    assert release.eps == dualquery_epsilon(1.0, 20, rounds, n, delta) <= 1.0
    assert release.rho == pytest.approx(dualquery_rho(1.0, 20, rounds, n)) and release.rho > 0
    assert release.delta == delta and release.trace["eps_zcdp"] <= 1.0
    max_step = 20 * (rounds - 1) * (2 * 1.0 * (rounds - 1) / n) ** 2 / 2
    assert release.trace["rho_max_step"] == pytest.approx(max_step) and max_step > release.rho
    assert release.support.shape == (rounds, 5)
    assert np.allclose(release.weights, 1 / rounds)
    assert np.allclose(release.answers, answer_records(small_problem.workload, release.support,
                                                       release.weights))
    assert len(release.trace["round_s"]) == rounds and release.runtime_s > 0


def test_max_T_caps_rounds_and_spends_less(small_problem):
    delta = small_problem.n ** -2.0
    release = run_algorithm("dualquery", small_problem, eps=1.0, delta=delta, T=0,
                            rng=np.random.default_rng(0), eta=1.0, samples=20, max_T=5)
    assert release.iterations == 5
    assert release.eps == dualquery_epsilon(1.0, 20, 5, small_problem.n, delta) < 0.5


def test_same_seed_same_release(small_problem):
    runs = [run_algorithm("dualquery", small_problem, eps=0.5, delta=1e-7, T=0,
                          rng=np.random.default_rng(5), eta=1.0, samples=10) for _ in range(2)]
    assert np.array_equal(runs[0].support, runs[1].support)


@pytest.mark.parametrize("kwargs,match", [
    ({"eps": 1e-4}, "larger eps or smaller eta/samples"), ({"max_T": 1}, "max_T must be >= 2"),
    ({"rng": 0}, "numpy.random.Generator")])
def test_release_rejects_bad_input_in_one_line(small_problem, kwargs, match):
    args = {"eps": 1.0, "delta": 1e-7, "T": 0, "rng": np.random.default_rng(0), "eta": 1.0,
            "samples": 20} | kwargs
    with pytest.raises((ValueError, TypeError), match=match) as err:
        run_algorithm("dualquery", small_problem, **args)
    assert "\n" not in str(err.value)


def test_error_decreases_with_eps_and_beats_uniform(small_problem):
    true = small_problem.true_answers
    sizes = small_problem.workload.marginal_sizes
    uniform = error_summary(true, np.repeat(1.0 / sizes, sizes))["max_error"]
    mean_error = {}
    for eps in (1.0, 10.0):
        mean_error[eps] = np.mean([
            run_algorithm("dualquery", small_problem, eps=eps, delta=small_problem.n ** -2.0,
                          T=0, rng=np.random.default_rng(seed), eta=1.0, samples=20)
            .errors(true)["max_error"] for seed in range(3)])
    assert mean_error[10.0] < mean_error[1.0]
    assert mean_error[10.0] < 0.75 * uniform
