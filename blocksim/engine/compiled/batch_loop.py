"""The parallel ensemble loop (numba ``prange`` over members), compiled on first use.

Kept apart from :mod:`blocksim.engine.compiled.loops` so that single runs do not pay for
compiling it.
"""

import numpy as np
from numba import njit, prange

from blocksim.engine.compiled.loops import run_impl


@njit(cache=True, parallel=True)
def batch_impl(evaluate, rhs, update, crossings, fire, PV, PI, X0, XD0, sig0, times, fired_rows,
              method, dt, rtol, atol, max_step, directions, stop_mask, event_tol, zeno_dt,
              zeno_count):
    """Run one member per row of PV/PI in parallel (numba prange), recording only at the
    major times: returns t (M, n), x (M, n, nx), sig (M, n, nsig), recorded counts, status."""
    m_count = PV.shape[0]
    n_major = times.size
    T_out = np.full((m_count, n_major), np.nan)
    X_out = np.full((m_count, n_major, X0.shape[1]), np.nan)
    S_out = np.full((m_count, n_major, sig0.size), np.nan)
    counts = np.zeros(m_count, dtype=np.int64)
    status = np.zeros(m_count, dtype=np.int64)
    for m in prange(m_count):
        nrec, t_rec, x_rec, s_rec, _, _, _, st = run_impl(
            evaluate, rhs, update, crossings, fire, PV[m], PI[m], X0[m], XD0[m], sig0, times,
            fired_rows, method, dt, rtol, atol, max_step, n_major + 1, False, directions,
            stop_mask, event_tol, zeno_dt, zeno_count)
        k = min(nrec, n_major)
        T_out[m, :k] = t_rec[:k]
        X_out[m, :k] = x_rec[:k]
        S_out[m, :k] = s_rec[:k]
        counts[m] = k
        status[m] = st
    return T_out, X_out, S_out, counts, status
