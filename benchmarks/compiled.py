"""The compiled back-end, measured side by side in one run.

Prints, on the PID mass-spring-damper of ``examples/pid_mass_spring_damper.py`` (10 s):

* compiled (fixed-step RK4, h = 1 ms) vs the same closed loop hand-written as one numba RK4
  loop (ratio; target <= 1.5x);
* compiled vs interpreted on the same solver (ratio; target >= 100x), excluding the one-off
  compile;
* the discrete 1 kHz PID of ``examples/discrete_pid_mass_spring_damper.py`` compiled;
* the per-member cost of a 1000-member Kp sweep (rk4, 1 ms; target <= 0.2 ms per member);
* the start of a compiled diagram in a new process with numba's cache warm (target <= 1 s);
* compile times (diagram functions; the shared loop is compiled once per installation).

Run: ``python benchmarks/compiled.py``.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import numba
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

import discrete_pid_mass_spring_damper as discrete_example  # noqa: E402
import pid_mass_spring_damper as example  # noqa: E402

from blocksim import compile_diagram, grid, simulate, simulate_batch  # noqa: E402

M, C, K = example.MASS, example.DAMPING, example.STIFFNESS
KP, KI, KD, N = example.KP, example.KI, example.KD, example.N
T_END, H = 10.0, 1e-3


@numba.njit(cache=True)
def _f(y, out, kp):
    v, x, xi, z = y[0], y[1], y[2], y[3]
    e = 1.0 - x
    u = kp * e + KI * xi + KD * N * (e - z)
    out[0] = (u - C * v - K * x) / M
    out[1] = v
    out[2] = e
    out[3] = N * (e - z)


@numba.njit(cache=True)
def hand_rk4(h, n, kp):
    """The hand-written baseline: RK4 over the flattened closed loop, recording each step."""
    y = np.zeros(4)
    k1, k2, k3, k4, tmp = np.empty(4), np.empty(4), np.empty(4), np.empty(4), np.empty(4)
    log = np.empty((n + 1, 4))
    log[0] = y
    for i in range(n):
        _f(y, k1, kp)
        for q in range(4):
            tmp[q] = y[q] + 0.5 * h * k1[q]
        _f(tmp, k2, kp)
        for q in range(4):
            tmp[q] = y[q] + 0.5 * h * k2[q]
        _f(tmp, k3, kp)
        for q in range(4):
            tmp[q] = y[q] + h * k3[q]
        _f(tmp, k4, kp)
        for q in range(4):
            y[q] += h / 6 * (k1[q] + 2 * k2[q] + 2 * k3[q] + k4[q])
        log[i + 1] = y
    return y, log


@numba.njit(cache=True)
def _f_args(y, out, p):
    kp, ki, kd, nn, c, k, m = p[0], p[1], p[2], p[3], p[4], p[5], p[6]
    v, x, xi, z = y[0], y[1], y[2], y[3]
    e = 1.0 - x
    u = kp * e + ki * xi + kd * nn * (e - z)
    out[0] = (u - c * v - k * x) / m
    out[1] = v
    out[2] = e
    out[3] = nn * (e - z)


@numba.njit(cache=True)
def hand_rk4_args(h, n, p):
    """The same baseline with the parameters as run-time arguments (as a diagram holds them)
    instead of compile-time constants."""
    y = np.zeros(4)
    k1, k2, k3, k4, tmp = np.empty(4), np.empty(4), np.empty(4), np.empty(4), np.empty(4)
    log = np.empty((n + 1, 4))
    log[0] = y
    for i in range(n):
        _f_args(y, k1, p)
        for q in range(4):
            tmp[q] = y[q] + 0.5 * h * k1[q]
        _f_args(tmp, k2, p)
        for q in range(4):
            tmp[q] = y[q] + 0.5 * h * k2[q]
        _f_args(tmp, k3, p)
        for q in range(4):
            tmp[q] = y[q] + h * k3[q]
        _f_args(tmp, k4, p)
        for q in range(4):
            y[q] += h / 6 * (k1[q] + 2 * k2[q] + 2 * k3[q] + k4[q])
        log[i + 1] = y
    return y, log


def best(fn, repeat=5):
    t_best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        t_best = min(t_best, time.perf_counter() - t0)
    return t_best, out


def main() -> None:
    n = round(T_END / H)
    hand_rk4(H, 10, KP)
    t_hand, (y_hand, _) = best(lambda: hand_rk4(H, n, KP), repeat=20)
    p_args = np.array([KP, KI, KD, N, C, K, M])
    hand_rk4_args(H, 10, p_args)
    t_hand_args, _ = best(lambda: hand_rk4_args(H, n, p_args), repeat=20)
    plan = compile_diagram(example.build(with_scope=False))
    first = simulate(plan, T_END, "rk4", dt=H, backend="compiled")
    t_shared, res_shared = best(lambda: simulate(plan, T_END, "rk4", dt=H,
                                                 backend="compiled"))
    spec_first = simulate(plan, T_END, "rk4", dt=H, backend="compiled", specialize=True)
    t_comp_run = min(simulate(plan, T_END, "rk4", dt=H, backend="compiled", specialize=True)
                     .stats["wall_time"] for _ in range(20))  # results dropped as made
    t_comp, res = best(lambda: simulate(plan, T_END, "rk4", dt=H, backend="compiled",
                                        specialize=True))
    t_interp, _ = best(lambda: simulate(plan, T_END, "rk4", dt=H), repeat=2)
    t_c45, r45 = best(lambda: simulate(plan, T_END, backend="compiled"))
    t_i45, _ = best(lambda: simulate(plan, T_END), repeat=3)
    print(f"PID mass-spring-damper, {T_END:g} s")
    print(f"  hand-written numba RK4 h=1ms  {t_hand * 1e3:9.3f} ms  x(10)={y_hand[1]:.9f}"
          "  (parameters compiled in as constants)")
    print(f"  same, parameters as arguments {t_hand_args * 1e3:9.3f} ms")
    print(f"  compiled rk4, shared loop     {res_shared.stats['wall_time'] * 1e3:9.3f} ms  "
          f"(whole simulate {t_shared * 1e3:.3f} ms)")
    print(f"  compiled rk4 specialised      {t_comp_run * 1e3:9.3f} ms  "
          f"x(10)={res['pos.y'][-1]:.9f}  ratio {t_comp_run / t_hand:.2f}x (target <= 1.5x); "
          f"{t_comp_run / t_hand_args:.2f}x the run-time-parameter loop")
    print("    (the compiled run also records t, the state and all 9 signals at every step; "
          "the hand loops record the state)")
    print(f"  compiled rk4, whole simulate  {t_comp * 1e3:9.3f} ms")
    print(f"  interpreted rk4               {t_interp * 1e3:9.3f} ms  compiled is "
          f"{t_interp / t_comp:.0f}x faster (target >= 100x)")
    print(f"  compiled RK45 1e-6            {t_c45 * 1e3:9.3f} ms  nfev={r45.stats['nfev']}; "
          f"interpreted {t_i45 * 1e3:.1f} ms ({t_i45 / t_c45:.0f}x)")
    print(f"  compile, shared loop          {first.stats['compile_time']:9.3f} s  "
          f"({first.stats['compile_cache']}); specialised "
          f"{spec_first.stats['compile_time']:.3f} s")

    dplan = compile_diagram(discrete_example.build(with_scope=False))
    simulate(dplan, T_END, "rk4", dt=H, backend="compiled", specialize=True)
    t_disc, _ = best(lambda: simulate(dplan, T_END, "rk4", dt=H, backend="compiled",
                                      specialize=True))
    print(f"discrete 1 kHz PID, {T_END:g} s, compiled rk4: {t_disc * 1e3:.2f} ms")

    members = grid({"pid.Kp": list(np.linspace(5.0, 15.0, 1000))})
    simulate_batch(plan, members[:2], T_END, "rk4", dt=H, backend="compiled", specialize=True)
    t_batch, batch = best(lambda: simulate_batch(plan, members, T_END, "rk4", dt=H,
                                                  backend="compiled", specialize=True),
                          repeat=1)
    y_ref, _ = hand_rk4(H, n, members[-1]["pid.Kp"])
    print(f"1000-member Kp sweep, rk4 1 ms, {numba.get_num_threads()} threads: "
          f"{t_batch * 1e3:.0f} ms, per member "
          f"{t_batch / 1000 * 1e3:.3f} ms (target <= 0.2 ms); last member x(10) "
          f"{batch['pos.y'][-1, -1]:.9f} vs hand {y_ref[1]:.9f}")

    code = ("import sys, time; t0 = time.perf_counter(); sys.path.insert(0, 'examples'); "
            "import pid_mass_spring_damper as ex; from blocksim import simulate; "
            "r = simulate(ex.build(with_scope=False), 10.0, 'rk4', dt=1e-3, "
            "backend='compiled', specialize=True); "
            "print(time.perf_counter() - t0, r.stats['compile_time'])")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.split()
    print(f"new process, cached: whole run {float(out[0]):.2f} s (import + load + run; target "
          f"<= 1 s), of which loading compiled code {float(out[1]):.2f} s")


if __name__ == "__main__":
    main()
