"""Privacy data-flow harness: record, replay and taint the mechanism calls of a release algorithm.

A run is seen through three kinds of instrumentation, installed by :func:`flow`:

* **taps** replace the mechanisms where an algorithm looks them up (``select_measure``'s
  exponential and Gaussian mechanisms; the ``pubpriv_core.privacy`` namespace; DualQuery's
  sampler). A tap records each call — mechanism, stated parameters (ε and sensitivity, σ or b),
  the exact vector it was fed (scores or true values, in a data-independent "canonical" order)
  and its output — and the ledger charges made since the previous call. In *record* mode the
  mechanism runs on a generator of its own; in *replay* mode it returns the output of a recorded
  transcript instead, so the algorithm runs on another dataset along the same outputs. The
  algorithm's own generator then feeds only its post-processing draws (the same in both runs).
* **sources** hand out the private data as :class:`Tainted` arrays (Private-PGM marginals,
  the workload's true answers, DualQuery's query player). Every numpy operation on a tainted
  array is logged as a *read* and returns a tainted array; using one in a branch (``bool``,
  ``int``, an index) is logged as a *decision*.
* **sinks** log what enters the model (``pgm.measurement``, ``pgm.fit``, the MW state's updates)
  and the release.

Rules checked on every run (:meth:`Flow.violations`): no decision on private data outside a
mechanism; no tainted value in the model or the release; no model update or release while a
private read has not been followed by a mechanism call; on a ledger algorithm, each mechanism
call is preceded by exactly one charge covering its stated parameters. Replaying a transcript on
another dataset must reach the same calls with the same parameters and the same release
(post-processing), and the vectors fed to each call on replace-one neighbours must differ by at
most the sensitivity the call is calibrated with (:func:`sensitivity_gaps`).

Adding an algorithm: one :class:`FlowSpec` in :data:`FLOW_SPECS` naming its :class:`Family`
(how it reads private data, where it calls mechanisms, what its model is) and options for tiny
runs; a new family is one more :class:`Family` with its ``install`` hook.
"""
from __future__ import annotations

import contextlib
import math
import sys
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy import stats

from pubpriv_core import privacy
from pubpriv_core.algorithms import ALGORITHMS
from pubpriv_core.harness import ReleaseProblem, run_algorithm
from pubpriv_core.data.domain import Dataset, Domain
from pubpriv_core.privacy._checks import generator
from pubpriv_core.queries import MarginalWorkload
from pubpriv_core.queries.workload import choose_marginals

RELATIVE_SLACK = 1e-9     # floating-point slack on sensitivities and charges


class FlowDiverged(AssertionError):
    """A replay reached a mechanism call other than the recorded one."""


# --------------------------------------------------------------------------- taint

_ACTIVE: "Flow | None" = None


def _site() -> str:
    """module:function:line of the first caller outside this file and numpy."""
    frame = sys._getframe(1)
    while frame is not None and (frame.f_code.co_filename == __file__
                                 or "/numpy/" in frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None:
        return "?"
    return f"{frame.f_globals.get('__name__', '?')}:{frame.f_code.co_name}:{frame.f_lineno}"


def _plain(x):
    return x.view(np.ndarray) if isinstance(x, Tainted) else x


def _log(kind: str, detail: str = "") -> None:
    if _ACTIVE is not None:
        _ACTIVE.event(kind, detail)


class Tainted(np.ndarray):
    """An array derived from the private data. Arithmetic keeps the taint (0-d results stay
    arrays) and logs a read; ``bool``/``int``/``index`` log a decision; ``float`` logs a read
    (``np.array`` of tainted scalars calls it, so taint is lost there: the replay checks cover
    what the taint cannot follow)."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        _log("read", f"{ufunc.__name__}.{method}")
        if "out" in kwargs:
            kwargs["out"] = tuple(_plain(x) for x in kwargs["out"])
        result = getattr(ufunc, method)(*(_plain(x) for x in inputs), **kwargs)
        if isinstance(result, tuple):
            return tuple(taint(r) for r in result)
        return taint(result)

    def __array_function__(self, func, types, args, kwargs):
        _log("read", func.__name__)
        return super().__array_function__(func, types, args, kwargs)

    def __getitem__(self, key):
        _log("read", "index")
        return taint(np.ndarray.__getitem__(self.view(np.ndarray), key))

    def __float__(self):
        _log("read", "float")
        return float(self.view(np.ndarray))

    def __bool__(self):
        _log("decision", "bool")
        return bool(self.view(np.ndarray))

    def __int__(self):
        _log("decision", "int")
        return int(self.view(np.ndarray))

    def __index__(self):
        _log("decision", "index")
        return self.view(np.ndarray).__index__()


def taint(values) -> Tainted:
    return np.asarray(values).view(Tainted)


def contains_taint(obj, depth: int = 0) -> bool:
    """Whether a tainted array sits in ``obj`` (arrays, lists, tuples, dicts, dataclass-like
    objects with ``__dict__``), searched a few levels deep."""
    if isinstance(obj, Tainted):
        return True
    if depth > 4 or isinstance(obj, (str, bytes, int, float, np.ndarray, type(None))):
        return False
    if isinstance(obj, dict):
        return any(contains_taint(v, depth + 1) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return any(contains_taint(v, depth + 1) for v in obj)
    return any(contains_taint(v, depth + 1) for v in getattr(obj, "__dict__", {}).values())


# --------------------------------------------------------------------------- transcript


@dataclass
class Call:
    """One mechanism call: ``kind`` is ``select`` (scores; output = the canonical index),
    ``draw`` (log-weights of a sampler, P ∝ exp; output = the canonical indices drawn),
    ``gaussian`` or ``laplace`` (true values; output = the noisy values)."""

    kind: str
    params: dict
    values: np.ndarray
    output: object
    charges: list
    site: str
    log_prob: float = 0.0


@dataclass
class Event:
    kind: str      # read, decision, charge, mechanism, model, output
    detail: str
    site: str


def _same(a, b) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=0)


class Flow:
    """The state of one instrumented run (record or replay)."""

    def __init__(self, script: list[Call] | None = None, seed: int = 0, ledger: bool = True,
                 likelihood: bool = False):
        self.script = script
        self.likelihood = likelihood      # compute each call's log-probability (audits)
        self.mechanism_rng = np.random.default_rng([seed, 7])
        self.ledger = ledger
        self.calls: list[Call] = []
        self.events: list[Event] = []
        self.pending: list[tuple[str, float]] = []
        self.translate: Translation = IDENTITY
        self.n = 1
        self._inside = 0

    @property
    def replaying(self) -> bool:
        return self.script is not None

    def event(self, kind: str, detail: str = "") -> None:
        if self._inside and kind in ("read", "decision"):
            return                      # the mechanism's own work on its input
        self.events.append(Event(kind, detail, _site()))

    def charge(self, label: str, rho: float) -> None:
        self.pending.append((label, float(rho)))
        self.event("charge", label)

    def call(self, kind: str, params: dict, values, run: Callable, log_prob: Callable):
        """Record or replay one mechanism call; ``run(rng)`` runs the real mechanism and returns
        its canonical output, ``log_prob(values, output)`` is ln P[output | values]."""
        values = np.array(_plain(values), dtype=float, ndmin=1)
        charges, self.pending = self.pending, []
        site = _site()
        self._inside += 1
        try:
            if self.replaying:
                output = self._expected(kind, params, values, site).output
            else:
                output = run(self.mechanism_rng)
            probability = log_prob(values, output) if self.likelihood else 0.0
        finally:
            self._inside -= 1
        self.calls.append(Call(kind, dict(params), values, output, charges, site, probability))
        self.event("mechanism", kind)
        return output

    def _expected(self, kind: str, params: dict, values: np.ndarray, site: str) -> Call:
        k = len(self.calls)
        if k >= len(self.script):
            raise FlowDiverged(f"replay made call {k + 1} ({kind} at {site}) beyond the "
                               f"{len(self.script)} recorded")
        expected = self.script[k]
        same = (expected.kind == kind and expected.values.shape == values.shape
                and expected.params.keys() == params.keys()
                and all(_same(expected.params[p], params[p]) for p in params))
        if not same:
            raise FlowDiverged(f"call {k + 1}: recorded {expected.kind}{expected.params} on "
                               f"{expected.values.size} values at {expected.site}, replay "
                               f"{kind}{params} on {values.size} values at {site}")
        return expected

    # ----------------------------------------------------------------- rules

    def violations(self) -> list[str]:
        """Broken flow rules, one line each (empty when the run is clean)."""
        found, open_reads = [], []
        for e in self.events:
            if e.kind == "decision":
                found.append(f"private data decided a branch ({e.detail}) at {e.site}")
            elif e.kind == "read":
                open_reads.append(e)
            elif e.kind == "mechanism":
                open_reads = []
            elif e.kind in ("model", "output"):
                if e.detail == "tainted":
                    found.append(f"a private value entered the {e.kind} at {e.site}")
                if open_reads:
                    found.append(f"{e.kind} at {e.site} after a private read at "
                                 f"{open_reads[0].site} with no mechanism call between")
                    open_reads = []
        if self.ledger:
            found += [f"call {i + 1} ({c.kind} at {c.site}): {problem}"
                      for i, c in enumerate(self.calls) for problem in charge_problems(c)]
        return found


def charge_problems(call: Call) -> list[str]:
    """A ledger call must be paid by exactly one charge made since the previous call, covering
    the stated parameters: ε²/8 (exponential mechanism, bounded range), ε²/2 (permute-and-flip,
    Laplace at b = Δ/ε), Δ²/(2σ²) for the Gaussian (Δ is then implied by the charge)."""
    if len(call.charges) != 1:
        return [f"{len(call.charges)} charges {call.charges} before it, expected 1"]
    rho = call.charges[0][1]
    if call.kind == "select":
        need = call.params["eps"] ** 2 / (8.0 if call.params["law"] == "gumbel" else 2.0)
        if rho < need * (1 - RELATIVE_SLACK):
            return [f"charged {rho:.6g} < {need:.6g} for ε = {call.params['eps']:.6g}"]
    return []


def stated_sensitivity(call: Call) -> float:
    """The sensitivity a call is calibrated with: the one passed to a selection, ε/2 for a
    sampler of P ∝ exp(values) at stated ε, and for noise the one implied by its charge
    (Gaussian: σ·sqrt(2ρ) in L2; Laplace: b·sqrt(2ρ) in L1, ρ = ε²/2)."""
    if call.kind in ("select", "draw"):
        return call.params["sensitivity"]
    rho = call.charges[0][1] if len(call.charges) == 1 else call.params.get("rho", 0.0)
    scale = call.params["sigma" if call.kind == "gaussian" else "scale"]
    return scale * math.sqrt(2.0 * rho)


NORMS = {"select": np.inf, "draw": np.inf, "gaussian": 2, "laplace": 1}


def sensitivity_gaps(recorded: list[Call], replayed: list[Call]) -> list[tuple[float, float]]:
    """(observed change, stated sensitivity) per call between a run and its replay on a
    neighbour: L∞ for scores and log-weights, L2 for Gaussian, L1 for Laplace inputs."""
    return [(float(np.linalg.norm(_difference(a.values, b.values), ord=NORMS[a.kind])),
             stated_sensitivity(a)) for a, b in zip(recorded, replayed)]


def _difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a − b, with 0 where both hold the same value (−∞ scores of candidates ruled out)."""
    return np.subtract(a, b, out=np.zeros(np.broadcast(a, b).shape), where=a != b)


# --------------------------------------------------------------------------- translation


@dataclass
class Translation:
    """Candidate order of a selection ↔ a data-independent canonical order."""

    expand: Callable = lambda scores, ties: scores
    to_canonical: Callable = lambda index: int(index)
    from_canonical: Callable = lambda index: int(index)


IDENTITY = Translation()


def mw_translation(candidates) -> Translation:
    """PMW^Pub/MWEM candidates (present queries, then tied absent groups whose grouping follows
    the data) in global query order."""
    present, members = candidates.present, candidates.tie_members
    total = present.size + members.size
    position = np.empty(total, dtype=np.int64)
    position[present] = np.arange(present.size)
    position[members] = present.size + np.arange(members.size)

    def expand(scores, ties):
        full = np.empty(total)
        full[present] = scores
        if ties is not None:
            full[members] = np.repeat(np.asarray(ties[0], float), np.asarray(ties[1]))
        return full

    return Translation(expand, lambda i: candidates.to_global(int(i))[0],
                       lambda g: int(position[g]))


# --------------------------------------------------------------------------- taps


class Patches(contextlib.ExitStack):
    def set(self, obj, name: str, value) -> None:
        old = getattr(obj, name)
        setattr(obj, name, value)
        self.callback(setattr, obj, name, old)


def exponential_probabilities(scores: np.ndarray, eps: float, sensitivity: float) -> np.ndarray:
    """P(r) ∝ exp(ε·s_r/(2Δ)) (McSherry & Talwar 2007), written here independently of the
    library so that the audit's likelihood does not share its code."""
    logits = eps * (scores - scores.max()) / (2.0 * sensitivity)
    weights = np.exp(logits)
    return weights / weights.sum()


def permute_and_flip_law(scores: np.ndarray, eps: float, sensitivity: float) -> np.ndarray:
    """P(r) = p_r ∫_0^1 Π_{j≠r}(1 − t·p_j) dt with p_j = exp(ε(s_j − s*)/(2Δ)) (McKenna &
    Sheldon 2020), the polynomial integrated exactly (independent of the library)."""
    quality = np.exp(eps * (scores - scores.max()) / (2.0 * sensitivity))
    out = np.empty(scores.size)
    for r in range(scores.size):
        poly = np.polynomial.Polynomial([1.0])
        for j in range(scores.size):
            if j != r:
                poly = poly * np.polynomial.Polynomial([1.0, -quality[j]])
        antiderivative = poly.integ()
        out[r] = quality[r] * (antiderivative(1.0) - antiderivative(0.0))
    return out


SELECTIONS = {"exponential_mechanism": ("gumbel", exponential_probabilities),
              "permute_and_flip": ("exponential", permute_and_flip_law)}


def selection_tap(name: str, original: Callable) -> Callable:
    law, probabilities = SELECTIONS[name]

    def tap(scores, eps, sensitivity, rng, **kwargs):
        active = _ACTIVE
        if active is None:
            return original(scores, eps, sensitivity, rng, **kwargs)
        generator(rng)     # the algorithm's explicit generator reaches the mechanism
        translation = active.translate
        ties = kwargs.get("ties")
        canonical = translation.expand(np.array(_plain(scores), dtype=float), ties)

        def run(mechanism_rng):
            return translation.to_canonical(original(np.array(_plain(scores), dtype=float),
                                                     eps, sensitivity, mechanism_rng, **kwargs))

        def log_prob(values, output):
            return float(np.log(probabilities(values, eps, sensitivity)[output]))

        out = active.call("select", {"eps": float(eps), "sensitivity": float(sensitivity),
                                     "law": law}, canonical, run, log_prob)
        return translation.from_canonical(out)
    return tap


NOISE = {"gaussian_mechanism": ("gaussian", "sigma", stats.norm),
         "laplace_mechanism": ("laplace", "scale", stats.laplace)}


def noise_tap(name: str, original: Callable) -> Callable:
    kind, parameter, law = NOISE[name]

    def tap(values, scale, rng):
        active = _ACTIVE
        if active is None:
            return original(values, scale, rng)
        generator(rng)
        values = _plain(values)
        shape = np.shape(values)

        def run(mechanism_rng):
            return np.atleast_1d(original(np.array(_plain(values), dtype=float), scale,
                                          mechanism_rng)).astype(float)

        def log_prob(true_values, output):
            return float(law.logpdf(output, loc=true_values, scale=scale).sum())

        out = active.call(kind, {parameter: float(scale)}, values, run, log_prob)
        return float(out[0]) if shape == () else np.array(out).reshape(shape)
    return tap


def install_mechanism_taps(patches: Patches, module, names) -> None:
    """Taps on the mechanisms ``names`` as ``module`` looks them up."""
    for name in names:
        original = getattr(module, name)
        tap = selection_tap(name, original) if name in SELECTIONS else noise_tap(name, original)
        patches.set(module, name, tap)


def install_ledger(patches: Patches) -> None:
    charge = privacy.ZCDPBudget.charge

    def recorded(self, rho, label=""):
        if _ACTIVE is not None:
            _ACTIVE.charge(label, rho)
        return charge(self, rho, label)
    patches.set(privacy.ZCDPBudget, "charge", recorded)


def model_sink(original: Callable, label: str, method: bool = False) -> Callable:
    """Log a model event (``tainted`` when any argument — past ``self`` for a method —
    carries private values)."""
    def sink(*args, **kwargs):
        carried = contains_taint(args[int(method):]) or contains_taint(kwargs)
        _log("model", "tainted" if carried else label)
        return original(*args, **kwargs)
    return sink


# --------------------------------------------------------------------------- families


def install_handle(patches: Patches, problem: ReleaseProblem,
                   mechanisms=("permute_and_flip", "exponential_mechanism",
                               "gaussian_mechanism", "laplace_mechanism")) -> None:
    """Every family: the private data enter the handle tainted (the workload's true answers, the
    marginals of counts; the selection candidates' tie groups, part of the selection's input
    encoding, are built from the plain answers first), the mechanisms are tapped where the
    handle looks them up, and a query selection's candidate order is translated to query ids."""
    from pubpriv_core.privacy import private_data as handle
    answers = np.asarray(problem.true_answers)
    if problem.public_support is not None:    # the quality check's statistic, on plain answers
        problem.__dict__["best_mixture_error"] = taint(problem.best_mixture_error)
    for answerer in _answerers(problem):
        problem.query_candidates(answerer).true_present = taint(
            problem.query_candidates(answerer).true_present)
    problem.__dict__["true_answers"] = taint(answers)
    private_marginal = type(problem).private_marginal

    def tainted_marginal(self, clique):
        _log("read", f"marginal {clique}")
        return taint(private_marginal(self, clique))
    patches.set(type(problem), "private_marginal", tainted_marginal)
    install_mechanism_taps(patches, handle, mechanisms)
    select_query = handle.PrivateData.select_query

    def translated_select(self, y, Z, answerer, *args, **kwargs):
        _ACTIVE.translate = mw_translation(self._source.query_candidates(answerer))
        try:
            return select_query(self, y, Z, answerer, *args, **kwargs)
        finally:
            _ACTIVE.translate = IDENTITY
    patches.set(handle.PrivateData, "select_query", translated_select)


def _answerers(problem: ReleaseProblem) -> list:
    """The answerers a query selection can run on: the public support's and the domain's
    (the latter only on domains MWEM holds)."""
    out = [problem.public_answerer] if problem.public_support is not None else []
    return out + [problem.domain_answerer]


def install_pgm(patches: Patches, problem: ReleaseProblem) -> None:
    """AIM, MST, JAM-PGM: the model from ``pgm.measurement``/``pgm.fit``."""
    from pubpriv_core.algorithms import pgm
    install_handle(patches, problem)
    patches.set(pgm, "measurement", model_sink(pgm.measurement, "measurement"))
    patches.set(pgm, "fit", model_sink(pgm.fit, "fit"))


def install_mw(patches: Patches, problem: ReleaseProblem) -> None:
    """PMW^Pub, MWEM: the model = the MW state's updates."""
    from pubpriv_core.algorithms import multiplicative_weights as mw
    install_handle(patches, problem)
    patches.set(mw.MWState, "update", model_sink(mw.MWState.update, "update", True))
    patches.set(mw.MWState, "update_many", model_sink(mw.MWState.update_many, "update", True))


def install_dualquery(patches: Patches, problem: ReleaseProblem) -> None:
    """DualQuery: the handle's sampler draws from P ∝ exp(±log-weights) (the tapped mechanism
    ``exponential_samples``), round t calibrated at ε_t = 2η(t−1)/n, so the log-weights have
    sensitivity ε_t/2; the model = the player's updates (records played)."""
    from pubpriv_core.algorithms import dualquery
    from pubpriv_core.privacy import private_data as handle
    install_handle(patches, problem)
    dual_queries, samples = handle.PrivateData.dual_queries, handle.exponential_samples
    round_eps = []

    def with_round_eps(self, counts, rounds, eta, size):
        round_eps.append(2.0 * eta * rounds / self.n)
        return dual_queries(self, counts, rounds, eta, size)

    def tapped_samples(log_weights, size, rng):
        generator(rng)
        eps_t = round_eps[-1]

        def run(mechanism_rng):
            return np.asarray(samples(np.asarray(_plain(log_weights)), size, mechanism_rng),
                              dtype=np.int64)

        def log_prob(values, output):
            log_p = values - values.max()
            log_p -= np.log(np.exp(log_p).sum())
            return float(log_p[output].sum())

        return np.array(_ACTIVE.call("draw", {"eps": eps_t, "sensitivity": eps_t / 2.0},
                                     log_weights, run, log_prob))
    patches.set(handle.PrivateData, "dual_queries", with_round_eps)
    patches.set(handle, "exponential_samples", tapped_samples)
    player = dualquery.QueryPlayer
    patches.set(player, "update", model_sink(player.update, "update", True))


def install_adaptive(patches: Patches, problem: ReleaseProblem) -> None:
    """PEP, PEP^Pub, GEM, GEM^Pub, RAP (Adaptive Measurements rounds): the model = every
    ``model.update`` of ``run_rounds`` (in each registered module that runs it). GEM^Pub's
    in-process pre-training cache starts empty, so every run — replays included — pre-trains
    again: a pre-training that read private data would differ on them."""
    import importlib

    from pubpriv_core.algorithms import adaptive_measurements as am
    from pubpriv_core.algorithms import gem
    install_handle(patches, problem)
    rounds = am.run_rounds

    def sunk_rounds(name, problem, private, model, **kwargs):
        model.update = model_sink(model.update, "update")
        return rounds(name, problem, private, model, **kwargs)
    for name in builtin_algorithms():
        module = importlib.import_module(ALGORITHMS[name].module)
        if getattr(module, "run_rounds", None) is rounds:
            patches.set(module, "run_rounds", sunk_rounds)
    patches.set(gem, "_PRETRAINED", type(gem._PRETRAINED)())


def install_none(patches: Patches, problem: ReleaseProblem) -> None:
    """An algorithm that reads no private data and calls no mechanism."""
    return None


@dataclass(frozen=True)
class Family:
    """How a family of algorithms reads private data, calls mechanisms and builds its model."""

    install: Callable[[Patches, ReleaseProblem], None]
    ledger: bool = True        # each mechanism call is charged to the ledger before it runs


PGM = Family(install_pgm)
MW = Family(install_mw)
DUALQUERY = Family(install_dualquery, ledger=False)
ADAPTIVE = Family(install_adaptive)
NO_MECHANISM = Family(install_none, ledger=False)


@dataclass(frozen=True)
class FlowSpec:
    """One algorithm in the flow tests: its family, options for tiny runs, whether it needs a
    public source, and the ε of those runs."""

    family: Family
    options: dict = field(default_factory=dict)
    public: bool = False
    eps: float = 2.0
    T: int = 3
    spends_all: bool = True    # the run spends its whole ρ (JAM-PGM's public picks save some)
    orders: tuple = (2,)       # the workload: every marginal of these orders


FAST_PGM = {"iters": 1, "final_iters": 1}
FAST_GENERATOR = {"K": 4, "embedding": 4, "hidden": 4, "max_iters": 3}

#: every private built-in algorithm; a new one must be added here
#: (test_privacy_flow.py::test_flow_table_covers_the_registry)
FLOW_SPECS: dict[str, FlowSpec] = {
    "pmwpub": FlowSpec(MW, public=True),
    "mwem": FlowSpec(MW),
    "dualquery": FlowSpec(DUALQUERY, {"eta": 0.5, "samples": 4, "max_T": 4}, eps=30.0),
    "aim": FlowSpec(PGM, {"rounds": 4, **FAST_PGM}),
    "mst": FlowSpec(PGM, dict(FAST_PGM)),
    "jam_pgm": FlowSpec(PGM, {"rounds": 3, **FAST_PGM}, public=True, spends_all=False),
    "public_only": FlowSpec(NO_MECHANISM, public=True),
    # T ≤ W marginals: 1- and 2-way marginals give W ≥ 3 on every tiny domain
    "pep": FlowSpec(ADAPTIVE, {"max_iters": 5}, orders=(1, 2)),
    # α ≠ 0.5: a selection/measurement share swapped changes the spend (whole-ρ check)
    "pep_pub": FlowSpec(ADAPTIVE, {"max_iters": 5, "alpha": 0.3}, public=True, orders=(1, 2)),
    "gem": FlowSpec(ADAPTIVE, dict(FAST_GENERATOR), orders=(1, 2)),
    "gem_pub": FlowSpec(ADAPTIVE, {**FAST_GENERATOR, "pretrain_steps": 4,
                                   "pretrain_refresh": 2}, public=True, orders=(1, 2)),
    "rap": FlowSpec(ADAPTIVE, {"K": 4, "max_iters": 3}, T=1, orders=(1, 2)),  # 2 picks a round
}
#: every option that changes which data a step reads, or how a mechanism is called, beside
#: the spec's defaults: (algorithm, options, with a public source)
OPTION_PATHS: list[tuple[str, dict, bool]] = [
    ("pmwpub", {"quality_check_eps": 0.5}, True), ("pmwpub", {"init": "uniform"}, True),
    ("pmwpub", {"selection": "exponential"}, True),
    ("pmwpub", {"selection": "exponential_bounded_range"}, True),
    ("pmwpub", {"measurement": "laplace"}, True), ("pmwpub", {"replay": False}, True),
    ("pmwpub", {"output": "released_code", "replay_variant": "released_code"}, True),
    ("mwem", {"measurement": "laplace", "replay": False}, False),
    ("mwem", {"output": "released_code", "replay_variant": "released_code"}, False),
    ("dualquery", {"accounting": "zcdp"}, False),
    ("aim", {"public_init": True}, True),
    ("aim", {"public_init": True, "public_cliques": "tree"}, True),
    ("aim", {"relation": "add_remove"}, False),
    ("jam_pgm", {"alpha": 0.6}, True),
    ("pep_pub", {"init": "uniform"}, True),
    ("gem", {"ema_weights": True, "eta_min": 1e-6, "loss_p": 1}, False),
    ("gem_pub", {"ema_weights": False}, True),
    ("rap", {"marginals_per_round": 1}, False),
]
#: registry entries that are not private mechanisms (non-private reference values)
NOT_PRIVATE = {"best_mixture": "the non-private best mixture error, a reference value"}


def builtin_algorithms() -> list[str]:
    """The registry's own algorithms: :data:`ALGORITHMS` without the entry-point plugins that
    :func:`~pubpriv_core.algorithms.plugins.load_plugins` added (third-party code, whose
    privacy is checked at run time against the budget it reports, not here)."""
    from pubpriv_core.algorithms.plugins import PLUGINS
    return sorted(set(ALGORITHMS) - set(PLUGINS))


def registry_gaps() -> list[str]:
    """Built-in algorithms with neither a flow spec nor a NOT_PRIVATE reason."""
    return sorted(set(builtin_algorithms()) - set(FLOW_SPECS) - set(NOT_PRIVATE))


# --------------------------------------------------------------------------- running


@contextlib.contextmanager
def flow(spec: FlowSpec, problem: ReleaseProblem, script: list[Call] | None = None,
         seed: int = 0, likelihood: bool = False):
    """Install the spec's instrumentation for one run; yields the :class:`Flow`."""
    global _ACTIVE
    from pubpriv_core.algorithms import pgm, pgm_descent  # noqa: F401  (pgm sets JAX up first)
    active = Flow(script, seed, spec.family.ledger, likelihood)
    active.n = problem.n
    with Patches() as patches:
        install_ledger(patches)
        spec.family.install(patches, problem)
        # Private-PGM fits are post-processing: one mirror-descent step each keeps runs short
        patches.set(pgm_descent.estimation, "CALLBACK_EVERY", 1)
        _ACTIVE = active
        try:
            yield active
        finally:
            _ACTIVE = None


def run(name: str, problem: ReleaseProblem, script: list[Call] | None = None, seed: int = 0,
        eps: float | None = None, delta: float = 1e-3, likelihood: bool = False, **extra):
    """Run algorithm ``name`` under its flow spec; (release, flow). ``likelihood`` fills each
    call's ``log_prob`` (the audits need it; it costs O(N²) per permute-and-flip call)."""
    spec = FLOW_SPECS[name]
    with flow(spec, problem, script, seed, likelihood) as active:
        release = run_algorithm(name, problem, eps=eps or spec.eps, delta=delta, T=spec.T,
                                rng=np.random.default_rng(seed), **{**spec.options, **extra})
        _log("output", "tainted" if contains_taint(release) else "release")
    if script is not None and len(active.calls) != len(script):
        raise FlowDiverged(f"replay made {len(active.calls)} calls, {len(script)} recorded")
    return release, active


# --------------------------------------------------------------------------- tiny problems


def make_problem(records: np.ndarray, shape, public_records: np.ndarray | None = None,
                 orders: tuple = (2,)) -> ReleaseProblem:
    """A problem on ``shape`` with every marginal of the given orders (at most the number of
    attributes) as workload and, if given, the public rows as the public source (support =
    distinct rows, weights = their frequencies)."""
    domain = Domain([f"a{i}" for i in range(len(shape))], list(shape))
    marginals = [m for k in sorted({min(k, len(shape)) for k in orders})
                 for m in choose_marginals(len(shape), k, None, 0)]
    workload = MarginalWorkload(domain, tuple(marginals))
    private = Dataset(np.asarray(records, dtype=np.int64), domain)
    if public_records is None:
        return ReleaseProblem(private, workload)
    support, counts = np.unique(np.asarray(public_records, dtype=np.int64), axis=0,
                                return_counts=True)
    return ReleaseProblem(private, workload, support, counts / counts.sum(),
                          len(public_records))


def spec_problem(name: str, records: np.ndarray, shape,
                 public_records: np.ndarray | None) -> ReleaseProblem:
    """:func:`make_problem` with the workload of ``name``'s spec, and the public rows only if
    the spec needs a public source."""
    spec = FLOW_SPECS[name]
    return make_problem(records, shape, public_records if spec.public else None, spec.orders)


def with_private(problem: ReleaseProblem, records: np.ndarray) -> ReleaseProblem:
    """The same workload and public source, other private rows."""
    return ReleaseProblem(Dataset(np.asarray(records, dtype=np.int64), problem.private.domain),
                          problem.workload, problem.public_support, problem.public_weights,
                          problem.public_rows)


def neighbours(records: np.ndarray, shape) -> list[np.ndarray]:
    """Every dataset obtained by replacing one record by another domain element, one per
    distinct histogram (the algorithms read the data through counts only)."""
    cells = np.array(np.unravel_index(np.arange(int(np.prod(shape))), shape)).T
    seen, out = {tuple(sorted(map(tuple, records)))}, []
    for i in range(len(records)):
        for cell in cells:
            other = records.copy()
            other[i] = cell
            key = tuple(sorted(map(tuple, other)))
            if key not in seen:
                seen.add(key)
                out.append(other)
    return out


# --------------------------------------------------------------------------- loss audit


def transcript_audit(name: str, problems: dict, pairs: list[tuple], *, eps_run: float,
                     rho: float, eps: float, delta: float, samples: int, seed: int = 0,
                     **options):
    """:func:`~pubpriv_core.learning.audit.loss_audit` of algorithm ``name`` run at
    ``eps_run`` and audited against the claimed (ρ, ε, δ): an output is the transcript of its
    mechanism calls (the release is its post-processing: replay checks that), its exact
    log-likelihood on D the sum of the calls' log-probabilities, and on D' the same sum along a
    replay of the transcript on D'."""
    from pubpriv_core.learning.audit import loss_audit
    counter = iter(range(seed * 1_000_000, (seed + 1) * 1_000_000))

    def sample(d):
        s = next(counter)
        _, recorded = run(name, problems[d], seed=s, eps=eps_run, delta=delta, likelihood=True,
                          **options)
        return d, s, recorded.calls

    def log_likelihood(d, output):
        source, s, calls = output
        if d != source:
            _, replay = run(name, problems[d], script=calls, seed=s, eps=eps_run, delta=delta,
                            likelihood=True, **options)
            calls = replay.calls
        return math.fsum(c.log_prob for c in calls)

    return loss_audit(pairs, sample, log_likelihood, rho=rho, eps=eps, delta=delta,
                      samples=samples, alphas=(1.5, 2, 3))
