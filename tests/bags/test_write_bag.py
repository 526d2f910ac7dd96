"""A run written as a ROS 2 bag, read back with rosbags' own reader and typestore."""

import math

import numpy as np
import pytest
from rosbags.rosbag2 import Reader
from rosbags.typesys import Stores, get_typestore

from blocksim import Diagram, simulate
from blocksim.bags import BagError, topic_name, write_bag
from blocksim.blocks import Constant, Ramp, Sine
from blocksim.blocks.vehicle import Bicycle
from blocksim.cli import main

TS = get_typestore(Stores.ROS2_HUMBLE)
T_HOM = np.array([[0.0, -1.0, 0.0, 0.5], [1.0, 0.0, 0.0, -0.2], [0.0, 0.0, 1.0, 1.5],
                  [0.0, 0.0, 0.0, 1.0]])


def _diagram():
    d = Diagram("bagged")
    d.add(Sine(amplitude=0.3, frequency=0.4), name="steer")
    d.add(Constant(1.5), name="speed")
    d.add(Bicycle(x0=[0.5, -1.0, 3.0]), name="veh")  # heading near pi: wraps in the run
    d.add(Constant(T_HOM), name="tf")
    d.add(Ramp(slope=[1.0, -2.0, 0.5]), name="q")
    d.add(Constant([0.1, 0.2, 0.3]), name="qd")
    d.add(Constant(np.arange(6.0)), name="imu")
    d.add(Constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), name="m")
    d.connect("speed", "veh.v")
    d.connect("steer", "veh.gamma")
    return d


@pytest.fixture(scope="module")
def run():
    d = _diagram()
    return d, simulate(d, 1.0, solver="rk4", dt=0.1, record_dt=0.05)


def _read(path):
    out = {}
    assert "storage_identifier: mcap" in (path / "metadata.yaml").read_text()
    with Reader(path) as reader:
        for conn, logtime, raw in reader.messages():
            out.setdefault(conn.topic, (conn.msgtype, []))[1].append(
                (logtime, TS.deserialize_cdr(raw, conn.msgtype)))
    return out


def _stamp(msg):
    return msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec


def test_every_signal_is_written_stamped_with_the_simulation_time(run, tmp_path):
    d, r = run
    bag = write_bag(r, tmp_path / "run", blocks=d)
    assert sorted(p.suffix for p in bag.iterdir()) == [".mcap", ".yaml"]
    got = _read(bag)
    assert set(got) == {topic_name(s) for s in r.signals}
    ns = [round(t * 1e9) for t in r.t]
    for topic, (msgtype, msgs) in got.items():
        assert [m[0] for m in msgs] == ns, topic
        if msgtype != "std_msgs/msg/Float64MultiArray":
            assert [_stamp(m[1]) for m in msgs] == ns, topic
    # a vehicle's pose: Odometry, heading as a yaw quaternion, twist from the poses
    msgtype, odo = got["/veh/pose"]
    assert msgtype == "nav_msgs/msg/Odometry"
    pose = r["veh.pose"]
    for k, (_, m) in enumerate(odo):
        p, q = m.pose.pose.position, m.pose.pose.orientation
        assert (p.x, p.y, p.z) == (pose[k, 0], pose[k, 1], 0.0)
        assert (q.x, q.y, q.z, q.w) == (0.0, 0.0, math.sin(pose[k, 2] / 2),
                                        math.cos(pose[k, 2] / 2))
        assert m.header.frame_id == "world" and m.child_frame_id == "base_link"
    k = 7
    dt = r.t[k] - r.t[k - 1]
    speed = math.hypot(pose[k, 0] - pose[k - 1, 0], pose[k, 1] - pose[k - 1, 1]) / dt
    assert odo[k][1].twist.twist.linear.x == pytest.approx(speed, rel=1e-6)
    assert odo[k][1].twist.twist.angular.z == pytest.approx(
        (pose[k, 2] - pose[k - 1, 2]) / dt, rel=1e-9)
    # a homogeneous transform: PoseStamped
    msgtype, tf = got["/tf/y"]
    assert msgtype == "geometry_msgs/msg/PoseStamped"
    p, q = tf[-1][1].pose.position, tf[-1][1].pose.orientation
    assert (p.x, p.y, p.z) == (0.5, -0.2, 1.5)
    np.testing.assert_allclose([q.x, q.y, q.z, q.w], [0, 0, math.sqrt(0.5), math.sqrt(0.5)],
                               atol=1e-15)
    # anything else: Float64MultiArray with its layout
    msgtype, m = got["/m/y"]
    assert msgtype == "std_msgs/msg/Float64MultiArray"
    assert [(dim.label, dim.size, dim.stride) for dim in m[0][1].layout.dim] == \
        [("dim0", 2, 6), ("dim1", 3, 3)]
    assert list(m[0][1].data) == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    steer = got["/steer/y"][1]
    assert [float(x[1].data[0]) for x in steer] == list(r["steer.y"])
    assert len(steer[0][1].layout.dim) == 0


def test_topics_choose_signals_names_and_types(run, tmp_path):
    _, r = run
    bag = r.to_rosbag(tmp_path / "chosen", topics={
        "q.y": {"topic": "/arm/joint_states", "type": "joints", "velocity": "qd.y"},
        "imu.y": {"topic": "/imu", "type": "sensor_msgs/msg/Imu"},
        "veh.pose": {"topic": "/pose2d", "type": "pose"},
        "steer.y": "/steer"}, stamp_offset_ns=1_700_000_000_000_000_000)
    got = _read(bag)
    assert sorted(got) == ["/arm/joint_states", "/imu", "/pose2d", "/steer"]
    off = 1_700_000_000_000_000_000
    msgtype, joints = got["/arm/joint_states"]
    assert msgtype == "sensor_msgs/msg/JointState"
    for k, (logtime, m) in enumerate(joints):
        assert logtime == _stamp(m) == round(r.t[k] * 1e9) + off
        assert list(m.name) == ["q1", "q2", "q3"]
        assert list(m.position) == list(r["q.y"][k]) and list(m.velocity) == [0.1, 0.2, 0.3]
    imu = got["/imu"][1][3][1]
    assert (imu.angular_velocity.x, imu.angular_velocity.z, imu.linear_acceleration.x,
            imu.linear_acceleration.z) == (0.0, 2.0, 3.0, 5.0)
    assert imu.orientation_covariance[0] == -1.0
    assert got["/pose2d"][0] == "geometry_msgs/msg/PoseStamped"


def test_sqlite3_storage_and_refusals(run, tmp_path):
    _, r = run
    bag = write_bag(r, tmp_path / "db", topics={"steer.y": None}, storage="sqlite3")
    assert [p.suffix for p in bag.iterdir() if p.suffix != ".yaml"] == [".db3"]
    with Reader(bag) as reader:
        assert [c.topic for c in reader.connections] == ["/steer/y"]
    for kwargs, words in [
        (dict(topics={"nope.y": None}), "no recorded signal 'nope.y'"),
        (dict(topics={"steer.y": "steer"}), "not a ROS 2 topic name"),
        (dict(topics={"steer.y": "/a", "speed.y": "/a"}), "both go to topic '/a'"),
        (dict(topics={"steer.y": {"type": "twist"}}), "unknown message type 'twist'"),
        (dict(topics={"m.y": {"type": "pose"}}), "a pose is a (4, 4) transform"),
    ]:
        with pytest.raises(BagError, match=__import__("re").escape(words)):
            write_bag(r, tmp_path / "bad", **kwargs)
        assert not (tmp_path / "bad").exists()
    with pytest.raises(BagError, match="exists; name a new folder"):
        write_bag(r, bag)
    assert topic_name("sub/pid.u") == "/sub/pid/u" and topic_name("a-b.0x") == "/a_b/_0x"


def test_blocksim_run_writes_a_bag_and_refuses_an_existing_folder(tmp_path, capsys):
    from blocksim.io import save

    d = Diagram("cli")
    d.add(Sine(), name="s")
    save(d, tmp_path / "d.json")
    out = tmp_path / "out"
    assert main(["run", str(tmp_path / "d.json"), "--T", "0.5", "--bag", str(out),
                 "--record-dt", "0.25"]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    got = _read(out)
    assert [m[0] for m in got["/s/y"][1]] == [0, 250_000_000, 500_000_000]
    assert main(["run", str(tmp_path / "d.json"), "--bag", str(out), "--quiet"]) == 2
    assert "exists; name a new folder" in capsys.readouterr().err
    assert main(["run", str(tmp_path / "d.json"), "--bag", str(tmp_path / "no" / "b")]) == 2
    assert "does not exist" in capsys.readouterr().err
