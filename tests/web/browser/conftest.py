"""The editor page in a real browser: Debian's chromium driven by selenium (nothing is
downloaded: the driver and the browser are the system's), one browser per test module, a
fresh in-thread editor server per test."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from blocksim.web.assets import STATIC_DIR
from tests.web.conftest import DIAGRAMS, start

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
DOCS_IMAGES = Path(__file__).resolve().parents[3] / "docs" / "images"


@pytest.fixture(scope="module")
def driver() -> Iterator[webdriver.Chrome]:
    profile = tempfile.mkdtemp(prefix="blocksim-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--window-size=1400,900",
                 f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    try:
        yield drv
    finally:
        drv.quit()
        shutil.rmtree(profile, ignore_errors=True)


class Page:
    """The editor opened in the browser on a server of its own."""

    def __init__(self, driver: webdriver.Chrome, server: Any, client: Any, folder: Path):
        self.driver, self.server, self.client, self.folder = driver, server, client, folder

    def wait(self, cond: Any, timeout: float = 10.0) -> Any:
        """cond's value once it is true; on a timeout a screenshot of the page is left in
        the test's folder (failure.png) and the browser's messages are in the error."""
        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.05).until(cond)
        except TimeoutException:
            self.driver.save_screenshot(str(self.folder / "failure.png"))
            raise TimeoutException(f"page still not as expected after {timeout} s "
                                   f"(screenshot {self.folder / 'failure.png'}); browser: "
                                   f"{self.driver.get_log('browser')}") from None

    def find(self, css: str, timeout: float = 10.0) -> Any:
        return self.wait(lambda d: d.find_element(By.CSS_SELECTOR, css), timeout)

    def all(self, css: str) -> list[Any]:
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def block(self, name: str) -> Any:
        return self.find(f'[data-block="{name}"]')

    def port(self, end: str) -> Any:
        return self.find(f'[data-port="{end}"]')

    def action(self, name: str) -> Any:
        return self.find(f'[data-action="{name}"]')

    def wires(self) -> set[str]:
        return {e.get_attribute("data-wire") for e in self.all("[data-wire]")}

    def blocks(self) -> set[str]:
        return {e.get_attribute("data-block") for e in self.all("[data-block]")}

    def errors(self) -> list[str]:
        """Severe messages of the browser's console (script errors, CSP refusals)."""
        return [e["message"] for e in self.driver.get_log("browser") if e["level"] == "SEVERE"]

    def screenshot(self, tmp_path: Path, name: str) -> Path:
        """A PNG of the page in tmp_path (and docs/images with BLOCKSIM_SCREENSHOTS=1)."""
        out = tmp_path / f"editor-{name}.png"
        self.driver.save_screenshot(str(out))
        data = out.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000, out
        if os.environ.get("BLOCKSIM_SCREENSHOTS") == "1":
            DOCS_IMAGES.mkdir(parents=True, exist_ok=True)
            shutil.copy(out, DOCS_IMAGES / out.name)
        return out


@pytest.fixture
def open_editor(driver: webdriver.Chrome, tmp_path: Path) -> Iterator[Any]:
    """open_editor(file=None, copy=(...)) -> Page: a server in tmp_path (the files of
    ``copy`` from diagrams/ copied there) and the page loaded."""
    servers: list[Any] = []

    def opener(file: str | None = None, copy: tuple[str, ...] = ()) -> Page:
        for name in copy:
            shutil.copy(DIAGRAMS / name, tmp_path / name)
        server, client = start(tmp_path, file, static_dir=STATIC_DIR)
        servers.append(server)
        driver.get_log("browser")  # forget the previous page's messages
        driver.get(server.url)
        page = Page(driver, server, client, tmp_path)
        page.find(".react-flow__renderer")
        return page

    yield opener
    driver.get("about:blank")
    for s in servers:
        s.shutdown()
        s.server_close()
