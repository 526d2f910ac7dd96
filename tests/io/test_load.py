"""Loading diagram files: the value rules, shared names, subsystems, overrides, error reports."""

import json
import math

import pytest

from blocksim import Block, Clock, simulate
from blocksim.io import DiagramFileError, load, loads, register_block, unregister_block


def doc(blocks, wires=(), **sections):
    return json.dumps({"blocksim": 1, "name": "t", **sections, "blocks": blocks,
                       "wires": list(wires)}, indent=1)


def problems_of(text, **kw):
    with pytest.raises(DiagramFileError) as info:
        loads(text, **kw)
    return info.value.problems


def test_numeric_strings_are_expressions_and_string_parameters_stay_strings():
    d = loads(doc({
        "c": {"type": "Constant", "params": {"value": "[0, pi/4, -pi/2]"}},
        "s": {"type": "Sum", "params": {"signs": "+-+"}},
        "m": {"type": "MathFunction", "params": {"func": "sqrt"}},
        "g": {"type": "Gain", "params": {"K": "=2*pi", "order": "u*K"}},
        "p": {"type": "Product", "params": {"ops": 2}},
        "sc": {"type": "Scope", "params": {"labels": {"str": "$x"}, "title": "pi/2"}},
    })).diagram
    assert d["c"].params["value"] == [0, math.pi / 4, -math.pi / 2]
    assert d["s"].params["signs"] == "+-+"
    assert d["m"].params["func"] == "sqrt"
    assert d["g"].params == {"K": 2 * math.pi, "order": "u*K"}
    assert d["p"].params["ops"] == 2
    assert d["sc"].params["labels"] == "$x" and d["sc"].params["title"] == "pi/2"


def test_shared_parameters_are_read_by_the_rule_of_the_parameter_using_them():
    d = loads(doc({
        "a": {"type": "Scope", "params": {"nin": 2, "labels": "$names", "title": "$half"}},
        "b": {"type": "Gain", "params": {"K": "$half"}},
        "c": {"type": "Gain", "params": {"K": "4*half + twice"}},
        "k": {"type": "Constant", "params": {"value": ["$half", 1]}},
    }, [{"from": "k", "to": ["a.u0", "a.u1", "b"]}, {"from": "b", "to": "c"}],
        parameters={"names": ["x", "F"], "half": "pi/2", "twice": "2*half"})).diagram
    assert d["a"].params["labels"] == ["x", "F"] and d["a"].params["title"] == "pi/2"
    assert d["b"].params["K"] == math.pi / 2
    assert d["c"].params["K"] == pytest.approx(3 * math.pi)
    assert d["k"].params["value"] == [math.pi / 2, 1]


def test_references_to_themselves_are_reported():
    probs = problems_of(doc({"g": {"type": "Gain", "params": {"K": "$a"}}},
                            parameters={"a": "b + 1", "b": "$a"}))
    assert any("refers to itself (a -> b -> a)" in p for p in probs), probs


def test_clocks_are_shared_by_name():
    f = loads(doc({
        "s": {"type": "Sine"},
        "z1": {"type": "ZOH", "params": {"clock": "$ctrl"}},
        "z2": {"type": "UnitDelay", "params": {"clock": "ctrl"}},
    }, [{"from": "s", "to": "z1"}, {"from": "z1", "to": "z2"}],
        parameters={"Ts": 0.01}, clocks={"ctrl": {"period": "2*Ts", "offset": "Ts"}}))
    d = f.diagram
    assert d["z1"].clock == Clock(0.02, 0.01) and d["z1"].clock is d["z2"].clock


def test_simulation_settings_are_evaluated():
    f = loads(doc({"s": {"type": "Sine"}}, parameters={"T": 2.0},
                  simulation={"T": "3*T", "solver": "rk4", "dt": "1e-3", "backend": "auto"}))
    assert f.simulation == {"T": 6.0, "solver": "rk4", "dt": 1e-3, "backend": "auto"}


class Holder(Block):
    """A test block that keeps a model object."""

    outputs = ("y",)

    def __init__(self, robot: object, gain: float = 1.0):
        self.robot = robot
        self.gain = gain

    def output(self, t, x, u):
        return (float(self.robot.n * self.gain),)


@pytest.fixture
def holder():
    register_block(Holder)
    yield Holder
    unregister_block("Holder")


def test_a_model_reaches_a_registered_block(holder):
    from blocksim.io import register_model_kind, unregister_model_kind

    class Arm:
        def __init__(self, n):
            self.n = n

    register_model_kind("toy", lambda links, name="arm": Arm(len(links)))
    try:
        f = loads(doc({"h": {"type": "Holder", "params": {"robot": "$arm", "gain": 2}},
                       "h2": {"type": "Holder", "params": {"robot": "$arm"}}},
                      models={"arm": {"kind": "toy", "links": [1, 2, 3]}}))
        assert f.diagram["h"].robot is f.diagram["h2"].robot
        assert simulate(f.diagram, 0.0)["h.y"][-1] == 6.0
        from blocksim.io import dumps
        saved = json.loads(dumps(f.diagram))
        assert saved["models"] == {"arm": {"kind": "toy", "links": [1, 2, 3]}}
        assert saved["blocks"]["h"]["params"]["robot"] == "$arm"
        probs = problems_of(doc({}, models={"a": {"kind": "tyo"}, "b": {"kind": "toy", "lnks": 1}}))
        assert any("kind 'tyo' (did you mean 'toy'?)" in p for p in probs)
        assert any("no member 'lnks' (did you mean 'links'?)" in p for p in probs)
    finally:
        unregister_model_kind("toy")


def test_dh_models_build_serial_links_of_dh_links():
    import numpy as np

    from blocksim.io.context import context_of
    from blocksim.robotics.arm.layout import from_dh

    dh = [[0, 0.1, 1, 0.3], [0.2, 0, "1/2", -0.4], [0, 0.3, 0, 0.1]]
    dyn = np.linspace(0.1, 1.0, 45).reshape(3, 15)
    dyn[:, 14] *= -1  # Coulomb friction Tc- <= 0
    for modified in (False, True):
        f = loads(doc({}, models={"arm": {
            "dh": dh, "sigma": [0, 1, 0], "offset": [0.1, 0, "pi/8"], "modified": modified,
            "dyn": dyn.tolist(), "qlim": [[-1, 1], [0, 0.5], [-2, 2]], "name": "three"}}))
        arm = context_of(f.diagram).models["arm"]
        assert arm.name == "three" and arm.n == 3 and arm.links[0].a == 1.0
        assert [link.mdh for link in arm.links] == [modified] * 3
        ref = from_dh(np.array([[0, 0.1, 1, 0.3], [0.2, 0, 0.5, -0.4], [0, 0.3, 0, 0.1]]),
                      sigma=np.array([0, 1, 0]), offset=np.array([0.1, 0, math.pi / 8]),
                      modified=modified, dyn=dyn, qlim=np.array([[-1, 1], [0, 0.5], [-2, 2]]))
        for field in ("sigma", "offset", "A", "B", "dyn", "qlim", "base", "tool", "gravity"):
            np.testing.assert_allclose(getattr(arm.arrays, field), getattr(ref, field),
                                       atol=1e-15, err_msg=field)
    probs = problems_of(doc({}, models={"bad": {"dh": [[0, 1, 2]]}}))
    assert "dh must be a table with one row [theta, d, a, alpha] per link" in probs[0]


def test_zoo_models_come_from_the_zoo_list_only():
    from blocksim.io.context import context_of
    from blocksim.io.models import zoo_names

    probs = problems_of(doc({}, models={"r": {"zoo": "os.system"}}))
    assert len(probs) == 1
    if not zoo_names():
        assert "model zoo (blocksim.robotics.models) is not available" in probs[0]
        return
    assert "no model 'os.system' in the zoo" in probs[0] and "puma560" in probs[0]
    f = loads(doc({}, models={"p": {"zoo": "puma560"}, "q": {"zoo": "puma560"}}))
    p, q = context_of(f.diagram).models["p"], context_of(f.diagram).models["q"]
    assert p.n == 6 and p is not q  # each model is its own robot


def test_inline_and_file_subsystems_with_parameters(tmp_path):
    (tmp_path / "ctrl.json").write_text(json.dumps({
        "blocksim": 1, "name": "ctrl", "parameters": {"Kp": 1.0},
        "blocks": {"e": {"type": "Inport"}, "k": {"type": "Gain", "params": {"K": "$Kp"}},
                   "u": {"type": "Outport"}},
        "wires": [{"from": "e", "to": "k"}, {"from": "k", "to": "u"}]}))
    top = tmp_path / "top.json"
    top.write_text(doc({
        "ref": {"type": "Step", "params": {"time": 0}},
        "c": {"type": "Subsystem", "file": "ctrl.json", "parameters": {"Kp": "2*gain"}},
        "p": {"type": "Subsystem", "diagram": {
            "blocks": {"u": {"type": "Inport"}, "g": {"type": "Gain", "params": {"K": "$gain"}},
                       "y": {"type": "Outport"}},
            "wires": [{"from": "u", "to": "g"}, {"from": "g", "to": "y"}]}},
    }, [{"from": "ref", "to": "c.e"}, {"from": "c.u", "to": "p.u"}], parameters={"gain": 3.0}))
    f = load(top)
    res = simulate(f.diagram, 0.5)
    assert res["p/g.y"][-1] == 18.0
    assert set(f.origins) >= {"c/k", "p/g", "ref"}
    f2 = load(top, {"gain": "1", "c/k.K": "10"})
    assert simulate(f2.diagram, 0.5)["p/g.y"][-1] == 10.0


def test_a_file_including_itself_is_refused(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(doc({"s": {"type": "Subsystem", "file": "b.json"}}))
    b.write_text(doc({"s": {"type": "Subsystem", "file": "a.json"}}))
    with pytest.raises(DiagramFileError, match=r"includes itself \(a.json -> b.json -> a.json\)"):
        load(a)
    with pytest.raises(DiagramFileError, match="cannot include files"):
        loads(doc({"s": {"type": "Subsystem", "file": "a.json"}}))


def test_every_problem_is_reported_at_once_with_its_line():
    text = doc({
        "g": {"type": "Gian", "params": {"K": 1}},
        "s": {"type": "Sum", "params": {"sings": "+-"}},
        "c": {"type": "Constant"},
        "k": {"type": "Gain", "params": {"K": "2*pie"}},
        "z": {"type": "ZOH", "params": {"clock": -1}},
        "ok": {"type": "Gain", "params": {"K": 1}},
    }, [{"from": "ok", "to": "nowhere.u"}, {"from": "ok.u", "to": "s.u0"},
        {"from": "ok", "to": "ok.u7"}, {"from": "k", "to": "g"}], extra=1)
    probs = problems_of(text)
    lines = text.splitlines()

    def line_of(fragment):
        return next(i + 1 for i, line in enumerate(lines) if fragment in line)

    expected = [
        (line_of('"extra"'), "extra: unknown member 'extra'"),
        (line_of('"Gian"'), "unknown block type 'Gian' (did you mean 'Gain'?)"),
        (line_of('"sings"'), "Sum has no parameter 'sings' (did you mean 'signs'?)"),
        (line_of('"c": {'), "needs the parameter value"),
        (line_of('"2*pie"'), "unknown name 'pie' (did you mean 'pi'?)"),
        (line_of('"ZOH"') + 1, "blocks.z.params: block 'z' (ZOH) refused its parameters"),
        (line_of('"nowhere.u"'), "no block named 'nowhere'"),
        (line_of('"ok.u"'), "'ok.u' is an input; a wire goes from an output"),
        (line_of('"ok.u7"'), "block 'ok' (Gain) has no input port 'u7' (did you mean 'u'?)"),
    ]
    for line, words in expected:
        assert any(p.startswith(f"<string>:{line}: ") and words in p for p in probs), \
            (line, words, probs)
    assert len(probs) == len(expected)  # nothing about the wire between blocks that failed


def test_output_files_must_stay_in_the_files_folder(tmp_path):
    for path in ["/tmp/x.png", "../x.png", "a/../../x.png", "~/x.png"]:
        probs = problems_of(doc({"s": {"type": "Scope", "params": {"file": path}},
                                 "c": {"type": "Constant", "params": {"value": 1}}},
                                [{"from": "c", "to": "s"}]), base_dir=tmp_path)
        assert any("this file's folder" in p for p in probs), (path, probs)
    f = loads(doc({"s": {"type": "Scope", "params": {"file": "/tmp/x.png"}}}),
              allow_any_path=True)
    assert f.diagram["s"].params["file"] == "/tmp/x.png"


def test_unknown_override_targets_are_reported():
    text = doc({"g": {"type": "Gain", "params": {"K": 1}}}, parameters={"Kp": 1})
    probs = problems_of(text, overrides={"Kpp": "1", "h.K": "2", "g.Kk": "3", "g.K": "pi +"})
    assert any("no shared parameter 'Kpp' (did you mean 'Kp'?)" in p for p in probs)
    assert any("no block 'h'" in p for p in probs)
    assert any(p.startswith("--set g.Kk: Gain has no parameter 'Kk'") for p in probs)
    assert any(p.startswith("--set g.K: ") and "not a valid expression" in p for p in probs)


def _nodes(value, path=()):
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _nodes(v, (*path, k))
    elif isinstance(value, list):
        for k, v in enumerate(value):
            yield from _nodes(v, (*path, k))


def _replace(value, path, new):
    if not path:
        return new
    value = value.copy()
    value[path[0]] = _replace(value[path[0]], path[1:], new)
    return value


@pytest.mark.parametrize("seed", range(4))
def test_mutated_files_give_file_errors_only(seed):
    """Any part of a valid file replaced by a value of another type, or removed: the loader
    either loads it or raises DiagramFileError; never another exception."""
    import random
    from pathlib import Path

    base = json.loads((Path(__file__).resolve().parents[2] / "diagrams" /
                       "discrete_pid_mass_spring_damper.json").read_text())
    rng = random.Random(seed)
    paths = list(_nodes(base))
    junk = [None, True, -1, 0, 2.5, "", "x", "$", "=", "$m", "+-", [], [1, "a"], {},
            {"str": 1}, {"slice": [1, None]}, {"type": "Gain"}, "1e999", "[[1], 2]"]
    for _ in range(40):
        path = rng.choice(paths)
        doc_ = _replace(base, path, rng.choice(junk))
        try:
            loads(json.dumps(doc_))
        except DiagramFileError:
            pass


def test_tau_e_and_deg_may_name_shared_parameters_other_constants_stay_reserved():
    import math

    d = loads(doc({"g": {"type": "Gain", "params": {"K": "1/tau + 0*deg"}},
                   "h": {"type": "Gain", "params": {"K": "$tau"}}},
                  parameters={"tau": 0.5}))
    assert d.diagram["g"].params["K"] == 2.0 and d.diagram["h"].params["K"] == 0.5
    d = loads(doc({"g": {"type": "Gain", "params": {"K": "tau"}}}))
    assert d.diagram["g"].params["K"] == math.tau  # no parameter: still the constant
    for name in ("pi", "inf", "nan", "true"):
        probs = problems_of(doc({"g": {"type": "Gain", "params": {"K": 1}}},
                                parameters={name: 1.0}))
        assert any(f"parameter name '{name}' is reserved" in p for p in probs), probs
