"""Control-design blocks: :class:`StateFeedback`, :class:`KalmanFilter`,
:class:`UnscentedKalmanFilter` and :class:`MPC`, each with compiled kernels.

The numerics are in :mod:`blocksim.robotics.control`; gains are designed with python-control
(``control.lqr``, ``control.dlqr``, ``control.dlqe``) and given to the blocks.
"""

from blocksim.blocks.control.feedback import StateFeedback
from blocksim.blocks.control.kalman import KalmanFilter
from blocksim.blocks.control.mpc import MPC
from blocksim.blocks.control.ukf import UnscentedKalmanFilter

__all__ = ["MPC", "KalmanFilter", "StateFeedback", "UnscentedKalmanFilter"]
