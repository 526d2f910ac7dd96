"""Shared test setup: headless matplotlib."""

import matplotlib

matplotlib.use("Agg")
