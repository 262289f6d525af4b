"""The documentation site builds with `mkdocs build --strict` (mkdocs.yml turns every broken link,
unknown anchor and page left out of the nav into a warning, and strict makes a warning fail), and
it builds offline: no plugin fetches anything."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]


def _nav_pages(nav: object) -> list[str]:
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, list):
        return [p for item in nav for p in _nav_pages(item)]
    if isinstance(nav, dict):
        return [p for value in nav.values() for p in _nav_pages(value)]
    raise AssertionError(f"mkdocs.yml: a nav entry that is not a page: {nav!r}")


def test_the_site_builds_strict_without_a_warning(tmp_path: Path) -> None:
    # Never skipped: the dev extra installs mkdocs-material; a missing one is a broken set-up.
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env["NO_MKDOCS_2_WARNING"] = "1"  # mkdocs-material's end-of-life banner, not a build warning
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(REPO / "mkdocs.yml"),
         "-d", str(site)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    log = done.stdout + done.stderr
    assert done.returncode == 0, log
    assert "WARNING" not in log, log
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    for page in _nav_pages(config["nav"]):
        built = site / ("index.html" if page == "index.md" else page[:-3] + "/index.html")
        assert built.is_file(), f"{page} was not built"
    # no page is left out of the nav (mkdocs.yml warns on omitted files too; this says which)
    on_disk = {p.relative_to(REPO / "docs").as_posix() for p in (REPO / "docs").rglob("*.md")}
    assert on_disk == set(_nav_pages(config["nav"]))


def test_the_site_config_fetches_nothing_at_build_time() -> None:
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["theme"]["font"] is False  # no web fonts named in the pages
    assert set(config.get("plugins", [])) <= {"search"}  # search is built in and offline
