"""The fenced code blocks of README.md and docs/*.md, with the marks that say how a test runs them.

A mark is an HTML comment on the line just before the fence (the site and GitHub hide it):

    <!-- run -->                         run the block (bash: with `set -e`; python: as a script)
    <!-- run: exit=2 expect="ok." -->    … it must exit 2 and print "ok." (stdout or stderr)
    <!-- run: sub="M=>fake/const:7" -->  … with every "M" of the block replaced first (repeatable)
    <!-- file: my_tasks.py -->           write the block to that file of the page's folder
    <!-- norun: REASON -->               never run, and the reason why (required for python)

A page's blocks share one temporary folder, in the order they are written, so a later block sees
the files an earlier one wrote (`file:` blocks, a `proctor generate -o set.jsonl`)."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w+-]*)[^\n]*$")
MARK = re.compile(r"^\s*<!--\s*(?P<kind>run|file|norun)\b:?(?P<args>.*?)-->\s*$")
RUNNABLE = {"bash", "python"}


@dataclass(frozen=True)
class Block:
    """One fenced block: where it is, its language and text, and what its mark asks."""

    page: Path
    line: int  # 1-based line of the opening fence
    lang: str
    code: str
    kind: str = ""  # "run", "file", "norun" or "" (no mark)
    exit: int = 0
    expect: tuple[str, ...] = ()
    subs: tuple[tuple[str, str], ...] = ()
    target: str = ""  # `file:` blocks: the file name
    reason: str = ""  # `norun:` blocks
    where: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "where", f"{self.page.relative_to(REPO)}:{self.line}")

    def source(self) -> str:
        """The block's text with its substitutions made."""
        code = self.code
        for old, new in self.subs:
            assert old in code, f"{self.where}: sub {old!r} is not in the block"
            code = code.replace(old, new)
        return code


def pages() -> list[Path]:
    """README.md and every page of the site, in a stable order."""
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def _mark(page: Path, line: int, text: str) -> dict[str, object]:
    found = MARK.match(text)
    if found is None:
        return {}
    kind, args = found["kind"], found["args"].strip()
    if kind == "norun":
        assert args, f"{page}:{line}: a norun mark says why"
        return {"kind": kind, "reason": args}
    if kind == "file":
        assert args and " " not in args, f"{page}:{line}: a file mark names one file"
        return {"kind": kind, "target": args}
    options: dict[str, object] = {"kind": kind}
    expect: list[str] = []
    subs: list[tuple[str, str]] = []
    for word in shlex.split(args):
        key, sep, value = word.partition("=")
        assert sep, f"{page}:{line}: {word!r} is not key=value"
        if key == "exit":
            options["exit"] = int(value)
        elif key == "expect":
            expect.append(value)
        elif key == "sub":
            old, arrow, new = value.partition("=>")
            assert arrow and old, f"{page}:{line}: sub is OLD=>NEW"
            subs.append((old, new))
        else:
            raise AssertionError(f"{page}:{line}: unknown mark option {key!r}")
    options.update(expect=tuple(expect), subs=tuple(subs))
    return options


def blocks(page: Path) -> list[Block]:
    """Every fenced block of a page (indented ones too, as in a list item)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if opening is None:
            i += 1
            continue
        indent = opening["indent"]
        end = i + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        assert end < len(lines), f"{page}:{i + 1}: a fence that is never closed"
        body = [line.removeprefix(indent) for line in lines[i + 1 : end]]
        mark = _mark(page, i, lines[i - 1]) if i > 0 else {}
        found.append(Block(page, i + 1, opening["lang"], "\n".join(body) + "\n", **mark))
        i = end + 1
    return found


def every_block() -> list[Block]:
    return [b for page in pages() for b in blocks(page)]


def stray_marks() -> list[str]:
    """Marks that no fence follows on the next line: a test would silently never run them."""
    stray: list[str] = []
    for page in pages():
        lines = page.read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            if MARK.match(line) and (i + 1 >= len(lines) or not FENCE.match(lines[i + 1])):
                stray.append(f"{page.relative_to(REPO)}:{i + 1}")
    return stray
