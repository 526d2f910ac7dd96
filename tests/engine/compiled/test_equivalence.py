"""Every example diagram that compiles gives the same traces in both back-ends.

Tolerance: both back-ends record on the same grid (``record_dt``) at rtol 1e-9, atol 1e-12;
traces agree to 1e-6 relative to the signal's range (the adaptive step sequences differ
slightly, so the agreement is set by the tolerances, not by rounding).
"""


import numpy as np
import pytest

from blocksim import compile_diagram, simulate
from blocksim.engine.compiled.backend import unsupported

from ...examples_loader import EXAMPLES, load_example

HORIZON = {"discrete_pid_mass_spring_damper": 0.5, "relay_thermostat": 1200.0,
           "bouncing_ball": 5.0}


NAMES = sorted(p.stem for p in EXAMPLES.glob("*.py"))


@pytest.mark.parametrize("name", NAMES)
def test_example_traces_agree_in_both_back_ends(name):
    plan = compile_diagram(load_example(name).build())
    problems = unsupported(plan)
    if problems:
        # the compiled back-end must say exactly which blocks it cannot run
        with pytest.raises(Exception, match="blocks without compiled kernels"):
            simulate(plan, 0.1, backend="compiled")
        assert simulate(plan, 0.1, backend="auto").stats["backend"] == "interpreted"
        return
    T = HORIZON.get(name, 2.0)
    opts = dict(rtol=1e-9, atol=1e-12, record_dt=T / 200)
    a = simulate(plan, T, **opts)
    b = simulate(plan, T, backend="compiled", **opts)
    assert b.stats["backend"] == "compiled"
    np.testing.assert_allclose(b.t, a.t, atol=1e-9)
    for signal in a.signals:
        ref = a[signal]
        span = max(1.0, float(np.ptp(ref))) if ref.size else 1.0
        np.testing.assert_allclose(b[signal], ref, atol=1e-6 * span, rtol=0,
                                   err_msg=f"{name}: {signal}")


def test_every_example_compiles_but_those_that_drive_hardware_or_an_fmu():
    # hardware-in-the-loop blocks talk to a device from Python at every hit, and an FMU's
    # binary is called through fmpy: interpreted only
    interpreted = {n for n in NAMES if unsupported(compile_diagram(load_example(n).build()))}
    assert interpreted == {n for n in NAMES
                           if n.startswith(("arbotix_", "vrep_")) or n == "fmu_plant_control"}
