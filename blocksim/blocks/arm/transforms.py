"""Transform blocks: poses (4, 4) to and from vectors, products, inverses, differences.

The blocks of the Robotics Toolbox ``roblocks`` library's *Transform*, *Transform Conversion*
and *Kinematics* groups (Robotics Toolbox 9.10) and bdsim's spatial blocks, on plain
arrays: a pose is a (4, 4) float64 homogeneous transform ``[[R, p], [0, 0, 0, 1]]`` (R (3, 3)
rotation, p (3,) translation [m]), angles are in radians, vectors are (n,) float64 arrays.

Every block is stateless (its rate is inherited from its inputs) and its output reads all its
inputs. The interpreted ``output`` calls the functions of :mod:`blocksim.robotics.spatial`; the
compiled kernels (:mod:`blocksim.blocks.arm.transform_kernels`) compute the same values (the
tests hold them equal to rounding).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.blocks.arm import transform_kernels as tk
from blocksim.engine.block import Block, Port
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError, plain, suggest
from blocksim.robotics.spatial import (
    angdiff,
    delta2tr,
    eul2tr,
    rpy2tr,
    rt2tr,
    tr2delta,
    tr2eul,
    tr2rpy,
    tr2rt,
    transl,
)

__all__ = [
    "AngDiff",
    "Delta2Tr",
    "EulToTr",
    "RPYToTr",
    "Tr2Delta",
    "TrInverse",
    "TrMultiply",
    "TrToEul",
    "TrToRPY",
    "TrToXYZ",
    "XYZToTr",
]

_POSE = (4, 4)
_ORDERS = ("xyz", "zyx")
_SIDES = ("pre", "post")
#: largest |R^T R - I| and |bottom row - [0, 0, 0, 1]| accepted in a pose parameter
POSE_TOL = 1e-6


def _pose_port(name: str, doc: str = "pose") -> Port:
    return Port(name, shape=_POSE, doc=doc)


def check_pose(owner: str, name: str, value: Any) -> np.ndarray:
    """``value`` as a writable C-contiguous (4, 4) float64 homogeneous transform, or
    :class:`BlockParameterError` naming the block and parameter."""
    try:
        T = np.array(value, dtype=np.float64, order="C")
    except (TypeError, ValueError):
        raise BlockParameterError(
            f"{owner}: parameter '{name}' must be a (4, 4) homogeneous transform, got "
            f"{plain(value)}") from None
    if T.shape != _POSE or not np.all(np.isfinite(T)):
        raise BlockParameterError(
            f"{owner}: parameter '{name}' must be a finite (4, 4) homogeneous transform, got "
            f"shape {T.shape}")
    R = T[:3, :3]
    err = max(float(np.abs(R.T @ R - np.eye(3)).max()),
              float(np.abs(T[3] - (0.0, 0.0, 0.0, 1.0)).max()))
    if err > POSE_TOL or np.linalg.det(R) < 0.0:
        raise BlockParameterError(
            f"{owner}: parameter '{name}' is not a rigid transform (max error {err:.3g}, "
            f"det R = {np.linalg.det(R):.3g}); normalise it with trnorm")
    return T


def check_choice(owner: str, name: str, value: Any, choices: tuple[str, ...]) -> str:
    """``value`` if it is one of ``choices``, else :class:`BlockParameterError`."""
    if value not in choices:
        hint = suggest(value, choices) if isinstance(value, str) else ""
        raise BlockParameterError(
            f"{owner}: parameter '{name}' must be one of {', '.join(map(repr, choices))}, got "
            f"{plain(value)}{hint}")
    return str(value)


class Tr2Delta(Block):
    """Differential motion between two poses (RTB ``tr2delta``; roblocks *tr2diff*, bdsim
    *TR2DELTA*).

    Equation: ``y = (p1 - p0, vex(R1 R0^T - I))``: the translation and the small rotation from
    ``u0`` to ``u1``, both in the world frame; a first-order approximation, valid when the two
    poses are close.

    Parameters
    ----------
    none

    Inputs
    ------
    u0 : ndarray (4, 4)
        Start pose T0.
    u1 : ndarray (4, 4)
        End pose T1.

    Outputs
    -------
    y : ndarray (6,)
        ``(dx, dy, dz, dRx, dRy, dRz)`` [m, rad].
    """

    inputs = (_pose_port("u0", "start pose T0"), _pose_port("u1", "end pose T1"))
    outputs = (Port("y", shape=(6,), doc="differential motion (m, rad)"),)

    def __init__(self) -> None:
        super().__init__()

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        return (tr2delta(u[0], u[1]),)

    def kernels(self) -> Kernels:
        """``tr2delta_kernel``, params ``()``."""
        return Kernels(params=(), output=tk.tr2delta_kernel)


class Delta2Tr(Block):
    """Pose of a differential motion (RTB ``delta2tr``, bdsim *DELTA2TR*).

    Equation: ``y = I + [[skew(dR), dp], [0, 0]]`` for ``u = (dp, dR)``: first order, so the
    rotation block is orthonormal only to first order in ``|dR|``.

    Parameters
    ----------
    none

    Inputs
    ------
    u : ndarray (6,)
        Differential motion ``(dx, dy, dz, dRx, dRy, dRz)`` [m, rad].

    Outputs
    -------
    y : ndarray (4, 4)
        The transform.
    """

    inputs = (Port("u", shape=(6,), doc="differential motion (m, rad)"),)
    outputs = (_pose_port("y"),)

    def __init__(self) -> None:
        super().__init__()

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        return (delta2tr(u[0]),)

    def kernels(self) -> Kernels:
        """``delta2tr_kernel``, params ``()``."""
        return Kernels(params=(), output=tk.delta2tr_kernel)


class TrInverse(Block):
    """Inverse of a pose (roblocks *Inverse*, bdsim *POSE_INVERSE*).

    Equation: ``y = [[R^T, -R^T p], [0, 0, 0, 1]]``, the rigid-body inverse: equal to
    ``inv(u)`` (roblocks' general matrix inverse) for a valid transform, without a linear solve.

    Parameters
    ----------
    none

    Inputs
    ------
    u : ndarray (4, 4)
        Pose T.

    Outputs
    -------
    y : ndarray (4, 4)
        T⁻¹.
    """

    inputs = (_pose_port("u"),)
    outputs = (_pose_port("y", "inverse pose"),)

    def __init__(self) -> None:
        super().__init__()

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        R, p = tr2rt(u[0])
        return (rt2tr(R.T, -(R.T @ p)),)

    def kernels(self) -> Kernels:
        """``trinverse_kernel``, params ``()``."""
        return Kernels(params=(), output=tk.trinverse_kernel)


class TrMultiply(Block):
    """Product of poses (roblocks *Pre multiply* / *Post multiply*, bdsim *POSE_PREMUL* /
    *POSE_POSTMUL*).

    Equation: without ``pose``, ``y = u0 @ u1`` (two inputs); with a constant ``pose`` P,
    ``y = u @ P`` (``side="post"``, roblocks *Post multiply*) or ``y = P @ u`` (``side="pre"``,
    roblocks *Pre multiply*).

    Parameters
    ----------
    pose : array_like (4, 4) or None
        The constant transform P; None (default) for a block with two pose inputs.
    side : {"post", "pre"}
        Which side of the input P multiplies (only with ``pose``). Default ``"post"``.

    Inputs
    ------
    u0, u1 : ndarray (4, 4)
        Left and right factor (without ``pose``).
    u : ndarray (4, 4)
        The pose to multiply (with ``pose``).

    Outputs
    -------
    y : ndarray (4, 4)
        The product.
    """

    outputs = (_pose_port("y", "product"),)

    def __init__(self, pose: Any = None, side: str = "post") -> None:
        super().__init__()
        self._side = check_choice("TrMultiply", "side", side, _SIDES)
        self._pose = None if pose is None else check_pose("TrMultiply", "pose", pose)
        if self._pose is None:
            self.set_ports(inputs=(_pose_port("u0", "left factor"),
                                   _pose_port("u1", "right factor")))
        else:
            self.set_ports(inputs=(_pose_port("u"),))

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        P = self._pose
        if P is None:
            return (np.asarray(u[0]) @ np.asarray(u[1]),)
        return (P @ u[0] if self._side == "pre" else np.asarray(u[0]) @ P,)

    def kernels(self) -> Kernels:
        """``trmultiply_kernel`` (two inputs, params ``()``) or ``trmultiply_const_kernel``
        (params ``(pose, pre)``, ``pre`` a bool)."""
        if self._pose is None:
            return Kernels(params=(), output=tk.trmultiply_kernel)
        return Kernels(params=(self._pose.copy(), self._side == "pre"),
                       output=tk.trmultiply_const_kernel)


class TrToXYZ(Block):
    """Translation of a pose (RTB ``transl(T)``; roblocks *T2xyz*, bdsim *TR2T*).

    Equation: ``y = p`` for ``u = [[R, p], [0, 1]]``.

    Parameters
    ----------
    none

    Inputs
    ------
    u : ndarray (4, 4)
        Pose.

    Outputs
    -------
    y : ndarray (3,)
        Translation ``(x, y, z)`` [m].
    """

    inputs = (_pose_port("u"),)
    outputs = (Port("y", shape=(3,), unit="m", doc="translation"),)

    def __init__(self) -> None:
        super().__init__()

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        return (transl(u[0]),)

    def kernels(self) -> Kernels:
        """``tr2xyz_kernel``, params ``()``."""
        return Kernels(params=(), output=tk.tr2xyz_kernel)


class XYZToTr(Block):
    """Pure translation (RTB ``transl(p)``; roblocks *xyz2T*, bdsim *POINT2TR*).

    Equation: ``y = [[I, u], [0, 1]]``.

    Parameters
    ----------
    none

    Inputs
    ------
    u : ndarray (3,)
        Translation ``(x, y, z)`` [m].

    Outputs
    -------
    y : ndarray (4, 4)
        The transform (identity rotation).
    """

    inputs = (Port("u", shape=(3,), unit="m", doc="translation"),)
    outputs = (_pose_port("y"),)

    def __init__(self) -> None:
        super().__init__()

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        return (transl(u[0]),)

    def kernels(self) -> Kernels:
        """``xyz2tr_kernel``, params ``()``."""
        return Kernels(params=(), output=tk.xyz2tr_kernel)


class TrToRPY(Block):
    """Roll-pitch-yaw angles of a pose (RTB ``tr2rpy``; roblocks *T2rpy*).

    Equation: ``y`` such that ``rpy2tr(y, order) == R``; ``order="xyz"``:
    ``R = Rx(y0) Ry(y1) Rz(y2)``; ``order="zyx"``: ``R = Rz(y0) Ry(y1) Rx(y2)`` (RTB 9.10's
    ``'zyx'``, see :mod:`blocksim.robotics.spatial.euler`). The middle angle is in
    [-pi/2, pi/2]; at gimbal lock the first angle is 0.

    Parameters
    ----------
    order : {"xyz", "zyx"}
        Angle convention. Default ``"xyz"``.

    Inputs
    ------
    u : ndarray (4, 4)
        Pose (its translation is ignored).

    Outputs
    -------
    y : ndarray (3,)
        The three angles [rad].
    """

    inputs = (_pose_port("u"),)
    outputs = (Port("y", shape=(3,), unit="rad", doc="roll-pitch-yaw angles"),)

    def __init__(self, order: str = "xyz") -> None:
        super().__init__()
        self._order = check_choice("TrToRPY", "order", order, _ORDERS)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        return (tr2rpy(u[0], order=self._order),)

    def kernels(self) -> Kernels:
        """``tr2rpy_kernel``, params ``(zyx,)`` (a bool)."""
        return Kernels(params=(self._order == "zyx",), output=tk.tr2rpy_kernel)


class RPYToTr(Block):
    """Pose of roll-pitch-yaw angles (RTB ``rpy2tr``; roblocks *rpy2T*).

    Equation: ``y = [[R, 0], [0, 1]]`` with ``R = Rx(u0) Ry(u1) Rz(u2)`` (``order="xyz"``)
    or ``R = Rz(u0) Ry(u1) Rx(u2)`` (``order="zyx"``).

    Parameters
    ----------
    order : {"xyz", "zyx"}
        Angle convention (as :class:`TrToRPY`). Default ``"xyz"``.

    Inputs
    ------
    u : ndarray (3,)
        The three angles [rad].

    Outputs
    -------
    y : ndarray (4, 4)
        The transform (zero translation).
    """

    inputs = (Port("u", shape=(3,), unit="rad", doc="roll-pitch-yaw angles"),)
    outputs = (_pose_port("y"),)

    def __init__(self, order: str = "xyz") -> None:
        super().__init__()
        self._order = check_choice("RPYToTr", "order", order, _ORDERS)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        return (rpy2tr(u[0], order=self._order),)

    def kernels(self) -> Kernels:
        """``rpy2tr_kernel``, params ``(zyx,)`` (a bool)."""
        return Kernels(params=(self._order == "zyx",), output=tk.rpy2tr_kernel)


class TrToEul(Block):
    """ZYZ Euler angles of a pose (RTB ``tr2eul``; roblocks *T2eul*).

    Equation: ``y = (phi, theta, psi)`` with ``R = Rz(phi) Ry(theta) Rz(psi)``; ``theta`` in
    [0, pi], or in [-pi, 0] with ``flip=True``. At ``sin(theta) = 0`` phi is 0.

    Parameters
    ----------
    flip : bool
        Choose the solution with ``theta <= 0``. Default False.

    Inputs
    ------
    u : ndarray (4, 4)
        Pose (its translation is ignored).

    Outputs
    -------
    y : ndarray (3,)
        ``(phi, theta, psi)`` [rad].
    """

    inputs = (_pose_port("u"),)
    outputs = (Port("y", shape=(3,), unit="rad", doc="ZYZ Euler angles"),)

    def __init__(self, flip: bool = False) -> None:
        super().__init__()
        if not isinstance(flip, (bool, np.bool_)):
            raise BlockParameterError(f"TrToEul: parameter 'flip' must be True or False, got "
                                      f"{plain(flip)}")
        self._flip = bool(flip)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        return (tr2eul(u[0], flip=self._flip),)

    def kernels(self) -> Kernels:
        """``tr2eul_kernel``, params ``(flip,)``."""
        return Kernels(params=(self._flip,), output=tk.tr2eul_kernel)


class EulToTr(Block):
    """Pose of ZYZ Euler angles (RTB ``eul2tr``; roblocks *eul2T*).

    Equation: ``y = [[Rz(u0) Ry(u1) Rz(u2), 0], [0, 1]]``.

    Parameters
    ----------
    none

    Inputs
    ------
    u : ndarray (3,)
        ``(phi, theta, psi)`` [rad].

    Outputs
    -------
    y : ndarray (4, 4)
        The transform (zero translation).
    """

    inputs = (Port("u", shape=(3,), unit="rad", doc="ZYZ Euler angles"),)
    outputs = (_pose_port("y"),)

    def __init__(self) -> None:
        super().__init__()

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        return (eul2tr(u[0]),)

    def kernels(self) -> Kernels:
        """``eul2tr_kernel``, params ``()``."""
        return Kernels(params=(), output=tk.eul2tr_kernel)


class AngDiff(Block):
    """Wrapped difference of two angles (RTB ``angdiff``; roblocks *angdiff*).

    Equation: ``y = wrap(u0 - u1)``, wrapped to [-pi, pi) element-wise.

    Parameters
    ----------
    none

    Inputs
    ------
    u0, u1 : float or ndarray (n,)
        Angles [rad]: two floats, two vectors of one length, or a vector and a float
        (broadcast). The interpreted block accepts any broadcastable shapes; the compiled
        kernel floats and vectors.

    Outputs
    -------
    y : float or ndarray (n,)
        The difference [rad]: a float for two floats, else a vector.
    """

    inputs = (Port("u0", unit="rad"), Port("u1", unit="rad"))
    outputs = (Port("y", unit="rad", doc="wrapped difference"),)

    def __init__(self) -> None:
        super().__init__()

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        return (angdiff(u[0], u[1]),)

    def kernels(self) -> Kernels:
        """``angdiff_kernel``, params ``()`` (floats and 1-D arrays)."""
        return Kernels(params=(), output=tk.angdiff_kernel)
