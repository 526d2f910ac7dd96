"""Play a topic of a ROS 2 bag into a diagram: :class:`BagSource`."""

from __future__ import annotations

import numpy as np

from blocksim.blocks._shared import _short
from blocksim.blocks.lookup.tables import Interpolate
from blocksim.confine import PathRefused, input_path
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError

__all__ = ["BagSource"]

_MODES = {True: "linear", "linear": "linear", "hold": "previous", False: "previous"}


class BagSource(Interpolate):
    """The messages of one topic of a ROS 2 bag (rosbag2, MCAP or sqlite3) as a signal of time.

    Each message gives a value (see ``field`` and ``pose``) at its time stamp; between stamps
    the output is interpolated linearly or held (zero-order hold: the value of the latest
    message at or before ``t``); before the first message it is the first value, after the
    last the last (no extrapolation). Every stamp is a breakpoint of the run. Messages with the
    same stamp: the last one counts. A planar heading ``theta`` is unwrapped along the bag
    before a linear interpolation (so it stays continuous and may leave (-pi, pi]).

    Runs in both back-ends (Interpolate's kernels). The bag is read when the block is made,
    bounded and without running anything it contains (:func:`blocksim.bags.read_topic`): in a
    diagram file its folder is confined like every data file (relative to the file, inside its
    folder or an ``--allow-dir`` folder).

    Parameters
    ----------
    bag : str
        The bag folder (the one with ``metadata.yaml``).
    topic : str
        The topic to play, e.g. ``"/odom"``.
    field : str, optional
        Dotted path of the field to play, e.g. ``"twist.twist.linear"`` (a ``Vector3``: its
        (x, y, z)), ``"velocity"``, ``"pose.pose"`` (a pose, shaped by ``pose``). Default: the
        type's own (:func:`blocksim.bags.messages.decode`): a ``Float64MultiArray``'s data
        shaped by its layout, a scalar's ``data``, the pose of a ``PoseStamped`` or
        ``Odometry``, a ``JointState``'s positions, an ``Imu``'s (gyro, accelerometer).
    interpolate : bool or str
        ``True`` or ``"linear"``: linear interpolation (default); ``"hold"`` or ``False``:
        zero-order hold.
    pose : {"xytheta", "xyz", "T"}
        How a pose is played: ``(x, y, theta)`` [m, m, rad] (theta the heading about z),
        ``(x, y, z)`` [m], or the (4, 4) homogeneous transform (held only). Default
        ``"xytheta"``.
    clock : {"header", "log"}
        The time of a message: its ``header.stamp`` (default; headerless types use their time
        in the bag) or its time in the bag.
    start : float, optional
        The bag time [s since the epoch] that is t = 0 of the run; default: the bag's start
        (its earliest message), so the topics of one bag stay aligned. A bag written by
        blocksim starts at 0.

    Inputs
    ------
    none

    Outputs
    -------
    y : float or ndarray, shape ``()`` or the value's shape ((3,) for a planar pose, (n,) for
        n joints, ...)
        The topic's value at the simulation time.
    """

    def __init__(self, bag: str, topic: str, field: str | None = None,
                 interpolate: bool | str = True, pose: str = "xytheta", clock: str = "header",
                 start: float | None = None) -> None:
        from blocksim.bags import BagError, decode, read_topic
        from blocksim.bags.messages import POSE_FORMS, plays_pose

        name = "BagSource"
        mode = _MODES.get(interpolate) if isinstance(interpolate, (bool, str)) else None
        if mode is None:
            raise BlockParameterError(f"{name}: parameter 'interpolate' must be True, False, "
                                      f"'linear' or 'hold', got {_short(interpolate)}")
        if pose not in POSE_FORMS:
            raise BlockParameterError(f"{name}: parameter 'pose' must be one of {POSE_FORMS}, "
                                      f"got {_short(pose)}")
        if pose == "T" and mode == "linear":
            raise BlockParameterError(f"{name}: a (4, 4) pose cannot be interpolated element "
                                      f"by element; use interpolate='hold' or pose='xyz' / "
                                      f"'xytheta'")
        if not isinstance(topic, str) or not topic.startswith("/"):
            raise BlockParameterError(f"{name}: parameter 'topic' must be a topic name such as "
                                      f"'/odom', got {_short(topic)}")
        if field is not None and not isinstance(field, str):
            raise BlockParameterError(f"{name}: parameter 'field' must be a dotted field name "
                                      f"or None, got {_short(field)}")
        try:
            path = input_path(bag, "parameter 'bag'")
            assert path is not None
            data = read_topic(path, topic, clock=clock)
            values = [decode(m, field, pose) for m in data.messages]
        except (PathRefused, BagError) as exc:
            raise BlockParameterError(f"{name}: {exc}") from None
        if not values:
            raise BlockParameterError(f"{name}: topic {topic!r} of bag {bag!r} has no "
                                      f"messages")
        shapes = {np.shape(v) for v in values}
        if len(shapes) > 1:
            raise BlockParameterError(f"{name}: the messages of {topic!r} give values of "
                                      f"several shapes {sorted(shapes)}; name a field of "
                                      f"fixed size")
        start_ns = data.start if start is None else round(float(start) * 1e9)
        stamps, rows = _last_per_stamp(data.stamps, np.asarray(values, dtype=float))
        if len(stamps) < 2:
            raise BlockParameterError(f"{name}: topic {topic!r} of bag {bag!r} has "
                                      f"{len(stamps)} distinct time stamps; at least 2 are "
                                      f"needed")
        if mode == "linear" and pose == "xytheta" and plays_pose(data.messages[0], field):
            rows[:, 2] = np.unwrap(rows[:, 2])
        times = (stamps - start_ns) / 1e9
        self.msgtype = data.msgtype
        super().__init__(times, rows, time=True, kind=mode)

    def kernels(self) -> Kernels:
        """Interpolate's time kernels over the bag's table (:meth:`Interpolate.kernels`):
        ``interpolate_linear_time_kernel`` or ``interpolate_index_time_kernel``; a BagSource
        runs in both back-ends with the same values."""
        return super().kernels()


def _last_per_stamp(stamps: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct stamps and, for each, the row of its last message."""
    order = np.argsort(stamps, kind="stable")
    s, r = stamps[order], rows[order]
    keep = np.append(s[1:] != s[:-1], True)
    return s[keep], np.array(r[keep])
