"""Compiled kernels of the vehicle blocks (:mod:`blocksim.blocks.vehicle.vehicles`).

Argument order ``(t, x, u0, ..., params)``; the numerics are those of
:mod:`blocksim.robotics.mobile`, the interpreted methods compute the same formulas (tested
equal on both back-ends).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from blocksim.blocks.sources.random_streams import normal_sample
from blocksim.robotics.mobile.kinematics import diffsteer_speeds, rate_limit_deriv
from blocksim.robotics.mobile.kinematics import pioneer_deriv as pioneer_deriv_nb
from blocksim.robotics.mobile.odometry import odo_f, odometry, vehicle_control


@njit(cache=True, error_model="numpy")
def _clip(v, lim):
    return min(lim, max(-lim, v))


@njit(cache=True, error_model="numpy")
def pose_output(t, x, *args):
    """``(x, y, theta, pose)`` of a planar vehicle state; reads no input."""
    p = np.empty(3)
    p[0] = x[0]
    p[1] = x[1]
    p[2] = x[2]
    return x[0], x[1], x[2], p


@njit(cache=True, error_model="numpy")
def _bicycle(x, v_in, g_in, braking, p):
    L, vmax, stlim, amax, tau = p[0], p[1], p[2], p[3], p[4]
    dv = 0.0
    if amax > 0:
        v = x[3]
        if braking:
            dv = -v / tau
        else:
            dv = rate_limit_deriv(v, _clip(v_in, vmax), tau, amax)
    else:
        v = _clip(v_in, vmax)
    if braking:
        v = 0.0
    g = _clip(g_in, stlim)
    n = x.shape[0]
    out = np.empty(n)
    out[0] = v * math.cos(x[2])
    out[1] = v * math.sin(x[2])
    out[2] = v * math.tan(g) / L
    if n == 4:
        out[3] = dv
    return out


@njit(cache=True, error_model="numpy")
def bicycle_deriv(t, x, v, gamma, p):
    """Bicycle rates; params ``(L, vmax, stlim, accelmax, tau)``."""
    return _bicycle(x, v, gamma, False, p)


@njit(cache=True, error_model="numpy")
def bicycle_hb_deriv(t, x, v, gamma, hb, p):
    """Bicycle rates with the handbrake input ``hb``."""
    return _bicycle(x, v, gamma, hb > 0.5, p)


@njit(cache=True, error_model="numpy")
def unicycle_deriv(t, x, v, w, p):
    """Unicycle rates; params ``(vmax, wmax)``."""
    vv = _clip(v, p[0])
    return vv * math.cos(x[2]), vv * math.sin(x[2]), _clip(w, p[1])


@njit(cache=True, error_model="numpy")
def diffsteer_deriv(t, x, vl, vr, p):
    """Differential-steer rates; params ``(vmax, wmax, a)``."""
    v, w = diffsteer_speeds(vl, vr, p[2])
    vv = _clip(v, p[0])
    return vv * math.cos(x[2]), vv * math.sin(x[2]), _clip(w, p[1])


@njit(cache=True, error_model="numpy")
def pioneer_output(t, x, *args):
    """``(v, w)`` states."""
    return x[0], x[1]


@njit(cache=True, error_model="numpy")
def pioneer_deriv(t, x, vref, wref, p):
    """Pioneer dynamics; params ``(p1..p6, umax, wmax, dumax, dwmax)``."""
    du, dw = pioneer_deriv_nb(
        x[0], x[1], _clip(vref, p[6]), _clip(wref, p[7]), p[0], p[1], p[2], p[3], p[4], p[5]
    )
    return _clip(du, p[8]), _clip(dw, p[9])


@njit(cache=True, error_model="numpy")
def vehicle_output(t, x, speed, steer, p):
    """``(pose, odo, odo_true)``; params ``(sV (4,), L, vmax, stlim, dt, key)``."""
    sV = p[0]
    key = np.uint64(p[5])
    k = np.uint64(x[5])
    n0 = normal_sample(key, k + k)
    n1 = normal_sample(key, k + k + np.uint64(1))
    pose = np.empty(3)
    for i in range(3):
        pose[i] = x[i]
    odo = np.empty(2)
    odo[0] = x[3] + sV[0] * n0
    odo[1] = x[4] + sV[2] * n0 + sV[3] * n1
    odo_true = np.empty(2)
    odo_true[0] = x[3]
    odo_true[1] = x[4]
    return pose, odo, odo_true


@njit(cache=True, error_model="numpy")
def vehicle_update(t, x, speed, steer, p):
    """Clip, move by the odometry model, count."""
    v, g = vehicle_control(speed, steer, p[2], p[3])
    d, dth = odometry(v, g, p[1], p[4])
    pose = odo_f(x[:3].copy(), d, dth, 0.0, 0.0)
    out = np.empty(6)
    out[0] = pose[0]
    out[1] = pose[1]
    out[2] = pose[2]
    out[3] = d
    out[4] = dth
    out[5] = x[5] + 1.0
    return out
