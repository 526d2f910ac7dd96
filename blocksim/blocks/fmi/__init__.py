"""Functional Mock-up Units as blocks: :class:`FMU` runs an FMI 2.0 or 3.0 FMU (model exchange
integrated by blocksim's solvers, or co-simulation stepped at a sample time) in a diagram
(interpreted back-end only). :mod:`blocksim.blocks.fmi.build` compiles small FMUs from C with
gcc (the test models and the example's plant); :mod:`blocksim.blocks.fmi.instance` is the layer
over fmpy. fmpy is an optional dependency (``pip install 'blocksim[fmi]'``), imported when an
FMU is first read. See ``docs/interop.md``.
"""

from blocksim.blocks.fmi.block import FMU

__all__ = ["FMU"]
