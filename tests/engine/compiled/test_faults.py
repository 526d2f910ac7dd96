"""Faults in compiled runs: named like the interpreted back-end names them, nothing recorded lost.

A division by zero, a function outside its domain, a diverging state and Ctrl-C each end a
compiled run with the block, port and time named and every row recorded up to there kept.
"""

import importlib
import pkgutil
import signal
import subprocess
import sys
import textwrap
import time

import numba
import numpy as np
import pytest

import blocksim.blocks
from blocksim import Diagram, simulate
from blocksim.blocks import Constant, Gain, Integrator, MathFunction, Product, Sum, Time
from blocksim.engine.errors import NonFiniteError

from ...processes import sigint_default


def _library_kernels():
    for info in pkgutil.walk_packages(blocksim.blocks.__path__, "blocksim.blocks."):
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if isinstance(obj, numba.core.dispatcher.Dispatcher) \
                    and obj.py_func.__module__ == module.__name__:
                yield f"{module.__name__}.{name}", obj


def test_every_library_kernel_uses_numpys_error_model():
    # with Python's error model x/0 raises ZeroDivisionError inside the loop, which loses
    # everything recorded and names no block; with numpy's it gives inf, which the loop reports
    kernels = dict(_library_kernels())
    assert len(kernels) > 100
    wrong = [k for k, d in kernels.items() if d.targetoptions.get("error_model") != "numpy"]
    assert not wrong, wrong


def time_minus_one(d: Diagram, signs: str = "+-"):
    clock = d.add(Time(), name="clock")
    one = d.add(Constant(1.0), name="one")
    diff = d.add(Sum(signs), name="diff")
    d.connect(clock, diff["u0"])
    d.connect(one, diff["u1"])
    return diff


def test_division_by_zero_names_the_block_and_keeps_every_row():
    d = Diagram("reciprocal")
    recip = d.add(Product("/"), name="recip")  # 1 / (t - 1), t = 1 on the rk4 grid
    x = d.add(Integrator(), name="x")
    d.connect(time_minus_one(d), recip)
    d.connect(recip, x)
    with pytest.raises(NonFiniteError) as info:
        simulate(d, 2.0, solver="rk4", dt=0.01, backend="compiled")
    err = info.value
    assert (err.block, err.port, err.time) == ("recip", "y", 1.0)
    assert "u=0.0" in str(err) and "t=1 s" in str(err)
    assert len(err.result.t) == 101 and err.result.t[99] == pytest.approx(0.99)
    assert err.result.status == "failed"


def test_a_function_outside_its_domain_in_rk45_names_the_block():
    d = Diagram("root")
    root = d.add(MathFunction("sqrt"), name="root")  # sqrt(1 - t)
    x = d.add(Integrator(), name="x")
    d.connect(time_minus_one(d, "-+"), root)
    d.connect(root, x)
    with pytest.raises(NonFiniteError) as info:
        simulate(d, 2.0, solver="RK45", backend="compiled")
    err = info.value
    assert (err.block, err.port) == ("root", "y")
    assert 1.0 < err.time < 1.2
    assert err.result.t[-2] <= 1.0 and len(err.result.t) >= 2


def first_order(gain: float) -> Diagram:
    """x' = gain * x, x(0) = 1."""
    d = Diagram("first_order")
    x = d.add(Integrator(x0=1.0), name="x")
    k = d.add(Gain(gain), name="k")
    d.connect(x, k)
    d.connect(k, x)
    return d


def test_a_diverging_state_is_named_not_a_step_size_failure():
    with pytest.raises(NonFiniteError) as info:
        simulate(first_order(10.0), 100.0, solver="RK45", backend="compiled")
    err = info.value
    assert err.block == "x" and "state 'x." in str(err)
    assert 60.0 < err.time < 80.0  # e^(10 t) overflows near t = 71


CHILD = textwrap.dedent("""
    import sys
    from blocksim import Diagram, simulate
    from blocksim.blocks import Gain, Integrator
    d = Diagram("first_order")
    x = d.add(Integrator(x0=1.0), name="x")
    k = d.add(Gain(-1.0), name="k")
    d.connect(x, k)
    d.connect(k, x)
    step = {"dt": 1e-4} if sys.argv[1] == "rk4" else {"max_step": 1e-4}
    simulate(d, 0.01, solver=sys.argv[1], backend="compiled", **step)
    print("running", flush=True)
    try:
        simulate(d, 1e5, solver=sys.argv[1], backend="compiled", record_dt=1.0,
                 max_steps=10**10, **step)
    except KeyboardInterrupt as exc:
        r = exc.result
        print(r.status, len(r.t), r.t[-1], r["x.y"][-1], flush=True)
""")


@pytest.mark.parametrize("solver", ["RK45", "rk4"])
def test_ctrl_c_stops_a_compiled_run_and_keeps_what_it_recorded(solver):
    simulate(first_order(-1.0), 0.01, solver=solver, backend="compiled",
             **({"dt": 1e-4} if solver == "rk4" else {"max_step": 1e-4}))  # compiled here
    child = subprocess.Popen([sys.executable, "-c", CHILD, solver], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, preexec_fn=sigint_default)
    try:
        assert child.stdout.readline().strip() == "running"
        time.sleep(0.5)
        sent = time.perf_counter()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=30)
        waited = time.perf_counter() - sent
    finally:
        child.kill()
    assert child.returncode == 0, err
    status, n, t_last, x_last = out.split()
    assert status == "interrupted" and int(n) > 2
    assert float(t_last) == int(n) - 1  # rows at t = 0, 1, 2, ... up to the interruption
    assert abs(float(x_last)) < 1.0
    assert waited < 5.0  # within a step, plus the child's exit


@pytest.mark.parametrize("fuse", [False, True])
def test_a_kernel_returning_too_few_values_is_named_like_the_interpreted_dry_run(fuse):
    from blocksim import Block
    from blocksim.engine.compiled.backend import CompileError
    from blocksim.engine.compiled.kernels import Kernels
    from blocksim.engine.errors import BlockRuntimeError

    from .short_kernels import two_deriv_short, two_output

    class Two(Block):
        outputs = ("y",)

        def __init__(self):
            super().__init__()
            self.x0 = np.zeros(2)

        def output(self, t, x, u):
            return (x[0],)

        def deriv(self, t, x, u):
            return [1.0, 2.0]

        def kernels(self):
            return Kernels(params=(1.0,), output=two_output, deriv=two_deriv_short)

    d = Diagram("short")
    d.add(Two(), name="b")
    with pytest.raises((CompileError, BlockRuntimeError),
                       match=r"block 'b' \(Two\): its compiled deriv kernel returned 1 values "
                             r"for 2 states"):
        simulate(d, 0.1, "rk4", dt=0.01, backend="compiled", fuse=fuse)


@pytest.mark.parametrize("fuse", [False, True])
def test_a_kernel_that_raises_is_named_with_its_block_on_both_tiers(fuse):
    from blocksim import Block
    from blocksim.engine.compiled.kernels import Kernels
    from blocksim.engine.errors import BlockRuntimeError

    from .short_kernels import raising_deriv, raising_output

    class Fragile(Block):
        outputs = ("y",)

        def __init__(self):
            super().__init__()
            self.x0 = np.zeros(1)

        def output(self, t, x, u):
            return (x[0],)

        def deriv(self, t, x, u):
            return [1.0]

        def kernels(self):
            return Kernels(params=(0.05,), output=raising_output, deriv=raising_deriv)

    d = Diagram("fragile")
    d.add(Fragile(), name="glass")
    with pytest.raises(BlockRuntimeError, match=r"block 'glass' \(Fragile\)") as info:
        simulate(d, 0.1, "rk4", dt=0.01, backend="compiled", fuse=fuse)
    assert info.value.block == "glass"
    if fuse:  # the kernel's own message, which names the kind (no bookkeeping: no time)
        assert "the input left its range" in str(info.value)
    else:  # the wired tier knows the time from the entry's failure code
        assert 0.04 <= info.value.time <= 0.06
