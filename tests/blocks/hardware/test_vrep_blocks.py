"""The V-REP blocks in diagrams, against the emulated CoppeliaSim server (real ZMQ sockets)."""

import math
import time

import numpy as np
import pytest

from blocksim import Diagram, simulate
from blocksim.blocks import Constant
from blocksim.blocks.hardware import VrepArm, VrepCamera, VrepObjectPose, VrepSimulation
from blocksim.engine.block import Block
from blocksim.engine.errors import BlockParameterError, SimulationError
from blocksim.hardware.coppeliasim_emulator import CoppeliaSimEmulator
from blocksim.hardware.servo_model import move
from blocksim.io import dumps, loads

DT = 0.01
CMD = np.array([0.5, -0.3, 0.2, 0.0, 0.1, -0.1])


@pytest.fixture
def emu():
    with CoppeliaSimEmulator() as e:
        yield e


def _arm_diagram(host="emulator", port=23000, mode="target", cmd=CMD, **kw):
    d = Diagram("vrep")
    d.add(VrepSimulation(host=host, port=port, clock=DT, timeout=0.5, **kw), name="sim")
    c = d.add(Constant(cmd), name="cmd")
    a = d.add(VrepArm(host=host, port=port, clock=DT, mode=mode, timeout=0.5, **kw), name="arm")
    d.connect(c, a)
    return d


class Boom(Block):
    """Fails at t >= t_fail."""

    inputs = ("u",)
    outputs = ("y",)

    def __init__(self, t_fail: float = 0.05):
        super().__init__()
        self.t_fail = t_fail

    def output(self, t, x, u):
        if t >= self.t_fail:
            raise RuntimeError("boom")
        return (0.0,)


def test_synchronous_stepping_advances_the_simulator_with_the_diagram(emu):
    r = simulate(_arm_diagram("127.0.0.1", emu.port), 0.2)
    np.testing.assert_allclose(r["sim.t"], r.t, atol=1e-12)  # the simulator's clock
    # joint 1: the target is sent at hit k and acts over the next step (exact controller)
    q, expected = 0.0, []
    for _ in r.t:
        expected.append(q)
        q = move(q, CMD[0], 3.0, 0.02, DT)
    np.testing.assert_array_equal(r["arm.q"][:, 0], expected)
    assert emu.scene.state == "stopped" and not emu.scene.stepping  # stopped at the end
    assert emu.wait_connections(0)  # both blocks closed their sockets
    hw = r.stats["hardware"]
    assert hw["arm"]["exchanges"] == 2 * len(r.t) and hw["sim"]["device"] == emu.address


def test_velocity_mode_integrates_the_commanded_rates(emu):
    r = simulate(_arm_diagram("127.0.0.1", emu.port, mode="velocity"), 0.1)
    # the rates sent at t_k act over [t_k, t_k+1]: q(t_k) = CMD t_k
    np.testing.assert_allclose(r["arm.q"], np.outer(r.t, CMD), rtol=0, atol=1e-15)


def test_the_simulation_block_must_come_first(emu):
    d = Diagram("wrong")
    c = d.add(Constant(CMD), name="cmd")
    a = d.add(VrepArm(host="127.0.0.1", port=emu.port, clock=DT), name="arm")
    d.add(VrepSimulation(host="127.0.0.1", port=emu.port, clock=DT), name="sim")
    d.connect(c, a)
    with pytest.raises(BlockParameterError, match="'arm' come first in the evaluation order"):
        simulate(d, 0.05)
    assert emu.wait_connections(0)


def test_object_pose_set_then_get_and_the_camera_image(emu):
    d = Diagram("scene")
    d.add(VrepSimulation(host="127.0.0.1", port=emu.port, clock=DT), name="sim")
    T = np.eye(4)
    T[:3, 3] = [0.55, 0.0, 0.3]
    src = d.add(Constant(T), name="T")
    setter = d.add(
        VrepObjectPose("Sphere", mode="set", host="127.0.0.1", port=emu.port, clock=DT), name="set"
    )
    d.add(
        VrepObjectPose(
            "Sphere", host="127.0.0.1", port=emu.port, clock=DT, relative_to="Vision_sensor"
        ),
        name="get",
    )
    d.add(VrepCamera(resolution=(32, 24), host="127.0.0.1", port=emu.port, clock=DT), name="cam")
    d.connect(src, setter)
    r = simulate(d, 0.03)
    cam_pose = emu.scene.world(emu.scene.handle("Vision_sensor"))
    # before the first write the sphere is where the scene put it; after, where T says
    np.testing.assert_allclose(r["get.T"][-1], np.linalg.inv(cam_pose) @ T, atol=1e-12)
    img = r["cam.image"][-1]
    assert img.shape == (24, 32, 3) and img.max() <= 1.0
    red = np.all(np.isclose(img, np.array([230, 20, 20]) / 255), axis=2)
    f = 16 / math.tan(math.radians(30))
    cols = np.nonzero(red)[1]
    assert cols.mean() == pytest.approx(15.5 + f * 0.05, abs=1.0)  # moved 5 cm along +x
    # the simulation's stop restored the scene
    assert emu.scene.world(emu.scene.handle("Sphere"))[0, 3] == 0.5


def test_a_failing_simulation_closes_every_socket_and_stops_the_simulator(emu):
    d = _arm_diagram("127.0.0.1", emu.port)
    d.add(Boom(0.05), name="boom")
    d.connect("arm.q", "boom.u")
    with pytest.raises(SimulationError, match="boom") as info:
        simulate(d, 1.0)
    assert info.value.result.t[-1] == pytest.approx(0.04)
    assert emu.wait_connections(0)
    assert emu.scene.state == "stopped"


def test_the_server_stopping_mid_run_ends_clearly_with_the_data_so_far(emu):
    emu.inject("stop", after=60)
    t0 = time.perf_counter()
    with pytest.raises(SimulationError) as info:
        simulate(_arm_diagram("127.0.0.1", emu.port), 2.0)
    assert time.perf_counter() - t0 < 2.0
    msg = str(info.value)
    assert emu.address in msg and "no reply within 0.5 s" in msg and "called sim." in msg
    res = info.value.result
    assert 0 < res.t[-1] < 0.5 and res["arm.q"].shape == (len(res.t), 6)
    # the sockets are closed: a server restarted on the same port sees no client come back
    # (ZMQ reconnects an open socket by itself, as the control socket shows)
    import zmq

    ctx = zmq.Context()
    control = ctx.socket(zmq.REQ)
    control.connect(emu.address)
    emu.close()
    with CoppeliaSimEmulator(port=emu.port) as again:
        assert again.wait_connections(1, timeout=3.0)  # the control socket, and only it
        time.sleep(0.3)
        assert again.connections == 1
        control.close(0)
        assert again.wait_connections(0)
    ctx.term()


def test_record_then_replay_reproduces_every_signal_bit_for_bit(tmp_path):
    d = Diagram("rec")
    d.add(VrepSimulation(clock=DT, record=str(tmp_path / "sim.json")), name="sim")
    c = d.add(Constant(CMD), name="cmd")
    a = d.add(VrepArm(clock=DT, record=str(tmp_path / "arm.json")), name="arm")
    cam = d.add(VrepCamera(resolution=8, clock=DT, record=str(tmp_path / "cam.json")), name="cam")
    d.connect(c, a)
    live = simulate(d, 0.1)
    d2 = Diagram("rec")
    d2.add(VrepSimulation(host=None, clock=DT, replay=str(tmp_path / "sim.json")), name="sim")
    c = d2.add(Constant(CMD), name="cmd")
    a = d2.add(VrepArm(host=None, clock=DT, replay=str(tmp_path / "arm.json")), name="arm")
    d2.add(
        VrepCamera(resolution=8, host=None, clock=DT, replay=str(tmp_path / "cam.json")), name="cam"
    )
    d2.connect(c, a)
    again = simulate(d2, 0.1)
    assert again.signals == live.signals
    for s in live.signals:
        np.testing.assert_array_equal(again[s], live[s])
    assert cam is not None


def test_json_round_trip_and_parameter_errors():
    d = _arm_diagram()
    again = loads(dumps(d)).diagram
    a, b = simulate(d, 0.05), simulate(again, 0.05)
    for s in a.signals:
        np.testing.assert_array_equal(a[s], b[s])
    with pytest.raises(BlockParameterError, match="'mode' must be one of target, position"):
        VrepArm(mode="torque")
    with pytest.raises(BlockParameterError, match="'fmt' must format"):
        VrepArm(fmt="%d_%d_%d")
    with pytest.raises(BlockParameterError, match="'resolution'"):
        VrepCamera(resolution=(0, 4))
    with pytest.raises(BlockParameterError, match="'port' must be a TCP port"):
        VrepSimulation(port=0)


class SpherePath(Block):
    """The sphere's pose: x = 0.45 + 2 t [m] (a 4x4 transform), at the hits of a DT clock."""

    outputs = (("T", (4, 4)),)

    def __init__(self):
        super().__init__()
        self.clock = DT

    def output(self, t, x, u):
        T = np.eye(4)
        T[:3, 3] = [0.45 + 2.0 * t, 0.0, 0.3]
        return (T,)


class EveryFifth(Block):
    """1.0 at every fifth hit of a DT clock (k = 0, 5, 10, ...), else 0.0."""

    outputs = ("y",)

    def __init__(self):
        super().__init__()
        self.clock = DT

    def output(self, t, x, u):
        return (1.0 if round(t / DT) % 5 == 0 else 0.0,)


def _red_centre(img):
    red = np.all(np.isclose(img, np.array([230, 20, 20]) / 255), axis=2)
    return np.nonzero(red)[1].mean()


def test_a_triggered_camera_takes_its_pictures_at_the_trigger_hits_only(emu):
    d = Diagram("trigger")
    net = dict(host="127.0.0.1", port=emu.port, clock=DT)
    d.add(VrepSimulation(**net), name="sim")
    path = d.add(SpherePath(), name="path")
    setter = d.add(VrepObjectPose("Sphere", mode="set", **net), name="set")
    go = d.add(EveryFifth(), name="go")
    cam = d.add(VrepCamera(resolution=(32, 24), trigger=True, **net), name="cam")
    d.connect(path, setter)
    d.connect(go, cam["trigger"])
    r = simulate(d, 0.2)
    k = np.round(r.t / DT).astype(int)
    img = r["cam.image"]
    f = 16 / math.tan(math.radians(30))

    def centre(x):  # where the sphere at x [m] appears (column)
        return 15.5 + f * (x - 0.5)

    for i, ki in enumerate(k):
        last = ki - ki % 5  # the trigger hit whose picture is shown
        j = int(np.nonzero(k == last)[0][0])
        np.testing.assert_array_equal(img[i], img[j])
        # at hit k the scene shows the pose written at hit k-1 (writes act over [t_k-1, t_k])
        x = 0.5 if last == 0 else 0.45 + 2.0 * (last - 1) * DT
        assert _red_centre(img[i]) == pytest.approx(centre(x), abs=1.0)
    # between triggers the picture is older than the scene: at hit 19 the sphere is at 0.81 m
    i19 = int(np.nonzero(k == 19)[0][0])
    assert _red_centre(img[i19]) < centre(0.45 + 2.0 * 18 * DT) - 1.5
    st = r.stats["hardware"]
    assert st["cam"]["exchanges"] == len(np.unique(k[k % 5 == 0]))  # only at trigger hits
    h = emu.scene.handle("Vision_sensor")
    assert emu.scene.get(h).explicit == 0  # the run ended: handled at every step again
    calls = [f for f, _ in emu.requests]
    assert calls.count("sim.handleVisionSensor") == st["cam"]["exchanges"]
    assert calls.count("sim.setExplicitHandling") == 2  # on at the start, restored at the end


def test_the_trigger_option_round_trips_and_is_checked():
    d = Diagram("cam")
    go = d.add(Constant(1.0), name="go")
    cam = d.add(VrepCamera(resolution=4, trigger=True, clock=DT), name="cam")
    d.connect(go, cam["trigger"])
    doc = dumps(d)
    back = loads(doc).diagram
    assert back.blocks["cam"].trigger is True
    assert [p.name for p in back.blocks["cam"].inputs] == ["trigger"]
    assert [p.name for p in VrepCamera().inputs] == []
    with pytest.raises(BlockParameterError, match="'trigger' must be True or False"):
        VrepCamera(trigger="yes")
