"""Math blocks: :mod:`~blocksim.blocks.math.arithmetic` (:class:`Gain`, :class:`Sum`,
:class:`Product`) and :mod:`~blocksim.blocks.math.functions` (:class:`MathFunction`,
:class:`Function`); their compiled kernels in :mod:`~blocksim.blocks.math.kernels`."""

from blocksim.blocks.math.arithmetic import Gain, Product, Sum
from blocksim.blocks.math.functions import Function, MathFunction

__all__ = ["Function", "Gain", "MathFunction", "Product", "Sum"]
