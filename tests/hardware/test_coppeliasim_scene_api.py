"""RTB VREP's scene, model, parameter, camera-trigger, Hokuyo and youBot methods: the driver
against the emulated CoppeliaSim server over a real ZMQ socket (the real remote-API client)."""

import math
import struct

import numpy as np
import pytest

from blocksim.hardware import HardwareError, SessionLog
from blocksim.hardware.coppeliasim import CoppeliaSim, ReplayClient
from blocksim.hardware.coppeliasim_emulator import CoppeliaSimEmulator
from blocksim.hardware.coppeliasim_models import APP_PATH
from blocksim.hardware.coppeliasim_scene import rot_xyz


@pytest.fixture(scope="module")
def emu():
    with CoppeliaSimEmulator(dt=0.01) as e:
        yield e


@pytest.fixture
def vrep(emu):
    v = CoppeliaSim(port=emu.port, timeout=0.5)
    v.simstop()
    v.loadscene("blocksim_default")  # every test starts from the start-up scene
    v.setstepping(False)
    yield v
    if v.connected:
        v.simstop()
    v.close()


def test_scenes_load_and_close(vrep, emu):
    assert vrep.getparam_str("sim_stringparam_application_path") == APP_PATH
    vrep.loadscene("empty")
    assert emu.requests[-1] == ("sim.loadScene", (f"{APP_PATH}/scenes/empty.ttt",))
    with pytest.raises(HardwareError, match="object does not exist: '/IRB140'"):
        vrep.gethandle("IRB140")
    vrep.loadscene("youBot")
    assert vrep.getobjname(vrep.gethandle("youBot")) == "youBot"
    vrep.clearscene()
    with pytest.raises(HardwareError, match="object does not exist"):
        vrep.gethandle("youBot")
    with pytest.raises(
        HardwareError,
        match=r"sim.loadScene failed: cannot load '.*/scenes/"
        r"2IndustrialRobots.ttt': the emulator knows only",
    ):
        vrep.loadscene("2IndustrialRobots")
    with pytest.raises(HardwareError, match=r"cannot load '/.*/myscene.ttt'"):
        vrep.loadscene("myscene", local=True)  # a file of this process's folder
    vrep.loadscene("blocksim_default")
    vrep.simstart()
    with pytest.raises(HardwareError, match="loading a scene needs the simulation stopped"):
        vrep.loadscene("empty")
    vrep.simstop()
    assert vrep.connected  # a refused call keeps the connection


def test_models_load_are_found_in_the_tree_and_are_deleted(vrep):
    arm = vrep.arm("IRB140")
    # a kinematic chain: base, joint 1, link 1, joint 2, ..., link 6, tip
    assert vrep.getchildren(arm.h) == arm.joints[:1]
    for j, h in enumerate(arm.joints, start=1):
        (link,) = vrep.getchildren(h)
        assert vrep.getobjname(link) == f"IRB140_link{j}"
        assert vrep.getchildren(link) == (arm.joints[j:j + 1] or [vrep.gethandle("IRB140_tip")])
    bill = vrep.loadmodel("people/Walking Bill")
    assert bill.model and bill.getname() == "Walking_Bill"
    assert bill.h == vrep.gethandle("Walking_Bill")
    np.testing.assert_allclose(bill.getpos(), [1.0, 1.0, 0.0])
    second = vrep.loadmodel("people/Walking Bill")
    assert second.h != bill.h
    bill.remove()
    assert bill.h == -1
    assert vrep.gethandle("Walking_Bill") == second.h  # the other copy is still there
    second.remove()
    with pytest.raises(HardwareError, match="object does not exist: '/Walking_Bill'"):
        vrep.gethandle("Walking_Bill")
    with pytest.raises(HardwareError, match="is not a model base"):
        vrep.remove(vrep.gethandle("Sphere"), model=True)
    with pytest.raises(HardwareError, match=r"cannot load '.*/models/robots/R2D2.ttm'"):
        vrep.loadmodel("robots/R2D2")
    # removing one object (not a model) keeps its children, attached one level up
    j1 = arm.joints[0]
    vrep.remove(arm.h)
    assert vrep.call("sim.getObjectParent", j1) == -1
    assert vrep.getobjname(j1) == "IRB140_joint1"


def test_simulator_and_object_parameters(vrep):
    assert vrep.getparam_float("sim_floatparam_simulation_time_step") == 0.01
    vrep.setparam_float("floatparam_simulation_time_step", 0.02)
    assert vrep.gettimestep() == 0.02
    vrep.settimestep(0.01)
    assert vrep.getparam_bool("boolparam_realtime_simulation") is True
    vrep.setstepping(True)
    assert vrep.getparam_bool("sim_boolparam_realtime_simulation") is False
    assert vrep.getparam_int("intparam_program_version") == vrep.getversion() == 40700
    with pytest.raises(HardwareError, match=r"the server defines no constant sim\.boolparam_nope"):
        vrep.getparam_bool("sim_boolparam_nope")
    arm = vrep.arm("IRB140")
    for h in arm.joints:
        vrep.setobjparam_int(h, 2000, 0)
    assert not vrep.getobjparam_bool(arm.joints[2], 2000)
    arm.setjointmode()  # RTB: motor enable (2000) and control loop enable (2001)
    assert all(
        vrep.getobjparam_int(h, 2000) == 1 and vrep.getobjparam_int(h, 2001) == 1
        for h in arm.joints
    )
    cam = vrep.camera("Vision_sensor")
    cam.setparam_float(1004, 0.5)
    assert cam.getangle() == 0.5 and cam.getparam_float(1004) == 0.5


def _red_columns(img):
    red = np.all(img == np.array([230, 20, 20], dtype=np.uint8), axis=2)
    return np.nonzero(red)[1]


def test_an_explicitly_handled_camera_takes_a_picture_only_when_triggered(vrep, emu):
    cam = vrep.camera("Vision_sensor")
    sphere = vrep.object("Sphere")
    live = cam.grab()
    assert _red_columns(live).size > 0  # handled every step: it sees the sphere
    assert cam.setexplicit(True) == 0
    assert not cam.grab().any()  # no picture taken yet: black
    assert cam.trigger() == 0
    np.testing.assert_array_equal(cam.grab(), live)
    np.testing.assert_array_equal(cam.grab(grey=True), cam.grab(grey=True))
    sphere.setpos([0.6, 0.0, 0.3])
    np.testing.assert_array_equal(cam.grab(), live)  # the scene changed, the picture did not
    cam.trigger()
    moved = cam.grab()
    f = 16 / math.tan(math.radians(30))
    assert _red_columns(moved).mean() == pytest.approx(_red_columns(live).mean() + f * 0.1, abs=1.0)
    assert cam.setexplicit(False) == 1
    np.testing.assert_array_equal(cam.grab(), moved)  # handled again at every step


def _rays(n=181):
    """The emulated Hokuyo's ray bearings: 240 deg, ``n`` rays."""
    angle = math.radians(240.0)
    return np.linspace(-angle / 2, angle / 2, n)


def test_the_hokuyo_scan_meets_the_spheres_where_geometry_says(vrep, emu):
    hok = vrep.loadmodel("components/sensors/Hokuyo URG 04LX UG01")
    laser = vrep.hokuyo()
    assert laser.h == hok.h
    # scanner at (0, 0, 0.3) looking along +x; the red sphere (r = 5 cm) at (0.5, 0, 0.3)
    p = laser.points()
    th = _rays()
    assert len(p) == np.count_nonzero(np.abs(0.5 * np.sin(th)) <= 0.05)  # rays that hit it
    np.testing.assert_allclose(np.linalg.norm(p - [0.5, 0.0, 0.0], axis=1), 0.05, atol=1e-6)
    b, r = laser.scan()
    assert np.all(np.diff(b) > 0)
    assert r.min() == pytest.approx(0.45, abs=1e-6) and b[np.argmin(r)] == pytest.approx(0.0)
    # turn the scanner by 90 deg: once the simulation has stepped, the sphere is at -90 deg
    vrep.setstepping(True)
    vrep.simstart()
    T = laser.getpose()
    T[:3, :3] = rot_xyz(0.0, 0.0, math.pi / 2)
    laser.setpose(T)
    np.testing.assert_array_equal(laser.points(), p)  # no new scan before the step
    vrep.step()
    b, r = laser.scan()
    a = th + math.pi / 2  # each ray's angle from the direction of the sphere
    hit = (np.abs(0.5 * np.sin(a)) <= 0.05) & (np.cos(a) > 0)  # toward it, close enough
    expected = 0.5 * np.cos(a[hit]) - np.sqrt(0.05**2 - (0.5 * np.sin(a[hit])) ** 2)
    np.testing.assert_allclose(np.sort(r), np.sort(expected), atol=1e-6)
    np.testing.assert_allclose(b, th[hit], atol=1e-6)
    # and out of reach (5 m) it sees nothing
    T[:3, 3] = [-10.0, 0.0, 0.3]
    laser.setpose(T)
    vrep.step()
    assert laser.points().shape == (0, 3)
    vrep.simstop()  # restores the scene; the last scan stays published
    with pytest.raises(HardwareError, match="not float32 x, y, z triples"):
        vrep.signal_str("measuredDataAtThisTime", struct.pack("<2f", 1.0, 2.0).decode("latin-1"))
        laser.points()


@pytest.mark.parametrize("vx,vy,wz", [(0.2, 0.0, 0.5), (0.0, -0.1, 0.0), (0.1, 0.05, -0.8)])
def test_the_youbot_base_drives_the_body_twist_it_is_given(vrep, emu, vx, vy, wz):
    vrep.loadscene("youBot")
    bot = vrep.youbot()
    assert bot.arm.n == 5 and len(bot.wheels) == 4
    w = bot.wheel_speeds(vx, vy, wz)
    k = 0.386
    np.testing.assert_allclose(
        w, np.array([vx - vy - k * wz, vx + vy - k * wz, vx - vy + k * wz, vx + vy + k * wz]) / 0.05
    )
    laser = vrep.hokuyo()
    offset = np.linalg.inv(bot.getpose()) @ laser.getpose()
    vrep.setstepping(True)
    vrep.simstart()
    np.testing.assert_allclose(bot.setvel(vx, vy, wz), w)
    for _ in range(100):  # 1 s
        vrep.step()
    T = bot.getpose()
    th = wz * 1.0
    if wz:
        x = (vx * math.sin(th) - vy * (1 - math.cos(th))) / wz
        y = (vx * (1 - math.cos(th)) + vy * math.sin(th)) / wz
    else:
        x, y = vx, vy
    np.testing.assert_allclose(T[:3, 3], [x, y, 0.1], atol=1e-12)
    np.testing.assert_allclose(T[:3, :3], rot_xyz(0, 0, th), atol=1e-12)
    np.testing.assert_allclose(laser.getpose(), T @ offset, atol=1e-12)  # carried along
    bot.arm.setq([0.1, 0.2, 0.3, 0.4, 0.5])
    np.testing.assert_allclose(bot.arm.getq(), [0.1, 0.2, 0.3, 0.4, 0.5])
    bot.stop()
    vrep.step()
    np.testing.assert_allclose(bot.getpose(), T, atol=1e-12)
    vrep.simstop()


def test_the_new_calls_are_recorded_and_replayed(emu, tmp_path):
    log = SessionLog(emu.address, "coppeliasim")
    with CoppeliaSim(port=emu.port, timeout=0.5, log=log) as v:
        v.loadscene("youBot")
        bot = v.youbot()
        hok = v.hokuyo()
        live = (bot.getpose(), hok.points(), v.getchildren(bot.h), v.getparam_float(1))
    path = tmp_path / "s.json"
    log.save(path)
    again = CoppeliaSim(client=ReplayClient(SessionLog.load(path, kind="coppeliasim")))
    again.loadscene("youBot")
    bot, hok = again.youbot(), again.hokuyo()
    replayed = (bot.getpose(), hok.points(), again.getchildren(bot.h), again.getparam_float(1))
    for a, b in zip(live, replayed):
        np.testing.assert_array_equal(a, b)


def test_a_long_running_emulator_keeps_only_the_last_calls(vrep, emu, monkeypatch):
    import blocksim.hardware.coppeliasim_emulator as module

    monkeypatch.setattr(module, "KEEP", 5)
    for k in range(30):
        vrep.signal_int("k", k)
    assert 5 <= len(emu.requests) <= 10
    assert emu.requests[-1] == ("sim.setInt32Signal", ("k", 29))
