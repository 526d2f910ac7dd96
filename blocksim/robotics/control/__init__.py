"""Control and estimation numerics: state feedback and finite-horizon LQR, the discrete Kalman
filter, the unscented Kalman filter and its library of named models, the condensed linear MPC
and its dense QP solver.

Pure numerics (numpy arrays in, numpy arrays out; the per-step functions compile with numba);
nothing here imports :mod:`blocksim.engine` or :mod:`blocksim.blocks`. The blocks are in
:mod:`blocksim.blocks.control`.
"""

from blocksim.robotics.control.kalman import (
    kf_correct,
    kf_correct_steady,
    kf_predict,
    steady_state_kalman,
)
from blocksim.robotics.control.lqr import finite_horizon_lqr, state_feedback
from blocksim.robotics.control.mpc import CondensedMPC, condense, mpc_solve
from blocksim.robotics.control.qp import QP_FAILED, QP_MAX_ITER, QP_SOLVED, qp_solve
from blocksim.robotics.control.ukf import sigma_points, sigma_weights, ukf_correct, ukf_predict
from blocksim.robotics.control.ukf_models import (
    MODELS,
    model_f,
    model_h,
    model_params,
    register_model,
)

__all__ = [
    "MODELS",
    "QP_FAILED",
    "QP_MAX_ITER",
    "QP_SOLVED",
    "CondensedMPC",
    "condense",
    "finite_horizon_lqr",
    "kf_correct",
    "kf_correct_steady",
    "kf_predict",
    "model_f",
    "model_h",
    "model_params",
    "mpc_solve",
    "qp_solve",
    "register_model",
    "sigma_points",
    "sigma_weights",
    "state_feedback",
    "steady_state_kalman",
    "ukf_correct",
    "ukf_predict",
]
