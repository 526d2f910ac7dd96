"""Signals <-> standard ROS 2 messages: what :func:`blocksim.bags.write_bag` writes and what
:class:`~blocksim.blocks.lookup.bag.BagSource` reads.

Message kinds (the short names ``topics=`` accepts beside the full ROS type names):

========  ================================  ===============================================
kind      ROS type                          signal (shape per time point)
========  ================================  ===============================================
array     ``std_msgs/msg/Float64MultiArray``  any shape: ``data`` in C order, one
                                              ``layout.dim`` per axis (``dim0``, ``dim1``...)
pose      ``geometry_msgs/msg/PoseStamped``   ``(4, 4)`` homogeneous transform, ``(3,)``
                                              planar pose ``(x, y, theta)`` [m, m, rad] (z = 0,
                                              rotation about z), or ``(7,)``
                                              ``(x, y, z, qx, qy, qz, qw)``
odometry  ``nav_msgs/msg/Odometry``           a pose as for ``pose``; the twist (in the child
                                              frame ``base_link``) is the backward difference
                                              of the recorded poses (zero at the first point)
joints    ``sensor_msgs/msg/JointState``      ``(n,)`` joint angles [rad], names ``q1..qn``;
                                              ``velocity`` from a companion signal ``(n,)``
imu       ``sensor_msgs/msg/Imu``             ``(6,)`` angular velocity [rad/s] then linear
                                              acceleration [m/s^2] (orientation unknown:
                                              ``orientation_covariance[0] = -1``), or ``(10,)``
                                              with the orientation quaternion
                                              ``(qx, qy, qz, qw)`` first
========  ================================  ===============================================

Frames: ``header.frame_id`` is the world frame given to the writer (default ``"world"``);
quaternions are ROS's ``(x, y, z, w)``. All covariances are written as zeros (unknown) but for
the IMU's orientation flag.

This module imports numpy, scipy and (when called) ``rosbags`` only: it sits below the layers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

ARRAY = "std_msgs/msg/Float64MultiArray"
POSE = "geometry_msgs/msg/PoseStamped"
ODOMETRY = "nav_msgs/msg/Odometry"
JOINTS = "sensor_msgs/msg/JointState"
IMU = "sensor_msgs/msg/Imu"

#: short kind name -> ROS message type
KINDS = {"array": ARRAY, "pose": POSE, "odometry": ODOMETRY, "joints": JOINTS, "imu": IMU}


class BagError(ValueError):
    """A bag cannot be written or read as asked (message for people)."""


def typestore() -> Any:
    """rosbags' store of the standard ROS 2 message types (the latest distribution's
    definitions; no type is ever registered from a bag, so decoding runs no code a bag
    brings)."""
    try:
        from rosbags.typesys import Stores, get_typestore
    except ImportError:  # pragma: no cover - the extra is part of the test install
        raise BagError("ROS 2 bags need the package 'rosbags': pip install "
                       "'blocksim[ros]'") from None
    return get_typestore(Stores.LATEST)


def msgtype_of(kind: str) -> str:
    """The ROS message type of ``kind`` (a short name of :data:`KINDS` or a full type)."""
    if kind in KINDS:
        return KINDS[kind]
    if kind in KINDS.values():
        return kind
    raise BagError(f"unknown message type {kind!r}: use one of "
                   f"{', '.join(sorted(KINDS))} or {', '.join(sorted(KINDS.values()))}")


# ---------------------------------------------------------------- rotations
def yaw_quaternion(theta: float) -> tuple[float, float, float, float]:
    """``(qx, qy, qz, qw)`` of a rotation by ``theta`` [rad] about z."""
    return 0.0, 0.0, math.sin(0.5 * theta), math.cos(0.5 * theta)


def quaternion_yaw(qx: float, qy: float, qz: float, qw: float) -> float:
    """The heading [rad] in (-pi, pi] of the rotation ``(qx, qy, qz, qw)`` (z-y-x yaw)."""
    return math.atan2(2.0 * (qw * qz + qx * qy), 1.0 - 2.0 * (qy * qy + qz * qz))


def matrix_quaternion(R: np.ndarray) -> tuple[float, float, float, float]:
    """``(qx, qy, qz, qw)`` of the rotation matrix ``R`` (3, 3), ``qw >= 0``."""
    from scipy.spatial.transform import Rotation

    q = Rotation.from_matrix(np.asarray(R, dtype=float)).as_quat()
    if q[3] < 0:
        q = -q
    return float(q[0]), float(q[1]), float(q[2]), float(q[3])


def quaternion_matrix(q: Sequence[float]) -> np.ndarray:
    """The rotation matrix (3, 3) of the unit quaternion ``(qx, qy, qz, qw)``."""
    from scipy.spatial.transform import Rotation

    return Rotation.from_quat(np.asarray(q, dtype=float)).as_matrix()


def is_homogeneous(values: np.ndarray) -> bool:
    """Whether ``values`` (N, 4, 4) are homogeneous transforms (last row 0 0 0 1 throughout)."""
    return (values.ndim == 3 and values.shape[1:] == (4, 4) and len(values) > 0
            and bool(np.all(values[:, 3, :] == (0.0, 0.0, 0.0, 1.0))))


def _pose_parts(value: np.ndarray, what: str) -> tuple[tuple[float, float, float],
                                                       tuple[float, float, float, float]]:
    """Position and quaternion of a pose signal value (see the module's table)."""
    v = np.asarray(value, dtype=float)
    if v.shape == (4, 4):
        return (float(v[0, 3]), float(v[1, 3]), float(v[2, 3])), matrix_quaternion(v[:3, :3])
    if v.shape == (3,):
        return (float(v[0]), float(v[1]), 0.0), yaw_quaternion(float(v[2]))
    if v.shape == (7,):
        return (float(v[0]), float(v[1]), float(v[2])), tuple(float(q) for q in v[3:])  # type: ignore[return-value]
    raise BagError(f"{what}: a pose is a (4, 4) transform, (x, y, theta) or "
                   f"(x, y, z, qx, qy, qz, qw); the signal has shape {v.shape}")


# ---------------------------------------------------------------- encoding
def encode_series(ts: Any, kind: str, stamps: np.ndarray, values: np.ndarray, *,
                  what: str, frame_id: str = "world",
                  velocity: np.ndarray | None = None) -> list[Any]:
    """The messages of one signal.

    Parameters
    ----------
    ts : rosbags Typestore
        From :func:`typestore`.
    kind : str
        A ROS type of :data:`KINDS` (full name).
    stamps : ndarray of int, shape (N,)
        Header stamps [ns].
    values : ndarray, shape (N, ...)
        The signal.
    what : str
        Its name, for errors.
    frame_id : str
        ``header.frame_id`` (the world frame).
    velocity : ndarray (N, n), optional
        Joint velocities of a ``joints`` signal.

    Returns
    -------
    list
        One message object per time point.
    """
    T = ts.types
    values = np.asarray(values, dtype=float)

    def header(k: int) -> Any:
        ns = int(stamps[k])
        return T["std_msgs/msg/Header"](
            stamp=T["builtin_interfaces/msg/Time"](sec=ns // 1_000_000_000,
                                                   nanosec=ns % 1_000_000_000),
            frame_id=frame_id)

    def pose(k: int) -> Any:
        p, q = _pose_parts(values[k], what)
        return T["geometry_msgs/msg/Pose"](
            position=T["geometry_msgs/msg/Point"](x=p[0], y=p[1], z=p[2]),
            orientation=T["geometry_msgs/msg/Quaternion"](x=q[0], y=q[1], z=q[2], w=q[3]))

    def vec3(v: Sequence[float]) -> Any:
        return T["geometry_msgs/msg/Vector3"](x=float(v[0]), y=float(v[1]), z=float(v[2]))

    n = len(values)
    if kind == ARRAY:
        shape = values.shape[1:]
        dims = [T["std_msgs/msg/MultiArrayDimension"](
            label=f"dim{i}", size=int(s), stride=int(np.prod(shape[i:], dtype=int)))
            for i, s in enumerate(shape)]
        layout = T["std_msgs/msg/MultiArrayLayout"](dim=dims, data_offset=0)
        return [T[ARRAY](layout=layout, data=np.ascontiguousarray(values[k]).reshape(-1))
                for k in range(n)]
    if kind == POSE:
        return [T[POSE](header=header(k), pose=pose(k)) for k in range(n)]
    if kind == ODOMETRY:
        twist = _planar_twist(stamps, values) if values.shape[1:] == (3,) else \
            np.zeros((n, 6))
        zeros = np.zeros(36)
        return [T[ODOMETRY](
            header=header(k), child_frame_id="base_link",
            pose=T["geometry_msgs/msg/PoseWithCovariance"](pose=pose(k), covariance=zeros),
            twist=T["geometry_msgs/msg/TwistWithCovariance"](
                twist=T["geometry_msgs/msg/Twist"](linear=vec3(twist[k, :3]),
                                                    angular=vec3(twist[k, 3:])),
                covariance=zeros)) for k in range(n)]
    if kind == JOINTS:
        if values.ndim != 2:
            raise BagError(f"{what}: joint angles are a vector (n,), the signal has shape "
                           f"{values.shape[1:]}")
        names = [f"q{i + 1}" for i in range(values.shape[1])]
        empty = np.zeros(0)
        if velocity is not None and velocity.shape != values.shape:
            raise BagError(f"{what}: the joint velocity has shape {velocity.shape[1:]}, the "
                           f"angles {values.shape[1:]}")
        return [T[JOINTS](header=header(k), name=names, position=values[k].copy(),
                          velocity=empty if velocity is None else velocity[k].astype(float),
                          effort=empty) for k in range(n)]
    if kind == IMU:
        if values.shape[1:] not in ((6,), (10,)):
            raise BagError(f"{what}: an IMU signal is (6,) gyro + accelerometer or (10,) "
                           f"quaternion + gyro + accelerometer; it has shape {values.shape[1:]}")
        out = []
        for k in range(n):
            v = values[k]
            quat, rest = (v[:4], v[4:]) if len(v) == 10 else ((0.0, 0.0, 0.0, 1.0), v)
            ocov = np.zeros(9)
            if len(v) == 6:
                ocov[0] = -1.0  # ROS: orientation not given
            out.append(T[IMU](
                header=header(k),
                orientation=T["geometry_msgs/msg/Quaternion"](x=float(quat[0]), y=float(quat[1]),
                                                              z=float(quat[2]), w=float(quat[3])),
                orientation_covariance=ocov, angular_velocity=vec3(rest[:3]),
                angular_velocity_covariance=np.zeros(9), linear_acceleration=vec3(rest[3:]),
                linear_acceleration_covariance=np.zeros(9)))
        return out
    raise BagError(f"{what}: cannot write message type {kind!r}")


def _planar_twist(stamps: np.ndarray, poses: np.ndarray) -> np.ndarray:
    """(N, 6) body-frame twist (vx, vy, 0, 0, 0, wz) of planar poses (N, 3): backward
    differences over each recorded interval (the previous twist over a zero-length one, zero
    at the first point)."""
    n = len(poses)
    out = np.zeros((n, 6))
    theta = np.unwrap(poses[:, 2]) if n else poses[:, 2]
    for k in range(1, n):
        dt = (int(stamps[k]) - int(stamps[k - 1])) * 1e-9
        if dt <= 0:
            out[k] = out[k - 1]
            continue
        dx, dy = (poses[k, 0] - poses[k - 1, 0]) / dt, (poses[k, 1] - poses[k - 1, 1]) / dt
        c, s = math.cos(poses[k, 2]), math.sin(poses[k, 2])
        out[k] = (c * dx + s * dy, -s * dx + c * dy, 0.0, 0.0, 0.0,
                  (theta[k] - theta[k - 1]) / dt)
    return out


# ---------------------------------------------------------------- decoding
#: what a BagSource's ``pose`` parameter may ask of a pose
POSE_FORMS = ("xytheta", "xyz", "T")


def _is_pose(obj: Any) -> bool:
    return hasattr(obj, "position") and hasattr(obj, "orientation")


def _pose_value(p: Any, form: str) -> np.ndarray:
    pos, q = p.position, p.orientation
    if form == "xyz":
        return np.array([pos.x, pos.y, pos.z], dtype=float)
    if form == "xytheta":
        return np.array([pos.x, pos.y, quaternion_yaw(q.x, q.y, q.z, q.w)], dtype=float)
    T = np.eye(4)
    T[:3, :3] = quaternion_matrix((q.x, q.y, q.z, q.w))
    T[:3, 3] = (pos.x, pos.y, pos.z)
    return T


def _fields(obj: Any) -> list[str]:
    return [f for f in getattr(obj, "__dataclass_fields__", {}) if f != "__msgtype__"]


def _numbers(obj: Any, path: str) -> float | np.ndarray:
    """A number, a numeric array, or a message of numbers only (Vector3, Point, Quaternion)
    as a float or float64 array."""
    if isinstance(obj, (bool, int, float, np.integer, np.floating)):
        return float(obj)
    if isinstance(obj, np.ndarray) and obj.dtype.kind in "biuf":
        return obj.astype(float)
    if isinstance(obj, list) and all(isinstance(v, (int, float)) for v in obj):
        return np.asarray(obj, dtype=float)
    names = _fields(obj)
    if names and all(isinstance(getattr(obj, f), (int, float, np.integer, np.floating))
                     for f in names):
        return np.array([float(getattr(obj, f)) for f in names])
    kind = getattr(obj, "__msgtype__", type(obj).__name__)
    raise BagError(f"field {path!r} is a {kind} with fields {names}; name a numeric field "
                   f"(e.g. {path}.{names[0] if names else 'data'})")


def _target(msg: Any, field: str | None) -> Any:
    """The object ``decode`` plays: the named field, a pose the message holds, or the message."""
    mtype = getattr(msg, "__msgtype__", "")
    if field:
        obj = msg
        for i, part in enumerate(field.split(".")):
            if part not in _fields(obj):
                where = ".".join(field.split(".")[:i]) or mtype
                raise BagError(f"{where} has no field {part!r}; its fields: {_fields(obj)}")
            obj = getattr(obj, part)
        return obj
    if mtype.endswith("MultiArray") or mtype in (JOINTS, IMU) or "Twist" in mtype:
        return msg
    obj = msg
    while not _is_pose(obj) and hasattr(obj, "pose"):  # PoseStamped, Odometry, ...
        obj = obj.pose
    return obj if _is_pose(obj) else msg


def plays_pose(msg: Any, field: str | None) -> bool:
    """Whether :func:`decode` plays a pose of ``msg`` (shaped by its ``pose`` argument)."""
    return _is_pose(_target(msg, field))


def decode(msg: Any, field: str | None, pose: str = "xytheta") -> float | np.ndarray:
    """The value a :class:`~blocksim.blocks.lookup.bag.BagSource` plays from ``msg``.

    Parameters
    ----------
    msg : rosbags message object
        A deserialised message.
    field : str or None
        Dotted path of the field to play (``"pose.pose.position"``, ``"velocity"``,
        ``"data"``); None: the message type's default (see below).
    pose : {"xytheta", "xyz", "T"}
        How a pose (a ``Pose`` or a message holding one) is played: planar pose
        ``(x, y, theta)`` [m, m, rad], position ``(x, y, z)`` [m] or the (4, 4) transform.

    Returns
    -------
    float or ndarray
        Defaults: ``Float64MultiArray`` (and the other ``*MultiArray``) its ``data`` shaped by
        its layout; ``Float64`` and the other scalars their ``data``; ``PoseStamped``,
        ``PoseWithCovarianceStamped`` and ``Odometry`` their pose, by ``pose``; ``JointState``
        its ``position``; ``Imu`` its ``(wx, wy, wz, ax, ay, az)``; ``Twist`` and
        ``TwistStamped`` ``(vx, vy, vz, wx, wy, wz)``; a message of numbers only
        (``Vector3``, ``Point``) its fields in order.
    """
    mtype = getattr(msg, "__msgtype__", "")
    obj = _target(msg, field)
    if _is_pose(obj):
        return _pose_value(obj, pose)
    if field:
        return _numbers(obj, field)
    if mtype.endswith("MultiArray"):
        data = np.asarray(msg.data, dtype=float)
        dims = tuple(int(d.size) for d in msg.layout.dim)
        return data.reshape(dims) if dims and int(np.prod(dims)) == data.size else data
    if mtype == JOINTS:
        return np.asarray(msg.position, dtype=float)
    if mtype == IMU:
        a, w = msg.linear_acceleration, msg.angular_velocity
        return np.array([w.x, w.y, w.z, a.x, a.y, a.z], dtype=float)
    if mtype in ("geometry_msgs/msg/Twist", "geometry_msgs/msg/TwistStamped"):
        tw = msg.twist if mtype.endswith("Stamped") else msg
        return np.array([tw.linear.x, tw.linear.y, tw.linear.z, tw.angular.x, tw.angular.y,
                         tw.angular.z], dtype=float)
    if "data" in _fields(msg):
        return _numbers(msg.data, "data")
    return _numbers(msg, mtype)
