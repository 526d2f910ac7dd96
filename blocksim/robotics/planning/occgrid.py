"""Occupancy grids: a boolean array with a cell size and an origin.

Convention (Robotics Toolbox ``makemap``): 0 is free, non-zero is occupied. The array is
indexed ``data[row, col]`` with **row along y and column along x**; the centre of cell
``(col, row)`` is at world point ``origin + cellsize * (col, row)``. With the defaults (cell
size 1, origin (0, 0)) world coordinates are cell coordinates, as in RTB (0-based here).

Everything outside the array counts as occupied. Inflation grows obstacles by a disc of a given
radius (RTB's ``'inflate', K`` with a ``kcircle`` structuring element).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ._messages import plain

__all__ = ["MAX_MAP_BYTES", "MAX_MAP_CELLS", "OccupancyGrid", "as_grid", "kcircle"]

#: largest map file read [bytes]
MAX_MAP_BYTES = 64_000_000
#: most cells of a map read from a file (a 2000 x 2000 grid); checked from the file's header,
#: before anything is decoded
MAX_MAP_CELLS = 4_000_000


def _read_map_bytes(path: Path) -> bytes:
    """The bytes of the regular file ``path`` (no pipes or devices; at most
    :data:`MAX_MAP_BYTES` read: :func:`blocksim.confine.read_regular`); errors name the file,
    never its content."""
    from blocksim.confine import FileTooLarge, NotRegularFile, read_regular

    try:
        return read_regular(path, MAX_MAP_BYTES)
    except (NotRegularFile, IsADirectoryError):
        raise ValueError(f"{path.name}: not a regular file (a folder, device or pipe)") from None
    except FileTooLarge:
        raise ValueError(f"{path.name}: a map file is limited to {MAX_MAP_BYTES} bytes") from None


def _check_cells(shape: Sequence[int], name: str) -> None:
    cells = 1
    for n in shape:
        cells *= int(n)
    if cells > MAX_MAP_CELLS:
        raise ValueError(
            f"{name}: the map has {' x '.join(str(int(n)) for n in shape)} = {cells} cells; "
            f"maps are limited to {MAX_MAP_CELLS} cells (blocksim.robotics.planning.occgrid."
            f"MAX_MAP_CELLS; raise it in Python for a larger map)"
        )


def _npy_map(raw: bytes, name: str) -> np.ndarray:
    """The 2-D numeric array of a ``.npy`` file's bytes, its shape checked from the header
    before the data is read (no pickles)."""
    import io

    fh = io.BytesIO(raw)
    try:
        fmt = np.lib.format
        version = fmt.read_magic(fh)
        header = {(1, 0): fmt.read_array_header_1_0, (2, 0): fmt.read_array_header_2_0}
        shape, _, dtype = header[version](fh)
    except Exception:
        raise ValueError(f"{name}: not a .npy array file (numpy.save)") from None
    if len(shape) != 2 or dtype.kind not in "biuf":
        raise ValueError(f"{name}: a map must be a 2-D array of numbers")
    _check_cells(shape, name)
    try:
        return np.load(io.BytesIO(raw), allow_pickle=False)
    except Exception:
        raise ValueError(f"{name}: not a .npy array file (numpy.save)") from None


def _png_grey(raw: bytes, name: str) -> np.ndarray:
    """The grey levels (0..1) of a ``.png`` file's bytes; the pixel count is checked from the
    header before the image is decoded."""
    import io

    from PIL import Image

    try:
        img = Image.open(io.BytesIO(raw), formats=["PNG"])
    except Exception:
        raise ValueError(f"{name}: not a PNG image") from None
    with img:
        w, h = img.size
        _check_cells((h, w), name)
        try:
            return np.asarray(img.convert("L"), dtype=float) / 255.0
        except Exception:
            raise ValueError(f"{name}: a damaged PNG image") from None


def kcircle(radius: float) -> np.ndarray:
    """Disc structuring element: cells within ``radius`` cells of the centre.

    Parameters
    ----------
    radius : float
        Radius in cells, >= 0.

    Returns
    -------
    numpy.ndarray
        Boolean array (2 n + 1, 2 n + 1), n = floor(radius); True where ``i^2 + j^2 <= r^2``.
    """
    r = float(radius)
    if not np.isfinite(r) or r < 0:
        raise ValueError(f"kcircle: radius must be a finite number >= 0, got {plain(radius)}")
    n = int(np.floor(r + 1e-9))
    i, j = np.mgrid[-n : n + 1, -n : n + 1]
    return (i * i + j * j) <= r * r + 1e-9


def _polygon_mask(xc: np.ndarray, yc: np.ndarray, vertices: np.ndarray) -> np.ndarray:
    """Even-odd rule: which points (xc, yc) lie inside the polygon ``vertices`` (K, 2)."""
    inside = np.zeros(xc.shape, dtype=bool)
    k = len(vertices)
    for a in range(k):
        x1, y1 = vertices[a]
        x2, y2 = vertices[(a + 1) % k]
        if y1 == y2:
            continue
        crosses = (yc >= min(y1, y2)) & (yc < max(y1, y2))
        xcross = x1 + (yc - y1) * (x2 - x1) / (y2 - y1)
        inside ^= crosses & (xc < xcross)
    return inside


class OccupancyGrid:
    """A 2-D occupancy grid in the plane.

    Parameters
    ----------
    data : array_like, shape (ny, nx)
        Occupancy, 0 free, non-zero occupied; ``data[row, col]``, row along y.
    cellsize : float
        Side of a square cell [m], > 0 (default 1).
    origin : (2,) array_like
        World coordinates [m] of the centre of cell (0, 0) (default (0, 0)).

    Attributes
    ----------
    occ : numpy.ndarray, bool, shape (ny, nx)
        True where occupied (a read-only copy of ``data != 0``).
    """

    def __init__(self, data, cellsize: float = 1.0, origin: Sequence[float] = (0.0, 0.0)) -> None:
        arr = np.asarray(data)
        if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
            raise ValueError(f"OccupancyGrid: data must be a 2-D array, got shape {arr.shape}")
        if not np.issubdtype(arr.dtype, np.number) and arr.dtype != bool:
            raise ValueError(f"OccupancyGrid: data must be numeric or boolean, got {arr.dtype}")
        cs = float(cellsize)
        if not np.isfinite(cs) or cs <= 0:
            raise ValueError(f"OccupancyGrid: cellsize must be > 0 [m], got {plain(cellsize)}")
        org = np.asarray(origin, dtype=float).reshape(-1)
        if org.shape != (2,) or not np.all(np.isfinite(org)):
            raise ValueError(f"OccupancyGrid: origin must be 2 finite numbers, got {plain(origin)}")
        occ = np.array(arr != 0, dtype=bool)
        occ.flags.writeable = False
        self.occ = occ
        self.cellsize = cs
        self.origin = org

    # -- geometry ---------------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, int]:
        """(ny, nx): rows and columns."""
        return self.occ.shape

    @property
    def extent(self) -> tuple[float, float, float, float]:
        """World limits of the cells' outer edges: (xmin, xmax, ymin, ymax) [m]."""
        h = 0.5 * self.cellsize
        ny, nx = self.shape
        x0, y0 = self.origin
        return (
            x0 - h,
            x0 + (nx - 1) * self.cellsize + h,
            y0 - h,
            y0 + (ny - 1) * self.cellsize + h,
        )

    def world_to_cell(self, p) -> np.ndarray:
        """Cell (col, row) containing world point(s) ``p`` (..., 2) [m]; int array (..., 2)."""
        p = np.asarray(p, dtype=float)
        if p.shape[-1:] != (2,):
            raise ValueError(f"world_to_cell: points must have shape (..., 2), got {p.shape}")
        return np.floor((p - self.origin) / self.cellsize + 0.5).astype(np.int64)

    def cell_to_world(self, c) -> np.ndarray:
        """World coordinates [m] of the centre of cell(s) ``c`` = (col, row), shape (..., 2)."""
        c = np.asarray(c, dtype=float)
        return self.origin + self.cellsize * c

    def in_grid(self, c) -> np.ndarray:
        """Whether cell(s) (col, row) lie inside the array."""
        c = np.asarray(c)
        ny, nx = self.shape
        return (c[..., 0] >= 0) & (c[..., 0] < nx) & (c[..., 1] >= 0) & (c[..., 1] < ny)

    def is_occupied(self, p) -> np.ndarray | bool:
        """Whether world point(s) ``p`` (..., 2) fall in an occupied cell or outside the map."""
        c = self.world_to_cell(p)
        inside = self.in_grid(c)
        out = np.ones(c.shape[:-1], dtype=bool)
        cc = c[inside]
        out[inside] = self.occ[cc[:, 1], cc[:, 0]]
        return bool(out) if out.ndim == 0 else out

    def cell_occupied(self, col: int, row: int) -> bool:
        """Whether cell (col, row) is occupied or outside the map."""
        ny, nx = self.shape
        if col < 0 or row < 0 or col >= nx or row >= ny:
            return True
        return bool(self.occ[row, col])

    # -- transforms ---------------------------------------------------------------------------
    def inflate(self, radius: float) -> OccupancyGrid:
        """A new grid with every obstacle grown by a disc of ``radius`` [m] (RTB ``inflate``)."""
        r = float(radius)
        if not np.isfinite(r) or r < 0:
            raise ValueError(f"OccupancyGrid.inflate: radius must be >= 0 [m], got {plain(radius)}")
        if r == 0:
            return OccupancyGrid(self.occ, self.cellsize, self.origin)
        # scipy.ndimage imported here: ~0.2-0.5 s of import that every planning diagram would
        # pay when the package loads, used only to inflate a map
        from scipy import ndimage

        grown = ndimage.binary_dilation(self.occ, structure=kcircle(r / self.cellsize))
        return OccupancyGrid(grown, self.cellsize, self.origin)

    def free_cells(self) -> np.ndarray:
        """(col, row) of every free cell, int array (K, 2) in row-major order."""
        rows, cols = np.nonzero(~self.occ)
        return np.stack([cols, rows], axis=1)

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def from_file(
        cls,
        path,
        cellsize: float = 1.0,
        origin: Sequence[float] = (0.0, 0.0),
        threshold: float = 0.5,
    ) -> OccupancyGrid:
        """Load a map from a ``.npy`` array or a ``.png`` image.

        ``.npy``: non-zero is occupied, ``data[row, col]`` with row along y. ``.png``: dark
        pixels (grey level below ``threshold`` of full scale) are obstacles, and the image's top
        row is the map's highest y (the picture looks like the map plotted with y up).
        """
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix not in (".npy", ".png"):
            raise ValueError(f"OccupancyGrid.from_file: {path.name}: expected a .npy or .png file")
        raw = _read_map_bytes(path)
        if suffix == ".npy":
            data = _npy_map(raw, path.name)
        else:
            data = (_png_grey(raw, path.name) < threshold)[::-1]
        return cls(data, cellsize, origin)

    def save_png(self, path) -> None:
        """Write the grid as a black-on-white PNG readable by :meth:`from_file`."""
        from PIL import Image

        img = np.where(self.occ[::-1], 0, 255).astype(np.uint8)
        Image.fromarray(img, mode="L").save(Path(path))

    @classmethod
    def from_shapes(
        cls,
        size: Sequence[float],
        rectangles: Sequence[Sequence[float]] = (),
        polygons: Sequence = (),
        cellsize: float = 1.0,
        origin: Sequence[float] = (0.0, 0.0),
        border: bool = False,
    ) -> OccupancyGrid:
        """Rasterise rectangles and polygons given in world coordinates.

        Parameters
        ----------
        size : (2,) float
            World width and height [m]; the grid has ``round(size / cellsize)`` columns and rows.
        rectangles : sequence of (xmin, ymin, xmax, ymax)
            Obstacles [m]; a cell is occupied when its centre lies inside (edges included).
        polygons : sequence of (K, 2) arrays
            Obstacle outlines [m] (even-odd rule on cell centres).
        border : bool
            Also occupy the outermost ring of cells (a walled arena).
        """
        w, h = (float(v) for v in size)
        cs = float(cellsize)
        if not (w > 0 and h > 0 and cs > 0):
            raise ValueError(
                f"OccupancyGrid.from_shapes: size and cellsize must be > 0, "
                f"got size={plain(size)}, cellsize={plain(cellsize)}"
            )
        nx, ny = max(1, round(w / cs)), max(1, round(h / cs))
        org = np.asarray(origin, dtype=float)
        xc = org[0] + cs * np.arange(nx)[None, :] + np.zeros((ny, 1))
        yc = org[1] + cs * np.arange(ny)[:, None] + np.zeros((1, nx))
        occ = np.zeros((ny, nx), dtype=bool)
        for k, rect in enumerate(rectangles):
            if len(rect) != 4:
                raise ValueError(
                    f"OccupancyGrid.from_shapes: rectangles[{k}] must be "
                    f"(xmin, ymin, xmax, ymax), got {plain(rect)}"
                )
            x1, y1, x2, y2 = (float(v) for v in rect)
            occ |= (
                (xc >= min(x1, x2))
                & (xc <= max(x1, x2))
                & (yc >= min(y1, y2))
                & (yc <= max(y1, y2))
            )
        for k, poly in enumerate(polygons):
            v = np.asarray(poly, dtype=float)
            if v.ndim != 2 or v.shape[1] != 2 or len(v) < 3:
                raise ValueError(
                    f"OccupancyGrid.from_shapes: polygons[{k}] must be a (K>=3, 2) "
                    f"array of vertices, got shape {v.shape}"
                )
            occ |= _polygon_mask(xc, yc, v)
        if border:
            occ[0, :] = occ[-1, :] = True
            occ[:, 0] = occ[:, -1] = True
        return cls(occ, cs, org)

    def __repr__(self) -> str:
        ny, nx = self.shape
        return (
            f"OccupancyGrid({nx}x{ny} cells of {self.cellsize:g} m, origin "
            f"({self.origin[0]:g}, {self.origin[1]:g}), {int(self.occ.sum())} occupied)"
        )


def as_grid(occgrid, name: str = "planner") -> OccupancyGrid:
    """An :class:`OccupancyGrid` from a grid or a plain 2-D array (cell size 1, origin 0)."""
    if isinstance(occgrid, OccupancyGrid):
        return occgrid
    try:
        return OccupancyGrid(occgrid)
    except ValueError as e:
        raise ValueError(f"{name}: occupancy grid: {e}") from None
