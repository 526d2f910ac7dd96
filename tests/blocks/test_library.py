"""The library's layout: families in subpackages, every block re-exported by
:mod:`blocksim.blocks`, no module left at a pre-family path."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import blocksim.blocks as library
from blocksim.engine.block import Block

FAMILIES = ("sources", "sinks", "continuous", "discrete", "math", "routing", "nonlinear",
            "lookup", "events")
#: modules of the flat layout before the families (a stale import of one must fail)
OLD_MODULES = ("arithmetic", "arithmetic_kernels", "calculus", "continuous_kernels",
               "continuous_params", "discrete_base", "discrete_calculus", "discrete_kernels",
               "discrete_linear", "discrete_pid", "discretization", "functions", "linear",
               "noise", "nonlinear_base", "nonlinear_kernels", "nonlinear_numerics", "pid",
               "quantize", "rate_limits", "routing_kernels", "sample_hold", "saturation",
               "second_order", "signal_sources", "sinks_anim", "source_base", "switching",
               "tables", "waveform")
#: post-run animation sinks, exported by blocksim.blocks.sinks only
ANIMATIONS = {"ArmPlot", "ImagePlane"}


def _family_modules(family: str) -> list:
    package = importlib.import_module(f"blocksim.blocks.{family}")
    return [importlib.import_module(f"{package.__name__}.{info.name}")
            for info in pkgutil.iter_modules(package.__path__)]


@pytest.mark.parametrize("family", FAMILIES)
def test_every_block_of_a_family_is_exported(family):
    package = importlib.import_module(f"blocksim.blocks.{family}")
    for module in _family_modules(family):
        for name, obj in vars(module).items():
            defined_here = inspect.isclass(obj) and obj.__module__ == module.__name__
            if defined_here and issubclass(obj, Block) and not name.startswith("_"):
                assert getattr(package, name) is obj, (family, name)
                if name not in ANIMATIONS:
                    assert getattr(library, name) is obj, name
                    assert name in library.__all__, name


@pytest.mark.parametrize("name", OLD_MODULES)
def test_no_module_at_an_old_path(name):
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(f"blocksim.blocks.{name}")


def test_blocks_of_the_sources_math_routing_and_lookup_families_define_kernels():
    for family in ("sources", "math", "routing", "lookup", "events"):
        for module in _family_modules(family):
            for name in getattr(module, "__all__", ()):
                obj = getattr(module, name)
                if inspect.isclass(obj) and issubclass(obj, Block):
                    assert "kernels" in vars(obj), name
