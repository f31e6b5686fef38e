"""Bassily et al. 2020 theory experiments: APAP vs private-only PMW as N grows; stumps.

Sections (resumable through ``RecordStore`` records under ``<out>/records``):
- ``apap``: empirical n*(α, β) of APAP (m public draws, PMW on the representative domain) and of
  private-only PMW (all N cells, all N + 1 thresholds) for thresholds on [N], D = ⌊N·Beta(a,b)⌋,
  success = Err_{D,H}(G) ≤ α on the ±1 scale over ALL thresholds (exact).  Figure: n* vs log2 N
  with Lemma 7's explicit private-only PMW bound and the explicit Thm 10 chain.
- ``stumps``: S_p on {±1}^p with independent coordinates: n* of the Gaussian mechanism and of PMW
  (no public data) and the public-only m* against p, with Thm 13's √p/α and the public-only bound.
- ``regime``: private-only PMW at fixed n against N: the update budget c, the sparse vector's
  false-⊤ probability, how far the first pass gets (``reach``) and the error on the thresholds
  it reached and on those it never tested — the cause of the jump in private-only n*.
- ``apap_p``: APAP on S_p (dual VC dimension p) at fixed n against p, with Thm 10's shape.
- ``dichotomy``: Thm 13 with both kinds of data: the private n* of the mixed S_p release against
  the public size m, for several p.

    python -m experiments.theory.bassily2020 [experiment.key=value ...]
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from omegaconf import DictConfig

from experiments.theory.runner import register, save_figure, seeded_rng, write_summary
from pubpriv_core.bounds import evaluate
from experiments.theory.progress import part, plan
from pubpriv_core.learning import RecordStore, empirical_sample_complexity
from pubpriv_core.learning import bassily2020 as bc
from pubpriv_core.learning.slopes import bootstrap_slope, fit_constant


@dataclass(frozen=True)
class ThresholdTrial:
    """trial(n, rng) → ±1-scale error of APAP (``m > 0``) or private-only PMW (``m == 0``)."""

    N: int
    m: int
    alpha: float
    eps: float
    delta: float
    a: float
    b: float

    def __call__(self, n: int, rng: np.random.Generator) -> float:
        dist = bc.DiscretizedBeta(self.N, self.a, self.b)
        if self.m > 0:
            return bc.apap_thresholds(dist, n, self.m, self.alpha, self.eps, self.delta, rng).err
        return bc.private_pmw_thresholds(dist, n, self.alpha, self.eps, self.delta, rng).err


@dataclass(frozen=True)
class StumpTrial:
    """trial(size, rng) → ±1-scale error of a stump release ('gaussian', 'pmw' or 'public')."""

    method: str
    p: int
    alpha: float
    eps: float
    delta: float
    seed: int
    m: int = 0              # public draws of 'apap' and 'mixed'

    def mu(self) -> np.ndarray:
        return np.random.default_rng(self.seed).uniform(-0.8, 0.8, self.p)

    def __call__(self, size: int, rng: np.random.Generator) -> float:
        if self.method == "gaussian":
            return bc.stumps_gaussian(self.mu(), size, self.eps, self.delta, rng)
        if self.method in ("pmw", "apap"):
            m = self.m if self.method == "apap" else 0
            return bc.stumps_pmw(self.mu(), size, m, self.alpha, self.eps, self.delta, rng).err
        if self.method == "mixed":
            return bc.stumps_mixed(self.mu(), size, self.m, self.eps, self.delta, rng)
        return bc.stumps_public_only(self.mu(), size, rng)


def _n_star(trial, cfg, store, key: str, n_min: int):
    res = empirical_sample_complexity(trial, cfg.alpha, cfg.beta, trials=cfg.trials, n_min=n_min,
                                      rel_tol=cfg.rel_tol, seed=cfg.seed, n_jobs=cfg.n_jobs,
                                      store=store, key=key)
    print(f"[bassily2020] {key}: n*={res.n_star}", flush=True)
    return res.n_star


def apap_sweep(cfg, out: Path) -> pd.DataFrame:
    store = RecordStore(out / "records")
    rows = []
    for alg, Ns, m in (("private_pmw", cfg.apap.N_private, 0), ("apap", cfg.apap.N_apap, cfg.apap.m)):
        for logN in Ns:
            trial = ThresholdTrial(2 ** int(logN), int(m), cfg.alpha, cfg.eps, cfg.delta,
                                   cfg.apap.beta_a, cfg.apap.beta_b)
            n_star = _n_star(trial, cfg, store, f"apap/{alg}/logN={int(logN)}", int(cfg.apap.n_min))
            rows.append({"alg": alg, "log2N": int(logN), "m": int(m), "n_star": n_star,
                         **_apap_bounds(cfg, alg, 2 ** int(logN)),
                         **(_apap_split(cfg, store, int(logN), n_star) if m > 0 and n_star else {})})
    df = pd.DataFrame(rows)
    df.to_csv(out / "apap_vs_N.csv", index=False)
    return df


def _apap_split(cfg, store: RecordStore, logN: int, n: int) -> dict:
    """APAP's ±1 error at n* split into the cover part (answering with the exact F at the
    projection) and the total, mean over ``cfg.trials`` runs (one record)."""
    key = f"apap_split/logN={logN}/n={n}"
    rec = store.get(key)
    if rec is None:
        dist = bc.DiscretizedBeta(2 ** logN, cfg.apap.beta_a, cfg.apap.beta_b)
        runs = [bc.apap_thresholds(dist, n, int(cfg.apap.m), cfg.alpha, cfg.eps, cfg.delta,
                                   seeded_rng(cfg, 7, logN, i))
                for i in range(cfg.trials)]
        rec = {"cover_err": [r.cover_err for r in runs], "err": [r.err for r in runs],
               "domain_size": [r.domain_size for r in runs]}
        store.put(key, rec)
    return {"cover_err_mean": float(np.mean(rec["cover_err"])), "err_at_nstar_mean": float(np.mean(rec["err"])),
            "rep_domain_size_mean": float(np.mean(rec["domain_size"]))}


def _apap_bounds(cfg, alg: str, N: int) -> dict:
    """Lemma 7 for the PMW actually run (|X̃| = N, |H̃| = N + 1 for private-only) and the
    explicit Thm 10 chain (d = p = 1) for APAP; both on the paper's (α, β, ε, δ)."""
    from pubpriv_core.bounds import evaluate

    common = {"alpha": cfg.alpha, "beta": cfg.beta, "eps": cfg.eps, "delta": cfg.delta}
    if alg == "private_pmw":
        return {"bound": "bassily2020.lemma7",
                "bound_n": evaluate("bassily2020.lemma7", X_size=N, H_size=N + 1, **common).value}
    return {"bound": "bassily2020.thm10.explicit.n",
            "bound_n": evaluate("bassily2020.thm10.explicit.n", d=1, p=1, **common).value}


def stumps_sweep(cfg, out: Path) -> pd.DataFrame:
    store = RecordStore(out / "records")
    rows = []
    for method in ("gaussian", "pmw", "public"):
        for p in cfg.stumps.p[method]:
            trial = StumpTrial(method, int(p), cfg.alpha, cfg.eps, cfg.delta, int(cfg.seed))
            size = _n_star(trial, cfg, store, f"stumps/{method}/p={int(p)}", int(cfg.stumps.n_min[method]))
            rows.append({"method": method, "p": int(p), "size_star": size, **_stump_bounds(cfg, int(p))})
    df = pd.DataFrame(rows)
    df.to_csv(out / "stumps_vs_p.csv", index=False)
    return df


def _stump_bounds(cfg, p: int) -> dict:
    from pubpriv_core.bounds import evaluate

    return {"thm13_n_shape": evaluate("bassily2020.thm13.n", p=p, alpha=cfg.alpha).value,
            "public_only_bound": evaluate("bassily2020.stumps.public", p=p, alpha=cfg.alpha,
                                          beta=cfg.beta).value}


def fit_slope(x, y) -> float:
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(y) & (y > 0)
    return float(np.polyfit(x[ok], y[ok], 1)[0]) if ok.sum() >= 2 else float("nan")


def summarize(apap: pd.DataFrame, stumps: pd.DataFrame) -> dict:
    """Least-squares growth of n*: log n* against log log2 N and against log p. One n* per point
    (a search, not trials), so these slopes carry no confidence interval."""
    out = {}
    for alg, g in apap.groupby("alg"):
        g = g.dropna(subset=["n_star"])
        out[f"{alg}_log_nstar_vs_log_log2N"] = fit_slope(np.log(g.log2N), np.log(g.n_star))
        out[f"{alg}_nstar_range"] = [float(g.n_star.min()), float(g.n_star.max())]
    for method, g in stumps.groupby("method"):
        g = g.dropna(subset=["size_star"])
        out[f"stumps_{method}_log_size_vs_log_p"] = fit_slope(np.log(g.p), np.log(g.size_star))
    return out


def plot(apap: pd.DataFrame, stumps: pd.DataFrame, cfg, out: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.3))
    for (alg, g), color in zip(apap.groupby("alg"), ("C0", "C1")):
        g = g.sort_values("log2N")
        ax.semilogy(g.log2N, g.n_star, "o-", color=color, label=f"{alg}: measured n*")
        ax.semilogy(g.log2N, g.bound_n, "--", color=color, alpha=0.6, label=f"{g.bound.iloc[0]} (explicit)")
    ax.set_xlabel("log2 N (grid size of the threshold class)")
    ax.set_ylabel(f"private n*(α={cfg.alpha}, β={cfg.beta})")
    ax.set_title(f"APAP (m={cfg.apap.m} public) vs private-only PMW, ε={cfg.eps}, δ={cfg.delta}", fontsize=9)
    ax.legend(fontsize=7)
    for (method, g), color in zip(stumps.groupby("method"), ("C0", "C1", "C2")):
        g = g.sort_values("p")
        kind = "public m*" if method == "public" else "private n*"
        bx.loglog(g.p, g.size_star, "o-", color=color, label=f"{method}: {kind}")
    g = stumps[stumps.method == "gaussian"].sort_values("p")
    ok = g.dropna(subset=["size_star"])
    if len(ok):
        fit = fit_constant(ok.thm13_n_shape, ok.size_star)
        bx.loglog(g.p, g.thm13_n_shape * fit.c, "k--", lw=0.8, label=f"Thm 13 √p/α shape, {fit.text()}")
    bx.loglog(g.p, g.public_only_bound, "C2:", label="public-only bound (explicit, derived)")
    bx.set_xlabel("p (decision stumps on {±1}^p)")
    bx.set_ylabel("sample size for ±1 error ≤ α")
    bx.set_title("decision stumps S_p", fontsize=9)
    bx.legend(fontsize=7)
    save_figure(fig, out / "fig_apap_and_stumps.png")


def _cached(store: RecordStore, key: str, fn) -> dict:
    rec = store.get(key)
    if rec is None:
        rec = fn()
        store.put(key, rec)
    return rec


def regime_trial(cfg, logN: int, n: int, r: int) -> dict:
    """One private-only PMW run at (N, n): error, reach of the sparse vector, passes."""
    dist = bc.DiscretizedBeta(2 ** logN, cfg.apap.beta_a, cfg.apap.beta_b)
    run = bc.private_pmw_thresholds(dist, n, cfg.alpha, cfg.eps, cfg.delta, seeded_rng(cfg, 11, logN, n, r))
    return {"err": run.err, "reach": run.reach, "passes": run.passes, "halted": run.halted,
            "updates": run.updates, "err_beyond_reach": run.err_beyond_reach}


def regime_sweep(cfg, out: Path) -> pd.DataFrame:
    """Private-only PMW at fixed n against N (``cfg.regime``): per (N, n) the budget c, the
    false-⊤ probability P0 of one exactly answered query, P0·(N + 1) (false ⊤ per full pass),
    and over the trials the success rate, the error, the share of thresholds the sparse vector
    reached and the error on those it never tested."""
    store = RecordStore(out / "records")
    rows = []
    for n in cfg.regime.n:
        for logN in cfg.regime.log2N:
            recs = Parallel(n_jobs=cfg.n_jobs)(delayed(_cached)(
                store, f"regime/logN={int(logN)}/n={int(n)}/r={r}",
                lambda r=r: regime_trial(cfg, int(logN), int(n), r)) for r in range(cfg.regime.trials))
            params = bc.PMWParams(cfg.alpha, cfg.eps, cfg.delta, 2 ** int(logN), int(n))
            p0 = bc.false_top_probability(params)
            g = pd.DataFrame(recs)
            rows.append({"log2N": int(logN), "n": int(n), "c": params.c, "sigma_test": params.sigma_test,
                         "threshold": 3 * params.a / 4, "p_false_top": p0,
                         "false_top_per_pass_over_c": p0 * (2 ** int(logN) + 1) / params.c,
                         "trials": len(g), "success_rate": float((g.err <= cfg.alpha).mean()),
                         "err_mean": g.err.mean(), "reach_share": float((g.reach / (2 ** int(logN) + 1)).mean()),
                         "passes_mean": g.passes.mean(), "halted_share": float(g.halted.mean()),
                         "err_beyond_reach_mean": g.err_beyond_reach.mean()})
    df = pd.DataFrame(rows)
    df.to_csv(out / "private_pmw_regime.csv", index=False)
    return df


def _thm10_alpha(cfg, p: int, n: int) -> float:
    """The α at which Thm 10's shape (c = 1) needs exactly n private samples on S_p
    (d = ⌊log2 p⌋, VC* = p): the shape of APAP's error at fixed n against p."""
    from scipy.optimize import brentq

    d = max(1, int(np.floor(np.log2(p))))
    need = lambda a: evaluate("bassily2020.thm10.n", d=d, p=p, alpha=a, beta=cfg.beta, eps=cfg.eps,
                              delta=cfg.delta).value
    return float(brentq(lambda a: np.log(need(a)) - np.log(n), 1e-6, 0.999))


def apap_p_sweep(cfg, out: Path, rng: np.random.Generator) -> tuple[pd.DataFrame, dict]:
    """APAP on S_p with m public draws at fixed n, ``trials`` runs per p: ±1 error against p,
    its bootstrap slope and Thm 10's shape with a fitted constant."""
    store = RecordStore(out / "records")
    a = cfg.apap_p
    rows, y_trials = [], []
    for p in a.p:
        trial = StumpTrial("apap", int(p), cfg.alpha, cfg.eps, cfg.delta, int(cfg.seed), int(a.m))
        recs = Parallel(n_jobs=cfg.n_jobs)(delayed(_cached)(
            store, f"apap_p/p={int(p)}/m={int(a.m)}/n={int(a.n)}/r={r}",
            lambda r=r: {"err": trial(int(a.n), seeded_rng(cfg, 12, p, a.n, r))}) for r in range(a.trials))
        errs = np.array([rec["err"] for rec in recs])
        y_trials.append(errs)
        rows.append({"p": int(p), "m": int(a.m), "n": int(a.n), "trials": len(errs), "err_mean": errs.mean(),
                     "err_sd": errs.std(ddof=1), "success_rate": float((errs <= cfg.alpha).mean()),
                     "thm10_alpha_shape": _thm10_alpha(cfg, int(p), int(a.n))})
    df = pd.DataFrame(rows)
    fit = fit_constant(df.thm10_alpha_shape, df.err_mean)
    df["thm10_alpha_fitted"] = fit.c * df.thm10_alpha_shape
    df.to_csv(out / "apap_vs_p.csv", index=False)
    slope = bootstrap_slope(df.p, y_trials, rng=rng)
    shape_slope = float(np.polyfit(np.log(df.p), np.log(df.thm10_alpha_shape), 1)[0])
    return df, {"slope_log_err_vs_log_p": slope.__dict__, "text": slope.text(),
                "thm10_shape_slope": shape_slope, "thm10_fit": fit.__dict__, "thm10_fit_text": fit.text()}


def dichotomy_sweep(cfg, out: Path) -> pd.DataFrame:
    """Thm 13 with mixed data: private n* of the S_p release that combines n private and m public
    draws, against m, for each p; public-only m* and √p/α beside it."""
    store = RecordStore(out / "records")
    rows = []
    for p in cfg.dichotomy.p:
        public = StumpTrial("public", int(p), cfg.alpha, cfg.eps, cfg.delta, int(cfg.seed))
        m_star = _n_star(public, cfg, store, f"stumps/public/p={int(p)}", 1)
        for m in cfg.dichotomy.m:
            trial = StumpTrial("mixed", int(p), cfg.alpha, cfg.eps, cfg.delta, int(cfg.seed), int(m))
            n_star = _n_star(trial, cfg, store, f"dichotomy/p={int(p)}/m={int(m)}", 1)
            rows.append({"p": int(p), "m": int(m), "n_star": n_star, "public_only_m_star": m_star,
                         "sqrt_p_over_alpha": float(np.sqrt(p) / cfg.alpha),
                         "one_over_alpha_sq": float(1 / cfg.alpha ** 2)})
    df = pd.DataFrame(rows)
    df.to_csv(out / "dichotomy.csv", index=False)
    return df


def plot_extra(regime: pd.DataFrame, apap_p: pd.DataFrame, dich: pd.DataFrame, fits: dict, cfg,
               out: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, bx, cx) = plt.subplots(1, 3, figsize=(15, 4.3))
    for i, (n, g) in enumerate(regime.groupby("n")):
        g = g.sort_values("log2N")
        ax.plot(g.log2N, g.err_mean, "o-", color=f"C{i}", label=f"n={n}: mean ±1 error")
        ax.plot(g.log2N, g.reach_share, "s:", color=f"C{i}", mfc="none", label=f"n={n}: share of thresholds reached")
    ax.axhline(cfg.alpha, color="k", lw=0.8, ls="--", label=f"α = {cfg.alpha}")
    ax.set_xlabel("log2 N")
    ax.set_title("private-only PMW: error and sparse-vector reach", fontsize=9)
    ax.legend(fontsize=6)
    bx.loglog(apap_p.p, apap_p.err_mean, "o-", label=f"APAP on S_p, m={int(apap_p.m.iloc[0])}, n={int(apap_p.n.iloc[0])}")
    bx.loglog(apap_p.p, apap_p.thm10_alpha_fitted, "k--", lw=0.8,
              label=f"Thm 10 shape, {fits['thm10_fit_text']}")
    bx.set_xlabel("p (dual VC dimension of S_p)")
    bx.set_ylabel("±1 error (mean over trials)")
    bx.set_title(f"APAP vs p: {fits['text']}", fontsize=7)
    bx.legend(fontsize=6)
    for i, (p, g) in enumerate(dich.groupby("p")):
        g = g.sort_values("m")
        cx.plot(g.m, g.n_star, "o-", color=f"C{i}", label=f"p={p}: private n*(m)")
        cx.axhline(np.sqrt(p) / cfg.alpha, color=f"C{i}", lw=0.8, ls=":", label=f"√p/α = {np.sqrt(p) / cfg.alpha:.0f}")
        cx.axvline(g.public_only_m_star.iloc[0], color=f"C{i}", lw=0.8, ls="--", label=f"public-only m* = {g.public_only_m_star.iloc[0]}")
    cx.set_yscale("symlog", linthresh=10)
    cx.set_xlabel("public draws m")
    cx.set_ylabel("private n* for ±1 error ≤ α")
    cx.set_title("Thm 13 with mixed data (S_p)", fontsize=9)
    cx.legend(fontsize=6)
    save_figure(fig, out / "fig_regime_p_dichotomy.png")


@register("bassily2020")
def run(cfg: DictConfig) -> None:
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    plan(["stumps", "apap", "regime", "apap_p", "dichotomy"])
    with part("stumps"):
        stumps = stumps_sweep(cfg, out)
    with part("apap"):
        apap = apap_sweep(cfg, out)
    plot(apap, stumps, cfg, out)
    summary = summarize(apap, stumps)
    with part("regime"):
        regime = regime_sweep(cfg, out)
    with part("apap_p"):
        apap_p, fits = apap_p_sweep(cfg, out, seeded_rng(cfg, 13))
    with part("dichotomy"):
        dich = dichotomy_sweep(cfg, out)
    plot_extra(regime, apap_p, dich, fits, cfg, out)
    write_summary(out, {**summary, "apap_vs_p": fits})


if __name__ == "__main__":
    import sys

    from experiments.theory.runner import compose

    run(compose(["experiment=theory_bassily2020", *sys.argv[1:]]).experiment)
