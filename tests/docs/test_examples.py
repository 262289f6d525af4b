"""The code examples of README.md and docs/*.md run as written (the marks of
tests/support/doc_blocks.py say how): each page's marked blocks in one temporary folder, in order,
offline (`fake/const:` models, `python -m proctor.replay` on 127.0.0.1), each with the exit code
stated beside it. Every python block runs, or its mark says why it cannot."""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from support.doc_blocks import REPO, Block, blocks, every_block, pages, stray_marks

RUN_PAGES = [p for p in pages() if any(b.kind in ("run", "file") for b in blocks(p))]


def _bin(folder: Path) -> Path:
    """`proctor` and `python` as a reader has them: this interpreter, this source."""
    bin_dir = folder / ".bin"
    bin_dir.mkdir()
    for name, line in (("proctor", "-m proctor"), ("python", ""), ("python3", "")):
        shim = bin_dir / name
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" {line} "$@"\n', encoding="utf-8")
        shim.chmod(shim.stat().st_mode | stat.S_IEXEC)
    return bin_dir


def _env(bin_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    for key in ("PROCTOR_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "RAY_ADDRESS"):
        env.pop(key, None)
    src = str(REPO / "src")
    env["PYTHONPATH"] = os.pathsep.join([src, *filter(None, [env.get("PYTHONPATH")])])
    env.update({"PATH": f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", "COLUMNS": "100",
                "NO_COLOR": "1", "TERM": "dumb", "PYTHONUNBUFFERED": "1"})  # fmt: skip
    return env


def _run(block: Block, folder: Path, env: dict[str, str], groups: list[int]) -> None:
    if block.kind == "file":
        (folder / block.target).write_text(block.source(), encoding="utf-8")
        return
    if block.lang == "python":
        command = [sys.executable, "-c", block.source()]
    else:
        command = ["bash", "-e", "-o", "pipefail", "-c", block.source()]
    # its own process group: a server a block leaves in the background is stopped with the page
    proc = subprocess.Popen(
        command, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL, text=True, start_new_session=True,
    )  # fmt: skip
    groups.append(proc.pid)
    out, err = proc.communicate(timeout=600)
    said = f"{block.where}:\n{block.source()}\n--- stdout\n{out}\n--- stderr\n{err}"
    assert proc.returncode == block.exit, f"exit {proc.returncode}, not {block.exit}: {said}"
    printed = " ".join((out + err).split())  # a line the terminal wrapped reads as one
    for text in block.expect:
        assert " ".join(text.split()) in printed, f"{text!r} not printed: {said}"


@pytest.mark.parametrize("page", RUN_PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_the_pages_examples_run_as_written(page: Path, tmp_path: Path) -> None:
    env = _env(_bin(tmp_path))
    groups: list[int] = []
    try:
        for block in blocks(page):
            if block.kind in ("run", "file"):
                _run(block, tmp_path, env, groups)
    finally:
        for group in groups:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(group, signal.SIGTERM)


def test_every_python_block_runs_or_says_why_not() -> None:
    unmarked = [b.where for b in every_block() if b.lang == "python" and not b.kind]
    assert not unmarked, f"python blocks with no run/file/norun mark: {unmarked}"


def test_every_mark_is_on_the_line_before_a_fence() -> None:
    assert not stray_marks(), f"marks no fence follows: {stray_marks()}"


def test_marked_blocks_are_code_a_test_can_run() -> None:
    for block in every_block():
        if block.kind == "run":
            assert block.lang in ("bash", "python"), f"{block.where}: run marks bash or python"


def test_the_pages_have_examples_that_run() -> None:
    ran = [b for b in every_block() if b.kind == "run"]
    assert len(ran) >= 10, "the documentation's examples are run, not only written"
