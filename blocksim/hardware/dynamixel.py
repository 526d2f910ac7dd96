"""Dynamixel protocol 1.0 packets, as spoken by an Arbotix controller running *pypose*.

Instruction packet (host -> device)::

    0xFF 0xFF id length instruction param_1 ... param_N checksum

Status packet (device -> host)::

    0xFF 0xFF id length error param_1 ... param_N checksum

``length`` is N + 2, and ``checksum = ~(id + length + instruction_or_error + sum(params)) &
0xFF`` (the bitwise complement of the low byte of the sum). RTB's MATLAB ``Arbotix.receive``
leaves the error byte out of the status checksum; the Dynamixel 1.0 specification (and the
servos) put it in, and so does this module.

Error byte of a status packet (the AX-12 manual): bit 0 input voltage, 1 angle limit, 2
overheating, 3 range, 4 checksum, 5 overload, 6 instruction (:data:`ERROR_BITS`). Bits 1, 3, 4
and 6 (:data:`REFUSED`) mean the instruction was not carried out; bits 0, 2 and 5
(:data:`ALARMS`) report the servo's condition, and the instruction was carried out (a READ's
data is valid).

Ids: 1..253 address one servo (the Arbotix forwards the packet on its bus), ``ID_CONTROLLER``
(253) addresses the Arbotix board itself (the pypose pose and sequence instructions),
``ID_BROADCAST`` (254) every servo (no status packet comes back).

The stream from an Arbotix mixes status packets with diagnostic text (pypose prints lines);
:class:`StreamParser` separates the two.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from blocksim._messages import plain

__all__ = [
    "ADDR_ALARM_LED",
    "ADDR_ALARM_SHUTDOWN",
    "ADDR_CCWLIMIT",
    "ADDR_CWLIMIT",
    "ADDR_DELAYTIME",
    "ADDR_GOAL",
    "ADDR_LED",
    "ADDR_POS",
    "ADDR_REGISTERED",
    "ADDR_RETURN_LEVEL",
    "ADDR_SPEED",
    "ADDR_TEMP",
    "ADDR_TEMP_LIMIT",
    "ADDR_TORQUE",
    "ADDR_VERSION",
    "ALARMS",
    "ERROR_BITS",
    "ERROR_MEANINGS",
    "ERR_ANGLE_LIMIT",
    "ERR_CHECKSUM",
    "ERR_INSTRUCTION",
    "ERR_OVERHEATING",
    "ERR_OVERLOAD",
    "ERR_RANGE",
    "ERR_VOLTAGE",
    "HEADER",
    "ID_BROADCAST",
    "ID_CONTROLLER",
    "INS_ACTION",
    "INS_ARB_LOAD_POSE",
    "INS_ARB_LOAD_SEQ",
    "INS_ARB_LOOP_SEQ",
    "INS_ARB_PLAY_SEQ",
    "INS_ARB_SIZE_POSE",
    "INS_ARB_TEST",
    "INS_PING",
    "INS_READ_DATA",
    "INS_REG_WRITE",
    "INS_RESET",
    "INS_SYNC_WRITE",
    "INS_WRITE_DATA",
    "REFUSED",
    "ChecksumError",
    "Packet",
    "PacketError",
    "StreamParser",
    "checksum",
    "encode",
    "error_meaning",
    "error_names",
    "error_text",
    "hexs",
    "instruction_packet",
    "status_packet",
]

HEADER = b"\xff\xff"

#: servo ids with a special meaning
ID_CONTROLLER = 253  # the Arbotix board itself (pypose extensions)
ID_BROADCAST = 254  # every servo on the bus; never answered

#: instructions (Dynamixel 1.0) and the pypose sketch's extensions (addressed to ID_CONTROLLER)
INS_PING = 1
INS_READ_DATA = 2
INS_WRITE_DATA = 3
INS_REG_WRITE = 4  # a WRITE_DATA held until ACTION (Registered, address 44, reads 1)
INS_ACTION = 5  # carry out the registered instruction
INS_RESET = 6  # the control table back to its factory values
INS_SYNC_WRITE = 0x83  # to ID_BROADCAST: one packet writes the same addresses of many servos
#: the ArbotiX ROS firmware's extension (not pypose's): to ID_CONTROLLER, params
#: ``addr, n, id1, id2, ...``; one status packet from the board with n bytes per servo
INS_SYNC_READ = 0x84
INS_ARB_SIZE_POSE = 7
INS_ARB_LOAD_POSE = 8
INS_ARB_LOAD_SEQ = 9
INS_ARB_PLAY_SEQ = 10
INS_ARB_LOOP_SEQ = 11
INS_ARB_TEST = 25

#: control-table addresses of an AX-12 servo (words are little-endian, 2 bytes)
ADDR_VERSION = 2
ADDR_DELAYTIME = 5
ADDR_CWLIMIT = 6
ADDR_CCWLIMIT = 8
ADDR_TEMP_LIMIT = 11
ADDR_RETURN_LEVEL = 16  # Status Return Level: 0 answers PING only, 1 also READ, 2 all
ADDR_ALARM_LED = 17
ADDR_ALARM_SHUTDOWN = 18
ADDR_TORQUE = 24
ADDR_LED = 25
ADDR_GOAL = 30
ADDR_SPEED = 32
ADDR_POS = 36
ADDR_TEMP = 43
ADDR_REGISTERED = 44

#: the bits of a status packet's error byte (AX-12 manual)
ERR_VOLTAGE = 0x01  # input voltage outside the limits of addresses 12..13
ERR_ANGLE_LIMIT = 0x02  # a goal outside CW..CCW angle limits (addresses 6..9): not written
ERR_OVERHEATING = 0x04  # temperature above the limit of address 11
ERR_RANGE = 0x08  # an instruction out of range (a value, an address): not carried out
ERR_CHECKSUM = 0x10  # the instruction packet's checksum is wrong: not carried out
ERR_OVERLOAD = 0x20  # the load exceeds the torque limit
ERR_INSTRUCTION = 0x40  # an unknown instruction, or ACTION without REG_WRITE
#: bit -> name, in bit order
ERROR_BITS = {
    ERR_VOLTAGE: "input voltage",
    ERR_ANGLE_LIMIT: "angle limit",
    ERR_OVERHEATING: "overheating",
    ERR_RANGE: "range",
    ERR_CHECKSUM: "checksum",
    ERR_OVERLOAD: "overload",
    ERR_INSTRUCTION: "instruction",
}
#: bits meaning the instruction was refused (nothing written, no data)
REFUSED = ERR_ANGLE_LIMIT | ERR_RANGE | ERR_CHECKSUM | ERR_INSTRUCTION
#: bits reporting the servo's condition: the instruction was carried out
ALARMS = ERR_VOLTAGE | ERR_OVERHEATING | ERR_OVERLOAD


class PacketError(ValueError):
    """A malformed packet or an out-of-range field."""


class ChecksumError(PacketError):
    """A status packet whose checksum does not match its bytes."""

    def __init__(self, raw: bytes, expected: int):
        self.raw = bytes(raw)
        self.expected = expected
        super().__init__(
            f"bad checksum in packet {hexs(raw)}: got 0x{raw[-1]:02X}, expected 0x{expected:02X}"
        )


def hexs(data: bytes | Iterable[int]) -> str:
    """``b"\\xff\\x01"`` -> ``"FF 01"`` (how packets are shown in messages and debug output)."""
    return " ".join(f"{b:02X}" for b in bytes(data))


#: what each error bit means, for messages (the AX-12 manual's words, with the addresses)
ERROR_MEANINGS = {
    ERR_VOLTAGE: "its supply voltage is outside its limits (addresses 12..13)",
    ERR_ANGLE_LIMIT: (
        "the goal is outside its CW..CCW angle limits (addresses 6..9); nothing was written"
    ),
    ERR_OVERHEATING: (
        "its temperature is above its limit (address 11); Alarm Shutdown (address 18) "
        "may have cut its torque"
    ),
    ERR_RANGE: (
        "a value outside its item's range, or an address that cannot be written; nothing "
        "was written"
    ),
    ERR_CHECKSUM: "it received a garbled instruction packet, and ignored it",
    ERR_OVERLOAD: "its load exceeds its torque limit",
    ERR_INSTRUCTION: "an instruction it does not know, or ACTION with nothing registered",
}


def error_text(err: int) -> str:
    """``"error 0x04 (overheating)"``: a status packet's error byte, for messages."""
    return f"error 0x{err:02X} ({', '.join(error_names(err)) or 'unknown'})"


def error_meaning(err: int) -> str:
    """What the bits set in ``err`` mean, joined with "; "."""
    return "; ".join(m for bit, m in ERROR_MEANINGS.items() if err & bit)


def error_names(err: int) -> list[str]:
    """The names of the bits set in a status packet's error byte (``"unknown"`` for bit 7)."""
    names = [n for bit, n in ERROR_BITS.items() if err & bit]
    return names + (["unknown"] if err & 0x80 else [])


def checksum(body: bytes | Sequence[int]) -> int:
    """Dynamixel 1.0 checksum of ``body`` = id, length, instruction/error and the params."""
    return (~sum(body)) & 0xFF


def _byte(value: int, what: str) -> int:
    v = int(value)
    if not 0 <= v <= 255 or v != value:
        raise PacketError(f"{what} must be an integer 0..255, got {plain(value)}")
    return v


def encode(ident: int, code: int, params: Sequence[int] = ()) -> bytes:
    """One packet: ``FF FF ident len code params... checksum`` (``code`` is the instruction
    of an instruction packet or the error byte of a status packet).

    Raises
    ------
    PacketError
        A field is not a byte, or there are more than 253 params.
    """
    ps = [_byte(p, "a packet parameter") for p in params]
    if len(ps) > 253:
        raise PacketError(f"at most 253 parameters fit in a packet, got {len(ps)}")
    body = bytes([_byte(ident, "the servo id"), len(ps) + 2, _byte(code, "the instruction"), *ps])
    return HEADER + body + bytes([checksum(body)])


def instruction_packet(ident: int, instruction: int, params: Sequence[int] = ()) -> bytes:
    """An instruction packet (host -> device)."""
    return encode(ident, instruction, params)


def status_packet(ident: int, error: int = 0, params: Sequence[int] = ()) -> bytes:
    """A status packet (device -> host); ``error`` 0 means OK."""
    return encode(ident, error, params)


@dataclass(frozen=True)
class Packet:
    """A decoded packet.

    Attributes
    ----------
    id : int
        Servo id (or 253 = the controller).
    code : int
        Instruction (instruction packet) or error byte (status packet: 0 = OK).
    params : bytes
        The parameters.
    raw : bytes
        The packet's bytes, header to checksum.
    valid : bool
        Whether its checksum is right (always, from a strict :class:`StreamParser`).
    """

    id: int
    code: int
    params: bytes
    raw: bytes = field(repr=False)
    valid: bool = True

    @property
    def error(self) -> int:
        """The error byte of a status packet (0 = OK)."""
        return self.code

    def word(self, k: int = 0) -> int:
        """The little-endian 16-bit word at params[2k:2k+2]."""
        return self.params[2 * k] | (self.params[2 * k + 1] << 8)


class StreamParser:
    """Split a byte stream into packets and diagnostic text, incrementally.

    Feed bytes with :meth:`feed`; it returns the complete packets found so far. Bytes before a
    header are text (collected in :attr:`text`).

    Parameters
    ----------
    strict : bool
        True (default, a host reading status packets): a packet whose checksum is wrong raises
        :class:`ChecksumError` (its bytes are consumed, so parsing can go on after it, with
        ``feed(b"")``). False (a device reading instruction packets, which answers a bad
        checksum with the checksum error bit): such a packet is returned with
        ``valid=False``.
    """

    def __init__(self, strict: bool = True) -> None:
        self.buffer = bytearray()
        self.text = bytearray()
        self.strict = strict

    def feed(self, data: bytes) -> list[Packet]:
        """Add ``data``; return the packets it completes (in order)."""
        self.buffer += data
        out: list[Packet] = []
        buf = self.buffer
        while True:
            k = buf.find(HEADER)
            if k < 0:
                # keep a trailing 0xFF: it may be the first half of a header
                keep = 1 if buf.endswith(b"\xff") else 0
                self.text += buf[: len(buf) - keep]
                del buf[: len(buf) - keep]
                return out
            if k:
                self.text += buf[:k]
                del buf[:k]
            # skip repeated 0xFF (a header may be preceded by a stray 0xFF)
            while len(buf) >= 3 and buf[2] == 0xFF:
                del buf[0]
            if len(buf) < 4:
                return out
            n = buf[3]
            if n < 2:  # no room for code + checksum: not a packet, drop the header
                self.text += buf[:2]
                del buf[:2]
                continue
            end = 4 + n
            if len(buf) < end:
                return out
            raw = bytes(buf[:end])
            del buf[:end]
            body = raw[2:-1]
            cs = checksum(body)
            if raw[-1] != cs and self.strict:
                raise ChecksumError(raw, cs)
            out.append(Packet(raw[2], raw[4], raw[5:-1], raw, raw[-1] == cs))

    def take_text(self) -> str:
        """The diagnostic text collected so far (cleared)."""
        s = self.text.decode("ascii", errors="replace")
        self.text.clear()
        return s

    def reset(self) -> None:
        """Forget buffered bytes and text."""
        self.buffer.clear()
        self.text.clear()
