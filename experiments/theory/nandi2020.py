"""Nandi & Bassily 2020 theory experiments: PCQR sample complexity against m.

Sections (each resumable through ``RecordStore`` records under ``<out>/records``):
- ``pcqr``: empirical n*(α, β) of A_AgPrivCl (scaled mode) and of the BTT18 baseline as the number
  of queries m grows; success = average error over the m queries ≤ α + γ (Def 2.2).  Figure P1:
  log-log n* vs m with the regime marks m = 1/α and m = 1/α³ and the registered bound shapes.
  The error of a run is its *expected* average error given the answers, η + (1 − 2η)·(fraction of
  answers ≠ h*(x̃)): the query labels ỹ are integrated out exactly, so small m is not penalised by
  label sampling noise (which the paper's condition m ≥ 8·log(1/(αβ))/α exists to absorb).
- ``literal``: paper-literal parameters and the explicit Thm 3.3 sample size with a feasibility
  verdict (spec mode (a)).
- ``universal``: A_UnvPrivCl's error over both phases (AgPrivCl, then A_SSPP) for several n.
- ``noise``: average error against the label noise γ at fixed (m, n), next to α + γ and α + 3γ.

    python -m experiments.theory.nandi2020 [experiment.key=value ...]   (or experiments.theory experiment=theory_nandi2020)
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from omegaconf import DictConfig

from experiments.theory.runner import register, write_summary
from pubpriv_core.learning import RecordStore, empirical_sample_complexity, run_trials
from pubpriv_core.learning import nandi2020 as nb


@dataclass(frozen=True)
class PCQRTrial:
    """Shared setting of the PCQR trials: the task, m queries, (ε, δ, α, β) and the chunk size."""

    task: nb.NoisyThreshold
    m: int
    eps: float
    delta: float
    alpha: float
    beta: float
    chunk: int


class AgPrivClTrial(PCQRTrial):
    """trial(n, rng) → average error of A_AgPrivCl on m queries with private size n (n' = εn/56)."""

    def __call__(self, n: int, rng: np.random.Generator) -> float:
        params = nb.AgPrivClParams(self.m, self.eps, self.delta, self.alpha, self.beta)
        n_prime = max(params.n_prime(n), self.chunk)
        return nb.ag_priv_cl(self.task, n_prime, params, self.chunk, rng).expected_error


class BTT18Trial(PCQRTrial):
    """trial(n, rng) → average error of the BTT18 A_SubSamp baseline with n agnostic samples."""

    def __call__(self, n: int, rng: np.random.Generator) -> float:
        return nb.btt18_subsamp(self.task, max(n, self.chunk), self.m, self.eps, self.delta,
                                self.alpha, self.beta, self.chunk, rng).expected_error


def _start(alg: str, cfg, m: int) -> int:
    """Doubling start: half the size at which k equals w (no run below it can be stable)."""
    if alg == "agprivcl":
        p = nb.AgPrivClParams(m, cfg.eps, cfg.delta, cfg.alpha, cfg.beta)
        return max(1, p.n_from_prime(int(0.5 * p.subsamp.w * cfg.chunk.agprivcl)))
    sp = nb.SubSampParams(m, nb.btt18_T(m, cfg.alpha, cfg.eta, cfg.beta), cfg.eps, cfg.delta, cfg.beta)
    return max(1, int(0.5 * sp.w * cfg.chunk.btt18))


def pcqr_sweep(cfg, out: Path) -> pd.DataFrame:
    """n*(α, β) for each algorithm and m of ``cfg.ms``; one CSV row each."""
    task = nb.NoisyThreshold(cfg.t_star, cfg.eta)
    store = RecordStore(out / "records")
    rows = []
    for alg, trial_cls in (("agprivcl", AgPrivClTrial), ("btt18", BTT18Trial)):
        for m in cfg.ms:
            trial = trial_cls(task, int(m), cfg.eps, cfg.delta, cfg.alpha, cfg.beta, int(cfg.chunk[alg]))
            res = empirical_sample_complexity(
                trial, cfg.alpha + task.gamma, cfg.beta, trials=cfg.trials, n_min=_start(alg, cfg, int(m)),
                rel_tol=cfg.rel_tol, seed=cfg.seed, n_jobs=cfg.n_jobs, store=store,
                key=f"pcqr/{alg}/m={int(m)}")
            rows.append({"alg": alg, "m": int(m), "n_star": res.n_star, "evaluations": len(res.evaluations),
                         **_alg_params(alg, cfg, int(m))})
            print(f"[nandi2020] {alg} m={m}: n*={res.n_star}", flush=True)
    df = add_bounds(pd.DataFrame(rows), cfg)
    df.to_csv(out / "pcqr_n_vs_m.csv", index=False)
    return df


def _alg_params(alg: str, cfg, m: int) -> dict:
    if alg == "agprivcl":
        p = nb.AgPrivClParams(m, cfg.eps, cfg.delta, cfg.alpha, cfg.beta)
        sp = p.subsamp
        return {"T": sp.T, "eps_run": sp.eps, "delta_run": sp.delta, "lam": sp.lam, "w": sp.w,
                "chunk": int(cfg.chunk.agprivcl)}
    sp = nb.SubSampParams(m, nb.btt18_T(m, cfg.alpha, cfg.eta, cfg.beta), cfg.eps, cfg.delta, cfg.beta)
    return {"T": sp.T, "eps_run": sp.eps, "delta_run": sp.delta, "lam": sp.lam, "w": sp.w,
            "chunk": int(cfg.chunk.btt18)}


def fit_slope(m, n) -> float:
    """Least-squares slope of log n against log m (NaN with fewer than two points)."""
    m, n = np.asarray(m, float), np.asarray(n, float)
    ok = np.isfinite(n) & (n > 0)
    return float(np.polyfit(np.log(m[ok]), np.log(n[ok]), 1)[0]) if ok.sum() >= 2 else float("nan")


def slopes(df: pd.DataFrame, alpha: float) -> dict:
    """Fitted log-log slopes in the regimes of the '≈' forms: [1/α, 1/α³] and [1/α³, ∞)."""
    lo, hi = 1 / alpha, 1 / alpha ** 3
    out = {}
    for alg, g in df.groupby("alg"):
        g = g.dropna(subset=["n_star"])
        mid, top = g[(g.m >= lo) & (g.m <= hi)], g[g.m >= hi]
        out[alg] = {"slope_1/a_to_1/a3": fit_slope(mid.m, mid.n_star),
                    "slope_above_1/a3": fit_slope(top.m, top.n_star)}
    both = df.pivot(index="m", columns="alg", values="n_star").dropna()
    out["ratio_agprivcl_over_btt18"] = {int(m): float(r) for m, r in
                                        (both["agprivcl"] / both["btt18"]).items()}
    return out


def bound_value(bound_id: str, cfg, m: int) -> float:
    """A registered bound at the run's parameters (d = 1); NaN where its hypotheses fail."""
    from pubpriv_core.bounds import evaluate, get_bound

    given = {"d": 1, "m": int(m), "alpha": cfg.alpha, "beta": cfg.beta, "eps": cfg.eps, "delta": cfg.delta}
    params = get_bound(bound_id).params
    try:
        return evaluate(bound_id, **{k: v for k, v in given.items() if k in params}).value
    except ValueError:
        return float("nan")


def add_bounds(df: pd.DataFrame, cfg) -> pd.DataFrame:
    """One column per bound id of ``cfg.bounds`` (shape bounds at c = 1)."""
    for bound_id in cfg.bounds:
        df[bound_id] = [bound_value(bound_id, cfg, m) for m in df.m]
    return df


def plot_pcqr(df: pd.DataFrame, cfg, out: Path) -> None:
    """Figure P1: n* vs m (log-log), regime marks, and each bound shape rescaled to meet its
    algorithm's measured n* at the first m where the bound applies (constants are unstated)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    styles = {"agprivcl": ("C0", "A_AgPrivCl (n = 56n'/ε)"), "btt18": ("C1", "BTT18 A_SubSamp")}
    for alg, g in df.groupby("alg"):
        g = g.sort_values("m")
        ax.loglog(g.m, g.n_star, "o-", color=styles[alg][0], label=f"{styles[alg][1]}: measured n*")
        for bound_id, owner in cfg.bounds.items():
            if owner != alg:
                continue
            ok = g[np.isfinite(g[bound_id]) & g.n_star.notna()]
            if len(ok):
                scale = ok.n_star.iloc[0] / ok[bound_id].iloc[0]
                ax.loglog(ok.m, ok[bound_id] * scale, "--", color=styles[alg][0], alpha=0.6,
                          label=f"{bound_id} shape ×{scale:.3g}")
    for x, txt in ((1 / cfg.alpha, "1/α"), (1 / cfg.alpha ** 3, "1/α³")):
        ax.axvline(x, color="grey", lw=0.8, ls=":")
        ax.text(x, 0.02, f" m = {txt}", transform=ax.get_xaxis_transform(), fontsize=8)
    ax.set_xlabel("number of classification queries m")
    ax.set_ylabel(f"private sample size n*(α={cfg.alpha}, β={cfg.beta})")
    ax.set_title(f"Nandi–Bassily 2020 PCQR, thresholds, γ={cfg.eta}, ε={cfg.eps}, δ={cfg.delta}", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "fig_pcqr_n_vs_m.png", dpi=130)
    plt.close(fig)


def literal_table(cfg, out: Path) -> pd.DataFrame:
    """Spec mode (a): every literal parameter and the feasibility verdict on ``cfg.literal`` grid."""
    rows = [nb.literal_feasibility(int(d), int(m), float(eps), float(delta), float(a), float(cfg.beta))
            for d in cfg.literal.d for m in cfg.literal.m for a in cfg.literal.alpha
            for eps in cfg.literal.eps for delta in cfg.literal.delta]
    df = pd.DataFrame(rows)
    df.to_csv(out / "literal_feasibility.csv", index=False)
    return df


@dataclass(frozen=True)
class UniversalTrial(PCQRTrial):
    """trial(n, rng) → expected average error of A_UnvPrivCl over all m queries (both phases)."""

    def __call__(self, n: int, rng: np.random.Generator) -> float:
        run = nb.unv_priv_cl(self.task, n, self.m, self.eps, self.delta, self.alpha, self.beta,
                             self.chunk, rng)
        return run.expected_error


def universal_table(cfg, out: Path) -> pd.DataFrame:
    """A_UnvPrivCl at m = ``cfg.universal.m`` (≥ m_o) for each n: error over all m queries."""
    task = nb.NoisyThreshold(cfg.t_star, cfg.eta)
    store = RecordStore(out / "records")
    rows = []
    for n in cfg.universal.n:
        key = f"universal/m={cfg.universal.m}/n={int(n)}"
        rec = store.get(key)
        if rec is None:
            trial = UniversalTrial(task, int(cfg.universal.m), cfg.eps, cfg.delta, cfg.alpha, cfg.beta,
                                   int(cfg.chunk.agprivcl))
            values = run_trials(trial, int(n), range(cfg.universal.trials), seed=cfg.seed, n_jobs=cfg.n_jobs)
            rec = {"n": int(n), "m": int(cfg.universal.m), "errors": values}
            store.put(key, rec)
        errs = np.asarray(rec["errors"])
        rows.append({"n": int(n), "m": rec["m"], "m_o": nb.m_o(1, cfg.alpha, cfg.beta),
                     "mean_error": errs.mean(), "q90_error": np.quantile(errs, 0.9),
                     "success_rate": float(np.mean(errs <= cfg.alpha + cfg.eta))})
    df = pd.DataFrame(rows)
    df.to_csv(out / "universal.csv", index=False)
    return df


def noise_table(cfg, out: Path) -> pd.DataFrame:
    """Figure P6's numbers: average error against the label noise γ at fixed (m, n) for both
    algorithms, next to the guarantees α + γ (Thm 3.3) and α + 3γ (BTT18 Lemma 2.4)."""
    store = RecordStore(out / "records")
    c = cfg.noise
    rows = []
    for gamma in c.gammas:
        task = nb.NoisyThreshold(cfg.t_star, float(gamma))
        for alg, trial_cls, n in (("agprivcl", AgPrivClTrial, c.n_agprivcl), ("btt18", BTT18Trial, c.n_btt18)):
            key = f"noise/{alg}/m={c.m}/n={int(n)}/gamma={gamma}"
            rec = store.get(key)
            if rec is None:
                trial = trial_cls(task, int(c.m), cfg.eps, cfg.delta, cfg.alpha, cfg.beta, int(cfg.chunk[alg]))
                rec = {"errors": run_trials(trial, int(n), range(c.trials), seed=cfg.seed, n_jobs=cfg.n_jobs)}
                store.put(key, rec)
            errs = np.asarray(rec["errors"])
            rows.append({"alg": alg, "gamma": float(gamma), "m": int(c.m), "n": int(n), "trials": len(errs),
                         "mean_error": errs.mean(), "q90_error": np.quantile(errs, 0.9),
                         "alpha_plus_gamma": cfg.alpha + gamma, "alpha_plus_3gamma": cfg.alpha + 3 * gamma})
    df = pd.DataFrame(rows)
    df.to_csv(out / "noise.csv", index=False)
    return df


@register("nandi2020")
def run(cfg: DictConfig) -> None:
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    literal_table(cfg, out)
    df = pcqr_sweep(cfg, out)
    summary = {"slopes": slopes(df, cfg.alpha)}
    plot_pcqr(df, cfg, out)
    if cfg.noise.enabled:
        summary["noise"] = noise_table(cfg, out).to_dict(orient="records")
    if cfg.universal.enabled:
        summary["universal"] = universal_table(cfg, out).to_dict(orient="records")
    write_summary(out, summary)


if __name__ == "__main__":
    import sys

    from experiments.theory.runner import compose

    run(compose(["experiment=theory_nandi2020", *sys.argv[1:]]).experiment)
