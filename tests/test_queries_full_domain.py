"""The full-domain engine (MWEM): reduction tree, sum methods and slab selectors."""
import itertools

import numpy as np
import pytest

from pubpriv_core.algorithms import multiplicative_weights as mw
from pubpriv_core.privacy.ledger import Ledger
from pubpriv_core.privacy.private_data import PrivateData, QueryCandidates
from pubpriv_core.data.domain import Domain
from pubpriv_core.queries import (DomainAnswerer, MarginalTree, MarginalWorkload, SupportAnswerer,
                                  answer_histogram, full_domain_records)
from pubpriv_core.queries.full_domain import SUM_METHODS, AxisSum

#: shapes on which the planner uses every sum method (checked below): the NIST reduced domain,
#: binary-heavy ACS-like domains, and small ones with a size-1 attribute.
SHAPES = [(10, 2, 9, 5, 3, 2, 2, 3, 3), (2,) * 13 + (3, 4), (3, 4) + (2,) * 11, (3, 1, 4, 2), (5,)]


def workloads(domain: Domain):
    """All 1-, 2- and 3-way marginals of ``domain`` and a mixed list of them."""
    out = [MarginalWorkload.random(domain, k) for k in (1, 2, 3) if k <= len(domain)]
    mixed = tuple(m for wl in out for m in wl.marginals[::3])
    return out + [MarginalWorkload(domain, mixed)]


def brute_force(workload: MarginalWorkload, weights: np.ndarray) -> np.ndarray:
    """Every cell by an explicit loop over the domain's elements (small domains only)."""
    records = full_domain_records(workload.domain.shape)
    out = np.zeros(workload.num_queries)
    np.add.at(out, workload.cell_ids(records).ravel(), np.repeat(weights, workload.num_marginals))
    return out


def test_tree_answers_every_marginal_exactly_and_uses_every_sum_method():
    used = set()
    for shape in SHAPES:
        domain = Domain([f"a{j}" for j in range(len(shape))], shape)
        u = np.random.default_rng(len(shape)).random(domain.size())
        for workload in workloads(domain):
            tree = MarginalTree(workload)
            used |= {step.method for step in tree.steps}
            np.testing.assert_allclose(tree(u), answer_histogram(workload, u), rtol=1e-12)
            if domain.size() <= 2 ** 12:
                np.testing.assert_allclose(tree(u), brute_force(workload, u), rtol=1e-12)
    assert used == set(SUM_METHODS)


@pytest.mark.parametrize("shape", [(4, 3, 5), (2, 3, 2, 2), (7, 1), (3, 40, 2), (2, 2, 200)])
def test_every_sum_method_equals_numpy_sum(shape):
    x = np.random.default_rng(0).random(shape)
    for axis in range(len(shape)):
        step = AxisSum(0, 1, shape, axis)
        for method in SUM_METHODS:
            if np.isfinite(step.seconds(method)):
                np.testing.assert_allclose(step.apply(x, method), x.sum(axis=axis), rtol=1e-13)


def test_domain_answerer_agrees_with_the_support_engine_on_all_of_x():
    domain = Domain(list("abcde"), [3, 2, 4, 1, 5])
    workload = MarginalWorkload.random(domain, 3, size=7, seed=2)
    fast, reference = DomainAnswerer(workload), SupportAnswerer(workload,
                                                                full_domain_records(domain.shape))
    u = np.random.default_rng(1).random(domain.size())
    np.testing.assert_allclose(fast.answer(u), reference.answer(u), rtol=1e-12)
    rows = np.arange(domain.size())[::5]
    np.testing.assert_array_equal(fast.cell_ids(rows), reference.cell_ids(rows))
    index = np.arange(domain.size())
    for q in range(workload.num_queries):
        slab = fast.grid(index)[fast.selector(q)]
        assert np.shares_memory(slab, index)
        np.testing.assert_array_equal(np.sort(slab.ravel()), reference.rows_of(q))


@pytest.mark.parametrize("replay", [True, False])
def test_mwem_loop_is_the_same_with_either_engine(replay):
    """The slab-view path of MWState gives the release of the index-array path."""
    domain = Domain(list("abcd"), [3, 4, 2, 5])
    workload = MarginalWorkload(domain, tuple(itertools.combinations(range(4), 2)))
    true = np.random.default_rng(6).dirichlet(np.ones(domain.size()))
    true_answers = answer_histogram(workload, true)
    runs = []
    for answerer in (DomainAnswerer(workload),
                     SupportAnswerer(workload, full_domain_records(domain.shape))):
        rng = np.random.default_rng(5)   # the mechanisms' and the replay's, as in a release
        private = PrivateData(_Source(500, true_answers), Ledger(5.0, 1e-6), rng)
        runs.append(mw.run_mw(answerer, private, np.full(domain.size(), 1 / domain.size()), 20,
                              rng, mw.MWOptions(replay=replay)))
    assert runs[0]["trace"]["queries"] == runs[1]["trace"]["queries"]
    np.testing.assert_allclose(runs[0]["answers"], runs[1]["answers"], atol=1e-12)
    np.testing.assert_allclose(runs[0]["last_weights"], runs[1]["last_weights"], atol=1e-12)


class _Source:
    """A private source holding given answers (n rows, selection candidates per answerer)."""

    def __init__(self, n: int, true_answers: np.ndarray):
        self.n, self.true_answers = n, true_answers
        self._candidates = {}

    def query_candidates(self, answerer) -> QueryCandidates:
        if id(answerer) not in self._candidates:
            self._candidates[id(answerer)] = QueryCandidates(answerer, self.true_answers)
        return self._candidates[id(answerer)]
