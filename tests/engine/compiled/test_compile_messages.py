"""What a compiled run says while it compiles (CompileWatch's announcements): what compiles, how
often it will (from where numba caches it), and entries seen although numba fires no compile
event for a ``cfunc``."""

import os
import subprocess
import sys
import textwrap
from types import SimpleNamespace

import pytest

from blocksim.engine.compiled import compile_watch
from blocksim.engine.compiled.compile_watch import CompileWatch

SCRIPT = textwrap.dedent("""
    import sys
    from blocksim import Diagram, simulate
    from blocksim.blocks import Constant, Gain, Integrator

    def diagram():
        d = Diagram("t")
        g = d.add(Gain(2.0), name="g")
        d.connect(d.add(Constant(1.0), name="c"), g)
        d.connect(g, d.add(Integrator(x0=0.0), name="i"))
        return d

    r = simulate(diagram(), 0.1, "euler", dt=0.05, backend="compiled", fuse=False)
    s = r.stats
    assert s["compile_entries"] > 0 and s["compile_kernels"] > 0 and s["compile_loop"] > 0
    assert any(n.startswith("blocksim_entry_") for n in s["compiled"]), s["compiled"]
    print("-- fused", file=sys.stderr, flush=True)
    r = simulate(diagram(), 0.1, "euler", dt=0.05, backend="compiled", fuse=True)
    assert r.stats["compile_diagram"] > 0
    print("-- again", file=sys.stderr, flush=True)
    r = simulate(diagram(), 0.1, "euler", dt=0.05, backend="compiled", fuse=False)
    assert r.stats["compiled_functions"] == 0
""")


def test_a_cold_compiled_run_announces_entries_kernels_and_the_loop_then_the_fused_diagram(
        tmp_path):
    numba_dir = tmp_path / "numba"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(numba_dir),
           "BLOCKSIM_CACHE_DIR": str(tmp_path / "blocksim")}
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    wired, fused, again = proc.stderr.split("-- fused\n")[0], *proc.stderr.split(
        "-- fused\n")[1].split("-- again\n")
    scope = f"once per NUMBA_CACHE_DIR ({numba_dir})"
    lines = wired.splitlines()
    assert lines[0] == compile_watch.MESSAGES["entries"].format(what="diagram 't'",
                                                                scope=scope)
    assert lines[1].startswith("blocksim: compiling blocksim kernels for diagram 't' (first: "
                               "blocksim.blocks.")
    assert lines[1].endswith(f"), {scope} (seconds per block type, ~10-30 s for the arm "
                             f"family; `blocksim warmup` does it ahead)...")
    assert lines[2] == compile_watch.MESSAGES["loop"].format(method="Euler", scope=scope)
    assert len(lines) == 3
    assert fused.splitlines() == [compile_watch.MESSAGES["diagram"].format(
        diagram="t", scope="once per diagram structure (cached)")]
    assert again == ""


def _function(module: str, name: str, **globals_) -> object:
    """A Python function that claims to live in ``module`` (with ``globals_``)."""
    namespace = dict(globals_)
    exec(f"def {name}():\n    pass", namespace)
    fn = namespace[name]
    fn.__module__ = module
    return fn


def _event(fn: object) -> SimpleNamespace:
    return SimpleNamespace(kind="numba:compile", data={"dispatcher": SimpleNamespace(
        py_func=fn), "args": ()})


@pytest.fixture
def said(monkeypatch):
    lines: list[str] = []
    monkeypatch.setattr(compile_watch, "announce", lines.append)
    return lines


def _compile(watch: CompileWatch, *functions: object) -> None:
    """Nested compile events: the first function's compile needs the next one's..."""
    for fn in functions:
        watch.on_start(_event(fn))
    for fn in reversed(functions):
        watch.on_end(_event(fn))


def test_each_wired_loop_is_announced_with_its_method_and_the_interpreter_counts_as_loop(said):
    watch = CompileWatch("blocksim.engine.compiled.wired_rk4", "d")
    rk4 = _function("blocksim.engine.compiled.wired_rk4", "run", METHOD=1)
    helper = _function("numba.np.arrayobj", "impl")
    interpreter = _function("blocksim.engine.compiled.wired", "evaluate")
    _compile(watch, rk4, helper, interpreter)
    _compile(watch, _function("blocksim.engine.compiled.wired_dopri", "run", METHOD=2))
    assert [s.split(", ")[0] for s in said] == [
        "blocksim: compiling the data-wired RK4 loop",
        "blocksim: compiling the data-wired Dormand-Prince loop"]
    assert set(watch.seconds) == {"kernels", "entries", "diagram", "loop"}
    assert watch.seconds["kernels"] == 0.0 and watch.seconds["loop"] > 0.0
    assert {f.kind for f in watch.functions.values()} == {"loop"}


def test_a_fused_module_is_the_diagram_not_the_data_wired_loop(said):
    watch = CompileWatch("blocksim_plan_0123", "pid")
    _compile(watch, _function("blocksim_plan_0123", "run"),
             _function("blocksim_plan_0123", "rhs"),
             _function("blocksim.blocks.math.kernels", "gain_kernel"))
    assert said[0].startswith("blocksim: compiling diagram 'pid' (fused tier), ")
    assert said[1].startswith("blocksim: compiling blocksim kernels for diagram 'pid' (first: "
                              "blocksim.blocks.math.kernels.gain_kernel), ")
    assert len(said) == 2 and not any("data-wired" in s for s in said)
    kinds = {name.rsplit(".", 1)[1]: f.kind for name, f in watch.functions.items()}
    assert kinds == {"run": "loop", "rhs": "diagram", "gain_kernel": "kernels"}


def test_a_quiet_watch_announces_nothing(said):
    watch = CompileWatch("", "d", quiet=True)
    _compile(watch, _function("blocksim.blocks.math.kernels", "gain_kernel"))
    assert said == [] and watch.compiled == ["blocksim.blocks.math.kernels.gain_kernel"]
