"""The minimal example of every block type: a diagram file that constructs it.

A type whose constructor needs no argument is shown with its defaults (``"params"`` left
out); the others take the smallest sensible values of their required parameters from
:data:`REQUIRED`, and the blocks of a robot arm share the model zoo's Puma 560 through the
file's ``models`` section. The two types that take a Python callable (``Function``,
``BraitenbergField``) cannot be written in a file: their example is Python. A block class
registered from outside the library (a plugin) whose constructor has required parameters
gives its example as a class attribute ``catalog_example``, a dict of parameters.

:func:`example` returns the example; :func:`build` makes the block it describes (through the
same loader as ``blocksim run``, so a stale example fails the site's build).
"""

from __future__ import annotations

import inspect
import json
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from blocksim.engine.block import Block
from blocksim.io.registry import block_types, parameters

#: the model every robot example names ``"$arm"``
ARM_MODEL = {"arm": {"zoo": "puma560"}}

_POSE = [[1.0, 0.0, 0.0, 0.5], [0.0, 1.0, 0.0, 0.2], [0.0, 0.0, 1.0, 0.3],
         [0.0, 0.0, 0.0, 1.0]]
_A2 = [[1.0, 0.1], [0.0, 1.0]]
_B2 = [[0.005], [0.1]]

#: the required parameters of the library's block types whose constructors need some (the
#: robot arm types are added below)
REQUIRED: dict[str, dict[str, Any]] = {
    "ArbotixArm": {"port": "emulator", "nservos": 3},
    "ArbotixPath": {"port": "/dev/ttyUSB0", "nservos": 2},
    "BagSource": {"bag": "diagrams/bags/vehicle_run", "topic": "/veh/odo"},
    "CTraj": {"T0": "[[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]", "T1": _POSE, "T": 2.0},
    "Constant": {"value": 1.0},
    "DiscreteDerivative": {"clock": 0.1},
    "DiscreteIntegrator": {"clock": 0.1},
    "DiscretePID": {"Kp": 1.0, "Ki": 0.5, "Kd": 0.1, "clock": 0.1},
    "DiscreteStateSpace": {"A": [[0.5, 0.1], [0.0, 0.8]], "B": [[0.0], [1.0]],
                           "C": [[1.0, 0.0]], "clock": 0.1},
    "DiscreteTransferFunction": {"num": [0.5], "den": [1.0, -0.5], "clock": 0.1},
    "FMU": {"fmu": "linear_plant"},
    "Gain": {"K": 2.0},
    "IBVS": {"uv_star": [[312.0, 712.0, 712.0], [312.0, 312.0, 712.0]]},
    "Interpolate": {"x": [-2.0, 0.0, 1.0, 2.0], "y": [1.0, 0.0, 0.5, 2.0]},
    "JTraj": {"q0": [0.0, 0.0], "qf": [1.0, -0.5], "T": 2.0},
    "KalmanFilter": {"A": _A2, "B": _B2, "C": [[1.0, 0.0]], "Q": [1e-3, 1e-2], "R": 0.1,
                     "dt": 0.1},
    "LSPB": {"q0": [0.0, 0.0], "qf": [1.0, -0.5], "T": 2.0},
    "MPC": {"A": _A2, "B": _B2, "Q": [1.0, 1.0], "R": 0.1, "N": 5, "dt": 0.1},
    "MSTraj": {"segments": [[1.0, 0.0], [1.0, 1.0]], "q0": [0.0, 0.0], "dt": 0.1,
               "tacc": 0.4, "qdmax": [1.0, 1.0]},
    "MTraj": {"q0": [0.0, 0.0], "qf": [1.0, -0.5], "T": 2.0},
    "Piecewise": {"times": [0.0, 1.0, 2.0, 3.0], "values": [0.0, 1.0, 0.5, 0.0]},
    "RateTransition": {"clock": 0.1},
    "StateFeedback": {"K": [[1.0, 2.0]]},
    "StateSpace": {"A": [[0.0, 1.0], [-2.0, -0.5]], "B": [[0.0], [1.0]], "C": [[1.0, 0.0]]},
    "TransferFunction": {"num": [1.0], "den": [1.0, 1.0, 1.0]},
    "UnitDelay": {"clock": 0.1},
    "UnscentedKalmanFilter": {"model": "pendulum", "Q": [1e-4, 1e-3], "R": 0.01, "dt": 0.1},
    "ZOH": {"clock": 0.1},
}
for _name in ("ArmPlot", "CartesianInertia", "Coriolis", "FKine", "ForwardDynamics", "Friction",
              "Gravload", "IKine", "IKine6s", "Inertia", "InverseDynamics", "JacobDot",
              "Jacobian", "EndEffectorJacobian", "FloatingBaseDynamics",
              "FloatingBaseKinematics"):
    REQUIRED[_name] = {"robot": "$arm"}

#: the examples of the types that cannot be written in a file (Python source; the name of the
#: block it builds is ``block``)
def _function_example() -> Block:
    import numpy as np

    from blocksim.blocks import Function

    block = Function(np.tanh)  # y = tanh(u): one input, one output
    return block


def _braitenberg_example() -> Block:
    from blocksim.blocks.vehicle import BraitenbergField

    # a light source at (5, 5): the field the two sensors read
    block = BraitenbergField(lambda x, y: 100.0 / (1.0 + (x - 5.0)**2 + (y - 5.0)**2))
    return block


#: the examples of block types that take a Python callable (a diagram file cannot name one):
#: functions that build the block; the catalog shows their body (:func:`python_text`)
PYTHON_BUILDERS: dict[str, Callable[[], Block]] = {
    "Function": _function_example,
    "BraitenbergField": _braitenberg_example,
}


def python_text(builder: Callable[[], Block]) -> str:
    """The code of an example builder as the catalog shows it: its body, dedented, without
    its ``return``; the code shown is the code that builds the block."""
    lines = inspect.getsource(builder).splitlines()
    body = textwrap.dedent("\n".join(lines[1:]))
    return "\n".join(line for line in body.splitlines()
                     if not line.startswith("return ")).strip() + "\n"


#: type -> the example's Python text
PYTHON: dict[str, str] = {name: python_text(fn) for name, fn in PYTHON_BUILDERS.items()}

#: the inline diagram of the Subsystem example: an integrator between an inport and an outport
SUBSYSTEM = {"blocks": {"u": {"type": "Inport"}, "x": {"type": "Integrator"},
                        "y": {"type": "Outport"}},
             "wires": [{"from": "u", "to": "x"}, {"from": "x", "to": "y"}]}


@dataclass(frozen=True)
class Example:
    """A block type's minimal example.

    Attributes
    ----------
    type : str
        The block type.
    language : {"json", "python"}
        A diagram file, or Python source for a type a file cannot hold.
    text : str
        The example, ready to show.
    """

    type: str
    language: str
    text: str


def block_name(type_name: str) -> str:
    """The name of the block in its example: the type in lower case."""
    return type_name.lower()


def params_of(type_name: str, cls: type[Block]) -> dict[str, Any] | None:
    """The parameters of ``type_name``'s example, or None when it has none (a required
    parameter without a value in :data:`REQUIRED` nor a ``catalog_example`` on the class)."""
    if type_name in REQUIRED:
        return dict(REQUIRED[type_name])
    own = getattr(cls, "catalog_example", None)
    if isinstance(own, dict):
        return dict(own)
    if any(p.default is inspect.Parameter.empty for p in parameters(cls)):
        return None
    return {}


def document(type_name: str, cls: type[Block]) -> dict[str, Any] | None:
    """The example's diagram file as a dict, or None (Python-only types, no example)."""
    if type_name in PYTHON:
        return None
    entry: dict[str, Any] = {"type": type_name}
    if type_name == "Subsystem":
        entry["diagram"] = SUBSYSTEM
    else:
        params = params_of(type_name, cls)
        if params is None:
            return None
        if params:
            entry["params"] = params
    doc: dict[str, Any] = {"blocksim": 1}
    if any(v == "$arm" for v in entry.get("params", {}).values()):
        doc["models"] = ARM_MODEL
    doc["blocks"] = {block_name(type_name): entry}
    return doc


def _format(doc: dict[str, Any]) -> str:
    """A diagram file on a few lines: one per section, one per block."""
    lines = ["{", '  "blocksim": 1,']
    if "models" in doc:
        lines.append(f'  "models": {json.dumps(doc["models"])},')
    (name, entry), = doc["blocks"].items()
    block = json.dumps({name: entry})
    lines.append(f'  "blocks": {block}')
    lines.append("}")
    return "\n".join(lines)


def example(type_name: str, cls: type[Block] | None = None) -> Example | None:
    """The minimal example of block type ``type_name``, or None when it has none."""
    cls = cls or block_types()[type_name]
    if type_name in PYTHON:
        return Example(type_name, "python", PYTHON[type_name])
    doc = document(type_name, cls)
    if doc is None:
        return None
    return Example(type_name, "json", _format(doc))


def build(type_name: str, cls: type[Block] | None = None) -> Block:
    """The block the example of ``type_name`` describes, in no diagram: a JSON example is read
    by :func:`blocksim.io.loads` (relative paths from the working directory; the block is
    then built again from the parameters it was read with, since a block belongs to one
    diagram), a Python one is run. Raises what loading raises, or ``LookupError`` when the
    type has no example."""
    cls = cls or block_types()[type_name]
    ex = example(type_name, cls)
    if ex is None:
        raise LookupError(f"block type {type_name!r} has no catalog example: give it a "
                          f"class attribute catalog_example (a dict of parameters)")
    if ex.language == "python":
        return PYTHON_BUILDERS[type_name]()
    from blocksim.io import loads

    loaded = loads(ex.text).diagram[block_name(type_name)]
    return type(loaded)(**loaded.params)
