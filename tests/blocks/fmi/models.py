"""The test FMUs' model descriptions (their C sources are in fmus/) and a session's builds."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from blocksim.blocks.fmi.build import LINEAR_PLANT, ModelSpec, Variable, build_fmu

FMUS = Path(__file__).with_name("fmus")
V = Variable

BOUNCING_BALL = ModelSpec(
    "bouncing_ball", FMUS / "bouncing_ball.c",
    (V("time", "independent", unit="s"),
     V("h", "output", start=1.0, unit="m", depends=("h",), description="height"),
     V("der(h)", unit="m/s", derivative_of="h"),
     V("v", "output", start=0.0, unit="m/s", depends=("v",), description="velocity"),
     V("der(v)", unit="m/s2", derivative_of="v"),
     V("g", "parameter", "fixed", 9.81, unit="m/s2"),
     V("e", "parameter", "tunable", 0.7, description="coefficient of restitution")),
    event_indicators=1, stop_time=2.0, description="a ball bouncing on the floor")

VAN_DER_POL = ModelSpec(
    "van_der_pol", FMUS / "van_der_pol.c",
    (V("time", "independent", unit="s"),
     V("x0", "output", start=2.0, depends=("x0",)),
     V("der(x0)", derivative_of="x0"),
     V("x1", "output", start=0.0, depends=("x1",)),
     V("der(x1)", derivative_of="x1"),
     V("mu", "parameter", "fixed", 1.0),
     V("mu2", "parameter", "fixed", 3.0),
     V("period", "parameter", "fixed", 2.0, unit="s"),
     V("mu_now", "local", "discrete"),
     V("fail_time", "parameter", "fixed", 1e300, unit="s")),
    stop_time=5.0, description="Van der Pol's oscillator, its damping switched by time events")

#: name -> (spec, FMI version, interface) of every FMU the tests build
BUILDS = {
    "ball": (BOUNCING_BALL, "2.0", "ME"),
    "vdp": (VAN_DER_POL, "2.0", "ME"),
    "vdp3": (VAN_DER_POL, "3.0", "ME"),
    "plant3": (LINEAR_PLANT, "3.0", "ME"),
    "plant_cs2": (LINEAR_PLANT, "2.0", "CS"),
    "plant_cs3": (LINEAR_PLANT, "3.0", "CS"),
}


def build_all(folder: Path) -> dict[str, Path]:
    """Every FMU of :data:`BUILDS` built into ``folder``, by name (gcc runs two at a time)."""
    with ThreadPoolExecutor(2) as pool:
        jobs = {name: pool.submit(build_fmu, spec, folder / f"{name}.fmu", version, kind)
                for name, (spec, version, kind) in BUILDS.items()}
        return {name: job.result() for name, job in jobs.items()}
