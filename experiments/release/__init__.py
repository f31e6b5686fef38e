"""The query-release program (Liu et al. 2021, PMW^Pub and its baselines): configuration and its
checks, problems, the runner and its results store, sweeps, hyper-parameter selection, paired
statistics, the artefact catalogue with its figures, and the benchmarks."""
