"""GEM's generator (:mod:`pubpriv_core.algorithms.generators`) and the generator passes of a GEM
run (:class:`pubpriv_core.algorithms.gem.GeneratorModel`): the derivative that skips the noise
is automatic differentiation's (bit for bit at the artefacts' network size, to float32 rounding
on a small one) at fewer operations; a run passes each parameter value through the network once
and releases what a run with a fresh pass for every use releases."""
from __future__ import annotations

from functools import lru_cache

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from pubpriv_core.algorithms import gem, generators

from pubpriv_core.harness import ReleaseProblem, run_algorithm
from pubpriv_core.data.domain import Dataset, Domain
from pubpriv_core.queries import MarginalWorkload

SHAPE = (3, 4, 2, 5, 7)
#: GEM's generator at the artefacts' size (K, E, H), where XLA's products sum in one order
#: whether or not the noise columns are skipped, and a small one, where they may not
ARTEFACT_SIZE, SMALL_SIZE = (1000, 256, 256), (48, 16, 24)
GEM_OPTIONS = {"K": 64, "embedding": 16, "hidden": 16, "max_iters": 6}


def autodiff_logits(params: dict, z: jax.Array) -> jax.Array:
    """The generator of the module docstring differentiated by JAX alone: h ← [ReLU(BN(W·h + b)), h]."""
    h = z
    for block in params["blocks"]:
        a = h @ block["w"] + block["b"]
        mean = a.mean(axis=0)
        var = jnp.mean((a - mean) ** 2, axis=0)
        a = (a - mean) * jax.lax.rsqrt(var + generators.BN_EPS) * block["scale"] + block["shift"]
        h = jnp.concatenate([jax.nn.relu(a), h], axis=1)
    return h @ params["out"]["w"] + params["out"]["b"]


def probabilities(logits_fn):
    segments = generators.attribute_segments(SHAPE)
    return lambda params, z: generators.blockwise_softmax(logits_fn(params, z), segments,
                                                          len(SHAPE)).T


@lru_cache(maxsize=None)
def rows_and_pullback(logits_fn):
    """Pᵀ and its VJP from one compiled call, the pullback applied in another (as ``Fitter``)."""
    probs = probabilities(logits_fn)
    rows = jax.jit(lambda params, z: jax.vjp(lambda p: probs(p, z), params))
    pull = jax.jit(lambda pullback, g: pullback(g))
    return rows, pull


def derivatives(size: tuple[int, int, int], seed: int) -> tuple[list, list]:
    """Pᵀ and the pullback of a random cotangent, by the harness' generator and by autodiff."""
    K, E, H = size
    params, z = generators.init_generator(jax.random.PRNGKey(seed), K, E, H, sum(SHAPE))
    g = jnp.asarray(np.random.default_rng(seed).standard_normal((sum(SHAPE), K)), jnp.float32)
    out = []
    for logits_fn in (generators.generator_logits, autodiff_logits):
        rows, pull = rows_and_pullback(logits_fn)
        values, pullback = rows(params, z)
        out.append([np.asarray(a) for a in (values, *jax.tree_util.tree_leaves(pull(pullback, g)))])
    return out[0], out[1]


def test_generator_derivative_is_automatic_differentiation_bit_for_bit():
    got, want = derivatives(ARTEFACT_SIZE, 0)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert np.array_equal(a, b)


def test_generator_derivative_is_automatic_differentiation_on_small_networks():
    got, want = derivatives(SMALL_SIZE, 0)
    assert np.array_equal(got[0], want[0])
    for a, b in zip(got[1:], want[1:]):
        assert np.allclose(a, b, rtol=1e-5, atol=1e-6)


def test_generator_derivative_skips_the_noise_products():
    """Compiled, the pullback makes 2·K·E·(H + D) fewer floating-point operations: the
    products g·w[m:]ᵀ with the noise rows of the second block's and the output layer's w."""
    (K, E, H), D = SMALL_SIZE, sum(SHAPE)
    params, z = generators.init_generator(jax.random.PRNGKey(0), K, E, H, D)
    g = jnp.zeros((D, K), jnp.float32)
    flops = []
    for logits_fn in (generators.generator_logits, autodiff_logits):
        rows, pull = rows_and_pullback(logits_fn)
        cost = pull.lower(rows(params, z)[1], g).compile().cost_analysis()
        cost = cost[0] if isinstance(cost, (list, tuple)) else cost
        if not cost or "flops" not in cost:
            pytest.skip("this JAX build reports no compiled cost analysis")
        flops.append(cost["flops"])
    assert flops[1] - flops[0] >= 2 * K * E * (H + D)


@pytest.fixture(scope="module")
def problem() -> ReleaseProblem:
    rng = np.random.default_rng(5)
    domain = Domain(list("abcde"), SHAPE)
    records = np.stack([rng.integers(0, s, 2000) for s in SHAPE], axis=1)
    records[:, 1] = (records[:, 0] + rng.integers(0, 2, 2000)) % SHAPE[1]
    public = np.stack([rng.integers(0, s, 300) for s in SHAPE], axis=1)
    support, counts = np.unique(public, axis=0, return_counts=True)
    workload = MarginalWorkload.random(domain, 2, size=None, seed=0)
    return ReleaseProblem(Dataset(records, domain), workload, support, counts / counts.sum(), 300)


@pytest.mark.parametrize("algo", ["gem", "gem_pub"])
def test_a_run_shares_passes_and_releases_what_fresh_passes_release(problem, monkeypatch, algo):
    """Each parameter value is passed through the generator once (GEM^Pub's pre-trained
    checkpoint twice: in pre-training and as the rounds' start), fewer passes than with a fresh
    one for every use, and the same selections, steps and answers."""
    options = {**GEM_OPTIONS, **({"pretrain_steps": 25} if algo == "gem_pub" else {})}

    def release():
        gem._PRETRAINED.clear()
        return run_algorithm(algo, problem, eps=2.0, delta=1e-6, T=6,
                             rng=np.random.default_rng(3), **options)

    seen, vjp_rows, step = [], gem.Fitter.vjp_rows, gem.Fitter.step

    def counted(self, params, fixed):
        seen.append(params)      # kept alive, so no two parameter values share an id
        return vjp_rows(self, params, fixed)

    monkeypatch.setattr(gem.Fitter, "vjp_rows", counted)
    shared = release()
    passes, distinct = len(seen), len({id(params) for params in seen})
    monkeypatch.setattr(gem.GeneratorModel, "rows",
                        lambda self: self.fitter.vjp_rows(self.params, self.z))
    monkeypatch.setattr(gem.Fitter, "step", lambda self, *args, rows=None: step(self, *args))
    fresh = release()
    assert passes == distinct + (algo == "gem_pub") < len(seen) - passes
    assert shared.trace["marginals"] == fresh.trace["marginals"]
    assert shared.trace["steps"] == fresh.trace["steps"]
    assert np.array_equal(shared.answers, fresh.answers)
