"""Messages of the planners and planning blocks print numbers as the user wrote them."""

from __future__ import annotations

import numpy as np
import pytest

from blocksim.blocks.vehicle import DriveToPose
from blocksim.engine.errors import BlockParameterError
from blocksim.robotics.planning import PRM, RRT, Dstar, Lattice, OccupancyGrid, kcircle
from blocksim.robotics.planning._messages import plain

BAD = np.float64(-0.5)


@pytest.mark.parametrize(
    "make",
    [
        lambda: Lattice(grid=BAD),
        lambda: Lattice(cost=[BAD, 1.0, 1.0]).plan(),
        lambda: OccupancyGrid(np.zeros((3, 3)), cellsize=BAD),
        lambda: OccupancyGrid(np.zeros((3, 3))).inflate(BAD),
        lambda: kcircle(BAD),
        lambda: PRM(np.zeros((5, 5)), npoints=BAD).plan(),
        lambda: PRM(np.zeros((5, 5)), distthresh=BAD).plan(),
        lambda: Dstar(np.zeros((5, 5)), inflate=BAD),
        lambda: RRT(np.zeros((5, 5)), steermax=np.float64(2.0)),
        lambda: DriveToPose(direction=BAD),
    ],
)
def test_numpy_scalars_print_as_plain_numbers(make):
    with pytest.raises((ValueError, BlockParameterError)) as info:
        make()
    text = str(info.value)
    assert "np." not in text and "float64" not in text
    assert "-0.5" in text or "2" in text


def test_plain():
    assert plain(np.float64(-0.5)) == "-0.5"
    assert plain(np.int64(3)) == "3"
    assert plain([np.float64(1.0), np.float32(2.5)]) == "[1.0, 2.5]"
    assert plain(np.array([[1.0, 2.0]])) == "[[1.0, 2.0]]"
    assert plain("up") == "'up'"
    assert plain(float("inf")) == "inf"
    assert len(plain(np.arange(1000.0))) <= 80
    assert "np." not in repr(Lattice(cost=np.array([1.0, 2.0, 3.0])))
