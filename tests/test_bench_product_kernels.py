"""``scripts/bench.py product_kernels``: per-call times of the product-mixture kernels on an
artefact's workload, and one error line without the data."""
import pytest

from experiments.release.bench.product_kernels import main as bench_main
from pubpriv_core.data import paths


def test_prints_the_plan_and_four_timings(nist_root, capsys):
    bench_main(["--dataset", "nist", "--marginals", "5", "--K", "40", "--repeats", "2"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("nist: 5 marginals, ") and lines[0].endswith("K = 40")
    assert len(lines) == 5 and all(line.endswith(" ms per call") for line in lines[1:])


def test_missing_data_is_one_error_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(paths, "_ROOT_OVERRIDE", tmp_path)
    with pytest.raises(SystemExit) as stop:
        bench_main(["--dataset", "nist"])
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2 and err.startswith("error: ") and "\n" not in err
