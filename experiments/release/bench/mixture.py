"""Time the exact best mixture error (Def. 4.1) on the figures' public sources.

For each setting — ADULT (Fig. 2: 3-way, W = 256, every public bias Δ) and every public source of
``fig1_nist``, ``fig3_nist`` and ``nist_shift`` — builds the problem of repetition 0 exactly as the
sweep does and solves the LP by constraint generation
(:func:`~pubpriv_core.algorithms.best_mixture.best_mixture_exact`); what each line prints is
said in :mod:`experiments.mixture_timing`. The settings ``paper scale shift=…`` are
``fig1_paper_scale``'s problem (synthetic ``acs_full``, n = 130,000, a 130,000-row public source
per shift, W = 4,096), where the incidence matrix (532M non-zeros) is not built: the solver runs
on the engine (:class:`~pubpriv_core.algorithms.mixture_operator.SupportIncidence`) and reports
the certified interval [lower, upper] it reaches within the time limit, with the MW-100 estimate
beside it. liu2021's LPs are the theory wing's ``mixture_theory`` benchmark.

    PUBPRIV_DATA=../shared/data python scripts/bench.py mixture [--only nist] [--no-mw]
        [--time-limit 60] [--progress] [--join-nonzeros 250000]
"""
from __future__ import annotations

from experiments import mixture_timing
from pubpriv_core.problems import config_problem, data_context
from experiments.release.running.sweep import compose_exact

_NIST = ["experiment=fig1_nist", "algo=best_mixture"]
_FULL = [*_NIST, "dataset.reduced=false", "workload.k=3"]
_MA_PUBLICS = ("{year:2018}", "{region:national}", "{region:tx}")
_TX_PUBLICS = ("{year:2018}", "{region:national}", "{region:ma}")
_NATIONAL_PUBLICS = ("{region:ma}", "{region:tx}", "{year:2018}")
#: Fig. 2's public biases Δ (``conf/experiment/fig2_adult_bias_mixture.yaml``)
_DELTAS = (0.0, -0.05, 0.05, -0.1, 0.1, -0.2, 0.2, 0.3, 0.45, 0.65)

#: (label, Hydra overrides) of every timed setting.
SETTINGS = [
    *[(f"ADULT Δ={d:g}", ["experiment=fig2_adult_bias_mixture", f"public.delta={d}"])
      for d in _DELTAS],
    *[(f"NIST reduced MA-2019, public {p}", [*_NIST, f"public={p}"]) for p in _MA_PUBLICS],
    *[(f"NIST full MA-2019, public {p}", [*_FULL, f"public={p}"]) for p in _MA_PUBLICS],
    *[(f"NIST full TX-2019, public {p}", [*_FULL, "dataset.region=tx", f"public={p}"])
      for p in _TX_PUBLICS],
    *[(f"NIST full MA-2019, public {p} p={f}",
       ["experiment=fig3_nist", "algo=best_mixture", f"public={p}", f"public.fraction={f}"])
      for p in ("{year:2018}", "{region:national}") for f in (0.1, 0.01, 0.001)],
    *[(f"NIST full national-2019, public {p}", [*_FULL, "dataset.region=national", f"public={p}"])
      for p in _NATIONAL_PUBLICS],
]

#: fig1_paper_scale's public shifts
PAPER_SHIFTS = (0.0, 0.1, 0.3, 0.6)
SETTINGS += [(f"paper scale shift={shift:g}", ["experiment=fig1_paper_scale", "algo=best_mixture",
                                               f"public.shift={shift}"])
             for shift in PAPER_SHIFTS]


def problem_of(overrides: list[str]):
    """The problem of repetition 0 of the composed config, built as the sweep builds it."""
    cfg = compose_exact(overrides)
    with data_context(cfg.get("data_root")):
        return config_problem(cfg, 0)


def main(argv: list[str] | None = None) -> None:
    mixture_timing.main(SETTINGS, problem_of, __doc__.splitlines()[0], argv)
