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
    if loop.isdtime(strict=True):
        return _discrete_margins(loop)
    gm, pm, sm, wpc, wgc, wms = control.stability_margins(loop)
    return Margins(*(float(v) for v in (gm, pm, sm, wpc, wgc, wms)))


#: points of the unit-circle grid a discrete loop's crossings are bracketed on
_GRID = 20_000


def _discrete_margins(loop: Any) -> Margins:
    """Margins of a discrete SISO loop transfer, found on the unit circle z = exp(j w dt),
    0 < w <= pi/dt: crossings bracketed on a log-spaced grid and refined by Brent's method,
    chosen as ``control.stability_margins`` chooses them (the gain margin nearest 1 in log,
    the phase margin least in magnitude). python-control 0.10's polynomial method for
    discrete loops takes a pole at z = 1 (an integrator) for a -180 deg crossing at w = 0,
    reporting a gain margin of ~1e-10 and missing the crossing at the Nyquist frequency."""
    from scipy.optimize import brentq, minimize_scalar

    dt = float(loop.dt)
    w_n = math.pi / dt

    def resp(w: Any) -> Any:
        with np.errstate(all="ignore"):
            return np.asarray(loop(np.exp(1j * np.asarray(w, dtype=float) * dt)))

    w = np.unique(np.append(np.geomspace(w_n * 1e-8, w_n, _GRID), w_n))
    L = resp(w)
    ok = np.isfinite(L) & (np.abs(L) < 1e12)  # off the loop's poles on the circle

    def brackets(f: np.ndarray) -> list[tuple[float, float]]:
        s = np.sign(f)
        idx = np.where(ok[:-1] & ok[1:] & (s[:-1] * s[1:] < 0))[0]
        return [(float(w[i]), float(w[i + 1])) for i in idx]

    w180 = [brentq(lambda v: float(resp(v).imag), a, b, xtol=1e-14 * b, rtol=1e-14)
            for a, b in brackets(L.imag)]
    if ok[-1] and abs(L[-1].imag) <= 1e-12 * max(1.0, abs(L[-1])):
        w180.append(w_n)  # z = -1: L is real there
    w180 = [v for v in w180 if float(resp(v).real) < 0.0]
    wc = [brentq(lambda v: float(abs(resp(v))) - 1.0, a, b, xtol=1e-14 * b, rtol=1e-14)
          for a, b in brackets(np.abs(L) - 1.0)]
    dist = np.where(ok, np.abs(L + 1.0), np.inf)
    k = int(np.argmin(dist))
    lo, hi = float(w[max(k - 1, 0)]), float(w[min(k + 1, len(w) - 1)])
    best = minimize_scalar(lambda v: float(abs(resp(v) + 1.0)), bounds=(lo, hi),
                           method="bounded", options={"xatol": 1e-12 * hi})
    wms, sm = (float(best.x), float(best.fun)) if best.fun < dist[k] else (float(w[k]),
                                                                        float(dist[k]))
    gm, wpc = math.inf, math.nan
    if w180:
        gms = [1.0 / abs(complex(resp(v))) for v in w180]
        i = int(np.argmin([abs(math.log(g)) if g > 0 else math.inf for g in gms]))
        gm, wpc = gms[i], w180[i]
    pm, wgc = math.inf, math.nan
    if wc:
        pms = [float(np.remainder(np.angle(complex(resp(v)), deg=True), 360.0) - 180.0)
               for v in wc]
        i = int(np.argmin(np.abs(pms)))
        pm, wgc = pms[i], wc[i]
    return Margins(gm, pm, sm, wpc, wgc, wms)


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
