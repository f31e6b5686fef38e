"""Alon–Bassily–Moran 2019 experiments: public cover size, ASSPP vs private-only, Reduction B.

Preset ``conf/experiment/theory_alon2019.yaml``; run with
``python -m experiments.theory experiment=theory_alon2019``.  Writes to ``cfg.out``:
``cover_npub.csv`` / ``cover_npub.png`` (empirical n_pub(α, β) for an α-cover, thresholds and
intervals on [0,1] under three distributions, against Lemma 3.3 and Thm 4.1), ``asspp_nstar.csv`` /
``asspp_nstar.png`` (private sample size of ASSPP vs the private-only exponential mechanism over
all N+1 grid thresholds as N grows) and ``reduction_b.csv`` (Claim 4.6 checked with a measured
premise).
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

from experiments.theory.runner import register  # noqa: E402
from pubpriv_core.bounds import evaluate  # noqa: E402
from pubpriv_core.learning import (FiniteDistribution, Intervals, Mixture01, RecordStore, Thresholds,  # noqa: E402
                                   empirical_sample_complexity, run_trials)
from pubpriv_core.learning import alon2019 as A  # noqa: E402
from pubpriv_core.learning import beimel2014 as B  # noqa: E402
from pubpriv_core.learning.audit import empirical_epsilon, exact_audit  # noqa: E402
from pubpriv_core.privacy import eps_from_rho, gaussian_mechanism, gaussian_sigma, permute_and_flip  # noqa: E402

CLASSES = {"thresholds": (Thresholds, 1), "intervals": (Intervals, 2)}


def mixture(spec) -> Mixture01:
    return Mixture01(betas=[tuple(b) for b in spec.betas], atoms=[tuple(a) for a in spec.atoms])


# ------------------------------------------------------------------ (a) cover experiment
def cover_trial(cls_name: str, dist: Mixture01, rule: str, n_pub: int, rng) -> float:
    """Exact radius max_h dis(h, Project(h); D) of the cover built from n_pub public points."""
    T = dist.sample(n_pub, rng)
    reps = Thresholds(None).cover(T, rule, rng)
    if cls_name == "thresholds":
        return A.cover_radius(Thresholds(None), T, reps, dist)
    return A.interval_radius(T, reps[:, 0], dist)  # = cover_radius of Intervals.cover(T, rule), without the pairs


def cover_sweep(cfg, store) -> pd.DataFrame:
    rows = []
    for cls_name in cfg.cover.classes:
        for dname, spec in cfg.cover.dists.items():
            for alpha in cfg.cover.alphas:
                fn = functools.partial(cover_trial, cls_name, mixture(spec), cfg.cover.rule)
                res = empirical_sample_complexity(fn, alpha, cfg.beta, trials=cfg.trials, confidence=cfg.confidence,
                                                  rel_tol=cfg.rel_tol, seed=cfg.seed, n_jobs=cfg.n_jobs, store=store,
                                                  key=f"cover/{cls_name}/{dname}/alpha={alpha}")
                d = CLASSES[cls_name][1]
                rows.append({"class": cls_name, "vc": d, "dist": dname, "alpha": alpha, "n_pub_star": res.n_star,
                             "alon2019.lemma3.3": evaluate("alon2019.lemma3.3", d=d, alpha=alpha, beta=cfg.beta).value,
                             "alon2019.thm4.1": evaluate("alon2019.thm4.1", alpha=alpha).value})
                print(f"cover {cls_name} {dname} alpha={alpha} n_pub*={res.n_star}", flush=True)
    return pd.DataFrame(rows)


def fit_slopes(table: pd.DataFrame) -> pd.DataFrame:
    """Least-squares slope of log n_pub* against log(1/α) per class and distribution."""
    rows = []
    for (cls_name, dname), g in table.groupby(["class", "dist"]):
        slope = np.polyfit(np.log(1 / g.alpha), np.log(g.n_pub_star.astype(float)), 1)[0]
        rows.append({"class": cls_name, "dist": dname, "slope_log_npub_vs_log_inv_alpha": slope,
                     "max_ratio_to_lemma3.3": float((g.n_pub_star / g["alon2019.lemma3.3"]).max())})
    return pd.DataFrame(rows)


def plot_cover(out: Path, table: pd.DataFrame) -> None:
    fig, ax = plt.subplots(figsize=(7, 4.8))
    for k, ((cls_name, dname), g) in enumerate(table.groupby(["class", "dist"])):
        ls = "-" if cls_name == "thresholds" else "--"
        ax.plot(1 / g.alpha, g.n_pub_star, marker="o", ls=ls, color=f"C{k}", label=f"{cls_name}, {dname} (measured)")
    for cls_name, g in table.groupby("class"):
        g = g.drop_duplicates("alpha")
        ax.plot(1 / g.alpha, g["alon2019.lemma3.3"], color="k", ls=":" if cls_name == "thresholds" else "-.",
                lw=1, label=f"Lemma 3.3 (VC={int(g.vc.iloc[0])})")
    g = table.drop_duplicates("alpha")
    ax.plot(1 / g.alpha, g["alon2019.thm4.1"], color="gray", lw=1, label="Thm 4.1 lower bound 1/(1600α)")
    ax.set(xscale="log", yscale="log", xlabel="1/α", ylabel="public samples n_pub",
           title="public α-cover: measured n_pub(α, β=0.05) vs bounds")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(out / "cover_npub.png", dpi=130)
    plt.close(fig)


# ------------------------------------------------------------------ (b) ASSPP vs private-only
def block_distribution(bits: int, width: int) -> tuple[FiniteDistribution, int]:
    """D uniform on ``width`` consecutive grid points in the middle of [2^bits]; target t* = centre."""
    j = 2 ** (bits - 1) - width // 2
    return FiniteDistribution(np.arange(j, j + width), np.full(width, 1.0 / width)), j + width // 2


def asspp_trial(method: str, bits: int, width: int, noise: float, n_pub: int, eps: float, alpha: float,
                n: int, rng) -> float:
    """Excess error (1 − 2η)·dis(h, t*) of ASSPP (cover from n_pub public points) or of ExpMech over all of H."""
    D, t_star = block_distribution(bits, width)
    cls = Thresholds(2**bits)
    X, y = cls.sample([t_star], D, n, rng, noise=noise)
    if method == "asspp":
        h = A.asspp(cls, X, y, D.sample(n_pub, rng), eps, rng)
    else:
        h = np.array([B.learn_interval_proper(X, y, 2**bits, eps, rng)])
    return float((1 - 2 * noise) * cls.disagreement(h, [t_star], D)[0])


def asspp_sweep(cfg, store) -> pd.DataFrame:
    c = cfg.asspp
    rows = []
    for method in ["asspp", "private_only"]:
        for bits in c.bits:
            fn = functools.partial(asspp_trial, method, int(bits), c.width, c.noise, c.n_pub, cfg.eps, c.alpha)
            res = empirical_sample_complexity(fn, c.alpha, cfg.beta, trials=cfg.trials, confidence=cfg.confidence,
                                              rel_tol=cfg.rel_tol, seed=cfg.seed, n_jobs=cfg.n_jobs, store=store,
                                              key=f"asspp/{method}/bits={bits}")
            rows.append({"method": method, "log2_N": int(bits), "n_pub": c.n_pub if method == "asspp" else 0,
                         "n_priv_star": res.n_star})
            print(f"asspp {method} log2N={bits} n_priv*={res.n_star}", flush=True)
    return pd.DataFrame(rows)


def plot_asspp(out: Path, table: pd.DataFrame, cfg) -> None:
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for k, (method, g) in enumerate(table.groupby("method")):
        ax.plot(g.log2_N, g.n_priv_star, "o-", color=f"C{k}", label=f"{method} (measured)")
    bits = np.array(sorted(table.log2_N.unique()))
    c = cfg.asspp
    # Thm 3.1's shape with VC = 1 (constant 1): does not depend on N
    shape = evaluate("alon2019.thm3.1.n_priv", d=1, alpha=c.alpha, beta=cfg.beta, eps=cfg.eps).value
    ax.axhline(shape, color="k", ls=":", lw=1, label="alon2019.thm3.1.n_priv (shape, c=1)")
    # Exponential mechanism over all N+1 thresholds (Thm 3.2 of Beimel et al., H = C)
    ax.plot(bits, [evaluate("beimel2014.thm3.2", H_size=2.0**b + 1, alpha=c.alpha, beta=cfg.beta, eps=cfg.eps).value
                   for b in bits], "k--", lw=1, label="beimel2014.thm3.2 over all N+1 thresholds (shape, c=1)")
    ax.set(xlabel="log2 N (grid size)", ylabel="private samples n_priv*",
           title=f"semi-private (n_pub={c.n_pub}) vs private-only, η={c.noise}, α={c.alpha}")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "asspp_nstar.png", dpi=130)
    plt.close(fig)


# ------------------------------------------------------------------ (c) Reduction B
def _d0(k, rng):
    return rng.random(k), rng.random(k) < 0.5


def _asspp_learner(eps, X, y, X_pub, rng):
    return A.asspp(Thresholds(None), X, y, X_pub, eps, rng)


def premise_trial(n_priv: int, n_pub: int, eps: float, t_star: float, n: int, rng) -> float:
    """Excess error on D(p) = p·D + (1−p)·D0 of ASSPP fed D(p) samples: err − min = p·|t − t*|."""
    p = 1.0 / (100 * n_pub)
    from_d = rng.random(n_priv) < p
    X, y = _d0(n_priv, rng)
    y = np.where(from_d, X < t_star, y)
    X_pub = rng.random(n_pub)  # both mixture components have the uniform x-marginal
    h = _asspp_learner(eps, X, y, X_pub, rng)
    return float(p * abs(h[0] - t_star))


def reduction_trial(n_priv: int, n_pub: int, eps: float, t_star: float, n: int, rng) -> list:
    """One run of B on S̃ ∼ D^ñ (D: x ∼ U[0,1], y = 1[x < t*]): [err(h; D), exited early]."""
    n_tilde = math.ceil(n_priv / (10 * n_pub))
    Xt = rng.random(n_tilde)
    out = A.reduction_b(Xt, Xt < t_star, functools.partial(_asspp_learner, eps), _d0, n_priv, n_pub, rng)
    return [abs(out.hypothesis[0] - t_star), float(out.exited_early)]


def _stored_trials(store, key: str, fn, n: int, cfg, trials: int) -> list:
    """All ``trials`` outputs of fn at size n, read from / written to one record (resumable)."""
    rec = store.get(key)
    if rec is None or rec["trials_requested"] != trials or rec["seed"] != cfg.seed:
        values = run_trials(fn, n, range(trials), seed=cfg.seed, n_jobs=cfg.n_jobs)
        rec = {"key": key, "n": n, "seed": cfg.seed, "trials_requested": trials, "values": values}
        store.put(key, rec)
    return rec["values"]


def reduction_sweep(cfg, store) -> pd.DataFrame:
    """Claim 4.6: α_A = measured (1 − 1/18)-quantile of ASSPP's excess on D(p) (the premise);
    B fails when err(h; D) > 100·n_pub·α_A, which should happen w.p. ≤ 1/16."""
    c = cfg.reduction
    rows = []
    for n_pub in c.n_pub:
        prem = np.array(_stored_trials(store, f"reduction/premise/t={c.t_star}/n_priv={c.n_priv}/n_pub={n_pub}",
                                       functools.partial(premise_trial, c.n_priv, n_pub, cfg.eps, c.t_star), 0, cfg, c.trials))
        alpha_a = float(np.quantile(prem, 1 - 1 / 18))
        red = np.array(_stored_trials(store, f"reduction/B/t={c.t_star}/n_priv={c.n_priv}/n_pub={n_pub}",
                                      functools.partial(reduction_trial, c.n_priv, n_pub, cfg.eps, c.t_star), 1, cfg, c.trials))
        err, early = red[:, 0], red[:, 1] > 0
        guarantee = evaluate("alon2019.lemma4.4.alpha", alpha=alpha_a, n_pub=n_pub).value
        rows.append({"n_pub": n_pub, "n_priv": c.n_priv, "n_tilde": math.ceil(c.n_priv / (10 * n_pub)),
                     "p": 1 / (100 * n_pub), "alpha_A_measured": alpha_a, "guarantee_100_npub_alpha": guarantee,
                     "failure_rate": float(np.mean(err > guarantee)), "claim_failure_bound": 1 / 16,
                     "early_exit_rate": float(np.mean(early)), "median_err_D": float(np.median(err)),
                     "trials": c.trials})
        print(rows[-1], flush=True)
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ audits
def audit_table(cfg) -> pd.DataFrame:
    """Exact audit of ASSPP (fixed public set, all private databases of size 3 on a 5-point grid) and
    empirical audits of permute-and-flip and the Gaussian mechanism with a mis-calibrated twin."""
    a = cfg.audit
    rng = np.random.default_rng(cfg.seed)
    cls, cover = Thresholds(5), Thresholds(5).cover(np.array([1, 3]))
    law = lambda db: A.asspp_probabilities(cls, np.array([e[0] for e in db]),  # noqa: E731
                                           np.array([e[1] for e in db], dtype=bool), cover, a.eps)
    res = exact_audit(law, [(x, y) for x in range(5) for y in (0, 1)], 3)
    rows = [{"mechanism": "ASSPP ExpMech over the public cover (exact)", "claimed_eps": a.eps, "delta": 0.0,
             "measured_eps": res.eps_max, "kind": "exact max log-ratio", "flagged": not res.passes(a.eps)}]
    for factor in (1.0, 3.0):
        outs = [np.array([permute_and_flip(s, factor * a.eps, 1.0, rng) for _ in range(a.pf_samples)], float)
                for s in (np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]))]
        eps_hat = empirical_epsilon(*outs, np.array([0.5, 1.5]))
        rows.append({"mechanism": f"permute_and_flip run at {factor}×ε", "claimed_eps": a.eps, "delta": 0.0,
                     "measured_eps": eps_hat, "kind": "95% lower bound", "flagged": eps_hat > a.eps})
    claimed = eps_from_rho(a.rho, a.delta)
    for factor in (1.0, 1 / 3):
        sigma = gaussian_sigma(a.rho, 1.0) * factor
        outs = [gaussian_mechanism(np.full(a.gauss_samples, v), sigma, rng) for v in (0.0, 1.0)]
        eps_hat = empirical_epsilon(*outs, np.linspace(-1.0, 2.0, 13), delta=a.delta)
        rows.append({"mechanism": f"gaussian_mechanism with sigma×{factor:.3g}", "claimed_eps": claimed,
                     "delta": a.delta, "measured_eps": eps_hat, "kind": "95% lower bound", "flagged": eps_hat > claimed})
    return pd.DataFrame(rows)


@register("alon2019")
def run(cfg) -> None:
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    store = RecordStore(out / "records")
    parts = set(cfg.parts)
    if "cover" in parts:
        table = cover_sweep(cfg, store)
        table.to_csv(out / "cover_npub.csv", index=False)
        fit_slopes(table).to_csv(out / "cover_slopes.csv", index=False)
        plot_cover(out, table)
    if "asspp" in parts:
        table = asspp_sweep(cfg, store)
        table.to_csv(out / "asspp_nstar.csv", index=False)
        plot_asspp(out, table, cfg)
    if "audit" in parts:
        audit_table(cfg).to_csv(out / "audits.csv", index=False)
    if "reduction" in parts:
        reduction_sweep(cfg, store).to_csv(out / "reduction_b.csv", index=False)
