"""The theory papers' experiments: the runner (:mod:`experiments.theory.runner`) and one module
per paper, each registering its experiment under the paper's name."""
