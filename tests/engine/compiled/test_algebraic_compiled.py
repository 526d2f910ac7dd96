"""Algebraic loops solved in the compiled back-end (its fused tier) agree with the closed forms
and with the interpreted back-end; they stop the run with the same error. One diagram
structure and one method (tests/engine/loops.py, rk4): one fused compile for every test
here."""

import numpy as np
import pytest

from blocksim import simulate
from blocksim.engine.compiled.backend import LOOPS_FUSED, prepare
from blocksim.engine.compiled.failures import CompileError
from blocksim.engine.errors import AlgebraicLoopError

from ..loops import check_closed_forms, loops

OPTIONS = dict(solver="rk4", dt=0.01, algebraic="solve")


def test_both_back_ends_solve_the_loops_to_their_closed_forms_and_agree():
    a = simulate(loops(), 1.0, **OPTIONS)
    b = simulate(loops(), 1.0, backend="compiled", fuse=False, **OPTIONS)
    assert b.stats["backend"] == "compiled"
    assert (b.stats["tier"], b.stats["tier_reason"]) == ("fused", LOOPS_FUSED)
    check_closed_forms(b)
    np.testing.assert_array_equal(b.t, a.t)
    for name in a.signals:  # to the Newton tolerance (1e-10): the linear solves differ
        np.testing.assert_allclose(b[name], a[name], rtol=0, atol=1e-9, err_msg=name)


@pytest.mark.parametrize("backend", ["interpreted", "compiled"])
def test_a_loop_that_does_not_converge_names_itself_and_the_time(backend):
    with pytest.raises(AlgebraicLoopError) as info:
        simulate(loops(k=-1.0), 1.0, backend=backend, **OPTIONS)
    err = info.value
    assert str(err).startswith("algebraic loop s1.y -> k1.u (feedthrough) -> k1.y -> s1.u1 "
                               "(feedthrough) did not converge at t=0.01 s: its values became "
                               "NaN or Inf")
    assert (err.time, err.block, err.result.status) == (0.01, "k1", "failed")
    assert err.result.t[0] == 0.0 and err.result["s1.y"][0] == 0.0  # the partial result
    with pytest.raises(AlgebraicLoopError) as info:  # the iteration limit
        simulate(loops(), 1.0, backend=backend, algebraic_maxiter=1, **OPTIONS)
    assert "e2.y -> sat.u (feedthrough) -> sat.y -> e2.u2 (feedthrough) did not converge at " \
           "t=0 s: Newton's method left a residual of 0.5 after 1 iterations (tolerance " \
           "1e-10)" in str(info.value)


def test_the_data_wired_tier_refuses_loops_clearly():
    from blocksim import compile_diagram

    plan = compile_diagram(loops(), "solve")
    with pytest.raises(CompileError, match="the data-wired tier does not solve algebraic "
                                           "loops; the fused tier does"):
        prepare(plan, "rk4", "wired")
