"""A thermostat: a relay with hysteresis switching a heater in a room that loses heat.

Room: ``C dT/dt = P - (T - T_out) / R`` with C = 2e5 J/K, R = 0.01 K/W, T_out = 5 degC and
heater power P = 3 kW when on. The :class:`Relay` turns the heater on when the temperature error
(setpoint - T) rises to +0.5 K and off when it falls to -0.5 K, so after warming up the room
cycles between 19.5 and 20.5 degC. The switching instants are located as zero crossings.

What to look at: the temperature rising from ``T0`` and then cycling in the band ``SETPOINT -+
HYSTERESIS``, and the heater's on/off power, each switch exactly on a threshold.

Try next: narrow ``HYSTERESIS`` (the heater switches more often), lower ``POWER`` or ``OUTSIDE``
until the heater can no longer hold the setpoint.

Run ``python examples/relay_thermostat.py`` to write ``relay_thermostat.png``.
"""

from __future__ import annotations

from pathlib import Path

from blocksim import Diagram, SimResult, simulate
from blocksim.blocks import Constant, Gain, Integrator, Relay, Sum
from blocksim.blocks.sinks.wiring import add_scope

CAPACITY = 2.0e5  # J/K
RESISTANCE = 0.01  # K/W
OUTSIDE = 5.0  # degC
SETPOINT = 20.0  # degC
POWER = 3000.0  # W
HYSTERESIS = 0.5  # K
T0 = 15.0  # degC


def build(scope_file: str | Path | None = None, show: bool = False) -> Diagram:
    """setpoint - T -> Relay -> heater power -> room heat balance -> T."""
    d = Diagram("relay_thermostat")
    setpoint = d.add(Constant(SETPOINT), name="setpoint")
    outside = d.add(Constant(OUTSIDE), name="outside")
    error = d.add(Sum("+-"), name="error")
    relay = d.add(Relay(on_point=HYSTERESIS, off_point=-HYSTERESIS, on_value=POWER,
                        off_value=0.0, x0=1), name="heater")  # starts on: room is cold
    delta = d.add(Sum("+-"), name="delta")
    loss = d.add(Gain(1.0 / RESISTANCE), name="loss")
    balance = d.add(Sum("+-"), name="balance")
    inv_c = d.add(Gain(1.0 / CAPACITY), name="inv_c")
    temp = d.add(Integrator(x0=T0), name="temp")
    d.connect(setpoint, error["u0"])
    d.connect(temp, error["u1"], delta["u0"])
    d.connect(outside, delta["u1"])
    d.connect(error, relay)
    d.connect(delta, loss)
    d.connect(relay, balance["u0"])
    add_scope(d, [temp, relay], labels=["T", "P"], units=["degC", "W"], stairs=[False, True],
              title="relay thermostat", file=scope_file, show=show)  # fmt: skip
    d.connect(loss, balance["u1"])
    d.connect(balance, inv_c)
    d.connect(inv_c, temp)
    return d


def main(T: float = 3600.0, show: bool = False, out_dir: str | Path | None = None,
         **options) -> SimResult:
    """Simulate ``T`` seconds (default one hour); save the scope PNG in ``out_dir``."""
    scope_file = Path(out_dir) / "relay_thermostat.png" if out_dir is not None else None
    return simulate(build(scope_file, show), T, **options)


if __name__ == "__main__":
    res = main(out_dir=".")
    print(f"{res.stats['nevents']} heater switchings in {res.t[-1]:g} s; final T = "
          f"{res['temp.y'][-1]:.3f} degC")
