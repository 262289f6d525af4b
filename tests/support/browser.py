"""Headless Chromium for the page tests: Debian's chromium + chromium-driver through Selenium.

Selenium Manager is never asked to download anything: the driver and the browser are named by
path. Tests skip, saying why, where either (or selenium) is missing.
"""

from __future__ import annotations

import base64
import importlib.util
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .png import read_png

CHROMIUM = os.environ.get("PROCTOR_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("PROCTOR_CHROMEDRIVER", "/usr/bin/chromedriver")
WINDOW = (1280, 900)
SHOTS_ENV = "PROCTOR_SHOTS_DIR"
"""Set to a folder to keep a copy of each test's screenshot there."""


def missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if importlib.util.find_spec("selenium") is None:
        return "selenium is not installed (pip install -e '.[dev]')"
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            return f"{path} not found (apt-get install {package})"
    return None


def start_browser() -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-extensions",
        "--no-first-run",
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


def browser_fixture() -> Iterator[Any]:
    reason = missing()
    if reason is not None:
        pytest.skip(f"browser tests need headless Chromium: {reason}")
    driver = start_browser()
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def wait_ready(driver: Any, timeout: float = 15.0) -> None:
    """Until the sample browser has drawn its first page."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, timeout).until(
        lambda d: (
            d.execute_script("return document.documentElement.getAttribute('data-browser-ready')")
            == "1"
        )
    )


def wait_text(driver: Any, element_id: str, expected: str, timeout: float = 15.0) -> None:
    """Until the element `element_id` reads `expected`, on a page that may reload meanwhile (the
    progress page reloads itself): the text is read in one script, so an element replaced by a
    reload between finding it and reading it (a stale element) is never read."""
    from selenium.webdriver.support.ui import WebDriverWait

    script = "const e = document.getElementById(arguments[0]); return e ? e.innerText : null"
    WebDriverWait(driver, timeout).until(lambda d: d.execute_script(script, element_id) == expected)


def severe_logs(driver: Any) -> list[str]:
    """Console errors since the last call (CSP violations and script errors show up here)."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def pwned(driver: Any) -> bool:
    return bool(driver.execute_script("return typeof window.__pwned !== 'undefined'"))


def screenshot(driver: Any, path: Path) -> int:
    """Save a screenshot of the window to `path` and return its number of distinct colours
    (every second pixel); raises if the image is blank or nearly so."""
    data = base64.b64decode(driver.get_screenshot_as_base64())
    path.write_bytes(data)
    keep = os.environ.get(SHOTS_ENV)
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, Path(keep) / path.name)
    image = read_png(data)
    assert image.width > 0 and image.height > 0
    colours = image.colours(step=2)
    background = image.rows[0][: image.channels]
    drawn = sum(
        1
        for row in image.rows[::4]
        for x in range(0, image.width * image.channels, image.channels * 4)
        if row[x : x + image.channels] != background
    )
    share = drawn / (len(image.rows[::4]) * len(range(0, image.width, 4)))
    assert len(colours) > 20, f"screenshot looks blank: {len(colours)} colours"
    assert share > 0.02, f"screenshot looks blank: {share:.1%} of pixels differ from the corner"
    return len(colours)
