"""ArbotixArm and ArbotixPath in diagrams, against the emulator on a pseudo-terminal."""

import time
import warnings

import numpy as np
import pytest
import serial

from blocksim import Diagram, simulate
from blocksim.blocks import Constant, Step
from blocksim.blocks.hardware import ArbotixArm, ArbotixPath
from blocksim.engine.block import Block
from blocksim.engine.errors import BlockParameterError, SimulationError
from blocksim.engine.realtime import OverrunError
from blocksim.hardware import ArbotixEmulator
from blocksim.hardware import dynamixel as dx
from blocksim.io import dumps, loads

GOAL = np.array([0.3, 0.2, 0.1, -0.1, -0.2])
RES = 150 * np.pi / 180 / 512  # one encoder count [rad]


def _diagram(port, **kw):
    d = Diagram("hil")
    c = d.add(Constant(GOAL), name="cmd")
    kw.setdefault("timeout", 0.05)
    a = d.add(ArbotixArm(port=port, nservos=5, clock=0.02, **kw), name="arm")
    d.connect(c, a)
    return d


class Boom(Block):
    """Fails at t >= t_fail: a diagram that breaks while a device is open."""

    inputs = ("u",)
    outputs = ("y",)

    def __init__(self, t_fail: float = 0.1):
        super().__init__()
        self.t_fail = t_fail

    def output(self, t, x, u):
        if t >= self.t_fail:
            raise RuntimeError("boom")
        return (0.0,)


def _released(path):
    """The block closed the port: an exclusive open succeeds."""
    serial.Serial(path, exclusive=True).close()
    return True


@pytest.fixture
def emu():
    with ArbotixEmulator(nservos=5, packet_time=0.002) as e:
        yield e


def test_the_arm_follows_the_command_and_the_port_is_released(emu):
    r = simulate(_diagram(emu.path), 0.4)
    assert r["arm.q"].shape == (len(r.t), 5)
    np.testing.assert_array_equal(r["arm.q"][0], np.zeros(5))  # measured before the command
    np.testing.assert_allclose(r["arm.q"][-1], GOAL, atol=RES / 2 + 1e-12)
    st = r.stats["hardware"]["arm"]
    assert st["device"] == emu.path and st["exchanges"] == 2 * 21 and st["overruns"] == 0
    assert _released(emu.path)
    assert not any(s.torque for s in emu.servos.values())  # on_stop="relax"


def test_sync_read_reads_every_servo_in_one_exchange_per_hit(emu):
    # a generous timeout: a retry on a loaded machine would add packets
    r = simulate(_diagram(emu.path, sync_read=True, timeout=0.5), 1.0)
    # per hit: one SYNC_READ to the board and one SYNC_WRITE; then the relax at the end
    packets = [p[4] for p in emu.received]
    assert packets[: 2 * len(r.t)] == [dx.INS_SYNC_READ, dx.INS_SYNC_WRITE] * len(r.t)
    np.testing.assert_allclose(r["arm.q"][-1], GOAL, atol=RES / 2 + 1e-12)


def test_on_stop_hold_keeps_torque_and_temperature_output(emu):
    r = simulate(_diagram(emu.path, on_stop="hold", temperature=True, speed=200), 0.1)
    assert all(s.torque for s in emu.servos.values())
    assert all(s.word(dx.ADDR_SPEED) == 200 for s in emu.servos.values())
    np.testing.assert_array_equal(r["arm.temp"][-1], np.full(5, 30.0))


def test_a_failing_simulation_still_relaxes_and_releases_the_port(emu):
    d = _diagram(emu.path)
    d.add(Boom(0.1), name="boom")
    d.connect("arm.q", "boom.u")
    with pytest.raises(SimulationError, match="boom") as info:
        simulate(d, 1.0)
    res = info.value.result
    assert res.status == "failed" and res.t[-1] == pytest.approx(0.08)
    assert res["arm.q"].shape[0] == len(res.t)
    assert _released(emu.path)
    assert not any(s.torque for s in emu.servos.values())


@pytest.mark.parametrize(
    ("fault", "why"),
    [
        ("unplug", "the device disappeared"),
        ("corrupt", "bad checksum"),
        ("drop", "no status packet"),
        ("garbage", "no status packet"),
    ],
)
def test_a_device_fault_mid_run_ends_clearly_with_the_data_so_far(emu, fault, why):
    emu.inject(fault, count=100, after=5 * 8)  # 8 hits of 5 reads answered, then faults
    t0 = time.perf_counter()
    with pytest.raises(SimulationError) as info:
        simulate(_diagram(emu.path, timeout=0.2), 2.0)  # healthy replies are never late
    assert time.perf_counter() - t0 < 2.0
    msg = str(info.value)
    assert "'arm'" in msg and emu.path in msg and why in msg
    assert "last exchange: sent FF FF 01 04 02 24 02 D2" in msg
    res = info.value.result
    assert res.t[-1] == pytest.approx(0.14)  # hits 0..7 recorded
    np.testing.assert_allclose(res["arm.q"][-1], GOAL, atol=0.05)
    if fault != "unplug":
        assert _released(emu.path)


@pytest.mark.filterwarnings("ignore:.*overrun:RuntimeWarning")  # busy machines
def test_record_then_replay_reproduces_every_signal_bit_for_bit(tmp_path):
    rec = tmp_path / "arm.json"
    d = _diagram("emulator", record=str(rec))  # wall-clock emulator: not reproducible itself
    live = simulate(d, 0.3, realtime=1.0)
    assert rec.stat().st_size > 0 and live.stats["hardware"]["arm"]["record"] == str(rec)
    again = simulate(_diagram(None, replay=str(rec)), 0.3)
    assert again.signals == live.signals
    for s in live.signals:
        np.testing.assert_array_equal(again[s], live[s])
    # a diagram that commands something else is caught
    d2 = Diagram("other")
    c = d2.add(Constant(-GOAL), name="cmd")
    a = d2.add(ArbotixArm(replay=str(rec), nservos=5, clock=0.02, timeout=0.05), name="arm")
    d2.connect(c, a)
    with pytest.raises(SimulationError, match=r"the diagram sent .* where the recording has"):
        simulate(d2, 0.3)


def test_overrun_policies_in_a_real_time_run(emu):
    emu.inject("late", count=3, delay=0.045, after=10)  # 3 slow reads: 135 ms at one hit
    with pytest.raises(SimulationError, match=r"overrun at t=.*overrun='abort'"):
        simulate(_diagram(emu.path, overrun="abort", timeout=0.5), 0.4, realtime=1.0)
    assert _released(emu.path)
    emu.inject("late", count=3, delay=0.045, after=10)
    r = simulate(_diagram(emu.path, overrun="skip", timeout=0.5), 0.4, realtime=1.0, overrun="skip")
    st = r.stats["hardware"]["arm"]
    assert st["skipped"] >= 1 and st["overruns"] == st["skipped"]
    emu.inject("late", count=3, delay=0.045, after=10)
    with pytest.warns(RuntimeWarning, match="overrun at t="):
        r = simulate(_diagram(emu.path, timeout=0.5), 0.4, realtime=1.0)
    assert r.stats["hardware"]["arm"]["overruns"] >= 1 and r.status == "success"


def test_the_runs_overrun_policy_applies_unless_the_block_sets_its_own(emu):
    # in slow motion (realtime=0.25: 80 ms of wall time per 20 ms hit) so that only the
    # injected 135 ms, not a busy machine, makes a hit overrun
    slow = dict(realtime=0.25)
    # run skip, block None: the block skips its late exchange, nobody warns
    emu.inject("late", count=3, delay=0.045, after=10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = simulate(_diagram(emu.path, timeout=0.5), 0.2, overrun="skip", **slow)
    st = r.stats["hardware"]["arm"]
    assert st["skipped"] >= 1 and st["overruns"] == st["skipped"] and r.status == "success"
    assert r.stats["realtime"]["clocks"]["clock 0.02 s"]["overruns"] >= 1
    # run skip, block abort: the block's own policy wins for its check
    emu.inject("late", count=3, delay=0.045, after=10)
    with pytest.raises(SimulationError, match=r"block 'arm' .*overrun at t=.*overrun='abort'"):
        simulate(_diagram(emu.path, timeout=0.5, overrun="abort"), 0.2, overrun="skip", **slow)
    assert _released(emu.path)
    # run abort, block skip: the block skips its late write, the engine's own check of the
    # clock stops the run, naming the clock, with the data so far
    emu.inject("late", count=3, delay=0.045, after=10)
    with pytest.raises(OverrunError, match=r"real-time overrun on clock 0\.02 s") as info:
        simulate(_diagram(emu.path, timeout=0.5, overrun="skip"), 0.2, overrun="abort", **slow)
    res = info.value.result
    assert info.value.clock == "clock 0.02 s" and len(res.t) >= 2
    assert res.stats["hardware"]["arm"]["skipped"] >= 1
    assert _released(emu.path)


def test_arbotix_path_plays_a_jtraj_move_on_go(emu):
    d = Diagram("path")
    goal = d.add(Constant(GOAL), name="goal")
    go = d.add(Step(time=0.1), name="go")
    p = d.add(
        ArbotixPath(port=emu.path, nservos=5, clock=0.05, duration=0.2, npoints=5, timeout=0.05),
        name="path",
    )
    d.connect(goal, p["q_goal"])
    d.connect(go, p["go"])
    r = simulate(d, 3.0)  # 2 ms of emulated time per packet: 0.6 s
    assert emu.sequence == [(k, 40) for k in range(5)]
    assert emu.poses[4] == [round(g / RES + 512) for g in GOAL]
    np.testing.assert_allclose(r["path.q"][-1], GOAL, atol=RES / 2 + 1e-12)
    assert np.all(r["path.q"][r.t < 0.1] == 0.0)


def test_json_round_trip_runs_the_same(emu):
    d = _diagram("emulator", emulator_packet_time=0.002, timeout=1.0)  # no retry: exact
    again = loads(dumps(d)).diagram
    a, b = simulate(d, 0.2), simulate(again, 0.2)
    for s in a.signals:
        np.testing.assert_array_equal(a[s], b[s])


def test_bad_parameters_are_named():
    with pytest.raises(BlockParameterError, match="'port' must be the serial device"):
        ArbotixArm(nservos=5)
    with pytest.raises(
        BlockParameterError, match="'overrun' must be one of warn, skip, abort or None"
    ):
        ArbotixArm(port="emulator", overrun="panic")
    with pytest.raises(BlockParameterError, match="'speed'"):
        ArbotixArm(port="emulator", speed=5000)
    with pytest.raises(BlockParameterError, match="'replay': no such file"):
        ArbotixArm(replay="/nonexistent.json")
    with pytest.raises(BlockParameterError, match="'q0' must be 5 angles"):
        ArbotixArm(port="emulator", q0=[0, 0])
    with pytest.raises(BlockParameterError, match="'npoints'"):
        ArbotixPath(port="emulator", npoints=31)


def test_a_missing_device_fails_at_start_naming_it():
    with pytest.raises(Exception, match="/dev/nonexistent-tty: cannot open the serial port"):
        simulate(_diagram("/dev/nonexistent-tty"), 0.1)


def test_auto_backend_runs_hardware_blocks_interpreted_and_compiled_names_them(emu):
    d = _diagram(emu.path)
    r = simulate(d, 0.04, backend="auto")
    assert r.stats["backend"] == "interpreted" and r["arm.q"].shape == (3, 5)
    with pytest.raises(Exception, match="arm"):
        simulate(d, 0.04, solver="rk4", dt=0.01, backend="compiled")
    assert _released(emu.path)


def test_a_block_drives_one_run_at_a_time(emu):
    from blocksim.engine.compile import compile_diagram

    armed = []

    class Nested(Block):
        """Starts a second run of the same plan from inside the first."""

        inputs = ("u",)
        outputs = ("y",)

        def output(self, t, x, u):
            if armed and t == 0.0:
                simulate(armed[0], 0.02)
            return (0.0,)

    d = _diagram(emu.path)
    d.add(Nested(), name="nested")
    d.connect("arm.q", "nested.u")
    plan = compile_diagram(d)
    armed.append(plan)
    with pytest.raises(SimulationError, match="already running in another simulation"):
        simulate(plan, 0.02)
    assert _released(emu.path)


@pytest.mark.filterwarnings("ignore:.*overrun:RuntimeWarning")  # busy machines
def test_arbotix_path_records_and_replays(tmp_path):
    def path_diagram(**kw):
        d = Diagram("path")
        goal = d.add(Constant(GOAL), name="goal")
        go = d.add(Step(time=0.1), name="go")
        p = d.add(
            ArbotixPath(nservos=5, clock=0.05, duration=0.2, npoints=5, timeout=0.05, **kw),
            name="path",
        )
        d.connect(goal, p["q_goal"])
        d.connect(go, p["go"])
        return d

    rec = tmp_path / "path.json"
    live = simulate(path_diagram(port="emulator", record=str(rec)), 0.6, realtime=1.0)
    again = simulate(path_diagram(replay=str(rec)), 0.6)
    np.testing.assert_array_equal(again["path.q"], live["path.q"])
    assert np.any(live["path.q"][-1] != 0.0)  # it moved (wall-clock emulator)
