"""Speed benchmarks run by `make bench`."""
