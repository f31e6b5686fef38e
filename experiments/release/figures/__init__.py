"""Figures: the paper's Figures 1-3 and Table 1 (``paper``), their panels and axes
(``panels``) and the error-against-ε plot of any collected table (``error_plot``)."""
