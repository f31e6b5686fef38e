"""``reproduce.py --algos``: an artefact's lines of the named algorithms only, the others named
in the summary (or, ``--with-committed``, drawn from the committed runs.csv); an unknown name or
an empty selection is one error line."""
import pandas as pd
import pytest

from experiments.release.artefacts import reproduce
from experiments.release.artefacts.catalogue import ARTEFACTS
from experiments.reproduce_cli import main as reproduce_main


def _algos(work) -> set[str]:
    return {cfg["algo"]["name"] for cfg in work.configs} | \
        {cfg["algo"]["name"] for cfg, _ in work.tuned}


def test_plan_keeps_only_the_named_algorithms_tuned_blocks_included():
    artefact = ARTEFACTS["fig1_paper_scale"]
    every = reproduce.plan(artefact, [], quick=True)
    assert {"gem_pub", "pep_pub", "dualquery", "pmwpub"} <= _algos(every)
    kept = reproduce.plan(artefact, [], quick=True, algos=("pmwpub", "public_only"))
    assert _algos(kept) == {"pmwpub", "public_only"}
    assert kept.tuned and all(cfg["algo"]["name"] == "pmwpub" for cfg, _ in kept.tuned)
    assert set(kept.tags["config_hash"]) <= set(every.tags["config_hash"])


def test_left_out_lines_are_named_in_the_provenance():
    artefact = ARTEFACTS["fig1_paper_scale"]
    algos = ("best_mixture", "pmwpub", "public_only")
    work = reproduce.plan(artefact, [], quick=True, algos=algos)
    [line] = reproduce.lines_left_out(artefact, work, algos)
    assert line.startswith("- lines: only the algorithms best_mixture, pmwpub, public_only")
    assert line.endswith("not run here: dualquery, gem, gem_pub, pep_pub")


def test_no_run_with_algos_draws_only_those_lines(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert reproduce_main(["fig1_paper_scale", "--no-run", "--algos", "pmwpub,public_only"]) == 0
    out = tmp_path / "runs" / "artefacts" / "fig1_paper_scale"
    assert set(pd.read_csv(out / "runs.csv")["algo"]) == {"pmwpub", "public_only"}
    assert "not run here: best_mixture, dualquery" in (out / "summary.md").read_text()
    assert reproduce_main(["fig1_paper_scale", "--no-run", "--algos", "pmwpub"]) == 0
    summary = (out / "summary.md").read_text()       # redrawn: one lines note, the new one
    assert summary.count("- lines: ") == 1 and "not run here: best_mixture, dualquery" in summary


def test_unknown_or_empty_algos_is_one_error_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert reproduce_main(["sota_matched", "--no-run", "--algos", "pmwpub,mst"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --algos mst: not an algorithm of sota_matched; choose from ")
    assert "\n" not in err
    with pytest.raises(SystemExit) as exit_:
        reproduce_main(["theory_liu2021", "--algos", "pmwpub"])
    assert exit_.value.code == 2
    assert "--algos and --with-committed apply to one query-release artefact" in \
        capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def test_with_committed_draws_the_new_lines_beside_the_committed_others(tmp_path, monkeypatch):
    """The named algorithms' runs come from the records (here: the committed PMW^Pub runs with
    another error), every other line from the committed runs.csv, unchanged."""
    committed, _ = reproduce.committed_table(ARTEFACTS["nist_shift"])
    new = committed[committed["algo"] == "pmwpub"].assign(max_error=0.5)
    drawn = {}
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(reproduce, "collect_or_committed", lambda *a: (new, None))
    monkeypatch.setattr(reproduce, "write_outputs",
                        lambda artefact, table, tuning, out, notes, *a: drawn.update(
                            table=table, notes=notes) or [])
    assert reproduce_main(["nist_shift", "--no-run", "--algos", "pmwpub",
                           "--with-committed"]) == 0
    table = drawn["table"]
    assert len(table) == len(committed) and set(table["algo"]) == set(committed["algo"])
    assert (table.loc[table["algo"] == "pmwpub", "max_error"] == 0.5).all()
    others = committed[committed["algo"] != "pmwpub"]
    assert table[table["algo"] != "pmwpub"]["max_error"].sort_values().tolist() == \
        others["max_error"].sort_values().tolist()
    assert any("runs of the committed `results/nist_shift/runs.csv` (`--with-committed`)" in line
               for line in drawn["notes"])


def test_with_committed_needs_algos(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert reproduce_main(["nist_shift", "--no-run", "--with-committed"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --with-committed adds lines to the committed runs: name them")
    assert "\n" not in err and not (tmp_path / "runs" / "artefacts" / "nist_shift").exists()


def test_with_committed_refuses_the_quick_grid(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert reproduce_main(["nist_shift", "--quick", "--algos", "pmwpub", "--with-committed"]) == 2
    assert capsys.readouterr().err.strip() == ("error: --with-committed draws beside the "
                                               "committed full grid; drop --quick")
    assert not (tmp_path / "runs").exists()
