"""The answer table: the four comparisons per (private set, public source), one Holm family."""
from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.release.artefacts.answer import answer_table, comparisons
from test_reproduce_figure_defects import table


def with_pgm(frame: pd.DataFrame) -> pd.DataFrame:
    """Add AIM (no public data) and JAM-PGM on every source, same runs and ε."""
    pmw = frame[(frame["algo"] == "pmwpub") & (frame["T"] == 50)]
    aim = pmw.drop_duplicates(["eps", "run"]).assign(
        algo="aim", source="", line="r / AIM", T=1, uses_public=False, config_hash="aim",
        max_error=lambda f: 0.05 + 0.001 * f["run"])
    jam = pmw.assign(algo="jam_pgm", line=pmw["line"].str.replace("PMW^Pub", "JAM-PGM"),
                     T=1, max_error=pmw["max_error"] * 2, config_hash="jam")
    return pd.concat([frame, aim, jam], ignore_index=True)


def test_answer_reads_each_artefact_and_corrects_one_family(tmp_path):
    folder = tmp_path / "results" / "fig1_nist_matched"
    folder.mkdir(parents=True)
    with_pgm(table(["MA-2018", "TX-2019"], matched=True)).to_csv(folder / "runs.csv",
                                                                 index=False)
    diffs = comparisons(root=tmp_path)
    assert set(diffs["versus"]) == {"public only", "AIM", "best mixture"}
    assert len(diffs) == 2 * 6 * 4        # 2 sources × 6 ε × 4 comparisons
    text = answer_table(diffs)
    assert "| r | MA-2018 |" in text and "| r | TX-2019 |" in text
    assert "Family: 48 paired t-tests" in text
    row = next(line for line in text.splitlines() if line.startswith("| r | MA-2018 |"))
    cells = row.split(" | ")[2:]
    assert all(c.strip(" |") for c in cells) and "not run" not in row
    assert "higher at" in cells[3]          # PMW^Pub − best mixture ≥ 0 by construction


def test_a_comparison_without_its_line_reads_not_run(tmp_path):
    folder = tmp_path / "results" / "nist_shift_matched"
    folder.mkdir(parents=True)
    table(["MA-2019"], matched=True).to_csv(folder / "runs.csv", index=False)
    text = answer_table(comparisons(root=tmp_path))
    row = next(line for line in text.splitlines() if "MA-2019" in line)
    assert row.count("not run") == 2       # no AIM, no JAM-PGM
    assert np.isfinite(comparisons(root=tmp_path)["p"]).all()


def test_an_uncertified_best_mixture_is_a_bracket_outside_the_family(tmp_path):
    folder = tmp_path / "results" / "fig1_paper_scale"
    folder.mkdir(parents=True)
    trace = {"trace_lp_value": np.nan, "trace_mw_value": 0.01, "trace_mixture_lower": 0.002,
             "trace_mixture_upper": 0.01}
    table(["public model, shift 0"], mixture=trace).to_csv(folder / "runs.csv", index=False)
    text = answer_table(comparisons(root=tmp_path))
    row = next(line for line in text.splitlines() if "shift 0" in line)
    assert "(certified interval; no test)" in row
    assert "Family: 6 paired t-tests" in text          # PMW^Pub − public only at 6 ε only


def test_gem_pub_against_an_uncertified_best_mixture_is_a_bracket_too(tmp_path):
    folder = tmp_path / "results" / "fig1_paper_scale"
    folder.mkdir(parents=True)
    trace = {"trace_lp_value": np.nan, "trace_mw_value": 0.01, "trace_mixture_lower": 0.002,
             "trace_mixture_upper": 0.01}
    frame = table(["public model, shift 0"], mixture=trace)
    pmw = frame[(frame["algo"] == "pmwpub") & (frame["T"] == 50)]
    gem_pub = pmw.assign(algo="gem_pub", line=pmw["line"].str.replace("PMW^Pub", "GEM^Pub"),
                         T=25, max_error=0.001, config_hash="gem_pub")
    pd.concat([frame, gem_pub], ignore_index=True).to_csv(folder / "runs.csv", index=False)
    text = answer_table(comparisons(root=tmp_path))
    row = [line for line in text.splitlines() if "shift 0" in line][-1]   # successor table
    gem_vs_mixture = row.split(" | ")[3]
    assert gem_vs_mixture.startswith("in 0.1: [-0.009, -0.001]")
    assert gem_vs_mixture.endswith("(certified interval; no test)")


def test_successor_table_holds_the_rows_where_gem_pub_ran_same_family(tmp_path):
    folder = tmp_path / "results" / "sota_matched"
    folder.mkdir(parents=True)
    frame = with_pgm(table(["MA-2018", "TX-2019"], matched=True))
    pmw = frame[(frame["algo"] == "pmwpub") & (frame["T"] == 50)
                & frame["line"].str.endswith("[TX-2019]")]
    gem_pub = pmw.assign(algo="gem_pub", line=pmw["line"].str.replace("PMW^Pub", "GEM^Pub"),
                         T=25, max_error=pmw["max_error"] - 0.001, config_hash="gem_pub")
    gem = pmw.assign(algo="gem", line="r / GEM", source="", uses_public=False, T=25,
                     max_error=pmw["max_error"] + 0.01 + 0.0001 * pmw["run"],
                     config_hash="gem")
    rap = gem.assign(algo="rap", line="r / RAP^softmax", config_hash="rap",
                     max_error=gem["max_error"] + 0.01)
    pd.concat([frame, gem_pub, gem, rap], ignore_index=True).to_csv(folder / "runs.csv",
                                                                    index=False)
    text = answer_table(comparisons(root=tmp_path))
    assert "| private set (row) | public source | GEM^Pub − PMW^Pub | GEM^Pub − best mixture | " \
           "GEM^Pub − GEM | GEM^Pub − RAP^softmax | GEM^Pub − AIM | GEM^Pub − JAM-PGM | " \
           "PEP^Pub − PMW^Pub |" in text
    row = [line for line in text.splitlines() if line.startswith("| r | TX-2019 |")][-1]
    cells = row.split(" | ")[2:]
    assert all(cells[i].startswith("lower at") for i in (0, 2, 3))
    assert cells[1] != "not run" and "not run" in cells[6]
    assert sum(line.startswith("| r | MA-2018 |") for line in text.splitlines()) == 1
    assert "Family: 84 paired t-tests" in text   # 48 + 6 ε × 6 GEM^Pub comparisons
