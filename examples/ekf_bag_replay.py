"""A vehicle run written to a ROS 2 bag, then replayed into an EKF (RVC 6.1 dead reckoning).

Two diagrams. The first (:func:`record`) is the rig of ``ekf_dead_reckoning``: a ``Vehicle``
(bicycle, odometry noise ``V = diag(0.02 m, 0.5 deg)^2``, 0.1 s interval) driven through random
waypoints; its true pose and noisy odometry are written to a rosbag2 (MCAP) with
``blocksim.bags.write_bag``: ``/veh/pose`` as ``nav_msgs/msg/Odometry`` (the vehicle's pose
type), ``/veh/odo`` as ``std_msgs/msg/Float64MultiArray``, stamped with the simulation time.
The second (:func:`build`) has no vehicle at all: two ``BagSource`` blocks play the bag's
topics, held (zero-order), into an ``EKF`` in dead-reckoning mode and into the scope and the
estimation figure, as a recording made on a real robot would be played. The replayed filter
computes the same estimate as the filter of the live run (the tests hold them equal).

``diagrams/ekf_bag_replay.json`` plays the bag shipped in ``diagrams/bags/vehicle_run`` (20 s,
recorded by :func:`record`); ``main`` records a fresh bag of ``T`` seconds in ``out_dir`` (or a
temporary folder) and replays it. Run ``python examples/ekf_bag_replay.py`` to write
``ekf_bag_replay.png`` and ``ekf_bag_replay_map.png`` and the bag ``ekf_bag_replay_bag/``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from blocksim import Diagram, SimResult, simulate
from blocksim.bags import write_bag
from blocksim.blocks import BagSource
from blocksim.blocks.sinks import Scope
from blocksim.blocks.vehicle import EKF, EstimationPlot, add_ekf_rig

V = (0.02**2, np.deg2rad(0.5) ** 2)
W = (0.1**2, np.deg2rad(1.0) ** 2)
P0 = (0.005**2, 0.005**2, np.deg2rad(0.1) ** 2)
LANDMARKS = 20
#: the bag shipped with the diagram file
BAG = Path(__file__).resolve().parents[1] / "diagrams" / "bags" / "vehicle_run"
#: its duration [s]
RECORD_T = 20.0
TOPICS = {"veh.pose": "/veh/pose", "veh.odo": "/veh/odo"}


def record(bag: str | Path, T: float = RECORD_T, seed: int = 0) -> SimResult:
    """Simulate the dead-reckoning rig for ``T`` seconds and write the vehicle's true pose and
    noisy odometry to the new bag folder ``bag``; return the live run (its ``ekf.x`` is the
    estimate the replay must reproduce)."""
    d = Diagram("vehicle_run")
    add_ekf_rig(d, "dead_reckoning", V, W, P0, LANDMARKS, seed)
    result = simulate(d, T, solver="rk4", dt=0.1)
    write_bag(result, bag, topics=TOPICS, blocks=d)
    return result


def build(bag: str | Path = BAG, file: str | Path | None = None, show: bool = False,
          figure: str | Path | None = None) -> Diagram:
    """The replay: the bag's ``/veh/odo`` into an EKF (dead reckoning), its ``/veh/pose``
    against the estimate in a scope and in the estimation figure (saved to ``file`` and
    ``figure`` when given)."""
    d = Diagram("ekf_bag_replay")
    d.add(BagSource(str(bag), "/veh/pose", interpolate="hold"), name="truth")
    d.add(BagSource(str(bag), "/veh/odo", interpolate="hold"), name="odo")
    d.add(EKF(mode="dead_reckoning", V_est=V, P0=P0, W_est=W, landmarks=LANDMARKS,
              map_seed=0), name="ekf")
    d.add(Scope(2, labels=["true pose (bag)", "estimated pose"], units=["m, m, rad"] * 2,
                title="EKF dead reckoning replayed from a ROS 2 bag", file=file, show=show,
                stairs=True, elements=[["x", "y", "θ"], ["x", "y", "θ"]]), name="scope")
    d.add(EstimationPlot(None, title="EKF replayed from a bag: paths, error and 3σ bounds",
                         file=figure, show=show), name="estimate")
    d.connect("odo", "ekf.odo")
    d.connect("truth", "scope.u0")
    d.connect("ekf.x", "scope.u1")
    d.connect("truth", "estimate.pose")
    d.connect("ekf.x", "estimate.x")
    d.connect("ekf.P", "estimate.P")
    return d


def main(T: float = RECORD_T, show: bool = False, out_dir: str | Path | None = None,
         **options) -> SimResult:
    """Record a bag of ``T`` seconds (``ekf_bag_replay_bag/`` in ``out_dir``, else a temporary
    folder) and replay it for ``T`` seconds; save the scope (``ekf_bag_replay.png``) and the
    map and error figure (``ekf_bag_replay_map.png``) in ``out_dir`` when given."""
    out = Path(out_dir) if out_dir is not None else None
    with tempfile.TemporaryDirectory(prefix="ekf_bag_replay-") as tmp:
        bag = (out if out is not None else Path(tmp)) / "ekf_bag_replay_bag"
        record(bag, T)
        file = out / "ekf_bag_replay.png" if out is not None else None
        figure = out / "ekf_bag_replay_map.png" if out is not None else None
        return simulate(build(bag, file, show, figure), T, **{"solver": "rk4", "dt": 0.1,
                                                              **options})


if __name__ == "__main__":
    res = main(out_dir=".")
    e = res["ekf.x"][-1] - res["truth.y"][-1]
    print(f"final pose error {e.round(3)}")
