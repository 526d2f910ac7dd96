"""The run limits hold *during* a compiled adaptive run (its step count is not known
beforehand): max_memory bounds the recording and max_steps the steps, the run ends with a
RunLimitError that keeps everything recorded, and Ctrl-C still stops it."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from blocksim import simulate
from blocksim.engine.limits import RunLimitError
from blocksim.io import load

VDP = Path(__file__).parents[3] / "diagrams" / "van_der_pol.json"


@pytest.fixture(scope="module")
def vdp():
    return load(VDP).diagram


def test_max_memory_ends_an_adaptive_compiled_run_with_its_recording_kept(vdp):
    with pytest.raises(RunLimitError) as info:
        simulate(vdp, T=1e8, backend="compiled", fuse=False, max_memory=2_000_000)
    err = info.value
    assert err.limit == "max_memory" and "max_memory" in str(err)
    r = err.result
    row_bytes = 8 * (1 + 2 + len(r.signals))  # compiled rows: t, 2 states, every signal
    assert 0.5 * 2_000_000 / row_bytes <= len(r.t) <= 2_000_000 / row_bytes
    assert np.all(np.diff(r.t) > 0) and r.t[-1] > 1.0
    assert np.all(np.isfinite(r.x))


def test_max_steps_ends_an_adaptive_compiled_run_with_its_recording_kept(vdp):
    with pytest.raises(RunLimitError) as info:
        simulate(vdp, T=1e8, backend="compiled", fuse=False, max_steps=5000)
    err = info.value
    assert err.limit == "max_steps" and "max_steps = 5000" in str(err)
    assert err.result.stats["nsteps"] == 5000
    ref = simulate(vdp, T=float(err.result.t[-1]), backend="compiled", fuse=False)
    np.testing.assert_allclose(err.result.x[-1], ref.x[-1], rtol=1e-6, atol=1e-6)


def test_a_limit_in_a_batch_member_is_that_members_error(vdp):
    from blocksim import simulate_batch
    from blocksim.engine.batch import grid

    batch = simulate_batch(vdp, grid({"mu.K": [0.5, 1.0]}), T=1e8, backend="compiled",
                           max_steps=2000, max_memory=1e9, record_dt=1e6)
    assert list(batch.status) == ["failed", "failed"]
    assert all("max_steps = 2000" in e.message for e in batch.errors), batch.errors


def test_ctrl_c_stops_a_long_adaptive_compiled_run_and_keeps_its_data(tmp_path):
    out = tmp_path / "part.npz"
    proc = subprocess.Popen(
        [sys.executable, "-m", "blocksim.cli", "run", str(VDP), "--backend", "compiled",
         "--T", "1e9", "--max-steps", "1e10", "--record-dt", "1e6", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path,
        env={**os.environ, "BLOCKSIM_BACKGROUND_FUSE": "0"},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(8)  # past its start: the loop is in numba's cache (the tests above)
    assert proc.poll() is None, proc.communicate()[0]
    proc.send_signal(signal.SIGINT)
    try:
        text, _ = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130, text
    assert "Traceback" not in text and out.exists(), text
