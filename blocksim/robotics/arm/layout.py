"""The numeric layout of a serial-link arm shared by every kinematics and dynamics kernel.

Every convention (standard DH, modified DH, product of exponentials) is reduced to one form.
The pose of link frame ``i`` (``i = 1..n``) is

    T_i = T_{i-1} @ A[i] @ J(sigma[i], q[i] + offset[i]) @ B[i],      T_0 = base

and the tool frame is ``T_n @ tool``. ``J`` is the joint motion along the local z axis:
``rotz(theta)`` for a revolute joint (``sigma = 0``) and ``transz(d)`` for a prismatic joint
(``sigma = 1``). ``A`` and ``B`` are constant homogeneous transforms (4x4). The joint axis of
joint ``i`` is therefore the z axis of ``T_{i-1} @ A[i]``; the body of link ``i`` (mass, centre
of mass, inertia, its motor) is rigidly attached to frame ``T_i``.

- standard DH (Rz(theta) Tz(d) Tx(a) Rx(alpha)):
  revolute ``A = I, B = Tz(d) Tx(a) Rx(alpha)``; prismatic ``A = I, B = Rz(theta) Tx(a) Rx(alpha)``
  (Rz and Tz commute).
- modified DH (Craig: Rx(alpha) Tx(a) Rz(theta) Tz(d)):
  revolute ``A = Rx(alpha) Tx(a), B = Tz(d)``; prismatic ``A = Rx(alpha) Tx(a) Rz(theta), B = I``.
- product of exponentials: ``A[i]`` places a frame whose z axis is screw axis ``i`` at the home
  configuration, ``B = I``, and ``tool`` carries the rest of ``M``.

The arrays are plain contiguous float64/int64 so that numba kernels take them directly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: columns of :attr:`ArmArrays.dyn`, one row per link
DYN_COLUMNS = ("m", "rx", "ry", "rz", "Ixx", "Iyy", "Izz", "Ixy", "Iyz", "Ixz",
               "Jm", "G", "B", "Tc_pos", "Tc_neg")
M, RX, RY, RZ, IXX, IYY, IZZ, IXY, IYZ, IXZ, JM, GR, BV, TCP, TCN = range(len(DYN_COLUMNS))


@dataclass(frozen=True, eq=False)
class ArmArrays:
    """A serial-link arm as arrays for numba kernels (see the module docstring for the form).

    Attributes
    ----------
    sigma : int64 array, shape (n,)
        0 for a revolute joint (q in rad), 1 for a prismatic joint (q in m).
    offset : float64 array, shape (n,)
        Joint coordinate offset added to q before kinematics (rad or m).
    A, B : float64 arrays, shape (n, 4, 4)
        Constant transforms before and after each joint's motion.
    base, tool : float64 arrays, shape (4, 4)
        Pose of frame 0 in the world frame; pose of the tool in frame n.
    dyn : float64 array, shape (n, 15)
        Per-link dynamics, columns :data:`DYN_COLUMNS`: mass m (kg); centre of mass r (m) in
        link frame i; inertia about the centre of mass in link-frame axes (kg m^2); motor
        inertia Jm (kg m^2, motor side), gear ratio G, viscous friction B (N m s/rad, motor
        side), Coulomb friction Tc+ and Tc- (N m, motor side, Tc- <= 0).
    gravity : float64 array, shape (3,)
        The upward acceleration equivalent to gravity in the world frame (m/s^2); RTB's
        convention, default ``[0, 0, 9.81]`` for gravity acting along -z.
    qlim : float64 array, shape (n, 2)
        Joint limits [min, max]; ``-inf, inf`` when not given.
    """

    sigma: np.ndarray
    offset: np.ndarray
    A: np.ndarray
    B: np.ndarray
    base: np.ndarray
    tool: np.ndarray
    dyn: np.ndarray
    gravity: np.ndarray
    qlim: np.ndarray

    @property
    def n(self) -> int:
        """Number of joints."""
        return int(self.sigma.shape[0])

    def copy(self) -> ArmArrays:
        """A deep copy (models are values: a block owns its copy)."""
        return ArmArrays(*(np.array(getattr(self, f)) for f in _FIELDS))


_FIELDS = ("sigma", "offset", "A", "B", "base", "tool", "dyn", "gravity", "qlim")


def rotx(a: float) -> np.ndarray:
    """Homogeneous rotation about x by ``a`` rad, (4, 4)."""
    c, s = np.cos(a), np.sin(a)
    return np.array([[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1.0]])


def rotz(a: float) -> np.ndarray:
    """Homogeneous rotation about z by ``a`` rad, (4, 4)."""
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]])


def trans(x: float, y: float, z: float) -> np.ndarray:
    """Homogeneous translation by (x, y, z) m, (4, 4)."""
    T = np.eye(4)
    T[:3, 3] = (x, y, z)
    return T


def dh_fixed(theta: float, d: float, a: float, alpha: float, sigma: int,
             modified: bool) -> tuple[np.ndarray, np.ndarray]:
    """The constant transforms ``(A, B)`` of one DH link (see the module docstring).

    Parameters
    ----------
    theta, d, a, alpha : float
        DH parameters (rad, m, m, rad); ``theta`` is ignored for a revolute joint and ``d`` for
        a prismatic one (they are the joint variable).
    sigma : int
        0 revolute, 1 prismatic.
    modified : bool
        Modified (Craig) DH when True, standard DH otherwise.
    """
    if not modified:
        if sigma == 0:
            return np.eye(4), trans(0, 0, d) @ trans(a, 0, 0) @ rotx(alpha)
        return np.eye(4), rotz(theta) @ trans(a, 0, 0) @ rotx(alpha)
    if sigma == 0:
        return rotx(alpha) @ trans(a, 0, 0), trans(0, 0, d)
    return rotx(alpha) @ trans(a, 0, 0) @ rotz(theta), np.eye(4)


def from_dh(dh: np.ndarray, *, sigma: np.ndarray | None = None, offset: np.ndarray | None = None,
            modified: bool = False, dyn: np.ndarray | None = None,
            base: np.ndarray | None = None, tool: np.ndarray | None = None,
            gravity: np.ndarray | None = None, qlim: np.ndarray | None = None) -> ArmArrays:
    """Build :class:`ArmArrays` from a DH table.

    Parameters
    ----------
    dh : array, shape (n, 4)
        One row ``[theta, d, a, alpha]`` per link (rad, m, m, rad).
    sigma, offset : arrays, shape (n,), optional
        Joint types (0 revolute, default) and joint offsets (default 0).
    modified : bool
        Modified DH when True.
    dyn : array, shape (n, 15), optional
        Dynamics rows (:data:`DYN_COLUMNS`); default zero mass and inertia, G = 1.
    base, tool : (4, 4), optional; gravity : (3,), optional; qlim : (n, 2), optional
    """
    dh = np.asarray(dh, dtype=float).reshape(-1, 4)
    n = dh.shape[0]
    sig = np.zeros(n, dtype=np.int64) if sigma is None else np.asarray(sigma, dtype=np.int64)
    A = np.empty((n, 4, 4))
    B = np.empty((n, 4, 4))
    for i in range(n):
        A[i], B[i] = dh_fixed(*dh[i], int(sig[i]), modified)
    if dyn is None:
        dyn = np.zeros((n, len(DYN_COLUMNS)))
        dyn[:, GR] = 1.0
    return ArmArrays(
        sigma=np.ascontiguousarray(sig),
        offset=np.zeros(n) if offset is None else np.asarray(offset, dtype=float).copy(),
        A=A, B=B,
        base=np.eye(4) if base is None else np.asarray(base, dtype=float).copy(),
        tool=np.eye(4) if tool is None else np.asarray(tool, dtype=float).copy(),
        dyn=np.ascontiguousarray(np.asarray(dyn, dtype=float).reshape(n, len(DYN_COLUMNS))),
        gravity=(np.array([0.0, 0.0, 9.81]) if gravity is None
                 else np.asarray(gravity, dtype=float).reshape(3).copy()),
        qlim=(np.tile([-np.inf, np.inf], (n, 1)) if qlim is None
              else np.asarray(qlim, dtype=float).reshape(n, 2).copy()),
    )
