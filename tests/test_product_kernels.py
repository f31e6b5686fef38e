"""The product-mixture kernels and the Adam step built on them, against dense NumPy / JAX
references: the marginals of a mixture of K product distributions (1/K) Σ_r Π_i p_{r,a_i}(y_i),
their gradient, the answers of listed cells, and one ``Fitter`` step against ``jax.grad`` of the
same squared loss written densely."""
from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from pubpriv_core.algorithms import generators, product_kernels
from pubpriv_core.algorithms.mixture_fit import Fitter
from pubpriv_core.algorithms.product_kernels import ProductPlan
from pubpriv_core.data.domain import Domain
from pubpriv_core.queries import MarginalWorkload

SHAPE = (3, 2, 4, 5, 2)
#: one 1-way, 2-way, 3-way and 4-way marginal (orders mixed within one plan)
MARGINALS = ((2,), (0, 3), (1, 2, 4), (0, 1, 3, 4), (0, 2, 3))
K = 37          # not a multiple of the kernels' row blocks


@pytest.fixture(scope="module")
def workload() -> MarginalWorkload:
    return MarginalWorkload(Domain([f"a{j}" for j in range(len(SHAPE))], SHAPE), MARGINALS)


def rows_t(seed: int = 0) -> np.ndarray:
    """Pᵀ (D, K), float32: each row's per-attribute blocks are distributions."""
    rng = np.random.default_rng(seed)
    blocks = [rng.dirichlet(np.ones(s), size=K).T for s in SHAPE]
    return np.concatenate(blocks).astype(np.float32)


def cell_rows(workload: MarginalWorkload, chosen) -> np.ndarray:
    """(cells, 4): the rows of Pᵀ each cell multiplies, in plan order, padded with row D (a row
    of ones appended to Pᵀ)."""
    starts, pad = np.concatenate([[0], np.cumsum(SHAPE)[:-1]]), sum(SHAPE)
    index = []
    for w in chosen:
        attrs = workload.marginals[w]
        for cell in itertools.product(*(range(SHAPE[a]) for a in attrs)):
            rows = [starts[a] + y for a, y in zip(attrs, cell)]
            index.append(rows + [pad] * (4 - len(rows)))
    return np.array(index)


def dense_answers(Pt: np.ndarray, workload: MarginalWorkload, chosen) -> np.ndarray:
    """Each chosen marginal's cells in C order, by the definition (loops over cells)."""
    starts = np.concatenate([[0], np.cumsum(SHAPE)[:-1]])
    out = []
    for w in chosen:
        attrs = workload.marginals[w]
        for cell in itertools.product(*(range(SHAPE[a]) for a in attrs)):
            term = np.ones(K)
            for a, y in zip(attrs, cell):
                term = term * Pt[starts[a] + y].astype(np.float64)
            out.append(term.mean())
    return np.array(out)


@pytest.mark.parametrize("chosen", [None, [4, 1, 3]])
def test_answers_are_the_mixture_marginals(workload, chosen):
    Pt = rows_t()
    plan = ProductPlan(workload, None if chosen is None else np.array(chosen))
    expected = dense_answers(Pt, workload, plan.marginals)
    assert plan.cells == expected.size
    assert np.allclose(product_kernels.answers(Pt, plan), expected, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("ratio", [0.0, np.inf])    # the listed cells' kernel; the full pass
def test_cell_answers_are_the_listed_cells(workload, monkeypatch, ratio):
    monkeypatch.setattr(product_kernels, "FULL_PASS_RATIO", ratio)
    Pt, plan = rows_t(1), ProductPlan(workload)
    cells = np.array([0, 3, 4, 10, plan.cells - 1, 27, 60])
    expected = dense_answers(Pt, workload, plan.marginals)[cells]
    assert np.allclose(product_kernels.cell_answers(Pt, plan, cells), expected, rtol=1e-5)


def test_cell_answers_take_the_full_pass_by_its_cost_without_changing_a_bit(workload,
                                                                             monkeypatch):
    """Few listed cells: their own products; most of the cells: the full pass, indexed; either
    way the same bits."""
    Pt, plan = rows_t(4), ProductPlan(workload)
    few, most = np.array([2, plan.cells - 3]), np.arange(0, plan.cells, 2)
    # per marginal: one dot product per cell, a (k − 1)-row product per prefix cell
    assert plan.pass_vectors == sum(np.prod([SHAPE[a] for a in m])
                                    + (len(m) - 1) * np.prod([SHAPE[a] for a in m[:-1]])
                                    for m in MARGINALS)
    full_passes = []
    monkeypatch.setattr(product_kernels, "answers", lambda *a: full_passes.append(1) or
                        ANSWERS(*a))
    for cells, expect_full in ((few, False), (most, True)):
        full_passes.clear()
        listed = product_kernels.cell_answers(Pt, plan, cells)
        assert bool(full_passes) is expect_full
        assert np.array_equal(listed, ANSWERS(Pt, plan)[cells])
    monkeypatch.setattr(product_kernels, "FULL_PASS_RATIO", 0.0)
    assert np.array_equal(product_kernels.cell_answers(Pt, plan, most), ANSWERS(Pt, plan)[most])


ANSWERS = product_kernels.answers


def test_gradient_is_the_jacobian_transpose_times_the_coefficients(workload):
    Pt, plan = rows_t(2), ProductPlan(workload)
    rng = np.random.default_rng(3)
    coef = rng.standard_normal(plan.cells)
    coef[rng.random(plan.cells) < 0.4] = 0.0          # skipped prefixes too
    index = cell_rows(workload, plan.marginals)

    def objective(P):
        padded = jnp.concatenate([P, jnp.ones((1, K), P.dtype)])
        return jnp.dot(jnp.asarray(coef, P.dtype), jnp.prod(padded[index], axis=1).mean(axis=1))

    expected = np.asarray(jax.grad(objective)(jnp.asarray(Pt, dtype=jnp.float32)))
    got = product_kernels.gradient(Pt, plan, coef)
    assert got.dtype == np.float32
    assert np.allclose(got, expected, rtol=1e-4, atol=1e-6)


class Squared:
    """‖a − q‖² over every cell of ``plan`` (the loss rule interface)."""

    def __init__(self, plan, targets, active=True):
        self.plan, self.targets, self.active = plan, targets, active

    def evaluate(self, Pt, threshold):
        e = self.targets - product_kernels.answers(Pt, self.plan)
        return float(e @ e), self.plan.cells if self.active else 0, -2.0 * e


def softmax_rows(params, _):
    """RAP^softmax's parametrisation on :data:`SHAPE`."""
    segments = generators.attribute_segments(SHAPE)
    return generators.blockwise_softmax(params["logits"], segments, len(SHAPE))


def test_fitter_step_is_adam_on_the_dense_loss(workload):
    probs = softmax_rows
    fitter, plan = Fitter(probs), ProductPlan(workload)
    params = generators.init_rows(jax.random.PRNGKey(0), K, sum(SHAPE))
    targets = dense_answers(rows_t(4), workload, plan.marginals)
    rule = Squared(plan, targets)

    index = cell_rows(workload, plan.marginals)

    def dense_loss(p):
        Pt = probs(p, None).T
        padded = jnp.concatenate([Pt, jnp.ones((1, K), Pt.dtype)])
        q = jnp.prod(padded[index], axis=1).mean(axis=1)
        return jnp.sum((jnp.asarray(targets, jnp.float32) - q) ** 2)

    adam = optax.scale_by_adam(b1=0.9, b2=0.999, eps=1e-8)
    state, ref_state, ref = fitter.init_state(params), adam.init(params), params
    for _ in range(3):
        value, grads = jax.value_and_grad(dense_loss)(ref)
        updates, ref_state = adam.update(grads, ref_state)
        ref = jax.tree_util.tree_map(lambda p, u: p - 0.05 * u, ref, updates)
        params, state, got, used = fitter.step(params, state, None, rule, 0.0, 0.05)
        assert used == plan.cells and got == pytest.approx(float(value), rel=1e-4)
    assert np.allclose(params["logits"], ref["logits"], atol=1e-5)


def test_fitter_step_without_cells_changes_nothing(workload):
    fitter, plan = Fitter(softmax_rows), ProductPlan(workload)
    params = generators.init_rows(jax.random.PRNGKey(1), K, sum(SHAPE))
    state = fitter.init_state(params)
    rule = Squared(plan, np.zeros(plan.cells), active=False)
    new, new_state, _, used = fitter.step(params, state, None, rule, 0.0, 0.1)
    assert used == 0 and new is params and new_state is state
