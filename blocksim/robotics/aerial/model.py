"""Multirotor model parameters: the Toolbox's ``mdl_quadrotor`` and N-rotor variants.

:func:`mdl_quadrotor` gives every value of RTB 9.10's ``mdl_quadrotor.m`` (Pounds' "heavy lift
quadrotor", PhD thesis, ANU 2007) with the derived constants computed from them;
:func:`mdl_hexarotor` and :func:`mdl_octorotor` are the same airframe with 6 and 8 rotors
(hub mass unchanged), and :func:`multirotor` builds any even N >= 4 with overrides.

Frames (the Toolbox's, used everywhere in :mod:`blocksim.robotics.aerial`)
--------------------------------------------------------------------------
* World {W}: x, y horizontal, **z down**; the altitude is ``-z``; gravity is ``+g`` along z.
* Body {B}: x forward (towards rotor 0), y right, z down; origin at the centre of gravity.
* Rotor ``i = 0 .. N-1`` (the Toolbox's rotor ``i + 1``) has its hub at
  ``D_i = (d cos th_i, d sin th_i, h)`` in {B}, ``th_i = 2 pi i / N``: rotor 0 on the x axis,
  then clockwise seen from above. ``h < 0`` puts the rotor plane above the centre of gravity.
* Spin: ``spin_i = +1`` for even ``i`` (rotors 1, 3, ... of the Toolbox), ``-1`` for odd. A
  rotor speed input ``omega_i`` is signed: the rotor turns at ``omega_i`` about ``+z_B``, i.e.
  clockwise seen from above for ``omega_i > 0``. A rotor turning the right way has
  ``sign(omega_i) == spin_i`` (the mixer produces exactly that).

Per rotor (no flapping): thrust ``b omega^2`` along ``-z_B`` [N], reaction (drag) torque on
the body ``-k omega |omega|`` about ``+z_B`` [N m], with ``b = Ct rho A r^2`` and
``k = Cq rho A r^3`` (the Toolbox's "T = b w^2", "Q = k w^2").
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np

__all__ = [
    "MODELS",
    "MultirotorModel",
    "mdl_hexarotor",
    "mdl_octorotor",
    "mdl_quadrotor",
    "model_by_name",
    "multirotor",
    "shown",
]

#: longest text of a value quoted in an error message (longer ones end in "...")
_SHOWN_MAX = 200


def _plain(value: Any) -> Any:
    """``value`` with numpy scalars and arrays made Python numbers and (nested) lists."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def shown(value: Any) -> str:
    """A value as an error message quotes it: plain numbers and lists (``-0.5``, ``[1.0,
    2.0]``, never ``np.float64(-0.5)`` or ``array([...])``), at most 200 characters."""
    if isinstance(value, np.ndarray) and value.size > _SHOWN_MAX:
        return f"an array of shape {value.shape}"
    text = repr(_plain(value))
    return text if len(text) <= _SHOWN_MAX else text[: _SHOWN_MAX - 3] + "..."


@dataclass(frozen=True)
class MultirotorModel:
    """Parameters of an N-rotor flying robot (SI units; the Toolbox's ``quad`` structure).

    Primary parameters (the Toolbox's defaults in brackets)
    -------------------------------------------------------
    nrotors : int
        Number of rotors, even, >= 4 [4].
    g : float
        Gravitational acceleration [m/s^2] [9.81].
    rho : float
        Air density [kg/m^3] [1.184].
    muv : float
        Air viscosity [Pa s] [1.5e-5] (not used by the dynamics).
    M : float
        Mass [kg] [4].
    J : ndarray (3, 3)
        Rotational inertia about the centre of gravity, body frame [kg m^2]
        [diag(0.082, 0.082, 0.149)].
    h : float
        Height of the rotor plane along z_B (negative: above the CoG) [m] [-0.007].
    d : float
        Arm length, CoG to rotor hub in the xy plane [m] [0.315].
    nb : int
        Blades per rotor [2].
    r : float
        Rotor radius [m] [0.165].
    c : float
        Blade chord [m] [0.018].
    e : float
        Flapping hinge offset [m] [0.0].
    Mb : float
        Rotor blade mass [kg] [0.005].
    Mc : float
        Estimated hub clamp mass [kg] [0.010].
    ec : float
        Blade root clamp displacement [m] [0.004].
    Ct : float
        Non-dimensional thrust coefficient [-] [0.0048].
    thetat, theta0 : float
        Blade tip and root angles [rad] [6.8 deg, 14.6 deg].
    a : float
        Lift slope gradient [1/rad] [5.5].

    Derived constants are properties (formulas of ``mdl_quadrotor.m``): ``Ib``, ``Ic``, ``mb``,
    ``Ir``, ``Cq``, ``sigma``, ``theta1``, ``theta75``, ``thetai``, ``A``, ``gamma``, ``b``,
    ``k``; the geometry ``D`` (3, N), ``theta`` (N,), ``spin`` (N,); and
    :meth:`hover_speed`, :meth:`thrust_torque_matrix`.
    """

    nrotors: int = 4
    g: float = 9.81
    rho: float = 1.184
    muv: float = 1.5e-5
    M: float = 4.0
    J: np.ndarray = field(default_factory=lambda: np.diag([0.082, 0.082, 0.149]))
    h: float = -0.007
    d: float = 0.315
    nb: int = 2
    r: float = 0.165
    c: float = 0.018
    e: float = 0.0
    Mb: float = 0.005
    Mc: float = 0.010
    ec: float = 0.004
    Ct: float = 0.0048
    thetat: float = 6.8 * math.pi / 180.0
    theta0: float = 14.6 * math.pi / 180.0
    a: float = 5.5
    name: str = "quadrotor"

    def __post_init__(self) -> None:
        n = self.nrotors
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 4 or n % 2:
            raise ValueError(
                f"MultirotorModel: nrotors must be an even integer >= 4 "
                f"(rotors alternate spin directions), got {shown(n)}"
            )
        object.__setattr__(self, "nrotors", int(n))
        J = np.array(self.J, dtype=np.float64)
        if (
            J.shape != (3, 3)
            or not np.all(np.isfinite(J))
            or not np.allclose(J, J.T)
            or np.any(np.linalg.eigvalsh(J) <= 0)
        ):
            raise ValueError(
                f"MultirotorModel: J must be a symmetric positive definite 3x3 "
                f"inertia [kg m^2], got {shown(self.J)}"
            )
        J.flags.writeable = False
        object.__setattr__(self, "J", J)
        for f in fields(self):
            if f.name in ("J", "name", "nrotors", "nb", "h", "e"):
                continue
            v = getattr(self, f.name)
            if (
                not isinstance(v, (int, float, np.number))
                or isinstance(v, bool)
                or not math.isfinite(v)
                or v <= 0
            ):
                raise ValueError(
                    f"MultirotorModel: {f.name} must be a positive finite number, got {shown(v)}"
                )
            object.__setattr__(self, f.name, float(v))
        for nm in ("h", "e"):
            v = getattr(self, nm)
            if not isinstance(v, (int, float, np.number)) or not math.isfinite(v):
                raise ValueError(f"MultirotorModel: {nm} must be a finite number, got {shown(v)}")
            object.__setattr__(self, nm, float(v))

    # ---------------------------------------------------------- derived (mdl_quadrotor.m)
    @property
    def Ib(self) -> float:
        """Rotor blade rotational inertia ``Mb (r - ec)^2 / 4`` [kg m^2]."""
        return self.Mb * (self.r - self.ec) ** 2 / 4.0

    @property
    def Ic(self) -> float:
        """Estimated root clamp inertia ``Mc ec^2 / 4`` [kg m^2]."""
        return self.Mc * self.ec**2 / 4.0

    @property
    def mb(self) -> float:
        """Static blade moment ``g (Mc ec / 2 + Mb r / 2)`` [N m]."""
        return self.g * (self.Mc * self.ec / 2.0 + self.Mb * self.r / 2.0)

    @property
    def Ir(self) -> float:
        """Total rotor inertia ``nb (Ib + Ic)`` [kg m^2]."""
        return self.nb * (self.Ib + self.Ic)

    @property
    def Cq(self) -> float:
        """Non-dimensional torque coefficient ``Ct sqrt(Ct / 2)`` [-]."""
        return self.Ct * math.sqrt(self.Ct / 2.0)

    @property
    def sigma(self) -> float:
        """Rotor solidity ratio ``c nb / (pi r)`` [-]."""
        return self.c * self.nb / (math.pi * self.r)

    @property
    def theta1(self) -> float:
        """Blade twist angle ``thetat - theta0`` [rad]."""
        return self.thetat - self.theta0

    @property
    def theta75(self) -> float:
        """3/4 blade angle ``theta0 + 0.75 theta1`` [rad]."""
        return self.theta0 + 0.75 * self.theta1

    @property
    def thetai(self) -> float:
        """Blade ideal root approximation ``thetat r / e`` [rad]; ``inf`` for the default
        ``e = 0`` (as upstream, where it is Inf; no equation uses it)."""
        return self.thetat * self.r / self.e if self.e != 0 else math.inf

    @property
    def A(self) -> float:
        """Rotor disc area ``pi r^2`` [m^2]."""
        return math.pi * self.r**2

    @property
    def gamma(self) -> float:
        """Lock number ``rho a c r^4 / (Ib + Ic)`` [-]."""
        return self.rho * self.a * self.c * self.r**4 / (self.Ib + self.Ic)

    @property
    def b(self) -> float:
        """Thrust coefficient ``Ct rho A r^2`` [N s^2/rad^2]: ``T = b omega^2``."""
        return self.Ct * self.rho * self.A * self.r**2

    @property
    def k(self) -> float:
        """Drag torque coefficient ``Cq rho A r^3`` [N m s^2/rad^2]: ``Q = k omega^2``."""
        return self.Cq * self.rho * self.A * self.r**3

    # ---------------------------------------------------------------- geometry
    @property
    def theta(self) -> np.ndarray:
        """Azimuth of each rotor arm ``2 pi i / N`` (N,) [rad], from x_B towards y_B."""
        return 2.0 * math.pi * np.arange(self.nrotors) / self.nrotors

    def _cos_sin(self) -> tuple[np.ndarray, np.ndarray]:
        """cos and sin of the arm azimuths, exact zeros on the axes (so that a symmetric
        airframe has exactly symmetric arms)."""
        th = self.theta
        c, s = np.cos(th), np.sin(th)
        c[np.abs(c) < 1e-12] = 0.0
        s[np.abs(s) < 1e-12] = 0.0
        return c, s

    @property
    def D(self) -> np.ndarray:
        """Rotor hub positions (3, N) in {B} [m]: column i is ``(d cos th_i, d sin th_i, h)``."""
        c, s = self._cos_sin()
        return np.ascontiguousarray(
            np.vstack((self.d * c, self.d * s, np.full(self.nrotors, self.h)))
        )

    @property
    def spin(self) -> np.ndarray:
        """Spin direction of each rotor (N,): +1 (clockwise from above, about +z_B) for even
        i, -1 for odd i."""
        return np.where(np.arange(self.nrotors) % 2 == 0, 1.0, -1.0)

    def hover_speed(self) -> float:
        """Rotor speed [rad/s] at which the N rotors' thrust equals the weight:
        ``sqrt(M g / (N b))``."""
        return math.sqrt(self.M * self.g / (self.nrotors * self.b))

    def thrust_torque_matrix(self) -> np.ndarray:
        """The map (4, N) from squared rotor speeds to total thrust and body torques, without
        flapping: ``[T; tau_x; tau_y; tau_z] = A @ omega**2`` with ``T`` [N] upward (along
        ``-z_B``) and torques [N m] about the body axes (roll, pitch, yaw).

        Rows: ``b``; ``-b d sin th_i``; ``b d cos th_i``; ``-spin_i k`` (``tau = D_i x F_i``
        for the thrust ``F_i = -b omega_i^2 z_B``, plus the drag reaction of a rotor turning
        in its spin direction).
        """
        c, s = self._cos_sin()
        return np.vstack(
            (
                np.full(self.nrotors, self.b),
                -self.b * self.d * s,
                self.b * self.d * c,
                -self.spin * self.k,
            )
        )

    def with_(self, **changes: Any) -> MultirotorModel:
        """A copy with some primary parameters changed (e.g. ``M=4.4``)."""
        return replace(self, **changes)

    def as_dict(self) -> dict[str, Any]:
        """The primary parameters as a JSON-able dict (``J`` as nested lists)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["J"] = self.J.tolist()
        return out


def mdl_quadrotor() -> MultirotorModel:
    """The Toolbox's quadrotor (``mdl_quadrotor``): 4 kg, 4 rotors of radius 0.165 m on
    0.315 m arms; hover at about 861 rad/s."""
    return MultirotorModel()


def mdl_hexarotor() -> MultirotorModel:
    """The Toolbox quadrotor's airframe with 6 rotors (``sl_hexarotor``)."""
    return MultirotorModel(nrotors=6, name="hexarotor")


def mdl_octorotor() -> MultirotorModel:
    """The Toolbox quadrotor's airframe with 8 rotors."""
    return MultirotorModel(nrotors=8, name="octorotor")


def multirotor(nrotors: int = 4, **params: Any) -> MultirotorModel:
    """An N-rotor model: the Toolbox's values with ``nrotors`` and any primary parameters
    overridden (``multirotor(6, M=5.0)``)."""
    return MultirotorModel(nrotors=nrotors, **{"name": f"{nrotors}-rotor", **params})


#: named models (the ``model`` parameter of the quadrotor blocks)
MODELS = {"quadrotor": mdl_quadrotor, "hexarotor": mdl_hexarotor, "octorotor": mdl_octorotor}


def model_by_name(model: Any, what: str = "model") -> MultirotorModel:
    """A :class:`MultirotorModel` from a model, a name in :data:`MODELS`, or a dict of primary
    parameters (with optional ``"base"``: a name in :data:`MODELS`); ValueError otherwise."""
    if isinstance(model, MultirotorModel):
        return model
    if isinstance(model, str):
        if model not in MODELS:
            raise ValueError(
                f"{what} must be one of {sorted(MODELS)}, a dict of model "
                f"parameters or a MultirotorModel, got {shown(model)}"
            )
        return MODELS[model]()
    if isinstance(model, dict):
        params = dict(model)
        base = model_by_name(params.pop("base", "quadrotor"), what)
        names = {f.name for f in fields(MultirotorModel)}
        bad = sorted(set(params) - names)
        if bad:
            raise ValueError(f"{what}: unknown model parameter(s) {bad}; valid: {sorted(names)}")
        return replace(base, **params)
    raise ValueError(
        f"{what} must be a model name {sorted(MODELS)}, a dict of model "
        f"parameters or a MultirotorModel, got {type(model).__name__}"
    )
