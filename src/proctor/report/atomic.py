"""Write a file so that a reader sees the old one or the new one, never half of one."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TextIO


def write_text_atomic(path: Path, text: str) -> Path:
    """Write `text` as UTF-8 (no BOM, no newline translation) through a temp file + os.replace."""
    return write_atomic(path, lambda handle: handle.write(text))


def write_atomic(path: Path, write: Callable[[TextIO], object]) -> Path:
    """Like `write_text_atomic`, with `write` streaming into the file: a big file (samples.csv of
    100,000 answers) is never held whole in memory."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        raise
    return path
