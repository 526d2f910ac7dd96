"""pyserial as the byte transport of the Arbotix driver."""

from __future__ import annotations

from blocksim.hardware.errors import HardwareError

__all__ = ["POLL", "SerialTransport"]

#: the longest wait of one read [s]; the driver counts its timeouts in such reads
POLL = 0.01
WRITE_TIMEOUT = 3.0  # [s] longest a write may wait for the device to read


class SerialTransport:
    """pyserial as a transport: ``write``, ``read(n)`` (waits up to ``poll`` s), ``drain``.

    Parameters
    ----------
    port : str
        Device path (``/dev/ttyUSB0``, ``/dev/pts/3``, ...).
    baud : int
        Baud rate.
    poll : float
        Longest wait of one read [s].

    The port is opened exclusively (a second open of the same device fails until this one is
    closed).
    """

    def __init__(self, port: str, baud: int = 38400, poll: float = POLL):
        import serial  # pyserial

        self.name = port
        try:
            # a write blocks only while the device does not read (its buffer full): 3 s is
            # bounded, yet spares a busy machine's scheduler (1 s failed a CI run under load)
            self.serial = serial.Serial(
                port, baudrate=baud, timeout=poll, write_timeout=WRITE_TIMEOUT, exclusive=True
            )
        except (serial.SerialException, OSError, ValueError) as exc:
            raise HardwareError(port, f"cannot open the serial port: {exc}") from None

    def write(self, data: bytes) -> None:
        self.serial.write(data)

    def read(self, n: int) -> bytes:
        return bytes(self.serial.read(n))

    def drain(self) -> bytes:
        n = self.serial.in_waiting
        return bytes(self.serial.read(n)) if n else b""

    def close(self) -> None:
        self.serial.close()

    @property
    def is_open(self) -> bool:
        return bool(self.serial.is_open)
