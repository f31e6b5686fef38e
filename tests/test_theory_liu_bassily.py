"""Theory runner sections for Liu et al. 2021 and Bassily et al. 2020 on tiny settings."""
import numpy as np

import experiments.theory.bassily2020 as bass
import experiments.theory.liu2021 as liu
import experiments.theory.runner as theory


def _cfg(paper: str, tmp_path, *overrides):
    return theory.compose([f"experiment=theory_{paper}", f"experiment.out={tmp_path}",
                           "experiment.n_jobs=1", *overrides]).experiment


def test_private_pmw_regime_reports_reach_and_false_tops(tmp_path):
    cfg = _cfg("bassily2020", tmp_path, "experiment.regime.n=[4096]",
               "experiment.regime.log2N=[4,14]", "experiment.regime.trials=2")
    df = bass.regime_sweep(cfg, tmp_path).set_index("log2N")
    assert (tmp_path / "private_pmw_regime.csv").exists()
    assert df.reach_share.between(0, 1).all() and df.p_false_top.between(0, 1).all()
    # 16385 tests per pass against c ≈ 3900 updates: the budget ends inside the first pass
    assert df.loc[14, "false_top_per_pass_over_c"] > 1 > df.loc[4, "false_top_per_pass_over_c"]
    assert df.loc[14, "passes_mean"] == 1 and df.loc[14, "reach_share"] < 1
    assert df.loc[14, "err_mean"] > cfg.alpha and df.loc[4, "passes_mean"] > 1


def test_apap_p_and_dichotomy_sections(tmp_path):
    cfg = _cfg("bassily2020", tmp_path, "experiment.apap_p.p=[2,4,8,16,32]",
               "experiment.apap_p.n=65536", "experiment.apap_p.trials=2",
               "experiment.dichotomy.p=[16]", "experiment.dichotomy.m=[0,2000]")
    df, fits = bass.apap_p_sweep(cfg, tmp_path, np.random.default_rng(0))
    assert len(df) == 5 and fits["slope_log_err_vs_log_p"]["n_points"] == 5
    assert fits["thm10_shape_slope"] > 0 and fits["thm10_fit"]["c"] > 0
    dich = bass.dichotomy_sweep(cfg, tmp_path).set_index("m")
    assert dich.loc[2000, "n_star"] == 1 < dich.loc[0, "n_star"]   # enough public data: no private
    regime = bass.regime_sweep(_cfg("bassily2020", tmp_path, "experiment.regime.n=[4096]",
                                    "experiment.regime.log2N=[4]", "experiment.regime.trials=2"), tmp_path)
    theory.save_figure(bass.figure_regime_p_dichotomy(regime, df, dich.reset_index(), fits, cfg),
                       tmp_path / "fig_regime_p_dichotomy.png")
    assert (tmp_path / "fig_regime_p_dichotomy.png").exists()


def test_thm44_domain_sweep_and_audit_sections(tmp_path):
    cfg = _cfg("liu2021", tmp_path, "experiment.preset=tiny", "experiment.k=2",
               "experiment.domain.n=500", "experiment.domain.s=20", "experiment.domain.extra=[0,1,2,3,4]",
               "experiment.domain.trials=2", "experiment.domain.T=[3]", "experiment.domain.workload_size=5",
               "experiment.audit.samples=20", "experiment.audit.factors=[1]")
    df, fit = liu.sweep(cfg, tmp_path, "domain", np.random.default_rng(0))
    assert len(df) == 5 and df.log_domain_size.is_monotonic_increasing
    assert (df.excess_mean >= 0).all() and fit["slope"]["n_points"] == 5
    assert fit["thm44_fit"]["c"] > 0
    audit = liu.audit(cfg, tmp_path)
    assert audit.pairs_total.iloc[0] == 48 and audit.pairs.iloc[0] == 7
    assert (tmp_path / "pmwpub_audit.csv").exists()
