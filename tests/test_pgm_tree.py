"""Private-PGM on a junction tree in NumPy against the joint table and ``mbi``: same iterates,
exact marginals inside and outside the tree's cliques, and AIM/MST/JAM-PGM run through it."""
import itertools

import numpy as np
import pytest

from pubpriv_core.algorithms import pgm, pgm_descent

from pubpriv_core.harness import run_algorithm
from pubpriv_core.algorithms.pgm import ModelMarginals
from pubpriv_core.algorithms.pgm_joint import JointModel
from pubpriv_core.algorithms.pgm_tree import TreeModel
from test_pgm_joint import check_same_release, tiny

import mbi  # noqa: E402  (after pgm, which sets JAX up for it)

ATTRIBUTES, SHAPE = ["a", "b", "c", "d", "e", "f"], [3, 4, 2, 5, 3, 2]
STRUCTURES = {
    "chain": [("a", "b"), ("b", "c"), ("c", "d"), ("d", "e"), ("e", "f")],
    "star": [("a", "d"), ("b", "d"), ("c", "d"), ("d", "e"), ("f",)],
    "loop": [("a", "b"), ("b", "c"), ("c", "d"), ("a", "d"), ("d", "e", "f"), ("b", "e")],
}
TOTAL = 500.0


def domain() -> mbi.Domain:
    return mbi.Domain(ATTRIBUTES, SHAPE)


def measurements(seed: int, cliques):
    """Noisy marginals (and their sub-marginals) of a random table, unequal stddevs."""
    rng = np.random.default_rng(seed)
    dom = domain()
    table = rng.dirichlet(np.ones(dom.size()) * 0.5).reshape(dom.shape) * TOTAL
    joint = JointModel(dom, [], np.log(table), TOTAL)
    measured = []
    for clique in [*cliques, *[c[:1] for c in cliques]]:
        stddev = 0.5 + 3.0 * rng.random()
        noisy = joint.marginal(clique).ravel() + rng.normal(0.0, stddev, dom.size(clique))
        measured.append(pgm.measurement(noisy, clique, stddev))
    return dom, measured


def all_cliques(size: int):
    return list(itertools.combinations(ATTRIBUTES, size))


def expand(dom, clique, table: np.ndarray) -> np.ndarray:
    """``table`` (axes in ``clique``'s order) broadcast to the whole domain: θ_C(x_C) at every
    x (what ``mbi.Factor(...).expand`` computes, without a JAX compilation per shape)."""
    attributes = list(dom.attributes)
    order = sorted(clique, key=attributes.index)
    aligned = np.transpose(table, [list(clique).index(a) for a in order])
    return aligned.reshape([n if a in clique else 1 for a, n in zip(attributes, dom.shape)])


def test_expand_is_mbis_factor_expand():
    dom = domain()
    table = np.random.default_rng(0).normal(size=dom.project(("e", "b", "f")).shape)
    np.testing.assert_allclose(np.broadcast_to(expand(dom, ("e", "b", "f"), table), dom.shape),
                               mbi.Factor(dom.project(("e", "b", "f")), table).expand(dom).values)


def max_gap(first, second, cliques) -> float:
    a, b = ModelMarginals(first), ModelMarginals(second)
    return max(np.abs(a(c) - b(c)).max() for c in cliques)


@pytest.mark.parametrize("structure", list(STRUCTURES))
@pytest.mark.parametrize("iters", [50, 150])
def test_iterates_match_the_joint_table_and_mbi(structure, iters):
    dom, measured = measurements(3, STRUCTURES[structure])
    tree = pgm.fit(dom, measured, TOTAL, iters, estimator="tree")
    assert isinstance(tree, TreeModel)
    assert len(tree.junction.cliques) >= 3
    for other in ("full_table", "mbi"):
        model = pgm.fit(dom, measured, TOTAL, iters, estimator=other)
        assert max_gap(tree, model, all_cliques(2)) < 1e-8 * TOTAL


@pytest.mark.parametrize("total", [TOTAL, None])
def test_warm_started_iterates_match_the_joint_table(total):
    dom, measured = measurements(4, STRUCTURES["loop"])
    first = measured[:3]
    tree = pgm.fit(dom, first, total, 100, estimator="tree")
    joint = pgm.fit(dom, first, total, 100, estimator="full_table")
    assert max_gap(tree, joint, all_cliques(3)) < 1e-8 * float(joint.total)
    tree = pgm.fit(dom, measured, total, 100, warm_start=tree, estimator="tree")
    joint = pgm.fit(dom, measured, total, 100, warm_start=joint, estimator="full_table")
    assert tree.total == pytest.approx(joint.total, rel=1e-12)
    assert max_gap(tree, joint, all_cliques(3)) < 1e-8 * float(joint.total)


def random_model(structure: str, seed: int, scale: float):
    """A TreeModel with random potentials on ``structure`` and the JointModel of θ = Σ θ_C."""
    rng = np.random.default_rng(seed)
    dom = domain()
    cliques = STRUCTURES[structure]
    tables = [rng.normal(0.0, scale, dom.project(c).shape) for c in cliques]
    log_table = np.zeros(dom.shape)
    for clique, table in zip(cliques, tables):
        log_table = log_table + expand(dom, clique, table)
    return TreeModel(dom, cliques, tables, TOTAL), JointModel(dom, cliques, log_table, TOTAL)


@pytest.mark.parametrize("structure", list(STRUCTURES))
@pytest.mark.parametrize("scale", [1.0, 400.0])
def test_every_marginal_equals_the_joint_tables(structure, scale):
    tree, joint = random_model(structure, 7, scale)
    counts = joint.counts()
    outside = 0
    for size in (1, 2, 3, 4):
        for clique in all_cliques(size):
            for order in (clique, clique[::-1]):
                expected = joint.marginal(order, counts)
                np.testing.assert_allclose(tree.marginal(order), expected, rtol=0,
                                           atol=1e-9 * TOTAL)
            outside += tree.junction.host(clique) < 0
    assert outside > 10


def test_potentials_thousands_of_nats_apart_stay_exact():
    """Potentials thousands of nats apart (as empty public cells drive them) underflow any
    exp taken against one max per table, and the factors' products of a slice underflow: those
    cliques are swept again in log mode, and every marginal stays exact."""
    tree, joint = random_model("loop", 8, 1.0)
    dom = domain()
    tables = [np.asarray(t, dtype=float).copy() for t in tree.potentials.values()]
    tables[0][0, :] -= 2000.0
    tables[4][:, 1, :] += 900.0   # e = 1 pushed up on (d, e, f) and down as much on (b, e):
    tables[5][:, 1] -= 900.0      # one max per table would lose one side of e entirely
    tree = TreeModel(dom, tree.cliques, tables, TOTAL)
    assert tree.junction.plan.log_calibrations > 0
    log_table = np.zeros(dom.shape)
    for clique, table in zip(tree.cliques, tables):
        log_table = log_table + expand(dom, clique, table)
    joint = JointModel(dom, tree.cliques, log_table, TOTAL)
    assert 0.01 * TOTAL < joint.marginal(("e",))[1] < 0.99 * TOTAL
    for clique in all_cliques(2) + all_cliques(3):
        np.testing.assert_allclose(tree.marginal(clique), joint.marginal(clique), rtol=0,
                                   atol=1e-9 * TOTAL)


def random_structure(rng, attributes: int, count: int):
    """A domain of ``attributes`` attributes (sizes 2–5) and ``count`` random 2–4-way cliques."""
    names = [f"x{i}" for i in range(attributes)]
    dom = mbi.Domain(names, [int(n) for n in rng.integers(2, 6, size=attributes)])
    cliques = [tuple(sorted(rng.choice(names, size=int(rng.integers(2, 5)), replace=False),
                            key=names.index)) for _ in range(count)]
    return dom, cliques


def test_compiled_calibration_matches_the_joint_table_on_random_trees():
    """Random junction trees whose cliques meet their runs in every way (tables holding none,
    all or some of the run's attributes): every marginal of every measured and junction-tree
    clique equals the joint table's, in product mode (no log-mode sweep at these scales)."""
    rng = np.random.default_rng(11)
    classes = set()
    for case in range(30):
        dom, cliques = random_structure(rng, int(rng.integers(5, 9)), int(rng.integers(2, 7)))
        cliques = list(dict.fromkeys(cliques))
        tables = [rng.normal(0.0, 3.0, dom.project(c).shape) for c in cliques]
        tree = TreeModel(dom, cliques, tables, TOTAL)
        log_table = np.zeros(dom.shape)
        for clique, table in zip(cliques, tables):
            log_table = log_table + expand(dom, clique, table)
        joint = JointModel(dom, cliques, log_table, TOTAL)
        counts = joint.counts()
        for clique in cliques + tree.junction.cliques:
            np.testing.assert_allclose(tree.marginal(clique), joint.marginal(clique, counts),
                                       rtol=1e-10, atol=1e-10 * TOTAL)
        classes |= set(tree.junction.plan.col_cls.tolist())
        assert tree.junction.plan.log_calibrations == 0
    assert classes == {0, 1, 2}


def test_loss_and_gradient_add_in_scipys_order():
    dom, measured = measurements(6, STRUCTURES["loop"])
    objective = pgm_descent.Objective(dom, measured)
    mu = np.random.default_rng(6).random(objective.cells) * TOTAL
    residual = objective.project @ mu - objective.values
    weighted = residual * objective.precision
    loss, gradient = objective.loss_and_gradient(mu)
    assert loss == 0.5 * float(residual @ weighted)
    np.testing.assert_array_equal(gradient, objective.project.T @ weighted)


def test_auto_moves_from_the_tree_to_the_joint_table_when_the_table_is_smaller():
    dom, measured = measurements(9, STRUCTURES["loop"])
    chain = [m.clique for m in measured[:2]]
    assert pgm.resolve_estimator(dom, "auto", chain) == "tree"
    assert pgm.resolve_estimator(dom, "auto", all_cliques(4)) == "full_table"
    assert pgm.resolve_estimator(dom, "auto") == "full_table"
    first = pgm.fit(dom, measured[:2], TOTAL, 60, estimator="auto")
    assert isinstance(first, TreeModel)
    assert max_gap(first, first.joint(), all_cliques(3)) < 1e-9 * TOTAL
    wide = [pgm.measurement(np.full(dom.size(c), TOTAL / dom.size(c)), c, 5.0)
            for c in all_cliques(4)[:6]]
    later = pgm.fit(dom, measured + wide, TOTAL, 60, warm_start=first, estimator="auto")
    reference = pgm.fit(dom, measured + wide, TOTAL, 60, estimator="full_table",
                        warm_start=pgm.fit(dom, measured[:2], TOTAL, 60,
                                           estimator="full_table"))
    assert isinstance(later, JointModel)
    assert max_gap(later, reference, all_cliques(3)) < 1e-8 * TOTAL


def test_auto_picks_the_tree_above_the_cell_limit_and_warm_starts_stay_with_one_estimator():
    large = mbi.Domain(["a", "b", "c"], [1000, 2000, 2])
    assert pgm.resolve_estimator(large, "auto") == "tree"
    assert pgm.resolve_estimator(large, "mbi") == "mbi"
    dom, measured = measurements(5, STRUCTURES["chain"])
    joint = pgm.fit(dom, measured, TOTAL, 50, estimator="full_table")
    with pytest.raises(ValueError, match="cannot warm-start estimator tree from a JointModel"):
        pgm.fit(dom, measured, TOTAL, 50, warm_start=joint, estimator="tree")
    tree = pgm.fit(dom, measured[:2], TOTAL, 50, estimator="tree")
    with pytest.raises(ValueError, match="lies in no measured clique"):
        pgm.fit(dom, measured[2:3], TOTAL, 50, warm_start=tree, estimator="tree")


@pytest.mark.parametrize("algo, options, public", [
    ("aim", {"rounds": 8}, False),
    ("mst", {}, False),
    ("jam_pgm", {"rounds": 5}, True),
])
@pytest.mark.parametrize("estimator", ["tree", "auto"])
def test_mechanisms_make_the_same_selections_with_the_tree(algo, options, public, estimator):
    releases = check_same_release(tiny(public, attributes=5), algo, options,
                                  ("full_table", estimator), 1e-6)
    if estimator == "tree":
        assert isinstance(releases[1].trace["model"], TreeModel)


def test_unknown_estimator_is_refused():
    with pytest.raises(ValueError, match="unknown algo.estimator='junction'"):
        run_algorithm("mst", tiny(), eps=1.0, delta=1e-6, T=1,
                      rng=np.random.default_rng(0), estimator="junction")
