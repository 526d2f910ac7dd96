"""One topic of a ROS 2 bag, read bounded: :func:`read_topic`.

A bag named by a diagram file may come from a stranger. It is read like every data file
(:func:`blocksim.confine.read_regular`): its folder's regular files (``metadata.yaml`` and the
storage files, ``.mcap`` or ``.db3``; a symbolic link only when it stays inside the folder) are
read, at most :data:`MAX_BAG_BYTES` together, into a private temporary folder, and ``rosbags``
reads that copy (so no link, pipe or device of the original is ever opened by it). Messages are
decoded by ``rosbags``' store of the standard ROS 2 types only: a type the store does not know
is refused by name, and nothing a bag contains is ever registered or run.
"""

from __future__ import annotations

import difflib
import os
import sqlite3
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from blocksim.bags.messages import BagError, typestore
from blocksim.confine import FileTooLarge, NotRegularFile, read_regular

#: most bytes of a bag's files together (set ``blocksim.bags.read.MAX_BAG_BYTES`` in Python
#: for a larger bag)
MAX_BAG_BYTES = 512 * 2**20
#: most messages read from one topic
MAX_MESSAGES = 2_000_000


@dataclass(frozen=True)
class Topic:
    """The messages of one topic.

    Attributes
    ----------
    name : str
        The topic.
    msgtype : str
        Its ROS message type.
    stamps : ndarray of int64, shape (N,)
        Each message's time [ns]: its ``header.stamp`` (``clock="header"``, for types with a
        header) or its time in the bag (``clock="log"``, and types without a header).
    messages : list
        The deserialised messages, in bag order.
    start : int
        The bag's start time [ns] (its earliest message).
    """

    name: str
    msgtype: str
    stamps: np.ndarray
    messages: list[Any]
    start: int


def _copy_bag(folder: Path, into: Path, limit: int) -> None:
    """Copy the regular files of the bag ``folder`` into ``into``, at most ``limit`` bytes."""
    real = folder.resolve()
    left = limit
    for entry in sorted(os.listdir(real)):
        src = real / entry
        st = os.lstat(src)
        if stat.S_ISLNK(st.st_mode):
            dest = src.resolve()
            if not dest.is_relative_to(real):
                raise BagError(f"bag {str(folder)!r}: {entry!r} is a link out of the bag's "
                               f"folder")
            src = dest
        elif not stat.S_ISREG(st.st_mode):
            continue  # folders, pipes, devices: not part of a bag, never opened
        try:
            data = read_regular(src, left)
        except FileTooLarge:
            raise BagError(f"bag {str(folder)!r} has more than MAX_BAG_BYTES = {limit} bytes "
                           f"(blocksim.bags.read.MAX_BAG_BYTES)") from None
        except NotRegularFile:
            continue
        left -= len(data)
        (into / entry).write_bytes(data)


def read_topic(bag: str | os.PathLike[str], topic: str, clock: str = "header",
               limit: int | None = None) -> Topic:
    """Read the messages of ``topic`` from the rosbag2 folder ``bag`` (MCAP or sqlite3).

    Parameters
    ----------
    bag : path
        The bag folder (with its ``metadata.yaml``), already confined by the caller
        (:func:`blocksim.confine.input_path`).
    topic : str
        The topic, e.g. ``"/odom"``.
    clock : {"header", "log"}
        Which time stamps the messages: the message's ``header.stamp`` (messages without a
        header use their time in the bag) or always their time in the bag.
    limit : int, optional
        Most bytes of the bag's files (default :data:`MAX_BAG_BYTES`).

    Raises
    ------
    BagError
        Not a bag, no such topic (the bag's topics are listed), a message type the standard
        store does not know, a bag over the limits.
    """
    if clock not in ("header", "log"):
        raise BagError(f"clock must be 'header' or 'log', got {clock!r}")
    from rosbags.rosbag2 import Reader
    from rosbags.rosbag2.errors import ReaderError

    folder = Path(bag)
    if not folder.exists():
        raise BagError(f"bag {str(folder)!r} does not exist")
    if not folder.is_dir():
        raise BagError(f"bag {str(folder)!r} is not a folder: name the rosbag2 folder (the one "
                       f"with metadata.yaml)")
    ts = typestore()
    with tempfile.TemporaryDirectory(prefix="blocksim-bag-") as tmp:
        copy = Path(tmp) / "bag"
        copy.mkdir()
        _copy_bag(folder, copy, MAX_BAG_BYTES if limit is None else limit)
        if not (copy / "metadata.yaml").is_file():
            raise BagError(f"bag {str(folder)!r} has no metadata.yaml: not a rosbag2 folder")
        try:
            with Reader(copy) as reader:
                conns = [c for c in reader.connections if c.topic == topic]
                if not conns:
                    names = sorted({c.topic for c in reader.connections})
                    close = difflib.get_close_matches(topic, names, n=1)
                    hint = f" (did you mean {close[0]!r}?)" if close else ""
                    raise BagError(f"bag {str(folder)!r} has no topic {topic!r}{hint}; "
                                   f"its topics: "
                                   f"{', '.join(names) or '(none)'}")
                types = {c.msgtype for c in conns}
                if len(types) > 1:
                    raise BagError(f"bag {str(folder)!r}: topic {topic!r} has several types "
                                   f"{sorted(types)}")
                msgtype = types.pop()
                if msgtype not in ts.types:
                    raise BagError(f"bag {str(folder)!r}: topic {topic!r} has type "
                                   f"{msgtype!r}, not a standard ROS 2 message type; only "
                                   f"those are decoded")
                stamps, messages = [], []
                for _, logtime, raw in reader.messages(connections=conns):
                    if len(messages) >= MAX_MESSAGES:
                        raise BagError(f"bag {str(folder)!r}: topic {topic!r} has more than "
                                       f"MAX_MESSAGES = {MAX_MESSAGES} messages")
                    try:
                        msg = ts.deserialize_cdr(raw, msgtype)
                    except Exception as exc:  # untrusted bytes: any decoding failure
                        raise BagError(f"bag {str(folder)!r}: message {len(messages)} of "
                                       f"topic {topic!r} is not a valid {msgtype} "
                                       f"({type(exc).__name__})") from None
                    header = getattr(msg, "header", None)
                    if clock == "header" and header is not None:
                        stamps.append(int(header.stamp.sec) * 1_000_000_000
                                      + int(header.stamp.nanosec))
                    else:
                        stamps.append(int(logtime))
                    messages.append(msg)
                start = int(reader.start_time) if reader.message_count else 0
        except (ReaderError, sqlite3.Error) as exc:
            raise BagError(f"bag {str(folder)!r} cannot be read: {exc}") from None
    return Topic(topic, msgtype, np.asarray(stamps, dtype=np.int64), messages, start)
