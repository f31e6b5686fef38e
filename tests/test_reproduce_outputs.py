"""Where reproduce.py writes, and ``--no-run`` on a fresh clone: the committed runs.csv is
redrawn when there are no records, outputs go under runs/ unless ``--into results``, and the
committed results/ are never touched by default."""
import hashlib
from pathlib import Path

import pandas as pd

from experiments.release.artefacts import reproduce
from experiments.release.artefacts.catalogue import ARTEFACTS
from experiments.reproduce_cli import main as reproduce_main
from runner_helpers import REPO


def _digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_output_folder_defaults_to_runs_and_results_only_when_asked():
    fig2 = ARTEFACTS["fig2"]
    assert reproduce.output_folder(fig2, quick=False, into="runs", out=None) == \
        Path("runs/artefacts/fig2_adult_bias")
    assert reproduce.output_folder(fig2, quick=True, into="results", out=None) == \
        Path("runs/quick/fig2")
    assert reproduce.output_folder(fig2, quick=False, into="results", out=None) == \
        REPO / "results" / "fig2_adult_bias"
    assert reproduce.output_folder(fig2, quick=False, into="runs", out="x") == Path("x")


def test_no_run_without_records_redraws_the_committed_runs_csv(tmp_path, monkeypatch, capsys):
    """fig1_paper_scale (synthetic: no data files) from an empty folder: no records anywhere,
    so the committed runs.csv is drawn into runs/artefacts/, results/ unchanged."""
    committed = REPO / "results" / "fig1_paper_scale"
    before = _digest(committed)
    monkeypatch.chdir(tmp_path)
    assert reproduce_main(["fig1_paper_scale", "--no-run"]) == 0
    out = tmp_path / "runs" / "artefacts" / "fig1_paper_scale"
    assert {p.name for p in out.iterdir()} == {"runs.csv", "selected.csv", "figure.png",
                                               "summary.md"}
    summary = (out / "summary.md").read_text()
    assert "redrawn from the committed results/fig1_paper_scale/runs.csv" in summary
    assert "- command: `python scripts/reproduce.py fig1_paper_scale" in summary  # provenance kept
    redrawn, before_csv = (pd.read_csv(f / "selected.csv") for f in (out, committed))
    pd.testing.assert_frame_equal(redrawn.drop(columns="tuning"),
                                  before_csv.drop(columns="tuning"))
    assert _digest(committed) == before
    assert not (tmp_path / "runs" / "paper_scale").exists()   # nothing was run


def test_no_run_without_records_or_committed_csv_says_what_to_run(tmp_path, monkeypatch,
                                                                   capsys):
    monkeypatch.setattr(reproduce, "committed_table", lambda artefact: None)
    monkeypatch.chdir(tmp_path)
    assert reproduce_main(["fig1_paper_scale", "--no-run"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: no records under runs/paper_scale and no committed "
                          "results/fig1_paper_scale/runs.csv")
    assert "run `python scripts/reproduce.py fig1_paper_scale` without --no-run" in err
    assert "\n" not in err
