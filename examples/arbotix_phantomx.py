"""A PhantomX-style 5-servo arm (4 joints + gripper) following a jtraj through an Arbotix.

A quintic joint trajectory (:class:`JTraj`, 2 s) from the centre pose to a reach pose, with the
gripper closing, is sampled at 50 Hz by :class:`ArbotixArm`, which sends it to the servos
(Dynamixel SYNC_WRITE) and reads their angles back at every hit; a Sum gives the tracking error.
With ``port="emulator"`` the block runs its own emulated Arbotix on a pseudo-terminal and talks to
it through pyserial exactly as to a board on a USB adapter; give ``port="/dev/ttyUSB0"`` to drive a
real arm (then run with ``realtime=1.0``).

The emulated servos advance 1/300 s per packet (6 packets per hit: 5 position reads and one
SYNC_WRITE), so emulated time keeps pace with simulated time and the run is deterministic.

:func:`main` also shows recording and replay: the run records every exchange, then the same
diagram runs again offline on the recording (``replay=``) and gives the same signals, bit for
bit.

What to look at: the top panel, the measured servo angles following the jtraj from rest to
``Q_GOAL`` in 50 Hz steps; the bottom panel, the command minus the measurement: the servos' lag
while they move, near zero once they arrive.

Try next: change ``Q_GOAL`` or ``PERIOD``, or pass ``record=`` to save the session and replay it
with ``arbotix_replay``.

Run ``python examples/arbotix_phantomx.py`` to write ``arbotix_phantomx.png``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks import Sum
from blocksim.blocks.arm import JTraj
from blocksim.blocks.hardware import ArbotixArm
from blocksim.blocks.sinks.wiring import add_scope

NSERVOS = 5
#: joints 1-4 of the PhantomX [rad], then the gripper servo (0 open .. 2.6 closed)
Q_START = np.zeros(NSERVOS)
Q_GOAL = np.array([0.6, -0.4, 0.5, 0.3, 1.2])
PERIOD = 0.02  # s: 50 Hz
PACKET_TIME = PERIOD / 6  # s of emulated servo time per packet


def build(
    scope_file: str | Path | None = None,
    show: bool = False,
    port: str | None = "emulator",
    record: str | None = None,
    replay: str | None = None,
) -> Diagram:
    """jtraj -> ArbotixArm (50 Hz); error = command - measured; one scope."""
    d = Diagram("arbotix_phantomx")
    traj = d.add(JTraj(q0=Q_START, qf=Q_GOAL, T=2.0), name="traj")
    arm = d.add(
        ArbotixArm(
            port=port,
            nservos=NSERVOS,
            clock=PERIOD,
            timeout=1.0,
            emulator_packet_time=PACKET_TIME,
            record=record,
            replay=replay,
        ),
        name="arm",
    )
    err = d.add(Sum("+-"), name="err")
    d.connect(traj["q"], arm["q_cmd"], err["u0"])
    d.connect(arm["q"], err["u1"])
    add_scope(d, [arm["q"], err], labels=["q (measured)", "q_cmd - q"], units=["rad", "rad"],
              stairs=True, title="PhantomX through an Arbotix (50 Hz)", file=scope_file, show=show)
    return d


def main(
    T: float = 3.0, show: bool = False, out_dir: str | Path | None = None, **options
) -> SimResult:
    """Run ``T`` seconds against the emulator, recording; replay the recording and check that
    every signal is reproduced; save the scope PNG in ``out_dir`` when given."""
    scope_file = Path(out_dir) / "arbotix_phantomx.png" if out_dir is not None else None
    with tempfile.TemporaryDirectory() as tmp:
        session = str(Path(tmp) / "arbotix_session.json")
        result = simulate(build(scope_file, show, record=session), T, **options)
        again = simulate(build(port=None, replay=session), T, **options)
    same = all(np.array_equal(result[s], again[s]) for s in result.signals)
    result.stats["replay_identical"] = same
    return result


if __name__ == "__main__":
    res = main(out_dir=".")
    err = np.abs(res["err.y"][-1]).max()
    print(
        f"final tracking error {err:.4f} rad; replay identical: "
        f"{res.stats['replay_identical']}; exchanges: {res.stats['hardware']['arm']}"
    )
