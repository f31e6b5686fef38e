"""The theory side of ``scripts/reproduce.py``: each theory preset (``theory_<paper>``) and the bound
curves (``bounds``) as an artefact with an output folder, and their ``--quick`` grids.

A theory artefact is ``python run.py experiment=theory_<paper> experiment.out=<out>``: its records
go under ``<out>/records`` (resumable), its CSVs, figures and summary under ``<out>``. ``--quick``
replaces the preset's grids by :data:`QUICK` (a few points, few trials: a pipeline check whose
numbers mean nothing).
"""
from __future__ import annotations

from pathlib import Path

from experiments.theory.runner import compose, run_theory, theory_presets

#: the theory artefacts, one per preset conf/experiment/theory_<paper>.yaml
THEORY = tuple(theory_presets())
BOUNDS = "bounds"

#: ``--quick`` overrides per theory preset: every section runs, on tiny grids
QUICK = {
    "theory_alon2019": [
        "experiment.trials=60", "experiment.repeats=2", "experiment.cover.classes=[thresholds]",
        "experiment.cover.alphas=[0.3,0.25,0.2,0.15,0.1]", "experiment.cover.dists={uniform:{betas:[[1.0,1.0,1.0]],atoms:[]}}",
        "experiment.asspp.bits=[16,20,24,28,32]", "experiment.lower_bound.alphas=[0.02]",
        "experiment.lower_bound.npub_alpha=[0.1,1]", "experiment.lower_bound.n_priv_scan.npub_alpha=[1]",
        "experiment.lower_bound.n_priv_scan.n_priv_alpha=[50]", "experiment.lower_bound.trials=60",
        "experiment.growing.n_pub=[10,20,30,50,100]", "experiment.growing.repeats=2",
        "experiment.growing.cover_draws=20", "experiment.growing.dists={uniform:{kind:uniform}}",
        "experiment.reduction.n_pub=[1]", "experiment.reduction.n_priv=5000", "experiment.reduction.trials=60",
        "experiment.audit.pf_samples=500", "experiment.audit.gauss_samples=5000"],
    "theory_bassily2020": [
        "experiment.apap.N_private=[4,8]", "experiment.apap.N_apap=[4,8]", "experiment.apap.m=100",
        "experiment.apap.n_min=4096",
        "experiment.stumps.p={gaussian:[4,16],pmw:[4],public:[4,16]}",
        "experiment.stumps.n_min={gaussian:256,pmw:8192,public:64}",
        "experiment.regime.n=[16384]", "experiment.regime.log2N=[8,12]", "experiment.regime.trials=2",
        "experiment.apap_p.m=100", "experiment.apap_p.n=16384", "experiment.apap_p.p=[2,4,8,16,32]",
        "experiment.apap_p.trials=2", "experiment.dichotomy.p=[16]", "experiment.dichotomy.m=[0,100,300]"],
    "theory_beimel2014": [
        "experiment.trials=60", "experiment.repeats=2", "experiment.point.learners=[proper,nonprivate]",
        "experiment.point.d=[4,8,12,16,20]", "experiment.curves.d=[8]", "experiment.curves.n=[50,200]",
        "experiment.curves.trials=60", "experiment.interval.d=[4,8,12,16,20]",
        "experiment.release.laplace_d=[4,8,12,16,20]", "experiment.release.blr_d=[1]",
        "experiment.family.learners=[proper]", "experiment.family.d=[8]",
        "experiment.reconstruction.T=256", "experiment.reconstruction.mu=[0.01,0.05]",
        "experiment.reconstruction.trials=200", "experiment.seed_learner.ell=[4,8]",
        "experiment.weights.d=[8]", "experiment.weights.trials=2"],
    "theory_liu2021": [
        "experiment.mixture.n=5000", "experiment.mixture.shifts=[0.0,0.6]",
        "experiment.mixture.m=[30,100,300,1000,3000,10000]", "experiment.mixture.lp_max_m=3000",
        "experiment.mixture.trials=2", "experiment.pmwpub.n=[1000,2000,3000,5000,10000]",
        "experiment.pmwpub.n_fixed=1000", "experiment.pmwpub.eps=[0.25,0.5,1.0,1.5,2.0]",
        "experiment.pmwpub.T=[10]", "experiment.pmwpub.trials=2", "experiment.support.s=[256,320,384,448,512]",
        "experiment.support.T=[10]", "experiment.support.trials=2", "experiment.domain.extra=[0,1,2,3,4]",
        "experiment.domain.T=[10]", "experiment.domain.trials=2", "experiment.lemma42.draws=20",
        "experiment.lemma42.adult_deltas=[0.0]", "experiment.lemma42.fractions=[0.01]",
        "experiment.audit.samples=40"],
    "theory_nandi2020": [
        "experiment.ms=[10,30,100,300,1000]", "experiment.ms_btt18_extra=[]", "experiment.repeats_btt18=2",
        "experiment.trials=10", "experiment.beta=0.3", "experiment.unions.K_btt18=[1,2]",
        "experiment.unions.repeats_btt18=1", "experiment.unions.K_agprivcl=[]",
        "experiment.universal.n=[100000000]", "experiment.universal.trials=2",
        "experiment.noise.gammas=[0.0,0.1]", "experiment.noise.trials=2"],
}


def theory_out(root: Path, name: str) -> Path:
    """Output folder of a theory artefact under ``root``: ``root/theory/<paper>`` (``root/bounds``
    for the bound curves), the layout of ``results/``."""
    return root / BOUNDS if name == BOUNDS else root / "theory" / name.removeprefix("theory_")


def reproduce_theory(name: str, out: Path, quick: bool = False) -> None:
    """Run theory preset ``name`` (``theory_<paper>``) into ``out`` (records under ``out/records``,
    resumed when present), or draw the bound curves into ``out`` for ``bounds``."""
    if name == BOUNDS:
        from experiments.theory.bound_figures import plot_papers

        plot_papers(out)
        return
    cfg = compose([f"experiment={name}", f"experiment.out={out}", *(QUICK[name] if quick else [])])
    run_theory(cfg)
