"""Shared test setup: headless matplotlib; in CI, kernels compiled at LLVM -O1.

The suite runs most diagrams for a fraction of a second, so on an empty cache its time is
mostly numba compiling (about 60 % of it, measured). In CI (``CI`` set, a fresh clone and
fresh caches every time) the kernels are compiled at ``NUMBA_OPT=1`` instead of numba's
default 3, which compiles about a quarter faster; the code computes the same IEEE results
(no fast-math), it only runs slower. Not outside CI: numba's cache does not record the
optimisation level, so a developer's cache would keep the slower code for the benchmarks.
"""

import os

if os.environ.get("CI") and "NUMBA_OPT" not in os.environ:
    os.environ["NUMBA_OPT"] = "1"  # before numba is imported, here and in subprocesses

import matplotlib

matplotlib.use("Agg")
