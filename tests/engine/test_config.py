"""RunConfig: every run option typed and validated once, with clear messages."""

import dataclasses
import math

import numpy as np
import pytest

from blocksim.engine.config import RunConfig, resolve_config


def test_defaults_and_numbers_stored_as_floats():
    c = RunConfig(T=2)
    assert c == RunConfig(T=2.0, solver="RK45", rtol=1e-6, atol=1e-9, max_step=math.inf,
                          dt=None, record_dt=None, event_tol=1e-10, realtime=None,
                          backend="interpreted")
    fixed = RunConfig(T=np.int64(3), solver="rk4", dt=1, record_dt=np.float32(0.5))
    assert type(fixed.T) is float and type(fixed.dt) is float
    assert type(fixed.record_dt) is float and fixed.record_dt == 0.5
    assert fixed.fixed_step and not c.fixed_step


def test_is_frozen_and_replace_validates_again():
    c = RunConfig(T=1.0, solver="rk4", dt=0.1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.T = 2.0  # type: ignore[misc]
    assert dataclasses.replace(c, T=5.0).T == 5.0
    with pytest.raises(ValueError, match=r"`dt` is the step of the fixed-step solvers"):
        dataclasses.replace(c, solver="RK45")


@pytest.mark.parametrize("kwargs, match", [
    (dict(T=-1.0), r"`T` \(final time, s\) must be a finite number >= 0, got -1.0"),
    (dict(T=math.inf), r"`T` \(final time, s\) must be a finite number >= 0"),
    (dict(T=True), r"`T` \(final time, s\) must be a finite number >= 0, got True"),
    (dict(T="5"), r"`T` \(final time, s\) must be a finite number >= 0, got '5'"),
    (dict(T=1.0, solver="RK54"), r"unknown solver 'RK54' \(did you mean 'RK45'\?\); choose "
                                 r"one of RK45, RK23, DOP853, Radau, BDF, LSODA, euler, rk4"),
    (dict(T=1.0, solver="RK4"), r"unknown solver 'RK4' \(did you mean 'rk4'\?\)"),
    (dict(T=1.0, solver=None), r"unknown solver None"),
    (dict(T=1.0, solver="rk4"), r"solver 'rk4' is fixed-step and needs `dt`"),
    (dict(T=1.0, solver="euler", dt=0.0), r"`dt` must be a positive number, got 0.0"),
    (dict(T=1.0, dt=0.1), r"`dt` is the step of the fixed-step solvers \(euler, rk4\); with "
                          r"'RK45' bound the step with `max_step` instead"),
    (dict(T=1.0, rtol=0.0), r"`rtol` must be a positive number, got 0.0"),
    (dict(T=1.0, atol=-1e-9), r"`atol` must be a positive number"),
    (dict(T=1.0, atol=math.nan), r"`atol` must be a positive number, got nan"),
    (dict(T=1.0, max_step=0), r"`max_step` must be a positive number, got 0"),
    (dict(T=1.0, record_dt=-0.1), r"`record_dt` must be a positive number"),
    (dict(T=1.0, event_tol=0.0), r"`event_tol` must be a positive number"),
    (dict(T=1.0, realtime=0.0), r"`realtime` must be a positive speed factor \(1.0 = real "
                                r"time\), got 0.0"),
    (dict(T=1.0, backend="compild"), r"`backend` must be 'interpreted', 'compiled' or 'auto', "
                                     r"got 'compild' \(did you mean 'compiled'\?\)"),
    (dict(T=1.0, realtime=1.0, backend="compiled"), r"real-time pacing \(`realtime`\) needs "
                                                    r"the interpreted back-end"),
])
def test_bad_options_are_rejected_with_clear_messages(kwargs, match):
    with pytest.raises(ValueError, match=match):
        RunConfig(**kwargs)


def test_an_unbounded_max_step_and_realtime_with_auto_are_valid():
    assert RunConfig(T=1.0, max_step=math.inf).max_step == math.inf
    assert RunConfig(T=1.0, realtime=2, backend="auto").realtime == 2.0


def test_from_mapping_names_unknown_and_missing_options():
    c = RunConfig.from_mapping({"T": 1, "solver": "euler", "dt": 0.01})
    assert c == RunConfig(T=1.0, solver="euler", dt=0.01)
    assert RunConfig(**c.to_dict()) == c
    with pytest.raises(ValueError, match=r"unknown run option 'rtl' \(did you mean 'rtol'\?\)"):
        RunConfig.from_mapping({"T": 1.0, "rtl": 1e-3})
    with pytest.raises(ValueError, match=r"the final time `T` \[s\] is missing"):
        RunConfig.from_mapping({"solver": "RK45"})


def test_resolve_config_takes_keywords_or_a_config_but_not_both():
    c = RunConfig(T=2.0, solver="rk4", dt=0.1)
    assert resolve_config(2.0, None, {"solver": "rk4", "dt": 0.1}) == c
    assert resolve_config(None, c, {"solver": "RK45", "dt": None}) is c
    assert resolve_config(c, None, {}) is c
    batch_defaults = {"backend": "auto"}
    assert resolve_config(None, c, {"backend": "auto"}, batch_defaults) is c
    with pytest.raises(ValueError, match=r"either in `config` or as keywords, not both; got "
                                         r"`config` and `T`, `rtol`"):
        resolve_config(3.0, c, {"rtol": 1e-3})
    with pytest.raises(ValueError, match=r"got `config` and `backend`"):
        resolve_config(None, c, {"backend": "interpreted"}, batch_defaults)
    with pytest.raises(ValueError, match=r"give the run configuration once"):
        resolve_config(c, c, {})
    with pytest.raises(TypeError, match=r"`config` must be a RunConfig, got dict"):
        resolve_config(None, {"T": 1.0}, {})  # type: ignore[arg-type]
