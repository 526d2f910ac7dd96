"""Fixtures of the block tests."""

from __future__ import annotations

import pytest
from numba.core.runtime import _nrt_python


@pytest.fixture
def nrt_stats():
    """numba's NRT allocation statistics enabled for the test."""
    was = _nrt_python.memsys_stats_enabled()
    _nrt_python.memsys_enable_stats()
    yield
    if not was:
        _nrt_python.memsys_disable_stats()
