"""Liu et al. 2021 theory experiments on the synthetic pair with known μ, ν.

- ``mixture``: best mixture error f_{D̃,Q}(X̂) against the public size m, for several public
  shifts, next to the α that Prop 4.3 certifies at that m from the exact D_2 and D_∞ (exact LP up
  to ``lp_max_m`` public rows, the paper's 100-round MW upper estimate beyond).
- ``pmwpub``: PMW^Pub's max error minus f against n (at fixed ε) and against ε (at fixed n), next
  to Thm 4.4's private term √(ln|Q|·(√ln m + ln(1/β))/(n·ε̃)) (shape; c fitted at one point).
- ``support`` / ``domain``: Thm 4.4's point — PMW^Pub's excess error over f against log|X̂|
  (a fixed core of public rows plus uniform decoys, A_0 uniform) at fixed n, ε and |X|, and
  against log|X| (attributes appended to the chain) at fixed X̂ size; bootstrap slopes and
  Thm 4.4's private term with a fitted constant.
- ``lemma42``: Lemma 4.2's ε_f-DP best-mixture estimate next to the exact f for each public
  source of the ADULT and NIST figures, and the source the releases pick.
- ``audit``: end-to-end privacy-loss audit of PMW^Pub over all replace-one neighbours of a tiny
  instance (one pair per symmetry orbit), run as claimed and at 4ρ (noise halved) while
  claiming ρ.
One JSON record per (setting, trial) under ``<out>/records`` (skipped when present).

    python -m experiments.theory.liu2021 [experiment.key=value ...]
"""
from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from omegaconf import DictConfig

from experiments.theory.plotting import KEY_COLOR
from experiments.theory.progress import part, plan
from experiments.theory.runner import progress_logging, register, save_figure, seeded_rng, stream_rng, write_summary
from pubpriv_core.algorithms.best_mixture import LPTimeLimitError
from pubpriv_core.bounds import evaluate
from pubpriv_core.learning import RecordStore
from pubpriv_core.learning import liu2021 as lv
from pubpriv_core.learning.audit import loss_audit
from pubpriv_core.learning.slopes import bootstrap_slope, fit_constant
from pubpriv_core.privacy import eps_from_rho, rho_from_eps


def _mixture_value(problem, method: str, time_limit: float) -> dict:
    """f by ``method``; an LP that hits the solver's time limit falls back to the MW estimate."""
    try:
        return {"f": lv.best_mixture_error(problem, method, time_limit), "method": method}
    except LPTimeLimitError:
        return {"f": lv.best_mixture_error(problem, "mw"), "method": "mw"}


def mixture_problem(setting: lv.Setting, n: int, m: int, trial: int, seed: int):
    """The problem of one trial of the ``mixture`` sweep: n private and m public samples drawn
    from the stream (seed, 1, 1000·shift, m, trial)."""
    return lv.draw_problem(setting, n, m, stream_rng(seed, 1, int(1000 * setting.shift), m, trial))


def mixture_record(setting: lv.Setting, n: int, m: int, trial: int, seed: int, method: str,
                   time_limit: float) -> dict:
    problem = mixture_problem(setting, n, m, trial, seed)
    public_only = float(np.max(np.abs(problem.public_answerer.expand(
        problem.public_answerer.answer(problem.public_weights)) - problem.true_answers)))
    return {"shift": setting.shift, "n": n, "m": m, "trial": trial, "support": problem.support_size,
            **_mixture_value(problem, method, time_limit), "public_only": public_only,
            "Q_size": int(problem.true_answers.size)}


def pmwpub_record(setting: lv.Setting, n: int, m: int, trial: int, eps_grid, T_grid, seed: int,
                  time_limit: float) -> dict:
    problem = lv.draw_problem(setting, n, m, stream_rng(seed, 2, n, m, trial))
    f = lv.best_mixture_error(problem, "lp", time_limit)
    errors = {f"{eps}/{T}": lv.pmwpub_max_error(problem, eps, T, stream_rng(seed, 3, n, trial, int(1e4 * eps), T))
              for eps in eps_grid for T in T_grid}
    return {"shift": setting.shift, "n": n, "m": m, "trial": trial, "f": f, "errors": errors,
            "Q_size": int(problem.true_answers.size)}


def _compute_and_store(root: str, key: str, fn, args) -> None:
    """Worker: compute one record and write it atomically (so an interrupted sweep resumes)."""
    progress_logging()
    RecordStore(root).put(key, fn(*args))


def _run_records(store: RecordStore, jobs: dict, n_jobs: int) -> list[dict]:
    """Compute the records whose keys are missing (in parallel, each stored when done), return all."""
    todo = [k for k in jobs if store.get(k) is None]
    Parallel(n_jobs=n_jobs)(delayed(_compute_and_store)(str(store.root), k, *jobs[k]) for k in todo)
    return [store.get(k) for k in jobs]


def mixture_sweep(cfg, out: Path) -> pd.DataFrame:
    store = RecordStore(out / "records")
    jobs = {}
    for shift in cfg.mixture.shifts:
        setting = lv.Setting(cfg.preset, float(shift), cfg.model_seed, cfg.k)
        for m in cfg.mixture.m:
            for r in range(cfg.mixture.trials):
                method = "lp" if int(m) <= int(cfg.mixture.lp_max_m) else "mw"
                jobs[f"mixture/shift={shift}/m={m}/{method}/r={r}"] = (
                    mixture_record, (setting, int(cfg.mixture.n), int(m), r, cfg.seed, method, cfg.lp_time_limit))
    df = pd.DataFrame(_run_records(store, jobs, cfg.n_jobs))
    rows, f_trials = [], {}
    for (shift, m, method), g in df.groupby(["shift", "m", "method"]):
        f_trials[(shift, m, method)] = g.f.to_numpy()
        pair = lv.Setting(cfg.preset, float(shift), cfg.model_seed, cfg.k).pair()
        D2, Dinf = max(pair.d2(), 0.0), max(pair.dinf(), 0.0)
        rows.append({"shift": shift, "m": m, "method": method, "trials": len(g), "support_mean": g.support.mean(),
                     "f_mean": g.f.mean(), "f_q": g.f.quantile(1 - cfg.beta), "f_max": g.f.max(),
                     "public_only_mean": g.public_only.mean(), "D2": D2, "Dinf": Dinf,
                     "Q_size": int(g.Q_size.iloc[0]),
                     "prop43_alpha": lv.prop43_alpha(int(m), cfg.beta, int(g.Q_size.iloc[0]), min(D2, Dinf), Dinf)})
    summary = pd.DataFrame(rows)
    summary["prop43_n_needed"] = [
        evaluate("liu2021.prop4.3.n", alpha=a, beta=cfg.beta, Q_size=q).value if np.isfinite(a) else np.nan
        for a, q in zip(summary.prop43_alpha, summary.Q_size)]
    summary.to_csv(out / "mixture_vs_m.csv", index=False)
    summary.attrs["f_trials"] = f_trials
    return summary


def pmwpub_sweep(cfg, out: Path) -> pd.DataFrame:
    store = RecordStore(out / "records")
    p = cfg.pmwpub
    setting = lv.Setting(cfg.preset, float(p.shift), cfg.model_seed, cfg.k)
    jobs = {}
    for n in p.n:
        eps_grid = list(p.eps) if int(n) == int(p.n_fixed) else [float(p.eps_fixed)]
        for r in range(p.trials):
            jobs[f"pmwpub/n={n}/r={r}/eps={','.join(map(str, eps_grid))}"] = (
                pmwpub_record, (setting, int(n), int(p.m), r, eps_grid, list(p.T), cfg.seed, cfg.lp_time_limit))
    rows = []
    for rec in _run_records(store, jobs, cfg.n_jobs):
        for key, err in rec["errors"].items():
            eps, T = key.split("/")
            rows.append({"n": rec["n"], "m": rec["m"], "trial": rec["trial"], "eps": float(eps), "T": int(T),
                         "err": err, "f": rec["f"], "Q_size": rec["Q_size"]})
    df = pd.DataFrame(rows)
    agg = df.groupby(["n", "eps", "T"]).agg(err=("err", "mean"), f=("f", "mean"), Q_size=("Q_size", "first"),
                                            trials=("err", "size")).reset_index()
    best = agg.loc[agg.groupby(["n", "eps"]).err.idxmin()].copy()     # best T by mean error (paper)
    best["excess"] = best.err - best.f
    best["eps_tilde"] = [math.sqrt(2 * rho_from_eps(e, 1.0 / n ** 2)) for n, e in zip(best.n, best.eps)]
    best["thm44_private_term"] = [
        evaluate("liu2021.thm4.4", n=int(n), m=int(p.m), Q_size=int(q), beta=cfg.beta,
                 rho=rho_from_eps(e, 1.0 / n ** 2)).value for n, e, q in zip(best.n, best.eps, best.Q_size)]
    best.to_csv(out / "pmwpub_vs_n_eps.csv", index=False)
    best.attrs["excess_trials"] = {
        (n, e): (g.err - g.f).to_numpy() for (n, e, T), g in df.groupby(["n", "eps", "T"])
        if ((best.n == n) & (best.eps == e) & (best["T"] == T)).any()}
    return best


def _slope(x, y_trials, rng) -> dict | None:
    """Bootstrap slope of log mean y on log x (None when a trial is not positive)."""
    if any((np.asarray(t) <= 0).any() for t in y_trials):
        return None
    fit = bootstrap_slope(np.asarray(x, float), y_trials, rng=rng)
    return {**fit.__dict__, "text": fit.text()}


def summarize(mix: pd.DataFrame, pmw: pd.DataFrame, cfg, rng: np.random.Generator) -> dict:
    """Bootstrap slopes (95% CI over trials) of f against m (exact LP points) and of PMW^Pub's
    excess against n and ε̃, and the fitted constant of Thm 4.4's private term."""
    out = {"mixture": {}, "pmwpub": {}}
    for shift, g in mix.groupby("shift"):
        ok = g.dropna(subset=["prop43_alpha"])
        lp = g[(g.method == "lp") & (g.trials >= 2)].sort_values("m")   # points where the LP was certified
        out["mixture"][f"shift={shift}"] = {
            "D2": float(g.D2.iloc[0]), "Dinf": float(g.Dinf.iloc[0]),
            "slope_f_vs_m_exact_lp": _slope(lp.m, [mix.attrs["f_trials"][(shift, m, "lp")] for m in lp.m], rng),
            "max_ratio_fq_over_prop43": float((ok.f_q / ok.prop43_alpha).max()) if len(ok) else None,
            "bound_crossed": bool((ok.f_q > ok.prop43_alpha).any())}
    p = cfg.pmwpub
    trials = pmw.attrs["excess_trials"]
    for name, g, x in (("n", pmw[pmw.eps == float(p.eps_fixed)].sort_values("n"), "n"),
                       ("eps", pmw[pmw.n == int(p.n_fixed)].sort_values("eps"), "eps_tilde")):
        fit = fit_constant(g.thm44_private_term, g.excess)
        out["pmwpub"][f"vs_{name}"] = {"slope": _slope(g[x], [trials[(n, e)] for n, e in zip(g.n, g.eps)], rng),
                                       "thm44_slope": -0.5, "thm44_fit": fit.__dict__, "thm44_fit_text": fit.text()}
    return out


PMWPUB = r"$\mathrm{PMW}^{\mathrm{Pub}}$"


def _mixture_panel(ax, mix: pd.DataFrame, cfg) -> None:
    """f against m per shift (colour) and kind (style): the exact LP's (1 − β)-quantile where it
    certified in every trial, the certified values' max where only some did (not a quantile),
    the MW-100 upper estimate beyond ``lp_max_m``, and Prop 4.3's α(m). One legend entry per
    shift (colour) and per kind (style, in the neutral key colour)."""
    kinds = {"lp": ("o", "-", "full", f"f, exact LP: {1 - cfg.beta:.0%} quantile of {cfg.mixture.trials} trials"),
             "partial": ("D", "none", "none", "f, exact LP certified in only some trials: their max"),
             "mw": ("o", ":", "none", "f upper estimate (100-round MW)"),
             "prop": ("x", "--", "full", "Prop 4.3 α(m)")}
    used, handles = set(), []
    for i, (shift, g) in enumerate(mix.groupby("shift")):
        g = g.sort_values("m")
        lp = g[g.method == "lp"]
        parts = {"lp": (lp[lp.trials >= cfg.mixture.trials], "f_q"), "partial": (lp[lp.trials < cfg.mixture.trials], "f_max"),
                 "mw": (g[g.method == "mw"], "f_q"), "prop": (g.drop_duplicates("m"), "prop43_alpha")}
        for kind, (rows, col) in parts.items():
            if rows[col].notna().any():
                marker, ls, fill, _ = kinds[kind]
                ax.loglog(rows.m, rows[col], marker=marker, ls=ls, color=f"C{i}",
                          mfc=f"C{i}" if fill == "full" else "none")
                used.add(kind)
        handles.append(Patch(color=f"C{i}", label=f"shift {shift} (D2 = {g.D2.iloc[0]:.2f}, D∞ = {g.Dinf.iloc[0]:.2f})"))
    for kind in [k for k in kinds if k in used]:
        marker, ls, fill, label = kinds[kind]
        handles.append(Line2D([], [], marker=marker, ls=ls, color=KEY_COLOR,
                              mfc=KEY_COLOR if fill == "full" else "none", label=label))
    ax.set_xlabel("public sample size m")
    ax.set_ylabel("best mixture error f(X̂)")
    ax.set_title(f"Liu et al. 2021 Prop 4.3, preset '{cfg.preset}', {cfg.k}-way, n={cfg.mixture.n}", fontsize=9)
    ax.legend(handles=handles, fontsize=6)


def figure_mixture_and_pmwpub(mix: pd.DataFrame, pmw: pd.DataFrame, cfg):
    """Left: f against m (:func:`_mixture_panel`); right: PMW^Pub's excess over f against n·ε̃
    with Thm 4.4's private term (constant fitted)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.6))
    _mixture_panel(ax, mix, cfg)
    p = cfg.pmwpub
    for i, (label, g) in enumerate((("vs n (ε=%g)" % p.eps_fixed, pmw[pmw.eps == float(p.eps_fixed)]),
                                    ("vs ε (n=%d)" % p.n_fixed, pmw[pmw.n == int(p.n_fixed)]))):
        g = g.sort_values(["n", "eps"])
        xs = g.n * g.eps_tilde
        bx.loglog(xs, g.excess, "o-", color=f"C{i}", label=f"{PMWPUB} max error − f, {label}")
        fit = fit_constant(g.thm44_private_term, g.excess)
        bx.loglog(xs, g.thm44_private_term * fit.c, "--", color=f"C{i}", alpha=0.7,
                  label=f"Thm 4.4 private term, {fit.text()}")
    bx.set_xlabel("n·ε̃ (ε̃ = √(2ρ))")
    bx.set_ylabel("excess max error over f")
    bx.set_title(f"{PMWPUB}, shift {p.shift}, m={p.m}, best T of {list(p.T)}", fontsize=9)
    bx.legend(fontsize=6)
    return fig


# --------------------------------------------------------------------------- |X̂| and |X| sweeps


def sweep_problem(cfg, kind: str, point: int, trial: int):
    """(pair, problem) of one trial of the ``support`` (point = s) or ``domain`` (point = extra
    attributes) sweep: the padded pair and the support of s public rows drawn from the stream
    (seed, 4, extra, s, trial)."""
    p = cfg[kind]
    extra, s = (0, point) if kind == "support" else (point, int(p.s))
    pair = lv.padded_pair(cfg.preset, extra, float(p.shift), cfg.model_seed)
    problem = lv.support_problem(pair, int(p.n), s, seeded_rng(cfg, 4, extra, s, trial), k=cfg.k,
                                 workload_size=p.workload_size, core=p.core, workload_seed=cfg.seed)
    return pair, problem


def sweep_record(cfg, kind: str, point: int, trial: int) -> dict:
    """One trial of the ``support`` (point = s) or ``domain`` (point = extra attributes) sweep:
    exact f and PMW^Pub's max error for every T of the grid."""
    p = cfg[kind]
    extra, s = (0, point) if kind == "support" else (point, int(p.s))
    pair, problem = sweep_problem(cfg, kind, point, trial)
    errors = {str(T): lv.pmwpub_max_error(problem, float(p.eps), int(T), seeded_rng(cfg, 5, extra, s, trial, T))
              for T in p.T}
    return {"kind": kind, "point": point, "trial": trial, "support": s,
            "log_domain_size": float(np.log(pair.private.domain.size())),
            "f": lv.best_mixture_error(problem, "lp", cfg.lp_time_limit),
            "errors": errors, "Q_size": int(problem.true_answers.size)}


def sweep(cfg, out: Path, kind: str, rng: np.random.Generator) -> tuple[pd.DataFrame, dict]:
    """Excess max error over f at the best T (by mean over trials, the paper's selection) per
    point, its bootstrap slope against log|X̂| or log|X|, and Thm 4.4's private term with c fitted."""
    store = RecordStore(out / "records")
    p = cfg[kind]
    points = list(p.s) if kind == "support" else list(p.extra)
    jobs = {f"{kind}/point={pt}/r={r}": (sweep_record, (cfg, kind, int(pt), r))
            for pt in points for r in range(p.trials)}
    df = pd.DataFrame(_run_records(store, jobs, cfg.n_jobs))
    rho = rho_from_eps(float(p.eps), 1.0 / int(p.n) ** 2)
    rows, y_trials, y_norm = [], [], []
    for pt in points:
        g = df[df.point == pt]
        errs = pd.DataFrame(list(g.errors))
        T = errs.mean().idxmin()
        excess = (errs[T] - g.f.to_numpy()).to_numpy()
        shape = evaluate("liu2021.thm4.4", n=int(p.n), m=int(g.support.iloc[0]), Q_size=float(g.Q_size.mean()),
                         beta=cfg.beta, rho=rho).value
        y_trials.append(excess)
        y_norm.append(excess / shape)
        rows.append({"point": int(pt), "support": int(g.support.iloc[0]), "log_support": float(np.log(g.support.iloc[0])),
                     "log_domain_size": float(g.log_domain_size.iloc[0]), "Q_size_mean": float(g.Q_size.mean()),
                     "trials": len(g), "T_best": int(T), "err_mean": float(errs[T].mean()), "f_mean": float(g.f.mean()),
                     "excess_mean": float(excess.mean()), "excess_sd": float(excess.std(ddof=1)),
                     "thm44_private_term": shape})
    res = pd.DataFrame(rows)
    fit = fit_constant(res.thm44_private_term, res.excess_mean)
    res["thm44_fitted"] = fit.c * res.thm44_private_term
    res.to_csv(out / f"pmwpub_vs_{kind}.csv", index=False)
    x = res.log_support if kind == "support" else res.log_domain_size
    slope = bootstrap_slope(x, y_trials, rng=rng)
    normalised = bootstrap_slope(x, y_norm, rng=rng)
    shape_slope = float(np.polyfit(np.log(x), np.log(res.thm44_private_term), 1)[0])
    return res, {"x": "log|X̂|" if kind == "support" else "log|X|", "slope": slope.__dict__, "text": slope.text(),
                 "slope_over_thm44_term": normalised.__dict__, "text_over_thm44_term": normalised.text(),
                 "thm44_term_slope": shape_slope, "thm44_fit": fit.__dict__, "thm44_fit_text": fit.text()}


# --------------------------------------------------------------------------- Lemma 4.2


def _nist(region: str, year: int, reduced: bool):
    from pubpriv_core.data import load_dataset
    return load_dataset("nist_acs", region=region, year=year, reduced=reduced)


def lemma42_groups(cfg) -> dict[str, tuple[str, dict]]:
    """Each figure row's candidate public sources: {group: (data kind, {source: spec})}."""
    nist_full = {"MA-2018": ("ma", 2018, 1.0), "national-2019": ("national", 2019, 1.0),
                 "TX-2019": ("tx", 2019, 1.0)}
    for p in cfg.lemma42.fractions:
        nist_full[f"MA-2018 p={p:g}"] = ("ma", 2018, float(p))
        nist_full[f"national-2019 p={p:g}"] = ("national", 2019, float(p))
    return {
        "ADULT (Fig. 2), Δ grid": ("adult", {f"Δ={d:g}": float(d) for d in cfg.lemma42.adult_deltas}),
        "NIST reduced MA-2019 (Fig. 1)": ("nist:ma:2019:1", {
            "MA-2018": ("ma", 2018, 1.0), "national-2019": ("national", 2019, 1.0), "TX-2019": ("tx", 2019, 1.0)}),
        "NIST full MA-2019 (Fig. 1, Fig. 3)": ("nist:ma:2019:0", nist_full),
        "NIST full TX-2019 (Fig. 1)": ("nist:tx:2019:0", {
            "TX-2018": ("tx", 2018, 1.0), "national-2019": ("national", 2019, 1.0), "MA-2019": ("ma", 2019, 1.0)}),
    }


def _source_problem(kind: str, spec, cfg, rng: np.random.Generator):
    from pubpriv_core.harness import ReleaseProblem
    from pubpriv_core.data import biased, fraction, from_dataset, load_dataset
    from pubpriv_core.queries import marginal_workload

    if kind == "adult":
        data = load_dataset("adult")
        split = biased(data, np.random.default_rng([int(cfg.seed), 6]), delta=spec)   # same private for every Δ
        private, source = split.private, split.public
        workload = marginal_workload(data.domain, 3, 256, 0)
    else:
        _, region, year, reduced = kind.split(":")
        private = _nist(region, int(year), reduced == "1")
        public = _nist(spec[0], spec[1], reduced == "1")
        source = from_dataset(public) if spec[2] == 1.0 else fraction(public, spec[2], rng)
        workload = marginal_workload(private.domain, 5 if reduced == "1" else 3, None, 0)
    return ReleaseProblem(private, workload, source.support.records, source.weights, source.n_rows)


def lemma42_record(cfg, group: str, kind: str, name: str, spec, index: int) -> dict:
    rng = seeded_rng(cfg, 7, index)
    problem = _source_problem(kind, spec, cfg, rng)
    limit = cfg.lemma42.time_limit.adult if kind == "adult" else cfg.lemma42.time_limit.nist
    start = time.perf_counter()
    check = lv.source_check(name, problem, float(cfg.lemma42.eps_f), int(cfg.lemma42.draws), rng, float(limit))
    return {"group": group, "source": name, "n": problem.n, "support": problem.support_size,
            "exact": check.exact, "mw": check.mw, "dp": check.dp.tolist(), "seconds": time.perf_counter() - start,
            "public_only": float(np.max(np.abs(problem.public_answerer.expand(
                problem.public_answerer.answer(problem.public_weights)) - problem.true_answers)))}


def lemma42(cfg, out: Path) -> pd.DataFrame:
    """Per source: exact f (or not certified), MW-100, the mean and 95% range of the ε_f-DP
    releases, Laplace scale 1/(n·ε_f); per group: how often the releases pick each source and
    which source has the lowest exact f."""
    store = RecordStore(out / "records")
    jobs, index = {}, 0
    for group, (kind, sources) in lemma42_groups(cfg).items():
        limit = cfg.lemma42.time_limit.adult if kind == "adult" else cfg.lemma42.time_limit.nist
        for name, spec in sources.items():
            jobs[f"lemma42/{group}/{name}/limit={limit:g}"] = (lemma42_record, (cfg, group, kind, name, spec, index))
            index += 1
    recs = _run_records(store, jobs, cfg.n_jobs)
    rows = []
    for group in dict.fromkeys(r["group"] for r in recs):
        g = [r for r in recs if r["group"] == group]
        checks = [lv.SourceCheck(r["source"], r["exact"], np.array(r["dp"], float), r["mw"], r["n"],
                                 float(cfg.lemma42.eps_f)) for r in g]
        rates = lv.pick_rates(checks)
        certified = [r for r in g if r["exact"] is not None]
        best = min(certified, key=lambda r: r["exact"])["source"] if certified else None
        for r in g:
            dp = np.array(r["dp"], float)
            rows.append({"group": group, "source": r["source"], "n": r["n"], "support": r["support"],
                         "public_only": r["public_only"], "exact_f": r["exact"], "mw100": r["mw"],
                         "laplace_scale": 1 / (r["n"] * float(cfg.lemma42.eps_f)),
                         "dp_mean": float(np.nanmean(dp)) if r["exact"] is not None else np.nan,
                         "dp_q025": float(np.nanquantile(dp, 0.025)) if r["exact"] is not None else np.nan,
                         "dp_q975": float(np.nanquantile(dp, 0.975)) if r["exact"] is not None else np.nan,
                         "pick_rate": rates.get(r["source"], np.nan), "lowest_exact": r["source"] == best,
                         "lp_seconds": r["seconds"]})
    df = pd.DataFrame(rows)
    df.to_csv(out / "lemma42_sources.csv", index=False)
    return df


# --------------------------------------------------------------------------- privacy audit


def audit_record(cfg, factor: int) -> dict:
    """PMW^Pub run at factor·ρ while claiming the ρ of (ε, δ): the loss audit over every
    replace-one pair, and the model-fit tests of the transcript law on one dataset."""
    a = cfg.audit
    problems = lv.tiny_problems(int(a.n), tuple(a.shape), int(a.k))
    all_pairs = lv.replace_one_pairs(problems)
    pairs = lv.symmetry_representatives(all_pairs, tuple(a.shape))
    rho = rho_from_eps(float(a.eps), float(a.delta))
    eps_run = eps_from_rho(factor * rho, float(a.delta))
    rng = seeded_rng(cfg, 8, factor)
    res = loss_audit(pairs, lambda d: lv.pmwpub_transcript(problems[d], eps_run, float(a.delta), int(a.T), rng),
                     lambda d, o: lv.transcript_log_likelihood(problems[d], o[0], o[1], o[2]),
                     rho=rho, eps=float(a.eps), delta=float(a.delta), samples=int(a.samples),
                     alphas=tuple(a.alphas))
    d = pairs[0][0]
    fit = lv.transcript_fit(problems[d], [lv.pmwpub_transcript(problems[d], eps_run, float(a.delta), int(a.T), rng)
                                          for _ in range(int(a.samples))], rng)
    return {"factor": factor, "eps_run": eps_run, "rho_claimed": rho, "rho_run": factor * rho,
            "pairs_total": len(all_pairs), "pairs": res.pairs, "samples": res.samples, "renyi_ratio": res.renyi_ratio,
            "renyi_ratio_lower": res.renyi_ratio_lower, "delta_hat": res.delta_hat, "delta_lower": res.delta_lower,
            "flagged": res.flagged, "worst_pair": [list(x) for x in res.worst], **fit}


def audit(cfg, out: Path) -> pd.DataFrame:
    store = RecordStore(out / "records")
    jobs = {f"audit/factor={f}/samples={cfg.audit.samples}": (audit_record, (cfg, int(f)))
            for f in cfg.audit.factors}
    df = pd.DataFrame(_run_records(store, jobs, cfg.n_jobs))
    df.to_csv(out / "pmwpub_audit.csv", index=False)
    return df


def figure_thm44(sup: pd.DataFrame, dom: pd.DataFrame, fits: dict):
    """PMW^Pub's excess over f (mean ± 1.96 s.e.), Thm 4.4's private term (c fitted) and f
    against |X̂| (left) and |X| (right), each on a log axis: the slopes in the titles are of log
    excess on log log|X̂| and log log|X|."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.6))
    for ax, df, kind, label in ((axes[0], sup, "support", "public support size |X̂| (|X| fixed)"),
                                (axes[1], dom, "domain", "data domain size |X| (|X̂| fixed)")):
        x = df.support if kind == "support" else np.exp(df.log_domain_size)
        se = df.excess_sd / np.sqrt(df.trials)
        ax.errorbar(x, df.excess_mean, yerr=1.96 * se, fmt="o-", capsize=3,
                    label=f"{PMWPUB} max error − f (mean, ±1.96 s.e.)")
        ax.plot(x, df.thm44_fitted, "k--", lw=0.8, label=f"Thm 4.4 private term, {fits[kind]['thm44_fit_text']}")
        ax.plot(x, df.f_mean, "s:", color="C2", label="best mixture error f (exact LP)")
        ax.set_xscale("log", base=2 if kind == "support" else 10)
        if kind == "support":
            ax.set_xticks(x, [f"{int(v):,}" for v in x])
            ax.set_xticks([], minor=True)
        ax.set_yscale("log")
        ax.set_xlabel(label)
        ax.set_ylabel("max error")
        ax.set_title(f"log excess vs log log{'|X̂|' if kind == 'support' else '|X|'}: {fits[kind]['text']}", fontsize=7)
        ax.legend(fontsize=6)
    return fig


@register("liu2021")
def run(cfg: DictConfig) -> None:
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    plan(["mixture", "pmwpub", "support", "domain", "lemma42", "audit"])
    with part("mixture"):
        mix = mixture_sweep(cfg, out)
    with part("pmwpub"):
        pmw = pmwpub_sweep(cfg, out)
    save_figure(figure_mixture_and_pmwpub(mix, pmw, cfg), out / "fig_mixture_and_pmwpub.png")
    rng = seeded_rng(cfg, 9)
    summary = summarize(mix, pmw, cfg, rng)
    with part("support"):
        sup, sup_fit = sweep(cfg, out, "support", rng)
    with part("domain"):
        dom, dom_fit = sweep(cfg, out, "domain", rng)
    save_figure(figure_thm44(sup, dom, {"support": sup_fit, "domain": dom_fit}), out / "fig_thm44_support_domain.png")
    with part("lemma42"):
        lemma42(cfg, out)
    with part("audit"):
        audit(cfg, out)
    write_summary(out, {**summary, "support": sup_fit, "domain": dom_fit})


if __name__ == "__main__":
    import sys

    from experiments.theory.runner import compose

    run(compose(["experiment=theory_liu2021", *sys.argv[1:]]).experiment)
