"""Compiled kernels of the driver blocks (:mod:`blocksim.blocks.vehicle.drivers`); they call
the same functions of :mod:`blocksim.robotics.mobile.drivers` as the interpreted methods."""

from __future__ import annotations

import numpy as np
from numba import njit

from blocksim.blocks.sources.random_streams import uniform_sample
from blocksim.robotics.mobile.drivers import (
    braitenberg,
    drive_to_point,
    drive_to_pose,
    follow_line,
    light_field,
    path_point,
    pose_direction,
    pursuit_error,
    random_path_steer,
    sensor_positions,
)


@njit(cache=True, error_model="numpy")
def point_output(t, x, pose, p):
    """params ``(gx, gy, Kv, Kh)``."""
    return drive_to_point(pose, p[0], p[1], p[2], p[3])


@njit(cache=True, error_model="numpy")
def pose_goal_output(t, x, pose, p):
    """params ``(goal (3,), Krho, Kalpha, Kbeta, L, dthresh)``; state: the direction (1
    forward, -1 backward, 0 not chosen yet: chosen from the goal's side now)."""
    return drive_to_pose(pose, p[0], p[1], p[2], p[3], p[4], int(x[0]), p[5])


@njit(cache=True, error_model="numpy")
def pose_goal_update(t, x, pose, p):
    """The direction unchanged (an ``EVENT`` state changes only at its crossings)."""
    return (x[0],)


@njit(cache=True, error_model="numpy")
def pose_goal_crossings(t, x, pose, p):
    """Before the direction is chosen: ``t``, which leaves zero (a rising crossing) at the
    first step of the run; after: 1, which never crosses."""
    if x[0] == 0.0:
        return (t,)
    return (1.0,)


@njit(cache=True, error_model="numpy")
def pose_goal_on_event(t, x, pose, p, which):
    """Choose the direction once, from the goal's side at the start; keep it after."""
    if x[0] == 0.0:
        return (float(pose_direction(pose, p[0])),)
    return (x[0],)


@njit(cache=True, error_model="numpy")
def line_output(t, x, pose, p):
    """params ``(a, b, c, Kd, Kh, speed)``."""
    return p[5], follow_line(pose, p[0], p[1], p[2], p[3], p[4])


@njit(cache=True, error_model="numpy")
def pursuit_output(t, x, pose, target, p):
    """params ``(dstar, Kv, Ki, Kh)``; state: integral of the distance error."""
    e, h = pursuit_error(pose, target[0], target[1], p[0])
    return p[1] * e + p[2] * x[0], p[3] * h


@njit(cache=True, error_model="numpy")
def pursuit_deriv(t, x, pose, target, p):
    e, _h = pursuit_error(pose, target[0], target[1], p[0])
    return (e,)


@njit(cache=True, error_model="numpy")
def braitenberg_output(t, x, pose, p):
    """params ``(xc, yc, A, V, K, ahead, side)``."""
    s = sensor_positions(pose, p[5], p[6])
    sl = light_field(s[0, 0], s[0, 1], p[0], p[1], p[2])
    sr = light_field(s[1, 0], s[1, 1], p[0], p[1], p[2])
    return braitenberg(sl, sr, p[3], p[4])


@njit(cache=True, error_model="numpy")
def random_goal(key, n, dim):
    """Waypoint number ``n`` of the stream: ``0.8 dim (2 U - 1)`` per coordinate."""
    g = np.empty(2)
    nn = np.uint64(n)
    g[0] = 0.8 * dim * (2.0 * uniform_sample(key, nn + nn) - 1.0)
    g[1] = 0.8 * dim * (2.0 * uniform_sample(key, nn + nn + np.uint64(1)) - 1.0)
    return g


@njit(cache=True, error_model="numpy")
def random_path_output(t, x, pose, p):
    """params ``(dim, speed, dthresh, key)``; state ``(gx, gy, d_prev, n)``."""
    return p[1], random_path_steer(pose, x[0], x[1])


@njit(cache=True, error_model="numpy")
def random_path_update(t, x, pose, p):
    dim, thresh = p[0], p[2]
    key = np.uint64(p[3])
    out = x.copy()
    d = np.hypot(x[0] - pose[0], x[1] - pose[1])
    if d < thresh or d > x[2]:
        out[3] = x[3] + 1.0
        g = random_goal(key, out[3], dim)
        out[0] = g[0]
        out[1] = g[1]
        d = np.hypot(g[0] - pose[0], g[1] - pose[1])
    out[2] = d
    return out


@njit(cache=True, error_model="numpy")
def path_output(t, x, p):
    """params ``(path (N*k,), k, dt)``."""
    path = p[0].reshape((-1, p[1]))
    return path_point(path, p[2], t)
