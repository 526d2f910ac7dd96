"""Control and estimation numerics: state feedback and finite-horizon LQR, the discrete Kalman
filter, the unscented Kalman filter and its library of named models, the condensed linear MPC
and its dense QP solver.

Pure numerics (numpy arrays in, numpy arrays out; the per-step functions compile with numba);
nothing here imports :mod:`blocksim.engine` or :mod:`blocksim.blocks`. The blocks are in
:mod:`blocksim.blocks.control`.
"""
