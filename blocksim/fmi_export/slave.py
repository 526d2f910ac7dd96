"""The pythonfmu slave of an exported diagram (FMI 2.0 co-simulation).

The FMU's ``resources`` folder holds the diagram file (``diagram.json``) and its interface
(``interface.json``, written by :func:`blocksim.fmi_export.export_fmu`): the inputs (root
``Inport`` blocks), outputs (root ``Outport`` blocks, or named signals ``"block.port"``) and
parameters (root ``Constant`` blocks of one number), the communication step and the default
stop time. Vector ports become one
FMU variable per element, ``name[1]`` ... ``name[n]``.

At ``exitInitializationMode`` the slave loads the diagram with the parameters' values, swaps
its root ports for the blocks of :mod:`blocksim.fmi_export.runtime` and starts the run on a
thread, which stops at every communication point (see that module); ``doStep`` advances it;
``terminate`` ends it. The slave needs blocksim (and its dependencies) installed in the Python
that pythonfmu's binary embeds.
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from pythonfmu import DefaultExperiment, Fmi2Causality, Fmi2Slave, Fmi2Variability, Real

from blocksim.fmi_export.runtime import BLOCK_TYPES, LINKS, Link, steps

DIAGRAM = "diagram.json"
INTERFACE = "interface.json"
_KEYS = itertools.count()


def element_names(name: str, size: int) -> list[str]:
    """The FMU variables of a port: ``[name]`` for a scalar, ``name[1]..name[n]`` for (n,)."""
    return [name] if size == 0 else [f"{name}[{i + 1}]" for i in range(size)]


def rewrite(doc: dict[str, Any], key: str, spec: dict[str, Any],
            parameters: dict[str, float] | None = None) -> dict[str, Any]:
    """The diagram document ``doc`` with its root Inport and Outport blocks replaced by the
    FMU's input and output blocks (linked by ``key``), a Gate added, and the root Constant
    blocks named in ``parameters`` set to those values."""
    out = copy.deepcopy(doc)
    blocks = out["blocks"]
    h = float(spec["step"])
    for item in spec["inputs"]:
        start = item["start"] if item["size"] else item["start"][0]
        blocks[item["name"]] = {"type": "FMUExportInput", "params": {
            "link": key, "name": item["name"], "size": item["size"], "start": start}}
    for item in spec["outputs"]:
        capture = {"type": "FMUExportOutput", "params": {"link": key, "name": item["name"]}}
        if item.get("signal") is None:  # a root Outport: replaced in place
            blocks[item["name"]] = capture
            continue
        name = _fresh(blocks, "fmu_output")  # a named signal: a capture wired from it
        blocks[name] = capture
        out.setdefault("wires", []).append({"from": item["signal"], "to": f"{name}.u"})
    for name, value in (parameters or {}).items():
        blocks[name] = {"type": "Constant", "params": {"value": float(value)}}
    blocks[_fresh(blocks, "fmu_gate")] = {"type": "FMUExportGate",
                                          "params": {"link": key, "step": h}}
    return out


def _fresh(blocks: dict[str, Any], base: str) -> str:
    """A block name starting with ``base`` that ``blocks`` does not use."""
    k = 0
    while f"{base}_{k}" in blocks:
        k += 1
    return f"{base}_{k}"


#: namespaces of the slave modules, kept alive (see :func:`keep_namespace`)
_NAMESPACES: list[dict[str, Any]] = []


def keep_namespace(namespace: dict[str, Any]) -> None:
    """Hold one more reference to the slave module's namespace.

    pythonfmu's binary (0.7), when it instantiates a slave, runs the slave's module code again
    in the module's namespace and then releases that namespace once more than it acquired it
    (a borrowed reference released): the second instance in one process found the module
    emptied ("module has no attribute 'BlocksimFMU'"), and a later one could crash. The slave
    module calls this each time its code runs, which balances that release.
    """
    _NAMESPACES.append(namespace)


_TYPES_LOCK = threading.Lock()


@contextlib.contextmanager
def registered_types() -> Iterator[None]:
    """Within it, the FMU's blocks are loadable (the rewritten diagram names them); after it
    they are forgotten again, so the host process's catalog of block types stays its own."""
    from blocksim.io import register_block, unregister_block

    with _TYPES_LOCK:
        for name, cls in BLOCK_TYPES.items():
            register_block(cls, name)
        try:
            yield
        finally:
            for name in BLOCK_TYPES:
                unregister_block(name)


class DiagramSlave(Fmi2Slave):
    """A blocksim diagram as an FMI 2.0 co-simulation slave (see the module docstring)."""

    author = "blocksim"
    description = "a blocksim diagram (co-simulation; needs Python with blocksim installed)"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        res = Path(self.resources)
        self.spec = json.loads((res / INTERFACE).read_text())
        self.doc = json.loads((res / DIAGRAM).read_text())
        self.modelName = self.spec["model"]
        self.default_experiment = DefaultExperiment(0.0, self.spec["stop"], self.spec["step"])
        self.values: dict[str, float] = {}
        for group, causality in (("parameters", Fmi2Causality.parameter),
                                 ("inputs", Fmi2Causality.input),
                                 ("outputs", Fmi2Causality.output)):
            for item in self.spec[group]:
                starts = item.get("start") or [0.0] * max(item.get("size", 0), 1)
                for var, start in zip(element_names(item["name"], item.get("size", 0)), starts):
                    self.values[var] = float(start)
                    self._register(var, causality)
        self.stop_time = float(self.spec["stop"])
        self.link: Link | None = None
        self.key = ""
        self.thread: threading.Thread | None = None

    def _register(self, var: str, causality: Fmi2Causality) -> None:
        def get() -> float:
            return self.values[var]

        def put(v: float) -> None:
            self.values[var] = float(v)

        variability = Fmi2Variability.fixed if causality == Fmi2Causality.parameter else \
            Fmi2Variability.continuous
        self.register_variable(Real(var, causality=causality, variability=variability,
                                    getter=get, setter=put), nested=False)

    def _port_values(self, group: str) -> dict[str, Any]:
        out = {}
        for item in self.spec[group]:
            v = [self.values[n] for n in element_names(item["name"], item["size"])]
            out[item["name"]] = np.array(v) if item["size"] else v[0]
        return out

    def setup_experiment(self, start_time: float, stop_time: float | None,
                         tolerance: float | None) -> None:
        if start_time:
            raise ValueError(f"a blocksim FMU starts at t = 0, not {start_time:g} s")
        if stop_time is not None:
            self.stop_time = float(stop_time)

    def exit_initialization_mode(self) -> None:
        from blocksim.engine.config import file_config
        from blocksim.engine.simulate import run_config
        from blocksim.io import loads

        self.key = f"{self.instance_name}-{next(_KEYS)}"
        params = {p["name"]: self.values[p["name"]] for p in self.spec["parameters"]}
        doc = rewrite(self.doc, self.key, self.spec, params)
        self.link = link = Link(self.spec["step"], self._port_values("inputs"))
        LINKS[self.key] = link
        with registered_types():
            df = loads(json.dumps(doc), name=f"{self.modelName}.fmu", base_dir=self.resources)
        config = file_config(df.simulation, {"T": self.stop_time, "backend": "interpreted"},
                             self.stop_time)

        def work() -> None:
            try:
                run_config(df.diagram, config)
                link.finish(None)
            except BaseException as exc:  # the master hears of it at its next doStep
                link.finish(exc)

        self.thread = threading.Thread(target=work, name=f"blocksim-fmu-{self.key}",
                                       daemon=True)
        self.thread.start()
        self._read(link.wait_published(0))

    def _read(self, outputs: dict[str, Any]) -> None:
        for item in self.spec["outputs"]:
            v = np.atleast_1d(np.asarray(outputs[item["name"]], dtype=float)).reshape(-1)
            for var, x in zip(element_names(item["name"], item["size"]), v):
                self.values[var] = float(x)

    def do_step(self, current_time: float, step_size: float) -> bool:
        link = self.link
        if link is None:
            raise RuntimeError("doStep before exitInitializationMode")
        try:
            k0 = round(current_time / link.step)
            n = steps(step_size, link.step)
            link.release(k0 + n - 1, self._port_values("inputs"))
            self._read(link.wait_published(k0 + n))
        except BaseException:  # an error is final in FMI: end the run now
            self.terminate()
            raise
        return True

    def terminate(self) -> None:
        if self.link is not None:
            self.link.stop()
        if self.thread is not None:
            self.thread.join(timeout=10.0)
            self.thread = None
        LINKS.pop(self.key, None)

    def __del__(self) -> None:  # freed without terminate: still end the run's thread
        if getattr(self, "link", None) is not None:
            self.link.stop()
