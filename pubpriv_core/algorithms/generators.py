"""The two parametrisations of a mixture of K product distributions, in JAX (float32).

* GEM's generator (Liu, Vietri & Wu 2021, §4.2; the architecture of its reference code): fixed
  Gaussian noise z ∈ R^{K×E} (E = ``embedding``) through two residual blocks
  h ← [ReLU(BN(W·h + b)), h] of width ``hidden`` each (batch normalisation over the K rows,
  biased variance, ε = 1e−5, learned scale and shift), then a linear layer to D = Σ_j |X_j|
  logits; each attribute's block of logits goes through a softmax. Linear layers start as
  PyTorch's default (weights and biases U(−1/√fan_in, 1/√fan_in)), BN at scale 1, shift 0.
* RAP^softmax's rows (Aydore et al. 2021 with the softmax relaxation that Liu et al. 2021 compare
  against, §6): K free rows of D logits, N(0, 1) at the start, the same per-attribute softmax.

Either gives the (K, D) row probabilities P; its transpose is what
:mod:`~pubpriv_core.algorithms.product_kernels` answers marginals on. Random draws take a
``jax.random`` key derived from the run's ``numpy.random.Generator``.
"""
from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

BN_EPS = 1e-5


def jax_key(rng: np.random.Generator) -> jax.Array:
    """A JAX key drawn from the explicit NumPy generator of the run."""
    return jax.random.PRNGKey(int(rng.integers(0, 2 ** 63 - 1)))


def attribute_segments(shape: tuple[int, ...]) -> np.ndarray:
    """The attribute of each of the D one-hot positions."""
    return np.repeat(np.arange(len(shape)), shape)


def blockwise_softmax(logits: jax.Array, segments: np.ndarray, count: int) -> jax.Array:
    """Softmax within each attribute's block of the last axis (rows of ``logits``)."""
    ids = jnp.asarray(segments)
    peak = jax.ops.segment_max(logits.T, ids, num_segments=count)[ids].T
    expd = jnp.exp(logits - jax.lax.stop_gradient(peak))
    total = jax.ops.segment_sum(expd.T, ids, num_segments=count)[ids].T
    return expd / total


def _linear(key: jax.Array, fan_in: int, fan_out: int) -> dict:
    bound = 1.0 / math.sqrt(fan_in)
    k_w, k_b = jax.random.split(key)
    return {"w": jax.random.uniform(k_w, (fan_in, fan_out), jnp.float32, -bound, bound),
            "b": jax.random.uniform(k_b, (fan_out,), jnp.float32, -bound, bound)}


def init_generator(key: jax.Array, K: int, embedding: int, hidden: int, dim: int,
                   blocks: int = 2) -> tuple[dict, jax.Array]:
    """(parameters, noise z) of GEM's generator."""
    keys = jax.random.split(key, blocks + 2)
    params, width = {"blocks": []}, embedding
    for i in range(blocks):
        params["blocks"].append({**_linear(keys[i], width, hidden),
                                 "scale": jnp.ones(hidden, jnp.float32),
                                 "shift": jnp.zeros(hidden, jnp.float32)})
        width += hidden
    params["out"] = _linear(keys[blocks], width, dim)
    z = jax.random.normal(keys[blocks + 1], (K, embedding), jnp.float32)
    return params, z


def generator_logits(params: dict, z: jax.Array) -> jax.Array:
    """The generator's (K, D) logits for the fixed noise ``z``."""
    trained = None
    for block in params["blocks"]:
        if trained is None:
            a = z @ block["w"] + block["b"]
        else:
            a = dense_on_noise(trained, z, block["w"], block["b"])
        mean = a.mean(axis=0)
        var = jnp.mean((a - mean) ** 2, axis=0)
        a = (a - mean) * jax.lax.rsqrt(var + BN_EPS) * block["scale"] + block["shift"]
        parts = [jax.nn.relu(a)] if trained is None else [jax.nn.relu(a), trained]
        trained = jnp.concatenate(parts, axis=1)
    return dense_on_noise(trained, z, params["out"]["w"], params["out"]["b"])


@jax.custom_vjp
def dense_on_noise(trained: jax.Array, z: jax.Array, w: jax.Array, b: jax.Array) -> jax.Array:
    """[trained, z]·w + b for a residual block's input h = [trained, z], whose last columns are
    the untrained noise z.

    Its derivative is the one automatic differentiation gives (∂w = hᵀ·g, ∂b = Σ_rows g,
    ∂trained = g·w[:m]ᵀ for the first m rows of w) without g·w[m:]ᵀ, the derivative with
    respect to z that nothing uses, which XLA would otherwise compute whole and then slice:
    K·E·(fan_out) multiply-adds fewer per step, K·E·(H + D) for GEM's generator. At the
    artefacts' sizes (K = 1,000, E = H = 256; D = 39 to 265 checked) the gradients are
    automatic differentiation's bit for bit; on small networks XLA may sum the narrower
    product in another order (float32 rounding)."""
    return jnp.concatenate([trained, z], axis=1) @ w + b


def _dense_forward(trained, z, w, b):
    h = jnp.concatenate([trained, z], axis=1)
    return h @ w + b, (h, w, z)


def _dense_backward(saved, g):
    h, w, z = saved
    width = h.shape[1] - z.shape[1]
    dw = jax.lax.dot_general(h, g, (((0,), (0,)), ((), ())))
    dtrained = jax.lax.dot_general(g, w[:width], (((1,), (1,)), ((), ())))
    return dtrained, jnp.zeros_like(z), dw, g.sum(axis=0)


dense_on_noise.defvjp(_dense_forward, _dense_backward)


def init_rows(key: jax.Array, K: int, dim: int) -> dict:
    """RAP^softmax's K rows of logits, N(0, 1)."""
    return {"logits": jax.random.normal(key, (K, dim), jnp.float32)}
