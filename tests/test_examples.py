"""Every example runs headless with a short horizon and shows what it exists to show."""

import inspect
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from .examples_loader import EXAMPLES, load_example


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.py")), ids=lambda p: p.stem)
def test_every_example_builds_runs_and_saves_its_plot(path, tmp_path):
    module = load_example(path.stem)
    assert callable(module.build) and callable(module.main)
    short = {"n": 64} if "n" in inspect.signature(module.main).parameters else {}  # members
    result = module.main(T=1.0, show=False, out_dir=tmp_path, **short)
    assert result.status == "success" and result.t[-1] == pytest.approx(1.0)
    pngs = list(tmp_path.glob("*.png"))
    assert pngs and all(p.stat().st_size > 0 for p in pngs)
    assert result.figures


def test_pid_mass_spring_damper_matches_the_exact_response():
    result = load_example("pid_mass_spring_damper").main(T=10.0)
    assert abs(result["pos.y"][-1] - 1.000683661) < 1e-6


def test_first_order_loop_is_a_first_order_lag():
    module = load_example("first_order_loop")
    result = module.main(T=3.0, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(result["x.y"], 1 - np.exp(-module.GAIN * result.t), atol=1e-8)


def test_van_der_pol_matches_a_tight_radau_reference():
    module = load_example("van_der_pol")
    result = module.main(T=10.0, rtol=1e-9, atol=1e-11)
    mu = module.MU
    ref = solve_ivp(lambda t, y: [y[1], mu * (1 - y[0] ** 2) * y[1] - y[0]], (0, 10.0),
                    [module.X0, module.V0], method="Radau", rtol=1e-11, atol=1e-13,
                    dense_output=True)
    np.testing.assert_allclose(result["x.y"], ref.sol(result.t)[0], atol=1e-6)
    # the limit cycle: amplitude about 2
    assert 1.95 < np.max(np.abs(result["x.y"][result.t > 5])) < 2.05
    assert math.isclose(result["v.y"][0], module.V0)


def test_multirate_sampling_holds_each_rate_and_delays_one_slow_sample():
    module = load_example("multirate_sampling")
    result = module.main(T=3.0)
    t = result.t
    np.testing.assert_allclose(t, np.arange(31) * 0.1, atol=1e-12)   # union of both clocks
    sine = np.sin(2 * np.pi * module.FREQUENCY * t)
    np.testing.assert_allclose(result["fast.y"], sine, atol=1e-12)
    slow_k = np.floor(t / 0.3 + 1e-9)
    np.testing.assert_allclose(result["slow.y"], np.sin(2 * np.pi * module.FREQUENCY * 0.3
                                                         * slow_k), atol=1e-12)
    delayed = np.where(slow_k >= 1, np.sin(2 * np.pi * module.FREQUENCY * 0.3 * (slow_k - 1)),
                       0.0)
    np.testing.assert_allclose(result["delay.y"], delayed, atol=1e-12)


def test_relay_thermostat_cycles_within_the_hysteresis_band():
    module = load_example("relay_thermostat")
    result = module.main(T=3600.0)
    temp, power = result["temp.y"], result["heater.y"]
    warm = result.t > 700.0
    lo, hi = module.SETPOINT - module.HYSTERESIS, module.SETPOINT + module.HYSTERESIS
    assert temp[warm].min() > lo - 1e-6 and temp[warm].max() < hi + 1e-6
    switches = np.flatnonzero(np.diff(power)) + 1
    assert len(switches) == result.stats["nevents"] > 10
    # each switch happens exactly on a threshold (located zero crossing)
    np.testing.assert_allclose(np.abs(temp[switches] - module.SETPOINT), module.HYSTERESIS,
                               atol=1e-6)
