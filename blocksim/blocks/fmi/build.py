"""Build small FMUs from C sources with gcc: the test models and the example's plant.

An FMU here is a model written in C against ``csrc/frame.h`` (its variables are reals indexed
by value reference, ``r[0]`` being time), compiled with one of the frames ``csrc/fmi2_frame.c``
(FMI 2.0) or ``csrc/fmi3_frame.c`` (FMI 3.0) against the FMI headers that fmpy ships, and
zipped with a ``modelDescription.xml`` written from a :class:`ModelSpec`. Nothing is
downloaded: gcc and the installed fmpy package are all it needs.

:func:`example_fmu` builds the linear plant shipped in ``csrc/linear_plant.c`` into a cache
folder (once per source version), for the example ``examples/fmu_plant_control.py`` and its
diagram.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import quoteattr

CSRC = Path(__file__).with_name("csrc")

#: the shared library's folder inside an FMU, by FMI version (this machine: Linux x86-64)
BINARY_FOLDER = {"2.0": "binaries/linux64", "3.0": "binaries/x86_64-linux"}


class BuildError(RuntimeError):
    """An FMU could not be built (no C compiler, a compile error, no fmpy headers)."""


@dataclass(frozen=True)
class Variable:
    """One real variable of a model (value reference = its index in ``r``).

    Parameters
    ----------
    name : str
        The variable's name in ``modelDescription.xml``.
    causality : str
        ``"independent"`` (time), ``"parameter"``, ``"input"``, ``"output"`` or ``"local"``.
    variability : str
        ``"continuous"``, ``"discrete"``, ``"fixed"`` or ``"tunable"``.
    start : float or None
        Start value (parameters, inputs, states; None for calculated variables).
    unit : str
        Unit, e.g. ``"m"`` (empty: none).
    derivative_of : str or None
        The state this variable is the derivative of.
    depends : tuple of str or None
        For an output: the inputs and states it depends on (None: everything).
    """

    name: str
    causality: str = "local"
    variability: str = "continuous"
    start: float | None = None
    unit: str = ""
    derivative_of: str | None = None
    depends: tuple[str, ...] | None = None
    description: str = ""


@dataclass(frozen=True)
class ModelSpec:
    """What ``modelDescription.xml`` says of a C model.

    Parameters
    ----------
    identifier : str
        Model identifier (the shared library's name), a C identifier.
    source : Path
        The model's C file (written against ``csrc/frame.h``).
    variables : tuple of Variable
        Every real variable, in value-reference order (the first is time).
    event_indicators : int
        Number of event indicators (FMI 2.0 only).
    stop_time : float
        The default experiment's stop time [s].
    """

    identifier: str
    source: Path
    variables: tuple[Variable, ...]
    event_indicators: int = 0
    stop_time: float = 1.0
    description: str = ""
    extra_sources: tuple[Path, ...] = field(default=())

    @property
    def states(self) -> tuple[str, ...]:
        """The names of the continuous states, in the order of their derivatives."""
        return tuple(v.derivative_of for v in self.variables if v.derivative_of)


def _num(x: float) -> str:
    return repr(float(x))


def _attributes(k: int, v: Variable) -> list[str]:
    """The attributes FMI 2.0 and 3.0 give a variable alike: name, value reference,
    causality, variability, description and initial."""
    attrs = [f"name={quoteattr(v.name)}", f'valueReference="{k}"',
             f'causality="{v.causality}"', f'variability="{v.variability}"']
    if v.description:
        attrs.append(f"description={quoteattr(v.description)}")
    initial = _initial(v)
    if initial:
        attrs.append(f'initial="{initial}"')
    return attrs


def _v2(spec: ModelSpec, k: int, v: Variable) -> str:
    index = {u.name: i + 1 for i, u in enumerate(spec.variables)}
    attrs = _attributes(k, v)
    real = []
    if v.start is not None:
        real.append(f'start="{_num(v.start)}"')
    if v.unit:
        real.append(f"unit={quoteattr(v.unit)}")
    if v.derivative_of:
        real.append(f'derivative="{index[v.derivative_of]}"')
    return (f"    <ScalarVariable {' '.join(attrs)}>\n"
            f"      <Real {' '.join(real)}/>\n    </ScalarVariable>")


def _v3(spec: ModelSpec, k: int, v: Variable) -> str:
    vr = {u.name: i for i, u in enumerate(spec.variables)}
    attrs = _attributes(k, v)
    if v.start is not None:
        attrs.append(f'start="{_num(v.start)}"')
    if v.unit:
        attrs.append(f"unit={quoteattr(v.unit)}")
    if v.derivative_of:
        attrs.append(f'derivative="{vr[v.derivative_of]}"')
    return f"    <Float64 {' '.join(attrs)}/>"


def _initial(v: Variable) -> str | None:
    if v.causality in ("independent", "input"):
        return None
    if v.start is None:
        return "calculated" if v.causality in ("output", "local") else None
    return "exact"


def model_description(spec: ModelSpec, fmi_version: str = "2.0", kind: str = "ME") -> str:
    """The ``modelDescription.xml`` of ``spec`` as FMI ``fmi_version`` (``"2.0"``, ``"3.0"``)
    for ``kind`` (``"ME"`` model exchange, ``"CS"`` co-simulation)."""
    if fmi_version not in BINARY_FOLDER or kind not in ("ME", "CS"):
        raise ValueError(f"fmi_version must be 2.0 or 3.0 and kind ME or CS, got "
                         f"{fmi_version!r}, {kind!r}")
    if fmi_version == "3.0" and spec.event_indicators:
        raise ValueError(f"{spec.identifier}: event indicators are written for FMI 2.0 only")
    token = "{" + hashlib.sha256(spec.source.read_bytes()).hexdigest()[:32] + "}"
    units = sorted({v.unit for v in spec.variables if v.unit})
    third = fmi_version == "3.0"
    vr = {v.name: i for i, v in enumerate(spec.variables)}
    ref = (lambda n: vr[n]) if third else (lambda n: vr[n] + 1)
    head = (f'<fmiModelDescription fmiVersion="{fmi_version}" modelName="{spec.identifier}" '
            + (f'instantiationToken="{token}"' if third else
               f'guid="{token}" numberOfEventIndicators="{spec.event_indicators}"')
            + f' generationTool="blocksim" description={quoteattr(spec.description)}>')
    interface = (f'  <ModelExchange modelIdentifier="{spec.identifier}"/>' if kind == "ME" else
                 f'  <CoSimulation modelIdentifier="{spec.identifier}" '
                 f'canHandleVariableCommunicationStepSize="true"/>')
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', head, interface]
    if units:
        lines.append("  <UnitDefinitions>")
        lines += [f"    <Unit name={quoteattr(u)}/>" for u in units]
        lines.append("  </UnitDefinitions>")
    lines.append(f'  <DefaultExperiment startTime="0" stopTime="{_num(spec.stop_time)}"/>')
    lines.append("  <ModelVariables>")
    for k, v in enumerate(spec.variables):
        lines.append(_v3(spec, k, v) if third else _v2(spec, k, v))
    lines.append("  </ModelVariables>")
    lines.append("  <ModelStructure>")
    outputs = [v for v in spec.variables if v.causality == "output"]
    ders = [v for v in spec.variables if v.derivative_of]
    initial = [v for v in spec.variables if _initial(v) == "calculated"
               and (v.causality == "output" or v.derivative_of)]

    def unknown(tag: str, v: Variable, deps: bool) -> str:
        key = "valueReference" if third else "index"
        dep = ""
        if deps and v.depends is not None:
            dep = f' dependencies="{" ".join(str(ref(n)) for n in v.depends)}"'
        return f'    <{tag} {key}="{ref(v.name)}"{dep}/>'

    if third:
        lines += [unknown("Output", v, True) for v in outputs]
        lines += [unknown("ContinuousStateDerivative", v, False) for v in ders]
        lines += [unknown("InitialUnknown", v, False) for v in initial]
    else:
        for tag, group, deps in (("Outputs", outputs, True), ("Derivatives", ders, False),
                                 ("InitialUnknowns", initial, False)):
            if group:
                lines.append(f"    <{tag}>")
                lines += ["  " + unknown("Unknown", v, deps) for v in group]
                lines.append(f"    </{tag}>")
    lines += ["  </ModelStructure>", "</fmiModelDescription>", ""]
    return "\n".join(lines)


def fmi_headers() -> Path:
    """The folder of the FMI 2.0/3.0 C headers that the installed fmpy ships."""
    try:
        import fmpy
    except ImportError as exc:
        raise BuildError("building an FMU needs fmpy's FMI headers: pip install "
                         "'blocksim[fmi]'") from exc
    path = Path(fmpy.__file__).with_name("c-code")
    if not (path / "fmi3Functions.h").is_file():
        raise BuildError(f"fmpy at {path.parent} ships no FMI headers (c-code/)")
    return path


def compiler() -> str:
    """The C compiler (``$CC``, else gcc), or :class:`BuildError` saying how to get one."""
    cc = os.environ.get("CC") or "gcc"
    if shutil.which(cc) is None:
        raise BuildError(f"no C compiler {cc!r} found: building an FMU from C source needs "
                         f"gcc (Debian: apt-get install gcc), or name one with $CC")
    return cc


def build_fmu(spec: ModelSpec, out: str | os.PathLike[str], fmi_version: str = "2.0",
              kind: str = "ME") -> Path:
    """Compile ``spec`` into the FMU ``out`` (a zip: modelDescription.xml and the shared
    library for this platform) and return its path.

    Raises
    ------
    BuildError
        No compiler, no headers, or gcc's own message when the source does not compile.
    """
    xml = model_description(spec, fmi_version, kind)
    out = Path(out)
    cc = compiler()
    headers = fmi_headers()
    frame = CSRC / ("fmi3_frame.c" if fmi_version == "3.0" else "fmi2_frame.c")
    with tempfile.TemporaryDirectory(prefix="blocksim-fmu-") as tmp:
        lib = Path(tmp) / f"{spec.identifier}.so"
        cmd = [cc, "-shared", "-fPIC", "-O2", "-std=gnu11", "-w", f"-I{headers}", f"-I{CSRC}",
               f"-I{spec.source.parent}", f'-DMODEL_SOURCE="{spec.source.name}"',
               f"-DFMI_VERSION={fmi_version[0]}", "-o", str(lib), str(frame),
               str(CSRC / "fmi_unsupported.c"), *map(str, spec.extra_sources), "-lm"]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise BuildError(f"gcc could not compile {spec.source}:\n{proc.stderr.strip()}")
        out.parent.mkdir(parents=True, exist_ok=True)
        fd, part = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".part", dir=out.parent)
        os.close(fd)
        try:  # written aside and renamed: a concurrent build of the same file is harmless
            with zipfile.ZipFile(part, "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("modelDescription.xml", xml)
                z.write(lib, f"{BINARY_FOLDER[fmi_version]}/{spec.identifier}.so")
            os.chmod(part, 0o644)
            os.replace(part, out)
        except BaseException:
            Path(part).unlink(missing_ok=True)
            raise
    return out


def _linear_plant() -> ModelSpec:
    V = Variable
    mats = []
    for m, start in (("A", (0.0, 1.0, -4.0, -0.8)), ("B", (0.0, 0.0, 1.0, 0.5)),
                     ("C", (1.0, 0.0, 0.0, 1.0))):
        mats += [V(f"{m}{i}{j}", "parameter", "fixed", start[2 * (i - 1) + (j - 1)])
                 for i in (1, 2) for j in (1, 2)]
    return ModelSpec(
        "linear_plant", CSRC / "linear_plant.c",
        (V("time", "independent", unit="s"),
         V("x1", start=0.0, unit="m", description="position"),
         V("x2", start=0.0, unit="m/s", description="velocity"),
         V("der(x1)", unit="m/s", derivative_of="x1"),
         V("der(x2)", unit="m/s2", derivative_of="x2"),
         V("u1", "input", start=0.0, unit="N", description="force"),
         V("u2", "input", start=0.0, unit="N", description="disturbance force"),
         V("y1", "output", unit="m", depends=("x1", "x2"), description="y1 = C1 x"),
         V("y2", "output", unit="m/s", depends=("x1", "x2", "u1", "u2"),
           description="y2 = C2 x + D2 u"),
         *mats,
         V("D21", "parameter", "fixed", 0.0), V("D22", "parameter", "fixed", 0.2)),
        stop_time=10.0,
        description="x' = A x + B u, y1 = C1 x, y2 = C2 x + D2 u (a mass on a spring)")


#: the linear MIMO plant of ``csrc/linear_plant.c``
LINEAR_PLANT = _linear_plant()


def cache_folder() -> Path:
    """Where :func:`example_fmu` keeps what it builds: ``$BLOCKSIM_FMU_CACHE``, else
    ``$XDG_CACHE_HOME/blocksim/fmus`` (``~/.cache/blocksim/fmus``)."""
    env = os.environ.get("BLOCKSIM_FMU_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "blocksim" / "fmus"


#: the FMUs blocksim ships as C source, by name: (FMI version, interface); a diagram names
#: one as ``"fmu": "linear_plant"`` and it is built on first use (:func:`shipped_fmu`)
SHIPPED_FMUS = {"linear_plant": ("3.0", "ME"), "linear_plant_cs": ("2.0", "CS")}


def example_fmu(folder: str | os.PathLike[str] | None = None, fmi_version: str = "3.0",
                kind: str = "ME") -> Path:
    """The linear plant FMU, built into ``folder`` (default :func:`cache_folder`) unless a
    build of the same sources is already there; its name carries the sources' hash.

    Raises
    ------
    BuildError
        No gcc (the message says how to install it), or the build failed.
    """
    spec = LINEAR_PLANT
    digest = hashlib.sha256()
    for p in (spec.source, CSRC / "frame.h", CSRC / "fmi2_frame.c", CSRC / "fmi3_frame.c",
              CSRC / "fmi_unsupported.c"):
        digest.update(p.read_bytes())
    digest.update(model_description(spec, fmi_version, kind).encode())
    name = f"linear_plant_{fmi_version[0]}{kind.lower()}_{digest.hexdigest()[:12]}.fmu"
    path = Path(folder) if folder is not None else cache_folder()
    target = path / name
    if not target.is_file():
        build_fmu(spec, target, fmi_version, kind)
    return target


def shipped_fmu(name: str, folder: str | os.PathLike[str] | None = None) -> Path:
    """The shipped FMU ``name`` (a key of :data:`SHIPPED_FMUS`), built if needed."""
    version, kind = SHIPPED_FMUS[name]
    return example_fmu(folder, version, kind)


__all__ = ["BINARY_FOLDER", "LINEAR_PLANT", "SHIPPED_FMUS", "BuildError", "ModelSpec",
           "Variable", "build_fmu", "cache_folder", "compiler", "example_fmu", "fmi_headers",
           "model_description", "shipped_fmu"]
