"""Multirotor (N-rotor) flying robots: model parameters, dynamics, mixer and flight control.

* :mod:`.model`: :class:`MultirotorModel`, the Toolbox's :func:`mdl_quadrotor` and its hexa-
  and octo-rotor variants; frames, rotor geometry and spin directions.
* :mod:`.dynamics`: the 12-state rigid body with rotor thrust, drag torque and blade flapping;
  the state order and angle convention used everywhere; ground contact functions.
* :mod:`.mixer`: the exact inverse of the thrust/torque map, with speed limits.
* :mod:`.control`: position and attitude control laws.

Pure numerics (numba kernels); no block, engine or plotting imports.
"""

from blocksim.robotics.aerial.control import (
    ATTITUDE_GAINS,
    POSITION_GAINS,
    attitude_control_nb,
    hover_integral,
    position_control_nb,
)
from blocksim.robotics.aerial.dynamics import (
    body_velocity_nb,
    euler_rates_nb,
    nrotor_deriv_nb,
    pose_nb,
    rotor_forces_nb,
    rpy_to_rotation_nb,
)
from blocksim.robotics.aerial.mixer import mix_nb, mixer, mixer_matrix
from blocksim.robotics.aerial.model import (
    MODELS,
    MultirotorModel,
    mdl_hexarotor,
    mdl_octorotor,
    mdl_quadrotor,
    model_by_name,
    multirotor,
)
from blocksim.robotics.aerial.params import dynamics_params, nrotor_deriv

__all__ = [
    "ATTITUDE_GAINS",
    "MODELS",
    "POSITION_GAINS",
    "MultirotorModel",
    "attitude_control_nb",
    "body_velocity_nb",
    "dynamics_params",
    "euler_rates_nb",
    "hover_integral",
    "mdl_hexarotor",
    "mdl_octorotor",
    "mdl_quadrotor",
    "mix_nb",
    "mixer",
    "mixer_matrix",
    "model_by_name",
    "multirotor",
    "nrotor_deriv",
    "nrotor_deriv_nb",
    "pose_nb",
    "position_control_nb",
    "rotor_forces_nb",
    "rpy_to_rotation_nb",
]
