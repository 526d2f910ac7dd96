"""An FMU file, checked, and a live instance of it (FMI 2.0 and 3.0, model exchange and
co-simulation), over fmpy.

:class:`FMUFile` reads an ``.fmu`` (a zip) without running anything: the archive's members are
checked (no absolute or ``..`` names, bounded sizes), ``modelDescription.xml`` is refused if it
declares a DOCTYPE (no entities: FMI needs none) and is then read and validated by fmpy, and
the shared library for this machine's platform must be in the archive, else a clear error
lists the platforms it has. :class:`Instance` extracts the archive to a private temporary
folder, loads the library (the FMU's own binary: the only code an FMU file brings), and drives
it; :meth:`Instance.close` terminates and frees the instance, unloads the library and removes
the folder, whatever state the instance is in.

This module imports no block or engine code: :mod:`blocksim.blocks.fmi.block` adapts it to the
block contract. fmpy is imported when an FMU is first read.
"""

from __future__ import annotations

import ctypes
import io
import math
import shutil
import tempfile
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from blocksim.confine import FileTooLarge, read_regular

#: most bytes of an .fmu file, of its unpacked members together, and of modelDescription.xml
MAX_FMU_BYTES = 512 * 2**20
MAX_UNPACKED_BYTES = 2 * 2**30
MAX_DESCRIPTION_BYTES = 32 * 2**20

REAL_TYPES = ("Real", "Float64", "Float32")
INTEGER_TYPES = ("Integer", "Enumeration", "Int8", "UInt8", "Int16", "UInt16", "Int32",
                 "UInt32", "Int64", "UInt64")


class FMUError(RuntimeError):
    """An FMU file cannot be used, or an FMI call failed (message for people)."""


def _fmpy() -> Any:
    try:
        import fmpy
    except ImportError as exc:
        raise FMUError("FMU blocks need fmpy: pip install 'blocksim[fmi]'") from exc
    return fmpy


def this_platform(fmi_version: str) -> str:
    """The binaries/ folder name of this machine for FMI ``fmi_version`` (fmpy's naming)."""
    fmpy = _fmpy()
    return fmpy.platform_tuple if fmi_version.startswith("3") else fmpy.platform


class FMUFile:
    """A checked FMU file: its model description and what this machine can run of it.

    Parameters
    ----------
    path : Path
        The ``.fmu`` file (already confined by the caller).

    Attributes
    ----------
    md : fmpy.model_description.ModelDescription
        The validated model description.
    version : str
        ``"2.0"`` or ``"3.0"``.
    kinds : tuple of str
        The interfaces the FMU provides and this machine can run: ``"ME"``, ``"CS"``.
    variables : dict
        Name -> fmpy ModelVariable.

    Raises
    ------
    FMUError
        Not a zip, not an FMU, an invalid model description, FMI 1.0, or no binary for this
        platform (the message names the file and what it found).
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        what = f"FMU file {str(self.path)!r}"
        try:
            self.data = read_regular(self.path, MAX_FMU_BYTES)
        except FileNotFoundError:
            raise FMUError(f"{what} not found") from None
        except FileTooLarge:
            raise FMUError(f"{what} is larger than {MAX_FMU_BYTES} bytes") from None
        except (OSError, ValueError) as exc:
            raise FMUError(f"{what} cannot be read: {exc}") from None
        try:
            zf = zipfile.ZipFile(io.BytesIO(self.data))
        except zipfile.BadZipFile:
            raise FMUError(f"{what} is not an FMU: not a zip archive") from None
        with zf:
            infos = zf.infolist()
            self.members = [i.filename for i in infos]
            for i in infos:
                name = i.filename
                if name.startswith(("/", "\\")) or ".." in Path(name).parts or ":" in name:
                    raise FMUError(f"{what}: member {name!r} would unpack outside its folder")
            if sum(i.file_size for i in infos) > MAX_UNPACKED_BYTES:
                raise FMUError(f"{what} unpacks to more than {MAX_UNPACKED_BYTES} bytes")
            if "modelDescription.xml" not in self.members:
                raise FMUError(f"{what} is not an FMU: it has no modelDescription.xml")
            info = zf.getinfo("modelDescription.xml")
            if info.file_size > MAX_DESCRIPTION_BYTES:
                raise FMUError(f"{what}: modelDescription.xml is larger than "
                               f"{MAX_DESCRIPTION_BYTES} bytes")
            xml = zf.read("modelDescription.xml")
        if _declares_doctype(xml):
            raise FMUError(f"{what}: modelDescription.xml declares a DOCTYPE (entities), "
                           f"which an FMU never needs; refused")
        fmpy = _fmpy()
        from fmpy.model_description import ValidationError

        try:
            self.md = fmpy.read_model_description(io.BytesIO(self.data), validate=True)
        except ValidationError as exc:
            raise FMUError(f"{what}: {exc}") from None
        except Exception as exc:  # lxml's syntax errors and the like
            raise FMUError(f"{what}: modelDescription.xml cannot be read: {exc}") from None
        self.version = str(self.md.fmiVersion)
        if not self.version.startswith(("2.", "3.")):
            raise FMUError(f"{what} is FMI {self.version}; FMI 2.0 and 3.0 are supported")
        self.version = "3.0" if self.version.startswith("3") else "2.0"
        self.variables = {v.name: v for v in self.md.modelVariables}
        self.provided = tuple(k for k, iface in (("ME", self.md.modelExchange),
                                                   ("CS", self.md.coSimulation)) if iface)
        if not self.provided:
            raise FMUError(f"{what} provides neither model exchange nor co-simulation")
        self.platform = this_platform(self.version)
        self.kinds = tuple(k for k in self.provided if self.library_member(k) in self.members)

    def identifier(self, kind: str) -> str:
        """The model identifier of interface ``kind``."""
        iface = self.md.modelExchange if kind == "ME" else self.md.coSimulation
        return str(iface.modelIdentifier)

    def library_member(self, kind: str) -> str:
        """The archive member of the shared library of ``kind`` for this platform."""
        ext = _fmpy().sharedLibraryExtension
        return f"binaries/{self.platform}/{self.identifier(kind)}{ext}"

    def check_platform(self, kind: str) -> None:
        """Raise :class:`FMUError` unless the FMU has a binary of ``kind`` for this machine."""
        if kind in self.kinds:
            return
        found = sorted({m.split("/")[1] for m in self.members
                        if m.startswith("binaries/") and m.count("/") >= 2 and m.split("/")[1]})
        raise FMUError(
            f"FMU file {str(self.path)!r} has no binary for this platform ({self.platform}): "
            f"expected {self.library_member(kind)}; it has binaries for "
            f"{', '.join(found) if found else 'no platform'} (rebuild or export the FMU for "
            f"{self.platform})")

    def extract(self) -> Path:
        """Unpack the archive into a new private temporary folder and return it."""
        folder = Path(tempfile.mkdtemp(prefix="blocksim-fmu-"))
        try:
            with zipfile.ZipFile(io.BytesIO(self.data)) as zf:
                zf.extractall(folder)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        return folder


def _declares_doctype(xml: bytes) -> bool:
    """Whether ``xml`` has a DOCTYPE declaration, in any encoding an XML parser detects."""
    for encoding in ("utf-8", "utf-16", "utf-32"):
        try:
            text = xml.decode(encoding)
        except UnicodeDecodeError:
            continue
        if "<!DOCTYPE" in text.upper():
            return True
    return b"<!DOCTYPE" in xml.upper()


def _vrs(vars_: Sequence[Any]) -> Any:
    arr = (ctypes.c_uint32 * max(1, len(vars_)))(*[int(v.valueReference) for v in vars_])
    return arr


class Instance:
    """One instantiated FMU, initialised at time 0, in continuous-time mode (model exchange)
    or step mode (co-simulation).

    Parameters
    ----------
    file : FMUFile
        The checked FMU.
    kind : {"ME", "CS"}
        The interface to instantiate.
    name : str
        The instance name (the block's path).
    start : mapping
        Start values by variable name, set before initialisation.
    inputs, outputs : sequence of str
        The variables read and written at every evaluation, by name.
    tolerance : float or None
        The relative tolerance passed to the FMU.

    Raises
    ------
    FMUError
        Instantiation or initialisation failed (the instance is freed first).
    """

    def __init__(self, file: FMUFile, kind: str, name: str, start: Mapping[str, Any],
                 inputs: Sequence[str], outputs: Sequence[str],
                 tolerance: float | None = None):
        file.check_platform(kind)
        self.file, self.kind, self.version = file, kind, file.version
        self.third = file.version == "3.0"
        self.fmu: Any = None
        self.instantiated = self.initialised = self.failed = False
        self.next_event = math.inf
        self.terminate_requested = False
        self.folder = file.extract()
        try:
            if self.third:
                from fmpy.fmi3 import FMU3Model, FMU3Slave
                cls = FMU3Model if kind == "ME" else FMU3Slave
            else:
                from fmpy.fmi2 import FMU2Model, FMU2Slave
                cls = FMU2Model if kind == "ME" else FMU2Slave
            self.fmu = cls(guid=file.md.guid, unzipDirectory=str(self.folder),
                           modelIdentifier=file.identifier(kind), instanceName=name)
            self.fmu.instantiate()
            self.instantiated = True
            if not self.third:
                self.fmu.setupExperiment(tolerance=tolerance, startTime=0.0)
            for vname, value in start.items():
                self.set_value(file.variables[vname], value)
            if self.third:
                self.fmu.enterInitializationMode(tolerance=tolerance, startTime=0.0)
            else:
                self.fmu.enterInitializationMode()
            self.fmu.exitInitializationMode()
            self.initialised = True
            self._prepare(inputs, outputs)
            if kind == "ME":
                self._event_iteration()
                self.fmu.enterContinuousTimeMode()
        except FMUError:
            self.failed = True
            self.close()
            raise
        except Exception as exc:
            self.failed = True
            self.close()
            raise FMUError(f"{type(exc).__name__}: {exc}") from None
        except BaseException:  # Ctrl-C while the FMU initialises: free it all the same
            self.failed = True
            self.close()
            raise

    # ------------------------------------------------------------------ setup
    def _prepare(self, inputs: Sequence[str], outputs: Sequence[str]) -> None:
        v = self.file.variables
        self.in_vars = [v[n] for n in inputs]
        self.out_vars = [v[n] for n in outputs]
        self.real_in = all(x.type in REAL_TYPES and x.type != "Float32" for x in self.in_vars)
        self.real_out = all(x.type in REAL_TYPES and x.type != "Float32" for x in self.out_vars)
        self.in_vr = _vrs(self.in_vars)
        self.out_vr = _vrs(self.out_vars)
        self.u_buf = np.zeros(max(1, len(self.in_vars)))
        self.y_buf = np.zeros(max(1, len(self.out_vars)))
        self.nx = int(self.file.md.numberOfContinuousStates)
        if self.third and self.kind == "ME":
            self.nz = len(self.file.md.eventIndicators)
        else:
            self.nz = int(self.file.md.numberOfEventIndicators)
        self.x_buf = np.zeros(max(1, self.nx))
        self.dx_buf = np.zeros(max(1, self.nx))
        self.z_buf = np.zeros(max(1, self.nz))
        p = ctypes.POINTER(ctypes.c_double)
        self._pu, self._py = self.u_buf.ctypes.data_as(p), self.y_buf.ctypes.data_as(p)
        self._px, self._pdx = self.x_buf.ctypes.data_as(p), self.dx_buf.ctypes.data_as(p)
        self._pz = self.z_buf.ctypes.data_as(p)

    def set_value(self, var: Any, value: Any) -> None:
        """Set one variable (any scalar type) by its description."""
        vr = [int(var.valueReference)]
        t = var.type
        f = self.fmu
        if t in REAL_TYPES:
            (f.setFloat64 if t == "Float64" else f.setFloat32 if t == "Float32"
             else f.setReal)(vr, [float(value)])
        elif t in INTEGER_TYPES:
            name = "setInteger" if not self.third else f"set{'Int64' if t == 'Enumeration' else t}"
            getattr(f, name)(vr, [int(value)])
        elif t == "Boolean":
            f.setBoolean(vr, [bool(value)])
        elif t == "String":
            f.setString(vr, [str(value)])
        else:
            raise FMUError(f"variable {var.name!r} is of type {t}, which cannot be set")

    def _get(self, var: Any) -> float:
        vr = [int(var.valueReference)]
        t = var.type
        f = self.fmu
        if t in REAL_TYPES:
            return float((f.getFloat64 if t == "Float64" else f.getFloat32 if t == "Float32"
                          else f.getReal)(vr)[0])
        if t in INTEGER_TYPES:
            name = "getInteger" if not self.third else f"get{'Int64' if t == 'Enumeration' else t}"
            return float(getattr(f, name)(vr)[0])
        if t == "Boolean":
            return float(bool(f.getBoolean(vr)[0]))
        raise FMUError(f"variable {var.name!r} is of type {t}, which is not a signal")

    # ------------------------------------------------------------------ evaluation
    def set_inputs(self, u: Sequence[Any]) -> None:
        """Set the input variables to ``u`` (one value per input, in order)."""
        if not self.in_vars:
            return
        if self.real_in:
            self.u_buf[:len(u)] = u
            if self.third:
                self.fmu.fmi3SetFloat64(self.fmu.component, self.in_vr, len(self.in_vars),
                                        self._pu, len(self.in_vars))
            else:
                self.fmu.fmi2SetReal(self.fmu.component, self.in_vr, len(self.in_vars),
                                     self._pu)
        else:
            for var, value in zip(self.in_vars, u):
                self.set_value(var, value)

    def set_point(self, t: float, x: np.ndarray, u: Sequence[Any]) -> None:
        """Model exchange: set time ``t`` [s], the continuous states ``x`` (nx,) and inputs."""
        f = self.fmu
        if self.third:
            f.fmi3SetTime(f.component, t)
        else:
            f.fmi2SetTime(f.component, t)
        if self.nx:
            self.x_buf[:] = x
            if self.third:
                f.fmi3SetContinuousStates(f.component, self._px, self.nx)
            else:
                f.fmi2SetContinuousStates(f.component, self._px, self.nx)
        self.set_inputs(u)

    def outputs(self) -> np.ndarray:
        """The output variables now, shape (n_outputs,) (a view of a reused buffer)."""
        n = len(self.out_vars)
        if n and self.real_out:
            f = self.fmu
            if self.third:
                f.fmi3GetFloat64(f.component, self.out_vr, n, self._py, n)
            else:
                f.fmi2GetReal(f.component, self.out_vr, n, self._py)
        else:
            for k, var in enumerate(self.out_vars):
                self.y_buf[k] = self._get(var)
        return self.y_buf[:n]

    def derivatives(self) -> np.ndarray:
        """dx/dt now, shape (nx,) (a copy)."""
        f = self.fmu
        if self.third:
            f.fmi3GetContinuousStateDerivatives(f.component, self._pdx, self.nx)
        else:
            f.fmi2GetDerivatives(f.component, self._pdx, self.nx)
        return self.dx_buf[:self.nx].copy()

    def indicators(self) -> np.ndarray:
        """The event indicators now, shape (nz,) (a view of a reused buffer)."""
        if self.nz:
            f = self.fmu
            if self.third:
                f.fmi3GetEventIndicators(f.component, self._pz, self.nz)
            else:
                f.fmi2GetEventIndicators(f.component, self._pz, self.nz)
        return self.z_buf[:self.nz]

    def states(self) -> np.ndarray:
        """The FMU's continuous states, shape (nx,) (a copy)."""
        if self.nx:
            f = self.fmu
            if self.third:
                f.fmi3GetContinuousStates(f.component, self._px, self.nx)
            else:
                f.fmi2GetContinuousStates(f.component, self._px, self.nx)
        return self.x_buf[:self.nx].copy()

    def _event_iteration(self) -> bool:
        """The discrete-state iteration of event mode; True when continuous states changed.
        Records the next time event and a termination request."""
        changed = False
        for _ in range(10_000):
            if self.third:
                need, term, _, values, defined, tnext = self.fmu.updateDiscreteStates()
            else:
                need, term, _, values, defined, tnext = self.fmu.newDiscreteStates()
            changed = changed or bool(values)
            self.terminate_requested = self.terminate_requested or bool(term)
            if term or not need:
                break
        else:
            raise FMUError("the FMU's event iteration did not converge in 10000 rounds")
        self.next_event = float(tnext) if defined else math.inf
        return changed

    def event(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray | None:
        """Model exchange: handle an event at ``t``: enter event mode, iterate the discrete
        states, return to continuous-time mode. Returns the new continuous states when the
        FMU changed them, else None."""
        self.set_point(t, x, u)
        self.fmu.enterEventMode()
        changed = self._event_iteration()
        self.fmu.enterContinuousTimeMode()
        return self.states() if changed else None

    def do_step(self, t: float, h: float) -> None:
        """Co-simulation: advance the FMU from ``t`` to ``t + h`` [s]."""
        if self.third:
            _, term, _, _ = self.fmu.doStep(t, h)
            self.terminate_requested = self.terminate_requested or bool(term)
        else:
            self.fmu.doStep(t, h)

    # ------------------------------------------------------------------ end
    def close(self) -> None:
        """Terminate (unless the FMU failed), free the instance, unload the library and
        remove the unpacked folder; every step runs even when an earlier one raises."""
        error: BaseException | None = None
        fmu, self.fmu = self.fmu, None
        try:
            if fmu is not None and self.initialised and not self.failed:
                try:
                    fmu.terminate()
                except Exception as exc:
                    error = exc
            if fmu is not None:
                try:
                    if self.instantiated:
                        fmu.freeInstance()  # frees the instance and unloads the library
                    else:
                        fmu.freeLibrary()
                except Exception as exc:
                    error = error or exc
        finally:
            folder = getattr(self, "folder", None)
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)
        if error is not None:
            raise FMUError(f"closing the FMU: {type(error).__name__}: {error}") from error


def fmi_error(exc: BaseException) -> bool:
    """Whether ``exc`` is fmpy's exception for an FMI call that returned an error."""
    try:
        from fmpy.fmi1 import FMICallException
    except ImportError:
        return False
    return isinstance(exc, FMICallException)


__all__ = ["MAX_FMU_BYTES", "FMUError", "FMUFile", "Instance", "fmi_error", "this_platform"]

