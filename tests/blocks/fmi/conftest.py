"""The test FMUs, compiled with gcc once per test session (per worker)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .models import build_all


@pytest.fixture(scope="session")
def fmus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """name -> path of every test FMU (tests/blocks/fmi/models.py: BUILDS)."""
    return build_all(tmp_path_factory.mktemp("fmus"))


@pytest.fixture
def fmu_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A file the test FMUs append 'instantiate', 'terminate' and 'free' to."""
    path = tmp_path / "fmu.log"
    monkeypatch.setenv("BLOCKSIM_FMU_LOG", str(path))
    return path
