"""Private-PGM on the joint table against ``mbi``'s junction-tree estimator: same iterates, same
fit, the ``auto`` rule, and AIM/MST/JAM-PGM run through either."""
import numpy as np
import pytest

from pubpriv_core.algorithms import pgm

from pubpriv_core.harness import run_algorithm
from pubpriv_core.algorithms.pgm import ModelMarginals
from pubpriv_core.harness import ReleaseProblem
from pubpriv_core.algorithms.pgm_joint import JointModel
from pubpriv_core.data import from_dataset, load_dataset
from pubpriv_core.queries import MarginalWorkload

import mbi  # noqa: E402  (after pgm, which sets JAX up for it)

CLIQUES = [("a", "b"), ("b", "c"), ("c", "d"), ("a",), ("a", "b", "d"), ("d",)]


def random_measurements(seed: int, cliques=CLIQUES, total: float = 500.0):
    """Noisy marginals of a random table on a 4-attribute domain, unequal stddevs."""
    rng = np.random.default_rng(seed)
    domain = mbi.Domain(["a", "b", "c", "d"], [3, 4, 2, 5])
    table = rng.dirichlet(np.ones(domain.size()) * 0.5).reshape(domain.shape) * total
    joint = JointModel(domain, [], np.log(table), total)
    measured = []
    for clique in cliques:
        stddev = 0.5 + 3.0 * rng.random()
        noisy = joint.marginal(clique).ravel() + rng.normal(0.0, stddev, domain.size(clique))
        measured.append(pgm.measurement(noisy, clique, stddev))
    return domain, measured


def loss(model, measured) -> float:
    marginals = ModelMarginals(model)
    return sum(0.5 * np.sum(((marginals(m.clique) - np.asarray(m.noisy_measurement))
                             / m.stddev) ** 2) for m in measured)


def max_gap(first, second, cliques) -> float:
    a, b = ModelMarginals(first), ModelMarginals(second)
    return max(np.abs(a(c) - b(c)).max() for c in cliques)


@pytest.mark.parametrize("iters", [50, 150])
def test_first_iterates_match_mbi(iters):
    domain, measured = random_measurements(0)
    ours = pgm.fit(domain, measured, 500.0, iters, estimator="full_table")
    theirs = pgm.fit(domain, measured, 500.0, iters, estimator="mbi")
    assert isinstance(ours, JointModel)
    assert max_gap(ours, theirs, CLIQUES) < 1e-8 * 500.0


def test_warm_started_iterates_match_mbi():
    domain, measured = random_measurements(1)
    ours = pgm.fit(domain, measured[:3], 500.0, 100, estimator="full_table")
    theirs = pgm.fit(domain, measured[:3], 500.0, 100, estimator="mbi")
    ours = pgm.fit(domain, measured, 500.0, 100, warm_start=ours, estimator="full_table")
    theirs = pgm.fit(domain, measured, 500.0, 100, warm_start=theirs, estimator="mbi")
    assert max_gap(ours, theirs, CLIQUES) < 1e-8 * 500.0


@pytest.mark.parametrize("total", [500.0, None])
def test_long_fits_agree_on_every_measured_marginal_and_the_loss(total):
    domain, measured = random_measurements(2)
    ours = pgm.fit(domain, measured, total, 3000, estimator="full_table")
    theirs = pgm.fit(domain, measured, total, 3000, estimator="mbi")
    assert float(ours.total) == pytest.approx(float(theirs.total), rel=1e-12)
    assert max_gap(ours, theirs, CLIQUES) < 1e-3 * float(ours.total)
    assert loss(ours, measured) == pytest.approx(loss(theirs, measured), rel=1e-4)
    start = pgm.fit(domain, measured, total, 50, estimator="full_table")
    assert loss(ours, measured) < loss(start, measured)


def test_auto_picks_the_tree_above_the_cell_limit():
    small = mbi.Domain(["a", "b"], [1000, 2000])
    large = mbi.Domain(["a", "b", "c"], [1000, 2000, 2])
    assert small.size() == pgm.FULL_TABLE_CELLS
    assert pgm.resolve_estimator(small, "auto") == "full_table"
    assert pgm.resolve_estimator(large, "auto") == "tree"
    assert pgm.resolve_estimator(small, "mbi") == "mbi"
    with pytest.raises(ValueError, match="algo.estimator"):
        pgm.resolve_estimator(small, "exact")


def tiny(public: bool = False, attributes: int = 4) -> ReleaseProblem:
    names = [f"a{i}" for i in range(attributes)]
    private = load_dataset("synthetic", preset="tiny").project(names)
    workload = MarginalWorkload.random(private.domain, 3, None, 0)
    if not public:
        return ReleaseProblem(private, workload)
    source = from_dataset(private)
    return ReleaseProblem(private, workload, source.support.records, source.weights,
                          source.n_rows)


def check_same_release(problem, algo, options, estimators, atol):
    """The same seeded run with each estimator: same selections and ρ, answers within atol;
    returns the releases."""
    releases = [run_algorithm(algo, problem, eps=2.0, delta=1e-6, T=1,
                              rng=np.random.default_rng(5), estimator=name, **options)
                for name in estimators]
    assert releases[0].trace["selected"] == releases[1].trace["selected"]
    assert releases[0].rho == releases[1].rho
    np.testing.assert_allclose(releases[0].answers, releases[1].answers, atol=atol)
    return releases


@pytest.mark.parametrize("algo, options, public", [
    ("aim", {"rounds": 6}, False),
    ("aim", {"rounds": 6, "relation": "add_remove"}, False),
    ("mst", {}, False),
    ("jam_pgm", {"rounds": 4}, True),
])
def test_mechanisms_release_the_same_answers_with_either_estimator(algo, options, public):
    releases = check_same_release(tiny(public), algo, options, ("full_table", "mbi"), 2e-4)
    assert isinstance(releases[0].trace["model"], JointModel)


def test_unknown_estimator_is_refused():
    with pytest.raises(ValueError, match="unknown algo.estimator='exact'"):
        run_algorithm("mst", tiny(), eps=1.0, delta=1e-6, T=1,
                      rng=np.random.default_rng(0), estimator="exact")
