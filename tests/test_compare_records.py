"""``scripts/compare_records.py A B``: two results folders matched run by run."""
import pytest

from experiments.release.running import compare as compare_records
from experiments.release.running.store import ResultsStore
from runner_helpers import valid_record


def _write(folder, run, max_error, mean_error=0.01, algo="pmwpub"):
    record = valid_record(run, algo=algo, max_error=max_error, mean_error=mean_error,
                          config={"algo": algo})
    ResultsStore(folder).write(record)


def test_equal_folders_exit_0_and_say_so(tmp_path, capsys):
    for side in "ab":
        for run in range(3):
            _write(tmp_path / side, run, 0.1 * run)
    assert compare_records.main([str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    assert capsys.readouterr().out.startswith("3 runs in both, 0 only in")


def test_a_differing_error_is_listed_and_exits_1(tmp_path, capsys):
    for run in range(2):
        _write(tmp_path / "a", run, 0.2)
        _write(tmp_path / "b", run, 0.2, mean_error=0.01 + (run == 1) * 1e-12)
    _write(tmp_path / "b", 2, 0.3)
    assert compare_records.main([str(tmp_path / "a"), str(tmp_path / "b")]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("1 only in " + str(tmp_path / "b") + "; 1 differ (max or mean error, "
                           "tolerance 0)")
    assert len(out) == 3 and out[2].split()[:1] == ["pmwpub"]
    assert compare_records.main([str(tmp_path / "a"), str(tmp_path / "b"), "--tol", "1e-9"]) == 0


def test_a_folder_without_records_is_one_error_line(tmp_path, capsys):
    _write(tmp_path / "a", 0, 0.1)
    (tmp_path / "empty").mkdir()
    with pytest.raises(SystemExit) as exit_:
        compare_records.main([str(tmp_path / "a"), str(tmp_path / "empty")])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.startswith("error: no records under")


def test_a_negative_tolerance_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        compare_records.main([str(tmp_path), str(tmp_path), "--tol", "-1"])
    assert exit_.value.code == 2
    assert "expected a number >= 0" in capsys.readouterr().err


def test_nan_on_both_sides_is_equal_and_on_one_side_differs(tmp_path):
    _write(tmp_path / "a", 0, float("nan"))
    _write(tmp_path / "b", 0, float("nan"))
    _write(tmp_path / "a", 1, 0.1)
    _write(tmp_path / "b", 1, float("nan"))
    differing, only_a, only_b, common = compare_records.compare(tmp_path / "a", tmp_path / "b", 0.0)
    assert (common, only_a, only_b) == (2, 0, 0)
    assert differing["run"].tolist() == [1]


def test_a_path_that_is_no_folder_is_one_error_line(tmp_path, capsys):
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(SystemExit) as exit_:
        compare_records.main([str(tmp_path / "file.txt"), str(tmp_path)])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.startswith(f"error: a results folder {tmp_path / 'file.txt'} "
                                              "is not a folder")


def test_a_damaged_record_file_is_named_and_skipped(tmp_path, capsys):
    for side in "ab":
        _write(tmp_path / side, 0, 0.1)
        _write(tmp_path / side, 1, 0.2)
    damaged = next((tmp_path / "b").rglob("*run1.json"))
    damaged.write_text("{broken")
    assert compare_records.main([str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("1 runs in both, 1 only in")
    assert captured.err.startswith("warning: ") and str(damaged.name) in captured.err


def test_a_collected_runs_csv_compares_to_the_bit(tmp_path, capsys):
    from experiments.release.running.collect import collect
    for run in range(3):
        _write(tmp_path / "store", run, 0.1 + run / 3, mean_error=1 / 7 + run)
    artefact = tmp_path / "artefact"
    artefact.mkdir()
    collect(tmp_path / "store").to_csv(artefact / "runs.csv", index=False)
    assert compare_records.main([str(artefact), str(tmp_path / "store")]) == 0
    assert capsys.readouterr().out.startswith("3 runs in both, 0 only in")
    text = (artefact / "runs.csv").read_text()
    changed = text.replace(repr(1 / 7 + 1), repr((1 / 7 + 1) * (1 + 1e-15)))
    assert changed != text
    (artefact / "runs.csv").write_text(changed)
    assert compare_records.main([str(artefact), str(tmp_path / "store")]) == 1
