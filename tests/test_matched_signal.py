"""Signal-matched budgets: eps_equiv sets ε = eps_equiv·n_ref/n; records carry both; the new
fields at their neutral defaults leave every config hash as it was."""
import pytest

from experiments.release.configure.checks import ConfigError, check_config
from experiments.release.configure.cli import compose_config
from experiments.release.running.repetitions import compute_record
from experiments.release.configure.signal import axis_eps
from pubpriv_core.job import matched_eps
from pubpriv_core.job import NEUTRAL_DEFAULTS, config_hash, experiment_config

SMALL = ["dataset.preset=tiny", "dataset.n=400", "workload.size=4", "T=5", "runs=1"]


def test_matched_eps_is_eps_equiv_times_n_ref_over_n():
    assert matched_eps(0.25, 100_000, 8_000) == pytest.approx(3.125)
    assert matched_eps(1.0, 100_000, 100_000) == 1.0
    with pytest.raises(ValueError):
        matched_eps(1.0, 100_000, 0)


def test_record_spends_and_carries_the_matched_eps(tmp_path):
    cfg = compose_config([*SMALL, f"results_dir={tmp_path}", "eps_equiv=0.5", "n_ref=2000"])
    record = compute_record(check_config(cfg), 0)
    n = record["n_private"]
    assert record["eps"] == pytest.approx(0.5 * 2000 / n)
    assert (record["eps_equiv"], record["n_ref"]) == (0.5, 2000)
    assert record["eps_spent"] == pytest.approx(record["eps"], rel=1e-9)   # the ledger's ε
    assert record["delta"] == pytest.approx(1 / n ** 2)
    plain = compose_config([*SMALL, f"results_dir={tmp_path}", f"eps={0.5 * 2000 / n!r}"])
    same = compute_record(check_config(plain), 0)
    assert same["eps_equiv"] is None and same["n_ref"] == 100_000
    assert same["max_error"] == record["max_error"] and same["rho"] == record["rho"]


def test_neutral_defaults_keep_config_hashes():
    cfg = compose_config(SMALL)
    old = {k: v for k, v in cfg.items() if k not in ("eps_equiv", "n_ref")}
    old["algo"] = {k: v for k, v in cfg["algo"].items()
                   if k not in ("output", "replay_variant")}
    assert config_hash(cfg) == config_hash(old)
    for dotted, neutral in NEUTRAL_DEFAULTS.items():
        *parent, key = dotted.split(".")
        changed = compose_config([*SMALL, f"{dotted}={_other(neutral)}"])
        assert config_hash(changed) != config_hash(cfg), dotted
    assert "algo" in experiment_config(cfg) and cfg["algo"]["output"] == "paper"


def _other(neutral):
    return {None: "0.5", 100_000: "1000", "paper": "released_code", 0: "1"}[neutral]


def test_eps_equiv_replaces_eps_in_the_hash_and_both_set_is_refused(tmp_path):
    base = [*SMALL, f"results_dir={tmp_path}"]
    matched = compose_config([*base, "eps_equiv=0.5"])
    assert "eps" not in experiment_config(matched)
    assert config_hash(matched) != config_hash(compose_config([*base, "eps_equiv=0.25"]))
    with pytest.raises(ConfigError, match="both set"):
        check_config(compose_config([*base, "eps_equiv=0.5", "eps=0.3"]))
    with pytest.raises(ConfigError, match="eps_equiv=900"):   # ε above the eps rule's bound
        check_config(compose_config([*base, "eps_equiv=900"]))


def test_axis_eps_indexes_matched_runs_by_eps_equiv():
    import pandas as pd

    table = pd.DataFrame({"eps": [13.1, 1.0], "eps_equiv": [1.0, None], "n_private": [7634] * 2})
    out = axis_eps(table)
    assert list(out["eps"]) == [1.0, 1.0] and list(out["eps_real"]) == [13.1, 1.0]
    assert axis_eps(table.drop(columns="eps_equiv")) is not None


def test_another_draw_samples_the_same_models_again():
    from pubpriv_core.data import load_dataset

    base = dict(preset="tiny", n=300, seed=0)
    first, again, other = (load_dataset("synthetic", **base, draw=d).records for d in (0, 0, 2))
    assert (first == again).all() and not (first == other).all()


def test_an_error_line_names_the_paper_equivalent_budget_it_ran_at():
    from experiments.release.running.sweep import describe

    cfg = {"algo": {"name": "pmwpub"}, "dataset": {"name": "nist_acs"},
           "public": {"kind": "dataset"}, "eps": 1.0, "eps_equiv": 0.25, "T": 50}
    assert describe(cfg) == "pmwpub on nist_acs (public dataset), eps_equiv=0.25, T=50"
    assert "eps=1," in describe({**cfg, "eps_equiv": None})
