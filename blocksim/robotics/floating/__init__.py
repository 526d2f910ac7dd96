"""Floating-base multibody kinematics and dynamics (after SPART, Virgili-Llop et al.).

Public API
----------
* :class:`FloatingBase` (:mod:`.model`): a :class:`~blocksim.robotics.urdf.TreeModel` on a free
  (or held) base: kinematics, velocities, accelerations, point Jacobians (base and manipulator
  parts), NOC, generalized and convective inertia matrices, forward dynamics, inverse dynamics,
  floating-base inverse dynamics (unactuated base), centre of mass, momentum.
* :mod:`.spart`: SPART's functions under SPART's names and arguments (``Kinematics``,
  ``DiffKinematics``, ``Velocities``, ``Jacob``, ``Accelerations``, ``I_I``, ``MCB``, ``GIM``,
  ``CIM``, ``FD``, ``ID``, ``Floating_ID``, ``NOC``, ``NOCdot``, ``Center_of_Mass``,
  ``urdf2robot``, ``DH_Serial2robot``, ``ConnectivityMap``, ``Angles321_DCM``, ...).
* Numba kernels: :mod:`.kernels`, :mod:`.kernels_jac`, :mod:`.state` (the block state), and
  :mod:`.fast_fd`, the one-call forward dynamics ``FloatingBase.forward_dynamics`` uses (fixed
  bodies merged, world-frame spatial algebra; about Pinocchio's ``aba`` per call).

Inside, one convention: twists ``[omega; rdot_com]`` and wrenches ``[n; f]`` in the world
frame; SPART's mixed-frame base velocity and blocksim's RTB-ordered ``(v, omega)`` are
converted at the API (:mod:`.spart`, :mod:`.state`).
"""

from .model import FloatingBase, Kin

__all__ = ["FloatingBase", "Kin"]
