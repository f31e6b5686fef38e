"""Time the exact best mixture error (Def. 4.1) on liu2021's largest LPs.

Two groups of settings of the ``theory_liu2021`` preset, each problem drawn as the sweep draws it
and solved by constraint generation (what each line prints: :mod:`experiments.mixture_timing`):

* ``liu2021 s=… trial=…`` — the |X̂| sweep (``support`` block: preset ``small``, all 120 3-way
  marginals, n = 10,000, ``core`` = 256 rows of the public model at shift 0.3 plus uniform
  decoys, A_0 uniform) for s = 1,024, 2,048, 4,096 and every trial
  (:func:`~experiments.theory.liu2021.sweep_problem`);
* ``liu2021 m=… shift=… trial=…`` — the exact LPs of the ``mixture`` block at its largest public
  sizes (m = 3,000 and 10,000 samples, n = 50,000;
  :func:`~experiments.theory.liu2021.mixture_problem`).

    python scripts/bench.py mixture_theory [--only "liu2021 s="] [--no-mw] [--time-limit 60]
        [--progress]
"""
from __future__ import annotations

from experiments import mixture_timing
from experiments.theory import liu2021
from experiments.theory.runner import compose
from pubpriv_core.learning import liu2021 as lv

#: the |X̂| sweep's support sizes and trials timed (the sweep's own trials: 5)
SIZES, TRIALS = (1024, 2048, 4096), 5
#: the mixture-vs-m sweep's largest public sizes (its ``lp_max_m``) and shifts
MIXTURE_M, MIXTURE_SHIFTS = (3000, 10000), (0.0, 0.3, 0.6)

#: (label, (block, point, shift, trial)) of every timed setting
SETTINGS = [(f"liu2021 s={s} trial={r}", ("support", s, None, r))
            for s in SIZES for r in range(TRIALS)]
SETTINGS += [(f"liu2021 m={m} shift={shift:g} trial={r}", ("mixture", m, shift, r))
             for m in MIXTURE_M for shift in MIXTURE_SHIFTS for r in range(TRIALS)]


def problem_of(spec: tuple) -> object:
    """The problem of one setting, drawn from the preset as its sweep draws it."""
    block, point, shift, trial = spec
    cfg = compose(["experiment=theory_liu2021"]).experiment
    if block == "support":
        return liu2021.sweep_problem(cfg, "support", point, trial)[1]
    setting = lv.Setting(cfg.preset, float(shift), cfg.model_seed, cfg.k)
    return liu2021.mixture_problem(setting, int(cfg.mixture.n), point, trial, cfg.seed)


def main(argv: list[str] | None = None) -> None:
    mixture_timing.main(SETTINGS, problem_of, __doc__.splitlines()[0], argv)
