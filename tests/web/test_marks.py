"""Problems attributed to the blocks, parameters and wires they are about, and the ports of
every block, from the real messages of loading and of `blocksim check`."""

from __future__ import annotations

import copy
import json
from functools import lru_cache

import pytest

from blocksim.io.catalog import catalog
from blocksim.web.marks import annotate, document_ports, problem_marks
from blocksim.web.session import EditorSession

LOOP = {"blocksim": 1, "name": "loop",
        "blocks": {"ref": {"type": "Step"}, "err": {"type": "Sum", "params": {"signs": "+-"}},
                   "gain": {"type": "Gain", "params": {"K": 2}}, "x": {"type": "Integrator"}},
        "wires": [{"from": "ref", "to": "err.u0"}, {"from": "err", "to": "gain"},
                  {"from": "gain", "to": "x"}, {"from": "x", "to": "err.u1"}],
        "simulation": {"T": 1}}


@lru_cache(maxsize=1)
def _catalog():
    return catalog()


def _marks(session, doc, *, check=False):
    """The marks of PUT (load problems) or of check (the report's problems), and ports."""
    problems, loaded = session.replace_loaded(doc)
    if check:
        report = session.check()
        problems = [] if ": OK" in report[0] else [line.strip() for line in report[1:]]
        loaded = None
    out = annotate(session, _catalog(), problems, loaded)
    assert [m["message"] for m in out["marks"]] == problems  # one per problem, in order
    return out


def _only(session, doc, *, check=False):
    out = _marks(session, doc, check=check)
    assert len(out["marks"]) == 1, out["marks"]
    m = out["marks"][0]
    return {k: m[k] for k in ("block", "param", "wire", "port")}, m["message"]


def _loop(change):
    doc = copy.deepcopy(LOOP)
    change(doc)
    return doc


@pytest.fixture
def session(tmp_path):
    return EditorSession(tmp_path, "loop.json")


def test_loading_problems_name_the_block_and_parameter(session):
    mark, msg = _only(session, _loop(lambda d: d["blocks"]["gain"]["params"].update(K="foo(")))
    assert "blocks.gain.params.K: 'foo(' is not a valid expression" in msg
    assert mark == {"block": "gain", "param": "K", "wire": None, "port": None}
    mark, msg = _only(session, _loop(lambda d: d["blocks"]["gain"]["params"].update(Kk=1)))
    assert "has no parameter 'Kk'" in msg
    assert mark == {"block": "gain", "param": "Kk", "wire": None, "port": None}
    # a block that refuses a parameter's value: the parameter named in the message
    mark, msg = _only(session, _loop(lambda d: d["blocks"]["err"]["params"].update(signs="+*")))
    assert "refused its parameters" in msg
    assert mark == {"block": "err", "param": "signs", "wire": None, "port": None}
    mark, msg = _only(session, _loop(lambda d: d["blocks"]["gain"].update(type="Gian")))
    assert "unknown block type 'Gian'" in msg
    assert mark == {"block": "gain", "param": None, "wire": None, "port": None}
    # a shared parameter of the diagram: no block
    mark, msg = _only(session, _loop(lambda d: (d.update(parameters={"K": "1+"}),
                                                d["blocks"]["gain"]["params"].update(K="K"))))
    assert msg.startswith("loop.json:") and "parameters.K" in msg
    assert mark == {"block": None, "param": "K", "wire": None, "port": None}


def test_wire_problems_name_the_wire(session):
    mark, msg = _only(session, _loop(lambda d: d["wires"].append({"from": "nope", "to": "x"})))
    assert "wires[4].from: no block named 'nope'" in msg
    assert mark == {"block": None, "param": None, "wire": "nope->x.u", "port": None}
    mark, msg = _only(session, _loop(lambda d: d["wires"].__setitem__(
        0, {"from": "ref", "to": "err.u7"})))
    assert "has no input port 'u7'" in msg
    assert mark == {"block": "err", "param": None, "wire": "ref.y->err.u7", "port": None}
    mark, msg = _only(session, _loop(lambda d: d["wires"].__setitem__(
        0, {"from": "ref.q", "to": "err.u0"})))
    assert "has no output port 'q'" in msg
    assert mark == {"block": "ref", "param": None, "wire": "ref.q->err.u0", "port": None}
    # one end of a wire to a list
    mark, msg = _only(session, _loop(lambda d: d["wires"].__setitem__(
        0, {"from": "ref", "to": ["err.u0", "err.zz"]})))
    assert "wires[0].to[1]:" in msg
    assert mark["wire"] == "ref.y->err.zz" and mark["block"] == "err"


def test_compile_problems_of_check_name_blocks_ports_and_wires(session):
    mark, msg = _only(session, _loop(lambda d: d["wires"].pop(3)), check=True)
    assert "input 'err.u1' (Sum) is not connected" in msg
    assert mark == {"block": "err", "param": None, "wire": None, "port": "u1"}
    mark, msg = _only(session, _loop(lambda d: d["wires"].append({"from": "ref", "to": "x"})),
                      check=True)
    assert "input 'x.u' is driven twice: by 'gain.y' and by 'ref.y'" in msg
    assert mark == {"block": "x", "param": None, "wire": "ref.y->x.u", "port": "u"}
    mark, msg = _only(session, _loop(lambda d: d["blocks"].update(
        x={"type": "Gain", "params": {"K": 1}})), check=True)
    assert "algebraic loop: err.y -> gain.u (feedthrough)" in msg
    assert mark == {"block": "err", "param": None, "wire": "err.y->gain.u", "port": None}
    mark, msg = _only(session, _loop(lambda d: d["blocks"]["gain"]["params"].update(
        K=[[1, 2], [3, 4], [5, 6]])), check=True)
    assert "shape mismatch at input 'x.u'" in msg
    assert mark == {"block": "x", "param": None, "wire": "gain.y->x.u", "port": "u"}
    mark, msg = _only(session, _loop(lambda d: d.update(simulation={"T": -1})), check=True)
    assert "simulation: `T`" in msg
    assert mark == {"block": None, "param": None, "wire": None, "port": None}
    # a loading problem in check's report is attributed as in PUT's
    mark, _ = _only(session, _loop(lambda d: d["blocks"]["gain"]["params"].update(K="2 +")),
                    check=True)
    assert mark["block"] == "gain" and mark["param"] == "K"


def test_every_problem_at_once_and_the_line_of_more(session):
    doc = _loop(lambda d: d["blocks"].update(
        {f"g{i}": {"type": "Gain", "params": {"K": 1}} for i in range(101)}))
    marks = _marks(session, doc, check=True)["marks"]
    assert len(marks) == 101  # the first 100, then how many more
    assert [m["block"] for m in marks[:100]] == [f"g{i}" for i in range(100)]
    assert all(m["port"] == "u" for m in marks[:100])
    assert "more problems" in marks[-1]["message"] and marks[-1]["block"] is None


INNER = {"blocks": {"u": {"type": "Inport"}, "x": {"type": "Integrator"},
                    "g": {"type": "Gain", "params": {"K": 1}}, "y": {"type": "Outport"}},
         "wires": [{"from": "u", "to": "g"}, {"from": "g", "to": "x"}, {"from": "x", "to": "y"}]}


def _sub(change):
    inner = copy.deepcopy(INNER)
    change(inner)
    return {"blocksim": 1, "name": "top",
            "blocks": {"c": {"type": "Constant", "params": {"value": 1.0}},
                       "plant": {"type": "Subsystem", "diagram": inner},
                       "z": {"type": "Scope"}},
            "wires": [{"from": "c", "to": "plant.u"}, {"from": "plant", "to": "z"}]}


def test_problems_inside_subsystems_name_the_inner_block(session, tmp_path):
    mark, msg = _only(session, _sub(lambda d: d["blocks"]["g"]["params"].update(K="1+")))
    assert "blocks.plant.diagram.blocks.g.params.K:" in msg
    assert mark == {"block": "plant/g", "param": "K", "wire": None, "port": None}
    mark, msg = _only(session, _sub(lambda d: d["wires"].__setitem__(
        1, {"from": "g", "to": "x.u7"})))
    assert "blocks.plant.diagram.wires[1].to:" in msg
    assert mark == {"block": "plant/x", "param": None, "wire": "plant/g.y->plant/x.u7",
                    "port": None}
    mark, msg = _only(session, _sub(lambda d: d["wires"].pop(1)), check=True)
    assert "input 'plant/x.u' (Integrator) is not connected" in msg
    assert mark == {"block": "plant/x", "param": None, "wire": None, "port": "u"}
    # a problem inside a subsystem's file marks the subsystem's block
    (tmp_path / "inner.json").write_text(json.dumps(
        {"blocksim": 1, "blocks": {"u": {"type": "Inport"},
                                   "k": {"type": "Gain", "params": {"K": "2+"}},
                                   "y": {"type": "Outport"}},
         "wires": [{"from": "u", "to": "k"}, {"from": "k", "to": "y"}]}, indent=1))
    doc = _sub(lambda d: None)
    doc["blocks"]["plant"] = {"type": "Subsystem", "file": "inner.json"}
    doc["blocks"]["s3"] = {"type": "Sum", "params": {"signs": "+-+"}}
    out = _marks(session, doc)
    assert len(out["marks"]) == 1
    mark, msg = out["marks"][0], out["marks"][0]["message"]
    assert "inner.json:" in msg and "blocks.k.params.K" in msg
    assert {k: mark[k] for k in ("block", "param", "wire", "port")} == {
        "block": "plant", "param": None, "wire": None, "port": None}
    # the other blocks' ports are still those they are built with
    assert out["ports"]["s3"]["inputs"] == ["u0", "u1", "u2"]


def test_ports_are_those_of_the_built_blocks(session):
    doc = _sub(lambda d: d["blocks"].update(u2={"type": "Inport"}))
    doc["blocks"]["sum"] = {"type": "Sum", "params": {"signs": "+-+"}}
    doc["blocks"]["mux"] = {"type": "Mux", "params": {"nin": 4}}
    out = _marks(session, doc)
    assert out["marks"] == []
    ports = out["ports"]
    assert list(ports) == ["c", "plant", "plant/u", "plant/x", "plant/g", "plant/y",
                           "plant/u2", "z", "sum", "mux"]
    assert ports["sum"] == {"inputs": ["u0", "u1", "u2"], "outputs": ["y"]}
    assert ports["plant"] == {"inputs": ["u", "u2"], "outputs": ["y"]}
    assert ports["plant/g"] == {"inputs": ["u"], "outputs": ["y"]}
    assert ports["c"] == {"inputs": [], "outputs": ["y"]}
    assert ports["mux"] == {"inputs": ["u0", "u1", "u2", "u3"], "outputs": ["y"]}


def test_ports_of_blocks_with_bad_parameters_come_from_the_catalog(session):
    doc = _loop(lambda d: d["blocks"].update(
        s3={"type": "Sum", "params": {"signs": "+-+"}},
        bad={"type": "Sum", "params": {"signs": "+*+"}},
        typo={"type": "Gian"}, k={"type": "Gain", "params": {"K": "foo("}}))
    doc["wires"].append({"from": "nowhere", "to": "s3.u9"})
    out = _marks(session, doc)
    # the wire's two bad ends are two problems; its target block still builds
    assert {m["block"] for m in out["marks"]} == {"bad", "typo", "k", "s3", None}
    ports = out["ports"]
    sum_entry = next(e for e in _catalog() if e["type"] == "Sum")
    assert ports["bad"]["inputs"] == [p["name"] for p in sum_entry["inputs"]]
    assert ports["s3"]["inputs"] == ["u0", "u1", "u2"]  # still built from its parameters
    assert ports["k"] == {"inputs": ["u"], "outputs": ["y"]}
    assert "typo" not in ports  # an unknown type has no ports to give
    assert ports["err"]["inputs"] == ["u0", "u1"]
    # a document that loads: one load, the same ports
    fine = copy.deepcopy(LOOP)
    loaded = session.replace_loaded(fine)[1]
    assert loaded is not None
    assert document_ports(fine, session.load, _catalog()) == \
        document_ports(fine, session.load, _catalog(), loaded)


def test_marks_of_messages_without_a_document():
    marks = problem_marks(["x.json: 2 problems", "free text: with a colon"], {}, "x.json", {})
    assert [(m["block"], m["wire"]) for m in marks] == [(None, None), (None, None)]
    assert document_ports([1], lambda text: None, []) == {}


def test_a_loop_through_a_subsystem_marks_a_wire_inside_it(session):
    inner = {"blocks": {"u": {"type": "Inport"}, "g": {"type": "Gain", "params": {"K": 1}},
                        "y": {"type": "Outport"}},
             "wires": [{"from": "u", "to": "g"}, {"from": "g", "to": "y"}]}
    doc = {"blocksim": 1, "blocks": {
        "c": {"type": "Constant", "params": {"value": 1.0}},
        "s": {"type": "Sum", "params": {"signs": "++"}},
        "plant": {"type": "Subsystem", "diagram": inner}},
        "wires": [{"from": "c", "to": "s.u0"}, {"from": "s", "to": "plant.u"},
                  {"from": "plant", "to": "s.u1"}]}
    mark, msg = _only(session, doc, check=True)
    assert "algebraic loop: s.y -> plant/u.u (feedthrough) -> plant/u.y -> plant/g.u" in msg
    assert mark == {"block": "s", "param": None, "wire": "plant/u.y->plant/g.u", "port": None}


def test_compile_messages_without_a_json_path_are_read_from_their_text():
    texts = [
        "t.json: input 'x.u' (Integrator) is not connected; connect an output to it",
        "t.json: shape mismatch at input 'sub/x.u' (Integrator): expected shape (), got (2,) "
        "from 'sub/u.y'",
        "t.json:9: input 'z.u1' is driven twice: by 'c.y' and by 'd.y'; an input takes "
        "exactly one wire"]
    marks = problem_marks(texts, {}, "t.json", {})
    assert [(m["block"], m["port"], m["wire"]) for m in marks] == [
        ("x", "u", None), ("sub/x", "u", "sub/u.y->sub/x.u"), ("z", "u1", "d.y->z.u1")]
