"""``scripts/bench.py slow_runs``: a store's slowest runs recomputed alone in fresh processes,
each checked against its stored max error; bad input is one error line."""
import json

import pytest

from experiments.release.bench import slow_runs as bench
from experiments.release.running.store import ResultsStore
from experiments.release.running.sweep import preset_configs, run_sweep


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("slow") / "runs"
    configs = preset_configs("smoke", ["algo=pmwpub,mwem", "eps=1", "runs=1",
                                       f"results_dir={folder}"])
    run_sweep(configs, n_jobs=1, log=lambda _: None)
    return folder


def test_recomputes_the_slowest_runs_and_finds_their_max_errors(store, capsys):
    bench.main([str(store), "--over", "0", "--top", "1"])
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| ") and "on synthetic" in line]
    slowest = max(ResultsStore(store).records(), key=lambda r: r["runtime_s"])
    assert len(rows) == 1 and rows[0].startswith(f"| {slowest['algo']} on synthetic")
    assert rows[0].endswith("| yes |") and "1 run(s); alone: slowest" in out


def test_a_record_the_recomputation_does_not_give_is_reported(store, capsys):
    path = next(p for p in ResultsStore(store).paths() if "pmwpub" in p.read_text())
    record = json.loads(path.read_text())
    record["max_error"] += 1e-3
    path.write_text(json.dumps(record))
    bench.main([str(store), "--over", "0"])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| pmwpub")]
    assert len(rows) == 1 and rows[0].endswith("| no |")


def test_no_run_over_the_threshold_says_so(store, capsys):
    bench.main([str(store), "--over", "1e9"])
    assert capsys.readouterr().out.startswith("no stored run over 1e+09 s")


def test_a_folder_without_records_is_one_error_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        bench.main([str(tmp_path)])
    err = capsys.readouterr().err.strip()
    assert stop.value.code != 0 and "is no results store" in err and "\n" not in err
