"""``blocksim hw``: hardware-in-the-loop helpers.

* ``blocksim hw arbotix-emulator`` -- serve an emulated Arbotix on a pseudo-terminal and print
  its device path (give it as a block's ``port``, or to ``Arbotix(port)``);
* ``blocksim hw vrep-emulator`` -- serve an emulated CoppeliaSim ZMQ remote-API server and print
  its address (``tcp://host:port``);
* ``blocksim hw arbotix-info PORT`` -- read the angles and temperatures of an Arbotix's servos.

The emulators run until Ctrl-C or SIGTERM (or ``--duration`` seconds), then close their device
or socket. Every option is checked before anything starts: a value out of its range ends the
command with one line on stderr naming the option and what it takes, and status 2.
"""

from __future__ import annotations

import argparse
import gc
import math
import re
import signal
import time
from typing import Any

from blocksim.cli.common import BAD_INPUT, FAILED, OK, CliError

#: ranges of the options (inclusive)
PORT, NJOINTS, NSERVOS = (0, 65535), (1, 64), (1, 252)
DT, PACKET_TIME, DURATION, TIMEOUT = (1e-6, 3600.0), (1e-6, 10.0), (1e-3, 1e9), (1e-3, 60.0)
BAUD = (50, 4_000_000)
_WHOLE = re.compile(r"[+-]?[0-9]{1,12}")
_ARM = re.compile(r"[A-Za-z0-9_-]{1,64}")
_HOST = re.compile(r"[A-Za-z0-9_.:*\[\]-]{1,253}")


def _refuse(verb: str, option: str, expected: str, text: str) -> CliError:
    shown = "".join(c if c.isprintable() else "?" for c in text[:40])
    shown += "..." if len(text) > 40 else ""
    return CliError(BAD_INPUT, [f"blocksim hw {verb}: {option} must be {expected}, got {shown!r}"])


def _whole(verb: str, option: str, text: str, bounds: tuple[int, int], note: str = "") -> int:
    """``text`` as a whole number within ``bounds``, else a :class:`CliError`."""
    lo, hi = bounds
    if _WHOLE.fullmatch(text.strip()) and lo <= int(text) <= hi:
        return int(text)
    raise _refuse(verb, option, f"a whole number {lo}..{hi}{note}", text)


def _seconds(verb: str, option: str, text: str | None, bounds: tuple[float, float]) -> float | None:
    """``text`` as a finite number of seconds within ``bounds`` (None stays None)."""
    if text is None:
        return None
    lo, hi = bounds
    try:
        value = float(text) if len(text) <= 40 else math.nan
    except ValueError:
        value = math.nan
    if math.isfinite(value) and lo <= value <= hi:
        return value
    raise _refuse(verb, option, f"a number of seconds in [{lo:g}, {hi:g}]", text)


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
    a.add_argument("--nservos", default="5", help="number of servos, 1..252 (default 5)")
    a.add_argument(
        "--packet-time",
        default=None,
        metavar="S",
        help="emulated seconds per packet (deterministic); default: wall clock",
    )
    a.add_argument(
        "--duration",
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
        default="23000",
        help="TCP port (default 23000, CoppeliaSim's; 0 picks a free one)",
    )
    v.add_argument("--arm", default="IRB140", help="name of the scene's arm (default IRB140)")
    v.add_argument("--njoints", default="6", help="its number of joints, 1..64 (default 6)")
    v.add_argument("--dt", default="0.05", help="simulation time step, s (0.05)")
    v.add_argument(
        "--duration",
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
    i.add_argument("--nservos", default="5", help="number of servos, 1..252 (default 5)")
    i.add_argument("--baud", default="38400", help="baud rate (default 38400)")
    i.add_argument("--timeout", default="0.2", help="per-packet timeout, s (0.2)")
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

    verb = "arbotix-emulator"
    nservos = _whole(verb, "--nservos", args.nservos, NSERVOS)
    packet_time = _seconds(verb, "--packet-time", args.packet_time, PACKET_TIME)
    duration = _seconds(verb, "--duration", args.duration, DURATION)
    try:
        emu = ArbotixEmulator(nservos, packet_time=packet_time).start()
    except (ValueError, OSError) as exc:
        print(f"blocksim hw arbotix-emulator: {exc}", flush=True)
        return FAILED
    return _serve(emu, "arbotix emulator", emu.path, duration)


def _vrep_emulator(args: argparse.Namespace) -> int:
    from blocksim.hardware.coppeliasim_emulator import CoppeliaSimEmulator

    verb = "vrep-emulator"
    if not _HOST.fullmatch(args.host):
        raise _refuse(verb, "--host", "an interface name or address", args.host)
    port = _whole(verb, "--port", args.port, PORT, " (0 picks a free one)")
    if not _ARM.fullmatch(args.arm):
        raise _refuse(verb, "--arm", "a name of 1 to 64 letters, digits, '_' or '-'", args.arm)
    njoints = _whole(verb, "--njoints", args.njoints, NJOINTS)
    dt = _seconds(verb, "--dt", args.dt, DT)
    duration = _seconds(verb, "--duration", args.duration, DURATION)
    try:
        emu = CoppeliaSimEmulator(port, args.host, args.arm, njoints, dt).start()
    except (RuntimeError, ValueError) as exc:
        print(f"blocksim hw vrep-emulator: {exc}", flush=True)
        return FAILED
    return _serve(emu, "vrep emulator", emu.address, duration)


def _arbotix_info(args: argparse.Namespace) -> int:
    from blocksim.hardware import Arbotix, HardwareError

    verb = "arbotix-info"
    nservos = _whole(verb, "--nservos", args.nservos, NSERVOS)
    baud = _whole(verb, "--baud", args.baud, BAUD)
    timeout = _seconds(verb, "--timeout", args.timeout, TIMEOUT)
    try:
        with Arbotix(args.port, nservos=nservos, baud=baud, timeout=timeout) as arb:
            q, temp = arb.getpos(), arb.gettemp()
    except (HardwareError, ValueError) as exc:
        print(f"blocksim hw arbotix-info: {exc}")
        return FAILED
    print("servo  angle [rad]  temperature [C]")
    for k in range(nservos):
        print(f"{k + 1:5d}  {q[k]:11.4f}  {temp[k]:15.0f}")
    return OK
