"""A diagram as an FMU: ``blocksim export-fmu FILE -o model.fmu`` (:func:`export_fmu`), an
FMI 2.0 co-simulation FMU made with ``pythonfmu`` whose slave steps blocksim in ``doStep``
(:mod:`blocksim.fmi_export.slave`, :mod:`blocksim.fmi_export.runtime`). ``pythonfmu`` is imported
only when an FMU is written or run (extra ``blocksim[fmi-export]``). See ``docs/interop.md``.
"""

from blocksim.fmi_export.export import ExportError, export_fmu

__all__ = ["ExportError", "export_fmu"]
