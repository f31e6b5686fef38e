"""``scripts/bench.py blas_threads``: one release per cell through ``run.py`` in fresh
processes, the same record from two trees, and one error line for a bad cell or checkout."""
import pytest

from experiments.release.bench import blas_threads
from runner_helpers import REPO

bench_main = blas_threads.main
CELL = "dataset=synthetic algo=public_only T=1 eps=1.0"


def test_both_trees_print_a_row_and_agree(capsys):
    bench_main(["--before", str(REPO), "--cell", CELL])
    lines = capsys.readouterr().out.splitlines()
    rows = [line for line in lines if line.startswith(f"| {CELL} |")]
    assert [row.split(" | ")[1] for row in rows] == ["this tree", "before"]
    assert lines[-1].startswith("|  | records agree on | max_error, mean_error, trace |")


def test_a_failing_cell_is_one_error_line(capsys):
    with pytest.raises(SystemExit) as stop:
        bench_main(["--cell", "algo=no_such_algorithm"])
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 1 and err.startswith("error: run.py ") and "\n" not in err


def test_before_must_be_a_checkout(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        bench_main(["--before", str(tmp_path)])
    assert stop.value.code == 2 and "holds no run.py" in capsys.readouterr().err


def test_traces_are_compared_without_their_timings():
    untimed = blas_threads.untimed
    assert untimed({"steps": [3, 4], "rounds_cpu_s": 1.5, "pretrain_s": 2.0}) == {"steps": [3, 4]}
    assert untimed(0.25) == 0.25
