"""Record Pinocchio's aba and rnea on diagrams/urdf/spacecraft_panda.urdf as a test fixture.

Run from the repository root with the pip package ``pin`` installed; writes
tests/data/floating/pinocchio_spacecraft_panda.json.
"""

import json

import numpy as np
import pinocchio as pin

rng = np.random.default_rng(2026)
path = "diagrams/urdf/spacecraft_panda.urdf"
out = {
    "source": (
        f"pinocchio {pin.__version__} (pip package pin), pin.aba / pin.rnea on {path}, "
        "free-flyer root joint for the floating cases, fixed root for the fixed cases; "
        "gravity [0, 0, -9.81] (Pinocchio's sign)"
    ),
    "floating": [],
    "fixed": [],
}
mf = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
df = mf.createData()
mx = pin.buildModelFromUrdf(path)
dx = mx.createData()
for _ in range(3):
    q = pin.randomConfiguration(mf)
    q[:3] = rng.normal(size=3)
    q[7:] = rng.uniform(-1.5, 1.5, 7)
    v = rng.normal(size=mf.nv)
    tau = rng.normal(size=mf.nv)
    tau[:6] = 0.0  # unactuated base
    a = pin.aba(mf, df, q, v, tau)
    out["floating"].append(dict(q=q.tolist(), v=v.tolist(), tau=tau.tolist(), a=a.tolist()))
for _ in range(3):
    q = rng.uniform(-1.5, 1.5, 7)
    v = rng.normal(size=7)
    qdd = rng.normal(size=7)
    tau = pin.rnea(mx, dx, q, v, qdd)
    out["fixed"].append(dict(q=q.tolist(), v=v.tolist(), qdd=qdd.tolist(), tau=tau.tolist()))
with open("tests/data/floating/pinocchio_spacecraft_panda.json", "w") as f:
    json.dump(out, f, indent=1)
