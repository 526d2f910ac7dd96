"""Errors of the hardware drivers: each names the device and the last exchange with it."""

from __future__ import annotations

__all__ = ["DeviceTimeout", "HardwareError", "ReplayError"]


class HardwareError(RuntimeError):
    """A device failed: unreachable, silent, garbled, or answered with an error.

    Attributes
    ----------
    device : str
        The device (serial port path, ``tcp://host:port``, or a replay file).
    last_exchange : str
        What was last sent and received, for the message.
    """

    def __init__(self, device: str, problem: str, last_exchange: str = ""):
        self.device = device
        self.problem = problem
        self.last_exchange = last_exchange
        msg = f"{device}: {problem}"
        if last_exchange:
            msg += f"; last exchange: {last_exchange}"
        super().__init__(msg)


class DeviceTimeout(HardwareError):
    """No (valid) answer within the timeout, after every retry."""


class ReplayError(HardwareError):
    """A replayed session diverged from its recording (the diagram asked something else)."""
