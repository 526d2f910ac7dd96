"""A recorded serial session replays offline to the same values; divergence is named."""

import numpy as np
import pytest

from blocksim.hardware import Arbotix, ReplayError, SessionLog
from blocksim.hardware.arbotix import SerialTransport
from blocksim.hardware.recording import RecordingTransport, ReplayTransport, from_json, to_json


def _session(arb):
    arb.setpos([0.1, 0.2, 0.3, 0.4, 0.5], speed=200)
    out = [arb.getpos() for _ in range(5)]
    out.append(arb.gettemp())
    return out


def test_record_then_replay_gives_identical_values(emulator, tmp_path):
    log = SessionLog(emulator.path, "serial")
    arb = Arbotix(
        nservos=5, timeout=0.05, transport=RecordingTransport(SerialTransport(emulator.path), log)
    )
    live = _session(arb)
    arb.disconnect()
    assert live[-2][0] != 0.0  # the servos moved
    path = log.save(tmp_path / "session.json")
    back = SessionLog.load(path, kind="serial")
    assert back.entries == log.entries
    replay = Arbotix(nservos=5, timeout=0.05, transport=ReplayTransport(back, str(path)))
    again = _session(replay)
    for a, b in zip(live, again):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ReplayError, match="recording ends after"):
        replay.getpos(1)


def test_a_replay_that_diverges_names_the_exchange(emulator):
    log = SessionLog(emulator.path, "serial")
    arb = Arbotix(
        nservos=5, timeout=0.05, transport=RecordingTransport(SerialTransport(emulator.path), log)
    )
    arb.getpos(1)
    arb.disconnect()
    replay = Arbotix(nservos=5, timeout=0.05, transport=ReplayTransport(log))
    with pytest.raises(
        ReplayError,
        match=r"exchange 2: the diagram sent ff ff 02 .* where the "
        r"recording has ff ff 01",
    ):
        replay.getpos(2)


def test_json_encoding_round_trips_bytes_floats_and_dicts(tmp_path):
    value = [b"\x00\xff", 0.1 + 0.2, {"a": [1, b"x"]}, None, "s", np.float64(1 / 3)]
    assert from_json(to_json(value)) == [b"\x00\xff", 0.1 + 0.2, {"a": [1, b"x"]}, None, "s", 1 / 3]
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with pytest.raises(ValueError, match="not a blocksim hardware session log"):
        SessionLog.load(bad)
    SessionLog("x", "coppeliasim").save(bad)
    with pytest.raises(ValueError, match="a coppeliasim session, expected a serial one"):
        SessionLog.load(bad, kind="serial")
