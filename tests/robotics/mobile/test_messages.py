"""Messages of the mobile-robot classes, the vehicle and estimator blocks and the URDF bodies
print the numbers users give plainly (``-0.5``, never ``np.float64(-0.5)``)."""

from __future__ import annotations

import numpy as np
import pytest

from blocksim.blocks.vehicle import EKF, ParticleFilter
from blocksim.blocks.vehicle import RangeBearingSensor as SensorBlock
from blocksim.blocks.vehicle import Vehicle as VehicleBlock
from blocksim.robotics.mobile import LandmarkMap, RandomPath, RangeBearingSensor, Vehicle
from blocksim.robotics.mobile._messages import plain
from blocksim.robotics.urdf import Body

HALF = np.float64(-0.5)

CASES = {
    "EKF dt": (lambda: EKF(dt=HALF), "got -0.5"),
    "EKF V_est": (lambda: EKF(V_est=HALF), "got -0.5"),
    "EKF x0": (lambda: EKF(x0=np.array([1.0, np.nan])), "got [1.0, nan]"),
    "sensor skip": (lambda: SensorBlock(skip=np.float64(0.0)), "got 0"),
    "PF nparticles": (lambda: ParticleFilter(nparticles=np.int64(0)), "got 0"),
    "vehicle L": (lambda: VehicleBlock(L=HALF), "got -0.5"),
    "LandmarkMap": (lambda: LandmarkMap(HALF), "got -0.5"),
    "RandomPath": (lambda: RandomPath(HALF), "got -0.5"),
    "sensor range": (
        lambda: RangeBearingSensor(Vehicle(np.eye(2) * 0.01), LandmarkMap(5), np.eye(2) * 0.01,
                                   range=HALF),
        "got -0.5",
    ),
    "Body mass": (lambda: Body("a", -1, "j", 0, (0, 0, 1), np.eye(4), mass=HALF), "got -0.5"),
    "Body jtype": (lambda: Body("a", -1, "j", np.int64(5), (0, 0, 1), np.eye(4)), "got 5"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_numbers_are_printed_plainly(case):
    make, shown = CASES[case]
    with pytest.raises((ValueError, TypeError)) as info:
        make()
    msg = str(info.value)
    assert "np." not in msg and shown in msg, msg


def test_plain():
    assert plain(np.float64(-0.5)) == "-0.5" and plain(np.int64(3)) == "3"
    assert plain(np.array([1.0, 2.5])) == "[1.0, 2.5]" and plain("x") == "'x'"
    assert plain(True) == "True" and len(plain(list(range(1000)))) <= 80
