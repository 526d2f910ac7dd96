"""Write the hostile diagram files of this folder (``python tests/data/hostile/generate.py``).

Each file is something a stranger could hand out; ``tests/io/test_hostile_corpus.py`` runs
every one through ``blocksim check``, ``blocksim run`` and ``blocksim.io.load`` and expects a
clean refusal. The two multi-megabyte files (a 1.95 M-element list, a 1000 x 1000 matrix) are
made by the test itself, not stored.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent
UP = "../" * 12
TOUCH = "__import__('os').system('touch pwned')"


def constant_into(block: dict) -> dict:
    return {
        "blocksim": 1,
        "blocks": {"c": {"type": "Constant", "params": {"value": 1.0}}, "b": block},
        "wires": [{"from": "c", "to": "b"}],
    }


def gain(k: object) -> dict:
    return constant_into({"type": "Gain", "params": {"K": k}})


def include(path: str) -> dict:
    return {"blocksim": 1, "blocks": {"s": {"type": "Subsystem", "file": path}}}


def loop(simulation: dict) -> dict:
    """x' = -x, with these simulation settings."""
    return {
        "blocksim": 1,
        "blocks": {
            "x": {"type": "Integrator", "params": {"x0": 1.0}},
            "g": {"type": "Gain", "params": {"K": -1.0}},
        },
        "wires": [{"from": "x", "to": "g"}, {"from": "g", "to": "x"}],
        "simulation": simulation,
    }


def arm(params: dict) -> dict:
    """Goals into an ArbotixArm (5 servos) with these parameters."""
    return {
        "blocksim": 1,
        "blocks": {
            "c": {"type": "Constant", "params": {"value": [0.0] * 5}},
            "arm": {"type": "ArbotixArm",
                    "params": {"nservos": 5, "clock": 0.02, "timeout": 1.0, **params}},
        },
        "wires": [{"from": "c", "to": "arm.q_cmd"}],
        "simulation": {"T": 0.1},
    }


def planner_map(name: str) -> dict:
    """A NavigationField reading the map ``name``."""
    return {
        "blocksim": 1,
        "blocks": {
            "c": {"type": "Constant", "params": {"value": [1.0, 1.0, 0.0]}},
            "plan": {"type": "NavigationField", "params": {"map": name, "goal": [2.0, 2.0]}},
        },
        "wires": [{"from": "c", "to": "plan.pose"}],
    }


def blowup(strings: bool) -> dict:
    params = {"p0": [1.0] * 10}
    for k in range(1, 10):
        params[f"p{k}"] = (
            "[" + ", ".join([f"p{k - 1}"] * 10) + "]" if strings else [f"$p{k - 1}"] * 10
        )
    doc = gain("$p9")
    doc["parameters"] = params
    return doc


FILES: dict[str, object] = {
    # paths: traversal, absolute, devices, data files
    "traversal_etc_shadow": include(UP + "etc/shadow"),
    "traversal_etc_passwd": include(UP + "etc/passwd"),
    "traversal_proc_environ": include(UP + "proc/self/environ"),
    "absolute_include": include("/etc/passwd"),
    "device_zero": include(UP + "dev/zero"),
    "device_urandom": include(UP + "dev/urandom"),
    "npy_traversal": gain({"npy": UP + "etc/passwd"}),
    "npy_device": gain({"npy": UP + "dev/zero"}),
    "npy_absolute": gain({"npy": "/etc/passwd"}),
    "self_include": include("self_include.json"),
    "missing_include": include("no_such_file.json"),
    # reference blow-ups and fan-out
    "reference_blowup_expressions": blowup(True),
    "reference_blowup_references": blowup(False),
    "include_fanout": {
        "blocksim": 1,
        "blocks": {f"s{k}": {"type": "Subsystem", "file": "fanout/level1.json"} for k in range(10)},
    },
    # code and types
    "code_injection": gain(TOUCH),
    "code_injection_marked": gain("=" + TOUCH),
    "code_in_string_param": constant_into({"type": "MathFunction", "params": {"func": TOUCH}}),
    "import_type": {
        "blocksim": 1,
        "blocks": {"b": {"type": "__import__", "params": {"name": "os"}}},
    },
    "dotted_type": {"blocksim": 1, "blocks": {"b": {"type": "os.system"}}},
    "attribute_walk": gain("().__class__.__base__.__subclasses__()"),
    "lambda": gain("lambda: 0"),
    "comprehension": gain("[x for x in [1]]"),
    "dunder_reference": gain("$__class__"),
    "object_value": gain({"__reduce__": "os.system"}),
    "python_block": {
        "blocksim": 1,
        "blocks": {"b": {"type": "Function", "params": {"func": "print"}}},
    },
    "output_outside": constant_into({"type": "Scope", "params": {"file": UP + "tmp/x.png"}}),
    # files a block writes or reads: only in the diagram's folder (blocksim.confine)
    "write_home_record": constant_into({"type": "Record", "params": {"file": "~/hostile.csv"}}),
    "write_absolute_record": constant_into(
        {"type": "Record", "params": {"file": "/tmp/blocksim-hostile.csv"}}),
    "write_absolute_armplot": {
        "blocksim": 1,
        "models": {"puma": {"zoo": "puma560"}},
        "blocks": {
            "q": {"type": "Constant", "params": {"value": [0.0] * 6}},
            "anim": {"type": "ArmPlot",
                     "params": {"robot": "$puma", "filename": "/tmp/blocksim-hostile.gif"}},
        },
        "wires": [{"from": "q", "to": "anim"}],
    },
    "write_absolute_hardware_record": arm({"port": "emulator",
                                           "record": "/tmp/blocksim-hostile-notes.txt"}),
    "write_traversal_hardware_record": arm({"port": "emulator", "record": UP + "tmp/n.json"}),
    "read_absolute_replay": arm({"port": None, "replay": "/etc/passwd"}),
    "read_traversal_replay": arm({"port": None, "replay": UP + "etc/passwd"}),
    "read_device_replay": arm({"port": None, "replay": UP + "dev/zero"}),
    "read_binary_replay": arm({"port": None, "replay": "sessions/binary.json"}),
    "read_deep_replay": arm({"port": None, "replay": "sessions/deep.json"}),
    "read_folder_replay": arm({"port": None, "replay": "sessions"}),
    "read_absolute_map": planner_map("/etc/passwd"),
    "read_traversal_map": planner_map(UP + "etc/passwd.npy"),
    "read_home_map": planner_map("~/map.png"),
    "read_urdf_base_dir": {
        "blocksim": 1,
        "models": {"robot": {"urdf": "passwd", "base_dir": "/etc"}},
        "blocks": {"c": {"type": "Constant", "params": {"value": 1.0}}},
    },
    # denormal and overflowing numbers, text that cannot be drawn, budgets before work
    "sim_dt_denormal": loop({"T": 1.0, "solver": "rk4", "dt": 5e-324}),
    "sim_realtime_decades": loop({"T": 1.0, "realtime": 1e-9}),
    "bad_clock_denormal": {
        "blocksim": 1,
        "clocks": {"c": {"period": 1e-320}},
        "blocks": {
            "c0": {"type": "Constant", "params": {"value": 1.0}},
            "z": {"type": "UnitDelay", "params": {"clock": "$c"}},
        },
        "wires": [{"from": "c0", "to": "z"}],
    },
    "bad_clock_denormal_param": constant_into({"type": "UnitDelay", "params": {"clock": 1e-320}}),
    "surrogate_title": constant_into({"type": "Scope", "params": {"title": "\ud800"}}),
    "huge_title": constant_into({"type": "Scope", "params": {"title": "x" * 50_000}}),
    "huge_dpi": constant_into({"type": "Scope", "params": {"dpi": 9000, "file": "o.png"}}),
    "huge_figure": constant_into({"type": "Scope", "params": {"figsize": [1000, 1000],
                                                              "file": "o.png"}}),
    "huge_ports_sum": {"blocksim": 1, "blocks": {"b": {"type": "Sum",
                                                       "params": {"signs": 100_000_000}}}},
    "huge_ports_mux": {"blocksim": 1, "blocks": {"b": {"type": "Mux",
                                                       "params": {"nin": 100_000_000}}}},
    "huge_ports_scope": {"blocksim": 1, "blocks": {"b": {"type": "Scope",
                                                         "params": {"nin": 100_000_000}}}},
    # numbers
    "huge_literal": gain("1e999"),
    "huge_power": gain("9**9**9"),
    "huge_integer": '{"blocksim": 1, "blocks": {"g": {"type": "Gain", "params": {"K": '
    + "9" * 40
    + "}}}}",
    "nan_param": gain("nan"),
    # structure
    "deep_nesting": '{"blocksim": 1, "blocks": {"g": {"type": "Gain", "params": {"K": '
    + "[" * 200
    + "]" * 200
    + "}}}}",
    "deep_expression": gain("(" * 200 + "1" + ")" * 200),
    "long_expression": gain("[" + "0," * 20_000 + "0]"),
    "wrong_types": {"blocksim": 1, "blocks": [], "wires": {}},
    "wrong_version": {"blocksim": 99, "blocks": {}},
    "duplicate_keys": '{"blocksim": 1, "blocks": {"g": {"type": "Gain"}, "g": {"type": "Sum"}}}',
    "not_json": "import os\nos.system('touch pwned')\n",
    "bad_clock": {
        "blocksim": 1,
        "clocks": {"c": {"period": -1}},
        "blocks": {
            "c0": {"type": "Constant", "params": {"value": 1.0}},
            "z": {"type": "UnitDelay", "params": {"clock": "$c"}},
        },
        "wires": [{"from": "c0", "to": "z"}],
    },
    # simulation settings run refuses
    "sim_unknown_solver": loop({"T": 1.0, "solver": "RK99"}),
    "sim_rtol_zero": loop({"T": 1.0, "rtol": 0}),
    "sim_atol_negative": loop({"T": 1.0, "atol": -1e-9}),
    "sim_max_step_zero": loop({"T": 1.0, "max_step": 0}),
    "sim_rk4_without_dt": loop({"T": 1.0, "solver": "rk4"}),
    "sim_dt_zero": loop({"T": 1.0, "solver": "euler", "dt": 0}),
    "sim_dt_with_adaptive": loop({"T": 1.0, "dt": 0.1}),
    "sim_T_negative": loop({"T": -1}),
    "sim_T_nan": loop({"T": "nan"}),
    "sim_T_inf": loop({"T": "inf"}),
    "sim_T_string": loop({"T": "ten"}),
    "sim_unknown_option": loop({"T": 1.0, "max_stepz": 1.0}),
    "sim_limit_in_file": loop({"T": 1.0, "max_steps": 1e12}),
    "sim_event_tol_zero": loop({"T": 1.0, "event_tol": 0}),
    "sim_backend": loop({"T": 1.0, "backend": "fast"}),
    # runaway settings: refused with an estimate
    "runaway_record_dt": loop({"T": 10.0, "record_dt": 1e-9}),
    "runaway_dt": loop({"T": 1.0, "solver": "rk4", "dt": 1e-12}),
    "runaway_T": loop({"T": 1e9, "solver": "rk4", "dt": 0.01, "backend": "compiled"}),
    "runaway_clock": {
        "blocksim": 1,
        "clocks": {"fast": {"period": 1e-9}},
        "blocks": {
            "c": {"type": "Constant", "params": {"value": 1.0}},
            "z": {"type": "UnitDelay", "params": {"clock": "$fast"}},
        },
        "wires": [{"from": "c", "to": "z"}],
        "simulation": {"T": 10.0},
    },
    "runaway_pulse": {
        "blocksim": 1,
        "blocks": {
            "p": {"type": "Waveform", "params": {"kind": "square", "frequency": 1e9}},
            "g": {"type": "Gain", "params": {"K": 2.0}},
        },
        "wires": [{"from": "p", "to": "g"}],
        "simulation": {"T": 100.0},
    },
}

#: bytes written as they are (encodings)
RAW = {
    "latin1": b'{"blocksim": 1, "description": "caf\xe9", "blocks": {}}',
    "utf16": '{"blocksim": 1, "blocks": {}}'.encode("utf-16"),
    "binary": bytes(range(256)),
    "nul_in_path": json.dumps(include("a\u0000b.json")).encode(),
}


def main() -> None:
    for name, doc in FILES.items():
        text = doc if isinstance(doc, str) else json.dumps(doc, indent=1)
        (HERE / f"{name}.json").write_text(text, encoding="utf-8")
    for name, data in RAW.items():
        (HERE / f"{name}.json").write_bytes(data)
    sessions = HERE / "sessions"  # hardware session logs a replay reads
    sessions.mkdir(exist_ok=True)
    (sessions / "binary.json").write_bytes(bytes(range(256)))
    (sessions / "deep.json").write_text("[" * 200_000 + "]" * 200_000)
    fan = HERE / "fanout"
    fan.mkdir(exist_ok=True)
    for level in range(1, 8):
        if level < 7:
            blocks = {
                f"s{k}": {"type": "Subsystem", "file": f"level{level + 1}.json"} for k in range(10)
            }
        else:
            blocks = {"g": {"type": "Gain", "params": {"K": 1.0}}}
        (fan / f"level{level}.json").write_text(json.dumps({"blocksim": 1, "blocks": blocks}))


if __name__ == "__main__":
    main()
