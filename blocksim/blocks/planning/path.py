"""PathCarrot: a planner's path as the moving target of a pure-pursuit driver."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numba import njit

from blocksim.engine.block import Block, Port
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError
from blocksim.robotics.planning._messages import plain
from blocksim.robotics.planning.follow import lookahead_point, path_xy


@njit(cache=True, error_model="numpy")
def carrot_output(t, x, pose, params):
    path = params[0].reshape(-1, 2)
    return lookahead_point(path, pose[0], pose[1], params[1])


def check_lookahead(owner: str, lookahead: Any) -> float:
    try:
        v = float(lookahead)
    except (TypeError, ValueError):
        v = float("nan")
    if not (np.isfinite(v) and v > 0):
        raise BlockParameterError(
            f"{owner}: parameter 'lookahead' must be a distance > 0 [m], got {plain(lookahead)}"
        )
    return v


class PathCarrot(Block):
    """Path source for pure pursuit: the point ``lookahead`` metres along a planned path beyond
    the vehicle's nearest point on it, the path's end once that is within reach.

    Feed it any planner's output (an (N, 2) grid path or an (N, 3) pose path, e.g.
    ``Lattice.densify()``) and connect ``target`` to a pure-pursuit driver whose following
    distance is 0: the vehicle cruises at ``Kv * lookahead`` and stops at the path's end.

    Parameters
    ----------
    path : array_like (N, 2) or (N, 3)
        Points [m] (a third column, heading, is ignored).
    lookahead : float
        Look-ahead distance along the path [m] (default 0.5).

    Inputs
    ------
    pose : ndarray (3,)
        Vehicle pose (x, y, theta) [m, m, rad].

    Outputs
    -------
    target : ndarray (2,)
        The look-ahead point [m].
    """

    inputs = (Port("pose", shape=(3,), doc="vehicle pose (x, y, theta)"),)
    outputs = (Port("target", shape=(2,), doc="look-ahead point on the path [m]"),)

    def __init__(self, path: Any = ((0.0, 0.0), (1.0, 0.0)), lookahead: float = 0.5) -> None:
        super().__init__()
        o = type(self).__name__
        try:
            self._xy = path_xy(path)
        except (TypeError, ValueError) as e:
            raise BlockParameterError(f"{o}: parameter 'path': {e}") from None
        self.path = np.array(path, dtype=float)
        self.lookahead = check_lookahead(o, lookahead)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        pose = u[0]
        return (lookahead_point(self._xy, float(pose[0]), float(pose[1]), self.lookahead),)

    def kernels(self) -> Kernels:
        """Params ``(path (N, 2) flattened, lookahead)``."""
        return Kernels(params=(self._xy.reshape(-1).copy(), self.lookahead), output=carrot_output)
