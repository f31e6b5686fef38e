"""The harness side of a release: the problem that holds the private data, and the one call that
runs an algorithm on it with a ledger the harness owns.

:class:`ReleaseProblem` keeps the private dataset and what is computed from it (the workload's
true answers, marginals of counts, selection candidates, the best mixture error), all cached for a
sweep that reuses the problem across ε, T and algorithms. An algorithm never receives it:
:func:`run_algorithm` opens a :class:`~pubpriv_core.privacy.ledger.Ledger` for the target
(ε, δ), wraps the problem in a :class:`~pubpriv_core.privacy.private_data.PrivateData` on that
ledger, runs the algorithm on the public view (:class:`~pubpriv_core.algorithms.base.PublicProblem`)
and the handle, and writes the ledger's spend into the release. The record's ρ, ε and δ are that
spend: an algorithm (built-in or plugin) cannot report its own.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from threadpoolctl import threadpool_limits

from pubpriv_core.algorithms import BUILTIN, entry, load_function, privacy_terms
from pubpriv_core.algorithms.base import PublicProblem, Release
from pubpriv_core.algorithms.best_mixture import best_mixture_exact
from pubpriv_core.algorithms.pgm import marginal
from pubpriv_core.data.domain import Dataset
from pubpriv_core.job import Job
from pubpriv_core.privacy.accounting import BudgetExceededError, eps_from_rho
from pubpriv_core.privacy.ledger import Ledger, Spend
from pubpriv_core.privacy.private_data import PrivateData, QueryCandidates
from pubpriv_core.queries.engine import answer_dataset
from pubpriv_core.queries.workload import MarginalWorkload


class ReleaseFailure(ValueError):
    """An algorithm's run that ended without a usable release; the message names it."""


class PrivacyAccountingError(ValueError):
    """A release whose mechanisms asked for more than its budget, or whose ledger does not
    add up to a spend within the target."""


#: relative slack of the spend check (the ledger's own tolerance)
SPEND_TOLERANCE = Ledger.RELATIVE_TOLERANCE


@dataclass(eq=False)
class ReleaseProblem:
    """What a query-release run needs: private data, workload and — for public-data algorithms —
    a public source. The expensive parts are computed once and cached."""

    private: Dataset
    workload: MarginalWorkload
    public_support: np.ndarray | None = None   # (m', d) distinct public rows X̂
    public_weights: np.ndarray | None = None   # A_0 on X̂ (sums to 1)
    public_rows: int = 0                       # m, rows of the public dataset before dedup
    _candidates: dict = field(default_factory=dict, repr=False)
    _marginals: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        if len(self.private) == 0:
            raise ValueError("the private dataset is empty; check the dataset configuration")
        if self.workload.domain != self.private.domain:
            raise ValueError("the workload was built on another domain than the private "
                             "data's; build it from this data (api.workload(data, ...))")

    @cached_property
    def public(self) -> PublicProblem:
        """The public view an algorithm receives."""
        return PublicProblem(self.workload, len(self.private), self.public_support,
                             self.public_weights, self.public_rows)

    @property
    def n(self) -> int:
        return len(self.private)

    @property
    def domain(self):
        return self.private.domain

    @property
    def public_answerer(self):
        return self.public.public_answerer

    @property
    def domain_answerer(self):
        return self.public.domain_answerer

    @property
    def support_size(self) -> int:
        return self.public.support_size

    @cached_property
    def true_answers(self) -> np.ndarray:
        """q(D̃) for every query of the workload."""
        return answer_dataset(self.workload, self.private)

    def query_candidates(self, answerer) -> QueryCandidates:
        """The selection candidates of a model on ``answerer``'s rows (cached per answerer)."""
        key = id(answerer)
        if key not in self._candidates:
            self._candidates[key] = (answerer, QueryCandidates(answerer, self.true_answers))
        return self._candidates[key][1]

    def private_marginal(self, clique: tuple[str, ...]) -> np.ndarray:
        """The private data's marginal of counts on ``clique`` (cached)."""
        if clique not in self._marginals:
            self._marginals[clique] = marginal(self.private.records, self.private.domain,
                                               clique)
        return self._marginals[clique]

    @cached_property
    def best_mixture_error(self) -> float:
        """f(X̂), the exact best mixture error of the public support (Liu et al. 2021,
        Def. 4.1)."""
        return best_mixture_exact(self.public_answerer, self.true_answers,
                                  self.public_weights).value


def run_algorithm(name: str, problem: ReleaseProblem, *, eps: float, delta: float, T: int,
                  rng: np.random.Generator, **options) -> Release:
    """Run algorithm ``name`` on ``problem`` with target (``eps``, ``delta``) and ``T`` rounds,
    on one BLAS thread (``pubpriv_core.algorithms``' docstring); the release carries the
    harness's ledger as :attr:`~pubpriv_core.algorithms.base.Release.privacy`."""
    spec = entry(name)
    run = load_function(name)
    accounting, relation = privacy_terms(name, options)
    ledger = Ledger(eps, delta, accounting=accounting, relation=relation)
    private = PrivateData(problem, ledger, rng)
    try:
        with threadpool_limits(limits=1, user_api="blas"):
            release = run(problem.public, private, T=T, rng=rng, **options)
    except BudgetExceededError as err:
        raise PrivacyAccountingError(f"{name} asked for more than its budget eps={eps:g}, "
                                     f"delta={delta:g}: {err}") from None
    except Exception as err:
        if name in BUILTIN:
            raise
        raise ReleaseFailure(f"algorithm {name} failed: {type(err).__name__}: "
                             f"{' '.join(str(err).split())}; fix the plugin "
                             f"({spec.module})") from None
    check_release(name, release, problem)
    release.privacy = ledger.report(reference=spec.reference)
    check_spend(name, release.privacy, eps, delta)
    return release


def check_spend(name: str, spend: Spend, eps: float, delta: float) -> None:
    """The ledger's spend, checked before a record is written: δ is the target's, ε is
    within the target and, under zCDP accounting, ε = eps_from_rho(ρ, δ) of the ledger's ρ."""
    tol = SPEND_TOLERANCE
    if spend.delta != delta:
        raise PrivacyAccountingError(f"{name}: the ledger's delta {spend.delta!r} is not the "
                                     f"target {delta!r}")
    if not (math.isfinite(spend.eps) and spend.eps <= eps * (1 + tol)):
        raise PrivacyAccountingError(f"{name}: eps spent {spend.eps!r} is above the budget "
                                     f"eps={eps}")
    if spend.accounting == "zcdp":
        expected = eps_from_rho(spend.rho, delta) if spend.rho > 0 else 0.0
        if abs(expected - spend.eps) > tol * max(expected, 1e-300):
            raise PrivacyAccountingError(f"{name}: eps {spend.eps!r} is not eps_from_rho(rho, "
                                         f"delta) = {expected!r} for rho={spend.rho!r}")


def release_job(job: Job, problem: ReleaseProblem, rng: np.random.Generator,
                T: int | None = None) -> Release:
    """The release of ``job``'s algorithm on ``problem`` with the run's generator ``rng``, at
    the job's resolved (ε, δ) and ``T`` rounds (default the job's): the one call the runner, the
    Python API and every benchmark that re-runs a configuration make, so they spend the same
    budget."""
    if problem.n != job.n:
        raise ValueError(f"the job was resolved for n={job.n} private rows, the problem has "
                         f"{problem.n}; build the job for this problem")
    return run_algorithm(job.algo, problem, eps=job.eps, delta=job.delta,
                         T=job.T if T is None else T, rng=rng, **job.plain_options)


def check_release(name: str, release, problem: ReleaseProblem) -> None:
    """A release is a :class:`Release` with one finite answer per workload query; else a
    one-line :class:`ReleaseFailure` naming the algorithm."""
    if not isinstance(release, Release):
        raise ReleaseFailure(f"algorithm {name} returned {type(release).__name__}, not a "
                             "Release; return pubpriv_core.algorithms.base.Release(...)")
    answers = np.asarray(release.answers)
    expected = (problem.workload.num_queries,)
    if answers.shape != expected:
        raise ReleaseFailure(f"algorithm {name} returned answers of shape {answers.shape}, "
                             f"expected {expected} (one per workload query); fix its release")
    if not np.isfinite(answers).all():
        raise ReleaseFailure(f"algorithm {name} returned non-finite answers; fix its release")
    if release.privacy is not None or not math.isfinite(float(release.runtime_s)):
        raise ReleaseFailure(f"algorithm {name} set its own privacy or a non-finite runtime; "
                             "leave Release.privacy to the harness")
