"""The exported FMU in its two kinds of host: the example's fmpy re-run (a Python host) and a
C program that loads the FMU's binary like any FMI tool (libpython preloaded)."""

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import numpy as np
import pytest

from blocksim import simulate

from ..examples_loader import load_example

FMI_HEADERS = Path(__import__("fmpy").__file__).parent / "c-code"

C_MASTER = r"""
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "fmi2Functions.h"
static void logger(fmi2ComponentEnvironment e, fmi2String n, fmi2Status s, fmi2String c,
                   fmi2String m, ...) { va_list a; va_start(a, m); vfprintf(stderr, m, a);
                   va_end(a); fprintf(stderr, "\n"); }
#define GET(T, f) T f = (T)dlsym(h, #f); if (!f) { printf("no %s\n", #f); return 2; }
int main(int argc, char **argv) {
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) { printf("dlopen: %s\n", dlerror()); return 2; }
  GET(fmi2InstantiateTYPE*, fmi2Instantiate) GET(fmi2SetupExperimentTYPE*, fmi2SetupExperiment)
  GET(fmi2EnterInitializationModeTYPE*, fmi2EnterInitializationMode)
  GET(fmi2ExitInitializationModeTYPE*, fmi2ExitInitializationMode)
  GET(fmi2DoStepTYPE*, fmi2DoStep) GET(fmi2GetRealTYPE*, fmi2GetReal)
  GET(fmi2SetRealTYPE*, fmi2SetReal) GET(fmi2TerminateTYPE*, fmi2Terminate)
  GET(fmi2FreeInstanceTYPE*, fmi2FreeInstance)
  fmi2CallbackFunctions cb = {logger, calloc, free, NULL, NULL};
  fmi2Component c = fmi2Instantiate("c", fmi2CoSimulation, "", argv[2], &cb, 0, 0);
  if (!c) { printf("instantiate failed\n"); return 2; }
  fmi2ValueReference sp = 0, x = 1;
  fmi2Real two = 2.0, v;
  fmi2SetupExperiment(c, 0, 0, 0, 1, 1.0);
  fmi2EnterInitializationMode(c);
  fmi2SetReal(c, &sp, 1, &two);
  fmi2ExitInitializationMode(c);
  for (int k = 0; k < 20; k++) {
    if (fmi2DoStep(c, k * 0.05, 0.05, 1) != fmi2OK) { printf("doStep failed\n"); return 2; }
    fmi2GetReal(c, &x, 1, &v);
    printf("%.17g\n", v);
  }
  fmi2Terminate(c); fmi2FreeInstance(c);
  return 0;
}
"""


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """The example's FMU (setpoint 2 in fmpy) and blocksim's run of its diagram (setpoint 1)."""
    module = load_example("fmu_export")
    folder = tmp_path_factory.mktemp("fmu")
    trace = module.rerun_in_fmpy(folder / "m.fmu", 1.0, setpoint=2.0)
    ref = simulate(module.build(), 1.0, **module.SOLVER)
    return folder, trace, ref


def test_the_example_reruns_in_fmpy_to_rounding(exported):
    _, trace, ref = exported  # a parameter set in fmpy: the loop is linear in the setpoint
    k = np.searchsorted(ref.t, trace["time"] - 1e-12)
    np.testing.assert_allclose(trace["x"], 2.0 * ref["x.y"][k], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(trace["F"], 2.0 * ref["F.y"][k], rtol=1e-12, atol=1e-12)


def test_a_c_host_runs_the_fmu_with_libpython_preloaded(exported):
    folder, _, ref = exported
    with zipfile.ZipFile(folder / "m.fmu") as z:
        z.extractall(folder / "m")
    src = folder / "master.c"
    src.write_text(C_MASTER)
    exe = folder / "master"
    subprocess.run(["gcc", f"-I{FMI_HEADERS}", str(src), "-o", str(exe), "-ldl"], check=True)
    so = folder / "m" / "binaries" / "linux64" / "fmu_export.so"
    resources = (folder / "m" / "resources").as_uri()
    # the binary needs libpython's symbols from its host: a C host must load libpython
    bare = subprocess.run([str(exe), str(so), resources], capture_output=True, text=True,
                          timeout=60)
    assert bare.returncode == 2 and "undefined symbol" in bare.stdout
    libpython = Path(sysconfig.get_config_var("LIBDIR")) / sysconfig.get_config_var(
        "INSTSONAME")
    env = {**os.environ, "LD_PRELOAD": str(libpython),
           "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    run = subprocess.run([str(exe), str(so), resources], capture_output=True, text=True,
                         timeout=120, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    x = np.array([float(v) for v in run.stdout.split()])
    k = np.searchsorted(ref.t, np.arange(1, 21) * 0.05 - 1e-12)
    np.testing.assert_allclose(x, 2.0 * ref["x.y"][k], rtol=1e-12, atol=1e-14)
