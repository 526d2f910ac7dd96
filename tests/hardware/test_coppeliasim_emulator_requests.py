"""The emulated CoppeliaSim answers every malformed request with an error reply and keeps
serving (one bad request used to end its server thread); its arguments are checked."""

import math
import struct
import time

import cbor2
import pytest
import zmq

from blocksim.hardware.coppeliasim import CoppeliaSim
from blocksim.hardware.coppeliasim_emulator import MAX_BYTES, MAX_CATCH_UP, CoppeliaSimEmulator

GOOD = cbor2.dumps({"func": "sim.getSimulationTime", "args": []})

MALFORMED = {
    "not a map": cbor2.dumps([1, 2]),
    "an integer": cbor2.dumps(7),
    "func not text": cbor2.dumps({"func": 5, "args": []}),
    "func a map": cbor2.dumps({"func": {"a": 1}, "args": []}),
    "args not an array": cbor2.dumps({"func": "sim.step", "args": "abc"}),
    "no func": cbor2.dumps({"args": []}),
    "invalid utf-8": b"\xa2\x64func\x62\xff\xfe\x64args\x80",
    "deep nesting": b"\xa2\x64func\x68sim.step\x64args" + b"\x81" * 100_000 + b"\x00",
    "huge declared bytes": b"\x5b" + struct.pack(">Q", 2**62) + b"ab",
    "huge declared text": b"\xa1\x64func\x7b" + struct.pack(">Q", 2**40) + b"ab",
    "huge declared array": b"\xa1\x64args\x9b" + struct.pack(">Q", 2**40) + b"\x00",
    "huge declared map": b"\xbb" + struct.pack(">Q", 2**40) + b"\x00",
    "truncated": GOOD[:-3],
    "trailing bytes": GOOD + b"\x00",
    "empty": b"",
    "a lone break": b"\xff",
    "reserved header": b"\x1c",
    "a shared-reference cycle": bytes.fromhex("a2646675") + b"",  # replaced below
    "a huge decimal": b"\xa2\x64func\x78\x12sim.setInt32Signal\x64args\x82\x61s"
    + bytes.fromhex("c4")
    + cbor2.dumps([-(10**9), 1]),
    "a bignum": b"\xa2\x64func\x78\x12sim.setInt32Signal\x64args\x82\x61s\xc2\x5a"
    + struct.pack(">I", 100_000)
    + b"\x01" * 100_000,
    "a list as a map key": b"\xa1\x80\x00",
}
# {"func": "sim.setStringSignal", "args": ["s", <a list that contains itself>]}
MALFORMED["a shared-reference cycle"] = (
    cbor2.dumps({"func": "sim.setStringSignal", "args": ["s", 0]})[:-1]
    + bytes.fromhex("d81c81d81d00")
)


def exchange(sock, frames):
    sock.send_multipart(frames) if isinstance(frames, list) else sock.send(frames)
    assert sock.poll(2000), "the emulator did not answer"
    return cbor2.loads(sock.recv())


@pytest.fixture
def emu():
    with CoppeliaSimEmulator(dt=0.01) as e:
        yield e


@pytest.fixture
def req(emu):
    ctx = zmq.Context()
    sock = ctx.socket(zmq.REQ)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(emu.address)
    yield sock
    sock.close(0)
    ctx.term()


@pytest.mark.parametrize("kind", sorted(MALFORMED))
def test_a_malformed_request_gets_an_error_reply_and_the_next_is_served(emu, req, kind):
    reply = exchange(req, MALFORMED[kind])
    assert reply["success"] is False
    assert reply["err"].startswith("malformed request") or "(in function" in reply["err"]
    assert "\n" not in reply["err"] and len(reply["err"]) < 700
    assert exchange(req, GOOD) == {"success": True, "ret": [0.0]}
    assert emu.running


def test_a_request_in_several_parts_gets_an_error_reply(emu, req):
    reply = exchange(req, [GOOD, GOOD])
    assert reply["err"] == "malformed request: 2 message parts (one CBOR map expected)"
    assert exchange(req, GOOD)["success"] is True


def test_every_malformed_kind_in_a_row_then_the_driver_still_works(emu, req):
    for raw in MALFORMED.values():
        assert exchange(req, raw)["success"] is False
    with CoppeliaSim(port=emu.port, timeout=1.0) as v:
        assert v.getversion() == 40700
    assert emu.requests[-1] == ("sim.getInt32Param", (0,))


def test_an_oversized_request_drops_that_client_and_the_server_goes_on(emu, req):
    req.send(b"\x5a" + struct.pack(">I", MAX_BYTES) + b"\x00" * MAX_BYTES)
    assert not req.poll(300)  # ZMQ drops the connection: no reply to that client
    with CoppeliaSim(port=emu.port, timeout=1.0) as v:
        assert v.simtime() == 0.0


def test_a_stored_typed_array_goes_back_as_it_came(emu, req):
    # a signal value kept as decoded (undefined, a typed array) goes back as it came
    raw = cbor2.dumps({"func": "sim.setStringSignal", "args": ["s", cbor2.CBORTag(64, b"ab")]})
    assert exchange(req, raw)["success"] is True
    got = exchange(req, cbor2.dumps({"func": "sim.getStringSignal", "args": ["s"]}))
    assert got == {"success": True, "ret": [cbor2.CBORTag(64, b"ab")]}


@pytest.mark.parametrize(
    "kw, why",
    [
        ({"port": 70000}, "port must be an int 0..65535"),
        ({"port": -1}, "port must be an int 0..65535"),
        ({"port": 1.5}, "port must be an int 0..65535"),
        ({"njoints": -1}, "njoints must be an int 1..64"),
        ({"njoints": 0}, "njoints must be an int 1..64"),
        ({"njoints": 10_000_000}, "njoints must be an int 1..64"),
        ({"njoints": True}, "njoints must be an int 1..64"),
        ({"dt": 0.0}, r"dt must be a number of seconds in \[1e-06, 3600\]"),
        ({"dt": math.nan}, "dt must be"),
        ({"dt": math.inf}, "dt must be"),
        ({"dt": -0.01}, "dt must be"),
        ({"dt": 5e-324}, "dt must be"),
        ({"dt": "0.1"}, "dt must be"),
        ({"arm": "../x"}, "arm must be a name"),
        ({"arm": ""}, "arm must be a name"),
        ({"arm": "a" * 65}, "arm must be a name"),
    ],
)
def test_the_emulator_refuses_arguments_out_of_range(kw, why):
    with pytest.raises(ValueError, match=f"CoppeliaSimEmulator: {why}"):
        CoppeliaSimEmulator(**kw)


def test_the_time_step_set_by_a_client_is_bounded(emu):
    with CoppeliaSim(port=emu.port, timeout=1.0) as v:
        for bad in (0.0, -1.0, math.inf, math.nan, 1e-300):
            with pytest.raises(Exception, match="the time step can only be set"):
                v.settimestep(bad)
        v.settimestep(0.02)
        assert v.gettimestep() == 0.02


def test_a_free_running_simulation_catches_up_a_bounded_number_of_steps():
    """At dt = 1 us a second of silence was a million steps for the next request."""
    with CoppeliaSimEmulator(dt=1e-6) as emu, CoppeliaSim(port=emu.port, timeout=2.0) as v:
        v.setstepping(False)
        v.simstart()
        time.sleep(0.5)
        t0 = time.perf_counter()
        assert 0 < v.simtime() <= MAX_CATCH_UP * 1e-6 * 1.001
        assert time.perf_counter() - t0 < 1.0
