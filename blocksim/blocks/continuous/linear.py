"""Continuous-time linear systems: :class:`TransferFunction` and :class:`StateSpace`.

Both have continuous states, integrated by the engine through ``deriv(t, x, u)``.

Performance notes
-----------------
The interpreted engine calls ``deriv`` and ``output`` once per right-hand-side evaluation, i.e. tens
of thousands of times per run. Scalar signals are Python floats, and the single-input single-output
blocks evaluate their equations in pure Python on ``x.tolist()`` (unrolled for n <= 4, a
``sum(map(mul, ...))`` loop for companion-form systems up to n = 16): at these sizes a numpy
matrix-vector product costs more than the whole pure-Python update. ``deriv`` then returns a tuple
(or list) of floats, which the contract's "array-like of shape (nx,)" allows. The fast path is
chosen once, at construction, by binding the matching kernel method to the instance's ``deriv`` /
``output`` attributes; the class-level ``deriv`` / ``output`` are the plain numpy reference
implementations (the tests check the kernels against them). The kernels only read immutable
coefficients stored on the block, so the blocks stay pure, copyable and picklable. Larger or
multi-input/multi-output systems use numpy. :class:`~blocksim.blocks.continuous.calculus.Integrator`
and :class:`~blocksim.blocks.continuous.calculus.Derivative` follow the same pattern.

A strictly proper block (no direct feedthrough) never reads its input in ``output``: the engine
may call it before the inputs of the current instant are known.

Compiled kernels
----------------
Every block's ``kernels()`` returns the numba kernels of the compiled back-end
(:mod:`blocksim.engine.compiled.kernels`), module-level
``@njit(cache=True, error_model="numpy")`` functions of
:mod:`blocksim.blocks.continuous.kernels` (``integrator_*``, ``tf_*``, ``ss_*``,
``derivative_*``) and :mod:`blocksim.blocks.continuous.pid` (``pid_*``). The linear systems have
one kernel pair per block for every order (``tf_output``/``tf_state``,
``ss_output``/``ss_state``), unrolled over the order when the coefficients are few; the other
blocks' kernels are chosen by shape and limits. The ``params`` layouts are in each
``kernels()`` docstring. Scalar kernels return floats or tuples of floats and never allocate.
The interpreted :class:`~blocksim.blocks.continuous.pid.PID` calls the kernels' own pure-Python
functions (``pid_output.py_func``, ...); the other blocks keep their faster pure-Python paths,
tested equal to the kernels.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from operator import mul
from typing import Any

import numpy as np

from blocksim.blocks.continuous.kernels import ss_kernels, tf_kernels
from blocksim.blocks.continuous.params import _real_array, check_state_space
from blocksim.engine.block import Block, Port
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError

__all__ = ["StateSpace", "TransferFunction"]

#: largest order with unrolled pure-Python ``deriv``/``output`` methods
MAX_FAST_ORDER = 4
#: largest order of a companion-form ``deriv`` evaluated by a pure-Python loop (numpy above:
#: measured crossover ~24 states)
MAX_LOOP_ORDER = 16
#: largest order of an ``output`` evaluated by a pure-Python loop (numpy above: crossover ~12)
MAX_LOOP_ORDER_OUTPUT = 12


class _LinearKernels(Block):
    """Pure-Python kernels of the SISO linear system x' = A x + B u, y = C x + D u.

    Coefficients (set by :meth:`_bind_siso`):

    ``_a``   first row of a companion-form A (``_companion`` kernels, B = e0) or ``_A`` the
             rows of a dense A and ``_b`` the column B (``_dense`` kernels), as tuples of floats;
    ``_c``   the row C; ``_d`` the scalar D.
    """

    _a: tuple[float, ...] = ()
    _A: tuple[tuple[float, ...], ...] = ()
    _b: tuple[float, ...] = ()
    _c: tuple[float, ...] = ()
    _d: float = 0.0

    def _bind_siso(self, A: np.ndarray, B: np.ndarray, C: np.ndarray, D: np.ndarray) -> None:
        """Select the cheapest ``deriv``/``output`` for this SISO realisation and bind them."""
        n = A.shape[0]
        b = B[:, 0]
        self._c = tuple(C[0].tolist())
        self._d = float(D[0, 0])
        self._An, self._Bn, self._Cn = A, b, C[0]
        ft = self._d != 0.0
        if n == 0:
            self.deriv = self._deriv_none  # type: ignore[method-assign]
            self.output = self._out_ft_0 if ft else self._out_zero  # type: ignore[method-assign]
            return
        kind = "ft" if ft else "strict"
        companion = (n > 1 and np.array_equal(A[1:], np.eye(n, k=-1)[1:])
                     and np.array_equal(b, np.eye(n)[:, 0]))
        if companion:
            self._a = tuple(A[0].tolist())
        if companion and n <= MAX_FAST_ORDER:
            self.deriv = getattr(self, f"_deriv_companion_{n}")  # type: ignore[method-assign]
        elif companion and n <= MAX_LOOP_ORDER:
            self.deriv = self._deriv_companion_n  # type: ignore[method-assign]
        elif n <= MAX_FAST_ORDER:
            self._A = tuple(tuple(row) for row in A.tolist())
            self._b = tuple(b.tolist())
            self.deriv = getattr(self, f"_deriv_dense_{n}")  # type: ignore[method-assign]
        else:
            self.deriv = self._deriv_np  # type: ignore[method-assign]
        if n <= MAX_FAST_ORDER:
            self.output = getattr(self, f"_out_{kind}_{n}")  # type: ignore[method-assign]
        elif n <= MAX_LOOP_ORDER_OUTPUT:
            self.output = getattr(self, f"_out_{kind}_n")  # type: ignore[method-assign]
        else:
            self.output = self._out_ft_np if ft else self._out_np  # type: ignore[method-assign]

    # -- numpy fallbacks
    def _deriv_none(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, ...]:
        return ()

    def _deriv_np(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        return self._An @ x + self._Bn * u[0]

    def _out_np(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (float(self._Cn @ x),)

    def _out_ft_np(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (float(self._Cn @ x) + self._d * u[0],)

    # -- derivatives, companion form (first row a, subdiagonal ones, B = e0)
    def _deriv_companion_2(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, ...]:
        a0, a1 = self._a
        x0, x1 = x.tolist()
        return (a0 * x0 + a1 * x1 + u[0], x0)

    def _deriv_companion_3(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, ...]:
        a0, a1, a2 = self._a
        x0, x1, x2 = x.tolist()
        return (a0 * x0 + a1 * x1 + a2 * x2 + u[0], x0, x1)

    def _deriv_companion_4(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, ...]:
        a0, a1, a2, a3 = self._a
        x0, x1, x2, x3 = x.tolist()
        return (a0 * x0 + a1 * x1 + a2 * x2 + a3 * x3 + u[0], x0, x1, x2)

    def _deriv_companion_n(self, t: float, x: np.ndarray, u: Sequence[Any]) -> list[float]:
        xs = x.tolist()
        return [sum(map(mul, self._a, xs)) + u[0], *xs[:-1]]

    # -- derivatives, dense A and B
    def _deriv_dense_1(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, ...]:
        ((a00,),) = self._A
        (b0,) = self._b
        return (a00 * x.item() + b0 * u[0],)

    def _deriv_dense_2(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, ...]:
        (a00, a01), (a10, a11) = self._A
        b0, b1 = self._b
        x0, x1 = x.tolist()
        v = u[0]
        return (a00 * x0 + a01 * x1 + b0 * v, a10 * x0 + a11 * x1 + b1 * v)

    def _deriv_dense_3(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, ...]:
        (a00, a01, a02), (a10, a11, a12), (a20, a21, a22) = self._A
        b0, b1, b2 = self._b
        x0, x1, x2 = x.tolist()
        v = u[0]
        return (a00 * x0 + a01 * x1 + a02 * x2 + b0 * v,
                a10 * x0 + a11 * x1 + a12 * x2 + b1 * v,
                a20 * x0 + a21 * x1 + a22 * x2 + b2 * v)

    def _deriv_dense_4(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float, ...]:
        (a00, a01, a02, a03), (a10, a11, a12, a13), (a20, a21, a22, a23), \
            (a30, a31, a32, a33) = self._A
        b0, b1, b2, b3 = self._b
        x0, x1, x2, x3 = x.tolist()
        v = u[0]
        return (a00 * x0 + a01 * x1 + a02 * x2 + a03 * x3 + b0 * v,
                a10 * x0 + a11 * x1 + a12 * x2 + a13 * x3 + b1 * v,
                a20 * x0 + a21 * x1 + a22 * x2 + a23 * x3 + b2 * v,
                a30 * x0 + a31 * x1 + a32 * x2 + a33 * x3 + b3 * v)

    # -- outputs without feedthrough (never read u)
    def _out_zero(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (0.0,)

    def _out_strict_1(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        (c0,) = self._c
        return (c0 * x.item(),)

    def _out_strict_2(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        c0, c1 = self._c
        x0, x1 = x.tolist()
        return (c0 * x0 + c1 * x1,)

    def _out_strict_3(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        c0, c1, c2 = self._c
        x0, x1, x2 = x.tolist()
        return (c0 * x0 + c1 * x1 + c2 * x2,)

    def _out_strict_4(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        c0, c1, c2, c3 = self._c
        x0, x1, x2, x3 = x.tolist()
        return (c0 * x0 + c1 * x1 + c2 * x2 + c3 * x3,)

    def _out_strict_n(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (sum(map(mul, self._c, x.tolist())),)

    # -- outputs with direct feedthrough D u
    def _out_ft_0(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (self._d * u[0],)

    def _out_ft_1(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        (c0,) = self._c
        return (c0 * x.item() + self._d * u[0],)

    def _out_ft_2(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        c0, c1 = self._c
        x0, x1 = x.tolist()
        return (c0 * x0 + c1 * x1 + self._d * u[0],)

    def _out_ft_3(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        c0, c1, c2 = self._c
        x0, x1, x2 = x.tolist()
        return (c0 * x0 + c1 * x1 + c2 * x2 + self._d * u[0],)

    def _out_ft_4(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        c0, c1, c2, c3 = self._c
        x0, x1, x2, x3 = x.tolist()
        return (c0 * x0 + c1 * x1 + c2 * x2 + c3 * x3 + self._d * u[0],)

    def _out_ft_n(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        return (sum(map(mul, self._c, x.tolist())) + self._d * u[0],)

# -- TransferFunction
class TransferFunction(_LinearKernels):
    r"""Single-input single-output rational transfer function.

    .. math::

        G(s) = \frac{Y(s)}{U(s)} = \frac{b_0 s^m + b_1 s^{m-1} + \dots + b_m}
                                        {a_0 s^n + a_1 s^{n-1} + \dots + a_n},
        \qquad m \le n,\ a_0 \ne 0

    realised at construction by :func:`scipy.signal.tf2ss` in controller canonical form
    ``x' = A x + B u, y = C x + D u`` (A companion matrix with first row
    ``-[a_1 .. a_n] / a_0``, B = e_0).

    Parameters
    ----------
    num : float or array_like, shape (m + 1,)
        Numerator coefficients, highest power of s first. Leading zeros are ignored.
    den : float or array_like, shape (n + 1,)
        Denominator coefficients, highest power of s first; ``den[0]`` must be non-zero.
        The transfer function must be proper (``m <= n``).
    x0 : array_like, shape (n,), optional
        Initial state of the canonical realisation (default zeros: the system at rest).

    Inputs
    ------
    u : float
        Input signal [any unit].

    Outputs
    -------
    y : float
        Output signal [unit of u times the gain's unit]. Feedthrough from ``u`` only when the
        transfer function is biproper (D != 0, i.e. ``m == n`` with ``b_0 != 0``).

    States
    ------
    x : shape (n,)
        States of the controller canonical realisation, named ``"x0" .. "x{n-1}"``. A
        constant gain (``n == 0``) has no state.

    Examples
    --------
    First-order lag 1 / (tau s + 1): ``TransferFunction([1], [tau, 1])``.
    """

    inputs = (Port("u", shape=()),)
    outputs = (Port("y", shape=()),)

    def __init__(self, num: Any, den: Any, x0: Any = None) -> None:
        super().__init__()
        owner = type(self).__name__
        num_a = _real_array(owner, "num", num)
        den_a = _real_array(owner, "den", den)
        for label, arr in (("num", num_a), ("den", den_a)):
            if arr.ndim > 1:
                raise BlockParameterError(
                    f"{owner}: {label} must be a 1-D coefficient sequence (SISO only), got shape "
                    f"{arr.shape}; use StateSpace for multi-input/multi-output systems")
        num_a = num_a.reshape(-1)
        den_a = den_a.reshape(-1)
        if den_a.size == 0:
            raise BlockParameterError(f"{owner}: den is empty; give at least one coefficient")
        if den_a[0] == 0.0:
            raise BlockParameterError(
                f"{owner}: the leading denominator coefficient den[0] must be non-zero, got "
                f"den={den_a.tolist()}; drop leading zeros")
        if num_a.size == 0:
            raise BlockParameterError(f"{owner}: num is empty; give at least one coefficient")
        nz = np.flatnonzero(num_a)
        num_a = num_a[nz[0]:] if nz.size else np.zeros(1)
        n = den_a.size - 1
        if num_a.size - 1 > n:
            raise BlockParameterError(
                f"{owner}: improper transfer function: numerator degree {num_a.size - 1} > "
                f"denominator degree {n} (num={num_a.tolist()}, den={den_a.tolist()}); "
                f"a block output cannot differentiate its input - use Derivative or add poles")
        if n == 0:
            A = np.zeros((0, 0))
            B = np.zeros((0, 1))
            C = np.zeros((1, 0))
            D = np.array([[num_a[0] / den_a[0]]])
        else:
            with warnings.catch_warnings():
                from scipy.signal import BadCoefficients, tf2ss  # lazy: a slow import

                warnings.simplefilter("ignore", BadCoefficients)
                A, B, C, D = tf2ss(num_a, den_a)
            A, B, C, D = (np.asarray(M, dtype=float) for M in (A, B, C, D))
        if x0 is None:
            x0a = np.zeros(n)
        else:
            x0a = _real_array(owner, "x0", x0).reshape(-1)
            if x0a.size != n:
                raise BlockParameterError(
                    f"{owner}: x0 must have {n} element(s) (the order of den), got "
                    f"{x0a.size}")
        self.A, self.B, self.C, self.D = A, B, C, D
        self.set_state(x0a, tuple(f"x{i}" for i in range(n)))
        self.feedthrough = {"y": ("u",) if D[0, 0] != 0.0 else ()}  # type: ignore[misc]
        self._bind_siso(A, B, C, D)

    # The class-level deriv/output are the reference implementations; __init__ binds faster
    # kernels with identical results to the instance.
    def deriv(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Any:
        """dx/dt = A x + B u (the bound kernel returns a tuple of floats for n <= 4)."""
        return self.A @ x + self.B[:, 0] * u[0]

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        """y = C x + D u as a float; reads ``u`` only when D != 0."""
        y = float(self.C[0] @ x)
        if self._d != 0.0:
            y += self._d * u[0]
        return (y,)

    def kernels(self) -> Kernels:
        """The compiled kernels (:mod:`blocksim.engine.compiled.kernels`): ``tf_output`` and
        ``tf_state`` (as ``deriv``) for every order.

        Params ``(d, c_0 .. c_{n-1}, a_0 .. a_{n-1})`` (floats; ``a`` the first row of the
        companion A) while they are at most ``MAX_FLOAT_PARAMS`` = 32 numbers (n <= 15): the
        kernels unroll over n and never allocate; ``(d, c, a)`` with float64 arrays above. A
        static gain (n = 0) has params ``(d,)`` and no ``deriv``. The output never reads u
        when d = 0.
        """
        params, output, state = tf_kernels(self.A, self.B, self.C, self.D)
        return Kernels(params, output=output, deriv=state)


# -- StateSpace
class StateSpace(_LinearKernels):
    r"""Linear time-invariant state-space system.

    .. math::

        \dot x = A x + B u, \qquad y = C x + D u

    Parameters
    ----------
    A : array_like, shape (n, n)
        State matrix, n >= 1 (a scalar is taken as 1 x 1).
    B : array_like, shape (n, m)
        Input matrix. A 1-D array of length n is taken as a single column (m = 1).
    C : array_like, shape (p, n)
        Output matrix. A 1-D array of length n is taken as a single row (p = 1).
    D : array_like, shape (p, m), optional
        Feedthrough matrix (default zeros). A scalar or 1-D array is accepted when it has
        exactly p * m elements and p == 1 or m == 1.
    x0 : array_like, shape (n,), optional
        Initial state (default zeros).

    Inputs
    ------
    u : float if m == 1, else ndarray of shape (m,)
        Input vector.

    Outputs
    -------
    y : float if p == 1, else ndarray of shape (p,)
        Output vector. Feedthrough from ``u`` only when D has a non-zero entry.

    States
    ------
    x : shape (n,)
        Named ``"x0" .. "x{n-1}"``.
    """

    inputs = ("u",)
    outputs = ("y",)

    def __init__(self, A: Any, B: Any, C: Any, D: Any = None, x0: Any = None) -> None:
        super().__init__()
        owner = type(self).__name__
        Aa, Ba, Ca, Da, x0a = check_state_space(owner, A, B, C, D, x0,
                                                "; for a static system use a Gain block")
        n, m, p = Aa.shape[0], Ba.shape[1], Ca.shape[0]
        self.A, self.B, self.C, self.D = Aa, Ba, Ca, Da
        self.set_state(x0a, tuple(f"x{i}" for i in range(n)))
        self.set_ports(inputs=(Port("u", shape=() if m == 1 else (m,)),),
                       outputs=(Port("y", shape=() if p == 1 else (p,)),))
        has_d = bool(np.any(Da != 0.0))
        self.feedthrough = {"y": ("u",) if has_d else ()}  # type: ignore[misc]
        self._has_d = has_d
        if m == 1 and p == 1:
            self._bind_siso(Aa, Ba, Ca, Da)
            return
        self._Bcol = Ba[:, 0].copy()
        self._Crow = Ca[0].copy()
        if m == 1:
            self.deriv = self._deriv_si  # type: ignore[method-assign]
        else:
            self.deriv = self._deriv_mi  # type: ignore[method-assign]
        if p == 1:
            self.output = self._out_so  # type: ignore[method-assign]
        else:
            self.output = self._out_mo  # type: ignore[method-assign]

    # The class-level deriv/output are the reference implementations; __init__ binds faster
    # kernels with identical results to the instance.
    def deriv(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Any:
        """dx/dt = A x + B u."""
        return self.A @ x + self.B @ np.atleast_1d(u[0])

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any]:
        """y = C x + D u; reads ``u`` only when D is non-zero."""
        y = self.C @ x
        if self._has_d:
            y = y + self.D @ np.atleast_1d(u[0])
        return (float(y[0]),) if y.size == 1 and self.C.shape[0] == 1 else (y,)

    # -- numpy kernels for multi-input or multi-output systems
    def _deriv_si(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        return self.A @ x + self._Bcol * u[0]

    def _deriv_mi(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        return self.A @ x + self.B @ u[0]

    def _out_so(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[float]:
        y = float(self._Crow @ x)
        if self._has_d:
            y += float(self.D[0] @ np.atleast_1d(u[0]))
        return (y,)

    def _out_mo(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray]:
        y = self.C @ x
        if self._has_d:
            v = u[0]
            y = y + (self.D[:, 0] * v if isinstance(v, float) else self.D @ v)
        return (y,)

    def kernels(self) -> Kernels:
        """The compiled kernels (:mod:`blocksim.engine.compiled.kernels`): ``ss_output`` and
        ``ss_state`` (as ``deriv``) for every size.

        Single input and output with at most 32 coefficients (n <= 4): params ``(d, c_0 ..
        c_{n-1}, A row-major .., b_0 .. b_{n-1})``, floats, unrolled kernels that never
        allocate. Otherwise ``(A, B, C, D)`` float64 arrays, C a row of shape (n,) when there
        is one output. Zero entries of D are skipped: a strictly proper system's output never
        reads u.
        """
        params, output, state = ss_kernels(self.A, self.B, self.C, self.D)
        return Kernels(params, output=output, deriv=state)
