"""The example ekf_bag_replay: a vehicle run written to a bag and replayed into an EKF gives
the live run's estimate; the shipped bag is what its record() writes."""

import numpy as np
from rosbags.rosbag2 import Reader
from rosbags.typesys import Stores, get_typestore

from blocksim import simulate

from ..examples_loader import load_example


def _messages(bag):
    ts = get_typestore(Stores.LATEST)
    with Reader(bag) as reader:
        return [(c.topic, t, ts.deserialize_cdr(raw, c.msgtype))
                for c, t, raw in reader.messages()]


def test_the_replayed_filter_gives_the_live_estimate_and_the_shipped_bag_is_reproducible(
        tmp_path):
    module = load_example("ekf_bag_replay")
    live = module.record(tmp_path / "bag", module.RECORD_T)
    replay = simulate(module.build(tmp_path / "bag"), module.RECORD_T, solver="rk4", dt=0.1)
    np.testing.assert_array_equal(replay.t, live.t)
    np.testing.assert_array_equal(replay["ekf.x"], live["ekf.x"])  # bit for bit
    np.testing.assert_array_equal(replay["odo.y"], live["veh.odo"])
    np.testing.assert_allclose(replay["truth.y"], live["veh.pose"], rtol=0, atol=1e-15)
    assert np.linalg.norm(live["ekf.x"][-1, :2] - live["veh.pose"][-1, :2]) > 1e-3  # noisy
    fresh, shipped = _messages(tmp_path / "bag"), _messages(module.BAG)
    assert [(m[0], m[1]) for m in fresh] == [(m[0], m[1]) for m in shipped]
    for a, b in zip(fresh, shipped):
        if a[0] == "/veh/odo":
            np.testing.assert_array_equal(a[2].data, b[2].data)
        else:
            assert a[2].pose.pose.position == b[2].pose.pose.position
