"""A CoppeliaSim server is not trusted: it cannot make this process run anything, cannot keep a
call waiting past its timeout, and a malformed reply closes the connection with one line.

Each server here is a real ZMQ ``REP`` socket in a thread, answering by a script."""

import struct
import sys
import threading
import time

import cbor2
import pytest
import zmq

from blocksim.hardware import DeviceTimeout, HardwareError
from blocksim.hardware.coppeliasim import CoppeliaSim
from blocksim.hardware.coppeliasim_wire import Client, WireError, check, decode

OK = cbor2.dumps({"success": True, "ret": []})


class ScriptedServer:
    """A REP socket answering each request with ``script(n, request)`` (bytes, or a list of
    frames); it records the requests."""

    def __init__(self, script):
        self.script = script
        self.requests = []
        self.disconnects = 0
        self.ctx = zmq.Context()
        self.sock = self.ctx.socket(zmq.REP)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.port = self.sock.bind_to_random_port("tcp://127.0.0.1")
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self):
        from zmq.utils.monitor import recv_monitor_message

        monitor = self.sock.get_monitor_socket(zmq.EVENT_DISCONNECTED)
        poller = zmq.Poller()
        poller.register(self.sock, zmq.POLLIN)
        poller.register(monitor, zmq.POLLIN)
        try:
            while not self.stop.is_set():
                ready = dict(poller.poll(20))
                if monitor in ready:
                    recv_monitor_message(monitor)
                    self.disconnects += 1
                if self.sock not in ready:
                    continue
                req = cbor2.loads(self.sock.recv())
                self.requests.append(req)
                out = self.script(len(self.requests) - 1, req)
                if isinstance(out, list):
                    self.sock.send_multipart(out)
                else:
                    self.sock.send(out)
        finally:
            self.sock.disable_monitor()
            monitor.close(0)
            self.sock.close(0)
            self.ctx.term()

    def wait_disconnects(self, n, timeout=2.0):
        deadline = time.monotonic() + timeout
        while self.disconnects < n and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.disconnects >= n

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(5)


def after_handshake(reply):
    """A script: the handshake (``zmqRemoteApi.require``) answered, then ``reply(n, req)``."""
    return lambda n, req: OK if n == 0 else reply(n, req)


@pytest.fixture
def canary():
    """A function in ``__main__`` that records its calls (what a server would name)."""
    main = sys.modules["__main__"].__dict__
    calls = []
    main["blocksim_canary"] = lambda *a: calls.append(a)
    before = main.get("require", None)
    yield calls
    del main["blocksim_canary"]
    assert main.get("require", None) is before  # the client wrote nothing into __main__


def one_line(exc):
    text = str(exc)
    assert "\n" not in text and "\x1b" not in text, text
    return text


@pytest.mark.parametrize("name", ["blocksim_canary", "main", "print"])
def test_a_server_initiated_call_is_refused_and_the_connection_closed(canary, name):
    reply = after_handshake(  # once: a client that ran it would then get an answer
        lambda n, req: cbor2.dumps({"func": name, "args": ["/tmp/pwned", 1]}) if n == 1 else OK
    )
    with ScriptedServer(reply) as srv:
        v = CoppeliaSim(port=srv.port, timeout=1.0)
        with pytest.raises(HardwareError) as info:
            v.simtime()
        assert not v.connected
    assert canary == []
    text = one_line(info.value)
    assert f"the server asked this process to run '{name}'" in text
    assert "connection closed" in text
    assert len(srv.requests) == 2  # nothing was sent back as the callback's result


def test_a_callback_during_the_handshake_is_refused(canary):
    def reply(n, req):
        return cbor2.dumps({"func": "blocksim_canary", "args": []}) if n == 0 else OK

    with ScriptedServer(reply) as srv, pytest.raises(HardwareError, match="asked this process"):
        CoppeliaSim(port=srv.port, timeout=1.0)
    assert canary == []


@pytest.mark.parametrize("kind", ["_*wait*_", "_*repeat*_"])
def test_a_server_that_keeps_a_call_waiting_is_cut_at_the_timeout(kind):
    """The timeout bounds the whole call: every wait round included (a server that answered
    each round at once used to hold the caller forever, at 100 % CPU)."""
    started = []

    def reply(n, req):
        started.append(time.monotonic())
        if time.monotonic() - started[0] > 3.0:  # a bound for the test on a broken client
            return cbor2.dumps({"success": True, "ret": [42.0]})
        return cbor2.dumps({"func": kind, "args": []})

    with ScriptedServer(after_handshake(reply)) as srv:
        v = CoppeliaSim(port=srv.port, timeout=0.3)
        t0 = time.perf_counter()
        cpu0 = time.process_time()
        with pytest.raises(DeviceTimeout) as info:
            v.simtime()
        wall = time.perf_counter() - t0
        assert not v.connected
    assert 0.25 < wall < 1.0
    assert time.process_time() - cpu0 < 2.0
    text = one_line(info.value)
    assert "no reply within 0.3 s" in text and "wait rounds" in text
    assert "connection closed" in text
    follow = "_*executed*_" if kind == "_*wait*_" else "sim.getSimulationTime"
    assert {r["func"] for r in srv.requests[2:]} == {follow}


def test_slow_wait_rounds_are_bounded_in_total_not_per_round():
    def reply(n, req):
        time.sleep(0.1)  # each round well within the timeout
        return cbor2.dumps({"func": "_*wait*_", "args": []}) if n < 30 else OK

    with ScriptedServer(after_handshake(reply)) as srv:
        v = CoppeliaSim(port=srv.port, timeout=0.5)
        t0 = time.perf_counter()
        with pytest.raises(DeviceTimeout, match=r"no reply within 0\.5 s"):
            v.simtime()
        assert time.perf_counter() - t0 < 1.0


def test_wait_rounds_within_the_timeout_are_followed():
    def reply(n, req):
        if n < 4:
            return cbor2.dumps({"func": "_*wait*_", "args": []})
        return cbor2.dumps({"success": True, "ret": [1.5]})

    with ScriptedServer(after_handshake(reply)) as srv:
        with CoppeliaSim(port=srv.port, timeout=1.0) as v:
            assert v.simtime() == 1.5
    assert [r["func"] for r in srv.requests[1:]] == ["sim.getSimulationTime"] + [
        "_*executed*_"
    ] * 3
    assert srv.requests[0]["ver"] == 2 and "ver" not in srv.requests[1]


BAD_REPLIES = {
    "deep": b"\x81" * 5000 + b"\x00",
    "huge declared length": b"\xa1\x63ret\x5b" + struct.pack(">Q", 2**62) + b"ab",
    "huge declared array": b"\xa1\x63ret\x9b" + struct.pack(">Q", 2**40) + b"\x00",
    "invalid utf-8": b"\xa1\x63ret\x81\x62\xff\xfe",
    "a cycle": cbor2.dumps({"ret": 0})[:-1] + bytes.fromhex("d81c81d81d00"),
    "a huge decimal": b"\xa1\x63ret\x81" + bytes.fromhex("c4") + cbor2.dumps([10**9, 1]),
    "not a map": cbor2.dumps([1, 2, 3]),
    "ret not an array": cbor2.dumps({"success": True, "ret": 5}),
    "trailing bytes": OK + b"\x00",
    "truncated": OK[:-1],
    "two parts": [OK, OK],
}


@pytest.mark.parametrize("kind", sorted(BAD_REPLIES))
def test_a_malformed_reply_closes_the_connection_with_one_line(kind):
    bad = BAD_REPLIES[kind]
    with ScriptedServer(after_handshake(lambda n, req: bad)) as srv:
        v = CoppeliaSim(port=srv.port, timeout=1.0)
        t0 = time.perf_counter()
        with pytest.raises(HardwareError) as info:
            v.simtime()
        assert time.perf_counter() - t0 < 1.0
        assert not v.connected
    text = one_line(info.value)
    assert "connection closed" in text and "called sim.getSimulationTime()" in text


def test_a_server_error_is_one_printable_line_and_the_connection_stays():
    msg = "line one\nline two \x1b[31mred\x1b[0m" + "x" * 5000
    reply = after_handshake(
        lambda n, req: cbor2.dumps({"success": False, "err": msg}) if n == 1 else OK
    )
    with ScriptedServer(reply) as srv, CoppeliaSim(port=srv.port, timeout=1.0) as v:
        with pytest.raises(HardwareError) as info:
            v.simtime()
        text = one_line(info.value)
        assert "sim.getSimulationTime failed: line one line two  [31mred" in text
        assert len(text) < 700
        assert v.connected
        v.simstart()


def test_an_oversized_reply_is_dropped_and_the_call_times_out():
    big = cbor2.dumps({"success": True, "ret": [b"\x00" * 2**20]})
    with ScriptedServer(after_handshake(lambda n, req: big)) as srv:
        v = CoppeliaSim(port=srv.port, timeout=0.3)
        v.client.close()  # a client that accepts at most 1 kB replies, on the same server
        v.client = Client("127.0.0.1", srv.port, 0.3, max_bytes=1024)
        with pytest.raises(DeviceTimeout):
            v.simtime()
        assert not v.connected


def test_the_checker_accepts_what_cbor2_writes_and_refuses_the_rest():
    good = [
        {"func": "sim.getObject", "args": ["/a", {"x": [1, 2.5, None, True, b"\x00"]}]},
        [],
        {},
        -(2**64),
        "é",
        {1: 2, -3: [4]},
        cbor2.CBORTag(64, b"ab"),
    ]
    for g in good:
        assert decode(cbor2.dumps(g)) == g
    assert decode(bytes.fromhex("9f01029fffff")) == [1, 2, []]  # indefinite lengths
    assert decode(bytes.fromhex("bf616101ff")) == {"a": 1}
    assert decode(bytes.fromhex("7f61616162ff")) == "ab"
    bad = {
        b"": "ends inside an item",
        b"\xff": "break code",
        b"\x1c": "malformed item header",
        b"\xa1\x80\x00": "map key",
        b"\xa1\x1b" + struct.pack(">Q", 2**62) + b"\x00": "map key",
        bytes.fromhex("bf01ff"): "between a key and its value",
        bytes.fromhex("7f01ff"): "bad chunk",
        b"\x19\x01": "item's header",
        bytes.fromhex("d81c81d81d00"): "tag 28",
        cbor2.dumps([0] * 2000): "more than 1000 items",
    }
    for data, why in bad.items():
        with pytest.raises(WireError, match=why):
            check(data, max_items=1000)


def test_a_handshake_the_server_refuses_closes_the_socket():
    reply = lambda n, req: cbor2.dumps({"success": False, "err": "no"})  # noqa: E731
    with ScriptedServer(reply) as srv:
        with pytest.raises(HardwareError, match=r"zmqRemoteApi\.require failed: no") as info:
            CoppeliaSim(port=srv.port, timeout=1.0)
        # closed at once, not when the garbage collector takes the object (the traceback
        # still holds it here)
        assert srv.wait_disconnects(1)
        del info


def by_function(answers):
    """A script answering each function by ``answers[func](args)`` (the handshake: OK)."""

    def script(n, req):
        fn = answers.get(req["func"])
        ret = None if fn is None else fn(req["args"])
        if isinstance(ret, Exception):
            return cbor2.dumps({"success": False, "err": str(ret)})
        return OK if fn is None else cbor2.dumps({"success": True, "ret": [ret]})

    return script


def test_loops_over_server_answers_are_bounded():
    """A server that names joint after joint, or child after child, used to be asked forever."""
    from blocksim.hardware.coppeliasim import MAX_CHILDREN
    from blocksim.hardware.coppeliasim_mirrors import MAX_JOINTS

    def joint(args):  # joints 1..500 (a test bound for a client that asks forever)
        name = args[0]
        k = int(name.rsplit("joint", 1)[-1]) if "joint" in name else 0
        return 7 if k <= 500 else KeyError("object does not exist")

    answers = {
        "sim.getObject": joint,
        "sim.getObjectChild": lambda args: args[1] + 100 if args[1] < 2 * MAX_CHILDREN else -1,
    }
    with ScriptedServer(by_function(answers)) as srv, CoppeliaSim(port=srv.port) as v:
        with pytest.raises(HardwareError, match=f"more than {MAX_JOINTS} joints"):
            v.arm("IRB140")
        with pytest.raises(HardwareError, match=f"has more than {MAX_CHILDREN} children"):
            v.getchildren(7)
        assert v.arm("IRB140", n=3).n == 3


@pytest.mark.parametrize(
    "reply",
    [[2**62, [1, 1]], [b"\x00" * 3, [2**40, 2**40]], [b"\x00" * 12, "ab"], 5, [b"", [-1, 1]]],
)
def test_an_image_reply_that_is_not_one_is_refused_without_allocating(reply):
    answers = {"sim.getObject": lambda args: 7, "sim.getVisionSensorImg": lambda args: reply}
    with ScriptedServer(by_function(answers)) as srv, CoppeliaSim(port=srv.port) as v:
        cam = v.camera("Vision_sensor")
        with pytest.raises(HardwareError, match="the reply is not an image") as info:
            cam.grab()
        one_line(info.value)


def test_a_scan_signal_that_is_a_number_is_refused_without_allocating():
    answers = {"sim.getObject": lambda args: 7, "sim.getStringSignal": lambda args: 2**62}
    with ScriptedServer(by_function(answers)) as srv, CoppeliaSim(port=srv.port) as v:
        with pytest.raises(HardwareError, match="holds a int, not bytes"):
            v.hokuyo().points()


def test_a_handshake_kept_waiting_says_so():
    reply = lambda n, req: cbor2.dumps({"func": "_*wait*_", "args": []})  # noqa: E731
    with ScriptedServer(reply) as srv:
        why = r"no reply within 0\.3 s \(no reply after \d+ wait rounds"
        with pytest.raises(DeviceTimeout, match=why):
            CoppeliaSim(port=srv.port, timeout=0.3)
        assert srv.wait_disconnects(1)
