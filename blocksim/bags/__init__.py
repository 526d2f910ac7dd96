"""ROS 2 bags in and out: a run's signals written as a rosbag2 (:func:`write_bag`, also
``SimResult.to_rosbag`` and ``blocksim run FILE --bag DIR``) and one topic of a bag read back
(:func:`read_topic`, what the :class:`~blocksim.blocks.lookup.bag.BagSource` block plays).

Uses the pure-Python ``rosbags`` package (extra ``blocksim[ros]``; no ROS install needed),
imported only when a bag is written or read. The message types and how signals map to them
are documented in :mod:`blocksim.bags.messages` and ``docs/interop.md``.

Layering: this package imports nothing from blocksim but :mod:`blocksim.confine`, so the engine
(``SimResult.to_rosbag``), the blocks (``BagSource``) and the command line may all use it.
"""

from blocksim.bags.messages import KINDS, BagError, decode
from blocksim.bags.read import MAX_BAG_BYTES, Topic, read_topic
from blocksim.bags.write import default_kind, topic_name, write_bag

__all__ = ["KINDS", "MAX_BAG_BYTES", "BagError", "Topic", "decode", "default_kind",
           "read_topic", "topic_name", "write_bag"]
