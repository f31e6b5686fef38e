"""The sweep driver: grid expansion, exact composition, problem grouping, resume."""
import json
import random

import pytest

from experiments.release.configure.cli import UserError
from experiments.release.running.repetitions import run_config
from experiments.release.running.store import ResultsStore
from pubpriv_core.job import config_hash
from experiments.release.running.sweep import (Task, compose_exact, compose_jobs, expand, group_tasks,
                               pending_tasks, preset_configs, run_sweep)


def test_fig2_grid_is_the_papers():
    jobs = expand("fig2_adult_bias")
    assert len(jobs) == 10 * 6 * 8
    configs = compose_jobs(jobs[::37])
    assert {c["workload"]["size"] for c in configs} == {256}
    assert {c["dataset"]["name"] for c in configs} == {"adult"}


def test_override_replaces_an_axis_and_adds_keys():
    jobs = expand("fig2_adult_bias", ["eps=0.1,1", "T=5", "runs=1"])
    assert len(jobs) == 10 * 2
    assert all("T=5" in job and "runs=1" in job for job in jobs)


@pytest.mark.parametrize("preset, overrides", [
    ("fig2_adult_bias", ["public.delta=-0.2,0.65", "T=5,200", "eps=0.1"]),
    ("fig1_nist", ["algo=mwem,dualquery", "dataset.year=2018", "eps=1", "T=10",
                   "public={region:national,year:2019},{region:tx,year:2019}"]),
])
def test_fast_compose_equals_hydra_compose(preset, overrides):
    jobs = expand(preset, overrides)
    fast = compose_jobs(jobs)
    assert len({config_hash(c) for c in fast}) == len(jobs) == 4
    for i in random.Random(0).sample(range(len(jobs)), 2):
        assert fast[i] == compose_exact(jobs[i])


def test_dict_public_override_merges_into_the_public_node():
    cfg = compose_jobs(expand("fig1_nist", ["public={region:national,year:2019}", "eps=1",
                                            "T=10"]))[0]
    assert cfg["public"]["kind"] == "dataset"
    assert (cfg["public"]["region"], cfg["public"]["year"]) == ("national", 2019)


@pytest.mark.parametrize("bad, message", [
    (["eps=abc"], "could not be converted"),
    (["epss=1"], "not in"),
    (["eps"], "key=value"),
])
def test_bad_overrides_raise_one_line(bad, message):
    with pytest.raises(UserError, match=message) as info:
        compose_jobs(expand("fig2_adult_bias", bad))
    assert "\n" not in str(info.value)


def test_unknown_preset_names_the_choices():
    with pytest.raises(UserError, match="fig2_adult_bias"):
        expand("no_such_figure")


def _tiny(tmp_path, **extra):
    overrides = ["dataset=synthetic", "dataset.preset=tiny", "public=resample", "T=3",
                 "runs=2", f"results_dir={tmp_path}", "workload.size=4", "progress=false"]
    return [o for o in overrides if o.split("=")[0] not in extra] + [
        f"{k}={v}" for k, v in extra.items()]


def test_tasks_group_by_problem_not_by_eps_T_or_algorithm(tmp_path):
    jobs = [_tiny(tmp_path, eps=e, T=t) for e in (0.5, 1.0) for t in (2, 3)]
    jobs.append(_tiny(tmp_path, **{"algo": "public_only"}))
    jobs.append(_tiny(tmp_path, **{"public.fraction": 0.5}))
    tasks, skipped = pending_tasks(compose_jobs(jobs))
    assert skipped == 0 and len(tasks) == 6 * 2
    groups = group_tasks(tasks)
    # runs 0 and 1 of the full public, runs 0 and 1 of the half public
    assert sorted(len(g) for g in groups) == [1, 1, 5, 5]
    assert all(len({t.problem for t in g}) == 1 for g in groups)
    assert Task(compose_jobs([jobs[0]])[0], 0).problem != \
        Task(compose_jobs([jobs[0]])[0], 1).problem


def test_sweep_matches_run_config_and_resumes(tmp_path):
    configs = compose_jobs([_tiny(tmp_path / "sweep", eps=e) for e in (0.5, 1.0)])
    report = run_sweep(configs, n_jobs=1, log=lambda _: None)
    assert (report.tasks, report.skipped, report.groups) == (4, 0, 2)
    store = ResultsStore(tmp_path / "sweep")
    swept = {p.relative_to(store.records_dir): json.loads(p.read_text())["max_error"]
             for p in store.paths()}
    assert len(swept) == 4
    # the same configs run one by one through the runner give the same numbers
    for cfg in configs:
        single = dict(cfg, results_dir=str(tmp_path / "single"))
        for record in run_config(single):
            key = store.path(config_hash(cfg), cfg["seed"], record["run"]).relative_to(
                store.records_dir)
            assert swept[key] == record["max_error"]
    # resume: nothing to do; a lost record is the only one recomputed
    assert run_sweep(configs, n_jobs=1, log=lambda _: None).skipped == 4
    lost = next(store.paths())
    lost.unlink()
    again = run_sweep(configs, n_jobs=1, log=lambda _: None)
    assert (again.skipped, again.groups) == (3, 1) and lost.is_file()


def test_preset_configs_are_distinct():
    configs = preset_configs("fig2_adult_bias_mixture")
    assert len(configs) == 10
    assert len({config_hash(c) for c in configs}) == 10
