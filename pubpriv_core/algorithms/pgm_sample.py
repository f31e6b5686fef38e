"""Synthetic records drawn from a fitted Private-PGM model (AIM, MST, JAM-PGM release the model).

Drawing records from the released model is post-processing: it reads only the model, so it
spends no privacy (Dwork & Roth 2014, Prop. 2.1). Every draw comes from the explicit
``numpy.random.Generator`` passed in.

* :class:`~pubpriv_core.algorithms.pgm_joint.JointModel` (the joint table): the cell counts of
  ``rows`` records are one multinomial draw from the table's distribution.
* Any other model is read as a calibrated junction tree
  (:class:`~pubpriv_core.algorithms.pgm_tree.TreeModel`; ``mbi``'s model through
  :func:`pubpriv_core.algorithms.pgm._as_tree`) and sampled forward: a root clique's cells from
  its belief, then, in the tree's preorder, each clique's other attributes from its belief
  conditioned on the separator values already drawn (p(x_K | x_S) = b_K / b_S; the joint of a
  junction tree is Π_K b_K / Π_S b_S). An attribute in no clique has a uniform marginal in the
  model and is drawn uniformly.
"""
from __future__ import annotations

import numpy as np

from pubpriv_core.algorithms import pgm, pgm_joint, pgm_tree


def sample_records(model, rows: int, rng: np.random.Generator) -> np.ndarray:
    """``rows`` records (an (rows, d) array of value codes, columns in the domain's order)
    drawn from ``model``'s distribution with ``rng``."""
    if rows < 0:
        raise ValueError(f"cannot draw {rows} records; pass a non-negative count")
    if isinstance(model, pgm_joint.JointModel):
        return _from_joint(model, rows, rng)
    tree = model if isinstance(model, pgm_tree.TreeModel) else pgm._as_tree(model)
    return _from_tree(tree, rows, rng)


def _from_joint(model: pgm_joint.JointModel, rows: int, rng: np.random.Generator) -> np.ndarray:
    counts = model.counts().ravel()
    cells = rng.multinomial(rows, counts / counts.sum())
    index = rng.permutation(np.repeat(np.arange(cells.size), cells))
    shape = model.counts().shape
    return np.stack(np.unravel_index(index, shape), axis=1).astype(np.int64)


def _from_tree(tree: pgm_tree.TreeModel, rows: int, rng: np.random.Generator) -> np.ndarray:
    junction, scope = tree.junction, tree.junction.scope
    attributes = list(tree.domain.attributes)
    out = np.full((rows, len(attributes)), -1, dtype=np.int64)
    for k in junction.preorder:
        attrs = list(junction.cliques[k])
        sep = list(junction.separator[k]) if junction.parent[k] >= 0 else []
        free = [a for a in attrs if a not in sep]
        table = np.transpose(tree.beliefs[k], [attrs.index(a) for a in sep + free])
        table = table.reshape(-1, int(np.prod(scope.shape(free), dtype=np.int64)))
        given = (np.ravel_multi_index([out[:, scope.position[a]] for a in sep],
                                      scope.shape(sep)) if sep else np.zeros(rows, np.int64))
        drawn = _conditional_draws(table, given, rng)
        for a, column in zip(free, np.unravel_index(drawn, scope.shape(free))):
            out[:, scope.position[a]] = column
    for j, a in enumerate(attributes):            # in no clique: uniform in the model
        if rows and out[0, j] < 0:
            out[:, j] = rng.integers(0, tree.domain[a], size=rows)
    return out


def _conditional_draws(table: np.ndarray, given: np.ndarray,
                       rng: np.random.Generator) -> np.ndarray:
    """For each record i, a column of ``table`` drawn with probabilities proportional to row
    ``given[i]`` (inverse-CDF draws from one uniform per record, grouped by row)."""
    drawn = np.empty(given.size, dtype=np.int64)
    uniforms = rng.random(given.size)
    for row in np.unique(given):
        members = np.flatnonzero(given == row)
        cdf = np.cumsum(table[row])
        if not cdf[-1] > 0:
            raise ValueError("the model gives zero mass to a separator value it produced; "
                             "the model is not calibrated")
        picks = np.searchsorted(cdf, uniforms[members] * cdf[-1], side="right")
        drawn[members] = np.minimum(picks, cdf.size - 1)
    return drawn
