"""Seeded fuzzing of the shipped diagram files: a few hundred random mutations (keys deleted,
types changed, numbers made huge, negative, NaN or infinite, blocks renamed, wires
duplicated, settings scrambled). Each mutant ends in OK or a clean refusal of ``blocksim
check`` (never a traceback, a hang or a crash), and whatever ``check`` accepts passes
everything ``blocksim run`` checks before it simulates (the same code)."""

import argparse
import copy
import json
import random
import signal
from pathlib import Path

import pytest

from blocksim.cli import main
from blocksim.cli.common import CliError
from blocksim.cli.run import prepare

DIAGRAMS = Path(__file__).parents[2] / "diagrams"
#: the shipped diagrams mutated: every engine feature (continuous, discrete, multirate,
#: events, subsystems, arms, vision) in files that load in milliseconds
SOURCES = [
    "bouncing_ball",
    "discrete_pid_mass_spring_damper",
    "first_order_loop",
    "multirate_sampling",
    "pid_mass_spring_damper",
    "relay_thermostat",
    "van_der_pol",
    "puma_computed_torque",
    "puma_jtraj_path",
    "ibvs_puma",
    "braitenberg",
    "quadrotor_hover",
    "pursuit_circle",
]
SEED, MUTANTS = 20261126, 300
WEIRD = [
    1e308,
    -1e308,
    9.2e18,
    -1,
    0,
    -0.5,
    "nan",
    "inf",
    "-inf",
    "1e999",
    "",
    "$nope",
    "=1/0",
    [],
    {},
    None,
    True,
    "x",
    [1, [2, [3]]],
    {"str": "s"},
    2**62,
]


def _paths(doc, prefix=()):
    """Every JSON path of ``doc`` (containers and leaves)."""
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for k, v in enumerate(doc):
            out += _paths(v, (*prefix, k))
    return out


def _get(doc, path):
    for p in path:
        doc = doc[p]
    return doc


def mutate(doc, rng):
    doc = copy.deepcopy(doc)
    for _ in range(rng.randint(1, 3)):
        paths = [p for p in _paths(doc) if p]
        if not paths:
            break
        path = rng.choice(paths)
        parent, key = _get(doc, path[:-1]), path[-1]
        kind = rng.randrange(7)
        if kind == 0:  # delete a key or element
            del parent[key]
        elif kind == 1:  # another value, of any type
            parent[key] = rng.choice(WEIRD)
        elif (
            kind == 2
            and isinstance(parent[key], (int, float))
            and not isinstance(parent[key], bool)
        ):
            parent[key] = rng.choice([parent[key] * 1e200, -parent[key], -1e-300, 1e15])
        elif kind == 3 and isinstance(doc.get("blocks"), dict) and doc["blocks"]:
            old = rng.choice(list(doc["blocks"]))  # rename a block: its wires dangle
            doc["blocks"][old + "_x"] = doc["blocks"].pop(old)
        elif kind == 4 and isinstance(doc.get("wires"), list) and doc["wires"]:
            doc["wires"].append(copy.deepcopy(rng.choice(doc["wires"])))
        elif kind == 5:  # scramble the run settings
            sim = doc.setdefault("simulation", {})
            if isinstance(sim, dict):
                sim[
                    rng.choice(
                        [
                            "T",
                            "dt",
                            "solver",
                            "rtol",
                            "atol",
                            "max_step",
                            "record_dt",
                            "event_tol",
                            "backend",
                        ]
                    )
                ] = rng.choice([*WEIRD, "rk4", "euler", "RK45", "compiled", 1e-12, 1e9, 0.1])
        elif kind == 6 and isinstance(doc.get("blocks"), dict) and doc["blocks"]:
            name = rng.choice(list(doc["blocks"]))
            spec = doc["blocks"][name]
            if isinstance(spec, dict):
                spec["type"] = rng.choice(
                    [
                        "Gain",
                        "Sum",
                        "Integrator",
                        "Mux",
                        "Subsystem",
                        "Constant",
                        "Scope",
                        "os.system",
                        7,
                    ]
                )
    return doc


def _mutants():
    rng = random.Random(SEED)
    files = [DIAGRAMS / f"{name}.json" for name in SOURCES if (DIAGRAMS / f"{name}.json").exists()]
    docs = {f.name: json.loads(f.read_text()) for f in files}
    names = sorted(docs)
    return [(name, mutate(docs[name], rng)) for name in (rng.choice(names) for _ in range(MUTANTS))]


def _alarm(*_):
    raise TimeoutError("a mutant took more than 60 s")


@pytest.mark.parametrize("chunk", range(4))
def test_mutants_end_in_ok_or_a_clean_refusal_and_check_agrees_with_run(
    chunk, tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    old = signal.signal(signal.SIGALRM, _alarm)
    accepted = refused = 0
    try:
        for k, (name, doc) in enumerate(_mutants()):
            if k % 4 != chunk:
                continue
            path = tmp_path / name
            path.write_text(json.dumps(doc, indent=1))
            signal.alarm(60)
            code = main(["check", str(path)])
            out, err = capsys.readouterr()
            assert code in (0, 1), (k, name, code, out, err)
            assert "Traceback" not in out + err, (k, name, out, err)
            if code == 0:
                accepted += 1
                args = argparse.Namespace(
                    file=str(path),
                    set=None,
                    allow_dir=None,
                    T=None,
                    solver=None,
                    dt=None,
                    rtol=None,
                    atol=None,
                    record_dt=None,
                    backend=None,
                    max_steps=None,
                    max_memory=None,
                )
                try:
                    prepare(args)
                except CliError as exc:  # check said OK: run must not refuse the file
                    pytest.fail(f"mutant {k} of {name}: check OK but run refuses: {exc}")
            else:
                refused += 1
            signal.alarm(0)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert accepted + refused == len(range(chunk, MUTANTS, 4))
    assert refused > 0
