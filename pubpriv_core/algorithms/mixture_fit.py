"""Gradient steps on a mixture of product distributions against target answers (GEM, GEM^Pub's
pre-training, RAP^softmax).

One step is one compiled JAX call: the parametrisation's row probabilities P (K, D), a loss over
marginal cells evaluated by a *loss rule* on the host (answers and gradients with respect to Pᵀ
from :mod:`~pubpriv_core.algorithms.product_kernels`, joined to JAX's autodiff as a custom VJP
through ``jax.pure_callback``), and an Adam update (``optax.scale_by_adam``: β = (0.9, 0.999),
ε = 1e−8, PyTorch's defaults) at a learning rate passed per step. A step whose rule finds no cell
to fit (``count`` = 0) leaves parameters and optimiser state unchanged, so the caller stops.

A loss rule is a pure function of (the rows' answers on its cells, its targets): it returns the
loss value, the number of cells it used and the loss's derivative with respect to each cell's
answer; the VJP multiplies the last through the kernels' gradient. Rules live with their
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


class HostLoss:
    """The host side of the custom VJP: the current rule, and the coefficients of the last
    forward evaluation for the backward pass that follows it."""

    def __init__(self):
        self.rule: LossRule | None = None
        self._coef: np.ndarray | None = None

    def forward(self, Pt, threshold):
        value, count, coef = self.rule.evaluate(np.asarray(Pt), float(threshold))
        self._coef = coef
        return np.float32(value), np.float32(count)

    def backward(self, Pt, value, cotangent):   # ``value`` orders this call after forward
        coef = self._coef * float(cotangent)
        return product_kernels.gradient(np.asarray(Pt), self.rule.plan, coef)


def _host_loss_op(host: HostLoss) -> Callable:
    scalar = jax.ShapeDtypeStruct((), jnp.float32)

    @jax.custom_vjp
    def loss(Pt, threshold):
        return jax.pure_callback(host.forward, (scalar, scalar), Pt, threshold)

    def fwd(Pt, threshold):
        value, count = jax.pure_callback(host.forward, (scalar, scalar), Pt, threshold)
        return (value, count), (Pt, value)

    def bwd(residual, cotangents):
        Pt, value = residual
        grad = jax.pure_callback(host.backward, jax.ShapeDtypeStruct(Pt.shape, Pt.dtype),
                                 Pt, value, cotangents[0])
        return grad, jnp.zeros((), jnp.float32)

    loss.defvjp(fwd, bwd)
    return loss


@dataclass
class Fitter:
    """Compiled steps for one parametrisation ``probs(params, fixed) -> P`` (K, D); ``fixed``
    (GEM's noise z) is an input that is not trained."""

    probs: Callable

    def __post_init__(self):
        self.host = HostLoss()
        self.adam = optax.scale_by_adam(b1=0.9, b2=0.999, eps=1e-8)
        loss = _host_loss_op(self.host)
        probs, adam = self.probs, self.adam

        def objective(params, fixed, threshold):
            return loss(probs(params, fixed).T, threshold)

        def step(params, state, fixed, threshold, lr):
            (value, count), grads = jax.value_and_grad(objective, has_aux=True)(
                params, fixed, threshold)
            updates, new_state = adam.update(grads, state)
            new_params = jax.tree_util.tree_map(lambda p, u: p - lr * u, params, updates)
            keep = count > 0
            choose = lambda new, old: jnp.where(keep, new, old)  # noqa: E731
            return (jax.tree_util.tree_map(choose, new_params, params),
                    jax.tree_util.tree_map(choose, new_state, state), value, count)

        self._step = jax.jit(step)
        self._rows_t = jax.jit(lambda params, fixed: probs(params, fixed).T)

    def init_state(self, params):
        return self.adam.init(params)

    def step(self, params, state, fixed, rule: LossRule, threshold: float, lr: float):
        """One Adam step on ``rule``'s loss; returns (params, state, loss, count)."""
        self.host.rule = rule
        params, state, value, count = self._step(params, state, fixed, np.float32(threshold),
                                                 np.float32(lr))
        return params, state, float(value), int(count)

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
