"""A diagram file's ``simulation.realtime`` and ``simulation.overrun``: accepted by the schema,
read, written back and turned into the run configuration."""

import json

import pytest

from blocksim import Clock, Diagram, simulate
from blocksim.blocks import Constant, DiscreteIntegrator
from blocksim.blocks.hardware import ArbotixArm
from blocksim.engine.config import file_config
from blocksim.io import DiagramFileError, dumps, loads


def _diagram():
    d = Diagram("paced")
    c = d.add(Constant(1.0), name="one")
    n = d.add(DiscreteIntegrator(clock=Clock(0.05)), name="n")
    d.connect(c, n)
    return d


def test_realtime_and_overrun_round_trip_through_a_file_and_configure_the_run():
    text = dumps(_diagram(), simulation={"T": 0.2, "realtime": 2.0, "overrun": "skip"})
    assert json.loads(text)["simulation"] == {"T": 0.2, "realtime": 2.0, "overrun": "skip"}
    f = loads(text)
    assert f.simulation == {"T": 0.2, "realtime": 2.0, "overrun": "skip"}
    again = loads(dumps(f.diagram, simulation=f.simulation))
    assert again.simulation == f.simulation
    config = file_config(f.simulation)
    assert (config.realtime, config.overrun) == (2.0, "skip")
    r = simulate(f.diagram, config)
    rt = r.stats["realtime"]
    assert rt["rate"] == 2.0 and rt["overrun"] == "skip"
    assert rt["clocks"]["clock 0.05 s"]["hits"] == 5
    assert r.stats["wall_time"] >= 0.2 / 2.0 - 0.005  # paced at twice real time


def test_expressions_are_accepted_for_the_speed_factor():
    doc = json.loads(dumps(_diagram()))
    doc["parameters"] = {"speed": 0.5}
    doc["simulation"] = {"T": 1.0, "realtime": "2*speed", "overrun": "abort"}
    assert loads(json.dumps(doc)).simulation == {"T": 1.0, "realtime": 1.0, "overrun": "abort"}


@pytest.mark.parametrize(
    "simulation,words",
    [
        ({"overrun": "panic"}, "simulation.overrun"),
        ({"realtime": "fast"}, "simulation.realtime"),
    ],
)
def test_bad_settings_are_refused_naming_them(simulation, words):
    doc = json.loads(dumps(_diagram()))
    doc["simulation"] = simulation
    with pytest.raises(DiagramFileError) as info:
        loads(json.dumps(doc))
    assert words in str(info.value)


def test_a_bad_speed_factor_is_refused_when_the_run_is_configured():
    with pytest.raises(ValueError, match=r"`realtime` must be a positive speed factor"):
        file_config({"T": 1.0, "realtime": -1.0})


def test_a_hardware_blocks_own_policy_round_trips_and_none_means_the_runs():
    d = Diagram("hil")
    d.add(ArbotixArm(port="emulator", nservos=2, clock=0.02, overrun="abort"), name="a")
    d.add(ArbotixArm(port="emulator", nservos=2, clock=0.02), name="b")
    c = d.add(Constant([0.0, 0.0]), name="cmd")
    d.connect(c, "a.q_cmd")
    d.connect(c, "b.q_cmd")
    doc = json.loads(dumps(d))
    assert doc["blocks"]["a"]["params"]["overrun"] == "abort"
    assert "overrun" not in doc["blocks"]["b"].get("params", {})
    back = loads(json.dumps(doc)).diagram
    blocks = back.blocks
    assert blocks["a"].overrun == "abort" and blocks["b"].overrun is None
