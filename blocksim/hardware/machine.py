"""The abstract interface of a physical robot controller (RTB's ``Machine``)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

__all__ = ["Machine"]


class Machine(ABC):
    """A connection to a robot's servo controller: positions in, positions out.

    Attributes
    ----------
    nservos : int
        Number of servos (the last one is the gripper when a :class:`RobotArm` drives it).
    debug : int
        Debug level: 0 silent, >= 1 prints every packet sent and received.
    """

    nservos: int
    debug: int = 0

    @abstractmethod
    def connect(self) -> None:
        """Open the connection."""

    @abstractmethod
    def disconnect(self) -> None:
        """Close the connection (idempotent)."""

    @abstractmethod
    def getpos(self, id: int | None = None) -> Any:
        """Joint angle of servo ``id`` [rad], or of every servo (shape (nservos,))."""

    @abstractmethod
    def setpos(self, pos: Any, speed: Any = None, *, id: int | None = None) -> None:
        """Command servo ``id`` (or every servo) to ``pos`` [rad]."""

    @abstractmethod
    def setpath(self, jt: np.ndarray, dt: float = 0.2) -> None:
        """Play the path ``jt`` (P, nservos) [rad], ``dt`` seconds per point."""

    def __enter__(self) -> Machine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.disconnect()
