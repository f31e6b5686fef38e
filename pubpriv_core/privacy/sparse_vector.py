"""Sparse vector technique: answer a stream of threshold tests, paying only for positives."""
from __future__ import annotations

import numpy as np

from pubpriv_core.privacy._checks import count, generator, positive


class SparseVectorHaltedError(RuntimeError):
    """:meth:`SparseVector.test` was called after ``max_above`` positive answers."""


class SparseVector:
    """Sparse(T, c, ε) of Dwork & Roth 2014, Alg. 2 (δ = 0); c = 1 is AboveThreshold (Alg. 1).

    Calibration (Dwork & Roth 2014, Thm 3.23 and 3.25), for queries of sensitivity Δ:
    σ = 2cΔ/ε; the noisy threshold is T̂ = T + Lap(σ), redrawn after every positive; each query
    value v is compared as v + Lap(2σ) ≥ T̂. Each of the c AboveThreshold segments is ε/c-DP,
    spending ε/(2c) on the threshold (Lap(Δ/(ε/(2c)))) and ε/(2c) on the queries
    (Lap(2Δ/(ε/(2c)))); the whole stream is ε-DP. After c positives it halts: further tests raise
    :class:`SparseVectorHaltedError`.
    """

    def __init__(self, threshold: float, eps: float, sensitivity: float, max_above: int,
                 rng: np.random.Generator):
        self.threshold = float(threshold)
        if not np.isfinite(self.threshold):
            raise ValueError(f"threshold must be finite, got {threshold}; pass a real number")
        self.eps = positive("eps", eps, "pass the positive pure-DP budget of the whole stream")
        self.sensitivity = positive("sensitivity", sensitivity,
                                    "pass the queries' sensitivity Δ > 0")
        self.max_above = count("max_above", max_above, "pass the number of positives allowed")
        self.rng = generator(rng)
        self.threshold_scale = 2.0 * self.max_above * self.sensitivity / self.eps
        self.query_scale = 2.0 * self.threshold_scale
        self.n_above = 0
        self.n_tested = 0
        self._noisy_threshold = self._draw_threshold()

    def _draw_threshold(self) -> float:
        return self.threshold + self.rng.laplace(0.0, self.threshold_scale)

    @property
    def halted(self) -> bool:
        return self.n_above >= self.max_above

    def test(self, value: float) -> bool:
        """True iff value + Lap(2σ) ≥ T̂ (then T̂ is redrawn); raises once halted."""
        if self.halted:
            raise SparseVectorHaltedError(
                f"sparse vector halted after {self.max_above} positive answers; "
                "create a new SparseVector (with fresh budget) to keep testing")
        self.n_tested += 1
        above = float(value) + self.rng.laplace(0.0, self.query_scale) >= self._noisy_threshold
        if above:
            self.n_above += 1
            self._noisy_threshold = self._draw_threshold()
        return bool(above)
