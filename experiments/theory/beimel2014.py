"""Beimel et al. 2014 experiments: proper vs improper POINT_d, INTERVAL_d, data release.

Preset ``conf/experiment/theory_beimel2014.yaml``; run with
``python -m experiments.theory experiment=theory_beimel2014``.  Writes to ``cfg.out``:
``point_nstar.csv`` (n* per learner and d on Lemma 3.9's hard distribution), ``success_curves.csv``
(ŝ(n) of the proper learner next to its exact success probability), ``interval_nstar.csv``,
``release_nstar.csv`` and the figures ``point_nstar.png``, ``point_slope.png``,
``success_curves.png``, ``interval_nstar.png``, ``release_nstar.png``.  Success means error < α
(the spec: error ≥ α counts as failure on D_i, where every wrong point has error exactly α).
"""
from __future__ import annotations

import functools
import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy import stats  # noqa: E402

from experiments.theory.fits import bound_curve, repeated_nstar, slope_row  # noqa: E402
from experiments.theory.progress import part, plan  # noqa: E402
from experiments.theory.runner import register, save_figure  # noqa: E402
from pubpriv_core.bounds import evaluate  # noqa: E402
from pubpriv_core.learning import (FiniteDistribution, PointFunctions, RecordStore,  # noqa: E402
                                   empirical_sample_complexity, run_trials, success_curve)
from pubpriv_core.learning import beimel2014 as B  # noqa: E402
from pubpriv_core.learning.audit import exact_audit  # noqa: E402


# ------------------------------------------------------------------ trials (module level: picklable)
def hard_point(d: int, alpha: float) -> tuple[FiniteDistribution, int]:
    """Lemma 3.9's D_i: mass 1 − α on point 0 and α on the target i (here i = T/2 + 1)."""
    target = 2 ** (d - 1) + 1 if d > 1 else 1
    return FiniteDistribution([0, target], [1 - alpha, alpha]), target


def _labelled(dist: FiniteDistribution, target: int, k: int, rng):
    X = dist.sample(k, rng)
    return X, X == target


def point_trial(learner: str, d: int, alpha: float, beta: float, eps: float, n: int, rng) -> bool:
    """One run of a POINT_d learner on D_i; success iff its exact error is < α."""
    D, target = hard_point(d, alpha)
    T = 2**d
    if learner == "improper":
        draw = functools.partial(_labelled, D, target)
        return B.learn_point_boosted(n, draw, alpha, beta, eps, rng).error(target, D) < alpha
    X, y = _labelled(D, target, n, rng)
    if learner == "representation":  # fresh lazy family; exact pattern shortcut (support = {0, target})
        member = B.learn_representation_fresh(X, y, D.points, d, alpha, eps, rng)
        return float(D.mass(member != (D.points == target))) < alpha
    j = B.learn_point_proper(X, y, T, eps, rng) if learner == "proper" else B.learn_point_nonprivate(X, y, T, rng)
    return j == target  # any other point has error ≥ α on D_i


def interval_trial(d: int, alpha: float, eps: float, n: int, rng) -> bool:
    """INTERVAL_d (thresholds 1[x < t]) on two adjacent points with mass 1/2 each: only t = j+1 is right."""
    j = 2 ** (d - 1)
    D = FiniteDistribution([j, j + 1], [0.5, 0.5])
    X = D.sample(n, rng)
    t = B.learn_interval_proper(X, X < j + 1, 2**d, eps, rng)
    return t == j + 1  # every other threshold errs on one of the two points (error 1/2)


def release_trial(method: str, d: int, alpha: float, eps: float, n_hat: int, n: int, rng) -> bool:
    """Thm 7.2's instance D_i (⌈3αm⌉ copies of i, the rest 0); success iff max_j error < α."""
    T, i = 2**d, int(rng.integers(1, 2**d))
    k = math.ceil(3 * alpha * n)
    X = np.concatenate([np.zeros(n - k, dtype=np.int64), np.full(k, i)])
    if method == "laplace":
        return B.laplace_histogram_error(X, T, eps, rng) < alpha
    q = np.bincount(X, minlength=T) / n
    return float(np.max(np.abs(B.blr_release(X, T, n_hat, eps, rng) - q))) < alpha


def family(d: int, alpha: float, spread: int) -> dict[str, tuple[FiniteDistribution, int]]:
    """The spec's worst-case family for POINT_d (target i = T/2 + 1): Lemma 3.9's D_i, a point mass
    on the target, target mass w ∈ {0, α/2, α, 2α} with the rest uniform on ``spread`` other points,
    and a two-point distribution (1/2 on the target, 1/2 on point 0)."""
    D, target = hard_point(d, alpha)
    others = np.array([k for k in range(1, spread + 2) if k != target][:spread]) * (2 ** max(d - 7, 0))
    out = {"hard_Di": (D, target), "target_only": (FiniteDistribution([target], [1.0]), target),
           "two_point": (FiniteDistribution([0, target], [0.5, 0.5]), target)}
    for w in (0.0, alpha / 2, alpha, 2 * alpha):
        pts, probs = np.append(others, target), np.append(np.full(spread, (1 - w) / spread), w)
        out[f"spread_w={w:g}"] = (FiniteDistribution(pts[probs > 0], probs[probs > 0]), target)
    return out


def family_trial(learner: str, d: int, alpha: float, beta: float, eps: float, spread: int, name: str,
                 n: int, rng) -> bool:
    """One run on a member of :func:`family`; success iff the exact error is < α (with a 1e-9 margin, so
    an error of exactly α — every wrong point when w = α — fails despite float normalisation)."""
    D, target = family(d, alpha, spread)[name]
    if learner == "improper":
        h = B.learn_point_boosted(n, functools.partial(_labelled, D, target), alpha, beta, eps, rng)
        return h.error(target, D) < alpha - 1e-9
    X, y = _labelled(D, target, n, rng)
    if learner == "representation":  # fresh lazy family, exact on the member's support
        order = np.argsort(D.points)
        member = np.empty(len(order), dtype=bool)
        member[order] = B.learn_representation_sparse(X, y, D.points[order], d, alpha, eps, rng)
        return float(D.mass(member != (D.points == target))) < alpha - 1e-9
    j = B.learn_point_proper(X, y, 2**d, eps, rng)
    return float(PointFunctions(2**d).disagreement([j], [target], D)[0]) < alpha - 1e-9


@functools.lru_cache(maxsize=8)
def _outside_image(ell: int, d: int) -> int:
    """Smallest point not hit by the PRG (the heavy point of the seed instance)."""
    return int(np.setdiff1d(np.arange(2**ell + 1), B.prg_table(ell, d))[0])


def seed_trial(ell: int, d: int, alpha: float, eps: float, n: int, rng) -> bool:
    """POINT̂_d with target c_{G(1)}: D has mass α on G(1) and 1 − α on a point outside G's image."""
    G = B.prg_table(ell, d)
    target = int(G[1])
    D = FiniteDistribution([_outside_image(ell, d), target], [1 - alpha, alpha])
    X, y = _labelled(D, target, n, rng)
    return int(G[B.learn_seed_proper(X, y, ell, d, eps, rng)]) == target


def weight_trial(d: int, alpha: float, beta: float, eps: float, n: int, rng) -> list:
    """Weight |{x : h(x) = 1}| of the boosted learner's output on D_i, counted over all 2^d points
    (−1 for ⊥), and its exact error (Thm 4.11: small-sample learners need heavy hypotheses)."""
    D, target = hard_point(d, alpha)
    h = B.learn_point_boosted(n, functools.partial(_labelled, D, target), alpha, beta, eps, rng)
    weight = -1.0 if h.is_bottom else float(sum(h(np.arange(s, min(s + 2**20, 2**d))).sum()
                                               for s in range(0, 2**d, 2**20)))
    return [weight, h.error(target, D)]


def reconstruction_trial(T: int, mu: float, n: int, rng) -> bool:
    """Thm 5.8: h = c_j with every label flipped w.p. μ (j = T/2); True iff reconstruction fails."""
    j = T // 2
    return B.reconstruct_threshold((np.arange(T) < j) ^ (rng.random(T) < mu)) != j


# ------------------------------------------------------------------ sweeps
def _search(fn, cfg, store, key, n_min=1, n_jobs=None):
    res = empirical_sample_complexity(fn, cfg.alpha, cfg.beta, trials=cfg.trials, confidence=cfg.confidence,
                                      n_min=n_min, n_max=int(cfg.n_max), rel_tol=cfg.rel_tol, seed=cfg.seed,
                                      n_jobs=cfg.n_jobs if n_jobs is None else n_jobs, store=store, key=key)
    return res.n_star


def _repeated(fn, cfg, store, key, repeats: int, n_min=1, n_jobs=None) -> dict:
    """n* from ``repeats`` independent searches: seed-0 value, mean and all values (';'-joined)."""
    def search(k, seed):
        return empirical_sample_complexity(fn, cfg.alpha, cfg.beta, trials=cfg.trials, confidence=cfg.confidence,
                                           n_min=n_min, n_max=int(cfg.n_max), rel_tol=cfg.rel_tol, seed=seed,
                                           n_jobs=cfg.n_jobs if n_jobs is None else n_jobs, store=store,
                                           key=k).n_star
    stars = repeated_nstar(search, key, cfg.seed, repeats)
    return {"n_star": stars[0], "n_star_mean": float(np.mean(stars)), "n_star_repeats": ";".join(map(str, stars))}


def point_sweep(cfg, store) -> pd.DataFrame:
    rows = []
    for learner in cfg.point.learners:
        for d in cfg.point.d:
            if learner == "representation" and d < cfg.point.representation_min_d:
                continue
            fn = functools.partial(point_trial, learner, int(d), cfg.alpha, cfg.beta, cfg.eps)
            heavy = learner == "improper"
            res = _repeated(fn, cfg, store, f"point/{learner}/d={d}", 1 if heavy else cfg.repeats,
                            n_min=int(cfg.point.improper_n_min) if heavy else 1,
                            n_jobs=cfg.n_jobs_heavy if heavy else cfg.n_jobs)
            rows.append({"learner": learner, "d": int(d)} | res)
            print(f"point {learner:15s} d={d:3d} n*={res['n_star_repeats']}", flush=True)
    return pd.DataFrame(rows)


def _trials(column: pd.Series) -> list[np.ndarray]:
    return [np.array([float(v) for v in str(r).split(";")]) for r in column]


def slopes_table(cfg, point: pd.DataFrame | None, interval: pd.DataFrame | None,
                 release: pd.DataFrame | None) -> pd.DataFrame:
    """Linear slopes in d with bootstrap 95% CIs over the repeated searches: n*·εα for the POINT_d
    learners and the Laplace release, n* for INTERVAL_d."""
    rng = np.random.default_rng(cfg.seed)
    scale = cfg.eps * cfg.alpha
    rows = []
    if point is not None:
        for learner, g in point.groupby("learner"):
            trials = _trials(g.n_star_repeats)
            if min(len(t) for t in trials) >= 2:
                rows.append(slope_row(f"point {learner}: n*·εα vs d", g.d, [t * scale for t in trials], rng,
                                      log_x=False, log_y=False))
    if interval is not None:
        rows.append(slope_row("interval proper: n* vs d", interval.d, _trials(interval.n_star_repeats), rng,
                              log_x=False, log_y=False))
    if release is not None:
        g = release[release.method == "laplace"]
        rows.append(slope_row("release laplace: n*·εα vs d", g.d, [t * scale for t in _trials(g.n_star_repeats)], rng,
                              log_x=False, log_y=False))
    return pd.DataFrame(rows)


def family_sweep(cfg, store) -> pd.DataFrame:
    """n* per family member; the worst case is the max (``worst_case_sample_complexity`` semantics)."""
    f = cfg.family
    rows = []
    for learner in f.learners:
        for d in (f.improper_d if learner == "improper" else f.d):
            for name in family(int(d), cfg.alpha, f.spread):
                fn = functools.partial(family_trial, learner, int(d), cfg.alpha, cfg.beta, cfg.eps, f.spread, name)
                heavy = learner == "improper"
                n_star = _search(fn, cfg, store, f"family/{learner}/d={d}/{name}", n_min=f.improper_n_min if heavy else 1,
                                 n_jobs=cfg.n_jobs_heavy if heavy else cfg.n_jobs)
                rows.append({"learner": learner, "d": int(d), "distribution": name, "n_star": n_star})
                print(f"family {learner} d={d} {name} n*={n_star}", flush=True)
    table = pd.DataFrame(rows)
    table["worst_case"] = table.groupby(["learner", "d"]).n_star.transform("max") == table.n_star
    return table


def reconstruction_table(cfg, store) -> pd.DataFrame:
    """Failure rate of Thm 5.8's reconstruction vs μ, next to 1 − (1 − 2μ)² (random walk), the spec's
    Catalan bound 2(μ + μ/(1 − μ)) and the paper's 8μ."""
    c = cfg.reconstruction
    rows = []
    for mu in c.mu:
        key = f"reconstruction/T={c.T}/mu={mu}"
        rec = store.get(key)
        if rec is None or rec["trials_requested"] != c.trials:
            values = run_trials(functools.partial(reconstruction_trial, int(c.T), float(mu)), int(c.T),
                                range(c.trials), seed=cfg.seed, n_jobs=cfg.n_jobs)
            rec = {"key": key, "seed": cfg.seed, "trials_requested": c.trials, "values": values}
            store.put(key, rec)
        rate = float(np.mean(rec["values"]))
        rows.append({"mu": mu, "T": c.T, "trials": c.trials, "failure_rate": rate,
                     "exact_random_walk": 1 - (1 - 2 * mu) ** 2, "catalan_bound": 2 * (mu + mu / (1 - mu)),
                     "paper_8mu": 8 * mu})
    return pd.DataFrame(rows)


def seed_sweep(cfg, store) -> pd.DataFrame:
    rows = []
    for ell in cfg.seed_learner.ell:
        fn = functools.partial(seed_trial, int(ell), int(cfg.seed_learner.d), cfg.alpha, cfg.eps)
        n_star = _search(fn, cfg, store, f"seed/d={cfg.seed_learner.d}/ell={ell}")
        exact = evaluate("beimel2014.lemma3.4.exact", d=int(ell), alpha=cfg.alpha, beta=cfg.beta, eps=cfg.eps).value
        rows.append({"ell": int(ell), "d": int(cfg.seed_learner.d), "n_star": n_star,
                     "exact_em_over_2^ell_candidates": exact})
        print(f"seed ell={ell} n*={n_star} exact={exact}", flush=True)
    return pd.DataFrame(rows)


def weight_table(cfg, store) -> pd.DataFrame:
    w = cfg.weights
    rows = []
    for d in w.d:
        key = f"weights/d={d}/n={w.n}"
        rec = store.get(key)
        if rec is None or rec["trials_requested"] != w.trials:
            values = run_trials(functools.partial(weight_trial, int(d), cfg.alpha, cfg.beta, cfg.eps), int(w.n),
                                range(w.trials), seed=cfg.seed, n_jobs=cfg.n_jobs_heavy)
            rec = {"key": key, "seed": cfg.seed, "trials_requested": w.trials, "values": values}
            store.put(key, rec)
        for weight, err in rec["values"]:
            rows.append({"d": int(d), "n": int(w.n), "weight": weight, "error": err})
    return pd.DataFrame(rows)


def plot_seed_and_weights(out: Path, seeds: pd.DataFrame, weights: pd.DataFrame, cfg) -> None:
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4))
    a1.plot(seeds.ell, seeds.n_star, "o-", label=f"n* seed ExpMech, d = {int(seeds.d.iloc[0])} (measured)")
    a1.plot(seeds.ell, seeds["exact_em_over_2^ell_candidates"], "k-.", lw=1,
            label="beimel2014.lemma3.4.exact at d = ℓ")
    a1.set(xlabel="seed length ℓ", ylabel="samples", title="POINT̂_d: inefficient proper learner is Θ(ℓ)")
    a1.legend(fontsize=7)
    ok = weights[weights.weight > 0]
    a2.boxplot([np.log2(g.weight) for _, g in ok.groupby("d")], positions=sorted(ok.d.unique()), widths=1.5)
    ds = np.array(sorted(ok.d.unique()))
    a2.plot(ds, ds + np.log2(cfg.alpha / 64), "k--", lw=1, label="log2(α/64 · 2^d) (flip rate of A1 at α/8)")
    a2.axhline(0, color="C0", lw=1, label="proper learner: weight 1")
    a2.set(xlabel="d", ylabel="log2 |{x : h(x) = 1}|", title="Thm 4.11: boosted A3 outputs are heavy")
    a2.legend(fontsize=7)
    save_figure(fig, out / "seed_and_weights.png")


def plot_reconstruction(out: Path, table: pd.DataFrame) -> None:
    fig, ax = plt.subplots(figsize=(6, 4))
    se = np.sqrt(table.failure_rate * (1 - table.failure_rate) / table.trials)
    ax.errorbar(table.mu, table.failure_rate, yerr=2 * se, fmt="o", label="measured failure rate")
    ax.plot(table.mu, table.exact_random_walk, "-", label="1 − (1 − 2μ)² (random walk, exact for T → ∞)")
    ax.plot(table.mu, table.catalan_bound, "--", color="k", lw=1, label="2(μ + μ/(1 − μ)) (Catalan sum)")
    ax.plot(table.mu, table.paper_8mu, ":", color="k", lw=1, label="8μ (Thm 5.8 proof)")
    ax.set(xlabel="noise rate μ", ylabel="P[reconstruction fails]", title="Thm 5.8: recovering c* from a noisy h")
    ax.legend(fontsize=7)
    save_figure(fig, out / "reconstruction.png")


def point_bounds(cfg) -> pd.DataFrame:
    p = dict(alpha=cfg.alpha, beta=cfg.beta, eps=cfg.eps)
    ds = np.arange(2, max(cfg.point.d) + 1)
    table = {"d": ds}
    for bid in ["beimel2014.lemma3.9", "beimel2014.lemma3.4.exact", "beimel2014.thm4.2.derived"]:
        table[bid] = [evaluate(bid, d=int(d), **p).value for d in ds]
    table["beimel2014.cor3.8"] = [evaluate("beimel2014.cor3.8", d=int(d), beta=cfg.beta, eps=cfg.eps).value for d in ds]
    table["beimel2014.claim4.5"] = evaluate("beimel2014.claim4.5", **p).value
    return pd.DataFrame(table)


def curve_sweep(cfg, store) -> pd.DataFrame:
    rows = []
    for d in cfg.curves.d:
        fn = functools.partial(point_trial, "proper", int(d), cfg.alpha, cfg.beta, cfg.eps)
        for est in success_curve(fn, cfg.curves.n, cfg.alpha, cfg.beta, trials=cfg.curves.trials,
                                 confidence=cfg.confidence, seed=cfg.seed, n_jobs=cfg.n_jobs, store=store,
                                 key=f"curve/proper/d={d}"):
            exact = _exact_success(est.n, int(d), cfg.alpha, cfg.eps)
            rows.append({"d": int(d), "n": est.n, "successes": est.successes, "trials": est.trials,
                         "rate": est.rate, "cp_lower": est.lower, "exact": exact})
    return pd.DataFrame(rows)


def _exact_success(m: int, d: int, alpha: float, eps: float) -> float:
    """Spec: Σ_K Bin(K; m, α)/(1 + e^{−εm/2} + (T − 2)e^{−εK/2}) for Lemma 3.4's learner on D_i."""
    K = np.arange(m + 1)
    return float(np.sum(stats.binom.pmf(K, m, alpha) / (1 + np.exp(-eps * m / 2) + (2.0**d - 2) * np.exp(-eps * K / 2))))


def interval_sweep(cfg, store) -> pd.DataFrame:
    rows = []
    for d in cfg.interval.d:
        fn = functools.partial(interval_trial, int(d), cfg.alpha, cfg.eps)
        res = _repeated(fn, cfg, store, f"interval/d={d}", cfg.repeats)
        bound = evaluate("beimel2014.lemma5.2", d=int(d), beta=cfg.beta, eps=cfg.eps).value
        rows.append({"d": int(d)} | res | {"beimel2014.lemma5.2": bound})
        print(f"interval d={d:3d} n*={res['n_star_repeats']} lemma5.2={bound:.1f}", flush=True)
    return pd.DataFrame(rows)


def release_sweep(cfg, store) -> pd.DataFrame:
    rows = []
    for method, ds in [("laplace", cfg.release.laplace_d), ("blr", cfg.release.blr_d)]:
        for d in ds:
            fn = functools.partial(release_trial, method, int(d), cfg.alpha, cfg.eps, int(cfg.release.n_hat))
            res = _repeated(fn, cfg, store, f"release/{method}/d={d}", 1 if method == "blr" else cfg.repeats,
                            n_jobs=cfg.n_jobs_heavy if method == "blr" else cfg.n_jobs)
            rows.append({"method": method, "d": int(d)} | res)
            print(f"release {method} d={d} n*={res['n_star_repeats']}", flush=True)
    return pd.DataFrame(rows)


def release_bounds(cfg) -> pd.DataFrame:
    p = dict(alpha=cfg.alpha, beta=cfg.beta, eps=cfg.eps)
    ds = np.arange(1, max(cfg.release.laplace_d) + 1)
    return pd.DataFrame({"d": ds, **{bid: [evaluate(bid, d=int(d), **p).value for d in ds]
                                     for bid in ["beimel2014.thm7.2", "beimel2014.thm7.1", "beimel2014.laplace_histogram"]}})


# ------------------------------------------------------------------ exact DP audits
def _split(db):
    return np.array([e[0] for e in db]), np.array([e[1] for e in db], dtype=bool)


def audit_table(cfg) -> pd.DataFrame:
    """Exact max privacy-loss over all neighbouring databases of size m on tiny domains."""
    a = cfg.audit
    lab = lambda T: [(x, y) for x in range(T) for y in (0, 1)]  # noqa: E731
    sel3 = B.lemma4_4_rate(a.eps) * a.alpha / 4
    cases = [
        ("point ExpMech (Lemma 3.4)", a.eps, lambda db: B.point_em_probabilities(*_split(db), 4, a.eps), lab(4), 3),
        ("interval ExpMech", a.eps, lambda db: B.interval_em_probabilities(*_split(db), 3, a.eps), lab(3), 3),
        ("A2 (Claim 4.3)", B.LN4, lambda db: B.a2_output_distribution(*_split(db), 3, a.alpha, a.alpha / 4), lab(3), 4),
        ("A3 = Lemma 4.4(A2)", a.eps, lambda db: B.a2_output_distribution(*_split(db), 3, a.alpha, sel3), lab(3), 4),
        ("BLR (n_hat=3)", a.eps, lambda db: B.blr_probabilities(np.array(db), 3, 3, a.eps)[1], [0, 1, 2], 3),
    ]
    rows = []
    for name, claimed, law, alphabet, m in cases:
        res = exact_audit(law, alphabet, m)
        rows.append({"mechanism": name, "claimed_eps": claimed, "measured_max_log_ratio": res.eps_max,
                     "neighbouring_pairs": res.pairs, "m": m, "passes": res.passes(claimed)})
        print(rows[-1], flush=True)
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ figures
_STYLE = {"proper": ("C0", "o"), "representation": ("C1", "s"), "improper": ("C2", "^"), "nonprivate": ("C7", "x")}


def plot_point(out: Path, nstar: pd.DataFrame, bounds: pd.DataFrame, cfg) -> None:
    fig, ax = plt.subplots(figsize=(7, 4.8))
    for learner, g in nstar.groupby("learner"):
        c, mk = _STYLE[learner]
        ax.plot(g.d, g.n_star_mean, marker=mk, color=c, label=f"n* {learner} (measured, mean of repeats)")
    for bid, ls, what in [("beimel2014.cor3.8", ":", "proper LB"), ("beimel2014.lemma3.9", "--", "proper LB"),
                          ("beimel2014.lemma3.4.exact", "-.", "exact n* of proper ExpMech"),
                          ("beimel2014.thm4.2.derived", (0, (5, 1)), "representation UB, derived"),
                          ("beimel2014.claim4.5", (0, (1, 3)), "boosted A3 UB")]:
        ax.plot(bounds.d, bounds[bid], ls=ls, color="k", alpha=0.6, lw=1, label=f"{bid} ({what})")
    ax.set(yscale="log", xlabel="d  (T = 2^d)", ylabel="samples",
           title=f"POINT_d: proper vs improper (α={cfg.alpha}, β={cfg.beta}, ε={cfg.eps})")
    ax.legend(fontsize=7, ncol=2)
    save_figure(fig, out / "point_nstar.png")

    fig, ax = plt.subplots(figsize=(6, 4))
    scale = cfg.eps * cfg.alpha
    for learner, g in nstar.groupby("learner"):
        c, mk = _STYLE[learner]
        ax.plot(g.d, g.n_star_mean * scale, marker=mk, color=c, label=learner)
    ax.plot(bounds.d, bounds["beimel2014.lemma3.9"] * scale, "k--", lw=1, label="Lemma 3.9 · εα")
    ax.plot(bounds.d, bounds["beimel2014.lemma3.4.exact"] * scale, "k-.", lw=1, label="exact Lemma 3.4 n* · εα")
    ax.set(xlabel="d", ylabel="n*·εα", title="slopes in d: proper ≈ 2 ln 2, Lemma 3.9 ≈ ln2/4", yscale="log")
    ax.legend(fontsize=7)
    save_figure(fig, out / "point_slope.png")


def plot_curves(out: Path, curves: pd.DataFrame) -> None:
    fig, ax = plt.subplots(figsize=(6, 4))
    for k, (d, g) in enumerate(curves.groupby("d")):
        se = np.sqrt(g.rate * (1 - g.rate) / g.trials)
        ax.errorbar(g.n, g.rate, yerr=2 * se, fmt="o", color=f"C{k}", ms=3, label=f"d={d} measured ŝ(n)")
        ax.plot(g.n, g.exact, "-", color=f"C{k}", lw=1, label=f"d={d} exact success probability")
    ax.set(xscale="log", xlabel="n", ylabel="P[error < α]", title="Lemma 3.4 learner on D_i")
    ax.legend(fontsize=7)
    save_figure(fig, out / "success_curves.png")


def plot_interval(out: Path, table: pd.DataFrame) -> None:
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(table.d, table.n_star_mean, "o-", label="n* proper INTERVAL_d (measured, mean of repeats)")
    ax.plot(table.d, table["beimel2014.lemma5.2"], "k--", label="Lemma 5.2 lower bound")
    ax.set(xlabel="d", ylabel="samples", title="INTERVAL_d proper learning")
    ax.legend(fontsize=8)
    save_figure(fig, out / "interval_nstar.png")


def plot_release(out: Path, table: pd.DataFrame, bounds: pd.DataFrame) -> dict:
    """Measured release sizes, the explicit bounds as computed, Thm 7.1's O(·) shape with its constant
    fitted to the Laplace release (the algorithm it describes); returns that fit."""
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for k, (method, g) in enumerate(table.groupby("method")):
        ax.plot(g.d, g.n_star_mean, "o-", color=f"C{k}", label=f"n* {method} (measured)")
    for bid, ls in [("beimel2014.thm7.2", "--"), ("beimel2014.laplace_histogram", "-.")]:
        bound_curve(ax, bounds.d, bounds[bid], bid, color="k", lw=1, ls=ls)
    lap = table[table.method == "laplace"].set_index("d").n_star_mean
    measured = [lap.get(d, np.nan) for d in bounds.d]
    fit = bound_curve(ax, bounds.d, bounds["beimel2014.thm7.1"], "beimel2014.thm7.1", measured, color="k", lw=1, ls=":")
    ax.set(yscale="log", xlabel="d", ylabel="database size m", title="POINT_d data release")
    ax.legend(fontsize=7)
    save_figure(fig, out / "release_nstar.png")
    return fit


@register("beimel2014", parts=("point", "curves", "interval", "release", "audit", "family", "reconstruction", "seed"))
def run(cfg) -> None:
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    store = RecordStore(out / "records")
    parts = set(cfg.parts)
    nstar = interval = release = None
    plan([p for p in ('point', 'curves', 'interval', 'family', 'reconstruction', 'seed', 'audit', 'release') if p in parts])
    if "point" in parts:
        with part("point"):
            nstar, bounds = point_sweep(cfg, store), point_bounds(cfg)
            nstar.to_csv(out / "point_nstar.csv", index=False)
            bounds.to_csv(out / "point_bounds.csv", index=False)
            plot_point(out, nstar, bounds, cfg)
    if "curves" in parts:
        with part("curves"):
            curves = curve_sweep(cfg, store)
            curves.to_csv(out / "success_curves.csv", index=False)
            plot_curves(out, curves)
    if "interval" in parts:
        with part("interval"):
            interval = interval_sweep(cfg, store)
            interval.to_csv(out / "interval_nstar.csv", index=False)
            plot_interval(out, interval)
    if "family" in parts:
        with part("family"):
            family_sweep(cfg, store).to_csv(out / "family_nstar.csv", index=False)
    if "reconstruction" in parts:
        with part("reconstruction"):
            table = reconstruction_table(cfg, store)
            table.to_csv(out / "reconstruction.csv", index=False)
            plot_reconstruction(out, table)
    if "seed" in parts:
        with part("seed"):
            seeds, weights = seed_sweep(cfg, store), weight_table(cfg, store)
            seeds.to_csv(out / "seed_nstar.csv", index=False)
            weights.to_csv(out / "weights.csv", index=False)
            plot_seed_and_weights(out, seeds, weights, cfg)
    if "audit" in parts:
        with part("audit"):
            audit_table(cfg).to_csv(out / "audits.csv", index=False)
    if "release" in parts:
        with part("release"):
            release, bounds = release_sweep(cfg, store), release_bounds(cfg)
            release.to_csv(out / "release_nstar.csv", index=False)
            bounds.to_csv(out / "release_bounds.csv", index=False)
            pd.DataFrame([plot_release(out, release, bounds)]).to_csv(out / "bound_fits.csv", index=False)
    if nstar is not None or interval is not None or release is not None:
        slopes_table(cfg, nstar, interval, release).to_csv(out / "slopes.csv", index=False)
