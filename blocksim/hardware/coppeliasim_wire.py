"""CoppeliaSim's ZMQ remote-API wire: bounded CBOR decoding and a client that runs no callbacks.

Both ends of the link decode what the other end sent as untrusted input:

* :func:`decode` checks a CBOR message's structure before :func:`cbor2.loads` sees it
  (:func:`check`): nesting depth, item count, every declared length against the bytes actually
  left (a header that claims 2**62 bytes allocates nothing), map keys (text, bytes or integers
  whose hashes cannot collide) and tags (only the typed and multi-dimensional arrays of RFC 8746,
  which decode as inert :class:`cbor2.CBORTag` values: no shared references, which build cycles,
  no big decimals or fractions, which explode when converted, no regular expressions).
* :class:`Client` speaks the remote API's protocol (version 2) on its own ZMQ ``REQ`` socket.
  The ``coppeliasim-zmqremoteapi-client`` package's ``RemoteAPIClient`` answers a reply of the
  form ``{"func": name, "args": [...]}`` by calling ``name`` from the ``__main__`` module, so a
  server could run any function of the user's program (blocksim's own CLI ``main`` among
  them); it also writes ``require`` into ``__main__``. :class:`Client` runs nothing a server
  asks for: such a reply closes the connection with a :class:`ProtocolError`. The protocol's
  ``_*wait*_`` and ``_*repeat*_`` replies are followed, within the call's one deadline: the
  whole call, every retry included, takes at most ``timeout`` seconds.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

__all__ = [
    "CALLBACK",
    "Client",
    "ProtocolError",
    "ServerError",
    "WireError",
    "WireTimeout",
    "check",
    "decode",
    "printable",
]

#: tags accepted in a message: RFC 8746 multi-dimensional (40, 1040) and typed arrays (64..87)
TAGS = frozenset((40, 1040, *range(64, 88)))
_KEY_INT = 2**61 - 2  # integers below this hash to themselves: no crafted collisions
_ARG = {24: 1, 25: 2, 26: 4, 27: 8}
#: the protocol's replies that are not a callback
_WAIT, _REPEAT, _EXECUTED = "_*wait*_", "_*repeat*_", "_*executed*_"
#: what a reply asking this process to run a function looks like (for messages and tests)
CALLBACK = "server-initiated call"


class WireError(ValueError):
    """A message that is not acceptable CBOR (malformed, too deep, too many items, ...)."""


class ServerError(Exception):
    """The server refused a call (its error message); the connection stays usable."""


class ProtocolError(Exception):
    """The server broke the protocol (a callback request, a malformed or oversized reply); the
    connection has been closed."""


class WireTimeout(Exception):
    """No final reply before the call's deadline; the connection has been closed."""


def printable(text: Any, limit: int = 300) -> str:
    """``text`` on one line, control characters (newlines, terminal escapes) as spaces, at most
    ``limit`` characters: a peer's words are quoted, never replayed to the terminal."""
    s = text if isinstance(text, str) else repr(text)
    s = "".join(c if c.isprintable() else " " for c in s[: limit + 1])
    return s if len(s) <= limit else s[: limit - 3] + "..."


def check(data: bytes, max_depth: int = 32, max_items: int = 1_000_000) -> None:
    """Check that ``data`` is one well-formed CBOR item within the limits, in one pass and
    without decoding anything.

    Parameters
    ----------
    data : bytes
        The message.
    max_depth : int
        Deepest nesting of arrays, maps and tags.
    max_items : int
        Most data items in all (each array element, map key and value counts one).

    Raises
    ------
    WireError
        What is wrong, and where (a byte offset).
    """
    n, pos, items = len(data), 0, 0
    # open containers: [left, kind, major]; left counts items still due (-1: indefinite,
    # then ``major`` counts the items seen, for a map's key/value parity)
    stack: list[list[int]] = []
    while True:
        if pos >= n:
            raise WireError(f"the message ends inside an item (byte {pos})")
        start, ib = pos, data[pos]
        pos += 1
        major, info = ib >> 5, ib & 31
        if ib == 0xFF:  # break: ends the innermost indefinite container
            if not stack or stack[-1][0] != -1:
                raise WireError(f"a break code outside an indefinite item (byte {start})")
            left, kind, seen = stack.pop()
            if kind == 5 and seen % 2:
                raise WireError(f"a map ends between a key and its value (byte {start})")
        else:
            items += 1
            if items > max_items:
                raise WireError(f"more than {max_items} items")
            if info < 24:
                val = info
            elif info in _ARG:
                k = _ARG[info]
                if pos + k > n:
                    raise WireError(f"the message ends inside an item's header (byte {pos})")
                val = int.from_bytes(data[pos : pos + k], "big")
                pos += k
            elif info == 31 and major in (2, 3, 4, 5):
                val = -1
            else:
                raise WireError(f"a malformed item header 0x{ib:02x} (byte {start})")
            if stack:
                left, kind, seen = stack[-1]
                if kind in (2, 3) and (major != kind or val < 0):
                    raise WireError(f"a bad chunk in an indefinite string (byte {start})")
                if kind == 5 and (seen if left < 0 else left) % 2 == 0:  # a key's place
                    if major > 3 or (major < 2 and val > _KEY_INT):
                        raise WireError(
                            f"a map key that is not text, bytes or a small integer (byte {start})"
                        )
            if major in (2, 3) and val >= 0:
                if val > n - pos:
                    raise WireError(
                        f"a string declares {val} bytes where {n - pos} remain (byte {start})"
                    )
                pos += val
            elif major in (2, 3, 4, 5) or major == 6:
                if major == 6 and val not in TAGS:
                    raise WireError(f"CBOR tag {val} is not accepted (byte {start})")
                count = 1 if major == 6 else val * 2 if major == 5 else val
                if count > n - pos:
                    raise WireError(
                        f"a container declares {val} items where {n - pos} bytes remain "
                        f"(byte {start})"
                    )
                if count:
                    if len(stack) >= max_depth:
                        raise WireError(f"nesting deeper than {max_depth}")
                    stack.append([count, major, 0] if val >= 0 else [-1, major, 0])
                    continue
        # one item done: count it in the containers it completes
        while stack:
            top = stack[-1]
            if top[0] < 0:
                top[2] += 1
                break
            top[0] -= 1
            if top[0]:
                break
            stack.pop()
        if not stack:
            if pos != n:
                raise WireError(f"{n - pos} bytes after the message's item")
            return


def decode(data: bytes, max_depth: int = 32, max_items: int = 1_000_000) -> Any:
    """``data`` decoded, after :func:`check` (bounded: see the module docstring).

    Raises
    ------
    WireError
        Malformed, over a limit, or undecodable (invalid UTF-8, a bad float, ...).
    """
    import cbor2

    check(data, max_depth, max_items)
    try:
        return cbor2.loads(data, max_depth=max_depth + 1)
    except Exception as exc:  # cbor2 raises CBORDecodeError, ValueError, OverflowError, ...
        raise WireError(printable(f"{type(exc).__name__}: {exc}", 200)) from None


class Client:
    """A CoppeliaSim ZMQ remote-API client (protocol version 2) that runs no callbacks.

    Parameters
    ----------
    host, port : str, int
        The server.
    timeout : float
        The longest a call may take in all [s], ``_*wait*_`` and ``_*repeat*_`` rounds included.
    max_bytes : int
        The largest reply accepted (ZMQ drops a longer one, and the call times out).
    """

    #: the protocol version sent with the first request (the package's client's)
    VERSION = 2

    def __init__(
        self, host: str, port: int, timeout: float, max_bytes: int = 64 * 2**20
    ) -> None:
        import zmq

        self._zmq = zmq
        self.timeout = float(timeout)
        self.uuid = str(uuid.uuid4())
        self.sent = 0
        self.context = zmq.Context()
        self.socket = self.context.socket(zmq.REQ)
        self.endpoint = f"tcp://{host}:{int(port)}"
        try:
            self.socket.setsockopt(zmq.LINGER, 0)
            self.socket.setsockopt(zmq.MAXMSGSIZE, int(max_bytes))
            self.socket.connect(self.endpoint)
        except Exception:
            self.close()
            raise

    def close(self) -> None:
        """Close the socket and its context (idempotent)."""
        if not self.socket.closed:
            self.socket.close(0)
        if not self.context.closed:
            self.context.term()

    def _send(self, func: str, args: list[Any], deadline: float) -> None:
        import cbor2

        req: dict[str, Any] = {"func": func, "args": args}
        req["argsL"] = len(args)
        req["uuid"] = self.uuid
        if self.sent == 0:
            req.update(ver=self.VERSION, lang="python", timeout=600)
        try:
            raw = cbor2.dumps(req)
        except Exception as exc:
            raise ServerError(f"cannot encode the arguments: {printable(exc, 200)}") from None
        zmq = self._zmq
        if not self.socket.poll(max(0, int((deadline - time.monotonic()) * 1000)), zmq.POLLOUT):
            raise WireTimeout("cannot send")
        self.socket.send(raw, zmq.NOBLOCK)
        self.sent += 1

    def _recv(self, deadline: float) -> Any:
        zmq = self._zmq
        if not self.socket.poll(max(0, int((deadline - time.monotonic()) * 1000) + 1)):
            raise WireTimeout("no reply")
        frames = self.socket.recv_multipart(zmq.NOBLOCK, copy=True)
        if len(frames) != 1:
            raise ProtocolError(f"a reply in {len(frames)} parts (one is expected)")
        try:
            return decode(frames[0])
        except WireError as exc:
            raise ProtocolError(f"an undecodable reply ({exc})") from None

    def call(self, func: str, args: list[Any]) -> Any:
        """Call ``func`` with ``args``; its return value (None, the one value, or a tuple).

        Raises
        ------
        ServerError
            The server refused the call.
        ProtocolError, WireTimeout
            The server broke the protocol, or the deadline passed; the socket is closed.
        """
        if self.socket.closed:
            raise ProtocolError("the connection is closed")
        deadline = time.monotonic() + self.timeout
        waits = 0
        try:
            self._send(func, args, deadline)
            reply = self._recv(deadline)
            while isinstance(reply, dict) and "func" in reply:
                kind = reply["func"]
                if kind == _WAIT:
                    waits += 1
                    self._send(_EXECUTED, [], deadline)
                elif kind == _REPEAT:
                    waits += 1
                    self._send(func, args, deadline)
                else:
                    raise ProtocolError(
                        f"the server asked this process to run {printable(kind, 80)!r} "
                        f"({CALLBACK}); blocksim runs nothing a server asks for"
                    )
                reply = self._recv(deadline)
        except WireTimeout as exc:
            self.close()
            more = f" after {waits} wait rounds ('_*wait*_')" if waits else ""
            raise WireTimeout(f"{exc}{more}") from None
        except ProtocolError:
            self.close()
            raise
        except self._zmq.ZMQError as exc:
            self.close()
            raise ProtocolError(f"{type(exc).__name__}: {printable(exc, 200)}") from None
        return self._result(reply)

    def _result(self, reply: Any) -> Any:
        if not isinstance(reply, dict):
            self.close()
            raise ProtocolError(f"a reply that is not a map ({type(reply).__name__})")
        err = reply.get("err", reply.get("error"))
        if err is not None or reply.get("success") is False:
            raise ServerError(printable(err if err is not None else "the call failed", 500))
        ret = reply.get("ret", [])
        if not isinstance(ret, list):
            self.close()
            raise ProtocolError(f"a reply whose 'ret' is not an array ({type(ret).__name__})")
        return None if not ret else ret[0] if len(ret) == 1 else tuple(ret)
