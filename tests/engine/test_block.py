"""The block contract: port tables, parameter checking, feedthrough, states."""

import numpy as np
import pytest

from blocksim import Block, BlockParameterError, Port
from blocksim.blocks import PID, Gain, Integrator, Sum

from .helpers import Lag, SplitFeed


def test_unknown_keyword_names_class_and_lists_valid_keywords():
    with pytest.raises(BlockParameterError, match=r"Gain: unknown parameter 'Kk'.*did you mean "
                                                  r"'K'.*valid parameters: K"):
        Gain(Kk=2.0)
    with pytest.raises(BlockParameterError, match=r"Lag: unknown parameter 'taux'.*valid "
                                                  r"parameters: tau, x0"):
        Lag(taux=1.0)


def test_too_many_positional_arguments_is_a_parameter_error():
    with pytest.raises(BlockParameterError, match="Lag"):
        Lag(1.0, 0.0, 3.0)


def test_params_record_the_constructor_call_with_defaults():
    assert Lag(tau=2.0).params == {"tau": 2.0, "x0": 0.0}
    pid = PID(Kp=3.0)
    assert pid.params["Kp"] == 3.0 and pid.params["N"] == 100.0


def test_class_level_port_tables_are_normalised_to_ports():
    assert Lag.inputs == (Port("u"),)
    assert [p.name for p in Sum("+-+").inputs] == ["u0", "u1", "u2"]


def test_duplicate_port_names_are_rejected():
    with pytest.raises(BlockParameterError, match="duplicate input port name"):
        class Bad(Block):
            inputs = ("a", "a")


def test_default_feedthrough_stateless_reads_all_stateful_reads_none():
    assert Gain(2.0).output_feedthrough() == {"y": ("u",)}
    assert Integrator().output_feedthrough() == {"y": ()}
    assert SplitFeed().output_feedthrough() == {"state": (), "echo": ("u",)}


def test_states_and_names():
    lag = Lag(x0=0.5)
    assert lag.nx == 1 and lag.state_names == ("y",)
    np.testing.assert_array_equal(lag.x0, [0.5])
    with pytest.raises(BlockParameterError, match="2 state names for 1 states"):
        lag.set_state([1.0], ["a", "b"])


def test_block_methods_are_pure_and_return_values():
    lag = Lag(tau=2.0)
    x = np.array([1.0])
    assert lag.output(0.0, x, (3.0,)) == (1.0,)
    assert lag.deriv(0.0, x, (3.0,)) == [1.0]
    np.testing.assert_array_equal(x, [1.0])


def test_a_period_given_as_clock_is_a_clock_and_the_block_updates():
    """``self.clock = 0.01`` (a float, as docs/writing-blocks.md allows) must clock the block,
    not leave it silently continuous with its x0 forever."""
    import numpy as np

    from blocksim import Diagram, simulate
    from blocksim.engine.block import Block
    from blocksim.engine.clock import Clock
    from blocksim.engine.errors import BlockParameterError

    class Counter(Block):
        outputs = ("y",)

        def __init__(self, clock=0.01):
            super().__init__()
            self.x0 = np.zeros(1)
            self.clock = clock

        def output(self, t, x, u):
            return [x[0]]

        def update(self, t, x, u):
            return x + 1.0

    class Tens(Counter):
        clock = 0.1

        def __init__(self):
            Block.__init__(self)
            self.x0 = np.zeros(1)

    assert Counter().clock == Clock(0.01) and Counter((0.5, 0.25)).clock == Clock(0.5, 0.25)
    assert Tens.clock == Clock(0.1)
    d = Diagram("count")
    d.add(Counter(0.01), name="c")
    d.add(Tens(), name="t")
    r = simulate(d, 0.1, backend="interpreted")
    assert r["c.y"][-1] == 10.0 and r["t.y"][-1] == 1.0
    for bad in ("fast", True, -1.0, float("nan")):
        with pytest.raises(BlockParameterError, match="Counter"):
            Counter(bad)
