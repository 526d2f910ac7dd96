"""Control design helpers over python-control: LQR gains and stability margins.

:func:`lqr` and :func:`dlqr` return ``(K, S, E)`` as ``control.lqr``/``control.dlqr`` do (the
gain, the Riccati solution, the closed-loop eigenvalues) for a ``StateSpace`` (e.g. from
:func:`~blocksim.analysis.linearize`) or the matrices ``A, B``; the control law is
``u = -K x``. :func:`margins` gives gain and phase margins of a SISO loop transfer and their
crossover frequencies (``control.stability_margins``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from blocksim.analysis.points import AnalysisError


def _system_and_weights(name: str, args: tuple[Any, ...], discrete: bool
                        ) -> tuple[np.ndarray, np.ndarray, tuple[Any, ...]]:
    """``(A, B, rest)`` of ``lqr(sys, Q, R[, N])`` or ``lqr(A, B, Q, R[, N])``."""
    import control

    if not args:
        raise TypeError(f"{name}() needs a system (StateSpace, or A and B) and Q, R")
    first = args[0]
    if isinstance(first, control.LTI):
        sys = first if isinstance(first, control.StateSpace) else control.ss(first)
        if discrete and not sys.isdtime(strict=True):
            raise AnalysisError(f"{name}: the system is continuous (dt = 0); use lqr, or "
                                f"discretize it (sys.sample(Ts))")
        if not discrete and sys.isdtime(strict=True):
            raise AnalysisError(f"{name}: the system is discrete (dt = {sys.dt}); use dlqr")
        return np.asarray(sys.A, float), np.asarray(sys.B, float), args[1:]
    if len(args) < 2:
        raise TypeError(f"{name}() needs A and B, or a StateSpace")
    return np.atleast_2d(np.asarray(args[0], float)), np.atleast_2d(
        np.asarray(args[1], float)), args[2:]


def _weights(name: str, rest: tuple[Any, ...], n: int, m: int) -> list[np.ndarray]:
    if len(rest) not in (2, 3):
        raise TypeError(f"{name}() takes Q, R and optionally N after the system, got "
                        f"{len(rest)} more arguments")
    Q = np.atleast_2d(np.asarray(rest[0], float))
    R = np.atleast_2d(np.asarray(rest[1], float))
    if Q.shape != (n, n):
        raise AnalysisError(f"{name}: Q has shape {Q.shape}, expected ({n}, {n}) for {n} states")
    if R.shape != (m, m):
        raise AnalysisError(f"{name}: R has shape {R.shape}, expected ({m}, {m}) for {m} "
                            f"inputs")
    out = [Q, R]
    if len(rest) == 3:
        N = np.atleast_2d(np.asarray(rest[2], float))
        if N.shape != (n, m):
            raise AnalysisError(f"{name}: N has shape {N.shape}, expected ({n}, {m})")
        out.append(N)
    return out


def lqr(*args: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Continuous linear-quadratic regulator: ``lqr(sys, Q, R[, N])`` or
    ``lqr(A, B, Q, R[, N])``.

    Minimises ``integral(x' Q x + u' R u + 2 x' N u) dt`` for ``x' = A x + B u`` with
    ``u = -K x``.

    Parameters
    ----------
    sys : control.StateSpace
        A continuous system (n states, m inputs), or give ``A`` (n, n) and ``B`` (n, m).
    Q : array_like, shape (n, n)
        State weight (symmetric, positive semi-definite).
    R : array_like, shape (m, m)
        Input weight (symmetric, positive definite).
    N : array_like, shape (n, m), optional
        Cross weight.

    Returns
    -------
    K : ndarray, shape (m, n)
        State-feedback gain.
    S : ndarray, shape (n, n)
        Solution of the algebraic Riccati equation.
    E : ndarray, shape (n,)
        Closed-loop eigenvalues (of A - B K).
    """
    import control

    A, B, rest = _system_and_weights("lqr", args, discrete=False)
    W = _weights("lqr", rest, A.shape[0], B.shape[1])
    K, S, E = control.lqr(A, B, *W)
    return np.asarray(K), np.asarray(S), np.asarray(E)


def dlqr(*args: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Discrete linear-quadratic regulator: ``dlqr(sys, Q, R[, N])`` or
    ``dlqr(A, B, Q, R[, N])``, for ``x[k+1] = A x[k] + B u[k]``, ``u[k] = -K x[k]``,
    minimising ``sum(x' Q x + u' R u + 2 x' N u)``. Shapes and returns as :func:`lqr`
    (``E`` inside the unit circle for a stabilising gain)."""
    import control

    A, B, rest = _system_and_weights("dlqr", args, discrete=True)
    W = _weights("dlqr", rest, A.shape[0], B.shape[1])
    K, S, E = control.dlqr(A, B, *W)
    return np.asarray(K), np.asarray(S), np.asarray(E)


@dataclass(frozen=True)
class Margins:
    """Stability margins of a SISO loop transfer L (negative feedback around it).

    Attributes
    ----------
    gm : float
        Gain margin (a factor, ``inf`` when the phase never crosses -180 deg).
    pm : float
        Phase margin [deg] (``inf`` when |L| never crosses 1).
    sm : float
        Stability margin: the least distance of the Nyquist curve from -1.
    wpc : float
        Phase crossover frequency (where the phase is -180 deg; the gain margin's)
        [rad/s], NaN without one.
    wgc : float
        Gain crossover frequency (where |L| = 1; the phase margin's) [rad/s], NaN without.
    wms : float
        Frequency of the stability margin [rad/s].
    """

    gm: float
    pm: float
    sm: float
    wpc: float
    wgc: float
    wms: float

    @property
    def gm_db(self) -> float:
        """Gain margin [dB]."""
        return 20.0 * math.log10(self.gm) if self.gm > 0 else -math.inf

    def as_dict(self) -> dict[str, float | None]:
        """The margins as a dict; ``None`` for an infinite or undefined value (strict
        JSON)."""
        values = {"gm": self.gm, "gm_db": self.gm_db, "pm": self.pm, "sm": self.sm,
                  "wpc": self.wpc, "wgc": self.wgc, "wms": self.wms}
        return {k: (float(v) if math.isfinite(v) else None) for k, v in values.items()}


def margins(sys: Any) -> Margins:
    """Gain and phase margins and crossover frequencies of the SISO loop transfer ``sys``
    (a ``control`` LTI system, continuous or discrete), as ``control.stability_margins``
    gives them for its minimal transfer function (pole-zero pairs that cancel removed).

    Raises
    ------
    AnalysisError
        ``sys`` is not SISO (pick one input and one output, ``sys[i, j]``).
    """
    import control

    if not isinstance(sys, control.LTI):
        raise TypeError(f"margins() expects a control LTI system, got {type(sys).__name__}")
    if sys.ninputs != 1 or sys.noutputs != 1:
        raise AnalysisError(f"margins: the system has {sys.ninputs} inputs and "
                            f"{sys.noutputs} outputs; margins are of a SISO loop transfer "
                            f"(select one with sys[out, in])")
    # on a minimal transfer function: a diagram's realization may carry modes that cancel
    # (a PID's unused derivative filter), whose round-off would show as far-away crossings
    loop = _clean(control.tf(sys)).minreal()
    gm, pm, sm, wpc, wgc, wms = control.stability_margins(loop)
    return Margins(*(float(v) for v in (gm, pm, sm, wpc, wgc, wms)))


def _clean(tf: Any) -> Any:
    """A SISO transfer function without the leading numerator coefficients that are round-off
    (below 1e-12 of the largest; ss2tf leaves such terms of the degree the model lacks)."""
    import control

    num = np.asarray(tf.num[0][0], dtype=float)
    den = np.asarray(tf.den[0][0], dtype=float)
    big = float(np.max(np.abs(num))) if num.size else 0.0
    k = 0
    while k < num.size - 1 and abs(num[k]) <= 1e-12 * big:
        k += 1
    return control.tf(num[k:], den, tf.dt)
