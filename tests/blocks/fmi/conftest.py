"""The test FMUs, compiled with gcc once per test session (shared by the xdist workers)."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

from .models import BUILDS, build_all


@pytest.fixture(scope="session")
def fmus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """name -> path of every test FMU (tests/blocks/fmi/models.py: BUILDS). Under xdist the
    workers share one folder of the session's base temp: the first builds, the others wait
    for it (a file lock) and reuse its FMUs."""
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "fmi-fmus"
    folder.mkdir(exist_ok=True)
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            done = folder / ".built"
            if done.exists():
                return {name: folder / f"{name}.fmu" for name in BUILDS}
            paths = build_all(folder)
            done.touch()
            return paths
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture
def fmu_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A file the test FMUs append 'instantiate', 'terminate' and 'free' to."""
    path = tmp_path / "fmu.log"
    monkeypatch.setenv("BLOCKSIM_FMU_LOG", str(path))
    return path
