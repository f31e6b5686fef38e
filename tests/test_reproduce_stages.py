"""Second-stage plans: test runs at the validated T only; T grids extended at the top edge."""
from __future__ import annotations

import pandas as pd

from experiments.release.artefacts.reproduce import Plan
from experiments.release.artefacts.stages import T_EXTENSION, choices, config_lines, next_stage
from pubpriv_core.job import config_hash
from experiments.release.running.sweep import compose_jobs, expand

ROW = "row"


def configs(*overrides: str) -> list[dict]:
    jobs = expand("fig1_paper_scale", ["public.shift=0.0", "eps=1.0", "runs=1", *overrides])
    return compose_jobs(jobs)


def records(cfgs: list[dict], role: str, errors: dict[int, float]) -> pd.DataFrame:
    lines = config_lines(cfgs, [ROW] * len(cfgs))
    return lines.assign(role=role, max_error=[errors[c["T"]] for c in cfgs], run=0,
                        config_hash=[config_hash(c) for c in cfgs])


def plan_of(cfgs: list[dict], role: str, tuned=()) -> Plan:
    tags = pd.DataFrame([(config_hash(c), ROW, role) for c in cfgs],
                        columns=["config_hash", "row", "role"])
    return Plan(list(cfgs), tags, list(tuned))


def test_tuned_test_runs_take_the_validated_T():
    validation = configs("T=10,30,100", "dataset.draw=1")
    tuned = [(c, ROW) for c in configs("T=30")]
    table = records(validation, "validation", {10: 0.3, 30: 0.1, 100: 0.2})
    new, tags = next_stage(plan_of(validation, "validation", tuned), tuned, table)
    assert [c["T"] for c in new] == [30] and new[0]["dataset"]["draw"] == 0
    assert tags == [(config_hash(new[0]), ROW, "test")]


def test_an_optimum_at_the_top_is_extended_and_the_test_waits_for_it():
    validation = configs("T=10,30,100", "dataset.draw=1")
    tuned = [(c, ROW) for c in configs("T=30")]
    table = records(validation, "validation", {10: 0.3, 30: 0.2, 100: 0.1})
    work = plan_of(validation, "validation", tuned)
    new, tags = next_stage(work, tuned, table)
    assert [(c["T"], role) for c, (_, _, role) in zip(new, tags)] == [(T_EXTENSION[0],
                                                                        "validation")]
    # the extension is worse: the test runs go to T = 100, and nothing else is extended
    work.add(new, tags)
    more = records(new, "validation", {T_EXTENSION[0]: 0.15})
    new, tags = next_stage(work, tuned, pd.concat([table, more]))
    assert [(c["T"], role) for c, (_, _, role) in zip(new, tags)] == [(100, "test")]


def test_choices_fall_back_to_the_test_runs_best_average():
    test = records(configs("T=10,30"), "test", {10: 0.2, 30: 0.1})
    chosen = choices(test)
    assert list(chosen["on"]) == ["test"] and list(chosen["best"]) == [30]


def test_matched_rows_validate_every_source_but_the_validation_file_itself():
    from experiments.release.artefacts.catalogue import MATCHED_ROWS, matched_row, split_sources

    spec = MATCHED_ROWS["full_tx"]
    assert split_sources(spec.publics) == ["{year:2018}", "{region:national}", "{region:ma}"]
    assert spec.tuned_publics == "{region:national},{region:ma}"
    blocks = matched_row("fig1_nist", spec)
    pmw = [b for b in blocks if "algo=pmwpub" in b.overrides]
    assert [(b.role, b.tuned) for b in pmw] == [("test", False), ("test", True),
                                                ("validation", False)]
    assert "public={year:2018}" in pmw[0].overrides
    assert "public={region:national},{region:ma}" in pmw[1].overrides


def test_matched_rows_carry_the_successor_lines_on_their_own_sources_at_matched_budgets():
    from experiments.release.artefacts.catalogue import MATCHED_ROWS, matched_row

    def lines(key):
        return {next(o for o in b.overrides if o.startswith("algo=")): b
                for b in matched_row("fig1_nist", MATCHED_ROWS[key])
                if "algo=pmwpub" not in b.overrides}

    spec, blocks = MATCHED_ROWS["full_tx"], lines("full_tx")
    for algo in ("algo=gem_pub", "algo=pep_pub"):
        assert f"public={spec.publics}" in blocks[algo].overrides
    assert f"public={spec.public0}" in blocks["algo=gem"].overrides
    assert f"public={spec.public0}" in blocks["algo=rap"].overrides
    for algo in ("algo=gem_pub", "algo=pep_pub", "algo=gem", "algo=rap"):
        block = blocks[algo]
        assert any(o.startswith("eps_equiv=") for o in block.overrides), block
        assert all(o in block.overrides for o in spec.fixed), block
    for key in MATCHED_ROWS:
        rap = lines(key)["algo=rap"].overrides
        assert "T=25" in rap and "algo.marginals_per_round=2" in rap


def test_gradient_lines_run_on_the_cut_axes_and_pep_lines_on_every_eps():
    from experiments.release.artefacts.catalogue import ARTEFACTS

    for name, eps in (("sota", "eps=0.1,0.25,1.0"), ("sota_adult", "eps=0.1,1.0")):
        by_algo = {next(o for o in b.overrides if o.startswith("algo=")): b
                   for b in ARTEFACTS[name].blocks}
        for algo in ("algo=gem_pub", "algo=gem", "algo=rap"):
            assert eps in by_algo[algo].overrides and "T=25" in by_algo[algo].overrides
        assert not any(o.startswith("eps=") for o in by_algo["algo=pep_pub"].overrides)

def test_fig1_matched_runs_the_generator_lines_at_the_ends_of_the_eps_grid_only():
    """fig1_nist_matched: GEM^Pub and GEM at eps_equiv 0.1 and 1 (the cut grid), PEP^Pub at all
    six; the other matched artefacts keep every ε for those three; RAP^softmax runs at the two
    ends in every matched artefact."""
    from experiments.release.artefacts.catalogue import ARTEFACTS, EPS_EQUIV
    from experiments.release.running.sweep import expand

    def eps_of(artefact, algo):
        return {job[-1] for b in ARTEFACTS[artefact].blocks if f"algo={algo}" in b.overrides
                for job in [[o for o in j if o.startswith("eps_equiv=")]
                            for j in expand(b.preset, b.overrides)] if job}

    every = {f"eps_equiv={e}" for e in EPS_EQUIV.split(",")}
    for algo in ("gem_pub", "gem"):
        assert eps_of("fig1_nist_matched", algo) == {"eps_equiv=0.1", "eps_equiv=1.0"}
        assert eps_of("sota_matched", algo) == every
    assert eps_of("fig1_nist_matched", "pep_pub") == every
    for artefact in ("fig1_nist_matched", "sota_matched", "nist_shift_matched"):
        assert eps_of(artefact, "rap") == {"eps_equiv=0.1", "eps_equiv=1.0"}
