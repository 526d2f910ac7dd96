"""The CoppeliaSim driver and the emulated server, through the real ZMQ remote-API client."""

import math
import time

import numpy as np
import pytest

from blocksim.hardware import DeviceTimeout, HardwareError, ReplayError, SessionLog
from blocksim.hardware.coppeliasim import CoppeliaSim, ReplayClient
from blocksim.hardware.coppeliasim_emulator import CoppeliaSimEmulator
from blocksim.hardware.coppeliasim_scene import euler_xyz, rot_xyz
from blocksim.hardware.servo_model import move


@pytest.fixture
def emu():
    with CoppeliaSimEmulator(dt=0.01) as e:
        yield e


@pytest.fixture
def vrep(emu):
    v = CoppeliaSim(port=emu.port, timeout=0.5)
    yield v
    v.close()


def test_the_real_client_talks_to_the_emulator(emu):
    from coppeliasim_zmqremoteapi_client import RemoteAPIClient

    client = RemoteAPIClient("127.0.0.1", emu.port)
    sim = client.require("sim")
    assert sim.handle_world == -1
    h = sim.getObject("/Sphere")
    assert sim.getObjectAlias(h) == "Sphere"
    assert sim.getObjectPosition(h, sim.handle_world) == [0.5, 0.0, 0.3]
    sim.setObjectPosition(h, [0.1, 0.2, 0.3])  # 4.6+ order: (handle, position, relativeTo)
    sim.setObjectPosition(h, -1, [0.1, 0.2, 0.4])  # before 4.6: (handle, relativeTo, position)
    assert sim.getObjectPosition(h, -1) == [0.1, 0.2, 0.4]
    with pytest.raises(Exception, match="object does not exist: '/Nothing'"):
        sim.getObject("/Nothing")
    client.socket.close(0)
    client.context.term()
    assert emu.wait_connections(0)


def test_poses_round_trip_and_euler_angles_are_coppeliasims_xyz(vrep):
    h = vrep.gethandle("Cuboid")
    T = np.eye(4)
    T[:3, :3] = rot_xyz(0.3, -0.2, 1.1)
    T[:3, 3] = [0.1, -0.2, 0.3]
    vrep.setpose(h, T)
    np.testing.assert_allclose(vrep.getpose(h), T, atol=1e-15)
    np.testing.assert_allclose(euler_xyz(T[:3, :3]), [0.3, -0.2, 1.1], atol=1e-12)
    np.testing.assert_allclose(
        vrep.call("sim.getObjectOrientation", h, -1), [0.3, -0.2, 1.1], atol=1e-12
    )
    # relative to another object
    ref = vrep.gethandle("Sphere")
    np.testing.assert_allclose(
        vrep.getpose(h, ref), np.linalg.inv(vrep.getpose(ref)) @ T, atol=1e-12
    )
    vrep.setpos(h, [1.0, 2.0, 3.0])
    np.testing.assert_allclose(vrep.getpos(h), [1.0, 2.0, 3.0])
    np.testing.assert_allclose(vrep.getorient(h), T[:3, :3], atol=1e-15)
    with pytest.raises(ValueError, match="4x4"):
        vrep.setpose(h, np.eye(3))


def test_joints_in_stepping_mode_follow_their_controllers_exactly(vrep, emu):
    arm = vrep.arm("IRB140")  # joints discovered as RTB does: 1, 2, ... until one is missing
    assert arm.n == 6
    vrep.setstepping(True)
    vrep.simstart()
    arm.setqt([1.0, -1.0, 0.1, 0, 0, 0])
    q = 0.0
    for k in range(1, 21):
        vrep.step()
        q = move(q, 1.0, 3.0, 0.02, 0.01)
        assert vrep.simtime() == pytest.approx(k * 0.01, abs=1e-15)
        assert arm.getq()[0] == q
    arm.setqd(np.full(6, 0.5))
    q0 = arm.getq()
    for _ in range(10):
        vrep.step()
    np.testing.assert_allclose(arm.getq(), q0 + 0.05, atol=1e-14)
    arm.setq(np.zeros(6))
    assert np.all(arm.getq() == 0.0)
    with pytest.raises(ValueError, match="has 6 joints, got 2"):
        arm.setq([0, 0])
    vrep.simstop()  # CoppeliaSim restores the scene and the time
    assert vrep.simtime() == 0.0 and emu.scene.state == "stopped"


def test_without_stepping_a_running_simulation_follows_the_wall_clock(vrep):
    vrep.settimestep(0.005)
    vrep.setstepping(False)
    vrep.simstart()
    time.sleep(0.1)
    assert 0.05 <= vrep.simtime() <= 1.0
    vrep.simstop()


def test_the_camera_sees_the_sphere_below_it(vrep):
    cam = vrep.camera("Vision_sensor")
    cam.setresolution((64, 48))
    cam.setangle(math.radians(60))
    cam.setclipping(0.05, 5.0)
    assert cam.getresolution() == (64, 48)
    assert cam.getangle() == pytest.approx(math.radians(60))
    assert cam.getclipping() == (0.05, 5.0)
    im = cam.grab()
    assert im.shape == (48, 64, 3) and im.dtype == np.uint8
    red = np.all(im == [230, 20, 20], axis=2)
    # the sphere (r 0.05 m) 1 m below the camera: a disc of radius f r / z around the centre
    f = 32 / math.tan(math.radians(30))
    assert red.sum() == pytest.approx(math.pi * (f * 0.05) ** 2, rel=0.15)
    rows, cols = np.nonzero(red)
    assert rows.mean() == pytest.approx(23.5, abs=0.5) and cols.mean() == pytest.approx(
        31.5, abs=0.5
    )
    # move the sphere along +x world: seen from above (camera x = world x) it moves right
    h = vrep.gethandle("Sphere")
    vrep.setpos(h, [0.6, 0.0, 0.3])
    cols2 = np.nonzero(np.all(cam.grab() == [230, 20, 20], axis=2))[1]
    assert cols2.mean() == pytest.approx(31.5 + f * 0.1, abs=1.0)
    grey = cam.grab(grey=True)
    assert grey.shape == (48, 64) and grey[0, 0] == 128


def test_version_signals_and_errors(vrep, emu):
    assert vrep.getversion() == 40700
    assert vrep.checkcomms()
    vrep.signal_float("gain", 2.5)
    vrep.signal_int("n", 3)
    vrep.signal_str("s", "x")
    assert emu.scene.signals == {"gain": 2.5, "n": 3, "s": "x"}
    with pytest.raises(HardwareError, match=r"sim\.getObject failed: .*object does not exist"):
        vrep.gethandle("Nothing")
    with pytest.raises(HardwareError, match="arm 'Sphere' has no joint named 'Sphere_joint1'"):
        vrep.arm("Sphere")
    with pytest.raises(HardwareError, match="is not served by the emulator"):
        vrep.call("sim.getShapeMass", emu.scene.handle("Sphere"))


def test_a_server_that_stops_gives_a_bounded_timeout_and_the_socket_is_closed(emu):
    v = CoppeliaSim(port=emu.port, timeout=0.3)
    emu.inject("stop", after=1)
    v.simtime()
    t0 = time.perf_counter()
    with pytest.raises(DeviceTimeout, match=r"no reply within 0\.3 s") as info:
        v.getjoint(11)
    assert time.perf_counter() - t0 < 2.0
    assert "called sim.getJointPosition(11,)" in str(info.value)
    assert emu.address in str(info.value)
    assert not v.connected
    with pytest.raises(HardwareError, match="the connection is closed"):
        v.simtime()


def test_no_server_at_all_is_named():
    t0 = time.perf_counter()
    with pytest.raises(DeviceTimeout, match=r"tcp://127\.0\.0\.1:9: no CoppeliaSim server answers"):
        CoppeliaSim(port=9, timeout=0.2)
    assert time.perf_counter() - t0 < 2.0


def test_a_late_reply_within_the_timeout_is_just_slow(emu):
    v = CoppeliaSim(port=emu.port, timeout=0.5)
    emu.inject("late", delay=0.1)
    t0 = time.perf_counter()
    assert v.simtime() == 0.0
    assert time.perf_counter() - t0 >= 0.1
    v.close()


def test_record_and_replay_calls(emu, tmp_path):
    log = SessionLog(emu.address, "coppeliasim")
    v = CoppeliaSim(port=emu.port, log=log)
    arm = v.arm("IRB140")
    v.setstepping(True)
    v.simstart()
    arm.setqt(np.full(6, 0.4))
    live = []
    for _ in range(5):
        v.step()
        live.append(arm.getq())
    img = v.camera("Vision_sensor").grab()
    v.close()
    path = log.save(tmp_path / "v.json")
    r = CoppeliaSim(client=ReplayClient(SessionLog.load(path, kind="coppeliasim"), str(path)))
    arm = r.arm("IRB140")
    r.setstepping(True)
    r.simstart()
    arm.setqt(np.full(6, 0.4))
    for q in live:
        r.step()
        np.testing.assert_array_equal(arm.getq(), q)
    np.testing.assert_array_equal(r.camera("Vision_sensor").grab(), img)
    with pytest.raises(ReplayError, match="the recording ends"):
        r.simtime()
    r2 = CoppeliaSim(client=ReplayClient(log))
    with pytest.raises(ReplayError, match=r"call 0: the diagram calls sim\.getObject"):
        r2.gethandle("Cuboid")
