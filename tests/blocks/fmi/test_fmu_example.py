"""examples/fmu_plant_control.py: the FMU plant under PID control behaves as the same plant
built from blocksim blocks, tracks its reference and rejects the disturbance."""

from __future__ import annotations

import numpy as np

from blocksim import Diagram, simulate
from blocksim.blocks import PID, Mux, StateSpace, Step, Sum

from ...examples_loader import load_example


def _same_loop_from_blocks(module) -> Diagram:
    d = Diagram("blocks")
    ref = d.add(Step(time=module.STEP_TIME, before=0.0, after=1.0), name="ref")
    err = d.add(Sum("+-"), name="err")
    pid = d.add(PID(Kp=module.KP, Ki=module.KI, Kd=module.KD, N=module.N), name="pid")
    dist = d.add(Step(time=module.DISTURBANCE_TIME, before=0.0, after=module.DISTURBANCE),
                 name="dist")
    u = d.add(Mux(2), name="u")
    plant = d.add(StateSpace(A=[[0.0, 1.0], [-4.0, -0.8]], B=[[0.0, 0.0], [1.0, 0.5]],
                             C=[[1.0, 0.0]], D=[[0.0, 0.0]]), name="plant")
    d.connect(ref, err["u0"])
    d.connect(plant, err["u1"])
    d.connect(err, pid)
    d.connect(pid, u["u0"])
    d.connect(dist, u["u1"])
    d.connect(u, plant)
    return d


def test_the_fmu_loop_equals_the_loop_of_blocks_and_rejects_the_disturbance():
    module = load_example("fmu_plant_control")
    opts = dict(rtol=1e-9, atol=1e-11, record_dt=0.05)
    r = module.main(T=10.0, **opts)
    b = simulate(_same_loop_from_blocks(module), 10.0, **opts)
    np.testing.assert_allclose(r.t, b.t, atol=1e-12)
    np.testing.assert_allclose(r["plant.y1"], b["plant.y"], atol=1e-7)
    np.testing.assert_allclose(r["pid.y"], b["pid.y"], atol=1e-6)
    y = r["plant.y1"]
    assert abs(y[-1] - 1.0) < 0.01  # tracks the reference
    after = (r.t > module.DISTURBANCE_TIME) & (r.t < module.DISTURBANCE_TIME + 2)
    assert y[after].min() < 0.95  # the disturbance shows, and the integral removes it
