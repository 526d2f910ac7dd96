"""Spatial maths: rotations, transforms, three-angle forms, exp/log, quaternions, SE(2).

Robotics Toolbox (RTB 9.10, Corke) names and conventions: SO(3) rotations (3, 3), SE(3)
transforms (4, 4), SO(2) (2, 2), SE(2) (3, 3); stacks carry a leading axis ``(K, ...)``;
radians everywhere except where a ``unit="deg"`` keyword is given; twists are ``(v, w)``,
translation first; quaternions are 4-arrays ``[s, vx, vy, vz]``.

Modules: :mod:`.so3` (rotx/roty/rotz, skew/vex, trnorm, oa2r), :mod:`.se3` (trotx..., transl,
r2t/t2r/rt2tr/tr2rt, skewa/vexa, delta2tr/tr2delta, oa2tr), :mod:`.euler` (rpy, ZYZ Euler,
angle-vector), :mod:`.explog` (trexp/trlog), :mod:`.quaternion` (q_* functions, r2q/q2r),
:mod:`.unitquaternion` (``UnitQuaternion``), :mod:`.se2`, :mod:`.interp` (trinterp, angdiff)
and :mod:`.kernels` (the ``@njit`` kernels for compiled code: ``skew_nb``, ``vex_nb``,
``so3_exp_nb``, ``so3_log_nb``, ``se3_exp_nb``, ``se3_log_nb``, ``r2q_nb``, ``q2r_nb``,
``q_mul_nb``, ``rpy2r_nb``, ``tr2rpy_nb``).
"""

from .euler import (
    angvec2r,
    angvec2tr,
    eul2r,
    eul2tr,
    rpy2r,
    rpy2tr,
    tr2angvec,
    tr2eul,
    tr2rpy,
)
from .explog import trexp, trlog
from .interp import angdiff, trinterp
from .kernels import (
    q2r_nb,
    q_mul_nb,
    r2q_nb,
    rpy2r_nb,
    se3_exp_nb,
    se3_log_nb,
    skew_nb,
    so3_exp_nb,
    so3_log_nb,
    tr2rpy_nb,
    vex_nb,
)
from .quaternion import q2r, q_conj, q_dot, q_inv, q_mul, q_norm, q_rotate, q_slerp, q_unit, r2q
from .se2 import rot2, rot2angle, se2, se3, tr2xyt, transl2, trot2
from .se3 import (
    delta2tr,
    ishomog,
    oa2tr,
    r2t,
    rt2tr,
    skewa,
    t2r,
    tr2delta,
    tr2rt,
    transl,
    trotx,
    troty,
    trotz,
    vexa,
)
from .so3 import isrot, oa2r, rotx, roty, rotz, skew, trnorm, vex
from .unitquaternion import UnitQuaternion

__all__ = [
    "UnitQuaternion",
    "angdiff",
    "angvec2r",
    "angvec2tr",
    "delta2tr",
    "eul2r",
    "eul2tr",
    "ishomog",
    "isrot",
    "oa2r",
    "oa2tr",
    "q2r",
    "q2r_nb",
    "q_conj",
    "q_dot",
    "q_inv",
    "q_mul",
    "q_mul_nb",
    "q_norm",
    "q_rotate",
    "q_slerp",
    "q_unit",
    "r2q",
    "r2q_nb",
    "r2t",
    "rot2",
    "rot2angle",
    "rotx",
    "roty",
    "rotz",
    "rpy2r",
    "rpy2r_nb",
    "rpy2tr",
    "rt2tr",
    "se2",
    "se3",
    "se3_exp_nb",
    "se3_log_nb",
    "skew",
    "skew_nb",
    "skewa",
    "so3_exp_nb",
    "so3_log_nb",
    "t2r",
    "tr2angvec",
    "tr2delta",
    "tr2eul",
    "tr2rpy",
    "tr2rpy_nb",
    "tr2rt",
    "tr2xyt",
    "transl",
    "transl2",
    "trexp",
    "trinterp",
    "trlog",
    "trnorm",
    "trot2",
    "trotx",
    "troty",
    "trotz",
    "vex",
    "vex_nb",
    "vexa",
]
