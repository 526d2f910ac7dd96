from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from blocksim.robotics.floating import FloatingBase
from blocksim.robotics.urdf import Body, TreeModel, read_urdf

DATA = Path(__file__).resolve().parents[2] / "data" / "urdf"


def spacecraft_panda(base_mass: float = 50.0, base_inertia: float = 5.0) -> TreeModel:
    """The Panda URDF tree (fingers included: a branched tree with prismatic joints) bolted to
    a spacecraft body of the given mass (kg) and inertia (kg m^2, about x, y, z; x and z
    scaled so the base is not symmetric)."""
    panda = read_urdf(DATA / "panda.urdf")
    base = Body(
        "spacecraft",
        -1,
        "",
        0,
        (0, 0, 1.0),
        np.eye(4),
        base_mass,
        (0.05, -0.02, -0.4),
        np.diag([base_inertia, 1.3 * base_inertia, 0.8 * base_inertia]),
    )
    mount = Body(
        panda.base.name,
        -1,
        "mount",
        0,
        (0, 0, 1.0),
        np.eye(4),
        panda.base.mass,
        panda.base.com,
        panda.base.inertia,
    )
    bodies = [mount] + [
        Body(
            b.name,
            b.parent + 1,
            b.joint,
            b.jtype,
            b.axis,
            b.origin,
            b.mass,
            b.com,
            b.inertia,
            b.qlim,
        )
        for b in panda.bodies
    ]
    return TreeModel("spacecraft_panda", base, tuple(bodies))


@pytest.fixture(scope="package")
def robot() -> FloatingBase:
    return FloatingBase(spacecraft_panda())


@pytest.fixture()
def state(robot):
    rng = np.random.default_rng(7)
    return dict(
        R0=Rotation.random(random_state=3).as_matrix(),
        r0=rng.normal(size=3),
        t0=rng.normal(size=6),
        q=rng.normal(size=robot.nq),
        qd=rng.normal(size=robot.nq),
    )
