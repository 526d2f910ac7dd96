"""The FMU block: a Functional Mock-up Unit (FMI 2.0 or 3.0) as a block of a diagram.

Model exchange: the FMU's continuous states are the block's states, integrated by blocksim's
solver from the derivatives the FMU gives; its event indicators are zero crossings (either
direction) and at each one the FMU's event update runs and may reset the states; its time
events end a solver segment. Co-simulation: the FMU steps itself, once per hit of the block's
sample time. See ``docs/interop.md`` ("FMUs").
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from blocksim.blocks.fmi.build import SHIPPED_FMUS, BuildError, shipped_fmu
from blocksim.blocks.fmi.instance import FMUError, FMUFile, Instance, fmi_error
from blocksim.confine import PathRefused, input_path
from blocksim.engine.block import Block, Port
from blocksim.engine.errors import BlockParameterError, BlocksimError, suggest

FMUPath = str | os.PathLike[str]
#: ``parameters`` as a file holds it: ``[[name, value], ...]``; Python also takes a dict
StartValues = Mapping[str, float | str | bool] | Sequence[Sequence[float | str]] | None

KINDS = {"ME": "ME", "CS": "CS", "model_exchange": "ME", "co_simulation": "CS"}
_NOT_SETTABLE = ("independent", "calculatedParameter")


def port_name(variable: str) -> str:
    """The port name of the FMU variable ``variable``: characters other than letters, digits
    and ``_`` become ``_`` (``"der(x)"`` -> ``"der_x_"``, ``"y[1]"`` -> ``"y_1_"``), and a name
    starting with a digit gets a leading ``_``."""
    name = re.sub(r"\W", "_", variable, flags=re.ASCII)
    return name if name and not name[0].isdigit() else "_" + name


def _pairs(owner: str, parameters: Any) -> list[list[Any]]:
    """``parameters`` (a dict, or name/value pairs) as a list of ``[name, value]`` pairs."""
    if parameters is None:
        return []
    items = parameters.items() if isinstance(parameters, Mapping) else parameters
    out = []
    try:
        for item in items:
            name, value = item
            if not isinstance(name, str):
                raise TypeError
            out.append([name, value.item() if isinstance(value, np.generic) else value])
    except (TypeError, ValueError):
        raise BlockParameterError(
            f"{owner}: parameter 'parameters' must be a dict or a list of [name, value] "
            f"pairs (in a file: [[\"mu\", 2.0], ...]), got {parameters!r}") from None
    return out


class FMU(Block):
    """A Functional Mock-up Unit (FMI 2.0 or 3.0, model exchange or co-simulation).

    Parameters
    ----------
    fmu : str or path
        The ``.fmu`` file. In a diagram file, a path relative to the file's folder, confined
        to it like every data file. Or the name of an FMU blocksim ships as C source
        (``"linear_plant"``: FMI 3.0 model exchange, ``"linear_plant_cs"``: FMI 2.0
        co-simulation; see :mod:`blocksim.blocks.fmi.build`), built with gcc on first use
        into a cache folder. Read when the block is made: the archive is checked, its
        ``modelDescription.xml`` validated (fmpy), and the FMU must hold a binary for this
        machine's platform, else a clear error lists the platforms it has.
    parameters : dict or list of (name, value) pairs, optional
        Start values set before the FMU is initialised, by variable name: parameters, inputs'
        and states' start values (not outputs computed by the FMU, nor ``time``).
    inputs, outputs : list of str, optional
        The FMU variables that are the block's input and output ports, in port order (default:
        every variable of causality ``input``, resp. ``output``, in the model description's
        order). An output may name any variable that is not an input. Port names are the
        variable names with other characters than letters, digits and ``_`` made ``_``; each
        port carries the variable's unit.
    sample_time : float, optional
        Co-simulation: the communication step [s] (the block is a discrete block with this
        period; default the model description's ``DefaultExperiment stepSize``). Giving it
        selects co-simulation when the FMU provides both interfaces.
    kind : {"ME", "CS"}, optional
        The interface: model exchange or co-simulation (default model exchange when the FMU
        provides it and ``sample_time`` is not given, else co-simulation).
    tolerance : float, optional
        The relative tolerance passed to the FMU [-] (default none).

    Ports
    -----
    One scalar input per FMU input, one scalar output per FMU output (see ``inputs``,
    ``outputs``), with the variables' units. An output reads at the same instant the inputs
    its model-structure dependencies name (all of them when the FMU does not say).

    States
    ------
    Model exchange: the FMU's continuous states, named as in the FMU, integrated by the
    run's solver. Co-simulation: one discrete state, the FMU's time [s].

    Events
    ------
    Model exchange: each event indicator is a zero crossing (either direction): at the located
    instant the FMU's event update runs and its continuous states may be reset. Its time events
    (the next one the FMU announces) end the solver's segment at that instant.

    Notes
    -----
    Interpreted back-end only (the compiled back-end refuses the diagram, naming the block).
    The instance is made and initialised in ``start`` and terminated and freed in ``stop``, on
    every exit path; one block drives one run at a time. Loading runs no code beyond the
    FMU's own binary, and only in ``start``.
    """

    def __init__(self, fmu: FMUPath, parameters: StartValues = None,
                 inputs: Sequence[str] | None = None, outputs: Sequence[str] | None = None,
                 sample_time: float | None = None, kind: str | None = None,
                 tolerance: float | None = None) -> None:
        super().__init__()
        owner = "FMU"
        self.path = self._resolve(owner, fmu)
        try:
            self.file = FMUFile(self.path)
        except FMUError as exc:
            raise BlockParameterError(f"{owner}: parameter 'fmu': {exc}") from None
        self.start_values = _pairs(owner, parameters)
        self.__dict__["_params"]["parameters"] = [list(p) for p in self.start_values] or None
        self.kind = self._kind(owner, kind, sample_time)
        self.tolerance = None if tolerance is None else float(tolerance)
        variables = self.file.variables
        for name, _ in self.start_values:
            var = self._variable(owner, name, "parameters")
            if var.causality in _NOT_SETTABLE or (
                    var.causality == "output" and var.initial == "calculated"):
                raise BlockParameterError(
                    f"{owner}: parameter 'parameters': variable {name!r} ({var.causality}) "
                    f"is computed by the FMU and cannot be set")
        md = self.file.md
        if inputs is None:
            inputs = [v.name for v in md.modelVariables if v.causality == "input"]
        if outputs is None:
            outputs = [v.name for v in md.modelVariables if v.causality == "output"]
        self.input_names = [str(n) for n in inputs]
        self.output_names = [str(n) for n in outputs]
        for name in self.input_names:
            if self._variable(owner, name, "inputs").causality != "input":
                raise BlockParameterError(
                    f"{owner}: parameter 'inputs': variable {name!r} is not an input of the "
                    f"FMU (causality {variables[name].causality})")
        for name in self.output_names:
            if self._variable(owner, name, "outputs").causality == "input":
                raise BlockParameterError(
                    f"{owner}: parameter 'outputs': variable {name!r} is an input")
        for which, names in (("inputs", self.input_names), ("outputs", self.output_names)):
            for name in names:
                var = variables[name]
                if getattr(var, "dimensions", None):
                    raise BlockParameterError(
                        f"{owner}: parameter '{which}': variable {name!r} is an array; "
                        f"scalar variables only")
                if var.type == "String":
                    raise BlockParameterError(
                        f"{owner}: parameter '{which}': variable {name!r} is a String, "
                        f"not a signal")
        self.set_ports(inputs=[self._port(variables[n]) for n in self.input_names],
                       outputs=[self._port(variables[n]) for n in self.output_names])
        self.feedthrough = self._feedthrough()
        if self.kind == "CS":
            step = sample_time if sample_time is not None else getattr(
                md.defaultExperiment, "stepSize", None)
            if step is None:
                raise BlockParameterError(
                    f"{owner}: a co-simulation FMU needs 'sample_time' (its communication "
                    f"step in seconds): the FMU gives no default step size")
            try:
                self.clock = float(step)
            except (TypeError, ValueError) as exc:
                raise BlockParameterError(f"{owner}: parameter 'sample_time': {exc}") from None
            self.h = self.clock.period
            self.set_state([0.0], ("t_fmu",))
            self.nz = 0
        else:
            self._init_model_exchange()
        self._live: Instance | None = None
        self._T = math.inf

    # ------------------------------------------------------------------ description
    @staticmethod
    def _resolve(owner: str, fmu: Any) -> Path:
        """The FMU file: a shipped FMU's build (a name of ``SHIPPED_FMUS``), or the file
        ``fmu`` names (confined in a diagram file's load)."""
        if isinstance(fmu, str) and fmu in SHIPPED_FMUS:
            try:
                return shipped_fmu(fmu)
            except (BuildError, OSError) as exc:
                raise BlockParameterError(
                    f"{owner}: parameter 'fmu': the shipped FMU {fmu!r} is built from C "
                    f"source on first use, which failed: {exc}") from None
        try:
            path = input_path(fmu, "parameter 'fmu'")
        except PathRefused as exc:
            raise BlockParameterError(f"{owner}: {exc}") from None
        if path is None:
            raise BlockParameterError(f"{owner}: parameter 'fmu' is required (an .fmu file, "
                                      f"or a shipped FMU: {', '.join(SHIPPED_FMUS)})")
        return path

    def _kind(self, owner: str, kind: str | None, sample_time: float | None) -> str:
        provided = self.file.provided
        if kind is None:
            kind = "CS" if ("CS" in provided and (sample_time is not None or
                                                  "ME" not in provided)) else "ME"
        elif kind not in KINDS:
            raise BlockParameterError(f"{owner}: parameter 'kind' must be 'ME' (model "
                                      f"exchange) or 'CS' (co-simulation), got {kind!r}")
        kind = KINDS[kind]
        if kind not in provided:
            raise BlockParameterError(
                f"{owner}: the FMU {str(self.path)!r} provides no "
                f"{'model exchange' if kind == 'ME' else 'co-simulation'} interface")
        if kind == "ME" and sample_time is not None:
            raise BlockParameterError(
                f"{owner}: 'sample_time' is the step of a co-simulation FMU; a model-exchange "
                f"FMU is integrated by the run's solver (give kind='CS' to step it)")
        try:
            self.file.check_platform(kind)
        except FMUError as exc:
            raise BlockParameterError(f"{owner}: parameter 'fmu': {exc}") from None
        return kind

    def _variable(self, owner: str, name: Any, what: str) -> Any:
        var = self.file.variables.get(name) if isinstance(name, str) else None
        if var is None:
            raise BlockParameterError(
                f"{owner}: parameter '{what}': the FMU has no variable {name!r}"
                f"{suggest(str(name), list(self.file.variables))}")
        return var

    @staticmethod
    def _port(var: Any) -> Port:
        doc = (var.description or "") + ("" if port_name(var.name) == var.name
                                          else f" (FMU variable {var.name})")
        return Port(port_name(var.name), (), var.unit or "", doc.strip())

    def _feedthrough(self) -> dict[str, tuple[str, ...]]:
        deps = {u.variable.name: u.dependencies for u in self.file.md.outputs}
        ins = [p.name for p in self.inputs]  # type: ignore[union-attr]
        by_var = dict(zip(self.input_names, ins))
        out: dict[str, tuple[str, ...]] = {}
        for name, port in zip(self.output_names, self.outputs):  # type: ignore[arg-type]
            var = self.file.variables[name]
            d = deps.get(name)
            if d is None and var.causality != "output":
                d = [] if var.variability in ("constant", "fixed", "tunable") else None
            if d is None:
                out[port.name] = tuple(ins)
            else:
                out[port.name] = tuple(by_var[v.name] for v in d if v.name in by_var)
        return out

    def _init_model_exchange(self) -> None:
        md = self.file.md
        starts = dict((n, v) for n, v in self.start_values)
        states = [u.variable.derivative for u in md.derivatives]
        x0 = []
        for s in states:
            value = starts.get(s.name, s.start)
            try:
                x0.append(float(value) if value is not None else 0.0)
            except (TypeError, ValueError):
                x0.append(0.0)
        self.set_state(x0, tuple(s.name for s in states))
        if not states:  # an FMU without states may still depend on time: evaluate it always
            self.sample_time = "continuous"  # type: ignore[misc]
        self.nz = len(md.eventIndicators) if self.file.version == "3.0" \
            else int(md.numberOfEventIndicators)
        # the FMU's event indicators (either direction), then its next time event (t - t_next)
        self.crossing_directions = (0,) * self.nz + (1,)
        self.y0 = [self._start_of(n) for n in self.output_names]

    def _start_of(self, name: str) -> float:
        value = dict((n, v) for n, v in self.start_values).get(name)
        if value is None:
            value = self.file.variables[name].start
        try:
            return float(value) if value is not None else 0.0
        except (TypeError, ValueError):
            return 1.0 if str(value).lower() == "true" else 0.0

    # ------------------------------------------------------------------ run lifecycle
    @property
    def _what(self) -> str:
        return f"block '{self.name}' (FMU)" if self.name else "FMU"

    def start(self, run: Any) -> None:
        if self._live is not None:
            raise BlocksimError(f"{self._what} is already running in another simulation: "
                                f"an FMU block drives one run at a time")
        config = getattr(run, "config", None)
        self._T = float(getattr(config, "T", math.inf))
        tol = self.tolerance
        if tol is None and self.kind == "ME" and config is not None:
            tol = float(getattr(config, "rtol", 0.0)) or None
        try:
            self._live = Instance(self.file, self.kind, self.name or "FMU",
                                  dict((n, v) for n, v in self.start_values), self.input_names,
                                  self.output_names, tol)
        except FMUError as exc:
            raise BlocksimError(f"{self._what}: {exc}") from None
        if self.kind == "ME" and self.nx and hasattr(run, "plan"):
            x = self._live.states()
            for e in run.plan.entries:  # the FMU's initialised states start the run
                if e.block is self:
                    run.x[e.states] = x

    def stop(self, run: Any) -> None:
        live, self._live = self._live, None
        if live is not None:
            live.close()

    # ------------------------------------------------------------------ evaluation
    def _call(self, what: str, fn: Any, t: float) -> Any:
        try:
            return fn()
        except Exception as exc:
            if fmi_error(exc) or isinstance(exc, FMUError):
                if self._live is not None:
                    self._live.failed = True
                raise FMUError(f"the FMU failed in {what} at t={t:.9g} s: {exc}") from None
            raise

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any, ...]:
        live = self._live
        if live is None:  # the compiler's dry run: the outputs' start values
            if self.kind == "CS":
                return tuple(self._start_of(n) for n in self.output_names)
            return tuple(self.y0)
        if self.kind == "ME":
            y = self._call("output", lambda: (live.set_point(t, x, u), live.outputs())[1], t)
        else:
            y = self._call("output", lambda: (live.set_inputs(u), live.outputs())[1], t)
        return tuple(float(v) for v in y)

    def deriv(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Any:
        live = self._live
        if live is None:
            return np.zeros(self.nx)
        return self._call("deriv", lambda: (live.set_point(t, x, u), live.derivatives())[1], t)

    def zero_crossings(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Sequence[float]:
        live = self._live
        if live is None:
            return [1.0] * self.nz + [-1.0]
        z = self._call("zero_crossings",
                       lambda: (live.set_point(t, x, u), live.indicators())[1], t)
        g = [float(v) for v in z]
        g.append(t - live.next_event if math.isfinite(live.next_event) else -1.0)
        return g

    def on_event(self, t: float, x: np.ndarray, u: Sequence[Any], which: int) -> Any:
        live = self._live
        if live is None:
            return None
        new = self._call("on_event", lambda: live.event(t, x, u), t)
        if live.terminate_requested:
            raise FMUError(f"the FMU asked to terminate the simulation at t={t:.9g} s")
        return new

    def next_breakpoint(self, t: float) -> float:
        live = self._live
        if live is None or self.kind != "ME" or not live.next_event > t:
            return math.inf
        return live.next_event

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Any:
        live = self._live
        if live is not None and t < self._T - 1e-12 * max(1.0, abs(self._T)):
            def step() -> None:
                live.set_inputs(u)
                live.do_step(t, self.h)

            self._call("update (doStep)", step, t)
            if live.terminate_requested:
                raise FMUError(f"the FMU asked to terminate the simulation at "
                               f"t={t + self.h:.9g} s")
        return [t + self.h]


__all__ = ["FMU", "port_name"]
