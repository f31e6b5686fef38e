"""Empirical sample complexity n*(α, β) of a learner, measured with exact errors.

A *trial* is ``trial_fn(n, rng) -> error`` (a float, success iff error ≤ α) or ``-> bool``
(success).  At a sample size n we run R independent trials (trial i seeded by
``SeedSequence([seed, i, n])``, so runs are reproducible and independent of scheduling) and call n
*sufficient* when the one-sided Clopper–Pearson lower confidence bound on the success rate is
≥ 1 − β.  n* is found by doubling from ``n_min`` until n is sufficient, then bisecting the last
bracket down to a relative width ``rel_tol`` (the spec's "doubling then bisection" for the theory
papers).  Trials run in parallel with joblib; every finished (setting, n) block of trials is written
as one JSON record (temp file + ``os.replace``) so a killed sweep resumes where it stopped.
"""
from __future__ import annotations

import json
import logging
import os
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
from joblib import Parallel, delayed
from scipy import stats

TrialFn = Callable[[int, np.random.Generator], "float | bool"]
log = logging.getLogger(__name__)


def clopper_pearson_lower(successes: int, trials: int, confidence: float = 0.95) -> float:
    """One-sided exact lower bound: the p with P[Bin(trials, p) ≥ successes] = 1 − confidence."""
    if trials <= 0 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 ≤ successes ≤ trials and trials > 0, got {successes}/{trials}; pass counts")
    if successes == 0:
        return 0.0
    return float(stats.beta.ppf(1.0 - confidence, successes, trials - successes + 1))


def max_failures(trials: int, beta: float, confidence: float = 0.95) -> int:
    """Largest number of failures among ``trials`` that still certifies success rate ≥ 1 − β (−1: none)."""
    f = -1
    while f + 1 <= trials and clopper_pearson_lower(trials - f - 1, trials, confidence) >= 1.0 - beta:
        f += 1
    return f


class RecordStore:
    """One JSON file per key under ``root``; writes are atomic (temp file + os.replace)."""

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)

    def path(self, key: str) -> Path:
        safe = "".join(c if c.isalnum() or c in "-_.=,/" else "_" for c in key)
        return self.root / f"{safe}.json"

    def get(self, key: str) -> dict | None:
        p = self.path(key)
        return json.loads(p.read_text()) if p.exists() else None

    def put(self, key: str, record: dict) -> None:
        """Store ``record`` under ``key`` (atomically) and log it: the theory runner's progress."""
        p = self.path(key)
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=".tmp_", suffix=".json")
        with os.fdopen(fd, "w") as fh:
            json.dump(record, fh)
        os.replace(tmp, p)
        log.info("block done: %s%s", key, self._progress())

    def _progress(self) -> str:
        """`` (k new this run; t elapsed)`` while a theory run that exported its start time
        (``PUBPRIV_THEORY_START``, :mod:`experiments.theory.progress`) is going on; this process
        logs to stderr then, also as a joblib worker. Empty otherwise."""
        start = os.environ.get("PUBPRIV_THEORY_START")
        if not start:
            return ""
        if not logging.getLogger().handlers:
            logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                                format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
        since = float(start)
        new = sum(1 for q in self.root.rglob("*.json")
                  if not q.name.startswith(".tmp") and q.stat().st_mtime >= since)
        seconds = time.time() - since
        elapsed = f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"
        return f" ({new} new this run; {elapsed} elapsed)"

    def records(self, prefix: str = "") -> list[dict]:
        base = self.root / prefix if prefix else self.root
        return [json.loads(p.read_text()) for p in sorted(base.rglob("*.json"))] if base.exists() else []


@dataclass
class RateEstimate:
    """Outcome of R trials at one n: successes, the CP lower bound and the recorded errors."""

    n: int
    successes: int
    trials: int
    lower: float
    sufficient: bool
    stopped_early: bool = False
    errors: list = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.successes / self.trials


@dataclass
class SampleComplexity:
    """n* (None if even ``n_max`` was insufficient) with every rate estimate made on the way."""

    n_star: int | None
    alpha: float
    beta: float
    evaluations: list[RateEstimate]

    def table(self) -> list[dict]:
        return [{k: v for k, v in asdict(e).items() if k != "errors"} | {"rate": e.rate}
                for e in sorted(self.evaluations, key=lambda e: e.n)]


def _run_block(trial_fn: TrialFn, n: int, seed: int, indices) -> list:
    out = []
    for i in indices:
        value = trial_fn(int(n), np.random.default_rng(np.random.SeedSequence([int(seed), int(i), int(n)])))
        if isinstance(value, (bool, np.bool_)):
            value = bool(value)
        elif np.ndim(value) == 0:
            value = float(value)
        else:  # several measurements of one trial (JSON-serialisable list of floats)
            value = [float(v) for v in value]
        out.append(value)
    return out


def _successes(values: list, alpha: float) -> int:
    return int(sum(v if isinstance(v, bool) else v <= alpha for v in values))


def run_trials(trial_fn: TrialFn, n: int, indices, *, seed: int = 0, n_jobs: int = 1) -> list:
    """Outputs of trials ``indices`` at size n (bool, float or a list of floats per trial),
    split into ≈ 2·n_jobs parallel joblib blocks; trial i uses SeedSequence([seed, i, n])."""
    indices = list(indices)
    if n_jobs == 1 or len(indices) < 2:
        return _run_block(trial_fn, n, seed, indices)
    blocks = [b for b in np.array_split(indices, min(len(indices), 2 * n_jobs)) if len(b)]
    parts = Parallel(n_jobs=n_jobs)(delayed(_run_block)(trial_fn, n, seed, b.tolist()) for b in blocks)
    return [v for part in parts for v in part]


def success_rate(trial_fn: TrialFn, n: int, alpha: float, beta: float, *, trials: int = 100,
                 confidence: float = 0.95, seed: int = 0, n_jobs: int = 1, early_stop: bool = False,
                 store: RecordStore | None = None, key: str = "") -> RateEstimate:
    """R trials at n (resumed from ``store[key/n=..]`` when present); early_stop quits once failing is certain."""
    if not 0 < alpha < 1 or not 0 < beta < 1:
        raise ValueError(f"alpha and beta must be in (0,1), got {alpha}, {beta}; pass accuracy and failure rates")
    rkey = f"{key}/n={int(n)}" if key else f"n={int(n)}"
    cached = store.get(rkey) if store is not None else None
    if cached is not None and cached["trials_requested"] == trials and cached["seed"] == seed \
            and (not cached["stopped_early"] or early_stop):
        values = cached["values"]
        stopped = cached["stopped_early"]
    else:
        allowed = max_failures(trials, beta, confidence)
        batch = trials if not early_stop else max(trials // 4, 8 * n_jobs)
        values, stopped = [], False
        while len(values) < trials:
            idx = range(len(values), min(trials, len(values) + batch))
            values += run_trials(trial_fn, n, idx, seed=seed, n_jobs=n_jobs)
            if early_stop and len(values) - _successes(values, alpha) > allowed and len(values) < trials:
                stopped = True
                break
        if store is not None:
            store.put(rkey, {"key": key, "n": int(n), "seed": seed, "trials_requested": trials,
                             "alpha": alpha, "stopped_early": stopped, "values": values})
    k = _successes(values, alpha)
    lower = clopper_pearson_lower(k, len(values), confidence)
    sufficient = (not stopped) and lower >= 1.0 - beta
    return RateEstimate(int(n), k, len(values), lower, sufficient, stopped,
                        [v for v in values if not isinstance(v, bool)])


def empirical_sample_complexity(trial_fn: TrialFn, alpha: float, beta: float, *, trials: int = 100,
                                confidence: float = 0.95, n_min: int = 1, n_max: int = 2**40,
                                rel_tol: float = 0.03, seed: int = 0, n_jobs: int = 1,
                                store: RecordStore | None = None, key: str = "") -> SampleComplexity:
    """n*(α, β): smallest n on the doubling-then-bisection grid whose CP lower bound is ≥ 1 − β.

    Needs ``trials`` with ``max_failures(trials, beta) ≥ 0`` (e.g. β = 0.05 at 95% needs R ≥ 59).
    """
    if max_failures(trials, beta, confidence) < 0:
        raise ValueError(f"{trials} trials can never certify success ≥ {1 - beta} at {confidence:.0%}; raise trials")
    if not 1 <= n_min <= n_max:
        raise ValueError(f"need 1 ≤ n_min ≤ n_max, got {n_min}, {n_max}; fix the search range")
    evals: list[RateEstimate] = []

    def ok(n: int) -> bool:
        est = success_rate(trial_fn, n, alpha, beta, trials=trials, confidence=confidence, seed=seed,
                           n_jobs=n_jobs, early_stop=True, store=store, key=key)
        evals.append(est)
        return est.sufficient

    lo, hi = 0, int(n_min)
    while not ok(hi):
        if hi >= n_max:
            return SampleComplexity(None, alpha, beta, evals)
        lo, hi = hi, min(2 * hi, int(n_max))
    while hi - lo > max(1, int(rel_tol * hi)):
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return SampleComplexity(hi, alpha, beta, evals)


def worst_case_sample_complexity(trial_fns: dict[str, TrialFn], alpha: float, beta: float,
                                 **kwargs) -> tuple[int | None, dict[str, SampleComplexity]]:
    """max over a family of distributions (each its own trial_fn) of n*; None if any never succeeds."""
    key = kwargs.pop("key", "")
    results = {name: empirical_sample_complexity(fn, alpha, beta, key=f"{key}/{name}" if key else name, **kwargs)
               for name, fn in trial_fns.items()}
    stars = [r.n_star for r in results.values()]
    return (None if any(s is None for s in stars) else max(stars)), results


def success_curve(trial_fn: TrialFn, ns, alpha: float, beta: float, **kwargs) -> list[RateEstimate]:
    """ŝ(n) on a fixed grid (all R trials, no early stop) for success-curve plots."""
    return [success_rate(trial_fn, int(n), alpha, beta, **kwargs) for n in ns]
