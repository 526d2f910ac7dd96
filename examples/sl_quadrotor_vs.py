"""Image-based visual servoing of a quadrotor (RTB ``sl_quadrotor_vs``).

The Toolbox's quadrotor carries a downward-looking camera (the default
:class:`~blocksim.blocks.vision.Camera`: 8 mm lens, 10 um pixels, 1024 x 1024) at its centre
of gravity, stabilised in roll and pitch (:class:`~blocksim.blocks.quadrotor.CameraMount`
with ``gimbal=True``: the "virtual camera" of multirotor IBVS, since the vehicle must tilt to
move). It sees four targets at the corners of a 1 m square on the ground (world z down, the
ground is z = 0). The desired view ``UV_STAR`` is the square as a centred 400-pixel square,
seen from 2 m straight above its centre.

The vision blocks close the loop: the camera's image points and depths feed the
:class:`~blocksim.blocks.vision.IBVS` law, ``nu = -lam pinv(J) (uv - uv*)``, whose
translational part (the camera frame is the world frame turned by the yaw, held at 0 here)
is the velocity setpoint of the position loop, run as a pure velocity loop (``Kp = Ki = 0``);
the attitude loop, the mixer and the N-rotor dynamics with blade flapping follow. The
vehicle starts hovering 3 m up, 0.6 m and 0.4 m off to the side, with 430 pixels of image
error; the error falls below 1 pixel after about 9 s and the vehicle ends 2 m above the
square's centre.

What to look at: the image points converging to the desired square, the camera velocity asked
for by IBVS, and the vehicle's position ending 2 m above the square's centre.

Try next: change ``LAM`` or ``START``; start higher or further aside until a point leaves the
image.

Run ``python examples/sl_quadrotor_vs.py`` to simulate 14 s and write
``sl_quadrotor_vs.png``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks import Constant, Selector
from blocksim.blocks.quadrotor import CameraMount, add_flight_stack
from blocksim.blocks.sinks.wiring import add_scope
from blocksim.blocks.vision.rig import add_ibvs, image_error

LAM = 0.6  # 1/s, IBVS gain
#: the targets [m], one per column: a 1 m square on the ground (z = 0, world z down)
P = np.array([[-0.5, -0.5, 0.5, 0.5], [-0.5, 0.5, 0.5, -0.5], [0.0, 0.0, 0.0, 0.0]])
#: their desired image points [pixel]: the camera 2 m above the square's centre
UV_STAR = np.array([[312.0, 312.0, 712.0, 712.0], [312.0, 712.0, 712.0, 312.0]])
START = (0.6, -0.4, -3.0)  # m, initial hover position
VELOCITY_GAINS = {"Kp": 0.0, "Ki": 0.0}  # the position loop as a pure velocity loop


def build(
    scope_file: str | Path | None = None,
    show: bool = False,
    with_scope: bool = True,
    lam: float = LAM,
) -> Diagram:
    """The visual-servo loop with IBVS gain ``lam`` [1/s]."""
    d = Diagram("sl_quadrotor_vs")
    stack = add_flight_stack(
        d, "quadrotor", x0=list(START), velocity=True, position_gains=VELOCITY_GAINS
    )
    mount = d.add(CameraMount(gimbal=True), name="mount")
    loop = add_ibvs(d, mount, P, UV_STAR, lam)
    vel = d.add(Selector([0, 1, 2]), name="vel")  # the translational part of nu
    hold = d.add(Constant([0.0, 0.0, 0.0]), name="hold")  # no position setpoint (Kp = Ki = 0)
    d.connect(stack.plant["x"], mount)
    d.connect(loop.ibvs, vel)
    d.connect(vel, stack.pos["v"])
    d.connect(hold, stack.pos["p"])
    if with_scope:
        add_scope(d, [loop.camera["uv"], loop.ibvs, stack.plant["p"]],
                  labels=["image points", "camera velocity", "position"],
                  units=["pixel", "m/s, rad/s", "m"], title="IBVS of a quadrotor",
                  file=scope_file, show=show)  # fmt: skip
    return d


def feature_error(result: SimResult) -> np.ndarray:
    """Image error ``|uv - uv*|`` [pixel] at each recorded time."""
    return image_error(result, UV_STAR)


def main(
    T: float = 14.0,
    show: bool = False,
    out_dir: str | Path | None = None,
    lam: float = LAM,
    **options,
) -> SimResult:
    """Simulate for ``T`` seconds; save the scope PNG in ``out_dir`` when given."""
    scope_file = Path(out_dir) / "sl_quadrotor_vs.png" if out_dir is not None else None
    return simulate(build(scope_file, show, lam=lam), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    err = feature_error(res)
    print(
        f"image error {err[0]:.1f} -> {err[-1]:.3f} pixel; final position "
        f"{res['quad.x'][-1][:3].round(4)} m; {res.stats['nfev']} RHS evaluations, wall "
        f"{res.stats['wall_time'] * 1e3:.0f} ms"
    )
