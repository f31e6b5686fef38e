"""One-command artefacts end to end on small inputs: the ACS presets on PUMS files in
folktables' layout (random valid records, written here; no internet), and Table 1's output."""

import json

import numpy as np
import pandas as pd
import pytest

from experiments.release.artefacts import reproduce
from experiments.release.artefacts.acs_fixture import person_frame
from experiments.release.figures.paper import runtime_table
from experiments.reproduce_cli import main as reproduce_main
from pubpriv_core.data.acs import pums_file_name

#: every (state, year) file that fig1_acs and fig3_fraction read (test and validation rows)
FILES = [("PA", 2018), ("PA", 2014), ("GA", 2018), ("GA", 2014),
         *((s, 2018) for s in ("OH", "NC", "CA", "TX", "NY", "FL", "IL"))]


@pytest.fixture(scope="module")
def acs_root(tmp_path_factory):
    """A data root holding 120-row person files of every state-year the ACS presets name."""
    root = tmp_path_factory.mktemp("data")
    rng = np.random.default_rng(0)
    for state, year in FILES:
        path = root / "acs" / str(year) / "1-Year" / pums_file_name(state, year)
        path.parent.mkdir(parents=True, exist_ok=True)
        person_frame(rng, 120, "PA" if state != "OH" else "OH", year).to_csv(path, index=False)
    return root


def _run(artefact, root, tmp_path, *settings):
    argv = [artefact, "--quick", "--jobs", "1", "--data-root", str(root),
            "--results-dir", str(tmp_path / "runs"), "--out", str(tmp_path / "out"),
            "--set", "dataset.download=false", "--set", "workload.size=2", "--set", "eps=1.0",
            "--set", "T=2", *settings]
    assert reproduce_main(argv) == 0
    return tmp_path / "out"


def test_fig1_acs_end_to_end_with_validation(acs_root, tmp_path):
    out = _run("fig1_acs", acs_root, tmp_path)
    table = pd.read_csv(out / "runs.csv")
    rows = {"reduced, private PA-18", "full, private PA-18", "full, private GA-18"}
    assert set(table["row"]) == rows
    assert set(table["role"]) == {"test", "validation"}
    assert {"pmwpub", "mwem", "dualquery", "best_mixture"} <= set(table["algo"])
    assert set(table[table["algo"] == "mwem"]["row"]) == {"reduced, private PA-18"}
    # private sizes: the validation rows read the 2014 files, the test rows the 2018 ones
    assert set(table["dataset_year"]) == {2014, 2018}
    chosen = pd.read_csv(out / "selected.csv")
    assert "validation" in set(chosen[chosen["algo"] == "pmwpub"]["tuning"])
    assert set(chosen[chosen["algo"] == "pmwpub"]["tuning"]) <= {
        "validation", "best_average (no validation run)"}
    assert set(chosen[chosen["algo"] == "dualquery"]["tuning"]) == {"best_average (baseline)"}
    assert {"public_only", "best_mixture"} <= set(chosen["algo"])
    assert (out / "figure.png").stat().st_size > 10_000
    summary = (out / "summary.md").read_text()
    assert "hyper-parameters (T; DualQuery η, s): paper" in summary
    assert "### versus public only" in summary and "### versus DualQuery" in summary


def test_fig3_fraction_end_to_end_and_resume(acs_root, tmp_path, capsys):
    out = _run("fig3_fraction", acs_root, tmp_path, "--tuning", "best_average")
    assert "0 stored" in capsys.readouterr().out
    _run("fig3_fraction", acs_root, tmp_path, "--tuning", "best_average")
    assert "0 to run" in capsys.readouterr().out
    sweeps = [line for line in (out / "summary.md").read_text().splitlines()
              if line.startswith("- sweep: ")]     # the resumed run keeps who made the records
    assert len(sweeps) == 2 and ", 0 already stored, " in sweeps[0] and ", 0 run in " in sweeps[1]
    table = pd.read_csv(out / "runs.csv")
    pmw = table[table["algo"] == "pmwpub"]
    assert sorted(pmw["public_fraction"].unique()) == [0.001, 0.01, 0.1, 1.0]
    # p = 0.1% of 120 rows keeps one row: a one-row support
    assert pmw[pmw["public_fraction"] == 0.001]["support_size"].eq(1).all()
    assert set(table["row"]) == {"public PA-14", "public OH-18"}
    assert (out / "figure.png").is_file()


def test_runtime_table_names_the_machine_and_refuses_mwem_full():
    """One rule: the mean over runs ≥ 1 (run 0 a warm-up), ratios from the unrounded means."""
    table = pd.DataFrame({"row": ["reduced"] * 6 + ["full"] * 2,
                          "algo": ["pmwpub"] * 3 + ["mwem"] * 3 + ["pmwpub"] * 2,
                          "run": [0, 1, 2, 0, 1, 2, 0, 1],
                          "per_iter_s": [0.09, 0.01, 0.03, 0.9, 0.2, 0.4, 0.05, 0.07], "T": 100,
                          "num_queries": 10, "support_size": 5})
    text = runtime_table(table, "test machine", {"reduced": 97200, "full": 2.9e14})
    assert "test machine" in text
    assert "| reduced | PMW^Pub | 0.0200 ± 0.0100 | 2 of 3 |" in text
    assert ("| reduced | MWEM | 0.3000 ± 0.1000 | 2 of 3 | 100 | 10 | domain X, 97,200 cells |"
            in text)
    assert "| full | MWEM | infeasible: the runner refuses domain size 2.9e+14" in text
    assert "- reduced: MWEM / PMW^Pub = 15.0× per iteration" in text


@pytest.mark.parametrize("fault, status, words", [
    (KeyboardInterrupt(), 130, "interrupted: 0 records kept in"),
    (OSError(28, "No space left on device", "/full/disk"), 1,
     "error: cannot write /full/disk: No space left on device")])
def test_reproduce_faults_are_one_line(fault, status, words, tmp_path, monkeypatch, capsys):
    """Ctrl-C and a failed write during an artefact's sweep: one line, its exit status."""
    def broken_sweep(*args, **kwargs):
        raise fault

    monkeypatch.setattr(reproduce, "run_sweep", broken_sweep)
    argv = ["fig1_paper_scale", "--quick", "--jobs", "1", "--results-dir", str(tmp_path / "runs"),
            "--out", str(tmp_path / "out")]
    assert reproduce_main(argv) == status
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(words)
    assert not (tmp_path / "out").exists()


def test_no_run_on_damaged_summary_and_non_finite_records(acs_root, tmp_path, capsys):
    """--no-run: a damaged summary.md is a warning (its provenance is not carried over); records
    whose errors are NaN are refused in one line and nothing in the output folder changes."""
    out = _run("fig3_fraction", acs_root, tmp_path, "--tuning", "best_average")
    (out / "summary.md").write_text("# edited by hand\n")
    capsys.readouterr()
    _run("fig3_fraction", acs_root, tmp_path, "--tuning", "best_average", "--no-run")
    err = capsys.readouterr().err
    assert "summary.md has no provenance lines" in err and "Traceback" not in err
    for path in (tmp_path / "runs" / "records").glob("*/*.json"):
        record = json.loads(path.read_text())
        record.update(max_error=float("nan"), mean_error=float("nan"))
        path.write_text(json.dumps(record))
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    argv = ["fig3_fraction", "--quick", "--no-run", "--tuning", "best_average",
            "--data-root", str(acs_root), "--results-dir", str(tmp_path / "runs"),
            "--out", str(out), "--set", "dataset.download=false", "--set", "workload.size=2",
            "--set", "eps=1.0", "--set", "T=2"]
    assert reproduce_main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "\n" not in err and "non-finite errors" in err, err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_outputs_are_written_all_or_none(tmp_path, monkeypatch):
    """A failure while making the outputs (here the figure) leaves the output folder as it was."""
    from experiments.release.artefacts.catalogue import ARTEFACTS

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(reproduce, "build", broken)
    table = pd.DataFrame({"algo": ["pmwpub"], "max_error": [0.1]})
    with pytest.raises(OSError):
        reproduce.write_outputs(ARTEFACTS["fig2"], table, "paper", tmp_path / "out", [], [])
    assert list((tmp_path / "out").iterdir()) == []
