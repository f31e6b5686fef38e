"""A user's CSV through run.py: dataset=csv with public=csv or public=none, its domain from a
domain file, entries on the command line and the public CSV (never the private one), labelled
records saved beside the codes, and bad input refused in one line with status 2."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from experiments.release.configure import cli
from pubpriv_core.data.csv_files import csv_domain, load_csv
from runner_helpers import run_cli

DOMAIN_YAML = """\
age: {bins: [0, 18, 30, 45, 65, .inf]}
hours: {bins: 4, range: [0, 100]}
"""


def _table(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(17, 90, n),
                         "sex": rng.choice(["Female", "Male"], n),
                         "hours": rng.integers(1, 99, n),
                         "income": rng.choice(["<=50K", ">50K"], n, p=[0.7, 0.3])})


@pytest.fixture
def files(tmp_path):
    _table(400, 1).to_csv(tmp_path / "private.csv", index=False)
    _table(150, 2).to_csv(tmp_path / "public.csv", index=False)
    (tmp_path / "domain.yaml").write_text(DOMAIN_YAML)
    return tmp_path


def _own(files, *extra: str) -> list[str]:
    return ["dataset=csv", f"dataset.path={files / 'private.csv'}",
            f"dataset.domain={files / 'domain.yaml'}", "workload.k=2", "workload.size=null",
            "T=5", "runs=1", f"results_dir={files / 'out'}", *extra]


def test_csv_through_run_py_writes_labelled_records(files):
    done = run_cli("-m", *_own(files, "public=csv", f"public.path={files / 'public.csv'}",
                               "save_release=true", "release_rows=50",
                               "algo=pmwpub,dualquery", "eps=5"))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "domain: 4 columns, |X| = 80" in done.stdout
    assert "age     numerical       5  bins at 0 18 30 45 65 inf  (given)" in done.stdout
    assert "sex     categorical     2  Female, Male  (public)" in done.stdout
    folders = sorted((files / "out" / "releases").glob("*/seed0-run0"))
    assert len(folders) == 2
    for folder in folders:
        meta = json.loads((folder / "metadata.json").read_text())
        assert meta["labels"]["sex"] == {"categories": ["Female", "Male"]}
        assert meta["labels"]["age"]["bins"] == [0, 18, 30, 45, 65, float("inf")]
        records = pd.read_csv(folder / "records_labelled.csv")
        codes = pd.read_csv(folder / "records.csv")
        assert list(records.columns) == ["age", "sex", "hours", "income"] == list(codes.columns)
        assert len(records) == 50 and set(records["sex"]) <= {"Female", "Male"}
        assert set(records["age"]) <= {"[0.0, 18.0)", "[18.0, 30.0)", "[30.0, 45.0)",
                                       "[45.0, 65.0)", "[65.0, inf)"}
        labels = {"Female": 0, "Male": 1}
        assert records["sex"].map(labels).tolist() == codes["sex"].tolist()
        if meta["algo"] == "pmwpub":
            weights = pd.read_csv(folder / "weights_labelled.csv")
            assert list(weights.columns) == ["age", "sex", "hours", "income", "weight"]
            assert weights["weight"].sum() == pytest.approx(1.0)
            assert set(weights["income"]) <= {"<=50K", ">50K"}


def _refused(argv, files, capsys) -> str:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(lambda: pytest.fail("the Hydra app must not start on bad input"), argv)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2, err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert not (files / "out").exists()
    return err


@pytest.mark.parametrize("extra, words", [
    (["public=none", "dataset.path=/no/such.csv"], "no CSV file at /no/such.csv"),
    (["public=csv", "public.path=/no/such.csv"], "no CSV file at /no/such.csv"),
    (["public=none", "dataset.domain=/no/such.yaml"], "domain file /no/such.yaml does not exist"),
    (["public=none"], "column 'sex' has no categories or bins, and there is no public table"),
    (["public=csv", "PUBLIC", "+dataset.columns.salary={bins:3}"],
     "the domain names column 'salary', which the private table does not have"),
    (["public=csv", "PUBLIC", "+dataset.columns.age={bins:[20,40,100]}"],
     "column 'age' of the file "),
    (["public=csv", "PUBLIC", "+dataset.columns.age={width:3}"], "has no key 'width'"),
    (["public=csv", "PUBLIC", "+dataset.columns.age=3"], "dataset.columns must be a mapping"),
    ([], "public=resample would draw public rows from your private CSV"),
    (["public=biased"], "public=biased would draw public rows from your private CSV"),
    (["public=none", "algo=pmwpub", "+dataset.columns.sex={categories:[Female,Male]}",
      "+dataset.columns.income={categories:['<=50K','>50K']}"], "pmwpub needs a public source"),
    (["public=none", "public.fraction=0.5"], "public.fraction must be one of 1.0"),
    (["public=csv", "PUBLIC", "dataset.domain=domain.txt"], "dataset.domain must be null"),
    (["public=csv", "PUBLIC", "dataset.path=/no/such.csv"], "no CSV file at /no/such.csv"),
])
def test_bad_input_is_one_line_and_status_2(files, capsys, extra, words):
    extra = [f"public.path={files / 'public.csv'}" if e == "PUBLIC" else e for e in extra]
    err = _refused(_own(files, *extra), files, capsys)
    assert words in err, err


def test_bins_that_miss_public_values_and_a_bad_csv_are_one_line(files, capsys):
    (files / "broken.csv").write_bytes(b"\xff\xfe\x00age\n\x00")
    err = _refused(_own(files, "public=csv", f"public.path={files / 'broken.csv'}"), files,
                   capsys)
    assert f"{files / 'broken.csv'} is not a readable CSV file" in err
    _table(5, 3).assign(hours=[150] * 5).to_csv(files / "wide.csv", index=False)
    err = _refused(_own(files, "public=csv", f"public.path={files / 'wide.csv'}",
                        "+dataset.columns.sex=categorical", "+dataset.columns.income=categorical")
                   , files, capsys)
    assert f"column 'hours' of the file {files / 'wide.csv'} has values outside its bins" in err


def test_no_public_data_runs_a_private_only_algorithm(files):
    (files / "domain.yaml").write_text(DOMAIN_YAML + "sex: {categories: [Female, Male]}\n"
                                                     "income: {categories: ['<=50K', '>50K']}\n")
    done = run_cli(*_own(files, "public=none", "algo=mst", "algo.iters=50",
                         "algo.final_iters=100", "save_release=true"))
    assert done.returncode == 0, done.stderr[-2000:]
    record = json.loads(next((files / "out" / "records").rglob("*.json")).read_text())
    assert record["n_public"] == 0 and record["rho"] > 0
    folder = next((files / "out" / "releases").glob("*/seed0-run0"))
    records = pd.read_csv(folder / "records_labelled.csv")
    assert len(records) == 400 and set(records["income"]) <= {"<=50K", ">50K"}


def test_private_csv_cannot_move_the_domain(files, capsys):
    """Two private CSVs as different as can be, one public CSV: the same domain."""
    _table(300, 9).assign(age=lambda t: t["age"] * 1000, hours=-5).to_csv(
        files / "other.csv", index=False)
    domains = []
    for name in ("private.csv", "other.csv"):
        csv_domain.cache_clear()
        dataset = load_csv(str(files / name), public_path=str(files / "public.csv"))
        domains.append(dataset.domain.spec())
    assert domains[0] == domains[1]
    public = pd.read_csv(files / "public.csv")
    cuts = np.unique(np.quantile(public["age"], np.arange(1, 10) / 10, method="inverted_cdf"))
    assert domains[0]["age"]["bins"] == [-np.inf, *cuts.tolist(), np.inf]
    assert capsys.readouterr().out.count("domain: 4 columns") == 2
