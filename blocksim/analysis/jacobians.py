"""Each block's own Jacobians at an operating point: ``A, B, C, D`` of its states and ports.

For a block with states x (nx,), inputs u (all its input ports flattened and concatenated,
nu numbers) and outputs y (all its output ports flattened, ny numbers)::

    dx = A x + B u          (dx = dx/dt for continuous states, x[k+1] for discrete ones)
    y  = C x + D u

around the operating point. Two ways, as Simulink's ``linearize`` does it:

* **exact** for linear blocks: the block's functions are probed with unit vectors about zero,
  ``J[:, j] = f(e_j) - f(0)``, which for a linear map gives its matrix with no truncation
  error (the entries are the block's own coefficients, to rounding of one product). Linear
  are the library blocks listed in :data:`LINEAR_BLOCKS` (Gain, Sum, Integrator,
  TransferFunction, StateSpace, PID, StateFeedback, the discrete linear blocks, the routing
  blocks, ...) when
  they have no finite output limits, and any block of your own whose class sets
  ``linear = True`` (its ``output``, ``deriv``/``update`` must then be linear in x and u);
* **central differences** for every other block: column j of the Jacobian is
  ``(f(v + h_j e_j) - f(v - h_j e_j)) / (2 h_j)`` with ``h_j = eps**(1/3) * max(1, |v_j|)``
  (about 6e-6 for values of order one: truncation and rounding errors both near 1e-11).

``D`` keeps only the declared feedthrough: an output's row is zero for the inputs it does not
read at the same instant (the engine may hand such outputs stale inputs).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from blocksim.analysis.points import AnalysisError, as_value, flat
from blocksim.engine.clock import Clock
from blocksim.engine.plan import BlockEntry

#: the library blocks (by class name and module prefix) that are linear in their states and
#: inputs, unless a parameter ``lower``/``upper`` sets a finite limit
LINEAR_BLOCKS = frozenset({
    "Gain", "Sum", "Integrator", "Derivative", "TransferFunction", "StateSpace", "PID",
    "SecondOrderIntegrator", "DiscreteTransferFunction", "DiscreteStateSpace", "UnitDelay",
    "ZOH", "RateTransition", "DiscreteIntegrator", "DiscreteDerivative", "DiscretePID",
    "Mux", "Demux", "Selector", "Concatenate", "Reshape", "Index", "Terminator", "Inport",
    "Outport", "Constant", "StateFeedback",
})

#: relative step of the central differences: eps ** (1/3), the step that balances the
#: truncation error (h^2) and the rounding error (eps / h)
FD_STEP = float(np.finfo(float).eps) ** (1.0 / 3.0)


def is_linear(block: Any) -> bool:
    """Whether ``block``'s Jacobians are taken exactly (see the module docstring)."""
    cls = type(block)
    declared = getattr(block, "linear", None)
    if declared is not None:
        return bool(declared)
    if cls.__name__ not in LINEAR_BLOCKS or not cls.__module__.startswith("blocksim."):
        return False
    params = block.params
    for key in ("lower", "upper"):
        if key in params and np.any(np.isfinite(np.asarray(params[key], dtype=float))):
            return False
    return True


@dataclass
class BlockJacobian:
    """The Jacobians of one block at an operating point.

    Attributes
    ----------
    A : ndarray, shape (nx, nx)
    B : ndarray, shape (nx, nu)
    C : ndarray, shape (ny, nx)
    D : ndarray, shape (ny, nu)
        With ``nx`` the block's linear states (none for a stateless block or an ``EVENT``
        block's modes), ``nu`` and ``ny`` its flattened inputs and outputs.
    exact : bool
        Whether they were read exactly (a linear block) or by central differences.
    """

    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray
    exact: bool


def block_jacobian(e: BlockEntry, t: float, x: np.ndarray, u: Sequence[Any],
                   out_shapes: Sequence[tuple[int, ...]]) -> BlockJacobian:
    """The Jacobians of the block of entry ``e`` at time ``t`` [s], its state ``x`` (nx,) and
    its input values ``u`` (one per input port, floats or arrays).

    Raises
    ------
    AnalysisError
        A block method raised, or returned a non-finite value, while probed.
    """
    block = e.block
    in_shapes = [() if isinstance(v, float) else tuple(np.shape(v)) for v in u]
    sizes = [int(np.prod(s, dtype=int)) for s in in_shapes]
    cuts = np.cumsum([0, *sizes])
    dynamic = x.size > 0 and (not e.discrete or isinstance(block.clock, Clock))
    x = np.asarray(x, dtype=float)

    def unpack(z: np.ndarray) -> tuple[np.ndarray, list[Any]]:
        xs = z[:x.size] if dynamic else x
        v = z[x.size:] if dynamic else z
        return xs.copy(), [as_value(v[cuts[i]:cuts[i + 1]], in_shapes[i])
                           for i in range(len(sizes))]

    def outputs(z: np.ndarray) -> np.ndarray:
        xs, us = unpack(z)
        y = _call(e, "output", t, xs, us)
        parts = [flat(y[k]) for k in range(len(out_shapes))]
        return np.concatenate(parts) if parts else np.zeros(0)

    method = "update" if e.discrete else "deriv"

    def dynamics(z: np.ndarray) -> np.ndarray:
        xs, us = unpack(z)
        return flat(_call(e, method, t, xs, us))

    nx = x.size if dynamic else 0
    nu = int(cuts[-1])
    z0 = np.concatenate([x[:nx], *[flat(v) for v in u]]) if nu + nx else np.zeros(0)
    exact = is_linear(block)
    fns: list[Callable[[np.ndarray], np.ndarray]] = [outputs] + ([dynamics] if nx else [])
    jac = [_probe(f, z0, exact, e) for f in fns]
    J_out = jac[0]
    ny = J_out.shape[0]
    C, D = J_out[:, :nx], J_out[:, nx:].copy()
    _mask_feedthrough(e, D, out_shapes, sizes, ny)
    if nx:
        A, B = jac[1][:, :nx], jac[1][:, nx:]
        if A.shape[0] != nx:
            raise AnalysisError(f"block '{e.name}' ({e.kind}): {method}() returned "
                                f"{A.shape[0]} values for {nx} states")
    else:
        A, B = np.zeros((0, 0)), np.zeros((0, nu))
    return BlockJacobian(A, B, C, D, exact)


def _probe(f: Callable[[np.ndarray], np.ndarray], z0: np.ndarray, exact: bool,
           e: BlockEntry) -> np.ndarray:
    """The Jacobian of ``f`` at ``z0``: unit probes about zero (``exact``) or central
    differences about ``z0``."""
    n = z0.size
    if exact:
        base = np.zeros(n)
        f0 = f(base)
        cols = []
        for j in range(n):
            p = base.copy()
            p[j] = 1.0
            cols.append(f(p) - f0)
    else:
        f0 = f(z0)
        cols = []
        for j in range(n):
            h = FD_STEP * max(1.0, abs(z0[j]))
            zp, zm = z0.copy(), z0.copy()
            zp[j] += h
            zm[j] -= h
            h2 = zp[j] - zm[j]  # the step actually taken, after rounding
            cols.append((f(zp) - f(zm)) / h2)
    J = np.column_stack(cols) if cols else np.zeros((f0.size, 0))
    if not np.all(np.isfinite(J)):
        raise AnalysisError(f"block '{e.name}' ({e.kind}): its Jacobian at the operating "
                            f"point is not finite (a NaN or Inf while probing it); linearize "
                            f"at another operating point")
    return J


def _mask_feedthrough(e: BlockEntry, D: np.ndarray, out_shapes: Sequence[tuple[int, ...]],
                      in_sizes: Sequence[int], ny: int) -> None:
    """Zero the entries of ``D`` (ny, nu) of inputs an output does not read directly."""
    ft = e.block.output_feedthrough()
    ins = [p.name for p in e.block.inputs]  # type: ignore[union-attr]
    in_cuts = np.cumsum([0, *in_sizes])
    row = 0
    for port, shape in zip(e.block.outputs, out_shapes):  # type: ignore[union-attr]
        size = int(np.prod(shape, dtype=int))
        reads = set(ft.get(port.name, ()))
        for i, name in enumerate(ins):
            if name not in reads:
                D[row:row + size, in_cuts[i]:in_cuts[i + 1]] = 0.0
        row += size


def _call(e: BlockEntry, method: str, t: float, x: np.ndarray, u: list[Any]) -> Any:
    try:
        with np.errstate(all="ignore"):
            return getattr(e.block, method)(t, x, u)
    except AnalysisError:
        raise
    except Exception as exc:
        raise AnalysisError(f"block '{e.name}' ({e.kind}): {method}() raised "
                            f"{type(exc).__name__}: {exc} while its Jacobian was taken at "
                            f"t={t:g} s") from exc
