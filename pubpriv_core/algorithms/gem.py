"""GEM and GEM^Pub: generative networks with the exponential mechanism (Liu, Vietri & Wu 2021,
§4.2 and §5; arXiv 2106.07153).

Rounds: :mod:`~pubpriv_core.algorithms.adaptive_measurements` (EM over each marginal's max error
at 2αε0, Δ = 1/n; Gaussian measurement of the whole marginal, σ = (√2/n)/((1 − α)ε0)). The
distribution is a mixture of K product distributions given by a generator network
(:mod:`~pubpriv_core.algorithms.generators`, float32). After each measurement (the paper's update,
with the constants of its reference code's scripts):

* the error of the current generator on every measured cell, |a_i − q_i(G)|, gives the round's
  max error, folded into an EMA e ← β·e + (1 − β)·max (β = ``ema_beta`` = 0.5; e starts at the
  first max);
* up to ``max_iters`` (100) Adam steps, a fresh Adam each round, learning rate ``lr`` (1e−4;
  cosine-annealed over the T rounds to ``eta_min`` when it is set) cosine-annealed within the
  round to 1e−8; each step's loss is ‖e_S‖_p / |S| over S = the measured cells with
  |a_i − q_i(G)| ≥ ``ema_error_factor``·e (0.5), at most the ``max_idxs`` (10,000) largest; the
  round stops early when S is empty;
* the release is the last generator, or (``ema_weights``) the EMA (β = ``ema_weights_beta``,
  0.9) of the generator weights of the last round(T/2) rounds, oldest first.

The generator sees the private data only through the noisy measurements: no checkpoint is ever
chosen by its error on the private data (the reference code saves ``best.pt`` that way; this
harness never computes that error during a run).

GEM^Pub first fits the same generator, without privacy, to the public data's answers on the whole
workload (``pretrain_steps`` Adam steps at ``pretrain_lr`` cosine-annealed to
``pretrain_eta_min``, each on ``max_idxs`` cells drawn with replacement ∝ their current public
error, the probabilities refreshed every ``pretrain_refresh`` steps), keeps the checkpoint with
the lowest public max error among those evaluations, then runs GEM from it. The pre-training
reads only the public data (free) and is cached per (public data, workload, options) in the
process and, where the runner sets a shared folder (:mod:`.shared_cache`), on disk for every
process of the sweep, so a sweep over ε and T pays for it once.
"""
from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from dataclasses import asdict
from functools import lru_cache

import jax
import numpy as np

from pubpriv_core.algorithms import generators, product_kernels
from pubpriv_core.algorithms.adaptive_measurements import (Measurements, check_successor,
                                                             run_rounds)
from pubpriv_core.algorithms.base import PublicProblem, Release
from pubpriv_core.algorithms.mixture_fit import Fitter, cosine, tree_ema
from pubpriv_core.algorithms.pretrained_store import PretrainedStore
from pubpriv_core.algorithms.product_kernels import ProductPlan
from pubpriv_core.algorithms.select_measure import parse_options
from pubpriv_core.algorithms.settings import GEMOptions, GEMPubOptions
from pubpriv_core.algorithms.shared_cache import shared_folder
from pubpriv_core.privacy.private_data import PrivateData

#: end of the cosine annealing of the learning rate within a round
INNER_ETA_MIN = 1e-8


class MeasuredLoss:
    """GEM's step loss on the measured cells (a pure function of their answers and the
    measurements): ‖e_S‖_p/|S| over the cells with |e| ≥ threshold, the ``max_idxs`` largest."""

    def __init__(self, plan: ProductPlan, targets: np.ndarray, p: int, max_idxs: int):
        self.plan, self.targets, self.p, self.max_idxs = plan, targets, p, max_idxs

    def errors(self, Pt: np.ndarray) -> np.ndarray:
        return self.targets - product_kernels.answers(Pt, self.plan)

    def evaluate(self, Pt: np.ndarray, threshold: float) -> tuple[float, int, np.ndarray]:
        return norm_loss(self.errors(Pt), threshold, self.p, self.max_idxs)


def norm_loss(errors: np.ndarray, threshold: float, p: int,
              max_idxs: int) -> tuple[float, int, np.ndarray]:
    """(‖e_S‖_p/|S|, |S|, ∂/∂answers) with S the cells of |e| ≥ threshold, at most
    ``max_idxs`` of the largest; e = target − answer."""
    size = np.abs(errors)
    chosen = np.flatnonzero(size >= threshold)
    if chosen.size > max_idxs:
        chosen = chosen[np.argpartition(size[chosen], -max_idxs)[-max_idxs:]]
    coef = np.zeros(errors.size)
    if chosen.size == 0:
        return 0.0, 0, coef
    e = errors[chosen]
    if p == 2:
        norm = float(np.sqrt(np.dot(e, e)))
        value = norm / chosen.size
        coef[chosen] = -e / (norm * chosen.size) if norm > 0 else 0.0
    else:
        value = float(np.abs(e).sum()) / chosen.size
        coef[chosen] = -np.sign(e) / chosen.size
    return value, int(chosen.size), coef


class SampledLoss:
    """GEM^Pub's pre-training loss: ‖e_S‖₂/|S| over ``size`` cells drawn with replacement ∝
    their error (``prob``, refreshed by the caller), e = public answer − generator answer."""

    def __init__(self, plan: ProductPlan, targets: np.ndarray, size: int,
                 rng: np.random.Generator):
        self.plan, self.targets, self.size, self.rng = plan, targets, size, rng
        self.prob: np.ndarray | None = None

    def evaluate(self, Pt: np.ndarray, threshold: float) -> tuple[float, int, np.ndarray]:
        drawn = self.rng.choice(self.targets.size, size=self.size, p=self.prob)
        cells, counts = np.unique(drawn, return_counts=True)
        e = self.targets[cells] - product_kernels.cell_answers(Pt, self.plan, cells)
        norm = float(np.sqrt(np.dot(counts * e, e)))
        coef = np.zeros(self.targets.size)
        if norm > 0:
            coef[cells] = -counts * e / (norm * self.size)
        return norm / self.size, self.size, coef


class GeneratorModel:
    """GEM's distribution and its per-round update (see the module docstring)."""

    def __init__(self, problem: PublicProblem, opts: GEMOptions, T: int, params, z):
        self.problem, self.opts, self.T = problem, opts, T
        self.params, self.z = params, z
        self.fitter = _fitter(tuple(problem.workload.domain.shape))
        self.plan = ProductPlan(problem.workload)
        self.ema_error: float | None = None
        self.average = None
        self.round = 0
        self.keep = max(1, int(np.round(0.5 * T)))     # rounds averaged by ema_weights
        self._rows_of, self._rows = None, None

    def rows(self) -> tuple:
        """:meth:`Fitter.vjp_rows` of the current parameters, computed once for them: a round's
        answers, its first error and its first step (and the step that ended the round before,
        which left the parameters unchanged) share one pass of the generator."""
        if self._rows_of is not self.params:
            self._rows_of, self._rows = self.params, self.fitter.vjp_rows(self.params, self.z)
        return self._rows

    def answers(self) -> np.ndarray:
        return product_kernels.answers(self.rows()[0], self.plan)

    def round_lr(self) -> float:
        if self.opts.eta_min is None:
            return self.opts.lr
        return cosine(self.round, self.T, self.opts.lr, self.opts.eta_min)

    def update(self, measurements: Measurements) -> int:
        opts = self.opts
        plan = ProductPlan(self.problem.workload, np.array(measurements.marginals))
        loss = MeasuredLoss(plan, measurements.flat(), opts.loss_p, opts.max_idxs)
        worst = float(np.abs(loss.errors(self.rows()[0])).max())
        self.ema_error = worst if self.ema_error is None else self.ema_error
        self.ema_error = opts.ema_beta * self.ema_error + (1 - opts.ema_beta) * worst
        threshold = opts.ema_error_factor * self.ema_error
        state, lr, steps = self.fitter.init_state(self.params), self.round_lr(), 0
        for s in range(opts.max_iters):
            self.params, state, _, count = self.fitter.step(
                self.params, state, self.z, loss, threshold,
                cosine(s, opts.max_iters, lr, INNER_ETA_MIN), rows=self.rows())
            if count == 0:
                break
            steps += 1
        self.round += 1
        if opts.ema_weights and self.round > self.T - self.keep:
            self.average = tree_ema(self.average, self.params, opts.ema_weights_beta)
        return steps

    def release(self) -> tuple[np.ndarray, dict]:
        params = self.average if self.average is not None else self.params
        answers = self.fitter.answers(params, self.z, self.plan, np.float64)
        return answers, {"output": "ema" if self.average is not None else "last"}


@lru_cache(maxsize=16)
def _fitter(shape: tuple[int, ...]) -> Fitter:
    """One compiled fitter per domain shape (the noise z is an untrained input)."""
    segments, count = generators.attribute_segments(shape), len(shape)
    return Fitter(lambda params, z: generators.blockwise_softmax(
        generators.generator_logits(params, z), segments, count))


def _initial(problem: PublicProblem, opts: GEMOptions, key):
    shape = problem.workload.domain.shape
    return generators.init_generator(key, opts.K, opts.embedding, opts.hidden, int(sum(shape)))


def check_gem(problem: PublicProblem, *, eps: float, delta: float, T: int, **options) -> None:
    """The input checks of :func:`run_gem`, without running (options, the rounds' budget)."""
    check_successor("gem", GEMOptions, problem, eps=eps, delta=delta, T=T, options=options)


def check_gem_pub(problem: PublicProblem, *, eps: float, delta: float, T: int,
                  **options) -> None:
    """The input checks of :func:`run_gem_pub`, without running (options, a public source,
    the rounds' budget)."""
    check_successor("gem_pub", GEMPubOptions, problem, eps=eps, delta=delta, T=T,
                    options=options, needs_public=True)


def run_gem(problem: PublicProblem, private: PrivateData, *, T: int,
            rng: np.random.Generator, **options) -> Release:
    """GEM spending the private data's budget over T rounds; the generator starts from the
    run's generator."""
    opts = parse_options(GEMOptions, options)
    params, z = _initial(problem, opts, generators.jax_key(rng))
    model = GeneratorModel(problem, opts, T, params, z)
    return run_rounds("gem", problem, private, model, T=T, alpha=opts.alpha)


# ----------------------------------------------------------------------------- GEM^Pub
_PRETRAINED: OrderedDict[str, tuple] = OrderedDict()
_PRETRAINED_KEEP = 8


def _fingerprint(problem: PublicProblem, opts: GEMPubOptions) -> str:
    digest = hashlib.sha256()
    for array in (problem.public_support, problem.public_weights):
        digest.update(np.ascontiguousarray(array).tobytes())
    digest.update(repr((problem.workload.domain.shape, problem.workload.marginals)).encode())
    fields = {k: v for k, v in asdict(opts).items()
              if k in ("K", "embedding", "hidden", "max_idxs") or k.startswith("pretrain")}
    digest.update(repr((sorted(fields.items()), jax.__version__)).encode())
    return digest.hexdigest()


def pretrain(problem: PublicProblem, opts: GEMPubOptions) -> tuple:
    """(params, z, info) of the generator fitted to the public answers (no privacy cost); kept
    in this process and, where a shared folder is set (:mod:`.shared_cache`), on disk for the
    other processes."""
    key = _fingerprint(problem, opts)
    if key in _PRETRAINED:
        _PRETRAINED.move_to_end(key)
        return _PRETRAINED[key]
    rng = np.random.default_rng(opts.pretrain_seed)
    params, z = _initial(problem, opts, generators.jax_key(rng))
    store = PretrainedStore(shared_folder("gem_pretrain"))
    fitted, info = store.get(key, params, lambda: _fit_public(problem, opts, params, z, rng))
    out = _PRETRAINED[key] = fitted, z, info
    while len(_PRETRAINED) > _PRETRAINED_KEEP:
        _PRETRAINED.popitem(last=False)
    return out


def _fit_public(problem: PublicProblem, opts: GEMPubOptions, params, z,
                rng: np.random.Generator) -> tuple:
    """(params, info): the pre-training of the module docstring from the initial ``params``."""
    start = time.perf_counter()
    answerer = problem.public_answerer
    targets = answerer.expand(answerer.answer(problem.public_weights))
    fitter, plan = _fitter(tuple(problem.workload.domain.shape)), ProductPlan(problem.workload)
    loss = SampledLoss(plan, targets, opts.max_idxs, rng)
    state, best, best_error = fitter.init_state(params), params, np.inf
    for step in range(opts.pretrain_steps + 1):
        rows = None
        if step % opts.pretrain_refresh == 0 or step == opts.pretrain_steps:
            rows = fitter.vjp_rows(params, z)      # this evaluation's pass serves the step
            errors = np.abs(targets - product_kernels.answers(rows[0], plan))
            if errors.max() < best_error:
                best, best_error = params, float(errors.max())
            loss.prob = errors / errors.sum()
        if step == opts.pretrain_steps:
            break
        lr = cosine(step, opts.pretrain_steps, opts.pretrain_lr, opts.pretrain_eta_min)
        params, state, _, _ = fitter.step(params, state, z, loss, 0.0, lr, rows=rows)
    return best, {"pretrain_public_max_error": best_error,
                     "pretrain_s": time.perf_counter() - start}


def run_gem_pub(problem: PublicProblem, private: PrivateData, *, T: int,
                rng: np.random.Generator, **options) -> Release:
    """GEM^Pub: GEM from the generator pre-trained on the public data."""
    opts = parse_options(GEMPubOptions, options)
    if problem.public_support is None:
        raise ValueError("gem_pub needs a public source; set public=... in the config")
    params, z, info = pretrain(problem, opts)
    model = GeneratorModel(problem, opts, T, params, z)
    return run_rounds("gem_pub", problem, private, model, T=T, alpha=opts.alpha,
                      trace=dict(info))
