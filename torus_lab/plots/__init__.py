"""Figures of the studies: one module per experiment, one ``fig_<name>(results, params)`` function per figure."""
