"""README.md stays short (at most 300 lines: what proctor is, the two commands, a tour, links) and
every relative link of README.md and docs/*.md reaches a file, and a heading where it names one."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from support.doc_blocks import REPO, pages

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def _slug(heading: str) -> str:
    """Python-Markdown's toc slug (what the site links to); GitHub's agrees on plain headings."""
    text = re.sub(r"`([^`]*)`", r"\1", heading)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def _anchors(page: Path) -> set[str]:
    lines, inside = [], False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            inside = not inside
        elif not inside:
            lines.append(line)
    return {_slug(m[1]) for line in lines if (m := HEADING.match(line))}


def _links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    return [m[1] for m in LINK.finditer(re.sub(r"`[^`\n]*`", "", text))]


def test_the_readme_is_at_most_300_lines() -> None:
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines; move text to docs/"


def test_the_slug_is_the_sites() -> None:
    assert _slug("Beyond one machine: Ray") == "beyond-one-machine-ray"
    assert _slug("`proctor gate`, step by step") == "proctor-gate-step-by-step"


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for link in _links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", link):  # http:, https:, mailto:
            continue
        path, _, anchor = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        if not target.exists():
            broken.append(f"{link}: no such file")
        elif anchor and target.suffix == ".md" and anchor not in _anchors(target):
            broken.append(f"{link}: no heading #{anchor} in {target.relative_to(REPO)}")
    assert not broken, f"{page.relative_to(REPO)}: " + "; ".join(broken)


def test_the_link_reader_finds_what_it_must() -> None:
    page = REPO / "README.md"
    assert _links(page), "README.md links to its documentation pages"
