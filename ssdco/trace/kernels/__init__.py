"""Compiled engines (numba) of the buffer policies and mappings whose Python classes are the specification.

Each kernel keeps its state in NumPy arrays and a numba typed dict, serves a whole chunk of page accesses per call,
and gives the counts, evictions and written pages of its Python class in the same order
(tests/trace/test_kernels.py checks them against each other on random traces).
"""
