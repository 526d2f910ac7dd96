"""A run's signals as a ROS 2 bag: :func:`write_bag`.

The bag is a rosbag2 folder (``metadata.yaml`` and one ``.mcap`` file, or ``.db3`` when asked
or when the installed ``rosbags`` has no MCAP writer) written by ``rosbags``; every message is
stamped with the simulation time: its ``header.stamp`` (for types with a header) and its time
in the bag are both ``round(t * 1e9) + stamp_offset_ns`` [ns], so a run from t = 0 starts at
the epoch (1970-01-01) unless an offset is given.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from blocksim.bags.messages import (
    ARRAY,
    JOINTS,
    ODOMETRY,
    POSE,
    BagError,
    encode_series,
    is_homogeneous,
    msgtype_of,
    typestore,
)

#: block types whose output port ``pose`` (x, y, theta) is a vehicle's: written as Odometry
VEHICLES = frozenset({"Bicycle", "Unicycle", "DiffSteer", "Vehicle"})
#: the package of the arm blocks: their output ``q`` (n,) is written as JointState
ARM_PACKAGE = "blocksim.blocks.arm"

_TOKEN = re.compile(r"[^A-Za-z0-9_]")


def topic_name(signal: str) -> str:
    """The default topic of a signal: ``"veh.pose"`` -> ``"/veh/pose"``, ``"sub/pid.u"`` ->
    ``"/sub/pid/u"`` (characters ROS does not allow become ``_``; a token starting with a
    digit gets a leading ``_``)."""
    tokens = [_TOKEN.sub("_", t) for t in re.split(r"[./]", signal) if t]
    return "/" + "/".join(f"_{t}" if t[0].isdigit() else t for t in tokens)


def _block_types(blocks: Any) -> dict[str, tuple[str, str]]:
    """``{"path": (class name, module)}`` of a mapping path -> block, or of a Diagram (its
    ``blocks``, subsystems' blocks as ``"sub/inner"``)."""
    out: dict[str, tuple[str, str]] = {}

    def walk(mapping: Mapping[str, Any], prefix: str) -> None:
        for name, block in mapping.items():
            path = f"{prefix}{name}"
            out[path] = (type(block).__name__, type(block).__module__)
            inner = getattr(block, "diagram", None)
            if inner is not None and isinstance(getattr(inner, "blocks", None), Mapping):
                walk(inner.blocks, f"{path}/")

    if blocks is None:
        return out
    walk(blocks.blocks if isinstance(getattr(blocks, "blocks", None), Mapping) else blocks, "")
    return out


def default_kind(signal: str, values: np.ndarray, types: Mapping[str, tuple[str, str]]) -> str:
    """The message type a signal is written as when ``topics`` does not say: Odometry for a
    vehicle block's ``pose``, JointState for an arm block's ``q``, PoseStamped for (4, 4)
    homogeneous transforms, Float64MultiArray otherwise."""
    block, _, port = signal.rpartition(".")
    cls, module = types.get(block, ("", ""))
    if cls in VEHICLES and port == "pose" and values.shape[1:] == (3,):
        return ODOMETRY
    if module.startswith(ARM_PACKAGE) and port == "q" and values.ndim == 2:
        return JOINTS
    if is_homogeneous(values):
        return POSE
    return ARRAY


def _plan(result: Any, topics: Mapping[str, Any] | None,
          types: Mapping[str, tuple[str, str]]) -> list[dict[str, Any]]:
    """One entry per topic: signal, topic, ROS type, values, velocity signal."""
    wanted = dict(topics) if topics is not None else dict.fromkeys(result.signals)
    entries = []
    for signal, spec in wanted.items():
        try:
            values = np.asarray(result[signal], dtype=float)
        except KeyError as exc:
            raise BagError(str(exc.args[0])) from None
        if spec is None or isinstance(spec, str):
            spec = {"topic": spec}
        if not isinstance(spec, Mapping) or set(spec) - {"topic", "type", "velocity"}:
            raise BagError(f"topics[{signal!r}]: give a topic name or a dict with 'topic', "
                           f"'type' and (joints) 'velocity', got {spec!r}")
        kind = msgtype_of(spec["type"]) if spec.get("type") else \
            default_kind(signal, values, types)
        velocity = spec.get("velocity")
        if velocity is None and kind == JOINTS and topics is None:
            sibling = signal.rpartition(".")[0] + ".qd"
            velocity = sibling if sibling in result.signals else None
        topic = spec.get("topic") or topic_name(signal)
        if not re.fullmatch(r"(/[A-Za-z_][A-Za-z0-9_]*)+", topic):
            raise BagError(f"topics[{signal!r}]: {topic!r} is not a ROS 2 topic name "
                           f"(/name/name..., letters, digits and _, no leading digit)")
        entries.append({"signal": signal, "topic": topic, "type": kind, "values": values,
                        "velocity": None if velocity is None else
                        np.asarray(result[velocity], dtype=float)})
    seen: dict[str, str] = {}
    for e in entries:
        if e["topic"] in seen:
            raise BagError(f"signals {seen[e['topic']]!r} and {e['signal']!r} both go to topic "
                           f"{e['topic']!r}; name another topic for one of them in topics=")
        seen[e["topic"]] = e["signal"]
    return entries


def write_bag(result: Any, path: str | os.PathLike[str],
              topics: Mapping[str, Any] | None = None, blocks: Any = None, *,
              frame_id: str = "world", stamp_offset_ns: int = 0,
              storage: str = "mcap") -> Path:
    """Write the recorded signals of ``result`` as a ROS 2 bag.

    Parameters
    ----------
    result : SimResult
        The run (``t`` [s] and its signals).
    path : path
        The bag folder to create; it must not exist (its parent must). Written in a temporary
        folder beside it and renamed into place, so a failed write leaves nothing.
    topics : mapping, optional
        Which signals and how: ``{"veh.pose": "/odom"}`` or ``{"veh.pose": {"topic": "/odom",
        "type": "odometry"}}`` (``type`` a short kind or a ROS type of
        :data:`blocksim.bags.messages.KINDS`; ``"velocity": "arm.qd"`` for joint states; a
        topic of None is the default name). Default: every recorded signal, on
        :func:`topic_name`, as :func:`default_kind` decides.
    blocks : Diagram or mapping, optional
        The diagram (or ``{"block path": block}``) the run came from: its block types decide
        Odometry and JointState (without it only shapes are used).
    frame_id : str
        ``header.frame_id`` of stamped messages (the world frame).
    stamp_offset_ns : int
        Added to every stamp [ns] (e.g. the epoch time of t = 0).
    storage : {"mcap", "sqlite3"}
        Storage of the bag (``"mcap"`` falls back to sqlite3 when the installed ``rosbags``
        cannot write MCAP).

    Returns
    -------
    Path
        The bag folder.

    Raises
    ------
    BagError
        An unknown signal, type or topic name, a signal whose shape does not fit its type, an
        existing ``path``.
    """
    try:
        from rosbags.rosbag2 import StoragePlugin, Writer
    except ImportError:  # pragma: no cover - the extra is part of the test install
        raise BagError("ROS 2 bags need the package 'rosbags': pip install "
                       "'blocksim[ros]'") from None
    target = Path(path)
    if target.exists() or target.is_symlink():
        raise BagError(f"bag folder {str(target)!r} exists; name a new folder")
    if not target.parent.is_dir():
        raise BagError(f"bag folder {str(target)!r}: its parent folder does not exist")
    if storage not in ("mcap", "sqlite3"):
        raise BagError(f"storage must be 'mcap' or 'sqlite3', got {storage!r}")
    plugin = getattr(StoragePlugin, "MCAP", None) if storage == "mcap" else None
    plugin = plugin or StoragePlugin.SQLITE3
    ts = typestore()
    entries = _plan(result, topics, _block_types(blocks))
    t = np.asarray(result.t, dtype=float)
    stamps = np.rint(t * 1e9).astype(np.int64) + int(stamp_offset_ns)
    for e in entries:
        e["messages"] = encode_series(ts, e["type"], stamps, e["values"], what=e["signal"],
                                      frame_id=frame_id, velocity=e["velocity"])
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        inner = work / target.name
        with Writer(inner, version=9, storage_plugin=plugin) as writer:
            conns = [writer.add_connection(e["topic"], e["type"], typestore=ts)
                     for e in entries]
            for k in range(len(t)):
                for conn, e in zip(conns, entries):
                    writer.write(conn, int(stamps[k]),
                                 ts.serialize_cdr(e["messages"][k], e["type"]))
        os.rename(inner, target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target
