"""The generated module of a diagram: keyed by structure, cached on disk, one per structure.

Every distinct diagram structure costs a compile of its loop, so the tests share a few
structures (module-level diagrams) and vary parameters instead.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from blocksim import Diagram, compile_diagram, simulate
from blocksim.blocks import Constant, Gain, HitCrossing, Inport, Integrator, Outport, Sum
from blocksim.engine.compiled import ir
from blocksim.engine.compiled.backend import kernels_for, prepare
from blocksim.engine.compiled.loop import Status


def lag(K: float = 3.0, x0: float = 0.0, with_crossing: bool = False) -> Diagram:
    """x' = K (1 - x): x = 1 - (1 - x0) exp(-K t); optionally a crossing that never fires
    (which makes the run take the general loop)."""
    d = Diagram("lag")
    d.add(Constant(1.0), name="u")
    d.add(Sum("+-"), name="e")
    d.add(Gain(K), name="k")
    d.add(Integrator(x0=x0), name="x")
    d.connect("u.y", "e.u0")
    d.connect("x.y", "e.u1")
    d.connect("e.y", "k.u")
    d.connect("k.y", "x.u")
    if with_crossing:
        d.add(HitCrossing(offset=5.0), name="never")
        d.connect("x.y", "never.u")
    return d


def test_parameter_values_are_not_in_the_source():
    a, b = compile_diagram(lag(3.0)), compile_diagram(lag(0.5, x0=0.25))
    pa, pb = prepare(a, "rk4", "fused"), prepare(b, "rk4", "fused")
    assert pa.generated.name == pb.generated.name  # one module serves both
    assert "3.0" not in pa.generated.source and "0.25" not in pa.generated.source
    ra = simulate(a, 1.0, "rk4", dt=1e-3, backend="compiled", fuse=True)
    rb = simulate(b, 1.0, "rk4", dt=1e-3, backend="compiled", fuse=True)
    np.testing.assert_allclose(ra["x.y"], 1 - np.exp(-3.0 * ra.t), atol=1e-11)
    np.testing.assert_allclose(rb["x.y"], 1 - 0.75 * np.exp(-0.5 * rb.t), atol=1e-11)
    assert rb.stats["compiled_functions"] == 0  # the second structure-mate compiles nothing


def test_the_source_names_signals_after_their_ports():
    src = prepare(compile_diagram(lag()), "rk4", "fused").generated.source
    for name in ("s_u_y", "s_e_y", "s_k_y", "s_x_y", "p_k = ("):
        assert name in src
    assert "def run(" in src and "def rk4_step(" in src  # the loop is in the module


def test_compile_time_is_split_by_kind():
    r = simulate(compile_diagram(lag()), 0.1, "rk4", dt=1e-2, backend="compiled", fuse=True)
    parts = [r.stats[k] for k in ("compile_kernels", "compile_diagram", "compile_loop",
                                  "compile_load")]
    assert all(p >= 0.0 for p in parts)
    assert sum(parts) == pytest.approx(r.stats["compile_time"], rel=1e-9, abs=1e-9)
    assert r.stats["compile_cache"] in ("cold", "cached")


def test_lean_and_general_loops_agree():
    """rk4 without crossings runs in run_fixed; a crossing that never fires sends the same
    system through the general loop: same steps, same trace."""
    lean = simulate(lag(), 1.0, "rk4", dt=1e-2, backend="compiled", fuse=True)
    general = simulate(lag(with_crossing=True), 1.0, "rk4", dt=1e-2, backend="compiled", fuse=True)
    assert lean.stats["nsteps"] == general.stats["nsteps"] == 100
    np.testing.assert_array_equal(lean.t, general.t)
    np.testing.assert_allclose(lean["x.y"], general["x.y"], rtol=0, atol=1e-15)


def test_a_module_compiles_each_diagram_function_once_and_only_the_code_it_needs():
    """METHOD and NZ are constants of the generated module (a module serves one method);
    numba drops the branches they rule out before typing, so without crossings the crossing
    functions are never compiled. The loop helpers are inlined into the loop, and each of
    the diagram's own functions compiles once: a second signature (a literal ``mode``, say)
    would link and optimise every kernel once more."""
    plan = compile_diagram(lag())
    r45 = simulate(plan, 0.5, "RK45", backend="compiled", fuse=True)
    rk4 = simulate(plan, 0.5, "rk4", dt=1e-2, backend="compiled", fuse=True)
    assert r45.stats["generated_module"] != rk4.stats["generated_module"]
    general = prepare(plan, "RK45", "fused").generated.module
    assert general.METHOD == 2 and general.NZ == 0
    assert general.run.signatures
    for unused in ("crossings", "fire"):
        assert getattr(general, unused).signatures == [], unused
    # a loop loaded from numba's disk cache brings no callee signatures: the compiled callees
    # are counted when the loop compiled here (a cold cache)
    if r45.stats["compile_cache"] == "cold":
        for used in ("evaluate", "rhs", "rhs_record"):
            assert len(getattr(general, used).signatures) == 1, used
    np.testing.assert_allclose(r45["x.y"], 1 - np.exp(-3.0 * r45.t), atol=1e-6)
    with_crossing = compile_diagram(lag(with_crossing=True))
    rc = simulate(with_crossing, 0.5, "RK45", backend="compiled", fuse=True)
    module = prepare(with_crossing, "RK45", "fused").generated.module
    assert module.NZ == 1 and module.run.signatures
    if rc.stats["compile_cache"] == "cold":
        assert len(module.crossings.signatures) == 1
        assert len(module.evaluate.signatures) == 1


def test_vector_stores_compile_store_once_whatever_their_offsets():
    """The generated code stores each vector signal with ``store(sig, offset, value)``; a
    literal offset would make numba compile ``store`` once per offset (156 times in one run
    of the test suite), so offsets are passed as int64 values."""
    import re

    from blocksim.engine.compiled import loop

    d = Diagram("vectors")
    prev = d.add(Constant(np.array([1.0, 2.0, 3.0])), name="c")
    for k in range(4):
        g = d.add(Gain(1.5 + k), name=f"g{k}")
        d.connect(prev, g)
        prev = g
    r = simulate(d, 0.1, "rk4", dt=0.05, backend="compiled", fuse=True)
    np.testing.assert_allclose(r["g3.y"][-1], np.array([1.0, 2.0, 3.0]) * 1.5 * 2.5 * 3.5 * 4.5)
    source = prepare(compile_diagram(d), "rk4", "fused").generated.source
    offsets = re.findall(r"store\(sig, (np\.int64\(\d+\)|[^,]+), ", source)
    assert len(offsets) >= 4 and all(o.startswith("np.int64(") for o in offsets), offsets
    assert not any("Literal" in str(sig) for sig in loop.store.signatures)


def test_specialize_is_a_deprecated_no_op():
    plain = simulate(lag(), 0.5, "rk4", dt=1e-2, backend="compiled", fuse=True)
    with pytest.warns(DeprecationWarning, match="specialize"):
        old = simulate(lag(), 0.5, "rk4", dt=1e-2, backend="compiled", fuse=True, specialize=True)
    np.testing.assert_array_equal(plain["x.y"], old["x.y"])


def test_status_codes():
    assert Status(3) is Status.STOPPED and int(Status.DONE) == 0
    assert [s.name for s in Status] == ["DONE", "NONFINITE", "STEP_TOO_SMALL", "STOPPED",
                                        "ZENO", "INTERRUPTED", "FULL", "LIMIT"]


def test_the_lean_loop_stops_when_its_buffers_are_full_and_the_run_is_redone(monkeypatch):
    """run_fixed never grows its record buffers (that costs reference counting every step):
    too few rows end it with FULL, and run_compiled reruns it with twice the rows."""
    import blocksim.engine.compiled.backend as backend

    calls = []
    real = backend._options

    def small(*args, **kwargs):
        opts = real(*args, **kwargs)
        calls.append(opts.cap)
        return opts._replace(cap=8)

    monkeypatch.setattr(backend, "_options", small)
    r = simulate(compile_diagram(lag()), 1.0, "rk4", dt=1e-2, backend="compiled", fuse=True)
    assert calls and len(r.t) == 101 and r.status == "success"
    np.testing.assert_allclose(r["x.y"], 1 - np.exp(-3.0 * r.t), atol=1e-8)


def _with_subsystem() -> Diagram:
    inner = Diagram("ctrl")
    inner.add(Inport(), name="err")
    inner.add(Gain(2.0), name="k")
    inner.add(Outport(), name="out")
    inner.connect("err.y", "k.u")
    inner.connect("k.y", "out.u")
    d = Diagram("outer")
    d.add(Constant(1.0), name="ref")
    d.add(Sum("+-"), name="e")
    d.add(inner, name="ctrl")
    d.add(Integrator(), name="x")
    d.connect("ref.y", "e.u0")
    d.connect("x.y", "e.u1")
    d.connect("e.y", "ctrl.err")
    d.connect("ctrl.out", "x.u")
    return d


def test_subsystems_compile_with_ports_as_aliases():
    plan = compile_diagram(_with_subsystem())
    program = ir.build(plan, kernels_for(plan, "rk4"))
    routes = [s for s in program.evaluation if isinstance(s, ir.Route)]
    assert {program.block_names[s.entry] for s in routes} == {"ctrl/err", "ctrl/out"}
    src = prepare(plan, "rk4", "fused").generated.source
    assert "s_ctrl__out_y = s_ctrl__k_y" in src  # a plain alias, no call
    compiled = simulate(plan, 1.0, "rk4", dt=1e-2, backend="compiled", fuse=True)
    interpreted = simulate(plan, 1.0, "rk4", dt=1e-2)
    for name in ("x.y", "ctrl/out.y", "ctrl/err.y"):
        np.testing.assert_allclose(compiled[name], interpreted[name], rtol=0, atol=1e-14)
    np.testing.assert_allclose(compiled["x.y"][-1], 1 - np.exp(-2.0), atol=1e-8)


def test_identifiers_are_unique_and_valid():
    taken: set[str] = set()
    names = [ir.identifier(n, taken, "s_") for n in ("a/b.y", "a__b.y", "a/b.y", "1x.y")]
    assert len(set(names)) == 4
    assert all(n.isidentifier() for n in names)


DIAGRAM = {
    "blocksim": 1,
    "name": "lag_file",
    "blocks": {
        "u": {"type": "Constant", "params": {"value": 1.0}},
        "e": {"type": "Sum", "params": {"signs": "+-"}},
        "k": {"type": "Gain", "params": {"K": 4.0}},
        "x": {"type": "Integrator"},
    },
    "wires": [
        {"from": "u.y", "to": "e.u0"},
        {"from": "x.y", "to": "e.u1"},
        {"from": "e.y", "to": "k.u"},
        {"from": "k.y", "to": "x.u"},
    ],
}

RUN = textwrap.dedent("""
    import json, sys
    from blocksim import simulate
    from blocksim.io import load
    r = simulate(load(sys.argv[1]).diagram, 1.0, "rk4", dt=1e-3, backend="compiled", fuse=True)
    print(json.dumps({"compiled": r.stats["compiled_functions"],
                      "module": r.stats["generated_module"], "x": float(r["x.y"][-1])}))
""")


def test_a_json_diagram_compiles_once_across_processes(tmp_path):
    """The generated module and numba's cache of it are found again by a new process: the
    second process compiles nothing."""
    path = tmp_path / "lag.json"
    path.write_text(json.dumps(DIAGRAM))
    env = {**os.environ, "BLOCKSIM_CACHE_DIR": str(tmp_path / "cache")}
    runs = []
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", RUN, str(path)], env=env,
                             capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    first, second = runs
    assert first["compiled"] > 0  # a fresh cache folder: the diagram and its loop compile
    assert second["compiled"] == 0
    assert second["module"] == first["module"]
    assert second["x"] == pytest.approx(1 - np.exp(-4.0), abs=1e-10)


def test_a_kernel_given_a_shape_it_cannot_take_is_a_clear_compile_error():
    from blocksim.blocks import Demux
    from blocksim.engine.compiled.backend import CompileError

    d = Diagram("split4")  # Demux(2) of a 4-vector: the interpreted back-end splits it in two
    d.add(Constant(np.arange(4.0)), name="c")
    d.add(Demux(2), name="dm")
    d.add(Sum("++"), name="s")
    d.connect("c.y", "dm.u")
    d.connect("dm.y0", "s.u0")
    d.connect("dm.y1", "s.u1")
    np.testing.assert_array_equal(simulate(d, 0.1, "rk4", dt=0.1)["s.y"][-1], [2.0, 4.0])
    with pytest.raises(CompileError, match="cannot compile diagram 'split4'") as err:
        simulate(d, 0.1, "rk4", dt=0.1, backend="compiled", fuse=True)
    assert "\x1b[" not in str(err.value)
