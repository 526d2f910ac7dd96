"""Every example ships as diagrams/<name>.json and gives the same signals as its build()."""

from pathlib import Path

import numpy as np
import pytest

from blocksim import simulate
from blocksim.cli import main
from blocksim.io import load

from .examples_loader import EXAMPLES, load_example

DIAGRAMS = Path(__file__).resolve().parents[1] / "diagrams"
HORIZON = {"relay_thermostat": 900.0, "discrete_pid_mass_spring_damper": 0.3,
           "bouncing_ball": 5.0, "floating_arm_reach": 0.5, "floating_arm_fixed_base": 0.5}
#: signals of the Python example named otherwise in the diagram file: the example's custom Ball
#: block is the library's SecondOrderIntegrator (plus a Constant for gravity) in the file
RENAMED = {"bouncing_ball": {"ball.h": "ball.x"}}


def test_every_example_has_a_diagram_file():
    examples = {p.stem for p in EXAMPLES.glob("*.py")}
    diagrams = {p.stem for p in DIAGRAMS.glob("*.json")}
    assert examples <= diagrams, f"examples without a diagram file: {examples - diagrams}"


@pytest.mark.parametrize("name", sorted(p.stem for p in EXAMPLES.glob("*.py")))
def test_the_diagram_file_simulates_like_the_python_example(name):
    path = DIAGRAMS / f"{name}.json"
    if not path.exists():
        pytest.fail(f"diagrams/{name}.json is missing")
    f = load(path)
    T = HORIZON.get(name, 2.0)
    opts = dict(rtol=1e-9, atol=1e-12)
    a = simulate(f.diagram, T, **opts)
    b = simulate(load_example(name).build(), T, **opts)
    rename = RENAMED.get(name, {})
    if not rename:
        assert a.signals == b.signals
    np.testing.assert_allclose(a.t, b.t, rtol=0, atol=1e-12)
    for s in b.signals:
        np.testing.assert_allclose(a[rename.get(s, s)], b[s], rtol=1e-12, atol=1e-12,
                                   err_msg=f"{name}: {s}")


@pytest.mark.parametrize("path", sorted(DIAGRAMS.glob("*.json")), ids=lambda p: p.stem)
def test_every_diagram_runs_from_the_command_line(path, tmp_path, capsys):
    out = tmp_path / "run.npz"
    assert main(["run", str(path), "--T", "0.5", "--out", str(out), "--quiet"]) == 0
    assert out.stat().st_size > 0
    assert main(["check", str(path)]) == 0
    assert "OK" in capsys.readouterr().out
