"""Synthetic records drawn from what an algorithm released, with the caller's generator.

A release is a distribution over rows — weights on the public support X̂ (PMW^Pub, public-only,
PEP^Pub, the best mixture), on DualQuery's records, or on the whole domain X in C order (MWEM,
PEP) — or a Private-PGM graphical model in ``trace["model"]`` (AIM, MST, JAM-PGM). A draw of n
records is n independent rows with probability proportional to their weight, or n records
sampled from the model (``pgm_sample.sample_records``). It reads the release alone, so it is
post-processing and spends no privacy (Dwork & Roth 2014, Prop. 2.1). GEM and RAP release their
answers only, so there is nothing to draw from.
"""
from __future__ import annotations

import numpy as np

from pubpriv_core.algorithms.base import Release
from pubpriv_core.data.domain import Domain


def draw_records(release: Release, domain: Domain, rows: int,
                 rng: np.random.Generator) -> np.ndarray:
    """``rows`` records (an (rows, d) int64 array of codes, columns in ``domain``'s order)
    drawn from ``release`` with ``rng``."""
    if rows < 0:
        raise ValueError(f"cannot draw {rows} records; pass a non-negative count")
    if release.weights is not None:
        weights = release.weights
        picks = rng.choice(len(weights), size=rows, p=weights / weights.sum())
        if release.support is not None:
            return np.asarray(release.support)[picks].astype(np.int64)
        return np.stack(np.unravel_index(picks, domain.shape), axis=1).astype(np.int64)
    if "model" in release.trace:
        from pubpriv_core.algorithms.pgm_sample import sample_records

        return sample_records(release.trace["model"], rows, rng)
    raise ValueError(f"{release.algo} released neither weights over rows nor a model; there "
                     "are no records to draw from it (pick an algorithm that releases either)")
