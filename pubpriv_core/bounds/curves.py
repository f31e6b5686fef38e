"""Comparison curves per paper (the data behind ``scripts/bounds.py plot``).

Each ``<paper>_panels()`` returns ``Panel`` objects: a long table of (curve, x, y, bound id,
explicit) evaluated through the registry, plus regime lines (vertical/horizontal reference values
with their labels). Parameters follow the specs' sanity settings (β = 0.05, ε = 1, α = 0.1 unless
the panel sweeps them).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import optimize

from .registry import evaluate
from .search import smallest_integer

COLUMNS = ["panel", "curve", "bound_id", "explicit", "x", "y"]


@dataclass
class Panel:
    """One subplot: curves (long table), axis labels and regime lines [(value, label)]."""

    title: str
    xlabel: str
    ylabel: str
    curves: pd.DataFrame
    vlines: list = field(default_factory=list)
    hlines: list = field(default_factory=list)
    xlog: bool = True
    ylog: bool = True
    ylim: tuple | None = None

    def table(self) -> pd.DataFrame:
        """Curves plus regime lines (y = NaN for vertical, x = NaN for horizontal) for CSV."""
        lines = [{"panel": self.title, "curve": f"regime: {label}", "bound_id": "",
                  "explicit": True, "x": x, "y": np.nan} for x, label in self.vlines]
        lines += [{"panel": self.title, "curve": f"regime: {label}", "bound_id": "",
                   "explicit": True, "x": np.nan, "y": y} for y, label in self.hlines]
        return pd.concat([self.curves, pd.DataFrame(lines, columns=COLUMNS)], ignore_index=True)


def series(panel: str, curve: str, bound_id: str, xname: str, xs, **fixed) -> pd.DataFrame:
    """Evaluate ``bound_id`` along ``xname`` ∈ xs with the other parameters fixed."""
    rows = []
    for x in xs:
        r = evaluate(bound_id, **{xname: x}, **fixed)
        rows.append({"panel": panel, "curve": curve, "bound_id": bound_id,
                     "explicit": r.explicit, "x": float(x), "y": r.value})
    return pd.DataFrame(rows, columns=COLUMNS)


def constant(panel: str, curve: str, bound_id: str, xs, **params) -> pd.DataFrame:
    """A bound that does not depend on the x axis, repeated along xs."""
    r = evaluate(bound_id, **params)
    return pd.DataFrame({"panel": panel, "curve": curve, "bound_id": bound_id,
                         "explicit": r.explicit, "x": np.asarray(xs, float), "y": r.value},
                        columns=COLUMNS)


def _panel(title, xlabel, ylabel, parts, **kw) -> Panel:
    return Panel(title, xlabel, ylabel, pd.concat(parts, ignore_index=True), **kw)


def _alphas(lo: float, hi: float, k: int = 40) -> np.ndarray:
    return np.geomspace(lo, hi, k)


# ---------------------------------------------------------------- liu2021
def liu2021_panels() -> list[Panel]:
    """Prop 4.3 sizes vs α for growing divergence; Thm 4.5 ε(ρ) exact vs closed form."""
    t1 = "Prop 4.3: sizes for best-mixture error ≤ α (|Q|=1e5, β=0.05)"
    al = _alphas(0.005, 0.5)
    parts = [series(t1, f"public m, D2=D∞={v}", "liu2021.prop4.3.m", "alpha", al, beta=0.05,
                    Q_size=1e5, D2=v, Dinf=v) for v in (0.0, 0.5, 1.0, 2.0)]
    parts.append(series(t1, "private n", "liu2021.prop4.3.n", "alpha", al, beta=0.05,
                        Q_size=1e5))
    p1 = _panel(t1, "α", "samples", parts)
    t2 = "Thm 4.5: ε(δ) of ρ-zCDP (δ=1e-5 and δ=1e-10)"
    rhos = np.geomspace(1e-4, 100, 40)
    parts, vlines = [], []
    for delta in (1e-5, 1e-10):
        parts.append(series(t2, f"exact CKS, δ={delta:g}", "liu2021.thm4.5", "rho", rhos,
                            delta=delta))
        parts.append(series(t2, f"ρ + 2√(ρ ln 1/δ), δ={delta:g}", "liu2021.thm4.5.upper", "rho",
                            rhos, delta=delta))
        vlines.append((4 * math.log(1 / delta), f"ρ = 4 ln(1/δ), δ={delta:g}: linear term wins"))
    p2 = _panel(t2, "ρ", "ε", parts, vlines=vlines)
    t3 = "Thm 4.4 shape (c=1): private error term vs n (|Q|=1e5, β=0.05)"
    ns = np.geomspace(1e3, 1e7, 30)
    parts = [series(t3, f"m={m:g}, ρ={rho:g}", "liu2021.thm4.4", "n", ns, m=m, Q_size=1e5,
                    beta=0.05, rho=rho) for m in (1e3, 1e5) for rho in (0.005, 0.5)]
    return [p1, p2, _panel(t3, "n (private rows)", "max-error term", parts)]


# ---------------------------------------------------------------- bassily2020
def bassily2020_panels() -> list[Panel]:
    """Explicit Thm 10 chain vs α; private-only PMW vs grid size against APAP (no N)."""
    t1 = "Thm 10 explicit chain (ε=1, δ=1e-6, β=0.05)"
    al = _alphas(0.01, 0.5, 20)
    fixed = dict(beta=0.05, eps=1.0, delta=1e-6)
    parts = []
    for d in (1, 2, 4):
        parts.append(series(t1, f"private n, d=p={d}", "bassily2020.thm10.explicit.n", "alpha",
                            al, d=d, p=d, **fixed))
        parts.append(series(t1, f"public m, d={d}", "bassily2020.thm10.explicit.m", "alpha", al,
                            d=d, beta=0.05))
    p1 = _panel(t1, "α", "samples", parts)
    t2 = "Thresholds on a grid of N points (α=0.1): PMW private-only vs APAP"
    bits = np.unique(np.geomspace(4, 4096, 40).astype(int))
    pmw = pd.DataFrame({"panel": t2, "curve": "private-only PMW (Lemma 7, |X̃|=|H̃|=N)",
                        "bound_id": "bassily2020.lemma7", "explicit": True,
                        "x": bits.astype(float), "y": [_pmw_grid(float(b), fixed) for b in bits]},
                       columns=COLUMNS)
    apap = evaluate("bassily2020.thm10.explicit.n", d=1, p=1, alpha=0.1, **fixed).value
    flat = constant(t2, "APAP private n (independent of N)", "bassily2020.thm10.explicit.n",
                    bits, d=1, p=1, alpha=0.1, **fixed)
    cross = _crossover_bits(apap, fixed)
    p2 = _panel(t2, "log2 N", "private samples", [pmw, flat],
                vlines=[(cross, f"crossover log2 N = {cross:.0f}")])
    return [p1, p2]


def _pmw_grid(bits: float, fixed) -> float:
    """Lemma 7 for thresholds on a grid of N = 2^bits points (|X̃| = |H̃| = N, exact ints)."""
    size = 2 ** round(bits) if bits == round(bits) else math.exp(bits * math.log(2))
    return evaluate("bassily2020.lemma7", X_size=size, H_size=size, alpha=0.1, **fixed).value


def _crossover_bits(target: float, fixed) -> float:
    """log2 N at which private-only PMW needs as many samples as APAP."""
    return float(optimize.brentq(lambda b: _pmw_grid(b, fixed) - target, 2.5, 1000))


# ---------------------------------------------------------------- alon2019
def alon2019_panels() -> list[Panel]:
    """Minimum public sample (Lemma 3.3) vs α against 1/α, 1/α² and the Ω(1/α) lower bound."""
    t1 = "Lemma 3.3: minimum n_pub for an α-cover (β=0.05)"
    al = _alphas(0.001, 0.3, 30)
    parts = []
    for d in (1, 2, 4):
        parts.append(series(t1, f"Lemma 3.3 explicit, d={d}", "alon2019.lemma3.3", "alpha", al,
                            d=d, beta=0.05))
    parts.append(series(t1, "Lemma 3.3 exact growth, d=1", "alon2019.lemma3.3.growth", "alpha",
                        al, d=1, beta=0.05))
    parts.append(series(t1, "Thm 3.1 shape (d ln(1/α)+ln(1/β))/α, d=1", "alon2019.thm3.1.n_pub",
                        "alpha", al, d=1, beta=0.05))
    parts.append(series(t1, "Thm 4.1 lower bound 1/(1600α)", "alon2019.thm4.1", "alpha", al))
    inv_sq = pd.DataFrame({"panel": t1, "curve": "1/α² (naive)", "bound_id": "", "explicit": True,
                           "x": al, "y": 1 / al ** 2}, columns=COLUMNS)
    cross = _npub_beats_inverse_square(1, 0.05)
    p1 = _panel(t1, "α", "public samples", parts + [inv_sq],
                vlines=[(cross, f"d=1: below α={cross:.3f} the d/α bound beats 1/α²")])
    t2 = "Lemma 3.3: failure bound vs n_pub (d=1)"
    parts = [series(t2, f"α={a}", "alon2019.lemma3.3.fail", "n_pub", np.geomspace(50, 2e5, 60),
                    d=1, alpha=a) for a in (0.1, 0.05, 0.01, 0.001)]
    p2 = _panel(t2, "n_pub", "P[not an α-cover] bound", parts, hlines=[(0.05, "β = 0.05")],
                ylim=(1e-8, 1e4))
    p2.curves = p2.curves[(p2.curves.y < 1e6) & (p2.curves.y > 1e-12)]
    return [p1, p2]


def _npub_beats_inverse_square(d: int, beta: float) -> float:
    """Largest α on a fine grid where min n_pub(d, α, β) ≤ 1/α²."""
    grid = np.geomspace(1e-3, 0.3, 200)
    ok = [a for a in grid if evaluate("alon2019.lemma3.3", d=d, alpha=a, beta=beta).value
          <= 1 / a ** 2]
    return float(max(ok))


# ---------------------------------------------------------------- beimel2014
def beimel2014_panels() -> list[Panel]:
    """POINT_d: proper vs improper learning and data release, samples vs d (α=0.1, β=0.05, ε=1)."""
    fixed = dict(alpha=0.1, beta=0.05, eps=1.0)
    ds = np.unique(np.geomspace(2, 4096, 24).astype(int))
    t1 = "Learning POINT_d (α=0.1, β=0.05, ε=1)"
    parts = [
        series(t1, "Cor 3.8 lower (proper)", "beimel2014.cor3.8", "d", ds, beta=0.05, eps=1.0),
        series(t1, "Lemma 3.9 lower (proper, implicit root)", "beimel2014.lemma3.9", "d", ds,
               **fixed),
        series(t1, "Lemma 3.4 learner: exact n* on D_i", "beimel2014.lemma3.4.exact", "d", ds,
               **fixed),
        series(t1, "Thm 4.2 improper (derived constants)", "beimel2014.thm4.2.derived", "d",
               ds[ds >= 16], **fixed),
        constant(t1, "Claim 4.5 improper, O(1) in d", "beimel2014.claim4.5", ds, **fixed),
        constant(t1, "Thm 2.4 non-private shape (c=1), VC=1", "beimel2014.thm2.4", ds, d=1,
                 alpha=0.1, beta=0.05),
    ]
    cross = _proper_meets_improper(fixed)
    p1 = _panel(t1, "d (log2 |X|)", "samples", parts,
                vlines=[(cross, f"d = {cross}: proper n* exceeds improper Thm 4.2")])
    p1.curves = p1.curves[p1.curves.y > 0]          # Lemma 3.9 is vacuous (0) for small d
    t2 = "Sanitizing POINT_d (α=0.1, β=0.05, ε=1)"
    parts = [
        series(t2, "Thm 7.2 lower bound", "beimel2014.thm7.2", "d", ds, **fixed),
        series(t2, "Laplace histogram m* (exact)", "beimel2014.laplace_histogram", "d", ds,
               **fixed),
        series(t2, "Thm 7.1 (BLR) shape, c=1", "beimel2014.thm7.1", "d", ds, **fixed),
    ]
    return [p1, _panel(t2, "d (log2 |X|)", "samples", parts)]


def _proper_meets_improper(fixed) -> int:
    """Smallest d ≥ 16 where the proper learner's exact n* reaches Thm 4.2's derived size."""
    def proper_wins_no_more(d: int) -> bool:
        return (evaluate("beimel2014.lemma3.4.exact", d=d, **fixed).value
                >= evaluate("beimel2014.thm4.2.derived", d=d, **fixed).value)
    return smallest_integer(proper_wins_no_more, 16)


# ---------------------------------------------------------------- nandi2020
def nandi2020_panels() -> list[Panel]:
    """≈ forms vs m (P1, P2), universal bounds vs α (P3), Claim 3.6 constant vs root."""
    a, d = 0.1, 10
    ms = np.geomspace(1, 1e6, 60)
    t1 = f"n vs number of queries m (≈ forms, d={d}, α={a})"
    parts = [series(t1, "Thm 3.3 (this paper)", "nandi2020.thm3.3.approx", "m", ms, d=d, alpha=a),
             series(t1, "BTT18 agnostic (Lemma 2.4)", "nandi2020.lemma2.4.approx", "m", ms, d=d,
                    alpha=a)]
    regimes = [(1 / a, "m = 1/α"), (1 / a ** 3, "m = 1/α³")]
    p1 = _panel(t1, "m", "private samples (c=1)", parts, vlines=regimes)
    t2 = f"Improvement over BTT18 (α={a})"
    p2 = _panel(t2, "m", "ratio", [series(t2, "gain max(1, min(√(mα), 1/α))",
                                          "nandi2020.thm3.3.gain", "m", ms, alpha=a)],
                vlines=regimes)
    al = _alphas(0.001, 0.5)
    t3 = f"Universal algorithms vs α (≈ forms, d={d}, ε=1)"
    parts = [series(t3, "Thm 4.1 (this paper)", "nandi2020.thm4.1.approx", "alpha", al, d=d),
             series(t3, "Remark 1: BTT18 + ABM19", "nandi2020.remark1", "alpha", al, d=d),
             series(t3, r"BTT18 relabel $d^{1.5}/\alpha^{2.5}$", "nandi2020.btt18.universal", "alpha", al,
                    d=d),
             series(t3, "DF18 d/(εα³)", "nandi2020.df18", "alpha", al, d=d, eps=1.0),
             series(t3, "DF19 d/α² + d²/(εα)", "nandi2020.df19", "alpha", al, d=d, eps=1.0),
             series(t3, "non-private (d+ln(1/β))/α²", "nandi2020.nonprivate", "alpha", al, d=d,
                    beta=0.05)]
    p3 = _panel(t3, "α", "private samples (c=1)", parts,
                vlines=[(1 / math.sqrt(d), "α = 1/√d")])
    t4 = "Claim 3.6: constant 50 vs the proof's own tail bound (α=0.1, β'=0.1)"
    dims = np.unique(np.geomspace(1, 1000, 16).astype(int))
    parts = [series(t4, "closed form 50(d ln(1/α)+ln(1/β'))/α²", "nandi2020.claim3.6", "d",
                    dims, alpha=a, beta=0.1),
             series(t4, r"numeric root of $2(en/d)^{2d}\,e^{-n\alpha^2/8} \leq \beta'$",
                    "nandi2020.claim3.6.root", "d", dims, alpha=a, beta=0.1)]
    return [p1, p2, p3, _panel(t4, "d (VC dimension)", "n_o", parts)]


PAPERS = {"liu2021": liu2021_panels, "bassily2020": bassily2020_panels,
          "alon2019": alon2019_panels, "beimel2014": beimel2014_panels,
          "nandi2020": nandi2020_panels}
