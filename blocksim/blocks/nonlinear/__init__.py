"""Nonlinear (discontinuous) blocks: :mod:`~blocksim.blocks.nonlinear.saturation`
(:class:`Saturation`, :class:`DeadZone`), :mod:`~blocksim.blocks.nonlinear.rate_limits`
(:class:`RateLimiter`, :class:`Backlash`), :mod:`~blocksim.blocks.nonlinear.quantize`
(:class:`Quantizer`) and :mod:`~blocksim.blocks.nonlinear.switching` (:class:`Sign`,
:class:`Relay`, :class:`Switch`, :class:`MinMax`); shared conventions in
:mod:`~blocksim.blocks.nonlinear.base`, scalar numerics in
:mod:`~blocksim.blocks.nonlinear.numerics`, compiled kernels in
:mod:`~blocksim.blocks.nonlinear.kernels`."""

from blocksim.blocks.nonlinear.quantize import Quantizer
from blocksim.blocks.nonlinear.rate_limits import Backlash, RateLimiter
from blocksim.blocks.nonlinear.saturation import DeadZone, Saturation
from blocksim.blocks.nonlinear.switching import MinMax, Relay, Sign, Switch

__all__ = [
    "Backlash",
    "DeadZone",
    "MinMax",
    "Quantizer",
    "RateLimiter",
    "Relay",
    "Saturation",
    "Sign",
    "Switch",
]
