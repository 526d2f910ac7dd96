"""What a compiled run says while it compiles (CompileWatch's announcements): what compiles, how
often it will (from where numba caches it), and entries seen although numba fires no compile
event for a ``cfunc``."""

import json
import os
import subprocess
import sys
import textwrap
from types import SimpleNamespace

import pytest

from blocksim.engine.compiled import compile_watch
from blocksim.engine.compiled.compile_watch import CompileWatch

SCRIPT = textwrap.dedent("""
    import json
    from blocksim import Diagram, compile_diagram
    from blocksim.blocks import Constant, Gain, Integrator
    from blocksim.engine.compiled.backend import prepare
    from blocksim.engine.compiled.compile_watch import CompileWatch

    d = Diagram("t")
    g = d.add(Gain(2.0), name="g")
    d.connect(d.add(Constant(1.0), name="c"), g)
    d.connect(g, d.add(Integrator(x0=0.0), name="i"))
    with CompileWatch("", "t") as watch:  # what a data-wired run does before its loop
        prepare(compile_diagram(d), "euler", "wired")
    print(json.dumps({"seconds": watch.seconds, "compiled": watch.compiled}))
""")


def test_a_cold_data_wired_run_announces_its_entries_and_kernels_a_warm_one_nothing(tmp_path):
    # numba fires no compile event for an entry (a cfunc): the watch sees it through numba's
    # compiler lock; an empty numba cache makes every entry and kernel compile
    numba_dir = tmp_path / "numba"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(numba_dir),
           "BLOCKSIM_CACHE_DIR": str(tmp_path / "blocksim")}

    def run() -> tuple[list[str], dict]:
        proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                              timeout=300, env=env)
        assert proc.returncode == 0, proc.stderr
        return proc.stderr.splitlines(), json.loads(proc.stdout)

    said, watch = run()
    scope = f"once per NUMBA_CACHE_DIR ({numba_dir})"
    assert said[0] == compile_watch.MESSAGES["entries"].format(what="diagram 't'", scope=scope)
    assert said[1].startswith("blocksim: compiling blocksim kernels for diagram 't' (first: "
                              "blocksim.blocks.")
    assert said[1].endswith(f"), {scope} (seconds per block type, ~10-30 s for the arm "
                            f"family; `blocksim warmup` does it ahead)...")
    assert len(said) == 2
    assert watch["seconds"]["entries"] > 0 and watch["seconds"]["kernels"] > 0
    entries = [n for n in watch["compiled"] if n.startswith("blocksim_entry_")]
    assert len(entries) >= 3, watch["compiled"]  # Constant, Gain, Integrator (per kind)
    said, watch = run()
    assert said == [] and watch["compiled"] == []


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
