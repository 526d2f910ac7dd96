"""Joint servo loops as subsystems: the Robotics Toolbox's *vloop*, *vloop_ff*,
*vloop_voltage* (roblocks, Robotics Toolbox 9.10) and a position loop around the
velocity loop (*ploop*).

Each function returns a :class:`~blocksim.engine.diagram.Diagram` whose ``Inport`` and
``Outport`` blocks are its ports: add it to a diagram (``d.add(vloop(), name="vloop")``) and it
is a block with those inputs and outputs. A diagram file holds it inline as a ``Subsystem``.
Defaults are roblocks' mask values; the controller is discrete at ``clock`` (roblocks'
``T = 0.001`` s), the motor continuous, so the controller samples the motor rate and holds
its current demand between samples.

Block diagram of *vloop* (motor side, rad/s, A, N m)::

    qd_star ->(+)- e -> [VelocityPI: c = Kv e + Ki I (+ Kff tau_ff)] - c -> [JointMotor] -> qd
              ^-                                                     tau_d ->|      |
              '---------------------------------------------------------------------'

*ploop* (link side angles [rad], gear ratio ``G`` = motor rate / link rate)::

    motor rate demand = G (Kp (q* - q) + Kff qd*),  q = integral of qd_motor / G
"""

from __future__ import annotations

from blocksim.blocks.arm.servo import JointMotor, VelocityPI, VoltageMotor
from blocksim.blocks.continuous import Integrator
from blocksim.blocks.math import Gain, Sum
from blocksim.engine.clock import Clock
from blocksim.engine.diagram import Diagram
from blocksim.engine.errors import BlockParameterError
from blocksim.engine.subsystem import Inport, Outport

__all__ = ["ploop", "vloop", "vloop_ff", "vloop_voltage"]

ClockLike = Clock | float | tuple[float, float] | None


def _ports(d: Diagram, names: tuple[str, ...], cls: type) -> dict[str, object]:
    return {n: d.add(cls(), name=n) for n in names}


def _loop(
    name: str, controller: VelocityPI, motor: JointMotor | VoltageMotor, outputs: tuple[str, ...]
) -> Diagram:
    d = Diagram(name)
    ins = ("qd_star", "tau_d", "tau_ff") if len(controller.inputs) == 3 else ("qd_star", "tau_d")
    pin = _ports(d, ins, Inport)
    pi = d.add(controller, name="pi")
    mot = d.add(motor, name="motor")
    pout = _ports(d, outputs, Outport)
    d.connect(pin["qd_star"], pi["qd_star"])
    d.connect(pin["tau_d"], mot["tau_d"])
    if "tau_ff" in pin:
        d.connect(pin["tau_ff"], pi["tau_ff"])
    d.connect(mot["qd"], pi["qd"], pout["qd"])
    d.connect(pi["c"], mot["c"])
    d.connect(pi["e"], pout["qd_error"])
    d.connect(mot["tau"], pout["tau"])
    d.connect(pi["integral"], pout["integral"])
    return d


def vloop(
    J: float = 372e-6,
    B: float = 817e-6,
    Km: float = 0.228,
    tau_max: float = 0.9,
    Kv: float = 1.0,
    Ki: float = 5.0,
    clock: ClockLike = 0.001,
    name: str = "vloop",
) -> Diagram:
    """Joint velocity loop (roblocks *vloop*): PI control of a current-driven motor.

    Parameters
    ----------
    J, B, Km, tau_max : float
        Motor inertia [kg m^2], viscous friction [N m s/rad], torque constant [N m/A], torque
        limit [N m] (:class:`~blocksim.blocks.arm.servo.JointMotor`).
    Kv, Ki : float
        Proportional [A s/rad] and integral [A/rad] gains.
    clock : Clock, float, (float, float) or None
        Controller sample clock [s]; None: continuous.
    name : str
        The diagram's name.

    Returns
    -------
    Diagram
        Inputs ``qd_star`` (demanded motor rate [rad/s]), ``tau_d`` (disturbance torque
        [N m]); outputs ``qd`` [rad/s], ``qd_error`` [rad/s], ``tau`` [N m], ``integral``
        (``Ki I`` [A]).
    """
    return _loop(
        name,
        VelocityPI(Kv=Kv, Ki=Ki, Kff=1.0 / Km, clock=clock),
        JointMotor(J=J, B=B, Km=Km, tau_max=tau_max),
        ("qd", "qd_error", "tau", "integral"),
    )


def vloop_ff(
    J: float = 372e-6,
    B: float = 817e-6,
    Km: float = 0.228,
    tau_max: float = 0.9,
    Kv: float = 1.0,
    Ki: float = 0.0,
    Kff: float | None = None,
    clock: ClockLike = 0.001,
    name: str = "vloop_ff",
) -> Diagram:
    """Joint velocity loop with torque feedforward (roblocks *vloop_ff*).

    As :func:`vloop` with the extra input ``tau_ff`` [N m] added to the current demand
    through ``Kff`` [A/(N m)] (default ``1/Km``); ``Ki`` defaults to 0 (seed).
    """
    kff = 1.0 / Km if Kff is None else Kff
    return _loop(
        name,
        VelocityPI(Kv=Kv, Ki=Ki, Kff=kff, clock=clock, feedforward=True),
        JointMotor(J=J, B=B, Km=Km, tau_max=tau_max),
        ("qd", "qd_error", "tau", "integral"),
    )


def vloop_voltage(
    J: float = 372e-6,
    B: float = 817e-6,
    Km: float = 0.228,
    v_max: float = 20.0,
    Rm: float = 0.1,
    Lm: float = 0.1,
    Ka: float = 10.0,
    Kv: float = 1.0,
    Ki: float = 1.0,
    clock: ClockLike = 0.001,
    name: str = "vloop_voltage",
) -> Diagram:
    """Joint velocity loop of a voltage-driven motor (roblocks *vloop_voltage*).

    The PI output drives an amplifier of gain ``Ka`` limited to ``v_max`` [V] (roblocks'
    ``tau_max = 20``, a voltage) and the motor's winding (``Rm`` [ohm], ``Lm`` [H], back EMF
    ``Km``) (:class:`~blocksim.blocks.arm.servo.VoltageMotor`). Ports as :func:`vloop`, the
    outputs in roblocks' order ``qd_error, qd, tau, integral``.

    With all of roblocks' defaults the sampled loop is unstable while linear (the winding's time
    constant ``Lm / Rm = 1 s`` and ``Ka Kv = 10`` leave a lightly damped pair that the 1 ms
    hold destabilises: spectral radius 1.014); the amplifier limit then bounds it in an
    oscillation. A 10 mH, 1 ohm winding with ``Kv = 0.1`` is stable.
    """
    return _loop(
        name,
        VelocityPI(Kv=Kv, Ki=Ki, Kff=0.0, clock=clock),
        VoltageMotor(J=J, B=B, Km=Km, Rm=Rm, Lm=Lm, Ka=Ka, v_max=v_max),
        ("qd_error", "qd", "tau", "integral"),
    )


def ploop(
    Kp: float = 20.0,
    Kff: float = 0.0,
    G: float = 107.815,
    q0: float = 0.0,
    velocity_loop: Diagram | None = None,
    name: str = "ploop",
) -> Diagram:
    """Joint position loop around a velocity loop (RTB/RVC *ploop*).

    ``motor rate demand = G (Kp (q* - q) + Kff qd*)``, the velocity loop drives the motor, and
    the link angle is ``q = q0 + integral of qd_motor / G``.

    Parameters
    ----------
    Kp : float
        Position gain [1/s] (link rate demanded per radian of error).
    Kff : float
        Rate feedforward gain (1: feed the demanded link rate through); default 0.
    G : float
        Gear ratio (motor rate / link rate), != 0; default 107.815 (Puma joint 2, seed).
    q0 : float
        Initial link angle [rad].
    velocity_loop : Diagram, optional
        The inner loop, with inputs ``qd_star``, ``tau_d`` and outputs ``qd``, ``tau``;
        default :func:`vloop` ``()``.
    name : str
        The diagram's name.

    Returns
    -------
    Diagram
        Inputs ``q_star`` [rad], ``qd_star`` (link rate demand [rad/s]), ``tau_d``
        (disturbance torque at the motor [N m]); outputs ``q`` [rad], ``q_error`` [rad],
        ``qd`` (link rate [rad/s]), ``tau`` (motor torque [N m]).
    """
    if G == 0.0:
        raise BlockParameterError("ploop: parameter 'G' (gear ratio) must be non-zero")
    inner = vloop() if velocity_loop is None else velocity_loop
    d = Diagram(name)
    pin = _ports(d, ("q_star", "qd_star", "tau_d"), Inport)
    err = d.add(Sum("+-"), name="err")
    kp = d.add(Gain(G * Kp), name="kp")
    kff = d.add(Gain(G * Kff), name="kff")
    dem = d.add(Sum("++"), name="demand")
    vl = d.add(inner, name="vloop")
    gear = d.add(Gain(1.0 / G), name="gearbox")
    q = d.add(Integrator(x0=q0), name="angle")
    pout = _ports(d, ("q", "q_error", "qd", "tau"), Outport)
    d.connect(pin["q_star"], err["u0"])
    d.connect(q, err["u1"], pout["q"])
    d.connect(err, kp, pout["q_error"])
    d.connect(pin["qd_star"], kff)
    d.connect(kp, dem["u0"])
    d.connect(kff, dem["u1"])
    d.connect(dem, vl["qd_star"])
    d.connect(pin["tau_d"], vl["tau_d"])
    d.connect(vl["qd"], gear)
    d.connect(gear, q, pout["qd"])
    d.connect(vl["tau"], pout["tau"])
    return d
