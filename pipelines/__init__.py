"""Prefect flows that run compilers near each data source and aggregate the central index."""
