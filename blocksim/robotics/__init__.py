"""Robotics core: spatial maths, serial-link arms, model zoo, trajectories.

Pure numerics (numpy arrays in, numpy arrays out; hot paths compiled with numba). Nothing
here imports :mod:`blocksim.engine`, :mod:`blocksim.blocks` or plotting.
"""
