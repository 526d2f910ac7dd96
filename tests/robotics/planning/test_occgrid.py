"""Occupancy grids: geometry, inflation, files, shapes, shipped sample maps."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from blocksim.robotics.planning import (
    OccupancyGrid,
    kcircle,
    load_map,
    make_arena,
    make_maze,
    make_office,
)
from blocksim.robotics.planning.maps import random_map


def test_world_and_cell_coordinates_round_trip():
    og = OccupancyGrid(np.zeros((20, 30)), cellsize=0.25, origin=(-1.0, 2.0))
    cells = np.array([[0, 0], [29, 19], [7, 3]])
    world = og.cell_to_world(cells)
    np.testing.assert_allclose(world[0], [-1.0, 2.0])
    np.testing.assert_allclose(world[1], [-1.0 + 29 * 0.25, 2.0 + 19 * 0.25])
    np.testing.assert_array_equal(og.world_to_cell(world), cells)
    # any point within half a cell of a centre maps to that cell
    jitter = np.array([[0.124, -0.124], [-0.12, 0.12], [0.0, 0.1]])
    np.testing.assert_array_equal(og.world_to_cell(world + jitter), cells)
    assert og.extent == pytest.approx((-1.125, 6.375, 1.875, 6.875))


def test_outside_the_map_counts_as_occupied_and_row_is_y():
    data = np.zeros((4, 6))
    data[1, 4] = 1  # row 1 (y = 1), column 4 (x = 4)
    og = OccupancyGrid(data)
    assert og.is_occupied([4.0, 1.0]) and not og.is_occupied([1.0, 3.0])
    np.testing.assert_array_equal(
        og.is_occupied([[-1.0, 0.0], [0.0, 4.0], [5.0, 3.0]]), [True, True, False]
    )
    assert og.cell_occupied(6, 0) and og.cell_occupied(0, -1) and not og.cell_occupied(5, 3)


def test_inflation_occupies_exactly_the_cells_within_the_radius():
    og = random_map((40, 50), density=0.05, blob=0.0, seed=3)
    obst = np.argwhere(og.occ)  # (row, col)
    rows, cols = np.mgrid[0:40, 0:50]
    for radius_m, cellsize in ((2.0, 1.0), (0.3, 0.1), (1.5, 0.5)):
        g = OccupancyGrid(og.occ, cellsize=cellsize)
        grown = g.inflate(radius_m)
        r_cells = radius_m / cellsize
        # brute force: a cell is occupied iff some obstacle cell centre lies within the radius
        d2 = ((rows[..., None] - obst[:, 0]) ** 2 + (cols[..., None] - obst[:, 1]) ** 2).min(-1)
        np.testing.assert_array_equal(grown.occ, d2 <= r_cells**2 + 1e-9)
    assert np.array_equal(og.inflate(0).occ, og.occ)
    assert kcircle(1.0).sum() == 5 and kcircle(1.5).sum() == 9 and kcircle(2).sum() == 13


def test_png_and_npy_files_round_trip(tmp_path):
    og = random_map((23, 31), density=0.3, seed=5)
    og.save_png(tmp_path / "m.png")
    back = OccupancyGrid.from_file(tmp_path / "m.png", cellsize=0.5)
    np.testing.assert_array_equal(back.occ, og.occ)
    assert back.cellsize == 0.5
    np.save(tmp_path / "m.npy", og.occ.astype(np.uint8) * 7)
    np.testing.assert_array_equal(OccupancyGrid.from_file(tmp_path / "m.npy").occ, og.occ)
    with pytest.raises(ValueError, match=r"\.npy or \.png"):
        OccupancyGrid.from_file(tmp_path / "m.txt")


def test_png_top_row_is_the_highest_y(tmp_path):
    from PIL import Image

    img = np.full((5, 8), 255, dtype=np.uint8)
    img[0, 2] = 0  # black pixel in the top row of the picture
    Image.fromarray(img).save(tmp_path / "top.png")
    og = OccupancyGrid.from_file(tmp_path / "top.png")
    assert og.is_occupied([2.0, 4.0]) and og.occ.sum() == 1


def test_rectangles_and_polygons_rasterise_by_cell_centres():
    og = OccupancyGrid.from_shapes(
        (10.0, 6.0),
        rectangles=[(1.0, 1.0, 3.0, 2.0)],
        polygons=[[(5.0, 0.5), (9.5, 0.5), (5.0, 5.0)]],
        cellsize=0.5,
    )
    assert og.shape == (12, 20)
    # rectangle: centres x in {1, 1.5, ..., 3} (5) times y in {1, 1.5, 2} (3)
    rect = og.occ[:, :8]
    assert rect.sum() == 15 and og.is_occupied([2.0, 1.5]) and not og.is_occupied([3.5, 1.5])
    # triangle with legs 4.5 x 4.5: area 10.125 m^2 -> about 40 cells of 0.25 m^2
    tri = og.occ[:, 9:].sum()
    assert abs(tri - 10.125 / 0.25) <= 6
    assert og.is_occupied([5.5, 1.0]) and not og.is_occupied([9.0, 4.5])
    walled = OccupancyGrid.from_shapes((4.0, 3.0), border=True)
    assert walled.occ[0].all() and walled.occ[:, -1].all() and not walled.occ[1:-1, 1:-1].any()


def test_shipped_maps_equal_their_generators():
    office, maze = load_map("office"), load_map("maze")
    np.testing.assert_array_equal(office.occ, make_office().occ)
    np.testing.assert_array_equal(maze.occ, make_maze().occ)
    arena = load_map("arena")
    np.testing.assert_array_equal(arena.occ, make_arena().occ)
    assert arena.is_occupied([5.0, 5.0]) and not arena.is_occupied([2.2, 5.0])
    assert office.cellsize == 0.1 and office.shape == (80, 120)
    assert maze.cellsize == 0.25 and maze.shape == (37, 37)
    with pytest.raises(ValueError, match="available"):
        load_map("nowhere")


def _free_graph(occ):
    G = nx.grid_2d_graph(*occ.shape)
    G.remove_nodes_from([tuple(p) for p in np.argwhere(occ)])
    return G


def test_office_is_connected_and_the_maze_is_a_perfect_maze():
    assert nx.is_connected(_free_graph(make_office().occ))
    maze = make_maze(n=6, seed=2, corridor=1)
    G = _free_graph(maze.occ)
    # corridors one cell wide: the free cells of a perfect maze form a tree
    assert nx.is_tree(G)
    assert G.number_of_nodes() == 6 * 6 + (6 * 6 - 1)


def test_bad_grids_are_refused_with_a_reason():
    with pytest.raises(ValueError, match="2-D"):
        OccupancyGrid(np.zeros(5))
    with pytest.raises(ValueError, match="cellsize"):
        OccupancyGrid(np.zeros((2, 2)), cellsize=0)
    with pytest.raises(ValueError, match="origin"):
        OccupancyGrid(np.zeros((2, 2)), origin=(1, 2, 3))
    with pytest.raises(ValueError, match="radius"):
        OccupancyGrid(np.zeros((2, 2))).inflate(-1)
    with pytest.raises(ValueError, match=r"rectangles\[0\]"):
        OccupancyGrid.from_shapes((2, 2), rectangles=[(0, 1)])
