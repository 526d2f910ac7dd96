"""BagSource: a bag written by rosbags itself (as a robot's recorder would) played into a
diagram, interpolated and held; confined and bounded like every data file."""

import json
import math
import os
import re

import numpy as np
import pytest
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_typestore

from blocksim import Diagram, simulate
from blocksim.blocks import BagSource
from blocksim.engine.errors import BlockParameterError
from blocksim.io import dumps, load, loads, save

TS = get_typestore(Stores.ROS2_JAZZY)
T = TS.types
EPOCH = 1_700_000_000_123_456_789  # a real robot's clock [ns]
#: odometry stamps [s after EPOCH], irregular as a robot's; headings crossing +-pi
ODO_T = np.array([0.0, 0.1, 0.25, 0.3, 0.55, 0.8, 1.0, 1.3])
ODO = np.column_stack([np.linspace(0.0, 2.0, 8), np.sin(ODO_T),
                       [3.0, 3.1, -3.1, -3.0, -2.9, 3.1, 3.0, 2.9]])
JOINT_T = np.array([0.05, 0.45, 0.9, 1.2])
JOINTS = np.array([[0.0, 1.0], [0.5, 0.5], [1.0, -0.5], [0.2, 0.2]])


def _header(ns, frame="odom"):
    return T["std_msgs/msg/Header"](stamp=T["builtin_interfaces/msg/Time"](
        sec=ns // 10**9, nanosec=ns % 10**9), frame_id=frame)


def _odometry(ns, pose):
    zeros = np.zeros(36)
    vec = T["geometry_msgs/msg/Vector3"]
    return T["nav_msgs/msg/Odometry"](
        header=_header(ns), child_frame_id="base_link",
        pose=T["geometry_msgs/msg/PoseWithCovariance"](pose=T["geometry_msgs/msg/Pose"](
            position=T["geometry_msgs/msg/Point"](x=pose[0], y=pose[1], z=0.25),
            orientation=T["geometry_msgs/msg/Quaternion"](
                x=0.0, y=0.0, z=math.sin(pose[2] / 2), w=math.cos(pose[2] / 2))),
            covariance=zeros),
        twist=T["geometry_msgs/msg/TwistWithCovariance"](twist=T["geometry_msgs/msg/Twist"](
            linear=vec(x=1.0, y=0.0, z=0.0), angular=vec(x=0.0, y=0.0, z=0.5)),
            covariance=zeros))


def write_robot_bag(path, storage=StoragePlugin.MCAP):
    """A bag as a robot records it: stamps in the epoch, logged a little after the header
    stamps, several topics; written with rosbags only."""
    with Writer(path, version=9, storage_plugin=storage) as w:
        odom = w.add_connection("/odom", "nav_msgs/msg/Odometry", typestore=TS)
        joints = w.add_connection("/joint_states", "sensor_msgs/msg/JointState", typestore=TS)
        events = []
        for t, pose in zip(ODO_T, ODO):
            ns = EPOCH + round(t * 1e9)
            events.append((ns + 2_000_000, odom, _odometry(ns, pose), "nav_msgs/msg/Odometry"))
        for t, q in zip(JOINT_T, JOINTS):
            ns = EPOCH + round(t * 1e9)
            msg = T["sensor_msgs/msg/JointState"](header=_header(ns, ""), name=["a", "b"],
                                                  position=q, velocity=-q, effort=np.zeros(0))
            events.append((ns + 1_000_000, joints, msg, "sensor_msgs/msg/JointState"))
        for logtime, conn, msg, mtype in sorted(events, key=lambda e: e[0]):
            w.write(conn, logtime, TS.serialize_cdr(msg, mtype))
    return path


@pytest.fixture(scope="module")
def bag(tmp_path_factory):
    return write_robot_bag(tmp_path_factory.mktemp("robot") / "robot_bag")


def _play(**blocks):
    d = Diagram("play")
    for name, block in blocks.items():
        d.add(block, name=name)
    return simulate(d, 1.5, solver="rk4", dt=0.05)


def test_a_robot_bag_plays_interpolated_and_held(bag):
    r = _play(lin=BagSource(str(bag), "/odom"), hold=BagSource(str(bag), "/odom",
                                                               interpolate="hold"),
              xyz=BagSource(str(bag), "/odom", pose="xyz", interpolate="hold"),
              q=BagSource(str(bag), "/joint_states"),
              qd=BagSource(str(bag), "/joint_states", field="velocity", interpolate="hold"),
              w=BagSource(str(bag), "/odom", field="twist.twist.angular"))
    # t = 0 is the bag's start, its first log time (EPOCH + 2 ms); the header stamps are the
    # messages' times
    t, odo_t, joint_t = r.t, ODO_T - 0.002, JOINT_T - 0.002
    assert set(np.round(odo_t[1:], 12)) <= set(np.round(t, 12))  # stamps are breakpoints
    theta = np.unwrap(ODO[:, 2])
    expected = np.column_stack([np.interp(t, odo_t, ODO[:, 0]), np.interp(t, odo_t, ODO[:, 1]),
                                np.interp(t, odo_t, theta)])
    np.testing.assert_allclose(r["lin.y"], expected, rtol=0, atol=1e-12)
    k = np.clip(np.searchsorted(odo_t, t + 1e-12, side="right") - 1, 0, None)
    held = ODO[k].copy()
    np.testing.assert_allclose(r["hold.y"][:, :2], held[:, :2], rtol=0, atol=0)
    np.testing.assert_allclose(np.cos(r["hold.y"][:, 2] - held[:, 2]), 1.0, atol=1e-15)
    np.testing.assert_array_equal(r["xyz.y"][:, 2], 0.25)
    ks = np.clip(np.searchsorted(joint_t, t + 1e-12, side="right") - 1, 0, None)
    np.testing.assert_array_equal(r["qd.y"], -JOINTS[ks])
    q = np.column_stack([np.interp(t, joint_t, JOINTS[:, j]) for j in range(2)])
    np.testing.assert_allclose(r["q.y"], q, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(r["w.y"], np.tile([0.0, 0.0, 0.5], (len(t), 1)))


def test_log_time_and_start_move_the_signal(bag):
    log = BagSource(str(bag), "/odom", clock="log", interpolate="hold")
    late = BagSource(str(bag), "/odom", start=(EPOCH - 500_000_000) / 1e9, interpolate="hold")
    # log times are 2 ms after the stamps; the bag starts at the first one
    assert log.output(0.0999, None, ())[0][0] == ODO[0, 0]
    assert log.output(0.1, None, ())[0][0] == ODO[1, 0]
    # (a float start in the epoch is good to about 0.2 us)
    assert late.output(0.5999, None, ())[0][0] == ODO[0, 0]
    assert late.output(0.6001, None, ())[0][0] == ODO[1, 0]


def test_sqlite3_bags_play_too(tmp_path):
    bag = write_robot_bag(tmp_path / "db", StoragePlugin.SQLITE3)
    np.testing.assert_array_equal(BagSource(str(bag), "/joint_states", interpolate="hold")
                                  .output(0.46, None, ())[0], JOINTS[1])


def test_bad_topics_fields_and_bags_are_clear_errors(bag, tmp_path):
    cases = [
        (dict(topic="/odometry"), "has no topic '/odometry' (did you mean '/odom'?); its "
                                  "topics: /joint_states, /odom"),
        (dict(topic="odom"), "parameter 'topic' must be a topic name such as '/odom'"),
        (dict(topic="/odom", field="pose.twist"), "has no field 'twist'"),
        (dict(topic="/odom", field="header"), "name a numeric field"),
        (dict(topic="/odom", interpolate="cubic"), "parameter 'interpolate' must be"),
        (dict(topic="/odom", pose="T"), "cannot be interpolated element by element"),
        (dict(topic="/odom", pose="quat"), "parameter 'pose' must be one of"),
        (dict(bag=str(tmp_path / "none"), topic="/odom"), "does not exist"),
        (dict(bag=str(tmp_path), topic="/odom"), "has no metadata.yaml: not a rosbag2"),
    ]
    for kwargs, words in cases:
        with pytest.raises(BlockParameterError, match=re.escape(words)):
            BagSource(**{"bag": str(bag), **kwargs})
    custom = tmp_path / "custom"
    with Writer(custom, version=9, storage_plugin=StoragePlugin.MCAP) as w:
        from rosbags.typesys import get_types_from_msg

        store = get_typestore(Stores.EMPTY)
        store.register(get_types_from_msg("float64 v", "my_msgs/msg/V"))
        c = w.add_connection("/v", "my_msgs/msg/V", typestore=store)
        for k in range(3):
            w.write(c, k, store.serialize_cdr(store.types["my_msgs/msg/V"](v=1.0), "my_msgs/msg/V"))
    with pytest.raises(BlockParameterError, match="not a standard ROS 2 message type"):
        BagSource(str(custom), "/v")


def test_json_round_trip_and_confinement(bag, tmp_path, monkeypatch):
    folder = tmp_path / "diagram"
    folder.mkdir()
    monkeypatch.chdir(folder)  # Python code's paths are the program's: relative to here
    os.symlink(bag, folder / "linked")  # a link out of the diagram's folder
    local = write_robot_bag(folder / "robot")
    d = Diagram("replay")
    d.add(BagSource("robot", "/odom", interpolate="hold", pose="xyz"), name="odom")
    text = dumps(d)
    assert json.loads(text)["blocks"]["odom"] == {
        "type": "BagSource", "params": {"bag": "robot", "topic": "/odom",
                                        "interpolate": "hold", "pose": "xyz"}}
    path = save(d, folder / "replay.json")
    back = load(path).diagram
    r = simulate(back, 1.0, solver="rk4", dt=0.1)
    np.testing.assert_array_equal(r["odom.y"][-1], [ODO[6, 0], ODO[6, 1], 0.25])
    assert str(local) != str(bag)
    for name in ("linked", "../robot_bag", str(bag)):
        text2 = text.replace('"robot"', json.dumps(name))
        with pytest.raises(Exception, match=r"outside this file's folder|relative to this "
                                            r"file's folder"):
            loads(text2, base_dir=folder)
    # a file in the bag linking out is refused; a pipe in it is never opened
    evil = folder / "evil"
    evil.mkdir()
    for p in local.iterdir():
        (evil / p.name).write_bytes(p.read_bytes())
    os.mkfifo(evil / "pipe")
    np.testing.assert_array_equal(BagSource(str(evil), "/odom", interpolate="hold")
                                  .output(1.0, None, ())[0], ODO[6])
    os.symlink("/etc/hostname", evil / "x.mcap")
    with pytest.raises(BlockParameterError, match="is a link out of the bag's folder"):
        BagSource(str(evil), "/odom")


def test_bags_over_the_size_limit_are_refused(bag, monkeypatch):
    import blocksim.bags.read as read

    monkeypatch.setattr(read, "MAX_BAG_BYTES", 2000)
    with pytest.raises(BlockParameterError, match="more than MAX_BAG_BYTES = 2000 bytes"):
        BagSource(str(bag), "/odom")
