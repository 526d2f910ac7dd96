import numpy as np
import pytest

from blocksim.robotics.arm.perturb import perturb, scale_inertial
from blocksim.robotics.models import puma560


def test_scale_inertial_scales_the_inertia_matrix_and_gravity_load():
    robot = puma560().nofriction("all")
    q = np.array([0.1, -0.4, 0.3, 0.2, -0.5, 0.7])
    model = scale_inertial(robot, 1.1)
    # link terms scale by 1.1; motor inertia G^2 Jm (on the diagonal) does not
    assert np.allclose(model.gravload(q), 1.1 * robot.gravload(q))
    M, M1 = robot.inertia(q), model.inertia(q)
    rotor = np.array([lk.G ** 2 * lk.Jm for lk in robot.links])
    np.testing.assert_allclose(M1 - np.diag(rotor), 1.1 * (M - np.diag(rotor)), rtol=1e-12,
                               atol=1e-12)
    assert np.allclose(robot.fkine(q), model.fkine(q))
    assert robot.links[1].m == puma560().links[1].m  # the original is untouched


def test_perturb_is_seeded_and_bounded():
    robot = puma560()
    a, b = perturb(robot, 0.2, seed=3), perturb(robot, 0.2, seed=3)
    ratios = np.array([la.m / lr.m for la, lr in zip(a.links, robot.links) if lr.m > 0])
    assert np.all((ratios >= 0.8) & (ratios <= 1.2)) and np.ptp(ratios) > 0
    assert [la.m for la in a.links] == [lb.m for lb in b.links]
    with pytest.raises(ValueError, match="factor must be > 0"):
        scale_inertial(robot, 0.0)
