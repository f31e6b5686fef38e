"""collect.py: tidy table from records; plot_errors.py: mean ± standard error per line."""
import numpy as np
import pandas as pd
import pytest

from experiments.release.running.collect import COLUMNS, collect, flatten
from experiments.release.figures.error_plot import apply_filters, line_columns, summarise
from experiments.release.running.store import ResultsStore
from runner_helpers import load_script, valid_record

collect_main, plot_main = load_script("collect").main, load_script("plot_errors").main


def _record(algo, eps, run, err, **extra):
    record = {c: 0 for c in COLUMNS}
    record.update(algo=algo, dataset="synthetic", public="resample", eps=eps, run=run, seed=0,
                  max_error=err, T=10, uses_public=algo != "mwem",
                  options={"replay": True}, public_options={"fraction": 1.0},
                  dataset_options={"preset": "tiny"}, trace={"eps0": 0.1, "ids": [1, 2]},
                  **extra)
    del record["run"], record["seed"]
    return valid_record(run, **record, config={"algo": algo, "eps": eps, **extra})


def test_flatten_prefixes_nested_fields():
    row = flatten(_record("pmwpub", 1.0, 0, 0.1))
    assert row["opt_replay"] is True and row["dataset_preset"] == "tiny"
    assert row["trace_eps0"] == 0.1 and "config" not in row


def test_collect_writes_required_columns_and_skips_temp_files(tmp_path):
    store = ResultsStore(tmp_path)
    for run, err in enumerate([0.1, 0.3]):
        path = store.write(_record("pmwpub", 1.0, run, err))
    (path.parent / ".tmp-x.json").write_text("{broken")
    assert collect_main([str(tmp_path), "-o", str(tmp_path / "all.csv")]) == 0
    table = pd.read_csv(tmp_path / "all.csv")
    assert list(table.columns[:len(COLUMNS)]) == COLUMNS
    assert table["max_error"].tolist() == [0.1, 0.3]


def test_collect_merges_several_folders(tmp_path):
    ResultsStore(tmp_path / "a").write(_record("pmwpub", 1.0, 0, 0.1))
    ResultsStore(tmp_path / "b").write(_record("mwem", 1.0, 0, 0.2))
    table = collect(tmp_path / "a", tmp_path / "b")
    assert table["algo"].tolist() == ["mwem", "pmwpub"]


def test_collect_empty_folder_is_an_error(tmp_path, capsys):
    assert collect_main([str(tmp_path), "-o", str(tmp_path / "x.csv")]) == 2
    assert capsys.readouterr().err.startswith("error: no records under")
    with pytest.raises(ValueError):
        collect(tmp_path)


def test_summary_mean_and_standard_error():
    table = pd.DataFrame([_record("pmwpub", e, r, v) for e, vals in ((0.1, [0.2, 0.4, 0.6]),
                                                                      (1.0, [0.1, 0.1, 0.1]))
                          for r, v in enumerate(vals)]
                         + [_record("mwem", 1.0, r, v) for r, v in enumerate([0.5, 0.7])])
    table = pd.DataFrame([flatten(r) for r in table.to_dict("records")])
    assert line_columns(table) == ["algo"]
    summary = summarise(table, "max_error").set_index(["algo", "eps"])
    row = summary.loc[("pmwpub", 0.1)]
    assert row["mean"] == pytest.approx(0.4) and row["runs"] == 3
    assert row["se"] == pytest.approx(0.2 / np.sqrt(3))
    assert summary.loc[("pmwpub", 1.0), "se"] == pytest.approx(0.0)
    expected_se = np.std([0.5, 0.7], ddof=1) / np.sqrt(2)
    assert summary.loc[("mwem", 1.0), "se"] == pytest.approx(expected_se)
    assert len(apply_filters(table, ["algo=mwem"])) == 2
    with pytest.raises(ValueError):
        apply_filters(table, ["nosuch=1"])


def test_plot_writes_an_image(tmp_path):
    store = ResultsStore(tmp_path)
    for algo in ("pmwpub", "mwem"):
        for eps in (0.1, 1.0):
            for run in range(2):
                store.write(_record(algo, eps, run, 0.1 * run + eps / 10))
    collect_main([str(tmp_path), "-o", str(tmp_path / "all.csv")])
    assert plot_main([str(tmp_path / "all.csv"), "-o", str(tmp_path / "fig.png")]) == 0
    assert (tmp_path / "fig.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_algorithms_ignoring_the_public_source_are_drawn_once():
    rows = [_record(algo, 1.0, run, 0.1 * run + (algo == "mwem"), delta_bias=bias)
            for algo in ("pmwpub", "mwem") for bias in (0.0, 0.3) for run in range(2)]
    table = pd.DataFrame([flatten(r) for r in rows])
    summary = summarise(table, "max_error").set_index(["algo", "delta_bias"])
    assert summary.loc[("mwem", "-"), "runs"] == 2  # not 4: one sweep over Δ, not two
    assert summary.loc[("pmwpub", "0.3"), "runs"] == 2 and len(summary) == 3


def test_legend_names_the_algorithm_and_orders_settings_by_value():
    """One algorithm swept over Δ: every entry starts with it (no leading blank) and the Δ
    follow their numeric order, not their text order ("-0.05" sorts before "-0.2" as text)."""
    from experiments.release.figures.error_plot import plot

    biases = (0.1, -0.05, 0.0, -0.2, 0.65)
    rows = [_record("pmwpub", eps, run, 0.1 + run / 100, delta_bias=bias)
            for bias in biases for eps in (0.1, 1.0) for run in range(2)]
    table = pd.DataFrame([flatten(r) for r in rows])
    _, labels = plot(table, "max_error").axes[0].get_legend_handles_labels()
    assert labels == [f"pmwpub (delta_bias={b})" for b in sorted(biases)]
