"""Gradient steps on a mixture of product distributions against target answers (GEM, GEM^Pub's
pre-training, RAP^softmax).

One step: the parametrisation's row probabilities P (K, D) and the VJP of params ↦ Pᵀ from
one compiled JAX call; a loss over marginal cells evaluated by a *loss rule* on the host (answers
and gradients with respect to Pᵀ from :mod:`~pubpriv_core.algorithms.product_kernels`); and a
second compiled call that pulls the gradient back through the VJP and applies an Adam update
(``optax.scale_by_adam``: β = (0.9, 0.999), ε = 1e−8, PyTorch's defaults) at a learning rate
passed per step. A step whose rule finds no cell to fit (``count`` = 0) leaves parameters and
optimiser state unchanged, so the caller stops.

A loss rule is a pure function of (the rows' answers on its cells, its targets): it returns the
loss value, the number of cells it used and the loss's derivative with respect to each cell's
answer; the kernels' gradient multiplies the last through to Pᵀ. Rules live with their
algorithms (:mod:`~pubpriv_core.algorithms.gem`, :mod:`~pubpriv_core.algorithms.rap`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

import jax
import jax.numpy as jnp
import numpy as np
import optax

from pubpriv_core.algorithms import product_kernels
from pubpriv_core.algorithms.product_kernels import ProductPlan


class LossRule(Protocol):
    """The loss of one step: ``evaluate(Pt, threshold) -> (value, count, coef)`` where ``coef``
    is ∂loss/∂answer for every cell of ``plan`` (zero for unused cells)."""

    plan: ProductPlan

    def evaluate(self, Pt: np.ndarray, threshold: float) -> tuple[float, int, np.ndarray]:
        ...


@dataclass
class Fitter:
    """Compiled steps for one parametrisation ``probs(params, fixed) -> P`` (K, D); ``fixed``
    (GEM's noise z) is an input that is not trained.

    A step is two compiled calls around the host's loss: ``_rows`` gives Pᵀ and the VJP of
    params ↦ Pᵀ; the rule's cell derivatives go through the kernels' gradient to ∂loss/∂Pᵀ; and
    ``_update`` pulls that back through the VJP and applies Adam."""

    probs: Callable

    def __post_init__(self):
        self.adam = optax.scale_by_adam(b1=0.9, b2=0.999, eps=1e-8)
        probs, adam = self.probs, self.adam

        def rows(params, fixed):
            return jax.vjp(lambda p: probs(p, fixed).T, params)

        def update(pullback, grad_t, params, state, lr):
            (grads,) = pullback(grad_t)
            updates, new_state = adam.update(grads, state)
            return jax.tree_util.tree_map(lambda p, u: p - lr * u, params, updates), new_state

        self._rows = jax.jit(rows)
        self._update = jax.jit(update)
        self._rows_t = jax.jit(lambda params, fixed: probs(params, fixed).T)

    def init_state(self, params):
        return self.adam.init(params)

    def vjp_rows(self, params, fixed) -> tuple[np.ndarray, Callable]:
        """(Pᵀ as a float32 NumPy array, the VJP of params ↦ Pᵀ): what a step starts from."""
        rows_t, pullback = self._rows(params, fixed)
        return np.asarray(rows_t), pullback

    def step(self, params, state, fixed, rule: LossRule, threshold: float, lr: float,
             rows: tuple | None = None):
        """One Adam step on ``rule``'s loss; returns (params, state, loss, count). A step whose
        rule uses no cell (``count`` = 0) returns ``params`` and ``state`` unchanged. ``rows``:
        :meth:`vjp_rows` of these ``params``, when the caller already has it."""
        rows_t, pullback = rows if rows is not None else self.vjp_rows(params, fixed)
        value, count, coef = rule.evaluate(rows_t, float(threshold))
        if count == 0:
            return params, state, float(np.float32(value)), 0
        grad_t = product_kernels.gradient(rows_t, rule.plan, coef)
        params, state = self._update(pullback, grad_t, params, state, np.float32(lr))
        return params, state, float(np.float32(value)), int(count)

    def rows_t(self, params, fixed, dtype=np.float32) -> np.ndarray:
        """Pᵀ (D, K) as a NumPy array of ``dtype``."""
        return np.asarray(self._rows_t(params, fixed), dtype=dtype)

    def answers(self, params, fixed, plan: ProductPlan, dtype=np.float32) -> np.ndarray:
        """Every cell of ``plan`` on the mixture (float64 output; ``dtype`` of the kernels)."""
        return product_kernels.answers(self.rows_t(params, fixed, dtype), plan)


def cosine(step: int, total: int, start: float, end: float) -> float:
    """Cosine annealing from ``start`` at step 0 to ``end`` at step ``total``
    (PyTorch's ``CosineAnnealingLR`` closed form)."""
    return end + (start - end) * (1.0 + np.cos(np.pi * step / total)) / 2.0


def tree_ema(average, params, beta: float):
    """β·average + (1 − β)·params, leaf by leaf (average None: params)."""
    if average is None:
        return jax.tree_util.tree_map(jnp.array, params)
    return jax.tree_util.tree_map(lambda a, p: beta * a + (1.0 - beta) * p, average, params)
