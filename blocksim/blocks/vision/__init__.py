"""Vision blocks: the camera, the image Jacobian and the IBVS control law.

Wiring a free-flying image-based visual servo (shapes for N points)::

    pose (4, 4) --> Camera(P) --uv (2, N)--> IBVS(uv_star, lam) --v (6,)--> pose integrator
                              --depth (N,)-->                              (body frame) --+
      ^-----------------------------------------------------------------------------------+

* :class:`Camera`: input ``pose`` (4, 4) (and ``points`` (3, N) unless ``P`` is given);
  outputs ``uv`` (2, N) or (2N,) with ``flat=True``, and ``depth`` (N,) [m].
* :class:`ImageJacobian`: inputs ``uv`` ((2, N) or (2N,)) and ``depth`` (float or (N,));
  output ``jac`` (2N, 6).
* :class:`IBVS`: inputs ``uv`` and ``depth`` (or a fixed ``Z`` parameter); output ``v`` (6,),
  the camera velocity ``(v, w)`` in the camera frame, for a pose integrator in the body frame.

Flattened image points are always ``[u0, v0, u1, v1, ...]``; every block accepts both layouts.
All three blocks are stateless and have compiled kernels (:mod:`.kernels`).
"""

from .camera import Camera
from .servo import IBVS, ImageJacobian

__all__ = ["IBVS", "Camera", "ImageJacobian"]
