"""The remote calls the V-REP blocks make per hit, counted by the emulated server (real ZMQ
sockets): one ``sim.step`` and one read per joint, a joint's command only when it changed, and
the simulator's time counted rather than asked for (checked once at the end of the run)."""

import warnings
from collections import Counter

import numpy as np
import pytest

from blocksim import Diagram, simulate
from blocksim.blocks import Constant
from blocksim.blocks.hardware import VrepArm, VrepSimulation
from blocksim.engine.block import Block
from blocksim.hardware.coppeliasim_emulator import CoppeliaSimEmulator
from blocksim.hardware.servo_model import move

DT = 0.01
CMD = np.array([0.5, -0.3, 0.2, 0.0, 0.1, -0.1])
SWITCH = 5  # hit at which joint 3's command changes


@pytest.fixture
def emu():
    with CoppeliaSimEmulator() as e:
        yield e


class Joint3Switch(Block):
    """CMD, with joint 3's command 0.7 from hit SWITCH on, at the hits of a DT clock."""

    outputs = (("y", (6,)),)

    def __init__(self):
        super().__init__()
        self.clock = DT

    def output(self, t, x, u):
        q = CMD.copy()
        if round(t / DT) >= SWITCH:
            q[2] = 0.7
        return (q,)


class StepsTheSimulator(Block):
    """Another party: advances the emulated simulator by one step behind the diagram's back at
    hit 3."""

    outputs = ("y",)

    def __init__(self, emu):
        super().__init__()
        self.clock = DT
        self.emu = emu

    def output(self, t, x, u):
        if round(t / DT) == 3:
            with self.emu.lock:
                self.emu.sim_step()
        return (0.0,)


def _diagram(emu, cmd_block, mode="target"):
    net = dict(host="127.0.0.1", port=emu.port, clock=DT, timeout=0.5)
    d = Diagram("calls")
    d.add(VrepSimulation(**net), name="sim")
    c = d.add(cmd_block, name="cmd")
    a = d.add(VrepArm(mode=mode, **net), name="arm")
    d.connect(c, a)
    return d


def _per_hit(emu, start):
    """The calls served from request ``start`` on, split at each sim.step: [start-up + hit 0,
    hit 1, hit 2, ..., last hit + end of run]."""
    hits, current = [], []
    for func, _ in emu.requests[start:]:
        if func == "sim.step":
            hits.append(current)
            current = []
        current.append(func)
    hits.append(current)
    return hits


def test_a_hit_steps_once_reads_each_joint_and_sends_only_the_commands_that_changed(emu):
    r = simulate(_diagram(emu, Joint3Switch()), 0.1)
    n = len(r.t)
    hits = _per_hit(emu, 0)
    assert len(hits) == n  # n - 1 steps: hit 0 is the state at the start
    for k, calls in enumerate(hits[1:-1], start=1):
        expected = ["sim.step"] + ["sim.getJointPosition"] * 6
        if k == SWITCH:
            expected.append("sim.setJointTargetPosition")  # joint 3 only
        assert calls == expected, k
    # hit 0 sends all six targets; no sim.getSimulationTime at any hit (only at start and end)
    every = Counter(f for f, _ in emu.requests)
    assert every["sim.setJointTargetPosition"] == 6 + 1
    assert every["sim.getSimulationTime"] == 2 and every["sim.step"] == n - 1
    switch = [a for f, a in emu.requests if f == "sim.setJointTargetPosition"][-1]
    assert switch == (emu.scene.handle("IRB140_joint3"), 0.7)
    # the held targets still drive the joints: joint 3 moves to 0.2, then on to 0.7
    q, expected = 0.0, []
    for k in range(n):
        expected.append(q)
        q = move(q, 0.7 if k >= SWITCH else 0.2, 3.0, 0.02, DT)
    np.testing.assert_array_equal(r["arm.q"][:, 2], expected)
    # the simulator's time is counted exactly as the emulator keeps it
    np.testing.assert_array_equal(r["sim.t"], np.arange(n) * DT)
    hw = r.stats["hardware"]
    assert hw["arm"]["calls"] + hw["sim"]["calls"] == len(emu.requests)


def test_position_mode_sends_every_joint_at_every_hit(emu):
    r = simulate(_diagram(emu, Constant(CMD), mode="position"), 0.05)
    every = Counter(f for f, _ in emu.requests)
    assert every["sim.setJointPosition"] == 6 * len(r.t)
    np.testing.assert_array_equal(r["arm.q"][1:], np.tile(CMD, (len(r.t) - 1, 1)))


def test_a_simulator_stepped_by_someone_else_is_reported_at_the_end(emu):
    d = _diagram(emu, Constant(CMD))
    d.add(StepsTheSimulator(emu), name="other")
    with pytest.warns(RuntimeWarning, match="something else advanced the simulation"):
        simulate(d, 0.06)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a run nobody interferes with: no warning
        simulate(_diagram(emu, Constant(CMD)), 0.06)
