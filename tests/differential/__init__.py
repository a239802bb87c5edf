"""Stored differential grids: the readable references' records over the knob grids, played
once by ``make_differential.py`` and compared with the kernels on every test run."""
