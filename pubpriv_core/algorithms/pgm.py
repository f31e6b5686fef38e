"""Private-PGM inference for the select–measure–generate mechanisms AIM, MST and JAM-PGM.

Private-PGM (McKenna, Sheldon & Miklau 2019, "Graphical-model based estimation and inference for
differential privacy", Alg. 1) fits a Markov random field to noisy marginal measurements by
mirror descent on Σ_r ½‖(M_r(μ) − y_r)/σ_r‖²; the ``mbi`` package (v2) provides it. This module
is the glue: JAX runs on the CPU in float64 with its persistent compilation cache off (the
package's own advice, printed as a warning otherwise); cliques are tuples of attribute names in
domain order; data marginals are computed here by ``bincount`` and model marginals exactly in NumPy
(:class:`ModelMarginals`), which avoids compiling one JAX program per queried clique. :func:`fit` runs the same mirror descent on the joint table
(:mod:`~pubpriv_core.algorithms.pgm_joint`) for small domains, on a junction tree in NumPy
(:mod:`~pubpriv_core.algorithms.pgm_tree`) for large ones, or ``mbi``'s own JAX estimator.
"""
from __future__ import annotations

import itertools
import math

import jax
import numpy as np

jax.config.update("jax_platforms", "cpu")
jax.config.update("jax_enable_x64", True)
jax.config.update("jax_enable_compilation_cache", False)

import mbi  # noqa: E402  (after the JAX settings above, which mbi checks on import)
from mbi import estimation  # noqa: E402

from pubpriv_core.algorithms import junction_size, pgm_joint, pgm_tree  # noqa: E402
from pubpriv_core.algorithms.settings import ESTIMATORS  # noqa: E402
from pubpriv_core.data.domain import Domain  # noqa: E402
from pubpriv_core.queries import MarginalWorkload  # noqa: E402

Clique = tuple[str, ...]


def to_mbi(domain: Domain) -> mbi.Domain:
    """The ``mbi.Domain`` with the same attributes, order and sizes."""
    return mbi.Domain(list(domain.attributes), list(domain.shape))


def canonical(domain: Domain, attributes) -> Clique:
    """``attributes`` as a clique: names sorted by their position in ``domain``."""
    return tuple(sorted(set(attributes), key=domain.attributes.index))


def workload_cliques(workload: MarginalWorkload) -> list[Clique]:
    """The attribute sets of the workload, as cliques, in workload order."""
    return [workload.attribute_names(w) for w in range(workload.num_marginals)]


def downward_closure(cliques: list[Clique], domain: Domain) -> list[Clique]:
    """All non-empty subsets of the given cliques, by size then domain order (AIM, §3 "C")."""
    subsets = {canonical(domain, sub) for clique in cliques
               for size in range(1, len(clique) + 1)
               for sub in itertools.combinations(clique, size)}
    return sorted(subsets, key=lambda c: (len(c), [domain.attributes.index(a) for a in c]))


def marginal(records: np.ndarray, domain: Domain, clique: Clique,
             weights: np.ndarray | None = None) -> np.ndarray:
    """Counts of ``records`` (optionally weighted) on every cell of ``clique``, C order."""
    axes = domain.axes(clique)
    shape = [domain.shape[a] for a in axes]
    flat = np.ravel_multi_index(tuple(records[:, a].astype(np.int64) for a in axes), shape)
    return np.bincount(flat, weights=weights, minlength=math.prod(shape)).astype(float)


def measurement(values: np.ndarray, clique: Clique, stddev: float) -> mbi.LinearMeasurement:
    """A term ½‖(M_clique(μ) − values)/stddev‖² of the loss (its sum enters the total's
    estimate when the total is not given)."""
    return mbi.LinearMeasurement(np.asarray(values, dtype=float), clique, stddev=float(stddev))


class QuickCompileMirrorDescent(estimation.MirrorDescent):
    """``mbi``'s mirror descent with its fused block of steps compiled at XLA's backend
    optimisation level 0: the same steps, less compile time for every new clique set and about
    twice the time per iteration (one NIST-reduced fit of 15 cliques, two fresh processes each,
    load 5: 8–12 s vs 17–19 s to compile, 2.8–3.0 s vs 1.6–1.9 s per 1,000 iterations). It pays
    where many clique sets are fitted once each with few iterations (JAM-PGM's rounds)."""

    _multi_step = jax.jit(estimation.Estimator._multi_step.__wrapped__,
                          static_argnames=["self"], donate_argnames=["state"],
                          compiler_options={"xla_backend_optimization_level": 0})


FULL_TABLE_CELLS = 2_000_000   # ``auto``: the joint table at most up to 2·10⁶ cells (16 MB)


def check_estimator(name: str) -> None:
    """Refuse an unknown ``algo.estimator``."""
    if name not in ESTIMATORS:
        raise ValueError(f"unknown algo.estimator={name!r}; choose from {', '.join(ESTIMATORS)}")


def resolve_estimator(domain: mbi.Domain, name: str, cliques=None) -> str:
    """``auto``: ``tree`` above :data:`FULL_TABLE_CELLS` cells; below, ``full_table`` unless
    ``cliques`` (the measured cliques of the fit) are given and their junction tree has fewer
    cells than the joint table (JT-SIZE, :mod:`~pubpriv_core.algorithms.junction_size`):
    then a step costs less on the tree (≈ 10 ns per junction-tree cell against ≈ 15–30 ns per
    joint-table cell on NIST reduced). Any other name as given."""
    check_estimator(name)
    if name != "auto":
        return name
    if domain.size() > FULL_TABLE_CELLS:
        return "tree"
    if cliques is not None and junction_size.model_size_mb(domain, cliques) * 2 ** 20 / 8 \
            < domain.size():
        return "tree"
    return "full_table"


def fit(domain: mbi.Domain, measurements: list, total: float | None, iters: int,
        warm_start=None, quick_compile: bool = False, estimator: str = "auto"):
    """Private-PGM estimate (McKenna et al. 2019, Alg. 1: mirror descent with Armijo steps,
    ``mbi``'s recommended estimator) with the total fixed to ``total`` (the public n under
    replace-one neighbours) or, if None, estimated from the measurements (``mbi``'s
    minimum-variance unbiased total: add/remove).

    ``estimator`` (:func:`resolve_estimator`): ``full_table`` runs the iteration on the joint
    table (:mod:`~pubpriv_core.algorithms.pgm_joint`) and returns a
    :class:`~pubpriv_core.algorithms.pgm_joint.JointModel`; ``tree`` runs it on the junction
    tree (:mod:`~pubpriv_core.algorithms.pgm_tree`) and returns a
    :class:`~pubpriv_core.algorithms.pgm_tree.TreeModel` — neither compiles anything per clique
    set; ``mbi`` runs ``mbi``'s JAX junction-tree estimator (one compiled program per clique
    set; ``quick_compile``, which only this estimator reads, compiles it at XLA level 0) and
    returns an ``mbi.MarkovRandomField``. A warm start must come from the same estimator,
    except under ``auto``, which moves a tree model to the joint table (the same distribution)
    when the table becomes the cheaper, and then stays there."""
    cliques = [m.clique for m in measurements]
    name = resolve_estimator(domain, estimator, cliques)
    if estimator == "auto" and isinstance(warm_start, pgm_joint.JointModel):
        name = "full_table"
    if name == "full_table" and estimator == "auto" and isinstance(warm_start,
                                                                   pgm_tree.TreeModel):
        warm_start = warm_start.joint()
    native = {"full_table": pgm_joint, "tree": pgm_tree}.get(name)
    kind = {"full_table": pgm_joint.JointModel,
            "tree": pgm_tree.TreeModel}.get(name, mbi.MarkovRandomField)
    if warm_start is not None and not isinstance(warm_start, kind):
        raise ValueError(f"cannot warm-start estimator {name} from a {type(warm_start).__name__};"
                         " use one estimator for the whole run")
    if native is not None:
        return native.fit(domain, measurements, total, iters, warm_start=warm_start)
    mirror = QuickCompileMirrorDescent() if quick_compile else estimation.MirrorDescent()
    return mirror.estimate(domain, measurements,
                           known_total=None if total is None else float(total),
                           iters=iters, warm_start=warm_start)


def model_cliques(model) -> list[Clique]:
    """The cliques of a fitted model's potentials (either estimator)."""
    if isinstance(model, (pgm_joint.JointModel, pgm_tree.TreeModel)):
        return model.cliques
    return list(model.potentials.cliques)


def model_size_mb(domain: mbi.Domain, cliques: list[Clique]) -> float:
    """JT-SIZE of AIM (McKenna et al. 2022, Alg. 2 line 13): cells of the junction tree's maximal
    cliques × 8 bytes, in MB; exactly ``mbi.junction_tree.hypothetical_model_size``, computed on
    attribute bitsets (:mod:`~pubpriv_core.algorithms.junction_size`)."""
    return junction_size.model_size_mb(domain, cliques)


class ModelMarginals:
    """Marginals of a fitted model, in counts summing to its total, as NumPy arrays.

    For a :class:`~pubpriv_core.algorithms.pgm_joint.JointModel` a marginal is a sum of its
    joint table. Any other model answers from a calibrated junction tree
    (:meth:`~pubpriv_core.algorithms.pgm_tree.TreeModel.marginal`: exact, in or out of the
    model's cliques); ``mbi``'s model is first read into a
    :class:`~pubpriv_core.algorithms.pgm_tree.TreeModel` with the same log-potentials ψ_C and
    total, which defines the same distribution, so no JAX program is compiled per queried clique.
    """

    def __init__(self, model):
        self.total = float(model.total)
        self.joint = model if isinstance(model, pgm_joint.JointModel) else None
        if self.joint is not None:
            self.counts = self.joint.counts()
            return
        self.tree = model if isinstance(model, pgm_tree.TreeModel) else _as_tree(model)

    def __call__(self, clique: Clique) -> np.ndarray:
        if self.joint is not None:
            return self.joint.marginal(clique, self.counts).ravel()
        return self.tree.marginal(clique).ravel()


def _as_tree(model: mbi.MarkovRandomField) -> pgm_tree.TreeModel:
    """``mbi``'s fitted model as a :class:`~pubpriv_core.algorithms.pgm_tree.TreeModel`."""
    cliques = [tuple(c) for c in model.potentials.cliques]
    tables = [np.asarray(model.potentials[c].values).ravel() for c in cliques]
    return pgm_tree.TreeModel(model.potentials.domain, cliques, tables, float(model.total))


def workload_answers(model, workload: MarginalWorkload) -> np.ndarray:
    """The model's marginals on every workload cell (query order of
    :class:`~pubpriv_core.queries.MarginalWorkload`), as fractions of the model's total."""
    marginals = ModelMarginals(model)
    return np.concatenate([marginals(c) for c in workload_cliques(workload)]) / marginals.total
