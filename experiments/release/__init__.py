"""The query-release program (Liu et al. 2021, PMW^Pub and its baselines), in rooms that point
one way: ``configure`` (schemas, rules, checks, the command-line front) < ``running``
(repetitions, problems, the store, sweeps, releases) < ``stats`` (paired tests, tuning,
summaries) < ``figures`` < ``artefacts`` (the catalogue, reproduce, answers, launchers) <
``bench`` (benchmarks)."""
