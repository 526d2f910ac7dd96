"""Ctrl-C while a compiled run compiles: a KeyboardInterrupt that numba's ctypes callbacks
swallow is raised again (the compile, and the run after it, do not go on)."""

import ctypes
import os
import signal
import threading

import pytest

from blocksim.engine.compiled.compile_watch import CompileWatch


@pytest.fixture(autouse=True)
def _python_sigint_handler():
    """Python's own SIGINT handler for the test (a job started in the background of a
    non-interactive shell, as CI may run pytest, inherits SIGINT ignored)."""
    assert threading.current_thread() is threading.main_thread()
    saved = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, saved)


def _sigint_inside_a_ctypes_callback() -> list[str]:
    """What LLVM's callbacks into numba do: Python code called from C. A SIGINT handled there
    raises KeyboardInterrupt inside the callback, which ctypes prints and drops."""
    ran = []

    def callback() -> None:
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(1000):  # the handler runs between bytecodes, inside the callback
            pass
        ran.append("callback ended")  # not reached: the interrupt ends the callback

    ctypes.CFUNCTYPE(None)(callback)()
    ran.append("after the callback")
    return ran


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_an_interrupt_swallowed_by_a_callback_is_raised_when_the_compile_ends():
    with pytest.raises(KeyboardInterrupt):
        with CompileWatch("no_such_module", "d"):
            ran = _sigint_inside_a_ctypes_callback()
    assert ran == ["after the callback"]  # the callback's interrupt was lost, the code went on
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_it_is_raised_at_the_next_compile_event():
    watch = CompileWatch("no_such_module", "d")
    with pytest.raises(KeyboardInterrupt):
        with watch:
            _sigint_inside_a_ctypes_callback()
            watch.on_start(type("Event", (), {"data": {}})())  # numba starts compiling
            raise AssertionError("not reached")


def test_without_an_interrupt_nothing_changes():
    with CompileWatch("no_such_module", "d") as watch:
        pass
    assert not watch.interrupted
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
