"""The emulated CoppeliaSim against CoppeliaSim's documented API, checked with the stock
``coppeliasim-zmqremoteapi-client`` (an independent client) over a real ZMQ socket.

Documented behaviour: sim.getObject (path syntax ``[n]``, ``{n}``, options ``index``,
``noError``, ``proxy``), sim.getObjectAlias (options -1 .. 9), sim.createDummy, sim.addLog
(CoppeliaSim's own ``simpleTest.py``), argument errors worded by CoppeliaSim; and the IRB 140's
poses equal the zoo model's forward kinematics.
"""

import math

import coppeliasim_zmqremoteapi_client as client_module
import numpy as np
import pytest

from blocksim.hardware.coppeliasim_emulator import CoppeliaSimEmulator
from blocksim.robotics.models import irb140


@pytest.fixture(scope="module")
def emu():
    with CoppeliaSimEmulator(dt=0.01) as e:
        yield e


@pytest.fixture(scope="module")
def client(emu):
    c = client_module.RemoteAPIClient("127.0.0.1", emu.port)
    yield c
    del c


@pytest.fixture
def sim(client, emu):
    sim = client.require("sim")
    sim.stopSimulation()
    sim.setStepping(False)
    sim.loadScene("/opt/coppeliasim-emulator/scenes/blocksim_default.ttt")
    return sim


def _matrix(m):
    T = np.eye(4)
    T[:3, :] = np.reshape(m, (3, 4))
    return T


# ---------------------------------------------------------------- sim.getObject
def test_get_object_no_error_returns_minus_one(sim):
    assert sim.getObject("/NoSuchThing", {"noError": True}) == -1
    assert sim.getObject("/IRB140/NoSuchJoint", {"noError": True}) == -1
    assert sim.getObject("/Sphere", {"noError": True}) > 0
    with pytest.raises(Exception, match="object does not exist"):
        sim.getObject("/NoSuchThing")
    with pytest.raises(Exception, match="object does not exist"):
        sim.getObject("/NoSuchThing", {"noError": False})
    assert sim.getObject("/NoSuchThing", -1, -1, 1) == -1  # before 4.3: index, proxy, options


def test_ordered_alias_in_a_hierarchy_level(sim):
    a = sim.createDummy(0.01)
    b = sim.createDummy(0.01)  # both "Dummy", at the root level
    assert sim.getObject("/Dummy[0]") == a
    assert sim.getObject("/Dummy[1]") == b
    assert sim.getObject("/Dummy") == a  # the first
    assert sim.getObject("/Dummy[2]", {"noError": True}) == -1
    # below an object: /Cuboid[0]/joint is the first Cuboid's child "joint"
    cuboids = [sim.getObject("/Cuboid"), sim.createDummy(0.01)]
    sim.setObjectAlias(cuboids[1], "Cuboid")
    joints = [sim.createDummy(0.01) for _ in range(3)]
    for h, parent in zip(joints, [cuboids[0], cuboids[1], cuboids[1]]):
        sim.setObjectAlias(h, "joint")
        sim.setObjectParent(h, parent, True)
    assert sim.getObject("/Cuboid[0]/joint") == joints[0]
    assert sim.getObject("/Cuboid[1]/joint") == joints[1]
    assert sim.getObject("/Cuboid[1]/joint[1]") == joints[2]
    assert sim.getObject("/Cuboid/joint", {"index": 2}) == joints[2]
    assert sim.getObject("/Cuboid[0]/joint[1]", {"noError": True}) == -1
    assert sim.getObjectAlias(joints[2], 1) == "/joint[1]"  # the only second "joint"
    assert sim.getObjectAlias(joints[1], 1) == "/Cuboid[1]/joint[0]"
    assert sim.getObjectAlias(joints[1], 5) == "/Cuboid/joint"
    base = sim.getObject("/IRB140[0]")
    assert sim.getObject("/IRB140[0]/IRB140_joint3") == sim.getObject("/IRB140_joint3")
    assert sim.getObject("/IRB140[1]/IRB140_joint3", {"noError": True}) == -1
    assert base == sim.getObject("/IRB140")
    # a joint's order counts its siblings of the same alias only: each joint is the first
    assert sim.getObject("/IRB140/IRB140_joint4[0]") == sim.getObject("/IRB140_joint4")
    assert sim.getObject("/IRB140/IRB140_joint4[1]", {"noError": True}) == -1


def test_the_nth_object_of_a_path_in_the_scene(sim):
    handles = [sim.createDummy(0.01) for _ in range(3)]
    for i, h in enumerate(handles):
        assert sim.getObject("/Dummy", {"index": i}) == h
        assert sim.getObject(f"/Dummy{{{i}}}") == h
    assert sim.getObject("/Dummy", {"index": 3, "noError": True}) == -1
    # the joints of the arm, base to tip, by index, as CoppeliaSim's model scripts find them
    joints = [sim.getObject("/IRB140/IRB140_joint*", {"index": i}) for i in range(6)]
    assert joints == [sim.getObject(f"/IRB140_joint{j}") for j in range(1, 7)]
    # wildcards: every object whose alias starts with "IRB140_l"
    links, i = [], 0
    while (h := sim.getObject("/IRB140_l*", {"index": i, "noError": True})) != -1:
        links.append(sim.getObjectAlias(h))
        i += 1
    assert links == [f"IRB140_link{j}" for j in range(1, 7)]


def test_paths_relative_to_a_proxy(sim):
    j2 = sim.getObject("/IRB140_joint2")
    assert sim.getObject("./IRB140_link2", {"proxy": j2}) == sim.getObject("/IRB140_link2")
    assert sim.getObject("./IRB140_link1", {"proxy": j2, "noError": True}) == -1  # above it
    assert sim.getObject(":", {"proxy": j2}) == sim.getObject("/IRB140")  # its model
    assert sim.getObject(":/IRB140_tip", {"proxy": j2}) == sim.getObject("/IRB140_tip")
    with pytest.raises(Exception, match="needs a valid 'proxy'"):
        sim.getObject("./IRB140_link2")


# ---------------------------------------------------------------- sim.getObjectAlias
def test_get_object_alias_options(sim, emu):
    j3 = sim.getObject("/IRB140_joint3")
    assert sim.getObjectAlias(j3) == "IRB140_joint3"
    assert sim.getObjectAlias(j3, -1) == "IRB140_joint3"
    assert sim.getObjectAlias(j3, 0) == "IRB140_joint3[0]"
    assert sim.getObjectAlias(j3, 1) == "/IRB140_joint3[0]"  # unique: no parent needed
    full = "/IRB140[0]/IRB140_joint1[0]/IRB140_link1[0]/IRB140_joint2[0]/IRB140_link2[0]"
    assert sim.getObjectAlias(j3, 2) == full + "/IRB140_joint3[0]"
    assert sim.getObjectAlias(j3, 3) == "IRB140_joint3"
    assert sim.getObjectAlias(j3, 4) == f"IRB140_joint3__{j3}__"
    assert sim.getObjectAlias(j3, 6) == "/IRB140_joint3{0}"
    assert sim.getObjectAlias(j3, 7) == "/IRB140{0}/IRB140_joint3{0}"  # its model
    a, b = sim.createDummy(0.01), sim.createDummy(0.01)
    assert sim.getObjectAlias(b, 0) == "Dummy[1]"
    assert sim.getObjectAlias(b, 3) == f"Dummy__{b}__"  # not unique
    assert sim.getObjectAlias(a, 6) == "/Dummy{0}" and sim.getObjectAlias(b, 6) == "/Dummy{1}"
    with pytest.raises(Exception, match=r"options must be an integer -1 \.\. 9"):
        sim.getObjectAlias(j3, 10)


def test_every_alias_form_finds_its_object_again(sim):
    handles = [sim.getObject(f"/IRB140_link{j}") for j in range(1, 7)]
    handles += [sim.createDummy(0.01) for _ in range(2)] + [sim.getObject("/Sphere")]
    for h in handles:
        for options in (1, 2, 4, 6, 7, 8, 9):
            assert sim.getObject("/" + sim.getObjectAlias(h, options).lstrip("/")) == h, options


# ---------------------------------------------------------------- simpleTest.py
def test_coppeliasims_simple_test_runs(sim, emu):
    """CoppeliaSim's ``simpleTest.py`` (zmqRemoteApi clients/python), shortened to 0.3 s."""
    handles = [sim.createDummy(0.01, 12 * [0]) for _ in range(50)]
    for i, h in enumerate(handles):
        sim.setObjectPosition(h, -1, [0.01 * i, 0.01 * i, 0.01 * i])
    assert sim.getObjectPosition(handles[7], -1) == pytest.approx([0.07] * 3)
    assert sim.getObjectAlias(handles[0]) == "Dummy"
    sim.startSimulation()
    while (t := sim.getSimulationTime()) < 0.3:
        sim.addLog(sim.verbosity_scriptinfos, f"Simulation time: {t:.2f} [s] (non-stepped)")
    sim.stopSimulation()
    assert sim.getSimulationState() == sim.simulation_stopped
    sim.setStepping(True)
    sim.startSimulation()
    while (t := sim.getSimulationTime()) < 0.3:
        sim.addLog(sim.verbosity_scriptinfos, f"Simulation time: {t:.2f} [s] (stepped)")
        sim.step()
    sim.stopSimulation()
    for h in handles:
        sim.removeObject(h)
    assert sim.getObject("/Dummy", {"noError": True}) == -1
    assert emu.log[-1][0] == 450 and emu.log[-1][1].endswith("(stepped)")
    assert sum(m.endswith("(stepped)") for _, m in emu.log) == 30


# ---------------------------------------------------------------- argument errors
@pytest.mark.parametrize(
    "call, message",
    [
        (lambda sim: sim.getObject(), "sim.getObject: one argument expected"),
        (lambda sim: sim.getObject(42), "sim.getObject: argument 1 is not a string"),
        (lambda sim: sim.getObject("/Sphere", "x"), "sim.getObject: argument 2 is not a map"),
        (lambda sim: sim.getObject("/a", {}, -1, 0, 9), "sim.getObject: at most four arguments"),
        (lambda sim: sim.getObject("/a", {"index": "x"}), "option 'index' is not an integer"),
        (lambda sim: sim.getObjectAlias("x"), "sim.getObjectAlias: argument 1 is not an integer"),
        (lambda sim: sim.getJointPosition(), "sim.getJointPosition: one argument expected"),
        (lambda sim: sim.setJointPosition(1), "sim.setJointPosition: two arguments expected"),
        (lambda sim: sim.setJointPosition(1, "a"), "argument 2 is not a number"),
        (lambda sim: sim.setStepping("yes"), "sim.setStepping: argument 1 is not a boolean"),
        (lambda sim: sim.addLog(450), "sim.addLog: two arguments expected"),
        (lambda sim: sim.removeObjects(5), "sim.removeObjects: argument 1 is not a table"),
        (lambda sim: sim.removeObjects(["a"]), "argument 1 is not a table of integers"),
        (lambda sim: sim.setObjectPosition(1, -1, "abc"), "a table of 3 numbers expected"),
        (lambda sim: sim.setObjectPosition(1, [1, 2]), "a table of 3 numbers expected"),
        (lambda sim: sim.setObjectMatrix(1, [1] * 12, "w"), "argument 3 is not an integer"),
        (lambda sim: sim.getObjectMatrix(1.5), "argument 1 is not an integer"),
        (lambda sim: sim.getObjectMatrix(2**63), "argument 1 is not an integer"),
        (lambda sim: sim.createDummy("big"), "sim.createDummy: argument 1 is not a number"),
    ],
)
def test_argument_errors_are_worded_as_coppeliasims(sim, call, message):
    with pytest.raises(Exception) as info:
        call(sim)
    text = str(info.value)
    assert message in text
    for python in ("positional", "takes", "TypeError", "invalid literal", "NoneType", "()"):
        assert python not in text, text


def test_a_handle_given_as_an_integral_float_is_a_handle(sim):
    h = sim.getObject("/Sphere")
    assert sim.getObjectPosition(float(h), -1) == pytest.approx([0.5, 0.0, 0.3])


# ---------------------------------------------------------------- IRB 140 kinematics
def _poses(sim, names, rel):
    return [_matrix(sim.getObjectMatrix(sim.getObject(f"/{n}"), rel)) for n in names]


def test_irb140_poses_equal_the_zoo_models_fkine(sim):
    robot = irb140()
    joints = [sim.getObject(f"/IRB140_joint{j}") for j in range(1, 7)]
    links = [f"IRB140_link{j}" for j in range(1, 7)]
    base = sim.getObject("/IRB140")
    rng = np.random.default_rng(140)
    for q in [np.zeros(6), *rng.uniform(-math.pi, math.pi, (12, 6))]:
        for h, v in zip(joints, q):
            sim.setJointPosition(h, float(v))
        assert [sim.getJointPosition(h) for h in joints] == pytest.approx(q, abs=0)
        frames = list(robot.fkine(q, all=True))[1:]  # frames 1 .. 6 (after the base)
        for rel in (-1, base):  # the base is at the world's origin
            got = _poses(sim, links, rel)
            for j in range(6):
                np.testing.assert_allclose(got[j], frames[j], atol=1e-9, err_msg=f"link {j + 1}")
            tip = _matrix(sim.getObjectMatrix(sim.getObject("/IRB140_tip"), rel))
            np.testing.assert_allclose(tip, robot.fkine(q), atol=1e-9)
            # joint j sits at frame j-1 (its own position does not turn it)
            for j in range(1, 6):
                Tj = _matrix(sim.getObjectMatrix(joints[j], rel))
                np.testing.assert_allclose(Tj, frames[j - 1], atol=1e-9)
            np.testing.assert_allclose(_matrix(sim.getObjectMatrix(joints[0], rel)), np.eye(4))
        # the pose (position, quaternion) says the same as the matrix
        pose = sim.getObjectPose(sim.getObject("/IRB140_tip"), -1)
        T = robot.fkine(q)
        np.testing.assert_allclose(pose[:3], T[:3, 3], atol=1e-9)
        x, y, z, w = pose[3:]
        R = np.array(
            [
                [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
            ]
        )
        np.testing.assert_allclose(R, T[:3, :3], atol=1e-9)
        # a link relative to the previous one is that joint's A_j(q)
        for j in range(1, 6):
            rel = sim.getObject(f"/IRB140_link{j}")
            A = _matrix(sim.getObjectMatrix(sim.getObject(f"/IRB140_link{j + 1}"), rel))
            np.testing.assert_allclose(A, robot.links[j].A(q[j]), atol=1e-9)


def test_a_moving_joint_carries_the_links_beyond_it(sim):
    robot = irb140()
    joints = [sim.getObject(f"/IRB140_joint{j}") for j in range(1, 7)]
    tip = sim.getObject("/IRB140_tip")
    q = np.array([0.3, -0.4, 0.5, 0.2, -0.6, 0.1])
    sim.setStepping(True)
    sim.startSimulation()
    for h, v in zip(joints, q):
        sim.setJointTargetPosition(h, float(v))
    for _ in range(300):
        sim.step()
    now = np.array([sim.getJointPosition(h) for h in joints])
    np.testing.assert_allclose(_matrix(sim.getObjectMatrix(tip, -1)), robot.fkine(now), atol=1e-9)
    np.testing.assert_allclose(now, q, atol=1e-6)
    sim.stopSimulation()  # the scene as it was: every joint at 0
    np.testing.assert_allclose(_matrix(sim.getObjectMatrix(tip, -1)), robot.fkine(np.zeros(6)),
                               atol=1e-12)


def test_moving_the_base_moves_the_arm(sim):
    robot = irb140()
    base, tip = sim.getObject("/IRB140"), sim.getObject("/IRB140_tip")
    sim.setObjectPosition(base, -1, [1.0, 2.0, 0.5])
    q = np.zeros(6)
    expected = robot.fkine(q)
    expected[:3, 3] += [1.0, 2.0, 0.5]
    np.testing.assert_allclose(_matrix(sim.getObjectMatrix(tip, -1)), expected, atol=1e-12)
    np.testing.assert_allclose(_matrix(sim.getObjectMatrix(tip, base)), robot.fkine(q), atol=1e-12)


def test_set_object_parent_keeps_the_world_pose_or_the_local_one(sim):
    a, b = sim.createDummy(0.01), sim.createDummy(0.01)
    sim.setObjectPosition(a, -1, [1.0, 0.0, 0.0])
    sim.setObjectPosition(b, -1, [0.0, 2.0, 0.0])
    sim.setObjectParent(b, a, True)
    assert sim.getObjectParent(b) == a
    assert sim.getObjectPosition(b, -1) == pytest.approx([0.0, 2.0, 0.0])
    sim.setObjectPosition(a, -1, [1.0, 0.0, 1.0])  # the child moves along
    assert sim.getObjectPosition(b, -1) == pytest.approx([0.0, 2.0, 1.0])
    sim.setObjectParent(b, -1, False)  # keeps its pose relative to the parent
    assert sim.getObjectPosition(b, -1) == pytest.approx([-1.0, 2.0, 0.0])
    with pytest.raises(Exception, match="cannot be a child of itself"):
        sim.setObjectParent(a, a, True)
    with pytest.raises(Exception, match="object handle 99999 does not exist"):
        sim.setObjectParent(a, 99999, True)
