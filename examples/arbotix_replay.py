"""Replay of a recorded Arbotix session: the PhantomX jtraj diagram, offline, bit for bit.

``diagrams/sessions/arbotix_phantomx_session.json`` holds every byte exchanged with the Arbotix
during 3 s of the ``arbotix_phantomx`` diagram (a 5-servo arm following a jtraj at 50 Hz; here
recorded against the deterministic emulator by :func:`record`, the way one records a session
with a real arm). :func:`build` is the same diagram with ``replay=`` instead of a port: the
ArbotixArm block answers from the recording, so the diagram runs without the device and gives
the recorded signals exactly; a diagram that sent other commands would stop with a
``ReplayError`` naming the exchange.

What to look at: the same two panels as ``arbotix_phantomx`` (replayed angles, command minus
angle), identical to the recorded run to the last bit although no servo is attached.

Try next: record a session of your own with ``arbotix_phantomx`` (``record=``) and replay it
here; change the controller and see where the replay stops matching the recording.

Run ``python examples/arbotix_replay.py`` to write ``arbotix_replay.png``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks import Sum
from blocksim.blocks.arm import JTraj
from blocksim.blocks.hardware import ArbotixArm
from blocksim.blocks.sinks.wiring import add_scope

SESSION = (
    Path(__file__).resolve().parents[1]
    / "diagrams"
    / "sessions"
    / ("arbotix_phantomx_session.json")
)
Q_GOAL = np.array([0.6, -0.4, 0.5, 0.3, 1.2])  # 4 joints [rad] and the gripper servo
PERIOD = 0.02  # s
T_RECORDED = 3.0  # s


def _diagram(scope_file: str | Path | None, show: bool, **arm: Any) -> Diagram:
    d = Diagram("arbotix_replay")
    traj = d.add(JTraj(q0=np.zeros(5), qf=Q_GOAL, T=2.0), name="traj")
    a = d.add(ArbotixArm(nservos=5, clock=PERIOD, timeout=1.0, **arm), name="arm")
    err = d.add(Sum("+-"), name="err")
    d.connect(traj["q"], a["q_cmd"], err["u0"])
    d.connect(a["q"], err["u1"])
    add_scope(d, [a["q"], err], labels=["q (replayed)", "q_cmd - q"], units=["rad", "rad"],
              stairs=True, title="Arbotix session replayed offline", file=scope_file, show=show)
    return d


def build(
    scope_file: str | Path | None = None, show: bool = False, session: str | Path = SESSION
) -> Diagram:
    """The PhantomX diagram on the recorded ``session`` (no device)."""
    return _diagram(scope_file, show, port=None, replay=str(session))


def record(path: str | Path, T: float = T_RECORDED) -> SimResult:
    """Record the session again: the same diagram against the emulated Arbotix (1/300 s of
    servo time per packet), every exchange written to ``path``."""
    d = _diagram(None, False, port="emulator", emulator_packet_time=PERIOD / 6, record=str(path))
    return simulate(d, T)


def main(
    T: float = T_RECORDED, show: bool = False, out_dir: str | Path | None = None, **options
) -> SimResult:
    """Replay ``T`` <= 3 s of the recorded session; save the scope PNG in ``out_dir``."""
    scope_file = Path(out_dir) / "arbotix_replay.png" if out_dir is not None else None
    return simulate(build(scope_file, show), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    print(f"replayed {len(res.t)} hits; final angles {np.round(res['arm.q'][-1], 4)} rad")
