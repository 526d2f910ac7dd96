"""Discrete-time blocks, updated at the hits of their clock:
:mod:`~blocksim.blocks.discrete.calculus` (:class:`DiscreteIntegrator`,
:class:`DiscreteDerivative`), :mod:`~blocksim.blocks.discrete.linear`
(:class:`DiscreteTransferFunction`, :class:`DiscreteStateSpace`),
:mod:`~blocksim.blocks.discrete.pid` (:class:`DiscretePID`),
:mod:`~blocksim.blocks.discrete.sample_hold` (:class:`ZOH`, :class:`UnitDelay`,
:class:`RateTransition`) and :func:`~blocksim.blocks.discrete.discretization.discretize`; their
compiled kernels in :mod:`~blocksim.blocks.discrete.kernels`, shared checks in
:mod:`~blocksim.blocks.discrete.base`."""

from blocksim.blocks.discrete.calculus import DiscreteDerivative, DiscreteIntegrator
from blocksim.blocks.discrete.discretization import discretize
from blocksim.blocks.discrete.linear import DiscreteStateSpace, DiscreteTransferFunction
from blocksim.blocks.discrete.pid import DiscretePID
from blocksim.blocks.discrete.sample_hold import ZOH, RateTransition, UnitDelay

__all__ = [
    "ZOH",
    "DiscreteDerivative",
    "DiscreteIntegrator",
    "DiscretePID",
    "DiscreteStateSpace",
    "DiscreteTransferFunction",
    "RateTransition",
    "UnitDelay",
    "discretize",
]
