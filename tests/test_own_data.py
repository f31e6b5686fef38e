"""A user's own table through the Python API: api.from_frames encodes it on a domain that the
private rows cannot move (given by the user or read from the public table), algorithms run on it
(those that need public data are refused without it), and api.records returns synthetic records
in its own column names and labels, drawn from what each kind of release is."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from pubpriv_core import api
from pubpriv_core.algorithms.base import Release
from pubpriv_core.algorithms.release_sample import draw_records
from pubpriv_core.data.frames import FrameDomain, encode_frames
from pubpriv_core.data.labels import decode

EDUCATION = ["HS", "Bachelors", "Masters", "PhD"]


def table(n: int, seed: int, older: float = 0.0) -> pd.DataFrame:
    """A survey-like table: two numerical columns, three categorical ones (text, integer
    codes, a pandas Categorical)."""
    rng = np.random.default_rng(seed)
    age = np.clip(rng.normal(40 + 10 * older, 12, n).round(), 17, 90)
    return pd.DataFrame({
        "age": age,
        "sex": rng.choice(["Female", "Male"], n),
        "education": pd.Categorical(rng.choice(EDUCATION, n), categories=EDUCATION),
        "hours": rng.uniform(0, 80, n).round(1),
        "region": rng.integers(1, 4, n),
    })


AGE_EDGES = [0, 18, 30, 45, 65, np.inf]
DOMAIN = {"age": {"bins": AGE_EDGES}, "hours": {"bins": 4, "range": [0, 80.5]},
          "region": {"categories": [1, 2, 3]}}


@pytest.fixture(scope="module")
def frames():
    return table(600, 1), table(300, 2, older=0.5)


def test_round_trip_keeps_columns_labels_and_bins(frames):
    private, public = frames
    data = api.from_frames(private, public, DOMAIN, show=False)
    domain = data.private.domain
    assert isinstance(domain, FrameDomain) and list(domain.attributes) == list(private.columns)
    back = decode(data.private.records, domain)
    assert list(back.columns) == list(private.columns)
    for name in ("sex", "education", "region"):
        assert back[name].astype(object).tolist() == private[name].astype(object).tolist()
    assert list(back["education"].cat.categories) == EDUCATION       # declared order kept
    for name in ("age", "hours"):
        inside = [value in interval for value, interval in zip(private[name], back[name])]
        assert all(inside), name
    assert domain.column("age").edges == tuple(float(e) for e in AGE_EDGES)
    assert domain.column("hours").edges == (0.0, 20.125, 40.25, 60.375, 80.5)
    assert (domain.column("age").origin, domain.column("hours").origin,
            domain.column("sex").origin) == ("given", "range", "public")
    values = decode(data.private.records, domain, numeric="value")["age"]
    assert values.dtype == float and set(values) <= set(domain.column("age").values)
    assert data.public.n_rows == len(public)


def test_domain_is_printed(frames, capsys):
    api.from_frames(*frames, DOMAIN)
    out = capsys.readouterr().out
    assert out.startswith("domain: 5 columns, |X| = ")
    assert "age" in out and "bins at 0 18 30 45 65 inf  (given)" in out
    assert "Bachelors, HS, Masters, PhD" not in out and "HS, Bachelors, Masters, PhD" in out


def test_private_rows_cannot_move_a_bin_edge_or_add_a_label(frames):
    """Two private tables as different as can be (other values, far outliers, other shares)
    with one public table give the same domain, equal to the public table's alone."""
    private, public = frames
    other = table(900, 7, older=3.0)
    other["hours"] = other["hours"] * 1e6
    other["age"] = -other["age"]
    spec = {"region": "categorical"}
    first, second = (encode_frames(p, public, spec).domain for p in (private, other))
    assert first.spec() == second.spec()
    public_edges = np.quantile(public["hours"], np.arange(1, 10) / 10, method="inverted_cdf")
    assert first.column("hours").edges == (-np.inf, *np.unique(public_edges), np.inf)
    assert first.column("hours").origin == "public"
    alone = encode_frames(public, public, spec).domain      # the public table's own domain
    assert alone.spec() == first.spec()
    given = {**DOMAIN, "sex": {"categories": ["Female", "Male"]},
             "education": {"categories": EDUCATION}}
    without_public = [encode_frames(p, None, given).domain.spec() for p in (private, public)]
    assert without_public[0] == without_public[1]
    novel = private.assign(sex=["Other"] + private["sex"].tolist()[1:])
    with pytest.raises(ValueError, match="'Other', which is not one of its 2 categories"):
        encode_frames(novel, public)


def test_a_column_the_public_table_cannot_settle_needs_the_user(frames):
    private, _ = frames
    for domain, words in [(None, "column 'age' has no categories or bins, and there is no "
                                 "public table"),
                          ({"age": {"bins": 5}}, "bins=5 without a range needs a public table"),
                          ({"sex": "categorical", **DOMAIN}, "column 'sex' is categorical "
                                                             "without categories")]:
        with pytest.raises(ValueError) as err:
            api.from_frames(private, None, domain, show=False)
        assert words in str(err.value) and "\n" not in str(err.value)


def test_unseen_and_clip_are_explicit_choices(frames):
    private, public = frames
    private = private.assign(sex=["Other"] + private["sex"].tolist()[1:],
                             age=[120.0, -5.0] + private["age"].tolist()[2:])
    spec = {"sex": {"unseen": "Unknown"}, "age": {"bins": [18, 40, 66], "clip": True}}
    domain = encode_frames(private, public, spec).domain
    codes = encode_frames(private, public, spec).private.records
    assert domain.column("sex").labels == ("Female", "Male", "Unknown")
    assert codes[0, 1] == 2 and codes[0, 0] == 1 and codes[1, 0] == 0


@pytest.mark.parametrize("private_change, domain, words", [
    (None, {"salary": {"bins": 3}}, "the domain names column 'salary', which the private "
                                    "table does not have"),
    (None, {"age": {"bins": [20, 50, 100]}}, "column 'age' of the private table has values "
                                             "outside its bins [20, 100)"),
    ({"hours": "n/a"}, None, "column 'hours' of the private table holds 'n/a', which is not a "
                             "number"),
    (None, {"age": {"bins": [0, 50], "categories": ["a"]}}, "mixes categorical keys"),
    (None, {"age": {"edges": [0, 1]}}, "has no key 'edges'"),
    (None, {"age": {"bins": 4, "range": [10, 5]}}, "range must be [low, high] with finite low"),
    (None, {"age": {"bins": [5, 1]}}, "bin edges must be at least two increasing numbers"),
    (None, {"sex": {"categories": ["F", "F"]}}, "lists a category twice"),
    (None, {"sex": "ordinal"}, "kind must be categorical or numerical"),
    (None, 42, "domain must be a mapping column -> entry"),
    (None, "domain.txt", "must end in .json, .yaml, .yml"),
    (None, "no-such-domain.yaml", "domain file no-such-domain.yaml does not exist"),
])
def test_bad_input_is_one_line(frames, private_change, domain, words):
    private, public = frames
    if private_change:
        private = private.assign(**{k: [v] + private[k].tolist()[1:]
                                    for k, v in private_change.items()})
    with pytest.raises(ValueError) as err:
        api.from_frames(private, public, domain, show=False)
    assert words in str(err.value), str(err.value)
    assert "\n" not in str(err.value)


def test_bad_tables_are_one_line(frames):
    private, public = frames
    cases = [(lambda: api.from_frames(private.to_numpy(), public), "must be a pandas DataFrame"),
             (lambda: api.from_frames(private, public.drop(columns="sex")),
              "the public table has no column 'sex'"),
             (lambda: api.from_frames(private.set_axis(range(5), axis=1), None),
              "has a column named 0; name every column with text")]
    for call, words in cases:
        with pytest.raises(ValueError) as err:
            call()
        assert words in str(err.value) and "\n" not in str(err.value)


def test_domain_files_in_json_and_yaml(frames, tmp_path):
    private, public = frames
    (tmp_path / "d.json").write_text(json.dumps({"age": {"bins": [0, 30, "Infinity"]}}))
    (tmp_path / "d.yaml").write_text("age: {bins: [0, 30, .inf]}\nregion: categorical\n")
    (tmp_path / "bad.yaml").write_text("age: {bins: [0, 30\n")
    with pytest.raises(ValueError, match="bins must be a list of edges"):
        api.from_frames(private, public, tmp_path / "d.json", show=False)
    (tmp_path / "d.json").write_text('{"age": {"bins": [0, 30, Infinity]}}')
    for name in ("d.json", "d.yaml"):
        domain = api.from_frames(private, public, tmp_path / name, show=False).private.domain
        assert domain.column("age").edges == (0.0, 30.0, np.inf)
    with pytest.raises(ValueError, match="bad.yaml does not parse"):
        api.from_frames(private, public, str(tmp_path / "bad.yaml"), show=False)


def test_an_earlier_domain_is_reused_whole(frames):
    private, public = frames
    first = api.from_frames(private, public, show=False).private.domain
    again = api.from_frames(table(50, 9), None, first, show=False).private.domain
    assert again.spec() == first.spec()
    assert {c.origin for c in again.columns} == {"given"}


@pytest.fixture(scope="module")
def problems(frames):
    private, public = frames
    with_public = api.from_frames(private, public, DOMAIN, show=False)
    alone = api.from_frames(private, None, with_public.private.domain, show=False)
    return tuple(api.problem(d, api.workload(d, k=2, size=None)) for d in (with_public, alone))


@pytest.mark.parametrize("algorithm, options", [
    ("pmwpub", {}), ("dualquery", {"max_T": 20}),
    ("mst", {"iters": 50, "final_iters": 100})])
def test_records_carry_the_tables_columns_and_labels(problems, frames, algorithm, options):
    problem = problems[0]
    result = api.run(algorithm, problem, eps=1.0, T=10, **options)
    out = api.records(result, problem, n=400, seed=5)
    domain = problem.private.domain
    assert list(out.columns) == list(frames[0].columns) and len(out) == 400
    assert set(out["sex"]) <= {"Female", "Male"} and set(out["region"]) <= {1, 2, 3}
    assert list(out["education"].cat.categories) == EDUCATION
    assert set(out["age"]) <= set(domain.column("age").intervals())
    pd.testing.assert_frame_equal(out, api.records(result, problem, n=400, seed=5))
    values = api.records(result, problem, n=400, seed=5, numeric="value")
    assert values["hours"].dtype == float and set(values["hours"]) <= set(
        domain.column("hours").values)
    support = result.release.support
    if support is not None:       # weights over rows: every record is a row of the support
        codes = {tuple(r) for r in np.asarray(support)}
        drawn = draw_records(result.release, domain, 50, np.random.default_rng(0))
        assert all(tuple(r) in codes for r in drawn)
    else:
        assert "model" in result.release.trace


def test_records_default_to_the_stream_save_draws_with(problems, tmp_path):
    problem = problems[0]
    result = api.run("mst", problem, eps=1.0, iters=50, final_iters=100)
    out = api.records(result, problem)
    assert len(out) == problem.n
    api.save(result, problem, tmp_path)
    saved = pd.read_csv(tmp_path / "records_labelled.csv")
    assert saved["sex"].tolist() == out["sex"].astype(str).tolist()
    assert saved["age"].tolist() == out["age"].astype(str).tolist()
    assert json.loads((tmp_path / "metadata.json").read_text())["labels"]["region"] == {
        "categories": [1, 2, 3]}


def test_no_public_data_refuses_public_algorithms_and_runs_the_others(problems):
    alone = problems[1]
    assert alone.public_support is None
    for name in ("pmwpub", "public_only", "jam_pgm", "pep_pub", "gem_pub", "best_mixture"):
        with pytest.raises(ValueError) as err:
            api.run(name, alone, eps=1.0, T=5)
        assert "needs a public source" in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(ValueError, match="public_init=true needs a public source"):
        api.run("aim", alone, public_init=True)
    for name, options in [("mwem", {}), ("mst", {"iters": 50, "final_iters": 100}),
                          ("dualquery", {"max_T": 20}), ("aim", {"iters": 50,
                                                                 "final_iters": 100})]:
        result = api.run(name, alone, eps=1.0, T=5, **options)
        assert 0 < result.errors["max_error"] < 1 and result.rho > 0
        assert len(api.records(result, alone, n=10, seed=0)) == 10


def test_answers_only_releases_have_no_records(problems):
    release = Release("gem", weights=None, answers=np.zeros(1))
    with pytest.raises(ValueError, match="released neither weights over rows nor a model"):
        draw_records(release, problems[0].private.domain, 5, np.random.default_rng(0))
    with pytest.raises(ValueError, match="numeric must be one of interval, value"):
        decode(np.zeros((1, 5), int), problems[0].private.domain, numeric="mid")
