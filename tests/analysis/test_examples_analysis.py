"""The analysis examples: trim, linearize, margins and LQR on the examples' own diagrams agree
with the models written down by hand, with python-control, and with the gains stored in the
diagram files (so the files cannot drift from the design).

* ``cartpole_lqr``: trim upright, linearize, lqr (the file's gain), closed-loop poles.
* ``puma_vloop_margins``: the seed (the Toolbox's manual) quotes no margins for *vloop*, so its
  margins are checked against python-control's on the analytic loop transfer.
* ``quadrotor_hover_lqr``: the trimmed rotor speeds are sqrt(M g / (4 b)); the linearization,
  gain and closed-loop poles.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import control
import numpy as np
import pytest

from blocksim import simulate
from blocksim.analysis import linearize, margins
from blocksim.io import load

from ..examples_loader import load_example

DIAGRAMS = Path(__file__).resolve().parents[2] / "diagrams"


def _file(name: str) -> tuple[dict, object]:
    """The parameters section of ``diagrams/<name>.json`` and its loaded diagram."""
    path = DIAGRAMS / f"{name}.json"
    return json.loads(path.read_text())["parameters"], load(path).diagram


def _sorted(poles: np.ndarray) -> np.ndarray:
    return np.sort_complex(np.round(np.asarray(poles, dtype=complex), 6))


# ------------------------------------------------------------------------------- cart-pole
def test_cartpole_trim_linearize_lqr_give_the_analytic_model_and_the_files_gain():
    ex = load_example("cartpole_lqr")
    des = ex.design()
    op = des["op"]
    assert op.success and abs(op.inputs["push.y"]) < 1e-9
    np.testing.assert_allclose(op.states["x.x0"], 0.0, atol=1e-9)   # upright, at rest
    A, B = ex.linearization()
    sys = des["sys"]
    np.testing.assert_allclose(sys.A, A, rtol=0, atol=1e-8)
    np.testing.assert_allclose(sys.B, B, rtol=0, atol=1e-8)
    assert max(np.linalg.eigvals(sys.A).real) > 4.5   # upright: unstable, sqrt(21.58)
    Q, R = np.diag(ex.Q_WEIGHTS), [[ex.R_WEIGHT]]
    K_ref, _, _ = control.lqr(A, B, Q, R)
    np.testing.assert_allclose(des["K"], K_ref, rtol=1e-8)
    params, diagram = _file("cartpole_lqr")
    np.testing.assert_allclose(params["K"], des["K"], rtol=1e-8)
    np.testing.assert_allclose(diagram["lqr"].K, des["K"], rtol=1e-8)
    # the file's closed loop, linearized upright: the poles eig(A - B K), all stable
    cl = linearize(diagram, "disturbance.y", "x.y", op={"x": [0.0, 0.0, 0.0, 0.0]})
    expected = np.linalg.eigvals(A - B @ np.asarray(params["K"]))
    np.testing.assert_allclose(_sorted(cl.poles()), _sorted(expected), atol=2e-6)
    assert np.all(cl.poles().real < -1.0)


def test_cartpole_file_loop_settles_upright_from_its_tilt():
    _, diagram = _file("cartpole_lqr")
    assert diagram["x"].x0[1] == pytest.approx(0.2)
    res = simulate(diagram, 8.0)
    assert np.max(np.abs(res["x.y"][-1])) < 1e-3      # pole upright, cart home, at rest
    assert np.max(np.abs(res["x.y"][:, 1])) <= 0.2 + 1e-9


# --------------------------------------------------------------------------- Puma vloop
def test_puma_vloop_sampled_margins_equal_python_controls_on_the_analytic_loop():
    ex = load_example("puma_vloop_margins")
    L = ex.loop_transfer()
    assert L.dt == ex.TS and L.nstates == 2
    La = ex.analytic_loop()
    # the same transfer function: compared on the unit circle up to the Nyquist frequency
    z = np.exp(1j * np.linspace(0.01, math.pi, 7))
    np.testing.assert_allclose(np.squeeze(L(z)), np.squeeze(La(z)), rtol=1e-7)
    m = margins(L)
    _gm, pm, _sm, _wpc, wgc, _wms = control.stability_margins(La)
    assert m.pm == pytest.approx(pm, rel=1e-7) and m.wgc == pytest.approx(wgc, rel=1e-7)
    assert m.pm == pytest.approx(71.95, abs=0.01) and m.wgc == pytest.approx(621.3, abs=0.1)
    # the gain margin at pi/T: L(-1) = (Kv - Ki T / 2) * (Km / B) (1 - p) / (-1 - p)
    p = math.exp(-ex.B / ex.J * ex.TS)
    by_hand = 1.0 / abs((ex.KV - ex.KI * ex.TS / 2) * ex.KM / ex.B * (1 - p) / (-1 - p))
    assert m.gm == pytest.approx(by_hand, rel=1e-7)
    assert m.wpc == pytest.approx(math.pi / ex.TS, rel=1e-12)
    assert 3.27 < m.gm < 3.28


def test_puma_vloop_continuous_margins_and_the_cost_of_sampling():
    ex = load_example("puma_vloop_margins")
    rep = ex.analyse()
    Lc = rep["L_continuous"]
    assert Lc.dt == 0
    gm, pm, _sm, _wpc, wgc, _wms = control.stability_margins(ex.analytic_loop(clock=None))
    c, s = rep["continuous"], rep["sampled"]
    assert math.isinf(c.gm) and math.isinf(gm)
    assert c.pm == pytest.approx(pm, rel=1e-7) and c.wgc == pytest.approx(wgc, rel=1e-7)
    # the hold's half-sample delay: wgc T / 2 of phase, to within the crossover's shift
    assert c.pm - s.pm == pytest.approx(math.degrees(s.wgc * ex.TS / 2), abs=0.3)
    # a higher proportional gain leaves less phase margin
    assert margins(ex.loop_transfer(Kv=2.5)).pm < s.pm - 10


def test_puma_vloop_file_is_the_examples_loop():
    params, diagram = _file("puma_vloop_margins")
    ex = load_example("puma_vloop_margins")
    assert (params["J"], params["B"], params["Km"], params["Kv"], params["Ki"], params["Ts"]) \
        == (ex.J, ex.B, ex.KM, ex.KV, ex.KI, ex.TS)
    L = -linearize(diagram, ex.CUT, ex.CUT, open=ex.CUT, method="zoh")
    assert margins(L).pm == pytest.approx(margins(ex.loop_transfer()).pm, rel=1e-9)


# ----------------------------------------------------------------------------- quadrotor
def test_quadrotor_trim_gives_the_analytic_hover_speed():
    from blocksim.robotics.aerial import mdl_quadrotor

    ex = load_example("quadrotor_hover_lqr")
    des = ex.design()
    model = mdl_quadrotor()
    hover = math.sqrt(model.M * model.g / (model.nrotors * model.b))
    assert des["op"].success
    np.testing.assert_allclose(des["omega"], hover * np.array([1, -1, 1, -1]), rtol=1e-9)
    np.testing.assert_allclose(des["op"].states["plant.z"], -1.0)
    # the linearization of the diagram opened at the LQR output equals the model's own
    A, B = ex.hover_linearization()
    sys = des["sys"]
    np.testing.assert_allclose(sys.A, A, rtol=0, atol=1e-6)
    np.testing.assert_allclose(sys.B, B, rtol=0, atol=1e-6)
    params, diagram = _file("quadrotor_hover_lqr")
    np.testing.assert_allclose(params["K"], des["K"], rtol=0, atol=1e-6)
    np.testing.assert_allclose(diagram["lqr"].K, des["K"], rtol=0, atol=1e-6)
    # the closed loop at the hover: poles eig(A - B K), all stable
    cl = linearize(diagram, "one.y", "plant.x", op={"plant": ex.hover_state()})
    expected = np.linalg.eigvals(A - B @ np.asarray(params["K"]))
    np.testing.assert_allclose(_sorted(cl.poles()), _sorted(expected), atol=1e-5)
    assert np.all(cl.poles().real < -0.5)


def test_quadrotor_file_loop_returns_level_to_the_hover():
    _, diagram = _file("quadrotor_hover_lqr")
    res = simulate(diagram, 8.0)
    x = res["plant.x"]
    assert np.max(np.abs(x[0, 3:6])) >= 0.1                # it starts tilted and yawed
    np.testing.assert_allclose(x[-1, 3:5], 0.0, atol=1e-3)  # level
    np.testing.assert_allclose(x[-1, :3], [0.0, 0.0, -1.0], atol=5e-3)
