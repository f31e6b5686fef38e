"""MkDocs hooks (``mkdocs.yml``: ``hooks``): the pages generated from their sources at build time.

* ``configuration.md`` from the config schema, its rules and the comments in ``conf/``
  (:func:`experiments.release.configure.reference.reference_markdown`);
* ``results.md`` and ``results/*.md`` from the committed ``results/`` (summaries and figures,
  :mod:`experiments.docs_pages`).

Nothing generated is written into ``docs/``; the pages exist only in the built site.
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))        # this checkout's packages first (also without an install)


def on_files(files, config):
    from mkdocs.structure.files import File

    from experiments.docs_pages import results_images, results_pages
    from experiments.release.configure.reference import reference_markdown

    pages = {"configuration.md": reference_markdown(), **results_pages()}
    for path, text in pages.items():
        files.append(File.generated(config, path, content=text))
    for path, source in results_images().items():
        files.append(File.generated(config, path, abs_src_path=str(source)))
    return files
