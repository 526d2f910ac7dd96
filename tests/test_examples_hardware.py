"""The hardware-in-the-loop examples show what they exist to show, against the emulators."""

import numpy as np

from .examples_loader import load_example


def test_arbotix_phantomx_tracks_the_jtraj_and_replays_bit_for_bit():
    module = load_example("arbotix_phantomx")
    result = module.main(T=2.6)
    assert result.stats["replay_identical"] is True
    # after the move the servos sit on the goal, within one encoder count (1/195.6 rad)
    np.testing.assert_allclose(result["arm.q"][-1], module.Q_GOAL, atol=1 / 195.6)
    # during the move the error is a lag: one period for the sampled read, one for the held
    # goal, the servo's time constant (0.03 s), and one encoder count
    qd_max = 1.875 * np.abs(module.Q_GOAL) / 2.0  # jtraj's peak speed over 2 s
    bound = qd_max * (2 * 0.02 + 0.03) + 1 / 195.6
    assert np.all(np.abs(result["err.y"]).max(axis=0) <= bound)
    assert np.all(np.abs(result["err.y"]).max(axis=0) >= 0.5 * qd_max * 0.02)  # it does lag
    st = result.stats["hardware"]["arm"]
    assert st["exchanges"] == 2 * len(result.t) and st["overruns"] == 0
