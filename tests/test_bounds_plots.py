"""Curves behind the figures and the scripts/bounds.py command line."""
import importlib.util
import math
from pathlib import Path

import pytest

from experiments.theory.bound_figures import parse_value
from pubpriv_core.bounds import evaluate
from pubpriv_core.bounds.curves import PAPERS, bassily2020_panels, nandi2020_panels

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "bounds.py"


@pytest.fixture(scope="module")
def cli():
    spec = importlib.util.spec_from_file_location("bounds_cli", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_paper_has_a_figure():
    assert set(PAPERS) == {"liu2021", "bassily2020", "alon2019", "beimel2014", "nandi2020"}


def test_bassily_crossover_is_where_pmw_meets_apap():
    grid = bassily2020_panels()[1]
    (cross, _), = grid.vlines
    assert 40 < cross < 100
    fixed = dict(alpha=0.1, beta=0.05, eps=1.0, delta=1e-6)
    apap = evaluate("bassily2020.thm10.explicit.n", d=1, p=1, **fixed).value
    size = math.exp(cross * math.log(2))
    assert evaluate("bassily2020.lemma7", X_size=size, H_size=size, **fixed).value == \
        pytest.approx(apap, rel=1e-6)


def test_nandi_curves_follow_regimes_and_table_marks_them():
    p1 = nandi2020_panels()[0]
    ours = p1.curves[p1.curves.curve.str.startswith("Thm 3.3")]
    flat = ours[ours.x <= 1000].y
    assert flat.max() == pytest.approx(flat.min())              # flat until m = 1/α³
    tail = ours[ours.x >= 1e4]
    slope = math.log(tail.y.iloc[-1] / tail.y.iloc[0]) / math.log(tail.x.iloc[-1] / tail.x.iloc[0])
    assert slope == pytest.approx(0.5)
    table = p1.table()
    regimes = table[table.curve.str.startswith("regime:")]
    assert sorted(regimes.x.round(6)) == [10.0, 1000.0] and regimes.y.isna().all()


def test_cli_eval_prints_value_and_details(cli, capsys):
    cli.main(["eval", "beimel2014.thm7.2", "d=8", "alpha=0.1", "beta=0.05", "eps=1"])
    out = capsys.readouterr().out
    assert out.startswith("beimel2014.thm7.2 = 28.2857") and "explicit constants" in out
    cli.main(["eval", "bassily2020.lemma7", "X_size=2**40", "H_size=2**40", "alpha=0.1",
              "beta=0.05", "eps=1", "delta=1e-6"])
    assert "1.74497e+07" in capsys.readouterr().out


@pytest.mark.parametrize("argv, words", [
    (["eval", "beimel2014.thm7.2", "d=8", "alpha=0.1"], "missing parameter(s) beta, eps"),
    (["eval", "nope.thm1"], "unknown bound id"),
    (["show", "foo.bar"], "unknown bound id"),
    (["eval", "beimel2014.thm7.2", "d"], "bad parameter 'd'"),
    (["plot", "--paper", "nope"], "argument --paper: invalid choice: 'nope'"),
    (["plot", "--out", "/proc/no/such"], "argument --out: /proc/no/such cannot be written"),
])
def test_cli_errors_are_one_line(cli, capsys, argv, words):
    with pytest.raises(SystemExit) as err:
        cli.main(argv)
    stderr = capsys.readouterr().err
    assert err.value.code == 2 and stderr.startswith("error: ") and stderr.count("\n") == 1
    assert words in stderr, stderr


def test_parse_value():
    assert parse_value("2**70") == 2 ** 70 and parse_value("8") == 8
    assert parse_value("1e-5") == 1e-5


def test_cli_plot_writes_png_and_csv(cli, tmp_path):
    cli.main(["plot", "--out", str(tmp_path), "--paper", "nandi2020"])
    assert (tmp_path / "nandi2020.png").stat().st_size > 10_000
    assert "regime: m = 1/α³" in (tmp_path / "nandi2020.csv").read_text()
