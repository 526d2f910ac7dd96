"""The block contract: declared ports, per-port feedthrough, states and pure methods.

A block is a *description*. It holds parameters and declares

* its input and output ports (class-level tables of names, optionally with a fixed shape and a
  unit; blocks with a variable number of ports set them in the constructor with
  :meth:`Block.set_ports`);
* which inputs each output reads at the same instant (``feedthrough``);
* its states: ``x0`` (the initial state vector) and whether they are continuous (integrated,
  :meth:`Block.deriv`) or discrete (updated at the hits of ``clock``, :meth:`Block.update`);
* discontinuity times of time-driven sources (:meth:`Block.next_breakpoint`), so that no solver
  step straddles them.

Everything that changes during a run lives in the run, never on the block: the methods are pure
and take the argument order ``(t, x, u)``:

``output(t, x, u) -> tuple``
    one value per output port, in declared order;
``deriv(t, x, u) -> array``
    dx/dt, shape ``(nx,)``, continuous blocks only;
``update(t, x, u) -> array``
    the next discrete state, discrete blocks only, called at the hits of ``clock``.

Discrete blocks follow Simulink's semantics: at a hit t_k the block's ``output(t_k, x[k], u[k])``
is computed in evaluation order (feedthrough inside the hit is allowed) and *held* until the
next hit; then ``update(t_k, x[k], u[k])`` gives x[k+1]. A clocked block without state is a
sampler (e.g. zero-order hold). Before its first hit, a block's output is its value at t = 0.

State events: ``zero_crossings(t, x, u)`` returns values whose sign changes are located in
time (direction per ``crossing_directions``), then ``on_event(t, x, u, which)`` may return a new
state (a continuous reset, or the new mode of a block whose ``clock`` is ``EVENT``).

``t`` is the time [s], ``x`` the block's own slice of the state vector (a float64 array of
shape ``(nx,)``, empty for stateless blocks) and ``u`` a sequence with one value per input port
in declared order (a Python float for a scalar signal, otherwise a numpy array). Do not modify
``x`` or ``u`` in place.

Constructor keywords are checked: an unknown keyword raises :class:`BlockParameterError` naming
the block class and listing the valid keywords. The arguments a block was built with are kept in
:attr:`Block.params` so that diagrams can be saved and rebuilt.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from blocksim.engine.errors import BlockParameterError, plain, suggest

if TYPE_CHECKING:
    pass

Shape = tuple[int, ...]


def _as_clock(value: Any, owner: str) -> Any:
    """A block's ``clock`` as the engine reads it: a Clock, ``EVENT`` or None kept; a period
    [s] or a (period, offset) pair made a Clock; anything else refused."""
    from blocksim.engine.clock import EVENT, as_clock

    if value is None or value is EVENT:
        return value
    if isinstance(value, bool) or isinstance(value, str):
        raise BlockParameterError(f"{owner}: clock must be a Clock, a period in seconds or a "
                                  f"(period, offset) pair, got {plain(value)}")
    return as_clock(value, owner)


@dataclass(frozen=True)
class Port:
    """Declaration of one input or output port.

    Parameters
    ----------
    name : str
        Port name, unique among the block's inputs (or outputs); a Python identifier.
    shape : tuple of int or None
        Fixed shape of the signal, ``()`` for a scalar; ``None`` (default) means any shape,
        inferred when the diagram is compiled.
    unit : str
        Physical unit, for documentation and plots (e.g. ``"rad"``, ``"N.m"``).
    doc : str
        One-line description.
    """

    name: str
    shape: Shape | None = None
    unit: str = ""
    doc: str = ""


PortSpec = str | Port

#: most input ports, and most output ports, of one block (a ``Sum`` of 20 000 signs, a
#: ``Mux`` of a million inputs): checked before the port table is built; raise it in Python
#: (``blocksim.engine.block.MAX_PORTS = n``) for a block that really needs more
MAX_PORTS = 10_000


def check_port_count(n: int, owner: str, kind: str = "input") -> int:
    """``n`` if a block may have that many ``kind`` ports (at most :data:`MAX_PORTS`).

    Raises
    ------
    BlockParameterError
        Naming the block class, the count and the limit.
    """
    if n > MAX_PORTS:
        raise BlockParameterError(
            f"{owner + ': ' if owner else ''}{n} {kind} ports; a block may have at most "
            f"{MAX_PORTS} {kind} ports (blocksim.engine.block.MAX_PORTS, raise it in Python "
            f"for a block that needs more)")
    return n


def as_ports(specs: Sequence[PortSpec], owner: str, kind: str) -> tuple[Port, ...]:
    """Normalise a sequence of names or :class:`Port` objects into a tuple of ports (at most
    :data:`MAX_PORTS`, names unique)."""
    if hasattr(specs, "__len__"):
        check_port_count(len(specs), owner, kind)
    ports = tuple(s if isinstance(s, Port) else Port(str(s)) for s in specs)
    check_port_count(len(ports), owner, kind)
    seen: set[str] = set()
    dup = sorted({p.name for p in ports if p.name in seen or seen.add(p.name)})
    if dup:
        more = f" and {len(dup) - 10} more" if len(dup) > 10 else ""
        raise BlockParameterError(f"{owner}: duplicate {kind} port name(s) {dup[:10]}{more}")
    return ports


class PortRef:
    """A reference to one port of a block, made by ``block["name"]`` or ``block[i]``.

    Resolution (does the port exist, is it an input or an output) happens when the diagram is
    compiled, so that every bad reference is reported at once.
    """

    __slots__ = ("block", "key")

    def __init__(self, block: Block, key: str | int):
        self.block = block
        self.key = key

    def __repr__(self) -> str:
        return f"{self.block.name or type(self.block).__name__}[{plain(self.key)}]"


class Block:
    """Base class of every block. See the module docstring for the contract.

    Class attributes
    ----------------
    inputs, outputs : tuple of str or Port
        The port tables.
    feedthrough : None, bool or dict
        Which inputs each output reads at the same instant. ``None`` (default): every output
        reads every input when the block has no state, none otherwise. ``True``/``False``: all or
        none. A dict maps an output name to the tuple of input names it reads.
    state_names : tuple of str or None
        Names of the states (default ``x0, x1, ...``).
    """

    inputs: ClassVar[tuple[PortSpec, ...]] = ()
    outputs: ClassVar[tuple[PortSpec, ...]] = ()
    feedthrough: ClassVar[bool | dict[str, tuple[str, ...]] | None] = None
    state_names: tuple[str, ...] | None = None

    #: initial state, shape (nx,); continuous unless ``clock`` is set
    x0: np.ndarray = np.zeros(0)
    #: sample clock of a discrete block (a :class:`Clock`), ``EVENT`` for a block whose states
    #: are modes changed only by ``on_event``, None for continuous or inherited blocks
    clock: Any = None
    #: rate of a block without a clock: ``None`` (default: ``"continuous"`` for a block with
    #: continuous states or without inputs, i.e. a time-driven source, ``"inherited"``
    #: otherwise), ``"continuous"``, ``"inherited"`` (from its inputs at compile time) or
    #: ``"constant"`` (output never changes: evaluated once)
    sample_time: ClassVar[str | None] = None
    #: direction of each zero crossing returned by ``zero_crossings``: +1 rising (- to +),
    #: -1 falling, 0 either
    crossing_directions: tuple[int, ...] = ()
    #: when True, an event of this block ends the run (status ``"stopped"``)
    stops_simulation: ClassVar[bool] = False

    _param_names: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for kind in ("inputs", "outputs"):
            if kind in cls.__dict__:
                setattr(cls, kind, as_ports(cls.__dict__[kind], cls.__name__, kind[:-1]))
        init = cls.__dict__.get("__init__")
        if init is not None:
            cls.__init__ = _checked_init(cls, init)  # type: ignore[method-assign]
        if "clock" in cls.__dict__:  # ``clock = 0.01`` in a class body: a Clock, or refused
            cls.clock = _as_clock(cls.__dict__["clock"], cls.__name__)

    def __init__(self) -> None:
        pass

    def __setattr__(self, key: str, value: Any) -> None:
        if key == "clock":  # ``self.clock = 0.01``: a period is a Clock, never ignored
            value = _as_clock(value, type(self).__name__)
        super().__setattr__(key, value)

    # ------------------------------------------------------------------ description helpers
    @property
    def name(self) -> str | None:
        """The block's path in its diagram (set by :meth:`Diagram.add`), or None."""
        return self.__dict__.get("_name")

    @property
    def params(self) -> dict[str, Any]:
        """The constructor arguments this block was built with, by keyword."""
        return dict(self.__dict__.get("_params", {}))

    @property
    def nx(self) -> int:
        """Number of states."""
        return int(np.size(self.x0))

    @property
    def is_discrete(self) -> bool:
        """True when the block has a clock: its states are then updated, not integrated."""
        return self.clock is not None

    def set_ports(self, inputs: Sequence[PortSpec] | None = None,
                  outputs: Sequence[PortSpec] | None = None) -> None:
        """Set the port tables of this instance (for blocks whose port count is a parameter)."""
        owner = type(self).__name__
        if inputs is not None:
            self.inputs = as_ports(inputs, owner, "input")  # type: ignore[misc]
        if outputs is not None:
            self.outputs = as_ports(outputs, owner, "output")  # type: ignore[misc]

    def set_state(self, x0: Any, names: Sequence[str] | None = None) -> None:
        """Set the initial state ``x0`` (flattened to float64, shape (nx,)) and state names."""
        self.x0 = np.array(x0, dtype=float).reshape(-1)
        if names is not None:
            if len(names) != self.x0.size:
                raise BlockParameterError(
                    f"{type(self).__name__}: {len(names)} state names for {self.x0.size} states")
            self.state_names = tuple(names)

    def output_feedthrough(self) -> dict[str, tuple[str, ...]]:
        """Resolve ``feedthrough`` into ``{output name: (input names read directly)}``."""
        ins = tuple(p.name for p in self.inputs)  # type: ignore[union-attr]
        outs = [p.name for p in self.outputs]  # type: ignore[union-attr]
        ft = self.feedthrough
        if ft is None:
            ft = self.nx == 0
        if ft is True:
            return {o: ins for o in outs}
        if ft is False:
            return {o: () for o in outs}
        return {o: tuple(ft.get(o, ())) for o in outs}

    def __getitem__(self, key: str | int) -> PortRef:
        return PortRef(self, key)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        label = f" '{self.name}'" if self.name else ""
        return f"<{type(self).__name__}{label}({args})>"

    # ------------------------------------------------------------------ the contract
    def output(self, t: float, x: np.ndarray, u: Sequence[Any]) -> tuple[Any, ...]:
        """Return the outputs at time ``t``, one per output port."""
        return ()

    def deriv(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Any:
        """Return dx/dt, shape (nx,), for a continuous block."""
        raise NotImplementedError(f"{type(self).__name__} has continuous states but no deriv()")

    def update(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Any:
        """Return the next discrete state, shape (nx,), at a hit of ``clock``."""
        raise NotImplementedError(f"{type(self).__name__} has a clock but no update()")

    def zero_crossings(self, t: float, x: np.ndarray, u: Sequence[Any]) -> Sequence[float]:
        """Values g_i(t, x, u) whose sign changes are events, one per ``crossing_directions``.

        The run loop locates each crossing in time (to ``event_tol``) and calls
        :meth:`on_event` there.
        """
        return ()

    def on_event(self, t: float, x: np.ndarray, u: Sequence[Any], which: int) -> Any:
        """React to crossing number ``which`` at time ``t``: return the block's new state
        (continuous state reset, or new mode of an ``EVENT`` block), or None to keep it."""
        return None

    def next_breakpoint(self, t: float) -> float:
        """Return the first time > ``t`` [s] at which the output is discontinuous, or ``inf``.

        The run loop ends an integration segment there, so no solver step straddles the
        discontinuity. During the segment that ends at a breakpoint, the block sees times
        strictly before it (its left limit).
        """
        return math.inf

    def start(self, run: Any) -> None:
        """Acquire resources before the run (files, ports, sockets, figures)."""

    def stop(self, run: Any) -> None:
        """Release resources; called on every exit path of the run, with ``run.result`` set."""


def _checked_init(cls: type, init: Any) -> Any:
    """Wrap ``init`` so that unknown keywords raise and the call's arguments are recorded."""
    sig = inspect.signature(init)
    params = list(sig.parameters.values())[1:]
    var_kw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
    names = tuple(p.name for p in params if p.kind in (
        inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY))
    cls._param_names = names  # type: ignore[attr-defined]
    # a call with keywords only (every rebuild: sweeps, overrides, files) records its arguments
    # without inspect's bind: the defaults, updated, once every parameter without one is given
    simple = not var_kw and all(p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                           inspect.Parameter.KEYWORD_ONLY) for p in params)
    defaults = {p.name: p.default for p in params}
    required = frozenset(k for k, v in defaults.items() if v is inspect.Parameter.empty)

    @functools.wraps(init)
    def checked(self: Block, *args: Any, **kwargs: Any) -> None:
        if not var_kw:
            unknown = [k for k in kwargs if k not in names]
            if unknown:
                bad = unknown[0]
                valid = ", ".join(names) if names else "(none)"
                raise BlockParameterError(
                    f"{cls.__name__}: unknown parameter '{bad}'{suggest(bad, names)}; "
                    f"valid parameters: {valid}")
        if type(self) is cls and simple and not args and required.issubset(kwargs):
            self.__dict__["_params"] = {**defaults, **kwargs}
        elif type(self) is cls:
            try:
                bound = sig.bind(self, *args, **kwargs)
            except TypeError as exc:
                raise BlockParameterError(f"{cls.__name__}: {exc}") from None
            bound.apply_defaults()
            arguments = dict(bound.arguments)
            arguments.pop(next(iter(sig.parameters)))
            self.__dict__["_params"] = arguments
        init(self, *args, **kwargs)

    return checked
