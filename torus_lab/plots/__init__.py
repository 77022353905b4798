"""Figures of the experiments: one module per study, one ``fig_<name>(results, params)`` per figure."""
