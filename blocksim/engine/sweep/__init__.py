"""Batches at scale: chunked runs that keep only what is asked (``keep=``), Dask clusters
(``client=``), results folders with full traces per chunk (``out=``) and resuming
(``resume=``). :func:`~blocksim.engine.batch.simulate_batch` is the entry point; this package
is how it runs such batches.
"""

from blocksim.engine.sweep.folder import load_sweep
from blocksim.engine.sweep.keep import STATS, Summaries, SweepResult
from blocksim.engine.sweep.runner import run_sweep, seeded_members

__all__ = ["STATS", "Summaries", "SweepResult", "load_sweep", "run_sweep", "seeded_members"]
