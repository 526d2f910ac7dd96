r"""The library of named discrete-time models of the unscented Kalman filter.

A diagram file names a model (``"model": "pendulum"``) and gives its parameters as numbers;
no code is read from the file. Each model is a pair of numba functions over float64 arrays,
dispatched by an integer id so that one compiled kernel serves every model:

``model_f(kind, x, u, mp, dt) -> x_next``
    the state transition over one sample period ``dt`` [s];
``model_h(kind, x, u, mp) -> z``
    the measurement.

``mp`` is the model's flat parameter vector (:func:`model_params` makes it).

=========  ==========================  ============  =====================================
model      state x                     input u       measurement z
=========  ==========================  ============  =====================================
linear     (n,)                        (m,) or none  ``C x + D u``; ``f = A x + B u``
pendulum   (theta [rad], omega [rad/s])  torque [N m]  theta [rad]
unicycle   (x [m], y [m], theta [rad])   (v [m/s],     (x, y) [m]
                                         omega [rad/s])
=========  ==========================  ============  =====================================

The pendulum is ``theta'' = -(g/l) sin(theta) - b/(m l^2) theta' + tau/(m l^2)`` and the
unicycle ``x' = v cos(theta), y' = v sin(theta), theta' = omega``, both with the input held
over the period and integrated by :data:`SUBSTEPS` classical Runge-Kutta steps.

Models of Python functions can be added by name (:func:`register_model`, from Python code,
like :func:`blocksim.io.register_block`); they run on the interpreted back-end only.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np

from blocksim.robotics.control.dense import mv

_njit = numba.njit(cache=True, error_model="numpy")

__all__ = ["MODELS", "SUBSTEPS", "UserModel", "model_f", "model_h", "model_names", "model_params",
           "register_model", "registered_model"]

LINEAR, PENDULUM, UNICYCLE = 0, 1, 2
#: Runge-Kutta steps per sample period of the continuous models
SUBSTEPS = 10

#: name -> (id, parameter names with defaults, (nx, nu, nz)); None sizes come from A, B, C
MODELS: dict[str, tuple[int, dict[str, float], tuple[int, int, int] | None]] = {
    "linear": (LINEAR, {}, None),
    "pendulum": (PENDULUM, {"g": 9.81, "l": 1.0, "m": 1.0, "b": 0.0}, (2, 1, 1)),
    "unicycle": (UNICYCLE, {}, (3, 2, 2)),
}


@dataclass(frozen=True)
class UserModel:
    """A model registered from Python (:func:`register_model`).

    Attributes
    ----------
    f : callable
        ``f(x (nx,), u (nu,), mp, dt) -> x_next (nx,)``.
    h : callable
        ``h(x (nx,), u (nu,), mp) -> z (nz,)``.
    sizes : (int, int, int)
        ``(nx, nu, nz)``.
    params : dict
        Parameter names and defaults (the order of ``mp``).
    h_reads_u : bool
        Whether ``h`` depends on ``u`` (the filter's estimate then reads its input ``u`` at
        the same instant).
    """

    f: Callable[..., Any]
    h: Callable[..., Any]
    sizes: tuple[int, int, int]
    params: dict[str, float] = field(default_factory=dict)
    h_reads_u: bool = False


_USER: dict[str, UserModel] = {}


def register_model(name: str, f: Callable[..., Any], h: Callable[..., Any], nx: int, nu: int,
                   nz: int, params: dict[str, float] | None = None,
                   h_reads_u: bool = False) -> None:
    """Make a model of Python functions available to the unscented Kalman filter by ``name``
    (a diagram file then names it like a library model).

    The filter calls ``f(x, u, mp, dt)`` (the state after one period ``dt`` [s]) and
    ``h(x, u, mp)`` (the measurement) on float64 arrays ``x`` (nx,), ``u`` (nu,) and the
    parameter vector ``mp`` (in the order of ``params``); such a model runs on the
    interpreted back-end only (the compiled back-end refuses the block, naming it).

    Parameters
    ----------
    name : str
        The model's name; not a library model's.
    f, h : callable
        The state transition and the measurement.
    nx, nu, nz : int
        Numbers of states (>= 1), inputs (>= 0) and measurements (>= 1).
    params : dict, optional
        Parameter names and default values.
    h_reads_u : bool
        Whether the measurement depends on the input (default False).
    """
    if name in MODELS:
        raise ValueError(f"{name!r} is a library model of the unscented Kalman filter; "
                         f"register yours under another name")
    if not (callable(f) and callable(h)):
        raise TypeError("register_model: f and h must be callables")
    if nx < 1 or nu < 0 or nz < 1:
        raise ValueError(f"register_model: sizes must be nx >= 1, nu >= 0, nz >= 1, got "
                         f"({nx}, {nu}, {nz})")
    _USER[name] = UserModel(f, h, (int(nx), int(nu), int(nz)),
                            {k: float(v) for k, v in (params or {}).items()}, bool(h_reads_u))


def registered_model(name: str) -> UserModel | None:
    """The model registered as ``name``, or None."""
    return _USER.get(name)


def model_names() -> list[str]:
    """The library's models, then the registered ones."""
    return [*MODELS, *_USER]


def model_params(name: str, params: Any, A: np.ndarray | None = None,
                 B: np.ndarray | None = None, C: np.ndarray | None = None,
                 D: np.ndarray | None = None) -> np.ndarray:
    """The flat parameter vector ``mp`` of the model ``name``.

    Parameters
    ----------
    name : str
        A key of :data:`MODELS`.
    params : dict or sequence of float or None
        The model's parameters by name or in the order of :data:`MODELS` (defaults for the
        missing ones); none for ``linear`` and ``unicycle``.
    A, B, C, D : ndarray, optional
        The matrices of the ``linear`` model, (n, n), (n, m), (p, n), (p, m).

    Returns
    -------
    ndarray
        ``linear``: ``(n, m, p, A, B, C, D)`` flattened row-major; ``pendulum``:
        ``(g, l, m, b)``; ``unicycle``: empty.
    """
    user = _USER.get(name)
    names = user.params if user is not None else MODELS[name][1]
    if name == "linear":
        assert A is not None and B is not None and C is not None and D is not None
        n, m, p = A.shape[0], B.shape[1], C.shape[0]
        return np.concatenate(([n, m, p], A.ravel(), B.ravel(), C.ravel(), D.ravel()))
    values = dict(names)
    if isinstance(params, dict):
        unknown = sorted(set(params) - set(names))
        if unknown:
            raise ValueError(f"model {name!r} has no parameter {unknown[0]!r}; its parameters: "
                             f"{', '.join(names) or '(none)'}")
        values.update(params)
    elif params is not None:
        seq = list(np.atleast_1d(np.asarray(params, dtype=float)))
        if len(seq) > len(names):
            raise ValueError(f"model {name!r} takes {len(names)} parameter(s) "
                             f"({', '.join(names) or 'none'}), got {len(seq)}")
        values.update(zip(names, seq))
    out = np.array([float(values[k]) for k in names], dtype=float)
    if not np.all(np.isfinite(out)):
        raise ValueError(f"model {name!r}: parameters must be finite, got {out.tolist()}")
    if name == "pendulum" and not (out[1] > 0.0 and out[2] > 0.0):
        raise ValueError(f"model 'pendulum': l and m must be > 0, got l = {out[1]:g}, "
                         f"m = {out[2]:g}")
    return out


@_njit
def _linear_parts(mp):
    n, m, p = int(mp[0]), int(mp[1]), int(mp[2])
    i = 3
    A = mp[i:i + n * n].reshape((n, n))
    i += n * n
    B = mp[i:i + n * m].reshape((n, m))
    i += n * m
    C = mp[i:i + p * n].reshape((p, n))
    i += p * n
    D = mp[i:i + p * m].reshape((p, m))
    return A, B, C, D


@_njit
def _rate(kind, x, u, mp):
    """The continuous models' dx/dt."""
    d = np.empty_like(x)
    if kind == PENDULUM:
        ml2 = mp[2] * mp[1] * mp[1]
        d[0] = x[1]
        d[1] = -(mp[0] / mp[1]) * math.sin(x[0]) - mp[3] / ml2 * x[1] + u[0] / ml2
    else:  # UNICYCLE
        d[0] = u[0] * math.cos(x[2])
        d[1] = u[0] * math.sin(x[2])
        d[2] = u[1]
    return d


@_njit
def model_f(kind, x, u, mp, dt):
    """The state after one period ``dt`` [s] from ``x`` (nx,) with the input ``u`` (nu,)."""
    if kind == LINEAR:
        A, B, _C, _D = _linear_parts(mp)
        return mv(A, x) + mv(B, u)
    h = dt / SUBSTEPS
    y = x.copy()
    for _ in range(SUBSTEPS):
        k1 = _rate(kind, y, u, mp)
        k2 = _rate(kind, y + 0.5 * h * k1, u, mp)
        k3 = _rate(kind, y + 0.5 * h * k2, u, mp)
        k4 = _rate(kind, y + h * k3, u, mp)
        y = y + (h / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return y


@_njit
def model_h(kind, x, u, mp):
    """The measurement (nz,) of the state ``x`` with the input ``u``."""
    if kind == LINEAR:
        _A, _B, C, D = _linear_parts(mp)
        return mv(C, x) + mv(D, u)
    if kind == PENDULUM:
        z = np.empty(1)
        z[0] = x[0]
        return z
    return x[:2].copy()
