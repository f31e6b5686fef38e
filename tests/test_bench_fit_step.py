"""``scripts/bench.py fit_step``: the parts of one GEM / RAP^softmax Adam step on an artefact's
problem, GEM's generator multiply-adds, and one error line without the data."""
import pytest

from experiments.release.bench import fit_step as bench
from pubpriv_core.data import paths


def test_generator_multiply_adds_count_each_layer():
    # K = 2, E = 3, H = 5, D = 7: layers 3→5, 8→5, 13→7; backward adds the gradients of the
    # last two layers' trained inputs (5 and 10 columns: not the noise) to the weights' gradients
    forward, backward = bench.generator_macs(2, 3, 5, 7)
    assert forward == 2 * (3 * 5 + 8 * 5 + 13 * 7)
    assert backward == forward + 2 * (5 * 5 + 10 * 7)


@pytest.mark.parametrize("algo", ["gem", "rap"])
def test_prints_the_step_parts(nist_root, capsys, algo):
    bench.main(["--algo", algo, "--measured", "3", "--repeats", "2"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"{algo} on nist (k = 3): 3 measured marginals, ")
    assert lines[1].strip().startswith("rows ") and lines[1].endswith(" ms per step")
    assert len(lines) == (3 if algo == "gem" else 2)
    if algo == "gem":
        assert "numpy float32 matmul" in lines[2] and lines[2].endswith(" ms")


def test_missing_data_is_one_error_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(paths, "_ROOT_OVERRIDE", tmp_path)
    with pytest.raises(SystemExit) as stop:
        bench.main(["--dataset", "nist"])
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2 and err.startswith("error: ") and "\n" not in err
