"""Routing algorithms, one module per algorithm family (see each module's docstring for its paper)."""
