"""The common interface of the query-release algorithms.

An algorithm is ``run(problem, private, *, T, rng, **options) -> Release``:

* ``problem`` is a :class:`PublicProblem`: the workload, the domain, n (public under replace-one
  neighbours) and, for public-data algorithms, the public source (support X̂, weights A_0, rows m)
  with its answerers. Nothing in it is private.
* ``private`` is a :class:`~pubpriv_core.privacy.private_data.PrivateData`: the private dataset
  behind the project's charged mechanisms, with a read-only view of the budget
  (``private.budget``: target ε and δ, the zCDP total ρ, what is left).
* ``T`` is the number of rounds, ``rng`` an explicit ``numpy.random.Generator`` for the
  algorithm's own (post-processing) draws.

It returns a :class:`Release`: the synthetic distribution (weights over its support), its answers,
the trace of what was selected and measured. The privacy it spent is not the algorithm's to say:
the harness writes the ledger's :class:`~pubpriv_core.privacy.ledger.Spend` into
:attr:`Release.privacy` (:func:`pubpriv_core.harness.run_algorithm`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from pubpriv_core.privacy.ledger import Spend
from pubpriv_core.queries.engine import SupportAnswerer
from pubpriv_core.queries.full_domain import DomainAnswerer
from pubpriv_core.queries.errors import error_summary
from pubpriv_core.queries.workload import MarginalWorkload


@dataclass(eq=False)
class PublicProblem:
    """What an algorithm may read freely; the answerers are built once and cached."""

    workload: MarginalWorkload
    n: int                                      # private rows (public under replace-one)
    public_support: np.ndarray | None = None    # (m', d) distinct public rows X̂
    public_weights: np.ndarray | None = None    # A_0 on X̂ (sums to 1)
    public_rows: int = 0                        # m, rows of the public dataset before dedup

    def __post_init__(self):
        if self.public_support is not None and len(self.public_support) == 0:
            raise ValueError("the public source has no rows; use a larger public fraction")

    @property
    def domain(self):
        return self.workload.domain

    @cached_property
    def public_answerer(self) -> SupportAnswerer:
        if self.public_support is None:
            raise ValueError("this algorithm needs a public source; set public=... in the config")
        return SupportAnswerer(self.workload, self.public_support, present_only=True)

    @cached_property
    def domain_answerer(self) -> DomainAnswerer:
        """Answerer over the whole domain X (MWEM, reduction tree); callers check |X| first."""
        return DomainAnswerer(self.workload)

    @property
    def support_size(self) -> int:
        return 0 if self.public_support is None else len(self.public_support)


@dataclass
class Release:
    """Output of one run: synthetic distribution, answers, trace; the privacy spent is the
    harness's (:attr:`privacy`)."""

    algo: str
    weights: np.ndarray | None        # output distribution over ``support`` (paper: average);
    #                                   None for a graphical model: trace["model"] (AIM, MST, …)
    answers: np.ndarray               # q(A) for every query, for ``weights``
    support: np.ndarray | None = None  # rows the weights live on (None: the full domain, C order)
    last_answers: np.ndarray | None = None   # answers of the last iterate, where there is one
    trace: dict = field(default_factory=dict)
    runtime_s: float = 0.0
    iterations: int = 0
    privacy: Spend | None = None      # the harness's ledger, set after the run

    @property
    def rho(self) -> float:
        """zCDP ρ spent, from the harness's ledger."""
        return self._spend().rho

    @property
    def eps(self) -> float:
        """ε spent at :attr:`delta`, from the harness's ledger."""
        return self._spend().eps

    @property
    def delta(self) -> float:
        return self._spend().delta

    def _spend(self) -> Spend:
        if self.privacy is None:
            raise ValueError(f"release of {self.algo} has no ledger: run it through "
                             "pubpriv_core.harness.run_algorithm")
        return self.privacy

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
