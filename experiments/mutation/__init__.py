"""Mutation testing of the privacy paths: the hand-written one-line mutants of
:mod:`pubpriv_core`'s privacy code (``mutants``), each applied to a copy of the tree and run
against the tests (``oneline``), and mutmut's generated mutants with the report of those that
survive (``mutmut_run``). Their command lines are ``scripts/mutation_oneline.py`` and
``scripts/mutation_privacy.py``; the reports are in ``results/mutation/``."""
