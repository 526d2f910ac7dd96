r"""The unscented Kalman filter as a block: :class:`UnscentedKalmanFilter`.

Numerics: :mod:`blocksim.robotics.control.ukf` and its named models
:mod:`blocksim.robotics.control.ukf_models`; kernels:
:mod:`blocksim.blocks.control.ukf_kernels`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from blocksim.blocks.control import ukf_kernels as uk
from blocksim.blocks.control._checks import (
    covariance,
    matrix,
    port_shape,
    positive,
    sample_clock,
    square,
    vector,
)
from blocksim.blocks.control.feedback_kernels import input_vectors
from blocksim.engine.block import Block, Port
from blocksim.engine.compiled.kernels import Kernels
from blocksim.engine.errors import BlockParameterError, plain, suggest
from blocksim.robotics.control.ukf import sigma_weights, ukf_step_python
from blocksim.robotics.control.ukf_models import (
    MODELS,
    model_names,
    model_params,
    registered_model,
)

__all__ = ["UnscentedKalmanFilter"]


class UnscentedKalmanFilter(Block):
    r"""Discrete unscented Kalman filter for a named nonlinear model, clocked at ``dt``.

    Model (additive noise)::

        x[k+1] = f(x[k], u[k]) + w[k],   w ~ N(0, Q)
        z[k]   = h(x[k], u[k]) + v[k],   v ~ N(0, R)

    ``f`` and ``h`` come from the library of models
    (:data:`blocksim.robotics.control.ukf_models.MODELS`), named by ``model`` so that a
    diagram file holds only a name and numbers:

    * ``"linear"``: ``f = A x + B u``, ``h = C x + D u`` (give ``A``, ``C`` and optionally
      ``B``, ``D``); the filter is then the :class:`KalmanFilter`;
    * ``"pendulum"``: state (theta [rad], omega [rad/s]), input torque [N m], measurement
      theta [rad]; ``model_params`` ``(g [m/s^2], l [m], m [kg], b [N m s/rad])``, default
      ``(9.81, 1, 1, 0)``;
    * ``"unicycle"``: state (x [m], y [m], theta [rad]), input (v [m/s], omega [rad/s]),
      measurement (x, y) [m].

    A model of Python functions registered by name with
    :func:`blocksim.robotics.control.register_model` is named the same way; it runs on the
    interpreted back-end only.

    The continuous models are integrated over ``dt`` by Runge-Kutta steps with the input
    held. Timing as the :class:`KalmanFilter`: the state is the prediction ``x[k|k-1]``,
    ``P[k|k-1]``; the output at hit k is the correction with ``z[k]``, then the filter
    predicts with ``u[k]``.

    Parameters
    ----------
    model : str
        ``"linear"``, ``"pendulum"``, ``"unicycle"`` or a registered model's name.
    Q : array_like (n, n) or (n,)
        Process noise covariance [state units^2].
    R : array_like (p, p) or (p,)
        Measurement noise covariance [measurement units^2], positive definite.
    x0 : array_like (n,), optional
        Initial estimate ``x[0|-1]`` (default zeros).
    P0 : array_like (n, n) or (n,), optional
        Its covariance (default the identity), positive definite.
    dt : Clock, float or (float, float)
        Sample clock: a period [s], a (period, offset) pair [s] or a Clock. Required.
    model_params : sequence of float, optional
        The model's parameters in the order above (defaults for the missing ones).
    A, B, C, D : array_like, optional
        The ``"linear"`` model's matrices (n, n), (n, m), (p, n), (p, m); B None: no input.
    alpha : float
        Spread of the sigma points, > 0 (default 1).
    beta : float
        Prior knowledge of the distribution (default 2, optimal for a Gaussian).
    kappa : float
        Secondary scaling (default 0), with ``alpha^2 (n + kappa) > 0``.

    Inputs
    ------
    u : ndarray (nu,) (float when nu = 1)
        Model input; absent for a ``"linear"`` model without ``B``.
    z : ndarray (p,) (float when p = 1)
        Measurement.

    Outputs
    -------
    xhat : ndarray (n,)
        Corrected estimate ``x[k|k]``.
    P : ndarray (n, n)
        Its covariance ``P[k|k]``.

    States
    ------
    discrete: ``xhat0..`` (n) and ``P0_0..`` (n*n), the prediction.
    """

    inputs = (Port("u", doc="model input"), Port("z", doc="measurement"))
    outputs = (Port("xhat", doc="estimate"), Port("P", doc="covariance"))

    def __init__(self, model: str, Q: Any, R: Any, x0: Any = None, P0: Any = None,
                 dt: Any = None, model_params: Any = None, A: Any = None, B: Any = None,
                 C: Any = None, D: Any = None, alpha: float = 1.0, beta: float = 2.0,
                 kappa: float = 0.0) -> None:
        super().__init__()
        o = type(self).__name__
        names = model_names()
        if model not in names:
            raise BlockParameterError(
                f"{o}: parameter 'model' must be one of {', '.join(map(repr, names))} (or a "
                f"model registered with blocksim.robotics.control.register_model), got "
                f"{plain(model)}{suggest(str(model), names)}")
        self.clock = sample_clock(o, dt)
        user = registered_model(model)
        kind, _names, sizes = MODELS[model] if user is None else (-1, user.params, user.sizes)
        self._user = user
        if model == "linear":
            if A is None or C is None:
                raise BlockParameterError(f"{o}: model 'linear' needs the matrices 'A' and 'C'")
            Am = square(o, "A", A)
            n = Am.shape[0]
            Bm = np.zeros((n, 0)) if B is None else matrix(o, "B", B, n, None if np.ndim(B) == 2
                                                             or n == 1 else 1)
            Cm = matrix(o, "C", C, None, n)
            nu, p = Bm.shape[1], Cm.shape[0]
            if D is not None and nu == 0:
                raise BlockParameterError(f"{o}: parameter 'D' needs an input: give 'B' too (the "
                                          f"model has no input u without B)")
            Dm = np.zeros((p, nu)) if D is None else matrix(o, "D", D, p, nu)
            mp = model_params_or_error(o, model, model_params, Am, Bm, Cm, Dm)
        else:
            for name, value in (("A", A), ("B", B), ("C", C), ("D", D)):
                if value is not None:
                    raise BlockParameterError(f"{o}: parameter '{name}' is for model "
                                              f"'linear' only, not {model!r}")
            assert sizes is not None
            n, nu, p = sizes
            mp = model_params_or_error(o, model, model_params)
        a = positive(o, "alpha", alpha)
        try:
            Wm, Wc, gamma = sigma_weights(n, a, float(beta), float(kappa))
        except (TypeError, ValueError) as exc:
            raise BlockParameterError(f"{o}: parameters alpha, beta, kappa: {exc}") from None
        Qm = covariance(o, "Q", Q, n)
        Rm = covariance(o, "R", R, p, definite=True)
        xe = np.zeros(n) if x0 is None else vector(o, "x0", x0, n)
        P0m = np.eye(n) if P0 is None else covariance(o, "P0", P0, n, definite=True)
        self.model, self.n, self.Q, self.R = model, n, Qm, Rm
        self.set_state(np.concatenate((xe, P0m.reshape(-1))),
                       [f"xhat{i}" for i in range(n)]
                       + [f"P{i}_{j}" for i in range(n) for j in range(n)])
        self._p = (kind, np.ascontiguousarray(mp), Qm, Rm, Wm, Wc, float(gamma),
                   float(self.clock.period), nu)
        zp = Port("z", shape=port_shape(p), doc="measurement")
        self.set_ports(inputs=[Port("u", shape=port_shape(nu), doc="model input"), zp]
                       if nu else [zp],
                       outputs=[Port("xhat", shape=(n,), doc="estimate x[k|k]"),
                                Port("P", shape=(n, n), doc="covariance P[k|k]")])
        # h reads u only in a linear model with D != 0 (the named models measure the state),
        # or in a registered model that says so
        reads_u = np.any(Dm != 0.0) if model == "linear" else user is not None and user.h_reads_u
        via_u = ("u",) if nu and reads_u else ()
        self.feedthrough = {"xhat": (*via_u, "z"), "P": via_u}  # type: ignore[misc]

    def _step(self, x: np.ndarray, u: Sequence[Any]) -> tuple[np.ndarray, ...]:
        xs = np.array(x, dtype=np.float64)
        uv, zv = input_vectors(u)
        if self._user is None:
            return uk.ukf_step(xs, uv, zv, self._p)  # type: ignore[no-any-return]
        n = self.n
        _kind, mp, Q, R, Wm, Wc, gamma, dt, _nu = self._p
        return ukf_step_python(self._user.f, self._user.h, xs[:n].copy(),
                               xs[n:].reshape(n, n).copy(), uv, zv, mp, Q, R, Wm, Wc, gamma, dt)

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any, ...]:
        """``(xhat, P)``: the corrected estimate and its covariance."""
        xf, Pf, _next = self._step(x, u)
        return xf, Pf

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> np.ndarray:
        """The prediction ``x[k+1|k]``, ``P[k+1|k]``."""
        return self._step(x, u)[2]

    def kernels(self) -> Kernels | None:
        """Params ``(kind, mp, Q, R, Wm, Wc, gamma, dt, nu)``
        (:mod:`~blocksim.blocks.control.ukf_kernels`); None for a registered model of Python
        functions (the compiled back-end then refuses the block)."""
        if self._user is not None:
            return None
        return Kernels(self._p, output=uk.ukf_output, update=uk.ukf_update)


def model_params_or_error(owner: str, model: str, values: Any, *matrices: np.ndarray
                          ) -> np.ndarray:
    """:func:`~blocksim.robotics.control.ukf_models.model_params`, its errors as
    :class:`BlockParameterError` naming ``owner`` and the parameter."""
    try:
        return model_params(model, values, *matrices)
    except (TypeError, ValueError) as exc:
        raise BlockParameterError(f"{owner}: parameter 'model_params': {exc}") from None
