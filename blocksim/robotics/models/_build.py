"""The one place where the model zoo builds a SerialLink and attaches its named poses."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..arm.links import Link
from ..arm.serial_link import SerialLink

DEG = np.pi / 180.0


def build(links: Sequence[Link], *, name: str, manufacturer: str = "", comment: str = "",
          poses: Mapping[str, Sequence[float]], base: np.ndarray | None = None,
          tool: np.ndarray | None = None) -> SerialLink:
    """A new SerialLink from ``links`` with its named poses (joint vectors, rad or m)."""
    poses = {key: np.array(q, dtype=float) for key, q in poses.items()}
    return SerialLink(list(links), name=name, manufacturer=manufacturer, comment=comment,
                      base=base, tool=tool, poses=poses)
