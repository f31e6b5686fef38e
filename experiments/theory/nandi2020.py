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
- ``unions``: n* against the VC dimension d = 2K on unions of K intervals, with k = ⌈κ·w⌉ chunks
  fixed and the chunk size searched (``pcqr_n_vs_d.csv``, ``fig_pcqr_n_vs_d.png``).
Slopes (``slopes.csv``) carry bootstrap 95% CIs over repeated searches where there are ≥ 5 points
and ≥ 2 searches per point; ``bound_fits.csv`` states the constants fitted to the O(·) shapes.

    python -m experiments.theory.nandi2020 [experiment.key=value ...]   (or experiments.theory experiment=theory_nandi2020)
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from omegaconf import DictConfig

from experiments.theory.fits import bound_curve, repeated_calls, searched, slope_row
from experiments.theory.runner import register, save_figure, write_summary
from experiments.theory.progress import part, plan
from pubpriv_core.learning import RecordStore, empirical_sample_complexity, run_trials
from pubpriv_core.learning import nandi2020 as nb
from pubpriv_core.learning import nandi2020_unions as nu


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
    """n*(α, β) for each algorithm and m of ``cfg.ms`` (BTT18 also on ``cfg.ms_btt18_extra``, with
    ``cfg.repeats_btt18`` independent searches); one CSV row each."""
    task = nb.NoisyThreshold(cfg.t_star, cfg.eta)
    store = RecordStore(out / "records")
    settings = []
    for alg, trial_cls in (("agprivcl", AgPrivClTrial), ("btt18", BTT18Trial)):
        ms = list(cfg.ms) + (list(cfg.ms_btt18_extra) if alg == "btt18" else [])
        repeats = cfg.repeats_btt18 if alg == "btt18" else 1
        for m in ms:
            trial = trial_cls(task, int(m), cfg.eps, cfg.delta, cfg.alpha, cfg.beta, int(cfg.chunk[alg]))

            def search(key, seed, trial=trial, m=m, alg=alg):
                return empirical_sample_complexity(
                    trial, cfg.alpha + task.gamma, cfg.beta, trials=cfg.trials, n_min=_start(alg, cfg, int(m)),
                    rel_tol=cfg.rel_tol, seed=seed, n_jobs=1, store=store, key=key).n_star
            settings.append(({"alg": alg, "m": int(m)}, repeated_calls(search, f"pcqr/{alg}/m={int(m)}", cfg.seed,
                                                                       repeats)))
    rows = []
    for row, stars in searched(settings, cfg.n_jobs):
        rows.append(row | {"n_star": stars[0], "n_star_mean": float(np.mean(stars)),
                           "n_star_repeats": ";".join(map(str, stars)), **_alg_params(row["alg"], cfg, row["m"])})
        print(f"[nandi2020] {row['alg']} m={row['m']}: n*={stars}", flush=True)
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


def _trials(column: pd.Series) -> list[np.ndarray]:
    return [np.array([float(v) for v in str(r).split(";")]) for r in column]


def slopes(df: pd.DataFrame, cfg) -> pd.DataFrame:
    """Log-log slopes in the regimes of the '≈' forms, [1/α, 1/α³] and [1/α³, ∞): with a bootstrap 95% CI
    over the repeated searches where there are ≥ 5 points and ≥ 2 searches per point; otherwise the
    plain least-squares slope with no CI (one search per point)."""
    tol = 1e-9  # regime ends compared with a tolerance: 1/0.1 is 10.000000000000002 in floating point
    lo, hi = 1 / cfg.alpha, 1 / cfg.alpha ** 3
    rng = np.random.default_rng(cfg.seed)
    rows = []
    for alg, g in df.groupby("alg"):
        g = g.dropna(subset=["n_star"])
        for name, segment in (("[1/α, 1/α³]", g[(g.m >= lo * (1 - tol)) & (g.m <= hi * (1 + tol))]),
                              ("[1/α³, ∞)", g[g.m >= hi * (1 - tol)])):
            trials = _trials(segment.n_star_repeats)
            label = f"{alg}: log n* vs log m on {name}"
            if len(segment) >= 5 and min(len(t) for t in trials) >= 2:
                rows.append(slope_row(label, segment.m, trials, rng) | {"alg": alg})
            else:
                rows.append({"fit": label, "slope": fit_slope(segment.m, segment.n_star), "ci_lo": float("nan"),
                             "ci_hi": float("nan"), "n_points": len(segment), "trials_per_point": 1, "alg": alg})
    return pd.DataFrame(rows)


def ratios(df: pd.DataFrame) -> dict:
    both = df.pivot(index="m", columns="alg", values="n_star").dropna()
    return {int(m): float(r) for m, r in (both["agprivcl"] / both["btt18"]).items()}


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


def plot_pcqr(df: pd.DataFrame, cfg, out: Path) -> list[dict]:
    """Figure P1: n* vs m (log-log) with the regime marks.  The explicit Thm 3.3 size is drawn as
    computed; each O(·) shape (Thm 3.3, Lemma 2.4) is drawn with a constant fitted to its algorithm's
    measured n* where it applies, stated in the legend.  Returns the fits."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 5))
    styles = {"agprivcl": ("C0", "A_AgPrivCl (n = 56n'/ε)"), "btt18": ("C1", "BTT18 A_SubSamp")}
    fits = []
    for alg, g in df.groupby("alg"):
        g = g.sort_values("m")
        ax.loglog(g.m, g.n_star_mean, "o-", color=styles[alg][0], label=f"{styles[alg][1]}: measured n*")
        for bound_id, owner in cfg.bounds.items():
            if owner != alg:
                continue
            ok = g[np.isfinite(g[bound_id]) & g.n_star.notna()]
            if len(ok):
                fits.append(bound_curve(ax, ok.m, ok[bound_id], bound_id, ok.n_star_mean, color=styles[alg][0],
                                        ls=":" if "explicit" in bound_id else "--", alpha=0.7) | {"alg": alg})
    for x, txt in ((1 / cfg.alpha, "1/α"), (1 / cfg.alpha ** 3, "1/α³")):
        ax.axvline(x, color="grey", lw=0.8, ls=":")
        ax.text(x, 0.02, f" m = {txt}", transform=ax.get_xaxis_transform(), fontsize=8)
    ax.set_xlabel("number of classification queries m")
    ax.set_ylabel(f"private sample size n*(α={cfg.alpha}, β={cfg.beta})")
    ax.set_title(f"Nandi–Bassily 2020 PCQR, thresholds, γ={cfg.eta}, ε={cfg.eps}, δ={cfg.delta}", fontsize=9)
    ax.legend(fontsize=6)
    save_figure(fig, out / "fig_pcqr_n_vs_m.png")
    return fits


# --------------------------------------------------------------------------- VC dimension d = 2K
@dataclass(frozen=True)
class UnionTrial:
    """trial(s, rng) → average error with a fixed number of chunks and chunk size s, on unions of K
    intervals (A_AgPrivCl at n' = chunks·s, or BTT18 at n = chunks·s)."""

    alg: str
    K: int
    chunks: int
    m: int
    eps: float
    delta: float
    alpha: float
    beta: float
    eta: float

    def __call__(self, s: int, rng: np.random.Generator) -> float:
        task = nu.NoisyUnion.spaced(self.K, self.eta)
        if self.alg == "agprivcl":
            params = nb.AgPrivClParams(self.m, self.eps, self.delta, self.alpha, self.beta)
            return nu.ag_priv_cl_union(task, self.chunks, s, params, rng).expected_error
        return nu.btt18_union(task, self.chunks, s, self.m, self.eps, self.delta, self.alpha, self.beta,
                              rng).expected_error


def union_chunks(alg: str, cfg) -> int:
    """k = ⌈κ·w⌉ chunks (w of A_SubSamp at the run's parameters; κ = ``cfg.unions.kappa``)."""
    c = cfg.unions
    if alg == "agprivcl":
        w = nb.AgPrivClParams(c.m, cfg.eps, cfg.delta, cfg.alpha, cfg.beta).subsamp.w
    else:
        w = nb.SubSampParams(c.m, nb.btt18_T(c.m, cfg.alpha, cfg.eta, cfg.beta), cfg.eps, cfg.delta, cfg.beta).w
    return int(np.ceil(c.kappa * w))


def union_sweep(cfg, out: Path) -> pd.DataFrame:
    """n* against the VC dimension d = 2K: the chunk size s* is searched at a fixed number of chunks;
    n* = 56·k·s*/ε for A_AgPrivCl and k·s* for BTT18."""
    c = cfg.unions
    store = RecordStore(out / "records")
    settings = []
    for alg, Ks, repeats in (("btt18", c.K_btt18, c.repeats_btt18), ("agprivcl", c.K_agprivcl, 1)):
        k = union_chunks(alg, cfg)
        for K in Ks:
            trial = UnionTrial(alg, int(K), k, int(c.m), cfg.eps, cfg.delta, cfg.alpha, cfg.beta, cfg.eta)

            def search(key, seed, trial=trial):
                return empirical_sample_complexity(trial, cfg.alpha + cfg.eta, cfg.beta, trials=cfg.trials,
                                                   n_min=int(c.s_min), n_max=int(c.s_max), rel_tol=cfg.rel_tol,
                                                   seed=seed, n_jobs=1, store=store, key=key).n_star
            settings.append(({"alg": alg, "K": int(K), "chunks": k},
                             repeated_calls(search, f"unions/{alg}/m={c.m}/kappa={c.kappa}/K={K}", cfg.seed, repeats)))
    rows = []
    for row, s_stars in searched(settings, cfg.n_jobs):
        alg, k, d = row["alg"], row["chunks"], 2 * row["K"]
        scale = 56 * k / cfg.eps if alg == "agprivcl" else k
        n_stars = [None if s is None else int(np.ceil(scale * s)) for s in s_stars]
        rows.append({"alg": alg, "K": row["K"], "d": d, "m": int(c.m), "chunks": k,
                     "s_star_repeats": ";".join(map(str, s_stars)), "n_star": n_stars[0],
                     "n_star_mean": float(np.mean([n for n in n_stars if n is not None])) if any(n_stars) else np.nan,
                     "n_star_repeats": ";".join(map(str, n_stars)),
                     "nandi2020.thm3.3": bound_value_d("nandi2020.thm3.3", cfg, int(c.m), d),
                     "nandi2020.thm3.3.explicit": bound_value_d("nandi2020.thm3.3.explicit", cfg, int(c.m), d)})
        print(f"[nandi2020] unions {alg} d={d}: s*={s_stars} n*={n_stars}", flush=True)
    df = pd.DataFrame(rows)
    df.to_csv(out / "pcqr_n_vs_d.csv", index=False)
    return df


def bound_value_d(bound_id: str, cfg, m: int, d: int) -> float:
    from pubpriv_core.bounds import evaluate, get_bound

    given = {"d": d, "m": m, "alpha": cfg.alpha, "beta": cfg.beta, "eps": cfg.eps, "delta": cfg.delta}
    return evaluate(bound_id, **{k: v for k, v in given.items() if k in get_bound(bound_id).params}).value


def union_slopes(df: pd.DataFrame, cfg) -> pd.DataFrame:
    rng = np.random.default_rng(cfg.seed)
    rows = []
    for alg, g in df.groupby("alg"):
        g = g.dropna(subset=["n_star"])
        trials = _trials(g.n_star_repeats)
        label = f"{alg}: log n* vs log d"
        if len(g) >= 5 and min(len(t) for t in trials) >= 2:
            rows.append(slope_row(label, g.d, trials, rng) | {"alg": alg})
        else:
            rows.append({"fit": label, "slope": fit_slope(g.d, g.n_star), "ci_lo": float("nan"), "ci_hi": float("nan"),
                         "n_points": len(g), "trials_per_point": 1, "alg": alg})
    return pd.DataFrame(rows)


def figure_unions(df: pd.DataFrame, cfg, m_fits: list[dict]):
    """n* against d = 2K. Thm 3.3's O(·) shape and its explicit size are drawn over the whole d
    grid of the sweep; the shape's constant is fitted on A_AgPrivCl's measured points when there
    are at least two, else taken from the m sweep's fit (same algorithm and bound, d = 1).
    Returns (figure, fits)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.6, 4.6))
    styles = {"agprivcl": ("C0", "A_AgPrivCl (n = 56n'/ε)"), "btt18": ("C1", "BTT18 A_SubSamp")}
    for alg, g in df.groupby("alg"):
        g = g.dropna(subset=["n_star"]).sort_values("d")
        ax.loglog(g.d, g.n_star_mean, "o-", color=styles[alg][0], label=f"{styles[alg][1]}: measured n*")
    grid = df.drop_duplicates("d").sort_values("d")
    agp = df[df.alg == "agprivcl"].set_index("d").n_star_mean.reindex(grid.d)
    m_fit = next((f for f in m_fits if f["bound"] == "nandi2020.thm3.3"), None)
    constant = (m_fit["c"], "the m sweep, d = 1") if m_fit else None
    fits = [bound_curve(ax, grid.d, grid["nandi2020.thm3.3"], "nandi2020.thm3.3", agp.to_numpy(),
                        constant=constant, color="C0", ls="--", alpha=0.7),
            bound_curve(ax, grid.d, grid["nandi2020.thm3.3.explicit"], "nandi2020.thm3.3.explicit",
                        color="C0", ls=":", alpha=0.7)]
    ax.set_xticks(grid.d, [f"{d:g}" for d in grid.d])
    ax.set_xticks([], minor=True)
    ax.set_xlabel("VC dimension d = 2K (unions of K intervals)")
    ax.set_ylabel(f"private sample size n*(α={cfg.alpha}, β={cfg.beta})")
    ax.set_title(f"PCQR against d, m = {cfg.unions.m}, k = ⌈{cfg.unions.kappa}·w⌉ chunks, γ={cfg.eta}", fontsize=9)
    ax.legend(fontsize=6)
    return fig, [f | {"alg": "agprivcl", "sweep": "d"} for f in fits]


def plot_unions(df: pd.DataFrame, cfg, out: Path, m_fits: list[dict]) -> list[dict]:
    fig, fits = figure_unions(df, cfg, m_fits)
    save_figure(fig, out / "fig_pcqr_n_vs_d.png")
    return fits


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
    plan(["literal", "pcqr", *(name for name in ("unions", "noise", "universal")
                               if cfg[name].enabled)])
    with part("literal"):
        literal_table(cfg, out)
    with part("pcqr"):
        df = pcqr_sweep(cfg, out)
    table = slopes(df, cfg)
    fits = [f | {"sweep": "m"} for f in plot_pcqr(df, cfg, out)]
    summary = {"ratio_agprivcl_over_btt18": ratios(df)}
    if cfg.unions.enabled:
        with part("unions"):
            ud = union_sweep(cfg, out)
        table = pd.concat([table, union_slopes(ud, cfg)], ignore_index=True)
        fits += plot_unions(ud, cfg, out, fits)
    table.to_csv(out / "slopes.csv", index=False)
    pd.DataFrame(fits).to_csv(out / "bound_fits.csv", index=False)
    summary["slopes"] = table.to_dict(orient="records")
    summary["bound_fits"] = fits
    if cfg.noise.enabled:
        with part("noise"):
            summary["noise"] = noise_table(cfg, out).to_dict(orient="records")
    if cfg.universal.enabled:
        with part("universal"):
            summary["universal"] = universal_table(cfg, out).to_dict(orient="records")
    write_summary(out, summary)


if __name__ == "__main__":
    import sys

    from experiments.theory.runner import compose

    run(compose(["experiment=theory_nandi2020", *sys.argv[1:]]).experiment)
