"""NIST diverse-communities excerpts on one shared domain (pubpriv_core.data.nist_acs)."""

import pandas as pd
import pytest

from pubpriv_core.data import load_dataset, nist_acs, paths

ROWS = {("ma", 2018): 7244, ("ma", 2019): 7634, ("tx", 2018): 8775, ("tx", 2019): 9276,
        ("national", 2018): 27111, ("national", 2019): 27253}


@pytest.fixture(scope="module")
def shared_root(nist_root):
    return nist_root


def test_six_files_share_one_domain(shared_root):
    loaded = {key: load_dataset("nist_acs", region=key[0], year=key[1]) for key in ROWS}
    assert {key: len(d) for key, d in loaded.items()} == ROWS
    domains = [d.domain for d in loaded.values()]
    assert all(dom == nist_acs.domain() for dom in domains)
    assert len(domains[0]) == 20 and "PUMA" not in domains[0] and "PWGTP" not in domains[0]
    assert domains[0]["AGEP"] == 10 and domains[0]["INDP_CAT"] == 20 and domains[0]["MSP"] == 7


def test_reduced_is_small_projection(shared_root):
    full = load_dataset("nist_acs", region="tx", year=2019)
    reduced = load_dataset("nist_acs", region="tx", year=2019, reduced=True)
    assert reduced.domain.attributes == nist_acs.REDUCED_ATTRIBUTES
    assert reduced.domain.size() == 97_200 <= 100_000
    assert (full.project(nist_acs.REDUCED_ATTRIBUTES).records == reduced.records).all()


def test_first_row_by_hand(shared_root):
    # ma2019 row 1: 25-00503,18,1,6,0,1,N,N,3,0,2872.7,8680,14,5,5000.0,1,N,N,2,2,2,2,72,0
    row = load_dataset("nist_acs", region="ma", year=2019).records[0].tolist()
    assert row == [1, 0, 6, 0, 0, 0, 0, 2, 0, 1, 15, 5, 2, 2, 0, 0, 2, 2, 1, 1]


def test_value_outside_dictionary_is_rejected(shared_root):
    raw = pd.read_csv(paths.fetch("ma2019"), dtype=str, keep_default_na=False, nrows=3)
    raw.loc[0, "RAC1P"] = "12"
    with pytest.raises(ValueError, match="RAC1P.*'12'"):
        nist_acs.encode(raw)


def test_bad_options_list_choices(shared_root):
    with pytest.raises(ValueError, match=r"region must be one of \('ma', 'tx', 'national'\)"):
        load_dataset("nist_acs", region="ny", year=2019)
    with pytest.raises(ValueError, match=r"year must be one of \(2018, 2019\)"):
        load_dataset("nist_acs", region="ma", year=2017)
    with pytest.raises(ValueError, match="valid options: region, year, reduced"):
        load_dataset("nist_acs", state="MA")
