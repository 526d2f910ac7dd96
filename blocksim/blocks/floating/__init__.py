"""Blocks for robots on a floating base: :class:`FloatingBaseDynamics`,
:class:`FloatingBaseKinematics`, :class:`EndEffectorJacobian` (every one with compiled
kernels)."""

from blocksim.blocks.floating.blocks import (
    EndEffectorJacobian,
    FloatingBaseDynamics,
    FloatingBaseKinematics,
)

__all__ = ["EndEffectorJacobian", "FloatingBaseDynamics", "FloatingBaseKinematics"]
