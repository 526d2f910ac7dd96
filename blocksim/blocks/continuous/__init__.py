"""Continuous-time blocks: :mod:`~blocksim.blocks.continuous.calculus` (:class:`Integrator`,
:class:`Derivative`), :mod:`~blocksim.blocks.continuous.linear` (:class:`TransferFunction`,
:class:`StateSpace`), :mod:`~blocksim.blocks.continuous.pid` (:class:`PID`) and
:mod:`~blocksim.blocks.continuous.second_order` (:class:`SecondOrderIntegrator`); their compiled
kernels in :mod:`~blocksim.blocks.continuous.kernels`, parameter checks in
:mod:`~blocksim.blocks.continuous.params`."""

from blocksim.blocks.continuous.calculus import Derivative, Integrator
from blocksim.blocks.continuous.linear import StateSpace, TransferFunction
from blocksim.blocks.continuous.pid import PID
from blocksim.blocks.continuous.second_order import SecondOrderIntegrator

__all__ = [
    "PID",
    "Derivative",
    "Integrator",
    "SecondOrderIntegrator",
    "StateSpace",
    "TransferFunction",
]
