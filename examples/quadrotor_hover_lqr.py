"""A quadrotor brought to a hover 1 m up by one LQR designed on its hover linearisation.

The plant is the Toolbox's 4 kg quadrotor (:class:`~blocksim.blocks.quadrotor.MultiRotor`,
blade flapping included, z down), commanded through the
:class:`~blocksim.blocks.quadrotor.ControlMixer` by thrust and body torques
``u = (T, tau_roll, tau_pitch, tau_yaw)``. :func:`hover_linearization` linearises the
12-state model (position, roll-pitch-yaw, velocity, body rates) with the mixer at the hover
``x = (0, 0, -1, 0, ...)``, ``u = (M g, 0, 0, 0)`` by central differences of the model's own
functions (:mod:`blocksim.robotics.aerial`): position and attitude are chains of integrators,
tilt accelerates the vehicle sideways by ``g``, thrust and torques act through ``1/M`` and
``J^-1``, and flapping adds a little drag and rate damping. :data:`K` is python-control's
``lqr(A, B, Q, R)`` of it (rounded to 1e-6; the tests check it), and one
:class:`~blocksim.blocks.control.StateFeedback`, ``u = -K (x - x_hover) + N r`` with the
feedforward ``N r = (M g, 0, 0, 0)``, controls position, altitude, attitude and yaw at once:
from 0.5 m aside, 0.2 m low, tilted and yawed by 0.4 rad, the vehicle settles at the hover
without saturating a rotor.

:func:`design` repeats the design on the diagram itself with :mod:`blocksim.analysis`:
``trim`` of the bare plant (states held at the hover, the four rotor speeds free) gives the
hover speeds ``|omega_i| = sqrt(M g / (4 b)) = 861 rad/s``, alternating in sign with the
rotors' spins; ``linearize`` of this diagram with the loop opened at the LQR's output
(``lqr.u``: the thrust and torques into the mixer) at the hover gives the model above (to
1e-8) and ``lqr`` the same :data:`K`; the closed loop's linearization has the poles
``eig(A - B K)`` (``tests/analysis/test_examples_analysis.py``). What to look at in the plot:
roll and pitch settle within 3 s, the position within about 4 s, the yaw (weighted least)
last, by about 7 s. Try
next: weight the attitude more in ``Q_WEIGHTS`` and design again, or drop the horizontal
states' weights to 0 and watch the vehicle hold its attitude but drift.

Run ``python examples/quadrotor_hover_lqr.py`` to write ``quadrotor_hover_lqr.png``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks import Constant, Demux, Index, Scope
from blocksim.blocks.control import StateFeedback
from blocksim.blocks.quadrotor import ControlMixer, MultiRotor

MASS, G = 4.0, 9.81  # kg, m/s^2 (the Toolbox quadrotor)
HOVER = (0.0, 0.0, -1.0)  # m, z down: 1 m up
X0 = (0.5, -0.3, -0.8, 0.1, -0.1, 0.4, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
Q_WEIGHTS = (1.0, 1.0, 4.0, 2.0, 2.0, 1.0, 0.5, 0.5, 1.0, 0.1, 0.1, 0.1)
R_WEIGHTS = (0.05, 2.0, 2.0, 50.0)
#: lqr of :func:`hover_linearization` with diag(Q_WEIGHTS), diag(R_WEIGHTS), to 1e-6
K = [[0.0, 0.0, -8.944272, 0.0, 0.0, 0.0, 0.0, 0.0, -9.568395, 0.0, 0.0, 0.0],
     [0.0, 0.707107, 0.0, 3.793662, 0.0, 0.0, 0.0, 0.882938, 0.0, 0.811894, 0.0, 0.0],
     [-0.707107, 0.0, 0.0, 0.0, 3.793662, 0.0, -0.882938, 0.0, 0.0, 0.0, 0.811894, 0.0],
     [0.0, 0.0, 0.0, 0.0, 0.0, 0.141421, 0.0, 0.0, 0.0, 0.0, 0.0, 0.199238]]


def hover_state() -> np.ndarray:
    """The hover state (12,)."""
    x = np.zeros(12)
    x[:3] = HOVER
    return x


def hover_linearization() -> tuple[np.ndarray, np.ndarray]:
    """``(A (12, 12), B (12, 4))`` of the quadrotor with its mixer at the hover, by central
    differences (steps 1e-6, thrust 1e-4 N) of :func:`blocksim.robotics.aerial.nrotor_deriv`
    (ground off) after :func:`blocksim.robotics.aerial.mixer`."""
    from blocksim.robotics.aerial import mdl_quadrotor, mixer, nrotor_deriv

    model = mdl_quadrotor()
    x0, u0 = hover_state(), np.array([model.M * model.g, 0.0, 0.0, 0.0])

    def f(x: np.ndarray, u: np.ndarray) -> np.ndarray:
        return nrotor_deriv(model, x, mixer(model, u[0], u[1:])[0], ground=False)

    def jac(fun, v0: np.ndarray, steps: np.ndarray) -> np.ndarray:  # type: ignore[no-untyped-def]
        cols = []
        for i, h in enumerate(steps):
            e = np.zeros(v0.size)
            e[i] = h
            cols.append((fun(v0 + e) - fun(v0 - e)) / (2.0 * h))
        return np.array(cols).T

    A = jac(lambda x: f(x, u0), x0, np.full(12, 1e-6))
    B = jac(lambda u: f(x0, u), u0, np.array([1e-4, 1e-6, 1e-6, 1e-6]))
    return A, B


def design(Q: Any = None, R: Any = None) -> dict[str, Any]:
    """Trim, linearize and design on the diagram's blocks (:mod:`blocksim.analysis`).

    Parameters
    ----------
    Q : array_like (12, 12), optional
        State weight (position [m], roll-pitch-yaw [rad], velocity [m/s], body rates
        [rad/s]); default ``diag(Q_WEIGHTS)``.
    R : array_like (4, 4), optional
        Weight of ``(T [N], tau_roll, tau_pitch, tau_yaw [N m])``; default
        ``diag(R_WEIGHTS)``.

    Returns
    -------
    dict
        ``omega`` (4,): the trimmed hover rotor speeds [rad/s] (``op``: that
        :class:`~blocksim.analysis.OperatingPoint`); ``sys``: the ``control.StateSpace`` from
        ``lqr.u`` (loop opened there) to ``plant.x`` at the hover; ``K`` (4, 12) and ``E``
        (closed-loop poles [1/s]) of ``lqr(sys, Q, R)``.
    """
    from blocksim.analysis import linearize, lqr, trim

    plant = Diagram("quadrotor")
    quad = plant.add(MultiRotor("quadrotor", x0=hover_state().tolist()), name="plant")
    spins = [800.0, -800.0, 800.0, -800.0]  # rad/s: a start with the rotors' spin signs
    plant.connect(plant.add(Constant(spins), name="rotors"), quad)
    op = trim(plant, fix_states=["plant"])
    if not op.success:
        raise RuntimeError(f"quadrotor hover trim failed: {op.message}")
    sys = linearize(build(), "lqr.u", "plant.x", open="lqr.u", op={"plant": hover_state()})
    Qm = np.diag(Q_WEIGHTS) if Q is None else Q
    K, _S, E = lqr(sys, Qm, np.diag(R_WEIGHTS) if R is None else R)
    return {"op": op, "omega": np.asarray(op.inputs["rotors.y"]), "sys": sys, "K": K, "E": E}


def build(scope_file: str | Path | None = None, show: bool = False) -> Diagram:
    """MultiRotor -> StateFeedback (LQR) -> ControlMixer -> MultiRotor."""
    d = Diagram("quadrotor_hover_lqr")
    plant = d.add(MultiRotor("quadrotor", x0=list(X0)), name="plant")
    lqr = d.add(StateFeedback(K, N=[[MASS * G], [0.0], [0.0], [0.0]],
                              x_ref=hover_state().tolist()), name="lqr")
    d.connect(plant["x"], lqr["x"])
    d.connect(d.add(Constant(1.0), name="one"), lqr["r"])
    u = d.add(Demux(4), name="u")
    d.connect(lqr, u)
    mixer = d.add(ControlMixer("quadrotor"), name="mixer")
    for i, port in enumerate(("T", "tau_roll", "tau_pitch", "tau_yaw")):
        d.connect(u[f"y{i}"], mixer[port])
    d.connect(mixer["omega"], plant["omega"])
    scope = d.add(Scope(2, labels=["position", "roll, pitch, yaw"], units=["m", "rad"],
                        title="quadrotor hover by LQR", file=scope_file, show=show),
                  name="scope")
    d.connect(plant["p"], scope["u0"])
    d.connect(d.add(Index(index=[3, 4, 5]), name="att"), scope["u1"])
    d.connect(plant["x"], "att")
    return d


def main(T: float = 8.0, show: bool = False, out_dir: str | Path | None = None,
         **options) -> SimResult:
    """Simulate ``T`` seconds; save the scope PNG in ``out_dir`` when given."""
    scope_file = Path(out_dir) / "quadrotor_hover_lqr.png" if out_dir is not None else None
    return simulate(build(scope_file, show), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    print(f"p({res.t[-1]:g}) = {np.round(res['plant.p'][-1], 4)} m; rotor speeds "
          f"{res['mixer.omega'].min():.0f}..{res['mixer.omega'].max():.0f} rad/s, saturated "
          f"{bool(res['mixer.saturated'].any())}")
    des = design()
    print(f"trim: hover rotor speeds {np.round(des['omega'], 2)} rad/s; linearize + lqr: "
          f"max |K - K_file| {np.max(np.abs(des['K'] - np.array(K))):.1e}")
