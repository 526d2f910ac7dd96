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


def test_vrep_arm_sync_is_the_sampled_joint_velocity_loop():
    module = load_example("vrep_arm_sync")
    result = module.main(T=2.5)
    t, dt, kp = result.t, module.DT, module.KP
    np.testing.assert_allclose(t, np.arange(len(t)) * dt, atol=1e-12)
    np.testing.assert_allclose(result["sim.t"], t, atol=1e-12)  # simulator and diagram agree
    # q[k+1] = q[k] + dt (qd_d[k] + Kp (q_d[k] - q[k])), exactly, from the recorded references
    q_d = result["err.y"] + result["arm.q"]
    qd_cmd = result["cmd.y"]
    np.testing.assert_allclose(qd_cmd, result["traj.qd"] + kp * (q_d - result["arm.q"]), atol=1e-12)
    q = np.zeros(6)
    for k in range(len(t) - 1):
        q = q + dt * qd_cmd[k]
        np.testing.assert_allclose(result["arm.q"][k + 1], q, atol=1e-12)
    # once the trajectory has ended the error decays by 1 - Kp dt = 0.8 per step
    e = result["err.y"][t >= 2.0 - 1e-9]
    np.testing.assert_allclose(e[1:], (1 - kp * dt) * e[:-1], rtol=1e-6, atol=1e-15)
    assert np.abs(result["err.y"]).max() < 1e-3


def test_arbotix_replay_reproduces_the_recorded_run_bit_for_bit(tmp_path):
    from blocksim.hardware import SessionLog

    module = load_example("arbotix_replay")
    live = module.record(tmp_path / "again.json")  # the recording, made again on the emulator
    fresh = SessionLog.load(tmp_path / "again.json", kind="serial")
    shipped = SessionLog.load(module.SESSION, kind="serial")
    # the shipped file is what the emulator answers: the same bytes each way (how the reads
    # were chunked, and which polls came back empty, depends on the machine's load)
    for kinds in (("w",), ("r", "d")):
        a = b"".join(e[1] for e in fresh.entries if e[0] in kinds)
        b = b"".join(e[1] for e in shipped.entries if e[0] in kinds)
        assert a == b
    replayed = module.main()
    assert replayed.signals == live.signals
    for s in live.signals:
        np.testing.assert_array_equal(replayed[s], live[s])
    short = module.main(T=1.0)  # any shorter horizon replays a prefix
    np.testing.assert_array_equal(short["arm.q"], live["arm.q"][: len(short.t)])
