"""The common interface of the query-release algorithms.

Every algorithm takes a :class:`ReleaseProblem` (private data, workload, true answers and — for
public-data algorithms — a public source), a target (ε, δ), a number of rounds T and an explicit
``numpy.random.Generator``, and returns a :class:`Release`: the synthetic distribution (weights over
its support), its answers, the trace of what was selected and measured, and the privacy it spent,
both as zCDP ρ and as (ε, δ).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from pubpriv_core.algorithms.multiplicative_weights import Candidates
from pubpriv_core.data.domain import Dataset
from pubpriv_core.queries import (DomainAnswerer, MarginalWorkload, SupportAnswerer, answer_dataset,
                                  error_summary)


@dataclass
class ReleaseProblem:
    """What a query-release run needs; the expensive parts are computed once and cached."""

    private: Dataset
    workload: MarginalWorkload
    public_support: np.ndarray | None = None   # (m', d) distinct public rows X̂
    public_weights: np.ndarray | None = None   # A_0 on X̂ (sums to 1)
    public_rows: int = 0                       # m, rows of the public dataset before dedup

    def __post_init__(self):
        if len(self.private) == 0:
            raise ValueError("the private dataset is empty; check the dataset configuration")
        if self.public_support is not None and len(self.public_support) == 0:
            raise ValueError("the public source has no rows; use a larger public fraction")

    @property
    def n(self) -> int:
        return len(self.private)

    @cached_property
    def true_answers(self) -> np.ndarray:
        """q(D̃) for every query of the workload."""
        return answer_dataset(self.workload, self.private)

    @cached_property
    def public_answerer(self) -> SupportAnswerer:
        if self.public_support is None:
            raise ValueError("this algorithm needs a public source; set public=... in the config")
        return SupportAnswerer(self.workload, self.public_support, present_only=True)

    @cached_property
    def domain_answerer(self) -> DomainAnswerer:
        """Answerer over the whole domain X (MWEM, reduction tree); callers check |X| first."""
        return DomainAnswerer(self.workload)

    @cached_property
    def public_candidates(self) -> Candidates:
        """Selection candidates of PMW^Pub (present queries live, absent ones tied by value)."""
        return Candidates(self.public_answerer, self.true_answers)

    @cached_property
    def domain_candidates(self) -> Candidates:
        """Selection candidates of MWEM (every query is present on the full domain)."""
        return Candidates(self.domain_answerer, self.true_answers)

    @property
    def support_size(self) -> int:
        return 0 if self.public_support is None else len(self.public_support)


@dataclass
class Release:
    """Output of one run: synthetic distribution, answers, trace and privacy spent."""

    algo: str
    weights: np.ndarray | None        # output distribution over ``support`` (paper: average);
    #                                   None for a graphical model: trace["model"] (AIM, MST, …)
    answers: np.ndarray               # q(A) for every query, for ``weights``
    rho: float                        # zCDP spent (0 for non-private baselines)
    eps: float                        # ε spent at ``delta`` (0 for non-private baselines)
    delta: float
    support: np.ndarray | None = None  # rows the weights live on (None: the full domain, C order)
    last_answers: np.ndarray | None = None   # answers of the last iterate, where there is one
    trace: dict = field(default_factory=dict)
    runtime_s: float = 0.0
    iterations: int = 0

    @property
    def per_iter_s(self) -> float:
        return self.runtime_s / self.iterations if self.iterations else float("nan")

    def errors(self, true_answers: np.ndarray) -> dict[str, float]:
        """max/mean/RMSE error of the output, and of the last iterate (``last_*``) if any."""
        out = error_summary(true_answers, self.answers)
        if self.last_answers is not None:
            out.update({f"last_{k}": v
                        for k, v in error_summary(true_answers, self.last_answers).items()})
        return out
