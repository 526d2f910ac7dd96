"""A diagram file as an FMI 2.0 co-simulation FMU: :func:`export_fmu`.

The FMU is made by ``pythonfmu``: its binary embeds the Python interpreter, whose slave
(:mod:`blocksim.fmi_export.slave`) loads the diagram from the FMU's resources and steps
blocksim in ``doStep``. Its interface:

* **inputs**: the diagram's root ``Inport`` blocks (scalar, or a vector with
  ``shape=[n]``), held over each communication step (zero-order);
* **outputs**: its root ``Outport`` blocks and the signals named by ``outputs``
  (``"block.port"``; without Outports and names: the signals wired into its root scopes), the
  value at each communication point;
* **parameters**: its root ``Constant`` blocks of one number (fixed, set before
  initialisation);
* the communication step ``h`` (``step``, default the file's ``dt``, else ``T / 100``) and
  the default experiment (0 to the file's ``T``).

The FMU needs Python with blocksim installed where it runs (``needsExecutionTool``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from blocksim.confine import replacing
from blocksim.fmi_export.slave import DIAGRAM, INTERFACE, registered_types, rewrite

SCRIPT = '''"""The slave of an FMU written by blocksim export-fmu."""

from blocksim.fmi_export.slave import DiagramSlave, keep_namespace

keep_namespace(globals())  # pythonfmu's loader releases this namespace once per instance


class BlocksimFMU(DiagramSlave):
    """The diagram in resources/diagram.json as a co-simulation slave."""
'''


class ExportError(ValueError):
    """A diagram cannot be exported as asked (message for people)."""


def _named_outputs(diagram: Any, doc: dict[str, Any], signals: tuple[str, ...]) -> list[str]:
    """The signals ``"block.port"`` that become outputs without Outports: ``signals`` as
    given, else the signals wired into the root Scope, XYGraph and Record blocks."""
    if signals:
        return list(signals)
    sinks = {n for n, b in diagram.blocks.items()
             if type(b).__name__ in ("Scope", "XYGraph", "Record")}
    out: list[str] = []
    for wire in doc.get("wires", []):
        src, dsts = str(wire.get("from", "")), wire.get("to", [])
        for dst in dsts if isinstance(dsts, list) else [dsts]:
            if str(dst).split(".")[0] not in sinks:
                continue
            block, _, port = src.partition(".")
            if not port and block in diagram.blocks and diagram.blocks[block].outputs:
                port = diagram.blocks[block].outputs[0].name
            if f"{block}.{port}" not in out:
                out.append(f"{block}.{port}")
    return out


def _interface(path: Path, doc: dict[str, Any], step: float | None, stop: float | None,
               allow_dirs: tuple[str, ...], signals: tuple[str, ...] = ()) -> dict[str, Any]:
    """The FMU's interface (see the module docstring) from the diagram file."""
    from blocksim.engine.compile import compile_diagram
    from blocksim.engine.errors import BlocksimError
    from blocksim.engine.subsystem import Inport, Outport
    from blocksim.io import load, loads
    from blocksim.io.errors import DiagramFileError

    try:
        df = load(path, allow_dirs=allow_dirs)
    except DiagramFileError as exc:
        raise ExportError("\n".join(exc.problems)) from None
    sim = df.simulation
    T = float(stop if stop is not None else sim.get("T", 10.0))
    h = float(step if step is not None else sim.get("dt") or T / 100.0)
    if not (h > 0 and T > 0 and np.isfinite(h) and np.isfinite(T)):
        raise ExportError(f"the step ({h:g} s) and stop time ({T:g} s) must be positive")
    inputs, outputs, params = [], [], []
    for name, block in df.diagram.blocks.items():
        if type(block) is Inport:
            shape = tuple(block.params.get("shape") or ())
            if len(shape) > 1:
                raise ExportError(f"Inport '{name}': an FMU input is a scalar or a vector, "
                                  f"not shape {shape}")
            size = int(shape[0]) if shape else 0
            inputs.append({"name": name, "size": size, "start": [0.0] * max(size, 1)})
        elif type(block) is Outport:
            outputs.append({"name": name, "size": 0})
        elif type(block).__name__ == "Constant":
            value = np.asarray(block.params.get("value"))
            if value.ndim == 0 and value.dtype.kind in "iuf":
                params.append({"name": name, "start": [float(value)]})
    if signals or not outputs:
        outputs += [{"name": sig, "size": 0, "signal": sig}
                    for sig in _named_outputs(df.diagram, doc, signals)]
    if not outputs:
        raise ExportError("the diagram has no root Outport block and no scope: add Outport "
                          "blocks, or name the signals the FMU outputs (--signal block.port)")
    spec = {"model": _identifier(df.diagram.name), "step": h, "stop": T, "inputs": inputs,
            "outputs": outputs, "parameters": params}
    try:  # the diagram alone, as the FMU will load it: it must name no other file
        with registered_types():
            alone = loads(json.dumps(rewrite(doc, "export", spec)), name=path.name,
                          base_dir=tempfile.gettempdir())
        plan = compile_diagram(alone.diagram)
    except (DiagramFileError, BlocksimError) as exc:
        lines = getattr(exc, "problems", None) or [str(exc)]
        raise ExportError("the diagram cannot be loaded on its own inside the FMU (an FMU "
                          "carries the diagram file only, not the subsystem or data files "
                          "it names):\n" + "\n".join(lines)) from None
    shapes = dict(zip(plan.signal_names, plan.signal_shapes))
    for item in outputs:
        shape = tuple(shapes[item["signal"] if item.get("signal") else f"{item['name']}.y"])
        if len(shape) > 1:
            raise ExportError(f"Outport '{item['name']}': an FMU output is a scalar or a "
                              f"vector, not shape {shape}")
        item["size"] = int(shape[0]) if shape else 0
    return spec


def _identifier(name: str) -> str:
    ident = re.sub(r"\W", "_", name) or "diagram"
    return f"_{ident}" if ident[0].isdigit() else ident


def _initial_unknowns(xml: bytes) -> bytes:
    """``modelDescription.xml`` with its outputs listed as ModelStructure/InitialUnknowns (they
    are calculated at initialisation; pythonfmu leaves the list out, which validators refuse)."""
    root = ET.fromstring(xml)
    structure = root.find("ModelStructure")
    outputs = structure.find("Outputs") if structure is not None else None
    if outputs is not None and structure.find("InitialUnknowns") is None:
        unknowns = ET.SubElement(structure, "InitialUnknowns")
        for u in outputs.findall("Unknown"):
            ET.SubElement(unknowns, "Unknown", index=u.get("index"))
    ET.indent(root)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="utf-8")


def export_fmu(diagram: str | os.PathLike[str], fmu: str | os.PathLike[str],
               step: float | None = None, stop: float | None = None,
               allow_dirs: tuple[str, ...] = (), outputs: tuple[str, ...] = ()) -> dict[str, Any]:
    """Write the diagram file ``diagram`` as the co-simulation FMU ``fmu``.

    Parameters
    ----------
    diagram : path
        The diagram file (.json); it must load on its own (no subsystem or data files).
    fmu : path
        The ``.fmu`` file to write (replaced if it exists).
    step : float, optional
        The communication step [s] (default: the file's ``dt``, else ``T / 100``).
    stop : float, optional
        The default experiment's stop time [s] (default: the file's ``T``, else 10).
    allow_dirs : tuple of str
        Folders the diagram may read files from while it is checked (``--allow-dir``).
    outputs : tuple of str
        Signals ``"block.port"`` to output besides the root Outport blocks (FMU variables of
        the same name). A diagram without Outports and without ``outputs`` outputs the signals
        wired into its root Scope, XYGraph and Record blocks.

    Returns
    -------
    dict
        The interface: ``model``, ``step``, ``stop``, ``inputs``, ``outputs``,
        ``parameters`` (each a list of ``{"name", "size", "start"}``).

    Raises
    ------
    ExportError
        The diagram cannot be exported (every reason listed).
    """
    try:
        from pythonfmu.builder import FmuBuilder
    except ImportError:  # pragma: no cover - the extra is part of the test install
        raise ExportError("exporting an FMU needs the package 'pythonfmu': pip install "
                          "'blocksim[fmi-export]'") from None
    path = Path(diagram)
    doc = json.loads(path.read_text(encoding="utf-8-sig"))
    spec = _interface(path, doc, step, stop, allow_dirs, tuple(outputs))
    with tempfile.TemporaryDirectory(prefix="blocksim-fmu-") as tmp:
        work = Path(tmp)
        (work / DIAGRAM).write_text(json.dumps(doc, indent=1))
        (work / INTERFACE).write_text(json.dumps(spec, indent=1))
        script = work / "src" / "blocksim_fmu_slave.py"
        script.parent.mkdir()
        script.write_text(SCRIPT)
        built = FmuBuilder.build_FMU(script, dest=work / "out" / "model.fmu",
                                     project_files=[work / DIAGRAM, work / INTERFACE],
                                     canHandleVariableCommunicationStepSize=False)
        target = Path(fmu)
        with zipfile.ZipFile(built) as src, replacing(target) as tmp_fmu, \
                zipfile.ZipFile(tmp_fmu, "w", zipfile.ZIP_DEFLATED) as dst:
            for info in src.infolist():
                data = src.read(info)
                if info.filename == "modelDescription.xml":
                    data = _initial_unknowns(data)
                dst.writestr(info.filename, data)
        shutil.rmtree(work / "out", ignore_errors=True)
    return spec
