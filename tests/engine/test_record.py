"""The recorder of the interpreted back-end: what a run recorded, whatever stops it."""

import numpy as np
import pytest

from blocksim.engine.record import Recorder


class _CtrlCWhenCopied:
    """A state whose copy is interrupted, as Ctrl-C arriving inside Recorder.record would."""

    def __array__(self, dtype=None, copy=None):
        raise KeyboardInterrupt


def test_a_point_interrupted_while_recorded_is_dropped_and_the_rest_kept():
    rec = Recorder(["a", "v"], array_slots=[1], nx=2)
    for k in range(3):
        rec.record(0.1 * k, np.array([k, -k], dtype=float), [float(k), np.full(2, k)])
    with pytest.raises(KeyboardInterrupt):
        rec.record(0.3, _CtrlCWhenCopied(), [3.0, np.full(2, 3.0)])
    assert len(rec.t) == 4  # the time went in before the interruption
    r = rec.result(["x0", "x1"], {}, {}, "interrupted")
    assert r.t.tolist() == [0.0, 0.1, 0.2]
    assert r.x.shape == (3, 2)
    assert r["a"].tolist() == [0.0, 1.0, 2.0]
    assert r["v"].shape == (3, 2)
    # the recorder itself is consistent again: recording goes on from there
    rec.record(0.3, np.zeros(2), [3.0, np.full(2, 3.0)])
    assert rec.result(["x0", "x1"], {}, {}).t.tolist() == [0.0, 0.1, 0.2, 0.3]
