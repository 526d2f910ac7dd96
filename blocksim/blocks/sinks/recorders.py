"""Sink blocks: inputs, no outputs, no state.

A sink never stores run data on itself. The engine records every signal; after the run, on
every exit path (including a failed run, with the partial result), it calls
``block.stop(run)``, and the sink reads what drove its inputs from ``run.result`` (a
:class:`~blocksim.engine.record.SimResult`): ``run.result[f"{name}.{port}"]``.

* :class:`Scope` plots its inputs against time; :class:`XYGraph` plots one input against the
  other. Both store their figure in ``run.result.figures[name]`` (``name`` is the block's name
  in the diagram) and optionally save it to ``file`` and/or show it.
* :class:`Record` writes its inputs to a ``.npz`` or ``.csv`` file.

Port names: a sink with one input calls it ``u``; with ``nin > 1`` the inputs are ``u0``,
``u1``, ... (docs/conventions.md, "Naming").

Files: the directory of ``file`` must exist when the run starts; :meth:`start` checks it, so a
bad path fails before any simulation time is spent (``BlockParameterError`` naming the block).
Writing happens in :meth:`stop`. If the run succeeded, a failure to write raises a
:class:`~blocksim.engine.errors.BlocksimError` naming the block and the file. If the run had
already failed or been stopped, a problem in ``stop`` only issues a ``RuntimeWarning``, so that
it never hides the error that ended the run.
"""

from __future__ import annotations

import csv
import functools
import os
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from blocksim.confine import PathRefused, output_path, replacing
from blocksim.engine.block import Block, Port, check_port_count
from blocksim.engine.errors import BlockParameterError, BlocksimError, plain
from blocksim.viz.scope import MAX_DPI, check_raster, element_labels, plot_scope, plot_xy

FileArg = str | os.PathLike[str] | None

#: figure formats a Scope or XYGraph can save (by file suffix, as matplotlib infers them)
FIGURE_SUFFIXES = (".png", ".pdf", ".svg", ".eps", ".ps", ".jpg", ".jpeg", ".tif", ".tiff",
                   ".webp")
#: file formats Record can write
RECORD_SUFFIXES = (".npz", ".csv")

__all__ = ["Record", "Scope", "XYGraph"]


# ---------------------------------------------------------------------------- validation helpers
def _bad(cls: str, param: str, expected: str, found: Any) -> BlockParameterError:
    return BlockParameterError(
        f"{cls}: parameter '{param}' must be {expected}, found {plain(found)}")


def _check_nin(cls: str, nin: Any) -> int:
    if isinstance(nin, bool) or not isinstance(nin, (int, np.integer)) or nin < 1:
        raise _bad(cls, "nin", "a positive int (number of inputs)", nin)
    return int(nin)


def _check_bool(cls: str, param: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise _bad(cls, param, "True or False", value)
    return bool(value)


def _check_optional_str(cls: str, param: str, value: Any) -> str | None:
    if value is not None and not isinstance(value, str):
        raise _bad(cls, param, "a str or None", value)
    return value


def _check_strings(cls: str, param: str, value: Any, n: int, default: list[str], *,
                   allow_empty: bool = False) -> list[str]:
    """``value`` is None (-> default), a str (when n == 1, or repeated if ``allow_empty``
    -- used for units) or a sequence of n str."""
    if value is None:
        return list(default)
    if isinstance(value, str):
        if n == 1 or allow_empty:
            value = [value] * n
        else:
            raise _bad(cls, param, f"a sequence of {n} str (one per input)", value)
    if not isinstance(value, Sequence) or len(value) != n:
        raise _bad(cls, param, f"a sequence of {n} str (one per input)", value)
    items = list(value)
    for item in items:
        if not isinstance(item, str) or (not allow_empty and not item):
            raise _bad(cls, param, f"a sequence of {n} {'' if allow_empty else 'non-empty '}str",
                       value)
    return items


def _check_file(cls: str, file: Any, suffixes: Sequence[str], what: str) -> Path | None:
    if file is None:
        return None
    if not isinstance(file, (str, os.PathLike)) or not str(file):
        raise _bad(cls, "file", f"a path (str or os.PathLike) ending in one of "
                   f"{', '.join(suffixes)}, or None", file)
    if Path(file).suffix.lower() not in suffixes:
        raise _bad(cls, "file", f"a {what} file name ending in one of {', '.join(suffixes)}",
                   str(file))
    try:
        return output_path(file, "parameter 'file'")
    except PathRefused as exc:
        raise BlockParameterError(f"{cls}: {exc}") from None


def _check_elements(cls: str, elements: Any, n: int) -> list[list[str] | None] | None:
    """Per input, the names of its elements (a list of str) or None; None for all."""
    if elements is None:
        return None
    if (not isinstance(elements, Sequence) or isinstance(elements, str)
            or len(elements) != n):
        raise _bad(cls, "elements", f"a sequence of {n} (one per input) lists of element "
                   f"names or nulls", elements)
    out: list[list[str] | None] = []
    for item in elements:
        if item is None:
            out.append(None)
        elif (isinstance(item, Sequence) and not isinstance(item, str)
              and all(isinstance(x, str) for x in item)):
            out.append(list(item))
        else:
            raise _bad(cls, "elements", "lists of element names (str) or nulls", elements)
    return out


def _check_marks(cls: str, marks: Any) -> np.ndarray | None:
    """Points (K, 2) or poses (K, 3) to mark, finite; a single point may be given flat."""
    if marks is None:
        return None
    try:
        m = np.array(marks, dtype=float)
    except (TypeError, ValueError):
        m = np.full((1, 1), np.nan)
    if m.ndim == 1:
        m = m.reshape(1, -1)
    if m.ndim != 2 or m.shape[1] not in (2, 3) or not np.all(np.isfinite(m)):
        raise _bad(cls, "marks", "points (x, y) or poses (x, y, theta), one or a list",
                   marks)
    return m


def _check_line(cls: str, line: Any) -> tuple[float, float, float] | None:
    """A line (a, b, c): a x + b y + c = 0, with a or b non-zero."""
    if line is None:
        return None
    try:
        a, b, c = (float(v) for v in line)
    except (TypeError, ValueError):
        raise _bad(cls, "line", "(a, b, c) for the line a x + b y + c = 0", line) from None
    if not (np.isfinite([a, b, c]).all() and (a != 0 or b != 0)):
        raise _bad(cls, "line", "(a, b, c), finite, with a or b non-zero", line)
    return (a, b, c)


def _check_figsize(cls: str, figsize: Any) -> tuple[float, float] | None:
    if figsize is None:
        return None
    try:
        w, h = (float(v) for v in figsize)
    except (TypeError, ValueError):
        raise _bad(cls, "figsize", "a (width, height) pair in inches, or None", figsize) from None
    if not (w > 0 and h > 0 and np.isfinite(w) and np.isfinite(h)):
        raise _bad(cls, "figsize", "a (width, height) pair of positive inches", figsize)
    return (w, h)


def _check_dpi(cls: str, dpi: Any) -> float | None:
    if dpi is None:
        return None
    if isinstance(dpi, bool) or not isinstance(dpi, (int, float, np.number)) or not dpi > 0:
        raise _bad(cls, "dpi", "a positive number (dots per inch) or None", dpi)
    if not dpi <= MAX_DPI:
        raise _bad(cls, "dpi", f"at most {MAX_DPI:g} dots per inch "
                   f"(blocksim.viz.scope.MAX_DPI)", dpi)
    return float(dpi)


def _check_raster(cls: str, figsize: tuple[float, float] | None, dpi: float | None) -> None:
    """Refuse a figure whose pixels (figsize x dpi, matplotlib's defaults where None) exceed
    :data:`blocksim.viz.scope.MAX_PIXELS`, when the block is made, not when it draws."""
    if figsize is None and dpi is None:
        return
    import matplotlib as mpl

    try:
        check_raster(figsize or tuple(mpl.rcParams["figure.figsize"]),
                     dpi or float(mpl.rcParams["figure.dpi"]))
    except ValueError as exc:
        raise BlockParameterError(f"{cls}: parameters 'figsize' and 'dpi': {exc}") from None


def _input_ports(nin: int, units: Sequence[str] | None = None) -> list[Port]:
    check_port_count(nin, "")
    names = ["u"] if nin == 1 else [f"u{i}" for i in range(nin)]
    units = list(units) if units is not None else [""] * nin
    return [Port(name, unit=unit) for name, unit in zip(names, units, strict=True)]


# ---------------------------------------------------------------------------- common sink logic
class _Sink(Block):
    """Shared behaviour of the sinks: the file check in start() and the guarded stop()."""

    outputs = ()
    _file: Path | None = None

    @property
    def _what(self) -> str:
        """``"Scope 'scope1'"``: how error messages name this block."""
        return f"{type(self).__name__} '{self.name}'" if self.name else type(self).__name__

    def _key(self, result: Any) -> str:
        """Name under which the figure is stored in ``result.figures``: the block's path."""
        paths = getattr(result, "block_paths", {})
        return paths.get(id(self)) or self.name or type(self).__name__.lower()

    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any, ...]:
        """A sink has no outputs."""
        return ()

    def start(self, run: Any) -> None:
        """Check that the directory of ``file`` exists, before any time is spent simulating."""
        if self._file is not None and not self._file.parent.is_dir():
            raise BlockParameterError(
                f"{self._what}: parameter 'file': directory '{self._file.parent}' does not "
                f"exist (file={plain(str(self._file))}); create it or choose another path")

    def _signal(self, result: Any, port: str) -> np.ndarray:
        path = getattr(result, "block_paths", {}).get(id(self), self.name)
        return np.asarray(result[f"{path}.{port}"])

    def _guarded(self, run: Any, work: Callable[[Any], None]) -> None:
        """Run ``work(result)``; after a failed or stopped run, turn its errors into warnings."""
        result = getattr(run, "result", None)
        if result is None:
            return
        try:
            work(result)
        except Exception as exc:
            status = getattr(result, "status", "success")
            if status == "success":
                raise
            warnings.warn(f"{self._what}: could not complete after the run was {status}: "
                          f"{type(exc).__name__}: {exc}", RuntimeWarning, stacklevel=3)

    def _write(self, writer: Callable[[Path], Any]) -> None:
        """Call ``writer(path)``; re-raise I/O errors naming the block and the file."""
        assert self._file is not None
        try:
            with replacing(self._file) as tmp:  # a link there is replaced, not written through
                writer(tmp)
        except OSError as exc:
            raise BlocksimError(f"{self._what}: cannot write '{self._file}': {exc}") from exc

    def _title(self, title: str | None, result: Any) -> str | None:
        """The title, with a note when the run did not complete."""
        status = getattr(result, "status", "success")
        if status == "success":
            return title
        t = np.asarray(result.t)
        note = f"run {status} at t = {t[-1]:g} s" if t.size else f"run {status}"
        return f"{title} ({note})" if title else note

    def _store(self, result: Any, draw: Callable[[], Any], show: bool,
               dpi: float | None) -> None:
        """Put the figure ``draw()`` makes in ``result.figures``: drawn now when it is saved
        or shown, else when first accessed (a run nobody plots never imports matplotlib)."""
        key = self._key(result)
        if self._file is None and not show and hasattr(result.figures, "defer"):
            result.figures.defer(key, draw)
            return
        fig = draw()
        result.figures[key] = fig
        self._show_and_save(fig, show, dpi)

    def _show_and_save(self, fig: Any, show: bool, dpi: float | None) -> None:
        from blocksim.viz.scope import save_figure, show_figure

        if self._file is not None:
            self._write(lambda path: save_figure(fig, path, dpi=dpi))
        if show:
            show_figure(fig)


# ---------------------------------------------------------------------------- Scope
class _FigureSink(_Sink):
    """A sink that draws a figure after the run, saved to ``file`` when given."""

    @property
    def file(self) -> Path | None:
        """Where the figure is saved after the run, or None."""
        return self._file


class Scope(_FigureSink):
    """Plot each input against time, like a Simulink Scope.

    One axes per input, stacked with a shared time axis; a vector input is drawn as one line
    per element with a legend (``"q[0]"``, ``"q[1]"``, ...), a matrix input as one line per
    element (``"T[0,1]"``). The figure is stored in ``result.figures[name]`` after the run,
    also after a failed run (then showing the partial signals, the title noting where the run
    ended).

    Parameters
    ----------
    nin : int
        Number of inputs (axes), >= 1.
    labels : str or sequence of str, optional
        Name of each input, shown as its y-axis label and as the stem of element labels.
        Default: the port names (``u``, or ``u0``, ``u1``, ...).
    units : str or sequence of str, optional
        Unit of each input (one string for all), shown as ``"q [rad]"``.
    title : str, optional
        Figure title.
    file : str or os.PathLike, optional
        Save the figure there after the run; the format follows the suffix (.png, .pdf, .svg,
        ...). The directory must exist when the run starts.
    show : bool
        Display the figure (through pyplot, non-blocking) after the run. Default False: the
        figure is made headless (Agg) and not registered with pyplot.
    grid : bool
        Draw grid lines.
    stairs : bool or sequence of bool
        Draw the input (each input, if a sequence) as a zero-order-hold staircase, as suits
        the output of a discrete block.
    figsize : (float, float), optional
        Figure size [inch]; default 8 wide, 2.5 per input.
    dpi : float, optional
        Resolution of the saved file [dots per inch]; default matplotlib's.
    elements : sequence of (sequence of str or None), optional
        Per input, the names of its elements in the legend, e.g. ``[["x", "y", "z"]]`` for
        a position; None (or a null entry) labels them ``label[0]``, ``label[1]``, ...

    Inputs
    ------
    u (nin == 1), or u0, u1, ... : float or ndarray, any shape
        The signals to plot, in their own units.

    Outputs
    -------
    None.

    Notes
    -----
    No equation and no state: the engine records the inputs, and the block plots the recorded
    arrays in :meth:`stop` (with :func:`blocksim.viz.scope.plot_scope`).
    """

    def __init__(self, nin: int = 1, *, labels: str | Sequence[str] | None = None,
                 units: str | Sequence[str] | None = None, title: str | None = None,
                 file: FileArg = None, show: bool = False, grid: bool = True,
                 stairs: bool | Sequence[bool] = False,
                 figsize: tuple[float, float] | None = None, dpi: float | None = None,
                 elements: Sequence[Sequence[str] | None] | None = None):
        cls = type(self).__name__
        self.nin = _check_nin(cls, nin)
        ports = _input_ports(self.nin)
        self.labels = _check_strings(cls, "labels", labels, self.nin, [p.name for p in ports])
        self.elements = _check_elements(cls, elements, self.nin)
        self.units = _check_strings(cls, "units", units, self.nin, [""] * self.nin,
                                    allow_empty=True)
        self.title = _check_optional_str(cls, "title", title)
        self._file = _check_file(cls, file, FIGURE_SUFFIXES, "figure")
        self.show = _check_bool(cls, "show", show)
        self.grid = _check_bool(cls, "grid", grid)
        if isinstance(stairs, (bool, np.bool_)):
            self.stairs = [bool(stairs)] * self.nin
        elif (isinstance(stairs, Sequence) and len(stairs) == self.nin
              and all(isinstance(s, (bool, np.bool_)) for s in stairs)):
            self.stairs = [bool(s) for s in stairs]
        else:
            raise _bad(cls, "stairs", f"True, False or a sequence of {self.nin} bools", stairs)
        self.figsize = _check_figsize(cls, figsize)
        self.dpi = _check_dpi(cls, dpi)
        _check_raster(cls, self.figsize, self.dpi)
        self.set_ports(inputs=_input_ports(self.nin, self.units))

    def stop(self, run: Any) -> None:
        """Plot the recorded inputs into ``run.result.figures[name]``; save and show it."""
        self._guarded(run, self._finish)

    def _finish(self, result: Any) -> None:
        signals = [self._signal(result, p.name) for p in self.inputs]  # type: ignore[union-attr]
        t, title = result.t, self._title(self.title, result)
        # a partial of a module-level function, not a closure: a deferred figure pickles with
        # its result (an interpreted batch's worker process sends the result back)
        draw = functools.partial(plot_scope, t, signals, self.labels, self.units, title=title,
                                 grid=self.grid, stairs=self.stairs, figsize=self.figsize,
                                 show=self.show, elements=self.elements)
        self._store(result, draw, self.show, self.dpi)


# ---------------------------------------------------------------------------- XYGraph
class XYGraph(_FigureSink):
    """Plot input ``y`` against input ``x``, like the Simulink XY Graph.

    One line through the recorded points in time order. The figure is stored in
    ``result.figures[name]`` after the run (also after a failed run, with the partial path).

    Parameters
    ----------
    labels : (str, str), optional
        Labels of the x and y axes, units included (e.g. ``("x [m]", "y [m]")``); default
        ``("x", "y")``.
    title : str, optional
        Figure title.
    file : str or os.PathLike, optional
        Save the figure there after the run; the format follows the suffix (.png, .pdf, .svg,
        ...). The directory must exist when the run starts.
    show : bool
        Display the figure (through pyplot, non-blocking) after the run.
    grid : bool
        Draw grid lines.
    equal : bool
        Same scale on both axes (for paths in the plane).
    figsize : (float, float), optional
        Figure size [inch]; default (6, 5).
    dpi : float, optional
        Resolution of the saved file [dots per inch].
    marks : array_like, shape (K, 2) or (K, 3), optional
        Fixed points to mark, e.g. a vehicle's goal ``(x, y)`` or pose ``(x, y, theta)``
        [units of x and y, rad]; a heading is drawn as an arrow.
    line : (a, b, c), optional
        A reference line ``a x + b y + c = 0`` to draw (e.g. the line a driver follows).

    Inputs
    ------
    x : float
        Abscissa, scalar.
    y : float
        Ordinate, scalar.

    Outputs
    -------
    None.
    """

    inputs = (Port("x", shape=(), doc="abscissa"), Port("y", shape=(), doc="ordinate"))

    def __init__(self, *, labels: Sequence[str] | None = None, title: str | None = None,
                 file: FileArg = None, show: bool = False, grid: bool = True,
                 equal: bool = False, figsize: tuple[float, float] | None = None,
                 dpi: float | None = None, marks: Any = None, line: Any = None):
        cls = type(self).__name__
        self.labels = _check_strings(cls, "labels", labels, 2, ["x", "y"])
        self.marks = _check_marks(cls, marks)
        self.line = _check_line(cls, line)
        self.title = _check_optional_str(cls, "title", title)
        self._file = _check_file(cls, file, FIGURE_SUFFIXES, "figure")
        self.show = _check_bool(cls, "show", show)
        self.grid = _check_bool(cls, "grid", grid)
        self.equal = _check_bool(cls, "equal", equal)
        self.figsize = _check_figsize(cls, figsize)
        self.dpi = _check_dpi(cls, dpi)
        _check_raster(cls, self.figsize, self.dpi)

    def stop(self, run: Any) -> None:
        """Plot the recorded ``y`` against ``x`` into ``run.result.figures[name]``."""
        self._guarded(run, self._finish)

    def _finish(self, result: Any) -> None:
        x, y = self._signal(result, "x"), self._signal(result, "y")
        title = self._title(self.title, result)
        draw = functools.partial(plot_xy, x, y, xlabel=self.labels[0], ylabel=self.labels[1],
                                 title=title, grid=self.grid, equal=self.equal,
                                 figsize=self.figsize, show=self.show, marks=self.marks,
                                 line=self.line)  # pickles, as Scope's
        self._store(result, draw, self.show, self.dpi)


# ---------------------------------------------------------------------------- Record
class Record(_Sink):
    """Write the inputs to a file at the end of the run (like Simulink "To File").

    Without ``file`` the block does nothing beyond being a sink: the engine records its inputs
    anyway (``result["record.u"]``). With ``file``, after the run (also after a failed run,
    with the partial data) it writes:

    ``.npz``
        A numpy archive (no pickling; ``np.load(file)``) with the array ``t``, shape (N,) [s],
        and one array per input, keyed by its label, shape (N,) or (N, *shape).
    ``.csv``
        A header line ``t,<labels>`` then one row per time point. Vector and matrix inputs are
        flattened in C order into one column per element, labelled ``u[0]``, ``u[1]``, ...
        (``T[0,1]``, quoted, for matrices). Values are written with the shortest repr that
        reads back exactly (``np.loadtxt(file, delimiter=",", skiprows=1)``).

    Parameters
    ----------
    nin : int
        Number of inputs, >= 1.
    file : str or os.PathLike, optional
        Output file, ending in ``.npz`` or ``.csv``; the directory must exist when the run
        starts. An existing file is overwritten.
    labels : str or sequence of str, optional
        Name of each input in the file; unique and not ``"t"``. Default: the port names.

    Inputs
    ------
    u (nin == 1), or u0, u1, ... : float or ndarray, any shape
        The signals to record.

    Outputs
    -------
    None.
    """

    def __init__(self, nin: int = 1, *, file: FileArg = None,
                 labels: str | Sequence[str] | None = None):
        cls = type(self).__name__
        self.nin = _check_nin(cls, nin)
        ports = _input_ports(self.nin)
        self._file = _check_file(cls, file, RECORD_SUFFIXES, "data")
        self.labels = _check_strings(cls, "labels", labels, self.nin, [p.name for p in ports])
        if "t" in self.labels or len(set(self.labels)) != len(self.labels):
            raise _bad(cls, "labels", "unique names other than 't' (the time column)", labels)
        self.set_ports(inputs=ports)

    @property
    def file(self) -> Path | None:
        """Where the inputs are written after the run, or None."""
        return self._file

    def stop(self, run: Any) -> None:
        """Write the recorded inputs to ``file`` (nothing when no file was given)."""
        if self._file is not None:
            self._guarded(run, self._finish)

    def _finish(self, result: Any) -> None:
        t = np.asarray(result.t, dtype=float)
        data = [self._signal(result, p.name) for p in self.inputs]  # type: ignore[union-attr]
        if self._file is not None and self._file.suffix.lower() == ".npz":
            arrays = dict(zip(self.labels, data, strict=True))
            self._write(lambda path: _write_npz(path, t, arrays))
        else:
            self._write(lambda path: _write_csv(path, t, self.labels, data))


def _write_npz(path: Path, t: np.ndarray, arrays: dict[str, np.ndarray]) -> None:
    with open(path, "wb") as fh:
        np.savez(fh, t=t, **arrays)


def _write_csv(path: Path, t: np.ndarray, labels: Sequence[str],
               data: Sequence[np.ndarray]) -> None:
    header = ["t"]
    columns = [t.reshape(-1, 1)]
    for label, arr in zip(labels, data, strict=True):
        arr = np.asarray(arr, dtype=float)
        header += element_labels(label, tuple(arr.shape[1:]))
        columns.append(arr.reshape(arr.shape[0], int(np.prod(arr.shape[1:]))))
    table = np.hstack(columns)
    with open(path, "w", newline="") as fh:
        csv.writer(fh, lineterminator="\n").writerow(header)
        fh.writelines(",".join(map(repr, row)) + "\n" for row in table.tolist())
