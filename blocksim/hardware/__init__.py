"""Device drivers, protocol codecs and emulators for hardware in the loop.

* :mod:`~blocksim.hardware.dynamixel` -- Dynamixel 1.0 packets (and the pypose extensions);
* :mod:`~blocksim.hardware.arbotix` -- the Arbotix servo-controller driver over pyserial;
* :mod:`~blocksim.hardware.arbotix_emulator` -- an emulated Arbotix on a pseudo-terminal;
* :mod:`~blocksim.hardware.robot_arm` -- RTB's ``RobotArm``: a serial-link model driving a
  :class:`~blocksim.hardware.machine.Machine`;
* :mod:`~blocksim.hardware.coppeliasim` -- CoppeliaSim (V-REP) through its ZMQ remote API, its
  object mirrors (:mod:`~blocksim.hardware.coppeliasim_mirrors`: arm, object, camera, Hokuyo,
  youBot), and :mod:`~blocksim.hardware.coppeliasim_emulator`, an emulated server with a
  kinematic scene and the scenes and models it can load
  (:mod:`~blocksim.hardware.coppeliasim_models`);
* :mod:`~blocksim.hardware.recording` -- recording a session and replaying it offline.

Nothing here imports blocks or the engine; the blocks in :mod:`blocksim.blocks.hardware` adapt
these drivers to diagrams.
"""

from blocksim.hardware.arbotix import Arbotix, SerialTransport
from blocksim.hardware.arbotix_emulator import ArbotixEmulator
from blocksim.hardware.errors import DeviceTimeout, HardwareError, ReplayError
from blocksim.hardware.machine import Machine
from blocksim.hardware.recording import SessionLog

__all__ = [
    "Arbotix",
    "ArbotixEmulator",
    "DeviceTimeout",
    "HardwareError",
    "Machine",
    "ReplayError",
    "SerialTransport",
    "SessionLog",
]
