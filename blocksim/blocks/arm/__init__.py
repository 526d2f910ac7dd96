"""Blocks for serial-link arms: kinematics, dynamics, transforms, pose integration,
trajectory sources and joint servos (motors, PI velocity control, a flexible joint; the
velocity and position loops built from them are in :mod:`blocksim.blocks.arm.servo_loops`).

Poses are (4, 4) float64 homogeneous transforms, angles radians, vectors (n,) float64 arrays
(see :mod:`blocksim.blocks.arm.transforms`). Every block here has compiled kernels.
"""

from blocksim.blocks.arm.dynamics import (
    CartesianInertia,
    Coriolis,
    ForwardDynamics,
    Friction,
    Gravload,
    Inertia,
    InverseDynamics,
)
from blocksim.blocks.arm.kinematics import FKine, IKine, IKine6s, JacobDot, Jacobian
from blocksim.blocks.arm.pose_integrator import PoseIntegrator
from blocksim.blocks.arm.servo import FlexibleJoint, JointMotor, VelocityPI, VoltageMotor
from blocksim.blocks.arm.trajectories import LSPB, CirclePath, CTraj, JTraj, MSTraj, MTraj
from blocksim.blocks.arm.transforms import (
    AngDiff,
    Delta2Tr,
    EulToTr,
    RPYToTr,
    Tr2Delta,
    TrInverse,
    TrMultiply,
    TrToEul,
    TrToRPY,
    TrToXYZ,
    XYZToTr,
)

__all__ = [
    "LSPB",
    "AngDiff",
    "CTraj",
    "CartesianInertia",
    "CirclePath",
    "Coriolis",
    "Delta2Tr",
    "EulToTr",
    "FKine",
    "FlexibleJoint",
    "ForwardDynamics",
    "Friction",
    "Gravload",
    "IKine",
    "IKine6s",
    "Inertia",
    "InverseDynamics",
    "JTraj",
    "JacobDot",
    "Jacobian",
    "JointMotor",
    "MSTraj",
    "MTraj",
    "PoseIntegrator",
    "RPYToTr",
    "Tr2Delta",
    "TrInverse",
    "TrMultiply",
    "TrToEul",
    "TrToRPY",
    "TrToXYZ",
    "VelocityPI",
    "VoltageMotor",
    "XYZToTr",
]
