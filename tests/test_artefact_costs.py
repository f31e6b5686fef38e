"""``scripts/artefact_costs.py --walltimes ROOT``: the README's table of a ``reproduce.py all``
run, from its walltimes.csv and each release artefact's runs.csv."""
import pandas as pd
import pytest

from experiments.release.artefacts import costs


def test_walltime_rows_name_the_slowest_run_and_the_runs_over_a_minute(tmp_path):
    fig = tmp_path / "fig2_adult_bias"
    fig.mkdir()
    pd.DataFrame({"algo": ["pmwpub", "aim", "aim"], "runtime_s": [1.0, 61.0, 75.5]}).to_csv(
        fig / "runs.csv", index=False)
    pd.DataFrame([("fig2", "release", "done", 600.0, str(fig), 2.04),
                  ("theory_liu2021", "theory", "exit 1", 1200.0, str(tmp_path / "theory"), 3.0),
                  ("fig1_acs", "release", "skipped: needs internet", 0.0, str(tmp_path / "x"),
                   None)],
                 columns=["artefact", "kind", "status", "wall_s", "out", "load_1min"]).to_csv(
        tmp_path / "walltimes.csv", index=False)
    rows = costs.walltime_rows(tmp_path)
    assert rows[2] == "| fig2 | done | 10.0 min | 2.0 | 3 | 138 s | 75.5 s (aim) | 2 |"
    assert rows[3] == "| theory_liu2021 | exit 1 | 20.0 min | 3.0 |  |  |  |  |"
    assert rows[4] == "| fig1_acs | skipped: needs internet | 0.0 min |  |  |  |  |  |"
    assert rows[-1] == "Total 30.0 min (0.50 h)."


def test_a_root_without_the_table_is_one_error_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        costs.main(["--walltimes", str(tmp_path)])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip() == (f"error: {tmp_path} has no walltimes.csv; pass the "
                                               "--out folder of `python scripts/reproduce.py all`")


def test_sweep_rows_say_how_busy_the_workers_were(tmp_path):
    from experiments.progress import Progress, clock, sweep_summary
    progress = Progress(total=3, unit="task", now=lambda: 0.0, start=0.0)
    lines = ["[all] sota -> out/sota",
             "7 configs, 3 tasks: 0 stored, 3 to run in 3 problem groups on 2 worker(s)",
             *["  " + progress.step(f"group {i + 1}/3 in {clock(s)}", 1)
               for i, s in enumerate((95.0, 60.0, 45.0))],
             sweep_summary(new=3, reused=0, missing=0, wall=125.0, where=["runs/sota"]),
             "[all] fig2 -> out/fig2",
             "1 configs, 2 tasks: 0 stored, 2 to run in 2 problem groups on Slurm array tasks",
             sweep_summary(new=2, reused=0, missing=0, wall=30.0, where=["runs/fig2"])]
    log = tmp_path / "log"
    log.write_text("\n".join(lines))
    # 95 + 60 + 45 = 200 s of groups over 2 workers × 125 s; the Slurm sweep has no workers
    assert costs.sweep_rows(log)[2:] == ["| sota | 3 | 200 s | 125 s | 80% |"]
    assert costs.clock_seconds("1h02m") == 3720 and costs.clock_seconds("3m05s") == 185
