"""Evaluation set-ups of the papers: pure functions from parameters and a seed to tables."""
