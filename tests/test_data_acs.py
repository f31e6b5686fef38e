"""ACS PUMS via folktables on small offline fixtures (pubpriv_core.data.acs).

The fixtures are written for the test session by experiments.release.artefacts.acs_fixture (seed 0) in
folktables' layout with real PUMS column names and random valid codes (not census data).
"""
import importlib
import math

import numpy as np
import pandas as pd
import pytest

from experiments.release.artefacts.acs_fixture import write_fixtures
from pubpriv_core.data import DataUnavailableError, acs, load_dataset, paths

FOLK_LOAD = importlib.import_module("folktables.load_acs")  # the module, not the function


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory):
    """A data root with the three PUMS-layout person files (PA-18, OH-19, PA-14)."""
    root = tmp_path_factory.mktemp("acs_fixtures")
    write_fixtures(root, rows=300, seed=0)
    return root


@pytest.fixture
def fixture_root(fixtures):
    paths.set_data_root(fixtures)
    yield fixtures
    paths.set_data_root(None)


@pytest.fixture
def empty_root(tmp_path):
    paths.set_data_root(tmp_path)
    yield tmp_path
    paths.set_data_root(None)


def test_reduced_domain_matches_paper():
    dom = acs.REDUCED_DOMAIN
    assert len(dom) == 15 and dom.size() == 98_304 and sum(dom.shape) == 33
    assert sorted(dom.shape) == [2] * 13 + [3, 4]
    assert dom.attributes[:2] == ("SEX", "PAP") and dom["MIG"] == 3 and dom["ESR"] == 4


def test_full_domain_shape():
    dom = acs.FULL_DOMAIN
    assert len(dom) == 67 and sum(dom.shape) == 265
    assert math.isclose(float(dom.size()), 4.7339e34, rel_tol=1e-4)
    assert set(acs.REDUCED_DOMAIN.attributes) <= set(dom.attributes)
    assert dom.project(acs.REDUCED_DOMAIN.attributes) == acs.REDUCED_DOMAIN


@pytest.mark.parametrize("state,year", [("PA", 2018), ("OH", 2019), ("PA", 2014)])
def test_fixture_loads_full_and_reduced(fixture_root, state, year):
    full = load_dataset("acs", state=state, year=year, download=False)
    reduced = load_dataset("acs", state=state, year=year, reduced=True, download=False)
    assert len(full) == len(reduced) == 300
    assert full.domain == acs.FULL_DOMAIN and reduced.domain == acs.REDUCED_DOMAIN
    assert (full.project(reduced.domain.attributes).records == reduced.records).all()
    raw = pd.read_csv(fixture_root / "acs" / str(year) / "1-Year" / acs.pums_file_name(state, year))
    assert (reduced.column("SEX") == raw["SEX"] - 1).all()
    assert (reduced.column("PAP") == (raw["PAP"].fillna(0) > 0)).all()
    assert (full.column("AGEP") == np.minimum(raw["AGEP"] // 10, 9)).all()


def _frame(**columns):
    return pd.DataFrame(columns)


def _recode(name):
    return next(r for r in acs.FULL if r.name == name)


def test_recodes_by_hand():
    nan = np.nan
    cases = {
        "ESR": ([nan, 1, 2, 3, 4, 5, 6], [0, 1, 1, 2, 1, 1, 3]),
        "MIG": ([nan, 1, 2, 3], [0, 1, 2, 2]),
        "SEX": ([1, 2], [0, 1]),
        "DEYE": ([1, 2], [1, 0]),
        "DOUT": ([nan, 1, 2], [0, 1, 2]),
        "NWLK": ([nan, 1, 2, 3], [0, 1, 2, 0]),
        "HISP": ([1, 2, 24], [0, 1, 1]),
        "SCHL": ([nan, 1, 11, 12, 16, 17, 19, 20, 21, 24], [0, 1, 2, 3, 4, 4, 5, 6, 7, 8]),
        "WKHP": ([nan, 1, 19, 20, 39, 40, 41, 50, 99], [0, 1, 1, 2, 3, 4, 5, 6, 6]),
        "PINCP": ([nan, -9000, 0, 1, 9999, 10000, 100000], [0, 1, 1, 2, 2, 3, 6]),
        "INDP": ([nan, 170, 290, 370, 770, 9870, 9920], [0, 1, 1, 2, 4, 18, 19]),
        "OCCP": ([nan, 10, 3550, 3601, 4700, 7640, 9760, 9830, 9920],
                 [0, 1, 1, 2, 3, 4, 5, 6, 7]),
        "POVPIP": ([nan, 0, 99, 100, 500, 501], [0, 1, 1, 2, 5, 6]),
        "RACNUM": ([1, 2, 3, 6], [0, 1, 2, 2]),
        "AGEP": ([0, 9, 10, 89, 90, 99], [0, 0, 1, 8, 9, 9]),
    }
    for name, (raw, expected) in cases.items():
        column = _recode(name).columns[0]
        assert _recode(name).apply(_frame(**{column: raw})).tolist() == expected, name


def test_renamed_variables_recode_alike():
    relp = _recode("RELP")
    old = relp.apply(_frame(RELP=[0, 1, 13, 2, 4, 7, 12, 16, 17]))
    new = relp.apply(_frame(RELSHIPP=[20, 21, 22, 25, 27, 30, 34, 37, 38]))
    assert old.tolist() == new.tolist() == [0, 1, 1, 2, 2, 3, 4, 5, 5]
    jw = _recode("JWTR")
    assert jw.apply(_frame(JWTR=[np.nan, 1, 4, 10, 11, 12])).tolist() == [0, 1, 2, 3, 4, 5]
    assert jw.apply(_frame(JWTRNS=[np.nan, 8, 5, 9, 11, 12])).tolist() == [0, 1, 2, 3, 4, 5]
    occp = _recode("OCCP")
    assert occp.apply(_frame(OCCP10=[np.nan], OCCP12=[4020])).tolist() == [2]


def test_invalid_codes_and_missing_columns_are_rejected():
    with pytest.raises(ValueError, match="ESR has value 9"):
        _recode("ESR").apply(_frame(ESR=[1, 9]))
    with pytest.raises(ValueError, match="SEX has value nan"):
        _recode("SEX").apply(_frame(SEX=[1, np.nan]))
    with pytest.raises(ValueError, match=r"needs one of the PUMS columns \['JWTRNS', 'JWTR'\]"):
        _recode("JWTR").apply(_frame(AGEP=[3]))


def _assert_one_line_unavailable(err, root):
    message = str(err.value)
    target = root / "acs" / "2018" / "1-Year" / "psam_p13.csv"
    assert "\n" not in message
    assert "psam_p13.csv is missing" in message
    assert "https://www2.census.gov/programs-surveys/acs/data/pums/2018/1-Year/csv_pga.zip" \
        in message
    assert str(target) in message


def test_missing_file_without_download(empty_root):
    with pytest.raises(DataUnavailableError) as err:
        acs.load_acs("GA", 2018, download=False)
    _assert_one_line_unavailable(err, empty_root)


def test_missing_file_when_download_fails(empty_root, monkeypatch):
    def offline(*args, **kwargs):
        raise ConnectionError("no network")
    monkeypatch.setattr(FOLK_LOAD, "download_and_extract", offline)
    with pytest.raises(DataUnavailableError) as err:
        load_dataset("acs", state="GA", year=2018)
    _assert_one_line_unavailable(err, empty_root)


def test_bad_state_and_year():
    with pytest.raises(ValueError, match="ACS state must be a postal code"):
        acs.load_acs("XX", 2018)
    with pytest.raises(ValueError, match="ACS year must be ≥ 2014"):
        acs.load_acs("PA", 2010)
