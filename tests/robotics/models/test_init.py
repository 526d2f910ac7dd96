"""The zoo catalogue: models(), model(), and properties every model must have."""

import numpy as np
import pytest

from blocksim.robotics.arm.serial_link import SerialLink
from blocksim.robotics.models import ModelInfo, model, models

ALL = models()


def names(infos):
    return sorted(m.name for m in infos)


def test_catalogue_lists_the_zoo_sorted_and_unique():
    assert names(ALL) == ["irb140", "kr5", "panda", "phantomx", "planar2", "planar3",
                          "puma560", "puma560akb", "stanford", "twolink"]
    assert [m.name for m in ALL] == names(ALL)
    assert all(isinstance(m, ModelInfo) for m in ALL)
    assert "Puma560" in str(next(m for m in ALL if m.name == "puma560"))


def test_keyword_filter_is_case_insensitive_like_rtb():
    assert names(models("modified_DH")) == ["panda", "puma560akb"]
    assert names(models("MODIFIED_dh")) == ["panda", "puma560akb"]
    assert names(models("dynamics")) == ["puma560", "puma560akb", "stanford", "twolink"]
    assert names(models("prismatic")) == ["stanford"]
    assert names(models("6dof")) == ["irb140", "kr5", "puma560", "puma560akb", "stanford"]
    assert names(models("planar")) == ["planar2", "planar3", "twolink"]
    assert names(models("kuka")) == ["kr5"]
    assert names(models("puma")) == ["puma560", "puma560akb"]
    assert models("no such robot") == []
    with pytest.raises(TypeError):
        models(6)


@pytest.mark.parametrize("info", ALL, ids=lambda m: m.name)
def test_each_model_matches_its_catalogue_entry(info):
    robot = info.constructor()
    assert isinstance(robot, SerialLink)
    assert robot.n == info.joints
    assert f"{info.joints}DOF" in info.keywords
    assert robot.mdh == (info.dh == "modified")
    assert f"{info.dh}_DH" in info.keywords
    assert robot.name and robot.name != "noname"
    assert robot.comment or robot.manufacturer
    assert ("prismatic" in info.keywords) == ("P" in robot.config)
    has_dynamics = any(L.m > 0 for L in robot.links)
    assert has_dynamics == ("dynamics" in info.keywords)
    assert "qz" in robot.poses
    for q in robot.poses.values():
        assert q.shape == (robot.n,) and np.all(np.isfinite(q))
        T = robot.fkine(q)
        np.testing.assert_allclose(T[:3, :3] @ T[:3, :3].T, np.eye(3), atol=1e-12)


@pytest.mark.parametrize("info", ALL, ids=lambda m: m.name)
def test_models_are_values(info):
    a, b = info.constructor(), info.constructor()
    assert a is not b
    a.base = np.diag([1.0, 1.0, 1.0, 1.0]) @ _shift()
    a.poses = {"qz": np.ones(a.n)}
    assert np.array_equal(b.base, info.constructor().base)
    np.testing.assert_array_equal(b.qz, info.constructor().qz)


def _shift():
    T = np.eye(4)
    T[:3, 3] = 1.0, 2.0, 3.0
    return T


@pytest.mark.parametrize("info", models("dynamics"), ids=lambda m: m.name)
def test_inertia_matrix_is_symmetric_positive_definite(info):
    robot = info.constructor()
    rng = np.random.default_rng(9)
    lo, hi = np.clip(robot.qlim, -np.pi, np.pi).T
    for _ in range(5):
        M = robot.inertia(rng.uniform(lo, hi))
        np.testing.assert_allclose(M, M.T, atol=1e-12)
        assert np.linalg.eigvalsh(M).min() > 0


def test_model_by_name():
    robot = model("PUMA560")
    assert robot.name == "Puma 560" and robot.n == 6
    with pytest.raises(ValueError, match="valid names are irb140, kr5"):
        model("puma")
