"""Liu, Vietri, Steinke, Ullman, Wu (ICML 2021) theory checks on synthetic data with known models.

The synthetic pair (``pubpriv_core.data.synthetic``) gives a private chain model μ and a public
chain model ν = mix(μ, R; shift) with exact D_2(μ‖ν) and D_∞(μ‖ν).  Here:

- :func:`draw_problem`: D̃ ∼ μ^n, D̂ ∼ ν^m, the k-way marginal workload Q and the release problem;
- :func:`best_mixture_error`: f_{D̃,Q}(X̂) of Def 4.1 (the lead's exact LP, or its MW upper estimate);
- :func:`prop43_alpha`: the accuracy Prop 4.3 certifies at a public size m, i.e. the α solving
  m = (32·e^{D2}/α² + 8·e^{D∞}/(3α))·ln((4|Q| + 4)/β) (the registered bound inverted);
- :func:`pmwpub_max_error`: PMW^Pub's max error on Q (Alg. 1, the lead's implementation);
- :func:`support_problem` and :func:`padded_pair`: the public support size |X̂| and the domain
  size |X| varied one at a time (Thm 4.4 depends on |X̂| through log m, and not on |X|);
- :func:`source_check`: Lemma 4.2's ε_f-DP release of f for each candidate public source and
  the source it picks;
- :func:`transcript_log_likelihood`: the exact law of PMW^Pub's released transcript (selected
  queries, clipped measurements), for the end-to-end privacy audit in :mod:`.audit`.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from scipy import stats

from pubpriv_core import privacy
from pubpriv_core.harness import ReleaseProblem, run_algorithm
from pubpriv_core.algorithms.best_mixture import (DEFAULT_LP_TIME_LIMIT, best_mixture_exact,
                                                  best_mixture_mw)
from pubpriv_core.algorithms.mixture_lp import LPTimeLimitError
from pubpriv_core.bounds import evaluate
from pubpriv_core.data.domain import Dataset, Domain
from pubpriv_core.data.public import from_dataset
from pubpriv_core.data.synthetic import PRESETS, ChainModel, SyntheticPair, make_pair
from pubpriv_core.queries import marginal_workload


@dataclass(frozen=True)
class Setting:
    """Synthetic pair (preset, shift, model seed) and the k-way marginal workload (all sets)."""

    preset: str = "small"
    shift: float = 0.3
    model_seed: int = 0
    k: int = 3

    def pair(self) -> SyntheticPair:
        return make_pair(self.preset, self.shift, self.model_seed)


def draw_problem(setting: Setting, n: int, m: int, rng: np.random.Generator) -> ReleaseProblem:
    """D̃ ∼ μ^n and D̂ ∼ ν^m (fresh draws from the exact models) with X̂, A_0 and Q."""
    if n < 1 or m < 1:
        raise ValueError(f"n and m must be >= 1, got n={n}, m={m}; pass positive sample sizes")
    pair = setting.pair()
    private = pair.private.sample(int(n), rng)
    public = from_dataset(pair.public.sample(int(m), rng))
    workload = marginal_workload(private.domain, setting.k, None, 0)
    return ReleaseProblem(private, workload, public.support.records, public.weights, int(m))


def best_mixture_error(problem: ReleaseProblem, method: str = "lp",
                       time_limit: float = DEFAULT_LP_TIME_LIMIT) -> float:
    """f_{D̃,Q}(X̂) (Def 4.1): exact by linear programming (``lp``: constraint generation from
    A_0, certified to 1e-9, :func:`~pubpriv_core.algorithms.best_mixture.best_mixture_exact`;
    :class:`LPTimeLimitError` past ``time_limit`` wall seconds) or the paper's upper estimate,
    non-private MW stopped after 100 rounds (``mw``)."""
    if method == "lp":
        return best_mixture_exact(problem.public_answerer, problem.true_answers,
                                  problem.public_weights, time_limit).value
    if method == "mw":
        return best_mixture_mw(problem.public_answerer, problem.true_answers, problem.public_weights, 100)[0]
    raise ValueError(f"unknown best-mixture method {method!r}; use 'lp' or 'mw'")


def prop43_alpha(m: int, beta: float, Q_size: int, D2: float, Dinf: float) -> float:
    """Smallest α ∈ (0, 1) with liu2021.prop4.3.m(α) ≤ m (NaN if even α → 1 needs more than m)."""
    def need(a: float) -> float:
        return evaluate("liu2021.prop4.3.m", alpha=a, beta=beta, Q_size=Q_size, D2=D2, Dinf=Dinf).value

    hi = 1 - 1e-12
    if need(hi) > m:
        return float("nan")
    return brentq(lambda a: math.log(need(a)) - math.log(m), 1e-9, hi, xtol=1e-12)


def pmwpub_max_error(problem: ReleaseProblem, eps: float, T: int, rng: np.random.Generator,
                     delta: float | None = None) -> float:
    """Max error over Q of PMW^Pub (average iterate, as in the paper) at (ε, δ = 1/n² default)."""
    delta = 1.0 / problem.n ** 2 if delta is None else delta
    release = run_algorithm("pmwpub", problem, eps=eps, delta=delta, T=int(T), rng=rng)
    return release.errors(problem.true_answers)["max_error"]


# --------------------------------------------------------------------------- |X̂| and |X| sweeps


def distinct_rows(model: ChainModel, s: int, rng: np.random.Generator, max_draws: int = 10 ** 7):
    """The first ``s`` distinct rows of an i.i.d. stream from ``model`` (X̂ of a public dataset
    that has exactly s distinct rows; A_0 uniform on them)."""
    seen: dict[bytes, np.ndarray] = {}
    drawn, batch = 0, max(64, 2 * s)
    while len(seen) < s:
        if drawn >= max_draws:
            raise ValueError(f"{max_draws} draws gave only {len(seen)} distinct rows of the "
                             f"{s} asked; ask for fewer distinct public rows")
        for row in model.sample(batch, rng).records:
            seen.setdefault(row.tobytes(), row)
            if len(seen) == s:
                break
        drawn += batch
    return np.stack(list(seen.values()))


def decoy_rows(domain: Domain, count: int, exclude: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``count`` distinct rows drawn uniformly from X minus the rows of ``exclude``."""
    if count > domain.size() - len(exclude):
        raise ValueError(f"{count} decoy rows do not fit in |X| = {domain.size()} minus "
                         f"{len(exclude)} excluded rows; ask for fewer")
    taken = {row.tobytes() for row in np.asarray(exclude, np.int64)}
    out: list[np.ndarray] = []
    while len(out) < count:
        batch = np.stack([rng.integers(0, k, 2 * count + 16) for k in domain.shape], axis=1)
        for row in batch.astype(np.int64):
            if row.tobytes() not in taken:
                taken.add(row.tobytes())
                out.append(row)
                if len(out) == count:
                    break
    return np.stack(out) if out else np.empty((0, len(domain.shape)), np.int64)


def support_problem(pair: SyntheticPair, n: int, s: int, rng: np.random.Generator,
                    k: int = 3, workload_size: int | None = None, core: int | None = None,
                    workload_seed: int = 0) -> ReleaseProblem:
    """D̃ ∼ μ^n and a public support of exactly ``s`` distinct rows, A_0 uniform (m = s, so
    log m = log|X̂| in Thm 4.4): ``core`` distinct rows of ν (all s when None) and s − core
    decoys drawn uniformly from the rest of X, so |X̂| grows while the useful rows stay fixed.
    Q: ``workload_size`` random k-way marginal sets over all attributes (all when None)."""
    core = s if core is None else int(core)
    if n < 1 or not 1 <= core <= s:
        raise ValueError(f"need n >= 1 and 1 <= core <= s, got n={n}, core={core}, s={s}; "
                         "pass positive sizes")
    private = pair.private.sample(int(n), rng)
    useful = distinct_rows(pair.public, core, rng)
    support = np.concatenate([useful, decoy_rows(private.domain, s - core, useful, rng)])
    workload = marginal_workload(private.domain, k, workload_size, workload_seed)
    return ReleaseProblem(private, workload, support,
                          np.full(len(support), 1.0 / len(support)), int(s))


def padded_pair(base: str, extra: int, shift: float, model_seed: int) -> SyntheticPair:
    """The pair of preset ``base`` with ``extra`` more attributes appended to the chain (sizes
    cycling through the base sizes), so |X| grows while the first attributes keep the same
    joint law: private and other chains are drawn from separate streams, attribute by
    attribute, so their first tables do not depend on ``extra``."""
    if extra < 0:
        raise ValueError(f"extra attributes must be >= 0, got {extra}")
    shape = list(PRESETS[base].domain.shape)
    shape += [shape[i % len(shape)] for i in range(extra)]
    domain = Domain([f"a{i}" for i in range(len(shape))], shape)
    private = ChainModel.random(domain, np.random.default_rng([model_seed, 1]))
    other = ChainModel.random(domain, np.random.default_rng([model_seed, 2]))
    return SyntheticPair(private, private.mixed(other, shift), shift)


# --------------------------------------------------------------------------- Lemma 4.2


@dataclass(frozen=True)
class SourceCheck:
    """Lemma 4.2 for one public source: exact f (None when the LP is not certified within its
    time limit), its ε_f-DP releases f + Lap(1/(n·ε_f)) and the MW-100 upper estimate."""

    name: str
    exact: float | None
    dp: np.ndarray
    mw: float
    n: int
    eps_f: float


def source_check(name: str, problem: ReleaseProblem, eps_f: float, draws: int,
                 rng: np.random.Generator, time_limit: float = 60.0) -> SourceCheck:
    """Exact f by the certified LP, ``draws`` independent ε_f-DP releases of it (Lemma 4.2:
    sensitivity 1/n; each release is ε_f-DP, i.e. ε_f²/2-zCDP), and the MW-100 estimate."""
    if not eps_f > 0 or draws < 1:
        raise ValueError(f"need eps_f > 0 and draws >= 1, got {eps_f}, {draws}")
    mw = best_mixture_error(problem, "mw")
    try:
        exact = best_mixture_exact(problem.public_answerer, problem.true_answers,
                                   problem.public_weights, time_limit).value
    except LPTimeLimitError:
        return SourceCheck(name, None, np.full(draws, np.nan), mw, problem.n, eps_f)
    dp = np.array([privacy.laplace_mechanism(exact, 1.0 / (problem.n * eps_f), rng)
                   for _ in range(draws)])
    return SourceCheck(name, float(exact), dp, mw, problem.n, eps_f)


def pick_rates(checks: list[SourceCheck]) -> dict[str, float]:
    """How often the DP releases pick each source (argmin per draw), over certified sources."""
    ok = [c for c in checks if c.exact is not None]
    if not ok:
        return {}
    picks = np.argmin(np.stack([c.dp for c in ok]), axis=0)
    return {c.name: float(np.mean(picks == i)) for i, c in enumerate(ok)}


# --------------------------------------------------------------------------- transcript law


def _pf_log_probability(scores: np.ndarray, q: int, eps0: float, n: int) -> float:
    return float(np.log(privacy.permute_and_flip_probabilities(scores, eps0, 1.0 / n)[q]))


def _measure_log_density(a: float, mean: float, sigma: float) -> float:
    """Log density of clip(mean + N(0, σ²), 0, 1) at a: atoms at 0 and 1, a density inside."""
    if a <= 0.0:
        return float(stats.norm.logcdf(-mean / sigma))
    if a >= 1.0:
        return float(stats.norm.logsf((1.0 - mean) / sigma))
    return float(stats.norm.logpdf(a, mean, sigma))


def transcript_log_likelihood(problem: ReleaseProblem, queries, measurements, eps0: float) -> float:
    """ln P[PMW^Pub on ``problem`` releases (q_1, a_1, …, q_T, a_T)] for permute-and-flip
    selection at ε0 (score |q(A) − q(D̃)|, sensitivity 1/n) and Gaussian measurement σ = 1/(n·ε0)
    clipped to [0, 1] (Liu et al. 2021, Alg. 1 and §4.1), the MW state replayed densely on X̂.
    Exact for T ≤ 2 with replay (the replay's random order acts from round 3 on) and for any T
    without it; the output distribution is a function of this transcript."""
    if len(queries) > 2:
        raise ValueError("the replay order is random from round 3 on; audit T <= 2")
    n, sigma = problem.n, 1.0 / (problem.n * eps0)
    support = problem.public_support
    phi = np.stack([problem.workload.indicator(q, support)
                    for q in range(problem.workload.num_queries)]).astype(float)
    weights = np.array(problem.public_weights, float)
    total = 0.0
    for q, a in zip(queries, measurements):
        scores = np.abs(phi @ weights - problem.true_answers)
        total += _pf_log_probability(scores, int(q), eps0, n)
        total += _measure_log_density(float(a), float(problem.true_answers[q]), sigma)
        weights = weights * np.exp(phi[q] * (a - phi[q] @ weights) / 2.0)
        weights /= weights.sum()
    return total


# --------------------------------------------------------------------------- end-to-end audit


def tiny_problems(n: int = 3, shape=(2, 2), k: int = 1) -> dict[tuple, ReleaseProblem]:
    """Every private dataset of n records on the domain ``shape`` (as a sorted tuple of cell
    ids: PMW^Pub depends on the data only through its histogram), each with the whole domain as
    the public support (A_0 uniform) and all k-way marginals as Q."""
    domain = Domain([f"a{i}" for i in range(len(shape))], list(shape))
    cells = np.array(np.unravel_index(np.arange(domain.size()), shape)).T
    workload = marginal_workload(domain, k, None, 0)
    out = {}
    for combo in itertools.combinations_with_replacement(range(len(cells)), n):
        out[combo] = ReleaseProblem(Dataset(cells[list(combo)], domain), workload, cells,
                                    np.full(len(cells), 1.0 / len(cells)), len(cells))
    return out


def replace_one_pairs(datasets) -> list[tuple]:
    """Every ordered pair (D, D') of the given sorted-tuple datasets differing in one record."""
    keys = set(datasets)
    pairs = []
    for d in sorted(keys):
        for i in range(len(d)):
            for v in range(max(max(k) for k in keys) + 1):
                d2 = tuple(sorted(d[:i] + (v,) + d[i + 1:]))
                if d2 != d and d2 in keys and (d, d2) not in pairs:
                    pairs.append((d, d2))
    return pairs


def symmetry_representatives(pairs: list[tuple], shape) -> list[tuple]:
    """One pair per orbit of the domain's symmetries (value permutations within each attribute,
    and permutations of attributes of equal size) acting on the cells of both datasets. With
    all k-way marginals as Q and A_0 uniform on the whole domain, PMW^Pub commutes with these
    maps, so pairs of one orbit have the same privacy-loss distribution."""
    shape = tuple(shape)
    cells = np.array(np.unravel_index(np.arange(int(np.prod(shape))), shape)).T
    maps = []
    for order in itertools.permutations(range(len(shape))):
        if any(shape[i] != shape[j] for i, j in enumerate(order)):
            continue
        for perms in itertools.product(*(itertools.permutations(range(k)) for k in shape)):
            image = np.array([[perms[j][c[order[j]]] for j in range(len(shape))] for c in cells])
            maps.append(np.ravel_multi_index(image.T, shape))
    seen, out = set(), []
    for d, d2 in pairs:
        orbit = {(tuple(sorted(m[list(d)])), tuple(sorted(m[list(d2)]))) for m in maps}
        if not orbit & seen:
            out.append((d, d2))
        seen |= orbit
    return out


def pmwpub_transcript(problem: ReleaseProblem, eps: float, delta: float, T: int,
                      rng: np.random.Generator) -> tuple:
    """Run PMW^Pub (``run_algorithm``) and return what it released: (queries, measurements,
    ε0) from its trace, and the ρ it reports."""
    release = run_algorithm("pmwpub", problem, eps=eps, delta=delta, T=int(T), rng=rng)
    trace = release.trace
    return tuple(trace["queries"]), tuple(trace["measurements"]), float(trace["eps0"]), release.rho


def transcript_fit(problem: ReleaseProblem, transcripts, rng: np.random.Generator) -> dict:
    """Does the implementation's output follow :func:`transcript_log_likelihood`'s law?
    χ² test of the first selected query against the exact permute-and-flip probabilities, and a
    Kolmogorov–Smirnov test of the first measurement's probability integral transform (uniform
    under the model; randomised at the clipping atoms). Small p-values reject the model."""
    eps0 = transcripts[0][2]
    n, sigma = problem.n, 1.0 / (problem.n * eps0)
    phi = np.stack([problem.workload.indicator(q, problem.public_support)
                    for q in range(problem.workload.num_queries)]).astype(float)
    scores = np.abs(phi @ problem.public_weights - problem.true_answers)
    probs = privacy.permute_and_flip_probabilities(scores, eps0, 1.0 / n)
    first = np.array([t[0][0] for t in transcripts])
    counts = np.bincount(first, minlength=probs.size)
    keep = probs > 0
    chi2 = stats.chisquare(counts[keep], probs[keep] / probs[keep].sum() * len(first))
    pit = []
    for q, a in ((t[0][0], t[1][0]) for t in transcripts):
        mean = problem.true_answers[q]
        lo, hi = stats.norm.cdf(-mean / sigma), stats.norm.cdf((1 - mean) / sigma)
        if a <= 0:
            pit.append(rng.uniform(0, lo))
        elif a >= 1:
            pit.append(rng.uniform(hi, 1))
        else:
            pit.append(stats.norm.cdf((a - mean) / sigma))
    return {"selection_p": float(chi2.pvalue), "measurement_p": float(stats.kstest(pit, "uniform").pvalue)}
