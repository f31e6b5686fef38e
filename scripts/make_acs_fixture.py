#!/usr/bin/env python
"""Write small ACS PUMS person files in folktables' layout, for offline tests of ``acs.py``.

    python scripts/make_acs_fixture.py --out DATA_ROOT [--rows 300] [--seed 0]

The files and their (random, valid, NOT census) rows are described in
:mod:`experiments.release.artefacts.acs_fixture`.
"""
from __future__ import annotations

from experiments.console import ArgumentParser, positive_int
from experiments.outputs import folder_arg
from experiments.release.artefacts.acs_fixture import write_fixtures


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=folder_arg, required=True,
                        help="data root to write acs/<year>/1-Year/<file> under")
    parser.add_argument("--rows", type=positive_int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for path in write_fixtures(args.out, args.rows, args.seed):
        print(f"{path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
