"""Cycle-driven, flit-level wormhole network simulator."""
