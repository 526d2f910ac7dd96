"""No silent waits: an interpreted run whose blocks call numba-jitted functions says so when
numba compiles, and how often that happens (:mod:`blocksim.engine.compile_notice`)."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from blocksim import Diagram, simulate
from blocksim.blocks import Constant
from blocksim.engine import compile_notice
from blocksim.engine.block import Block
from blocksim.engine.compile_notice import NO_CACHE, NOT_CACHED, cache_scope

PACKAGE = Path(compile_notice.__file__).resolve().parents[1]


def _dispatcher(locator: str, path: str | Path) -> SimpleNamespace:
    """A stand-in for a numba dispatcher cached by a locator of class ``locator``."""
    kind = type(locator, (), {})
    return SimpleNamespace(_cache=SimpleNamespace(cache_path=str(path),
                                                  _impl=SimpleNamespace(locator=kind())))


@pytest.mark.parametrize("locator, where, says", [
    ("InTreeCacheLocator", "package", "once per installation"),
    ("InTreeCacheLocator", "tmp", "once per cache folder "),
    ("UserWideCacheLocator", "tmp", "once per user (numba's cache "),
    ("UserProvidedCacheLocator", "tmp", "once per NUMBA_CACHE_DIR ("),
    ("InTreeCacheLocator", "missing", NOT_CACHED),
])
def test_the_cache_scope_follows_where_numba_caches(tmp_path, locator, where, says):
    path = {"package": PACKAGE / "engine" / "__pycache__", "tmp": tmp_path,
            "missing": tmp_path / "not_there"}[where]
    assert cache_scope(_dispatcher(locator, path)).startswith(says)


def test_a_function_jitted_without_cache_compiles_in_every_process():
    from numba import njit

    assert cache_scope(njit(lambda x: x)) == NO_CACHE
    assert cache_scope(SimpleNamespace()) == NO_CACHE  # no cache at all


def test_a_library_kernel_is_cached_for_good():
    from blocksim.blocks.math.kernels import gain_kernel

    assert cache_scope(gain_kernel) != NOT_CACHED and cache_scope(gain_kernel) != NO_CACHE


class PlusOne(Block):
    """y = f(u) with a numba function ``f`` given to the constructor."""

    inputs = ("u",)
    outputs = ("y",)

    def __init__(self, f):
        super().__init__()
        self.f = f

    def output(self, t, x, u):
        return (float(self.f(u[0])),)


def _diagram(f) -> Diagram:
    d = Diagram("notice")
    p = d.add(PlusOne(f), name="p")
    d.connect(d.add(Constant(1.0), name="c"), p)
    return d


@pytest.fixture
def said(monkeypatch):
    from blocksim.engine.compiled import compile_watch

    lines: list[str] = []
    monkeypatch.setattr(compile_watch, "announce", lines.append)
    return lines


def test_an_interpreted_run_announces_the_first_numba_compile_naming_the_block(said):
    from numba import njit

    f = njit(lambda x: x + 1.0)  # a new function: it compiles at the dry run
    result = simulate(_diagram(f), 0.1, "euler", dt=0.05)
    assert result["p.y"][-1] == 2.0
    assert said == [compile_notice.INTERPRETED_MESSAGE.format(
        who="the blocks of diagram 'notice' (first: block 'p' (PlusOne))", scope=NO_CACHE)]
    simulate(_diagram(f), 0.1, "euler", dt=0.05)  # compiled: nothing to say
    assert len(said) == 1


def test_the_notice_leaves_a_compiled_runs_own_watch_to_announce(said):
    from numba import njit

    from blocksim.engine.compiled.compile_watch import CompileWatch

    f = njit(lambda x: x + 2.0)
    with CompileWatch("", "d", quiet=True), compile_notice.watching("diagram 'd'") as notice:
        f(1.0)
    assert notice is not None and notice.count == 1 and said == []
    with compile_notice.watching("diagram 'd'") as notice:
        pass
    assert notice.announced == "" and notice.count == 0


def _run(script: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, env={**os.environ, **env})


def test_without_numba_imported_nothing_is_watched_nor_imported():
    proc = _run(textwrap.dedent("""
        import sys
        import blocksim.engine.simulate
        from blocksim.engine.compile_notice import watching
        with watching() as notice:
            assert notice is None
        assert "numba" not in sys.modules
    """), {})
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""


def test_a_cold_interpreted_run_says_what_it_compiles_and_a_warm_one_says_nothing(tmp_path):
    # a block calling a cached njit function, in a new process with an empty numba cache
    (tmp_path / "plusmod.py").write_text(textwrap.dedent("""
        from numba import njit
        from blocksim.engine.block import Block

        @njit(cache=True)
        def plus_one(x):
            return x + 1.0

        class PlusOne(Block):
            inputs = ("u",)
            outputs = ("y",)

            def output(self, t, x, u):
                return (float(plus_one(u[0])),)
    """))
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        from plusmod import PlusOne
        from blocksim import Diagram, simulate
        from blocksim.blocks import Constant
        d = Diagram("cold")
        d.connect(d.add(Constant(1.0), name="c"), d.add(PlusOne(), name="p"))
        assert simulate(d, 0.1, "euler", dt=0.05)["p.y"][-1] == 2.0
    """)
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    cold = _run(script, env)
    assert cold.returncode == 0, cold.stderr
    assert cold.stderr.splitlines() == [compile_notice.INTERPRETED_MESSAGE.format(
        who="the blocks of diagram 'cold' (first: block 'p' (PlusOne))",
        scope=f"once per NUMBA_CACHE_DIR ({tmp_path / 'numba'})")]
    warm = _run(script, env)
    assert warm.returncode == 0 and warm.stderr == "", warm.stderr
