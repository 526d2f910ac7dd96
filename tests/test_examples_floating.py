"""The floating-base examples show what they exist to show: the free-floating arm reaches its
target while the spacecraft turns and the system's centre of mass stays put; with the base
held, the floating-base dynamics move exactly like the step-5 RNE arm."""

from __future__ import annotations

import numpy as np

from .examples_loader import load_example


def test_free_floating_reach_turns_the_base_and_keeps_the_centre_of_mass():
    module = load_example("floating_arm_reach")
    res = module.main(T=1.5, rtol=1e-8, atol=1e-10)
    err = np.linalg.norm(res["e.y"], axis=1)
    assert err[-1] < 0.35 * err[0]
    turned = np.degrees(np.abs(res["attitude.y"][-1]))
    assert turned.max() > 0.5  # the reaction: the spacecraft turned by a visible angle
    com = res["kin.com"]
    np.testing.assert_allclose(com, np.broadcast_to(com[0], com.shape), atol=1e-7)


def test_held_base_matches_the_rne_arm():
    module = load_example("floating_arm_fixed_base")
    res = module.main(T=1.0, rtol=1e-9, atol=1e-12)
    assert np.abs(res["dq.y"]).max() < 1e-9
    err = np.linalg.norm(res["e.y"], axis=1)
    assert err[-1] < 0.5 * err[0]
