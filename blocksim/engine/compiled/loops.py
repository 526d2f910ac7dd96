"""The numba integration loop pasted into every generated module (see codegen.py).

``run`` walks the major times (clock hits, source breakpoints, T) computed in Python: at each it
evaluates the outputs (all blocks at t = 0; continuous-rate blocks and the fired clocks' blocks
at a hit), applies the discrete updates of the fired clocks, records, and integrates the
continuous state to the next major time with

* ``method == 0``: explicit Euler, ``1``: classical RK4 — steps on the grid ``k * dt``;
* ``method == 2``: Dormand–Prince 5(4) with scipy RK45's error norm and step-size control
  (``rtol``/``atol`` mean the same as in scipy), the step size carried across segments.

Inside a segment the blocks see times strictly below its end (left limit of breakpoints).
Every accepted step is recorded (t, x and the flat signal buffer). A NaN or Inf in a recorded
signal or state stops the loop with status 1 and everything recorded so far.
"""

LOOPS_SOURCE = '''
@njit(cache=True)
def _finite(v):
    for i in range(v.size):
        if not math.isfinite(v.flat[i]):
            return False
    return True


@njit(cache=True)
def _rms(v, scale):
    s = 0.0
    n = v.size
    for i in range(n):
        r = v[i] / scale[i]
        s += r * r
    return math.sqrt(s / n) if n > 0 else 0.0


@njit(cache=True)
def _grow(a):
    b = np.empty((a.shape[0] * 2,) + a.shape[1:])
    b[: a.shape[0]] = a
    return b


@njit(cache=True)
def _grow1(a):
    b = np.empty(a.shape[0] * 2)
    b[: a.shape[0]] = a
    return b


@njit(cache=True)
def _rhs_at(t, t_end, t_left, y, xd, P, sig, out):
    tt = t if t < t_end else t_left
    rhs(tt, y, xd, P, sig, out)


@njit(cache=True)
def run(P, x0, xd0, sig0, times, fired_rows, method, dt, rtol, atol, max_step, cap):
    n = x0.size
    x = x0.copy()
    xd = xd0.copy()
    sig = sig0.copy()
    t_rec = np.empty(cap)
    x_rec = np.empty((cap, n))
    s_rec = np.empty((cap, sig.size))
    nrec = 0
    nfev = 0
    nsteps = 0
    status = 0
    nfired = fired_rows.shape[1]
    none_fired = np.zeros(nfired, dtype=np.bool_)
    # Dormand-Prince 5(4) tableau (scipy RK45)
    C = np.array([0.0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0])
    A = np.zeros((6, 5))
    A[1, 0] = 1 / 5
    A[2, 0] = 3 / 40
    A[2, 1] = 9 / 40
    A[3, 0] = 44 / 45
    A[3, 1] = -56 / 15
    A[3, 2] = 32 / 9
    A[4, 0] = 19372 / 6561
    A[4, 1] = -25360 / 2187
    A[4, 2] = 64448 / 6561
    A[4, 3] = -212 / 729
    A[5, 0] = 9017 / 3168
    A[5, 1] = -355 / 33
    A[5, 2] = 46732 / 5247
    A[5, 3] = 49 / 176
    A[5, 4] = -5103 / 18656
    B = np.array([35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84])
    E = np.array([-71 / 57600, 0.0, 71 / 16695, -71 / 1920, 17253 / 339200, -22 / 525,
                  1 / 40])
    K = np.zeros((7, n))
    ytmp = np.empty(n)
    ynew = np.empty(n)
    f = np.empty(n)
    scale = np.empty(n)
    err = np.empty(n)
    h = -1.0
    nmajor = times.size
    for i in range(nmajor):
        t = times[i]
        mode = 3 if i == 0 else 2
        evaluate(t, x, xd, P, sig, mode, fired_rows[i])
        any_fired = False
        for c in range(nfired):
            any_fired = any_fired or fired_rows[i, c]
        if any_fired:
            xd_new = xd.copy()
            update(t, x, xd, P, sig, fired_rows[i], xd_new)
            xd = xd_new
        if nrec == t_rec.size:
            t_rec = _grow1(t_rec)
            x_rec = _grow(x_rec)
            s_rec = _grow(s_rec)
        t_rec[nrec] = t
        x_rec[nrec] = x
        s_rec[nrec] = sig
        nrec += 1
        if not (_finite(sig) and _finite(x)):
            return nrec, t_rec, x_rec, s_rec, nfev, nsteps, 1
        if i == nmajor - 1 or n == 0:
            continue
        t_end = times[i + 1]
        t_left = np.nextafter(t_end, -np.inf)
        if method == 2:
            _rhs_at(t, t_end, t_left, x, xd, P, sig, f)
            nfev += 1
            if h <= 0.0:
                # scipy's select_initial_step (order 4)
                for j in range(n):
                    scale[j] = atol + abs(x[j]) * rtol
                d0 = _rms(x, scale)
                d1 = _rms(f, scale)
                h0 = 1e-6 if (d0 < 1e-5 or d1 < 1e-5) else 0.01 * d0 / d1
                h0 = min(h0, t_end - t)
                for j in range(n):
                    ytmp[j] = x[j] + h0 * f[j]
                _rhs_at(t + h0, t_end, t_left, ytmp, xd, P, sig, K[1])
                nfev += 1
                for j in range(n):
                    err[j] = K[1, j] - f[j]
                d2 = _rms(err, scale) / h0
                if d1 <= 1e-15 and d2 <= 1e-15:
                    h1 = max(1e-6, h0 * 1e-3)
                else:
                    h1 = (0.01 / max(d1, d2)) ** 0.2
                h = min(100 * h0, h1)
            h = min(h, max_step)
        while t < t_end:
            if method == 2:
                hmin = 10 * abs(np.nextafter(t, np.inf) - t)
                rejected = False
                while True:
                    if h < hmin:
                        return nrec, t_rec, x_rec, s_rec, nfev, nsteps, 2
                    t_new = t + h
                    if t_new > t_end:
                        t_new = t_end
                    hh = t_new - t
                    for j in range(n):
                        K[0, j] = f[j]
                    for s in range(1, 6):
                        for j in range(n):
                            acc = 0.0
                            for q in range(s):
                                acc += A[s, q] * K[q, j]
                            ytmp[j] = x[j] + hh * acc
                        _rhs_at(t + C[s] * hh, t_end, t_left, ytmp, xd, P, sig, K[s])
                        nfev += 1
                    for j in range(n):
                        acc = 0.0
                        for q in range(6):
                            acc += B[q] * K[q, j]
                        ynew[j] = x[j] + hh * acc
                    _rhs_at(t_new, t_end, t_left, ynew, xd, P, sig, K[6])
                    nfev += 1
                    for j in range(n):
                        acc = 0.0
                        for q in range(7):
                            acc += E[q] * K[q, j]
                        err[j] = hh * acc
                        scale[j] = atol + max(abs(x[j]), abs(ynew[j])) * rtol
                    en = _rms(err, scale)
                    if en < 1.0:
                        factor = 10.0 if en == 0.0 else min(10.0, 0.9 * en ** -0.2)
                        if rejected:
                            factor = min(1.0, factor)
                        if t_new < t_end:
                            h = min(hh * factor, max_step)
                        else:
                            h = min(max(h, hh * factor), max_step)
                        break
                    h = hh * max(0.2, 0.9 * en ** -0.2)
                    rejected = True
                t = t_new
                for j in range(n):
                    x[j] = ynew[j]
                    f[j] = K[6, j]
            else:
                k = math.floor(t / dt * (1 + 1e-12) + 1e-9) + 1
                t_new = min(k * dt, t_end)
                if t_new - t < 1e-12 * max(1.0, abs(t)):
                    t_new = min((k + 1) * dt, t_end)
                hh = t_new - t
                _rhs_at(t, t_end, t_left, x, xd, P, sig, K[0])
                nfev += 1
                if method == 0:
                    for j in range(n):
                        x[j] = x[j] + hh * K[0, j]
                else:
                    for j in range(n):
                        ytmp[j] = x[j] + 0.5 * hh * K[0, j]
                    _rhs_at(t + 0.5 * hh, t_end, t_left, ytmp, xd, P, sig, K[1])
                    for j in range(n):
                        ytmp[j] = x[j] + 0.5 * hh * K[1, j]
                    _rhs_at(t + 0.5 * hh, t_end, t_left, ytmp, xd, P, sig, K[2])
                    for j in range(n):
                        ytmp[j] = x[j] + hh * K[2, j]
                    _rhs_at(t_new, t_end, t_left, ytmp, xd, P, sig, K[3])
                    nfev += 3
                    for j in range(n):
                        x[j] = x[j] + hh / 6.0 * (K[0, j] + 2.0 * (K[1, j] + K[2, j])
                                                  + K[3, j])
                t = t_new
            nsteps += 1
            if t < t_end and t_end - t > 1e-12 * max(1.0, t_end):
                evaluate(t, x, xd, P, sig, 1, none_fired)
                if nrec == t_rec.size:
                    t_rec = _grow1(t_rec)
                    x_rec = _grow(x_rec)
                    s_rec = _grow(s_rec)
                t_rec[nrec] = t
                x_rec[nrec] = x
                s_rec[nrec] = sig
                nrec += 1
                if not (_finite(sig) and _finite(x)):
                    return nrec, t_rec, x_rec, s_rec, nfev, nsteps, 1
        t = t_end
    return nrec, t_rec, x_rec, s_rec, nfev, nsteps, status
'''
