"""Additive noise mechanisms for numeric answers."""
from __future__ import annotations

import numpy as np

from pubpriv_core.privacy._checks import generator, positive


def _add(values, noise) -> np.ndarray | float:
    values = np.asarray(values, dtype=float)
    noisy = values + noise(values.shape)
    return float(noisy) if noisy.ndim == 0 else noisy


def gaussian_mechanism(values, sigma: float, rng: np.random.Generator) -> np.ndarray | float:
    """values + N(0, σ²) i.i.d. per entry (Dwork & Roth 2014, Thm A.1; zCDP cost Δ²/(2σ²),
    Bun & Steinke 2016, Prop. 1.6: see :func:`~pubpriv_core.privacy.accounting.gaussian_sigma`).

    Liu et al. 2021 (§3, Alg. 1) measure each selected query with σ = 1/(n·ε0). A scalar input
    returns a float, an array input an array of the same shape.
    """
    sigma = positive("sigma", sigma, "pass a positive noise standard deviation")
    rng = generator(rng)
    return _add(values, lambda shape: rng.normal(0.0, sigma, size=shape))


def laplace_mechanism(values, scale: float, rng: np.random.Generator) -> np.ndarray | float:
    """values + Lap(b) i.i.d. per entry, b = ``scale``; ε-DP for b = Δ1/ε
    (Dwork & Roth 2014, Def. 3.3, Thm 3.6). A scalar input returns a float."""
    scale = positive("scale", scale, "pass a positive Laplace scale b = sensitivity/eps")
    rng = generator(rng)
    return _add(values, lambda shape: rng.laplace(0.0, scale, size=shape))
