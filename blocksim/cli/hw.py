"""``blocksim hw``: hardware-in-the-loop helpers.

* ``blocksim hw arbotix-emulator`` -- serve an emulated Arbotix on a pseudo-terminal and print
  its device path (give it as a block's ``port``, or to ``Arbotix(port)``);
* ``blocksim hw vrep-emulator`` -- serve an emulated CoppeliaSim ZMQ remote-API server and print
  its address (``tcp://host:port``);
* ``blocksim hw arbotix-info PORT`` -- read the angles and temperatures of an Arbotix's servos.

The emulators run until Ctrl-C or SIGTERM (or ``--duration`` seconds), then close their device
or socket.
"""

from __future__ import annotations

import argparse
import gc
import signal
import time
from typing import Any

from blocksim.cli.common import FAILED, OK


def add_parser(sub: Any) -> None:
    """Register the ``hw`` command and its verbs."""
    p = sub.add_parser(
        "hw",
        help="hardware in the loop: emulators and device checks",
        description="Emulated devices for hardware-in-the-loop diagrams, and a device check.",
    )
    verbs = p.add_subparsers(title="verbs", dest="verb", required=True)

    a = verbs.add_parser(
        "arbotix-emulator",
        help="serve an emulated Arbotix on a pty",
        description="Serve an emulated Arbotix controller (pypose) with N AX-12 "
        "servos on a pseudo-terminal; print its device path.",
    )
    a.add_argument("--nservos", type=int, default=5, help="number of servos (default 5)")
    a.add_argument(
        "--packet-time",
        type=float,
        default=None,
        metavar="S",
        help="emulated seconds per packet (deterministic); default: wall clock",
    )
    a.add_argument(
        "--duration",
        type=float,
        default=None,
        metavar="S",
        help="stop after S seconds (default: until Ctrl-C)",
    )
    a.set_defaults(command=_arbotix_emulator)

    v = verbs.add_parser(
        "vrep-emulator",
        help="serve an emulated CoppeliaSim (V-REP)",
        description="Serve an emulated CoppeliaSim ZMQ remote-API server with a "
        "kinematic scene (an arm, shapes, a vision sensor); print its address.",
    )
    v.add_argument("--host", default="127.0.0.1", help="interface (default 127.0.0.1)")
    v.add_argument(
        "--port",
        type=int,
        default=23000,
        help="TCP port (default 23000, CoppeliaSim's; 0 picks a free one)",
    )
    v.add_argument("--arm", default="IRB140", help="name of the scene's arm (default IRB140)")
    v.add_argument("--njoints", type=int, default=6, help="its number of joints (default 6)")
    v.add_argument("--dt", type=float, default=0.05, help="simulation time step, s (0.05)")
    v.add_argument(
        "--duration",
        type=float,
        default=None,
        metavar="S",
        help="stop after S seconds (default: until Ctrl-C)",
    )
    v.set_defaults(command=_vrep_emulator)

    i = verbs.add_parser(
        "arbotix-info",
        help="read the servos of an Arbotix",
        description="Read the angle (rad) and temperature (deg C) of servos "
        "1..N of an Arbotix on a serial port.",
    )
    i.add_argument("port", help="serial device, e.g. /dev/ttyUSB0")
    i.add_argument("--nservos", type=int, default=5, help="number of servos (default 5)")
    i.add_argument("--baud", type=int, default=38400, help="baud rate (default 38400)")
    i.add_argument("--timeout", type=float, default=0.2, help="per-packet timeout, s (0.2)")
    i.set_defaults(command=_arbotix_info)


def _serve(device: Any, what: str, address: str, duration: float | None) -> int:
    """Print ``address``, wait for Ctrl-C, SIGTERM or ``duration``, close ``device``.

    Ctrl-C and SIGTERM only set a flag the main thread polls every 50 ms. A handler that
    took a lock, as ``threading.Event.set`` does, could deadlock against the interrupted main
    thread holding it; a ``KeyboardInterrupt`` raised wherever the main thread happens to be
    (before the wait began, say) could skip ``device.close()`` and leave the server thread
    and its socket behind. The handlers are in place before the address is printed, so a caller that
    signals as soon as it has read the address is handled too.

    The start-up objects (numpy, the emulator's modules) are frozen out of the garbage
    collector first (:func:`gc.freeze`): a full collection over them paused the server for
    55-110 ms now and then, longer than a 100 Hz loop's period."""
    stop = [False]

    def _stop(signum: int, frame: Any) -> None:
        stop[0] = True

    previous = {s: signal.signal(s, _stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        gc.collect()
        gc.freeze()
        print(address, flush=True)
        deadline = None if duration is None else time.monotonic() + duration
        while not stop[0] and (deadline is None or time.monotonic() < deadline):
            time.sleep(0.05)
    finally:
        device.close()
        for s, handler in previous.items():
            signal.signal(s, handler)
    print(f"{what} closed", flush=True)
    return OK


def _arbotix_emulator(args: argparse.Namespace) -> int:
    from blocksim.hardware.arbotix_emulator import ArbotixEmulator

    try:
        emu = ArbotixEmulator(args.nservos, packet_time=args.packet_time).start()
    except (ValueError, OSError) as exc:
        print(f"blocksim hw arbotix-emulator: {exc}", flush=True)
        return FAILED
    return _serve(emu, "arbotix emulator", emu.path, args.duration)


def _vrep_emulator(args: argparse.Namespace) -> int:
    from blocksim.hardware.coppeliasim_emulator import CoppeliaSimEmulator

    try:
        emu = CoppeliaSimEmulator(args.port, args.host, args.arm, args.njoints, args.dt).start()
    except (RuntimeError, ValueError) as exc:
        print(f"blocksim hw vrep-emulator: {exc}", flush=True)
        return FAILED
    return _serve(emu, "vrep emulator", emu.address, args.duration)


def _arbotix_info(args: argparse.Namespace) -> int:
    from blocksim.hardware import Arbotix, HardwareError

    try:
        with Arbotix(args.port, nservos=args.nservos, baud=args.baud, timeout=args.timeout) as arb:
            q, temp = arb.getpos(), arb.gettemp()
    except (HardwareError, ValueError) as exc:
        print(f"blocksim hw arbotix-info: {exc}")
        return FAILED
    print("servo  angle [rad]  temperature [C]")
    for k in range(args.nservos):
        print(f"{k + 1:5d}  {q[k]:11.4f}  {temp[k]:15.0f}")
    return OK
