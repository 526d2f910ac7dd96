"""The end-effector path of a Puma 560 moving along a joint-space trajectory (RTB ``sl_jspace``).

A quintic ``jtraj`` takes the arm from the zero pose ``qz`` (arm stretched out horizontally) to
the ready pose ``qr`` (arm pointing straight up) in 2 s; forward kinematics turns each joint
vector into the tool pose and ``TrToXYZ`` extracts its position:

    q(t) = jtraj(qz, qr, t),   p(t) = transl(fkine(q(t))).

Interpolating in joint space moves every joint smoothly, but the tool does not move on a straight
line: it swings up on an arc, seen on the XY graph of height z against x. No state and no
feedback: the whole diagram is a function of time.

Sinks: a scope of q and p, the XY graph of the path in the x-z plane, and an ``ArmPlot``
animation of the arm (a GIF written next to the PNGs when ``out_dir`` is given).

What to look at: the joint angles' smooth quintic profiles, the tool's position, the side view
of the tool's path (curved: a straight line in joint space is not one in Cartesian space) and
the animation.

Try next: change ``T_MOVE`` or the poses (``qz``, ``qr``, ``qn`` of ``puma560()``); compare with
a Cartesian straight line (``puma_rrmc2``).

Run ``python examples/puma_jtraj_path.py`` to simulate 2.5 s and write ``puma_jspace.png``,
``puma_jspace_path.png`` and ``puma_jspace.gif``.
"""

from __future__ import annotations

from pathlib import Path

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks import Demux, XYGraph
from blocksim.blocks.arm import JTraj, TrToXYZ
from blocksim.blocks.arm.kinematics import FKine
from blocksim.blocks.sinks.animations import ArmPlot
from blocksim.blocks.sinks.wiring import add_scope
from blocksim.robotics.models import puma560

T_MOVE = 2.0  # s, duration of the qz -> qr motion
FPS = 10.0  # frames per second of simulated time in the animation (kept short)


def build(scope_file: str | Path | None = None, show: bool = False, with_scope: bool = True,
          path_file: str | Path | None = None, gif_file: str | Path | None = None) -> Diagram:
    """JTraj -> FKine -> TrToXYZ; with ``with_scope`` the scope, XY graph and arm animation
    (files written only when named)."""
    arm = puma560()
    qz, qr = arm.poses["qz"], arm.poses["qr"]
    d = Diagram("puma_jtraj_path")
    traj = d.add(JTraj(q0=qz, qf=qr, T=T_MOVE), name="traj")
    fk = d.add(FKine(arm), name="fkine")
    xyz = d.add(TrToXYZ(), name="xyz")
    d.connect(traj["q"], fk)
    d.connect(fk, xyz)
    if with_scope:
        split = d.add(Demux(3), name="split")
        path = d.add(XYGraph(labels=["x [m]", "z [m]"], title="End-effector path (side view)",
                             equal=True, file=path_file, show=show), name="path")
        anim = d.add(ArmPlot(arm, gif_file, fps=FPS, show=show), name="anim")
        d.connect(traj["q"], anim)
        d.connect(xyz, split)
        add_scope(d, [traj["q"], xyz], labels=["q", "p"], units=["rad", "m"],
                  title="Puma 560 jtraj qz -> qr", file=scope_file, show=show)  # fmt: skip
        d.connect(split["y0"], path["x"])
        d.connect(split["y2"], path["y"])
    return d


def main(T: float = 2.5, show: bool = False, out_dir: str | Path | None = None,
         **options) -> SimResult:
    """Simulate for ``T`` seconds; save the scope and path PNGs and the arm GIF in ``out_dir``
    when given."""
    files = (None, None, None)
    if out_dir is not None:
        files = tuple(Path(out_dir) / f"puma_jspace{suffix}"
                      for suffix in (".png", "_path.png", ".gif"))
    return simulate(build(files[0], show, path_file=files[1], gif_file=files[2]), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    p = res["xyz.y"]
    print(f"tool position {p[0].round(4)} m -> {p[-1].round(4)} m; highest point z = "
          f"{p[:, 2].max():.4f} m; {len(res.t)} recorded points, wall "
          f"{res.stats['wall_time'] * 1e3:.0f} ms")
