"""Statistics and verdicts: the paired comparisons behind each figure's claims (``paired``),
hyper-parameter selection (``tuning``) and each figure's selected lines and summary
(``summary``)."""
