"""Bad input: one `error:` line on stderr, exit status 2, no traceback, nothing written."""
import pytest

from experiments.release.configure import cli
from runner_helpers import require_data, run_cli


def _never_called():
    pytest.fail("the Hydra app must not start on bad input")


def _refused(argv, tmp_path, capsys):
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as exit_info:
        cli.main(_never_called, [*argv, f"results_dir={out}"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert not out.exists()
    return err


@pytest.mark.parametrize("argv, words", [
    (["eps=-1"], "eps must be a finite number in (0, 1000]"),
    (["eps=0"], "eps must be a finite number in (0, 1000]"),
    (["delta=1.5"], "delta must be null (1/n^2) or a finite number in (0, 1)"),
    (["delta=0"], "delta must be null (1/n^2) or a finite number in (0, 1)"),
    (["T=0"], "T must be an integer in [1, 1000000]"),
    (["runs=0"], "runs must be an integer in [1, 10000]"),
    (["n_jobs=0"], "n_jobs must be -1 (all cores) or an integer in [1, 4096]"),
    (["seed=-3"], "seed must be an integer in [0, "),
    (["workload.k=11"], "workload.k=11 exceeds the 10 attributes of dataset synthetic"),
    (["workload.k=0"], "workload.k must be an integer in [1, 1000]"),
    (["workload.size=121"], "workload.size=121 exceeds C(10,3)=120"),
    (["public.fraction=0"], "public.fraction must be a finite number in (0, 1]"),
    (["public.fraction=1.5"], "public.fraction must be a finite number in (0, 1]"),
    (["public=biased", "public.delta=0.1"], "public.attribute='sex' is not an attribute"),
    (["public=dataset"], "names the private dataset itself"),
    (["algo=dualquery", "eps=0.001"], "DualQuery fits only"),
    (["algo=dualquery", "algo.max_T=1"], "algo.max_T must be null (no cap) or an integer in [2, "),
    (["cache_gb=0"], "cache_gb must be a finite number in (0, 10000]"),
    (["dataset=nope"], "dataset=nope names no option of config group dataset; choose one of: "
                       "acs, adult, csv, nist_acs"),
    # the list goes on with any installed algorithm plugin (examples/ in CI)
    (["algo=nope"], "choose one of: aim, best_mixture, dualquery,"),
    (["algo=gem", "T=100"], "T=100 rounds of 1 marginal(s) exceed the workload's 64 marginals"),
    (["public=nope"], "choose one of: biased, csv, dataset, none, resample"),
    (["foo=1"], "Key 'foo' not in 'RunConf'"),
    (["+foo=1"], "unknown key foo; remove it"),
    (["+algo.bar=2"], "unknown key algo.bar"),
    (["~eps"], "missing key eps"),
    (["algo.foo=1"], "Key 'foo' not in 'PMWPubConf'"),
    (["eps=abc"], "could not be converted to Float"),
    (["T=1.5"], "could not be converted to Integer"),
    (["algo.selection=best"], "expected one of [permute_and_flip, exponential"),
    (["eps=0.1,1"], "add -m (--multirun)"),
    (["-m", "eps=0.1,-1"], "eps must be a finite number in (0, 1000], got -1.0"),
    (["-m", "algo=pmwpub,nope"], "job 2 of 2 (algo=nope): algo=nope names no option"),
    (["-m", "eps=1,inf"], "eps must be a finite number in (0, 1000], got inf"),
    (["eps=nan"], "eps must be a finite number"),
    (["T=10000000"], "T must be an integer in [1, 1000000]"),
    (["algo=dualquery", "algo.eta=inf"], "algo.eta must be a finite number"),
    (["algo=dualquery", "algo.samples=0"], "algo.samples must be an integer"),
    (["algo=best_mixture", "algo.lp_time_limit=-1"], "algo.lp_time_limit must be"),
    (["algo=mwem", "algo.max_domain_size=0"], "algo.max_domain_size must be"),
    (["public=biased", "public.attribute=a0", "public.value=2"],
     "public.value=2 is outside the 2 values of a0"),
    (["public=biased", "public.attribute=a0", "public.delta=nan"], "public.delta must be"),
    (["public.public_share=inf"], "public.public_share must be"),
    (["dataset.shift=2"], "dataset.shift must be"),
])
def test_bad_input_is_one_line(argv, words, tmp_path, capsys):
    assert words in _refused(argv, tmp_path, capsys)


def test_missing_data_is_one_line(tmp_path, capsys):
    argv = ["dataset=acs", "dataset.download=false", f"data_root={tmp_path / 'empty'}"]
    err = _refused(argv, tmp_path, capsys)
    assert "psam_p42.csv" in err and "census.gov" in err


def test_adult_refusals(tmp_path, capsys):
    data = require_data()
    err = _refused(["dataset=adult", "algo=mwem", f"data_root={data}"], tmp_path, capsys)
    assert "MWEM" in err and "7.32e+11" in err and "algo=pmwpub" in err
    err = _refused(["dataset=adult", "public=biased", "public.delta=0.9", f"data_root={data}"],
                   tmp_path, capsys)
    assert "outside [0, 1]" in err
    err = _refused(["dataset=adult", "workload.k=14", f"data_root={data}"], tmp_path, capsys)
    assert "choose k <= 13" in err


@pytest.mark.parametrize("argv", [["nope=1"], ["-m", "algo=pmwpub,mwem", "T=5,0"]])
def test_real_process_exit_code_and_no_traceback(argv, tmp_path):
    out = tmp_path / "out"
    proc = run_cli(*argv, f"results_dir={out}")
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1, proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    assert not out.exists()


def test_sweep_expansion_is_the_cartesian_product():
    jobs = cli.job_overrides(["-m", "algo=pmwpub,mwem", "eps=0.1,1", "T=range(1,4)", "runs=2"])
    assert len(jobs) == 2 * 2 * 3
    assert ["algo=mwem", "eps=1", "T=3", "runs=2"] in jobs
    assert cli.job_overrides(["eps=0.5"]) == [["eps=0.5"]]


@pytest.mark.parametrize("job", [
    [], ["eps=0.5", "algo=mwem", "algo.replay=false"], ["public=biased", "public.delta=0.1"],
    ["experiment=smoke", "T=7", "dataset.preset=small"], ["hydra/launcher=joblib",
                                                          "hydra.launcher.n_jobs=3", "eps=2"],
    ["workload.size=null", "delta=1e-6", "algo=dualquery", "algo.max_T=9"],
])
def test_fast_sweep_composer_matches_full_compose(job):
    from hydra import initialize_config_dir

    expected = cli.compose_config(job)  # also registers the schemas
    with initialize_config_dir(config_dir=str(cli.CONF_DIR), version_base="1.3"):
        assert cli.SweepComposer().compose(job) == expected


def test_sweeper_params_of_a_preset_are_expanded_and_checked(tmp_path, capsys):
    from hydra import initialize_config_dir

    cli.register_configs()
    with initialize_config_dir(config_dir=str(cli.CONF_DIR), version_base="1.3"):
        params = cli.sweeper_params(["experiment=smoke"])
    assert params == {"algo": "pmwpub,mwem,public_only", "eps": "0.5,1"}
    assert len(cli.job_overrides(["-m", "experiment=smoke"], params)) == 6
    assert cli.job_overrides(["-m", "experiment=smoke", "eps=2"], params)[0] == \
        ["algo=pmwpub", "eps=2", "experiment=smoke"]
    assert len(cli.job_overrides(["experiment=smoke"], params)) == 1  # no -m: no sweep
    assert "eps must be a finite number" in _refused(["-m", "experiment=smoke", "eps=1,-2"], tmp_path, capsys)
