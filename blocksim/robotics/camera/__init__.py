"""The central perspective camera and image-based visual servoing numerics.

Robotics Toolbox / Machine Vision Toolbox conventions: world points are columns (3, N) [m],
image points columns (2, N) [pixel] (or flattened ``[u0, v0, u1, v1, ...]`` (2N,)), the camera
pose ``T`` (4, 4) is the camera frame in the world with z along the optical axis, u to the right
and v down; camera velocities are ``(v, w)`` (6,) [m/s, rad/s] in the camera frame.

Modules: :mod:`.central` (``CentralCamera``: intrinsics ``K``, camera matrix ``C``,
``project``, ``visible``, ``depth``), :mod:`.visjac` (``visjac_p``, the point-feature image
Jacobian), :mod:`.pose` (``estpose``, pose from N >= 4 correspondences), :mod:`.ibvs`
(``ibvs_law``) and :mod:`.kernels` (the ``@njit`` kernels ``project_nb``, ``depth_nb``,
``camera_points_nb``, ``uv_columns_nb``, ``flatten_uv_nb``, ``visjac_p_nb``,
``pinv_solve_nb``, ``ibvs_nb``).
"""

from .central import CentralCamera, depth
from .ibvs import ibvs_law
from .kernels import (
    camera_points_nb,
    depth_nb,
    flatten_uv_nb,
    ibvs_nb,
    pinv_solve_nb,
    project_nb,
    uv_columns_nb,
    visjac_p_nb,
)
from .pose import estpose, refine_pose
from .visjac import visjac_p

__all__ = [
    "CentralCamera",
    "camera_points_nb",
    "depth",
    "depth_nb",
    "estpose",
    "flatten_uv_nb",
    "ibvs_law",
    "ibvs_nb",
    "pinv_solve_nb",
    "project_nb",
    "refine_pose",
    "uv_columns_nb",
    "visjac_p",
    "visjac_p_nb",
]
