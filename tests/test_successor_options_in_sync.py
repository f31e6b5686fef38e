"""The Hydra schemas of the successor algorithms (``experiments/release/configure/schema.py``) and the
algorithms' own option dataclasses hold the same options with the same defaults: the runner
passes the schema's values to the algorithm, so a default changed on one side only would make
``run.py`` and ``pubpriv_core.api`` run different algorithms."""
from dataclasses import MISSING, fields

import pytest

from experiments.release.configure import schema as config
from pubpriv_core.algorithms.gem import GEMOptions
from pubpriv_core.algorithms.pep import PEPOptions
from pubpriv_core.algorithms.rap import RAPOptions


def _defaults(cls, skip=("name",)):
    return {f.name: (f.default if f.default is not MISSING else f.default_factory())
            for f in fields(cls) if f.name not in skip}


#: schema defaults that differ from the algorithm's on purpose: GEM^Pub releases the weight EMA,
#: as the authors' GEM^Pub script does
DIFFERENCES = {"GEMPubConf": {"ema_weights": True}}


@pytest.mark.parametrize("schema, options", [(config.GEMPubConf, GEMOptions),
                                             (config.RAPConf, RAPOptions)])
def test_schema_and_algorithm_options_agree(schema, options):
    ours, theirs = _defaults(schema), _defaults(options)
    assert ours.keys() <= theirs.keys(), sorted(ours.keys() - theirs.keys())
    expected = {k: theirs[k] for k in ours} | DIFFERENCES.get(schema.__name__, {})
    assert ours == expected


def test_gem_schema_is_gem_pub_without_the_public_options():
    gem, options = _defaults(config.GEMConf), _defaults(GEMOptions)
    assert gem == {k: v for k, v in options.items() if not k.startswith("pretrain")}


def test_pep_schemas_share_the_algorithm_defaults():
    options = _defaults(PEPOptions)
    for schema in (config.PEPConf, config.PEPPubConf):
        for key, value in _defaults(schema, skip=("name", "init")).items():
            if key in options:
                assert value == options[key], (schema.__name__, key)
