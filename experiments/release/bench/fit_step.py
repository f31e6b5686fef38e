"""Milliseconds per Adam step of GEM or RAP^softmax, split into its four parts.

Also, for GEM, the generator's multiply-adds per step and the rate its two compiled calls reach
beside NumPy's float32 matrix product on this machine, on an artefact's problem.

    PUBPRIV_DATA=../shared/data python scripts/bench.py fit_step [--algo gem|rap]
        [--dataset nist|nist-full|adult] [--k 3] [--measured 25] [--repeats 200]

The step is :meth:`~pubpriv_core.algorithms.mixture_fit.Fitter.step` at the algorithm's default
options, fitted to the true answers of ``--measured`` marginals of the artefact's workload
(drawn with seed 1; the step's cost does not depend on the values), from the initial
parameters of seed 0 after three warm-up steps. Parts: ``rows`` (one compiled call: Pᵀ and the
VJP's residuals; for GEM the generator's forward pass), ``loss`` and ``gradient`` (the host
kernels of :mod:`~pubpriv_core.algorithms.product_kernels` on the measured cells), ``update``
(one compiled call: the pull-back through the VJP and Adam; for GEM the backward pass).

GEM's generator (E = embedding, H = hidden, D = Σ|X_j|, K rows) takes K·(E·H + (E + H)·H +
(E + 2H)·D) multiply-adds forward and that plus K·(H·H + 2H·D) backward (the weights' gradients
of the three layers, and the gradients of the last two layers' trained inputs: the noise z, the
last E columns of each layer's input, needs none, :func:`~pubpriv_core.algorithms.generators.
dense_on_noise`).
The reference rate is ``numpy.matmul`` on (K × (E + H)) @ ((E + H) × H) in float32 with NumPy's
BLAS at its default threads.
"""
from __future__ import annotations

import time

import numpy as np

from experiments.console import ArgumentParser, positive_int, run_or_fail
from experiments.release.bench.mixture_problems import DATASETS, mixture_problem

WARMUP = 3


def model(algo: str, prob):
    """(fitter, params, fixed input, loss rule factory, learning rate) at the defaults."""
    from pubpriv_core.algorithms import gem, generators, rap
    rng = np.random.default_rng(0)
    if algo == "gem":
        opts = gem.GEMOptions()
        params, z = gem._initial(prob, opts, generators.jax_key(rng))
        fitter = gem._fitter(tuple(prob.workload.domain.shape))
        return fitter, params, z, (lambda plan, targets: gem.MeasuredLoss(
            plan, targets, opts.loss_p, opts.max_idxs)), opts.lr
    opts = rap.RAPOptions()
    rows = rap.RelaxedRows(prob, opts, rng)
    return rows.fitter, rows.params, None, (lambda plan, targets: rap.SquaredLoss(
        plan, targets, opts.max_idxs, np.random.default_rng(2))), opts.lr


def measured_plan(prob, count: int):
    """The plan and true answers of ``count`` marginals of the workload drawn with seed 1."""
    from pubpriv_core.algorithms.product_kernels import ProductPlan
    wl = prob.workload
    chosen = np.random.default_rng(1).choice(wl.num_marginals, min(count, wl.num_marginals),
                                             replace=False)
    plan = ProductPlan(wl, chosen)
    targets = np.concatenate([prob.true_answers[wl.offsets[w]:wl.offsets[w + 1]]
                              for w in chosen])
    return plan, targets


def step_parts(fitter, params, fixed, rule, lr: float, repeats: int) -> dict[str, float]:
    """Milliseconds per step of each part (the parts of ``Fitter.step``, each waited for)."""
    import jax
    from pubpriv_core.algorithms import product_kernels
    state = fitter.init_state(params)
    for _ in range(WARMUP):
        params, state, _, _ = fitter.step(params, state, fixed, rule, 0.0, lr)
    total = dict.fromkeys(("rows", "loss", "gradient", "update"), 0.0)
    for _ in range(repeats):
        tick = time.perf_counter()
        rows_t, pullback = fitter.vjp_rows(params, fixed)
        loss_at = time.perf_counter()
        _, _, coef = rule.evaluate(rows_t, 0.0)
        gradient_at = time.perf_counter()
        grad_t = product_kernels.gradient(rows_t, rule.plan, coef)
        update_at = time.perf_counter()
        params, state = fitter._update(pullback, grad_t, params, state, np.float32(lr))
        jax.block_until_ready(params)
        done = time.perf_counter()
        for part, seconds in zip(total, (loss_at - tick, gradient_at - loss_at,
                                         update_at - gradient_at, done - update_at)):
            total[part] += seconds
    return {part: seconds / repeats * 1e3 for part, seconds in total.items()}


def generator_macs(K: int, E: int, H: int, D: int) -> tuple[int, int]:
    """(forward, backward) multiply-adds of one step of GEM's generator (module docstring)."""
    forward = K * (E * H + (E + H) * H + (E + 2 * H) * D)
    backward = forward + K * (H * H + 2 * H * D)
    return forward, backward


def matmul_rate(K: int, E: int, H: int, repeats: int = 200) -> float:
    """NumPy's float32 (K × (E + H)) @ ((E + H) × H), in multiply-adds per second."""
    rng = np.random.default_rng(0)
    a = rng.random((K, E + H), dtype=np.float32)
    b = rng.random((E + H, H), dtype=np.float32)
    for _ in range(10):
        a @ b
    tick = time.perf_counter()
    for _ in range(repeats):
        a @ b
    return K * (E + H) * H * repeats / (time.perf_counter() - tick)


def bench(args) -> None:
    from pubpriv_core.algorithms import gem
    prob = mixture_problem(args.dataset, args.k)
    plan, targets = measured_plan(prob, args.measured)
    fitter, params, fixed, make_rule, lr = model(args.algo, prob)
    parts = step_parts(fitter, params, fixed, make_rule(plan, targets), lr, args.repeats)
    print(f"{args.algo} on {args.dataset} (k = {args.k}): {len(plan.marginals)} measured "
          f"marginals, {plan.cells} cells, D = {plan.dim}")
    print("  " + ", ".join(f"{part} {ms:.2f}" for part, ms in parts.items())
          + f" = {sum(parts.values()):.2f} ms per step")
    if args.algo != "gem":
        return
    opts = gem.GEMOptions()
    forward, backward = generator_macs(opts.K, opts.embedding, opts.hidden, plan.dim)
    rate = matmul_rate(opts.K, opts.embedding, opts.hidden)
    rows_rate, update_rate = forward / parts["rows"] / 1e6, backward / parts["update"] / 1e6
    print(f"  generator: {forward / 1e6:.0f} M multiply-adds forward ({rows_rate:.1f} G/s in "
          f"rows), {backward / 1e6:.0f} M backward ({update_rate:.1f} G/s in update); numpy "
          f"float32 matmul: {rate / 1e9:.1f} G/s; the generator's passes at that rate: "
          f"{(forward + backward) / rate * 1e3:.2f} ms")


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algo", choices=("gem", "rap"), default="gem")
    parser.add_argument("--dataset", choices=DATASETS, default="nist")
    parser.add_argument("--k", type=positive_int, default=3, help="marginal order (NIST)")
    parser.add_argument("--measured", type=positive_int, default=25)
    parser.add_argument("--repeats", type=positive_int, default=200)
    run_or_fail(bench, parser.parse_args(argv))

