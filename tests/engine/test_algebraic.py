"""Algebraic loops: reported by default, torn and solved by Newton's method with
``algebraic="solve"`` (interpreted back-end here; the compiled one in
tests/engine/compiled/test_algebraic_compiled.py)."""

import math

import numpy as np
import pytest

from blocksim import Diagram, DiagramError, compile_diagram, simulate
from blocksim.blocks import ZOH, Constant, Gain, Integrator, Sum
from blocksim.engine.config import RunConfig, file_config
from blocksim.engine.errors import AlgebraicLoopError
from blocksim.io import dumps, load

from .loops import check_closed_forms, loops


def test_by_default_a_loop_is_still_reported_port_by_port():
    with pytest.raises(DiagramError, match=r"algebraic loop: s1\.y -> k1\.u \(feedthrough\) -> "
                                           r"k1\.y -> s1\.u1 \(feedthrough\);.*algebraic='solve'"):
        simulate(loops(), 1.0)


def test_a_bad_algebraic_option_is_named():
    with pytest.raises(ValueError, match=r"`algebraic` must be 'error'.*'solv'.*did you mean "
                                         r"'solve'"):
        RunConfig(T=1.0, algebraic="solv")
    with pytest.raises(ValueError, match="`algebraic` must be"):
        compile_diagram(loops(), "yes")
    with pytest.raises(ValueError, match="algebraic_maxiter"):
        RunConfig(T=1.0, algebraic_maxiter=0.5)
    with pytest.raises(ValueError, match="algebraic_tol"):
        RunConfig(T=1.0, algebraic_tol=0.0)


def test_each_loop_is_torn_at_the_fewest_ports_and_kept_together():
    plan = compile_diagram(loops(), "solve")
    torn = [tuple(plan.signal_names[s] for s in lp.torn) for lp in plan.loops]
    assert torn == [("s1.y",), ("e2.y",), ("s3.y",), ("s4.y",), ("a.y", "b.y")]
    for lp in plan.loops:  # the torn ports' calls come last in the loop's steps
        last = {plan.signal_names[plan.entries[s.entry].out_slots[p]]
                for s in plan.order[lp.first:lp.stop][-len(lp.torn):] for p in s.ports}
        assert {plan.signal_names[s] for s in lp.torn} <= last
    assert "algebraic loop 5 (steps 16-21, solved for a.y, b.y)" in plan.describe()


def test_the_loops_closed_forms_interpreted():
    r = simulate(loops(), 1.0, solver="rk4", dt=0.01, algebraic="solve")
    check_closed_forms(r, x_tol=1e-9)
    r = simulate(loops(), 2.0, algebraic="solve", rtol=1e-10, atol=1e-12)  # adaptive
    check_closed_forms(r, x_tol=1e-8)


def test_a_loop_without_a_solution_stops_the_run_naming_it_and_the_time():
    with pytest.raises(AlgebraicLoopError) as info:
        simulate(loops(k=-1.0), 1.0, solver="rk4", dt=0.01, algebraic="solve")
    err = info.value
    assert str(err).startswith("algebraic loop s1.y -> k1.u (feedthrough) -> k1.y -> s1.u1 "
                               "(feedthrough) did not converge at t=0.01 s: ")
    assert "NaN or Inf" in str(err) and err.time == 0.01 and err.block == "k1"
    assert err.result.status == "failed" and err.result.t.tolist() == [0.0]


def test_the_iteration_limit_ends_in_the_same_clear_error():
    with pytest.raises(AlgebraicLoopError, match=r"algebraic loop e2\.y -> sat\.u .* did not "
                                                 r"converge at t=0 s: Newton's method left a "
                                                 r"residual of 0\.5 after 1 iterations"):
        simulate(loops(), 1.0, solver="rk4", dt=0.01, algebraic="solve", algebraic_maxiter=1)


def test_a_loop_of_vectors():
    d = Diagram("vector")
    c = d.add(Constant(np.array([1.0, 2.0, 3.0])), name="c")
    s = d.add(Sum("+-"), name="s")
    g = d.add(Gain(np.diag([1.0, 2.0, 3.0])), name="g")
    d.connect(c, s[0])
    d.connect(s, g)
    d.connect(g, s[1])
    r = simulate(d, 0.1, algebraic="solve")
    np.testing.assert_allclose(r["s.y"][-1], [0.5, 2 / 3, 0.75], atol=1e-12)
    assert r.stats["nfev"] == 0


def test_a_loop_fed_by_a_clock_is_solved_at_its_hits_and_held():
    d = Diagram("sampled")
    x = d.add(Integrator(x0=0.0), name="x")
    one = d.add(Constant(1.0), name="one")
    d.connect(one, x)
    z = d.add(ZOH(0.25), name="z")
    s = d.add(Sum("+-"), name="s")
    g = d.add(Gain(1.0), name="g")
    d.connect(x, z)
    d.connect(z, s[0])
    d.connect(s, g)
    d.connect(g, s[1])
    plan = compile_diagram(d, "solve")
    assert {plan.entry(n).rate for n in ("s", "g")} == {plan.clocks[0]}
    r = simulate(plan, 1.0, solver="rk4", dt=0.05)
    np.testing.assert_allclose(r["s.y"], np.floor(r.t / 0.25 + 1e-9) * 0.25 / 2, atol=1e-12)


def test_a_loop_mixing_rates_is_refused():
    d = Diagram("mixed")
    t = d.add(Integrator(x0=1.0), name="x")
    d.connect(d.add(Constant(0.0), name="zero"), t)
    z = d.add(ZOH(0.25), name="z")
    s = d.add(Sum("+-"), name="s")
    d.connect(t, s[0])
    d.connect(s, z)
    d.connect(z, s[1])
    with pytest.raises(DiagramError, match=r"algebraic loop: z\.y -> s\.u1 .*: its blocks run "
                                           r"at different rates"):
        compile_diagram(d, "solve")


def test_the_json_simulation_section_round_trips_and_solves(tmp_path):
    path = tmp_path / "loops.json"
    path.write_text(dumps(loops(), simulation={"T": 1.0, "algebraic": "solve",
                                               "algebraic_tol": 1e-12}))
    df = load(path)
    assert df.simulation["algebraic"] == "solve"
    config = file_config(df.simulation)
    assert (config.algebraic, config.algebraic_tol, config.algebraic_maxiter) == \
        ("solve", 1e-12, 50)
    check_closed_forms(simulate(df.diagram, config), x_tol=1e-6)
    path.write_text(dumps(loops(), simulation={"algebraic": "yes"}))
    with pytest.raises(Exception, match="algebraic"):
        load(path)


def test_blocksim_run_takes_algebraic_from_the_file_or_the_command_line(tmp_path, capsys):
    from blocksim.cli import main

    path = tmp_path / "loops.json"
    path.write_text(dumps(loops(), simulation={"T": 1.0}))
    assert main(["run", str(path), "--quiet"]) == 2
    assert "algebraic loop: s1.y" in capsys.readouterr().err
    assert main(["run", str(path), "--algebraic", "solve", "--out",
                 str(tmp_path / "r.npz")]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("s1.y"))
    assert math.isclose(float(line.split("=")[1]), 1 / 3, abs_tol=1e-9)
    path.write_text(dumps(loops(), simulation={"T": 1.0, "algebraic": "solve"}))
    assert main(["check", str(path)]) == 0


def test_a_loop_through_routing_blocks_is_torn_at_its_summing_junction():
    from blocksim.blocks import Demux, Mux, Time

    d = Diagram("routed")
    t = d.add(Time(), name="t")
    m, dm = d.add(Mux(2), name="m"), d.add(Demux(2), name="dm")
    q, h = d.add(Sum("+-"), name="q"), d.add(Gain(0.25), name="h")
    d.connect(t, m[0])
    d.connect(q, m[1])
    d.connect(m, dm)
    d.connect(dm[0], q[0])
    d.connect(dm[1], h)
    d.connect(h, q[1])
    plan = compile_diagram(d, "solve")
    assert [plan.signal_names[s] for s in plan.loops[0].torn] == ["q.y"]  # not the Mux's
    r = simulate(plan, 1.0, solver="euler", dt=0.1)
    np.testing.assert_allclose(r["q.y"], r.t / 1.25, atol=1e-12)
