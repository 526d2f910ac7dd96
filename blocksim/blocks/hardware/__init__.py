"""Hardware-in-the-loop blocks: an Arbotix servo controller (:class:`ArbotixArm`,
:class:`ArbotixPath`) and CoppeliaSim / V-REP (:class:`VrepArm`, :class:`VrepObjectPose`,
:class:`VrepCamera`, :class:`VrepSimulation`).

Every block opens its device in ``start`` and closes it in ``stop`` on every exit path; can
record its exchanges and replay them offline (``record=`` / ``replay=``); and applies an overrun
policy in real-time runs (:mod:`blocksim.blocks.hardware.base`). The drivers, protocols and
emulators are in :mod:`blocksim.hardware`.
"""

from blocksim.blocks.hardware.arbotix import ArbotixArm, ArbotixPath
from blocksim.blocks.hardware.vrep import VrepArm, VrepCamera, VrepObjectPose, VrepSimulation

__all__ = ["ArbotixArm", "ArbotixPath", "VrepArm", "VrepCamera", "VrepObjectPose", "VrepSimulation"]
