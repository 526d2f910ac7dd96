"""Ctrl-C inside ``simulate`` (interpreted): the KeyboardInterrupt is re-raised with the
partial result attached, status "interrupted", every started block stopped."""

import numpy as np
import pytest

from blocksim import Block, Diagram, simulate
from blocksim.blocks import Gain, Integrator
from blocksim.engine.record import SimResult


class CtrlC(Block):
    """Passes its input through; "presses Ctrl-C" once t reaches ``at``."""

    inputs = ("u",)
    outputs = ("y",)
    feedthrough = {"y": ("u",)}

    def __init__(self, at: float = 0.5):
        super().__init__()
        self.at = at
        self.stopped = False

    def output(self, t, x, u):
        if t >= self.at:
            raise KeyboardInterrupt
        return (u[0],)

    def stop(self, run):
        self.stopped = True


def test_ctrl_c_keeps_the_partial_result_on_the_exception(tmp_path):
    d = Diagram("interrupted")
    x = d.add(Integrator(x0=1.0), name="x")
    g = d.add(Gain(-1.0), name="g")
    c = d.add(CtrlC(0.5), name="c")
    d.connect(x, c)
    d.connect(c, g)
    d.connect(g, x)
    with pytest.raises(KeyboardInterrupt) as info:
        simulate(d, 10.0, "rk4", dt=0.01)
    r = info.value.result
    assert isinstance(r, SimResult) and r.status == "interrupted"
    assert r.message.startswith("interrupted (Ctrl-C) at t = 0.49")
    assert 0.48 <= r.t[-1] < 0.5 and len(r.t) == 50
    np.testing.assert_allclose(r["x.y"], np.exp(-r.t), rtol=1e-8)
    assert c.stopped
    r.save(tmp_path / "r.npz")
    back = SimResult.load(tmp_path / "r.npz")
    assert back.status == "interrupted" and back.t[-1] == r.t[-1]
