"""Shared machinery of the animations of recorded runs: frame grid, resampling, writers.

An animation of a recorded run shows the signals at a **uniform grid of frame times**, not at
the recorded samples (an adaptive solver records at irregular steps): frame ``k`` is at
``t[0] + k / fps`` (:func:`frame_times`) and each frame's values are interpolated linearly in
time between the recorded samples around it (:func:`resample`). Nothing is re-simulated.

Files are written by matplotlib's movie writers, chosen by the suffix:

``.gif``
    :class:`matplotlib.animation.PillowWriter` (Pillow ships with matplotlib). Note that
    Pillow merges consecutive frames that are identical pixel for pixel into one longer frame.
``.mp4``
    :class:`matplotlib.animation.FFMpegWriter`, which needs the ``ffmpeg`` program (on PATH, or
    the binary bundled by the ``imageio-ffmpeg`` package); when it is missing
    :class:`AnimationWriterError` says so and suggests ``.gif``.

matplotlib is imported inside the functions, so importing this module stays cheap.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from blocksim._messages import plain

if TYPE_CHECKING:
    from matplotlib.animation import FuncAnimation
    from matplotlib.artist import Artist
    from matplotlib.figure import Figure

#: animation file formats, by suffix, and the matplotlib writer that makes each
ANIMATION_WRITERS = {".gif": "pillow", ".mp4": "ffmpeg"}
#: default frame rate of the animations [frames per second of playback]
DEFAULT_FPS = 25.0
#: default resolution of the animation files [dots per inch]
DEFAULT_DPI = 80.0


class AnimationWriterError(RuntimeError):
    """An animation cannot be written: unknown file suffix or a missing movie writer."""


# ---------------------------------------------------------------------------- frame grid
def check_fps(fps: Any, what: str = "fps") -> float:
    """Return ``fps`` as a positive finite float (frames per second), or raise ValueError."""
    if isinstance(fps, bool) or not isinstance(fps, (int, float, np.number)) or not (
            math.isfinite(fps) and fps > 0):
        raise ValueError(f"{what} must be a positive number of frames per second, got {plain(fps)}")
    return float(fps)


def check_frames(frames: Any) -> int | None:
    """Return ``frames`` as a positive int, or None; raise ValueError otherwise."""
    if frames is None:
        return None
    if isinstance(frames, bool) or not isinstance(frames, (int, np.integer)) or frames < 1:
        raise ValueError(f"frames must be a positive int (number of frames) or None, got "
                         f"{plain(frames)}")
    return int(frames)


def check_figsize(figsize: Any) -> tuple[float, float]:
    """Return ``figsize`` as a (width, height) pair of positive finite inches, or raise."""
    try:
        w, h = (float(v) for v in figsize)
    except (TypeError, ValueError):
        raise ValueError(f"figsize must be a (width, height) pair [inch], got {plain(figsize)}"
                         ) from None
    if not (math.isfinite(w) and math.isfinite(h) and w > 0 and h > 0):
        raise ValueError(f"figsize must be positive (width, height) [inch], got {plain(figsize)}")
    return (w, h)


def frame_times(t: Any, fps: float = DEFAULT_FPS, frames: int | None = None) -> np.ndarray:
    """The uniform grid of frame times over the recorded interval ``[t[0], t[-1]]``.

    Parameters
    ----------
    t : array_like, shape (N,)
        Recorded times [s], non-decreasing, N >= 1.
    fps : float
        Frames per second of simulated time (and of playback): frame ``k`` is at
        ``t[0] + k / fps`` for ``k = 0 .. floor((t[-1] - t[0]) * fps)``, so the animation plays
        in real time and its last frame is within ``1 / fps`` of ``t[-1]``.
    frames : int, optional
        Number of frames instead: ``frames`` times evenly spaced from ``t[0]`` to ``t[-1]``
        inclusive (``linspace``); playback then runs at ``fps``, faster or slower than real
        time.

    Returns
    -------
    ndarray, shape (F,)
        Frame times [s], increasing (a single frame when the recording has one time).
    """
    tt = np.asarray(t, dtype=float).reshape(-1)
    if tt.size == 0:
        raise ValueError("frame_times: the recording has no time points (nothing to animate)")
    if not np.all(np.isfinite(tt)) or np.any(np.diff(tt) < 0):
        raise ValueError("frame_times: recorded times must be finite and non-decreasing")
    t0, t1 = float(tt[0]), float(tt[-1])
    nframes = check_frames(frames)
    if nframes is not None:
        return np.linspace(t0, t1, nframes)
    rate = check_fps(fps)
    count = math.floor((t1 - t0) * rate * (1.0 + 1e-12) + 1e-9) + 1
    return t0 + np.arange(count) / rate


def _brackets(t: np.ndarray, times: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each time, the index j of the last sample with t[j] <= time (clamped to N-2, so that
    samples j and j+1 bracket it) and the interpolation weight w of sample j+1."""
    n = t.size
    j = np.clip(np.searchsorted(t, times, side="right") - 1, 0, max(n - 2, 0))
    if n == 1:
        return j, np.zeros(times.shape)
    span = t[j + 1] - t[j]
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.where(span > 0, (times - t[j]) / np.where(span > 0, span, 1.0), 1.0)
    return j, np.clip(w, 0.0, 1.0)


def resample(t: Any, y: Any, times: Any) -> np.ndarray:
    """Interpolate a recorded signal linearly in time at the frame times.

    Parameters
    ----------
    t : array_like, shape (N,)
        Recorded times [s], non-decreasing. A repeated time (the left and right values at an
        event or breakpoint) is honoured: a frame exactly at it gets the value after it.
    y : array_like, shape (N,) or (N, *shape)
        Recorded values, one per time.
    times : array_like, shape (F,)
        Frame times [s]; times outside ``[t[0], t[-1]]`` take the end values.

    Returns
    -------
    ndarray, shape (F,) or (F, *shape)
        ``y`` at the frame times (NaN where a bracketing sample is NaN).
    """
    tt = np.asarray(t, dtype=float).reshape(-1)
    yy = np.asarray(y, dtype=float)
    tf = np.asarray(times, dtype=float).reshape(-1)
    if yy.ndim == 0 or yy.shape[0] != tt.size:
        raise ValueError(f"resample: expected {tt.size} samples (one per time point), found "
                         f"shape {yy.shape}")
    if tt.size == 0:
        raise ValueError("resample: the recording has no time points")
    j, w = _brackets(tt, tf)
    if tt.size == 1:
        return np.repeat(yy[:1], tf.size, axis=0)
    w = w.reshape((-1,) + (1,) * (yy.ndim - 1))
    y0, y1 = yy[j], yy[j + 1]
    # exact end values (no 0 * inf) when a weight is 0 or 1
    return np.where(w == 0.0, y0, np.where(w == 1.0, y1, (1.0 - w) * y0 + w * y1))


def samples_before(t: Any, times: Any) -> np.ndarray:
    """Number of recorded samples strictly before each frame time, shape (F,), int.

    A trail drawn at frame ``k`` joins ``y[:samples_before(t, times)[k]]`` and the frame's
    interpolated value, so it follows the recorded path however coarse the frame grid is.
    """
    tt = np.asarray(t, dtype=float).reshape(-1)
    return np.searchsorted(tt, np.asarray(times, dtype=float).reshape(-1), side="left")


def trail_points(y: np.ndarray, frame_value: np.ndarray, before: int) -> np.ndarray:
    """The recorded samples ``y[:before]`` followed by the frame's value: shape (m + 1, ...)."""
    return np.concatenate([y[:before], frame_value[None]], axis=0)


# ---------------------------------------------------------------------------- figures
def animation_figure(figsize: tuple[float, float], show: bool = False) -> Figure:
    """An empty figure for an animation: no automatic layout (so the axes never move between
    frames); Agg-rendered and not registered with pyplot unless ``show``."""
    if show:
        import matplotlib.pyplot as plt

        return plt.figure(figsize=figsize)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    return fig


def format_time(t: float) -> str:
    """The time stamp shown on each frame, ``"t = 0.040 s"``."""
    return f"t = {t:.3f} s"


# ---------------------------------------------------------------------------- writers
def check_animation_file(filename: str | os.PathLike[str], what: str = "filename") -> Path:
    """Check that ``filename`` names a format we can write *now*; return it as a Path.

    Raises
    ------
    AnimationWriterError
        For a suffix other than ``.gif`` / ``.mp4``, or ``.mp4`` without ffmpeg (the message
        names the missing program and suggests ``.gif``).
    """
    if not isinstance(filename, (str, os.PathLike)) or not str(filename):
        raise AnimationWriterError(f"{what} must be a path ending in .gif or .mp4, got "
                                   f"{plain(filename)}")
    path = Path(filename).expanduser()
    writer = ANIMATION_WRITERS.get(path.suffix.lower())
    if writer is None:
        raise AnimationWriterError(
            f"{what} {plain(str(filename))}: cannot write an animation with suffix "
            f"{path.suffix or '(none)'!r}; use .gif (Pillow, always available) or .mp4 "
            f"(needs ffmpeg)")
    from matplotlib import animation, rcParams

    if writer == "ffmpeg" and not animation.writers.is_available(writer):
        _use_bundled_ffmpeg(rcParams)
    if not animation.writers.is_available(writer):
        raise AnimationWriterError(
            f"{what} {plain(str(filename))}: writing .mp4 needs matplotlib's FFMpegWriter, but the "
            f"ffmpeg program was not found (rcParams['animation.ffmpeg_path'] = "
            f"{rcParams['animation.ffmpeg_path']!r}); install ffmpeg and put it on PATH (or "
            f"pip install imageio-ffmpeg, whose bundled ffmpeg is used when found), or save "
            f"the animation as .gif instead")
    return path


def _use_bundled_ffmpeg(rcParams: Any) -> None:
    """Point matplotlib at the ffmpeg binary of the ``imageio-ffmpeg`` package, when that
    package is installed and no ffmpeg is on PATH (a pip-installable ffmpeg)."""
    try:
        import imageio_ffmpeg
    except ImportError:
        return
    try:
        rcParams["animation.ffmpeg_path"] = imageio_ffmpeg.get_ffmpeg_exe()
    except RuntimeError:  # the package is there but has no binary for this platform
        return


def movie_writer(filename: str | os.PathLike[str], fps: float) -> Any:
    """The matplotlib movie writer for ``filename`` at ``fps`` frames per second."""
    path = check_animation_file(filename)
    from matplotlib import animation

    if ANIMATION_WRITERS[path.suffix.lower()] == "pillow":
        return animation.PillowWriter(fps=fps)
    return animation.FFMpegWriter(fps=fps)


@functools.cache
def _animation_class() -> type:
    """The FuncAnimation subclass (made on first use, so that matplotlib loads lazily)."""
    from matplotlib.animation import FuncAnimation

    class SampledAnimation(FuncAnimation):
        """A FuncAnimation whose frame ``k`` shows the recorded run at ``times[k]``.

        Attributes
        ----------
        figure : matplotlib.figure.Figure
            The figure it draws on.
        times : ndarray, shape (F,)
            Frame times [s].
        fps : float
            Playback frames per second.
        """

        def __init__(self, fig: Figure, draw: Callable[[int], Sequence[Artist]],
                     times: np.ndarray, fps: float):
            self.figure = fig
            self.times = np.asarray(times, dtype=float)
            self.fps = float(fps)
            self._draw_k = draw
            super().__init__(fig, draw, frames=len(self.times), interval=1000.0 / self.fps,
                             blit=False, repeat=True, cache_frame_data=False)
            # the figure already shows a frame: dropping the animation unplayed is fine, no
            # "Animation was deleted without rendering anything" warning
            self._draw_was_started = True

        def show_frame(self, k: int) -> Sequence[Artist]:
            """Set the figure's artists to frame ``k`` (at ``times[k]``); return them."""
            return self._draw_k(int(k))

        def write(self, filename: str | os.PathLike[str], dpi: float | None = None) -> Path:
            """Write every frame to ``filename`` (.gif or .mp4), rendering each frame once
            (``FuncAnimation.save`` renders twice); the figure is left at the last frame."""
            path = check_animation_file(filename)
            writer = movie_writer(path, self.fps)
            with writer.saving(self.figure, str(path), dpi if dpi is not None else DEFAULT_DPI):
                for k in range(len(self.times)):
                    self.show_frame(k)
                    writer.grab_frame()
            return path

    return SampledAnimation


def make_animation(fig: Figure, draw: Callable[[int], Sequence[Artist]], times: np.ndarray,
                   fps: float) -> FuncAnimation:
    """A :class:`~matplotlib.animation.FuncAnimation` of ``len(times)`` frames.

    ``draw(k)`` updates the figure's artists to frame ``k`` and returns them. The returned
    animation also has ``figure``, ``times`` (frame times [s]), ``fps``, ``show_frame(k)`` and
    ``write(filename, dpi=None)``.
    """
    return _animation_class()(fig, draw, times, check_fps(fps))


def save_animation(anim: FuncAnimation, filename: str | os.PathLike[str],
                   dpi: float | None = None, fps: float = DEFAULT_FPS) -> Path:
    """Write every frame of ``anim`` to ``filename`` (.gif or .mp4); return the path.

    An animation made by :func:`make_animation` renders each frame once at its own ``fps``;
    another FuncAnimation is saved with its ``save`` method at ``fps``.
    """
    write = getattr(anim, "write", None)
    if write is not None:
        return write(filename, dpi)
    path = check_animation_file(filename)
    anim.save(str(path), writer=movie_writer(path, check_fps(fps)),
              dpi=dpi if dpi is not None else DEFAULT_DPI)
    return path


def finish(fig: Figure, anim: FuncAnimation, filename: str | os.PathLike[str] | None,
           dpi: float | None, show: bool) -> FuncAnimation | Path:
    """Save ``anim`` when a filename is given (returning the path), show it if asked;
    otherwise return the animation itself."""
    out: FuncAnimation | Path = anim
    if filename is not None:
        out = save_animation(anim, filename, dpi=dpi)
    if show:
        from blocksim.viz.scope import show_figure

        fig.animation = anim  # keep the animation alive while the window is open
        show_figure(fig)
    return out
