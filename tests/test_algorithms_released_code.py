"""PMW^Pub as the authors' released code runs it (options ``output`` and ``replay_variant``)
against dense numpy references written from its description."""
from __future__ import annotations

import numpy as np
import pytest

from pubpriv_core.harness import ReleaseProblem, run_algorithm
from pubpriv_core.algorithms.multiplicative_weights import (MWOptions, MWState,
                                                            replay_released_code)
from pubpriv_core.data.domain import Dataset, Domain
from pubpriv_core.queries import MarginalWorkload

DOMAIN = Domain(list("abcdef"), [3, 4, 2, 5, 3, 2])


def make_problem(seed: int = 0) -> ReleaseProblem:
    rng = np.random.default_rng(seed)
    private = Dataset(np.column_stack([rng.integers(0, s, 900) for s in DOMAIN.shape]), DOMAIN)
    public = np.column_stack([rng.integers(0, s, 200) for s in DOMAIN.shape])
    support, counts = np.unique(public, axis=0, return_counts=True)
    workload = MarginalWorkload.random(DOMAIN, 2, size=8, seed=seed)
    return ReleaseProblem(private, workload, support, counts / counts.sum(), 200)


def incidence(answerer) -> np.ndarray:
    """Dense [q(x)] over the present queries (own numbering) and the support rows."""
    dense = np.zeros((answerer.num_queries, answerer.size))
    for q in range(answerer.num_queries):
        dense[q, answerer.selector(q)] = 1.0
    return dense


@pytest.mark.parametrize("seed", range(3))
def test_released_code_replay_matches_a_dense_reference(seed):
    problem = make_problem(seed)
    answerer = problem.public_answerer
    dense = incidence(answerer)
    rng = np.random.default_rng(seed)
    weights = problem.public_weights * np.exp(rng.normal(0, 0.3, answerer.size))
    weights /= weights.sum()
    state = MWState(answerer, weights)
    start = state.answers()
    assert np.allclose(start, dense @ weights)
    owns = rng.choice(answerer.num_queries, size=6, replace=False)
    latest = {int(answerer.queries[o]): (int(o), float(rng.random())) for o in owns[1:]}
    latest[-1] = (None, 0.3)                 # an absent query: no rows, its c is its value
    repeated = int(answerer.queries[owns[1]])
    new = (repeated, int(owns[1]), float(rng.random()))   # a query measured before
    before = dict(latest)
    done = replay_released_code(state, latest, new, start, np.random.default_rng(99))

    assert latest[repeated] == (new[1], new[2]) and len(latest) == len(before)  # latest kept
    kept = list(latest.values())
    c = np.array([abs(a - (0.0 if o is None else start[o])) for o, a in kept])
    chosen = np.random.default_rng(99).permutation(np.flatnonzero(c >= 0.5 * c[
        list(latest).index(repeated)]))
    order = [(new[1], new[2])] + [kept[i] for i in chosen]
    expected = weights.copy()
    for own, a in order:                     # every factor uses the round's start answers
        if own is not None:
            expected = expected * np.exp(dense[own] * (a - start[own]) / 2)
            expected /= expected.sum()
    assert np.allclose(state.weights(), expected, rtol=1e-12, atol=0)
    assert sum(o == new[1] for o, _ in order) == 2          # the new measurement twice
    assert done == sum(o is not None for o, _ in order)


def test_released_code_output_averages_a1_to_aT():
    problem = make_problem(1)
    answerer = problem.public_answerer
    runs = {output: run_algorithm("pmwpub", problem, eps=2.0, delta=1e-6, T=12,
                                  rng=np.random.default_rng(5), output=output)
            for output in ("paper", "released_code")}
    paper, released = runs["paper"], runs["released_code"]
    assert paper.trace["queries"] == released.trace["queries"]     # same loop, same draws
    first = answerer.expand(answerer.answer(problem.public_weights))
    # (A_1 + … + A_T)/T − (A_0 + … + A_{T−1})/T = (A_T − A_0)/T, answers being linear in A
    assert np.allclose(released.answers - paper.answers, (paper.last_answers - first) / 12)
    assert paper.rho == released.rho and paper.eps == released.eps


def test_released_code_replay_runs_and_spends_the_same_budget():
    problem = make_problem(2)
    runs = [run_algorithm("pmwpub", problem, eps=1.0, delta=1e-6, T=10,
                          rng=np.random.default_rng(3), replay_variant=variant)
            for variant in ("paper", "released_code")]
    assert runs[0].rho == runs[1].rho and runs[0].eps == runs[1].eps
    first = runs[1].trace["updates"][0]
    assert first in (0, 2)        # round 1: the new measurement twice (none if it is absent)
    assert not np.array_equal(runs[0].answers, runs[1].answers)


def test_released_code_replay_needs_replay():
    with pytest.raises(ValueError, match="needs replay=true"):
        MWOptions(replay=False, replay_variant="released_code")
    with pytest.raises(ValueError, match="unknown output"):
        MWOptions(output="average")
