"""Joint servo blocks: motors, a PI velocity controller and a flexible joint.

The pieces of the Robotics Toolbox's joint servo models (roblocks *vloop*, *vloop_ff*,
*vloop_voltage*, Robotics Toolbox 9.10, and its ``sl_flex`` model):

* :class:`JointMotor` — a current-driven motor with a torque limit (continuous);
* :class:`VoltageMotor` — a voltage-driven motor: amplifier, winding resistance and
  inductance, back EMF (continuous);
* :class:`VelocityPI` — the PI velocity controller with an optional torque feedforward,
  discrete at its sample clock (roblocks' ``T = 0.001`` s) or continuous (``clock=None``);
* :class:`FlexibleJoint` — motor and link inertias joined by a spring and a damper.

The velocity and position loops built from them are in :mod:`blocksim.blocks.arm.servo_loops`.
Equations and units: :mod:`blocksim.robotics.arm.joint_servo` (motor side: rad, rad/s, A, V,
N m). Each block computes its outputs and derivatives with its compiled kernels
(:mod:`blocksim.blocks.arm.servo_kernels`) in both back-ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from blocksim.blocks.arm import servo_kernels as sk
from blocksim.blocks.arm.arm_params import as_float, check_bool, check_real, check_vector
from blocksim.engine.block import Block, Port
from blocksim.engine.clock import Clock, as_clock
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError

__all__ = ["FlexibleJoint", "JointMotor", "VelocityPI", "VoltageMotor"]


def _limit(owner: str, name: str, value: Any) -> float:
    """A limit > 0, ``inf`` allowed (no limit)."""
    v = as_float(owner, name, value, "a real number > 0 (inf for none)")
    if not v > 0.0:
        raise BlockParameterError(
            f"{owner}: parameter '{name}' must be > 0 (inf for no limit), got {v}"
        )
    return v


class JointMotor(Block):
    """A current-driven motor with a torque limit (the motor of roblocks *vloop*).

    Equations: ``tau = sat(Km c, tau_max)``, ``J qd' = tau - tau_d - B qd`` (motor side).

    Parameters
    ----------
    J : float
        Motor (and reflected load) inertia [kg m^2], > 0; default 372e-6 (seed).
    B : float
        Viscous friction [N m s/rad], >= 0; default 817e-6.
    Km : float
        Torque constant [N m/A], > 0; default 0.228.
    tau_max : float
        Torque limit [N m], > 0 (``inf``: none); default 0.9.
    qd0 : float
        Initial motor rate [rad/s]; default 0.

    Inputs
    ------
    c : float
        Current demand [A].
    tau_d : float
        Disturbance torque opposing the motor [N m].

    Outputs
    -------
    qd : float
        Motor rate [rad/s] (no feedthrough).
    tau : float
        Motor torque [N m] (feedthrough from ``c``).

    States
    ------
    qd : continuous
        Motor rate [rad/s].
    """

    inputs = (
        Port("c", shape=(), unit="A", doc="current demand"),
        Port("tau_d", shape=(), unit="N m", doc="disturbance torque"),
    )
    outputs = (
        Port("qd", shape=(), unit="rad/s", doc="motor rate"),
        Port("tau", shape=(), unit="N m", doc="motor torque"),
    )
    feedthrough: ClassVar[dict[str, tuple[str, ...]]] = {"qd": (), "tau": ("c",)}

    def __init__(
        self,
        J: float = 372e-6,
        B: float = 817e-6,
        Km: float = 0.228,
        tau_max: float = 0.9,
        qd0: float = 0.0,
    ) -> None:
        super().__init__()
        owner = type(self).__name__
        self._kp = (
            check_real(owner, "J", J, positive=True),
            check_real(owner, "B", B, nonnegative=True),
            check_real(owner, "Km", Km, positive=True),
            _limit(owner, "tau_max", tau_max),
        )
        self.set_state([check_real(owner, "qd0", qd0)], names=("qd",))

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, float]:
        return sk.motor_output(t, x, float(u[0]), float(u[1]), self._kp)

    def deriv(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return sk.motor_deriv(t, x, float(u[0]), float(u[1]), self._kp)

    def kernels(self) -> Kernels:
        """``motor_output``, ``motor_deriv``; params ``(J, B, Km, tau_max)``."""
        return Kernels(params=self._kp, output=sk.motor_output, deriv=sk.motor_deriv)


class VoltageMotor(Block):
    """A voltage-driven motor behind an amplifier (the motor of roblocks *vloop_voltage*).

    Equations: ``v = sat(Ka c, v_max)``, ``Lm i' = v - Rm i - Km qd``,
    ``J qd' = Km i - tau_d - B qd``; torque ``tau = Km i``.

    Parameters
    ----------
    J, B, Km : float
        Inertia [kg m^2] (> 0), viscous friction [N m s/rad] (>= 0), torque and back-EMF
        constant [N m/A = V s/rad] (> 0); defaults 372e-6, 817e-6, 0.228 (seed).
    Rm : float
        Winding resistance [ohm], >= 0; default 0.1.
    Lm : float
        Winding inductance [H], > 0; default 0.1.
    Ka : float
        Amplifier gain [V per unit demand]; default 10.
    v_max : float
        Amplifier voltage limit [V], > 0 (``inf``: none); default 20 (roblocks' ``tau_max``
        of *vloop_voltage*, a voltage).
    x0 : array_like (2,)
        Initial current [A] and rate [rad/s]; default zeros.

    Inputs
    ------
    c : float
        Amplifier input (voltage demand / Ka) [V/V].
    tau_d : float
        Disturbance torque [N m].

    Outputs
    -------
    qd : float
        Motor rate [rad/s] (no feedthrough).
    tau : float
        Motor torque ``Km i`` [N m] (no feedthrough).

    States
    ------
    i, qd : continuous
        Winding current [A], motor rate [rad/s].
    """

    inputs = (
        Port("c", shape=(), doc="amplifier input"),
        Port("tau_d", shape=(), unit="N m", doc="disturbance torque"),
    )
    outputs = (
        Port("qd", shape=(), unit="rad/s", doc="motor rate"),
        Port("tau", shape=(), unit="N m", doc="motor torque"),
    )
    feedthrough = False

    def __init__(
        self,
        J: float = 372e-6,
        B: float = 817e-6,
        Km: float = 0.228,
        Rm: float = 0.1,
        Lm: float = 0.1,
        Ka: float = 10.0,
        v_max: float = 20.0,
        x0: Any = (0.0, 0.0),
    ) -> None:
        super().__init__()
        owner = type(self).__name__
        self._kp = (
            check_real(owner, "J", J, positive=True),
            check_real(owner, "B", B, nonnegative=True),
            check_real(owner, "Km", Km, positive=True),
            check_real(owner, "Rm", Rm, nonnegative=True),
            check_real(owner, "Lm", Lm, positive=True),
            check_real(owner, "Ka", Ka),
            _limit(owner, "v_max", v_max),
        )
        self.set_state(check_vector(owner, "x0", x0, 2, None), names=("i", "qd"))

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, float]:
        return sk.voltage_motor_output(t, x, 0.0, 0.0, self._kp)

    def deriv(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, float]:
        return sk.voltage_motor_deriv_kernel(t, x, float(u[0]), float(u[1]), self._kp)

    def kernels(self) -> Kernels:
        """``voltage_motor_output``, ``voltage_motor_deriv_kernel``; params ``(J, B, Km, Rm,
        Lm, Ka, v_max)``."""
        return Kernels(
            params=self._kp, output=sk.voltage_motor_output, deriv=sk.voltage_motor_deriv_kernel
        )


class VelocityPI(Block):
    """PI velocity controller with an optional torque feedforward (roblocks *vloop*'s
    controller), discrete at its sample clock.

    Equations: ``e = qd* - qd``, ``c = Kv e + Ki I + Kff tau_ff``; discrete (Simulink's
    forward-Euler discrete-time integrator): ``I[k+1] = I[k] + T e[k]``, outputs held between
    hits; continuous (``clock=None``): ``I' = e``.

    Parameters
    ----------
    Kv : float
        Proportional gain [A s/rad]; default 1 (seed).
    Ki : float
        Integral gain [A/rad]; default 5 (seed; 0 in *vloop_ff*).
    Kff : float
        Feedforward gain [A/(N m)]; default ``1/0.228`` (``1/Km`` of roblocks' motor).
    clock : Clock, float, (float, float) or None
        Sample clock (period [s], or (period, offset)); default 0.001 s (roblocks' ``T``);
        None: a continuous controller.
    feedforward : bool
        Add the input ``tau_ff``; default False.
    x0 : float
        Initial integral [rad]; default 0.

    Inputs
    ------
    qd_star : float
        Demanded motor rate [rad/s].
    qd : float
        Measured motor rate [rad/s].
    tau_ff : float
        Feedforward torque [N m] (``feedforward=True`` only).

    Outputs
    -------
    c : float
        Current demand [A].
    e : float
        Rate error ``qd* - qd`` [rad/s].
    integral : float
        Integral term ``Ki I`` [A] (no feedthrough).

    States
    ------
    I : discrete (or continuous with ``clock=None``)
        Integral of the rate error [rad].
    """

    def __init__(
        self,
        Kv: float = 1.0,
        Ki: float = 5.0,
        Kff: float = 1.0 / 0.228,
        clock: Clock | float | tuple[float, float] | None = 0.001,
        feedforward: bool = False,
        x0: float = 0.0,
    ) -> None:
        super().__init__()
        owner = type(self).__name__
        self.clock = as_clock(clock, owner)
        self._ff = check_bool(owner, "feedforward", feedforward)
        T = 0.0 if self.clock is None else float(self.clock.period)
        self._kp = (
            check_real(owner, "Kv", Kv),
            check_real(owner, "Ki", Ki),
            check_real(owner, "Kff", Kff),
            T,
        )
        ins = [
            Port("qd_star", shape=(), unit="rad/s", doc="demanded rate"),
            Port("qd", shape=(), unit="rad/s", doc="measured rate"),
        ]
        if self._ff:
            ins.append(Port("tau_ff", shape=(), unit="N m", doc="feedforward torque"))
        self.set_ports(
            inputs=ins,
            outputs=(
                Port("c", shape=(), unit="A", doc="current demand"),
                Port("e", shape=(), unit="rad/s", doc="rate error"),
                Port("integral", shape=(), unit="A", doc="integral term Ki I"),
            ),
        )
        names = tuple(p.name for p in self.inputs)  # type: ignore[union-attr]
        self.feedthrough = {"c": names, "e": ("qd_star", "qd"), "integral": ()}
        self.set_state([check_real(owner, "x0", x0)], names=("I",))

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, float, float]:
        if self._ff:
            return sk.pi_ff_output(t, x, float(u[0]), float(u[1]), float(u[2]), self._kp)
        return sk.pi_output(t, x, float(u[0]), float(u[1]), self._kp)

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (float(x[0]) + self._kp[3] * (float(u[0]) - float(u[1])),)

    def deriv(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (float(u[0]) - float(u[1]),)

    def kernels(self) -> Kernels:
        """``pi_output``/``pi_update`` (``pi_deriv`` when continuous; ``pi_ff_*`` with
        feedforward); params ``(Kv, Ki, Kff, T)``."""
        if self._ff:
            out, upd, der = sk.pi_ff_output, sk.pi_ff_update, sk.pi_ff_deriv
        else:
            out, upd, der = sk.pi_output, sk.pi_update, sk.pi_deriv
        if self.clock is None:
            return Kernels(params=self._kp, output=out, deriv=der)
        return Kernels(params=self._kp, output=out, update=upd)


class FlexibleJoint(Block):
    """A joint with a compliant transmission (RTB ``sl_flex``): motor and link inertias joined
    by a spring and a damper.

    Equations::

        Jm qm'' = tau - k (qm - ql) - c (qm' - ql') - Bm qm'
        Jl ql'' = k (qm - ql) + c (qm' - ql') - Bl ql' - tau_l

    Angles are on the link side of the gearbox (motor quantities reflected through it).

    Parameters
    ----------
    Jm, Jl : float
        Motor and link inertias [kg m^2], > 0; defaults 0.2 and 1.0.
    k : float
        Transmission stiffness [N m/rad], > 0; default 200.
    c : float
        Transmission damping [N m s/rad], >= 0; default 0.5.
    Bm, Bl : float
        Viscous friction of motor and link [N m s/rad], >= 0; default 0.
    x0 : array_like (4,)
        Initial ``(qm, ql, qm', ql')`` [rad, rad, rad/s, rad/s]; default zeros.

    Inputs
    ------
    tau : float
        Motor torque [N m].
    tau_l : float
        Load torque on the link (e.g. gravity, contact) [N m].

    Outputs
    -------
    qm, ql : float
        Motor and link angles [rad] (no feedthrough).
    qdm, qdl : float
        Motor and link rates [rad/s] (no feedthrough).

    States
    ------
    qm, ql, qdm, qdl : continuous
        The outputs.
    """

    inputs = (
        Port("tau", shape=(), unit="N m", doc="motor torque"),
        Port("tau_l", shape=(), unit="N m", doc="load torque"),
    )
    outputs = (
        Port("qm", shape=(), unit="rad", doc="motor angle"),
        Port("ql", shape=(), unit="rad", doc="link angle"),
        Port("qdm", shape=(), unit="rad/s", doc="motor rate"),
        Port("qdl", shape=(), unit="rad/s", doc="link rate"),
    )
    feedthrough = False

    def __init__(
        self,
        Jm: float = 0.2,
        Jl: float = 1.0,
        k: float = 200.0,
        c: float = 0.5,
        Bm: float = 0.0,
        Bl: float = 0.0,
        x0: Any = (0.0, 0.0, 0.0, 0.0),
    ) -> None:
        super().__init__()
        owner = type(self).__name__
        self._kp = (
            check_real(owner, "Jm", Jm, positive=True),
            check_real(owner, "Jl", Jl, positive=True),
            check_real(owner, "k", k, positive=True),
            check_real(owner, "c", c, nonnegative=True),
            check_real(owner, "Bm", Bm, nonnegative=True),
            check_real(owner, "Bl", Bl, nonnegative=True),
        )
        self.set_state(check_vector(owner, "x0", x0, 4, None), names=("qm", "ql", "qdm", "qdl"))

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, ...]:
        return sk.flex_output(t, x, 0.0, 0.0, self._kp)

    def deriv(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, ...]:
        return sk.flex_deriv(t, x, float(u[0]), float(u[1]), self._kp)

    def kernels(self) -> Kernels:
        """``flex_output``, ``flex_deriv``; params ``(Jm, Jl, k, c, Bm, Bl)``."""
        return Kernels(params=self._kp, output=sk.flex_output, deriv=sk.flex_deriv)
